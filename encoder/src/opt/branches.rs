//! Branch clean-up: code no path reaches goes; a branch to the next instruction goes; a
//! conditional branch over an unconditional one becomes the inverse branch; a branch to an
//! unconditional branch goes straight to that one's target.

use super::defuse::DefUse;
use super::rewrite::{delete, deleted};
use crate::mir::{MInst, Target};
use sgpu_isa::{fields, opcodes};

/// Deletes the instructions of blocks the entry does not reach; whether there were any.
pub fn remove_unreachable(code: &mut [MInst], du: &DefUse) -> bool {
    let mut changed = false;
    for (i, m) in code.iter_mut().enumerate() {
        if !du.doms.reachable(du.cfg.block_of[i]) && !deleted(m) {
            delete(m);
            changed = true;
        }
    }
    changed
}

/// The first instruction not deleted at or after `i` (`code.len()` past the end).
fn live_from(code: &[MInst], mut i: usize) -> usize {
    while i < code.len() && deleted(&code[i]) {
        i += 1;
    }
    i
}

/// Where a branch goes, as the first live instruction there.
fn destination(code: &[MInst], label_pos: &[usize], m: &MInst) -> Option<usize> {
    match m.target? {
        Target::Label(l) => Some(live_from(code, label_pos[l as usize])),
        Target::End => None,
    }
}

fn is_branch(m: &MInst) -> bool {
    m.opcode() == opcodes::BRA && m.target.is_some()
}

/// Simplifies branches; whether anything changed.
pub fn simplify(code: &mut [MInst], label_pos: &[usize]) -> bool {
    let mut changed = false;
    for i in 0..code.len() {
        if deleted(&code[i]) || !is_branch(&code[i]) {
            continue;
        }
        changed |= thread(code, label_pos, i);
        let next = live_from(code, i + 1);
        let Some(to) = destination(code, label_pos, &code[i]) else {
            continue;
        };
        if to == next {
            // Taken or not, the branch lands on the next instruction.
            delete(&mut code[i]);
            changed = true;
            continue;
        }
        let after = live_from(code, next + 1);
        let over = next < code.len()
            && is_branch(&code[next])
            && code[next].is_unconditional_jump()
            && to == after
            && !code[i].always_runs();
        if over && code[i].guarded() {
            // `@p BRA L1; BRA L2; L1:` is `@!p BRA L2; L1:`.
            let negated = sgpu_isa::field(code[i].word, fields::PGN) != 0;
            sgpu_isa::set_field(&mut code[i].word, fields::PGN, i64::from(!negated))
                .expect("a flag takes 0 and 1");
            code[i].target = code[next].target;
            delete(&mut code[next]);
            changed = true;
        }
    }
    changed
}

/// A branch to an unconditional branch goes to that one's target instead (a chain of them
/// is followed a few steps, which also stops at a loop of branches).
fn thread(code: &mut [MInst], label_pos: &[usize], i: usize) -> bool {
    let mut changed = false;
    for _ in 0..4 {
        let Some(to) = destination(code, label_pos, &code[i]) else {
            break;
        };
        if to >= code.len() || to == i || !is_branch(&code[to]) {
            break;
        }
        if !code[to].is_unconditional_jump() || code[to].target == code[i].target {
            break;
        }
        code[i].target = code[to].target;
        changed = true;
    }
    changed
}
