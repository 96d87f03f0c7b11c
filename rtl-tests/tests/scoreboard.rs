//! `hw/sgpu_scoreboard.sv`, core v2's scoreboard (docs/adr/0008-core-v2-pipeline.md),
//! built with Verilator and driven cycle by cycle as the core would drive it, against a
//! reference written from its definition: a warp's head may issue when none of its reads
//! (ra, rb, rc ranges, predicates) or writes overlaps a destination of the warp's
//! instructions in flight (and no predicate or carry write is in flight if it writes one),
//! and, if it writes anything, the warp has a free entry; an
//! instruction's entry is the lowest free one, busy from its issue through the cycle of its
//! `done`; a head is checked in two cycles, so it may issue from the second cycle after it
//! comes.
//!
//! Each warp runs a stream of random instructions (register ranges of 0 to 4 from a few
//! registers, so that they often overlap; predicates and carry), each finishing a random
//! number of cycles after issue (1 to 12, and now and then 60, a load from far away), two
//! `done` ports taking the completions in order. Heads come one a cycle, sometimes in the
//! cycle their warp issues the one before (whose entry then counts). Every cycle each warp's
//! `ready_o` and the entry given to an issue are compared with the reference.
//! `RTL_TEST_CYCLES=N` runs N cycles a configuration (30,000 by default). Verilator (5.006
//! or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, run, testbench_with, Bits, Rng};
use std::collections::VecDeque;

const RTL: [&str; 1] = ["hw/sgpu_scoreboard.sv"];
const TESTBENCH: &str = "rtl-tests/tb/scoreboard_tb.cpp";
const ENTRIES: usize = 4;

/// A register range: first, count (0 to 4).
type Range = (u8, u8);

#[derive(Clone, Copy, Debug)]
struct Insn {
    reads: [Range; 3],
    pred_reads: u8,
    writes: Range,
    pred_writes: u8,
    latency: u32,
}

impl Insn {
    fn random(rng: &mut Rng) -> Insn {
        let range = |rng: &mut Rng| -> Range {
            let count = [0, 1, 1, 1, 2, 2, 4][(rng.word() % 7) as usize];
            // A few registers, and now and then the top of the file (ranges up to R255).
            let first = if rng.word().is_multiple_of(16) {
                252 + rng.word() % 4
            } else {
                rng.word() % 12
            };
            (first as u8, count)
        };
        let preds = |rng: &mut Rng| {
            if rng.word().is_multiple_of(3) {
                1u8 << (rng.word() % 8)
            } else {
                0
            }
        };
        Insn {
            reads: [range(rng), range(rng), range(rng)],
            pred_reads: preds(rng),
            writes: range(rng),
            pred_writes: preds(rng),
            latency: if rng.word().is_multiple_of(20) {
                60
            } else {
                1 + (rng.word() % 12) as u32
            },
        }
    }

    fn takes(&self) -> bool {
        self.writes.1 != 0 || self.pred_writes != 0
    }
}

fn overlap(a: Range, b: Range) -> bool {
    let (a0, a1) = (u32::from(a.0), u32::from(a.0) + u32::from(a.1));
    let (b0, b1) = (u32::from(b.0), u32::from(b.0) + u32::from(b.1));
    a.1 != 0 && b.1 != 0 && a0 < b1 && b0 < a1
}

/// What the head depends on in an entry writing `e`.
fn depends(head: &Insn, e: &Insn) -> bool {
    head.reads.iter().any(|&r| overlap(r, e.writes))
        || overlap(head.writes, e.writes)
        // A predicate writer waits for every predicate writer (sgpu_pred_file writes rows
        // whole).
        || (head.pred_reads | if head.pred_writes != 0 { 0xff } else { 0 }) & e.pred_writes != 0
}

fn range_bits(r: Range) -> u64 {
    u64::from(r.0) | u64::from(r.1) << 8
}

/// One cycle's inputs, as the testbench reads them.
#[derive(Default)]
struct Cycle {
    head: Option<(u32, Option<Insn>)>,
    issue: Option<(u32, Insn)>,
    done: Vec<(u32, usize)>,
}

impl Cycle {
    fn line(&self, warps: u32) -> String {
        let sw = common::index_bits(warps);
        let ew = 2;
        let (hw, h) = self.head.unwrap_or((0, None));
        let hi = h.unwrap_or(Insn {
            reads: [(0, 0); 3],
            pred_reads: 0,
            writes: (0, 0),
            pred_writes: 0,
            latency: 0,
        });
        let mut reads = Bits::default();
        for (k, &r) in hi.reads.iter().enumerate() {
            reads.put(11 * k as u32, 11, range_bits(r));
        }
        let (iw, ii) = self.issue.unwrap_or((0, hi));
        let (mut dv, mut dw, mut de) = (0, Bits::default(), Bits::default());
        for (p, &(w, e)) in self.done.iter().enumerate() {
            dv |= 1 << p;
            dw.put(p as u32 * sw, sw, w.into());
            de.put(p as u32 * ew, ew, e as u64);
        }
        [
            Bits::of(self.head.is_some().into(), 1),
            Bits::of(hw.into(), sw),
            Bits::of(h.is_some().into(), 1),
            reads.hex(),
            Bits::of(hi.pred_reads.into(), 8),
            Bits::of(range_bits(hi.writes), 11),
            Bits::of(hi.pred_writes.into(), 8),
            Bits::of(self.issue.is_some().into(), 1),
            Bits::of(iw.into(), sw),
            Bits::of(range_bits(ii.writes), 11),
            Bits::of(ii.pred_writes.into(), 8),
            Bits::of(dv, 2),
            dw.hex(),
            de.hex(),
        ]
        .join(" ")
    }
}

/// A warp as the reference sees it.
#[derive(Default, Clone)]
struct Warp {
    head: Option<Insn>,
    /// A head in the module's two-cycle check: the head from the next cycle.
    checking: Option<Option<Insn>>,
    /// Entries: the instruction in flight, busy through the cycle of its done.
    entries: [Option<Insn>; ENTRIES],
    /// Its buffer emptied by an issue, waiting for the next head.
    wants_head: bool,
}

impl Warp {
    fn ready(&self) -> bool {
        let Some(h) = &self.head else { return false };
        let deps = self.entries.iter().flatten().any(|e| depends(h, e));
        let full = self.entries.iter().all(Option::is_some);
        !(deps || h.takes() && full)
    }
}

/// Random traffic and, for each cycle, the expected ready mask and issue entry.
fn traffic(warps: u32, cycles: usize, rng: &mut Rng) -> (Vec<Cycle>, Vec<(u64, Option<usize>)>) {
    let mut ws = vec![Warp::default(); warps as usize];
    ws.iter_mut().for_each(|w| w.wants_head = true);
    // Completions due: (cycle, warp, entry), and those waiting for a done port.
    let mut due: Vec<(usize, u32, usize)> = Vec::new();
    let mut waiting: VecDeque<(u32, usize)> = VecDeque::new();
    let mut next_fill = 0u32;
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    for t in 0..cycles {
        let mut cycle = Cycle::default();
        // What the module shows this cycle: from the state the cycles before left.
        let ready: u64 = ws
            .iter()
            .enumerate()
            .map(|(i, w)| u64::from(w.ready()) << i)
            .sum();
        // Issue: a ready warp, now and then none.
        let candidates: Vec<u32> = (0..warps).filter(|&w| ready >> w & 1 == 1).collect();
        let mut entry = None;
        if !candidates.is_empty() && !rng.word().is_multiple_of(5) {
            let w = candidates[(rng.word() % candidates.len() as u64) as usize];
            let warp = &mut ws[w as usize];
            let insn = warp.head.take().unwrap();
            warp.wants_head = true;
            let free = warp.entries.iter().position(Option::is_none);
            entry = Some(free.unwrap_or(0));
            if insn.takes() {
                let e = free.expect("a ready warp that writes has a free entry");
                warp.entries[e] = Some(insn);
                due.push((t + insn.latency as usize, w, e));
            }
            cycle.issue = Some((w, insn));
        }
        // Completions: at most two a cycle, oldest first.
        due.retain(|&(at, w, e)| {
            if at <= t {
                waiting.push_back((w, e));
                false
            } else {
                true
            }
        });
        while cycle.done.len() < 2 {
            let Some((w, e)) = waiting.pop_front() else {
                break;
            };
            cycle.done.push((w, e));
        }
        // A head: the issuing warp's next (in the same cycle half the time), or another
        // warp's empty buffer filled, round robin.
        let issuing = cycle.issue.map(|(w, _)| w);
        let mut pick = None;
        if let Some(w) = issuing.filter(|_| rng.word().is_multiple_of(2)) {
            pick = Some(w);
        } else {
            for k in 0..warps {
                let w = (next_fill + k) % warps;
                if ws[w as usize].wants_head && Some(w) != issuing {
                    pick = Some(w);
                    next_fill = w + 1;
                    break;
                }
            }
        }
        // Heads checked since the last cycle are the warps' heads from the next.
        for w in ws.iter_mut() {
            if let Some(h) = w.checking.take() {
                w.head = h;
            }
        }
        if let Some(w) = pick.filter(|_| !rng.word().is_multiple_of(4)) {
            // Now and then a buffer that stays empty a while (no head valid).
            let insn = (!rng.word().is_multiple_of(8)).then(|| Insn::random(rng));
            ws[w as usize].checking = Some(insn);
            ws[w as usize].wants_head = insn.is_none();
            cycle.head = Some((w, insn));
        }
        // The done entries are free from the next cycle.
        for &(w, e) in &cycle.done {
            ws[w as usize].entries[e] = None;
        }
        expected.push((ready, entry));
        inputs.push(cycle);
    }
    (inputs, expected)
}

fn check(warps: u32, cycles: usize, seed: u64) {
    let exe = testbench_with(
        "sgpu_scoreboard",
        &RTL,
        TESTBENCH,
        &[("WARPS", warps), ("ENTRIES", ENTRIES as u32)],
    );
    let mut rng = Rng::new(seed);
    let (inputs, expected) = traffic(warps, cycles, &mut rng);
    let text: String = inputs.iter().map(|c| c.line(warps) + "\n").collect();
    let lines = run(&exe, &text);
    let (mut issues, mut blocked) = (0, 0);
    for (t, (line, (ready, entry))) in lines.iter().zip(&expected).enumerate() {
        let f: Vec<u64> = common::hex_values(line);
        assert_eq!(f[1], *ready, "{warps} warps, cycle {t}: ready_o");
        if let Some(e) = entry {
            issues += 1;
            assert_eq!(
                f[0], *e as u64,
                "{warps} warps, cycle {t}: the issue's entry"
            );
        }
        blocked += (!ready & ((1u64 << warps) - 1)).count_ones() as usize;
    }
    println!("{warps} warps: {cycles} cycles, {issues} issues, {blocked} warp-cycles not ready");
    assert!(
        issues > cycles / 10 && blocked > cycles / 10,
        "too little exercised"
    );
}

#[test]
fn heads_issue_exactly_when_their_operands_are_written() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 30_000) as usize;
    for (i, warps) in [8, 1, 32].into_iter().enumerate() {
        check(warps, cycles, 0x1319_8a2e_0370_7344 ^ i as u64);
    }
}
