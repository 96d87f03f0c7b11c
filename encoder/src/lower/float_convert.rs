//! `cvt` with a float on either side: between f32, f16, bf16 and the 8-bit e4m3 and e5m2
//! (`F2F`, which also rounds to an integral value and clamps: `.sat`, `.relu`,
//! `.satfinite`), to and from integers (`I2F`, `F2I`), and the packed forms (f16x2 and
//! bf16x2 from two f32, e4m3x2 and e5m2x2 from two f32 or an f16x2, f16x2 from those).
//! f64 goes to the runtime (`double.rs`). What `F2F` cannot do in one step it does in two
//! that give the same single rounding (docs/float.md says why each is exact).

use super::float::Clamps;
use super::half::{half_type, Half};
use super::int::int_type;
use super::*;
use sgpu_isa::{Fcvt, Rnd};

/// An 8-bit float format of PTX's packed conversions: `F2F`'s conversions to and from f32.
#[derive(Clone, Copy)]
struct Byte {
    narrow: Fcvt,
    widen: Fcvt,
}

fn byte_type(t: Type) -> Option<Byte> {
    match t.name {
        "e4m3x2" => Some(Byte {
            narrow: Fcvt::E4m3,
            widen: Fcvt::FromE4m3,
        }),
        "e5m2x2" => Some(Byte {
            narrow: Fcvt::E5m2,
            widen: Fcvt::FromE5m2,
        }),
        _ => None,
    }
}

impl<'a> FnLower<'a, '_> {
    /// `cvt` with a float on either side (`to`, `from`).
    pub(super) fn cvt_float(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Src<'a>,
        (to, from): (Type, Type),
    ) {
        if to.name == "f64" || from.name == "f64" {
            return self.cvt_double(ins, (d, dp), a, (to, from));
        }
        for m in [".rna", ".rs"] {
            if self.has(m) {
                return self.unsupported(format!("`{}`: `{m}`", ins.mnemonic.text));
            }
        }
        if to.name == "tf32" {
            return self.unsupported(format!("`{}`: tf32", ins.mnemonic.text));
        }
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        match (
            byte_type(to),
            byte_type(from),
            half_type(to),
            half_type(from),
        ) {
            (Some(byte), ..) => self.cvt_to_bytes(ins, (d, dp), a, byte, from),
            (_, Some(byte), Some((format, true)), _) => {
                self.cvt_from_bytes((d, dp), lo, byte, format)
            }
            (_, _, Some((format, true)), _) => self.cvt_pair(ins, (d, dp), a, format),
            _ if to.class == TyClass::Float && from.class == TyClass::Float => {
                self.cvt_float_to_float(ins, (d, dp), lo, (to, from))
            }
            _ if to.class == TyClass::Float => self.cvt_int_to_float(ins, (d, dp), a, (to, from)),
            _ => self.cvt_float_to_int(ins, (d, dp), lo, (to, from)),
        }
    }

    /// The clamps the instruction asks for (`.sat`, `.relu`, `.satfinite`).
    fn clamps(&self) -> Clamps {
        Clamps {
            sat: self.has(".sat"),
            relu: self.has(".relu"),
            satfinite: self.has(".satfinite"),
        }
    }

    /// Between f32, f16 and bf16. A conversion `F2F` has no single form for goes through
    /// f32, exactly: a 16-bit value widens exactly, so widening then narrowing (f16 to bf16,
    /// f16 to f16 rounded to an integral value) rounds once.
    fn cvt_float_to_float(
        &mut self,
        ins: &PtxInstruction<'a>,
        d: (VReg, u8),
        a: Lane,
        (to, from): (Type, Type),
    ) {
        let (rnd, integral) = float::rounding(ins);
        let (ftz, clamps) = (self.has(".ftz"), self.clamps());
        let (to_half, from_half) = (half_type(to), half_type(from));
        let source = match from_half {
            Some((format, _)) if to.name != "f32" => self.widen_half(a, format),
            _ => a,
        };
        let fcvt = match (to_half, from_half) {
            (Some((format, _)), _) => format.narrow,
            (None, Some((format, _))) => format.widen,
            (None, None) => Fcvt::F32,
        };
        // PTX rounds to an integral value only in same-size conversions.
        if integral && to.bits != from.bits {
            let what = format!("`{}`: integer rounding between sizes", ins.mnemonic.text);
            return self.unsupported(what);
        }
        if integral && to_half.is_some() {
            // Integral first, in f32; the 16-bit format holds every integral value it rounds to.
            let t = self.new32();
            self.f2f(
                (t, 0),
                source,
                (Fcvt::F32, true, rnd, ftz),
                Clamps::default(),
            );
            return self.f2f(d, Lane::Reg(t, 0), (fcvt, false, rnd, false), clamps);
        }
        self.f2f(d, source, (fcvt, integral, rnd, ftz), clamps);
    }

    /// F2F with every field given: (conversion, integral, rounding, ftz) and the clamps.
    pub(super) fn f2f(
        &mut self,
        (d, dp): (VReg, u8),
        a: Lane,
        (fcvt, rint, rnd, ftz): (Fcvt, bool, Rnd, bool),
        clamps: Clamps,
    ) {
        let (ra, rd) = (self.r(a), R::of(d, dp));
        self.emit(
            Op::F2f {
                rd: rd.reg,
                ra: ra.reg,
                fcvt,
                rint,
                rnd,
                ftz,
                sat: clamps.sat,
                relu: clamps.relu,
                satf: clamps.satfinite,
            },
            &unary(rd, ra),
        );
    }

    /// An integer to f32 (`I2F`), to f16 (`I2F` then `F2F` in the same mode: exact, since
    /// f32 holds every integer below 2^24 and every larger one overflows f16 either way), or
    /// to bf16, whose range f32's integers do not cover: through the f64 runtime, rounding
    /// to odd twice (64 to 53 to 24 bits), then `F2F`.
    fn cvt_int_to_float(
        &mut self,
        ins: &PtxInstruction<'a>,
        d: (VReg, u8),
        a: Src<'a>,
        (to, from): (Type, Type),
    ) {
        let (rnd, _) = float::rounding(ins);
        let clamps = self.clamps();
        let Some((format, _)) = half_type(to) else {
            return self.i2f(d, a, from, rnd);
        };
        let t = self.new32();
        if format == half::F16 {
            self.i2f((t, 0), a, from, rnd);
        } else {
            self.int_to_f32_odd((t, 0), a, from);
        }
        self.f2f(
            d,
            Lane::Reg(t, 0),
            (format.narrow, false, rnd, false),
            clamps,
        );
    }

    fn i2f(&mut self, (d, dp): (VReg, u8), a: Src<'a>, from: Type, rnd: Rnd) {
        let width = if from.bits == 64 { 2 } else { 1 };
        let ra = if width == 2 {
            match self.pair(a) {
                Some(Lane::Reg(v, p)) => R::of(v, p),
                _ => return,
            }
        } else {
            let Some(lo) = self.lane(a, false) else {
                return;
            };
            let lo = if from.bits < 32 {
                self.extend(lo, from)
            } else {
                lo
            };
            self.r(lo)
        };
        let rd = R::of(d, dp);
        self.emit(
            Op::I2f {
                rd: rd.reg,
                ra: ra.reg,
                ity: int_type(from),
                rnd,
            },
            &[def(fields::RD, rd), wide(use_(fields::RA, ra), width)],
        );
    }

    /// f32, f16 or bf16 to an integer: a 16-bit value widened exactly first, then `F2I`.
    fn cvt_float_to_int(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Lane,
        (to, from): (Type, Type),
    ) {
        let (rnd, _) = float::rounding(ins);
        let ftz = self.has(".ftz");
        let source = match half_type(from) {
            Some((format, _)) => self.widen_half(a, format),
            None => a,
        };
        let width = if to.bits == 64 { 2 } else { 1 };
        let ra = self.r(source);
        let rd = R::of(d, dp);
        self.emit(
            Op::F2i {
                rd: rd.reg,
                ra: ra.reg,
                ito: int_type(to),
                rnd,
                ftz,
            },
            &[wide(def(fields::RD, rd), width), use_(fields::RA, ra)],
        );
    }

    /// `cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`: a converted into the high
    /// half, b into the low one, each as the scalar `cvt` would.
    fn cvt_pair(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Src<'a>,
        format: Half,
    ) {
        let Some(b) = self.operand(ins, 2) else {
            return;
        };
        let (rnd, _) = float::rounding(ins);
        let (ftz, clamps) = (self.has(".ftz"), self.clamps());
        let halves = [self.new32(), self.new32()];
        for (t, s) in halves.iter().zip([b, a]) {
            let Some(l) = self.lane(s, false) else { return };
            self.f2f((*t, 0), l, (format.narrow, false, rnd, ftz), clamps);
        }
        self.pack_word(d, dp, &halves.map(|t| Lane::Reg(t, 0)), 16);
    }

    /// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b` (a into the high byte, b into
    /// the low one) and `.f16x2 d, a` (the high half into the high byte): each value
    /// rounded once by `F2F` (an f16 widened exactly first).
    fn cvt_to_bytes(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Src<'a>,
        byte: Byte,
        from: Type,
    ) {
        let (rnd, _) = float::rounding(ins);
        let clamps = self.clamps();
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        let sources = match half_type(from) {
            Some((format, true)) => {
                let high = self.high_half(lo);
                [lo, high].map(|h| self.widen_half(h, format))
            }
            _ => {
                let Some(b) = self.operand(ins, 2).and_then(|b| self.lane(b, false)) else {
                    return;
                };
                [b, lo]
            }
        };
        let bytes = [self.new32(), self.new32()];
        for (t, s) in bytes.iter().zip(sources) {
            self.f2f((*t, 0), s, (byte.narrow, false, rnd, false), clamps);
        }
        self.pack_word(d, dp, &bytes.map(|t| Lane::Reg(t, 0)), 8);
    }

    /// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a`: each byte widened exactly to f32 and
    /// narrowed to f16, which holds every e4m3 and e5m2 value (the high byte into the high
    /// half).
    fn cvt_from_bytes(&mut self, (d, dp): (VReg, u8), a: Lane, byte: Byte, format: Half) {
        let clamps = self.clamps();
        let high = self.new32();
        let ra = self.r(a);
        self.shift(high, 0, ra, Lane::Imm(8), false, true);
        let halves = [self.new32(), self.new32()];
        for (t, s) in halves.iter().zip([a, Lane::Reg(high, 0)]) {
            let wide = self.new32();
            self.f2f(
                (wide, 0),
                s,
                (byte.widen, false, Rnd::Rn, false),
                Clamps::default(),
            );
            self.f2f(
                (*t, 0),
                Lane::Reg(wide, 0),
                (format.narrow, false, Rnd::Rn, false),
                clamps,
            );
        }
        self.pack_word(d, dp, &halves.map(|t| Lane::Reg(t, 0)), 16);
    }
}
