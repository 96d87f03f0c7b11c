//! Changing an instruction of machine IR in place: through its typed form, so that every
//! word the optimiser makes is one the ISA table defines, with the register slots kept in
//! step with the fields that still name registers.

use super::defuse::carry_roles;
use crate::mir::{Field, MInst};
use sgpu_isa::{fields, opcodes, Instruction, Op, Pred, Reg, RegOrImm, Sreg, Unit};

/// The instruction in its typed form. Lowering builds every word through `Op`, so it decodes.
pub fn decoded(m: &MInst) -> Instruction {
    sgpu_isa::decode(m.word).expect("machine IR holds only words the ISA table defines")
}

/// Replaces `m`'s instruction with `insn`, dropping the slots of fields that no longer name a
/// register or predicate (an immediate, RZ or PT now); false, leaving `m` as it was, when an
/// operand does not fit its field.
pub fn replace(m: &mut MInst, insn: Instruction) -> bool {
    let Ok(word) = insn.encode() else {
        return false;
    };
    let roles = insn.op.roles();
    let guarded = insn.guard.pred != Pred::PT;
    m.word = word;
    m.retain_slots(|s| {
        if s.field == Field::of(fields::PG) {
            return guarded;
        }
        let reg = roles
            .regs
            .iter()
            .flatten()
            .any(|r| Field::of(r.field) == s.field);
        let pred = roles
            .preds
            .iter()
            .flatten()
            .any(|p| Field::of(p.field) == s.field);
        reg || pred
    });
    true
}

/// Turns `m` into nothing: a `NOP` without slots, which [`super::compact`] removes.
pub fn delete(m: &mut MInst) {
    m.word = Instruction::new(Op::Nop)
        .encode()
        .expect("NOP has no operands");
    m.retain_slots(|_| false);
    m.target = None;
    m.reloc = None;
}

/// Whether `m` was deleted.
pub fn deleted(m: &MInst) -> bool {
    m.opcode() == sgpu_isa::opcodes::NOP
}

/// Whether `m` computes from its operands alone, writes registers only, and may run
/// anywhere its operands hold the same values: unguarded, unmarked, unrelocated, of the
/// integer (but the clock), float, special-function or video units or a constant-bank load,
/// without the carry. Common subexpressions and loop-invariant code motion move or merge
/// such instructions.
pub fn repeatable(m: &MInst) -> bool {
    if deleted(m) || !m.always_runs() || m.reloc.is_some() || m.marks != Default::default() {
        return false;
    }
    let op = m.opcode();
    let pure = match sgpu_isa::unit_of_opcode(op) {
        Some(Unit::Int | Unit::Float | Unit::Sfu | Unit::Video) => true,
        Some(Unit::Mem) => op == opcodes::LDC,
        _ => false,
    };
    // Only the clock's S2R needs decoding beyond the carry's roles.
    pure && carry_roles(m) == (false, false)
        && match op {
            opcodes::S2R => !matches!(
                decoded(m).op,
                Op::S2r {
                    sreg: Sreg::Clock | Sreg::ClockHi | Sreg::Clock64,
                    ..
                }
            ),
            _ => true,
        }
}

/// An `IADD` that only adds (no carry in or out, no negation, no saturation): its `rd`, `ra`
/// and `rb`.
pub fn plain_add(op: Op) -> Option<(Reg, Reg, RegOrImm)> {
    match op {
        Op::Iadd {
            rd,
            ra,
            rb,
            nb: false,
            cc: false,
            x: false,
            sat: false,
        } => Some((rd, ra, rb)),
        _ => None,
    }
}
