//! The integer unit: moves, selects, predicate logic, special registers and integer
//! arithmetic on 32-bit lanes (64-bit values use the carry and register pairs). What each
//! computes in one lane is `lane.rs`.

use super::{each, Ctx, Exec};
use crate::lane;
use crate::warp::{lanes, window, Warp};
use sgpu_isa::*;

pub(super) fn exec(op: Op, w: &mut Warp, cx: &Ctx<'_>, e: Exec) {
    match op {
        Op::S2r { rd, sreg } => {
            for l in lanes(e.mask) {
                if sreg == Sreg::Clock64 {
                    w.w64(rd, l, cx.clock);
                } else {
                    let v = special(w, cx, sreg, l);
                    w.w(rd, l, v);
                }
            }
        }
        _ => compute(op, w, e),
    }
}

/// Every instruction of the unit but `S2R`: what they write depends on their operands alone.
pub(super) fn compute(op: Op, w: &mut Warp, e: Exec) {
    let mask = e.mask;
    match op {
        Op::Mov { rd, ra } => each(w, mask, rd, |w, l| w.r(ra, l)),
        Op::Mov32i { rd, imm32 } => each(w, mask, rd, |_, _| imm32),
        Op::Sel { rd, ra, rb, pc: p } => {
            let cond = w.ps(p);
            each(w, mask, rd, |w, l| {
                if cond >> l & 1 != 0 {
                    w.r(ra, l)
                } else {
                    w.ri(rb, l)
                }
            })
        }
        Op::Plop { pd, pa, pc: c, bop } => {
            let (a, b) = (w.ps(pa), w.ps(c));
            let v = lane::logic(bop, a, b);
            w.set_p(pd, mask, v);
        }
        Op::Iadd {
            rd,
            ra,
            rb,
            nb,
            cc,
            x,
            sat,
        } => {
            let mut carry = w.carry;
            for l in lanes(mask) {
                let (d, cout) = lane::iadd(w.r(ra, l), w.ri(rb, l), carry >> l & 1, nb, x, sat);
                if cc {
                    carry = (carry & !(1 << l)) | (cout << l);
                }
                w.w(rd, l, d);
            }
            w.carry = carry;
        }
        Op::Iadd32i { rd, ra, imm32 } => each(w, mask, rd, |w, l| w.r(ra, l).wrapping_add(imm32)),
        Op::Imul {
            rd,
            ra,
            rb,
            hi,
            sgn,
        } => each(w, mask, rd, |w, l| {
            lane::mul(w.r(ra, l), w.ri(rb, l), hi, sgn)
        }),
        Op::Imul32i { rd, ra, imm32 } => each(w, mask, rd, |w, l| w.r(ra, l).wrapping_mul(imm32)),
        Op::Imad {
            rd,
            ra,
            rb,
            rc,
            hi,
            sgn,
            cc,
            x,
        } => {
            let mut carry = w.carry;
            for l in lanes(mask) {
                let (a, b, c) = (w.r(ra, l), w.ri(rb, l), w.ri(rc, l));
                let (d, cout) = lane::imad(a, b, c, carry >> l & 1, hi, sgn, x);
                if cc {
                    carry = (carry & !(1 << l)) | (cout << l);
                }
                w.w(rd, l, d);
            }
            w.carry = carry;
        }
        Op::Imadw {
            rd,
            ra,
            rb,
            rc,
            sgn,
        } => {
            for l in lanes(mask) {
                let product = lane::mul_wide(w.r(ra, l), w.ri(rb, l), sgn);
                let d = product.wrapping_add(w.r64(rc, l));
                w.w64(rd, l, d);
            }
        }
        Op::Imnmx {
            rd,
            ra,
            rb,
            max,
            sgn,
        } => each(w, mask, rd, |w, l| {
            lane::imnmx(w.r(ra, l), w.ri(rb, l), max, sgn)
        }),
        Op::Iabs { rd, ra } => each(w, mask, rd, |w, l| lane::iabs(w.r(ra, l))),
        Op::Isetp {
            pd,
            pq,
            ra,
            rb,
            pc: c,
            icmp,
            sgn,
            x,
            bop,
        } => {
            let other = w.ps(c);
            let mut t = 0u32;
            for l in lanes(mask) {
                let (a, b) = (w.r(ra, l), w.ri(rb, l));
                let bit = if x {
                    lane::compare_high(icmp, a, b, sgn, other >> l & 1 != 0)
                } else {
                    lane::compare(icmp, a, b, sgn)
                };
                t |= u32::from(bit) << l;
            }
            let (vd, vq) = if x {
                (t, !t)
            } else {
                (lane::logic(bop, t, other), lane::logic(bop, !t, other))
            };
            w.set_p(pd, mask, vd);
            w.set_p(pq, mask, vq);
        }
        Op::Lop3 {
            rd,
            ra,
            rb,
            rc,
            lut,
        } => each(w, mask, rd, |w, l| {
            lane::lop3(w.r(ra, l), w.ri(rb, l), w.ri(rc, l), lut)
        }),
        Op::Lop32i {
            rd,
            ra,
            imm32,
            lop2,
        } => each(w, mask, rd, |w, l| lane::lop2(w.r(ra, l), imm32, lop2)),
        Op::Shl { rd, ra, rb } => each(w, mask, rd, |w, l| lane::shl(w.r(ra, l), w.ri(rb, l))),
        Op::Shr { rd, ra, rb, sgn } => {
            each(w, mask, rd, |w, l| lane::shr(w.r(ra, l), w.ri(rb, l), sgn))
        }
        Op::Shf {
            rd,
            ra,
            rb,
            rc,
            shr,
            sgn,
            hi,
        } => each(w, mask, rd, |w, l| {
            lane::shf(w.r(ra, l), w.r(rc, l), w.ri(rb, l), shr, sgn, hi)
        }),
        Op::Bfe {
            rd,
            ra,
            rb,
            rc,
            sgn,
        } => each(w, mask, rd, |w, l| {
            lane::bfe(w.r(ra, l), w.ri(rb, l), w.ri(rc, l), sgn)
        }),
        Op::Bfi { rd, ra, rb, rc } => each(w, mask, rd, |w, l| {
            lane::bfi(w.r(ra, l), w.r(rb, l), w.r(rc, l))
        }),
        Op::Popc { rd, ra } => each(w, mask, rd, |w, l| w.r(ra, l).count_ones()),
        Op::Clz { rd, ra } => each(w, mask, rd, |w, l| w.r(ra, l).leading_zeros()),
        Op::Brev { rd, ra } => each(w, mask, rd, |w, l| w.r(ra, l).reverse_bits()),
        Op::Flo { rd, ra, sgn, shamt } => {
            each(w, mask, rd, |w, l| lane::bfind(w.r(ra, l), sgn, shamt))
        }
        Op::Prmt {
            rd,
            ra,
            rb,
            rc,
            pmode,
        } => each(w, mask, rd, |w, l| {
            lane::permute(w.r(ra, l), w.r(rb, l), w.r(rc, l), pmode)
        }),
        Op::Prmti {
            rd,
            ra,
            rb,
            imm16,
            pmodei,
        } => each(w, mask, rd, |w, l| {
            lane::permute(w.r(ra, l), w.r(rb, l), u32::from(imm16), pmodei)
        }),
        Op::I2i {
            rd,
            ra,
            ito,
            ifrom,
            sat,
        } => each(w, mask, rd, |w, l| {
            lane::convert_int(w.r(ra, l), ifrom, ito, sat)
        }),
        Op::Idiv {
            rd,
            ra,
            rb,
            sgn,
            rem,
            w64,
        } => {
            for l in lanes(mask) {
                if w64 {
                    let (a, b) = (w.r64(ra, l), w.r64(rb, l));
                    w.w64(rd, l, lane::divide64(a, b, sgn, rem));
                } else {
                    let (a, b) = (w.r(ra, l), w.r(rb, l));
                    w.w(
                        rd,
                        l,
                        lane::divide64(u64::from(a), u64::from(b), sgn, rem) as u32,
                    );
                    if sgn {
                        let v = lane::divide64(
                            a as i32 as i64 as u64,
                            b as i32 as i64 as u64,
                            true,
                            rem,
                        );
                        w.w(rd, l, v as u32);
                    }
                }
            }
        }
        _ => unreachable!("exec::step gives the integer unit only integer instructions"),
    }
}

fn special(w: &Warp, cx: &Ctx<'_>, s: Sreg, l: usize) -> u32 {
    use Sreg::*;
    let lane_bit = 1u32 << l;
    match s {
        TidX => w.tid[l][0],
        TidY => w.tid[l][1],
        TidZ => w.tid[l][2],
        NtidX => cx.ntid[0],
        NtidY => cx.ntid[1],
        NtidZ => cx.ntid[2],
        CtaidX => cx.ctaid[0],
        CtaidY => cx.ctaid[1],
        CtaidZ => cx.ctaid[2],
        NctaidX => cx.nctaid[0],
        NctaidY => cx.nctaid[1],
        NctaidZ => cx.nctaid[2],
        Laneid => l as u32,
        Warpid => w.id,
        Nwarpid => cx.warps_per_cta,
        Smid | Gridid => 0,
        Nsmid => 1,
        Clock => cx.clock as u32,
        ClockHi => (cx.clock >> 32) as u32,
        Clock64 => cx.clock as u32,
        LanemaskEq => lane_bit,
        LanemaskLt => lane_bit - 1,
        LanemaskLe => lane_bit | (lane_bit - 1),
        LanemaskGt => !(lane_bit | (lane_bit - 1)),
        LanemaskGe => !(lane_bit - 1),
        SharedWindow | LocalWindow | ConstWindow => window(s).unwrap_or(0),
        DynamicSmemSize => cx.smem[0],
        TotalSmemSize => cx.smem[1],
        Frame => w.frame[l],
    }
}
