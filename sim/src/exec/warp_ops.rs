//! Warp operations: lanes exchanging values (`shfl`), voting (`vote`, `activemask`), reducing
//! (`redux`) and matching (`match`).
//!
//! `VOTE`, `REDUX` and `MATCH` take each lane's member mask in `rb`: the lanes whose values
//! its result is made of. A `WARPSYNC` before them has checked that every non-exited member is
//! executing. A member mask of zero (RZ) stands for the lanes executing the instruction: what
//! the forms without `.sync` and `activemask` mean, and, after `WARPSYNC 0xffffffff`, the same
//! as a full mask.

use super::{each, Exec, Flow};
use crate::trap::Cause;
use crate::warp::{lanes, Warp, LANES};
use sgpu_isa::{Op, Redop, Smode, Vmode};

pub(super) fn exec(op: Op, w: &mut Warp, e: Exec) -> Result<Flow, Cause> {
    let mask = e.mask;
    match op {
        Op::Shfl {
            rd,
            pd,
            ra,
            rb,
            rc,
            smode,
        } => {
            // A source lane that is inactive gives what its register holds (PTX: unpredictable).
            let values: [u32; LANES] = std::array::from_fn(|l| w.r(ra, l));
            let mut valid = 0u32;
            for l in lanes(mask) {
                let (j, ok) = shuffle_source(smode, l as u32, w.ri(rb, l), w.ri(rc, l));
                w.w(rd, l, values[j as usize]);
                valid |= u32::from(ok) << l;
            }
            w.set_p(pd, mask, valid);
        }
        Op::Vote {
            rd,
            pd,
            rb,
            pc,
            vmode,
        } => {
            // Every mode writes the ballot to rd (RZ drops it), as NVIDIA's VOTE does; all,
            // any and uni their verdict to pd, which BALLOT leaves as it was.
            let truth = w.ps(pc) & mask;
            let mut result = 0u32;
            for l in lanes(mask) {
                let m = members(w, rb, l, mask);
                let v = truth & m;
                w.w(rd, l, v);
                let bit = match vmode {
                    Vmode::Ballot => continue,
                    Vmode::All => v == m,
                    Vmode::Any => v != 0,
                    Vmode::Uni => v == 0 || v == m,
                };
                result |= u32::from(bit) << l;
            }
            if vmode != Vmode::Ballot {
                w.set_p(pd, mask, result);
            }
        }
        // redux.sync: the operation over the values of the lane's members.
        Op::Redux {
            rd,
            ra,
            rb,
            redop,
            sgn,
        } => {
            let values: [u32; LANES] = std::array::from_fn(|l| w.r(ra, l));
            let member_masks: [u32; LANES] = std::array::from_fn(|l| members(w, rb, l, mask));
            each(w, mask, rd, |_, l| {
                lanes(member_masks[l])
                    .map(|k| values[k])
                    .reduce(|a, v| reduce(redop, sgn, a, v))
                    .unwrap_or(0)
            });
        }
        // match.any: the members holding this lane's value; match.all: all members if they
        // agree, else 0, and the predicate says which.
        Op::Match {
            rd,
            pd,
            ra,
            rb,
            mall,
        } => {
            let values: [u32; LANES] = std::array::from_fn(|l| w.r(ra, l));
            let mut agree = 0u32;
            let mut result = [0u32; LANES];
            for l in lanes(mask) {
                let m = members(w, rb, l, mask);
                let same = lanes(m)
                    .filter(|&k| values[k] == values[l])
                    .fold(0u32, |s, k| s | 1 << k);
                let all = same == m;
                agree |= u32::from(all) << l;
                result[l] = match (mall, all) {
                    (false, _) => same,
                    (true, true) => m,
                    (true, false) => 0,
                };
            }
            each(w, mask, rd, |_, l| result[l]);
            w.set_p(pd, mask, agree);
        }
        _ => unreachable!("exec::step gives the warp unit only warp operations"),
    }
    Ok(Flow::Next)
}

/// Lane `l`'s member mask: its `rb` value less the lanes that do not exist or have exited,
/// or the executing lanes when `rb` is zero.
fn members(w: &Warp, rb: sgpu_isa::Reg, l: usize, executing: u32) -> u32 {
    match w.r(rb, l) {
        0 => executing,
        m => m & w.lanes & !w.exited,
    }
}

/// shfl.sync's source lane for `lane` and whether it is in range, exactly as PTX's
/// pseudocode: `b` gives only its bits 4:0, `c` packs the clamp value (bits 4:0) and the
/// segment mask (bits 12:8). A lane out of range reads its own value.
pub fn shuffle_source(mode: Smode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (bval, cval, seg) = (b & 0x1f, c & 0x1f, (c >> 8) & 0x1f);
    let max_lane = (lane & seg) | (cval & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        // j may be negative: the comparison is signed.
        Smode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        Smode::Down => {
            let j = lane + bval;
            (j as i32, j <= max_lane)
        }
        Smode::Bfly => {
            let j = lane ^ bval;
            (j as i32, j <= max_lane)
        }
        Smode::Idx => {
            let j = min_lane | (bval & !seg);
            (j as i32, j <= max_lane)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

fn reduce(op: Redop, sgn: bool, a: u32, v: u32) -> u32 {
    match op {
        Redop::Add => a.wrapping_add(v),
        Redop::Min if sgn => (a as i32).min(v as i32) as u32,
        Redop::Max if sgn => (a as i32).max(v as i32) as u32,
        Redop::Min => a.min(v),
        Redop::Max => a.max(v),
        Redop::And => a & v,
        Redop::Or => a | v,
        Redop::Xor => a ^ v,
    }
}
