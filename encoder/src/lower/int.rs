//! The integer unit's lowerings, a file per family: `moves`, `arith`, `bits`, `compare`,
//! `convert`. This file holds what they share.
//!
//! Registers of 8 and 16 bits live in the low bits of a 32-bit register whose upper bits are
//! undefined: operations whose low result bits depend only on low operand bits (add, mul.lo,
//! logic, shl) run as 32-bit ones, and the others extend their operands first. 64-bit values
//! are register pairs, computed a word at a time with the carry.

use super::*;

/// `a & b`, `a | b`, `a ^ b` and `~a` as LOP3 truth tables over ra (0xF0), rb (0xCC).
pub(super) const LUT_AND: u8 = 0xC0;
pub(super) const LUT_OR: u8 = 0xFC;
pub(super) const LUT_XOR: u8 = 0x3C;
pub(super) const LUT_NOT_A: u8 = 0x0F;
/// a & !b.
pub(super) const LUT_AND_NOT: u8 = 0x30;
/// b where a is set, c elsewhere.
pub(super) const LUT_SELECT: u8 = 0xCA;

/// The low and high words of 64-bit register `v`.
pub(super) fn pair_lanes(v: VReg) -> (Lane, Lane) {
    (Lane::Reg(v, 0), Lane::Reg(v, 1))
}

pub(super) fn signed(t: Type) -> bool {
    t.class == TyClass::Signed
}

/// An integer type as sgpu's `ity` field numbers it.
pub(super) fn int_type(t: Type) -> sgpu_isa::Ity {
    use sgpu_isa::Ity;
    match (t.bits, signed(t)) {
        (8, false) => Ity::U8,
        (8, true) => Ity::S8,
        (16, false) => Ity::U16,
        (16, true) => Ity::S16,
        (32, false) => Ity::U32,
        (32, true) => Ity::S32,
        (_, false) => Ity::U64,
        (_, true) => Ity::S64,
    }
}
