//! Single-precision float arithmetic, comparisons and conversions. f64 is rejected before
//! this point; f16 values are converted, not computed on.

use super::int::{int_type, LUT_OR, LUT_XOR};
use super::*;
use sgpu_isa::{Bop, Fcmp, Fcvt, Lop2, Mufu, Rnd};

/// The rounding modifier among an instruction's, and whether it rounds to an integer
/// (`.rni` and its kin).
pub(super) fn rounding(ins: &PtxInstruction<'_>) -> (Rnd, bool) {
    for m in ins.modifiers() {
        let r = match m {
            ".rn" | ".rni" => Rnd::Rn,
            ".rz" | ".rzi" => Rnd::Rz,
            ".rm" | ".rmi" => Rnd::Rm,
            ".rp" | ".rpi" => Rnd::Rp,
            _ => continue,
        };
        return (r, m.ends_with('i'));
    }
    (Rnd::Rn, false)
}

const SIGN: u32 = 0x8000_0000;

impl<'a> FnLower<'a, '_> {
    pub(super) fn float(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        let half_op = matches!(
            op,
            "add" | "sub" | "mul" | "fma" | "min" | "max" | "neg" | "abs"
        );
        let (half, pair) = (ty.name == "f16" && half_op, ty.name == "f16x2" && half_op);
        if ty.name != "f32" && !half && !pair {
            return self.unsupported(format!("`{}`: {} arithmetic", ins.mnemonic.text, ty.name));
        }
        if (half || pair) && self.has(".ftz") {
            return self.unsupported(format!("`{}`: `.ftz` on f16 arithmetic", ins.mnemonic.text));
        }
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        // fma has the most sources, three.
        let mut lanes = [Lane::Imm(0); 3];
        let n = ins.operands.len().saturating_sub(1);
        if n > lanes.len() {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        }
        for (i, lane) in lanes[..n].iter_mut().enumerate() {
            let Some(s) = self.operand(ins, i + 1) else {
                return;
            };
            let Some(l) = self.lane(s, false) else { return };
            *lane = l;
        }
        let lanes = &lanes[..n];
        let (rnd, _) = rounding(ins);
        let modes = (rnd, self.has(".ftz"), self.has(".sat"));
        let approx = self.has(".approx") || self.has(".full");
        if pair {
            // Each half on its own, the high one shifted down first; then packed.
            let halves = [self.new32(), self.new32()];
            let mut high = [Lane::Imm(0); 3];
            for (h, l) in high.iter_mut().zip(lanes) {
                *h = self.high_half(*l);
            }
            self.half(ins, op, (halves[0], 0), lanes, modes);
            self.half(ins, op, (halves[1], 0), &high[..n], modes);
            self.pack_word(d, dp, &halves.map(|t| Lane::Reg(t, 0)), 16);
        } else if half {
            self.half(ins, op, (d, dp), lanes, modes);
        } else {
            let (rnd, ftz, sat) = modes;
            self.float_op(ins, op, (d, dp), lanes, (rnd, ftz, sat, approx));
        }
    }

    /// The high half of an f16x2 value, in the low 16 bits where the f16 paths read it.
    pub(super) fn high_half(&mut self, l: Lane) -> Lane {
        match l {
            Lane::Imm(i) => Lane::Imm(i >> 16),
            reg => {
                let t = self.new32();
                let r = self.r(reg);
                self.shift(t, 0, r, Lane::Imm(16), false, true);
                Lane::Reg(t, 0)
            }
        }
    }

    /// An f16 value (the low 16 bits) widened to f32, exactly.
    pub(super) fn widen_half(&mut self, l: Lane) -> Lane {
        let t = self.new32();
        self.convert_half((t, 0), l, Fcvt::FromF16, false);
        Lane::Reg(t, 0)
    }

    /// An f16 operation (f16 add, sub, mul, min, max, neg, abs) in f32: widening is exact,
    /// and f32 has more than twice f16's precision plus two bits, so rounding the f32 result
    /// to f16 gives the f16 result rounded once (docs/float.md). fma is summed to odd first.
    fn half(
        &mut self,
        ins: &PtxInstruction<'a>,
        op: &str,
        d: (VReg, u8),
        lanes: &[Lane],
        (rnd, ftz, sat): (Rnd, bool, bool),
    ) {
        let mut wide = [Lane::Imm(0); 3];
        for (w, l) in wide.iter_mut().zip(lanes) {
            *w = self.widen_half(*l);
        }
        let wide = &wide[..lanes.len()];
        if let ("fma", [a, b, c]) = (op, wide) {
            let odd = self.sum_to_odd(*a, *b, *c);
            self.convert_half(d, odd, Fcvt::F16, sat);
        } else {
            let t = self.new32();
            self.float_op(ins, op, (t, 0), wide, (rnd, ftz, sat, false));
            self.convert_half(d, Lane::Reg(t, 0), Fcvt::F16, false);
        }
    }

    /// `a * b + c` of f16 values widened to f32, rounded to odd in f32: the product is exact
    /// (22 bits), the sum is rounded to nearest and its exact error found by TwoSum; where
    /// the error is not zero the sum steps toward the exact value's zero side and its last bit
    /// is set. Rounding that to f16 (11 bits, 13 <= 24) gives `fma.rn.f16` rounded once
    /// (Boldo and Melquiond's round-to-odd). An infinite or NaN sum has a NaN error and stays.
    fn sum_to_odd(&mut self, a: Lane, b: Lane, c: Lane) -> Lane {
        let product = self.new32();
        let (ra, rb) = (self.r(a), self.r(b));
        let rp = R::of(product, 0);
        self.emit(
            Op::Fmul {
                rd: rp.reg,
                ra: ra.reg,
                rb: rb.reg,
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
                na: false,
                absa: false,
                absb: false,
            },
            &binary(rp, ra, rb),
        );
        let p = Lane::Reg(product, 0);
        let sum = self.fadd(p, c, false);
        // TwoSum: error = (p - (sum - bb)) + (c - bb), bb = sum - p.
        let bb = self.fadd(sum, p, true);
        let t1 = self.fadd(sum, bb, true);
        let t2 = self.fadd(p, t1, true);
        let t3 = self.fadd(c, bb, true);
        let error = self.fadd(t2, t3, false);
        // Toward zero when the error's sign differs from the sum's: the bits less one.
        let signs = self.new32();
        self.logic(signs, 0, sum, error, LUT_XOR);
        let down = self.new32();
        let rs = self.r(Lane::Reg(signs, 0));
        self.shift(down, 0, rs, Lane::Imm(31), false, true);
        let stepped = self.new32();
        self.sub(stepped, 0, sum, Lane::Reg(down, 0));
        let odd = self.new32();
        self.logic(odd, 0, Lane::Reg(stepped, 0), Lane::Imm(1), LUT_OR);
        let inexact = self.vregs.new_reg(Class::Pred);
        self.fcmp(
            inexact,
            None,
            Fcmp::Ne,
            error,
            Lane::Imm(0),
            None,
            Bop::And,
            false,
        );
        let result = self.new32();
        self.sel(result, 0, Lane::Reg(odd, 0), sum, (inexact, false));
        Lane::Reg(result, 0)
    }

    /// `a + b` (`a - b` with `negate`) in f32, rounded to nearest, into a new register.
    fn fadd(&mut self, a: Lane, b: Lane, negate: bool) -> Lane {
        let d = self.new32();
        let (ra, rb, rd) = (self.r(a), self.r(b), R::of(d, 0));
        self.emit(
            Op::Fadd {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.reg,
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
                na: false,
                nb: negate,
                absa: false,
                absb: false,
            },
            &binary(rd, ra, rb),
        );
        Lane::Reg(d, 0)
    }

    /// F2F of `a` between f32 and f16 (`fcvt`), round to nearest, `.sat` as given.
    pub(super) fn convert_half(&mut self, d: (VReg, u8), a: Lane, fcvt: Fcvt, sat: bool) {
        self.convert_float_lane(d, a, fcvt, (Rnd::Rn, false, sat));
    }

    /// F2F of `a` (`fcvt`) rounded by `rnd`, with `.ftz` and `.sat` as given.
    pub(super) fn convert_float_lane(
        &mut self,
        (d, dp): (VReg, u8),
        a: Lane,
        fcvt: Fcvt,
        (rnd, ftz, sat): (Rnd, bool, bool),
    ) {
        let (ra, rd) = (self.r(a), R::of(d, dp));
        self.emit(
            Op::F2f {
                rd: rd.reg,
                ra: ra.reg,
                fcvt,
                rint: false,
                rnd,
                ftz,
                sat,
            },
            &unary(rd, ra),
        );
    }

    /// The f32 operation `op` of `lanes` into `d`.
    pub(super) fn float_op(
        &mut self,
        ins: &PtxInstruction<'a>,
        op: &str,
        (d, dp): (VReg, u8),
        lanes: &[Lane],
        (rnd, ftz, sat, approx): (Rnd, bool, bool, bool),
    ) {
        let rd = R::of(d, dp);
        match (op, lanes) {
            ("add" | "sub", [a, b]) => {
                let nb = op == "sub";
                if let (Lane::Imm(i), Rnd::Rn, false, false) = (*b, rnd, ftz, sat) {
                    let ra = self.r(*a);
                    let imm32 = if nb { i ^ SIGN } else { i };
                    self.emit(
                        Op::Fadd32i {
                            rd: rd.reg,
                            ra: ra.reg,
                            imm32,
                        },
                        &unary(rd, ra),
                    );
                    return;
                }
                let (ra, rb) = (self.r(*a), self.r(*b));
                self.emit(
                    Op::Fadd {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        rnd,
                        ftz,
                        sat,
                        na: false,
                        nb,
                        absa: false,
                        absb: false,
                    },
                    &binary(rd, ra, rb),
                );
            }
            ("mul", [a, b]) => {
                if let (Lane::Imm(i), Rnd::Rn, false, false) = (*b, rnd, ftz, sat) {
                    let ra = self.r(*a);
                    self.emit(
                        Op::Fmul32i {
                            rd: rd.reg,
                            ra: ra.reg,
                            imm32: i,
                        },
                        &unary(rd, ra),
                    );
                    return;
                }
                let (ra, rb) = (self.r(*a), self.r(*b));
                self.emit(
                    Op::Fmul {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        rnd,
                        ftz,
                        sat,
                        na: false,
                        absa: false,
                        absb: false,
                    },
                    &binary(rd, ra, rb),
                );
            }
            ("fma" | "mad", [a, b, c]) => {
                let (ra, rb, rc) = (self.r(*a), self.r(*b), self.r(*c));
                self.emit(
                    Op::Ffma {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        rc: rc.reg,
                        rnd,
                        ftz,
                        sat,
                        na: false,
                        nc: false,
                    },
                    &ternary(rd, ra, rb, rc),
                );
            }
            ("div", [a, b]) if approx => {
                let t = self.new32();
                self.mufu(t, *b, Mufu::Rcp, ftz);
                let (ra, rt) = (self.r(*a), R::of(t, 0));
                self.emit(
                    Op::Fmul {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rt.reg,
                        rnd: Rnd::Rn,
                        ftz,
                        sat: false,
                        na: false,
                        absa: false,
                        absb: false,
                    },
                    &binary(rd, ra, rt),
                );
            }
            ("div", [a, b]) => {
                let (ra, rb) = (self.r(*a), self.r(*b));
                self.emit(
                    Op::Fdiv {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        rnd,
                        ftz,
                    },
                    &binary(rd, ra, rb),
                );
            }
            ("rcp", [a]) if approx => self.mufu(d, *a, Mufu::Rcp, ftz),
            ("rcp", [a]) => {
                let ra = self.r(*a);
                self.emit(
                    Op::Frcp {
                        rd: rd.reg,
                        ra: ra.reg,
                        rnd,
                        ftz,
                    },
                    &unary(rd, ra),
                );
            }
            ("sqrt", [a]) if approx => self.mufu(d, *a, Mufu::Sqrt, ftz),
            ("sqrt", [a]) => {
                let ra = self.r(*a);
                self.emit(
                    Op::Fsqrt {
                        rd: rd.reg,
                        ra: ra.reg,
                        rnd,
                        ftz,
                    },
                    &unary(rd, ra),
                );
            }
            ("rsqrt", [a]) => self.mufu(d, *a, Mufu::Rsqrt, ftz),
            ("ex2", [a]) => self.mufu(d, *a, Mufu::Ex2, ftz),
            ("lg2", [a]) => self.mufu(d, *a, Mufu::Lg2, ftz),
            ("sin", [a]) => self.mufu(d, *a, Mufu::Sin, ftz),
            ("cos", [a]) => self.mufu(d, *a, Mufu::Cos, ftz),
            ("tanh", [a]) => self.mufu(d, *a, Mufu::Tanh, ftz),
            ("abs" | "neg", [a]) if !ftz => {
                // Exact bit operations on the sign, as PTX defines them.
                let (imm32, lop2) = if op == "abs" {
                    (!SIGN, Lop2::And)
                } else {
                    (SIGN, Lop2::Xor)
                };
                let ra = self.r(*a);
                self.emit(
                    Op::Lop32i {
                        rd: rd.reg,
                        ra: ra.reg,
                        imm32,
                        lop2,
                    },
                    &unary(rd, ra),
                );
            }
            ("abs" | "neg", [a]) => {
                // Flushing: |a| + 0, or -a + -0 (which keeps the sign of zero).
                let neg = op == "neg";
                let zero = if neg {
                    self.r(Lane::Imm(SIGN))
                } else {
                    R::ZERO
                };
                let ra = self.r(*a);
                self.emit(
                    Op::Fadd {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: zero.reg,
                        rnd: Rnd::Rn,
                        ftz: true,
                        sat: false,
                        na: neg,
                        nb: false,
                        absa: !neg,
                        absb: false,
                    },
                    &binary(rd, ra, zero),
                );
            }
            ("min" | "max", [a, b]) => {
                let (ra, rb) = (self.r(*a), self.r(*b));
                self.emit(
                    Op::Fmnmx {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        max: op == "max",
                        ftz,
                        nan: self.has(".NaN"),
                        absa: false,
                        absb: false,
                    },
                    &binary(rd, ra, rb),
                );
            }
            ("copysign", [a, b]) => {
                // d = sign of a, magnitude of b: (a & c) | (b & ~c) with c the sign mask.
                let (ra, rb, rc) = (self.r(*a), self.ri(*b), self.ri(Lane::Imm(SIGN)));
                self.emit(
                    Op::Lop3 {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.val,
                        rc: rc.val,
                        lut: 0xE4,
                    },
                    &[
                        def(fields::RD, rd),
                        use_(fields::RA, ra),
                        use_ri(fields::RB, rb),
                        use_ri(fields::RC, rc),
                    ],
                );
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    fn mufu(&mut self, d: VReg, a: Lane, f: Mufu, ftz: bool) {
        let ra = self.r(a);
        let rd = R::of(d, 0);
        self.emit(
            Op::Mufu {
                rd: rd.reg,
                ra: ra.reg,
                mufu: f,
                ftz,
            },
            &unary(rd, ra),
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn fcmp(
        &mut self,
        pd: VReg,
        pq: Option<VReg>,
        cmp: Fcmp,
        a: Lane,
        b: Lane,
        c: Option<(VReg, bool)>,
        bop: Bop,
        ftz: bool,
    ) {
        let (ra, rb) = (self.r(a), self.r(b));
        let at = self.emit(
            Op::Fsetp {
                pd: Pred(0),
                pq: placeholder(pq.is_some()),
                ra: ra.reg,
                rb: rb.reg,
                pc: pred_source(c),
                fcmp: cmp,
                ftz,
                bop,
            },
            &[use_(fields::RA, ra), use_(fields::RB, rb)],
        );
        self.bind_compare(at, pd, pq, c);
    }

    /// `cvt` with a float on either side.
    pub(super) fn cvt_float(
        &mut self,
        ins: &PtxInstruction<'a>,
        d: VReg,
        dp: u8,
        a: Src<'a>,
        to: Type,
        from: Type,
    ) {
        // F2F, I2F and F2I carry the four IEEE modes, FTZ and SAT, nothing more.
        for m in [".relu", ".satfinite", ".rna", ".rs"] {
            if self.has(m) {
                return self.unsupported(format!("`{}`: `{m}`", ins.mnemonic.text));
            }
        }
        if to.name == "f64" || from.name == "f64" {
            return self.cvt_double(ins, (d, dp), a, (to, from));
        }
        let (rnd, integral) = rounding(ins);
        let ftz = self.has(".ftz");
        let sat = self.has(".sat");
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        let rd = R::of(d, dp);
        match (to.class == TyClass::Float, from.class == TyClass::Float) {
            (true, true) => {
                let fcvt = match (to.name, from.name) {
                    ("f32", "f32") => Fcvt::F32,
                    ("f16", "f32") => Fcvt::F16,
                    ("f32", "f16") => Fcvt::FromF16,
                    ("bf16", "f32") => Fcvt::Bf16,
                    ("f32", "bf16") => Fcvt::FromBf16,
                    _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
                };
                // PTX rounds to an integral value only in same-size conversions.
                if integral && fcvt != Fcvt::F32 {
                    let what = format!("`{}`: integer rounding between sizes", ins.mnemonic.text);
                    return self.unsupported(what);
                }
                let ra = self.r(lo);
                self.emit(
                    Op::F2f {
                        rd: rd.reg,
                        ra: ra.reg,
                        fcvt,
                        rint: integral,
                        rnd,
                        ftz,
                        sat,
                    },
                    &unary(rd, ra),
                );
            }
            (true, false) => {
                if to.name != "f32" {
                    return self.unsupported(format!("`{}`", ins.mnemonic.text));
                }
                let ity = int_type(from);
                let width = if from.bits == 64 { 2 } else { 1 };
                let ra = if width == 2 {
                    match a {
                        Src::Reg { v, part, .. } => R::of(v, part),
                        _ => return self.unsupported("a 64-bit immediate to convert"),
                    }
                } else {
                    self.r(lo)
                };
                self.emit(
                    Op::I2f {
                        rd: rd.reg,
                        ra: ra.reg,
                        ity,
                        rnd,
                    },
                    &[def(fields::RD, rd), wide(use_(fields::RA, ra), width)],
                );
            }
            (false, true) => {
                if from.name != "f32" {
                    return self.unsupported(format!("`{}`", ins.mnemonic.text));
                }
                let ito = int_type(to);
                let width = if to.bits == 64 { 2 } else { 1 };
                let ra = self.r(lo);
                self.emit(
                    Op::F2i {
                        rd: rd.reg,
                        ra: ra.reg,
                        ito,
                        rnd,
                        ftz,
                    },
                    &[wide(def(fields::RD, rd), width), use_(fields::RA, ra)],
                );
            }
            (false, false) => unreachable!("the caller handles integer conversions"),
        }
    }
}
