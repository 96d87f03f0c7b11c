//! Register allocation: liveness over the control-flow graph, then linear scan over live
//! intervals, with tuples of consecutive registers for 64-bit values and vectors, and spilling
//! to local memory when the register budget runs out.
//!
//! Positions: instruction `i` reads at `2i` and writes at `2i + 1`, so a register whose last
//! read is at `i` may be written by `i` itself. An interval spans every position its value
//! may be live at; a value live into or out of a block covers the block's start or end.

use crate::cfg::Cfg;
use crate::mir::{Class, MInst, Marks, Slot, VReg, VRegs};
use sgpu_isa::{fields, FieldError, Instruction, Msize, Op, Pred, PredSrc, Reg, RegOrImm, Space};

/// Predicate registers P0..P6.
const PREDICATES: u8 = 7;

/// The result: every slot filled in, and what was used.
pub struct Allocation {
    pub code: Vec<MInst>,
    /// Each original instruction's index in `code` (its first reload, if it has any), and
    /// one past the end.
    pub new_index: Vec<usize>,
    /// Registers used: the highest numbered one, plus one.
    pub registers: u32,
    /// Bytes of local memory holding spilled values, and how many were spilled.
    pub spill_bytes: u32,
    pub spilled: u32,
    /// Bytes moved by the spill code's stores and loads (per thread, each executed once).
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

#[derive(Clone, Copy)]
struct Interval {
    v: VReg,
    start: u32,
    end: u32,
}

/// Live intervals of every virtual register (`None` for those never used).
///
/// Most values live inside one block: defined there before any read and named nowhere else.
/// Their interval is simply their first to last mention. Only the others (global values) go
/// through data-flow over the blocks, numbered densely so that the per-block bit sets are as
/// wide as the number of global values rather than of all values.
fn intervals(code: &[MInst], vregs: &VRegs, label_pos: &[usize]) -> Vec<Option<(u32, u32)>> {
    let n = vregs.len();
    let cfg = Cfg::build(code, label_pos);
    let blocks = cfg.starts.len();
    let block_range = |b: usize| cfg.starts[b]..cfg.end(b);
    let mut events = Events::new(vregs);
    // Which values are global: read before being fully written in a block (so live into
    // it), or named in more than one block.
    const NONE: u32 = u32::MAX;
    let mut home_block = vec![NONE; n];
    let mut global = vec![false; n];
    for b in 0..blocks {
        events.scan(&code[block_range(b)], |v, event| {
            let i = v.0 as usize;
            if event == Event::ExposedRead || (home_block[i] != NONE && home_block[i] != b as u32) {
                global[i] = true;
            }
            home_block[i] = b as u32;
        });
    }
    let mut dense = vec![NONE; n];
    let mut globals: Vec<usize> = Vec::new();
    for (v, _) in global.iter().enumerate().filter(|(_, g)| **g) {
        dense[v] = globals.len() as u32;
        globals.push(v);
    }
    let words = globals.len().div_ceil(64);
    let set = |bits: &mut [u64], i: u32| bits[i as usize / 64] |= 1 << (i % 64);
    let mut uses = vec![0u64; blocks * words];
    let mut defs = vec![0u64; blocks * words];
    for b in 0..blocks {
        let at = b * words..(b + 1) * words;
        events.scan(&code[block_range(b)], |v, event| {
            let i = dense[v.0 as usize];
            if i != NONE {
                match event {
                    Event::ExposedRead => set(&mut uses[at.clone()], i),
                    Event::FullWrite => set(&mut defs[at.clone()], i),
                    Event::Other => {}
                }
            }
        });
    }
    // Live-in and live-out sets, to a fixed point.
    let mut live_in = vec![0u64; blocks * words];
    let mut live_out = vec![0u64; blocks * words];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..blocks).rev() {
            let at = b * words;
            let (out, rest) = (&mut live_out[at..at + words], &live_in);
            out.fill(0);
            for &s in cfg.succs[b].iter().filter(|&&s| s < blocks) {
                for (o, i) in out.iter_mut().zip(&rest[s * words..(s + 1) * words]) {
                    *o |= i;
                }
            }
            for w in 0..words {
                let new_in = uses[at + w] | (out[w] & !defs[at + w]);
                if new_in != live_in[at + w] {
                    live_in[at + w] = new_in;
                    changed = true;
                }
            }
        }
    }
    let mut range: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut extend = |v: usize, p: u32| {
        range[v] = Some(match range[v] {
            None => (p, p),
            Some((s, e)) => (s.min(p), e.max(p)),
        });
    };
    for (i, m) in code.iter().enumerate() {
        for s in m.slots() {
            let p = 2 * i as u32 + u32::from(s.def());
            extend(s.reg.0 as usize, p);
        }
    }
    for b in 0..blocks {
        let r = block_range(b);
        let (start, end) = (2 * r.start as u32, 2 * r.end as u32 - 1);
        let at = b * words..(b + 1) * words;
        for i in ones(&live_in[at.clone()]) {
            extend(globals[i], start);
        }
        for i in ones(&live_out[at]) {
            extend(globals[i], end);
        }
    }
    range
}

/// The indices of the set bits.
fn ones(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut x = word;
        std::iter::from_fn(move || {
            (x != 0).then(|| {
                let bit = x.trailing_zeros() as usize;
                x &= x - 1;
                w * 64 + bit
            })
        })
    })
}

/// What one mention of a register within a block means for liveness.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Event {
    /// A read of parts not yet written in the block: the value is live into it.
    ExposedRead,
    /// A write that completes the value before any exposed read: the block defines it.
    FullWrite,
    Other,
}

/// Walks blocks' register mentions, tracking which parts of each register the block has
/// written so far (a 64-bit value or a vector may be written a part at a time).
struct Events<'v> {
    vregs: &'v VRegs,
    written: Vec<u8>,
    touched: Vec<VReg>,
}

impl<'v> Events<'v> {
    fn new(vregs: &'v VRegs) -> Events<'v> {
        Events {
            vregs,
            written: vec![0; vregs.len()],
            touched: Vec::new(),
        }
    }

    /// Calls `f` on every mention in `block`, in order (an instruction's reads before its
    /// writes). A write under a guard also reads: the threads the guard leaves out keep the
    /// value from before, so it is no definition, and the old value stays live up to it;
    /// unless the instruction's `fresh_defs` says that no thread reads that old value.
    fn scan(&mut self, block: &[MInst], mut f: impl FnMut(VReg, Event)) {
        for m in block {
            let guarded = m.guarded() && !m.marks.has(Marks::FRESH_DEFS);
            for s in m.slots().filter(|s| !s.def() || guarded) {
                let mask = parts(s);
                let w = self.written[s.reg.0 as usize];
                f(
                    s.reg,
                    if w & mask != mask {
                        Event::ExposedRead
                    } else {
                        Event::Other
                    },
                );
            }
            if guarded {
                continue;
            }
            for s in m.slots().filter(|s| s.def()) {
                let w = &mut self.written[s.reg.0 as usize];
                if *w == 0 {
                    self.touched.push(s.reg);
                }
                let size = match self.vregs.class(s.reg) {
                    Class::Gpr { size } => size,
                    Class::Pred => 1,
                };
                let full = ((1u16 << size) - 1) as u8;
                let was_full = *w & full == full;
                *w |= parts(s);
                let event = if !was_full && *w & full == full {
                    Event::FullWrite
                } else {
                    Event::Other
                };
                f(s.reg, event);
            }
        }
        for v in self.touched.drain(..) {
            self.written[v.0 as usize] = 0;
        }
    }
}

/// The parts of a register a slot reads or writes, as a bit mask.
fn parts(s: &Slot) -> u8 {
    (((1u16 << s.width()) - 1) << s.part()) as u8
}

/// Bit `i` of the result: bits `i .. i + size` of `free` are all set, `i` a multiple of
/// `size` (1, 2 or 4).
fn aligned_tuples(free: u64, size: u32) -> u64 {
    match size {
        1 => free,
        2 => free & (free >> 1) & 0x5555_5555_5555_5555,
        _ => {
            let pairs = free & (free >> 1);
            pairs & (pairs >> 2) & 0x1111_1111_1111_1111
        }
    }
}

/// Free registers of one file, as a bit set.
struct Pool {
    free: [u64; 4],
    limit: u32,
}

impl Pool {
    fn new(limit: u32) -> Pool {
        let mut p = Pool {
            free: [0; 4],
            limit,
        };
        for r in 0..limit {
            p.free[r as usize / 64] |= 1 << (r % 64);
        }
        p
    }
    /// The lowest `size` (1, 2 or 4) free registers starting at a multiple of `size`.
    fn take(&mut self, size: u32) -> Option<u32> {
        for (w, &word) in self.free.iter().enumerate() {
            let fit = aligned_tuples(word, size);
            if fit != 0 {
                let base = w as u32 * 64 + fit.trailing_zeros();
                if base + size > self.limit {
                    return None;
                }
                for r in base..base + size {
                    self.free[r as usize / 64] &= !(1 << (r % 64));
                }
                return Some(base);
            }
        }
        None
    }
    /// The lowest `size` free registers from `lo` up, aligned to `size`.
    fn take_from(&mut self, size: u32, lo: u32) -> Option<u32> {
        let base = (lo..self.limit)
            .step_by(size as usize)
            .find(|&b| b % size == 0 && self.is_free(b, size))?;
        self.take_at(base, size)
    }

    fn is_free(&self, base: u32, size: u32) -> bool {
        let free = |r: u32| self.free[r as usize / 64] & (1 << (r % 64)) != 0;
        base + size <= self.limit && (base..base + size).all(free)
    }

    /// Registers `base..base + size` if they are all free (and `base` aligned to `size`).
    fn take_at(&mut self, base: u32, size: u32) -> Option<u32> {
        if !base.is_multiple_of(size) || !self.is_free(base, size) {
            return None;
        }
        for r in base..base + size {
            self.free[r as usize / 64] &= !(1 << (r % 64));
        }
        Some(base)
    }

    fn give(&mut self, base: u32, size: u32) {
        for r in base..base + size {
            self.free[r as usize / 64] |= 1 << (r % 64);
        }
    }
}

/// Where a virtual register ended up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Home {
    Unused,
    Reg(u32),
    /// A byte offset in the spill area of local memory.
    Spilled(u32),
    /// Nowhere: the instruction word that defines it runs again before each read
    /// (`remat.rs`).
    Remat(u64),
}

/// The function being allocated, beyond its code.
#[derive(Clone, Copy)]
pub struct Frame {
    /// General registers it may use.
    pub budget: u32,
    /// The first byte of local memory free for spilled values.
    pub spill_base: u32,
    /// A kernel (whose local addresses are plain numbers, so nothing tells where its frame
    /// may be written).
    pub entry: bool,
}

/// Allocates registers for `code` within `frame.budget` general registers.
pub fn allocate(
    code: Vec<MInst>,
    vregs: &VRegs,
    label_pos: &[usize],
    frame: Frame,
) -> Result<Allocation, FieldError> {
    let Frame {
        budget,
        spill_base,
        entry,
    } = frame;
    let ranges = intervals(&code, vregs, label_pos);
    let list = in_scan_order(&ranges, 2 * code.len());
    let costs = spill_costs(&code, &ranges);
    let hints = copy_hints(&code, vregs);
    // A call may use every register below the callee-saved ones, so values live across one
    // take those or stay in memory.
    let call_at: Vec<u32> = code
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_call())
        .map(|(i, _)| 2 * i as u32)
        .collect();
    let calls = Calls {
        at: &call_at,
        saved_from: callee_saved_from(budget),
    };
    // First without reserving anything for spill code; if that spills, again with scratch
    // registers set aside. The first pass is skipped when it is sure to spill.
    let sure = sure_spills(&list, vregs, &call_at, budget, code.len());
    let (first, spills_gpr, spills_pred) = if sure.gpr {
        (None, true, sure.pred)
    } else {
        let homes = scan(
            &list,
            vregs,
            calls,
            (&costs, &hints),
            (budget, PREDICATES as u32),
        );
        let spilled = |pred: bool| {
            list.iter().any(|i| {
                matches!(homes[i.v.0 as usize], Home::Spilled(_))
                    && (vregs.class(i.v) == Class::Pred) == pred
            })
        };
        let (gpr, pred) = (spilled(false), spilled(true));
        (Some(homes), gpr, pred)
    };
    // (The intervals are for the tests' audit of the result.)
    #[cfg_attr(not(test), allow(unused_variables))]
    let Placed {
        mut homes,
        ranges,
        scratch,
    } = match first {
        Some(homes) if !spills_gpr && !spills_pred => Placed {
            homes,
            ranges,
            // Nothing for spill code to do.
            scratch: Scratch {
                gpr: budget,
                pred: PREDICATES,
            },
        },
        _ => Problem {
            code: &code,
            vregs,
            ranges: &ranges,
            list: &list,
            calls,
            weights: (&costs, &hints),
            budget,
            entry,
            spills_pred,
        }
        .place(),
    };
    // Spill slots.
    let mut spill_bytes = 0u32;
    let mut spilled = 0;
    for h in homes.iter_mut() {
        if let Home::Spilled(size) = *h {
            let bytes = size * 4;
            let at = spill_bytes.div_ceil(bytes) * bytes;
            spill_bytes = at + bytes;
            // Saturating: an offset past u32 is past what spill code can reach, and is
            // reported when that code is encoded.
            *h = Home::Spilled(spill_base.saturating_add(at));
            spilled += 1;
        }
    }
    let mut registers = registers_of(&homes, vregs);
    let (code, new_index, traffic, scratch_top) = rewrite(code, vregs, &homes, scratch)?;
    #[cfg(test)]
    tests::observe(|| tests::Observed {
        budget,
        classes: vregs.classes.clone(),
        ranges: ranges.clone(),
        homes: homes.clone(),
        calls: call_at.clone(),
        code: code.clone(),
        new_index: new_index.clone(),
    });
    let (mut spill_store_bytes, mut spill_load_bytes) = traffic;
    // A called function keeps its caller's callee-saved registers: save slots follow the
    // spill slots, 4-aligned.
    let (code, new_index) = if entry {
        (code, new_index)
    } else {
        let slot_base = spill_base.saturating_add(spill_bytes.div_ceil(4) * 4);
        let (code, moved, bytes, (stored, loaded)) =
            saves::save_registers(code, callee_saved_from(budget), slot_base)?;
        spill_bytes = spill_bytes.div_ceil(4) * 4 + bytes;
        spill_store_bytes += stored;
        spill_load_bytes += loaded;
        (code, new_index.iter().map(|&i| moved[i]).collect())
    };
    registers = registers.max(scratch_top);
    Ok(Allocation {
        code,
        new_index,
        registers,
        spill_bytes,
        spilled,
        spill_store_bytes,
        spill_load_bytes,
    })
}

/// The intervals of `ranges` (over `positions` positions) in the order linear scan takes
/// them: by start, then end, then register. Starts are dense positions, so a counting sort
/// by start leaves only the few intervals that share a start to order.
fn in_scan_order(ranges: &[Option<(u32, u32)>], positions: usize) -> Vec<Interval> {
    let mut first = vec![0u32; positions + 1];
    for &(start, _) in ranges.iter().flatten() {
        first[start as usize + 1] += 1;
    }
    for p in 1..first.len() {
        first[p] += first[p - 1];
    }
    let placeholder = Interval {
        v: VReg(0),
        start: 0,
        end: 0,
    };
    let mut list = vec![placeholder; first[positions] as usize];
    for (v, r) in ranges.iter().enumerate() {
        if let Some((start, end)) = *r {
            let at = &mut first[start as usize];
            list[*at as usize] = Interval {
                v: VReg(v as u32),
                start,
                end,
            };
            *at += 1;
        }
    }
    for same_start in list.chunk_by_mut(|a, b| a.start == b.start) {
        if same_start.len() > 1 {
            same_start.sort_unstable_by_key(|i| (i.end, i.v.0));
        }
    }
    list
}

/// What keeping each value in memory costs, per position it would hold a register: its
/// mentions (each a load or a store) over its interval's length. A value named once in a
/// long stretch is the cheapest to spill; one named at every instruction the dearest.
fn spill_costs(code: &[MInst], ranges: &[Option<(u32, u32)>]) -> Vec<f32> {
    let mut mentions = vec![0u32; ranges.len()];
    for m in code {
        for s in m.slots() {
            mentions[s.reg.0 as usize] += 1;
        }
    }
    ranges
        .iter()
        .zip(mentions)
        .map(|(r, n)| r.map_or(0.0, |(start, end)| n as f32 / (end - start + 1) as f32))
        .collect()
}

/// For each value, the other side of a whole-register `MOV` it is copied from or to (the
/// last one met): the register it should share.
fn copy_hints(code: &[MInst], vregs: &VRegs) -> Vec<Option<VReg>> {
    let mut hints = vec![None; vregs.len()];
    for m in code.iter().filter(|m| m.opcode() == sgpu_isa::opcodes::MOV) {
        let (Some(d), Some(s)) = (m.slots().find(|s| s.def()), m.slots().find(|s| !s.def())) else {
            continue;
        };
        let word = |v: VReg| vregs.class(v) == Class::Gpr { size: 1 };
        if word(d.reg) && word(s.reg) && d.reg != s.reg {
            hints[d.reg.0 as usize] = Some(s.reg);
            hints[s.reg.0 as usize] = Some(d.reg);
        }
    }
    hints
}

/// The calls of a function: the read position of each, and the first callee-saved register
/// (docs/hw.md: the registers from there to the budget keep their values across a call).
#[derive(Clone, Copy)]
struct Calls<'c> {
    at: &'c [u32],
    saved_from: u32,
}

/// The first register a callee saves for its caller, when the module's functions have
/// `budget` general registers each: the upper half of the budget, from a multiple of 4.
pub fn callee_saved_from(budget: u32) -> u32 {
    (budget / 2) & !3
}

/// Whether a value is live across a call (read positions `calls`).
fn across_call(calls: &[u32], it: &Interval) -> bool {
    let next_call = calls[calls.partition_point(|&c| c <= it.start)..].first();
    next_call.is_some_and(|&c| c + 1 < it.end)
}

/// What [`scan`] is sure to spill, known without running it.
struct SureSpills {
    /// General registers, when more register words than `gpr_limit` are live at some point.
    /// Below that limit tuples' alignment, or values across calls that find no callee-saved
    /// register, may still make the scan spill, so `false` means "not sure".
    gpr: bool,
    /// Predicates, exactly: one register each, so the scan spills only when more than
    /// [`PREDICATES`] are live at once, or one is live across a call.
    pred: bool,
}

/// Counts, at every position, what is live in registers (predicates live across a call are
/// not).
fn sure_spills(
    list: &[Interval],
    vregs: &VRegs,
    calls: &[u32],
    gpr_limit: u32,
    instructions: usize,
) -> SureSpills {
    let mut sure = SureSpills {
        gpr: false,
        pred: false,
    };
    // Live words at each position, as changes: + at the start, - after the end.
    let mut delta = vec![[0i32; 2]; 2 * instructions + 2];
    for it in list {
        let class = vregs.class(it.v);
        let (file, size) = match class {
            Class::Gpr { size } => (0, i32::from(size)),
            Class::Pred => (1, 1),
        };
        if file == 1 && across_call(calls, it) {
            sure.pred = true;
            continue;
        }
        delta[it.start as usize][file] += size;
        delta[it.end as usize + 1][file] -= size;
    }
    let mut live = [0i32; 2];
    for d in &delta {
        live[0] += d[0];
        live[1] += d[1];
        sure.gpr |= live[0] > gpr_limit as i32;
        sure.pred |= live[1] > i32::from(PREDICATES);
    }
    sure
}

/// Linear scan. A value that finds no register goes to memory, unless an active value of the
/// same size costs less there (`weights.0`), which then goes instead. A value live across a
/// call takes a callee-saved register or goes to memory. A value takes the register of its
/// copy's other side (`weights.1`) when it can. `Spilled` holds the size in words here.
fn scan(
    list: &[Interval],
    vregs: &VRegs,
    calls: Calls<'_>,
    weights: (&[f32], &[Option<VReg>]),
    limits: (u32, u32),
) -> Vec<Home> {
    scan_vacating(list, vregs, calls, weights, limits, &mut Vacated::default())
}

/// The registers (general, predicates) that a value the scan sent to memory after giving it
/// one held before: from that value's start to where it went, they hold nothing.
///
/// Every other register below the scan's limits holds a value, at the place where the scan
/// found none free, of every value the scan left without one: so only these, and those at
/// or past the limits, can be free over such a value's whole interval
/// ([`unspill`](unspill::unspill)).
#[derive(Default)]
struct Vacated {
    gpr: [u64; 4],
    pred: u8,
}

impl Vacated {
    fn gpr(&self, r: u32) -> bool {
        self.gpr[r as usize / 64] & (1 << (r % 64)) != 0
    }
}

/// [`scan`], noting in `vacated` the registers of the values it sends to memory after giving
/// them one.
fn scan_vacating(
    list: &[Interval],
    vregs: &VRegs,
    calls: Calls<'_>,
    weights: (&[f32], &[Option<VReg>]),
    limits: (u32, u32),
    vacated: &mut Vacated,
) -> Vec<Home> {
    let (costs, hints) = weights;
    let Calls {
        at: calls,
        saved_from,
    } = calls;
    let (gpr_limit, pred_limit) = limits;
    let mut homes = vec![Home::Unused; vregs.len()];
    let mut gpr = Pool::new(gpr_limit);
    let mut pred = Pool::new(pred_limit);
    // Active intervals, ordered by end, latest first: expiry pops from the back. There are
    // at most as many as registers, so keeping the order by insertion is cheap. Each is its
    // end and register in one word (see `Active`), which orders them in one comparison.
    let mut active: Vec<Active> = Vec::new();
    for it in list {
        // Expire what ended before this starts.
        while let Some(&a) = active.last() {
            let (end, v) = (a.end(), a.v());
            if end >= it.start {
                break;
            }
            active.pop();
            if let Home::Reg(r) = homes[v.0 as usize] {
                let (pool, size) = pool_of(vregs, v, &mut gpr, &mut pred);
                pool.give(r, size);
            }
        }
        let (pool, size) = pool_of(vregs, it.v, &mut gpr, &mut pred);
        if across_call(calls, it) {
            // Only callee-saved registers keep a value across a call (docs/hw.md), and no
            // predicate is one.
            let saved = match vregs.class(it.v) {
                Class::Gpr { .. } => pool.take_from(size, saved_from),
                Class::Pred => None,
            };
            homes[it.v.0 as usize] = match saved {
                Some(r) => Home::Reg(r),
                None => Home::Spilled(size),
            };
            if saved.is_some() {
                let entry = Active::new(it.end, it.v);
                let at = active.partition_point(|&a| a > entry);
                active.insert(at, entry);
            }
            continue;
        }
        // A copy's two sides in one register make the copy vanish (`rewrite`): take the
        // register of the value this one is copied from or to, if it is free now.
        let hinted = hints[it.v.0 as usize].and_then(|h| match homes[h.0 as usize] {
            Home::Reg(r) if vregs.class(h) == vregs.class(it.v) => pool.take_at(r, size),
            _ => None,
        });
        if let Some(r) = hinted.or_else(|| pool.take(size)) {
            homes[it.v.0 as usize] = Home::Reg(r);
        } else {
            // Steal from the active value of the same class and size that is cheapest to keep
            // in memory: the fewest mentions (each a load or store) for the positions it
            // would hold a register, if that is cheaper than this value's.
            let own = costs[it.v.0 as usize];
            let victim = active
                .iter()
                .enumerate()
                .filter(|(_, a)| {
                    vregs.class(a.v()) == vregs.class(it.v)
                        && matches!(homes[a.v().0 as usize], Home::Reg(_))
                })
                .map(|(at, a)| (at, costs[a.v().0 as usize]))
                .filter(|&(_, c)| c < own)
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(at, _)| at);
            match victim {
                Some(at) => {
                    let v = active.remove(at).v();
                    homes[it.v.0 as usize] = homes[v.0 as usize];
                    homes[v.0 as usize] = Home::Spilled(size);
                    if let Home::Reg(r) = homes[it.v.0 as usize] {
                        match vregs.class(v) {
                            Class::Gpr { .. } => {
                                for k in r..r + size {
                                    vacated.gpr[k as usize / 64] |= 1 << (k % 64);
                                }
                            }
                            Class::Pred => vacated.pred |= 1 << r,
                        }
                    }
                }
                None => {
                    homes[it.v.0 as usize] = Home::Spilled(size);
                    continue;
                }
            }
        }
        let entry = Active::new(it.end, it.v);
        let at = active.partition_point(|&a| a > entry);
        active.insert(at, entry);
    }
    homes
}

/// What allocating with spilling works from.
struct Problem<'a> {
    code: &'a [MInst],
    vregs: &'a VRegs,
    ranges: &'a [Option<(u32, u32)>],
    /// `ranges` in scan order.
    list: &'a [Interval],
    calls: Calls<'a>,
    weights: (&'a [f32], &'a [Option<VReg>]),
    budget: u32,
    entry: bool,
    /// Whether predicates spill (the scan spills them alike whatever the general registers'
    /// limit), so that spill code needs scratch predicates too.
    spills_pred: bool,
}

/// Homes for every value, the intervals they are for (some lengthened for
/// rematerialisation), and where spill code's scratch registers start.
struct Placed {
    homes: Vec<Home>,
    ranges: Vec<Option<(u32, u32)>>,
    scratch: Scratch,
}

impl Problem<'_> {
    /// The scan with room left for spill code's scratch registers, then what
    /// rematerialisation makes of its spills, then [`unspill`](unspill::unspill).
    ///
    /// Spill code holds the values an instruction names that have no register in a block of
    /// scratch registers above the values' ([`scratch_plan`]), so the scan leaves free the
    /// largest block this function's spill code could need: every value in memory, 4 to 7
    /// registers for most functions of the corpus, 9 for a guarded 64-bit compare-and-swap,
    /// 10 for a 3D surface access of four words. A fixed reservation of 8 (the registers
    /// ATOM.CAS.B64 names) was too many for most functions, which then spilled with
    /// registers free, and too few for those instructions, whose spill code went past the
    /// budget (`atomhalf.ptx` at 16 registers used 18). What the block leaves unused,
    /// `unspill` gives to values.
    fn place(&self) -> Placed {
        let (code, vregs) = (self.code, self.vregs);
        let most = Needs::most(code, vregs);
        // A multiple of 4, so that the block's base, aligned to its widest value, stays
        // below the limit.
        let gpr_limit = self.budget.saturating_sub(most.gpr) & !3;
        let pred_limit = if self.spills_pred {
            PREDICATES.saturating_sub(most.pred as u8)
        } else {
            PREDICATES
        };
        let limits = (gpr_limit, u32::from(pred_limit));
        let mut vacated = Vacated::default();
        let (calls, weights) = (self.calls, self.weights);
        let mut homes = scan_vacating(self.list, vregs, calls, weights, limits, &mut vacated);
        let mut ranges = self.ranges.to_vec();
        if homes.iter().any(|h| matches!(h, Home::Spilled(_))) {
            // Values loaded from memory that does not change are loaded again rather than
            // spilled, if their address stays in its register: lengthen those and allocate
            // again. Then whatever can be recomputed is.
            let remat = remat::Candidates::of(code, vregs, self.entry);
            if remat.extend_addresses(code, &homes, &mut ranges) {
                let list = in_scan_order(&ranges, 2 * code.len());
                vacated = Vacated::default();
                homes = scan_vacating(&list, vregs, calls, weights, limits, &mut vacated);
            }
            remat.apply(code, &mut homes, &ranges);
        }
        // Spill code's registers follow the highest one allocated, aligned to the widest
        // value it moves.
        let align = (homes.iter().zip(&vregs.classes))
            .filter(|(h, _)| matches!(h, Home::Spilled(_) | Home::Remat(_)))
            .map(|(_, c)| match c {
                Class::Gpr { size } => u32::from(*size),
                Class::Pred => 1,
            })
            .fold(1, u32::max);
        let top = registers_of(&homes, vregs);
        let scratch = Scratch {
            gpr: top.div_ceil(align) * align,
            pred: pred_limit,
        };
        // Always, but under a budget smaller than that largest block (the command line
        // takes none under 16).
        #[cfg(debug_assertions)]
        {
            let needs = Needs::of(code, vregs, &homes);
            assert!(scratch.gpr + needs.gpr <= self.budget || self.budget < most.gpr);
            assert!(u32::from(pred_limit) + needs.pred <= u32::from(PREDICATES));
        }
        let scanned = unspill::Scanned {
            budget: self.budget,
            limits,
            vacated: &vacated,
        };
        unspill::unspill(
            code, vregs, &mut homes, &ranges, self.calls, scanned, scratch,
        );
        Placed {
            homes,
            ranges,
            scratch,
        }
    }
}

/// What a function's spill code needs with given homes: the largest scratch block one
/// instruction takes.
struct Needs {
    /// General registers.
    gpr: u32,
    /// Predicates.
    pred: u32,
}

impl Needs {
    /// The most spill code could need: what [`Needs::of`] gives with every value in memory,
    /// computed directly.
    fn most(code: &[MInst], vregs: &VRegs) -> Needs {
        let mut needs = Needs { gpr: 0, pred: 0 };
        let mut named = [VReg(u32::MAX); crate::mir::MAX_SLOTS];
        for m in code {
            let (mut gpr, mut pred, mut n) = (0, 0, 0);
            for s in m.slots() {
                if named[..n].contains(&s.reg) {
                    continue;
                }
                named[n] = s.reg;
                n += 1;
                match vregs.class(s.reg) {
                    Class::Gpr { size } => gpr += u32::from(size),
                    // A predicate moves through a general register.
                    Class::Pred => (gpr, pred) = (gpr + 1, pred + 1),
                }
            }
            let copy = m.opcode() == sgpu_isa::opcodes::MOV && m.always_runs() && m.nslots == 2;
            if copy && gpr == 2 && pred == 0 {
                // Through one register (`spilled_copy`).
                gpr = 1;
            }
            needs.gpr = needs.gpr.max(gpr);
            needs.pred = needs.pred.max(pred);
        }
        #[cfg(debug_assertions)]
        {
            let all_spilled: Vec<Home> = (vregs.classes.iter())
                .map(|c| match c {
                    Class::Gpr { size } => Home::Spilled(u32::from(*size)),
                    Class::Pred => Home::Spilled(1),
                })
                .collect();
            let of = Needs::of(code, vregs, &all_spilled);
            debug_assert_eq!((of.gpr, of.pred), (needs.gpr, needs.pred));
        }
        needs
    }

    /// With `homes` (checked against in debug builds only).
    #[cfg(debug_assertions)]
    fn of(code: &[MInst], vregs: &VRegs, homes: &[Home]) -> Needs {
        let mut needs = Needs { gpr: 0, pred: 0 };
        let scratch = Scratch { gpr: 0, pred: 0 };
        let mut plan = Vec::new();
        for m in code {
            let (gpr, pred) = scratch_plan(m, vregs, homes, scratch, &mut plan);
            needs.gpr = needs.gpr.max(gpr);
            needs.pred = needs.pred.max(pred);
        }
        needs
    }
}

/// The general registers values are given: the highest one, plus one.
fn registers_of(homes: &[Home], vregs: &VRegs) -> u32 {
    let mut top = 0;
    for (v, h) in homes.iter().enumerate() {
        if let (Home::Reg(r), Class::Gpr { size }) = (h, vregs.classes[v]) {
            top = top.max(r + u32::from(size));
        }
    }
    top
}

/// An active interval's end (high half) and register (low half): ordered by end, then
/// register.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Active(u64);

impl Active {
    fn new(end: u32, v: VReg) -> Active {
        Active(u64::from(end) << 32 | u64::from(v.0))
    }
    fn end(self) -> u32 {
        (self.0 >> 32) as u32
    }
    fn v(self) -> VReg {
        VReg(self.0 as u32)
    }
}

fn pool_of<'p>(
    vregs: &VRegs,
    v: VReg,
    gpr: &'p mut Pool,
    pred: &'p mut Pool,
) -> (&'p mut Pool, u32) {
    match vregs.class(v) {
        Class::Gpr { size } => (gpr, u32::from(size)),
        Class::Pred => (pred, 1),
    }
}

/// The registers set aside for spill code: general registers from `gpr` and predicates from
/// `pred` up.
#[derive(Clone, Copy)]
struct Scratch {
    gpr: u32,
    pred: u8,
}

/// Where one instruction's spill code holds a value the instruction names that has no
/// register: general register (or predicate) `r`, and for a predicate the general register
/// `tmp` it moves to and from memory through.
#[derive(Clone, Copy)]
struct Held {
    v: VReg,
    r: u32,
    tmp: u32,
}

/// Whether `m` goes: it defines only recomputed values, and every read recomputes them.
fn recomputed_def(m: &MInst, homes: &[Home]) -> bool {
    let mut defs = m.slots().filter(|s| s.def()).peekable();
    defs.peek().is_some() && defs.all(|s| matches!(homes[s.reg.0 as usize], Home::Remat(_)))
}

/// The scratch registers `m`'s spill code takes, into `out`: one for each value it names
/// that is spilled or recomputed (one for both sides of a copy between spilled values). The
/// general registers are one block from `scratch.gpr`, widest values first, then the
/// registers predicates move through: so the block has no gaps, each tuple is aligned when
/// the base is aligned to the widest, and the block only shrinks when a value it held gets a
/// register (`unspill` counts on both). Gives the block's size and the predicates taken.
fn scratch_plan(
    m: &MInst,
    vregs: &VRegs,
    homes: &[Home],
    scratch: Scratch,
    out: &mut Vec<Held>,
) -> (u32, u32) {
    out.clear();
    for s in m.slots() {
        let kept_out = matches!(homes[s.reg.0 as usize], Home::Spilled(_) | Home::Remat(_));
        if kept_out && !out.iter().any(|h| h.v == s.reg) {
            out.push(Held {
                v: s.reg,
                r: 0,
                tmp: 0,
            });
        }
    }
    // Most instructions name none.
    if out.is_empty() {
        return (0, 0);
    }
    if recomputed_def(m, homes) {
        out.clear();
        return (0, 0);
    }
    if let Some((d, src, _)) = spilled_copy(m, vregs, homes) {
        let r = scratch.gpr;
        out.clear();
        out.extend([src, d].map(|v| Held { v, r, tmp: 0 }));
        return (1, 0);
    }
    let words = |v: VReg| match vregs.class(v) {
        Class::Gpr { size } => u32::from(size),
        Class::Pred => 0,
    };
    if out.len() > 1 {
        out.sort_by_key(|h| std::cmp::Reverse(words(h.v)));
    }
    let (mut gpr, mut pred) = (0, 0);
    for h in out.iter_mut() {
        if vregs.class(h.v) == Class::Pred {
            h.r = u32::from(scratch.pred) + pred;
            pred += 1;
        } else {
            h.r = scratch.gpr + gpr;
            gpr += words(h.v);
        }
    }
    for h in out.iter_mut().filter(|h| vregs.class(h.v) == Class::Pred) {
        h.tmp = scratch.gpr + gpr;
        gpr += 1;
    }
    (gpr, pred)
}

/// What [`rewrite`] gives: the code, each old instruction's new index, the spill traffic
/// (bytes stored, loaded) and the highest register spill code used.
type Rewritten = (Vec<MInst>, Vec<usize>, (u32, u32), u32);

/// Fills in every slot, with loads before and stores after instructions that name spilled
/// values (in the scratch registers of [`scratch_plan`]); an error when a spill slot is past
/// what spill code's offset reaches.
fn rewrite(
    code: Vec<MInst>,
    vregs: &VRegs,
    homes: &[Home],
    scratch: Scratch,
) -> Result<Rewritten, FieldError> {
    let (mut stores, mut loads) = (0, 0);
    let mut top = 0;
    // Spill code adds up to two instructions per spilled value an instruction names; room
    // for one per instruction is mostly never touched, so it costs address space, not memory.
    let spills = homes.iter().any(|h| matches!(h, Home::Spilled(_)));
    let mut out = Vec::with_capacity(code.len() * if spills { 2 } else { 1 });
    let mut new_index = Vec::with_capacity(code.len() + 1);
    // Per instruction, reused: spill code before and after it, the scratch home of each
    // spilled value it names, and which of those are loaded already.
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut held: Vec<Held> = Vec::new();
    let mut ready: Vec<VReg> = Vec::new();
    for mut m in code {
        new_index.push(out.len());
        // Most instructions name no value without a register.
        let any = (m.slots())
            .any(|s| matches!(homes[s.reg.0 as usize], Home::Spilled(_) | Home::Remat(_)));
        // A recomputed value's own definition goes: every read recomputes it.
        if any && recomputed_def(&m, homes) {
            continue;
        }
        let words = if any {
            scratch_plan(&m, vregs, homes, scratch, &mut held).0
        } else {
            0
        };
        ready.clear();
        let guarded = m.guarded();
        // A copy between two values in memory goes through one scratch register, loaded
        // from the one and stored to the other: the copy itself is then pointless.
        if let Some((d, src, offset)) = spilled_copy(&m, vregs, homes).filter(|_| any) {
            reload(&mut before, false, scratch.gpr, offset, 1, 0, m.line)?;
            loads += 4;
            ready.extend([src, d]);
        }
        // Fields, not `m.slots()`: the loop writes `m.word` while it reads `m.slots`.
        for s in &m.slots[..usize::from(m.nslots)] {
            let home = homes[s.reg.0 as usize];
            let phys = match home {
                Home::Reg(r) => r,
                Home::Unused => 0,
                Home::Spilled(_) | Home::Remat(_) => {
                    let is_pred = vregs.class(s.reg) == Class::Pred;
                    let size = match vregs.class(s.reg) {
                        Class::Gpr { size } => u32::from(size),
                        Class::Pred => 1,
                    };
                    let Held { r, tmp, .. } = *held
                        .iter()
                        .find(|h| h.v == s.reg)
                        .expect("the plan holds every value without a register");
                    if !ready.contains(&s.reg) {
                        ready.push(s.reg);
                        // Values read, and values written under a guard (so that threads
                        // the guard leaves out store back what they had), are loaded.
                        let slots = &m.slots[..usize::from(m.nslots)];
                        let read = slots.iter().any(|t| t.reg == s.reg && !t.def());
                        match home {
                            Home::Remat(word) => {
                                before.push(remat::recompute(word, r, m.line)?);
                            }
                            Home::Spilled(offset) if read || guarded => {
                                reload(&mut before, is_pred, r, offset, size, tmp, m.line)?;
                                loads += 4 * size;
                            }
                            _ => {}
                        }
                    }
                    if let (true, Home::Spilled(offset)) = (s.def(), home) {
                        spill(&mut after, is_pred, r, offset, s, tmp, m.line)?;
                        stores += 4 * u32::from(s.width());
                    }
                    r
                }
            };
            sgpu_isa::set_field(
                &mut m.word,
                s.field.isa(),
                i64::from(phys + u32::from(s.part())),
            )?;
        }
        if words > 0 {
            top = top.max(scratch.gpr + words);
        }
        m.nslots = 0;
        for spill_code in before.iter_mut().chain(after.iter_mut()) {
            spill_code.loc = m.loc;
        }
        out.append(&mut before);
        // A copy the allocator made pointless (both sides in one register) goes.
        let self_move = m.opcode() == sgpu_isa::opcodes::MOV
            && sgpu_isa::field(m.word, fields::RD) == sgpu_isa::field(m.word, fields::RA);
        if !self_move {
            out.push(m);
        }
        out.append(&mut after);
    }
    new_index.push(out.len());
    Ok((out, new_index, (stores, loads), top))
}

/// An unguarded `MOV` from a one-word value in a spill slot (at the offset given) to another.
fn spilled_copy(m: &MInst, vregs: &VRegs, homes: &[Home]) -> Option<(VReg, VReg, u32)> {
    if m.opcode() != sgpu_isa::opcodes::MOV || !m.always_runs() || m.nslots != 2 {
        return None;
    }
    let d = m.slots().find(|s| s.def())?;
    let s = m.slots().find(|s| !s.def())?;
    let word = |v: VReg| vregs.class(v) == Class::Gpr { size: 1 };
    if !word(d.reg) || !word(s.reg) || d.reg == s.reg {
        return None;
    }
    match (homes[d.reg.0 as usize], homes[s.reg.0 as usize]) {
        (Home::Spilled(_), Home::Spilled(offset)) => Some((d.reg, s.reg, offset)),
        _ => None,
    }
}

fn msize(words: u32) -> Msize {
    match words {
        1 => Msize::B32,
        2 => Msize::B64,
        _ => Msize::B128,
    }
}

fn local(op: Op, line: u32) -> Result<MInst, FieldError> {
    MInst::new(Instruction::new(op), line)
}

/// Part `part` of the spill slot at `offset`, as `LD` and `ST` address it from RZ: an error
/// when the frame has grown past what their signed 24-bit offset reaches.
fn slot_offset(offset: u32, part: u8) -> Result<i32, FieldError> {
    let at = i64::from(offset) + 4 * i64::from(part);
    fields::OFF24.bits(at)?;
    Ok(at as i32)
}

/// Loads a spilled value into scratch register (or predicate) `r`; a predicate goes through
/// the general scratch register `tmp`.
fn reload(
    out: &mut Vec<MInst>,
    pred: bool,
    r: u32,
    offset: u32,
    size: u32,
    tmp: u32,
    line: u32,
) -> Result<(), FieldError> {
    let dst = if pred { tmp } else { r };
    out.push(local(
        Op::Ld {
            rd: Reg(dst as u8),
            ra: Reg::RZ,
            off24: slot_offset(offset, 0)?,
            space: Space::Local,
            msize: msize(size),
            cop: Default::default(),
            e: false,
            labs: false,
        },
        line,
    )?);
    if pred {
        out.push(local(
            Op::Isetp {
                pd: Pred(r as u8),
                pq: Pred::PT,
                ra: Reg(tmp as u8),
                rb: RegOrImm::Reg(Reg::RZ),
                pc: PredSrc::ALWAYS,
                icmp: sgpu_isa::Icmp::Ne,
                sgn: false,
                x: false,
                bop: sgpu_isa::Bop::And,
            },
            line,
        )?);
    }
    Ok(())
}

/// Stores the parts a slot wrote back to the spill slot.
fn spill(
    out: &mut Vec<MInst>,
    pred: bool,
    r: u32,
    offset: u32,
    s: &Slot,
    tmp: u32,
    line: u32,
) -> Result<(), FieldError> {
    let value = if pred {
        // 1 where the predicate is set.
        out.push(local(
            Op::Sel {
                rd: Reg(tmp as u8),
                ra: Reg::RZ,
                rb: RegOrImm::Imm(1),
                pc: PredSrc {
                    pred: Pred(r as u8),
                    negated: true,
                },
            },
            line,
        )?);
        tmp
    } else {
        r + u32::from(s.part())
    };
    out.push(local(
        Op::St {
            ra: Reg::RZ,
            off24: slot_offset(offset, s.part())?,
            rd: Reg(value as u8),
            space: Space::Local,
            msize: msize(u32::from(s.width())),
            cop: Default::default(),
            e: false,
            labs: false,
        },
        line,
    )?);
    Ok(())
}

mod remat;
mod saves;
#[cfg(test)]
mod tests;
mod unspill;
