//! The video tests' generated kernels (tests/video_kernels/, which tests/run_kernels.rs
//! checks against the video ALU's definition) on the Verilated core in lock-step with the
//! golden model: a kernel per scalar and SIMD video instruction form, each thread on one
//! (a, b, c) of the edge operands. Every retired warp instruction and the final memory must
//! agree. Verilator and g++ must be installed: without them the build of this crate fails.

mod common;
#[path = "../../tests/video_kernels/mod.rs"]
mod video_kernels;

use rtl_tests::cosim::Options;
use video_kernels::{kernel, manifest, scalar_cases, simd_cases, triples, VideoCase};
use video_kernels::{SCALAR_EDGES, SIMD_EDGES};

/// Each case's kernel on a core of 8 lanes and 4 warps (its 64 threads are two).
fn agree(kind: &str, cases: &[VideoCase], edges: &[u32]) {
    let manifest = manifest(&triples(edges));
    let options = Options {
        warps: 4,
        ..Options::default()
    };
    let mut retired = 0;
    for case in cases {
        let report = common::cosim_source(&kernel(&case.text), &case.text, &manifest, &options)
            .unwrap_or_else(|f| panic!("{}: {f:?}", case.text));
        assert!(report.retired > 0, "{}: {report:?}", case.text);
        retired += report.retired;
    }
    println!(
        "{} {kind} forms, {retired} warp instructions in lock-step",
        cases.len()
    );
}

#[test]
fn scalar_video_kernels_agree() {
    agree("scalar", &scalar_cases(), &SCALAR_EDGES);
}

#[test]
fn simd_video_kernels_agree() {
    agree("SIMD", &simd_cases(), &SIMD_EDGES);
}
