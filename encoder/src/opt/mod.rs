//! The optimiser: machine IR on virtual registers, between lowering and reconvergence and
//! register allocation (docs/optimiser.md, docs/adr/0005-optimiser.md).
//!
//! Lowering translates each PTX instruction on its own; the passes here improve the result
//! as a whole, on the SSA values of `defuse.rs`. Each pass changes instructions in place or
//! deletes them (a `NOP` tombstone), so that instruction indices, and with them the
//! def-use information, hold until [`compact`] removes the tombstones between rounds.

mod address;
mod branches;
mod combine;
mod constants;
mod copies;
mod cse;
mod dead;
mod defuse;
mod ifconvert;
mod licm;
mod rewrite;
mod simplify;
mod sync;
mod uniform;
mod vectorize;

use crate::mir::{MInst, VRegs};
use defuse::DefUse;
use rewrite::deleted;

/// Rounds of the passes at most: each round enables the next (a folded constant makes a
/// branch known, whose removal makes a value single-definition...), and real code settles
/// in two or three.
const MAX_ROUNDS: usize = 8;

/// Optimises one function's code at `options.opt_level` (0: nothing, the literal
/// translation) within `options.max_registers`.
pub fn optimise(
    code: &mut Vec<MInst>,
    vregs: &mut VRegs,
    label_pos: &mut [usize],
    options: &crate::Options,
) {
    let level = options.opt_level;
    if level == 0 {
        return;
    }
    rounds(code, vregs, label_pos, level);
    if level >= 3 && has_back_edges(code, label_pos) {
        let du = DefUse::build(code, vregs, label_pos);
        if let Some((moved, labels)) =
            licm::hoist(code, vregs, label_pos, &du, options.max_registers)
        {
            *code = moved;
            label_pos.copy_from_slice(&labels);
        }
    }
    // Each of the last passes needs the analysis only where it has work: loads to merge,
    // conditional branches.
    if level >= 2 && vectorize::candidates(code) {
        let du = DefUse::build(code, vregs, label_pos);
        if vectorize::vectorize(code, vregs, &du) {
            compact(code, label_pos);
        }
    }
    if !code.iter().any(uniform::conditional_branch) {
        return;
    }
    // Short blocks under a branch become guarded code once everything else has settled
    // (guarded writes are not SSA values, so this comes last), and what that exposes is
    // cleaned up.
    let du = DefUse::build(code, vregs, label_pos);
    let du = if level >= 3 && ifconvert::convert(code, label_pos, &du) {
        compact(code, label_pos);
        rounds(code, vregs, label_pos, level);
        DefUse::build(code, vregs, label_pos)
    } else {
        du
    };
    uniform::mark_uniform_branches(code, &du);
}

/// The passes, in rounds until the control flow settles. Within a round each pass sees what
/// the earlier ones did, and they are ordered so that none enables one before it, but for
/// changes to the control flow (a branch found dead or certain, unreachable code gone, which
/// also turns values written only once more into SSA values): those take another round.
fn rounds(code: &mut Vec<MInst>, vregs: &VRegs, label_pos: &mut [usize], level: u8) {
    for round in 0..MAX_ROUNDS {
        let mut flow = branches::simplify(code, label_pos);
        // One analysis serves the passes up to dead code: they delete instructions (which
        // only removes reads and writes), rename reads of copies to their originals (whose
        // definitions dominate the copies, so their values stay SSA values) and change
        // instructions in place.
        let du = DefUse::build(code, vregs, label_pos);
        flow |= branches::remove_unreachable(code, &du);
        let folded = constants::propagate(code, &du);
        flow |= folded.control;
        let mut cleaned = folded.any;
        cleaned |= simplify::simplify(code, &du);
        cleaned |= copies::propagate(code, vregs, &du);
        // Repeated computations come from lowering (and copies of them): the first round
        // finds them.
        if round == 0 && level >= 2 {
            cleaned |= cse::eliminate(code, vregs, &du);
        }
        cleaned |= sync::remove_repeated(code, &du);
        cleaned |= dead::remove(code, &du);
        // Combining reads uses and definitions as they are now, after dead code has gone
        // (a 64-bit address whose high word nothing reads stays 32-bit arithmetic); what it
        // replaced goes at once.
        // Both read the analysis as it is now: address folding changes values (each
        // address drops its constant into the offset) where combining only regroups.
        if level >= 2 {
            let du = if cleaned {
                DefUse::build(code, vregs, label_pos)
            } else {
                du
            };
            if address::fold(code, &du) | combine::combine(code, &du) {
                dead::remove(code, &du);
            }
        }
        compact(code, label_pos);
        if !flow {
            break;
        }
    }
}

/// Whether some branch goes backwards: a loop, maybe.
fn has_back_edges(code: &[MInst], label_pos: &[usize]) -> bool {
    code.iter().enumerate().any(|(i, m)| match m.target {
        Some(crate::mir::Target::Label(l)) => label_pos[l as usize] <= i,
        _ => false,
    })
}

/// Removes deleted instructions, moving each label to the first instruction left at or
/// after it.
fn compact(code: &mut Vec<MInst>, label_pos: &mut [usize]) {
    let mut new_index = Vec::with_capacity(code.len() + 1);
    let mut kept = 0;
    for m in code.iter() {
        new_index.push(kept);
        kept += usize::from(!deleted(m));
    }
    new_index.push(kept);
    if kept == code.len() {
        return;
    }
    code.retain(|m| !deleted(m));
    for p in label_pos.iter_mut() {
        *p = new_index[(*p).min(new_index.len() - 1)];
    }
}
