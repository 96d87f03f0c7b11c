//! `sgpu-cosim`'s output, as `ptxas-rs` writes it: files (src/output.rs: a dump to a device
//! is written in place, and a waveform or dump that cannot be written is an error naming its
//! path, exit 1, before anything runs, where Verilator would write nothing and say nothing),
//! what the kernel printed with device printf, `--print` and `--dump` after a trap, the
//! check that the core has a unit for every instruction, and an exit status per outcome.

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

/// `ptx` (from the workspace) assembled into `dir` as `k.elf`, with `manifest` as `k.toml`.
fn assembled(dir: &Path, ptx: &str, manifest: &str) {
    let source = common::source(ptx);
    let (module, _) = ptx_grammar::parse(&source);
    let assembled = ptx_encoder::assemble(&source, ptx, &module, &Default::default()).unwrap();
    std::fs::write(dir.join("k.elf"), assembled.elf).unwrap();
    std::fs::write(dir.join("k.toml"), manifest).unwrap();
}

/// The example kernel assembled into `dir`, with its manifest beside it.
fn example(dir: &Path) {
    let examples = common::workspace().join("examples");
    let manifest = std::fs::read_to_string(examples.join("reduce.toml")).unwrap();
    assembled(dir, "examples/reduce.ptx", &manifest);
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Usage errors are bad input (1), running past `--max-cycles` has a status of its own (4),
/// and neither is a mismatch (2); `--help` lists them all.
#[test]
fn each_outcome_has_its_own_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    example(dir.path());
    for usage in [
        &["k.elf"][..],
        &["k.elf", "--launch", "k.toml", "--lanes", "abc"],
        &["k.elf", "--launch", "k.toml", "--bogus"],
    ] {
        let run = cosim(dir.path(), usage);
        assert_eq!(run.status.code(), Some(1), "{usage:?}: {}", stderr(&run));
    }
    let run = cosim(
        dir.path(),
        &["k.elf", "--launch", "k.toml", "--max-cycles", "100"],
    );
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(4), "{err}");
    assert!(err.contains("ran past 100 cycles"), "{err}");
    let help = cosim(dir.path(), &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    for status in [
        "0 the kernel finished",
        "1 bad input",
        "2 the RTL and the model differ",
        "3 both trapped",
        "4 the run passed --max-cycles",
    ] {
        assert!(help.contains(status), "{status}: {help}");
    }
}

/// `--print` shows what `ptxas-rs run --print` shows, and `--print` and `--dump` show the
/// memory at a trap both sides agree on (exit status 3).
#[test]
fn print_and_dump_show_the_memory_at_a_trap() {
    let dir = tempfile::tempdir().unwrap();
    let manifest =
        std::fs::read_to_string(common::workspace().join("tests/fixtures/run/partial.toml"))
            .unwrap();
    assembled(dir.path(), "tests/fixtures/run/partial.ptx", &manifest);
    let run = cosim(
        dir.path(),
        &[
            "k.elf",
            "--launch",
            "k.toml",
            "--print",
            "out:s32",
            "--dump",
            "out=out.bin",
        ],
    );
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(
        err.contains("partial.ptx:22: @P0 TRAP: trap instruction"),
        "{err}"
    );
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        out.ends_with("out as s32: 8 values\n  [ 0] 1 2 3 4 5 6 7 8\n"),
        "{out}"
    );
    let words: Vec<u8> = (1..=8u32).flat_map(u32::to_le_bytes).collect();
    assert_eq!(std::fs::read(dir.path().join("out.bin")).unwrap(), words);
    let bad = cosim(
        dir.path(),
        &["k.elf", "--launch", "k.toml", "--print", "nothing"],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("--print: no buffer or surface `nothing`"));
}

/// A CUDA C file runs in one command: compiled by clang-16 and assembled first (`--ptx` keeps
/// the PTX), the result shown as `ptxas-rs cuda --print` shows it, with the cycle count; the
/// kept PTX runs alike; a PTX file with an error gets the assembler's diagnostic, status 1
/// and no run; `--ptx` with another input is a usage error.
#[test]
fn cuda_and_ptx_inputs_are_compiled_and_assembled_first() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = common::workspace();
    let ptx = dir.path().join("saxpy.ptx");
    let ptx = ptx.to_str().unwrap();
    let launch = ["--launch", "examples/cuda/saxpy.toml", "--print", "y"];
    let cuda = cosim(
        &workspace,
        &[&["examples/cuda/saxpy.cu", "--ptx", ptx][..], &launch].concat(),
    );
    assert_eq!(cuda.status.code(), Some(0), "{}", stderr(&cuda));
    let out = String::from_utf8(cuda.stdout).unwrap();
    // y = 2.5 x + y: 2.5 x -3.3 + 1.0 and 2.5 x -3.2 + 0.5 first.
    assert!(
        out.contains(" cycles, 72 warp instructions retired") && out.contains("-7.25       -7.5"),
        "{out}"
    );
    let kept = std::fs::read_to_string(ptx).unwrap();
    assert!(kept.contains(".entry saxpy"), "{kept}");
    let again = cosim(&workspace, &[&[ptx][..], &launch].concat());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let values = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        values(&String::from_utf8(again.stdout).unwrap()),
        values(&out)
    );

    let bad = dir.path().join("bad.ptx");
    std::fs::write(
        &bad,
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n",
    )
    .unwrap();
    let run = cosim(
        &workspace,
        &[&[bad.to_str().unwrap()][..], &launch].concat(),
    );
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("bad.ptx:4:23: error: unknown instruction `bogus`") && run.stdout.is_empty(),
        "{err}"
    );
    let misuse = cosim(
        &workspace,
        &[
            "examples/blend.ptx",
            "--launch",
            "examples/blend.toml",
            "--ptx",
            ptx,
        ],
    );
    assert_eq!(misuse.status.code(), Some(1), "{}", stderr(&misuse));
}
