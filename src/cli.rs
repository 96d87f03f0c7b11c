//! Argument handling, in ptxas's style: `ptxas-rs kernel.ptx -o kernel.elf`.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use ptx_grammar::ast::{Item, Module, Span, Statement};
use ptx_grammar::Diagnostic;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "ptxas-rs",
    version,
    about = "Assemble PTX for the sgpu FPGA soft-GPU",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    assemble: AssembleArgs,
}

/// The options of assembling, spelled as NVIDIA ptxas spells them (`ptxas_flags` takes its
/// single-dash long forms too); docs/ptx-dialect.md says what each means on sgpu.
#[derive(Args, Debug)]
struct AssembleArgs {
    /// The PTX module to assemble (one: ptxas takes several, but sgpu has no linker)
    input: Vec<PathBuf>,
    /// Where to write the ELF (default: the input with `.elf`)
    #[arg(
        short = 'o',
        long = "output-file",
        visible_alias = "output",
        value_name = "FILE"
    )]
    output: Option<PathBuf>,
    /// Report each function's registers and memory
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Registers per thread the allocator may use, 16..=255, or archmin (16) or archmax
    /// (255); beyond them it spills to local memory
    #[arg(long, value_name = "N", default_value_t = ptx_encoder::DEFAULT_REGISTERS,
          value_parser = register_budget)]
    maxrregcount: u32,
    /// The GPU to assemble for: sgpu is the only one (NVIDIA's sm_* and compute_* are not)
    #[arg(long = "gpu-name", visible_alias = "arch", value_name = "GPU",
          default_value = "sgpu", value_parser = gpu_name)]
    arch: String,
    /// Only parse and check the input; write nothing
    #[arg(long)]
    parse_only: bool,
    /// Make every warning an error (nothing is written)
    #[arg(long)]
    warning_as_error: bool,
    /// Print no warnings
    #[arg(short = 'w', long)]
    disable_warnings: bool,
    /// Warn about each function that spills registers to local memory
    #[arg(long)]
    warn_on_spills: bool,
    /// Warn about each function that uses local memory (spills included)
    #[arg(long)]
    warn_on_local_memory_usage: bool,
    /// Optimization level, 0..=3: 0 translates each PTX instruction literally (for debugging),
    /// 1 cleans up locally, 2 also combines and vectorises, 3 also hoists and if-converts
    /// (docs/optimiser.md)
    #[arg(short = 'O', long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,
    #[command(flatten)]
    no_effect: NoEffect,
}

/// ptxas options accepted so that its command lines work, which change nothing on sgpu: the
/// line table is always written.
#[derive(Args, Debug)]
#[allow(dead_code)] // parsed to be accepted, never read: see each option's help
struct NoEffect {
    /// Line information: the ELF always has its PTX line table (docs/elf.md)
    #[arg(long)]
    generate_line_info: bool,
    /// Debug information: the ELF has its line table and nothing more (no DWARF)
    #[arg(short = 'g', long)]
    device_debug: bool,
    /// Address size of the host: 64 only (sgpu's addresses are 64-bit)
    #[arg(short = 'm', long, value_name = "BITS", default_value = "64", value_parser = ["64"])]
    machine: String,
    /// Accepted as ptxas takes it, true or false, and changes nothing: the encoder keeps
    /// each PTX multiply and add as written and never contracts them into a fused one
    #[arg(long, value_name = "BOOL", default_value_t = true, hide_default_value = true,
          action = clap::ArgAction::Set)]
    fmad: bool,
}

/// `--gpu-name`: sgpu. ptxas's names are NVIDIA's GPUs, which a person may well try.
fn gpu_name(text: &str) -> std::result::Result<String, String> {
    match text {
        "sgpu" => Ok(text.to_string()),
        nvidia if nvidia.starts_with("sm_") || nvidia.starts_with("compute_") => Err(format!(
            "`{nvidia}` is an NVIDIA GPU; ptxas-rs assembles for sgpu only (`-arch sgpu`)"
        )),
        _ => Err(format!(
            "`{text}` is not sgpu, the only GPU ptxas-rs assembles for"
        )),
    }
}

/// `--maxrregcount`: a number in 16..=255 or ptxas's `archmin` and `archmax`.
fn register_budget(text: &str) -> std::result::Result<u32, String> {
    const RANGE: std::ops::RangeInclusive<u32> = 16..=255;
    let n = match text {
        "archmin" => *RANGE.start(),
        "archmax" => *RANGE.end(),
        _ => text
            .parse()
            .map_err(|_| format!("`{text}` is not a number, archmin or archmax"))?,
    };
    if RANGE.contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is not in 16..=255"))
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the module as canonical PTX on standard output, comments kept
    ///
    /// Comments are kept as written and in order: one on a line of its own stays on a line of
    /// its own, before what followed it; one after code stays at the end of that line. One
    /// inside a statement, declaration or directive (between operands, in an initializer or a
    /// return or `.callprototype` parameter list) moves to the end of its line; in a statement
    /// written over several lines, those on lines of their own and those after its first `//`
    /// comment go on lines of their own after it. Blank lines are not kept
    /// (docs/ptx-dialect.md, "`ptxas-rs fmt`").
    Fmt {
        /// The PTX module to format
        input: PathBuf,
    },
    /// Print the machine code of an assembled ELF file as sgpu assembly
    Disasm {
        /// The ELF file to read
        input: PathBuf,
    },
    /// Run a kernel of an assembled ELF file (or of a PTX file, assembled first with the
    /// default options) on the golden model
    Run {
        /// The ELF file to run, or a PTX file (`.ptx`) to assemble and run
        input: PathBuf,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Compile a CUDA C file with clang-16, assemble it and run a kernel on the golden model
    Cuda {
        /// The CUDA C file (`__global__` kernels; `extern "C"` keeps their names plain)
        input: PathBuf,
        /// Also write the PTX clang made to this file (diagnostics and traps then name it)
        #[arg(long, value_name = "FILE.ptx")]
        ptx: Option<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
}

/// How `run` and `cuda` run the kernel.
#[derive(Args, Debug)]
struct RunArgs {
    /// The launch manifest: kernel, grid, buffers, surfaces, parameters (docs/launch.md)
    #[arg(long, value_name = "LAUNCH.toml")]
    launch: PathBuf,
    /// Write the final bytes of a buffer or surface to a file
    #[arg(long, value_name = "NAME=PATH")]
    dump: Vec<String>,
    /// Show the first values of a buffer or surface, as u8..u64, s8..s64, b8..b64 (hex),
    /// f16, bf16, f32 or f64 (default: the manifest's array type or surface format, else u32)
    #[arg(long, value_name = "NAME[:TYPE]")]
    print: Vec<String>,
    /// Print every warp instruction as it retires
    #[arg(long)]
    trace: bool,
    /// Stop with a trap after N warp instructions, showing where each warp is (default: the
    /// manifest's `max_instructions`, else 2^32: minutes of the model)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_instructions: Option<u64>,
}

impl RunArgs {
    fn options(&self) -> crate::run::Options<'_> {
        crate::run::Options {
            dumps: &self.dump,
            prints: &self.print,
            trace: self.trace,
            max_instructions: self.max_instructions,
        }
    }
}

/// Exit status when the kernel traps (or runs past its instruction limit).
pub(crate) const TRAPPED: u8 = 3;

/// Exit status when Ctrl-C stopped the run: 128 + SIGINT, as a shell reports it.
pub(crate) const INTERRUPTED: u8 = 130;

/// Exit status for bad input: diagnostics were printed.
pub(crate) const BAD_INPUT: u8 = 1;

pub fn main() -> ExitCode {
    let args = match crate::ptxas_flags::normalize(std::env::args_os().skip(1).collect()) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("ptxas-rs: error: {why}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    let program = std::env::args_os()
        .next()
        .unwrap_or_else(|| "ptxas-rs".into());
    let cli = match Cli::try_parse_from(std::iter::once(program).chain(args)) {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::UnknownArgument => {
            // clap's tip for it (pass it after `--` as a value) would mislead.
            eprintln!("ptxas-rs: error: {}", unknown_argument(&e));
            return ExitCode::from(BAD_INPUT);
        }
        Err(e) => {
            // Help and version go to stdout and succeed; usage errors are bad input.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { BAD_INPUT } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("ptxas-rs: error: {e:#}");
            ExitCode::from(BAD_INPUT)
        }
    }
}

fn unknown_argument(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg).unwrap_or("?");
    crate::ptxas_flags::unknown(arg, text(ContextKind::SuggestedArg))
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Some(Command::Fmt { input }) => {
            let Some((name, source)) = read_source(&input)? else {
                return Ok(BAD_INPUT);
            };
            let Some(module) = front_end(&name, &source, Warnings::default()) else {
                return Ok(BAD_INPUT);
            };
            let formatted = ptx_grammar::format_module(&module);
            std::io::stdout()
                .write_all(formatted.as_bytes())
                .context("writing standard output")?;
            Ok(0)
        }
        Some(Command::Disasm { input }) => {
            let bytes = std::fs::read(&input)
                .with_context(|| format!("cannot read {}", input.display()))?;
            match ptx_encoder::disasm::disassemble(&bytes) {
                Ok(text) => {
                    std::io::stdout()
                        .write_all(text.as_bytes())
                        .context("writing standard output")?;
                    Ok(0)
                }
                Err(e) => {
                    eprintln!("ptxas-rs: error: {}: {e}", input.display());
                    Ok(BAD_INPUT)
                }
            }
        }
        Some(Command::Run { input, run }) => {
            if input.extension().is_some_and(|e| e == "ptx") {
                let scratch = tempfile::tempdir().context("creating a temporary folder")?;
                crate::run::run_ptx(&input, scratch.path(), &run.launch, &run.options())
            } else {
                crate::run::run_kernel(&input, &run.launch, &run.options())
            }
        }
        Some(Command::Cuda { input, ptx, run }) => {
            crate::cuda::run(&input, ptx.as_deref(), &run.launch, &run.options())
        }
        None => assemble(cli.assemble),
    }
}

fn assemble(args: AssembleArgs) -> Result<u8> {
    let input = match args.input.as_slice() {
        [input] => input.clone(),
        [] => anyhow::bail!("no input file (try `ptxas-rs --help`)"),
        more => anyhow::bail!(
            "{} input files: ptxas-rs assembles one PTX module at a time (sgpu has no linker)",
            more.len()
        ),
    };
    if let Some(hint) = not_ptx(&input) {
        eprintln!("ptxas-rs: error: {hint}");
        return Ok(BAD_INPUT);
    }
    let Some((name, source)) = read_source(&input)? else {
        return Ok(BAD_INPUT);
    };
    let warnings = Warnings {
        hide: args.disable_warnings,
        as_errors: args.warning_as_error,
    };
    let Some(module) = front_end(&name, &source, warnings) else {
        return Ok(BAD_INPUT);
    };
    if args.parse_only {
        if args.verbose {
            summary(&module, &args.arch);
        }
        return Ok(0);
    }
    let options = ptx_encoder::Options {
        max_registers: args.maxrregcount,
        opt_level: args.opt_level,
    };
    // The line table names the PTX file by its absolute path, so that a trap or a
    // disassembly names a file that exists wherever they are run from.
    let absolute = std::fs::canonicalize(&input).map_or(name.clone(), |p| p.display().to_string());
    let assembled = match ptx_encoder::assemble(&source, &absolute, &module, &options) {
        Ok(a) => a,
        Err(diags) => {
            report(&name, &source, &diags);
            return Ok(BAD_INPUT);
        }
    };
    if args.verbose {
        resources(&assembled, &args.arch);
    }
    let usage: Vec<Diagnostic> = memory_warnings(&module, &assembled, &args)
        .into_iter()
        .filter_map(|d| warnings.apply(d))
        .collect();
    if !report(&name, &source, &usage) {
        return Ok(BAD_INPUT);
    }
    let output = args.output.unwrap_or_else(|| input.with_extension("elf"));
    crate::output::write(&output, &assembled.elf)?;
    Ok(0)
}

/// What to do with an input that is not PTX by its extension: CUDA C goes through
/// `ptxas-rs cuda`, an ELF file is assembled already.
fn not_ptx(input: &Path) -> Option<String> {
    let name = input.display();
    match input.extension()?.to_str()? {
        "cu" | "cuh" => Some(format!(
            "{name} is CUDA C, not PTX: `ptxas-rs cuda {name} --launch LAUNCH.toml` compiles it \
             with clang-16 and runs it (docs/cuda.md)"
        )),
        "elf" => Some(format!(
            "{name} is an ELF file, not PTX: `ptxas-rs disasm {name}` shows its code, `ptxas-rs \
             run {name} --launch LAUNCH.toml` runs it"
        )),
        _ => None,
    }
}

/// Assembles `input` to `output` with the default options, exactly as `ptxas-rs -o OUTPUT
/// INPUT` does: the exit status, the diagnostics printed.
pub(crate) fn assemble_file(input: &Path, output: &Path) -> Result<u8> {
    let words = [
        "ptxas-rs".as_ref(),
        "-o".as_ref(),
        output.as_os_str(),
        "--".as_ref(),
        input.as_os_str(),
    ];
    let cli = Cli::try_parse_from(words).context("assembling with the default options")?;
    assemble(cli.assemble)
}

/// `--warn-on-spills` and `--warn-on-local-memory-usage`: a warning at each function that
/// spills or uses local memory.
fn memory_warnings(
    module: &Module<'_>,
    a: &ptx_encoder::Assembled,
    args: &AssembleArgs,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in &a.functions {
        let at = function_name_span(module, &f.name);
        if args.warn_on_spills && f.spill_store_bytes > 0 {
            out.push(Diagnostic::warning(
                at,
                format!(
                    "`{}` spills registers to local memory: {} bytes spill stores, {} bytes spill loads",
                    f.name, f.spill_store_bytes, f.spill_load_bytes
                ),
            ));
        }
        if args.warn_on_local_memory_usage && f.local_bytes > 0 {
            out.push(Diagnostic::warning(
                at,
                format!("`{}` uses {} bytes of local memory", f.name, f.local_bytes),
            ));
        }
    }
    out
}

/// Where function `name` is named in the module (the start of the file if it is not, which
/// cannot happen for a function the encoder assembled from it).
fn function_name_span(module: &Module<'_>, name: &str) -> Span {
    module
        .items
        .iter()
        .find_map(|item| match item {
            Item::Function(f) if f.name.text == name => Some(f.name.span),
            _ => None,
        })
        .unwrap_or(Span::new(0, 0))
}

/// `-v`: each function's resources, in ptxas's `info` voice.
fn resources(a: &ptx_encoder::Assembled, arch: &str) {
    if a.const_bytes > 0 {
        eprintln!("ptxas-rs info    : {} bytes cmem[1]", a.const_bytes);
    }
    for f in &a.functions {
        let kind = if f.entry {
            "entry function"
        } else {
            "function"
        };
        eprintln!(
            "ptxas-rs info    : Compiling {kind} '{}' for '{arch}'",
            f.name
        );
        eprintln!("ptxas-rs info    : Function properties for {}", f.name);
        eprintln!(
            "    {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
            f.local_bytes, f.spill_store_bytes, f.spill_load_bytes
        );
        let mut used = format!("Used {} registers", f.registers);
        if f.shared_bytes > 0 {
            used += &format!(", {} bytes smem", f.shared_bytes);
        }
        if f.entry {
            used += &format!(", {} bytes cmem[0]", f.param_bytes);
        }
        eprintln!("ptxas-rs info    : {used}, {} instructions", f.code.len());
    }
}

/// The file's name as shown in diagnostics and its text, or `None` after reporting that it
/// is not UTF-8.
fn read_source(path: &Path) -> Result<Option<(String, String)>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some((name, text))),
        Err(e) => {
            // The error at the first bad byte, and the count.
            eprint!("{}", crate::render::not_utf8(&name, e.as_bytes()));
            Ok(None)
        }
    }
}

/// What becomes of warnings: `-w` hides them, `--warning-as-error` makes them errors.
#[derive(Clone, Copy, Debug, Default)]
struct Warnings {
    hide: bool,
    as_errors: bool,
}

impl Warnings {
    /// The diagnostic as it is to be reported, or `None` when it is hidden.
    fn apply(self, mut d: Diagnostic) -> Option<Diagnostic> {
        if d.is_error() {
            return Some(d);
        }
        if self.hide {
            return None;
        }
        if self.as_errors {
            d.severity = ptx_grammar::diag::Severity::Error;
        }
        Some(d)
    }
}

/// Parses and checks; prints every diagnostic. `None` when there were errors.
fn front_end<'s>(name: &str, source: &'s str, warnings: Warnings) -> Option<Module<'s>> {
    let (module, mut diags) = ptx_grammar::parse(source);
    // The checker passes over what the parser skipped, so errors after a syntax error are
    // reported too; merged so that the file reads top to bottom.
    diags.extend(ptx_grammar::check(&module));
    diags.sort_by_key(|d| d.span.start);
    let diags: Vec<Diagnostic> = diags
        .into_iter()
        .filter_map(|d| warnings.apply(d))
        .collect();
    report(name, source, &diags).then_some(module)
}

/// Prints the diagnostics (at most `render::MAX_ERRORS` errors) and, when there are errors
/// among them, how many; whether there were none.
fn report(name: &str, source: &str, diags: &[Diagnostic]) -> bool {
    crate::render::report(&mut std::io::stderr().lock(), name, source, diags)
}

/// `-v --parse-only`: what each function holds, in ptxas's `info` voice.
fn summary(module: &Module<'_>, arch: &str) {
    for item in &module.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        let (mut instructions, mut declarations) = (0, 0);
        let mut stack = vec![body];
        while let Some(block) = stack.pop() {
            for s in &block.statements {
                match s {
                    Statement::Instr(_) => instructions += 1,
                    Statement::Var(v) => declarations += v.declarators.len(),
                    Statement::Block(b) => stack.push(b),
                    _ => {}
                }
            }
        }
        let kind = match f.kind {
            ptx_grammar::ast::FunctionKind::Entry => "entry",
            ptx_grammar::ast::FunctionKind::Func => "function",
        };
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        eprintln!(
            "ptxas-rs info: {kind} '{}' for '{arch}': {}, {}",
            f.name.text,
            plural(instructions, "instruction"),
            plural(declarations, "declaration")
        );
    }
}
