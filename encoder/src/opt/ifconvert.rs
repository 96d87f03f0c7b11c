//! If-conversion: a short block that a conditional branch jumps over runs under the
//! branch's inverted guard instead, and the branch (and with it the `SSY` a divergent branch
//! needs) goes. Every thread then issues the block's instructions, those whose guard is false
//! doing nothing: cheaper than a branch for a few instructions, as NVIDIA's compilers find.
//!
//! `@p BRA L; B; L:` (B falling through to L, or ending with `BRA L`) becomes `@!p B; L:`,
//! and `@p BRA L; B; BRA L` with L elsewhere becomes `@!p B; BRA L`,
//! when B is reached only from the branch, has at most [`MAX_INSTRUCTIONS`] (at most
//! [`MAX_UNIFORM`] when `p` is the same in every thread of a warp: such a branch costs no
//! `SSY` and skips B in whole warps, so predication pays only for the shortest blocks), none
//! of them guarded already or of the control or warp units (a guarded barrier or shuffle is
//! not a skipped one), and none writing `p`.

use super::defuse::DefUse;
use super::rewrite::{decoded, delete, deleted, replace};
use crate::mir::{Field, MInst, Marks, Slot, Target};
use sgpu_isa::{fields, opcodes, PredSrc, Unit};

/// The longest block converted under a branch that may split a warp.
pub const MAX_INSTRUCTIONS: usize = 8;
/// The longest block converted under a branch on a warp-uniform value.
pub const MAX_UNIFORM: usize = 2;

/// Converts what it can; whether anything changed.
pub fn convert(code: &mut [MInst], label_pos: &[usize], du: &DefUse) -> bool {
    if !code.iter().any(super::uniform::conditional_branch) {
        return false;
    }
    let divergent = super::uniform::divergent_locations(code, du);
    let cfg = &du.cfg;
    let preds = cfg.predecessors();
    let n = code.len();
    let mut changed = false;
    for b in 0..cfg.starts.len() {
        let end = cfg.end(b);
        let branch = end - 1;
        let m = &code[branch];
        if deleted(m) || m.opcode() != opcodes::BRA || !m.guarded() {
            continue;
        }
        let Some(Target::Label(label)) = m.target else {
            continue;
        };
        // The block skipped: the next one, entered only from here.
        let skipped = b + 1;
        if skipped >= cfg.starts.len() || preds[skipped] != [b] {
            continue;
        }
        let (start, stop) = (end, cfg.starts.get(skipped + 1).copied().unwrap_or(n));
        let join = label_pos[label as usize];
        let last = &code[stop - 1];
        // B ends where L starts, or with an unconditional branch to L.
        let jumps_to_join = is_jump_to(last, label, label_pos, join);
        let guard = *m
            .slots()
            .find(|s| s.field == Field::of(fields::PG))
            .expect("a guarded branch has its guard's slot");
        let most = if divergent[du.locs.of(&guard).start] {
            MAX_INSTRUCTIONS
        } else {
            MAX_UNIFORM
        };
        // B falls through to L, or branches to L from wherever L is (then the branch stays,
        // unless L is next).
        if !(join == stop || jumps_to_join) || stop - start > most + usize::from(jumps_to_join) {
            continue;
        }
        let body = if jumps_to_join {
            start..stop - 1
        } else {
            start..stop
        };
        if jumps_to_join && !last.always_runs() {
            continue;
        }
        let negated = sgpu_isa::field(m.word, fields::PGN) != 0;
        if !code[body.clone()].iter().all(|i| convertible(i, &guard)) {
            continue;
        }
        for i in body.clone() {
            let fresh = fresh(&code[i], du, &body, i);
            guard_with(&mut code[i], guard, !negated);
            code[i].marks.set(Marks::FRESH_DEFS, fresh);
        }
        delete(&mut code[branch]);
        if jumps_to_join && join == stop {
            delete(&mut code[stop - 1]);
        }
        changed = true;
    }
    changed
}

/// Whether `m` is an unconditional branch to label `label` (or to where it is).
fn is_jump_to(m: &MInst, label: u32, label_pos: &[usize], at: usize) -> bool {
    m.opcode() == opcodes::BRA
        && match m.target {
            Some(Target::Label(l)) => l == label || label_pos[l as usize] == at,
            _ => false,
        }
}

/// Whether `m` can run under a guard in place of being skipped.
fn convertible(m: &MInst, guard: &Slot) -> bool {
    if deleted(m) {
        return true;
    }
    let unit = sgpu_isa::unit_of_opcode(m.opcode());
    let writes_guard = m.slots().any(|s| s.def() && s.reg == guard.reg);
    m.always_runs()
        && usize::from(m.nslots) < crate::mir::MAX_SLOTS
        && !m.marks.has(Marks::OUTGOING)
        && !m.marks.has(Marks::CALL_FRAME)
        && !writes_guard
        && !matches!(unit, Some(Unit::Control | Unit::Warp) | None)
}

/// Whether every location the instruction at `i` writes is a temporary of the block: an SSA
/// value read only after it within `body`, so by instructions under the same guard, which no
/// thread the guard leaves out reaches.
fn fresh(m: &MInst, du: &DefUse, body: &std::ops::Range<usize>, i: usize) -> bool {
    m.slots().filter(|s| s.def()).all(|s| {
        du.locs.of(s).all(|l| {
            let inside = |&u: &u32| (i + 1..body.end).contains(&(u as usize));
            du.ssa(l) && du.uses(l).iter().all(inside)
        })
    })
}

/// Puts `m` under the guard `p` (negated when `negated`).
fn guard_with(m: &mut MInst, p: Slot, negated: bool) {
    if deleted(m) {
        return;
    }
    let mut insn = decoded(m);
    insn.guard = PredSrc {
        pred: sgpu_isa::Pred(0),
        negated,
    };
    assert!(replace(m, insn), "a guard fits every instruction");
    m.push_slot(Slot::new(Field::of(fields::PG), p.reg, p.part(), 1, false));
}
