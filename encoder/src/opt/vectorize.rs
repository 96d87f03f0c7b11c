//! Load vectorisation: two or four 32-bit loads of consecutive words from one base register,
//! in one block with no store, atomic, barrier or call among them, become one 64- or
//! 128-bit load into a fresh register tuple, when the first word's address is known to be
//! aligned to the whole access (a 128-bit access must be 16-byte aligned). The loaded values'
//! reads are renamed to the tuple's registers. Shared and local memory only: their addresses
//! are 32-bit values whose low bits the code computes in sight (a thread index shifted
//! left, a variable's known offset); a global pointer's alignment is not known.
//!
//! Alignment comes from a known-trailing-zeros analysis of SSA values: a left shift by k adds
//! k zeros, a product adds its factors', a sum keeps the fewer of its operands', a constant
//! has its own.

use super::defuse::DefUse;
use super::rewrite::{decoded, delete, deleted, replace};
use crate::mir::{Class, Field, MInst, Slot, VRegs};
use sgpu_isa::{fields, opcodes, Msize, Op, RegOrImm, Space, Unit};

/// Finds and merges the groups; whether any were.
/// Whether the code has loads this pass might merge (at least two).
pub fn candidates(code: &[MInst]) -> bool {
    code.iter()
        .filter(|m| word_load(m).is_some())
        .nth(1)
        .is_some()
}

/// Finds and merges the groups; whether any were.
pub fn vectorize(code: &mut [MInst], vregs: &mut VRegs, du: &DefUse) -> bool {
    let zeros = trailing_zeros(code, du);
    let mut changed = false;
    let n = code.len();
    for b in 0..du.cfg.starts.len() {
        let start = du.cfg.starts[b];
        let end = du.cfg.starts.get(b + 1).copied().unwrap_or(n);
        let mut i = start;
        while i < end {
            match group(code, vregs, du, (&zeros, i, end)) {
                Some(members) => {
                    merge(code, vregs, du, &members);
                    changed = true;
                }
                None => i += 1,
            }
        }
    }
    changed
}

/// A load this pass may merge: a 32-bit, unguarded load of shared or local memory from a
/// register plus an offset into a one-word register. Its base slot, offset and space.
fn word_load(m: &MInst) -> Option<(Slot, i32, Space)> {
    if deleted(m) || m.opcode() != opcodes::LD || !m.always_runs() || m.marks != Default::default()
    {
        return None;
    }
    let Op::Ld {
        off24,
        space,
        msize: Msize::B32,
        e: false,
        labs: false,
        cop,
        ..
    } = decoded(m).op
    else {
        return None;
    };
    let base = *m.slots().find(|s| s.field == Field::of(fields::RA))?;
    let fits = matches!(space, Space::Shared | Space::Local) && cop == Default::default();
    fits.then_some((base, off24, space))
}

/// Whether `m` may change memory or stop the warp: a store, atomic, barrier or call between
/// two loads ends a group.
fn barrier(m: &MInst) -> bool {
    match sgpu_isa::unit_of_opcode(m.opcode()) {
        Some(Unit::Mem) => !matches!(m.opcode(), opcodes::LD | opcodes::LDC),
        Some(Unit::Control | Unit::Surface) | None => !deleted(m),
        _ => false,
    }
}

/// The loads to merge starting with the one at `first`: four (or else two) consecutive
/// words, aligned, with distinct one-word SSA destinations.
fn group(
    code: &[MInst],
    vregs: &VRegs,
    du: &DefUse,
    (zeros, first, end): (&[u8], usize, usize),
) -> Option<Vec<usize>> {
    let (base, off, space) = word_load(&code[first]).filter(|(b, ..)| du.locs.has(b.reg))?;
    let base_loc = du.locs.of(&base).start;
    // The base must hold one value across the group.
    let base_ssa = du.ssa(base_loc);
    let mut found = vec![first];
    for (j, m) in code.iter().enumerate().take(end).skip(first + 1) {
        if found.len() == 4 || barrier(m) {
            break;
        }
        let writes_base =
            |s: &Slot| s.def() && du.locs.has(s.reg) && du.locs.of(s).contains(&base_loc);
        if !base_ssa && m.slots().any(writes_base) {
            break;
        }
        let Some((b, o, sp)) = word_load(m) else {
            continue;
        };
        let next = off + 4 * found.len() as i32;
        if du.locs.has(b.reg) && du.locs.of(&b).start == base_loc && sp == space && o == next {
            found.push(j);
        }
    }
    let aligned = |bytes: i32| off % bytes == 0 && 1 << zeros[base_loc].min(31) >= bytes;
    let take = match found.len() {
        4 if aligned(16) => 4,
        n if n >= 2 && aligned(8) => 2,
        _ => return None,
    };
    found.truncate(take);
    let fresh = found.iter().all(|&k| {
        let d = code[k].slots().find(|s| s.def());
        d.is_some_and(|d| {
            let l = du.locs.of(d).start;
            let word = vregs.class(d.reg) == Class::Gpr { size: 1 };
            word && du.ssa(l) && du.def(l) == Some(k)
        })
    });
    fresh.then_some(found)
}

/// Replaces the group's first load with one load of the whole tuple, deletes the others, and
/// renames reads of their destinations to the tuple's registers.
fn merge(code: &mut [MInst], vregs: &mut VRegs, du: &DefUse, members: &[usize]) {
    let size = members.len() as u8;
    let tuple = vregs.new_reg(Class::Gpr { size });
    let dests: Vec<usize> = members
        .iter()
        .map(|&k| {
            du.locs
                .of(code[k].slots().find(|s| s.def()).expect("checked"))
                .start
        })
        .collect();
    let first = members[0];
    let mut insn = decoded(&code[first]);
    if let Op::Ld { msize, .. } = &mut insn.op {
        *msize = if size == 4 { Msize::B128 } else { Msize::B64 };
    }
    assert!(replace(&mut code[first], insn), "a wider load encodes");
    for s in code[first].slots[..usize::from(code[first].nslots)].iter_mut() {
        if s.def() {
            *s = Slot::new(s.field, tuple, 0, size, true);
        }
    }
    for &k in &members[1..] {
        delete(&mut code[k]);
    }
    for m in code.iter_mut() {
        for s in m.slots[..usize::from(m.nslots)].iter_mut() {
            if s.def() || s.width() != 1 || !du.locs.has(s.reg) {
                continue;
            }
            if let Some(k) = dests.iter().position(|&l| l == du.locs.of(s).start) {
                *s = s.renamed(tuple, k as u8);
            }
        }
    }
}

/// For every location, how many low bits of its value are known to be zero (SSA values
/// only; 0 when nothing is known).
fn trailing_zeros(code: &[MInst], du: &DefUse) -> Vec<u8> {
    let mut tz = vec![0u8; du.locs.len()];
    let n = code.len();
    for b in du.cfg.reverse_postorder() {
        let start = du.cfg.starts[b];
        let end = du.cfg.starts.get(b + 1).copied().unwrap_or(n);
        for m in &code[start..end] {
            if deleted(m) || !m.always_runs() {
                continue;
            }
            use sgpu_isa::opcodes::*;
            let known = matches!(
                m.opcode(),
                MOV32I | MOV | SHL | IMUL | IMUL32I | IMAD | IADD | IADD32I | LOP32I
            );
            let Some(d) = m
                .slots()
                .find(|s| s.def() && s.width() == 1)
                .filter(|_| known)
            else {
                continue;
            };
            let l = du.locs.of(d).start;
            if !du.ssa(l) {
                continue;
            }
            let of = |field: sgpu_isa::Field| {
                let s = m.slots().find(|s| s.field == Field::of(field))?;
                Some(tz[du.locs.of(s).start])
            };
            tz[l] = zeros_of(decoded(m).op, of);
        }
    }
    tz
}

/// Trailing zeros of what `op` computes, given those of the registers it reads (`of` a
/// field: `None` when the field holds no register, i.e. RZ or an immediate).
fn zeros_of(op: Op, of: impl Fn(sgpu_isa::Field) -> Option<u8>) -> u8 {
    let imm = |x: RegOrImm, field: sgpu_isa::Field| match x {
        RegOrImm::Imm(i) => u32::from(i).trailing_zeros() as u8,
        RegOrImm::Reg(_) => of(field).unwrap_or(32),
    };
    let reg = |field| of(field).unwrap_or(32);
    let sum = |a: u8, b: u8| a.saturating_add(b).min(32);
    match op {
        Op::Mov32i { imm32, .. } => imm32.trailing_zeros() as u8,
        Op::Mov { .. } => reg(fields::RA),
        Op::Shl {
            rb: RegOrImm::Imm(k),
            ..
        } => sum(reg(fields::RA), k),
        Op::Imul { rb, hi: false, .. } => sum(reg(fields::RA), imm(rb, fields::RB)),
        Op::Imul32i { imm32, .. } => sum(reg(fields::RA), imm32.trailing_zeros() as u8),
        Op::Imad {
            rb,
            rc,
            hi: false,
            cc: false,
            x: false,
            ..
        } => sum(reg(fields::RA), imm(rb, fields::RB)).min(imm(rc, fields::RC)),
        Op::Iadd {
            rb,
            nb: false,
            cc: false,
            x: false,
            sat: false,
            ..
        } => reg(fields::RA).min(imm(rb, fields::RB)),
        Op::Iadd32i { imm32, .. } => reg(fields::RA).min(imm32.trailing_zeros() as u8),
        Op::Lop32i {
            imm32,
            lop2: sgpu_isa::Lop2::And,
            ..
        } => reg(fields::RA).max(imm32.trailing_zeros() as u8),
        _ => 0,
    }
}
