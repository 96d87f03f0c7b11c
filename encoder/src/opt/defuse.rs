//! Where every 32-bit location is written and read, and which locations are SSA values.
//!
//! A location is one register of a virtual register's tuple (part `p` of a 64-bit value is
//! its own location) or a predicate. A location is an *SSA value* when it is written once,
//! by an instruction without a guard, and that write dominates every read (or when nothing
//! writes it: its value on entry never changes). For such a location the value every read
//! sees is the one its definition computed last, so the passes may reason about it as SSA
//! form's values (docs/adr/0005-optimiser.md); the others (registers written on several
//! paths, loop-carried values) are left as they are.
//!
//! The carry (`CC.CF`, written by `IADD.CC` and `IMAD.CC`, read by `.X`) is one more piece of
//! state, one bit a thread, that no slot names: [`DefUse::carry_live_out`] says where it is
//! live, so that no pass drops or rewrites a carry that a later instruction still reads.

use super::rewrite::{decoded, deleted};
use crate::cfg::{Cfg, Dominators};
use crate::mir::{Class, MInst, Slot, VReg, VRegs};
use sgpu_isa::opcodes;
use std::ops::Range;

/// The numbering of locations: part `p` of virtual register `v` is `base[v] + p`.
pub struct Locs {
    base: Vec<u32>,
    owner: Vec<VReg>,
}

impl Locs {
    pub fn new(vregs: &VRegs) -> Locs {
        let mut base = Vec::with_capacity(vregs.len());
        let mut owner = Vec::with_capacity(vregs.len());
        for (v, class) in vregs.classes.iter().enumerate() {
            base.push(owner.len() as u32);
            let size = match class {
                Class::Gpr { size } => *size,
                Class::Pred => 1,
            };
            owner.extend(std::iter::repeat_n(VReg(v as u32), usize::from(size)));
        }
        Locs { base, owner }
    }

    pub fn len(&self) -> usize {
        self.owner.len()
    }

    /// Whether `v` was numbered (a register a pass made since has no locations).
    pub fn has(&self, v: VReg) -> bool {
        (v.0 as usize) < self.base.len()
    }

    pub fn at(&self, v: VReg, part: u8) -> usize {
        self.base[v.0 as usize] as usize + usize::from(part)
    }

    /// The locations a slot reads or writes.
    pub fn of(&self, s: &Slot) -> Range<usize> {
        let first = self.at(s.reg, s.part());
        first..first + usize::from(s.width())
    }

    /// The virtual register and part of a location.
    pub fn reg(&self, loc: usize) -> (VReg, u8) {
        let v = self.owner[loc];
        (v, (loc - self.base[v.0 as usize] as usize) as u8)
    }
}

/// Definitions and uses of every location of one function.
pub struct DefUse {
    pub locs: Locs,
    pub cfg: Cfg,
    pub doms: Dominators,
    defs: Vec<u32>,
    def_at: Vec<u32>,
    /// The instructions reading each location (once per slot naming it), in `use_list` from
    /// `use_start[loc]`.
    use_start: Vec<u32>,
    use_list: Vec<u32>,
    ssa: Vec<bool>,
    /// Whether the carry is live at the end of each block.
    carry_out: Vec<bool>,
}

/// Whether the instruction runs in only some of the threads that reach it: a virtual
/// predicate guards it, or its guard is `!PT`.
pub fn conditional(m: &MInst) -> bool {
    !m.always_runs()
}

/// The slots an instruction reads: its sources, and under a guard also its destinations
/// (the threads the guard leaves out keep the old value).
pub fn reads(m: &MInst) -> impl Iterator<Item = &Slot> {
    let guarded = conditional(m);
    m.slots().filter(move |s| !s.def() || guarded)
}

impl DefUse {
    pub fn build(code: &[MInst], vregs: &VRegs, label_pos: &[usize]) -> DefUse {
        let locs = Locs::new(vregs);
        let cfg = Cfg::build(code, label_pos);
        let doms = cfg.dominators();
        let n = locs.len();
        let mut defs = vec![0u32; n];
        let mut def_at = vec![u32::MAX; n];
        let mut guarded_def = vec![false; n];
        let mut use_start = vec![0u32; n + 1];
        for (i, m) in code.iter().enumerate() {
            for s in m.slots().filter(|s| s.def()) {
                for l in locs.of(s) {
                    defs[l] += 1;
                    def_at[l] = i as u32;
                    guarded_def[l] |= conditional(m);
                }
            }
            for s in reads(m) {
                for l in locs.of(s) {
                    use_start[l + 1] += 1;
                }
            }
        }
        for l in 0..n {
            use_start[l + 1] += use_start[l];
        }
        let mut fill = use_start.clone();
        let mut use_list = vec![0u32; use_start[n] as usize];
        for (i, m) in code.iter().enumerate() {
            for s in reads(m) {
                for l in locs.of(s) {
                    use_list[fill[l] as usize] = i as u32;
                    fill[l] += 1;
                }
            }
        }
        let carry_out = carry_liveness(code, &cfg);
        let mut du = DefUse {
            carry_out,
            locs,
            cfg,
            doms,
            defs,
            def_at,
            use_start,
            use_list,
            ssa: Vec::new(),
        };
        du.ssa = (0..n)
            .map(|l| match du.defs[l] {
                0 => true,
                1 => !guarded_def[l] && du.uses(l).iter().all(|&u| du.dominates(l, u as usize)),
                _ => false,
            })
            .collect();
        du
    }

    /// Whether location `l`'s one definition dominates instruction `u` (which it does when `u`
    /// is unreachable: it never runs).
    fn dominates(&self, l: usize, u: usize) -> bool {
        let d = self.def_at[l] as usize;
        let (bd, bu) = (self.cfg.block_of[d], self.cfg.block_of[u]);
        if !self.doms.reachable(bu) {
            return true;
        }
        if bd == bu {
            d < u
        } else {
            self.doms.dominates(bd, bu)
        }
    }

    /// The instructions reading location `l`.
    pub fn uses(&self, l: usize) -> &[u32] {
        &self.use_list[self.use_start[l] as usize..self.use_start[l + 1] as usize]
    }

    /// Whether location `l` is an SSA value.
    pub fn ssa(&self, l: usize) -> bool {
        self.ssa[l]
    }

    /// Whether the carry is live at the end of block `b`.
    pub fn carry_live_out(&self, b: usize) -> bool {
        self.carry_out[b]
    }

    /// Whether an instruction after `i` reads the carry that is there after `i` (in `i`'s
    /// block, or past its end).
    pub fn carry_read_after(&self, code: &[MInst], i: usize) -> bool {
        let b = self.cfg.block_of[i];
        for m in &code[i + 1..self.cfg.end(b)] {
            match carry_effect(m) {
                Some(Carry::Read) => return true,
                Some(Carry::Kill) => return false,
                None => {}
            }
        }
        self.carry_out[b]
    }

    /// Whether the carry that instruction `i` writes reaches only instruction `i + 1`: `i`
    /// always runs, `i + 1` follows it in the same block (no branch reaches it with another
    /// carry), and after `i + 1` the carry is read by nothing or is the one `i + 1` writes.
    pub fn carry_reaches_only_next(&self, code: &[MInst], i: usize) -> bool {
        let next = i + 1;
        next < code.len()
            && code[i].always_runs()
            && self.cfg.block_of[next] == self.cfg.block_of[i]
            && (code[next].always_runs() && carry_roles(&code[next]).1
                || !self.carry_read_after(code, next))
    }

    /// The instruction defining SSA value `l` (none for a value never written).
    pub fn def(&self, l: usize) -> Option<usize> {
        (self.ssa[l] && self.defs[l] == 1).then_some(self.def_at[l] as usize)
    }
}

/// Whether `m` reads the carry and whether it writes it (only `IADD` and `IMAD` touch it).
pub fn carry_roles(m: &MInst) -> (bool, bool) {
    match m.opcode() {
        opcodes::IADD | opcodes::IMAD => {
            let roles = decoded(m).op.roles();
            (roles.carry_read, roles.carry_write)
        }
        _ => (false, false),
    }
}

/// What an instruction does to the carry's liveness, seen from after it.
enum Carry {
    /// It reads the carry (an `.X` that also writes reads first).
    Read,
    /// It always runs and writes the carry without reading it: the carry before it is dead.
    Kill,
}

fn carry_effect(m: &MInst) -> Option<Carry> {
    if deleted(m) {
        return None;
    }
    match carry_roles(m) {
        (true, _) => Some(Carry::Read),
        // A guarded write keeps the old carry in the threads its guard leaves out.
        (false, true) if m.always_runs() => Some(Carry::Kill),
        _ => None,
    }
}

/// The carry's liveness at the end of every block, a backward data flow to a fixed point.
/// Labels do not end it (PTX may carry from one block into the next), nor do calls: PTX does
/// not keep the carry across a call, but a carry written before one and read after it is
/// kept as the literal translation has it, so that every `-O` level runs alike.
fn carry_liveness(code: &[MInst], cfg: &Cfg) -> Vec<bool> {
    let blocks = cfg.starts.len();
    // What each block does, seen from its end: reads the carry before killing it, kills it,
    // or passes it through.
    let effect: Vec<Option<Carry>> = (0..blocks)
        .map(|b| {
            code[cfg.starts[b]..cfg.end(b)]
                .iter()
                .rev()
                .fold(None, |after, m| carry_effect(m).or(after))
        })
        .collect();
    let mut live_out = vec![false; blocks];
    let live_in = |b: usize, live_out: &[bool]| match effect[b] {
        Some(Carry::Read) => true,
        Some(Carry::Kill) => false,
        None => live_out[b],
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..blocks).rev() {
            let live = cfg.succs[b]
                .iter()
                .any(|&s| s < blocks && live_in(s, &live_out));
            if live != live_out[b] {
                live_out[b] = live;
                changed = true;
            }
        }
    }
    live_out
}
