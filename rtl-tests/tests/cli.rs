//! `sgpu-cosim`'s output files, as `ptxas-rs` writes them (src/output.rs): a dump to a device
//! is written in place, and a waveform or dump that cannot be written is an error naming its
//! path, exit 1, before anything runs (Verilator would otherwise write no waveform and say
//! nothing).

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn cosim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sgpu-cosim"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run sgpu-cosim")
}

/// The example kernel assembled into `dir`, with its manifest beside it.
fn example(dir: &Path) {
    let examples = common::workspace().join("examples");
    let source = std::fs::read_to_string(examples.join("reduce.ptx")).unwrap();
    let (module, _) = ptx_grammar::parse(&source);
    let assembled =
        ptx_encoder::assemble(&source, "reduce.ptx", &module, &Default::default()).unwrap();
    std::fs::write(dir.join("k.elf"), assembled.elf).unwrap();
    let manifest = std::fs::read_to_string(examples.join("reduce.toml")).unwrap();
    std::fs::write(dir.join("k.toml"), manifest).unwrap();
    std::fs::copy(
        examples.join("reduce-input.bin"),
        dir.join("reduce-input.bin"),
    )
    .unwrap();
}

#[test]
fn outputs_go_to_devices_in_place_and_missing_folders_are_errors() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    example(dir.path());
    let ok = cosim(
        dir.path(),
        &["k.elf", "--launch", "k.toml", "--dump", "out=/dev/null"],
    );
    let err = String::from_utf8_lossy(&ok.stderr);
    assert_eq!(ok.status.code(), Some(0), "{err}");
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device(), "/dev/null was replaced");

    let vcd = cosim(
        dir.path(),
        &["k.elf", "--launch", "k.toml", "--vcd", "/nonexistent/x.vcd"],
    );
    let err = String::from_utf8_lossy(&vcd.stderr);
    assert_eq!(vcd.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write /nonexistent/x.vcd: the directory /nonexistent does not exist"),
        "{err}"
    );
    let dump = cosim(
        dir.path(),
        &[
            "k.elf",
            "--launch",
            "k.toml",
            "--dump",
            "out=/nonexistent/o.bin",
        ],
    );
    let err = String::from_utf8_lossy(&dump.stderr);
    assert_eq!(dump.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write /nonexistent/o.bin") && !err.contains(".tmp"),
        "{err}"
    );
}
