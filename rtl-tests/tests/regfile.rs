//! `hw/sgpu_regfile.sv`, core v2's register file (docs/adr/0008-core-v2-pipeline.md), built
//! with Verilator and driven cycle by cycle with random traffic that keeps the module's
//! rules, against a reference written from its definition:
//!
//! - a beat's ra, rb and rc come out five cycles after its issue, each as the file held it
//!   when that operand was read (ra in the issue cycle, rb one cycle later, rc two): a
//!   write the cycle before a read is seen (no word is written in the cycle it is read, the
//!   module's rule, which its assertion checks); an operand marked zero is zero;
//! - a register no warp of its slot has written since the slot's generation last moved
//!   reads zero, lane by lane (writes come with random lane masks);
//! - a slot's fifteenth new warp sweeps its rows (`busy_o` for exactly its bank addresses),
//!   a clear sweeps the file (`busy_o` for its depth, as after reset), and nothing written
//!   before a sweep is seen after it: the test runs long enough for every slot's generation
//!   to wrap, so a word left from fifteen warps before would be read.
//!
//! Reads of consecutive beats of one instruction meet in no block RAM (the module's own
//! assertions check it while the test runs, Verilator's `--assert`). Every banking (four
//! banks, two banks of two copies, one of three copies) at 8 lanes, and the lane counts from
//! 1 to 32 with a banking each allows. `RTL_TEST_CYCLES=N`
//! runs N cycles a configuration (20,000 by default). Verilator (5.006 or later) must be
//! installed; without it the test fails and says so.

mod common;

use common::{count_from_env, lanes_of, run, testbench_with, Bits, Rng};
use std::collections::HashMap;

const RTL: [&str; 2] = ["hw/sgpu_ram.sv", "hw/sgpu_regfile.sv"];
const TESTBENCH: &str = "rtl-tests/tb/regfile_tb.cpp";

/// A configuration: lanes, warp slots, registers a lane holds (small, so that rows are
/// reused and sweeps short), banks by beat.
#[derive(Clone, Copy, Debug)]
struct Config {
    lanes: u32,
    warps: u32,
    regs_per_lane: u32,
    banks: u32,
}

impl Config {
    fn beats(self) -> u32 {
        32 / self.lanes
    }
    fn rows(self) -> u32 {
        self.regs_per_lane / self.beats()
    }
    /// Bank addresses a row spans, so the cycles a sweep of one row takes.
    fn per_row(self) -> u32 {
        self.beats() / self.banks
    }
    fn depth(self) -> u32 {
        self.regs_per_lane / self.banks
    }
    fn sw(self) -> u32 {
        common::index_bits(self.warps)
    }
    fn bw(self) -> u32 {
        common::index_bits(self.beats())
    }
    fn rw(self) -> u32 {
        common::index_bits(self.rows())
    }
}

/// A beat's reads.
#[derive(Clone, Copy)]
struct Read {
    slot: u32,
    beat: u32,
    rows: [u32; 3],
    zero: [bool; 3],
}

/// A write on a port.
struct Write {
    slot: u32,
    beat: u32,
    row: u32,
    lanes: u32,
    data: Vec<u32>,
}

/// One cycle's inputs.
#[derive(Default)]
struct Cycle {
    read: Option<Read>,
    writes: Vec<Option<Write>>,
    next: Option<(u32, u32, u32)>, // slot, first row, rows
    clear: bool,
}

impl Cycle {
    fn line(&self, c: Config) -> String {
        let (sw, bw, rw, lanes) = (c.sw(), c.bw(), c.rw(), c.lanes);
        let one = Bits::of;
        let r = self.read.unwrap_or(Read {
            slot: 0,
            beat: 0,
            rows: [0; 3],
            zero: [false; 3],
        });
        let mut rows = Bits::default();
        let mut zero = 0;
        for o in 0..3 {
            rows.put(o as u32 * rw, rw, r.rows[o].into());
            zero |= u64::from(r.zero[o]) << o;
        }
        let mut f: [Bits; 6] = Default::default();
        for (p, w) in self.writes.iter().enumerate() {
            let (p, Some(w)) = (p as u32, w) else {
                continue;
            };
            f[0].put(p, 1, 1);
            f[1].put(p * sw, sw, w.slot.into());
            f[2].put(p * bw, bw, w.beat.into());
            f[3].put(p * rw, rw, w.row.into());
            f[4].put(p * lanes, lanes, w.lanes.into());
            for (l, &d) in w.data.iter().enumerate() {
                f[5].put((p * lanes + l as u32) * 32, 32, d.into());
            }
        }
        let (ns, nf, nr) = self.next.unwrap_or((0, 0, 0));
        [
            one(self.read.is_some().into(), 1),
            one(r.slot.into(), sw),
            one(r.beat.into(), bw),
            rows.hex(),
            one(zero, 3),
            f[0].hex(),
            f[1].hex(),
            f[2].hex(),
            f[3].hex(),
            f[4].hex(),
            f[5].hex(),
            one(self.next.is_some().into(), 1),
            one(ns.into(), sw),
            one(nf.into(), rw),
            one(nr.into(), rw + 1),
            one(self.clear.into(), 1),
        ]
        .join(" ")
    }
}

/// The register file as defined: the words written since their slot's generation last
/// moved, by (row, beat, lane); every other one is zero.
#[derive(Default)]
struct Reference {
    words: HashMap<(u32, u32, u32), u32>,
}

impl Reference {
    fn read(&self, c: Config, r: &Read, o: usize) -> Vec<u32> {
        (0..c.lanes)
            .map(|l| {
                let v = self.words.get(&(r.rows[o], r.beat, l)).copied();
                if r.zero[o] {
                    0
                } else {
                    v.unwrap_or(0)
                }
            })
            .collect()
    }
    fn write(&mut self, c: Config, w: &Write) {
        for l in 0..c.lanes {
            if w.lanes >> l & 1 == 1 {
                self.words.insert((w.row, w.beat, l), w.data[l as usize]);
            }
        }
    }
    fn forget_rows(&mut self, first: u32, rows: u32) {
        self.words
            .retain(|&(row, _, _), _| row < first || row >= first + rows);
    }
}

/// What the module must print for a cycle: the beat's operands (None when no beat comes
/// out, so they are not compared) and busy_o.
struct Expected {
    operands: Option<[Vec<u32>; 3]>,
    busy: bool,
}

/// A beat issued, with the operands it gets as each is read.
type Issued = Option<(Read, [Vec<u32>; 3])>;

/// The beat issued in cycle `at`, if any.
fn issued_at(issued: &[Issued], at: i64) -> Option<Read> {
    let i = usize::try_from(at).ok()?;
    issued.get(i)?.as_ref().map(|(r, _)| *r)
}

/// Random traffic for `cycles` cycles that keeps the module's rules, with what it must
/// print for each.
fn traffic(c: Config, cycles: usize, rng: &mut Rng) -> (Vec<Cycle>, Vec<Expected>) {
    let (beats, warps) = (c.beats(), c.warps);
    let mut reference = Reference::default();
    let mut gens = vec![1u32; warps as usize];
    // Registers a warp has in this "launch": its slot's rows are slot x regs ...
    let mut regs = c.rows() / warps;
    // Busy through this cycle (the reset's sweep first).
    let mut busy_until: i64 = i64::from(c.depth()) - 1;
    // The beat in progress: its reads, and how many of its beats are left.
    let mut current: Option<(Read, u32)> = None;
    // Reads issued, by cycle, and the operands they will get.
    let mut issued: Vec<Issued> = Vec::new();
    let mut last_issue_of = vec![i64::MIN / 2; warps as usize];
    let mut last_issue = i64::MIN / 2;
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    // Phases of 500 cycles alternate busy writing with few writes and many new warps, so
    // that words outlive fifteen generations of their slot unwritten (what a sweep must
    // clear) as well as being overwritten often.
    let (mut write_one_in, mut next_one_in) = (1, 40);
    for t in 0..cycles as i64 {
        if t % 500 == 0 {
            (write_one_in, next_one_in) = [(1, 40), (12, 6), (3, 15)][(rng.word() % 3) as usize];
        }
        let busy = t <= busy_until;
        let mut cycle = Cycle {
            writes: (0..c.banks).map(|_| None).collect(),
            ..Cycle::default()
        };
        if !busy {
            // A beat: the next of the instruction in progress, or a new instruction (now
            // and then after idle cycles).
            if current.is_none() && !rng.word().is_multiple_of(4) {
                let slot = (rng.word() % u64::from(warps)) as u32;
                let reg = |rng: &mut Rng| slot * regs + (rng.word() % u64::from(regs)) as u32;
                let read = Read {
                    slot,
                    beat: 0,
                    rows: [reg(rng), reg(rng), reg(rng)],
                    zero: std::array::from_fn(|_| rng.word().is_multiple_of(8)),
                };
                current = Some((read, beats));
            }
            if let Some((mut read, left)) = current.take() {
                read.beat = beats - left;
                cycle.read = Some(read);
                last_issue_of[read.slot as usize] = t;
                last_issue = t;
                if left > 1 {
                    current = Some((read, left - 1));
                }
            }
            // The words read this cycle (ra of this beat, rb of the last, rc of the one
            // before), which no write may touch in the same cycle.
            let reading: Vec<(u32, u32)> = [(cycle.read, 0), (issued_at(&issued, t - 1), 1)]
                .into_iter()
                .chain([(issued_at(&issued, t - 2), 2)])
                .filter_map(|(r, o)| r.filter(|r| !r.zero[o]).map(|r| (r.rows[o], r.beat)))
                .collect();
            for p in 0..c.banks {
                if !rng.word().is_multiple_of(write_one_in + 1) {
                    continue;
                }
                let slot = (rng.word() % u64::from(warps)) as u32;
                // One of port p's beats: those of its bank.
                let beat = p + c.banks * (rng.word() % u64::from(c.per_row())) as u32;
                let all = (1u64 << c.lanes) - 1;
                let lanes = match rng.word() % 3 {
                    0 => all,
                    _ => rng.word() & all,
                } as u32;
                let row = slot * regs + (rng.word() % u64::from(regs)) as u32;
                if reading.contains(&(row, beat)) {
                    continue;
                }
                cycle.writes[p as usize] = Some(Write {
                    slot,
                    beat,
                    row,
                    lanes,
                    data: (0..c.lanes).map(|_| rng.word() as u32).collect(),
                });
            }
        }
        // The reads of this cycle see the file as the cycles before left it.
        let ra = cycle.read;
        let rb = issued_at(&issued, t - 1);
        let rc = issued_at(&issued, t - 2);
        let a = ra.map(|r| reference.read(c, &r, 0));
        if let Some(r) = rb {
            let v = reference.read(c, &r, 1);
            issued[(t - 1) as usize].as_mut().unwrap().1[1] = v;
        }
        if let Some(r) = rc {
            let v = reference.read(c, &r, 2);
            issued[(t - 2) as usize].as_mut().unwrap().1[2] = v;
        }
        issued.push(ra.map(|r| (r, [a.unwrap(), Vec::new(), Vec::new()])));
        for w in cycle.writes.iter().flatten() {
            reference.write(c, w);
        }
        // Now and then, when no read of the slot is in the pipe: a new warp in a slot; more
        // rarely, when none is at all, a clear with a new layout.
        if !busy {
            let drained = t - last_issue > 5 && current.is_none();
            if drained && rng.word().is_multiple_of(400) {
                cycle.clear = true;
                reference.words.clear();
                gens.iter_mut().for_each(|g| *g = 1);
                regs = 1 + (rng.word() % u64::from(c.rows() / warps)) as u32;
                busy_until = t + i64::from(c.depth());
            } else if rng.word().is_multiple_of(next_one_in) {
                let slot = (rng.word() % u64::from(warps)) as u32;
                let in_pipe = t - last_issue_of[slot as usize] <= 3
                    || current.is_some_and(|(r, _)| r.slot == slot);
                if !in_pipe {
                    cycle.next = Some((slot, slot * regs, regs));
                    reference.forget_rows(slot * regs, regs);
                    let g = &mut gens[slot as usize];
                    if *g == 15 {
                        *g = 1;
                        busy_until = t + i64::from(regs * c.per_row());
                    } else {
                        *g += 1;
                    }
                }
            }
        }
        let out = usize::try_from(t - 5)
            .ok()
            .and_then(|i| issued[i].as_ref())
            .map(|(_, v)| v.clone());
        expected.push(Expected {
            operands: out,
            busy,
        });
        inputs.push(cycle);
    }
    (inputs, expected)
}

fn check(c: Config, cycles: usize, seed: u64) {
    let exe = testbench_with(
        "sgpu_regfile",
        &RTL,
        TESTBENCH,
        &[
            ("LANES", c.lanes),
            ("WARPS", c.warps),
            ("REGS_PER_LANE", c.regs_per_lane),
            ("BANKS", c.banks),
        ],
    );
    let mut rng = Rng::new(seed);
    let (inputs, expected) = traffic(c, cycles, &mut rng);
    let text: String = inputs.iter().map(|i| i.line(c) + "\n").collect();
    let lines = run(&exe, &text);
    let (mut beats, mut sweeps) = (0, 0);
    for (t, (line, want)) in lines.iter().zip(&expected).enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        let busy = f[4] == "1";
        assert_eq!(busy, want.busy, "{c:?} cycle {t}: busy_o {busy}");
        sweeps += usize::from(busy && t > 0 && expected[t - 1].busy != busy);
        assert_eq!(
            f[0] == "1",
            want.operands.is_some(),
            "{c:?} cycle {t}: rd_valid_o"
        );
        if let Some(ops) = &want.operands {
            beats += 1;
            for o in 0..3 {
                let got = lanes_of(f[1 + o], c.lanes);
                assert_eq!(
                    got,
                    ops[o],
                    "{c:?} cycle {t}: operand {o} (ra, rb, rc) of the beat issued in {}",
                    t - 5
                );
            }
        }
    }
    println!("{c:?}: {cycles} cycles, {beats} beats read, {sweeps} sweeps after the reset's");
    assert!(beats > cycles / 3 && sweeps > 0, "too little exercised");
}

#[test]
fn every_configuration_reads_what_was_written() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 20_000) as usize;
    let configs = [
        (8, 8, 256, 4),
        (8, 8, 256, 2),
        (8, 8, 256, 1),
        (4, 8, 256, 4),
        (1, 4, 512, 2),
        (16, 8, 128, 2),
        (32, 4, 64, 1),
    ];
    for (i, (lanes, warps, regs_per_lane, banks)) in configs.into_iter().enumerate() {
        let c = Config {
            lanes,
            warps,
            regs_per_lane,
            banks,
        };
        check(c, cycles, 0x243f_6a88_85a3_08d3 ^ i as u64);
    }
}
