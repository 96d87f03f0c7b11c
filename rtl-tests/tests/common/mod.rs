//! What the tests share: building a testbench with Verilator (kept between runs), running it
//! on a file of inputs, and random numbers.
// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("rtl-tests sits in the workspace")
        .to_path_buf()
}

/// Builds the C++ testbench `testbench` around the module `top` of the files `rtl` (package
/// first; paths from the workspace root) into a directory kept between runs, again only
/// when one of them has changed. Returns the executable.
pub fn testbench(top: &str, rtl: &[&str], testbench: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(top);
    let sources: Vec<PathBuf> = rtl
        .iter()
        .chain([&testbench])
        .map(|s| workspace().join(s))
        .collect();
    let tb = workspace().join("rtl-tests/tb");
    let stamp: String = sources
        .iter()
        .chain([&tb.join("tb.h")])
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let exe = dir.join(format!("V{top}"));
    let stamp_file = dir.join("sources.stamp");
    if exe.exists() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return exe;
    }
    // A stale build is thrown away whole: Verilator's make would not see a changed package.
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new("verilator")
        .args(["--cc", "--exe", "--build", "-j", "2", "-O2"])
        .args(["--top-module", top, "-CFLAGS"])
        .arg(format!("-I{}", tb.display()))
        .arg("-Mdir")
        .arg(&dir)
        .args(&sources)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run verilator ({e}): this test needs Verilator 5.006 or later \
                 (`apt-get install verilator`)"
            )
        });
    assert!(
        output.status.success(),
        "verilator failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(&stamp_file, stamp).expect("write the build stamp");
    exe
}

/// Runs the testbench `exe` on `input` (one line per case), which it reads from a file
/// named in its one argument, and returns what it prints: one line per case.
pub fn run(exe: &Path, input: &str) -> Vec<String> {
    let name = exe.file_name().expect("an executable").to_string_lossy();
    let file = std::env::temp_dir().join(format!("{name}-{}.txt", std::process::id()));
    std::fs::write(&file, input).expect("write the testbench's input");
    let output = Command::new(exe)
        .arg(&file)
        .output()
        .expect("run the testbench");
    let _ = std::fs::remove_file(&file);
    assert!(
        output.status.success(),
        "the testbench failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("the testbench prints hexadecimal");
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), input.lines().count(), "one line per case");
    lines
}

/// The hexadecimal numbers of a line the testbench printed.
pub fn hex_values(line: &str) -> Vec<u64> {
    line.split(' ')
        .map(|v| u64::from_str_radix(v, 16).expect("a hexadecimal value"))
        .collect()
}

/// Reproducible random numbers: the random program generator's.
pub use rtl_tests::random::Rng;
