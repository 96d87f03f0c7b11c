//! Copy propagation: a read of an SSA value that is a copy (`MOV`) of another SSA value
//! reads the original instead, and the copy is left to dead-code elimination.
//!
//! A read of several registers at once (a 64-bit address, a vector) is renamed only when
//! every one of them is a copy of the matching register of one original tuple, aligned as
//! the read needs: registers are renamed, never regrouped.

use super::defuse::DefUse;
use super::rewrite::decoded;
use crate::mir::{Class, MInst, Slot, VRegs};
use sgpu_isa::Op;

/// Renames reads of copies to their originals; whether anything changed.
pub fn propagate(code: &mut [MInst], vregs: &VRegs, du: &DefUse) -> bool {
    let locs = &du.locs;
    // The location each one is a copy of (itself when none), chains followed.
    let mut original: Vec<u32> = (0..locs.len() as u32).collect();
    for m in code.iter() {
        if let Some((d, s)) = copy(m) {
            let (d, s) = (locs.of(&d).start, locs.of(&s).start);
            if du.ssa(d) && du.ssa(s) && du.def(d).is_some() {
                original[d] = s as u32;
            }
        }
    }
    rename(code, vregs, du, original)
}

/// Renames every read of a location to `original[location]`, each chain followed to its
/// end (definitions dominate their uses, so chains have no cycles); whether anything
/// changed. Each renamed location must be an SSA value equal to its original wherever it is
/// read.
pub fn rename(code: &mut [MInst], vregs: &VRegs, du: &DefUse, mut original: Vec<u32>) -> bool {
    for l in 0..original.len() {
        let mut o = original[l];
        while original[o as usize] != o {
            o = original[o as usize];
        }
        original[l] = o;
    }
    let mut changed = false;
    for m in code.iter_mut() {
        // A guarded write reads the old value too, in the register it writes: only sources
        // are renamed.
        for i in 0..usize::from(m.nslots) {
            let s = m.slots[i];
            if s.def() {
                continue;
            }
            if let Some(renamed) = renamed(s, &original, vregs, du) {
                m.slots[i] = renamed;
                changed = true;
            }
        }
    }
    changed
}

/// The destination and source of an unconditional `MOV` between two registers.
fn copy(m: &MInst) -> Option<(Slot, Slot)> {
    if !m.always_runs() || !matches!(decoded(m).op, Op::Mov { .. }) || m.nslots != 2 {
        return None;
    }
    let d = *m.slots().find(|s| s.def())?;
    let s = *m.slots().find(|s| !s.def())?;
    Some((d, s))
}

/// `s` reading the originals of the copies it reads, if they are one aligned tuple.
fn renamed(s: Slot, original: &[u32], vregs: &VRegs, du: &DefUse) -> Option<Slot> {
    let locs = &du.locs;
    let range = locs.of(&s);
    let first = original[range.start] as usize;
    if first == range.start {
        return None;
    }
    let (v, part) = locs.reg(first);
    let width = s.width();
    let size = match vregs.class(v) {
        Class::Gpr { size } => size,
        Class::Pred => 1,
    };
    let aligned = part % width == 0 && part + width <= size;
    let whole = range
        .clone()
        .enumerate()
        .all(|(k, l)| original[l] as usize == first + k);
    (aligned && whole).then(|| s.renamed(v, part))
}
