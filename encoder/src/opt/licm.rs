//! Loop-invariant code motion: an instruction in a loop that computes the same value on
//! every trip (a pure instruction whose operands are written nowhere in the loop, or by
//! instructions hoisted before it) moves to the loop's preheader, and runs once.
//!
//! Loops are natural loops: a back edge from `b` to a header `h` that dominates it, and the
//! blocks that reach `b` without passing `h`. The preheader is `h`'s one predecessor outside
//! the loop, when `h` is its only successor; hoisted code goes at its end, before its branch
//! if it has one. Loops with calls are left alone (values live across a call are kept in
//! memory). Hoisting lengthens the result's life over the whole loop, so it stops
//! while the loop's register pressure (estimated from above: every word read in the loop
//! but written before it, plus every word written in it) would pass the budget.

use super::defuse::DefUse;
use super::rewrite::repeatable;
use crate::mir::{Class, MInst, VRegs};
use sgpu_isa::opcodes;

/// Hoists invariant instructions out of every loop; the new code and label positions when
/// anything moved.
pub fn hoist(
    code: &[MInst],
    vregs: &VRegs,
    label_pos: &[usize],
    du: &DefUse,
    budget: u32,
) -> Option<(Vec<MInst>, Vec<usize>)> {
    let cfg = &du.cfg;
    let blocks = cfg.starts.len();
    let preds = cfg.predecessors();
    // Instructions to move, each with the index it goes before (and whether that index is
    // the preheader's branch); each moves once, out of the outermost loop it is invariant in
    // (outer headers come first).
    let mut moves: Vec<Move> = Vec::new();
    let mut taken = vec![false; code.len()];
    let end_of = |b: usize| cfg.end(b);
    for h in 0..blocks {
        let latches: Vec<usize> = preds[h]
            .iter()
            .copied()
            .filter(|&b| du.doms.dominates(h, b))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let body = loop_body(&preds, h, &latches, blocks);
        // Across a call every value is in memory: a hoisted one would be loaded on every
        // trip instead of computed, and stored once more.
        let calls = (0..code.len()).any(|i| body[cfg.block_of[i]] && code[i].is_call());
        if calls {
            continue;
        }
        let outside: Vec<usize> = preds[h].iter().copied().filter(|&p| !body[p]).collect();
        let [pre] = outside[..] else { continue };
        if cfg.succs[pre] != [h] {
            continue;
        }
        // Hoisted code goes before the preheader's branch, or at its end.
        let last = end_of(pre) - 1;
        let branch = code[last].opcode() == opcodes::BRA;
        let at = if branch { last } else { last + 1 };
        for i in invariants(code, vregs, du, &body, budget) {
            if !std::mem::replace(&mut taken[i], true) {
                moves.push(Move {
                    from: i,
                    to: at,
                    into_block: branch,
                });
            }
        }
    }
    if moves.is_empty() {
        return None;
    }
    Some(rebuild(code, label_pos, &moves))
}

/// An instruction to hoist: from where to before which index; `into_block` when that index
/// is the preheader's branch (labels there name the hoisted code too), not the header's
/// first instruction (whose labels, the loop's, must not).
struct Move {
    from: usize,
    to: usize,
    into_block: bool,
}

/// The blocks of the natural loop of header `h` with back edges from `latches`.
fn loop_body(preds: &[Vec<usize>], h: usize, latches: &[usize], blocks: usize) -> Vec<bool> {
    let mut body = vec![false; blocks];
    body[h] = true;
    let mut stack: Vec<usize> = latches.to_vec();
    while let Some(b) = stack.pop() {
        if !body[b] {
            body[b] = true;
            stack.extend(preds[b].iter().copied());
        }
    }
    body
}

/// The loop's invariant instructions, in order, as many as the register budget allows.
fn invariants(
    code: &[MInst],
    vregs: &VRegs,
    du: &DefUse,
    body: &[bool],
    budget: u32,
) -> Vec<usize> {
    let in_loop = |i: usize| body[du.cfg.block_of[i]];
    let n = du.locs.len();
    // Locations the loop writes, and the register words it reads from before it.
    let mut written = vec![false; n];
    for (_, m) in code.iter().enumerate().filter(|&(i, _)| in_loop(i)) {
        for s in m.slots().filter(|s| s.def()) {
            du.locs.of(s).for_each(|l| written[l] = true);
        }
    }
    let gpr = |l: usize| vregs.class(du.locs.reg(l).0) != Class::Pred;
    let mut live_through = vec![false; n];
    for (_, m) in code.iter().enumerate().filter(|&(i, _)| in_loop(i)) {
        for s in m.slots().filter(|s| !s.def()) {
            du.locs
                .of(s)
                .filter(|&l| !written[l])
                .for_each(|l| live_through[l] = true);
        }
    }
    let words = |v: &[bool]| (0..n).filter(|&l| v[l] && gpr(l)).count() as u32;
    let mut pressure = words(&live_through) + words(&written);
    let mut hoisted = Vec::new();
    for (i, m) in code.iter().enumerate().filter(|&(i, _)| in_loop(i)) {
        if !movable(m, du) {
            continue;
        }
        let reads_invariant = m
            .slots()
            .filter(|s| !s.def())
            .all(|s| du.locs.of(s).all(|l| !written[l]));
        if !reads_invariant {
            continue;
        }
        let defs: Vec<usize> = m
            .slots()
            .filter(|s| s.def())
            .flat_map(|s| du.locs.of(s))
            .collect();
        // Its results now live through the whole loop.
        let extra = defs.iter().filter(|&&l| gpr(l)).count() as u32;
        if pressure + extra > budget {
            break;
        }
        pressure += extra;
        for l in defs {
            // Written before the loop now: what reads it may move too.
            written[l] = false;
        }
        hoisted.push(i);
    }
    hoisted
}

/// Whether `m` may run once before the loop instead of on every trip: a repeatable
/// instruction (`rewrite::repeatable`) writing SSA values only.
fn movable(m: &MInst, du: &DefUse) -> bool {
    let ssa = |s: &crate::mir::Slot| !s.def() || du.locs.of(s).all(|l| du.ssa(l));
    repeatable(m) && m.slots().all(ssa)
}

/// The code with each instruction of `moves` taken from where it was and put before its
/// target index, and the labels moved with the instructions they name.
fn rebuild(code: &[MInst], label_pos: &[usize], moves: &[Move]) -> (Vec<MInst>, Vec<usize>) {
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); code.len() + 1];
    let mut into_block = vec![false; code.len() + 1];
    let mut moved = vec![false; code.len()];
    for m in moves {
        before[m.to].push(m.from);
        into_block[m.to] |= m.into_block;
        moved[m.from] = true;
    }
    let mut out = Vec::with_capacity(code.len());
    let mut new_index = Vec::with_capacity(code.len() + 1);
    for (i, m) in code.iter().enumerate() {
        if into_block[i] {
            new_index.push(out.len());
        }
        out.extend(before[i].iter().map(|&k| code[k].clone()));
        if !into_block[i] {
            new_index.push(out.len());
        }
        if !moved[i] {
            out.push(m.clone());
        }
    }
    out.extend(before[code.len()].iter().map(|&k| code[k].clone()));
    new_index.push(out.len());
    let labels = label_pos
        .iter()
        .map(|&p| new_index[p.min(code.len())])
        .collect();
    (out, labels)
}
