//! Algebraic simplification: an instruction that computes one of its operands (`a + 0`,
//! `a * 1`, a shift by zero, `a & ~0`) becomes a copy, which copy propagation removes; a
//! multiply by a power of two becomes a shift, and so does a word of a 64-bit shift whose
//! other word is known (zero). Integers only: `a + 0.0` is not `a` when `a`
//! is -0.0, and float identities change NaNs and denormals.

use super::defuse::DefUse;
use super::rewrite::{decoded, replace};
use crate::mir::MInst;
use sgpu_isa::{Instruction, Lop2, Op, Reg, RegOrImm};

/// Simplifies every instruction it can; whether any changed.
pub fn simplify(code: &mut [MInst], du: &DefUse) -> bool {
    let mut changed = false;
    for i in 0..code.len() {
        let m = &code[i];
        // The opcodes `simpler` and `without_carry` know, before decoding anything.
        use sgpu_isa::opcodes::*;
        if !matches!(
            m.opcode(),
            IADD | IADD32I | IMUL | IMUL32I | SHL | SHR | SHF | LOP32I
        ) {
            continue;
        }
        let insn = decoded(m);
        if let Some(op) = simpler(insn.op) {
            changed |= replace(&mut code[i], Instruction { op, ..insn });
        } else if let Some(op) = without_carry(insn.op) {
            // Adding zero carries nothing out: the next instruction's carry in is zero, when
            // that carry reaches it alone (not under a guard that may leave the old carry,
            // nor across a label that another carry may come from).
            if !du.carry_reaches_only_next(code, i) {
                continue;
            }
            if let Some(next) = code.get(i + 1).map(decoded) {
                // Not a subtraction's `.X`: without the carry, `nb` adds its own 1.
                if let Op::Iadd {
                    x: true, nb: false, ..
                } = next.op
                {
                    let mut taken = next;
                    if let Op::Iadd { x, .. } = &mut taken.op {
                        *x = false;
                    }
                    changed |= replace(&mut code[i + 1], taken);
                    changed |= replace(&mut code[i], Instruction { op, ..insn });
                }
            }
        }
    }
    changed
}

/// `IADD.CC d = a + 0`, which sets the carry to zero: the same add without the carry out.
fn without_carry(op: Op) -> Option<Op> {
    match op {
        Op::Iadd {
            rd,
            ra,
            rb,
            nb: false,
            cc: true,
            x: false,
            sat: false,
        } if constant(rb) == Some(0) => Some(copy(rd, ra)),
        _ => None,
    }
}

/// A copy of `ra` into `rd`.
fn copy(rd: Reg, ra: Reg) -> Op {
    Op::Mov { rd, ra }
}

/// The immediate or RZ in an `rb/bi` operand, as a number.
fn constant(b: RegOrImm) -> Option<u32> {
    match b {
        RegOrImm::Imm(i) => Some(u32::from(i)),
        RegOrImm::Reg(Reg::RZ) => Some(0),
        RegOrImm::Reg(_) => None,
    }
}

/// The simpler instruction computing the same, if there is one.
fn simpler(op: Op) -> Option<Op> {
    Some(match op {
        // Without a carry in or out, or saturation, adding zero copies.
        Op::Iadd {
            rd,
            ra,
            rb,
            cc: false,
            x: false,
            ..
        } if constant(rb) == Some(0) => copy(rd, ra),
        Op::Iadd32i { rd, ra, imm32: 0 } => copy(rd, ra),
        Op::Imul {
            rd,
            ra,
            rb,
            hi: false,
            ..
        } => match constant(rb)? {
            1 => copy(rd, ra),
            k if k.is_power_of_two() => shift_left(rd, ra, k),
            _ => return None,
        },
        Op::Imul32i { rd, ra, imm32 } => match imm32 {
            1 => copy(rd, ra),
            k if k.is_power_of_two() => shift_left(rd, ra, k),
            _ => return None,
        },
        // The high word of a * 2^k is a shifted right by 32 - k, in a's signedness.
        Op::Imul {
            rd,
            ra,
            rb,
            hi: true,
            sgn,
        } => match constant(rb)? {
            k if k.is_power_of_two() && k > 1 => Op::Shr {
                rd,
                ra,
                rb: RegOrImm::Imm(32 - k.trailing_zeros() as u8),
                sgn,
            },
            _ => return None,
        },
        Op::Shl { rd, ra, rb } | Op::Shr { rd, ra, rb, .. } if constant(rb) == Some(0) => {
            copy(rd, ra)
        }
        // A 64-bit left shift by 1 to 31: its low word is the low word shifted, and when the
        // high word is zero (a zero-extended value), its high word is the low word shifted
        // right by the rest.
        Op::Shf {
            rd,
            ra,
            rb: RegOrImm::Imm(n),
            rc,
            shr: false,
            hi,
            ..
        } if (1..32).contains(&n) => match (hi, rc) {
            (false, _) => Op::Shl {
                rd,
                ra,
                rb: RegOrImm::Imm(n),
            },
            (true, Reg::RZ) => Op::Shr {
                rd,
                ra,
                rb: RegOrImm::Imm(32 - n),
                sgn: false,
            },
            _ => return None,
        },
        Op::Lop32i {
            rd,
            ra,
            imm32,
            lop2,
        } => match (lop2, imm32) {
            (Lop2::And, u32::MAX) | (Lop2::Or | Lop2::Xor, 0) => copy(rd, ra),
            _ => return None,
        },
        _ => return None,
    })
}

/// `ra << log2(k)`, for `k` a power of two above one.
fn shift_left(rd: Reg, ra: Reg, k: u32) -> Op {
    Op::Shl {
        rd,
        ra,
        rb: RegOrImm::Imm(k.trailing_zeros() as u8),
    }
}
