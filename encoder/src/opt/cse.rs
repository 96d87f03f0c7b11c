//! Common subexpression elimination: an instruction computing what an instruction that
//! dominates it computed (the same word, so the same operation and immediates, reading the
//! same SSA values) gives the same values; its reads are renamed to the first one's results,
//! and it is left to dead-code elimination. Within a block this is the classic local form;
//! over the dominator tree it also merges a parameter or `%tid` read in both arms of a branch
//! with the one before it.

use super::copies::rename;
use super::defuse::DefUse;
use super::rewrite::{decoded, deleted};
use crate::mir::{MInst, VRegs};
use rustc_hash::FxHashMap;
use sgpu_isa::{opcodes, Sreg, Unit};

/// What an instruction computes, as far as equality goes: its word and the registers it
/// reads, each as (field bits, location, width).
type Key = (u64, Vec<(u8, usize, u8)>);

/// Merges repeated computations; whether any were found.
pub fn eliminate(code: &mut [MInst], vregs: &VRegs, du: &DefUse) -> bool {
    let locs = &du.locs;
    let mut seen: FxHashMap<Key, Vec<usize>> = FxHashMap::default();
    let mut original: Vec<u32> = (0..locs.len() as u32).collect();
    let mut found = false;
    let n = code.len();
    for b in du.cfg.reverse_postorder() {
        let start = du.cfg.starts[b];
        let end = du.cfg.starts.get(b + 1).copied().unwrap_or(n);
        for i in start..end {
            let m = &code[i];
            if !candidate(m, du) {
                continue;
            }
            let reads: Vec<(u8, usize, u8)> = m
                .slots()
                .filter(|s| !s.def())
                .map(|s| (s.field.0, locs.of(s).start, s.width()))
                .collect();
            let earlier = seen.entry((m.word, reads)).or_default();
            let dominating = earlier.iter().copied().find(|&j| {
                let (bj, bi) = (du.cfg.block_of[j], du.cfg.block_of[i]);
                if bj == bi {
                    j < i
                } else {
                    du.doms.dominates(bj, bi)
                }
            });
            match dominating {
                Some(j) => {
                    // Same word, so the same destination fields, in the same order.
                    let defs = |k: usize| code[k].slots().filter(|s| s.def()).copied();
                    for (d, first) in defs(i).zip(defs(j)) {
                        for (l, o) in locs.of(&d).zip(locs.of(&first)) {
                            original[l] = o as u32;
                        }
                    }
                    found = true;
                }
                None => earlier.push(i),
            }
        }
    }
    found && rename(code, vregs, du, original)
}

/// Whether the instruction's results depend on its operands alone and are SSA values, so
/// that a dominating copy of it holds the same: the integer (but the clock), float,
/// special-function and video units and constant-bank loads; no carry in or out, no guard.
fn candidate(m: &MInst, du: &DefUse) -> bool {
    if deleted(m) || !m.always_runs() || m.reloc.is_some() || m.marks != Default::default() {
        return false;
    }
    let op = m.opcode();
    let pure = match sgpu_isa::unit_of_opcode(op) {
        Some(Unit::Int | Unit::Float | Unit::Sfu | Unit::Video) => true,
        Some(Unit::Mem) => op == opcodes::LDC,
        _ => false,
    };
    if !pure {
        return false;
    }
    let insn = decoded(m);
    let roles = insn.op.roles();
    if roles.carry_read || roles.carry_write {
        return false;
    }
    if let sgpu_isa::Op::S2r { sreg, .. } = insn.op {
        if matches!(sreg, Sreg::Clock | Sreg::ClockHi | Sreg::Clock64) {
            return false;
        }
    }
    m.slots().all(|s| du.locs.of(s).all(|l| du.ssa(l)))
}
