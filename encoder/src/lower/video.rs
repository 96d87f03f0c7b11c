//! The scalar video instructions, each one sgpu instruction: types, selectors on a, b and
//! the destination, saturation, the secondary operation or merge, vmad's negation, scale and
//! `.po`, and vshl/vshr's clamp. The integer dot products `dp4a` and `dp2a` run on the same
//! unit, as chains of VMAD.

use super::*;
use sgpu_isa::{Icmp, Vneg, Vscale, Vsec, Vsel};

fn selector(sel: Option<&str>) -> Option<Vsel> {
    match sel {
        None => Some(Vsel::B32),
        Some(s) => Vsel::from_name(&s[1..].to_uppercase()),
    }
}

impl<'a> FnLower<'a, '_> {
    pub(super) fn video(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        let tys = self.tys;
        let signed = |t: &Type| t.class == TyClass::Signed;
        let (dsgn, asgn, bsgn) = match (op, &tys[..]) {
            ("vset", [a, b]) => (false, signed(a), signed(b)),
            (_, [d, a, b]) => (signed(d), signed(a), signed(b)),
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        // Destination, with its merge selector.
        let Some(ptx_grammar::ast::Operand::Expr(d)) = ins.operands.first() else {
            return self.unsupported("this destination");
        };
        let Some(Src::Reg {
            v: d,
            part: dp,
            sel: dsel,
            ..
        }) = self.src(d)
        else {
            return self.unsupported("this destination");
        };
        let Some(dsel) = selector(dsel) else {
            return self.unsupported("this destination selector");
        };
        // Sources: a and b with selectors and (vmad) negation; c plain or negated.
        let mut regs = Vec::new();
        let mut negated = Vec::new();
        for i in 1..ins.operands.len() {
            let Some(s) = self.operand(ins, i) else {
                return;
            };
            let (lane, sel, neg) = match s {
                Src::Reg { v, part, sel, .. } => (Lane::Reg(v, part), sel, false),
                Src::Neg(v, sel) => (Lane::Reg(v, 0), sel, true),
                other => match self.lane(other, false) {
                    Some(l) => (l, None, false),
                    None => return,
                },
            };
            let Some(sel) = selector(sel) else {
                return self.unsupported("this selector");
            };
            regs.push((self.r(lane), sel));
            negated.push(neg);
        }
        if regs.len() < 2 {
            return self.unsupported(format!("`{}` with these operands", ins.mnemonic.text));
        }
        let (ra, asel) = regs[0];
        let (rb, bsel) = regs[1];
        let rc = regs.get(2).map_or(R::ZERO, |r| r.0);
        let sat = self.has(".sat");
        let vsec = if dsel != Vsel::B32 {
            Vsec::Merge
        } else if self.has(".add") {
            Vsec::Add
        } else if self.has(".min") {
            Vsec::Min
        } else if self.has(".max") {
            Vsec::Max
        } else {
            Vsec::None
        };
        let rd = R::of(d, dp);
        // The fields every video instruction but vmad and vset has, and those it adds.
        macro_rules! video {
            ($variant:ident, $($extra:tt)*) => {
                Op::$variant {
                    rd: rd.reg,
                    dsel,
                    ra: ra.reg,
                    asel,
                    rb: rb.reg,
                    bsel,
                    rc: rc.reg,
                    dsgn,
                    asgn,
                    vsat: sat,
                    vsec,
                    $($extra)*
                }
            };
        }
        let vclamp = self.has(".clamp");
        let op = match op {
            "vadd" => video!(Vadd, bsgn),
            "vsub" => video!(Vsub, bsgn),
            "vabsdiff" => video!(Vabsdiff, bsgn),
            "vmin" => video!(Vmin, bsgn),
            "vmax" => video!(Vmax, bsgn),
            "vshl" => video!(Vshl, vclamp),
            "vshr" => video!(Vshr, vclamp),
            "vmad" => {
                // The product is negated when exactly one of a and b is.
                let product = negated[0] != negated[1];
                let vneg = match (product, negated.get(2).copied().unwrap_or(false)) {
                    (false, false) => Vneg::None,
                    (true, false) => Vneg::NegAb,
                    (false, true) => Vneg::NegC,
                    (true, true) => {
                        return self.unsupported("`vmad` negating both the product and c")
                    }
                };
                let vscale = if self.has(".shr7") {
                    Vscale::Shr7
                } else if self.has(".shr15") {
                    Vscale::Shr15
                } else {
                    Vscale::None
                };
                Op::Vmad {
                    rd: rd.reg,
                    ra: ra.reg,
                    asel,
                    rb: rb.reg,
                    bsel,
                    rc: rc.reg,
                    dsgn,
                    asgn,
                    bsgn,
                    vsat: sat,
                    vneg,
                    vscale,
                    po: self.has(".po"),
                }
            }
            "vset" => {
                let Some(vcmp) = ins.modifiers().find_map(|m| match m {
                    ".eq" => Some(Icmp::Eq),
                    ".ne" => Some(Icmp::Ne),
                    ".lt" => Some(Icmp::Lt),
                    ".le" => Some(Icmp::Le),
                    ".gt" => Some(Icmp::Gt),
                    ".ge" => Some(Icmp::Ge),
                    _ => None,
                }) else {
                    return self.unsupported("`vset` without a comparison");
                };
                Op::Vset {
                    rd: rd.reg,
                    dsel,
                    ra: ra.reg,
                    asel,
                    rb: rb.reg,
                    bsel,
                    rc: rc.reg,
                    asgn,
                    bsgn,
                    vcmp,
                    vsec,
                }
            }
            _ => unreachable!("dispatched on the video opcodes"),
        };
        // A merge takes the rest of the word from c (PTX's `optMerge`), not from d.
        let binds = ternary(rd, ra, rb, rc);
        self.emit(op, &binds);
    }

    /// `dp4a`/`dp2a` as one VMAD per product, each adding into the sum so far: VMAD's byte and
    /// half-word selectors extract and extend the elements (by `.atype` and `.btype`), and
    /// without `.sat` it keeps the low 32 bits of the sum, as the 32-bit accumulator of the
    /// dot products does.
    pub(super) fn dot_product(&mut self, ins: &PtxInstruction<'a>) {
        let signed = |t: &Type| t.class == TyClass::Signed;
        let [ta, tb] = &self.tys[..] else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let (asgn, bsgn) = (signed(ta), signed(tb));
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let mut sources = [R::ZERO; 3];
        for (i, source) in sources.iter_mut().enumerate() {
            let Some(lane) = self.operand(ins, i + 1).and_then(|s| self.lane(s, false)) else {
                return;
            };
            *source = self.r(lane);
        }
        let [ra, rb, mut sum] = sources;
        use Vsel::{B0, B1, B2, B3, H0, H1};
        let products: &[(Vsel, Vsel)] = match ins.opcode() {
            "dp4a" => &[(B0, B0), (B1, B1), (B2, B2), (B3, B3)],
            _ if self.has(".hi") => &[(H0, B2), (H1, B3)],
            _ => &[(H0, B0), (H1, B1)],
        };
        for (k, &(asel, bsel)) in products.iter().enumerate() {
            // Partial sums in fresh registers, so that d may be one of the sources.
            let rd = if k + 1 == products.len() {
                R::of(d, dp)
            } else {
                R::of(self.new32(), 0)
            };
            let op = Op::Vmad {
                rd: rd.reg,
                ra: ra.reg,
                asel,
                rb: rb.reg,
                bsel,
                rc: sum.reg,
                dsgn: asgn || bsgn,
                asgn,
                bsgn,
                vsat: false,
                vneg: Vneg::None,
                vscale: Vscale::None,
                po: false,
            };
            let binds = ternary(rd, ra, rb, sum);
            self.emit(op, &binds);
            sum = rd;
        }
    }
}
