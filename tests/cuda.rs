//! `ptxas-rs cuda` end to end: every example in `examples/cuda/` compiled with clang-16 (which
//! must be installed: these tests fail without it), assembled and run by the command, and
//! its output checked against a Rust computation over the manifest's own inputs (or, for
//! device printf, against what the host's C library prints).

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

/// What running an example left: its manifest, what the kernel printed (device printf) and
/// the run's report, and the final bytes of the buffers and surfaces asked for.
struct Ran {
    manifest: toml::Table,
    printed: String,
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
    let report = format!("ran {name}: ");
    let (printed, _) = stdout.split_once(&report).expect("the run's report");
    let (printed, stdout) = (printed.to_string(), stdout[printed.len()..].to_string());
    let ptx = std::fs::read_to_string(dir.path().join("kernel.ptx")).expect("--ptx wrote it");
    assert!(ptx.contains(&format!(".entry {name}(")), "{ptx}");
    let text = std::fs::read_to_string(&toml_file).unwrap();
    Ran {
        manifest: text.parse().expect("the manifest is TOML"),
        printed,
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

/// Element `i` of `w`, `bits` wide, zero- or sign-extended.
fn element(w: u32, i: u32, bits: u32, signed: bool) -> i64 {
    let v = i64::from((w >> (i * bits)) & ((1u32 << bits) - 1));
    if signed && v >> (bits - 1) == 1 {
        v - (1 << bits)
    } else {
        v
    }
}

/// `f` on each pair of elements of a and b (half-words or bytes), each result wrapped to
/// its element.
fn each(a: u32, b: u32, bits: u32, signed: bool, f: &dyn Fn(i64, i64) -> i64) -> u32 {
    (0..32 / bits).fold(0, |d, i| {
        let r = f(element(a, i, bits, signed), element(b, i, bits, signed));
        d | ((r as u32) & ((1u32 << bits) - 1)) << (i * bits)
    })
}

/// CUDA's SIMD intrinsics as the Math API documents them (a rounded signed average rounds
/// half away from zero, CUDA's `(a + b + (a + b >= 0)) >> 1`), in simd.cu's order: each
/// operation on half-words, then on bytes.
fn simd_reference(a: u32, b: u32) -> Vec<(String, u32)> {
    type Op = (&'static str, bool, fn(i64, i64, i64, i64) -> i64);
    // (name, signed, f(x, y, min, max)) with min and max the element's range.
    let binary: [Op; 15] = [
        ("vadd", false, |x, y, _, _| x + y),
        ("vaddss", true, |x, y, lo, hi| (x + y).clamp(lo, hi)),
        ("vaddus", false, |x, y, _, hi| (x + y).min(hi)),
        ("vsub", false, |x, y, _, _| x - y),
        ("vsubss", true, |x, y, lo, hi| (x - y).clamp(lo, hi)),
        ("vsubus", false, |x, y, _, _| (x - y).max(0)),
        ("vavgs", true, |x, y, _, _| {
            (x + y + i64::from(x + y >= 0)) >> 1
        }),
        ("vavgu", false, |x, y, _, _| (x + y + 1) >> 1),
        ("vhaddu", false, |x, y, _, _| (x + y) >> 1),
        ("vabsdiffs", true, |x, y, _, _| (x - y).abs()),
        ("vabsdiffu", false, |x, y, _, _| (x - y).abs()),
        ("vmaxs", true, |x, y, _, _| x.max(y)),
        ("vmaxu", false, |x, y, _, _| x.max(y)),
        ("vmins", true, |x, y, _, _| x.min(y)),
        ("vminu", false, |x, y, _, _| x.min(y)),
    ];
    type Compare = (&'static str, bool, fn(&i64, &i64) -> bool);
    let compares: [Compare; 10] = [
        ("eq", false, i64::eq),
        ("ne", false, i64::ne),
        ("ges", true, i64::ge),
        ("geu", false, i64::ge),
        ("gts", true, i64::gt),
        ("gtu", false, i64::gt),
        ("les", true, i64::le),
        ("leu", false, i64::le),
        ("lts", true, i64::lt),
        ("ltu", false, i64::lt),
    ];
    let mut out = Vec::new();
    let range = |bits: u32, signed: bool| {
        if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        }
    };
    for (name, signed, f) in binary {
        for bits in [16, 8] {
            let (lo, hi) = range(bits, signed);
            let d = each(a, b, bits, signed, &|x, y| f(x, y, lo, hi));
            out.push((format!("{name}{}", 32 / bits), d));
        }
    }
    // Sums of absolute differences: the whole sum, not an element.
    for (name, signed) in [("vsads", true), ("vsadu", false)] {
        for bits in [16, 8] {
            let sum: i64 = (0..32 / bits)
                .map(|i| (element(a, i, bits, signed) - element(b, i, bits, signed)).abs())
                .sum();
            out.push((format!("{name}{}", 32 / bits), sum as u32));
        }
    }
    for (cc, signed, f) in compares {
        // __vcmp: all ones in each element where a CC b; __vset: 1.
        for (prefix, truth) in [("vcmp", -1), ("vset", 1)] {
            for bits in [16, 8] {
                let d = each(a, b, bits, signed, &|x, y| {
                    if f(&x, &y) {
                        truth
                    } else {
                        0
                    }
                });
                out.push((format!("{prefix}{cc}{}", 32 / bits), d));
            }
        }
    }
    type Unary = (&'static str, fn(i64, i64, i64) -> i64);
    let unary: [Unary; 4] = [
        ("vabs", |x, _, _| x.abs()),
        ("vabsss", |x, lo, hi| x.abs().clamp(lo, hi)),
        ("vneg", |x, _, _| -x),
        ("vnegss", |x, lo, hi| (-x).clamp(lo, hi)),
    ];
    for (name, f) in unary {
        for bits in [16, 8] {
            let (lo, hi) = range(bits, true);
            out.push((
                format!("{name}{}", 32 / bits),
                each(a, 0, bits, true, &|x, _| f(x, lo, hi)),
            ));
        }
    }
    out.push((
        "vabsdiff4".into(),
        each(a, b, 8, false, &|x, y| (x - y).abs()),
    ));
    out
}

#[test]
fn simd_intrinsics_match_cudas_definitions_on_edge_elements() {
    let ran = run("simd", &["out"]);
    let a = ran.input_int("buffers", "a", "u32");
    let b = ran.input_int("buffers", "b", "u32");
    assert_eq!(a.len(), 64);
    let out = ran.u32s("out");
    let mut checked = std::collections::BTreeMap::new();
    for (t, (a, b)) in a.iter().zip(&b).enumerate() {
        let (a, b) = (*a as u32, *b as u32);
        let want = simd_reference(a, b);
        let n = want.len();
        assert_eq!(out.len(), 64 * n, "83 results a thread");
        for (k, (name, want)) in want.into_iter().enumerate() {
            let got = out[t * n + k];
            assert_eq!(
                got, want,
                "__{name}({a:#010x}, {b:#010x}) (thread {t}): {got:#010x}, want {want:#010x}"
            );
            *checked.entry(name).or_insert(0) += 1;
        }
    }
    // Every intrinsic was checked on every thread's words.
    assert_eq!(checked.len(), 83);
    assert!(checked.values().all(|&n| n == 64));
}

/// surfaces.cu's surfaces: geometry, and dimensions in elements (width, height, depth,
/// layers; 1 where the geometry has none) of 16 bytes (rgba32_uint).
const SURFACES: [(&str, [i64; 4]); 5] = [
    ("1", [4, 1, 1, 1]),
    ("2", [4, 2, 1, 1]),
    ("3", [4, 2, 2, 1]),
    ("l1", [4, 1, 1, 2]),
    ("l2", [4, 2, 1, 2]),
];
/// The eleven shapes each geometry reads and writes, in surfaces.cu's order: (elements,
/// bytes each).
const SHAPES: [(i64, i64); 11] = [
    (1, 1),
    (1, 2),
    (1, 4),
    (1, 8),
    (2, 1),
    (4, 1),
    (2, 2),
    (4, 2),
    (2, 4),
    (4, 4),
    (2, 8),
];

/// Where an access of `size` bytes at element index i (x = i * size bytes), y, z and layer
/// `c` lands in a surface of `dims`, as docs/launch.md says: clamped to the nearest valid
/// coordinate (x to the last `size` bytes of a row) or, out of bounds and not clamped, `None`.
/// Coordinates the geometry lacks (those of dimension 1 in SURFACES) are ignored.
fn surface_place(dims: [i64; 4], c: [i64; 4], size: i64, clamp: bool) -> Option<usize> {
    let [w, h, d, l] = dims;
    let fit = |v: i64, max: i64| -> Option<i64> {
        if (0..=max).contains(&v) {
            Some(v)
        } else {
            clamp.then(|| v.clamp(0, max))
        }
    };
    let x = fit(c[0] * size, w * 16 - size)?;
    let y = if h > 1 { fit(c[1], h - 1)? } else { 0 };
    let z = if d > 1 { fit(c[2], d - 1)? } else { 0 };
    let layer = if l > 1 { fit(c[3], l - 1)? } else { 0 };
    Some((((layer * d + z) * h + y) * w * 16 + x) as usize)
}

#[test]
fn surface_reads_and_writes_of_every_dimension_size_vector_and_boundary_mode() {
    let ran = run("surfaces", &["loads", "stores"]);
    let coords: Vec<[i64; 4]> = ran
        .input_int("buffers", "coords", "s32")
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    let threads = coords.len();
    assert_eq!(threads, 16);
    let (loads, stores) = (ran.bytes("loads"), ran.bytes("stores"));
    let mut stored_at = 0;
    let (mut outside, mut clamped) = (0, 0);
    for (g, (name, dims)) in SURFACES.iter().enumerate() {
        let src: Vec<u8> = ran
            .input_int("surfaces", &format!("src{name}"), "u32")
            .iter()
            .flat_map(|&v| (v as u32).to_le_bytes())
            .collect();
        let bytes = (dims.iter().product::<i64>() * 16) as usize;
        assert_eq!(src.len(), bytes);
        // Modes 0 trap, 1 clamp, 2 zero.
        for m in 0..3 {
            for (f, &(n, each)) in SHAPES.iter().enumerate() {
                let size = n * each;
                let case = |t: usize| {
                    format!(
                        "src{name}/dst{name}, {n} x {each} bytes, mode {m}, thread {t} at {:?}",
                        coords[t]
                    )
                };
                let mut image = vec![0u8; bytes];
                for (t, &c) in coords.iter().enumerate() {
                    let slot = ((g * 3 + m) * SHAPES.len() + f) * threads + t;
                    let inside = surface_place(*dims, c, size, false).is_some();
                    outside += usize::from(!inside);
                    clamped += usize::from(!inside && m == 1);
                    // Trap mode only accesses in bounds; elsewhere what the mode says.
                    let at = if m == 0 && !inside {
                        None
                    } else {
                        surface_place(*dims, c, size, m == 1)
                    };
                    let mut want = [0u8; 16];
                    if let Some(at) = at {
                        want[..size as usize].copy_from_slice(&src[at..at + size as usize]);
                    }
                    assert_eq!(
                        &loads[slot * 16..slot * 16 + 16],
                        &want[..],
                        "read {}",
                        case(t)
                    );
                    // The threads write one after another: byte k of thread t's value is the
                    // top byte of (slot * 16 + k) * 0x9e3779b1.
                    if let Some(at) = at {
                        for k in 0..size as usize {
                            let v = ((slot * 16 + k) as u32).wrapping_mul(0x9e37_79b1) >> 24;
                            image[at + k] = v as u8;
                        }
                    }
                }
                let copy = &stores[stored_at..stored_at + bytes];
                assert_eq!(copy, &image[..], "writes of {}", case(0));
                stored_at += bytes;
            }
        }
    }
    assert_eq!(stored_at, stores.len());
    // Some coordinates were out of bounds, for clamp and zero as well as trap.
    assert!(clamped > 0 && outside == 3 * clamped, "{outside} {clamped}");
}

/// What printf_demo.cu prints, as glibc's printf formats the same calls on the host (gcc,
/// glibc 2.36).
const PRINTF_DEMO: &str = "\
block 0 thread  0 (even): 4294967280 0xfffffff0 -1 18446744073709551615 0.50 500000
block 0 thread  8 (odd ): 4294967288 0xfffffff8 9223372036854775807 9223372036854775807 -1.25 -1.25e+06
block 0 thread 16 (even): 0 0 -9223372036854775808 9223372036854775808 3.14 3.14159e+06
block 0 thread 24 (odd ): 8 0x8 0 0 0.00 1000
block 0 thread 32 (even): 16 0x10 42 42 0.67 666667
block 0 thread 40 (odd ): 24 0x18 -42 18446744073709551574 -0.00 -0
block 0 thread 48 (even): 32 0x20 1099511627776 1099511627776 10000000000.00 1e+16
block 0 thread 56 (odd ): 40 0x28 123456789012 123456789012 7.00 7e+06
block 0 done: [ok    ] [0.0e+00] A (first)
block 1 thread  0 (even): 4294967280 0xfffffff0 -1 18446744073709551615 0.50 500000
block 1 thread  8 (odd ): 4294967288 0xfffffff8 9223372036854775807 9223372036854775807 -1.25 -1.25e+06
block 1 thread 16 (even): 0 0 -9223372036854775808 9223372036854775808 3.14 3.14159e+06
block 1 thread 24 (odd ): 8 0x8 0 0 0.00 1000
block 1 thread 32 (even): 16 0x10 42 42 0.67 666667
block 1 thread 40 (odd ): 24 0x18 -42 18446744073709551574 -0.00 -0
block 1 thread 48 (even): 32 0x20 1099511627776 1099511627776 10000000000.00 1e+16
block 1 thread 56 (odd ): 40 0x28 123456789012 123456789012 7.00 7e+06
block 1 done: [ok    ] [5.0e-01] B \n";

/// printf from several threads of both CTAs, each warp in turn: the lines exactly as C's
/// printf formats them, at -O3 (`ptxas-rs cuda`) and at -O0 (the same PTX assembled again);
/// each call returns its nine arguments.
#[test]
fn printf_demo_prints_each_thread_in_turn() {
    let ran = run("printf_demo", &["out"]);
    assert_eq!(ran.printed, PRINTF_DEMO);
    let want: Vec<u32> = (0..128).map(|i| if i % 8 == 0 { 9 } else { 0 }).collect();
    assert_eq!(ran.u32s("out"), want);
    let (ptx, elf) = (
        ran.dir.path().join("kernel.ptx"),
        ran.dir.path().join("O0.elf"),
    );
    let asm = ptxas_rs(
        &["-O0", ptx.to_str().unwrap(), "-o", elf.to_str().unwrap()],
        None,
    );
    assert_eq!(
        asm.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&asm.stderr)
    );
    let manifest = example("printf_demo.toml");
    let args = [
        "run",
        elf.to_str().unwrap(),
        "--launch",
        manifest.to_str().unwrap(),
    ];
    let out = ptxas_rs(&args, None);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.split("ran printf_demo: ").next(), Some(PRINTF_DEMO));
}

/// surfaces.toml with its last parameter, `trap`, set to `value`, in a temporary directory.
fn surfaces_with_trap(dir: &Path, value: i64) -> PathBuf {
    let mut manifest: toml::Table = std::fs::read_to_string(example("surfaces.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let params = manifest["params"].as_array_mut().unwrap();
    let last = params.last_mut().unwrap().as_table_mut().unwrap();
    assert!(last.contains_key("s32"), "trap is the last parameter");
    last.insert("s32".into(), toml::Value::Integer(value));
    let path = dir.join(format!("surfaces-trap{value}.toml"));
    std::fs::write(&path, toml::to_string(&manifest).unwrap()).unwrap();
    path
}

#[test]
fn surface_accesses_out_of_bounds_trap_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let cu = example("surfaces.cu");
    // trap = 1: thread 3 reads x = 64 of src2 (rows of 64 bytes); 2: thread 5 writes z = 2
    // of dst3 (2 slices).
    for (trap, instruction, thread, what) in [
        (1, "SULD.2D.B32.TRAP", 3, "x = 64 is out of bounds (0..=60)"),
        (2, "SUST.3D.B32.TRAP", 5, "z = 2 is out of bounds (0..=1)"),
    ] {
        let manifest = surfaces_with_trap(dir.path(), trap);
        let args = [
            "cuda",
            cu.to_str().unwrap(),
            "--launch",
            manifest.to_str().unwrap(),
        ];
        let out = ptxas_rs(&args, None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "trap = {trap}: {stderr}");
        assert!(
            stderr.contains(instruction)
                && stderr.contains(what)
                && stderr.contains(&format!("thread ({thread}, 0, 0)")),
            "trap = {trap}: {stderr}"
        );
    }
}
