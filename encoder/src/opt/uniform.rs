//! Divergence analysis: which values are the same in every thread of a warp, so that a
//! branch on such a value cannot split the warp and needs no reconvergence point. Such a
//! branch is marked `.UNI`, and `cfg.rs` puts no `SSY` before it.
//!
//! A value is *divergent* (may differ between the threads of a warp) when:
//! - a source makes it so: a thread's index or lane, a load, an atomic, a shuffle, a
//!   surface access, the clock, a register nothing writes (a function's arguments come
//!   through memory, so this is only undefined values);
//! - an instruction computes it from a divergent value, or writes it under a divergent
//!   guard;
//! - it is written inside the region a divergent branch controls (the blocks between the
//!   branch and its immediate post-dominator) and read outside it: threads that took
//!   different paths, or left a loop after different iterations, hold different values.
//!
//! The carry has no slot: the one an instruction reads from the instruction just before it
//! (in its block, always running: a 64-bit add's two halves) is as divergent as that
//! instruction's results; any other is the function's carry, one value tracked for the
//! whole function, divergent once any instruction that writes the carry is tainted as
//! above or writes it inside a divergent branch's region.
//!
//! A branch is divergent when its guard is. Both grow together to a fixed point. Constant
//! banks (kernel parameters), `%ctaid`, `%ntid` and the like, immediates, and what is
//! computed from them alone are uniform.

use super::defuse::{carry_roles, reads, DefUse};
use super::rewrite::deleted;
use crate::mir::{Field, MInst};
use sgpu_isa::{fields, opcodes, Sreg, Unit};

/// Functions with more blocks than this are left alone: the regions are found by a walk per
/// divergent branch.
const MAX_BLOCKS: usize = 4096;

/// Marks every conditional branch whose guard is uniform as `.UNI`; whether any was.
pub fn mark_uniform_branches(code: &mut [MInst], du: &DefUse) -> bool {
    if !code.iter().any(conditional_branch) {
        return false;
    }
    let divergent = divergent_locations(code, du);
    let mut changed = false;
    for m in code.iter_mut() {
        if m.opcode() != opcodes::BRA || !m.guarded() || uni(m) {
            continue;
        }
        let guard = m
            .slots()
            .find(|s| s.field == Field::of(fields::PG))
            .copied();
        if guard.is_some_and(|g| !divergent[du.locs.of(&g).start]) {
            sgpu_isa::set_field(&mut m.word, fields::UNI, 1).expect("a flag takes 1");
            changed = true;
        }
    }
    changed
}

/// A branch under a guard not yet marked `.UNI`: what the analysis is for.
pub fn conditional_branch(m: &MInst) -> bool {
    m.opcode() == opcodes::BRA && m.guarded() && !uni(m)
}

fn uni(m: &MInst) -> bool {
    sgpu_isa::field(m.word, fields::UNI) != 0
}

/// Which locations may differ between the threads of a warp.
pub fn divergent_locations(code: &[MInst], du: &DefUse) -> Vec<bool> {
    let n = du.locs.len();
    if du.cfg.starts.len() > MAX_BLOCKS {
        return vec![true; n];
    }
    let mut divergent = vec![false; n];
    // Locations never written hold whatever they held: undefined, so assumed divergent.
    let mut written = vec![false; n];
    for m in code {
        for s in m.slots().filter(|s| s.def()) {
            du.locs.of(s).for_each(|l| written[l] = true);
        }
    }
    for (l, w) in written.iter().enumerate() {
        divergent[l] = !w;
    }
    let ipdom = du.cfg.post_dominators();
    let mut split = vec![false; du.cfg.starts.len()];
    let mut carry = false;
    loop {
        let mut changed = false;
        for (i, m) in code.iter().enumerate().filter(|(_, m)| !deleted(m)) {
            let (reads_carry, writes_carry) = carry_roles(m);
            // A vote or a reduction gives every thread taking part the same result, whatever
            // each brought; only a guard that splits the threads (or the value a guard keeps)
            // makes it differ.
            let operands_matter = !matches!(m.opcode(), opcodes::VOTE | opcodes::REDUX);
            let read = |s: &&crate::mir::Slot| {
                operands_matter || s.def() || s.field == Field::of(fields::PG)
            };
            let tainted = divergent_source(m)
                || (reads_carry && carry_divergent(code, du, i, &divergent, carry))
                || reads(m)
                    .filter(read)
                    .any(|s| du.locs.of(s).any(|l| divergent[l]));
            if tainted {
                changed |= writes_carry && !std::mem::replace(&mut carry, true);
                for s in m.slots().filter(|s| s.def()) {
                    for l in du.locs.of(s) {
                        changed |= !std::mem::replace(&mut divergent[l], true);
                    }
                }
            }
        }
        // Branches that now split the warp, and what their regions make divergent.
        for b in 0..du.cfg.starts.len() {
            let end = du.cfg.starts.get(b + 1).copied().unwrap_or(code.len());
            let last = &code[end - 1];
            if split[b] || last.opcode() != opcodes::BRA || !last.guarded() {
                continue;
            }
            let guard = last.slots().find(|s| s.field == Field::of(fields::PG));
            if guard.is_some_and(|g| du.locs.of(g).any(|l| divergent[l])) {
                split[b] = true;
                changed = true;
                let region = region(du, b, ipdom[b]);
                escape(code, du, &region, &mut divergent);
                let block = &du.cfg.block_of;
                carry |= (0..code.len()).any(|i| region[block[i]] && carry_roles(&code[i]).1);
            }
        }
        if !changed {
            return divergent;
        }
    }
}

/// Whether the carry instruction `i` reads may differ between threads: the one the
/// instruction before it in its block writes (always running) is as divergent as that
/// instruction's results; any other is the function's carry, `carry`.
fn carry_divergent(code: &[MInst], du: &DefUse, i: usize, divergent: &[bool], carry: bool) -> bool {
    let block = &du.cfg.block_of;
    let before = (0..i)
        .rev()
        .take_while(|&j| block[j] == block[i])
        .find(|&j| !deleted(&code[j]));
    let Some(j) = before.filter(|&j| code[j].always_runs() && carry_roles(&code[j]).1) else {
        return carry;
    };
    let mut results = code[j].slots().filter(|s| s.def()).peekable();
    match results.peek() {
        None => carry,
        Some(_) => results.any(|s| du.locs.of(s).any(|l| divergent[l])),
    }
}

/// The blocks reachable from block `b`'s successors without passing `join` (its immediate
/// post-dominator): where the threads of a warp may be apart after `b`'s branch.
fn region(du: &DefUse, b: usize, join: usize) -> Vec<bool> {
    let blocks = du.cfg.starts.len();
    let mut inside = vec![false; blocks];
    let mut stack: Vec<usize> = du.cfg.succs[b].clone();
    while let Some(x) = stack.pop() {
        if x >= blocks || x == join || inside[x] {
            continue;
        }
        inside[x] = true;
        stack.extend(du.cfg.succs[x].iter().copied());
    }
    inside
}

/// Marks divergent every location written inside `region` and read outside it.
fn escape(code: &[MInst], du: &DefUse, region: &[bool], divergent: &mut [bool]) {
    let block = &du.cfg.block_of;
    for (i, m) in code.iter().enumerate() {
        if !region[block[i]] {
            continue;
        }
        for s in m.slots().filter(|s| s.def()) {
            for l in du.locs.of(s) {
                if du.uses(l).iter().any(|&u| !region[block[u as usize]]) {
                    divergent[l] = true;
                }
            }
        }
    }
}

/// Whether the instruction's results may differ between threads whatever its operands: a
/// thread's own special registers, memory other than the constant banks, atomics, surfaces,
/// warp exchanges and matches.
fn divergent_source(m: &MInst) -> bool {
    let op = m.opcode();
    match sgpu_isa::unit_of_opcode(op) {
        Some(Unit::Int) if op == opcodes::S2R => {
            let sreg = Sreg::from_bits(sgpu_isa::field(m.word, fields::SREG));
            !sreg.is_some_and(|s| UNIFORM_SREGS.contains(&s))
        }
        Some(Unit::Mem) => op != opcodes::LDC,
        Some(Unit::Warp) => !matches!(op, opcodes::VOTE | opcodes::REDUX),
        Some(Unit::Surface | Unit::Control) => true,
        _ => false,
    }
}

/// The special registers every thread of a warp reads alike.
const UNIFORM_SREGS: [Sreg; 15] = [
    Sreg::NtidX,
    Sreg::NtidY,
    Sreg::NtidZ,
    Sreg::CtaidX,
    Sreg::CtaidY,
    Sreg::CtaidZ,
    Sreg::NctaidX,
    Sreg::NctaidY,
    Sreg::NctaidZ,
    Sreg::Warpid,
    Sreg::Nwarpid,
    Sreg::Smid,
    Sreg::Nsmid,
    Sreg::DynamicSmemSize,
    Sreg::TotalSmemSize,
];
