//! `cargo xtask codegen [--check]`: generates the Rust, SystemVerilog and Markdown views of
//! the ISA table (`isa/sgpu.isa`) and the special function unit's coefficient tables, or with
//! `--check` fails if a committed file is stale.

mod isa;
mod mufu;

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["codegen"] => codegen(false),
        ["codegen", "--check"] => codegen(true),
        _ => bail!("usage: cargo xtask codegen [--check]"),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn codegen(check: bool) -> Result<()> {
    let root = root();
    let source = std::fs::read_to_string(root.join("isa/sgpu.isa")).context("isa/sgpu.isa")?;
    let intro = std::fs::read_to_string(root.join("isa/intro.md")).context("isa/intro.md")?;
    let table = match isa::table::load(&source) {
        Ok(t) => t,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            bail!("{} error(s) in isa/sgpu.isa", errors.len());
        }
    };
    let outputs = [
        (
            "isa/src/generated.rs",
            rustfmt(&isa::rust::generate(&table))?,
        ),
        ("hw/sgpu_isa_pkg.sv", isa::sv::generate(&table)),
        ("docs/isa.md", isa::doc::generate(&table, &intro)),
        ("sim/src/mufu/tables.rs", rustfmt(&mufu::generate())?),
    ];
    let mut stale = Vec::new();
    for (path, text) in outputs {
        let file = root.join(path);
        let current = std::fs::read_to_string(&file).unwrap_or_default();
        if current == text {
            continue;
        }
        if check {
            stale.push(path);
        } else {
            std::fs::write(&file, text).with_context(|| path.to_string())?;
            eprintln!("wrote {path}");
        }
    }
    if !stale.is_empty() {
        bail!(
            "generated files are stale (run `cargo xtask codegen`): {}",
            stale.join(", ")
        );
    }
    Ok(())
}

/// Formats generated Rust with the toolchain's rustfmt, so it reads like the rest.
fn rustfmt(code: &str) -> Result<String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running rustfmt")?;
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(code.as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!(
            "rustfmt rejected the generated code:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8(out.stdout)?)
}
