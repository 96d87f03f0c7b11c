//! `hw/sgpu_ibuffer.sv`, core v2's instruction buffers (docs/adr/0008-core-v2-pipeline.md),
//! built with Verilator and driven cycle by cycle against a reference written from its
//! definition: two instructions a warp, the head first; in the cycle after a pop, the
//! popping warp's new head, if it has one, is read for announcement; the other warps whose
//! head is not yet announced are chosen in round-robin order, one a cycle, each read in the
//! first cycle after its choice that no popping warp's read takes; a read is announced the
//! cycle after unless its warp was cleared since its choice; a clear empties a warp.
//!
//! The traffic is the core's: pushes to warps with room (the fetch stage), pops of announced
//! heads (the issue), now and then a warp cleared, busy and quiet stretches. Checked every
//! cycle: each warp's count, the announcement (warp, pc, word) and the popped head.
//! `RTL_TEST_CYCLES=N` runs N cycles a configuration (30,000 by default). Verilator (5.006
//! or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, hex_values, run, testbench_with, Bits, Rng};

const RTL: [&str; 2] = ["hw/sgpu_round_robin.sv", "hw/sgpu_ibuffer.sv"];
const TESTBENCH: &str = "rtl-tests/tb/ibuffer_tb.cpp";

/// An instruction: pc and word.
type Insn = (u32, u64);

#[derive(Clone, Default)]
struct Warp {
    entries: Vec<Insn>,
    /// The head was chosen for announcement.
    announced: bool,
    /// The head was shown: the issue may pop it.
    shown: bool,
}

/// What the module shows in a cycle.
#[derive(Debug, PartialEq)]
struct Shown {
    popped: Option<Insn>,
    counts: Vec<usize>,
    head: Option<(u32, Insn)>,
}

struct Reference {
    warps: Vec<Warp>,
    last: u32,
    /// The warp that popped in the cycle before.
    popped: Option<u32>,
    /// The round-robin choice waiting to be read.
    pending: Option<u32>,
    /// The announcement read in the cycle before, shown in this one.
    read: Option<(u32, Insn)>,
}

impl Reference {
    fn step(&mut self, push: Option<(u32, Insn)>, pop: Option<u32>, clear: Option<u32>) -> Shown {
        let n = self.warps.len() as u32;
        let counts = self.warps.iter().map(|w| w.entries.len()).collect();
        let popped = pop.map(|w| self.warps[w as usize].entries[0]);
        let waiting = |w: u32| {
            let x = &self.warps[w as usize];
            !x.entries.is_empty() && !x.announced
        };
        // The popping warp's new head first, else the pending choice if its warp was not
        // cleared since; a new choice among the others when the pending one is read or gone.
        let again = self.popped.filter(|&w| waiting(w));
        let pending = self.pending.filter(|&w| self.warps[w as usize].announced);
        let read = again.or(pending);
        if again.is_none() || self.pending.is_none() {
            self.pending = (0..n)
                .map(|k| (self.last + 1 + k) % n)
                .find(|&w| waiting(w) && again != Some(w));
            if let Some(w) = self.pending {
                self.warps[w as usize].announced = true;
                self.last = w;
            }
        }
        let head = read.and_then(|w| {
            let x = &mut self.warps[w as usize];
            x.announced = true;
            // A warp cleared in the cycle of its read is not announced.
            (clear != Some(w)).then_some((w, x.entries[0]))
        });
        if let Some((w, _)) = self.read {
            self.warps[w as usize].shown = true;
        }
        if let Some(w) = pop {
            let x = &mut self.warps[w as usize];
            x.entries.remove(0);
            x.announced = false;
            x.shown = false;
        }
        self.popped = pop;
        if let Some((w, insn)) = push {
            self.warps[w as usize].entries.push(insn);
        }
        if let Some(w) = clear {
            self.warps[w as usize] = Warp::default();
        }
        Shown {
            popped,
            counts,
            head: std::mem::replace(&mut self.read, head),
        }
    }
}

fn check(warps: u32, cycles: usize, seed: u64) {
    let exe = testbench_with("sgpu_ibuffer", &RTL, TESTBENCH, &[("WARPS", warps)]);
    let sw = common::index_bits(warps);
    let mut rng = Rng::new(seed);
    let mut model = Reference {
        warps: vec![Warp::default(); warps as usize],
        last: 0,
        popped: None,
        pending: None,
        read: None,
    };
    // Heads shown: the ones the issue may pop, in the cycle they are shown or later.
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    let (mut busy, mut pops, mut heads) = (true, 0, 0);
    for _ in 0..cycles {
        if rng.word().is_multiple_of(64) {
            busy = !busy;
        }
        let poppable: Vec<u32> = (0..warps)
            .filter(|&w| {
                let x = &model.warps[w as usize];
                let now = model.read.is_some_and(|(r, _)| r == w);
                (x.shown || now) && !x.entries.is_empty()
            })
            .collect();
        let pop = (!poppable.is_empty() && rng.word() % 4 < if busy { 3 } else { 1 })
            .then(|| poppable[(rng.word() % poppable.len() as u64) as usize]);
        let w = (rng.word() % u64::from(warps)) as u32;
        let room = model.warps[w as usize].entries.len() - usize::from(pop == Some(w)) < 2;
        let push = (room && rng.word() % 4 < if busy { 3 } else { 1 })
            .then(|| (w, (rng.word() as u32 & !7, rng.word())));
        let clear = rng
            .word()
            .is_multiple_of(200)
            .then(|| (rng.word() % u64::from(warps)) as u32);
        let (pw, (pc, word)) = push.unwrap_or((0, (0, 0)));
        let cw = clear.unwrap_or(0);
        inputs.push(
            [
                Bits::of(push.is_some().into(), 1),
                Bits::of(pw.into(), sw),
                Bits::of(pc.into(), 32),
                format!("{word:x}"),
                Bits::of(pop.is_some().into(), 1),
                Bits::of(pop.unwrap_or(0).into(), sw),
                Bits::of(clear.is_some().into(), 1),
                Bits::of(cw.into(), sw),
            ]
            .join(" ")
                + "\n",
        );
        let shown = model.step(push, pop, clear);
        pops += usize::from(pop.is_some());
        heads += usize::from(shown.head.is_some());
        expected.push(shown);
    }
    let lines = run(&exe, &inputs.concat());
    assert_eq!(lines.len(), cycles, "one line a cycle");
    for (t, (line, want)) in lines.iter().zip(&expected).enumerate() {
        let f = hex_values(line);
        let counts = (0..warps).map(|w| (f[2] >> (2 * w) & 3) as usize).collect();
        let got = Shown {
            popped: want.popped.map(|_| (f[0] as u32, f[1])),
            counts,
            head: (f[3] == 1).then(|| (f[4] as u32, (f[5] as u32, f[6]))),
        };
        assert_eq!(&got, want, "{warps} warps, cycle {t}");
    }
    println!("{warps} warps: {cycles} cycles, {pops} pops, {heads} heads announced");
    assert!(
        pops > cycles / 10 && heads > cycles / 10,
        "too little exercised"
    );
}

#[test]
fn heads_are_announced_once_each_in_turn() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 30_000) as usize;
    for (i, warps) in [8, 1, 32].into_iter().enumerate() {
        check(warps, cycles, 0x1bd1_1bdb_b5e7_0f13 ^ i as u64);
    }
}
