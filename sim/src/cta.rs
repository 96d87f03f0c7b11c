//! One CTA: its warps and barriers, and [`Cta::step`], which retires one
//! instruction of a warp the caller chooses. The order is the caller's: [`crate::run`] takes
//! the warps in turn; a co-simulation steps the warp the RTL retired.

use crate::barrier::Barriers;
use crate::exec::{self, Ctx};
use crate::memory::Memory;
use crate::program::{Function, Program};
use crate::record::Retired;
use crate::surface::Surfaces;
use crate::trap::{Cause, Stopped, Trap, WarpState};
use crate::warp::{self, lanes, State, Warp, LANES};
use crate::Launch;
use crate::Shape;
use std::sync::atomic::Ordering;

/// What every CTA of a launch shares: the program, the memory system (which holds the
/// running CTA's shared and local memory too), and the grid's shape.
pub struct Grid<'m> {
    pub program: &'m Program,
    pub memory: &'m mut dyn Memory,
    pub surfaces: &'m Surfaces,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Warp instructions retired so far in the launch: `%clock`.
    pub clock: u64,
}

pub struct Cta {
    pub index: [u32; 3],
    pub warps: Vec<Warp>,
    pub barriers: Barriers,
    /// Shared memory bytes: the launch's dynamic ones, and all of them.
    pub smem: [u32; 2],
}

impl Cta {
    /// Starts CTA `index` of a launch of `kernel`, sized as the launch's check worked out:
    /// every warp at the kernel's first instruction, its shared and local memory zero.
    pub fn new(kernel: &Function, shape: &Shape, index: [u32; 3], g: &mut Grid<'_>) -> Cta {
        let [bx, by, _] = g.block;
        g.memory.start_cta(
            shape.shared as usize,
            shape.threads as usize,
            shape.local as usize,
        );
        let warps = (0..shape.warps)
            .map(|wi| {
                let tid = std::array::from_fn(|l| {
                    let t = wi * LANES as u32 + l as u32;
                    [t % bx, t / bx % by, t / (bx * by)]
                });
                let count = (shape.threads - wi * LANES as u32).min(LANES as u32);
                Warp::new(wi, kernel.start, tid, count, shape.local as usize)
            })
            .collect();
        Cta {
            index,
            warps,
            smem: [shape.shared - kernel.info.shared_bytes, shape.shared],
            barriers: Barriers::default(),
        }
    }

    /// The warps that can issue: neither exited nor waiting at a barrier.
    pub fn ready(&self) -> u32 {
        self.warps
            .iter()
            .enumerate()
            .filter(|(_, w)| w.state == State::Running)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    pub fn finished(&self) -> bool {
        self.warps.iter().all(|w| w.state == State::Exited)
    }

    /// Retires the next instruction of warp `warp` (which must be ready) into `out`.
    pub fn step(&mut self, warp: usize, g: &mut Grid<'_>, out: &mut Retired) -> Result<(), Trap> {
        if !self
            .warps
            .get(warp)
            .is_some_and(|w| w.state == State::Running)
        {
            let cause = Cause::NotReady { warp: warp as u32 };
            return Err(self.trap(cause, warp, None, None, g.program));
        }
        let warps_per_cta = self.warps.len() as u32;
        let w = &mut self.warps[warp];
        let pc = w.pc();
        let mut cx = Ctx {
            program: g.program,
            memory: &mut *g.memory,
            surfaces: g.surfaces,
            ntid: g.block,
            ctaid: self.index,
            nctaid: g.grid,
            warps_per_cta,
            smem: self.smem,
            clock: g.clock,
            faulting_lane: None,
        };
        let result = exec::step(w, &mut cx, out);
        let faulting_lane = cx.faulting_lane;
        g.clock = cx.clock;
        let exited = w.state == State::Exited;
        let settled = match result {
            Ok(Some(arrival)) => self
                .barriers
                .arrive(&mut self.warps, warp, arrival)
                .map(|e| out.barrier = Some(e)),
            Ok(None) => {
                if exited {
                    // A whole-CTA barrier may have been waiting only for this warp.
                    out.barrier = self.barriers.recheck(&mut self.warps);
                }
                Ok(())
            }
            Err(cause) => Err(cause),
        };
        settled.map_err(|cause| {
            let lane = match cause {
                Cause::FrameOverflow { lane, .. } => Some(lane),
                _ => faulting_lane,
            };
            self.trap(cause, warp, lane, pc, g.program)
        })
    }

    /// A trap of warp `warp` (of its lane `lane`'s access, when one lane's) at `pc`, with
    /// where it happened.
    pub fn trap(
        &self,
        cause: Cause,
        warp: usize,
        lane: Option<u8>,
        pc: Option<u32>,
        program: &Program,
    ) -> Trap {
        let (location, instruction) = site(pc, program);
        let thread = lane.and_then(|lane| {
            let tid = self.warps.get(warp)?.tid.get(usize::from(lane))?;
            let [x, y, z] = tid.map(u16::try_from);
            Some([x.ok()?, y.ok()?, z.ok()?])
        });
        Trap {
            cause,
            cta: self.index,
            warp: warp as u32,
            thread,
            location,
            instruction,
            stopped: None,
        }
    }

    /// Runs the CTA to its end, each ready warp in turn for up to `SLICE` instructions,
    /// until `launch`'s instruction limit or its interrupt stops it with every warp's state.
    pub fn run(
        &mut self,
        g: &mut Grid<'_>,
        launch: &Launch,
        retired: &mut Retired,
        mut observe: impl FnMut(&Cta, u32, &Retired),
    ) -> Result<(), Trap> {
        const SLICE: u32 = 64;
        loop {
            let ready = self.ready();
            if ready == 0 {
                if self.finished() {
                    return Ok(());
                }
                return Err(self.trap(Cause::Deadlock, 0, None, None, g.program));
            }
            for wi in lanes(ready) {
                if launch.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                    return Err(self.stopped(Cause::Interrupted, wi, g.program));
                }
                for _ in 0..SLICE {
                    if self.warps[wi].state != State::Running {
                        break;
                    }
                    if g.clock >= launch.max_instructions {
                        let limit = launch.max_instructions;
                        let cause = Cause::InstructionLimit { limit };
                        return Err(self.stopped(cause, wi, g.program));
                    }
                    self.step(wi, g, retired)?;
                    observe(self, wi as u32, retired);
                }
            }
        }
    }

    /// A trap of a run stopped from outside the kernel (a limit, an interrupt) while warp
    /// `warp` was next: with every warp's state, so that a hung kernel can be found.
    fn stopped(&self, cause: Cause, warp: usize, program: &Program) -> Trap {
        let mut trap = self.trap(cause, warp, None, self.warps[warp].pc(), program);
        let warps = self
            .warps
            .iter()
            .enumerate()
            .map(|(i, w)| {
                // A waiting warp's pc is past its barrier instruction, which never branches:
                // the barrier is what it waits at.
                let pc = match w.state {
                    State::Running => w.pc(),
                    State::Waiting(_) => w.pc().map(|pc| pc.saturating_sub(1)),
                    State::Exited => None,
                };
                let (location, instruction) = site(pc, program);
                WarpState {
                    warp: i as u32,
                    state: match w.state {
                        State::Running => "running".to_string(),
                        State::Waiting(id) => format!("waiting at barrier {id}"),
                        State::Exited => "exited".to_string(),
                    },
                    pc: pc.map(|pc| u64::from(pc) * 8),
                    active: w.active(),
                    location,
                    instruction,
                }
            })
            .collect();
        trap.stopped = Some(Box::new(Stopped { warps }));
        trap
    }
}

/// The PTX line and the assembly of the instruction at `pc`; empty where there is none.
fn site(pc: Option<u32>, program: &Program) -> (String, String) {
    match pc.and_then(|pc| Some((pc, program.code.get(pc as usize)?))) {
        Some((pc, &word)) => (program.source_line(pc), warp::text(word)),
        None => (String::new(), String::new()),
    }
}
