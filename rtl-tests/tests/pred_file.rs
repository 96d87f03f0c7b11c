//! `hw/sgpu_pred_file.sv`, core v2's predicate file (docs/adr/0008-core-v2-pipeline.md),
//! built with Verilator and driven cycle by cycle as the core drives it, against a reference
//! written from its definition: warp instructions issue a beat a cycle, each beat reading
//! its row; an instruction that writes predicates (one at a time a warp, the scoreboard's
//! rule) writes each beat's row back some cycles later through its bank's port, the row as
//! it was read with random predicates and carry (a mask) replaced in random lanes; other
//! instructions' reads fall in any cycle, the cycle of a write to their row included (they
//! read the row as it was); and now and then a slot starts a new warp, after which its rows
//! read zero until written. Every read's row must be the reference's. Every banking at 8
//! lanes, and lane counts from 1 to 32. `RTL_TEST_CYCLES=N` runs N cycles a configuration
//! (20,000 by default). Verilator (5.006 or later) must be installed; without it the test
//! fails and says so.

mod common;

use common::{count_from_env, run, testbench_with, Bits, Rng};
use std::collections::HashMap;
use std::fmt::Write as _;

const RTL: [&str; 1] = ["hw/sgpu_pred_file.sv"];
const TESTBENCH: &str = "rtl-tests/tb/pred_file_tb.cpp";

#[derive(Clone, Copy, Debug)]
struct Config {
    lanes: u32,
    warps: u32,
    banks: u32,
}

impl Config {
    fn beats(self) -> u32 {
        32 / self.lanes
    }
    fn sw(self) -> u32 {
        common::index_bits(self.warps)
    }
    fn bw(self) -> u32 {
        common::index_bits(self.beats())
    }
    fn bank(self, beat: u32) -> u32 {
        beat % self.banks
    }
}

/// A row: each lane's byte (P0 to P6, carry).
type Row = Vec<u8>;

/// A write waiting for its cycle.
struct Write {
    slot: u32,
    beat: u32,
    old: Row,
    mask: u8,
    lanes: u64,
    bits: Row,
    last: bool, // its instruction's last beat
}

impl Write {
    /// The row it leaves.
    fn row(&self) -> Row {
        (0..self.old.len())
            .map(|l| {
                if self.lanes >> l & 1 == 1 {
                    self.old[l] & !self.mask | self.bits[l] & self.mask
                } else {
                    self.old[l]
                }
            })
            .collect()
    }
}

/// The instruction issuing: its warp, its next beat, and for one that writes, how many
/// cycles after a beat's read its write comes, and what it writes.
struct Issuing {
    warp: u32,
    beat: u32,
    writes: Option<(u32, u8)>,
}

/// One configuration's run: the testbench's input, and each cycle's expected read (the row
/// read the cycle before, if any).
/// Also counts the warps started and the reads of a row in the cycle it is written.
fn traffic(cfg: Config, cycles: usize, rng: &mut Rng) -> (String, Vec<Option<Row>>, [usize; 2]) {
    let lanes = cfg.lanes as usize;
    let mut rows: Vec<Vec<Row>> =
        vec![vec![vec![0; lanes]; cfg.beats() as usize]; cfg.warps as usize];
    let mut writing = vec![false; cfg.warps as usize]; // a writer in flight
    let mut pending: HashMap<(usize, u32), Write> = HashMap::new(); // (cycle, port)
    let mut issuing: Option<Issuing> = None;
    let mut input = String::new();
    let mut expect = vec![None];
    let (mut starts, mut collisions) = (0, 0);
    let random_row = |rng: &mut Rng| -> Row { (0..lanes).map(|_| rng.word() as u8).collect() };
    for t in 0..cycles {
        // The issue: a beat of the instruction issuing, or a new one, or nothing.
        if issuing.is_none() && !rng.word().is_multiple_of(8) {
            let warp = (rng.word() % u64::from(cfg.warps)) as u32;
            // Mostly a unit's few cycles; now and then about a warp's beats, so that at one
            // lane too the warp's next instruction reads a row as it is written.
            let latency = if rng.word().is_multiple_of(4) {
                cfg.beats() + (rng.word() % 2) as u32
            } else {
                1 + (rng.word() % 8) as u32
            };
            // A writer if its warp has none in flight and its beats' ports are free then.
            let free = (0..cfg.beats())
                .all(|b| !pending.contains_key(&(t + (b + latency) as usize, cfg.bank(b))));
            let writes = (rng.word().is_multiple_of(2) && !writing[warp as usize] && free)
                .then(|| (latency, (rng.word() as u8) | 1 << (rng.word() % 8)));
            if writes.is_some() {
                writing[warp as usize] = true;
            }
            issuing = Some(Issuing {
                warp,
                beat: 0,
                writes,
            });
        }
        let read = issuing.as_ref().map(|i| (i.warp, i.beat));
        if let Some(i) = issuing.as_mut() {
            let row = rows[i.warp as usize][i.beat as usize].clone();
            if let Some((latency, mask)) = i.writes {
                let lanes_mask = match rng.word() % 4 {
                    0 => u64::MAX,
                    1 => 0,
                    _ => rng.word(),
                };
                pending.insert(
                    (t + latency as usize, cfg.bank(i.beat)),
                    Write {
                        slot: i.warp,
                        beat: i.beat,
                        old: row.clone(),
                        mask,
                        lanes: lanes_mask,
                        bits: random_row(rng),
                        last: i.beat + 1 == cfg.beats(),
                    },
                );
            }
            expect.push(Some(row));
            i.beat += 1;
            if i.beat == cfg.beats() {
                issuing = None;
            }
        } else {
            expect.push(None);
        }
        // A new warp now and then, in a slot with nothing of it in flight.
        let busy = |w: u32| {
            writing[w as usize]
                || issuing.as_ref().is_some_and(|i| i.warp == w)
                || read.is_some_and(|r| r.0 == w)
        };
        let start = (rng.word().is_multiple_of(64))
            .then(|| (rng.word() % u64::from(cfg.warps)) as u32)
            .filter(|&w| !busy(w));

        // The cycle's line, then its writes and start take effect at the edge.
        let (mut wv, mut ws, mut wb, mut wo, mut wm, mut wl, mut wbits) = (
            Bits::default(),
            Bits::default(),
            Bits::default(),
            Bits::default(),
            Bits::default(),
            Bits::default(),
            Bits::default(),
        );
        let row_bits = 8 * cfg.lanes;
        for k in 0..cfg.banks {
            if let Some(w) = pending.get(&(t, k)) {
                wv.put(k, 1, 1);
                ws.put(k * cfg.sw(), cfg.sw(), u64::from(w.slot));
                wb.put(k * cfg.bw(), cfg.bw(), u64::from(w.beat));
                wm.put(k * 8, 8, u64::from(w.mask));
                wl.put(k * cfg.lanes, cfg.lanes, w.lanes);
                for l in 0..lanes {
                    let at = k * row_bits + 8 * l as u32;
                    wo.put(at, 8, u64::from(w.old[l]));
                    wbits.put(at, 8, u64::from(w.bits[l]));
                }
            }
        }
        let (rd_slot, rd_beat) = read.unwrap_or(((rng.word() % u64::from(cfg.warps)) as u32, 0));
        writeln!(
            input,
            "{} {} {} {} {} {} {} {} {} {} {} {}",
            Bits::of(u64::from(read.is_some()), 1),
            Bits::of(u64::from(rd_slot), cfg.sw()),
            Bits::of(u64::from(rd_beat), cfg.bw()),
            wv.hex(),
            ws.hex(),
            wb.hex(),
            wo.hex(),
            wm.hex(),
            wl.hex(),
            wbits.hex(),
            Bits::of(u64::from(start.is_some()), 1),
            Bits::of(u64::from(start.unwrap_or(0)), cfg.sw()),
        )
        .unwrap();
        for k in 0..cfg.banks {
            if let Some(w) = pending.remove(&(t, k)) {
                collisions += usize::from(read == Some((w.slot, w.beat)));
                rows[w.slot as usize][w.beat as usize] = w.row();
                if w.last {
                    writing[w.slot as usize] = false;
                }
            }
        }
        if let Some(s) = start {
            starts += 1;
            for row in &mut rows[s as usize] {
                row.fill(0);
            }
        }
    }
    (input, expect, [starts, collisions])
}

fn check(cfg: Config, cycles: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let (input, expect, [starts, collisions]) = traffic(cfg, cycles, &mut rng);
    let exe = testbench_with(
        "sgpu_pred_file",
        &RTL,
        TESTBENCH,
        &[
            ("LANES", cfg.lanes),
            ("WARPS", cfg.warps),
            ("BANKS", cfg.banks),
        ],
    );
    let lines = run(&exe, &input);
    let (mut reads, mut mismatches) = (0, Vec::new());
    for (t, line) in lines.iter().enumerate() {
        let (valid, row) = line.split_once(' ').expect("two values");
        match &expect[t] {
            Some(want) => {
                reads += 1;
                let want_hex = want.iter().rev().fold(String::new(), |mut s, b| {
                    write!(s, "{b:02x}").unwrap();
                    s
                });
                let got = format!("{:0>width$}", row, width = want_hex.len());
                if valid != "1" || got != want_hex {
                    mismatches.push(format!(
                        "cycle {t}: valid {valid}, row {got}, want {want_hex}"
                    ));
                }
            }
            None if valid != "0" => mismatches.push(format!("cycle {t}: a read from nowhere")),
            None => {}
        }
    }
    assert!(
        mismatches.is_empty(),
        "{cfg:?}: {} of {reads} reads wrong, the first:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    assert!(reads > cycles / 2, "{cfg:?}: only {reads} reads");
    assert!(
        starts > 10 && collisions > 50,
        "{cfg:?}: {starts} warps started, {collisions} reads of a row as it was written"
    );
    println!("{cfg:?}: {reads} reads, {starts} warps started, {collisions} reads beside a write");
}

#[test]
fn every_read_gives_the_row_as_the_writes_left_it() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 20_000) as usize;
    let configs = [
        Config {
            lanes: 8,
            warps: 8,
            banks: 2,
        },
        Config {
            lanes: 8,
            warps: 8,
            banks: 4,
        },
        Config {
            lanes: 8,
            warps: 8,
            banks: 1,
        },
        Config {
            lanes: 1,
            warps: 4,
            banks: 4,
        },
        Config {
            lanes: 4,
            warps: 8,
            banks: 2,
        },
        Config {
            lanes: 16,
            warps: 8,
            banks: 2,
        },
        Config {
            lanes: 32,
            warps: 32,
            banks: 1,
        },
    ];
    for (k, cfg) in configs.into_iter().enumerate() {
        check(cfg, cycles, 0x5eed_0000 + k as u64);
    }
}
