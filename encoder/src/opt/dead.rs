//! Dead-code elimination: an instruction without side effects whose every written location
//! is read nowhere goes, and a carry that nothing reads is no longer written (`IADD.CC`
//! whose `IADD.X` went becomes `IADD`, which may then go too).

use super::defuse::{carry_roles, reads, DefUse};
use super::rewrite::{decoded, delete, deleted, replace};
use crate::mir::MInst;
use sgpu_isa::{opcodes, Cop, Op, Unit};

/// Removes dead instructions; whether anything changed.
pub fn remove(code: &mut [MInst], du: &DefUse) -> bool {
    let locs = &du.locs;
    let mut uses = vec![0u32; locs.len()];
    for m in code.iter() {
        for s in reads(m) {
            locs.of(s).for_each(|l| uses[l] += 1);
        }
    }
    // What each instruction does beyond its registers, decoded once.
    let mut facts: Vec<Facts> = code.iter().map(Facts::of).collect();
    let mut changed = false;
    loop {
        // Another sweep is needed only when a deletion makes dead a location whose write
        // this backward sweep has already passed (a value carried round a loop).
        let mut passed = vec![false; locs.len()];
        let mut again = false;
        // Whether an instruction after this one reads the carry before it is written again:
        // at a block's end, the carry's liveness there.
        let mut carry_read = false;
        for i in (0..code.len()).rev() {
            let b = du.cfg.block_of[i];
            if du.cfg.end(b) == i + 1 {
                carry_read = du.carry_live_out(b);
            }
            let m = &mut code[i];
            if deleted(m) {
                continue;
            }
            let f = facts[i];
            // Read elsewhere: a guarded write reads its own destination, which does not count.
            let own = |l: usize| reads(m).filter(|s| locs.of(s).contains(&l)).count() as u32;
            let written_read = m
                .slots()
                .filter(|s| s.def())
                .any(|s| locs.of(s).any(|l| uses[l] > own(l)));
            let needed = written_read || f.carry_write && carry_read;
            if !needed && f.removable {
                for s in reads(m) {
                    for l in locs.of(s) {
                        uses[l] -= 1;
                        again |= uses[l] == 0 && passed[l];
                    }
                }
                delete(m);
                changed = true;
                continue;
            }
            for s in m.slots().filter(|s| s.def()) {
                locs.of(s).for_each(|l| passed[l] = true);
            }
            if f.carry_write {
                if !carry_read && drop_carry(m) {
                    facts[i].carry_write = false;
                    changed = true;
                }
                // A guarded write leaves the carry before it in the threads it skips.
                carry_read &= !m.always_runs();
            }
            if f.carry_read {
                carry_read = true;
            }
        }
        if !again {
            return changed;
        }
    }
}

/// What dead-code elimination needs to know of an instruction beyond its slots.
#[derive(Clone, Copy)]
struct Facts {
    /// Removing it changes nothing but the registers it writes: the integer, float and
    /// video units, constant-bank loads and loads that are not volatile.
    removable: bool,
    carry_read: bool,
    carry_write: bool,
}

impl Facts {
    fn of(m: &MInst) -> Facts {
        let unit = sgpu_isa::unit_of_opcode(m.opcode());
        let mut f = Facts {
            removable: matches!(
                unit,
                Some(Unit::Int | Unit::Float | Unit::Sfu | Unit::Video)
            ),
            carry_read: false,
            carry_write: false,
        };
        (f.carry_read, f.carry_write) = carry_roles(m);
        // Only a load's cache operator needs looking into.
        match m.opcode() {
            opcodes::LDC => f.removable = true,
            opcodes::LD => f.removable = !matches!(decoded(m).op, Op::Ld { cop: Cop::Cv, .. }),
            _ => {}
        }
        f
    }
}

/// Stops `m` writing the carry; whether it did.
fn drop_carry(m: &mut MInst) -> bool {
    let mut insn = decoded(m);
    match &mut insn.op {
        Op::Iadd { cc, .. } | Op::Imad { cc, .. } if *cc => *cc = false,
        _ => return false,
    }
    replace(m, insn)
}
