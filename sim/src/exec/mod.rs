//! What every instruction does. [`step`] fetches and decodes one warp instruction and hands it
//! to the unit that executes it, one file per unit as the RTL is split: `control` (branches,
//! calls, barriers, warp synchronisation), `int` (moves, predicates, special registers and the
//! integer ALU), `float` (the f32 unit), `mem` (loads, stores, atomics), `surface` (the
//! surface unit's instructions), `warp_ops` (shuffle, vote, reduce, match) and `video` (the
//! video ALU). What an instruction computes in one lane is in `lane.rs`, `float.rs`,
//! `video.rs` and `surface.rs`; each arm here says which lanes take part and what is written.

mod control;
mod float;
mod int;
mod mem;
mod surface;
mod video;
mod warp_ops;

use crate::barrier::Arrival;
use crate::memory::Global;
use crate::program::Program;
use crate::record::Retired;
use crate::surface::Surfaces;
use crate::trap::Cause;
use crate::warp::{lanes, Warp, LANES};
use sgpu_isa::{Op, Reg};

/// What a warp instruction sees beyond its warp.
pub struct Ctx<'m> {
    pub program: &'m Program,
    pub global: &'m mut Global,
    pub shared: &'m mut [u8],
    /// Constant bank 0: the kernel's parameters.
    pub params: &'m [u8],
    pub surfaces: &'m mut Surfaces,
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub warps_per_cta: u32,
    /// Instructions executed so far, as `%clock`.
    pub clock: u64,
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
    let insn = match cx.program.decoded.get(pc as usize).copied().flatten() {
        Some(insn) => insn,
        None => {
            let e = sgpu_isa::decode(word).err();
            return Err(e.map_or(Cause::PcOutsideCode { pc }, Cause::InvalidInstruction));
        }
    };
    let next = pc + 1;
    let active = w.active();
    let mask = active & w.ps(insn.guard);
    out.reset(pc, word, active, mask);
    cx.clock += 1;
    let e = Exec { next, mask };
    use Op::*;
    let flow = match insn.op {
        Nop
        | Exit
        | Bra { .. }
        | Ssy { .. }
        | Call { .. }
        | Ret
        | Trap
        | Bar { .. }
        | Barred { .. }
        | Membar { .. }
        | Warpsync { .. }
        | Warpsynci { .. } => control::exec(insn.op, w, e)?,
        Mov { .. }
        | Mov32i { .. }
        | S2r { .. }
        | Sel { .. }
        | Plop { .. }
        | Iadd { .. }
        | Iadd32i { .. }
        | Imul { .. }
        | Imul32i { .. }
        | Imad { .. }
        | Imnmx { .. }
        | Iabs { .. }
        | Isetp { .. }
        | Lop3 { .. }
        | Lop32i { .. }
        | Shl { .. }
        | Shr { .. }
        | Shf { .. }
        | Bfe { .. }
        | Bfi { .. }
        | Popc { .. }
        | Clz { .. }
        | Brev { .. }
        | Flo { .. }
        | Prmt { .. }
        | Prmti { .. }
        | I2i { .. }
        | Idiv { .. } => {
            int::exec(insn.op, w, cx, e, out);
            Flow::Next
        }
        Fadd { .. }
        | Fadd32i { .. }
        | Fmul { .. }
        | Fmul32i { .. }
        | Ffma { .. }
        | Fmnmx { .. }
        | Fsetp { .. }
        | Mufu { .. }
        | Fdiv { .. }
        | Fsqrt { .. }
        | Frcp { .. }
        | F2i { .. }
        | I2f { .. }
        | F2f { .. } => {
            float::exec(insn.op, w, e, out);
            Flow::Next
        }
        Ld { .. } | St { .. } | Ldc { .. } | Atom { .. } | Red { .. } => {
            mem::exec(insn.op, w, cx, e, out)?
        }
        Suld { .. } | Sust { .. } | Sured { .. } | Suq { .. } => {
            surface::exec(insn.op, w, cx, e, out)?
        }
        Shfl { .. } | Vote { .. } | Redux { .. } | Match { .. } => {
            warp_ops::exec(insn.op, w, e, out)?
        }
        Vadd { .. }
        | Vsub { .. }
        | Vabsdiff { .. }
        | Vmin { .. }
        | Vmax { .. }
        | Vshl { .. }
        | Vshr { .. }
        | Vmad { .. }
        | Vset { .. } => {
            video::exec(insn.op, w, e, out);
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
    record_writes(w, out);
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

/// Copies the values of the registers, predicates and carry the unit said it wrote into the
/// record.
fn record_writes(w: &Warp, out: &mut Retired) {
    let first = out.regs.first;
    for k in 0..out.regs.count {
        let r = crate::warp::reg_at(Reg(first), k);
        out.regs.values[usize::from(k)] = if r == Reg::RZ {
            [0; LANES]
        } else {
            w.regs[usize::from(r.0)]
        };
    }
    for p in out.preds.iter_mut().flatten() {
        p.1 = w.p(sgpu_isa::Pred(p.0));
    }
    if out.carry.is_some() {
        out.carry = Some(w.carry);
    }
}

impl Retired {
    /// Notes that `count` registers from `rd` were written (none when `rd` is RZ).
    fn wrote(&mut self, rd: Reg, count: u8) {
        if rd != Reg::RZ {
            self.regs.first = rd.0;
            self.regs.count = count;
        }
    }

    /// Notes that predicate `p` was written (nothing when it is PT).
    fn wrote_pred(&mut self, slot: usize, p: sgpu_isa::Pred) {
        if p != sgpu_isa::Pred::PT {
            self.preds[slot] = Some((p.0, 0));
        }
    }
}

/// Writes `f(lane)` to `rd` in every lane of `mask`; every lane reads its operands before any
/// writes.
fn each(w: &mut Warp, mask: u32, rd: Reg, out: &mut Retired, f: impl Fn(&Warp, usize) -> u32) {
    let mut values = [0u32; LANES];
    for l in lanes(mask) {
        values[l] = f(w, l);
    }
    for l in lanes(mask) {
        w.w(rd, l, values[l]);
    }
    out.wrote(rd, 1);
}
