//! `ptxas-rs run`: runs a kernel on the golden model and tells a person what happened: what
//! the kernel printed (device printf), the kernel and grid, the instructions retired, what it
//! wrote, and the values asked for with `--print`.

use crate::cli::{BAD_INPUT, INTERRUPTED, TRAPPED};
use crate::progress::Progress;
use crate::show;
use anyhow::{Context, Result};
use sgpu_sim::launch::Prepared;
use sgpu_sim::memory::Region;
use sgpu_sim::record::{Retired, Space};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `run` was asked to do besides running.
pub struct Options<'a> {
    /// `--dump NAME=PATH`
    pub dumps: &'a [String],
    /// `--print NAME[:TYPE]`
    pub prints: &'a [String],
    /// `--trace`
    pub trace: bool,
    /// `--max-instructions`, over the manifest's `max_instructions`
    pub max_instructions: Option<u64>,
}

/// Loads the ELF and the manifest, runs, reports, prints and dumps what was asked for.
pub fn run_kernel(input: &Path, manifest: &Path, options: &Options<'_>) -> Result<u8> {
    let bytes = std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    let program = match sgpu_sim::program::Program::load(&bytes, sgpu_sim::memory::GLOBAL_BASE) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ptxas-rs: error: {}: {e}", input.display());
            return Ok(BAD_INPUT);
        }
    };
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut prepared = match sgpu_sim::launch::prepare(&text, dir, &program) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ptxas-rs: error: {}: {e}", manifest.display());
            return Ok(BAD_INPUT);
        }
    };
    // Every request is checked before the run, so that a typo costs no run.
    let requests = match show::requests(&prepared, options.dumps, options.prints) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("ptxas-rs: error: {why}");
            return Ok(BAD_INPUT);
        }
    };
    if let Some(limit) = options.max_instructions {
        prepared.launch.max_instructions = limit;
    }
    prepared.launch.interrupt = crate::progress::interrupt_on_ctrl_c();
    let mut written = Written::new(&prepared.global.regions);
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let mut progress = Progress::new(&prepared.launch, std::io::IsTerminal::is_terminal(&err));
    let result = sgpu_sim::run(
        &program,
        &mut prepared.global,
        &prepared.surfaces,
        &prepared.launch,
        |cta, warp, r| {
            written.note(r);
            if options.trace {
                trace(&mut err, cta, warp, r);
            }
            progress.retired(&mut err, cta);
        },
    );
    progress.finish(&mut err);
    drop(err);
    // What the kernel printed comes first, as a CUDA program's device output comes when the
    // kernel ends; also when it trapped, since it may tell why.
    crate::device_printf::print("ptxas-rs", &program, &prepared)?;
    let mut out = String::new();
    let code = match result {
        Ok(stats) => {
            summary(&mut out, &prepared, &stats, &written);
            0
        }
        Err(mut trap) => {
            trap.location = from_here(&trap.location);
            for w in trap.stopped.iter_mut().flat_map(|s| &mut s.warps) {
                w.location = from_here(&w.location);
            }
            eprintln!("{trap}");
            match trap.cause {
                sgpu_sim::Cause::Interrupted => INTERRUPTED,
                _ => TRAPPED,
            }
        }
    };
    // After a trap too: the memory at the trap is what a person debugs with.
    show::deliver(&mut out, &prepared, &requests)?;
    std::io::stdout()
        .write_all(out.as_bytes())
        .context("writing standard output")?;
    Ok(code)
}

/// Assembles `ptx` with the default options into the folder `scratch`: the ELF, or the
/// assembler's exit status when it fails (its diagnostics printed). `run FILE.ptx`, `cuda`
/// and `sgpu-cosim` take their input to an ELF with it.
pub fn assemble_into(ptx: &Path, scratch: &Path) -> Result<Result<PathBuf, u8>> {
    let stem = ptx.file_stem().unwrap_or(ptx.as_os_str());
    let elf = scratch.join(stem).with_extension("elf");
    Ok(match crate::cli::assemble_file(ptx, &elf)? {
        0 => Ok(elf),
        status => Err(status),
    })
}

/// Assembles `ptx` with the default options into the folder `scratch` and runs it: the exit
/// status of the assembly when it fails, else of the run.
pub fn run_ptx(ptx: &Path, scratch: &Path, manifest: &Path, options: &Options<'_>) -> Result<u8> {
    match assemble_into(ptx, scratch)? {
        Ok(elf) => run_kernel(&elf, manifest, options),
        Err(status) => Ok(status),
    }
}

/// A `PATH:LINE` location with the path relative to the working directory when the file is
/// below it (the assembler records absolute paths), so that it is short and opens from here.
fn from_here(location: &str) -> String {
    let Some((path, line)) = location.rsplit_once(':') else {
        return location.to_string();
    };
    let here = std::env::current_dir().ok();
    match here
        .as_deref()
        .and_then(|d| Path::new(path).strip_prefix(d).ok())
    {
        Some(relative) => format!("{}:{line}", relative.display()),
        None => location.to_string(),
    }
}

fn trace(err: &mut impl Write, cta: u32, warp: u32, r: &Retired) {
    let text = sgpu_isa::decode(r.word)
        .map(|i| i.to_string())
        .unwrap_or_default();
    let _ = writeln!(
        err,
        "cta {cta} warp {warp} /*{:04x}*/ {:08x} {text}",
        r.pc * 8,
        r.mask
    );
}

/// Which bytes of each global allocation the kernel stored to, one bit a byte, each
/// allocation's bits made on its first store.
struct Written {
    /// (base, length) of each allocation, in address order as [`Region`]s are.
    bounds: Vec<(u64, u64)>,
    bits: Vec<Vec<u64>>,
}

impl Written {
    fn new(regions: &[Region]) -> Written {
        Written {
            bounds: regions
                .iter()
                .map(|r| (r.base, r.bytes.len() as u64))
                .collect(),
            bits: vec![Vec::new(); regions.len()],
        }
    }

    fn note(&mut self, r: &Retired) {
        for s in r.stores().iter().filter(|s| s.space == Space::Global) {
            // A store the model took lies inside one allocation; the check costs little.
            let Some(i) = self
                .bounds
                .partition_point(|&(base, _)| base <= s.address)
                .checked_sub(1)
            else {
                continue;
            };
            let (base, len) = self.bounds[i];
            if s.address.saturating_add(u64::from(s.len)) > base + len {
                continue;
            }
            let bits = &mut self.bits[i];
            if bits.is_empty() {
                bits.resize(len.div_ceil(64) as usize, 0);
            }
            for at in s.address - base..s.address - base + u64::from(s.len) {
                bits[(at / 64) as usize] |= 1 << (at % 64);
            }
        }
    }

    /// Bytes stored to in allocation `i`.
    fn bytes(&self, i: usize) -> u64 {
        self.bits[i].iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// What ran and what it did, in a few lines.
fn summary(out: &mut String, p: &Prepared, stats: &sgpu_sim::Stats, written: &Written) {
    use std::fmt::Write;
    let l = &p.launch;
    let [gx, gy, gz] = l.grid;
    let [bx, by, bz] = l.block;
    let _ = writeln!(
        out,
        "ran {}: grid {gx} x {gy} x {gz}, block {bx} x {by} x {bz}",
        l.kernel
    );
    let _ = writeln!(
        out,
        "retired {} warp instructions, {} thread instructions",
        stats.warp_instructions, stats.thread_instructions
    );
    let wrote: Vec<String> = p
        .global
        .regions
        .iter()
        .enumerate()
        .filter(|&(i, _)| written.bytes(i) > 0)
        .map(|(i, r)| {
            let (n, len) = (written.bytes(i), r.bytes.len());
            format!("{} ({n} of {len} bytes)", allocation(&r.name))
        })
        .collect();
    if wrote.is_empty() {
        let _ = writeln!(out, "wrote nothing to global memory");
    } else {
        let _ = writeln!(out, "wrote {}", wrote.join(", "));
    }
}

/// An allocation as the manifest names it: `launch` calls a surface's data
/// `surfaces.NAME`, and its own allocations `(module data)` and such.
fn allocation(region: &str) -> String {
    match region.strip_prefix("surfaces.") {
        Some(name) => format!("surface {name}"),
        None if region.starts_with('(') => region.to_string(),
        None => format!("buffer {region}"),
    }
}
