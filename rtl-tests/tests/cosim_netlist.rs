//! Gate level: yosys's netlist of the smallest core (1 lane, 1 warp; hw/synth/netlist.sh)
//! runs kernels in lock-step with the golden model, as the RTL does in tests/cosim.rs, so
//! that synthesis reading the RTL otherwise than Verilator does cannot hide. The netlist has
//! no assertions (yosys leaves them out); the checker compares all else, at random memory
//! timing and with random initial values.

mod common;

use rtl_tests::cosim::Options;

fn netlist() -> Options {
    Options {
        lanes: 1,
        warps: 1,
        netlist: true,
        ..Options::default()
    }
}

/// Kernels of every unit the core has: divergence and reconvergence, guarded stores, 64-bit
/// arithmetic and the divider, calls with local memory, the video ALU (two tests, so that
/// they run at once); then the f32 unit and (blend) the surface unit.
#[test]
fn integer_and_control_kernels_agree_on_the_netlist() {
    let kernels = [
        ("divergent", false),
        ("guarded", false),
        ("more64", true),
        ("localptr", false),
        ("indirect", true),
        ("dot", true),
    ];
    let mut retired = 0;
    for (kernel, input) in kernels {
        let ptx = format!("tests/kernels/{kernel}.ptx");
        let report = common::cosim_file(&ptx, &common::manifest_of(kernel, input, 32), &netlist())
            .unwrap_or_else(|f| panic!("{kernel} on the netlist: {f:?}"));
        retired += report.retired;
    }
    println!("{retired} warp instructions in lock-step on the netlist");
}

/// The f32 unit (arithmetic and comparisons, conversions with integers) and the surface
/// unit (examples/blend.ptx).
#[test]
fn float_and_surface_kernels_agree_on_the_netlist() {
    let mut retired = 0;
    for (kernel, per_thread, out_bytes) in [("f32lane", 3, 37 * 4), ("cvtint", 4, 232)] {
        let ptx = format!("tests/kernels/{kernel}.ptx");
        let manifest = common::float_manifest(kernel, 32, per_thread, out_bytes, 9);
        let report = common::cosim_file(&ptx, &manifest, &netlist())
            .unwrap_or_else(|f| panic!("{kernel} on the netlist: {f:?}"));
        retired += report.retired;
    }
    let launch = common::source("examples/blend.toml");
    let report = common::cosim_file("examples/blend.ptx", &launch, &netlist())
        .unwrap_or_else(|f| panic!("examples/blend.ptx on the netlist: {f:?}"));
    retired += report.retired;
    println!("{retired} warp instructions in lock-step on the netlist");
}

#[test]
fn the_checker_catches_a_fault_on_the_netlist() {
    let ptx = "tests/kernels/divergent.ptx";
    let options = Options {
        fault: Some(3),
        ..netlist()
    };
    let failure = common::cosim_file(ptx, &common::manifest_of("divergent", false, 32), &options)
        .expect_err("a flipped bit is a mismatch");
    assert!(
        matches!(failure, rtl_tests::cosim::Failure::Mismatch(_)),
        "{failure:?}"
    );
}
