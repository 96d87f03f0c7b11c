//! The sgpu RTL under Verilator, in lock-step with the golden model: `model` is the
//! Verilated core (built by build.rs, one library per configuration), `cosim` the harness
//! that runs a kernel on it and checks every retired warp instruction against `sgpu_sim`,
//! with `port` the memory behind the core's port (at a fixed or seeded random timing),
//! `requests` the comparison of its requests with the model's accesses, and `seed` the
//! seeds of a run's randomness.
//! The unit tests of single modules (`tests/predecode.rs`, `int_alu.rs`, `int_div.rs`) build
//! their own small testbenches from `tb/`; `units` links units into the test's process, for
//! tests that compare them with the golden model at millions of cases (`tests/video_alu.rs`).

pub mod cosim;
pub mod late;
pub mod model;
pub mod port;
pub mod random;
pub mod requests;
pub mod seed;
pub mod units;
