//! `hw/sgpu_barriers.sv`, core v2's named barriers, built with Verilator and run against the
//! golden model's own `sgpu_sim::barrier::Barriers` (the oracle) on random traffic: CTAs
//! started in free slots with random numbers of warps, their warps arriving (`BAR.SYNC`,
//! `BAR.ARRIVE`, `BARRED` with each reduction) at a few barriers with and without thread
//! counts (counts the CTA reaches, counts it never reaches, counts beyond 63 warps, counts
//! that are not multiples of 32), barriers that do not exist, arrivals that disagree with a
//! barrier's first, and exits, which complete the barriers that wait for every warp left.
//! Checked after each operation: its fault, the warps each completed barrier releases and
//! a `BARRED`'s result, and its cycles (an arrival 5, a fault found at once 2, an exit 3 and
//! 3 for each busy barrier of its CTA). A warp waits only where that leaves its CTA a running
//! warp; when every CTA slot is stuck (its live warps all waiting, as a kernel with a bug
//! deadlocks) or full, the module is reset and traffic starts again.
//!
//! `RTL_TEST_CASES=N` runs N operations a configuration (20,000 by default). Verilator
//! (5.006 or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, run_events, testbench_with, Rng};
use sgpu_isa::{Bred, Pred, PredSrc, Reg};
use sgpu_sim::barrier::{Arrival, Barriers};
use sgpu_sim::warp::{Reduction, State, Warp};
use sgpu_sim::Cause;

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_ram.sv",
    "hw/sgpu_barriers.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/barriers_tb.cpp";
/// Where a `BARRED`'s result goes in the model's warps.
const RD: Reg = Reg(0);
const PD: Pred = Pred(0);

/// A CTA in a slot: its number (the CTAs of a run counted), its warps' slots, the model's
/// warps and barriers.
struct Cta {
    serial: usize,
    slots: Vec<u32>,
    warps: Vec<Warp>,
    barriers: Barriers,
}

impl Cta {
    fn new(serial: usize, slots: Vec<u32>) -> Cta {
        let warps = (0..slots.len())
            .map(|i| Warp::new(i as u32, 0, [[0; 3]; 32], 32, 0))
            .collect();
        Cta {
            serial,
            slots,
            warps,
            barriers: Barriers::default(),
        }
    }

    fn running(&self) -> Vec<usize> {
        (0..self.warps.len())
            .filter(|&i| self.warps[i].state == State::Running)
            .collect()
    }

    fn ended(&self) -> bool {
        self.warps.iter().all(|w| w.state == State::Exited)
    }

    /// Warps (local indices) as warp slots.
    fn slots_of(&self, local: u32) -> u64 {
        (0..self.slots.len())
            .filter(|&i| local >> i & 1 == 1)
            .fold(0, |m, i| m | 1 << self.slots[i])
    }

    /// Whether the arrival would leave no warp running: tried on copies when the warp is the
    /// only one running (an arrival makes no other warp wait).
    fn would_stick(&self, warp: usize, a: Arrival) -> bool {
        if self.running().len() > 1 {
            return false;
        }
        let mut barriers = self.barriers.clone();
        let mut warps: Vec<Warp> = self
            .warps
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut copy = Warp::new(i as u32, 0, [[0; 3]; 32], 32, 0);
                copy.state = w.state;
                copy.reduction = w.reduction;
                copy
            })
            .collect();
        barriers.arrive(&mut warps, warp, a).is_ok()
            && warps.iter().all(|w| w.state != State::Running)
    }

    /// A released warp's result as the model wrote it.
    fn result(&self, warp: usize, r: Reduction) -> u32 {
        let w = &self.warps[warp];
        match r.op {
            Bred::Popc => w.r(RD, r.mask.trailing_zeros() as usize),
            Bred::And | Bred::Or => u32::from(
                w.ps(PredSrc {
                    pred: PD,
                    negated: false,
                }) & r.mask
                    != 0,
            ),
        }
    }
}

/// A `BARRED`'s operation (as `Bred` numbers it) and result.
type Reduced = Option<(u32, u32)>;

/// What the testbench printed for one operation.
#[derive(Default)]
struct Answer {
    taken: u64,
    /// Releases: cycle, barrier, warp slots, reduction and its value.
    released: Vec<(u64, u32, u64, Reduced)>,
    done: u64,
    cause: u32,
}

/// What the model says an operation does.
enum Expect {
    /// An arrival: its fault, or the warps it released and the reduction's result.
    Arrival(Result<(u32, u64, Reduced), u32>),
    /// An exit: per released warp slot, the result it gets (if it came by BARRED).
    Exit(Vec<(u32, Option<u32>)>),
}

fn cause_code(c: Cause) -> u32 {
    match c {
        Cause::BarrierId { .. } => sgpu_isa::abi::TRAP_BARRIER_ID as u32,
        Cause::BarrierCount { .. } => sgpu_isa::abi::TRAP_BARRIER_COUNT as u32,
        Cause::BarrierMismatch { .. } => sgpu_isa::abi::TRAP_BARRIER_MISMATCH as u32,
        other => panic!("an arrival's fault: {other:?}"),
    }
}

/// A random arrival of `warp` in `cta`, never one that leaves the CTA without a running warp.
fn arrival(rng: &mut Rng, cta: &Cta, warp: usize) -> (Arrival, Vec<u32>) {
    let n = cta.warps.len() as u32;
    let id = match rng.below(20) {
        0 => 16 + rng.below(100),
        1 => u32::MAX,
        2..=4 => rng.below(16),
        _ => rng.below(4),
    };
    let threads = match rng.below(20) {
        0..=8 => None,
        9 => Some(32 * (n + 1 + rng.below(3))),
        10 => Some(32 * (64 + rng.below(1000))),
        11 => Some([0, 31, 33, 32 * n + 16][rng.below(4) as usize]),
        _ => Some(32 * (1 + rng.below(n))),
    };
    let red = rng.below(10) < 3;
    let mask = (rng.word() as u32) | 1 << rng.below(32);
    let set = match rng.below(3) {
        0 => mask,
        1 => 0,
        _ => mask & rng.word() as u32,
    };
    let op = [Bred::Popc, Bred::And, Bred::Or][rng.below(3) as usize];
    let mut a = Arrival {
        id,
        threads,
        waits: red || rng.below(5) != 0,
        reduction: red.then_some((
            Reduction {
                op,
                rd: RD,
                pd: PD,
                mask,
            },
            set,
        )),
    };
    if a.waits && cta.would_stick(warp, a) {
        a.waits = false;
        a.reduction = None;
    }
    let (red, bred) = match a.reduction {
        Some((r, _)) => (1, r.op as u32),
        None => (0, 0),
    };
    let fields = vec![
        0,
        0,
        0,
        a.id,
        u32::from(a.threads.is_some()),
        a.threads.unwrap_or(0),
        u32::from(a.waits),
        red,
        bred,
        mask,
        if red == 1 { set } else { 0 },
    ];
    (a, fields)
}

/// The model's arrival, as the module should answer it.
fn arrive(cta: &mut Cta, warp: usize, a: Arrival) -> Expect {
    let result = cta.barriers.arrive(&mut cta.warps, warp, a);
    Expect::Arrival(match result {
        Err(c) => Err(cause_code(c)),
        Ok(e) => {
            let value = e.result.map(|(op, v)| (op as u32, v));
            Ok((u32::from(e.id), cta.slots_of(e.released), value))
        }
    })
}

/// The model's exit of `warp`: the warps it releases, each with its result.
fn exit(cta: &mut Cta, warp: usize) -> Expect {
    let before: Vec<(State, Option<Reduction>)> =
        cta.warps.iter().map(|w| (w.state, w.reduction)).collect();
    cta.warps[warp].state = State::Exited;
    cta.barriers.recheck(&mut cta.warps);
    let released = (0..cta.warps.len())
        .filter(|&i| {
            matches!(before[i].0, State::Waiting(_)) && cta.warps[i].state == State::Running
        })
        .map(|i| (cta.slots[i], before[i].1.map(|r| cta.result(i, r))))
        .collect();
    Expect::Exit(released)
}

/// Reads the testbench's events into one answer an operation.
fn answers(lines: &[String]) -> Vec<Answer> {
    let mut out = Vec::new();
    let mut cur = Answer::default();
    for l in lines {
        let f: Vec<&str> = l.split(' ').collect();
        let cycle: u64 = f[1].parse().expect("a cycle");
        let hex = |i: usize| u64::from_str_radix(f[i], 16).expect("hexadecimal");
        match f[0] {
            "t" => cur.taken = cycle,
            "l" => cur.released.push((
                cycle,
                hex(2) as u32,
                hex(3),
                (f[4] == "1").then(|| (hex(5) as u32, hex(6) as u32)),
            )),
            "d" => {
                cur.done = cycle;
                cur.cause = hex(2) as u32;
                out.push(std::mem::take(&mut cur));
            }
            "end" => {}
            other => panic!("unexpected line {other}"),
        }
    }
    out
}

/// Compares one operation's answer with the model's; `busy` is how many barriers of the
/// CTA were busy before it (an exit's cycles).
fn compare(what: &str, got: &Answer, want: &Expect, busy: usize) {
    let cycles = got.done - got.taken;
    match want {
        Expect::Arrival(Err(cause)) => {
            assert!(got.released.is_empty(), "{what}: a fault releases nothing");
            assert_eq!(got.cause, *cause, "{what}: the fault");
            let at_once = *cause != sgpu_isa::abi::TRAP_BARRIER_MISMATCH as u32;
            assert_eq!(cycles, if at_once { 2 } else { 5 }, "{what}: cycles");
        }
        Expect::Arrival(Ok((id, warps, value))) => {
            assert_eq!(got.cause, 0, "{what}: no fault");
            assert_eq!(cycles, 5, "{what}: cycles");
            // A barrier that completes with nobody waiting and no reduction is seen only in
            // the module's release of no warps.
            let visible: Vec<_> = got
                .released
                .iter()
                .filter(|r| r.2 != 0 || r.3.is_some())
                .collect();
            if *warps == 0 && value.is_none() {
                assert!(visible.is_empty(), "{what}: no release");
            } else {
                assert_eq!(visible.len(), 1, "{what}: one release");
                let r = visible[0];
                assert_eq!(
                    (r.1, r.2, r.3),
                    (*id, *warps, *value),
                    "{what}: the release"
                );
                assert_eq!(r.0, got.taken + 4, "{what}: the release's cycle");
            }
        }
        Expect::Exit(released) => {
            assert_eq!(got.cause, 0, "{what}: no fault");
            assert_eq!(cycles, 3 + 3 * busy as u64, "{what}: cycles, {busy} busy");
            let union = got.released.iter().fold(0, |m, r| m | r.2);
            let want_union = released.iter().fold(0, |m, r| m | 1u64 << r.0);
            assert_eq!(union, want_union, "{what}: the warps released");
            for &(slot, value) in released {
                let r = got.released.iter().find(|r| r.2 >> slot & 1 == 1).unwrap();
                assert_eq!(r.3.map(|v| v.1), value, "{what}: warp slot {slot}'s result");
            }
        }
    }
}

fn check(warps: u32, ctas: u32, cases: u64, seed: u64) {
    let exe = testbench_with(
        "sgpu_barriers",
        &RTL,
        TESTBENCH,
        &[("WARPS", warps), ("CTAS", ctas)],
    );
    let mut rng = Rng::new(seed);
    let mut slots: Vec<Option<Cta>> = (0..ctas).map(|_| None).collect();
    let all = if warps == 64 {
        u64::MAX
    } else {
        (1u64 << warps) - 1
    };
    let mut free = all;
    // Per operation: the CTA's number, the model's answer and what to call it.
    let (mut input, mut expects, mut resets, mut serial) = (String::new(), Vec::new(), 0, 0);
    while (expects.len() as u64) < cases {
        // A CTA in a free slot, now and then.
        if let Some(c) = slots.iter().position(Option::is_none) {
            if free != 0 && rng.below(4) == 0 {
                let n = 1 + rng.below(free.count_ones().min(32));
                let chosen: Vec<u32> = (0..warps)
                    .filter(|&w| free >> w & 1 == 1)
                    .take(n as usize)
                    .collect();
                let mask = chosen.iter().fold(0u64, |m, &w| m | 1 << w);
                free &= !mask;
                input += &format!("s {c:x} {mask:x}\n");
                slots[c] = Some(Cta::new(serial, chosen));
                serial += 1;
            }
        }
        let live: Vec<usize> = (0..ctas as usize)
            .filter(|&c| slots[c].as_ref().is_some_and(|t| !t.running().is_empty()))
            .collect();
        if live.is_empty() {
            if slots.iter().any(Option::is_none) && free != 0 {
                continue;
            }
            // Every CTA stuck, or no room for one: start again.
            input += "r\n";
            slots.iter_mut().for_each(|s| *s = None);
            free = all;
            resets += 1;
            continue;
        }
        let c = live[rng.below(live.len() as u32) as usize];
        let cta = slots[c].as_mut().expect("a CTA");
        let running = cta.running();
        let w = running[rng.below(running.len() as u32) as usize];
        let (mut fields, expect) = if rng.below(8) == 0 {
            let mut f = vec![0u32; 11];
            f[0] = 1;
            (f, exit(cta, w))
        } else {
            let (a, f) = arrival(&mut rng, cta, w);
            (f, arrive(cta, w, a))
        };
        fields[1] = cta.slots[w];
        fields[2] = c as u32;
        let text: Vec<String> = fields.iter().map(|v| format!("{v:x}")).collect();
        input += &format!("o {}\n", text.join(" "));
        let what = format!(
            "{warps} warps, {ctas} CTAs, operation {} (CTA slot {c}, warp slot {})",
            expects.len(),
            fields[1]
        );
        expects.push((cta.serial, expect, what));
        if cta.ended() {
            free |= cta.slots.iter().fold(0u64, |m, &s| m | 1 << s);
            slots[c] = None;
        }
    }
    let got = answers(&run_events(&exe, &input));
    assert_eq!(
        got.len(),
        expects.len(),
        "{warps} warps, {ctas} CTAs: every answer"
    );
    // Each CTA's busy barriers, as its arrivals and the module's releases leave them (a
    // completion nobody sees in the model shows in the release of no warps).
    let mut busy = vec![0u32; serial];
    let mut released = 0;
    for (answer, (cta, expect, what)) in got.iter().zip(&expects) {
        released += answer.released.len();
        compare(what, answer, expect, busy[*cta].count_ones() as usize);
        if let Expect::Arrival(Ok((id, _, _))) = expect {
            busy[*cta] |= 1 << id;
        }
        for r in &answer.released {
            busy[*cta] &= !(1 << r.1);
        }
    }
    println!(
        "barriers, {warps} warps, {ctas} CTA slots: {} operations of {serial} CTAs, \
         {released} releases, {resets} resets, no mismatch",
        expects.len()
    );
}

#[test]
fn barriers_agree_with_the_model() {
    let cases = count_from_env("RTL_TEST_CASES", 20_000);
    check(8, 8, cases, 0x6a09_e667_f3bc_c908);
    check(1, 1, cases, 0xbb67_ae85_84ca_a73b);
    check(32, 8, cases, 0x3c6e_f372_fe94_f82b);
}
