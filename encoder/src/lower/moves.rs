//! Moves between registers, vectors, predicates and special registers, and selects.

use super::*;
use sgpu_isa::{Bop, Pmode};

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
        for (i, op) in ins.operands.iter().enumerate() {
            if let O::Expr(Expr::Name(id)) = op {
                if id.split_suffix().1.is_none() {
                    if let Some((v, element, n @ 2..)) = self.vreg(id.text) {
                        return self.mov_whole_vector(ins, i == 0, v, element, n);
                    }
                }
            }
        }
        match (&ins.operands[0], &ins.operands[1]) {
            // Packing: `mov.b64 %rd, {%r1, %r2}`, `mov.b32 %r, {%h1, %h2}`, `mov.b64 %rd,
            // {%h1, %h2, %h3, %h4}`: element i at bits i * (N / n) up.
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
                let bits = u32::from(ty.bits) / lanes.len() as u32;
                let per_word = (32 / bits) as usize;
                for (w, word) in lanes.chunks(per_word).enumerate() {
                    self.pack_word(d, part + w as u8, word, bits);
                }
            }
            // Unpacking: `mov.b64 {%r1, %r2}, %rd`, `mov.b32 {%h1, %h2}, %r`, `mov.b64 {%h1,
            // %h2, %h3, _}, %rd`. A small element lands in the low bits of its register; the
            // bits above it are left as they come (docs/ptx-dialect.md).
            (O::Vector(items, _), O::Expr(s)) => {
                let Some(s) = self.src(s) else { return };
                let bits = u32::from(ty.bits) / items.len() as u32;
                for (i, e) in items.iter().enumerate() {
                    if matches!(e, Expr::Name(id) if id.text == "_") {
                        continue;
                    }
                    let Some((d, part, _)) = self.dst(e) else {
                        return;
                    };
                    let at = i as u32 * bits;
                    let Some(word) = self.lane(s, at >= 32) else {
                        return;
                    };
                    if at.is_multiple_of(32) {
                        self.mov_lane(d, part, word);
                    } else {
                        let a = self.r(word);
                        self.shift(d, part, a, Lane::Imm(at % 32), false, true);
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

    /// A scalar `mov.bN` with a whole vector register of N bits on one side (`mov.b32 %r, %v`
    /// with `%v` a `.v2 .b16` or `.v4 .b8`): the scalar's words packed from the elements or
    /// unpacked into them.
    fn mov_whole_vector(
        &mut self,
        ins: &PtxInstruction<'a>,
        vector_is_dest: bool,
        v: VReg,
        element: Type,
        count: u8,
    ) {
        let bits = u32::from(element.bits);
        if !matches!(bits, 8 | 16 | 32) || bits * u32::from(count) > 64 {
            return self.unsupported("a `mov` of a vector wider than 64 bits as a whole");
        }
        let ptx_grammar::ast::Operand::Expr(scalar) = &ins.operands[usize::from(vector_is_dest)]
        else {
            return self.unsupported("this form of `mov`");
        };
        if vector_is_dest {
            let Some(s) = self.src(scalar) else { return };
            let (Some(lo), Some(hi)) = (self.lane(s, false), self.lane(s, true)) else {
                return;
            };
            self.unpack_vector(v, element, count, [lo, hi]);
        } else if let Some((d, part, _)) = self.dst(scalar) {
            self.pack_vector(d, part, v, element, count);
        }
    }

    /// Fills the elements of vector register `v` from a scalar's words, element 0 lowest,
    /// each small element extracted as its type extends it (as a load's elements are).
    pub(super) fn unpack_vector(&mut self, v: VReg, element: Type, count: u8, words: [Lane; 2]) {
        let bits = u32::from(element.bits);
        for i in 0..count {
            let at = u32::from(i) * bits;
            let word = words[(at / 32) as usize];
            if bits == 32 {
                self.mov_lane(v, i, word);
            } else {
                let (pos, len) = (Lane::Imm(at % 32), Lane::Imm(bits));
                self.bfe(v, i, word, pos, len, element.class == TyClass::Signed);
            }
        }
    }

    /// Packs the elements of vector register `v` into the words of `d` from part `part`,
    /// element 0 lowest.
    pub(super) fn pack_vector(&mut self, d: VReg, part: u8, v: VReg, element: Type, count: u8) {
        let bits = u32::from(element.bits);
        let elements: Vec<(VReg, u8)> = (0..count).map(|i| (v, i)).collect();
        for (w, word) in elements.chunks((32 / bits) as usize).enumerate() {
            self.pack(d, part + w as u8, word, bits);
        }
    }

    /// Packs `bits`-wide elements, each in the low bits of a register part, into part
    /// `part` of `d`, element 0 lowest: pairs of bytes, then pairs of halves, a `PRMT` each.
    fn pack(&mut self, d: VReg, part: u8, elements: &[(VReg, u8)], bits: u32) {
        if let [(v, p)] = elements {
            return self.mov_lane(d, part, Lane::Reg(*v, *p));
        }
        let mut level: Vec<R> = elements.iter().map(|&(v, p)| R::of(v, p)).collect();
        let mut width = bits;
        while level.len() > 1 {
            // Bytes 0 of a and b side by side, or bytes 1:0 of each.
            let selector = if width == 8 { 0x0040 } else { 0x5410 };
            let last = level.len() == 2;
            let mut next = Vec::with_capacity(level.len() / 2);
            for pair in level.chunks(2) {
                let t = if last {
                    R::of(d, part)
                } else {
                    R::of(self.new32(), 0)
                };
                self.prmt_imm(t, pair[0], pair[1], selector, Pmode::Default);
                next.push(t);
            }
            level = next;
            width *= 2;
        }
    }

    /// A 32-bit word of `elements` of `bits` each, the first lowest: the element itself for
    /// one 32-bit one, PRMT for two halves, else BFI after BFI into zero.
    pub(super) fn pack_word(&mut self, d: VReg, part: u8, elements: &[Lane], bits: u32) {
        match elements {
            [one] if bits == 32 => self.mov_lane(d, part, *one),
            [lo, hi] if bits == 16 => {
                let (a, b) = (self.r(*lo), self.r(*hi));
                self.prmt_imm(R::of(d, part), a, b, 0x5410, Pmode::Default);
            }
            _ => {
                self.mov_lane(d, part, Lane::Imm(0));
                for (i, l) in elements.iter().enumerate() {
                    let packed = self.r(Lane::Imm((i as u32 * bits) | bits << 8));
                    let (ra, rd) = (self.r(*l), R::of(d, part));
                    self.emit(
                        Op::Bfi {
                            rd: rd.reg,
                            ra: ra.reg,
                            rb: rd.reg,
                            rc: packed.reg,
                        },
                        &ternary(rd, ra, rd, packed),
                    );
                }
            }
        }
    }

    /// `mov.v2`/`mov.v4` between vector registers and lists of scalars, element by element,
    /// as a parallel copy: `mov.v2.u32 {%a, %b}, {%b, %a}` swaps, so when a destination is
    /// also a source every element is read before any is written.
    pub(super) fn mov_vector(&mut self, ins: &PtxInstruction<'a>, ty: Type, count: usize) {
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

    pub(super) fn emit_s2r_into(&mut self, d: VReg, part: u8, sr: sgpu_isa::Sreg) {
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
    pub(super) fn pred_copy(&mut self, d: VReg, src: Src<'a>) {
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
}
