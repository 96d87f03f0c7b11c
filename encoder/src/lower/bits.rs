//! Bit operations: logic, shifts and funnel shifts, bit fields, population count, leading
//! zeros, bit reverse, find-first, byte permute and bit masks.

use super::int::*;
use super::*;
use sgpu_isa::{Bop, Icmp, Lop2, Pmode};

impl<'a> FnLower<'a, '_> {
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
                let Some(lo) = self.lane(*a, false) else {
                    return;
                };
                // A 64-bit value is zero when both its words are: test their OR, and write
                // the high word too.
                let a = match ty.bits {
                    64 => {
                        let Some(hi) = self.lane(*a, true) else {
                            return;
                        };
                        let both = self.new32();
                        self.logic(both, 0, lo, hi, LUT_OR);
                        Lane::Reg(both, 0)
                    }
                    32 => lo,
                    _ => self.extend(lo, ty),
                };
                let p = self.is(Icmp::Eq, false, a, Lane::Imm(0));
                self.sel(d, dp, Lane::Imm(1), Lane::Imm(0), (p, false));
                if ty.bits == 64 {
                    self.mov_lane(d, dp + 1, Lane::Imm(0));
                }
            }
            ("shl" | "shr", [a, n]) => self.shl_shr(op == "shr", ty, d, dp, *a, *n),
            ("clz", [a]) if ty.bits == 64 => self.clz64(d, dp, *a),
            ("popc" | "clz" | "brev", [a]) => self.count_bits(op, ty, d, dp, *a),
            ("bfe", [a, pos, len]) if ty.bits == 32 => {
                let Some([a, p, l]) = self.lanes([*a, *pos, *len]) else {
                    return;
                };
                self.bfe(d, dp, a, p, l, signed(ty));
            }
            ("bfe", [a, pos, len]) if ty.bits == 64 => {
                let (Some(lo), Some(hi)) = (self.lane(*a, false), self.lane(*a, true)) else {
                    return;
                };
                let Some([pos, len]) = self.lanes([*pos, *len]) else {
                    return;
                };
                self.bfe64(d, dp, (lo, hi), pos, len, signed(ty));
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
            ("bfi", [a, b, pos, len]) if ty.bits == 32 => self.bfi32(d, dp, [*a, *b, *pos, *len]),
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
                self.flo(d, dp, a, signed(ty), self.has(".shiftamt"));
            }
            ("bfind", [a]) if ty.bits == 64 => {
                let (Some(lo), Some(hi)) = (self.lane(*a, false), self.lane(*a, true)) else {
                    return;
                };
                self.bfind64(d, dp, (lo, hi), signed(ty), self.has(".shiftamt"));
            }
            ("prmt", [a, b, c]) => self.prmt(ins, d, dp, [*a, *b, *c]),
            ("lop3", [a, b, c, lut]) => self.lop3(d, dp, [*a, *b, *c], *lut),
            ("shf", [a, b, n]) => self.shf_op(d, dp, [*a, *b, *n]),
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    /// `shl` and `shr`; 64-bit values as a funnel shift of the pair.
    pub(super) fn shl_shr(
        &mut self,
        right: bool,
        ty: Type,
        d: VReg,
        dp: u8,
        a: Src<'a>,
        n: Src<'a>,
    ) {
        let Some(n) = self.lane(n, false) else {
            return;
        };
        let sgn = signed(ty);
        if ty.bits == 64 {
            let (Some(lo), Some(hi)) = (self.lane(a, false), self.lane(a, true)) else {
                return;
            };
            let t = self.new64();
            self.funnel(t, 0, lo, hi, n, right, sgn);
            self.funnel_hi(t, 1, lo, hi, n, right, sgn);
            self.mov_lane(d, dp, Lane::Reg(t, 0));
            self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
        } else {
            let Some(a) = self.lane(a, false) else {
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

    /// `FLO`: the position of `a`'s most significant bit (of its most significant non-sign
    /// bit with `sgn`), or with `shamt` the left shift that brings it to the top; all ones
    /// when there is none.
    fn flo(&mut self, d: VReg, dp: u8, a: Lane, sgn: bool, shamt: bool) {
        let ra = self.r(a);
        let rd = R::of(d, dp);
        self.emit(
            Op::Flo {
                rd: rd.reg,
                ra: ra.reg,
                sgn,
                shamt,
            },
            &unary(rd, ra),
        );
    }

    /// `bfind` on 64 bits: a signed value's non-sign bits are the set bits of the value
    /// with its sign word XORed in; then the high word's position plus 32 where the high
    /// word has a bit, else the low word's (with `.shiftamt`, the high word's shift, else 32
    /// plus the low word's where it has a bit); all ones for no bit at all.
    fn bfind64(&mut self, d: VReg, dp: u8, (lo, hi): (Lane, Lane), sgn: bool, shamt: bool) {
        let (lo, hi) = if sgn {
            let sign = self.new32();
            let rh = self.r(hi);
            self.shift(sign, 0, rh, Lane::Imm(31), true, true);
            let (l, h) = (self.new32(), self.new32());
            self.logic(l, 0, lo, Lane::Reg(sign, 0), LUT_XOR);
            self.logic(h, 0, hi, Lane::Reg(sign, 0), LUT_XOR);
            (Lane::Reg(l, 0), Lane::Reg(h, 0))
        } else {
            (lo, hi)
        };
        let (fl, fh) = (self.new32(), self.new32());
        self.flo(fl, 0, lo, false, shamt);
        self.flo(fh, 0, hi, false, shamt);
        let plus = self.new32();
        let (from_low, from_high) = if shamt {
            // 32 plus the low word's shift, unless the low word is zero too (FLO's all ones).
            self.add(plus, 0, Lane::Reg(fl, 0), Lane::Imm(32));
            let none = self.is(Icmp::Eq, false, lo, Lane::Imm(0));
            let t = self.new32();
            self.sel(t, 0, Lane::Imm(u32::MAX), Lane::Reg(plus, 0), (none, false));
            (Lane::Reg(t, 0), Lane::Reg(fh, 0))
        } else {
            self.add(plus, 0, Lane::Reg(fh, 0), Lane::Imm(32));
            (Lane::Reg(fl, 0), Lane::Reg(plus, 0))
        };
        let high_empty = self.is(Icmp::Eq, false, hi, Lane::Imm(0));
        self.sel(d, dp, from_low, from_high, (high_empty, false));
    }

    /// `clz.b64`: the high word's count, or 32 plus the low word's where the high word is 0.
    pub(super) fn clz64(&mut self, d: VReg, dp: u8, a: Src<'a>) {
        let (Some(lo), Some(hi)) = (self.lane(a, false), self.lane(a, true)) else {
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

    /// `popc`, `clz` and `brev` of 32-bit values, and `popc` and `brev` of 64-bit ones a word at a
    /// time.
    pub(super) fn count_bits(&mut self, op: &str, ty: Type, d: VReg, dp: u8, a: Src<'a>) {
        let words = if ty.bits == 64 { 2 } else { 1 };
        for w in 0..words {
            let Some(l) = self.lane(a, w == 1) else {
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

    /// `bfi.b32`: BFI takes position and length packed, pos[7:0] | len[7:0] << 8.
    pub(super) fn bfi32(&mut self, d: VReg, dp: u8, [a, b, pos, len]: [Src<'a>; 4]) {
        let (Some(a), Some(b), Some(p), Some(l)) = (
            self.lane(a, false),
            self.lane(b, false),
            self.lane(pos, false),
            self.lane(len, false),
        ) else {
            return;
        };
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

    /// `prmt`: PRMTI for a selector known here, PRMT for one in a register.
    pub(super) fn prmt(
        &mut self,
        ins: &PtxInstruction<'a>,
        d: VReg,
        dp: u8,
        [a, b, c]: [Src<'a>; 3],
    ) {
        let mode = isa_modifier(ins, Pmode::from_name);
        let mode = mode.unwrap_or_default();
        let Some([a, b, c]) = self.lanes([a, b, c]) else {
            return;
        };
        let (ra, rb) = (self.r(a), self.r(b));
        let rd = R::of(d, dp);
        match c {
            Lane::Imm(sel) => self.prmt_imm(rd, ra, rb, sel as u16, mode),
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

    /// PRMTI: the bytes of `a` and `b` that `selector` picks.
    pub(super) fn prmt_imm(&mut self, rd: R, a: R, b: R, selector: u16, mode: Pmode) {
        let op = Op::Prmti {
            rd: rd.reg,
            ra: a.reg,
            rb: b.reg,
            imm16: selector,
            pmodei: mode,
        };
        self.emit(op, &binary(rd, a, b));
    }

    /// `lop3` with its truth table as an immediate.
    pub(super) fn lop3(&mut self, d: VReg, dp: u8, [a, b, c]: [Src<'a>; 3], lut: Src<'a>) {
        let Src::Imm(lut) = lut else {
            return self.unsupported("`lop3` with a register truth table");
        };
        let Some([a, b, c]) = self.lanes([a, b, c]) else {
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
                lut: lut as u8,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
        );
    }

    /// `shf`: PTX's funnel shift works within 32 bits: wrap takes n mod 32, clamp limits n
    /// to 32.
    pub(super) fn shf_op(&mut self, d: VReg, dp: u8, [a, b, n]: [Src<'a>; 3]) {
        let Some([lo, hi, n]) = self.lanes([a, b, n]) else {
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

    /// `and.pred`, `or.pred`, `xor.pred`, `not.pred`. An immediate operand (clang writes
    /// `xor.pred %p2, %p1, -1` for a negation) is folded: the result is then an operand, a
    /// constant or its negation, copied.
    pub(super) fn pred_logic(&mut self, ins: &PtxInstruction<'a>, op: &str) {
        let Some((d, _, _)) = self.dest(ins, 0) else {
            return;
        };
        let mut srcs = Vec::new();
        for i in 1..ins.operands.len() {
            match self.operand(ins, i) {
                Some(s @ (Src::Pred(..) | Src::Imm(_))) => srcs.push(s),
                Some(_) => {
                    return self.unsupported("a non-predicate operand of a predicate operation")
                }
                None => return,
            }
        }
        let not = |s: Src<'a>| match s {
            Src::Pred(v, n) => Src::Pred(v, !n),
            other => Src::Imm(u64::from(matches!(other, Src::Imm(0)))),
        };
        let folded = match (op, srcs.as_slice()) {
            ("not" | "cnot", [a]) => not(*a),
            ("and", [Src::Imm(c), x] | [x, Src::Imm(c)]) => match c {
                0 => Src::Imm(0),
                _ => *x,
            },
            ("or", [Src::Imm(c), x] | [x, Src::Imm(c)]) => match c {
                0 => *x,
                _ => Src::Imm(1),
            },
            ("xor", [Src::Imm(c), x] | [x, Src::Imm(c)]) => match c {
                0 => *x,
                _ => not(*x),
            },
            (_, [Src::Pred(a, m), Src::Pred(b, n)]) => {
                let bop = match op {
                    "and" => Bop::And,
                    "or" => Bop::Or,
                    "xor" => Bop::Xor,
                    _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
                };
                return self.plop(d, Some((*a, *m)), Some((*b, *n)), bop);
            }
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        self.pred_copy(d, folded);
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
    pub(super) fn bmsk(&mut self, d: VReg, dp: u8, position: Lane, width: Lane, clamp: bool) {
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
    pub(super) fn bfi64(
        &mut self,
        d: VReg,
        dp: u8,
        a: (Lane, Lane),
        b: (Lane, Lane),
        pos: Lane,
        len: Lane,
    ) {
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

    /// bfe on 64 bits: the `len` bits of `a` from `pos` (each taken mod 256), sign-extended
    /// from the field's top bit when `sgn` (PTX's pseudocode: "sbit = a[min(pos+len-1, msb)]",
    /// 0 for a length of 0). The field, `w = min(len, 64 - pos)` bits, is moved to the top
    /// and back down: `(a << (64 - pos - w)) >> (64 - w)`. A field past bit 63 (w = 0) gives
    /// a[63] everywhere when signed: the right shift by 64 of `a` itself.
    fn bfe64(&mut self, d: VReg, dp: u8, a: (Lane, Lane), pos: Lane, len: Lane, sgn: bool) {
        let (up, down) = match (pos, len) {
            (Lane::Imm(p), Lane::Imm(l)) => {
                let (p, l) = ((p & 0xff).min(64), l & 0xff);
                if l == 0 {
                    self.mov_lane(d, dp, Lane::Imm(0));
                    return self.mov_lane(d, dp + 1, Lane::Imm(0));
                }
                let w = l.min(64 - p);
                (Lane::Imm(64 - p - w), Lane::Imm(64 - w))
            }
            _ => {
                let [p, l, room, w, up, down] = [(); 6].map(|_| self.new32());
                self.logic(p, 0, pos, Lane::Imm(0xff), LUT_AND);
                self.logic(l, 0, len, Lane::Imm(0xff), LUT_AND);
                self.sub(room, 0, Lane::Imm(64), Lane::Reg(p, 0));
                self.minmax(room, Lane::Reg(room, 0), Lane::Imm(0), true, true);
                self.minmax(w, Lane::Reg(l, 0), Lane::Reg(room, 0), false, false);
                self.sub(up, 0, Lane::Reg(room, 0), Lane::Reg(w, 0));
                // A length of 0 gives 0 even when signed: shift everything out.
                let empty = self.is(Icmp::Eq, false, Lane::Reg(l, 0), Lane::Imm(0));
                let field = self.new32();
                self.sub(field, 0, Lane::Imm(64), Lane::Reg(w, 0));
                self.sel(down, 0, Lane::Imm(64), Lane::Reg(field, 0), (empty, false));
                if sgn {
                    // Signed, the field's top bit fills: move it out of reach too.
                    self.sel(up, 0, Lane::Imm(64), Lane::Reg(up, 0), (empty, false));
                }
                (Lane::Reg(up, 0), Lane::Reg(down, 0))
            }
        };
        let t = self.new64();
        self.funnel(t, 0, a.0, a.1, up, false, false);
        self.funnel_hi(t, 1, a.0, a.1, up, false, false);
        let (lo, hi) = pair_lanes(t);
        let out = self.new64();
        self.funnel(out, 0, lo, hi, down, true, sgn);
        self.funnel_hi(out, 1, lo, hi, down, true, sgn);
        self.mov_lane(d, dp, Lane::Reg(out, 0));
        self.mov_lane(d, dp + 1, Lane::Reg(out, 1));
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
    pub(super) fn shf(
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
}
