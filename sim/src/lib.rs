//! The sgpu golden model: a functional simulator that executes the machine code of an sgpu
//! ELF file and defines what every instruction does, as the reference the RTL is checked
//! against in lock-step.
//!
//! - `exec/` executes one warp instruction, a file per unit (control, integer, f32, memory,
//!   surface, warp operations, video); `lane.rs` is what each instruction computes in one
//!   lane, quoting its PTX rule; the video ALU is `video.rs`, the surface unit `surface.rs`,
//!   IEEE rounding `float.rs`, the special functions `mufu.rs`.
//! - `warp.rs` is a warp's state and reconvergence stack, `barrier.rs` a CTA's named
//!   barriers, `cta.rs` a CTA and [`cta::Cta::step`], which retires one instruction of the
//!   warp its caller names, so a co-simulation can follow the RTL's issue order.
//! - `printf.rs` is the device printf buffer a launch reserves and what the host prints
//!   from it: the records, formatted as C's printf does.
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
pub mod mufu;
pub mod printf;
pub mod program;
pub mod record;
pub mod surface;
pub mod trap;
pub mod video;
pub mod warp;

use cta::{Cta, Grid};
use memory::{Global, Memories};
use program::{Function, Program};
use record::Retired;
use sgpu_isa::abi;
use surface::Surfaces;
pub use trap::{Cause, Trap};
use warp::LANES;

/// What to run: a kernel, the grid, and the bytes of its parameters (constant bank 0).
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (`.extern .shared` arrays).
    pub shared: u32,
    pub params: Vec<u8>,
    /// Stop with a trap after this many warp instructions (a guard against endless loops;
    /// the manifest's `max_instructions`, [`launch::DEFAULT_MAX_INSTRUCTIONS`] unless given).
    pub max_instructions: u64,
    /// Set from outside (a Ctrl-C handler) to stop the run with [`Cause::Interrupted`]; read
    /// between slices of a warp's instructions, so the run stops within a few dozen.
    pub interrupt: Option<&'static std::sync::atomic::AtomicBool>,
}

/// Counts of a finished run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
}

/// What a checked launch asks of the machine, per CTA and per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub threads: u32,
    pub warps: u32,
    /// Local bytes per thread: the kernel's frame plus the call stack.
    pub local: u32,
    /// Shared bytes per CTA: the kernel's static plus the launch's dynamic.
    pub shared: u32,
}

impl Launch {
    /// Checks every size of the launch of `kernel` against the hardware's limits (docs/hw.md),
    /// in arithmetic that cannot wrap; an error names the manifest key (docs/launch.md).
    pub fn check(&self, kernel: &Function) -> Result<Shape, String> {
        let axes = ["x", "y", "z"];
        let block_max = [abi::BLOCK_MAX_X, abi::BLOCK_MAX_Y, abi::BLOCK_MAX_Z];
        let grid_max = [abi::GRID_MAX_X, abi::GRID_MAX_Y, abi::GRID_MAX_Z];
        for (key, dims, max, what) in [
            ("block", self.block, block_max, "threads"),
            ("grid", self.grid, grid_max, "CTAs"),
        ] {
            for i in 0..3 {
                let n = u64::from(dims[i]);
                if n == 0 || n > max[i] {
                    return Err(format!(
                        "`{key}[{i}]`: {n} {what}; 1 to {} along {}",
                        max[i], axes[i]
                    ));
                }
            }
        }
        let threads: u64 = self.block.iter().map(|&n| u64::from(n)).product();
        if threads > abi::BLOCK_MAX {
            let [x, y, z] = self.block;
            return Err(format!(
                "`block`: {x} x {y} x {z} = {threads} threads; at most {} per CTA",
                abi::BLOCK_MAX
            ));
        }
        let info = &kernel.info;
        let shared = u64::from(info.shared_bytes) + u64::from(self.shared);
        if shared > abi::SHARED_MAX {
            return Err(format!(
                "`shared`: {} dynamic bytes and the kernel's {} static bytes make {shared}; at most {} per CTA",
                self.shared,
                info.shared_bytes,
                abi::SHARED_MAX
            ));
        }
        let param_bytes = u64::from(info.param_bytes);
        if param_bytes > abi::PARAM_MAX {
            return Err(format!(
                "`params`: kernel `{}` takes {param_bytes} bytes of parameters; at most {}",
                kernel.name,
                abi::PARAM_MAX
            ));
        }
        if self.params.len() as u64 != param_bytes {
            return Err(format!(
                "`params`: {} bytes for kernel `{}`'s {param_bytes} bytes of parameters",
                self.params.len(),
                kernel.name
            ));
        }
        let local = u64::from(info.local_bytes) + abi::CALL_STACK;
        if local > abi::LOCAL_MAX {
            return Err(format!(
                "`kernel`: `{}` needs {} local bytes per thread and {} for calls; at most {} in all",
                kernel.name,
                info.local_bytes,
                abi::CALL_STACK,
                abi::LOCAL_MAX
            ));
        }
        // Each fits 32 bits: the limits above are far below 2^32.
        let threads = threads as u32;
        Ok(Shape {
            threads,
            warps: threads.div_ceil(LANES as u32),
            local: local as u32,
            shared: shared as u32,
        })
    }
}

/// Runs a kernel over its grid, one CTA after another in x, y, z order, its warps in turn.
/// `observe` sees every retired instruction (CTA index, warp, what it did).
pub fn run(
    program: &Program,
    global: &mut Global,
    surfaces: &Surfaces,
    launch: &Launch,
    mut observe: impl FnMut(u32, u32, &Retired),
) -> Result<Stats, Trap> {
    let kernel = program
        .function(&launch.kernel)
        .filter(|f| f.info.entry)
        .ok_or_else(|| Trap::before_start(Cause::NoKernel(launch.kernel.clone())))?;
    let shape = launch
        .check(kernel)
        .map_err(|why| Trap::before_start(Cause::Launch(why)))?;
    let mut memory = Memories::new(global, &launch.params, &program.constants);
    let mut g = Grid {
        program,
        memory: &mut memory,
        surfaces,
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
                let mut cta = Cta::new(kernel, &shape, [x, y, z], &mut g);
                cta.run(&mut g, launch, &mut retired, |_, w, r| {
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
