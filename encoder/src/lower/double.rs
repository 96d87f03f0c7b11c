//! f64 arithmetic, comparisons and conversions. sgpu has no f64 unit: each is a call of the
//! f64 runtime (`runtime.rs`, docs/f64.md), which the module is linked with, except the sign
//! operations (`neg`, `abs`, `copysign`), which are bit operations on the high word.

use super::float::Clamps;
use super::*;
use crate::runtime::{class, cmp, flags, Routine};
use sgpu_isa::{Fcvt, Ity, Msize, Rnd};

/// The bits of an f64 one.
const ONE: u64 = 0x3ff0_0000_0000_0000;

/// An argument of a runtime call.
#[derive(Clone, Copy)]
enum Arg<'a> {
    /// An f64 or 64-bit integer: a register pair or an immediate.
    Wide(Src<'a>),
    /// A 32-bit value.
    Word(Lane),
}

/// The comparison bits of `__sgpu_f64_cmp` for which `setp`'s comparison holds.
fn comparison_mask(name: &str) -> Option<u32> {
    use cmp::{EQ, GT, LT, UNORDERED as U};
    Some(match name {
        "eq" => EQ,
        "ne" => LT | GT,
        "lt" => LT,
        "le" => LT | EQ,
        "gt" => GT,
        "ge" => GT | EQ,
        "equ" => EQ | U,
        "neu" => LT | GT | U,
        "ltu" => LT | U,
        "leu" => LT | EQ | U,
        "gtu" => GT | U,
        "geu" => GT | EQ | U,
        "num" => LT | EQ | GT,
        "nan" => U,
        _ => return None,
    })
}

impl<'a> FnLower<'a, '_> {
    /// An instruction on f64 values other than moves, loads and stores.
    pub(super) fn double(&mut self, ins: &PtxInstruction<'a>) {
        match ins.opcode() {
            "neg" | "abs" | "copysign" => self.double_sign(ins),
            "setp" | "set" | "selp" | "slct" => self.compare(ins),
            "testp" => self.double_class(ins),
            "cvt" => self.convert(ins),
            "atom" | "red" => self.memory(ins),
            _ => self.double_arith(ins),
        }
    }

    /// The rounding mode and `.ftz` of an f64 instruction, as runtime flags.
    fn double_flags(&self, ins: &PtxInstruction<'a>) -> u32 {
        let (rnd, _) = float::rounding(ins);
        let ftz = if self.has(".ftz") { flags::FTZ } else { 0 };
        rnd as u32 | ftz
    }

    fn double_arith(&mut self, ins: &PtxInstruction<'a>) {
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(srcs) = self.all_sources(ins) else {
            return;
        };
        let mode = Arg::Word(Lane::Imm(self.double_flags(ins)));
        let w = Arg::Wide;
        let (routine, args) = match (ins.opcode(), srcs.as_slice()) {
            ("add", [a, b]) => (Routine::Add, vec![w(*a), w(*b), mode]),
            ("sub", [a, b]) => {
                let sub = Arg::Word(Lane::Imm(self.double_flags(ins) | flags::NEG));
                (Routine::Add, vec![w(*a), w(*b), sub])
            }
            ("mul", [a, b]) => (Routine::Mul, vec![w(*a), w(*b), mode]),
            ("fma" | "mad", [a, b, c]) => (Routine::Fma, vec![w(*a), w(*b), w(*c), mode]),
            ("div", [a, b]) => (Routine::Div, vec![w(*a), w(*b), mode]),
            // rcp.approx.ftz.f64 too: correctly rounded is within any approximation's error.
            ("rcp", [a]) => (Routine::Div, vec![w(Src::Imm(ONE)), w(*a), mode]),
            ("sqrt", [a]) => (Routine::Sqrt, vec![w(*a), mode]),
            ("rsqrt", [a]) => (Routine::Rsqrt, vec![w(*a), mode]),
            ("min" | "max", [a, b]) => {
                let max = Arg::Word(Lane::Imm(u32::from(ins.opcode() == "max")));
                (Routine::MinMax, vec![w(*a), w(*b), max])
            }
            _ => {
                return self.unsupported(format!("`{}`: f64 arithmetic", ins.mnemonic.text));
            }
        };
        self.runtime_call(routine, &args, (d, dp), true);
    }

    /// `neg`, `abs` and `copysign` on f64: bit operations on the high words (which hold the
    /// sign; a NaN keeps its payload), the low word copied (copysign's from b, whose
    /// magnitude it keeps).
    fn double_sign(&mut self, ins: &PtxInstruction<'a>) {
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(srcs) = self.all_sources(ins) else {
            return;
        };
        let mut high = Vec::with_capacity(srcs.len());
        for s in &srcs {
            let Some(h) = self.lane(*s, true) else { return };
            high.push(h);
        }
        let Some(low) = srcs.last().and_then(|s| self.lane(*s, false)) else {
            return;
        };
        const SIGN: u32 = 0x8000_0000;
        let rd = R::of(d, dp + 1);
        match (ins.opcode(), high.as_slice()) {
            ("copysign", [a, b]) => self.copy_sign(d, *a, *b, SIGN, dp + 1),
            (op, [a]) => {
                let (imm32, lop2) = if op == "abs" {
                    (!SIGN, sgpu_isa::Lop2::And)
                } else {
                    (SIGN, sgpu_isa::Lop2::Xor)
                };
                let ra = self.r(*a);
                let lop = Op::Lop32i {
                    rd: rd.reg,
                    ra: ra.reg,
                    imm32,
                    lop2,
                };
                self.emit(lop, &unary(rd, ra));
            }
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
        self.mov_lane(d, dp, low);
    }

    /// `testp.op.f64 p, a`: the op's bit of the runtime's classification.
    fn double_class(&mut self, ins: &PtxInstruction<'a>) {
        let bit = match ins.modifiers().next() {
            Some(".finite") => class::FINITE,
            Some(".infinite") => class::INFINITE,
            Some(".number") => class::NUMBER,
            Some(".notanumber") => class::NOTANUMBER,
            Some(".normal") => class::NORMAL,
            Some(".subnormal") => class::SUBNORMAL,
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let Some((p, _, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(a) = self.operand(ins, 1) else {
            return;
        };
        let bits = self.new32();
        self.runtime_call(Routine::Class, &[Arg::Wide(a)], (bits, 0), false);
        self.test_bits(p, None, Lane::Reg(bits, 0), bit, None, sgpu_isa::Bop::And);
    }

    /// `setp` and `set` on f64 sources: `pd = (a cmp b) bop c`, `pq` its complement likewise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn double_compare(
        &mut self,
        (pd, pq): (VReg, Option<VReg>),
        name: &str,
        a: Src<'a>,
        b: Src<'a>,
        c: Option<(VReg, bool)>,
        bop: sgpu_isa::Bop,
    ) {
        let Some(mask) = comparison_mask(name) else {
            return self.unsupported(format!("the comparison `.{name}`"));
        };
        let order = self.new32();
        let args = [Arg::Wide(a), Arg::Wide(b)];
        self.runtime_call(Routine::Cmp, &args, (order, 0), false);
        self.test_bits(pd, pq, Lane::Reg(order, 0), mask, c, bop);
    }

    /// `pd = ((x & mask) != 0) bop c`, and `pq = ((x & mask) == 0) bop c`.
    fn test_bits(
        &mut self,
        pd: VReg,
        pq: Option<VReg>,
        x: Lane,
        mask: u32,
        c: Option<(VReg, bool)>,
        bop: sgpu_isa::Bop,
    ) {
        let masked = self.new32();
        self.logic(masked, 0, x, Lane::Imm(mask), int::LUT_AND);
        let (m, zero) = (Lane::Reg(masked, 0), Lane::Imm(0));
        self.icmp32(pd, pq, sgpu_isa::Icmp::Ne, false, m, zero, c, bop, false);
    }

    /// `cvt` to or from f64 (`to`, `from`; the other side f64, f32, f16, bf16 or an
    /// integer). f16 and bf16 go through f32: widening exactly, and narrowing from f32
    /// rounded to odd, which then rounds to f16 or bf16 as f64 would directly (docs/f64.md).
    pub(super) fn cvt_double(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Src<'a>,
        (to, from): (Type, Type),
    ) {
        let (rnd, integral) = float::rounding(ins);
        let sat = if self.has(".sat") { flags::SAT } else { 0 };
        let ftz = if self.has(".ftz") { flags::FTZ } else { 0 };
        let mode = rnd as u32;
        let word = |x: u32| Arg::Word(Lane::Imm(x));
        let half = |name: &str| match name {
            "f16" => Some((Fcvt::F16, Fcvt::FromF16)),
            "bf16" => Some((Fcvt::Bf16, Fcvt::FromBf16)),
            _ => None,
        };
        match (to.name, from.name) {
            ("f64", "f64") => {
                let integral = if integral { flags::INTEGRAL } else { 0 };
                let args = [Arg::Wide(a), word(mode | integral | sat)];
                self.runtime_call(Routine::ToF64, &args, (d, dp), true);
            }
            ("f64", "f32") => {
                let Some(x) = self.lane(a, false) else { return };
                let args = [Arg::Word(x), word(ftz | sat)];
                self.runtime_call(Routine::FromF32, &args, (d, dp), true);
            }
            ("f64", narrow) if half(narrow).is_some() => {
                let Some(x) = self.lane(a, false) else { return };
                let widen = half(narrow).map(|h| h.1).expect("a half type");
                let t = self.new32();
                self.f2f((t, 0), x, (widen, false, Rnd::Rn, false), Clamps::default());
                let args = [Arg::Word(Lane::Reg(t, 0)), word(sat)];
                self.runtime_call(Routine::FromF32, &args, (d, dp), true);
            }
            ("f64", _) => {
                // Any integer, extended to 64 bits by its signedness.
                let Some(x) = self.widened(a, from) else {
                    return;
                };
                let signed = u32::from(from.class == TyClass::Signed);
                let args = [Arg::Wide(x), word(mode | sat), word(signed)];
                self.runtime_call(Routine::FromInt, &args, (d, dp), true);
            }
            ("f32", _) => {
                let args = [Arg::Wide(a), word(mode | ftz | sat)];
                self.runtime_call(Routine::ToF32, &args, (d, dp), false);
            }
            (narrow, _) if half(narrow).is_some() => {
                let t = self.new32();
                let args = [Arg::Wide(a), word(flags::RO | sat)];
                self.runtime_call(Routine::ToF32, &args, (t, 0), false);
                let fcvt = half(narrow).map(|h| h.0).expect("a half type");
                let clamps = Clamps {
                    sat: false,
                    relu: self.has(".relu"),
                    satfinite: self.has(".satfinite"),
                };
                self.f2f((d, dp), Lane::Reg(t, 0), (fcvt, false, rnd, false), clamps);
            }
            _ => {
                let ty = int::int_type(to);
                let wide = matches!(ty, Ity::U64 | Ity::S64);
                let t = self.new64();
                let args = [Arg::Wide(a), word(mode), word(ty as u32)];
                self.runtime_call(Routine::ToInt, &args, (t, 0), true);
                self.mov_lane(d, dp, Lane::Reg(t, 0));
                if wide {
                    self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
                }
            }
        }
    }

    /// `d = a + b` of f64 register pairs, rounded to nearest.
    pub(super) fn double_add(&mut self, d: VReg, a: Src<'a>, b: Src<'a>) {
        let args = [
            Arg::Wide(a),
            Arg::Wide(b),
            Arg::Word(Lane::Imm(Rnd::Rn as u32)),
        ];
        self.runtime_call(Routine::Add, &args, (d, 0), true);
    }

    /// An integer rounded to odd into an f32, through f64 (to odd twice: 64 bits to 53 to
    /// 24), which `F2F` then rounds to bf16 as the integer itself would be.
    pub(super) fn int_to_f32_odd(&mut self, d: (VReg, u8), a: Src<'a>, from: Type) {
        let Some(x) = self.widened(a, from) else {
            return;
        };
        let signed = u32::from(from.class == TyClass::Signed);
        let word = |x: u32| Arg::Word(Lane::Imm(x));
        let t = self.new64();
        let args = [Arg::Wide(x), word(flags::RO), word(signed)];
        self.runtime_call(Routine::FromInt, &args, (t, 0), true);
        let f = Src::Reg {
            v: t,
            ty: Type::from_name("f64").expect("a PTX type"),
            part: 0,
            sel: None,
        };
        self.runtime_call(Routine::ToF32, &[Arg::Wide(f), word(flags::RO)], d, false);
    }

    /// An integer source extended to 64 bits by its type's signedness, as a source.
    fn widened(&mut self, a: Src<'a>, from: Type) -> Option<Src<'a>> {
        if from.bits == 64 {
            return Some(a);
        }
        let lo = self.lane(a, false)?;
        let lo = if from.bits < 32 {
            self.extend(lo, from)
        } else {
            lo
        };
        let t = self.new64();
        self.mov_lane(t, 0, lo);
        if from.class == TyClass::Signed {
            let r = self.r(lo);
            self.shift(t, 1, r, Lane::Imm(31), true, true);
        } else {
            self.mov_lane(t, 1, Lane::Imm(0));
        }
        Some(Src::Reg {
            v: t,
            ty: Type::from_name("u64").expect("a PTX type"),
            part: 0,
            sel: None,
        })
    }

    /// Calls the runtime's `routine` with `args` (stored in its parameter slots of the
    /// outgoing area), and loads its result into `d`, two words when `wide`.
    fn runtime_call(&mut self, routine: Routine, args: &[Arg<'a>], d: (VReg, u8), wide: bool) {
        let name = routine.name();
        let (Some(&Place::Function { index }), Some(sig)) = (
            self.layout.places.get(name),
            self.layout.signatures.get(name),
        ) else {
            unreachable!("every layout holds the runtime's functions");
        };
        let (params, result) = (sig.params.clone(), sig.results[0]);
        self.outgoing_size = self.outgoing_size.max(sig.size);
        for (arg, slot) in args.iter().zip(params) {
            let (value, access) = match *arg {
                Arg::Wide(s) => match self.pair(s) {
                    Some(pair) => (pair, (Msize::B64, 2)),
                    None => return,
                },
                Arg::Word(l) => (l, (Msize::B32, 1)),
            };
            let value = self.r(value);
            self.store_outgoing(slot, value, access);
        }
        self.call_function(index);
        let access = if wide {
            (Msize::B64, 2)
        } else {
            (Msize::B32, 1)
        };
        self.load_outgoing(R::of(d.0, d.1), result, access);
    }
}
