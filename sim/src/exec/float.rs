//! The f32 unit: arithmetic with every rounding mode, comparisons, conversions and the
//! special functions. Rounding is `float.rs`; per-lane rules `lane.rs`.

use super::{each, Exec};
use crate::float;
use crate::lane;
use crate::warp::{lanes, Warp};
use sgpu_isa::*;

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

pub(super) fn exec(op: Op, w: &mut Warp, e: Exec) {
    let mask = e.mask;
    match op {
        Op::Fadd {
            rd,
            ra,
            rb,
            rnd,
            ftz,
            sat,
            na,
            nb,
            absa,
            absb,
        } => each(w, mask, rd, |w, l| {
            let a = lane::operand(f(w.r(ra, l)), na, absa);
            let b = lane::operand(f(w.r(rb, l)), nb, absb);
            lane::saturate(float::add(a, b, rnd, ftz), sat).to_bits()
        }),
        Op::Fadd32i { rd, ra, imm32 } => each(w, mask, rd, |w, l| {
            float::add(f(w.r(ra, l)), f(imm32), Rnd::Rn, false).to_bits()
        }),
        Op::Fmul {
            rd,
            ra,
            rb,
            rnd,
            ftz,
            sat,
            na,
            absa,
            absb,
        } => each(w, mask, rd, |w, l| {
            let a = lane::operand(f(w.r(ra, l)), na, absa);
            let b = lane::operand(f(w.r(rb, l)), false, absb);
            lane::saturate(float::mul(a, b, rnd, ftz), sat).to_bits()
        }),
        Op::Fmul32i { rd, ra, imm32 } => each(w, mask, rd, |w, l| {
            float::mul(f(w.r(ra, l)), f(imm32), Rnd::Rn, false).to_bits()
        }),
        Op::Ffma {
            rd,
            ra,
            rb,
            rc,
            rnd,
            ftz,
            sat,
            na,
            nc,
        } => each(w, mask, rd, |w, l| {
            let a = lane::operand(f(w.r(ra, l)), na, false);
            let c = lane::operand(f(w.r(rc, l)), nc, false);
            lane::saturate(float::fma(a, f(w.r(rb, l)), c, rnd, ftz), sat).to_bits()
        }),
        Op::Ffma32i { rd, ra, rb, fimm20 } => each(w, mask, rd, |w, l| {
            let c = f(fimm20 << 12);
            float::fma(f(w.r(ra, l)), f(w.r(rb, l)), c, Rnd::Rn, false).to_bits()
        }),
        Op::Fmnmx {
            rd,
            ra,
            rb,
            max,
            ftz,
            nan,
            absa,
            absb,
        } => each(w, mask, rd, |w, l| {
            let a = lane::operand(lane::ftz_in(f(w.r(ra, l)), ftz), false, absa);
            let b = lane::operand(lane::ftz_in(f(w.r(rb, l)), ftz), false, absb);
            lane::fminmax(a, b, max, nan).to_bits()
        }),
        Op::Fsetp {
            pd,
            pq,
            ra,
            rb,
            pc: c,
            fcmp,
            ftz,
            bop,
        } => {
            let other = w.ps(c);
            let mut t = 0u32;
            for l in lanes(mask) {
                let a = lane::ftz_in(f(w.r(ra, l)), ftz);
                let b = lane::ftz_in(f(w.r(rb, l)), ftz);
                t |= u32::from(lane::fcompare(fcmp, a, b)) << l;
            }
            w.set_p(pd, mask, lane::logic(bop, t, other));
            w.set_p(pq, mask, lane::logic(bop, !t, other));
        }
        Op::Mufu { rd, ra, mufu, ftz } => each(w, mask, rd, |w, l| {
            crate::mufu::eval(mufu, f(w.r(ra, l)), ftz).to_bits()
        }),
        Op::Fdiv {
            rd,
            ra,
            rb,
            rnd,
            ftz,
        } => each(w, mask, rd, |w, l| {
            float::div(f(w.r(ra, l)), f(w.r(rb, l)), rnd, ftz).to_bits()
        }),
        Op::Fsqrt { rd, ra, rnd, ftz } => each(w, mask, rd, |w, l| {
            float::sqrt(f(w.r(ra, l)), rnd, ftz).to_bits()
        }),
        Op::Frcp { rd, ra, rnd, ftz } => each(w, mask, rd, |w, l| {
            float::div(1.0, f(w.r(ra, l)), rnd, ftz).to_bits()
        }),
        Op::F2i {
            rd,
            ra,
            ito,
            rnd,
            ftz,
        } => {
            for l in lanes(mask) {
                let v = lane::ftz_in(f(w.r(ra, l)), ftz);
                let wide = lane::float_to_int(v, ito, rnd);
                if matches!(ito, Ity::U64 | Ity::S64) {
                    w.w64(rd, l, wide);
                } else {
                    w.w(rd, l, wide as u32);
                }
            }
        }
        Op::I2f { rd, ra, ity, rnd } => each(w, mask, rd, |w, l| {
            let v: i128 = match ity {
                Ity::U64 => i128::from(w.r64(ra, l)),
                Ity::S64 => i128::from(w.r64(ra, l) as i64),
                Ity::U32 => i128::from(w.r(ra, l)),
                other => i128::from(lane::convert_int(w.r(ra, l), other, Ity::S32, false) as i32),
            };
            lane::int_to_float(v, rnd).to_bits()
        }),
        Op::F2f {
            rd,
            ra,
            fcvt,
            rint,
            rnd,
            ftz,
            sat,
            relu,
            satf,
        } => each(w, mask, rd, |w, l| {
            let clamps = lane::Clamps {
                sat,
                relu,
                satfinite: satf,
            };
            lane::convert_float(w.r(ra, l), fcvt, (rint, rnd, ftz), clamps)
        }),
        _ => unreachable!("exec::step gives the f32 unit only f32 instructions"),
    }
}
