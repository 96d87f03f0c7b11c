//! Address-mode folding: a constant added into a value that is only ever used as a memory
//! address (directly, or through further adds) moves into the loads' and stores' 24-bit
//! offset fields, which are free. `v = b + K; LD [v + 4]` becomes `LD [b + K + 4]`, and
//! `v = a * 4 + 0x400` read by `LD [v]`, `LD [v + 64]` becomes `v = a * 4` read by
//! `LD [v + 0x400]`, `LD [v + 0x440]` (the address of an array past another in shared
//! memory, indexed). Only 32-bit addresses (shared and local): a 64-bit address's constant
//! would have to leave the carry chain too.

use super::defuse::DefUse;
use super::rewrite::{decoded, deleted, plain_add, replace};
use crate::mir::{Field, MInst};
use sgpu_isa::{fields, opcodes, Instruction, Op, Reg, RegOrImm};

/// How deep a chain of adds between the constant and the addresses is followed.
const DEPTH: u32 = 3;

/// Folds what it can; whether anything changed.
pub fn fold(code: &mut [MInst], du: &DefUse) -> bool {
    let mut changed = false;
    for d in 0..code.len() {
        let Some((k, rebased)) = constant_addend(code, du, d) else {
            continue;
        };
        let Some(v) = code[d].slots().find(|s| s.def()).copied() else {
            continue;
        };
        let l = du.locs.of(&v).start;
        let mut addresses = Vec::new();
        if !du.ssa(l) || !only_addresses(code, du, l, k, DEPTH, &mut addresses) {
            continue;
        }
        // An address reached by two paths would take the constant twice.
        addresses.sort_unstable();
        if addresses.windows(2).any(|w| w[0] == w[1]) {
            continue;
        }
        if !replace(&mut code[d], Instruction::new(rebased)) {
            continue;
        }
        for a in addresses {
            let mut insn = decoded(&code[a]);
            match &mut insn.op {
                Op::Ld { off24, .. } | Op::St { off24, .. } => *off24 = off24.wrapping_add(k),
                _ => unreachable!("only loads and stores are collected"),
            }
            assert!(replace(&mut code[a], insn), "the offset was checked to fit");
        }
        changed = true;
    }
    changed
}

/// The constant the instruction at `d` adds (as a two's complement offset), and the
/// instruction without it.
fn constant_addend(code: &[MInst], du: &DefUse, d: usize) -> Option<(i32, Op)> {
    let m = &code[d];
    if deleted(m) || !m.always_runs() {
        return None;
    }
    let known = |field: sgpu_isa::Field| -> Option<u32> {
        let s = m.slots().find(|s| s.field == Field::of(field))?;
        let p = du.def(du.locs.of(s).start)?;
        match decoded(&code[p]).op {
            Op::Mov32i { imm32, .. } if code[p].reloc.is_none() => Some(imm32),
            _ => None,
        }
    };
    let copy = |rd, ra| Op::Mov { rd, ra };
    match m.opcode() {
        opcodes::IADD32I | opcodes::IADD | opcodes::IMAD => {}
        _ => return None,
    }
    let op = decoded(m).op;
    if let Some((rd, ra, rb)) = plain_add(op) {
        let k = match rb {
            RegOrImm::Imm(i) => u32::from(i),
            RegOrImm::Reg(_) => known(fields::RB)?,
        };
        return (k != 0).then_some((k as i32, copy(rd, ra)));
    }
    let (k, op) = match op {
        Op::Iadd32i { rd, ra, imm32 } => (imm32, copy(rd, ra)),
        Op::Imad {
            rd,
            ra,
            rb,
            rc,
            hi: false,
            cc: false,
            x: false,
            sgn,
        } => {
            let k = match rc {
                RegOrImm::Imm(i) => u32::from(i),
                RegOrImm::Reg(_) => known(fields::RC)?,
            };
            let rebased = Op::Imad {
                rd,
                ra,
                rb,
                rc: RegOrImm::Reg(Reg::RZ),
                hi: false,
                cc: false,
                x: false,
                sgn,
            };
            (k, rebased)
        }
        _ => return None,
    };
    (k != 0).then_some((k as i32, op))
}

/// Whether every read of location `l` is a 32-bit address whose offset takes `k` more, or an
/// add (`IADD`, or `IMAD`'s addend) whose result is read only so, `depth` adds deep; the
/// loads and stores found go to `addresses`.
fn only_addresses(
    code: &[MInst],
    du: &DefUse,
    l: usize,
    k: i32,
    depth: u32,
    addresses: &mut Vec<usize>,
) -> bool {
    let uses = du.uses(l);
    !uses.is_empty()
        && uses.iter().all(|&u| {
            let m = &code[u as usize];
            let Some(s) = m.slots().find(|s| !s.def() && du.locs.of(s).contains(&l)) else {
                return false;
            };
            if m.slots()
                .filter(|t| !t.def() && du.locs.of(t).contains(&l))
                .count()
                != 1
            {
                return false;
            }
            match decoded(m).op {
                Op::Ld {
                    off24, e: false, ..
                }
                | Op::St {
                    off24, e: false, ..
                } if s.field == Field::of(fields::RA) && !deleted(m) => {
                    let fits = fields::OFF24.bits(i64::from(off24.wrapping_add(k))).is_ok();
                    let plain = m.marks == Default::default();
                    addresses.push(u as usize);
                    fits && plain
                }
                Op::Iadd {
                    nb: false,
                    cc: false,
                    x: false,
                    sat: false,
                    ..
                }
                | Op::Imad {
                    hi: false,
                    cc: false,
                    x: false,
                    ..
                } if depth > 0 && addend(m, s.field) => {
                    let w = m.slots().find(|t| t.def()).copied();
                    w.is_some_and(|w| {
                        let wl = du.locs.of(&w).start;
                        du.ssa(wl) && only_addresses(code, du, wl, k, depth - 1, addresses)
                    })
                }
                _ => false,
            }
        })
}

/// Whether `field` of `m` (an `IADD` or `IMAD`) is added: either source of `IADD`, the
/// addend of `IMAD`.
fn addend(m: &MInst, field: Field) -> bool {
    match m.opcode() {
        opcodes::IADD => field == Field::of(fields::RA) || field == Field::of(fields::RB),
        _ => field == Field::of(fields::RC),
    }
}
