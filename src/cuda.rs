//! `ptxas-rs cuda`: CUDA C to a run on the golden model in one command. Debian's clang-16
//! compiles the kernel to PTX with `include/sgpu_cuda.h` (CUDA's device API over clang's
//! builtins, so no CUDA SDK is needed); the PTX is then assembled and run as `ptxas-rs
//! FILE.ptx -o FILE.elf` and `ptxas-rs run FILE.elf` would (docs/cuda.md).

use crate::cli::BAD_INPUT;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler, as Debian's package `clang-16` installs it.
const CLANG: &str = "clang-16";

/// The header, built into the binary so that the command works from any folder.
const HEADER: &str = include_str!("../include/sgpu_cuda.h");

/// Compiles `input` to PTX at `ptx`, writing the header into the folder `scratch`; `false`
/// when clang reported errors (on standard error, as it printed them). The co-simulation's
/// tests compile the CUDA examples with it too.
pub fn compile(input: &Path, ptx: &Path, scratch: &Path) -> Result<bool> {
    let header = scratch.join("sgpu_cuda.h");
    std::fs::write(&header, HEADER).with_context(|| format!("writing {}", header.display()))?;
    let status = Command::new(CLANG)
        .args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
        ])
        .args(["--cuda-gpu-arch=sm_80", "-O2", "-S"])
        // Without a CUDA SDK clang assumes PTX too old for the `*_sync` warp builtins;
        // PTX 7.0 is sm_80's (and what the assembler reads).
        .args([
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
            "-include",
        ])
        .arg(&header)
        .arg("-o")
        .arg(ptx)
        .arg(input)
        .status()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => anyhow::anyhow!(
                "`{CLANG}` not found: `ptxas-rs cuda` compiles with Debian's package `{CLANG}` \
                 (apt-get install {CLANG})"
            ),
            _ => anyhow::anyhow!("cannot run `{CLANG}`: {e}"),
        })?;
    if !status.success() {
        eprintln!(
            "ptxas-rs: error: {CLANG} could not compile {}",
            input.display()
        );
    }
    Ok(status.success())
}

/// Compiles `input` and assembles its PTX into the folder `scratch` (the PTX at `keep_ptx`
/// when given): the ELF, or the exit status of the step that failed (its messages printed).
/// `cuda` and `sgpu-cosim FILE.cu` take their input to an ELF with it.
pub fn compile_into(
    input: &Path,
    keep_ptx: Option<&Path>,
    scratch: &Path,
) -> Result<Result<PathBuf, u8>> {
    let stem = input.file_stem().unwrap_or(input.as_os_str());
    let ptx: PathBuf = match keep_ptx {
        Some(path) => path.to_path_buf(),
        None => scratch.join(stem).with_extension("ptx"),
    };
    if !compile(input, &ptx, scratch)? {
        return Ok(Err(BAD_INPUT));
    }
    crate::run::assemble_into(&ptx, scratch)
}

/// Compiles, assembles and runs: the exit status of the first step that fails, or of the run.
pub fn run(
    input: &Path,
    keep_ptx: Option<&Path>,
    launch: &Path,
    options: &crate::run::Options<'_>,
) -> Result<u8> {
    let scratch = tempfile::tempdir().context("creating a temporary folder")?;
    match compile_into(input, keep_ptx, scratch.path())? {
        Ok(elf) => crate::run::run_kernel(&elf, launch, options),
        Err(status) => Ok(status),
    }
}
