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
