//! The sgpu RTL under Verilator, in lock-step with the golden model: `model` is the
//! Verilated core (built by build.rs, one library per configuration), `cosim` the harness
//! that runs a kernel on it and checks every retired warp instruction against `sgpu_sim`.
//! The unit tests of single modules (`tests/predecode.rs`, `int_alu.rs`, `int_div.rs`) build
//! their own small testbenches from `tb/`; `units` links units into the test's process, for
//! tests that compare them with the golden model at millions of cases (`tests/video_alu.rs`).

pub mod cosim;
pub mod late;
pub mod model;
pub mod random;
pub mod units;
