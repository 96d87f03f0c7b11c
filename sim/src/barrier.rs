//! A CTA's sixteen named barriers (PTX `barrier`, `bar`), kept as hardware keeps them: per
//! barrier the warps arrived since it last completed, the number it completes at, the warps
//! waiting, and the reduction so far.
//!
//! PTX counts arrivals in threads, a whole warp at a time ("marks warps' arrival"), and wants a
//! thread count that is a multiple of the warp size, so the hardware counts warps: a count of
//! `b` threads completes at `b / 32` arrivals. Without a count every warp of the CTA that has
//! not exited takes part, so an exit can complete a barrier the others wait at. When the
//! barrier completes, its waiting warps run on, a `BARRED`'s result is written to each of them,
//! and the barrier is ready for reuse.

use crate::record::BarrierEvent;
use crate::trap::Cause;
use crate::warp::{lanes, Reduction, State, Warp, LANES};
use sgpu_isa::Bred;

/// Barriers per CTA (`barriers` of the ABI).
pub const BARRIERS: usize = sgpu_isa::abi::BARRIERS as usize;

/// A warp's arrival, as the control unit decodes it from `BAR` or `BARRED`.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub id: u32,
    /// Threads taking part, or `None` for every thread of the CTA (the count register is RZ).
    pub threads: Option<u32>,
    pub waits: bool,
    /// A `BARRED`: where its result goes, and the lanes of `mask` whose predicate was true.
    pub reduction: Option<(Reduction, u32)>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Barrier {
    /// Warps arrived since the barrier last completed; 0 when it is idle.
    arrived: u32,
    /// The warps it completes at, set by its first arrival; `None` for all of the CTA.
    expected: Option<u32>,
    /// The warps waiting at it, by warp index.
    waiting: u32,
    /// A reduction in progress: its operation, the count of true predicates, and whether all
    /// and any were true.
    op: Option<Bred>,
    popc: u32,
    all: bool,
    any: bool,
}

/// The barriers of one CTA.
#[derive(Clone, Debug, Default)]
pub struct Barriers {
    slots: [Barrier; BARRIERS],
}

impl Barriers {
    /// Warp `warp` arrives; completes the barrier if it is the last. Returns what happened.
    pub fn arrive(
        &mut self,
        warps: &mut [Warp],
        warp: usize,
        a: Arrival,
    ) -> Result<BarrierEvent, Cause> {
        let id = usize::try_from(a.id)
            .ok()
            .filter(|&i| i < BARRIERS)
            .ok_or(Cause::BarrierId { id: a.id })?;
        let expected = match a.threads {
            None => None,
            Some(t) if t > 0 && t % LANES as u32 == 0 => Some(t / LANES as u32),
            Some(t) => return Err(Cause::BarrierCount { count: t }),
        };
        let b = &mut self.slots[id];
        let op = a.reduction.map(|(r, _)| r.op);
        if b.arrived == 0 {
            *b = Barrier {
                expected,
                op,
                all: true,
                ..Barrier::default()
            };
        } else if b.expected != expected || b.op != op {
            return Err(Cause::BarrierMismatch { id: id as u8 });
        }
        b.arrived += 1;
        if let Some((r, set)) = a.reduction {
            b.popc += set.count_ones();
            b.all &= set == r.mask;
            b.any |= set != 0;
            warps[warp].reduction = Some(r);
        }
        if a.waits {
            b.waiting |= 1 << warp;
            warps[warp].state = State::Waiting(id as u8);
        }
        let (released, result) = self.complete(warps, id);
        Ok(BarrierEvent {
            id: id as u8,
            waits: a.waits,
            released,
            result,
        })
    }

    /// After warps exited: completes the whole-CTA barriers that now have every warp left.
    /// Returns the event of the last one completed, if any.
    pub fn recheck(&mut self, warps: &mut [Warp]) -> Option<BarrierEvent> {
        let mut event = None;
        for id in 0..BARRIERS {
            if self.slots[id].arrived == 0 {
                continue;
            }
            let (released, result) = self.complete(warps, id);
            if released != 0 {
                event = Some(BarrierEvent {
                    id: id as u8,
                    waits: false,
                    released,
                    result,
                });
            }
        }
        event
    }

    /// Completes barrier `id` if enough warps have arrived: releases its waiting warps and
    /// writes the reduction's result to them. Returns the warps released and the result.
    fn complete(&mut self, warps: &mut [Warp], id: usize) -> (u32, Option<(Bred, u32)>) {
        let b = self.slots[id];
        let live = warps.iter().filter(|w| w.state != State::Exited).count() as u32;
        if b.arrived < b.expected.unwrap_or(live) {
            return (0, None);
        }
        self.slots[id] = Barrier::default();
        let result = b.op.map(|op| {
            let value = match op {
                Bred::Popc => b.popc,
                Bred::And => u32::from(b.all),
                Bred::Or => u32::from(b.any),
            };
            (op, value)
        });
        for l in lanes(b.waiting) {
            let w = &mut warps[l];
            w.state = State::Running;
            if let (Some(r), Some((op, value))) = (w.reduction.take(), result) {
                write_result(w, r, op, value);
            }
        }
        (b.waiting, result)
    }

    /// Whether any barrier has arrivals outstanding (a CTA that ends so has a bug).
    pub fn busy(&self) -> bool {
        self.slots.iter().any(|b| b.arrived != 0)
    }
}

/// A completed reduction's result into a released warp: the count to `rd` (POPC), or the
/// truth to `pd` (AND, OR), in the lanes that ran the `BARRED`.
fn write_result(w: &mut Warp, r: Reduction, op: Bred, value: u32) {
    match op {
        Bred::Popc => {
            for l in lanes(r.mask) {
                w.w(r.rd, l, value);
            }
        }
        Bred::And | Bred::Or => {
            let truth = if value != 0 { u32::MAX } else { 0 };
            w.set_p(r.pd, r.mask, truth);
        }
    }
}
