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
//! - The CUDA examples whose kernels use the f32 unit's arithmetic, compiled by clang-16 as
//!   `ptxas-rs cuda` compiles them: saxpy.cu and matmul.cu.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;

use common::float_manifest;
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

#[test]
fn cuda_float_examples_agree_at_8_1_and_32_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let examples = common::workspace().join("examples/cuda");
    for name in ["saxpy", "matmul"] {
        let ptx = dir.path().join(format!("{name}.ptx"));
        let cu = examples.join(format!("{name}.cu"));
        assert!(
            ptxas_rs::cuda::compile(&cu, &ptx, dir.path()).unwrap(),
            "{name}.cu"
        );
        let source = std::fs::read_to_string(&ptx).unwrap();
        let manifest = std::fs::read_to_string(examples.join(format!("{name}.toml"))).unwrap();
        for lanes in [8, 1, 32] {
            let report = agree(&source, &format!("{name}.cu"), &manifest, lanes);
            println!("{name}.cu at {lanes} lanes: {report:?}");
        }
    }
}
