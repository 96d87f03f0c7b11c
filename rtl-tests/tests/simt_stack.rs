//! `hw/sgpu_simt_stack.sv`, core v2's reconvergence stacks, built with Verilator and run
//! against the golden model's own warp (`sgpu_sim::warp::Warp`: `branch`, `exit`, `call`,
//! `ret`, `advance` and the `SSY` point), the oracle.
//!
//! Each warp slot runs a random program from its top's pc: uniform and divergent branches
//! with and without an `SSY` point, `SSY`s, calls (a CALLR's lanes with other targets
//! included, and its re-run at the call), returns (now and then outside any call), exits of
//! some lanes, instructions that only move on; targets close together, so that paths
//! reconverge, and phases of calls that fill the stack to its 64 entries and overflow it.
//! After each operation the top (pc, reconvergence pc, mask), the stack's size, a fault and a
//! return's lanes and frame are compared; a warp that faulted or ended starts again. Every
//! operation's cycles are checked against the module's header (`cycles`).
//!
//! `RTL_TEST_CASES=N` runs N operations a configuration (100,000 by default). Verilator
//! (5.006 or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, hex_values, run, testbench_with, Rng};
use sgpu_sim::warp::{Warp, NEVER, STACK_DEPTH};
use sgpu_sim::Cause;

const RTL: [&str; 2] = ["hw/sgpu_ram.sv", "hw/sgpu_simt_stack.sv"];
const TESTBENCH: &str = "rtl-tests/tb/simt_stack_tb.cpp";

/// The operations, as the module numbers them.
const ADVANCE: u32 = 0;
const SSY: u32 = 1;
const BRANCH: u32 = 2;
const EXIT: u32 = 3;
const CALL: u32 = 4;
const RET: u32 = 5;

/// One operation for a warp slot, as the testbench reads it.
struct Op {
    kind: u32,
    next: u32,
    target: u32,
    mask: u32,
    waiting: u32,
    frame: u32,
}

/// What the module answers: fault, pc, rpc, mask, size, return lanes and frame; and cycles.
type Answer = ([u64; 8], u32);

/// Starts a warp in `slot`: of all 32 lanes if `wide`, else of a random count.
fn start(rng: &mut Rng, slot: u32, wide: bool) -> (Warp, String) {
    let count = if wide {
        32
    } else {
        1 + (rng.word() % 32) as u32
    };
    let pc = 1 + (rng.word() % 8) as u32;
    let w = Warp::new(slot, pc, [[0; 3]; 32], count, 1 << 20);
    let line = format!("0 {slot:x} {pc:x} {:x}\n", w.lanes);
    (w, line)
}

/// A random subset of `of`, now and then all of it or none.
fn subset(rng: &mut Rng, of: u32) -> u32 {
    match rng.word() % 8 {
        0 => of,
        1 => 0,
        _ => of & rng.word() as u32,
    }
}

/// The next operation of a warp, from its state: `deep` favours calls.
fn operation(rng: &mut Rng, w: &Warp, deep: bool) -> Op {
    let pc = w.pc().expect("a live warp");
    let active = w.active();
    let top = w.stack.last().expect("a live warp");
    let in_call = w.stack.iter().any(|e| e.call.is_some());
    let near = |rng: &mut Rng| pc.saturating_sub(6) + 1 + (rng.word() % 14) as u32;
    let mut op = Op {
        kind: ADVANCE,
        next: pc + 1,
        target: near(rng),
        mask: subset(rng, active),
        waiting: 0,
        frame: (rng.word() % 16) as u32,
    };
    // A CALLR's lanes that waited at it run it again when it is their turn.
    let again = top.call.is_none() && top.rpc == pc + 1;
    let roll = rng.word() % 100;
    let nearly_full = w.stack.len() + 2 >= STACK_DEPTH;
    op.kind = match () {
        _ if again && roll < 50 => CALL,
        _ if nearly_full && roll < 30 => BRANCH,
        _ if deep && roll < 80 => CALL,
        _ if roll < 20 => ADVANCE,
        _ if roll < 35 => SSY,
        _ if roll < 65 => BRANCH,
        _ if roll < 68 => EXIT,
        _ if roll < 83 => CALL,
        _ if in_call || roll < 85 => RET,
        _ => BRANCH,
    };
    if op.kind == CALL && rng.word().is_multiple_of(3) {
        op.waiting = subset(rng, active & !op.mask);
    }
    // Deep calls keep their lanes, so that a full stack still has paths to split; near the
    // top, half of them are CALLRs whose lanes wait in an entry of their own.
    if deep && op.kind == CALL {
        (op.mask, op.waiting) = (active, 0);
        if nearly_full && roll.is_multiple_of(2) {
            op.mask = subset(rng, active);
            op.waiting = active & !op.mask;
        }
    }
    op
}

/// Runs `op` on the model: its answer, but for the cycles.
fn model(w: &mut Warp, op: &Op) -> Result<[u64; 8], Cause> {
    let (mut ret_lanes, mut ret_frame) = (0, 0);
    match op.kind {
        ADVANCE => w.advance(op.next),
        SSY => {
            w.pending_rpc = Some(op.target);
            w.advance(op.next);
        }
        BRANCH => w.branch(op.next, op.target, op.mask)?,
        EXIT => w.exit(op.mask, op.next),
        CALL => w.call(op.mask, op.waiting, op.next, op.target, op.frame)?,
        _ => {
            if let Some(e) = w.stack.iter().rev().find(|e| e.call.is_some()) {
                (ret_lanes, ret_frame) = (op.mask & e.mask, e.call.unwrap_or(0));
            }
            w.ret(op.mask, op.next)?;
        }
    }
    let top = w.stack.last().copied();
    Ok([
        0,
        top.map_or(0, |e| e.pc).into(),
        top.map_or(0, |e| e.rpc).into(),
        top.map_or(0, |e| e.mask).into(),
        w.stack.len() as u64,
        ret_lanes.into(),
        ret_frame.into(),
        top.map_or(0, |e| e.call.is_some().into()),
    ])
}

/// What `op` does to the stack before it settles: the entries it pushes, whether it writes
/// a second entry in a cycle of its own, and the entries under the top it sweeps.
fn shape(w: &Warp, op: &Op) -> (usize, bool, usize) {
    let top = *w.stack.last().expect("a live warp");
    let n = w.stack.len();
    match op.kind {
        BRANCH => {
            let taken = op.mask & top.mask;
            let rpc = w.pending_rpc.unwrap_or(NEVER);
            let replace = top.rpc == rpc && top.call.is_none();
            match taken != 0 && taken != top.mask {
                true if replace => (1, false, 0),
                true => (2, true, 0),
                false => (0, false, 0),
            }
        }
        CALL if op.mask != 0 => {
            let again = top.call.is_none() && top.pc == op.next - 1 && top.rpc == op.next;
            let new_waiting = op.waiting != 0 && !again;
            (1 + usize::from(new_waiting), new_waiting, 0)
        }
        EXIT => (0, false, n - 1),
        RET => {
            let at = w
                .stack
                .iter()
                .rposition(|e| e.call.is_some())
                .unwrap_or(n - 1);
            (0, false, n - 1 - at)
        }
        _ => (0, false, 0),
    }
}

/// The cycles the module's header promises for an operation of that shape on a stack of
/// `before` entries and `after` once done: 5, one for a second entry written, two for each
/// entry popped from the memory, and for a sweep of k entries k + 2.
fn cycles(before: usize, after: usize, (pushed, second, swept): (usize, bool, usize)) -> u32 {
    let popped = before + pushed - after;
    let read = popped - usize::from(after == 0 && popped > 0);
    let sweep = if swept > 0 { swept + 2 } else { 0 };
    (5 + usize::from(second) + 2 * read + sweep) as u32
}

fn check(warps: u32, ops: usize, seed: u64) {
    let exe = testbench_with("sgpu_simt_stack", &RTL, TESTBENCH, &[("WARPS", warps)]);
    let mut rng = Rng::new(seed);
    let mut input = String::new();
    let mut slots = Vec::new();
    for s in 0..warps {
        let (w, line) = start(&mut rng, s, false);
        slots.push(w);
        input += &line;
    }
    let (mut want, mut deep) = (Vec::new(), false);
    let mut seen = [0usize; 6];
    let (mut overflows, mut deepest) = (0, 0);
    // Branches and calls that push two entries onto a stack with room for one only.
    let mut two_at_edge = [0usize; 2];
    for _ in 0..ops {
        if rng.word().is_multiple_of(300) {
            deep = !deep;
        }
        let s = (rng.word() % u64::from(warps)) as u32;
        // A deep phase needs lanes to split when the stack is full.
        if deep && slots[s as usize].active().count_ones() < 2 {
            let (w, line) = start(&mut rng, s, true);
            slots[s as usize] = w;
            input += &line;
        }
        let w = &mut slots[s as usize];
        let op = operation(&mut rng, w, deep);
        let before = w.stack.len();
        let shaped = shape(w, &op);
        if shaped.0 == 2 && before == STACK_DEPTH - 1 {
            two_at_edge[usize::from(op.kind == CALL)] += 1;
        }
        input += &format!(
            "1 {:x} {s:x} {:x} {:x} {:x} {:x} {:x}\n",
            op.kind, op.next, op.target, op.mask, op.waiting, op.frame
        );
        seen[op.kind as usize] += 1;
        let answer = match model(w, &op) {
            Ok(a) => {
                deepest = deepest.max(w.stack.len());
                (a, Some(cycles(before, w.stack.len(), shaped)))
            }
            Err(cause) => {
                overflows += usize::from(cause == Cause::StackOverflow);
                let code = match cause {
                    Cause::StackOverflow => 1,
                    Cause::RetOutsideCall => 2,
                    other => panic!("the model faulted with {other:?}"),
                };
                ([code, 0, 0, 0, 0, 0, 0, 0], None)
            }
        };
        want.push(answer);
        let w = &slots[s as usize];
        if answer.1.is_none() || w.stack.is_empty() || w.pc().is_some_and(|pc| pc > 1 << 20) {
            let (w, line) = start(&mut rng, s, false);
            slots[s as usize] = w;
            input += &line;
        }
    }
    let lines: Vec<String> = run(&exe, &input).into_iter().filter(|l| l != "-").collect();
    assert_eq!(lines.len(), want.len(), "one line an operation");
    for (n, (line, (expected, cycles))) in lines.iter().zip(&want).enumerate() {
        let f = hex_values(line.rsplit_once(' ').expect("cycles").0);
        let got_cycles: u32 = line.rsplit(' ').next().unwrap().parse().expect("cycles");
        let got: Answer = (f[..8].try_into().expect("eight values"), got_cycles);
        // A fault leaves the stack for the trap; an empty stack has no top.
        let compared: &[usize] = match (expected[0], expected[4]) {
            (0, 0) => &[0, 4],
            (0, _) => &[0, 1, 2, 3, 4, 5, 6, 7],
            _ => &[0],
        };
        for &k in compared {
            assert_eq!(
                got.0[k], expected[k],
                "{warps} warps, operation {n}: value {k} of {line}, want {expected:x?}"
            );
        }
        if let Some(c) = cycles {
            assert_eq!(got.1, *c, "{warps} warps, operation {n}: cycles");
        }
    }
    println!(
        "{warps} warps: {ops} operations (advance, SSY, branch, exit, call, return: {seen:?}), deepest stack {deepest}, {overflows} overflows ({two_at_edge:?} branches and calls pushing two at 63 entries)"
    );
    assert!(
        deepest == STACK_DEPTH && overflows > 0,
        "the stack was never filled"
    );
    assert!(
        two_at_edge.iter().all(|&n| n > 0),
        "no push of two at the edge"
    );
    // The module has no reconvergence point as all ones, as the model does.
    assert_eq!(NEVER, u32::MAX);
}

#[test]
fn every_operation_agrees_with_the_model() {
    let ops = count_from_env("RTL_TEST_CASES", 100_000) as usize;
    for (i, warps) in [8, 1, 2].into_iter().enumerate() {
        check(warps, ops, 0x5117_57ac_0b5e_0d1e ^ i as u64);
    }
}
