//! What every instruction does. [`step`] fetches and decodes one warp instruction and hands it
//! to the unit that executes it, one file per unit as the RTL is split: `control` (branches,
//! calls, barriers, warp synchronisation), `int` (moves, predicates, special registers and the
//! integer ALU), `float` (the f32 unit), `mem` (loads, stores, atomics), `surface` (the
//! surface unit's instructions), `warp_ops` (shuffle, vote, reduce, match) and `video` (the
//! video ALU). What an instruction computes in one lane is in `lane.rs`, `float.rs`,
//! `video.rs` and `surface.rs`; each arm here says which lanes take part and what is written.

mod control;
mod evaluate;
mod float;
mod int;
mod mem;
mod surface;
mod video;
mod warp_ops;

pub use evaluate::{evaluate, Evaluated};

use crate::barrier::Arrival;
use crate::memory::Memory;
use crate::program::Decoded;
use crate::program::Program;
use crate::record::Retired;
use crate::surface::Surfaces;
use crate::trap::Cause;
use crate::warp::{lanes, Warp, LANES};
use sgpu_isa::{Pred, Reg, Unit};

/// What a warp instruction sees beyond its warp.
pub struct Ctx<'m> {
    pub program: &'m Program,
    /// Every memory access goes here.
    pub memory: &'m mut dyn Memory,
    pub surfaces: &'m Surfaces,
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub warps_per_cta: u32,
    /// Shared memory bytes of the CTA: the launch's dynamic ones, and all of them.
    pub smem: [u32; 2],
    /// Instructions executed so far, as `%clock`.
    pub clock: u64,
    /// The lane whose own access trapped (an address or surface coordinate of its own), so
    /// that the trap can name its thread; the cause is the warp's, as the RTL reports it.
    pub faulting_lane: Option<u8>,
}

impl Ctx<'_> {
    /// `cause`, noting that lane `lane`'s access raised it.
    pub(crate) fn lane_fault(&mut self, lane: usize, cause: Cause) -> Cause {
        self.faulting_lane = Some(lane as u8);
        cause
    }
}

/// How an instruction leaves the warp.
pub enum Flow {
    /// On to the next instruction.
    Next,
    /// The unit moved the warp itself (branches, calls, exits).
    Moved,
    /// On to the next instruction, having arrived at a barrier, which the CTA settles.
    Arrive(Arrival),
}

/// Executes the next instruction of `w`, recording what it retired in `out`. A barrier
/// arrival is returned for the CTA to settle (it concerns the other warps).
pub fn step(w: &mut Warp, cx: &mut Ctx<'_>, out: &mut Retired) -> Result<Option<Arrival>, Cause> {
    let pc = w.pc().ok_or(Cause::PcOutsideCode { pc: u32::MAX })?;
    let word = *cx
        .program
        .code
        .get(pc as usize)
        .ok_or(Cause::PcOutsideCode { pc })?;
    let program = cx.program;
    let d = match program.decoded.get(pc as usize).and_then(Option::as_ref) {
        Some(d) => d,
        None => {
            let e = sgpu_isa::decode(word).err();
            return Err(e.map_or(Cause::PcOutsideCode { pc }, Cause::InvalidInstruction));
        }
    };
    let next = pc + 1;
    let active = w.active();
    let mask = active & w.ps(d.insn.guard);
    out.reset(pc, word, active, mask);
    cx.clock += 1;
    let e = Exec { next, mask };
    let op = d.insn.op;
    let flow = match d.unit {
        Unit::Control => control::exec(op, w, e)?,
        Unit::Int => {
            int::exec(op, w, cx, e);
            Flow::Next
        }
        Unit::Float | Unit::Sfu => {
            float::exec(op, w, e);
            Flow::Next
        }
        Unit::Mem => mem::exec(op, w, cx, e, out)?,
        Unit::Surface => surface::exec(op, w, cx, e, out)?,
        Unit::Warp => warp_ops::exec(op, w, e)?,
        Unit::Video => {
            video::exec(op, w, e);
            Flow::Next
        }
    };
    let arrival = match flow {
        Flow::Moved => None,
        Flow::Next => {
            w.advance(next);
            None
        }
        Flow::Arrive(a) => {
            w.advance(next);
            Some(a)
        }
    };
    record_writes(w, d, out);
    out.nondeterministic = d.nondeterministic;
    out.next = w.pc().map(|pc| (pc, w.active()));
    Ok(arrival)
}

/// What every unit is told of the instruction beyond its operands.
#[derive(Clone, Copy)]
struct Exec {
    /// The instruction after this one.
    next: u32,
    /// The lanes that execute it: active, and their guard true.
    mask: u32,
}

/// Copies the registers, predicates and carry the instruction writes (by the ISA table's
/// roles) into the record, with every lane's value after the instruction.
fn record_writes(w: &Warp, d: &Decoded, out: &mut Retired) {
    let (regs, preds, carry) = d.writes;
    if let Some((first, count)) = regs {
        out.regs.first = first.0;
        out.regs.count = count;
        for k in 0..count {
            let reg = crate::warp::reg_at(first, k);
            out.regs.values[usize::from(k)] = if reg == Reg::RZ {
                [0; LANES]
            } else {
                w.regs[usize::from(reg.0)]
            };
        }
    }
    for (slot, p) in out.preds.iter_mut().zip(preds) {
        if p != Pred::PT {
            *slot = Some((p.0, w.p(p)));
        }
    }
    if carry {
        out.carry = Some(w.carry);
    }
}

/// Writes `f(lane)` to `rd` in every lane of `mask`; every lane reads its operands before any
/// writes. Inlined so that each instruction's lane loop is compiled with its operation.
#[inline(always)]
fn each(w: &mut Warp, mask: u32, rd: Reg, f: impl Fn(&Warp, usize) -> u32) {
    let mut values = [0u32; LANES];
    for l in lanes(mask) {
        values[l] = f(w, l);
    }
    for l in lanes(mask) {
        w.w(rd, l, values[l]);
    }
}
