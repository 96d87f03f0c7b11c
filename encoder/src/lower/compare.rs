//! Integer comparisons into predicates (`setp`, `set`) and the comparisons other lowerings
//! build on.

use super::int::*;
use super::*;
use sgpu_isa::{Bop, Icmp};

impl<'a> FnLower<'a, '_> {
    /// A new predicate, set where `a cmp b` (32-bit lanes, signed if `sgn`).
    pub(super) fn is(&mut self, cmp: Icmp, sgn: bool, a: Lane, b: Lane) -> VReg {
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
                // d = c >= 0 ? a : b, with c's type last and d's first.
                let Some((d, dp, _)) = self.dest(ins, 0) else {
                    return;
                };
                let Some([a, b, c]) = self.sources(ins, 1) else {
                    return;
                };
                let Some(c) = self.lane(c, false) else {
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
                for w in 0..u8::from(tys[0].bits == 64) + 1 {
                    let (Some(a), Some(b)) = (self.lane(a, w == 1), self.lane(b, w == 1)) else {
                        return;
                    };
                    self.sel(d, dp + w, a, b, (p, false));
                }
            }
            _ => self.setp(ins, op == "set", &tys),
        }
    }

    pub(super) fn setp(&mut self, ins: &PtxInstruction<'a>, set: bool, tys: &[Type]) {
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
            // `set` on a pair compares each half into its own predicate, as `setp`'s `p|q`.
            O::Expr(_) if set => {
                let pair = half::half_type(src_ty).is_some_and(|(_, pair)| pair);
                let q = pair.then(|| self.vregs.new_reg(Class::Pred));
                (self.vregs.new_reg(Class::Pred), q)
            }
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
        if src_ty.name == "f64" {
            self.double_compare((pd, pq), cmp_name, a, b, c, bop);
        } else if src_ty.class == TyClass::Float {
            let Some(cmp) = sgpu_isa::Fcmp::from_name(&cmp_name.to_uppercase()) else {
                return self.unsupported(format!("the comparison `.{cmp_name}`"));
            };
            let (Some(a), Some(b)) = (self.lane(a, false), self.lane(b, false)) else {
                return;
            };
            let ftz = self.has(".ftz");
            let Some((format, pair)) = half::half_type(src_ty) else {
                self.fcmp(pd, pq, cmp, a, b, c, bop, ftz);
                return self.set_result(ins, set, (pd, None), tys);
            };
            // A 16-bit value compares exactly as the f32 value it widens to (its subnormals
            // flushed first with `.ftz`: widened they are f32 normals); a pair as two, the
            // low halves setting `p` and the high ones `q` (each combined with `c`).
            let compare = |me: &mut Self, p: VReg, q: Option<VReg>, x: Lane, y: Lane| {
                let (x, y) = if ftz {
                    (me.flush_half(x, format), me.flush_half(y, format))
                } else {
                    (x, y)
                };
                let (x, y) = (me.widen_half(x, format), me.widen_half(y, format));
                me.fcmp(p, q, cmp, x, y, c, bop, false);
            };
            if !pair {
                compare(self, pd, pq, a, b);
                return self.set_result(ins, set, (pd, None), tys);
            }
            let Some(q) = pq else {
                let what = format!(
                    "`{}` with one destination (it needs `p|q`)",
                    ins.mnemonic.text
                );
                return self.unsupported(what);
            };
            let (ah, bh) = (self.high_half(a), self.high_half(b));
            compare(self, pd, None, a, b);
            compare(self, q, None, ah, bh);
            return self.set_result(ins, set, (pd, Some(q)), tys);
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
                let (Some(al), Some(ah), Some(bl), Some(bh)) = (
                    self.lane(a, false),
                    self.lane(a, true),
                    self.lane(b, false),
                    self.lane(b, true),
                ) else {
                    return;
                };
                let Some(q) = pq else {
                    self.icmp64(pd, cmp, sgn, (al, ah), (bl, bh), c, bop);
                    return self.set_result(ins, set, (pd, None), tys);
                };
                // `p|q`: the comparison and its complement, each combined with `c`.
                let whole = self.vregs.new_reg(Class::Pred);
                self.icmp64(whole, cmp, sgn, (al, ah), (bl, bh), None, Bop::And);
                self.plop(pd, Some((whole, false)), c, bop);
                self.plop(q, Some((whole, true)), c, bop);
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
        self.set_result(ins, set, (pd, None), tys);
    }

    /// `set`'s result (nothing for `setp`): all ones (an integer destination) or 1.0 (a float
    /// one) where the comparison `pd` holds; for a pair of halves compared into `pd` (low) and
    /// `q` (high), each half of the destination as its own (an integer's half all ones).
    fn set_result(
        &mut self,
        ins: &PtxInstruction<'a>,
        set: bool,
        (pd, q): (VReg, Option<VReg>),
        tys: &[Type],
    ) {
        if !set {
            return;
        }
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let to = tys[0];
        let one = match (half::half_type(to), to.class) {
            (Some((format, _)), _) => format.one,
            (None, TyClass::Float) => 0x3f80_0000,
            (None, _) if q.is_some() => 0xffff,
            (None, _) => u32::MAX,
        };
        let Some(q) = q else {
            return self.sel(d, dp, Lane::Imm(one), Lane::Imm(0), (pd, false));
        };
        let halves = [self.new32(), self.new32()];
        for (t, p) in halves.iter().zip([pd, q]) {
            self.sel(*t, 0, Lane::Imm(one), Lane::Imm(0), (p, false));
        }
        self.pack_word(d, dp, &halves.map(|t| Lane::Reg(t, 0)), 16);
    }
}
