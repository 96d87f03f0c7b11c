//! Common subexpression elimination: an instruction computing what an instruction that
//! dominates it computed (the same word, so the same operation and immediates, reading the
//! same SSA values) gives the same values; its reads are renamed to the first one's results,
//! and it is left to dead-code elimination. Within a block this is the classic local form;
//! over the dominator tree it also merges a parameter or `%tid` read in both arms of a branch
//! with the one before it.

use super::copies::rename;
use super::defuse::DefUse;
use super::rewrite::repeatable;
use crate::mir::{MInst, VRegs};
use rustc_hash::FxHashMap;

/// What an instruction computes, as far as equality goes: its word and the registers it
/// reads, each as its location, field and width packed in one number (at most five: an
/// unguarded instruction's sources).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    word: u64,
    reads: [u64; 5],
}

impl std::hash::Hash for Key {
    /// One well-mixed number: words of one kind differ in a few bits only, which a
    /// multiplicative hasher fed field by field spreads badly over the table.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let fmix = |mut x: u64| {
            x ^= x >> 33;
            x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
            x ^= x >> 33;
            x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
            x ^ x >> 33
        };
        let mixed = (self.reads.iter()).fold(fmix(self.word), |acc, &r| fmix(acc ^ r));
        h.write_u64(mixed);
    }
}

fn key(m: &MInst, du: &DefUse) -> Key {
    let mut reads = [u64::MAX; 5];
    for (r, s) in reads.iter_mut().zip(m.slots().filter(|s| !s.def())) {
        let l = du.locs.of(s).start as u64;
        *r = l << 16 | u64::from(s.field.0) << 8 | u64::from(s.width());
    }
    Key {
        word: m.word,
        reads,
    }
}

/// Merges repeated computations; whether any were found.
pub fn eliminate(code: &mut [MInst], vregs: &VRegs, du: &DefUse) -> bool {
    let locs = &du.locs;
    // Each computation's first instance; later ones that it does not dominate, in `others`
    // (few: a computation repeated in blocks that do not dominate one another).
    let mut first: FxHashMap<Key, usize> =
        FxHashMap::with_capacity_and_hasher(code.len(), Default::default());
    let mut others: FxHashMap<Key, Vec<usize>> = FxHashMap::default();
    let mut original: Vec<u32> = (0..locs.len() as u32).collect();
    let mut found = false;
    let dominates = |j: usize, i: usize| {
        let (bj, bi) = (du.cfg.block_of[j], du.cfg.block_of[i]);
        if bj == bi {
            j < i
        } else {
            du.doms.dominates(bj, bi)
        }
    };
    for b in du.cfg.reverse_postorder() {
        let start = du.cfg.starts[b];
        let end = du.cfg.end(b);
        for i in start..end {
            if !candidate(&code[i], du) {
                continue;
            }
            let k = key(&code[i], du);
            let j = match first.get(&k) {
                None => {
                    first.insert(k, i);
                    continue;
                }
                Some(&j) if dominates(j, i) => j,
                Some(_) => {
                    let later = others.entry(k).or_default();
                    match later.iter().copied().find(|&j| dominates(j, i)) {
                        Some(j) => j,
                        None => {
                            later.push(i);
                            continue;
                        }
                    }
                }
            };
            // Same word, so the same destination fields, in the same order.
            let defs = |k: usize| code[k].slots().filter(|s| s.def()).copied();
            for (d, first) in defs(i).zip(defs(j)) {
                for (l, o) in locs.of(&d).zip(locs.of(&first)) {
                    original[l] = o as u32;
                }
            }
            found = true;
        }
    }
    found && rename(code, vregs, du, original)
}

/// Whether a dominating copy of the instruction computes the same: a repeatable instruction
/// (`rewrite::repeatable`) reading and writing SSA values only.
fn candidate(m: &MInst, du: &DefUse) -> bool {
    repeatable(m) && m.slots().all(|s| du.locs.of(s).all(|l| du.ssa(l)))
}
