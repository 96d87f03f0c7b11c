//! Giving registers back: after the scan, each value it sent to local memory that has a
//! register of its class free over its whole interval takes it.
//!
//! Once anything spills, the scan works below a limit that leaves spill code its scratch
//! registers for the whole function. But spill code takes them only at the instructions
//! that name a value without a register, a block from `scratch.gpr` there as large as that
//! instruction needs ([`scratch_plan`]); elsewhere they are free, as are any between the
//! values' highest and the budget, and a value the scan spilled for want of them often fits
//! there. (Before this, `big_unrolled` at 16 registers used 9, and still stored a value
//! live through the kernel and loaded it back at once; at 64, 57.)
//!
//! The scan's own choices stay: this only takes values out of memory, those whose register
//! saves the most spill code first. Recomputed values stay recomputed: they cost no memory
//! traffic, an instruction a read at most, and trying each (`big_unrolled` has a thousand a
//! kernel, its invariant loads) would cost more time than it saves instructions.
//!
//! A value given a register shrinks the blocks of the instructions that name it (no gaps:
//! what is left moves down, never onto its register), which may leave room for one tried
//! before it; so the values whose interval holds such an instruction are tried again, until
//! none moves.

use super::{
    across_call, aligned_tuples, scratch_plan, Calls, Held, Home, Interval, Scratch, Vacated,
    PREDICATES,
};
use crate::mir::{Class, MInst, VReg, VRegs};

const NONE: u32 = u32::MAX;

/// What the scan left: the register budget, the scan's limits (general registers,
/// predicates), and the registers it vacated.
pub(super) struct Scanned<'a> {
    pub budget: u32,
    pub limits: (u32, u32),
    pub vacated: &'a Vacated,
}

/// Gives a register to each value in local memory that has one of its class free over its
/// whole interval: no value in a register overlaps it there, and no instruction it spans
/// takes the register for spill code.
pub(super) fn unspill(
    code: &[MInst],
    vregs: &VRegs,
    homes: &mut [Home],
    ranges: &[Option<(u32, u32)>],
    calls: Calls<'_>,
    scanned: Scanned<'_>,
    scratch: Scratch,
) {
    let Some(candidates) = Candidates::of(code, homes, ranges) else {
        return;
    };
    let mut blocks = Blocks::of(code, vregs, homes, scratch);
    let mut free = Free::of(&candidates, vregs, homes, ranges, &scanned);
    // Where spill code kept each value tried from every register it could have had.
    let mut blockers = vec![[NONE; 4]; candidates.v.len()];
    let mut fits: Vec<u32> = Vec::new();
    // The instructions whose blocks shrank in the last pass; `None` in the first.
    let mut shrunk: Option<Vec<u32>> = None;
    loop {
        let mut shrinking = Vec::new();
        for &c in &candidates.order {
            let v = candidates.v[c];
            let Some((s, e)) = ranges[v.0 as usize] else {
                continue;
            };
            if free.none(c) || !matches!(homes[v.0 as usize], Home::Spilled(_)) {
                continue;
            }
            let span = (s / 2, e / 2);
            if let Some(shrunk) = &shrunk {
                if !worth_retrying(shrunk, &blockers[c], span) {
                    continue;
                }
            }
            let it = Interval {
                v,
                start: s,
                end: e,
            };
            let lowest = if across_call(calls.at, &it) {
                Some(calls.saved_from)
            } else {
                None
            };
            free.fits(c, vregs.class(v), lowest, scanned.budget, &mut fits);
            if fits.is_empty() {
                // For good: registers only fill up.
                free.clear(c);
                continue;
            }
            let mentions = candidates.mentions(c);
            match blocks.first_clear(code, vregs, homes, (v, mentions), span, &fits) {
                Ok(r) => {
                    homes[v.0 as usize] = Home::Reg(r);
                    free.take(&it, vregs.class(v), r);
                    blocks.replan(code, vregs, homes, mentions);
                    shrinking.extend_from_slice(mentions);
                }
                Err(blocked) => {
                    // Tried again only once one of these shrinks (all of them noted, or
                    // none).
                    blockers[c] = if fits.len() <= blocked.len() {
                        blocked
                    } else {
                        [NONE; 4]
                    };
                }
            }
        }
        if shrinking.is_empty() {
            break;
        }
        shrinking.sort_unstable();
        shrunk = Some(shrinking);
    }
}

/// Whether a value blocked before may fit now that the blocks of `shrunk` (sorted)
/// shrank: one of the instructions that blocked it did, or, when they were not all noted,
/// one in its `span` of instructions.
fn worth_retrying(shrunk: &[u32], blockers: &[u32; 4], (first, last): (u32, u32)) -> bool {
    if blockers[0] == NONE {
        let at = shrunk.partition_point(|&i| i < first);
        shrunk.get(at).is_some_and(|&i| i <= last)
    } else {
        (blockers.iter()).any(|&b| b != NONE && shrunk.binary_search(&b).is_ok())
    }
}

/// The values the scan sent to memory, and the instructions that name each.
struct Candidates {
    v: Vec<VReg>,
    /// Candidate `c`'s instructions, in order: `mentioned[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    mentioned: Vec<u32>,
    /// The order they are tried in: most spill code saved first (a load or a store at each
    /// instruction naming the value).
    order: Vec<usize>,
}

impl Candidates {
    /// `None` when the scan spilled nothing.
    fn of(code: &[MInst], homes: &[Home], ranges: &[Option<(u32, u32)>]) -> Option<Candidates> {
        let mut index = vec![NONE; homes.len()];
        let mut v = Vec::new();
        for (at, h) in homes.iter().enumerate() {
            if matches!(h, Home::Spilled(_)) && ranges[at].is_some() {
                index[at] = v.len() as u32;
                v.push(VReg(at as u32));
            }
        }
        if v.is_empty() {
            return None;
        }
        // (candidate, instruction), each pair once, by instruction.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (i, m) in code.iter().enumerate() {
            let first = pairs.len();
            for s in m.slots() {
                let c = index[s.reg.0 as usize];
                if c != NONE && !pairs[first..].iter().any(|&(d, _)| d == c) {
                    pairs.push((c, i as u32));
                }
            }
        }
        // By candidate, a stable counting sort: each one's stay in order.
        let mut starts = vec![0u32; v.len() + 1];
        for &(c, _) in &pairs {
            starts[c as usize + 1] += 1;
        }
        for c in 0..v.len() {
            starts[c + 1] += starts[c];
        }
        let mut next = starts.clone();
        let mut mentioned = vec![0u32; pairs.len()];
        for &(c, i) in &pairs {
            mentioned[next[c as usize] as usize] = i;
            next[c as usize] += 1;
        }
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(starts[c + 1] - starts[c]));
        Some(Candidates {
            v,
            starts,
            mentioned,
            order,
        })
    }

    fn mentions(&self, c: usize) -> &[u32] {
        &self.mentioned[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// Register files: general registers and predicates.
const FILES: usize = 2;

fn file_and_size(class: Class) -> (usize, u32) {
    match class {
        Class::Gpr { size } => (0, u32::from(size)),
        Class::Pred => (1, 1),
    }
}

/// Each instruction's scratch block, and which instructions take each scratch register.
struct Blocks {
    /// Per instruction, its block's size in each file.
    size: Vec<[u32; FILES]>,
    /// Per file, per scratch register (from the file's base), the instructions whose block
    /// takes it, in order.
    uses: [Vec<Vec<u32>>; FILES],
    base: [u32; FILES],
    scratch: Scratch,
    plan: Vec<Held>,
}

impl Blocks {
    fn of(code: &[MInst], vregs: &VRegs, homes: &[Home], scratch: Scratch) -> Blocks {
        let mut blocks = Blocks {
            size: Vec::with_capacity(code.len()),
            uses: [Vec::new(), Vec::new()],
            base: [scratch.gpr, u32::from(scratch.pred)],
            scratch,
            plan: Vec::new(),
        };
        for (i, m) in code.iter().enumerate() {
            let size = blocks.planned(m, vregs, homes);
            blocks.size.push(size);
            for (lists, taken) in blocks.uses.iter_mut().zip(size) {
                if lists.len() < taken as usize {
                    lists.resize(taken as usize, Vec::new());
                }
                for list in &mut lists[..taken as usize] {
                    list.push(i as u32);
                }
            }
        }
        blocks
    }

    /// `m`'s block with `homes`.
    fn planned(&mut self, m: &MInst, vregs: &VRegs, homes: &[Home]) -> [u32; FILES] {
        let (gpr, pred) = scratch_plan(m, vregs, homes, self.scratch, &mut self.plan);
        [gpr, pred]
    }

    /// The first of the aligned registers `fits` that no instruction in `span` takes for
    /// spill code once `v` has a register (its own instructions, `mentions`, planned again
    /// so); or where spill code blocked each of the first four.
    fn first_clear(
        &mut self,
        code: &[MInst],
        vregs: &VRegs,
        homes: &mut [Home],
        (v, mentions): (VReg, &[u32]),
        span: (u32, u32),
        fits: &[u32],
    ) -> Result<u32, [u32; 4]> {
        let (file, size) = file_and_size(vregs.class(v));
        let old = std::mem::replace(&mut homes[v.0 as usize], Home::Reg(0));
        let mut blocked = [NONE; 4];
        let mut found = Err(());
        for (n, &r) in fits.iter().enumerate() {
            let taken = (r..r + size)
                .find_map(|k| self.first_taking(code, vregs, homes, (file, k), mentions, span));
            match taken {
                None => {
                    found = Ok(r);
                    break;
                }
                Some(i) => {
                    if let Some(b) = blocked.get_mut(n) {
                        *b = i;
                    }
                }
            }
        }
        homes[v.0 as usize] = old;
        found.map_err(|()| blocked)
    }

    /// The first instruction in `span` whose spill code takes register `k` of `file`, but
    /// those naming the value (`mentions`) whose block leaves it with the value in a
    /// register.
    fn first_taking(
        &mut self,
        code: &[MInst],
        vregs: &VRegs,
        homes: &[Home],
        (file, k): (usize, u32),
        mentions: &[u32],
        (first, last): (u32, u32),
    ) -> Option<u32> {
        let at = k.checked_sub(self.base[file])?;
        let list = self.uses[file].get(at as usize)?;
        let from = list.partition_point(|&i| i < first);
        let mut within = list[from..].iter().take_while(|&&i| i <= last).copied();
        let scratch = self.scratch;
        let plan = &mut self.plan;
        within.find(|&i| {
            mentions.binary_search(&i).is_err() || {
                let (gpr, pred) = scratch_plan(&code[i as usize], vregs, homes, scratch, plan);
                [gpr, pred][file] > at
            }
        })
    }

    /// Plans the blocks of `mentions` again, smaller now that a value they name has a
    /// register.
    fn replan(&mut self, code: &[MInst], vregs: &VRegs, homes: &[Home], mentions: &[u32]) {
        for &i in mentions {
            let now = self.planned(&code[i as usize], vregs, homes);
            let was = std::mem::replace(&mut self.size[i as usize], now);
            for (lists, (now, was)) in self.uses.iter_mut().zip(now.into_iter().zip(was)) {
                for list in &mut lists[now as usize..was as usize] {
                    if let Ok(at) = list.binary_search(&i) {
                        list.remove(at);
                    }
                }
            }
        }
    }
}

/// Candidate kinds: general registers of 1, 2 and 4 words, and predicates.
const KINDS: usize = 4;
const PRED_KIND: usize = 3;

fn kind(class: Class) -> usize {
    match class {
        Class::Gpr { size } => usize::from(size).ilog2() as usize,
        Class::Pred => PRED_KIND,
    }
}

/// Per candidate, the registers no value holds over its interval.
struct Free {
    at: Vec<[u64; 4]>,
    /// The candidates' intervals and indices by start, per kind.
    by_start: [Vec<(u32, u32, usize)>; KINDS],
}

impl Free {
    /// First each register's values against the candidates in order of start, in one sweep.
    /// Below the scan's limits, only the registers it vacated, and their partners in a tuple:
    /// every other holds a value somewhere in the interval of every value it left in memory.
    fn of(
        candidates: &Candidates,
        vregs: &VRegs,
        homes: &[Home],
        ranges: &[Option<(u32, u32)>],
        scanned: &Scanned<'_>,
    ) -> Free {
        let mut by_start: [Vec<(u32, u32, usize)>; KINDS] = Default::default();
        for &c in &candidates.order {
            let v = candidates.v[c];
            if let Some((s, e)) = ranges[v.0 as usize] {
                by_start[kind(vregs.class(v))].push((s, e, c));
            }
        }
        by_start.iter_mut().for_each(|list| list.sort_unstable());
        let mut free = Free {
            at: vec![[0; 4]; candidates.v.len()],
            by_start,
        };
        let (gpr, pred) = held(&vregs.classes, homes, ranges, scanned.budget);
        let Scanned {
            limits, vacated, ..
        } = scanned;
        // A register below the limit can be free for a tuple of `1 << kind` words when the
        // scan vacated one of that tuple's registers.
        let tuple_vacated = |k: u32, kind: usize| {
            let words = 1u32 << kind;
            let base = k & !(words - 1);
            (base..base + words).any(|q| vacated.gpr(q))
        };
        for (k, list) in (0..).zip(&gpr) {
            for kind in 0..PRED_KIND {
                if k >= limits.0 || tuple_vacated(k, kind) {
                    free.sweep(list, kind, k);
                }
            }
        }
        for (p, list) in (0..).zip(&pred) {
            if p >= limits.1 || vacated.pred & (1 << p) != 0 {
                free.sweep(list, PRED_KIND, p);
            }
        }
        free
    }

    /// Marks register `k` free for the candidates of `kind` that no interval of `list`
    /// (sorted, disjoint) overlaps.
    fn sweep(&mut self, list: &[(u32, u32)], kind: usize, k: u32) {
        let mut at = 0;
        for &(s, e, c) in &self.by_start[kind] {
            while list.get(at).is_some_and(|&(_, end)| end < s) {
                at += 1;
            }
            if list.get(at).is_none_or(|&(start, _)| start > e) {
                self.at[c][k as usize / 64] |= 1 << (k % 64);
            }
        }
    }

    fn none(&self, c: usize) -> bool {
        self.at[c] == [0; 4]
    }

    fn clear(&mut self, c: usize) {
        self.at[c] = [0; 4];
    }

    /// Into `fits`, the registers candidate `c` of `class` can take: aligned tuples all
    /// free, under `budget`, from `lowest` up when it is live across a call.
    fn fits(&self, c: usize, class: Class, lowest: Option<u32>, budget: u32, fits: &mut Vec<u32>) {
        fits.clear();
        match class {
            Class::Gpr { size } => {
                let size = u32::from(size);
                for (w, &word) in (0..).zip(&self.at[c]) {
                    let mut tuples = aligned_tuples(word, size);
                    while tuples != 0 {
                        let r = w * 64 + tuples.trailing_zeros();
                        tuples &= tuples - 1;
                        if r >= lowest.unwrap_or(0) && r + size <= budget {
                            fits.push(r);
                        }
                    }
                }
            }
            // No predicate keeps its value across a call.
            Class::Pred if lowest.is_some() => {}
            Class::Pred => {
                fits.extend((0..u32::from(PREDICATES)).filter(|&p| self.at[c][0] & (1 << p) != 0))
            }
        }
    }

    /// Register `r` given to the value of interval `it`: no longer free for the candidates
    /// it overlaps.
    fn take(&mut self, it: &Interval, class: Class, r: u32) {
        let (_, size) = file_and_size(class);
        let kinds = if class == Class::Pred {
            PRED_KIND..KINDS
        } else {
            0..PRED_KIND
        };
        for list in &self.by_start[kinds] {
            let starting = list.partition_point(|&(start, ..)| start <= it.end);
            for &(_, end, other) in &list[..starting] {
                if end >= it.start {
                    for k in r..r + size {
                        self.at[other][k as usize / 64] &= !(1 << (k % 64));
                    }
                }
            }
        }
    }
}

/// Each register's values' intervals, in order (they are disjoint): general registers
/// (`budget` of them), then predicates.
type HeldBy = (Vec<Vec<(u32, u32)>>, Vec<Vec<(u32, u32)>>);

pub(super) fn held(
    classes: &[Class],
    homes: &[Home],
    ranges: &[Option<(u32, u32)>],
    budget: u32,
) -> HeldBy {
    let mut gpr: Vec<Vec<(u32, u32)>> = vec![Vec::new(); budget as usize];
    let mut pred: Vec<Vec<(u32, u32)>> = vec![Vec::new(); usize::from(PREDICATES)];
    for (v, h) in homes.iter().enumerate() {
        let (Home::Reg(r), Some(range)) = (*h, ranges[v]) else {
            continue;
        };
        match classes[v] {
            Class::Gpr { size } => {
                for k in r..r + u32::from(size) {
                    gpr[k as usize].push(range);
                }
            }
            Class::Pred => pred[r as usize].push(range),
        }
    }
    for list in gpr.iter_mut().chain(pred.iter_mut()) {
        list.sort_unstable();
    }
    (gpr, pred)
}
