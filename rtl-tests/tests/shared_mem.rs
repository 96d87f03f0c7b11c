//! `hw/sgpu_shared_mem.sv`, core v2's shared memory in banks (docs/adr/0008-core-v2-pipeline.md,
//! "Memory"), built with Verilator and driven cycle by cycle against a reference written from
//! its definition: a beat's lanes served in passes, one a cycle, each pass serving in every
//! bank the row of the lowest lane still waiting for it and every lane waiting for that row;
//! writes merged byte by byte, the highest lane winning, as the golden model's lanes run in
//! order; a beat accepted when none is served or in its last pass; its answer four cycles
//! after its last pass; every pass beyond a beat's first counted as a conflict.
//!
//! The beats are a kernel's: consecutive words (no conflict), a stride of the bank count
//! (every lane in one bank), a broadcast, a transpose's column, bytes and halves of shared
//! words, random words, partial masks, reads after writes of the same words; the requester
//! holds a beat until it is taken. Checked every cycle: ready, the answer, its words and its
//! tag, the conflict count. `RTL_TEST_CYCLES=N` runs N cycles a configuration (30,000 by default).
//! Verilator (5.006 or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, run, shared_passes, testbench_with, Bits, Rng};
use std::collections::VecDeque;

const RTL: [&str; 1] = ["hw/sgpu_shared_mem.sv"];
const TESTBENCH: &str = "rtl-tests/tb/shared_mem_tb.cpp";
/// The module's default size: the ABI's SHARED_MAX.
const BYTES: u32 = 49152;

/// A beat: per lane, whether it accesses, its word, the bytes written and the data.
#[derive(Clone)]
struct Beat {
    write: bool,
    lanes: u32,
    words: Vec<u32>,
    bytes: Vec<u8>,
    data: Vec<u32>,
    /// Handed back with the answer.
    tag: bool,
}

impl Beat {
    fn random(n: u32, rng: &mut Rng, last: Option<&Beat>) -> Beat {
        let words = BYTES / 4;
        let base = (rng.word() % u64::from(words)) as u32;
        let stride = match rng.word() % 6 {
            0 => 1,
            1 => n,
            2 => 0,
            3 => n + 1,
            4 => 2,
            _ => 33,
        };
        let mut beat = Beat {
            write: rng.word() & 1 == 1,
            lanes: match rng.word() % 4 {
                0 => rng.word() as u32,
                _ => u32::MAX,
            } & if n == 32 { u32::MAX } else { (1 << n) - 1 },
            words: (0..n)
                .map(|l| match stride {
                    33 => (rng.word() % u64::from(words)) as u32,
                    s => (base + l * s) % words,
                })
                .collect(),
            bytes: (0..n)
                .map(|_| match rng.word() % 4 {
                    0 => 1 << (rng.word() % 4),
                    1 => 3 << (2 * (rng.word() % 2)),
                    2 => rng.word() as u8 & 15,
                    _ => 15,
                })
                .collect(),
            data: (0..n).map(|_| rng.word() as u32).collect(),
            tag: rng.word() & 1 == 1,
        };
        // Now and then the words of the beat before: a read after a write, or writes on
        // writes.
        if let Some(last) = last.filter(|_| rng.word().is_multiple_of(3)) {
            beat.words.clone_from(&last.words);
        }
        beat
    }

    fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.words.len()).filter(|&l| self.lanes >> l & 1 == 1)
    }

    /// The passes it takes.
    fn passes(&self) -> u64 {
        shared_passes(&self.words, self.lanes)
    }
}

/// What the module shows in a cycle.
#[derive(Debug, PartialEq)]
struct Shown {
    ready: bool,
    answer: Option<(Vec<u32>, bool)>,
    conflicts: u64,
}

#[derive(Default)]
struct Reference {
    memory: Vec<u8>,
    cycle: u64,
    /// The cycle of the last pass of the beat served last.
    last_pass: Option<u64>,
    /// Answers and the cycles they show.
    answers: VecDeque<(u64, (Vec<u32>, bool))>,
    /// Conflicts and the cycles they count from.
    conflicts: VecDeque<u64>,
    counted: u64,
}

impl Reference {
    fn step(&mut self, beat: Option<&Beat>) -> Shown {
        let t = self.cycle;
        self.cycle += 1;
        while self.conflicts.front().is_some_and(|&c| c <= t) {
            self.conflicts.pop_front();
            self.counted += 1;
        }
        let answer = match self.answers.front() {
            Some((c, _)) if *c == t => self.answers.pop_front().map(|(_, a)| a),
            _ => None,
        };
        let ready = self.last_pass.is_none_or(|p| p <= t);
        if let (true, Some(b)) = (ready, beat) {
            let passes = b.passes();
            let last = t + passes;
            self.last_pass = Some(last);
            // Pass k (from 1) is in cycle t + k; the count shows the cycle after it.
            self.conflicts.extend((2..=passes).map(|k| t + k + 1));
            let mut words = vec![0; b.words.len()];
            for l in b.active() {
                let at = 4 * b.words[l] as usize;
                if b.write {
                    for k in 0..4 {
                        if b.bytes[l] >> k & 1 == 1 {
                            self.memory[at + k] = (b.data[l] >> (8 * k)) as u8;
                        }
                    }
                } else {
                    words[l] = u32::from_le_bytes(self.memory[at..at + 4].try_into().unwrap());
                }
            }
            self.answers.push_back((last + 4, (words, b.tag)));
        }
        Shown {
            ready,
            answer,
            conflicts: self.counted,
        }
    }
}

/// A wide hexadecimal value as 32-bit words, least significant first.
fn words_of(hex: &str, n: usize) -> Vec<u32> {
    let mut w = Vec::new();
    let mut end = hex.len();
    while end > 0 {
        let begin = end.saturating_sub(8);
        w.push(u32::from_str_radix(&hex[begin..end], 16).expect("hexadecimal"));
        end = begin;
    }
    w.resize(n, 0);
    w
}

fn check(lanes: u32, cycles: usize, seed: u64) {
    let exe = testbench_with("sgpu_shared_mem", &RTL, TESTBENCH, &[("LANES", lanes)]);
    let ww = 32 - (BYTES / 4 - 1).leading_zeros();
    let mut rng = Rng::new(seed);
    let mut model = Reference {
        memory: vec![0; BYTES as usize],
        ..Reference::default()
    };
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    let (mut beat, mut last): (Option<Beat>, Option<Beat>) = (None, None);
    let (mut beats, mut passes, mut busy) = (0u64, 0u64, true);
    for _ in 0..cycles {
        if rng.word().is_multiple_of(50) {
            busy = !busy;
        }
        if beat.is_none() && (busy || rng.word().is_multiple_of(8)) {
            beat = Some(Beat::random(lanes, &mut rng, last.as_ref()));
        }
        let shown = model.step(beat.as_ref());
        let b = beat.clone().unwrap_or(Beat {
            write: false,
            lanes: 0,
            words: vec![0; lanes as usize],
            bytes: vec![0; lanes as usize],
            data: vec![0; lanes as usize],
            tag: false,
        });
        let (mut words, mut bytes, mut data) = (Bits::default(), Bits::default(), Bits::default());
        for l in 0..lanes as usize {
            words.put(ww * l as u32, ww, b.words[l].into());
            bytes.put(4 * l as u32, 4, b.bytes[l].into());
            data.put(32 * l as u32, 32, b.data[l].into());
        }
        inputs.push(
            [
                Bits::of(beat.is_some().into(), 1),
                Bits::of(b.write.into(), 1),
                Bits::of(b.lanes.into(), lanes),
                words.hex(),
                bytes.hex(),
                data.hex(),
                Bits::of(b.tag.into(), 1),
            ]
            .join(" ")
                + "\n",
        );
        if beat.is_some() && shown.ready {
            beats += 1;
            passes += b.passes();
            last = beat.take();
        }
        expected.push(shown);
    }
    let lines = run(&exe, &inputs.concat());
    assert_eq!(lines.len(), cycles, "one line a cycle");
    for (t, (line, want)) in lines.iter().zip(&expected).enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        let got = Shown {
            ready: f[0] == "1",
            answer: (f[1] == "1").then(|| (words_of(f[2], lanes as usize), f[4] == "1")),
            conflicts: u64::from_str_radix(f[3], 16).expect("hexadecimal"),
        };
        assert_eq!(&got, want, "{lanes} lanes, cycle {t}");
    }
    let conflicts = expected.last().map_or(0, |s| s.conflicts);
    println!("{lanes} lanes: {cycles} cycles, {beats} beats in {passes} passes, {conflicts} conflicts counted");
    // One lane has one bank: no conflicts.
    assert!(
        beats > cycles as u64 / 20 && (passes > beats || lanes == 1),
        "too little exercised"
    );
}

#[test]
fn beats_are_served_in_passes_by_bank() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 30_000) as usize;
    for (i, lanes) in [8, 1, 16, 32].into_iter().enumerate() {
        check(lanes, cycles, 0x5a4e_d0b4_2c17_e3a9 ^ i as u64);
    }
}
