//! A warp: 32 lanes of registers, predicates and carry, its local memory and frames, and the
//! reconvergence stack (what `exec::step` runs one instruction of).
//!
//! Reconvergence follows GPGPU-Sim's immediate-post-dominator stack (docs/isa.md): `SSY`
//! names where the next branch reconverges; a branch that splits the warp turns the running
//! entry into a reconvergence entry and pushes one entry per path; an entry whose next
//! instruction is its reconvergence point, or whose lanes have all left, is popped.

use crate::memory::{Access, CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW};
use crate::record::Space;
use crate::trap::Cause;
use sgpu_isa::{Bred, Pred, PredSrc, Reg, RegOrImm};

pub const LANES: usize = 32;
/// Entries of a warp's reconvergence stack, calls included: a hardware parameter (the stack
/// is a fixed memory per warp, `stack_depth` of the ABI); a branch or call that needs more
/// traps with [`Cause::StackOverflow`].
pub const STACK_DEPTH: usize = sgpu_isa::abi::STACK_DEPTH as usize;
/// No reconvergence point: paths end only by exiting.
pub const NEVER: u32 = u32::MAX;

/// One entry of the reconvergence stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub pc: u32,
    pub rpc: u32,
    pub mask: u32,
    /// A call's entry: the frame offset it moved the callee's local memory by. Lanes leave it
    /// as they return.
    pub call: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Running,
    /// Waiting at barrier `id` until it completes (`barrier.rs`).
    Waiting(u8),
    Exited,
}

/// A `BARRED` waiting at its barrier: where the CTA's result goes once the barrier completes,
/// and the lanes that ran it.
#[derive(Clone, Copy, Debug)]
pub struct Reduction {
    pub op: Bred,
    pub rd: Reg,
    pub pd: Pred,
    pub mask: u32,
}

/// A warp's architectural state.
pub struct Warp {
    pub id: u32,
    /// The lanes that exist (a CTA whose size is not a multiple of 32 has a partial warp).
    pub lanes: u32,
    pub exited: u32,
    pub regs: Vec<[u32; LANES]>,
    /// Predicate registers as lane masks.
    pub preds: [u32; 7],
    pub carry: u32,
    pub stack: Vec<Entry>,
    pub pending_rpc: Option<u32>,
    /// Each lane's local frame base (moved by CALL and RET).
    pub frame: [u32; LANES],
    /// Each lane's thread index in the CTA.
    pub tid: [[u32; 3]; LANES],
    pub state: State,
    /// The reduction this warp brought to the barrier it waits at, if it came by `BARRED`.
    pub reduction: Option<Reduction>,
    /// Bytes of each lane's local memory (it lives in the memory system, `memory.rs`).
    pub local_size: usize,
}

/// Register `r + k` of a tuple; past R254 (or from RZ) it is RZ, which reads zero and drops
/// writes, so a malformed word cannot index past the register file.
pub fn reg_at(r: Reg, k: u8) -> Reg {
    if r == Reg::RZ {
        return Reg::RZ;
    }
    r.0.checked_add(k).map_or(Reg::RZ, Reg)
}

/// The lanes of a mask, lowest first.
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(l)
    })
}

impl Warp {
    pub fn new(id: u32, start: u32, tid: [[u32; 3]; LANES], count: u32, local_size: usize) -> Warp {
        let lanes = if count >= 32 {
            u32::MAX
        } else {
            (1u32 << count) - 1
        };
        Warp {
            id,
            lanes,
            exited: 0,
            regs: vec![[0; LANES]; 255],
            preds: [0; 7],
            carry: 0,
            stack: vec![Entry {
                pc: start,
                rpc: NEVER,
                mask: lanes,
                call: None,
            }],
            pending_rpc: None,
            frame: [0; LANES],
            tid,
            state: State::Running,
            reduction: None,
            local_size,
        }
    }

    pub fn pc(&self) -> Option<u32> {
        self.stack.last().map(|e| e.pc)
    }

    pub fn active(&self) -> u32 {
        self.stack.last().map_or(0, |e| e.mask)
    }

    /// Register `r` of `lane`; RZ reads zero.
    pub fn r(&self, r: Reg, lane: usize) -> u32 {
        if r == Reg::RZ {
            0
        } else {
            self.regs[r.0 as usize][lane]
        }
    }

    /// Writes register `r` of `lane`; writes to RZ vanish.
    pub fn w(&mut self, r: Reg, lane: usize, v: u32) {
        if r != Reg::RZ {
            self.regs[r.0 as usize][lane] = v;
        }
    }

    /// The 64-bit value in the pair from `r`.
    pub fn r64(&self, r: Reg, lane: usize) -> u64 {
        if r == Reg::RZ {
            return 0;
        }
        u64::from(self.r(r, lane)) | u64::from(self.r(reg_at(r, 1), lane)) << 32
    }

    pub fn w64(&mut self, r: Reg, lane: usize, v: u64) {
        if r != Reg::RZ {
            self.w(r, lane, v as u32);
            self.w(reg_at(r, 1), lane, (v >> 32) as u32);
        }
    }

    pub fn ri(&self, x: RegOrImm, lane: usize) -> u32 {
        match x {
            RegOrImm::Reg(r) => self.r(r, lane),
            RegOrImm::Imm(i) => u32::from(i),
        }
    }

    /// A predicate as a lane mask; PT is every lane.
    pub fn p(&self, p: Pred) -> u32 {
        if p == Pred::PT {
            u32::MAX
        } else {
            self.preds[p.0 as usize]
        }
    }

    pub fn ps(&self, p: PredSrc) -> u32 {
        let v = self.p(p.pred);
        if p.negated {
            !v
        } else {
            v
        }
    }

    /// Sets predicate `p` in the lanes of `mask` to the bits of `value`.
    pub fn set_p(&mut self, p: Pred, mask: u32, value: u32) {
        if p != Pred::PT {
            let v = &mut self.preds[p.0 as usize];
            *v = (*v & !mask) | (value & mask);
        }
    }

    /// A lane's local access: the address in its thread's local memory (the frame added
    /// when `in_frame`), and the thread.
    pub fn local_access(
        &self,
        lane: usize,
        address: u64,
        len: usize,
        in_frame: bool,
    ) -> Result<Access, Cause> {
        let base = if in_frame { self.frame[lane] } else { 0 };
        let at = u64::from(base).checked_add(address);
        match at.filter(|at| {
            at.checked_add(len as u64)
                .is_some_and(|e| e <= self.local_size as u64)
        }) {
            Some(at) => Ok(Access {
                space: Space::Local,
                address: at,
                thread: self.thread(lane),
            }),
            None => Err(Cause::OutOfBounds {
                space: Space::Local,
                address,
                size: len as u8,
            }),
        }
    }

    /// Lane `lane`'s thread: its index in the CTA.
    pub fn thread(&self, lane: usize) -> u32 {
        self.id * LANES as u32 + lane as u32
    }

    /// Moves the warp on after an instruction at `pc` that did not branch: pops entries that
    /// reached their reconvergence point or lost all their lanes.
    pub fn advance(&mut self, next: u32) {
        if let Some(top) = self.stack.last_mut() {
            top.pc = next;
        }
        self.settle();
    }

    /// Pops finished entries: those that lost every lane, and reconvergence entries at their
    /// reconvergence point. A call's entry ends only when its lanes have returned: its return
    /// address may be an instruction of the callee too (a recursive call's is), which a
    /// deeper frame reaches without returning (docs/golden-model.md, "Reconvergence and
    /// calls").
    pub fn settle(&mut self) {
        while let Some(top) = self.stack.last() {
            if top.mask == 0 || top.call.is_none() && top.pc == top.rpc {
                self.stack.pop();
            } else {
                break;
            }
        }
        if self.stack.is_empty() {
            self.state = State::Exited;
        }
    }

    /// A branch to `target` taken by the lanes of `taken` (within the active ones).
    pub fn branch(&mut self, next: u32, target: u32, taken: u32) -> Result<(), Cause> {
        let active = self.active();
        let rpc = self.pending_rpc.take().unwrap_or(NEVER);
        let taken = taken & active;
        if taken == active {
            self.advance(target);
            return Ok(());
        }
        if taken == 0 {
            self.advance(next);
            return Ok(());
        }
        let Some(top) = self.stack.last_mut() else {
            return Ok(());
        };
        let not_taken = active & !taken;
        // The running entry reconverges there already: the paths replace it.
        let replace = top.rpc == rpc && top.call.is_none();
        if self.stack.len() + 2 - usize::from(replace) > STACK_DEPTH {
            return Err(Cause::StackOverflow);
        }
        if replace {
            self.stack.pop();
        } else if let Some(top) = self.stack.last_mut() {
            top.pc = rpc;
        }
        self.stack.push(Entry {
            pc: next,
            rpc,
            mask: not_taken,
            call: None,
        });
        self.stack.push(Entry {
            pc: target,
            rpc,
            mask: taken,
            call: None,
        });
        self.settle();
        Ok(())
    }

    /// `EXIT` by the lanes of `mask`: they leave every entry.
    pub fn exit(&mut self, mask: u32, next: u32) {
        self.exited |= mask;
        for e in &mut self.stack {
            e.mask &= !mask;
        }
        self.advance(next);
    }

    /// `CALL` (and `CALLR` for one target): the calling lanes `mask` run the callee in an
    /// entry of their own that ends when they have all returned; the caller's entry waits at
    /// the return address. The lanes of `waiting` (a `CALLR`'s lanes with other targets) wait
    /// at the call instruction in an entry between the two, which runs it again and ends at
    /// the return address; when that entry is the one running, it only narrows.
    pub fn call(
        &mut self,
        mask: u32,
        waiting: u32,
        next: u32,
        target: u32,
        frame: u32,
    ) -> Result<(), Cause> {
        if mask == 0 {
            self.advance(next);
            return Ok(());
        }
        let here = next - 1;
        let again = self
            .stack
            .last()
            .is_some_and(|t| t.call.is_none() && t.pc == here && t.rpc == next);
        let new_waiting = waiting != 0 && !again;
        if self.stack.len() + 1 + usize::from(new_waiting) > STACK_DEPTH {
            return Err(Cause::StackOverflow);
        }
        for l in lanes(mask) {
            let moved = u64::from(self.frame[l]) + u64::from(frame);
            if moved > self.local_size as u64 {
                return Err(Cause::FrameOverflow {
                    lane: l as u8,
                    frame: moved,
                });
            }
        }
        for l in lanes(mask) {
            self.frame[l] += frame;
        }
        if let Some(top) = self.stack.last_mut() {
            if waiting != 0 && again {
                top.mask = waiting;
            } else {
                top.pc = next;
            }
        }
        if new_waiting {
            self.stack.push(Entry {
                pc: here,
                rpc: next,
                mask: waiting,
                call: None,
            });
        }
        self.stack.push(Entry {
            pc: target,
            rpc: next,
            mask,
            call: Some(frame),
        });
        Ok(())
    }

    /// `RET` by the lanes of `mask`: they leave the entries above their call's, which records
    /// them as returned.
    pub fn ret(&mut self, mask: u32, next: u32) -> Result<(), Cause> {
        let Some(at) = self.stack.iter().rposition(|e| e.call.is_some()) else {
            return Err(Cause::RetOutsideCall);
        };
        let (call_lanes, frame) = (self.stack[at].mask, self.stack[at].call.unwrap_or(0));
        for l in lanes(mask & call_lanes) {
            self.frame[l] -= frame;
        }
        for e in &mut self.stack[at..] {
            e.mask &= !mask;
        }
        // Lanes that did not return go on in the callee.
        if let Some(top) = self.stack.last_mut() {
            top.pc = next;
        }
        self.settle();
        Ok(())
    }
}

/// The window base of a special register, for `cvta`.
pub fn window(sreg: sgpu_isa::Sreg) -> Option<u32> {
    use sgpu_isa::Sreg::*;
    Some(match sreg {
        SharedWindow => SHARED_WINDOW as u32,
        LocalWindow => LOCAL_WINDOW as u32,
        ConstWindow => CONST_WINDOW as u32,
        _ => return None,
    })
}

/// The text of an instruction word, for trap messages.
pub fn text(word: u64) -> String {
    match sgpu_isa::decode(word) {
        Ok(i) => i.to_string(),
        Err(e) => format!("<{e}>"),
    }
}
