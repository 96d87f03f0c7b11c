//! `sgpu-cosim FILE --launch LAUNCH.toml`: runs a kernel on the Verilated RTL core in
//! lock-step with the golden model (docs/cosim.md). FILE is an ELF from `ptxas-rs`, or PTX
//! (assembled first, as `ptxas-rs run` assembles it), or CUDA C (compiled by clang-16 first,
//! as `ptxas-rs cuda` compiles it). It takes the manifest of `ptxas-rs run`,
//! shows and writes the same `--print` values and `--dump` files (after a trap too), prints
//! what the kernel printed with device printf, and exits with a status of its own for each
//! outcome ([`EXIT_STATUSES`]).

use anyhow::{Context, Result};
use clap::Parser;
use rtl_tests::cosim::{self, Failure, Options};
use rtl_tests::port::Timing;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit statuses, as `--help` and docs/cosim.md list them.
const DONE: u8 = 0;
const BAD_INPUT: u8 = 1;
const MISMATCH: u8 = 2;
const TRAPPED: u8 = 3;
const CYCLE_LIMIT: u8 = 4;

const EXIT_STATUSES: &str = "Exit status: 0 the kernel finished and the RTL matched the model \
    throughout; 1 bad input or usage (nothing ran: a missing file, a bad option or manifest, \
    an instruction the core has no unit for); 2 the RTL and the model differ (or an RTL \
    assertion failed); 3 both trapped alike; 4 the run passed --max-cycles with no \
    difference found.";

#[derive(Parser)]
#[command(
    name = "sgpu-cosim",
    about = "Runs an sgpu kernel (ELF, PTX or CUDA C) on the RTL in lock-step with the golden model",
    after_help = EXIT_STATUSES
)]
struct Args {
    /// The kernel: an ELF file (from `ptxas-rs`), a PTX file (`.ptx`: assembled first with
    /// the default options) or a CUDA C file (`.cu`: compiled with clang-16 as `ptxas-rs cuda`
    /// compiles it, then assembled).
    input: PathBuf,
    /// With a CUDA C file: also writes the PTX clang made to this file (messages then name
    /// it).
    #[arg(long, value_name = "FILE.ptx")]
    ptx: Option<PathBuf>,
    /// The launch manifest (docs/launch.md).
    #[arg(long)]
    launch: PathBuf,
    /// Writes buffer or surface NAME's final bytes to PATH (after a trap too: the memory at
    /// the trap).
    #[arg(long, value_name = "NAME=PATH")]
    dump: Vec<String>,
    /// Shows the first values of a buffer or surface, as `ptxas-rs run --print` does: u8..u64,
    /// s8..s64, b8..b64 (hex), f16, bf16, f32 or f64 (default: the manifest's type, else u32).
    #[arg(long, value_name = "NAME[:TYPE]")]
    print: Vec<String>,
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
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            // Help and version go to stdout and succeed; a usage error is bad input, not the
            // status of a mismatch (clap's own choice, 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { BAD_INPUT } else { DONE });
        }
    };
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("sgpu-cosim: error: {e:#}");
            ExitCode::from(BAD_INPUT)
        }
    }
}

/// The ELF of `args.input`: itself, or what compiling and assembling it wrote into `scratch`,
/// as `ptxas-rs cuda` and `run` do; the failing step's exit status when clang or the
/// assembler refused it (and printed why).
fn elf_of(args: &Args, scratch: &Path) -> Result<Result<PathBuf, u8>> {
    let input = &args.input;
    let cuda = input.extension().is_some_and(|e| e == "cu");
    if args.ptx.is_some() && !cuda {
        anyhow::bail!(
            "--ptx keeps the PTX of a CUDA C file (`.cu`), and {} is not one",
            input.display()
        );
    }
    if cuda {
        ptxas_rs::cuda::compile_into(input, args.ptx.as_deref(), scratch)
    } else if input.extension().is_some_and(|e| e == "ptx") {
        ptxas_rs::run::assemble_into(input, scratch)
    } else {
        Ok(Ok(input.clone()))
    }
}

fn run(args: &Args) -> Result<u8> {
    let scratch = tempfile::tempdir().context("creating a temporary folder")?;
    let elf = match elf_of(args, scratch.path())? {
        Ok(elf) => elf,
        Err(status) => return Ok(status),
    };
    let bytes = std::fs::read(&elf).with_context(|| format!("cannot read {}", elf.display()))?;
    let program = sgpu_sim::program::Program::load(&bytes, sgpu_sim::memory::GLOBAL_BASE)
        .map_err(|e| anyhow::anyhow!("{}: {e}", elf.display()))?;
    let text = std::fs::read_to_string(&args.launch)
        .with_context(|| format!("cannot read {}", args.launch.display()))?;
    let dir = args.launch.parent().unwrap_or(Path::new("."));
    let mut prepared = sgpu_sim::launch::prepare(&text, dir, &program)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.launch.display()))?;
    // The requests are checked before the run, which takes minutes where the model takes
    // seconds.
    let requests =
        ptxas_rs::show::requests(&prepared, &args.dump, &args.print).map_err(anyhow::Error::msg)?;
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
        Ok(r) => (r, DONE),
        Err(Failure::Input(why)) => anyhow::bail!("{why}"),
        Err(Failure::Mismatch(what)) => {
            eprintln!("sgpu-cosim: {what}");
            return Ok(MISMATCH);
        }
        Err(Failure::CycleLimit(what)) => {
            eprintln!("sgpu-cosim: {what}");
            return Ok(CYCLE_LIMIT);
        }
        Err(Failure::Trap(trap, r)) => {
            eprintln!("{trap}");
            (r, TRAPPED)
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
    // After a trap both agree on too: the memory at the trap is what a person debugs with.
    let mut shown = String::new();
    ptxas_rs::show::deliver(&mut shown, &prepared, &requests)?;
    print!("{shown}");
    Ok(code)
}
