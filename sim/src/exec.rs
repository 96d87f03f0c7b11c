//! What every instruction does: [`step`] executes one warp instruction.
//!
//! Each arm quotes the rule it implements where PTX states one; the ISA's own definitions
//! (reconvergence, windows, frames) are in docs/isa.md.

use crate::float;
use crate::memory::{self, Global, CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::program::Program;
use crate::surface::Surfaces;
use crate::video::{self, Arith, Mad, Operands};
use crate::warp::{lanes, window, Retired, Space, State, Warp, LANES};
use sgpu_isa::*;

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

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// Executes the next instruction of `w`, recording what it retired in `out`.
pub fn step(w: &mut Warp, cx: &mut Ctx<'_>, out: &mut Retired) -> Result<(), String> {
    let pc = w.pc().ok_or("the warp has exited")?;
    let word = *cx
        .program
        .code
        .get(pc as usize)
        .ok_or_else(|| format!("the program counter {:#x} is outside the code", pc * 8))?;
    let insn = match cx.program.decoded.get(pc as usize).copied().flatten() {
        Some(insn) => insn,
        None => {
            let e = decode(word)
                .err()
                .map_or_else(String::new, |e| e.to_string());
            return Err(format!("an invalid instruction word: {e}"));
        }
    };
    let next = pc + 1;
    let active = w.active();
    let mask = active & w.ps(insn.guard);
    out.pc = pc;
    out.word = word;
    out.mask = mask;
    out.regs = (0, 0);
    out.preds = [Pred::PT.0; 2];
    out.store_count = 0;
    cx.clock += 1;
    let target = |t: i32| (i64::from(next) + i64::from(t) / 8) as u32;
    match insn.op {
        // ---- control -------------------------------------------------------------------
        Op::Bra { target: t, .. } => {
            w.branch(next, target(t), mask);
            return Ok(());
        }
        Op::Ssy { target: t } => w.pending_rpc = Some(target(t)),
        Op::Exit => {
            w.exit(mask, next);
            return Ok(());
        }
        Op::Ret => {
            w.ret(mask, next)?;
            return Ok(());
        }
        Op::Call { target: t, frame } => {
            w.call(mask, next, target(t), frame);
            return Ok(());
        }
        Op::Trap if mask != 0 => return Err("trap instruction".into()),
        Op::Bar { rb, .. } if mask != 0 => {
            let first = lanes(mask).next().unwrap_or(0);
            w.advance(next);
            w.state = State::Barrier(w.ri(rb, first));
            return Ok(());
        }
        Op::Nop | Op::Trap | Op::Bar { .. } | Op::Membar { .. } => {}
        Op::Warpsync { ra } => {
            for l in lanes(mask) {
                check_members(w, w.r(ra, l), mask)?;
            }
        }
        Op::Warpsynci { imm32 } => {
            if mask != 0 {
                check_members(w, imm32, mask)?;
            }
        }
        // ---- moves and predicates ------------------------------------------------------
        Op::Mov { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l)),
        Op::Mov32i { rd, imm32 } => each(w, mask, rd, out, |_, _| imm32),
        Op::S2r { rd, sreg } => {
            for l in lanes(mask) {
                if sreg == Sreg::Clock64 {
                    w.w64(rd, l, cx.clock);
                } else {
                    let v = special(w, cx, sreg, l);
                    w.w(rd, l, v);
                }
            }
            let n = if sreg == Sreg::Clock64 { 2 } else { 1 };
            out.regs = (rd.0, n);
        }
        Op::Sel { rd, ra, rb, pc: p } => {
            let cond = w.ps(p);
            each(w, mask, rd, out, |w, l| {
                if cond >> l & 1 != 0 {
                    w.r(ra, l)
                } else {
                    w.ri(rb, l)
                }
            })
        }
        Op::Plop { pd, pa, pc: c, bop } => {
            let (a, b) = (w.ps(pa), w.ps(c));
            let v = logic(bop, a, b);
            w.set_p(pd, mask, v);
            out.preds[0] = pd.0;
        }
        // ---- integer ---------------------------------------------------------------------
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
                let a = w.r(ra, l);
                let b = w.ri(rb, l);
                // a + b, or a - b as a + !b + 1; with .X the carry replaces the + 1 / + 0.
                let b = if nb { !b } else { b };
                let cin = if x { carry >> l & 1 } else { u32::from(nb) };
                let wide = u64::from(a) + u64::from(b) + u64::from(cin);
                let mut v = wide as u32;
                if sat {
                    // add.sat.s32: clamp the signed sum.
                    let s = i64::from(a as i32)
                        + if nb {
                            -i64::from(!b as i32)
                        } else {
                            i64::from(b as i32)
                        };
                    v = s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32;
                }
                if cc {
                    carry = (carry & !(1 << l)) | (((wide >> 32) as u32 & 1) << l);
                }
                w.w(rd, l, v);
            }
            w.carry = carry;
            out.regs = (rd.0, 1);
        }
        Op::Iadd32i { rd, ra, imm32 } => {
            each(w, mask, rd, out, |w, l| w.r(ra, l).wrapping_add(imm32))
        }
        Op::Imul {
            rd,
            ra,
            rb,
            hi,
            sgn,
        } => each(w, mask, rd, out, |w, l| {
            mul(w.r(ra, l), w.ri(rb, l), hi, sgn)
        }),
        Op::Imul32i { rd, ra, imm32 } => {
            each(w, mask, rd, out, |w, l| w.r(ra, l).wrapping_mul(imm32))
        }
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
                let p = mul(w.r(ra, l), w.ri(rb, l), hi, sgn);
                let cin = if x { carry >> l & 1 } else { 0 };
                let wide = u64::from(p) + u64::from(w.ri(rc, l)) + u64::from(cin);
                if cc {
                    carry = (carry & !(1 << l)) | (((wide >> 32) as u32 & 1) << l);
                }
                w.w(rd, l, wide as u32);
            }
            w.carry = carry;
            out.regs = (rd.0, 1);
        }
        Op::Imnmx {
            rd,
            ra,
            rb,
            max,
            sgn,
        } => each(w, mask, rd, out, |w, l| {
            let (a, b) = (w.r(ra, l), w.ri(rb, l));
            let less = if sgn { (a as i32) < (b as i32) } else { a < b };
            if less != max {
                a
            } else {
                b
            }
        }),
        Op::Iabs { rd, ra } => each(w, mask, rd, out, |w, l| {
            (w.r(ra, l) as i32).wrapping_abs() as u32
        }),
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
                    // The high words of a 64-bit comparison; `pc` holds the low words'.
                    let low = other >> l & 1 != 0;
                    let strict = |lt: bool| {
                        if sgn {
                            ((a as i32) < (b as i32)) == lt && a != b
                        } else {
                            (a < b) == lt && a != b
                        }
                    };
                    match icmp {
                        Icmp::Eq => a == b && low,
                        Icmp::Ne => a != b || low,
                        Icmp::Lt | Icmp::Le => strict(true) || (a == b && low),
                        Icmp::Gt | Icmp::Ge => strict(false) || (a == b && low),
                    }
                } else {
                    compare(icmp, a, b, sgn)
                };
                t |= u32::from(bit) << l;
            }
            let (vd, vq) = if x {
                (t, !t)
            } else {
                (logic(bop, t, other), logic(bop, !t, other))
            };
            w.set_p(pd, mask, vd);
            w.set_p(pq, mask, vq);
            out.preds = [pd.0, pq.0];
        }
        Op::Lop3 {
            rd,
            ra,
            rb,
            rc,
            lut,
        } => each(w, mask, rd, out, |w, l| {
            let (a, b, c) = (w.r(ra, l), w.ri(rb, l), w.ri(rc, l));
            // Bit i of the table is the result where (a, b, c) = (i>>2, i>>1, i) & 1: OR the
            // minterms the table selects, a word at a time.
            let mut v = 0;
            for i in 0..8 {
                if lut >> i & 1 != 0 {
                    let ta = if i & 4 != 0 { a } else { !a };
                    let tb = if i & 2 != 0 { b } else { !b };
                    let tc = if i & 1 != 0 { c } else { !c };
                    v |= ta & tb & tc;
                }
            }
            v
        }),
        Op::Lop32i {
            rd,
            ra,
            imm32,
            lop2,
        } => each(w, mask, rd, out, |w, l| {
            let a = w.r(ra, l);
            match lop2 {
                Lop2::And => a & imm32,
                Lop2::Or => a | imm32,
                Lop2::Xor => a ^ imm32,
            }
        }),
        // PTX shl/shr: shift amounts greater than the width give 0 (or the sign).
        Op::Shl { rd, ra, rb } => each(w, mask, rd, out, |w, l| {
            let n = w.ri(rb, l);
            if n >= 32 {
                0
            } else {
                w.r(ra, l) << n
            }
        }),
        Op::Shr { rd, ra, rb, sgn } => each(w, mask, rd, out, |w, l| {
            let (a, n) = (w.r(ra, l), w.ri(rb, l).min(32));
            if sgn {
                (i64::from(a as i32) >> n) as u32
            } else {
                (u64::from(a) >> n) as u32
            }
        }),
        Op::Shf {
            rd,
            ra,
            rb,
            rc,
            shr,
            sgn,
            hi,
        } => each(w, mask, rd, out, |w, l| {
            let v = u64::from(w.r(ra, l)) | u64::from(w.r(rc, l)) << 32;
            let n = w.ri(rb, l).min(64);
            let r: u64 = if !shr {
                if n >= 64 {
                    0
                } else {
                    v << n
                }
            } else if sgn {
                (i128::from(v as i64) >> n) as u64
            } else if n >= 64 {
                0
            } else {
                v >> n
            };
            if hi {
                (r >> 32) as u32
            } else {
                r as u32
            }
        }),
        // bfe: the field of len bits at pos, extended by its top bit when signed (PTX rules
        // for pos/len beyond the word).
        Op::Bfe {
            rd,
            ra,
            rb,
            rc,
            sgn,
        } => each(w, mask, rd, out, |w, l| {
            let a = w.r(ra, l);
            let pos = w.ri(rb, l) & 0xff;
            let len = w.ri(rc, l) & 0xff;
            let sbit = if sgn {
                if len == 0 {
                    0
                } else {
                    a >> (pos + len - 1).min(31) & 1
                }
            } else {
                0
            };
            let mut d = 0;
            for i in 0..32 {
                let bit = if i < len && pos + i <= 31 {
                    a >> (pos + i) & 1
                } else {
                    sbit
                };
                d |= bit << i;
            }
            d
        }),
        Op::Bfi { rd, ra, rb, rc } => each(w, mask, rd, out, |w, l| {
            let (a, b, c) = (w.r(ra, l), w.r(rb, l), w.r(rc, l));
            let (pos, len) = (c & 0xff, c >> 8 & 0xff);
            let mut f = b;
            for i in 0..len {
                if pos + i < 32 {
                    f = (f & !(1 << (pos + i))) | ((a >> i & 1) << (pos + i));
                }
            }
            f
        }),
        Op::Popc { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).count_ones()),
        Op::Clz { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).leading_zeros()),
        Op::Brev { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).reverse_bits()),
        // bfind: the position of the most significant non-sign bit, 0xffffffff if none;
        // .shiftamt gives 31 minus it.
        Op::Flo { rd, ra, sgn, shamt } => each(w, mask, rd, out, |w, l| {
            let a = w.r(ra, l);
            let a = if sgn && (a as i32) < 0 { !a } else { a };
            if a == 0 {
                u32::MAX
            } else if shamt {
                a.leading_zeros()
            } else {
                31 - a.leading_zeros()
            }
        }),
        Op::Prmt {
            rd,
            ra,
            rb,
            rc,
            pmode,
        } => each(w, mask, rd, out, |w, l| {
            permute(w.r(ra, l), w.r(rb, l), w.r(rc, l), pmode)
        }),
        Op::Prmti {
            rd,
            ra,
            rb,
            imm16,
            pmodei,
        } => each(w, mask, rd, out, |w, l| {
            permute(w.r(ra, l), w.r(rb, l), u32::from(imm16), pmodei)
        }),
        Op::I2i {
            rd,
            ra,
            ito,
            ifrom,
            sat,
        } => each(w, mask, rd, out, |w, l| {
            convert_int(w.r(ra, l), ifrom, ito, sat)
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
                    w.w64(rd, l, divide64(a, b, sgn, rem));
                } else {
                    let (a, b) = (w.r(ra, l), w.r(rb, l));
                    w.w(rd, l, divide64(u64::from(a), u64::from(b), sgn, rem) as u32);
                    if sgn {
                        let v = divide64(a as i32 as i64 as u64, b as i32 as i64 as u64, true, rem);
                        w.w(rd, l, v as u32);
                    }
                }
            }
            out.regs = (rd.0, if w64 { 2 } else { 1 });
        }
        // ---- float ---------------------------------------------------------------------
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
        } => each(w, mask, rd, out, |w, l| {
            let a = operand(f(w.r(ra, l)), na, absa);
            let b = operand(f(w.r(rb, l)), nb, absb);
            saturate(float::add(a, b, rnd, ftz), sat).to_bits()
        }),
        Op::Fadd32i { rd, ra, imm32 } => each(w, mask, rd, out, |w, l| {
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
        } => each(w, mask, rd, out, |w, l| {
            let a = operand(f(w.r(ra, l)), na, absa);
            let b = operand(f(w.r(rb, l)), false, absb);
            saturate(float::mul(a, b, rnd, ftz), sat).to_bits()
        }),
        Op::Fmul32i { rd, ra, imm32 } => each(w, mask, rd, out, |w, l| {
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
        } => each(w, mask, rd, out, |w, l| {
            let a = operand(f(w.r(ra, l)), na, false);
            let c = operand(f(w.r(rc, l)), nc, false);
            saturate(float::fma(a, f(w.r(rb, l)), c, rnd, ftz), sat).to_bits()
        }),
        // min/max: a NaN operand yields the other; both NaN give NaN (.NaN: any NaN gives NaN).
        Op::Fmnmx {
            rd,
            ra,
            rb,
            max,
            ftz,
            nan,
            absa,
            absb,
        } => each(w, mask, rd, out, |w, l| {
            let a = operand(ftz_in(f(w.r(ra, l)), ftz), false, absa);
            let b = operand(ftz_in(f(w.r(rb, l)), ftz), false, absb);
            let r = if a.is_nan() || b.is_nan() {
                if nan || (a.is_nan() && b.is_nan()) {
                    f32::NAN
                } else if a.is_nan() {
                    b
                } else {
                    a
                }
            } else if max {
                // +0 is greater than -0.
                if a > b || (a == b && a.is_sign_positive()) {
                    a
                } else {
                    b
                }
            } else if a < b || (a == b && a.is_sign_negative()) {
                a
            } else {
                b
            };
            r.to_bits()
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
                let a = ftz_in(f(w.r(ra, l)), ftz);
                let b = ftz_in(f(w.r(rb, l)), ftz);
                t |= u32::from(fcompare(fcmp, a, b)) << l;
            }
            w.set_p(pd, mask, logic(bop, t, other));
            w.set_p(pq, mask, logic(bop, !t, other));
            out.preds = [pd.0, pq.0];
        }
        Op::Mufu { rd, ra, mufu, ftz } => each(w, mask, rd, out, |w, l| {
            float::approx(mufu, f(w.r(ra, l)), ftz).to_bits()
        }),
        Op::Fdiv {
            rd,
            ra,
            rb,
            rnd,
            ftz,
        } => each(w, mask, rd, out, |w, l| {
            float::div(f(w.r(ra, l)), f(w.r(rb, l)), rnd, ftz).to_bits()
        }),
        Op::Fsqrt { rd, ra, rnd, ftz } => each(w, mask, rd, out, |w, l| {
            float::sqrt(f(w.r(ra, l)), rnd, ftz).to_bits()
        }),
        Op::Frcp { rd, ra, rnd, ftz } => each(w, mask, rd, out, |w, l| {
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
                let v = ftz_in(f(w.r(ra, l)), ftz);
                let wide = float_to_int(v, ito, rnd);
                if matches!(ito, Ity::U64 | Ity::S64) {
                    w.w64(rd, l, wide);
                } else {
                    w.w(rd, l, wide as u32);
                }
            }
            out.regs = (
                rd.0,
                if matches!(ito, Ity::U64 | Ity::S64) {
                    2
                } else {
                    1
                },
            );
        }
        Op::I2f { rd, ra, ity, rnd } => each(w, mask, rd, out, |w, l| {
            let v: i128 = match ity {
                Ity::U64 => i128::from(w.r64(ra, l)),
                Ity::S64 => i128::from(w.r64(ra, l) as i64),
                Ity::U32 => i128::from(w.r(ra, l)),
                other => i128::from(convert_int(w.r(ra, l), other, Ity::S32, false) as i32),
            };
            int_to_float(v, rnd).to_bits()
        }),
        Op::F2f {
            rd,
            ra,
            fcvt,
            rint,
            rnd,
            ftz,
            sat,
        } => each(w, mask, rd, out, |w, l| {
            let a = w.r(ra, l);
            let v = match fcvt {
                Fcvt::F32 => {
                    let x = ftz_in(f(a), ftz);
                    if rint {
                        round_integral(x, rnd)
                    } else {
                        x
                    }
                }
                Fcvt::FromF16 => f16_to_f32(a as u16),
                Fcvt::F16 => return u32::from(f32_to_f16(ftz_in(f(a), ftz))),
                Fcvt::Bf16 => {
                    return (f(a).to_bits() + 0x7fff + ((f(a).to_bits() >> 16) & 1)) >> 16
                }
                Fcvt::FromBf16 => f32::from_bits(a << 16),
            };
            saturate(v, sat).to_bits()
        }),
        // ---- memory --------------------------------------------------------------------
        Op::Ld {
            rd,
            ra,
            off24,
            space,
            msize,
            e,
            ..
        } => {
            let n = bytes(msize);
            for l in lanes(mask) {
                let address = effective(w, ra, e, off24, l);
                let data = read(w, cx, l, space, address, n)?;
                store_reg(w, rd, l, &data[..n], msize);
            }
            out.regs = (rd.0, (n as u8 / 4).max(1));
        }
        Op::St {
            ra,
            off24,
            rd,
            space,
            msize,
            e,
            ..
        } => {
            let n = bytes(msize);
            for l in lanes(mask) {
                let address = effective(w, ra, e, off24, l);
                let data = reg_bytes(w, rd, l, n);
                let (space, address) = write(w, cx, l, space, address, &data[..n])?;
                out.stores[out.store_count] = crate::warp::Store {
                    space,
                    address,
                    bytes: data,
                    len: n as u8,
                };
                out.store_count += 1;
            }
        }
        Op::Ldc {
            rd,
            cbank,
            ra,
            off24,
            msize,
        } => {
            let n = bytes(msize);
            for l in lanes(mask) {
                let at = (i64::from(w.r(ra, l)) + i64::from(off24)) as u64;
                let bank: &[u8] = match cbank {
                    0 => cx.params,
                    1 => &cx.program.constants,
                    other => return Err(format!("constant bank {other} does not exist")),
                };
                let r = memory::range(bank, at, n, "constant")?;
                store_reg(w, rd, l, &bank[r], msize);
            }
            out.regs = (rd.0, (n as u8 / 4).max(1));
        }
        Op::Atom {
            rd,
            ra,
            rb,
            rc,
            aop,
            aty,
            space,
            e,
        } => {
            let wide = matches!(aty, Aty::U64 | Aty::S64 | Aty::B64);
            for l in lanes(mask) {
                let address = effective(w, ra, e, 0, l);
                let old = atomic(
                    w,
                    cx,
                    l,
                    space,
                    address,
                    aop,
                    aty,
                    w.r64(rb, l),
                    w.r64(rc, l),
                )?;
                if wide {
                    w.w64(rd, l, old);
                } else {
                    w.w(rd, l, old as u32);
                }
            }
            out.regs = (rd.0, if wide { 2 } else { 1 });
        }
        Op::Red {
            ra,
            rb,
            aop,
            aty,
            space,
            e,
        } => {
            for l in lanes(mask) {
                let address = effective(w, ra, e, 0, l);
                atomic(w, cx, l, space, address, aop, aty, w.r64(rb, l), 0)?;
            }
        }
        // ---- surfaces ------------------------------------------------------------------
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
                let s = crate::surface::target(w, rb, l)?;
                cx.surfaces
                    .load(w, l, s, rd, ra, sfmt, geom, vec, dsize, sclamp)?;
            }
            out.regs = (rd.0, crate::surface::data_registers(vec, dsize));
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
                let s = crate::surface::target(w, rb, l)?;
                cx.surfaces
                    .store(w, l, s, rc, ra, sfmt, geom, vec, dsize, sclamp)?;
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
                let s = crate::surface::target(w, rb, l)?;
                cx.surfaces
                    .reduce(w, l, s, rc, ra, sfmt, sop, geom, sty, sclamp)?;
            }
        }
        Op::Suq { rd, rb, query } => {
            for l in lanes(mask) {
                let s = crate::surface::target(w, rb, l)?;
                let v = cx.surfaces.query(s, query)?;
                w.w(rd, l, v);
            }
            out.regs = (rd.0, 1);
        }
        // ---- warp ----------------------------------------------------------------------
        Op::Shfl {
            rd,
            pd,
            ra,
            rb,
            rc,
            smode,
        } => {
            // shfl.sync: c packs the clamp (bits 4:0) and the segment mask (bits 12:8).
            let values: [u32; LANES] = std::array::from_fn(|l| w.r(ra, l));
            let mut valid = 0u32;
            for l in lanes(mask) {
                let b = w.ri(rb, l);
                let c = w.ri(rc, l);
                let (clamp, seg) = (c & 0x1f, (c >> 8) & 0x1f);
                let lane = l as u32;
                let (min, max) = (lane & seg, (lane & seg) | (clamp & !seg));
                let (j, ok) = match smode {
                    Smode::Up => (
                        lane.wrapping_sub(b),
                        lane.wrapping_sub(b) as i32 >= min as i32,
                    ),
                    Smode::Down => (lane + b, lane + b <= max),
                    Smode::Bfly => (lane ^ b, (lane ^ b) <= max),
                    Smode::Idx => ((b & !seg) | min, ((b & !seg) | min) <= max),
                };
                let src = if ok && j < 32 { j as usize } else { l };
                w.w(rd, l, values[src]);
                valid |= u32::from(ok) << l;
            }
            w.set_p(pd, mask, valid);
            out.regs = (rd.0, 1);
            out.preds[0] = pd.0;
        }
        Op::Vote {
            rd,
            pd,
            pc: c,
            vmode,
        } => {
            let v = w.ps(c) & mask;
            match vmode {
                Vmode::Ballot => {
                    for l in lanes(mask) {
                        w.w(rd, l, v);
                    }
                    out.regs = (rd.0, 1);
                }
                Vmode::All => w.set_p(pd, mask, if v == mask { u32::MAX } else { 0 }),
                Vmode::Any => w.set_p(pd, mask, if v != 0 { u32::MAX } else { 0 }),
                Vmode::Uni => w.set_p(pd, mask, if v == 0 || v == mask { u32::MAX } else { 0 }),
            }
            out.preds[0] = pd.0;
        }
        // redux.sync: the operation over the values of the lanes that run it, to all of them.
        Op::Redux { rd, ra, redop, sgn } => {
            let mut acc: Option<u32> = None;
            for l in lanes(mask) {
                let v = w.r(ra, l);
                acc = Some(match acc {
                    None => v,
                    Some(a) => match redop {
                        Redop::Add => a.wrapping_add(v),
                        Redop::Min if sgn => (a as i32).min(v as i32) as u32,
                        Redop::Max if sgn => (a as i32).max(v as i32) as u32,
                        Redop::Min => a.min(v),
                        Redop::Max => a.max(v),
                        Redop::And => a & v,
                        Redop::Or => a | v,
                        Redop::Xor => a ^ v,
                    },
                });
            }
            let result = acc.unwrap_or(0);
            each(w, mask, rd, out, |_, _| result);
        }
        // match.any: the lanes holding the same value; match.all: all of them if all agree,
        // else 0, and the predicate says which.
        Op::Match { rd, pd, ra, mall } => {
            let values: [u32; LANES] = std::array::from_fn(|l| w.r(ra, l));
            let same = |l: usize| {
                lanes(mask)
                    .filter(|&k| values[k] == values[l])
                    .fold(0u32, |m, k| m | 1 << k)
            };
            let all_equal = lanes(mask).all(|k| same(k) == mask);
            each(w, mask, rd, out, |_, l| {
                if !mall {
                    same(l)
                } else if all_equal {
                    mask
                } else {
                    0
                }
            });
            w.set_p(pd, mask, if all_equal { u32::MAX } else { 0 });
            out.preds[0] = pd.0;
        }
        // ---- video ---------------------------------------------------------------------
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
        } => video_arith(
            w,
            mask,
            out,
            Arith::Add,
            rd,
            ra,
            rb,
            rc,
            Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            },
        ),
        Op::Vsub {
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
        } => video_arith(
            w,
            mask,
            out,
            Arith::Sub,
            rd,
            ra,
            rb,
            rc,
            Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            },
        ),
        Op::Vabsdiff {
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
        } => video_arith(
            w,
            mask,
            out,
            Arith::Absdiff,
            rd,
            ra,
            rb,
            rc,
            Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            },
        ),
        Op::Vmin {
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
        } => video_arith(
            w,
            mask,
            out,
            Arith::Min,
            rd,
            ra,
            rb,
            rc,
            Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            },
        ),
        Op::Vmax {
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
        } => video_arith(
            w,
            mask,
            out,
            Arith::Max,
            rd,
            ra,
            rb,
            rc,
            Operands {
                dsgn,
                asgn,
                bsgn,
                asel,
                bsel,
                dsel,
                sat: vsat,
                vsec,
            },
        ),
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
            let left = matches!(insn.op, Op::Vshl { .. });
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
            each(w, mask, rd, out, |w, l| {
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
            each(w, mask, rd, out, |w, l| {
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
            each(w, mask, rd, out, |w, l| {
                video::set(vcmp, &o, w.r(ra, l), w.r(rb, l), w.r(rc, l))
            });
        }
    }
    w.advance(next);
    Ok(())
}

/// Writes `f(lane)` to `rd` in every lane of `mask`.
fn each(w: &mut Warp, mask: u32, rd: Reg, out: &mut Retired, f: impl Fn(&Warp, usize) -> u32) {
    let mut values = [0u32; LANES];
    for l in lanes(mask) {
        values[l] = f(w, l);
    }
    for l in lanes(mask) {
        w.w(rd, l, values[l]);
    }
    out.regs = (rd.0, 1);
}

#[allow(clippy::too_many_arguments)]
fn video_arith(
    w: &mut Warp,
    mask: u32,
    out: &mut Retired,
    op: Arith,
    rd: Reg,
    ra: Reg,
    rb: Reg,
    rc: Reg,
    o: Operands,
) {
    each(w, mask, rd, out, |w, l| {
        video::arith(op, &o, w.r(ra, l), w.r(rb, l), w.r(rc, l))
    });
}

/// `.sync` forms: every lane of the member mask must be executing it.
fn check_members(w: &Warp, members: u32, executing: u32) -> Result<(), String> {
    let members = members & w.lanes & !w.exited;
    if members & !executing != 0 {
        return Err(format!(
            "warp-synchronous operation with member mask {members:#010x} run by lanes {executing:#010x}"
        ));
    }
    Ok(())
}

fn logic(bop: Bop, a: u32, b: u32) -> u32 {
    match bop {
        Bop::And => a & b,
        Bop::Or => a | b,
        Bop::Xor => a ^ b,
    }
}

fn compare(c: Icmp, a: u32, b: u32, sgn: bool) -> bool {
    let ord = if sgn {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    use std::cmp::Ordering::*;
    match c {
        Icmp::Eq => ord == Equal,
        Icmp::Ne => ord != Equal,
        Icmp::Lt => ord == Less,
        Icmp::Le => ord != Greater,
        Icmp::Gt => ord == Greater,
        Icmp::Ge => ord != Less,
    }
}

/// setp's float comparisons: ordered ones are false with a NaN, unordered ones true.
fn fcompare(c: Fcmp, a: f32, b: f32) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match c {
        Fcmp::Eq => a == b,
        Fcmp::Ne => !nan && a != b,
        Fcmp::Lt => a < b,
        Fcmp::Le => a <= b,
        Fcmp::Gt => a > b,
        Fcmp::Ge => a >= b,
        Fcmp::Equ => nan || a == b,
        Fcmp::Neu => a != b,
        Fcmp::Ltu => nan || a < b,
        Fcmp::Leu => nan || a <= b,
        Fcmp::Gtu => nan || a > b,
        Fcmp::Geu => nan || a >= b,
        Fcmp::Num => !nan,
        Fcmp::Nan => nan,
    }
}

fn mul(a: u32, b: u32, hi: bool, sgn: bool) -> u32 {
    let p = if sgn {
        (i64::from(a as i32) * i64::from(b as i32)) as u64
    } else {
        u64::from(a) * u64::from(b)
    };
    if hi {
        (p >> 32) as u32
    } else {
        p as u32
    }
}

/// div/rem: PTX leaves division by zero undefined; sgpu gives all ones (quotient) and the
/// dividend (remainder), and the most negative value divided by -1 wraps.
fn divide64(a: u64, b: u64, sgn: bool, rem: bool) -> u64 {
    if b == 0 {
        return if rem { a } else { u64::MAX };
    }
    if sgn {
        let (a, b) = (a as i64, b as i64);
        (if rem {
            a.wrapping_rem(b)
        } else {
            a.wrapping_div(b)
        }) as u64
    } else if rem {
        a % b
    } else {
        a / b
    }
}

fn ity_bits(t: Ity) -> (u32, bool) {
    match t {
        Ity::U8 => (8, false),
        Ity::S8 => (8, true),
        Ity::U16 => (16, false),
        Ity::S16 => (16, true),
        Ity::U32 => (32, false),
        Ity::S32 => (32, true),
        Ity::U64 => (64, false),
        Ity::S64 => (64, true),
    }
}

/// cvt between integer types: the source's low bits, extended by its sign, then truncated
/// or (with .sat) clamped to the destination's range.
fn convert_int(a: u32, from: Ity, to: Ity, sat: bool) -> u32 {
    let (fb, fs) = ity_bits(from);
    let (tb, ts) = ity_bits(to);
    let fb = fb.min(32);
    let raw = if fb == 32 {
        u64::from(a)
    } else {
        u64::from(a) & ((1u64 << fb) - 1)
    };
    let v: i64 = if fs && fb < 64 && raw >> (fb - 1) & 1 == 1 {
        raw as i64 - (1i64 << fb)
    } else {
        raw as i64
    };
    let tb = tb.min(32);
    let v = if sat {
        let (lo, hi) = if ts {
            (-(1i64 << (tb - 1)), (1i64 << (tb - 1)) - 1)
        } else {
            (0, (1i64 << tb) - 1)
        };
        v.clamp(lo, hi)
    } else {
        v
    };
    // The register holds the destination width, extended to 32 bits by its sign.
    let bits = v as u64
        & if tb == 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << tb) - 1
        };
    if ts && tb < 32 && bits >> (tb - 1) & 1 == 1 {
        (bits as i64 - (1i64 << tb)) as u32
    } else {
        bits as u32
    }
}

fn operand(x: f32, neg: bool, abs: bool) -> f32 {
    let x = if abs { x.abs() } else { x };
    if neg {
        -x
    } else {
        x
    }
}

fn ftz_in(x: f32, ftz: bool) -> f32 {
    if ftz {
        float::flush(x)
    } else {
        x
    }
}

/// `.sat` on floats: clamp to [0, 1], NaN to 0.
fn saturate(x: f32, sat: bool) -> f32 {
    if !sat {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn round_integral(x: f32, rnd: Rnd) -> f32 {
    match rnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    }
}

/// cvt float to integer: rounded by the mode, saturated to the range, NaN to 0.
fn float_to_int(x: f32, to: Ity, rnd: Rnd) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = f64::from(round_integral(x, rnd));
    let (bits, signed) = ity_bits(to);
    let (lo, hi) = if signed {
        (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        )
    } else {
        (0.0, 2f64.powi(bits as i32) - 1.0)
    };
    let v = r.clamp(lo, hi);
    if signed {
        (v as i64) as u64
    } else {
        v as u64
    }
}

fn int_to_float(v: i128, rnd: Rnd) -> f32 {
    let nearest = v as f32;
    let back = nearest as f64 as i128;
    let err = (v - back).signum() as i32;
    match (rnd, err) {
        (Rnd::Rn, _) | (_, 0) => nearest,
        (Rnd::Rz, e) if (nearest > 0.0 && e < 0) || (nearest < 0.0 && e > 0) => {
            if nearest > 0.0 {
                nearest.next_down()
            } else {
                nearest.next_up()
            }
        }
        (Rnd::Rm, e) if e < 0 => nearest.next_down(),
        (Rnd::Rp, e) if e > 0 => nearest.next_up(),
        _ => nearest,
    }
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from(h >> 10 & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // A half denormal is a normal f32.
            let v = m as f32 * 2f32.powi(-24);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | m << 13,
        (e, m) => sign | (e + 112) << 23 | m << 13,
    };
    f32::from_bits(bits)
}

/// f32 to f16, rounding to nearest even.
pub(crate) fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 16 & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Scale so the half's last place is an integer, and round to nearest even.
    let (scaled, exp) = if a < 2f32.powi(-14) {
        (f64::from(a) * 2f64.powi(24), 0u32)
    } else {
        let e = a.log2().floor() as i32;
        let e = e.clamp(-14, 15);
        (f64::from(a) * 2f64.powi(10 - e), (e + 15) as u32)
    };
    let m = scaled.round_ties_even() as u32;
    if exp == 0 {
        return sign | m as u16;
    }
    // m may have rounded up to 2048: the next binade.
    let (m, exp) = if m >= 2048 {
        (m / 2, exp + 1)
    } else {
        (m, exp)
    };
    if exp >= 31 {
        return sign | 0x7c00;
    }
    sign | (exp << 10 | (m & 0x3ff)) as u16
}

fn permute(a: u32, b: u32, c: u32, mode: Pmode) -> u32 {
    let bytes: [u8; 8] = {
        let v = u64::from(a) | u64::from(b) << 32;
        v.to_le_bytes()
    };
    let sel = |s: u32| -> u8 {
        let i = (s & 7) as usize;
        if s & 8 != 0 {
            // Replicate the sign of the selected byte.
            if bytes[i] & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            bytes[i]
        }
    };
    let out: [u8; 4] = match mode {
        Pmode::Default => [sel(c), sel(c >> 4), sel(c >> 8), sel(c >> 12)],
        Pmode::F4e => {
            let s = (c & 3) as usize;
            [bytes[s], bytes[s + 1], bytes[s + 2], bytes[s + 3]]
        }
        Pmode::B4e => {
            let s = (c & 3) as usize;
            let idx = |k: usize| bytes[(s + 8 - k) % 8];
            [idx(0), idx(1), idx(2), idx(3)]
        }
        Pmode::Rc8 => [bytes[(c & 3) as usize]; 4],
        Pmode::Ecl => {
            let s = (c & 3) as usize;
            [bytes[s], bytes[s.max(1)], bytes[s.max(2)], bytes[3]]
        }
        Pmode::Ecr => {
            let s = (c & 3) as usize;
            [bytes[0], bytes[s.min(1)], bytes[s.min(2)], bytes[s]]
        }
        Pmode::Rc16 => {
            let s = (c & 1) as usize * 2;
            [bytes[s], bytes[s + 1], bytes[s], bytes[s + 1]]
        }
    };
    u32::from_le_bytes(out)
}

fn bytes(m: Msize) -> usize {
    match m {
        Msize::U8 | Msize::S8 => 1,
        Msize::U16 | Msize::S16 => 2,
        Msize::B32 => 4,
        Msize::B64 => 8,
        Msize::B128 => 16,
    }
}

fn effective(w: &Warp, ra: Reg, e: bool, off: i32, l: usize) -> u64 {
    let base = if e {
        w.r64(ra, l)
    } else {
        u64::from(w.r(ra, l))
    };
    base.wrapping_add(off as i64 as u64)
}

/// The space and offset a (generic) address lands in.
fn resolve(space: sgpu_isa::Space, address: u64) -> (sgpu_isa::Space, u64) {
    use sgpu_isa::Space as S;
    match space {
        S::Generic => {
            let window = |base: u64| address >= base && address < base + WINDOW_SIZE;
            if window(SHARED_WINDOW) {
                (S::Shared, address - SHARED_WINDOW)
            } else if window(LOCAL_WINDOW) {
                (S::Local, address - LOCAL_WINDOW)
            } else if window(CONST_WINDOW) {
                (S::Param, address - CONST_WINDOW)
            } else {
                (S::Global, address)
            }
        }
        // `.param` of device functions and calls lives in the frame.
        S::Param => (S::Local, address),
        other => (other, address),
    }
}

fn misaligned(address: u64, n: usize) -> Result<(), String> {
    if address % n as u64 != 0 {
        return Err(format!(
            "misaligned {n}-byte access at address {address:#x}"
        ));
    }
    Ok(())
}

/// Reads `n` (at most 16) bytes; the result is the first `n` of the buffer.
fn read(
    w: &Warp,
    cx: &Ctx<'_>,
    l: usize,
    space: sgpu_isa::Space,
    address: u64,
    n: usize,
) -> Result<[u8; 16], String> {
    let (space, at) = resolve(space, address);
    misaligned(address, n)?;
    let mut buf = [0u8; 16];
    let data = &mut buf[..n];
    match space {
        sgpu_isa::Space::Global => cx.global.read(at, data)?,
        sgpu_isa::Space::Shared => {
            data.copy_from_slice(&cx.shared[memory::range(cx.shared, at, n, "shared")?])
        }
        sgpu_isa::Space::Local => {
            let i = w.local_range(l, at, n)?;
            data.copy_from_slice(&w.local[i..i + n]);
        }
        // Constant bank 1 through its window.
        sgpu_isa::Space::Param | sgpu_isa::Space::Generic => {
            let bank = &cx.program.constants;
            data.copy_from_slice(&bank[memory::range(bank, at, n, "constant")?]);
        }
    }
    Ok(buf)
}

fn write(
    w: &mut Warp,
    cx: &mut Ctx<'_>,
    l: usize,
    space: sgpu_isa::Space,
    address: u64,
    data: &[u8],
) -> Result<(Space, u64), String> {
    let n = data.len();
    let (space, at) = resolve(space, address);
    misaligned(address, n)?;
    match space {
        sgpu_isa::Space::Global => {
            cx.global.write(at, data)?;
            Ok((Space::Global, at))
        }
        sgpu_isa::Space::Shared => {
            let r = memory::range(cx.shared, at, n, "shared")?;
            cx.shared[r].copy_from_slice(data);
            Ok((Space::Shared, at))
        }
        sgpu_isa::Space::Local => {
            let i = w.local_range(l, at, n)?;
            w.local[i..i + n].copy_from_slice(data);
            Ok((Space::Local, at))
        }
        _ => Err(format!("a store to constant memory at {address:#x}")),
    }
}

/// Loaded bytes into registers: 8- and 16-bit values extended by the size's sign.
fn store_reg(w: &mut Warp, rd: Reg, l: usize, data: &[u8], m: Msize) {
    let v32 = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    match m {
        Msize::U8 => w.w(rd, l, u32::from(data[0])),
        Msize::S8 => w.w(rd, l, data[0] as i8 as i32 as u32),
        Msize::U16 => w.w(rd, l, u32::from(u16::from_le_bytes([data[0], data[1]]))),
        Msize::S16 => w.w(rd, l, i16::from_le_bytes([data[0], data[1]]) as i32 as u32),
        _ => {
            for k in 0..data.len() / 4 {
                if rd != Reg::RZ {
                    w.w(Reg(rd.0 + k as u8), l, v32(4 * k));
                }
            }
        }
    }
}

fn reg_bytes(w: &Warp, rd: Reg, l: usize, n: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    for k in 0..n.div_ceil(4) {
        let r = if rd == Reg::RZ {
            Reg::RZ
        } else {
            Reg(rd.0 + k as u8)
        };
        out[4 * k..4 * k + 4].copy_from_slice(&w.r(r, l).to_le_bytes());
    }
    out
}

/// An atomic read-modify-write; returns the old value.
#[allow(clippy::too_many_arguments)]
fn atomic(
    w: &mut Warp,
    cx: &mut Ctx<'_>,
    l: usize,
    space: sgpu_isa::Space,
    address: u64,
    aop: Aop,
    aty: Aty,
    b: u64,
    c: u64,
) -> Result<u64, String> {
    let n = if matches!(aty, Aty::U64 | Aty::S64 | Aty::B64) {
        8
    } else {
        4
    };
    let old_bytes = read(w, cx, l, space, address, n)?;
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(&old_bytes[..n]);
    let old = u64::from_le_bytes(buf);
    let mask = if n == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let (b, c) = (b & mask, c & mask);
    let signed = |x: u64| {
        if n == 8 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let new = match (aop, aty) {
        (Aop::Add, Aty::F32) => {
            u64::from((f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits())
        }
        (Aop::Add, _) => old.wrapping_add(b),
        (Aop::Min, Aty::S32 | Aty::S64) => {
            if signed(b) < signed(old) {
                b
            } else {
                old
            }
        }
        (Aop::Max, Aty::S32 | Aty::S64) => {
            if signed(b) > signed(old) {
                b
            } else {
                old
            }
        }
        (Aop::Min, _) => old.min(b),
        (Aop::Max, _) => old.max(b),
        // atom.inc: old >= b ? 0 : old + 1; atom.dec: (old == 0 || old > b) ? b : old - 1.
        (Aop::Inc, _) => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        (Aop::Dec, _) => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        (Aop::And, _) => old & b,
        (Aop::Or, _) => old | b,
        (Aop::Xor, _) => old ^ b,
        (Aop::Exch, _) => b,
        (Aop::Cas, _) => {
            if old == b {
                c
            } else {
                old
            }
        }
    } & mask;
    write(w, cx, l, space, address, &new.to_le_bytes()[..n])?;
    Ok(old)
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
    }
}
