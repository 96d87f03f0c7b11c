//! Moves, integer arithmetic and logic, comparisons and conversions.
//!
//! Registers of 8 and 16 bits live in the low bits of a 32-bit register whose upper bits are
//! undefined: operations whose low result bits depend only on low operand bits (add, mul.lo,
//! logic, shl) run as 32-bit ones, and the others extend their operands first. 64-bit values
//! are register pairs, computed a word at a time with the carry.

use super::*;
use sgpu_isa::{Bop, Icmp, Ity, Lop2, Pmode};

/// `a & b`, `a | b`, `a ^ b` and `~a` as LOP3 truth tables over ra (0xF0), rb (0xCC).
const LUT_AND: u8 = 0xC0;
const LUT_OR: u8 = 0xFC;
const LUT_XOR: u8 = 0x3C;
const LUT_NOT_A: u8 = 0x0F;
/// a & !b.
const LUT_AND_NOT: u8 = 0x30;
/// b where a is set, c elsewhere.
const LUT_SELECT: u8 = 0xCA;

/// The low and high words of 64-bit register `v`.
fn pair_lanes(v: VReg) -> (Lane, Lane) {
    (Lane::Reg(v, 0), Lane::Reg(v, 1))
}

fn signed(t: Type) -> bool {
    t.class == TyClass::Signed
}

impl<'a> FnLower<'a, '_> {
    pub(super) fn mov(&mut self, ins: &PtxInstruction<'a>) {
        use ptx_grammar::ast::Operand as O;
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported("`mov` without a type");
        };
        if ty.class == TyClass::Pred {
            let Some((d, _, _)) = self.dest(ins, 0) else {
                return;
            };
            let Some(src) = self.operand(ins, 1) else {
                return;
            };
            return self.pred_copy(d, src);
        }
        let vector = ins.modifiers().find_map(|m| match m {
            ".v2" => Some(2),
            ".v4" => Some(4),
            _ => None,
        });
        if let Some(count) = vector {
            return self.mov_vector(ins, ty, count);
        }
        match (&ins.operands[0], &ins.operands[1]) {
            // Packing: `mov.b64 %rd, {%r1, %r2}`, `mov.b32 %r, {%h1, %h2}`.
            (O::Expr(d), O::Vector(items, _)) => {
                let Some((d, part, _)) = self.dst(d) else {
                    return;
                };
                let mut lanes = Vec::new();
                for e in items {
                    let Some(s) = self.src(e) else { return };
                    let Some(l) = self.lane(s, false) else { return };
                    lanes.push(l);
                }
                if ty.bits == 32 && lanes.len() == 2 {
                    // Two 16-bit halves: bytes 1:0 of each.
                    let (a, b) = (self.r(lanes[0]), self.r(lanes[1]));
                    let rd = R::of(d, part);
                    self.emit(
                        Op::Prmti {
                            rd: rd.reg,
                            ra: a.reg,
                            rb: b.reg,
                            imm16: 0x5410,
                            pmodei: Pmode::Default,
                        },
                        &binary(rd, a, b),
                    );
                } else if ty.bits == 64 && lanes.len() == 2 {
                    self.mov_lane(d, part, lanes[0]);
                    self.mov_lane(d, part + 1, lanes[1]);
                } else {
                    self.unsupported("this packing `mov`");
                }
            }
            // Unpacking: `mov.b64 {%r1, %r2}, %rd`, `mov.b32 {%h1, %h2}, %r`.
            (O::Vector(items, _), O::Expr(s)) => {
                let Some(s) = self.src(s) else { return };
                for (i, e) in items.iter().enumerate() {
                    if matches!(e, Expr::Name(id) if id.text == "_") {
                        continue;
                    }
                    let Some((d, part, _)) = self.dst(e) else {
                        return;
                    };
                    if ty.bits == 64 && items.len() == 2 {
                        let Some(l) = self.lane(s, i == 1) else {
                            return;
                        };
                        self.mov_lane(d, part, l);
                    } else if ty.bits == 32 && items.len() == 2 {
                        let Some(l) = self.lane(s, false) else { return };
                        if i == 0 {
                            self.mov_lane(d, part, l);
                        } else {
                            let a = self.r(l);
                            self.shift(d, part, a, Lane::Imm(16), false, true);
                        }
                    } else {
                        return self.unsupported("this unpacking `mov`");
                    }
                }
            }
            (O::Expr(_), O::Expr(_)) => {
                let Some((d, part, _)) = self.dest(ins, 0) else {
                    return;
                };
                let Some(s) = self.operand(ins, 1) else {
                    return;
                };
                if let Src::Special(sr) = s {
                    return self.emit_s2r_into(d, part, sr);
                }
                for hi in 0..(u8::from(ty.bits == 64) + 1) {
                    let Some(l) = self.lane(s, hi == 1) else {
                        return;
                    };
                    self.mov_lane(d, part + hi, l);
                }
            }
            _ => self.unsupported("this form of `mov`"),
        }
    }

    /// `mov.v2`/`mov.v4` between vector registers and lists of scalars, element by element,
    /// as a parallel copy: `mov.v2.u32 {%a, %b}, {%b, %a}` swaps, so when a destination is
    /// also a source every element is read before any is written.
    fn mov_vector(&mut self, ins: &PtxInstruction<'a>, ty: Type, count: usize) {
        use ptx_grammar::ast::Operand as O;
        let words = u8::from(ty.bits == 64) + 1;
        // Each element's registers: (register, part) of its first word.
        let mut dests = Vec::with_capacity(count);
        let mut sources = Vec::with_capacity(count);
        for (operand, out, is_dest) in [(0, &mut dests, true), (1, &mut sources, false)] {
            match &ins.operands[operand] {
                O::Vector(items, _) if items.len() == count => {
                    for e in items {
                        let element = if is_dest {
                            self.dst(e).map(|(v, part, _)| Src::Reg {
                                v,
                                ty,
                                part,
                                sel: None,
                            })
                        } else {
                            self.src(e)
                        };
                        let Some(element) = element else { return };
                        out.push(element);
                    }
                }
                O::Expr(e) => {
                    let Some(Src::Reg { v, part, .. }) = self.src(e) else {
                        return self.unsupported("this form of `mov`");
                    };
                    out.extend((0..count as u8).map(|i| Src::Reg {
                        v,
                        ty,
                        part: part + i * words,
                        sel: None,
                    }));
                }
                _ => return self.unsupported("this form of `mov`"),
            }
        }
        let mut lanes = Vec::with_capacity(count * usize::from(words));
        for s in &sources {
            for hi in 0..words {
                let Some(l) = self.lane(*s, hi == 1) else {
                    return;
                };
                lanes.push(l);
            }
        }
        let written = |v: VReg| {
            dests
                .iter()
                .any(|d| matches!(d, Src::Reg { v: w, .. } if *w == v))
        };
        if lanes
            .iter()
            .any(|l| matches!(l, Lane::Reg(v, _) if written(*v)))
        {
            for l in lanes.iter_mut() {
                let t = self.new32();
                self.mov_lane(t, 0, *l);
                *l = Lane::Reg(t, 0);
            }
        }
        for (d, chunk) in dests.iter().zip(lanes.chunks(usize::from(words))) {
            let Src::Reg { v, part, .. } = *d else {
                continue;
            };
            for (hi, l) in chunk.iter().enumerate() {
                self.mov_lane(v, part + hi as u8, *l);
            }
        }
    }

    fn emit_s2r_into(&mut self, d: VReg, part: u8, sr: sgpu_isa::Sreg) {
        let rd = R::of(d, part);
        let width = if sr == sgpu_isa::Sreg::Clock64 { 2 } else { 1 };
        self.emit(
            Op::S2r {
                rd: rd.reg,
                sreg: sr,
            },
            &[wide(def(fields::RD, rd), width)],
        );
    }

    /// `mov.pred d, src`: a copy through PLOP, or a constant.
    fn pred_copy(&mut self, d: VReg, src: Src<'a>) {
        let (pa, bop) = match src {
            Src::Pred(v, neg) => (Some((v, neg)), Bop::And),
            Src::Imm(0) => (None, Bop::Xor),
            Src::Imm(_) => (None, Bop::And),
            _ => return self.unsupported("this predicate source"),
        };
        self.plop(d, pa, None, bop);
    }

    /// `d = a bop c` over predicates; `None` is PT.
    pub(super) fn plop(
        &mut self,
        d: VReg,
        a: Option<(VReg, bool)>,
        c: Option<(VReg, bool)>,
        bop: Bop,
    ) {
        let src = |p: Option<(VReg, bool)>| PredSrc {
            pred: if p.is_some() { Pred(0) } else { Pred::PT },
            negated: p.is_some_and(|(_, n)| n),
        };
        let at = self.emit(
            Op::Plop {
                pd: Pred(0),
                pa: src(a),
                pc: src(c),
                bop,
            },
            &[],
        );
        self.bind_pred(at, fields::PD, d, true);
        if let Some((v, _)) = a {
            self.bind_pred(at, fields::PA, v, false);
        }
        if let Some((v, _)) = c {
            self.bind_pred(at, fields::PC, v, false);
        }
    }

    /// Integer and float arithmetic.
    pub(super) fn arith(&mut self, ins: &PtxInstruction<'a>) {
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        if ty.class == TyClass::Float {
            return self.float(ins);
        }
        let op = ins.opcode();
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(srcs) = self.all_sources(ins) else {
            return;
        };
        if ty.bits == 64 {
            return self.arith64(ins, op, d, dp, &srcs);
        }
        let sgn = signed(ty);
        let narrow = ty.bits < 32;
        let lanes: Vec<Lane> = match srcs.iter().map(|s| self.lane(*s, false)).collect() {
            Some(l) => l,
            None => return,
        };
        // Operands of operations that read more than the low bits get extended.
        let ext = |me: &mut Self, l: Lane| if narrow { me.extend(l, ty) } else { l };
        match (op, lanes.as_slice()) {
            ("add" | "sub", [a, b]) => {
                let sat = self.has(".sat");
                let (cc, x) = (self.has(".cc"), false);
                self.iadd(d, dp, *a, *b, op == "sub", cc, x, sat);
            }
            ("addc" | "subc", [a, b]) => {
                self.iadd(d, dp, *a, *b, op == "subc", self.has(".cc"), true, false);
            }
            ("mul", [a, b]) if self.has(".wide") => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                if ty.bits == 16 {
                    // 16 x 16 -> 32 bits: the low word of the extended product.
                    return self.imul(d, dp, a, b, false, sgn);
                }
                self.imul(d, dp, a, b, false, sgn);
                self.imul(d, dp + 1, a, b, true, sgn);
            }
            ("mul", [a, b]) if self.has(".hi") => {
                if narrow {
                    let (a, b) = (ext(self, *a), ext(self, *b));
                    let t = self.new32();
                    self.imul(t, 0, a, b, false, sgn);
                    self.shift(d, dp, R::of(t, 0), Lane::Imm(u32::from(ty.bits)), sgn, true);
                } else {
                    self.imul(d, dp, *a, *b, true, sgn);
                }
            }
            ("mul", [a, b]) => self.imul(d, dp, *a, *b, false, sgn),
            ("mul24", [a, b]) => {
                let (a, b) = (self.low24(*a, sgn), self.low24(*b, sgn));
                if self.has(".hi") {
                    // Bits 47:16 of the 48-bit product.
                    let (lo, hi) = (self.new32(), self.new32());
                    self.imul(lo, 0, a, b, false, sgn);
                    self.imul(hi, 0, a, b, true, sgn);
                    self.funnel(
                        d,
                        dp,
                        Lane::Reg(lo, 0),
                        Lane::Reg(hi, 0),
                        Lane::Imm(16),
                        true,
                        false,
                    );
                } else {
                    self.imul(d, dp, a, b, false, sgn);
                }
            }
            ("mad", [a, b, c]) if self.has(".wide") => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                let Some(clo) = self.lane(srcs[2], false) else {
                    return;
                };
                let Some(chi) = self.lane(srcs[2], true) else {
                    return;
                };
                self.imad(d, dp, a, b, clo, false, sgn, true, false);
                self.imad(d, dp + 1, a, b, chi, true, sgn, false, true);
            }
            ("mad", [a, b, c]) if self.has(".hi") && !narrow => {
                self.imad(d, dp, *a, *b, *c, true, sgn, self.has(".cc"), false)
            }
            ("mad", [a, b, c]) if !self.has(".hi") => {
                self.imad(d, dp, *a, *b, *c, false, sgn, self.has(".cc"), false)
            }
            ("madc", [a, b, c]) => self.imad(
                d,
                dp,
                *a,
                *b,
                *c,
                self.has(".hi"),
                sgn,
                self.has(".cc"),
                true,
            ),
            ("mad24", [a, b, c]) if !self.has(".hi") => {
                let (a, b) = (self.low24(*a, sgn), self.low24(*b, sgn));
                self.imad(d, dp, a, b, *c, false, sgn, false, false);
            }
            ("div" | "rem", [a, b]) => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                self.idiv(d, dp, a, b, sgn, op == "rem", false);
            }
            ("min" | "max", [a, b]) => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                let (ra, rb) = (self.r(a), self.ri(b));
                let rd = R::of(d, dp);
                self.emit(
                    Op::Imnmx {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.val,
                        max: op == "max",
                        sgn,
                    },
                    &binary_ri(rd, ra, rb),
                );
            }
            ("abs", [a]) => {
                let a = ext(self, *a);
                let ra = self.r(a);
                let rd = R::of(d, dp);
                self.emit(
                    Op::Iabs {
                        rd: rd.reg,
                        ra: ra.reg,
                    },
                    &unary(rd, ra),
                );
            }
            ("neg", [a]) => self.sub(d, dp, Lane::Imm(0), *a),
            ("sad", [a, b, c]) => {
                // |a - b| + c, with a and b compared at their width.
                let (a, b) = (ext(self, *a), ext(self, *b));
                let (hi, lo) = (self.new32(), self.new32());
                self.minmax(hi, a, b, true, sgn);
                self.minmax(lo, a, b, false, sgn);
                let t = self.new32();
                self.sub(t, 0, Lane::Reg(hi, 0), Lane::Reg(lo, 0));
                self.add(d, dp, Lane::Reg(t, 0), *c);
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    fn minmax(&mut self, d: VReg, a: Lane, b: Lane, max: bool, sgn: bool) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, 0);
        self.emit(
            Op::Imnmx {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                max,
                sgn,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    /// The low 24 bits of a lane, extended, as `mul24` reads its operands.
    fn low24(&mut self, l: Lane, sgn: bool) -> Lane {
        let t = self.new32();
        self.bfe(t, 0, l, Lane::Imm(0), Lane::Imm(24), sgn);
        Lane::Reg(t, 0)
    }

    /// Extends a 8- or 16-bit value to 32 bits, by its type's signedness.
    pub(super) fn extend(&mut self, l: Lane, ty: Type) -> Lane {
        if let Lane::Imm(i) = l {
            let bits = u32::from(ty.bits);
            let v = if signed(ty) {
                ((i << (32 - bits)) as i32 >> (32 - bits)) as u32
            } else {
                i & ((1u32 << bits) - 1)
            };
            return Lane::Imm(v);
        }
        let from = match (ty.bits, signed(ty)) {
            (8, false) => Ity::U8,
            (8, true) => Ity::S8,
            (16, false) => Ity::U16,
            _ => Ity::S16,
        };
        let to = if signed(ty) { Ity::S32 } else { Ity::U32 };
        let t = self.new32();
        self.i2i(t, 0, l, to, from, false);
        Lane::Reg(t, 0)
    }

    pub(super) fn i2i(&mut self, d: VReg, dp: u8, a: Lane, ito: Ity, ifrom: Ity, sat: bool) {
        let ra = self.r(a);
        let rd = R::of(d, dp);
        self.emit(
            Op::I2i {
                rd: rd.reg,
                ra: ra.reg,
                ito,
                ifrom,
                sat,
            },
            &unary(rd, ra),
        );
    }

    /// `d = a + b` in 32 bits, no flags.
    pub(super) fn add(&mut self, d: VReg, dp: u8, a: Lane, b: Lane) {
        self.iadd(d, dp, a, b, false, false, false, false);
    }

    /// `d = a - b` in 32 bits, no flags.
    fn sub(&mut self, d: VReg, dp: u8, a: Lane, b: Lane) {
        self.iadd(d, dp, a, b, true, false, false, false);
    }

    /// `d = a + b` (`a - b` with `sub`) on 64-bit values as (low, high) words: the low words
    /// set the carry, the high words take it.
    pub(super) fn add64(&mut self, d: VReg, dp: u8, a: (Lane, Lane), b: (Lane, Lane), sub: bool) {
        self.iadd(d, dp, a.0, b.0, sub, true, false, false);
        self.iadd(d, dp + 1, a.1, b.1, sub, false, true, false);
    }

    /// `base + k` in a new register: a pair when `wide` (`base` is its low and high words).
    pub(super) fn add_constant(&mut self, base: (Lane, Lane), wide: bool, k: u64) -> VReg {
        let (lo, hi) = (Lane::Imm(k as u32), Lane::Imm((k >> 32) as u32));
        if wide {
            let t = self.new64();
            self.add64(t, 0, base, (lo, hi), false);
            t
        } else {
            let t = self.new32();
            self.add(t, 0, base.0, lo);
            t
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn iadd(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        nb: bool,
        cc: bool,
        x: bool,
        sat: bool,
    ) {
        // A 32-bit immediate that no flag needs: IADD32I (negated here for `sub`).
        if let (Lane::Imm(i), false, false, false) = (b, cc, x, sat) {
            if i >= 256 {
                let ra = self.r(a);
                let rd = R::of(d, dp);
                let imm32 = if nb { i.wrapping_neg() } else { i };
                self.emit(
                    Op::Iadd32i {
                        rd: rd.reg,
                        ra: ra.reg,
                        imm32,
                    },
                    &unary(rd, ra),
                );
                return;
            }
        }
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, dp);
        self.emit(
            Op::Iadd {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                nb,
                cc,
                x,
                sat,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    pub(super) fn imul(&mut self, d: VReg, dp: u8, a: Lane, b: Lane, hi: bool, sgn: bool) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, dp);
        self.emit(
            Op::Imul {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                hi,
                sgn,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn imad(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        c: Lane,
        hi: bool,
        sgn: bool,
        cc: bool,
        x: bool,
    ) {
        let (ra, rb, rc) = (self.r(a), self.ri(b), self.ri(c));
        let rd = R::of(d, dp);
        self.emit(
            Op::Imad {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                rc: rc.val,
                hi,
                sgn,
                cc,
                x,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn idiv(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        sgn: bool,
        rem: bool,
        w64: bool,
    ) {
        let (ra, rb) = (self.r(a), self.r(b));
        let rd = R::of(d, dp);
        let w = if w64 { 2 } else { 1 };
        self.emit(
            Op::Idiv {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.reg,
                sgn,
                rem,
                w64,
            },
            &[
                wide(def(fields::RD, rd), w),
                wide(use_(fields::RA, ra), w),
                wide(use_(fields::RB, rb), w),
            ],
        );
    }

    /// 64-bit arithmetic on register pairs.
    fn arith64(&mut self, ins: &PtxInstruction<'a>, op: &str, d: VReg, dp: u8, srcs: &[Src<'a>]) {
        let sgn = self.tys.last().is_some_and(|t| signed(*t));
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        for s in srcs {
            let (Some(l), Some(h)) = (self.lane(*s, false), self.lane(*s, true)) else {
                return;
            };
            lo.push(l);
            hi.push(h);
        }
        match (op, lo.as_slice(), hi.as_slice()) {
            ("add" | "sub", [al, bl], [ah, bh]) => {
                self.add64(d, dp, (*al, *ah), (*bl, *bh), op == "sub");
            }
            ("neg", [al], [ah]) => {
                let zero = (Lane::Imm(0), Lane::Imm(0));
                self.add64(d, dp, zero, (*al, *ah), true);
            }
            ("mul", [al, bl], [ah, bh]) if self.has(".hi") => {
                // The high 64 bits of the 128-bit product, a word at a time: the middle word's
                // carries flow into the third and fourth words. Signed: subtract b where a is
                // negative and a where b is negative (two's complement).
                let (al, ah, bl, bh) = (*al, *ah, *bl, *bh);
                let t = self.new64();
                let m = self.new32();
                let u = self.new32();
                let z = Lane::Imm(0);
                self.imul(m, 0, al, bl, true, false);
                self.imad(m, 0, al, bh, Lane::Reg(m, 0), false, false, true, false);
                self.imad(t, 0, al, bh, z, true, false, false, true);
                self.imad(m, 0, ah, bl, Lane::Reg(m, 0), false, false, true, false);
                self.imad(u, 0, ah, bl, z, true, false, false, true);
                self.iadd(
                    t,
                    0,
                    Lane::Reg(t, 0),
                    Lane::Reg(u, 0),
                    false,
                    true,
                    false,
                    false,
                );
                self.imad(t, 1, ah, bh, z, true, false, false, true);
                self.imad(t, 0, ah, bh, Lane::Reg(t, 0), false, false, true, false);
                self.iadd(t, 1, Lane::Reg(t, 1), z, false, false, true, false);
                if sgn {
                    for (neg, (xl, xh)) in [(ah, (bl, bh)), (bh, (al, ah))] {
                        let p = self.is(Icmp::Lt, true, neg, z);
                        let s = self.new64();
                        self.sel(s, 0, xl, z, (p, false));
                        self.sel(s, 1, xh, z, (p, false));
                        self.add64(t, 0, pair_lanes(t), pair_lanes(s), true);
                    }
                }
                self.mov_lane(d, dp, Lane::Reg(t, 0));
                self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
            }
            ("mul", [al, bl], [ah, bh]) if !self.has(".hi") => {
                // lo(a*b) = lo(al*bl); hi = hi(al*bl) + al*bh + ah*bl, into a temporary
                // pair so that d may be a or b.
                let t = self.new64();
                self.imul(t, 1, *al, *bl, true, false);
                self.imad(t, 1, *al, *bh, Lane::Reg(t, 1), false, false, false, false);
                self.imad(t, 1, *ah, *bl, Lane::Reg(t, 1), false, false, false, false);
                self.imul(t, 0, *al, *bl, false, false);
                self.mov_lane(d, dp, Lane::Reg(t, 0));
                self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
            }
            ("mad", [al, bl, cl], [ah, bh, ch]) if self.has(".lo") => {
                let t = self.new64();
                self.imul(t, 1, *al, *bl, true, false);
                self.imad(t, 1, *al, *bh, Lane::Reg(t, 1), false, false, false, false);
                self.imad(t, 1, *ah, *bl, Lane::Reg(t, 1), false, false, false, false);
                self.imul(t, 0, *al, *bl, false, false);
                self.add64(d, dp, pair_lanes(t), (*cl, *ch), false);
            }
            ("div" | "rem", [..], [..]) => {
                let (a, b) = (srcs[0], srcs[1]);
                let (Some(a), Some(b)) = (self.pair(a), self.pair(b)) else {
                    return;
                };
                self.idiv(d, dp, a, b, sgn, op == "rem", true);
            }
            ("min" | "max", [al, bl], [ah, bh]) => {
                // p = a < b (64-bit), then a select per word.
                let p = self.vregs.new_reg(Class::Pred);
                let cmp = if op == "min" { Icmp::Lt } else { Icmp::Gt };
                self.icmp64(p, cmp, sgn, (*al, *ah), (*bl, *bh), None, Bop::And);
                self.sel(d, dp, *al, *bl, (p, false));
                self.sel(d, dp + 1, *ah, *bh, (p, false));
            }
            ("sad", [al, bl, cl], [ah, bh, ch]) => {
                // |a - b| + c: the larger less the smaller, compared at 64 bits, plus c.
                let p = self.vregs.new_reg(Class::Pred);
                self.icmp64(p, Icmp::Gt, sgn, (*al, *ah), (*bl, *bh), None, Bop::And);
                let (larger, smaller, t) = (self.new64(), self.new64(), self.new64());
                for (w, a, b) in [(0, *al, *bl), (1, *ah, *bh)] {
                    self.sel(larger, w, a, b, (p, false));
                    self.sel(smaller, w, b, a, (p, false));
                }
                self.add64(t, 0, pair_lanes(larger), pair_lanes(smaller), true);
                self.add64(d, dp, pair_lanes(t), (*cl, *ch), false);
            }
            ("abs", [al], [ah]) => {
                let p = self.is(Icmp::Lt, true, *ah, Lane::Imm(0));
                let n = self.new64();
                self.add64(n, 0, (Lane::Imm(0), Lane::Imm(0)), (*al, *ah), true);
                self.sel(d, dp, Lane::Reg(n, 0), *al, (p, false));
                self.sel(d, dp + 1, Lane::Reg(n, 1), *ah, (p, false));
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    /// A 64-bit source as a register pair (an immediate is built in one).
    fn pair(&mut self, s: Src<'a>) -> Option<Lane> {
        if let Src::Reg { v, part, .. } = s {
            return Some(Lane::Reg(v, part));
        }
        let t = self.new64();
        let lo = self.lane(s, false)?;
        let hi = self.lane(s, true)?;
        self.mov_lane(t, 0, lo);
        self.mov_lane(t, 1, hi);
        Some(Lane::Reg(t, 0))
    }

    pub(super) fn sel(&mut self, d: VReg, dp: u8, a: Lane, b: Lane, p: (VReg, bool)) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, dp);
        self.push(
            Op::Sel {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                pc: PredSrc {
                    pred: Pred(0),
                    negated: p.1,
                },
            },
            &binary_ri(rd, ra, rb),
            Some((p.0, fields::PC)),
        );
    }

    /// A new predicate, set where `a cmp b` (32-bit lanes, signed if `sgn`).
    fn is(&mut self, cmp: Icmp, sgn: bool, a: Lane, b: Lane) -> VReg {
        let p = self.vregs.new_reg(Class::Pred);
        self.icmp32(p, None, cmp, sgn, a, b, None, Bop::And, false);
        p
    }

    /// `pd = (a cmp b) bop c`, and `pq` its complement combined likewise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn icmp32(
        &mut self,
        pd: VReg,
        pq: Option<VReg>,
        cmp: Icmp,
        sgn: bool,
        a: Lane,
        b: Lane,
        c: Option<(VReg, bool)>,
        bop: Bop,
        x: bool,
    ) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let at = self.emit(
            Op::Isetp {
                pd: Pred(0),
                pq: placeholder(pq.is_some()),
                ra: ra.reg,
                rb: rb.val,
                pc: pred_source(c),
                icmp: cmp,
                sgn,
                x,
                bop,
            },
            &[use_(fields::RA, ra), use_ri(fields::RB, rb)],
        );
        self.bind_compare(at, pd, pq, c);
    }

    /// A 64-bit comparison: the low words unsigned, then the high words with `.X`, which
    /// takes the low words' result as its predicate source.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn icmp64(
        &mut self,
        pd: VReg,
        cmp: Icmp,
        sgn: bool,
        a: (Lane, Lane),
        b: (Lane, Lane),
        c: Option<(VReg, bool)>,
        bop: Bop,
    ) {
        let low = self.is(cmp, false, a.0, b.0);
        let whole = if c.is_some() {
            self.vregs.new_reg(Class::Pred)
        } else {
            pd
        };
        self.icmp32(
            whole,
            None,
            cmp,
            sgn,
            a.1,
            b.1,
            Some((low, false)),
            Bop::And,
            true,
        );
        if let Some(c) = c {
            self.plop(pd, Some((whole, false)), Some(c), bop);
        }
    }

    /// `shl`, `shr` and the other bit operations.
    pub(super) fn bits(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        if ty.class == TyClass::Pred {
            return self.pred_logic(ins, op);
        }
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(srcs) = self.all_sources(ins) else {
            return;
        };
        let words = if ty.bits == 64 { 2 } else { 1 };
        match (op, srcs.as_slice()) {
            ("and" | "or" | "xor", [a, b]) => {
                let lut = match op {
                    "and" => LUT_AND,
                    "or" => LUT_OR,
                    _ => LUT_XOR,
                };
                for w in 0..words {
                    let (Some(a), Some(b)) = (self.lane(*a, w == 1), self.lane(*b, w == 1)) else {
                        return;
                    };
                    self.logic(d, dp + w, a, b, lut);
                }
            }
            ("not", [a]) => {
                for w in 0..words {
                    let Some(a) = self.lane(*a, w == 1) else {
                        return;
                    };
                    self.logic(d, dp + w, a, Lane::Imm(0), LUT_NOT_A);
                }
            }
            ("cnot", [a]) => {
                let Some(a) = self.lane(*a, false) else {
                    return;
                };
                let a = if ty.bits < 32 { self.extend(a, ty) } else { a };
                let p = self.is(Icmp::Eq, false, a, Lane::Imm(0));
                self.sel(d, dp, Lane::Imm(1), Lane::Imm(0), (p, false));
            }
            ("shl" | "shr", [a, n]) => {
                let Some(n) = self.lane(*n, false) else {
                    return;
                };
                let right = op == "shr";
                let sgn = signed(ty);
                if ty.bits == 64 {
                    let (Some(lo), Some(hi)) = (self.lane(*a, false), self.lane(*a, true)) else {
                        return;
                    };
                    let t = self.new64();
                    self.funnel(t, 0, lo, hi, n, right, sgn);
                    self.funnel_hi(t, 1, lo, hi, n, right, sgn);
                    self.mov_lane(d, dp, Lane::Reg(t, 0));
                    self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
                } else {
                    let Some(a) = self.lane(*a, false) else {
                        return;
                    };
                    let a = if right && ty.bits < 32 {
                        self.extend(a, ty)
                    } else {
                        a
                    };
                    let a = self.r(a);
                    self.shift(d, dp, a, n, sgn, right);
                }
            }
            ("clz", [a]) if ty.bits == 64 => {
                // The high word's count, or 32 plus the low word's where the high word is 0.
                let (Some(lo), Some(hi)) = (self.lane(*a, false), self.lane(*a, true)) else {
                    return;
                };
                let (clo, chi) = (self.new32(), self.new32());
                for (count, word) in [(clo, lo), (chi, hi)] {
                    let (rc, rw) = (R::of(count, 0), self.r(word));
                    self.emit(
                        Op::Clz {
                            rd: rc.reg,
                            ra: rw.reg,
                        },
                        &unary(rc, rw),
                    );
                }
                let low = self.new32();
                self.add(low, 0, Lane::Reg(clo, 0), Lane::Imm(32));
                let zero = self.is(Icmp::Eq, false, hi, Lane::Imm(0));
                self.sel(d, dp, Lane::Reg(low, 0), Lane::Reg(chi, 0), (zero, false));
            }
            ("popc" | "clz" | "brev", [a]) => {
                for w in 0..words {
                    let Some(l) = self.lane(*a, w == 1) else {
                        return;
                    };
                    let ra = self.r(l);
                    let rd = R::of(d, if ty.bits == 64 { dp } else { dp + w });
                    let bound = [def(fields::RD, rd), use_(fields::RA, ra)];
                    let _ = match op {
                        "popc" if ty.bits == 64 => {
                            // popc of each word, summed.
                            let t = self.new32();
                            let rt = R::of(t, 0);
                            self.emit(
                                Op::Popc {
                                    rd: rt.reg,
                                    ra: ra.reg,
                                },
                                &unary(rt, ra),
                            );
                            if w == 0 {
                                self.mov_lane(d, dp, Lane::Reg(t, 0));
                            } else {
                                self.add(d, dp, Lane::Reg(d, dp), Lane::Reg(t, 0));
                            }
                            0
                        }
                        "popc" => self.emit(
                            Op::Popc {
                                rd: rd.reg,
                                ra: ra.reg,
                            },
                            &bound,
                        ),
                        "clz" => self.emit(
                            Op::Clz {
                                rd: rd.reg,
                                ra: ra.reg,
                            },
                            &bound,
                        ),
                        _ if ty.bits == 64 => {
                            // The reversed low word is the high word of the result.
                            let rd = R::of(d, dp + 1 - w);
                            self.emit(
                                Op::Brev {
                                    rd: rd.reg,
                                    ra: ra.reg,
                                },
                                &unary(rd, ra),
                            )
                        }
                        _ => self.emit(
                            Op::Brev {
                                rd: rd.reg,
                                ra: ra.reg,
                            },
                            &bound,
                        ),
                    };
                }
            }
            ("bfe", [a, pos, len]) if ty.bits == 32 => {
                let Some([a, p, l]) = self.lanes([*a, *pos, *len]) else {
                    return;
                };
                self.bfe(d, dp, a, p, l, signed(ty));
            }
            ("bfi", [a, b, pos, len]) if ty.bits == 64 => {
                let halves =
                    |me: &mut Self, s: &Src<'a>| Some((me.lane(*s, false)?, me.lane(*s, true)?));
                let (Some(a), Some(b)) = (halves(self, a), halves(self, b)) else {
                    return;
                };
                let Some([pos, len]) = self.lanes([*pos, *len]) else {
                    return;
                };
                self.bfi64(d, dp, a, b, pos, len);
            }
            ("bfi", [a, b, pos, len]) if ty.bits == 32 => {
                let (Some(a), Some(b), Some(p), Some(l)) = (
                    self.lane(*a, false),
                    self.lane(*b, false),
                    self.lane(*pos, false),
                    self.lane(*len, false),
                ) else {
                    return;
                };
                // BFI takes position and length packed: pos[7:0] | len[7:0] << 8.
                let packed = match (p, l) {
                    (Lane::Imm(p), Lane::Imm(l)) => Lane::Imm((p & 0xff) | (l & 0xff) << 8),
                    _ => {
                        let t = self.new32();
                        let (rp, rl) = (self.r(p), self.r(l));
                        let rt = R::of(t, 0);
                        self.emit(
                            Op::Prmti {
                                rd: rt.reg,
                                ra: rp.reg,
                                rb: rl.reg,
                                imm16: 0x0040,
                                pmodei: Pmode::Default,
                            },
                            &binary(rt, rp, rl),
                        );
                        Lane::Reg(t, 0)
                    }
                };
                let (ra, rb, rc) = (self.r(a), self.r(b), self.r(packed));
                let rd = R::of(d, dp);
                self.emit(
                    Op::Bfi {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.reg,
                        rc: rc.reg,
                    },
                    &ternary(rd, ra, rb, rc),
                );
            }
            ("bmsk", [a, b]) if ty.bits == 32 => {
                let Some([a, b]) = self.lanes([*a, *b]) else {
                    return;
                };
                self.bmsk(d, dp, a, b, self.has(".clamp"));
            }
            ("bfind", [a]) if ty.bits == 32 => {
                let Some(a) = self.lane(*a, false) else {
                    return;
                };
                let ra = self.r(a);
                let rd = R::of(d, dp);
                self.emit(
                    Op::Flo {
                        rd: rd.reg,
                        ra: ra.reg,
                        sgn: signed(ty),
                        shamt: self.has(".shiftamt"),
                    },
                    &unary(rd, ra),
                );
            }
            ("prmt", [a, b, c]) => {
                let mode = isa_modifier(ins, Pmode::from_name);
                let mode = mode.unwrap_or_default();
                let Some([a, b, c]) = self.lanes([*a, *b, *c]) else {
                    return;
                };
                let (ra, rb) = (self.r(a), self.r(b));
                let rd = R::of(d, dp);
                match c {
                    Lane::Imm(sel) => {
                        self.emit(
                            Op::Prmti {
                                rd: rd.reg,
                                ra: ra.reg,
                                rb: rb.reg,
                                imm16: sel as u16,
                                pmodei: mode,
                            },
                            &binary(rd, ra, rb),
                        );
                    }
                    reg => {
                        let rc = self.r(reg);
                        self.emit(
                            Op::Prmt {
                                rd: rd.reg,
                                ra: ra.reg,
                                rb: rb.reg,
                                rc: rc.reg,
                                pmode: mode,
                            },
                            &ternary(rd, ra, rb, rc),
                        );
                    }
                }
            }
            ("lop3", [a, b, c, lut]) => {
                let Src::Imm(lut) = lut else {
                    return self.unsupported("`lop3` with a register truth table");
                };
                let Some([a, b, c]) = self.lanes([*a, *b, *c]) else {
                    return;
                };
                let (ra, rb, rc) = (self.r(a), self.ri(b), self.ri(c));
                let rd = R::of(d, dp);
                self.emit(
                    Op::Lop3 {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.val,
                        rc: rc.val,
                        lut: *lut as u8,
                    },
                    &[
                        def(fields::RD, rd),
                        use_(fields::RA, ra),
                        use_ri(fields::RB, rb),
                        use_ri(fields::RC, rc),
                    ],
                );
            }
            ("shf", [a, b, n]) => {
                // PTX's funnel shift works within 32 bits: wrap takes n mod 32, clamp
                // limits n to 32.
                let Some([lo, hi, n]) = self.lanes([*a, *b, *n]) else {
                    return;
                };
                let n = match n {
                    Lane::Imm(k) if self.has(".wrap") => Lane::Imm(k & 31),
                    Lane::Imm(k) => Lane::Imm(k.min(32)),
                    reg if self.has(".wrap") => {
                        let t = self.new32();
                        self.logic(t, 0, reg, Lane::Imm(31), LUT_AND);
                        Lane::Reg(t, 0)
                    }
                    reg => {
                        let t = self.new32();
                        self.minmax(t, reg, Lane::Imm(32), false, false);
                        Lane::Reg(t, 0)
                    }
                };
                let right = self.has(".r");
                if right {
                    self.funnel(d, dp, lo, hi, n, true, false);
                } else {
                    self.funnel_hi(d, dp, lo, hi, n, false, false);
                }
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    /// `and.pred`, `or.pred`, `xor.pred`, `not.pred`.
    fn pred_logic(&mut self, ins: &PtxInstruction<'a>, op: &str) {
        let Some((d, _, _)) = self.dest(ins, 0) else {
            return;
        };
        let mut srcs = Vec::new();
        for i in 1..ins.operands.len() {
            match self.operand(ins, i) {
                Some(Src::Pred(v, n)) => srcs.push((v, n)),
                Some(_) => {
                    return self.unsupported("a non-predicate operand of a predicate operation")
                }
                None => return,
            }
        }
        match (op, srcs.as_slice()) {
            ("and", [a, b]) => self.plop(d, Some(*a), Some(*b), Bop::And),
            ("or", [a, b]) => self.plop(d, Some(*a), Some(*b), Bop::Or),
            ("xor", [a, b]) => self.plop(d, Some(*a), Some(*b), Bop::Xor),
            ("not" | "cnot", [(a, n)]) => self.plop(d, Some((*a, !n)), None, Bop::And),
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    pub(super) fn logic(&mut self, d: VReg, dp: u8, a: Lane, b: Lane, lut: u8) {
        let rd = R::of(d, dp);
        if let (Lane::Imm(i), true) = (b, lut != LUT_NOT_A) {
            if i >= 256 {
                let ra = self.r(a);
                let lop2 = match lut {
                    LUT_AND => Lop2::And,
                    LUT_OR => Lop2::Or,
                    _ => Lop2::Xor,
                };
                self.emit(
                    Op::Lop32i {
                        rd: rd.reg,
                        ra: ra.reg,
                        imm32: i,
                        lop2,
                    },
                    &unary(rd, ra),
                );
                return;
            }
        }
        let (ra, rb) = (self.r(a), self.ri(b));
        self.emit(
            Op::Lop3 {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                rc: RegOrImm::Reg(Reg::RZ),
                lut,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    /// `bmsk`: the mask of `width` bits from bit `position`, as `!0 << position` less
    /// `!0 << (position + width)`. SHL gives 0 for amounts of 32 or more, which is every
    /// overflow rule of the PTX pseudocode once position and width are reduced: `.wrap` takes
    /// their low five bits; `.clamp` caps each at 32 (a position past 31 leaves no bits, a
    /// width past 31 every bit from the position up). A width of 0 makes the two shifts equal.
    fn bmsk(&mut self, d: VReg, dp: u8, position: Lane, width: Lane, clamp: bool) {
        let (p, w, end) = (self.new32(), self.new32(), self.new32());
        if clamp {
            self.minmax(p, position, Lane::Imm(32), false, false);
            self.minmax(w, width, Lane::Imm(32), false, false);
        } else {
            self.logic(p, 0, position, Lane::Imm(31), LUT_AND);
            self.logic(w, 0, width, Lane::Imm(31), LUT_AND);
        }
        self.add(end, 0, Lane::Reg(p, 0), Lane::Reg(w, 0));
        let ones = self.r(Lane::Imm(u32::MAX));
        let (low, high) = (self.new32(), self.new32());
        self.shift(low, 0, ones, Lane::Reg(p, 0), false, false);
        self.shift(high, 0, ones, Lane::Reg(end, 0), false, false);
        self.logic(d, dp, Lane::Reg(low, 0), Lane::Reg(high, 0), LUT_AND_NOT);
    }

    /// `bfi.b64`: a's low `len` bits over b from bit `pos` (each the low 8 bits of its operand,
    /// what does not fit above bit 63 dropped), as `(a << pos)` where the mask
    /// `!0 << pos & !(!0 << (pos + len))` is set and b elsewhere. SHF gives 0 for amounts of 64
    /// or more, which is every edge: a position past 63 leaves b, a length of 0 too.
    fn bfi64(&mut self, d: VReg, dp: u8, a: (Lane, Lane), b: (Lane, Lane), pos: Lane, len: Lane) {
        let (p, l, end) = (self.new32(), self.new32(), self.new32());
        self.logic(p, 0, pos, Lane::Imm(0xff), LUT_AND);
        self.logic(l, 0, len, Lane::Imm(0xff), LUT_AND);
        self.add(end, 0, Lane::Reg(p, 0), Lane::Reg(l, 0));
        let ones = Lane::Imm(u32::MAX);
        let [low, high, inserted] = [self.new64(), self.new64(), self.new64()];
        for (t, (lo, hi), n) in [
            (low, (ones, ones), p),
            (high, (ones, ones), end),
            (inserted, a, p),
        ] {
            self.funnel(t, 0, lo, hi, Lane::Reg(n, 0), false, false);
            self.funnel_hi(t, 1, lo, hi, Lane::Reg(n, 0), false, false);
        }
        for (w, b) in [(0, b.0), (1, b.1)] {
            let mask = self.new32();
            let (lw, hw) = (Lane::Reg(low, w), Lane::Reg(high, w));
            self.logic(mask, 0, lw, hw, LUT_AND_NOT);
            let (rm, ri, rb) = (R::of(mask, 0), R::of(inserted, w), self.r(b));
            let rd = R::of(d, dp + w);
            self.emit(
                Op::Lop3 {
                    rd: rd.reg,
                    ra: rm.reg,
                    rb: RegOrImm::Reg(ri.reg),
                    rc: RegOrImm::Reg(rb.reg),
                    lut: LUT_SELECT,
                },
                &ternary(rd, rm, ri, rb),
            );
        }
    }

    /// `d = a << n` or `a >> n` (32 bits).
    pub(super) fn shift(&mut self, d: VReg, dp: u8, a: R, n: Lane, sgn: bool, right: bool) {
        let rn = self.ri(n);
        let rd = R::of(d, dp);
        let binds = [
            def(fields::RD, rd),
            use_(fields::RA, a),
            use_ri(fields::RB, rn),
        ];
        if right {
            self.emit(
                Op::Shr {
                    rd: rd.reg,
                    ra: a.reg,
                    rb: rn.val,
                    sgn,
                },
                &binds,
            );
        } else {
            self.emit(
                Op::Shl {
                    rd: rd.reg,
                    ra: a.reg,
                    rb: rn.val,
                },
                &binds,
            );
        }
    }

    /// The low word of the 64-bit `hi:lo` shifted by `n`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn funnel(
        &mut self,
        d: VReg,
        dp: u8,
        lo: Lane,
        hi: Lane,
        n: Lane,
        right: bool,
        sgn: bool,
    ) {
        self.shf(d, dp, lo, hi, n, right, sgn, false);
    }

    /// The high word of the 64-bit `hi:lo` shifted by `n`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn funnel_hi(
        &mut self,
        d: VReg,
        dp: u8,
        lo: Lane,
        hi: Lane,
        n: Lane,
        right: bool,
        sgn: bool,
    ) {
        self.shf(d, dp, lo, hi, n, right, sgn, true);
    }

    #[allow(clippy::too_many_arguments)]
    fn shf(
        &mut self,
        d: VReg,
        dp: u8,
        lo: Lane,
        hi: Lane,
        n: Lane,
        right: bool,
        sgn: bool,
        high: bool,
    ) {
        let (ra, rc) = (self.r(lo), self.r(hi));
        let rn = self.ri(n);
        let rd = R::of(d, dp);
        self.emit(
            Op::Shf {
                rd: rd.reg,
                ra: ra.reg,
                rb: rn.val,
                rc: rc.reg,
                shr: right,
                sgn,
                hi: high,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rn),
                use_(fields::RC, rc),
            ],
        );
    }

    pub(super) fn bfe(&mut self, d: VReg, dp: u8, a: Lane, pos: Lane, len: Lane, sgn: bool) {
        let ra = self.r(a);
        let (rb, rc) = (self.ri(pos), self.ri(len));
        let rd = R::of(d, dp);
        self.emit(
            Op::Bfe {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                rc: rc.val,
                sgn,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
        );
    }

    /// `setp`, `set`, `selp`, `slct`.
    pub(super) fn compare(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        let tys = self.tys;
        let Some(ty) = tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        match op {
            "selp" => {
                let Some((d, dp, _)) = self.dest(ins, 0) else {
                    return;
                };
                let Some([a, b, p]) = self.sources(ins, 1) else {
                    return;
                };
                if ty.class == TyClass::Pred {
                    return self.unsupported("`selp.pred`");
                }
                let words = u8::from(ty.bits == 64) + 1;
                let Src::Pred(p, neg) = p else {
                    // A constant condition picks one source.
                    let chosen = if matches!(p, Src::Imm(0)) { b } else { a };
                    for w in 0..words {
                        let Some(l) = self.lane(chosen, w == 1) else {
                            return;
                        };
                        self.mov_lane(d, dp + w, l);
                    }
                    return;
                };
                for w in 0..words {
                    let (Some(a), Some(b)) = (self.lane(a, w == 1), self.lane(b, w == 1)) else {
                        return;
                    };
                    self.sel(d, dp + w, a, b, (p, neg));
                }
            }
            "slct" => {
                // d = c >= 0 ? a : b, with c's type last.
                let Some((d, dp, _)) = self.dest(ins, 0) else {
                    return;
                };
                let Some([a, b, c]) = self.sources(ins, 1) else {
                    return;
                };
                let Some([a, b, c]) = self.lanes([a, b, c]) else {
                    return;
                };
                let p = if ty.class == TyClass::Float {
                    let p = self.vregs.new_reg(Class::Pred);
                    let ge = sgpu_isa::Fcmp::Ge;
                    let ftz = self.has(".ftz");
                    self.fcmp(p, None, ge, c, Lane::Imm(0), None, Bop::And, ftz);
                    p
                } else {
                    self.is(Icmp::Ge, true, c, Lane::Imm(0))
                };
                self.sel(d, dp, a, b, (p, false));
            }
            _ => self.setp(ins, op == "set", &tys),
        }
    }

    fn setp(&mut self, ins: &PtxInstruction<'a>, set: bool, tys: &[Type]) {
        use ptx_grammar::ast::Operand as O;
        let src_ty = *tys.last().expect("checked by the caller");
        let cmp_name = ins
            .modifiers()
            .nth(0)
            .map(|m| m.trim_start_matches('.'))
            .unwrap_or("");
        let bop = ins.modifiers().find_map(|m| match m {
            ".and" => Some(Bop::And),
            ".or" => Some(Bop::Or),
            ".xor" => Some(Bop::Xor),
            _ => None,
        });
        // Destinations: `p`, `p|q`; `set` writes a register.
        let (pd, pq) = match &ins.operands[0] {
            O::PredPair(pair) if !set => {
                let (Some(Src::Pred(p, _)), Some(Src::Pred(q, _))) =
                    (self.src(&pair[0]), self.src(&pair[1]))
                else {
                    return self.unsupported("these destinations");
                };
                (p, Some(q))
            }
            O::Expr(Expr::Name(id)) if !set => match self.pred_reg(id) {
                Some(p) => (p, None),
                None => return,
            },
            O::Expr(_) if set => (self.vregs.new_reg(Class::Pred), None),
            _ => return self.unsupported("this destination"),
        };
        let Some([a, b]) = self.sources(ins, 1) else {
            return;
        };
        let c = match (bop, self.operand(ins, 3)) {
            (Some(_), Some(Src::Pred(v, n))) => Some((v, n)),
            (Some(_), _) => return self.unsupported("a constant predicate operand"),
            (None, _) => None,
        };
        let bop = bop.unwrap_or(Bop::And);
        if src_ty.class == TyClass::Float {
            let Some(cmp) = sgpu_isa::Fcmp::from_name(&cmp_name.to_uppercase()) else {
                return self.unsupported(format!("the comparison `.{cmp_name}`"));
            };
            let (Some(a), Some(b)) = (self.lane(a, false), self.lane(b, false)) else {
                return;
            };
            self.fcmp(pd, pq, cmp, a, b, c, bop, self.has(".ftz"));
        } else {
            let (cmp, sgn) = match cmp_name {
                "eq" => (Icmp::Eq, false),
                "ne" => (Icmp::Ne, false),
                "lt" => (Icmp::Lt, true),
                "le" => (Icmp::Le, true),
                "gt" => (Icmp::Gt, true),
                "ge" => (Icmp::Ge, true),
                "lo" => (Icmp::Lt, false),
                "ls" => (Icmp::Le, false),
                "hi" => (Icmp::Gt, false),
                "hs" => (Icmp::Ge, false),
                other => return self.unsupported(format!("the comparison `.{other}`")),
            };
            let sgn = sgn && signed(src_ty);
            if src_ty.bits == 64 {
                if pq.is_some() {
                    return self.unsupported("a 64-bit comparison with two destinations");
                }
                let (Some(al), Some(ah), Some(bl), Some(bh)) = (
                    self.lane(a, false),
                    self.lane(a, true),
                    self.lane(b, false),
                    self.lane(b, true),
                ) else {
                    return;
                };
                self.icmp64(pd, cmp, sgn, (al, ah), (bl, bh), c, bop);
            } else {
                let (Some(mut a), Some(mut b)) = (self.lane(a, false), self.lane(b, false)) else {
                    return;
                };
                if src_ty.bits < 32 {
                    a = self.extend(a, src_ty);
                    b = self.extend(b, src_ty);
                }
                self.icmp32(pd, pq, cmp, sgn, a, b, c, bop, false);
            }
        }
        if set {
            // `set` writes all ones (integer) or 1.0 (f32) where the comparison holds.
            let Some((d, dp, _)) = self.dest(ins, 0) else {
                return;
            };
            let one = if tys[0].class == TyClass::Float {
                0x3f80_0000
            } else {
                u32::MAX
            };
            self.sel(d, dp, Lane::Imm(one), Lane::Imm(0), (pd, false));
        }
    }

    /// `cvt` between integer widths and float types, and `cvta`.
    pub(super) fn convert(&mut self, ins: &PtxInstruction<'a>) {
        let tys = self.tys;
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(a) = self.operand(ins, 1) else {
            return;
        };
        if ins.opcode() == "cvta" {
            return self.cvta(ins, d, dp, a);
        }
        let [to, from] = &tys[..] else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        if to.class == TyClass::Float || from.class == TyClass::Float {
            return self.cvt_float(ins, d, dp, a, *to, *from);
        }
        let sat = self.has(".sat");
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        match (to.bits, from.bits) {
            (64, 64) => {
                let Some(hi) = self.lane(a, true) else { return };
                self.mov_lane(d, dp, lo);
                self.mov_lane(d, dp + 1, hi);
            }
            (64, _) => {
                // Widen to 32 by the source's signedness, then extend the sign or zero.
                let lo = if from.bits < 32 {
                    self.extend(lo, *from)
                } else {
                    lo
                };
                self.mov_lane(d, dp, lo);
                if signed(*from) {
                    let r = self.r(lo);
                    self.shift(d, dp + 1, r, Lane::Imm(31), true, true);
                } else {
                    self.mov_lane(d, dp + 1, Lane::Imm(0));
                }
            }
            (_, 64) if sat => self.unsupported("`cvt.sat` from a 64-bit integer"),
            (32, 64) => self.mov_lane(d, dp, lo),
            (t, f) if t == f && !sat => self.mov_lane(d, dp, lo),
            _ => {
                let ity = |ty: &Type| match (ty.bits, signed(*ty)) {
                    (8, false) => Ity::U8,
                    (8, true) => Ity::S8,
                    (16, false) => Ity::U16,
                    (16, true) => Ity::S16,
                    (_, false) => Ity::U32,
                    (_, true) => Ity::S32,
                };
                let from_ty = if from.bits == 64 { Ity::U32 } else { ity(from) };
                self.i2i(d, dp, lo, ity(to), from_ty, sat);
            }
        }
    }

    /// `cvta` between a state space and generic addresses: generic addresses of shared and
    /// local memory are their window's base plus the offset.
    fn cvta(&mut self, ins: &PtxInstruction<'a>, d: VReg, dp: u8, a: Src<'a>) {
        let space = ins
            .modifiers()
            .find(|m| matches!(*m, ".shared" | ".local" | ".global" | ".const" | ".param"));
        let to_space = self.has(".to");
        let wide64 = self.tys.last().is_some_and(|t| t.bits == 64);
        let words = if wide64 { 2 } else { 1 };
        let window = match space {
            Some(".shared") => Some(sgpu_isa::Sreg::SharedWindow),
            Some(".local") => Some(sgpu_isa::Sreg::LocalWindow),
            Some(".const") => Some(sgpu_isa::Sreg::ConstWindow),
            Some(".global") => None,
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let Some(window) = window else {
            // Global addresses are generic addresses.
            for w in 0..words {
                let Some(l) = self.lane(a, w == 1) else {
                    return;
                };
                self.mov_lane(d, dp + w, l);
            }
            return;
        };
        let base = self.new32();
        self.emit_s2r(base, window);
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        // Windows lie below 4 GiB: the high word of a generic address is zero.
        self.iadd(d, dp, lo, Lane::Reg(base, 0), to_space, false, false, false);
        if wide64 {
            self.mov_lane(d, dp + 1, Lane::Imm(0));
        }
    }
}
