//! Single-precision float arithmetic, comparisons and conversions. f64 is rejected before
//! this point; f16 values are converted, not computed on.

use super::int::{LUT_AND, LUT_XOR};
use super::*;
use sgpu_isa::{Bop, Fcmp, Icmp, Mufu, Rnd};

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

/// LOP3's truth table of `(a & c) | (b & !c)` over ra (0xF0), rb (0xCC), rc (0xAA).
const LUT_SELECT_MASK: u8 = 0xE4;

/// What a conversion clamps to before rounding: F2F's `SAT`, `RELU` and `SATFINITE`
/// (docs/float.md).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Clamps {
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

impl<'a> FnLower<'a, '_> {
    pub(super) fn float(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        if let Some((format, pair)) = half::half_type(ty) {
            return self.half_arith(ins, format, pair);
        }
        if ty.name != "f32" {
            return self.unsupported(format!("`{}`: {} arithmetic", ins.mnemonic.text, ty.name));
        }
        if op == "testp" {
            return self.float_class(ins);
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
        let (ftz, sat) = (self.has(".ftz"), self.has(".sat"));
        let approx = self.has(".approx") || self.has(".full");
        if let ("min" | "max", [a, b]) = (op, lanes) {
            if ins.modifiers().any(|m| m == ".xorsign") {
                return self.min_max_xorsign((d, dp), (*a, *b), op == "max", ftz);
            }
        }
        self.float_op(ins, op, (d, dp), lanes, (rnd, ftz, sat, approx));
    }

    /// `min.xorsign.abs.f32` (and max): the minimum of the magnitudes, its sign the
    /// exclusive or of a's and b's; a NaN result stays the canonical NaN.
    /// `testp.op.f32 p, a`: a's bits without the sign against the encodings' bounds, unsigned
    /// (infinity is 0x7f800000, the smallest normal 0x00800000). PTX counts both zeros as
    /// normal: a finite value is normal unless it is subnormal.
    fn float_class(&mut self, ins: &PtxInstruction<'a>) {
        const INF: u32 = 0x7f80_0000;
        const MIN_NORMAL: u32 = 0x0080_0000;
        let Some((p, _, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(a) = self.operand(ins, 1).and_then(|a| self.lane(a, false)) else {
            return;
        };
        let magnitude = self.new32();
        self.logic(magnitude, 0, a, Lane::Imm(!0x8000_0000), LUT_AND);
        let m = Lane::Reg(magnitude, 0);
        // Subnormal: m - 1 < MIN_NORMAL - 1, unsigned (zero wraps to the top).
        let subnormal = |me: &mut Self, into: VReg| {
            let t = me.new32();
            me.add(t, 0, m, Lane::Imm(u32::MAX));
            let (x, bound) = (Lane::Reg(t, 0), Lane::Imm(MIN_NORMAL - 1));
            me.icmp32(into, None, Icmp::Lt, false, x, bound, None, Bop::And, false);
        };
        let (cmp, c) = match ins.modifiers().next() {
            Some(".finite") => (Icmp::Lt, None),
            Some(".infinite") => (Icmp::Eq, None),
            Some(".number") => (Icmp::Le, None),
            Some(".notanumber") => (Icmp::Gt, None),
            Some(".subnormal") => return subnormal(self, p),
            Some(".normal") => {
                let s = self.vregs.new_reg(Class::Pred);
                subnormal(self, s);
                (Icmp::Lt, Some((s, true)))
            }
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        self.icmp32(p, None, cmp, false, m, Lane::Imm(INF), c, Bop::And, false);
    }

    fn min_max_xorsign(&mut self, (d, dp): (VReg, u8), (a, b): (Lane, Lane), max: bool, ftz: bool) {
        let m = self.new32();
        let (ra, rb, rm) = (self.r(a), self.r(b), R::of(m, 0));
        let nan = self.has(".NaN");
        self.emit(
            Op::Fmnmx {
                rd: rm.reg,
                ra: ra.reg,
                rb: rb.reg,
                max,
                ftz,
                nan,
                absa: true,
                absb: true,
            },
            &binary(rm, ra, rb),
        );
        let signs = self.new32();
        self.logic(signs, 0, a, b, LUT_XOR);
        let signed = self.new32();
        self.copy_sign(signed, Lane::Reg(signs, 0), Lane::Reg(m, 0), SIGN, 0);
        let is_nan = self.vregs.new_reg(Class::Pred);
        let (mm, zero) = (Lane::Reg(m, 0), Lane::Imm(0));
        self.fcmp(is_nan, None, Fcmp::Nan, mm, zero, None, Bop::And, false);
        self.sel(d, dp, mm, Lane::Reg(signed, 0), (is_nan, false));
    }

    /// `d = (a & mask) | (b & !mask)`: the bits of `mask` from a, the others from b (into
    /// part `dp` of `d`).
    pub(super) fn copy_sign(&mut self, d: VReg, a: Lane, b: Lane, mask: u32, dp: u8) {
        let (ra, rb, rc) = (self.r(a), self.ri(b), self.ri(Lane::Imm(mask)));
        let rd = R::of(d, dp);
        self.emit(
            Op::Lop3 {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                rc: rc.val,
                lut: LUT_SELECT_MASK,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
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
            ("abs" | "neg", [a]) => {
                // |a| + -0 or -a + -0, as NVIDIA's ptxas compiles them (`FADD R, -R, -RZ`):
                // the sign of a zero comes out right, and a NaN is the canonical one.
                let neg = op == "neg";
                let ra = self.r(*a);
                self.emit(
                    Op::Fadd {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: Reg::RZ,
                        rnd: Rnd::Rn,
                        ftz,
                        sat: false,
                        na: neg,
                        nb: true,
                        absa: !neg,
                        absb: false,
                    },
                    &binary(rd, ra, R::ZERO),
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
            // d = the sign of a, the magnitude of b.
            ("copysign", [a, b]) => self.copy_sign(d, *a, *b, SIGN, dp),
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
}
