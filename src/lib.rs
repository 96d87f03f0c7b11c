//! The `ptxas-rs` command line: argument handling, CUDA C through clang-16, and the rendering
//! of diagnostics. The libraries return typed diagnostics; only this crate turns them into
//! text and exit codes.

pub mod cli;
pub mod cuda;
pub mod device_printf;
pub mod output;
mod progress;
pub mod ptxas_flags;
pub mod render;
pub mod run;
pub mod show;
