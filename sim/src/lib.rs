//! The sgpu golden model: a functional simulator that executes the machine code of an sgpu
//! ELF file and defines what every instruction does: `lane.rs` a function per instruction
//! for what it computes in one lane, each quoting its PTX rule; `exec.rs` the warp-level
//! parts (control, memory, warp operations); the video ALU in `video.rs`, the surface unit in
//! `surface.rs`, IEEE rounding in `float.rs`, the special functions in `mufu.rs`.
//! [`exec::step`] runs one warp instruction and reports what it retired, so that the RTL's
//! co-simulation can drive the model in the RTL's own issue order; [`run`] runs a grid.

pub mod exec;
pub mod float;
pub mod lane;
pub mod launch;
pub mod memory;
pub mod mufu;
pub mod program;
pub mod surface;
pub mod video;
pub mod warp;

use memory::Global;
use program::Program;
use surface::Surfaces;
use warp::{Retired, State, Warp, LANES};

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

/// A kernel that stopped on an error: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    /// `file.ptx:LINE` of the instruction.
    pub location: String,
    /// The instruction, as sgpu assembly.
    pub instruction: String,
    pub reason: String,
}

impl std::fmt::Display for Trap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "trap: {}: {}: {}",
            self.location, self.instruction, self.reason
        )
    }
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

/// Runs a kernel over its grid, one CTA after another, its warps in turn. `observe` sees
/// every retired instruction (CTA index, warp, what it did).
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
            location: String::new(),
            instruction: String::new(),
            reason: format!("no kernel `{}` in the program", launch.kernel),
        })?;
    let threads = launch.block.iter().product::<u32>();
    let warps_per_cta = threads.div_ceil(LANES as u32);
    let local_size = kernel.info.local_bytes as usize + CALL_STACK;
    let shared_size = (kernel.info.shared_bytes + launch.shared) as usize;
    let mut stats = Stats::default();
    let [gx, gy, gz] = launch.grid;
    let mut cta_index = 0;
    for cz in 0..gz {
        for cy in 0..gy {
            for cx_ in 0..gx {
                let mut shared = vec![0u8; shared_size];
                let mut warps: Vec<Warp> = (0..warps_per_cta)
                    .map(|wi| {
                        let tid = std::array::from_fn(|l| {
                            let t = wi * LANES as u32 + l as u32;
                            let [bx, by, _] = launch.block;
                            [t % bx, t / bx % by, t / (bx * by)]
                        });
                        let count = (threads - wi * LANES as u32).min(LANES as u32);
                        Warp::new(wi, kernel.start, tid, count, local_size)
                    })
                    .collect();
                let mut cx = exec::Ctx {
                    program,
                    global: &mut *global,
                    shared: &mut shared,
                    params: &launch.params,
                    surfaces: &mut *surfaces,
                    ntid: launch.block,
                    ctaid: [cx_, cy, cz],
                    nctaid: launch.grid,
                    warps_per_cta,
                    clock: stats.warp_instructions,
                };
                run_cta(
                    &mut warps,
                    &mut cx,
                    &mut stats,
                    launch.max_instructions,
                    |w, r| observe(cta_index, w, r),
                )?;
                cta_index += 1;
            }
        }
    }
    Ok(stats)
}

/// Runs the warps of one CTA until all have exited: each in turn for a slice of
/// instructions, barriers releasing when every warp still running has arrived.
fn run_cta(
    warps: &mut [Warp],
    cx: &mut exec::Ctx<'_>,
    stats: &mut Stats,
    limit: u64,
    mut observe: impl FnMut(u32, &Retired),
) -> Result<(), Trap> {
    const SLICE: u32 = 64;
    let mut retired = Retired::default();
    loop {
        let mut progressed = false;
        for w in warps.iter_mut() {
            for _ in 0..SLICE {
                if w.state != State::Running {
                    break;
                }
                let pc = w.pc().unwrap_or(0);
                match exec::step(w, cx, &mut retired) {
                    Ok(()) => {
                        stats.warp_instructions += 1;
                        stats.thread_instructions += u64::from(retired.mask.count_ones());
                        observe(w.id, &retired);
                    }
                    Err(reason) => {
                        let word = cx.program.code.get(pc as usize).copied().unwrap_or(0);
                        return Err(Trap {
                            location: cx.program.source_line(pc),
                            instruction: warp::text(word),
                            reason,
                        });
                    }
                }
                progressed = true;
                if stats.warp_instructions > limit {
                    return Err(Trap {
                        location: cx.program.source_line(pc),
                        instruction: warp::text(cx.program.code[pc as usize]),
                        reason: format!("ran past {limit} warp instructions"),
                    });
                }
            }
        }
        if warps.iter().all(|w| w.state == State::Exited) {
            return Ok(());
        }
        if warps.iter().all(|w| w.state != State::Running) {
            // Everyone still here waits at a barrier: release them.
            warp::release(warps);
            progressed = true;
        }
        if !progressed {
            return Err(Trap {
                location: String::new(),
                instruction: String::new(),
                reason: "no warp can make progress".into(),
            });
        }
    }
}
