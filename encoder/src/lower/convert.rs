//! Conversions between integer widths and to and from floats (`cvt`), and between generic
//! and space-specific addresses (`cvta`).

use super::int::*;
use super::*;
use sgpu_isa::Ity;

impl<'a> FnLower<'a, '_> {
    /// `cvt` between integer widths and float types, and `cvta`.
    /// `cvt.rn{.sat}.f16x2.f32 d, a, b` (and `.bf16x2`): a converted to the high half, b to
    /// the low one, each as the scalar `cvt` would.
    fn cvt_pair(
        &mut self,
        ins: &PtxInstruction<'a>,
        (d, dp): (VReg, u8),
        a: Src<'a>,
        to: Type,
        from: Type,
    ) {
        let Some(b) = self.operand(ins, 2) else {
            return;
        };
        let name = if to.name == "f16x2" { "f16" } else { "bf16" };
        let Some(half) = Type::from_name(name) else {
            return;
        };
        let halves = [self.new32(), self.new32()];
        for (t, s) in halves.iter().zip([b, a]) {
            self.cvt_float(ins, *t, 0, s, half, from);
        }
        self.pack_word(d, dp, &halves.map(|t| Lane::Reg(t, 0)), 16);
    }

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
        if matches!(to.name, "f16x2" | "bf16x2") && from.name == "f32" {
            return self.cvt_pair(ins, (d, dp), a, *to, *from);
        }
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
                // The low word of a 64-bit source.
                let from_ty = if from.bits == 64 {
                    Ity::U32
                } else {
                    int_type(*from)
                };
                self.i2i(d, dp, lo, int_type(*to), from_ty, sat);
            }
        }
    }

    /// `cvta` between a state space and generic addresses: generic addresses of shared and
    /// local memory are their window's base plus the offset.
    pub(super) fn cvta(&mut self, ins: &PtxInstruction<'a>, d: VReg, dp: u8, a: Src<'a>) {
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
