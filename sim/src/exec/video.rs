//! The video ALU's instructions: every lane of the mask computes `video.rs`'s function of its
//! `ra`, `rb` and `rc` into `rd`. The five arithmetic instructions share one encoding and
//! differ only in the operation.

use super::{each, Exec};
use crate::video::{self, Arith, Mad, Operands};
use crate::warp::Warp;
use sgpu_isa::Op;

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
        _ => unreachable!("exec::step gives the video ALU only video instructions"),
    }
}
