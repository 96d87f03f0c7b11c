//! `hw/sgpu_warp_sched.sv`, core v2's issue scheduler (docs/adr/0008-core-v2-pipeline.md),
//! built with Verilator and driven cycle by cycle against a reference written from its
//! definition: an instruction's beats issue in consecutive cycles, once for each of its
//! passes (1, 2 or 4, at random a head); after its last beat the next ready warp after the
//! last one to issue goes, in round-robin order (the last one again only if no other is
//! ready).
//!
//! Readiness is random, as a core's would be: each warp's head becomes ready some cycles
//! after the warp issued (its next instruction's dependences), and stays ready until it
//! issues; now and then a warp is held back for a long while (a load from far away). Checked
//! every cycle: the beat issued, its warp, number, pass and whether it is the instruction's
//! last, and that no warp ready for longer than
//! the others' instructions in between is passed over. `RTL_TEST_CYCLES=N` runs N cycles a
//! configuration (30,000 by default). Verilator (5.006 or later) must be installed; without
//! it the test fails and says so.

mod common;

use common::{count_from_env, hex_values, run, testbench_with, Bits, Rng};

const RTL: [&str; 2] = ["hw/sgpu_round_robin.sv", "hw/sgpu_warp_sched.sv"];
const TESTBENCH: &str = "rtl-tests/tb/warp_sched_tb.cpp";

/// What the scheduler does in a cycle: a beat (warp, beat number, pass, first, last) or
/// nothing.
type Beat = Option<(u32, u32, u32, bool, bool)>;

/// The reference: the beat of each cycle for the readiness and heads' passes of each cycle.
struct Reference {
    warps: u32,
    beats: u32,
    last: u32,
    /// The beats of the last instruction left, the next first: (beat, pass).
    left: Vec<(u32, u32)>,
}

impl Reference {
    fn step(&mut self, ready: u64, passes: &[u32]) -> Beat {
        let first = self.left.is_empty();
        if first {
            let w = (0..self.warps)
                .map(|k| (self.last + 1 + k) % self.warps)
                .find(|&w| ready >> w & 1 == 1)?;
            self.last = w;
            self.left = (0..passes[w as usize])
                .flat_map(|p| (0..self.beats).map(move |b| (b, p)))
                .rev()
                .collect();
        }
        let (beat, pass) = self.left.pop().expect("a beat");
        Some((self.last, beat, pass, first, self.left.is_empty()))
    }
}

fn check(lanes: u32, warps: u32, cycles: usize, seed: u64) {
    let exe = testbench_with(
        "sgpu_warp_sched",
        &RTL,
        TESTBENCH,
        &[("WARPS", warps), ("LANES", lanes)],
    );
    let beats = 32 / lanes;
    let mut rng = Rng::new(seed);
    let mut model = Reference {
        warps,
        beats,
        last: 0,
        left: Vec::new(),
    };
    // A head's passes: mostly one, IMADW's two, a wide store's four.
    let head_passes = |rng: &mut Rng| match rng.word() % 10 {
        0..=6 => 1,
        7 | 8 => 2,
        _ => 4,
    };
    // Per warp: the cycle from which its head is ready, and the head's passes.
    let mut ready_at = vec![0usize; warps as usize];
    let mut passes: Vec<u32> = (0..warps).map(|_| head_passes(&mut rng)).collect();
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    for t in 0..cycles {
        let ready: u64 = (0..warps)
            .filter(|&w| ready_at[w as usize] <= t)
            .map(|w| 1u64 << w)
            .sum();
        let mut passes_in = Bits::default();
        for (w, p) in passes.iter().enumerate() {
            passes_in.put(2 * w as u32, 2, u64::from(p - 1));
        }
        let beat = model.step(ready, &passes);
        if let Some((w, _, _, true, _)) = beat {
            let wait = match rng.word() % 16 {
                0 => 100,
                1..=6 => 0,
                k => k as usize,
            };
            let n = (beats * passes[w as usize]) as usize;
            ready_at[w as usize] = t + n + wait;
            passes[w as usize] = head_passes(&mut rng);
        }
        inputs.push(format!("{} {}\n", Bits::of(ready, warps), passes_in.hex()));
        expected.push((ready, beat));
    }
    let lines = run(&exe, &inputs.concat());
    assert_eq!(lines.len(), cycles, "one line a cycle");
    let sw = common::index_bits(warps);
    let (mut issued, mut idle, mut waited) = (0, 0, vec![0usize; warps as usize]);
    let mut longest = 0;
    for (t, (line, (ready, beat))) in lines.iter().zip(&expected).enumerate() {
        let f = hex_values(line);
        let got: Beat =
            (f[1] == 1).then(|| (f[2] as u32, f[3] as u32, f[4] as u32, f[0] == 1, f[5] == 1));
        assert_eq!(
            got, *beat,
            "{lanes} lanes, {warps} warps, cycle {t}: ready {ready:x}"
        );
        assert!(f[2] >> sw == 0, "warp_o within its width");
        issued += usize::from(beat.is_some_and(|b| b.3));
        idle += usize::from(beat.is_none());
        // How long each warp has been ready without issuing.
        for (w, n) in waited.iter_mut().enumerate() {
            let first = beat.is_some_and(|b| b.3 && b.0 == w as u32);
            *n = if ready >> w & 1 == 1 && !first {
                *n + 1
            } else {
                0
            };
            longest = longest.max(*n);
        }
    }
    // A ready warp waits at most for one instruction of every other warp (four passes).
    let bound = (warps as usize - 1) * beats as usize * 4;
    assert!(
        longest <= bound,
        "{lanes} lanes, {warps} warps: a ready warp waited {longest} cycles (bound {bound})"
    );
    println!(
        "{lanes} lanes, {warps} warps: {cycles} cycles, {issued} instructions issued, \
         {idle} cycles idle, longest wait of a ready warp {longest} cycles"
    );
    assert!(
        issued > cycles / (4 * beats as usize),
        "too little exercised"
    );
}

#[test]
fn a_ready_warp_issues_its_beats_in_turn() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 30_000) as usize;
    for (i, (lanes, warps)) in [(8, 8), (1, 1), (32, 32), (16, 5), (4, 32)]
        .into_iter()
        .enumerate()
    {
        check(lanes, warps, cycles, 0x2545_f491_4f6c_dd1d ^ i as u64);
    }
}
