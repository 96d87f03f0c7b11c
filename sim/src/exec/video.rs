//! The video ALU's instructions: every lane of the mask computes `video.rs`'s function of its
//! `ra`, `rb` and `rc` into `rd`. The five arithmetic instructions share one encoding and
//! differ only in the operation; the SIMD ones (VOP2, VOP4, VSET2, VSET4) differ in their
//! element count and destination mask.

use super::{each, Exec};
use crate::video::{self, Arith, Mad, Operands, Simd, SimdOp};
use crate::warp::Warp;
use sgpu_isa::{Op, Reg, Vmask2, Vmask4};

/// The element mask of a two-way destination: the enum numbers the elements left out.
fn mask2(m: Vmask2) -> u32 {
    !(m as u32) & 0b11
}

/// The element mask of a four-way destination: the enum numbers the elements left out.
fn mask4(m: Vmask4) -> u32 {
    !(m as u32) & 0b1111
}

/// Registers of a SIMD video instruction.
struct SimdRegs {
    rd: Reg,
    ra: Reg,
    rb: Reg,
    rc: Reg,
}

fn simd(w: &mut Warp, mask: u32, op: SimdOp, s: Simd, r: SimdRegs) {
    each(w, mask, r.rd, |w, l| {
        video::simd(op, &s, w.r(r.ra, l), w.r(r.rb, l), w.r(r.rc, l))
    });
}

pub(super) fn exec(op: Op, w: &mut Warp, e: Exec) {
    let mask = e.mask;
    match op {
        Op::Vadd {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vsec,
        }
        | Op::Vsub {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vsec,
        }
        | Op::Vabsdiff {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vsec,
        }
        | Op::Vmin {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vsec,
        }
        | Op::Vmax {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vsec,
        } => {
            let arith = match op {
                Op::Vadd { .. } => Arith::Add,
                Op::Vsub { .. } => Arith::Sub,
                Op::Vabsdiff { .. } => Arith::Absdiff,
                Op::Vmin { .. } => Arith::Min,
                _ => Arith::Max,
            };
            let o = Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            };
            each(w, mask, rd, |w, l| {
                video::arith(arith, &o, w.r(ra, l), w.r(rb, l), w.r(rc, l))
            });
        }
        Op::Vshl {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            vclamp,
            vsat,
            vsec,
        }
        | Op::Vshr {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            dsgn,
            asgn,
            vclamp,
            vsat,
            vsec,
        } => {
            let left = matches!(op, Op::Vshl { .. });
            let o = Operands {
                dsgn,
                asgn,
                bsgn: false,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            };
            each(w, mask, rd, |w, l| {
                video::shift(left, vclamp, &o, w.r(ra, l), w.r(rb, l), w.r(rc, l))
            });
        }
        Op::Vmad {
            rd,
            ra,
            asel,
            rb,
            bsel,
            rc,
            asgn,
            bsgn,
            vsat,
            vneg,
            vscale,
            po,
            ..
        } => {
            let m = Mad {
                asgn,
                bsgn,
                asel,
                bsel,
                sat: vsat,
                neg: vneg,
                scale: vscale,
                po,
            };
            each(w, mask, rd, |w, l| {
                video::mad(&m, w.r(ra, l), w.r(rb, l), w.r(rc, l))
            });
        }
        Op::Vset {
            rd,
            dsel,
            ra,
            asel,
            rb,
            bsel,
            rc,
            asgn,
            bsgn,
            vcmp,
            vsec,
        } => {
            let o = Operands {
                dsgn: false,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: false,
                vsec,
            };
            each(w, mask, rd, |w, l| {
                video::set(vcmp, &o, w.r(ra, l), w.r(rb, l), w.r(rc, l))
            });
        }
        Op::Vop2 {
            rd,
            vm2,
            ra,
            rb,
            rc,
            vop,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vacc,
        } => {
            let s = Simd {
                elements: 2,
                dsgn,
                asgn,
                bsgn,
                sat: vsat,
                acc: vacc,
                mask: mask2(vm2),
            };
            simd(w, mask, SimdOp::Arith(vop), s, SimdRegs { rd, ra, rb, rc });
        }
        Op::Vop4 {
            rd,
            vm4,
            ra,
            rb,
            rc,
            vop,
            dsgn,
            asgn,
            bsgn,
            vsat,
            vacc,
        } => {
            let s = Simd {
                elements: 4,
                dsgn,
                asgn,
                bsgn,
                sat: vsat,
                acc: vacc,
                mask: mask4(vm4),
            };
            simd(w, mask, SimdOp::Arith(vop), s, SimdRegs { rd, ra, rb, rc });
        }
        Op::Vset2 {
            rd,
            vm2,
            ra,
            rb,
            rc,
            asgn,
            bsgn,
            vcmp,
            vacc,
        } => {
            let s = Simd {
                elements: 2,
                dsgn: false,
                asgn,
                bsgn,
                sat: false,
                acc: vacc,
                mask: mask2(vm2),
            };
            simd(w, mask, SimdOp::Set(vcmp), s, SimdRegs { rd, ra, rb, rc });
        }
        Op::Vset4 {
            rd,
            vm4,
            ra,
            rb,
            rc,
            asgn,
            bsgn,
            vcmp,
            vacc,
        } => {
            let s = Simd {
                elements: 4,
                dsgn: false,
                asgn,
                bsgn,
                sat: false,
                acc: vacc,
                mask: mask4(vm4),
            };
            simd(w, mask, SimdOp::Set(vcmp), s, SimdRegs { rd, ra, rb, rc });
        }
        _ => unreachable!("exec::step gives the video ALU only video instructions"),
    }
}
