//! What every instruction does: [`step`] executes one warp instruction.
//!
//! Each arm quotes the rule it implements where PTX states one; the ISA's own definitions
//! (reconvergence, windows, frames) are in docs/isa.md.

use crate::float;
use crate::lane;
use crate::memory::{self, Global, CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::program::Program;
use crate::surface::Surfaces;
use crate::video::{self, Arith, Mad, Operands};
use crate::warp::{lanes, window, Reduction, Retired, Space, State, Warp, LANES};
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
        // The result is written when the barrier releases (warp::release).
        Op::Barred {
            rd,
            pd,
            rb,
            pc,
            bred,
            ..
        } if mask != 0 => {
            let first = lanes(mask).next().unwrap_or(0);
            w.reduction = Some(Reduction {
                op: bred,
                rd,
                pd,
                mask,
                set: w.ps(pc) & mask,
            });
            w.advance(next);
            w.state = State::Barrier(w.ri(rb, first));
            return Ok(());
        }
        Op::Nop | Op::Trap | Op::Bar { .. } | Op::Barred { .. } | Op::Membar { .. } => {}
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
            let v = lane::logic(bop, a, b);
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
                let (d, cout) = lane::iadd(w.r(ra, l), w.ri(rb, l), carry >> l & 1, nb, x, sat);
                if cc {
                    carry = (carry & !(1 << l)) | (cout << l);
                }
                w.w(rd, l, d);
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
            lane::mul(w.r(ra, l), w.ri(rb, l), hi, sgn)
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
                let (a, b, c) = (w.r(ra, l), w.ri(rb, l), w.ri(rc, l));
                let (d, cout) = lane::imad(a, b, c, carry >> l & 1, hi, sgn, x);
                if cc {
                    carry = (carry & !(1 << l)) | (cout << l);
                }
                w.w(rd, l, d);
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
            lane::imnmx(w.r(ra, l), w.ri(rb, l), max, sgn)
        }),
        Op::Iabs { rd, ra } => each(w, mask, rd, out, |w, l| lane::iabs(w.r(ra, l))),
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
            out.preds = [pd.0, pq.0];
        }
        Op::Lop3 {
            rd,
            ra,
            rb,
            rc,
            lut,
        } => each(w, mask, rd, out, |w, l| {
            lane::lop3(w.r(ra, l), w.ri(rb, l), w.ri(rc, l), lut)
        }),
        Op::Lop32i {
            rd,
            ra,
            imm32,
            lop2,
        } => each(w, mask, rd, out, |w, l| lane::lop2(w.r(ra, l), imm32, lop2)),
        Op::Shl { rd, ra, rb } => each(w, mask, rd, out, |w, l| lane::shl(w.r(ra, l), w.ri(rb, l))),
        Op::Shr { rd, ra, rb, sgn } => each(w, mask, rd, out, |w, l| {
            lane::shr(w.r(ra, l), w.ri(rb, l), sgn)
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
            lane::shf(w.r(ra, l), w.r(rc, l), w.ri(rb, l), shr, sgn, hi)
        }),
        Op::Bfe {
            rd,
            ra,
            rb,
            rc,
            sgn,
        } => each(w, mask, rd, out, |w, l| {
            lane::bfe(w.r(ra, l), w.ri(rb, l), w.ri(rc, l), sgn)
        }),
        Op::Bfi { rd, ra, rb, rc } => each(w, mask, rd, out, |w, l| {
            lane::bfi(w.r(ra, l), w.r(rb, l), w.r(rc, l))
        }),
        Op::Popc { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).count_ones()),
        Op::Clz { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).leading_zeros()),
        Op::Brev { rd, ra } => each(w, mask, rd, out, |w, l| w.r(ra, l).reverse_bits()),
        Op::Flo { rd, ra, sgn, shamt } => {
            each(w, mask, rd, out, |w, l| lane::bfind(w.r(ra, l), sgn, shamt))
        }
        Op::Prmt {
            rd,
            ra,
            rb,
            rc,
            pmode,
        } => each(w, mask, rd, out, |w, l| {
            lane::permute(w.r(ra, l), w.r(rb, l), w.r(rc, l), pmode)
        }),
        Op::Prmti {
            rd,
            ra,
            rb,
            imm16,
            pmodei,
        } => each(w, mask, rd, out, |w, l| {
            lane::permute(w.r(ra, l), w.r(rb, l), u32::from(imm16), pmodei)
        }),
        Op::I2i {
            rd,
            ra,
            ito,
            ifrom,
            sat,
        } => each(w, mask, rd, out, |w, l| {
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
            let a = lane::operand(f(w.r(ra, l)), na, absa);
            let b = lane::operand(f(w.r(rb, l)), nb, absb);
            lane::saturate(float::add(a, b, rnd, ftz), sat).to_bits()
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
            let a = lane::operand(f(w.r(ra, l)), na, absa);
            let b = lane::operand(f(w.r(rb, l)), false, absb);
            lane::saturate(float::mul(a, b, rnd, ftz), sat).to_bits()
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
            let a = lane::operand(f(w.r(ra, l)), na, false);
            let c = lane::operand(f(w.r(rc, l)), nc, false);
            lane::saturate(float::fma(a, f(w.r(rb, l)), c, rnd, ftz), sat).to_bits()
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
        } => each(w, mask, rd, out, |w, l| {
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
            out.preds = [pd.0, pq.0];
        }
        Op::Mufu { rd, ra, mufu, ftz } => each(w, mask, rd, out, |w, l| {
            crate::mufu::eval(mufu, f(w.r(ra, l)), ftz).to_bits()
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
                let v = lane::ftz_in(f(w.r(ra, l)), ftz);
                let wide = lane::float_to_int(v, ito, rnd);
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
        } => each(w, mask, rd, out, |w, l| {
            let a = w.r(ra, l);
            let v = match fcvt {
                Fcvt::F32 => {
                    let x = lane::ftz_in(f(a), ftz);
                    if rint {
                        lane::round_integral(x, rnd)
                    } else {
                        x
                    }
                }
                Fcvt::FromF16 => lane::f16_to_f32(a as u16),
                Fcvt::F16 => return u32::from(lane::f32_to_f16(lane::ftz_in(f(a), ftz))),
                Fcvt::Bf16 => {
                    return (f(a).to_bits() + 0x7fff + ((f(a).to_bits() >> 16) & 1)) >> 16
                }
                Fcvt::FromBf16 => f32::from_bits(a << 16),
            };
            lane::saturate(v, sat).to_bits()
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
                    w.w(crate::warp::reg_at(rd, k as u8), l, v32(4 * k));
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
            crate::warp::reg_at(rd, k as u8)
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
    let new = lane::atom(old, b, c, aop, aty, n);
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
