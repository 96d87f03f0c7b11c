//! The sgpu golden model: a functional simulator that executes the machine code of an sgpu
//! ELF file and defines what every instruction does: `lane.rs` a function per instruction
//! for what it computes in one lane, each quoting its PTX rule; `exec.rs` the warp-level
//! parts (control, memory, warp operations); the video ALU in `video.rs`, the surface unit in
//! `surface.rs`, IEEE rounding in `float.rs`.
//! [`exec::step`] runs one warp instruction and reports what it retired, so that the RTL's
//! co-simulation can drive the model in the RTL's own issue order; [`run`] runs a grid.

pub mod exec;
pub mod float;
pub mod lane;
pub mod launch;
pub mod memory;
pub mod program;
pub mod surface;
pub mod video;
pub mod warp;

use memory::Global;
use program::{Function, Program};
use sgpu_isa::abi;
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

/// Runs a kernel over its grid, one CTA after another, its warps in turn. `observe` sees
/// every retired instruction (CTA index, warp, what it did).
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
        .ok_or_else(|| Trap {
            location: String::new(),
            instruction: String::new(),
            reason: format!("no kernel `{}` in the program", launch.kernel),
        })?;
    let Shape {
        threads,
        warps: warps_per_cta,
        local,
        shared: shared_size,
    } = launch.check(kernel).map_err(|reason| Trap {
        location: String::new(),
        instruction: String::new(),
        reason,
    })?;
    let mut stats = Stats::default();
    let [gx, gy, gz] = launch.grid;
    let mut cta_index = 0;
    for cz in 0..gz {
        for cy in 0..gy {
            for cx_ in 0..gx {
                let mut shared = vec![0u8; shared_size as usize];
                let mut warps: Vec<Warp> = (0..warps_per_cta)
                    .map(|wi| {
                        let tid = std::array::from_fn(|l| {
                            let t = wi * LANES as u32 + l as u32;
                            let [bx, by, _] = launch.block;
                            [t % bx, t / bx % by, t / (bx * by)]
                        });
                        let count = (threads - wi * LANES as u32).min(LANES as u32);
                        Warp::new(wi, kernel.start, tid, count, local as usize)
                    })
                    .collect();
                let mut cx = exec::Ctx {
                    program,
                    global: &mut *global,
                    shared: &mut shared,
                    params: &launch.params,
                    surfaces,
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

#[cfg(test)]
mod tests {
    use super::*;
    use sgpu_isa::elf::Info;

    fn kernel(info: Info) -> Function {
        Function {
            name: "k".into(),
            start: 0,
            len: 0,
            info: Info {
                entry: true,
                ..info
            },
        }
    }

    fn launch(block: [u32; 3], params: usize) -> Launch {
        Launch {
            kernel: "k".into(),
            grid: [1, 1, 1],
            block,
            shared: 0,
            params: vec![0; params],
            max_instructions: 100,
        }
    }

    #[test]
    fn a_good_launch_has_its_shape() {
        let k = kernel(Info {
            param_bytes: 8,
            local_bytes: 32,
            shared_bytes: 100,
            ..Info::default()
        });
        let shape = launch([33, 2, 1], 8).check(&k).unwrap();
        let local = 32 + abi::CALL_STACK as u32;
        assert_eq!(
            shape,
            Shape {
                threads: 66,
                warps: 3,
                local,
                shared: 100
            }
        );
    }

    #[test]
    fn the_kernels_own_sizes_are_checked_too() {
        let big_params = kernel(Info {
            param_bytes: 5000,
            ..Info::default()
        });
        assert_eq!(
            launch([1, 1, 1], 5000).check(&big_params).unwrap_err(),
            "`params`: kernel `k` takes 5000 bytes of parameters; at most 4096"
        );
        let eight = kernel(Info {
            param_bytes: 8,
            ..Info::default()
        });
        assert_eq!(
            launch([1, 1, 1], 4).check(&eight).unwrap_err(),
            "`params`: 4 bytes for kernel `k`'s 8 bytes of parameters"
        );
        // A frame of u32::MAX bytes plus the call stack wrapped in u32.
        let deep = kernel(Info {
            local_bytes: u32::MAX,
            ..Info::default()
        });
        assert_eq!(
            launch([1, 1, 1], 0).check(&deep).unwrap_err(),
            "`kernel`: `k` needs 4294967295 local bytes per thread and 16384 for calls; at most 524288 in all"
        );
        let shared = kernel(Info {
            shared_bytes: u32::MAX,
            ..Info::default()
        });
        let mut l = launch([1, 1, 1], 0);
        l.shared = 1;
        assert!(l.check(&shared).unwrap_err().starts_with(
            "`shared`: 1 dynamic bytes and the kernel's 4294967295 static bytes make 4294967296;"
        ));
    }

    #[test]
    fn run_refuses_a_launch_of_no_threads_instead_of_finishing() {
        let mut program = Program::default();
        program.functions.push(kernel(Info::default()));
        let trap = run(
            &program,
            &mut Global::default(),
            &Surfaces::default(),
            &launch([0, 1, 1], 0),
            |_, _, _| {},
        )
        .unwrap_err();
        assert_eq!(trap.reason, "`block[0]`: 0 threads; 1 to 1024 along x");
    }
}
