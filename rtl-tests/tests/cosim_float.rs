//! f32 kernels on the Verilated core in lock-step with the golden model (src/cosim.rs), at
//! the default 8 lanes and at 1 and 32: every retired warp instruction, every register and
//! predicate written and the final memory must agree.
//!
//! - tests/kernels/f32lane.ptx: add, sub, mul and fma in every rounding mode, with `.ftz`,
//!   `.sat`, negated and absolute operands and immediates; min and max (`.NaN`, `.ftz`,
//!   `.xorsign.abs`); setp's fourteen comparisons (and `.ftz`), and its `.and`, `.or` and
//!   `.xor` with a predicate that differs between a warp's lanes; on operands biased to the
//!   edges (zeros, subnormals, infinities, NaNs) and to ties between a and b
//!   (`common::float_manifest`).
//! - tests/kernels/cvtint.ptx: cvt from f32 to s32, u32, s16, u16, s64 and u64 in each
//!   integer rounding (with `.ftz` and `.sat`), and to f32 from s32, u32, s64, u64, s16 and
//!   u8 in each rounding mode.
//! - The half-precision kernels of tests/kernels, whose f16 and bf16 values (and their
//!   pairs) convert through f32 (F2F): halfcvt (f32 to f16 and bf16 in every mode,
//!   `.satfinite`, `.relu`), cvtpair (packed pairs), halfops, halfmath, halffma, halfcmp and
//!   halfpair, on 16-bit values biased to their edges (`common::half_manifest`).
//! - tests/kernels/floats.ptx: division, square root and reciprocal correctly rounded in
//!   every mode (sgpu_fdiv) beside the arithmetic, on operands at the f32 edges.
//! - The special functions (sgpu_mufu): tests/kernels/special.ptx (every MUFU function, with
//!   and without `.ftz`, and `div.approx` through `rcp`) on f32 edges, and
//!   tests/kernels/halfapprox.ptx (ex2 and tanh of f16, bf16 and their pairs through f32)
//!   on a stretch of every 16-bit input.
//! - tests/kernels/f64ops.ptx: every f64 instruction form in every rounding mode through
//!   the linked runtime (integer code and f32 conversions), on f64 edges.
//! - Float atomics (sgpu_atom_float): tests/kernels/atomhalf.ptx (add on f16, bf16 and
//!   their pairs, with and without a result, and f64's through the runtime) on values at
//!   their edges, tests/kernels/vecatomic.ptx (vector atomics of f32, f16 and bf16: add, min,
//!   max), and the corpus's float_atomics (histogram.cu: atomicAdd on floats).
//! - Every CUDA example, examples/cuda/*.cu, compiled by clang-16 as `ptxas-rs cuda`
//!   compiles it, with its manifest.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;

use common::{float_manifest, half_manifest};
use rtl_tests::cosim::{Options, Report};

/// `ptx` (named `name`) run as `manifest` launches it on a core of `lanes` lanes: the run's
/// report, or a panic naming the mismatch.
fn agree(ptx: &str, name: &str, manifest: &str, lanes: u32) -> Report {
    let options = Options {
        lanes,
        ..Options::default()
    };
    let report = common::cosim_source(ptx, name, manifest, &options)
        .unwrap_or_else(|f| panic!("{name} at {lanes} lanes: {f:?}"));
    assert!(report.retired > 0, "{name}: {report:?}");
    report
}

#[test]
fn the_f32_lane_kernel_agrees_at_8_1_and_32_lanes() {
    let ptx = common::source("tests/kernels/f32lane.ptx");
    for (lanes, seed) in [(8, 1), (1, 2), (32, 3), (8, 4)] {
        let manifest = float_manifest("f32lane", 64, 3, 37 * 4, seed);
        let report = agree(&ptx, "f32lane.ptx", &manifest, lanes);
        println!("f32lane at {lanes} lanes (seed {seed}): {report:?}");
    }
}

#[test]
fn the_integer_conversion_kernel_agrees_at_8_1_and_32_lanes() {
    let ptx = common::source("tests/kernels/cvtint.ptx");
    for (lanes, seed) in [(8, 5), (1, 6), (32, 7)] {
        let manifest = float_manifest("cvtint", 64, 4, 232, seed);
        let report = agree(&ptx, "cvtint.ptx", &manifest, lanes);
        println!("cvtint at {lanes} lanes (seed {seed}): {report:?}");
    }
}

/// The half-precision kernels: (name, input words and output bytes per thread), as each
/// indexes its buffers.
const HALF_KERNELS: [(&str, usize, usize); 7] = [
    ("halfcvt", 1, 24),
    ("cvtpair", 2, 16),
    ("halfops", 3, 356),
    ("halfmath", 1, 16),
    ("halffma", 2, 4),
    ("halfcmp", 1, 48),
    ("halfpair", 3, 48),
];

#[test]
fn half_precision_kernels_agree_at_8_1_and_32_lanes() {
    for (lanes, seed) in [(8, 11), (1, 12), (32, 13)] {
        for (kernel, in_words, out_bytes) in HALF_KERNELS {
            let manifest = half_manifest(kernel, 64, in_words, out_bytes, seed);
            let report = agree(
                &common::source(&format!("tests/kernels/{kernel}.ptx")),
                kernel,
                &manifest,
                lanes,
            );
            println!("{kernel} at {lanes} lanes (seed {seed}): {report:?}");
        }
    }
}

#[test]
fn division_and_square_root_agree_at_8_1_and_32_lanes() {
    let ptx = common::source("tests/kernels/floats.ptx");
    for (lanes, seed) in [(8, 31), (1, 32), (32, 33)] {
        let manifest = float_manifest("floats", 64, 2, 20, seed);
        let report = agree(&ptx, "floats.ptx", &manifest, lanes);
        println!("floats at {lanes} lanes (seed {seed}): {report:?}");
    }
}

#[test]
fn special_functions_agree_at_8_1_and_32_lanes() {
    let special = common::source("tests/kernels/special.ptx");
    let approx = common::source("tests/kernels/halfapprox.ptx");
    for (lanes, seed, grid) in [(8, 51, 16), (1, 52, 2), (32, 53, 16)] {
        let manifest = float_manifest("special", 64, 1, 48, seed);
        let report = agree(&special, "special.ptx", &manifest, lanes);
        println!("special at {lanes} lanes (seed {seed}): {report:?}");
        // halfapprox's CTA k takes the 256 inputs from 256 k: the first `grid` of the 256.
        let manifest = format!(
            "grid = [{grid}]\nblock = [256]\nparams = [{{ buffer = \"out\" }}]\n\
             [buffers.out]\nsize = 524288\n"
        );
        let report = agree(&approx, "halfapprox.ptx", &manifest, lanes);
        println!("halfapprox at {lanes} lanes ({grid} CTAs): {report:?}");
    }
}

/// f64 operands: often an edge (zeros, the smallest subnormal and normal, one and its
/// neighbours, the largest finite value, infinity, NaN, thirds), else random bits.
fn f64_value(rng: &mut common::Rng) -> u64 {
    const EDGES: [u64; 12] = [
        0,
        1,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3fef_ffff_ffff_ffff,
        0x3fd5_5555_5555_5555,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x4330_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
    ];
    let sign = rng.word() & 1 << 63;
    if rng.word().is_multiple_of(2) {
        sign | EDGES[(rng.word() % EDGES.len() as u64) as usize]
    } else {
        rng.word()
    }
}

#[test]
fn the_f64_runtime_agrees_at_8_1_and_32_lanes() {
    let ptx = common::source("tests/kernels/f64ops.ptx");
    for (lanes, seed) in [(8, 41), (1, 42), (32, 43)] {
        let mut rng = common::Rng::new(seed);
        // Three f64 operands a thread, in two CTAs of 16.
        let words: Vec<String> = (0..3 * 32)
            .map(|_| (f64_value(&mut rng) as i64).to_string())
            .collect();
        let manifest = format!(
            "grid = [2]\nblock = [16]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu64 = [{}]\n[buffers.out]\nsize = {}\n",
            words.join(", "),
            640 * 32
        );
        let report = agree(&ptx, "f64ops.ptx", &manifest, lanes);
        println!("f64ops at {lanes} lanes (seed {seed}): {report:?}");
    }
}

/// atomhalf's buffers for `threads` threads: `in` (a word of two halves, then an f64, 16
/// bytes a thread), `own` (three words of halves, then an f64, 24 bytes a thread), `olds`
/// and `common`.
fn atomhalf_manifest(threads: usize, seed: u64) -> String {
    let mut rng = common::Rng::new(seed);
    let mut halves =
        || u32::from(common::half_value(&mut rng)) | u32::from(common::half_value(&mut rng)) << 16;
    let bytes = |words: &[u32], x: f64| -> Vec<String> {
        let mut v: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        v.extend([0; 4]);
        v.extend(x.to_le_bytes());
        v.iter().map(u8::to_string).collect()
    };
    let (mut input, mut own) = (Vec::new(), Vec::new());
    for t in 0..threads {
        input.extend(bytes(&[halves()], t as f64 * 0.5 - 3.0));
        own.extend(bytes(&[halves(), halves(), halves()], 1.0e16 + t as f64));
    }
    format!(
        "block = [{threads}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"own\" }}, \
         {{ buffer = \"olds\" }}, {{ buffer = \"common\" }}]\n[buffers.in]\nu8 = [{}]\n\
         [buffers.own]\nu8 = [{}]\n[buffers.olds]\nsize = {}\n[buffers.common]\nsize = 16\n",
        input.join(", "),
        own.join(", "),
        16 * threads
    )
}

#[test]
fn float_atomics_agree_at_8_1_and_32_lanes() {
    let corpus = common::corpus_dir().join("generated/clang16_cuda/histogram.sm80.O2.ptx");
    let corpus = std::fs::read_to_string(corpus).unwrap();
    let launch = common::workspace().join("bench/launch/histogram.sm80.O2.float_atomics.toml");
    let launch = std::fs::read_to_string(launch)
        .unwrap()
        .replace("file = \"", "file = \"bench/launch/");
    for (lanes, seed) in [(8, 21), (1, 22), (32, 23)] {
        let atomhalf = common::source("tests/kernels/atomhalf.ptx");
        agree(&atomhalf, "atomhalf", &atomhalf_manifest(64, seed), lanes);
        let vecatomic = common::source("tests/kernels/vecatomic.ptx");
        let m = "block = [32]\nparams = [{ buffer = \"acc\" }, { buffer = \"out\" }]\n\
                 [buffers.acc]\nsize = 64\n[buffers.out]\nsize = 1024\n";
        agree(&vecatomic, "vecatomic", m, lanes);
        let report = agree(&corpus, "histogram.sm80.O2 float_atomics", &launch, lanes);
        println!("float_atomics at {lanes} lanes: {report:?}");
    }
}

#[test]
fn cuda_examples_agree_at_8_1_and_32_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let examples = common::workspace().join("examples/cuda");
    let mut names: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".cu").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let ptx = dir.path().join(format!("{name}.ptx"));
        let cu = examples.join(format!("{name}.cu"));
        assert!(
            ptxas_rs::cuda::compile(&cu, &ptx, dir.path()).unwrap(),
            "{name}.cu"
        );
        let source = std::fs::read_to_string(&ptx).unwrap();
        let manifest = std::fs::read_to_string(examples.join(format!("{name}.toml")))
            .unwrap()
            .replace("file = \"", &format!("file = \"{}/", examples.display()));
        for lanes in [8, 1, 32] {
            let report = agree(&source, &format!("{name}.cu"), &manifest, lanes);
            println!("{name}.cu at {lanes} lanes: {report:?}");
        }
    }
}
