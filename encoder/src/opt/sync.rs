//! Redundant warp synchronisation: lowering puts a `WARPSYNC` before every `.sync` warp
//! operation (a shuffle, a vote), so a run of them checks the same member mask again and
//! again. Within a block the warp's running threads do not change (a branch or an exit ends
//! the block; threads that exit in a called function leave the member check, which counts
//! only threads that have not exited), so a second `WARPSYNC` of a mask already checked in
//! the block passes whenever the first did, and goes.

use super::defuse::DefUse;
use super::rewrite::{delete, deleted};
use crate::mir::MInst;
use sgpu_isa::{fields, opcodes};

/// What a `WARPSYNC` checks: an immediate mask, or the SSA value holding one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mask {
    Imm(u64),
    Value(usize),
}

/// Deletes repeated checks of one mask within a block; whether any went.
pub fn remove_repeated(code: &mut [MInst], du: &DefUse) -> bool {
    let mut changed = false;
    let mut checked: Vec<Mask> = Vec::new();
    for (i, m) in code.iter_mut().enumerate() {
        if du.cfg.starts.binary_search(&i).is_ok() {
            checked.clear();
        }
        if deleted(m) || !m.always_runs() {
            continue;
        }
        let mask = match m.opcode() {
            opcodes::WARPSYNCI => Mask::Imm(sgpu_isa::field(m.word, fields::IMM32)),
            opcodes::WARPSYNC => match m.slots().next() {
                Some(s) if du.ssa(du.locs.of(s).start) => Mask::Value(du.locs.of(s).start),
                _ => continue,
            },
            _ => continue,
        };
        if checked.contains(&mask) {
            delete(m);
            changed = true;
        } else {
            checked.push(mask);
        }
    }
    changed
}
