//! The control unit: branches and reconvergence, calls, exits, traps, barrier arrivals and
//! warp synchronisation. The reconvergence stack itself is `warp.rs`; barriers `barrier.rs`.

use super::{Exec, Flow};
use crate::barrier::Arrival;
use crate::trap::Cause;
use crate::warp::{lanes, Reduction, Warp};
use sgpu_isa::{Bmode, Op, Reg, RegOrImm};

pub(super) fn exec(op: Op, w: &mut Warp, e: Exec) -> Result<Flow, Cause> {
    let Exec { next, mask } = e;
    // Branch targets count bytes from the next instruction; words are 8 bytes.
    let target = |t: i32| (i64::from(next) + i64::from(t) / 8) as u32;
    Ok(match op {
        Op::Bra { target: t, .. } => {
            w.branch(next, target(t), mask)?;
            Flow::Moved
        }
        Op::Ssy { target: t } => {
            w.pending_rpc = Some(target(t));
            Flow::Next
        }
        Op::Exit => {
            w.exit(mask, next);
            Flow::Moved
        }
        Op::Ret => {
            w.ret(mask, next)?;
            Flow::Moved
        }
        Op::Call { target: t, frame } => {
            w.call(mask, 0, next, target(t), frame)?;
            Flow::Moved
        }
        Op::Callr { ra, rframe } => {
            indirect_call(w, mask, next, ra, rframe)?;
            Flow::Moved
        }
        Op::Trap if mask != 0 => return Err(Cause::TrapInstruction),
        Op::Bar { rb, rc, bmode } if mask != 0 => {
            Flow::Arrive(arrival(w, mask, rb, rc, bmode == Bmode::Sync, None))
        }
        // The result is written when the barrier completes (barrier.rs).
        Op::Barred {
            rd,
            pd,
            rb,
            rc,
            pc,
            bred,
        } if mask != 0 => {
            let r = Reduction {
                op: bred,
                rd,
                pd,
                mask,
            };
            Flow::Arrive(arrival(w, mask, rb, rc, true, Some((r, w.ps(pc) & mask))))
        }
        Op::Warpsync { ra } => {
            for l in lanes(mask) {
                check_members(w, w.r(ra, l), mask)?;
            }
            Flow::Next
        }
        Op::Warpsynci { imm32 } => {
            if mask != 0 {
                check_members(w, imm32, mask)?;
            }
            Flow::Next
        }
        Op::Nop | Op::Trap | Op::Bar { .. } | Op::Barred { .. } | Op::Membar { .. } => Flow::Next,
        _ => unreachable!("exec::step gives the control unit only control instructions"),
    })
}

/// `CALLR`: the calling lanes that hold the first one's target call it; the others wait at
/// the `CALLR` and run it again when those have returned, so each target is called once
/// per distinct value, in lane order of first holders.
fn indirect_call(w: &mut Warp, mask: u32, next: u32, ra: Reg, frame: u32) -> Result<(), Cause> {
    let Some(first) = lanes(mask).next() else {
        w.advance(next);
        return Ok(());
    };
    let address = w.r64(ra, first);
    let target = address
        .is_multiple_of(8)
        .then(|| u32::try_from(address / 8).ok())
        .flatten()
        .ok_or(Cause::CallTarget { address })?;
    let same = lanes(mask)
        .filter(|&l| w.r64(ra, l) == address)
        .fold(0, |m, l| m | 1 << l);
    w.call(same, mask & !same, next, target, frame)
}

/// A barrier arrival: the barrier and count are the first executing lane's (PTX requires
/// them uniform); a count register of RZ means every thread of the CTA.
fn arrival(
    w: &Warp,
    mask: u32,
    rb: RegOrImm,
    rc: Reg,
    waits: bool,
    reduction: Option<(Reduction, u32)>,
) -> Arrival {
    let first = lanes(mask).next().unwrap_or(0);
    Arrival {
        id: w.ri(rb, first),
        threads: (rc != Reg::RZ).then(|| w.r(rc, first)),
        waits,
        reduction,
    }
}

/// `.sync` forms: every non-exited lane of the member mask must be executing the instruction.
fn check_members(w: &Warp, members: u32, executing: u32) -> Result<(), Cause> {
    let members = members & w.lanes & !w.exited;
    if members & !executing != 0 {
        return Err(Cause::SyncMembers { members, executing });
    }
    Ok(())
}
