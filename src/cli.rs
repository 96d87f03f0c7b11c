//! Argument handling, in ptxas's style: `ptxas-rs kernel.ptx -o kernel.elf`.

use crate::render::{render, render_with};
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

#[derive(Args, Debug)]
struct AssembleArgs {
    /// The PTX module to assemble
    input: Option<PathBuf>,
    /// Where to write the ELF (default: the input with `.elf`)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Report what was read, per function, like ptxas -v
    #[arg(short = 'v', long)]
    verbose: bool,
    /// The machine to assemble for
    #[arg(long, value_name = "ARCH", default_value = "sgpu", value_parser = ["sgpu"])]
    arch: String,
    /// Only parse and check the input; write nothing
    #[arg(long)]
    parse_only: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the module as canonical PTX on standard output
    Fmt {
        /// The PTX module to format
        input: PathBuf,
    },
}

/// Exit status for bad input: diagnostics were printed.
const BAD_INPUT: u8 = 1;
/// Exit status for valid input that this version cannot assemble yet.
const NOT_IMPLEMENTED: u8 = 2;

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
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

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Some(Command::Fmt { input }) => {
            let Some((name, source)) = read_source(&input)? else {
                return Ok(BAD_INPUT);
            };
            let Some(module) = front_end(&name, &source) else {
                return Ok(BAD_INPUT);
            };
            let formatted = ptx_grammar::format_module(&module);
            std::io::stdout()
                .write_all(formatted.as_bytes())
                .context("writing standard output")?;
            Ok(0)
        }
        None => assemble(cli.assemble),
    }
}

fn assemble(args: AssembleArgs) -> Result<u8> {
    let Some(input) = args.input else {
        anyhow::bail!("no input file (try `ptxas-rs --help`)");
    };
    let Some((name, source)) = read_source(&input)? else {
        return Ok(BAD_INPUT);
    };
    let Some(module) = front_end(&name, &source) else {
        return Ok(BAD_INPUT);
    };
    if args.verbose {
        report(&module, &args.arch);
    }
    if args.parse_only {
        return Ok(0);
    }
    let output = args.output.unwrap_or_else(|| input.with_extension("elf"));
    eprintln!(
        "ptxas-rs: error: {name} is valid PTX, but the sgpu encoder is not implemented yet, \
         so {} was not written (use --parse-only to check a file)",
        output.display()
    );
    Ok(NOT_IMPLEMENTED)
}

/// The file's name as shown in diagnostics and its text, or `None` after reporting that it
/// is not UTF-8.
fn read_source(path: &Path) -> Result<Option<(String, String)>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some((name, text))),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes());
            // The lossy text is identical up to the first bad byte, so positions agree there;
            // U+FFFD, which replaced the bad byte, is three bytes long.
            let d = Diagnostic::error(Span::new(valid, valid + 3), "the file is not valid UTF-8");
            eprint!("{}", render(&name, &lossy, &d));
            Ok(None)
        }
    }
}

/// Parses and checks; prints every diagnostic. `None` when there were errors.
fn front_end<'s>(name: &str, source: &'s str) -> Option<Module<'s>> {
    let (module, mut diags) = ptx_grammar::parse(source);
    // Checking a tree with syntax errors would report their fallout again.
    if diags.iter().all(|d| !d.is_error()) {
        diags.extend(ptx_grammar::check(&module));
    }
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let lines = ptx_grammar::diag::LineIndex::new(source);
    for d in &diags {
        let _ = err.write_all(render_with(name, &lines, source, d).as_bytes());
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let s = if errors == 1 { "" } else { "s" };
        let _ = writeln!(err, "ptxas-rs: {errors} error{s} in {name}");
        return None;
    }
    Some(module)
}

/// `-v`: what each function holds, in ptxas's `info` voice.
fn report(module: &Module<'_>, arch: &str) {
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
