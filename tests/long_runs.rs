//! A kernel that never ends, run by the `ptxas-rs` binary: the instruction limit (the
//! option and the manifest key), Ctrl-C, and the state of every warp each stop shows, which
//! is how a person finds a hung kernel's loop.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn ptxas_rs() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/run")
        .join(name)
}

/// `spin.ptx` assembled into `dir`, and a manifest beside it with `extra` keys.
fn spin(dir: &Path, extra: &str) -> (PathBuf, PathBuf) {
    let elf = dir.join("spin.elf");
    let asm = ptxas_rs()
        .arg(fixture("spin.ptx"))
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(asm.status.success(), "{}", text(&asm.stderr));
    let manifest = dir.join("spin.toml");
    let base = std::fs::read_to_string(fixture("spin.toml")).unwrap();
    std::fs::write(&manifest, format!("{extra}\n{base}")).unwrap();
    (elf, manifest)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn run(elf: &Path, manifest: &Path, args: &[&str]) -> Output {
    ptxas_rs()
        .arg("run")
        .arg(elf)
        .arg("--launch")
        .arg(manifest)
        .args(args)
        .output()
        .unwrap()
}

/// The lines after the trap's: one a warp, where it is.
fn warp_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("  warp ")).collect()
}

/// Warp 1 waits at the barrier of line 19 while warp 0 spins in lines 21 to 23.
fn assert_shows_both_warps(err: &str) {
    let warps = warp_lines(err);
    assert_eq!(warps.len(), 2, "{err}");
    assert!(
        warps[0].starts_with("  warp 0: running, active 0xffffffff, pc 0x"),
        "{err}"
    );
    let line: u32 = warps[0]
        .split("spin.ptx:")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no line of spin.ptx in {err}"));
    assert!((22..=24).contains(&line), "{err}");
    assert!(
        warps[1].starts_with("  warp 1: waiting at barrier 0, active 0xffffffff, pc 0x")
            && warps[1].ends_with("spin.ptx:19: BAR.SYNC 0x0, RZ"),
        "{err}"
    );
}

#[test]
fn the_option_stops_a_hung_kernel_and_shows_every_warp() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, manifest) = spin(dir.path(), "");
    let out = run(&elf, &manifest, &["--max-instructions", "1000"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.starts_with("trap: "), "{err}");
    assert!(
        err.lines()
            .next()
            .unwrap()
            .contains("ran past 1000 warp instructions (CTA (0, 0, 0), warp 0)"),
        "{err}"
    );
    assert_shows_both_warps(&err);
}

#[test]
fn the_manifest_sets_the_limit_and_the_option_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, manifest) = spin(dir.path(), "max_instructions = 500");
    let out = run(&elf, &manifest, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("ran past 500 warp instructions"));
    let out = run(&elf, &manifest, &["--max-instructions", "700"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("ran past 700 warp instructions"));
}

#[test]
fn a_limit_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, manifest) = spin(dir.path(), "max_instructions = 0");
    let out = run(&elf, &manifest, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).ends_with("`max_instructions` must be a positive integer\n"),
        "{}",
        text(&out.stderr)
    );
    let (elf, manifest) = spin(dir.path(), "");
    let out = run(&elf, &manifest, &["--max-instructions", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--max-instructions"));
}

#[test]
fn ctrl_c_stops_the_run_and_shows_every_warp() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, manifest) = spin(dir.path(), "");
    // The default limit, 2^32 instructions, is minutes away.
    let child = ptxas_rs()
        .arg("run")
        .arg(&elf)
        .arg("--launch")
        .arg(&manifest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Time to start and install the handler (milliseconds); the kernel spins meanwhile.
    std::thread::sleep(Duration::from_millis(1500));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let trap = err.lines().find(|l| l.starts_with("trap: ")).unwrap_or("");
    assert!(
        trap.ends_with("interrupted (CTA (0, 0, 0), warp 0)"),
        "{err}"
    );
    assert_shows_both_warps(&err);
}

#[test]
fn a_missing_kernel_is_named_with_the_kernels_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, _) = spin(dir.path(), "");
    let manifest = dir.path().join("scale.toml");
    std::fs::write(&manifest, "kernel = \"scale\"\nparams = [{ u64 = 0 }]\n").unwrap();
    let out = run(&elf, &manifest, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).ends_with("`kernel`: the program has no kernel `scale`; it has `spin`\n"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn cuda_takes_the_limit_too() {
    let out = ptxas_rs().args(["cuda", "--help"]).output().unwrap();
    assert!(text(&out.stdout).contains("--max-instructions <N>"));
}

#[test]
fn print_and_dump_show_the_memory_at_a_trap() {
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("partial.elf");
    let asm = ptxas_rs()
        .arg(fixture("partial.ptx"))
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(asm.status.success(), "{}", text(&asm.stderr));
    let dump = dir.path().join("out.bin");
    let out = run(
        &elf,
        &fixture("partial.toml"),
        &[
            "--print",
            "out",
            "--dump",
            &format!("out={}", dump.display()),
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("partial.ptx:22: @P0 TRAP: trap instruction"),
        "{err}"
    );
    assert_eq!(
        text(&out.stdout),
        "out as u32: 8 values\n  [ 0] 1 2 3 4 5 6 7 8\n"
    );
    let words: Vec<u8> = (1..=8u32).flat_map(u32::to_le_bytes).collect();
    assert_eq!(std::fs::read(&dump).unwrap(), words);
}
