//! Conversions between integer widths and to and from floats (`cvt`), and between generic
//! and space-specific addresses (`cvta`).

use super::int::*;
use super::*;
use sgpu_isa::Ity;

impl<'a> FnLower<'a, '_> {
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
        if ins.modifiers().any(|m| m == ".pack") {
            return self.cvt_pack(ins, (d, dp));
        }
        let [to, from] = &tys[..] else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        if to.class == TyClass::Float || from.class == TyClass::Float {
            return self.cvt_float(ins, (d, dp), a, (*to, *from));
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

    /// `cvt.pack.sat.{u16,s16,u8,s8}.s32{.b32} d, a, b{, c}`: a and b clamped to the
    /// destination type (`I2I` with `.SAT`; without `.sat`, their low bits), packed with b
    /// in the low element and a above it; for bytes, c's low half fills d's high half (as
    /// PTX's pseudocode: "d[i] = c[i - 2 * size]" from bit 16 up).
    fn cvt_pack(&mut self, ins: &PtxInstruction<'a>, (d, dp): (VReg, u8)) {
        let Some(to) = self.tys.first().copied() else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let Some(lanes) = self.source_lanes(ins) else {
            return;
        };
        let (bits, sat) = (u32::from(to.bits), self.has(".sat"));
        let (ito, from) = (int_type(to), Ity::S32);
        let [a, b] = [lanes[0], lanes[1]].map(|l| {
            let t = self.new32();
            self.i2i(t, 0, l, ito, from, sat);
            Lane::Reg(t, 0)
        });
        match (bits, lanes.get(2)) {
            (16, _) => self.pack_word(d, dp, &[b, a], 16),
            (_, Some(&c)) => {
                let t = self.new32();
                self.pack_word(t, 0, &[b, a], 8);
                let (rt, rc) = (self.r(Lane::Reg(t, 0)), self.r(c));
                self.prmt_imm(R::of(d, dp), rt, rc, 0x5410, sgpu_isa::Pmode::Default);
            }
            _ => self.pack_word(d, dp, &[b, a], 8),
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
