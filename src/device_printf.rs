//! What a kernel printed with device printf, shown after the run by `ptxas-rs run` and
//! `sgpu-cosim` alike (docs/hw.md, "Device printf").

use anyhow::{Context, Result};
use sgpu_sim::launch::Prepared;
use sgpu_sim::printf;
use sgpu_sim::program::Program;
use std::io::Write;

/// The records of the kernel's printf buffer on standard output, and what went wrong with
/// them (records dropped for want of room, one never written) as warnings from `tool`.
pub fn print(tool: &str, program: &Program, prepared: &Prepared) -> Result<()> {
    let Some(printed) = printf::printed(&prepared.global, program) else {
        return Ok(());
    };
    std::io::stdout()
        .write_all(&printed.text)
        .context("writing standard output")?;
    for problem in &printed.problems {
        eprintln!("{tool}: warning: printf: {problem}");
    }
    if printed.dropped > 0 {
        let size = prepared
            .global
            .by_name(printf::REGION)
            .map_or(0, |r| r.bytes.len());
        eprintln!(
            "{tool}: warning: printf: {} records did not fit in the printf buffer's {size} \
             bytes and were dropped (the manifest's `printf_buffer` sets its size)",
            printed.dropped
        );
    }
    Ok(())
}
