//! The scalar video instructions, each one sgpu instruction: types, selectors on a, b and
//! the destination, saturation, the secondary operation or merge, vmad's negation, scale and
//! `.po`, and vshl/vshr's clamp. The SIMD ones (vadd2 .. vset4) are one VOP2, VOP4, VSET2 or
//! VSET4, after a PRMTI per source whose selector moves elements (docs/adr/0003). The integer
//! dot products `dp4a` and `dp2a` run on the same unit, as chains of VMAD.

use super::*;
use ptx_grammar::check::video::simd_selector;
use sgpu_isa::{Icmp, Vmask2, Vmask4, Vneg, Vop, Vscale, Vsec, Vsel};

/// PRMT's selector (a nibble per result byte, naming a byte of {b, a}) for a SIMD source
/// selector's elements, most significant first.
fn prmt_selector(elements: &[u8]) -> u16 {
    let bytes: Vec<u16> = if elements.len() == 2 {
        // Half-word h is bytes 2h + 1 and 2h.
        elements
            .iter()
            .flat_map(|&h| [2 * u16::from(h) + 1, 2 * u16::from(h)])
            .collect()
    } else {
        elements.iter().map(|&b| u16::from(b)).collect()
    };
    bytes.iter().fold(0, |sel, &b| sel << 4 | b)
}

/// A destination mask's field: the default (every element) when none is written. The
/// enums' names are PTX's masks.
fn mask_field<T: Default>(mask: Option<&str>, from_name: fn(&str) -> Option<T>) -> Option<T> {
    mask.map_or(Some(T::default()), from_name)
}

/// PRMT's selector that leaves a (its bytes 3..0) or b (bytes 7..4) as it is.
const A_IN_PLACE: u16 = 0x3210;
const B_IN_PLACE: u16 = 0x7654;

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

    /// `add`, `sub`, `min` and `max` (with `.relu`) on `.u16x2` and `.s16x2`: the video
    /// ALU's two-way SIMD operation, each half on its own (`VOP2` without `.SAT` keeps the
    /// low 16 bits of each sum, as PTX's wrapping add does); `.relu` is a second `VOP2`, the
    /// signed maximum with zero.
    pub(super) fn int_pair(&mut self, ins: &PtxInstruction<'a>, signed: bool) {
        let vop = match ins.opcode() {
            "add" => Vop::Add,
            "sub" => Vop::Sub,
            "min" => Vop::Min,
            "max" => Vop::Max,
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some([a, b]) = self.sources(ins, 1) else {
            return;
        };
        let Some([a, b]) = self.lanes([a, b]) else {
            return;
        };
        let relu = self.has(".relu");
        let t = if relu { self.new32() } else { d };
        let tp = if relu { 0 } else { dp };
        self.vop2(R::of(t, tp), (a, b), vop, signed);
        if relu {
            self.vop2(
                R::of(d, dp),
                (Lane::Reg(t, 0), Lane::Imm(0)),
                Vop::Max,
                true,
            );
        }
    }

    /// `VOP2` of every half, no accumulation or merge.
    fn vop2(&mut self, rd: R, (a, b): (Lane, Lane), vop: Vop, signed: bool) {
        let (ra, rb) = (self.r(a), self.r(b));
        self.emit(
            Op::Vop2 {
                rd: rd.reg,
                vm2: Vmask2::default(),
                ra: ra.reg,
                rb: rb.reg,
                rc: Reg::RZ,
                vop,
                dsgn: signed,
                asgn: signed,
                bsgn: signed,
                vsat: false,
                vacc: false,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_(fields::RB, rb),
            ],
        );
    }

    /// vadd2 .. vset4: the selected elements of {b, a} gathered in place for each source (a
    /// PRMTI unless they are a's or b's own), then the SIMD instruction with the destination
    /// mask, `.sat` and `.add`.
    pub(super) fn simd_video(&mut self, ins: &PtxInstruction<'a>) {
        let opcode = ins.opcode();
        let Some(elements) = simd_elements(opcode) else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let base = &opcode[1..opcode.len() - 1];
        let signed = |t: &Type| t.class == TyClass::Signed;
        let (dsgn, asgn, bsgn) = match (base, &self.tys[..]) {
            ("set", [a, b]) => (false, signed(a), signed(b)),
            (_, [d, a, b]) => (signed(d), signed(a), signed(b)),
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let mut regs = Vec::new();
        for i in 0..4 {
            match self.operand(ins, i) {
                Some(Src::Reg { v, part, sel, .. }) => regs.push((R::of(v, part), sel)),
                Some(_) => return self.unsupported(format!("`{opcode}` with this operand")),
                None => return,
            }
        }
        let [(rd, dmask), (ra, asel), (rb, bsel), (rc, _)] = regs[..] else {
            unreachable!("four operands pushed")
        };
        // The sources after their selectors.
        let (Some(sa), Some(sb)) = (
            self.simd_source(ra, rb, asel, elements, A_IN_PLACE),
            self.simd_source(ra, rb, bsel, elements, B_IN_PLACE),
        ) else {
            return self.unsupported(format!("`{opcode}` with this selector"));
        };
        // Every element (`.h10`, `.b3210`) is the default, which the enumerations print as
        // nothing and so do not parse.
        let mask = dmask
            .map(|m| m[1..].to_uppercase())
            .filter(|m| !matches!(m.as_str(), "H10" | "B3210"));
        let mask = mask.as_deref();
        let (vacc, vsat) = (self.has(".add"), self.has(".sat"));
        let vcmp = isa_modifier(ins, Icmp::from_name);
        let (d, a, b, c) = (rd.reg, sa.reg, sb.reg, rc.reg);
        let op = match (elements, Vop::from_name(&base.to_uppercase()), vcmp) {
            (2, Some(vop), _) => mask_field(mask, Vmask2::from_name).map(|vm2| Op::Vop2 {
                rd: d,
                vm2,
                ra: a,
                rb: b,
                rc: c,
                vop,
                dsgn,
                asgn,
                bsgn,
                vsat,
                vacc,
            }),
            (4, Some(vop), _) => mask_field(mask, Vmask4::from_name).map(|vm4| Op::Vop4 {
                rd: d,
                vm4,
                ra: a,
                rb: b,
                rc: c,
                vop,
                dsgn,
                asgn,
                bsgn,
                vsat,
                vacc,
            }),
            (2, None, Some(vcmp)) => mask_field(mask, Vmask2::from_name).map(|vm2| Op::Vset2 {
                rd: d,
                vm2,
                ra: a,
                rb: b,
                rc: c,
                asgn,
                bsgn,
                vcmp,
                vacc,
            }),
            (4, None, Some(vcmp)) => mask_field(mask, Vmask4::from_name).map(|vm4| Op::Vset4 {
                rd: d,
                vm4,
                ra: a,
                rb: b,
                rc: c,
                asgn,
                bsgn,
                vcmp,
                vacc,
            }),
            _ => None,
        };
        let Some(op) = op else {
            return self.unsupported(format!(
                "`{}` with this destination mask",
                ins.mnemonic.text
            ));
        };
        let binds = ternary(rd, sa, sb, rc);
        self.emit(op, &binds);
    }

    /// A SIMD source after its selector: `a` or `b` itself when the selector leaves that
    /// register's elements in place (`in_place` is the default), else a fresh register that a
    /// PRMTI fills from {b, a}; `None` for a selector that is not one.
    fn simd_source(
        &mut self,
        a: R,
        b: R,
        sel: Option<&str>,
        elements: u32,
        in_place: u16,
    ) -> Option<R> {
        let selector = match sel {
            None => in_place,
            Some(s) => prmt_selector(&simd_selector(s, elements)?),
        };
        Some(match selector {
            A_IN_PLACE => a,
            B_IN_PLACE => b,
            _ => {
                let rd = R::of(self.new32(), 0);
                let op = Op::Prmti {
                    rd: rd.reg,
                    ra: a.reg,
                    rb: b.reg,
                    imm16: selector,
                    pmodei: Default::default(),
                };
                self.emit(op, &binary(rd, a, b));
                rd
            }
        })
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
