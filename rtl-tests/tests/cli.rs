//! `sgpu-cosim`'s output, as `ptxas-rs` writes it: files (src/output.rs: a dump to a device
//! is written in place, and a waveform or dump that cannot be written is an error naming its
//! path, exit 1, before anything runs, where Verilator would write nothing and say nothing),
//! and what the kernel printed with device printf.

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

/// What a kernel printed with device printf comes out of `sgpu-cosim` as the model prints it
/// (`tests/kernels/printf.ptx`: two CTAs, several warps, doubles and strings), before the
/// run's report.
#[test]
fn device_printf_is_printed_after_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::source("tests/kernels/printf.ptx");
    let program = common::program_of(&source, "printf.ptx");
    let (module, _) = ptx_grammar::parse(&source);
    let assembled =
        ptx_encoder::assemble(&source, "printf.ptx", &module, &Default::default()).unwrap();
    std::fs::write(dir.path().join("k.elf"), assembled.elf).unwrap();
    let manifest = "grid = [2]\nblock = [40]\nparams = [{ buffer = \"out\" }]\n\
                    [buffers.out]\nsize = 1280\n";
    std::fs::write(dir.path().join("k.toml"), manifest).unwrap();
    let mut model = sgpu_sim::launch::prepare(manifest, dir.path(), &program).unwrap();
    let ran = sgpu_sim::run(
        &program,
        &mut model.global,
        &model.surfaces,
        &model.launch,
        |_, _, _| {},
    );
    ran.unwrap();
    let want = sgpu_sim::printf::printed(&model.global, &program).expect("a printf buffer");
    assert!(want.text.len() > 1000 && want.problems.is_empty());

    let run = cosim(dir.path(), &["k.elf", "--launch", "k.toml"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{err}");
    let (printed, report) = run.stdout.split_at(want.text.len().min(run.stdout.len()));
    assert_eq!(
        String::from_utf8_lossy(printed),
        String::from_utf8_lossy(&want.text)
    );
    assert!(String::from_utf8_lossy(report).contains("cycles"), "{err}");
}
