//! The sgpu golden model: a functional simulator that executes the machine code of an sgpu
//! ELF file and defines what every instruction does, as the reference the RTL is checked
//! against in lock-step.
//!
//! - `exec/` executes one warp instruction, a file per unit (control, integer, f32, memory,
//!   surface, warp operations, video); `lane.rs` is what each instruction computes in one
//!   lane, quoting its PTX rule; the video ALU is `video.rs`, the surface unit `surface.rs`,
//!   IEEE rounding `float.rs`.
//! - `warp.rs` is a warp's state and reconvergence stack, `barrier.rs` a CTA's named
//!   barriers, `cta.rs` a CTA and [`cta::Cta::step`], which retires one instruction of the
//!   warp its caller names, so a co-simulation can follow the RTL's issue order.
//! - `record.rs` is what a step retired ([`record::Retired`]: every effect of the
//!   instruction), `trap.rs` why a kernel stopped ([`trap::Cause`]).
//!
//! [`run`] runs a grid, CTA after CTA, with the warps of each in turn.

pub mod barrier;
pub mod cta;
pub mod exec;
pub mod float;
pub mod lane;
pub mod launch;
pub mod memory;
pub mod program;
pub mod record;
pub mod surface;
pub mod trap;
pub mod video;
pub mod warp;

use cta::{Cta, Grid};
use memory::Global;
use program::Program;
use record::Retired;
use surface::Surfaces;
pub use trap::{Cause, Trap};

/// What to run: a kernel, the grid, and the bytes of its parameters (constant bank 0).
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (`.extern .shared` arrays).
    pub shared: u32,
    pub params: Vec<u8>,
    /// Stop with a trap after this many warp instructions (a guard against endless loops).
    pub max_instructions: u64,
}

/// Counts of a finished run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
}

/// Bytes of local memory each thread gets beyond its kernel's frame, for the frames of the
/// functions it calls.
pub const CALL_STACK: usize = 16 * 1024;

/// Runs a kernel over its grid, one CTA after another in x, y, z order, its warps in turn.
/// `observe` sees every retired instruction (CTA index, warp, what it did).
pub fn run(
    program: &Program,
    global: &mut Global,
    surfaces: &mut Surfaces,
    launch: &Launch,
    mut observe: impl FnMut(u32, u32, &Retired),
) -> Result<Stats, Trap> {
    let kernel = program
        .function(&launch.kernel)
        .filter(|f| f.info.entry)
        .ok_or_else(|| Trap {
            cause: Cause::NoKernel(launch.kernel.clone()),
            cta: [0; 3],
            warp: 0,
            location: String::new(),
            instruction: String::new(),
        })?;
    let mut g = Grid {
        program,
        global,
        surfaces,
        params: &launch.params,
        grid: launch.grid,
        block: launch.block,
        clock: 0,
    };
    let mut stats = Stats::default();
    let mut retired = Retired::default();
    let [gx, gy, gz] = launch.grid;
    let mut cta_index = 0;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let mut cta = Cta::new(kernel, launch, [x, y, z]);
                cta.run(&mut g, launch.max_instructions, &mut retired, |_, w, r| {
                    stats.warp_instructions += 1;
                    stats.thread_instructions += u64::from(r.mask.count_ones());
                    observe(cta_index, w, r);
                })?;
                cta_index += 1;
            }
        }
    }
    Ok(stats)
}
