//! `ptxas-rs cuda` end to end: every example in `examples/cuda/` compiled with clang-16 (which
//! must be installed: these tests fail without it), assembled and run by the command, and
//! its output checked against a Rust computation over the manifest's own inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/cuda")
        .join(file)
}

fn ptxas_rs(args: &[&str], path: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptxas-rs"));
    command.args(args);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    command.output().expect("run ptxas-rs")
}

/// What running an example left: its manifest and the final bytes of the buffers and
/// surfaces asked for.
struct Ran {
    manifest: toml::Table,
    stdout: String,
    dir: tempfile::TempDir,
}

impl Ran {
    fn bytes(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).expect("a dumped buffer")
    }

    fn u32s(&self, name: &str) -> Vec<u32> {
        let b = self.bytes(name);
        b.chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    }

    fn f32s(&self, name: &str) -> Vec<f32> {
        self.u32s(name).into_iter().map(f32::from_bits).collect()
    }

    /// The array `key` of the manifest's buffer or surface `table.name`.
    fn input(&self, table: &str, name: &str, key: &str) -> Vec<toml::Value> {
        self.manifest[table][name][key]
            .as_array()
            .unwrap_or_else(|| panic!("{table}.{name}.{key} is an array"))
            .clone()
    }

    fn input_f32(&self, name: &str) -> Vec<f32> {
        let values = self.input("buffers", name, "f32");
        values
            .iter()
            .map(|v| v.as_float().unwrap() as f32)
            .collect()
    }

    fn input_int(&self, table: &str, name: &str, key: &str) -> Vec<i64> {
        let values = self.input(table, name, key);
        values.iter().map(|v| v.as_integer().unwrap()).collect()
    }
}

/// Runs `ptxas-rs cuda NAME.cu --launch NAME.toml --ptx NAME.ptx`, dumping each of `dumps`.
fn run(name: &str, dumps: &[&str]) -> Ran {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (cu, toml_file) = (
        example(&format!("{name}.cu")),
        example(&format!("{name}.toml")),
    );
    let mut args = vec![
        "cuda".to_string(),
        cu.display().to_string(),
        "--launch".into(),
        toml_file.display().to_string(),
        "--ptx".into(),
        dir.path().join("kernel.ptx").display().to_string(),
    ];
    for d in dumps {
        args.push("--dump".into());
        args.push(format!("{d}={}", dir.path().join(d).display()));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptxas_rs(&args, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "ptxas-rs cuda {name}: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with(&format!("ran {name}: ")), "{stdout}");
    let ptx = std::fs::read_to_string(dir.path().join("kernel.ptx")).expect("--ptx wrote it");
    assert!(ptx.contains(&format!(".entry {name}(")), "{ptx}");
    let text = std::fs::read_to_string(&toml_file).unwrap();
    Ran {
        manifest: text.parse().expect("the manifest is TOML"),
        stdout,
        dir,
    }
}

#[test]
fn saxpy_fuses_the_multiply_and_add_as_clang_contracts_them() {
    let ran = run("saxpy", &["y"]);
    let (x, y) = (ran.input_f32("x"), ran.input_f32("y"));
    // clang contracts `a * x + y` into `fma.rn.f32`: one rounding, as mul_add.
    let want: Vec<u32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y).to_bits())
        .collect();
    let got: Vec<u32> = ran.f32s("y").iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
}

#[test]
fn reduce_sums_each_block_with_shuffles() {
    let ran = run("reduce", &["out"]);
    let input = ran.input_int("buffers", "in", "s32");
    let want: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().sum::<i64>() as i32 as u32)
        .collect();
    assert_eq!(ran.u32s("out"), want);
}

#[test]
fn histogram_counts_with_shared_and_global_atomics_and_a_ballot() {
    let ran = run("histogram", &["bins", "zeros"]);
    let values = ran.input_int("buffers", "values", "u32");
    let mut bins = vec![0u32; 16];
    for v in &values {
        bins[(v % 16) as usize] += 1;
    }
    assert_eq!(ran.u32s("bins"), bins);
    assert_eq!(ran.u32s("zeros"), vec![bins[0]]);
    assert!(
        ran.stdout.contains("wrote buffer bins (64 of 64 bytes)"),
        "{}",
        ran.stdout
    );
}

#[test]
fn matmul_multiplies_through_shared_tiles() {
    let ran = run("matmul", &["c"]);
    let (a, b, n) = (ran.input_f32("a"), ran.input_f32("b"), 16);
    let mut want = Vec::new();
    for row in 0..n {
        for col in 0..n {
            // The kernel's order: k upwards, each step one fused multiply-add.
            let sum = (0..n).fold(0.0f32, |s, k| a[row * n + k].mul_add(b[k * n + col], s));
            want.push(sum.to_bits());
        }
    }
    let got: Vec<u32> = ran.f32s("c").iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
}

#[test]
fn blur_reads_and_writes_surfaces() {
    let ran = run("blur", &["out"]);
    let image = ran.input_int("surfaces", "in", "u32");
    let (w, h) = (12i64, 10i64);
    let mut want = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let inside: Vec<i64> = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (x + dx, y + dy)))
                .filter(|&(nx, ny)| (0..w).contains(&nx) && (0..h).contains(&ny))
                .map(|(nx, ny)| image[(ny * w + nx) as usize])
                .collect();
            want.push((inside.iter().sum::<i64>() / inside.len() as i64) as u32);
        }
    }
    assert_eq!(ran.u32s("out"), want);
}

#[test]
fn video_intrinsics_work_bytewise() {
    let ran = run("video", &["absdiff", "sum", "sad"]);
    let a = ran.input_int("buffers", "a", "u32");
    let b = ran.input_int("buffers", "b", "u32");
    let bytes = |w: i64| (w as u32).to_le_bytes();
    let (mut absdiff, mut sum, mut sad) = (Vec::new(), Vec::new(), Vec::new());
    for (a, b) in a.iter().zip(&b) {
        let (a, b) = (bytes(*a), bytes(*b));
        let each = |f: fn(u8, u8) -> u8| u32::from_le_bytes([0, 1, 2, 3].map(|i| f(a[i], b[i])));
        absdiff.push(each(u8::abs_diff));
        sum.push(each(u8::wrapping_add));
        sad.push((0..4).map(|i| u32::from(a[i].abs_diff(b[i]))).sum::<u32>());
    }
    assert_eq!(ran.u32s("absdiff"), absdiff);
    assert_eq!(ran.u32s("sum"), sum);
    assert_eq!(ran.u32s("sad"), sad);
}

#[test]
fn a_missing_clang_names_the_debian_package() {
    let empty = tempfile::tempdir().unwrap();
    let cu = example("saxpy.cu");
    let toml_file = example("saxpy.toml");
    let args = [
        "cuda",
        cu.to_str().unwrap(),
        "--launch",
        toml_file.to_str().unwrap(),
    ];
    let out = ptxas_rs(&args, Some(empty.path().to_str().unwrap()));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`clang-16` not found") && stderr.contains("apt-get install clang-16"),
        "{stderr}"
    );
}

#[test]
fn a_compile_error_is_clangs_exits_1_and_leaves_no_ptx() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.cu");
    std::fs::write(
        &bad,
        "extern \"C\" __global__ void k(int *p) { *p = undeclared; }\n",
    )
    .unwrap();
    let ptx = dir.path().join("bad.ptx");
    let launch = example("saxpy.toml");
    let args = [
        "cuda",
        bad.to_str().unwrap(),
        "--ptx",
        ptx.to_str().unwrap(),
        "--launch",
        launch.to_str().unwrap(),
    ];
    let out = ptxas_rs(&args, None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("use of undeclared identifier 'undeclared'"),
        "{stderr}"
    );
    assert!(stderr.contains("clang-16 could not compile"), "{stderr}");
    assert!(!ptx.exists(), "no PTX is left after a failed compile");
}

#[test]
fn the_other_atomics_shuffles_and_votes() {
    let ran = run("intrinsics", &["counters", "out"]);
    let v: Vec<u32> = ran
        .input_int("buffers", "in", "u32")
        .iter()
        .map(|&x| x as u32)
        .collect();
    let counters = ran.u32s("counters");
    let fold = |f: fn(u32, u32) -> u32, start| v.iter().fold(start, |a, &x| f(a, x));
    assert_eq!(
        counters[..6],
        [
            fold(u32::min, u32::MAX),
            fold(u32::max, 0),
            fold(|a, x| a & x, u32::MAX),
            fold(|a, x| a | x, 0),
            fold(|a, x| a ^ x, 0),
            64
        ]
    );
    // One thread claimed the slot (its index plus one); every other saw it taken.
    let out = ran.u32s("out");
    let claims: Vec<u32> = (0..64).map(|t| out[4 * t + 2]).collect();
    assert_eq!(claims.iter().filter(|&&c| c == 0).count(), 1);
    let winner = claims.iter().position(|&c| c == 0).unwrap() as u32;
    assert_eq!(counters[6], winner + 1);
    assert!(claims.iter().all(|&c| c == 0 || c == winner + 1));
    assert!(counters[7] < 64, "atomicExch left a thread index");
    for t in 0..64 {
        let warp = &v[t / 32 * 32..t / 32 * 32 + 32];
        let up = if t % 32 == 0 { v[t] } else { v[t - 1] };
        let flags = u32::from(warp.iter().all(|x| x & 1 == 1))
            | u32::from(warp.iter().any(|&x| x > 900)) << 1;
        assert_eq!(
            [out[4 * t], out[4 * t + 1], out[4 * t + 3]],
            [up, v[t ^ 1], flags],
            "thread {t}"
        );
    }
}
