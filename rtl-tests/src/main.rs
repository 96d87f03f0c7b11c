//! `sgpu-cosim FILE.elf --launch LAUNCH.toml`: runs a kernel on the Verilated RTL core in
//! lock-step with the golden model (docs/cosim.md). It takes the manifest of `ptxas-rs run`,
//! writes the same dumps, prints what the kernel printed with device printf, and exits
//! alike: 0 done, 1 bad input, 2 the RTL and the model differ, 3 a trap both agree on.

use anyhow::{Context, Result};
use clap::Parser;
use rtl_tests::cosim::{self, Failure, Options};
use rtl_tests::port::Timing;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "sgpu-cosim",
    about = "Runs an sgpu ELF on the RTL in lock-step with the golden model"
)]
struct Args {
    /// The ELF file (from `ptxas-rs`).
    elf: PathBuf,
    /// The launch manifest (docs/launch.md).
    #[arg(long)]
    launch: PathBuf,
    /// Writes buffer or surface NAME's final bytes to PATH.
    #[arg(long, value_name = "NAME=PATH")]
    dump: Vec<String>,
    /// Writes a waveform of the whole run (slow: tracing costs about 17x).
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Stops the run after this many cycles.
    #[arg(long, default_value_t = 200_000_000)]
    max_cycles: u64,
    /// Physical lanes of the core.
    #[arg(long, default_value_t = 8)]
    lanes: u32,
    /// Warps of the core.
    #[arg(long, default_value_t = 8)]
    warps: u32,
    /// Runs yosys's gate-level netlist of the core instead of its RTL: built for 1 lane and
    /// 1 warp (docs/cosim.md, "Gate level").
    #[arg(long)]
    netlist: bool,
    /// Cycles from a memory request to its answer (every request accepted at once).
    #[arg(long, default_value_t = 4, conflicts_with = "memory_seed")]
    latency: u64,
    /// Random memory timing from this seed instead: requests refused, latencies spread and
    /// answers held back, as the tests run (docs/cosim.md, "Memory timing").
    #[arg(long, value_name = "SEED")]
    memory_seed: Option<u64>,
    /// Starts the registers that reset leaves alone at random values of this seed (X
    /// checking) instead of zero.
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    x_seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("sgpu-cosim: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &Args) -> Result<u8> {
    let bytes =
        std::fs::read(&args.elf).with_context(|| format!("cannot read {}", args.elf.display()))?;
    let program = sgpu_sim::program::Program::load(&bytes, sgpu_sim::memory::GLOBAL_BASE)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.elf.display()))?;
    let text = std::fs::read_to_string(&args.launch)
        .with_context(|| format!("cannot read {}", args.launch.display()))?;
    let dir = args.launch.parent().unwrap_or(Path::new("."));
    let mut prepared = sgpu_sim::launch::prepare(&text, dir, &program)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.launch.display()))?;
    let mut dumps = Vec::new();
    for d in &args.dump {
        let (name, path) = d
            .split_once('=')
            .with_context(|| format!("--dump {d}: expected NAME=PATH"))?;
        if sgpu_sim::launch::bytes_of(&prepared, name).is_none() {
            anyhow::bail!("--dump {d}: the manifest has no buffer or surface `{name}`");
        }
        dumps.push((name.to_string(), PathBuf::from(path)));
    }
    if let Some(vcd) = &args.vcd {
        // Verilator opens the waveform itself and says nothing when it cannot.
        ptxas_rs::output::check_writable(vcd)?;
    }
    let options = Options {
        lanes: args.lanes,
        warps: args.warps,
        netlist: args.netlist,
        memory: match args.memory_seed {
            Some(seed) => Timing::Random(seed),
            None => Timing::Fixed(args.latency),
        },
        max_cycles: args.max_cycles,
        x_seed: args.x_seed,
        vcd: args.vcd.clone(),
        ..Options::default()
    };
    let started = std::time::Instant::now();
    let (report, code) = match cosim::run(&program, &mut prepared, &options) {
        Ok(r) => (r, 0),
        Err(Failure::Input(why)) => anyhow::bail!("{why}"),
        Err(Failure::Mismatch(what)) => {
            eprintln!("sgpu-cosim: {what}");
            return Ok(2);
        }
        Err(Failure::Trap(trap, r)) => {
            eprintln!("{trap}");
            (r, 3)
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    // What the kernel printed, as `ptxas-rs run` shows it: also after a trap, which it may
    // explain.
    ptxas_rs::device_printf::print("sgpu-cosim", &program, &prepared)?;
    println!(
        "{} cycles, {} warp instructions retired, IPC {:.3} ({:.2} M cycles/s)",
        report.cycles,
        report.retired,
        report.ipc(),
        report.cycles as f64 / seconds.max(1e-9) / 1e6
    );
    if code == 0 {
        for (name, path) in dumps {
            let bytes = sgpu_sim::launch::bytes_of(&prepared, &name).unwrap_or_default();
            ptxas_rs::output::write(&path, bytes)?;
        }
    }
    Ok(code)
}
