//! The surface unit's instructions: each lane's access goes to the surface its operand names
//! (`surface.rs` has the layout, clamping and format rules).

use super::{Ctx, Exec, Flow};
use crate::record::Retired;
use crate::trap::Cause;
use crate::warp::{lanes, Warp};
use sgpu_isa::Op;

pub(super) fn exec(
    op: Op,
    w: &mut Warp,
    cx: &mut Ctx<'_>,
    e: Exec,
    out: &mut Retired,
) -> Result<Flow, Cause> {
    let mask = e.mask;
    match op {
        Op::Suld {
            rd,
            ra,
            rb,
            sfmt,
            geom,
            vec,
            dsize,
            sclamp,
            ..
        } => {
            for l in lanes(mask) {
                let s = crate::surface::target(w, rb, l);
                cx.surfaces
                    .load(cx.memory, w, l, s, rd, ra, sfmt, geom, vec, dsize, sclamp)
                    .map_err(|c| cx.lane_fault(l, c))?;
            }
        }
        Op::Sust {
            ra,
            rb,
            rc,
            sfmt,
            geom,
            vec,
            dsize,
            sclamp,
            ..
        } => {
            for l in lanes(mask) {
                let s = crate::surface::target(w, rb, l);
                cx.surfaces
                    .store(
                        cx.memory, out, w, l, s, rc, ra, sfmt, geom, vec, dsize, sclamp,
                    )
                    .map_err(|c| cx.lane_fault(l, c))?;
            }
        }
        Op::Sured {
            ra,
            rb,
            rc,
            sfmt,
            sop,
            geom,
            sty,
            sclamp,
        } => {
            for l in lanes(mask) {
                let s = crate::surface::target(w, rb, l);
                cx.surfaces
                    .reduce(
                        cx.memory, out, w, l, s, rc, ra, sfmt, sop, geom, sty, sclamp,
                    )
                    .map_err(|c| cx.lane_fault(l, c))?;
            }
        }
        Op::Suq { rd, rb, query } => {
            for l in lanes(mask) {
                let s = crate::surface::target(w, rb, l);
                let v = cx
                    .surfaces
                    .query(cx.memory, s, query)
                    .map_err(|c| cx.lane_fault(l, c))?;
                w.w(rd, l, v);
            }
        }
        _ => unreachable!("exec::step gives the surface unit only surface instructions"),
    }
    Ok(Flow::Next)
}
