//! `hw/sgpu_lanes.sv`, core v2's lanes, built with Verilator between the register file and
//! the predicate file as the core joins them (`tb/lane_path_top.sv`: `sgpu_operand_rows`
//! gives each beat's rows, `sgpu_regfile` its operands, `sgpu_pred_file` its predicate row,
//! the write-back goes to both through the port of the beat's bank), runs random programs
//! of the lane operations in four warp slots at once, and every write-back is what the
//! golden model (`sgpu_sim::exec::evaluate`, thread by thread) writes, in the cycle the
//! pipeline promises: nine cycles after each beat's issue.
//!
//! The programs: every lane opcode with random fields, registers R0 to R15 and RZ (pairs
//! from R0 to R14), guards by random predicates, random active masks, values seeded by
//! MOV32I's edge-biased immediates; IMADW issues twice (its passes). Warps issue in round
//! robin with idle cycles between, a warp's next instruction after its last write-back
//! (the scoreboard's rule at its strictest), and a slot starts a new warp now and then,
//! whose registers and predicates must read zero. At 8 lanes with 1, 2 and 4 banks, 1, 16
//! and 32 lanes. `RTL_TEST_CASES=N` runs N instructions a configuration (800 by default).
//! Verilator (5.006 or later) must be installed; without it the test fails and says so.

mod common;

use common::int_cases::{self, LANE_OPS};
use common::{count_from_env, lanes_of, run, testbench_with, Bits, Rng};
use sgpu_isa::{decode, fields, Instruction, Pred, Reg};
use sgpu_sim::exec::evaluate;
use sgpu_sim::warp::reg_at;

const RTL: [&str; 10] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_ram.sv",
    "hw/sgpu_regfile.sv",
    "hw/sgpu_pred_file.sv",
    "hw/sgpu_pipe.sv",
    "hw/sgpu_operand_rows.sv",
    "hw/sgpu_lane_alu.sv",
    "hw/sgpu_lanes.sv",
];
const HARNESS: &str = "rtl-tests/tb/lane_path_top.sv";
const TESTBENCH: &str = "rtl-tests/tb/lanes_tb.cpp";

/// The harness's warp slots and registers a warp.
const WARPS: u32 = 4;
const REGS: u32 = 16;
/// From a beat's issue to its write-back.
const LATENCY: usize = 9;

#[derive(Clone, Copy, Debug)]
struct Config {
    lanes: u32,
    banks: u32,
}

impl Config {
    fn beats(self) -> u32 {
        32 / self.lanes
    }

    /// The cycles the register file sweeps after reset: its block RAMs' depth.
    fn sweep(self) -> usize {
        (WARPS * REGS * self.beats() / self.banks) as usize
    }
}

/// A warp's threads as the model keeps them: 16 registers, and P0 to P6 with the carry in
/// bit 7 (the predicate file's byte).
#[derive(Clone)]
struct Threads {
    regs: [[u32; REGS as usize]; 32],
    preds: [u8; 32],
}

impl Threads {
    fn new() -> Threads {
        Threads {
            regs: [[0; REGS as usize]; 32],
            preds: [0; 32],
        }
    }

    fn guard(&self, insn: &Instruction, lane: usize) -> bool {
        let g = insn.guard;
        let value = g.pred == Pred::PT || self.preds[lane] >> g.pred.0 & 1 != 0;
        value != g.negated
    }

    /// Runs `insn` in the active lanes of `mask`, as the model does thread by thread.
    fn run(&mut self, insn: Instruction, mask: u32) {
        for lane in (0..32).filter(|l| mask >> l & 1 != 0) {
            let regs: Vec<(Reg, u32)> = (0..REGS as u8)
                .map(|r| (Reg(r), self.regs[lane][usize::from(r)]))
                .collect();
            let preds: Vec<(Pred, bool)> = (0..7)
                .map(|p| (Pred(p), self.preds[lane] >> p & 1 != 0))
                .collect();
            let carry = self.preds[lane] >> 7 != 0;
            let out = evaluate(insn, &regs, &preds, carry)
                .unwrap_or_else(|| panic!("the model cannot evaluate {insn}"));
            for (r, v) in out.regs {
                if r != Reg::RZ {
                    self.regs[lane][usize::from(r.0)] = v;
                }
            }
            for (p, v) in out.preds {
                self.preds[lane] = self.preds[lane] & !(1 << p.0) | u8::from(v) << p.0;
            }
            if let Some(c) = out.carry {
                self.preds[lane] = self.preds[lane] & 0x7f | u8::from(c) << 7;
            }
        }
    }
}

/// A random lane instruction: its registers in R0 to R15 or RZ (pairs in R0 to R14), a
/// random guard.
fn instruction(rng: &mut Rng, ops: &[(&str, u8, u64)]) -> (u64, Instruction) {
    loop {
        // MOV32I often, for the values its edge-biased immediates bring.
        let (name, op, used) = if rng.word().is_multiple_of(5) {
            ops[1]
        } else {
            ops[(rng.word() % ops.len() as u64) as usize]
        };
        let (mut word, _) = int_cases::word(rng, op, used);
        for f in [fields::RD, fields::RA, fields::RB, fields::RC] {
            if used & f.mask() == f.mask() {
                let pair = name == "IMADW" && (f == fields::RD || f == fields::RC);
                let r = if rng.word().is_multiple_of(8) {
                    Reg::RZ.0
                } else {
                    rng.below(REGS - u32::from(pair)) as u8
                };
                word = word & !f.mask() | u64::from(r) << f.lsb;
            }
        }
        let guard = match rng.word() % 16 {
            0 => u64::from(Pred::PT.0) | 8, // !PT: never (PGN is the bit above PG)
            1..=8 => u64::from(Pred::PT.0),
            _ => (rng.word() % 7) | ((rng.word() % 2) << 3),
        };
        word = word & !(fields::PG.mask() | fields::PGN.mask()) | guard << fields::PG.lsb;
        if let Ok(insn) = decode(word) {
            return (word, insn);
        }
    }
}

/// An active mask: all lanes mostly, else random lanes, a run of lanes, or one.
fn active_mask(rng: &mut Rng) -> u32 {
    match rng.word() % 8 {
        0..=3 => u32::MAX,
        4 | 5 => rng.word() as u32,
        6 => {
            let (a, b) = (rng.below(32), rng.below(32));
            let (lo, hi) = (a.min(b), a.max(b));
            (u64::MAX >> (63 - hi) << lo) as u32
        }
        _ => 1 << rng.below(32),
    }
}

/// What the write-back must carry in a cycle.
#[derive(Clone, Default)]
struct Expect {
    /// The register write: slot, beat, row, lanes, each lane's value.
    reg: Option<(u32, u32, u32, u32, Vec<u32>)>,
    /// The predicate row's: its bytes as read, mask, lanes, bytes written.
    pred: Option<(Vec<u8>, u8, u32, Vec<u8>)>,
    done: Option<u32>,
}

/// One cycle's input line.
#[derive(Clone, Default)]
struct Input {
    issue: Option<(u32, u32, bool, u64, u32, bool)>, // slot, beat, hi pass, word, lanes, last
    next: Option<u32>,
}

impl Input {
    fn line(&self, cfg: Config) -> String {
        let (valid, (slot, beat, hi, word, lanes, last)) = match self.issue {
            Some(i) => (1, i),
            None => (0, (0, 0, false, 0, 0, false)),
        };
        let (next, next_slot) = self.next.map_or((0, 0), |s| (1, s));
        format!(
            "{valid} {slot:x} {beat:x} {:x} {word:x} {} {:x} {next} {next_slot:x}\n",
            u8::from(hi),
            Bits::of(u64::from(lanes), cfg.lanes),
            u8::from(last)
        )
    }
}

/// A warp slot's state in the driver.
struct Slot {
    warps_left: u32,
    program: Vec<(u64, Instruction, u32)>,
    threads: Threads,
    /// The first cycle it may issue (or start a new warp) again.
    ready_at: usize,
}

/// The beats of one instruction, and what each writes back.
fn expectations(
    cfg: Config,
    slot: u32,
    insn: Instruction,
    mask: u32,
    threads: &mut Threads,
) -> Vec<(u32, bool, u32, Expect)> {
    let roles = insn.op.roles();
    let passes = roles
        .regs
        .iter()
        .flatten()
        .map(|r| r.count)
        .max()
        .unwrap_or(1);
    let before = threads.clone();
    threads.run(insn, mask);
    let pred_mask = roles
        .written_preds()
        .filter(|&p| p != Pred::PT)
        .fold(0u8, |m, p| m | 1 << p.0)
        | u8::from(roles.carry_write) << 7;
    let beats = cfg.beats();
    let mut out = Vec::new();
    for pass in 0..passes {
        for beat in 0..beats {
            let lanes: Vec<usize> = (0..cfg.lanes)
                .map(|k| (beat * cfg.lanes + k) as usize)
                .collect();
            let written = lanes.iter().enumerate().fold(0u32, |m, (k, &l)| {
                m | u32::from(mask >> l & 1 != 0 && before.guard(&insn, l)) << k
            });
            let mut e = Expect::default();
            if let Some(rd) = roles.written().map(|w| reg_at(w.first, pass)) {
                if rd != Reg::RZ {
                    let data = lanes
                        .iter()
                        .map(|&l| threads.regs[l][usize::from(rd.0)])
                        .collect();
                    e.reg = Some((slot, beat, slot * REGS + u32::from(rd.0), written, data));
                }
            }
            if pred_mask != 0 {
                let old = lanes.iter().map(|&l| before.preds[l]).collect();
                let new = lanes.iter().map(|&l| threads.preds[l]).collect();
                e.pred = Some((old, pred_mask, written, new));
            }
            let last = pass + 1 == passes && beat + 1 == beats;
            e.done = last.then_some(slot);
            out.push((beat, pass == 1, lanes_mask(mask, beat, cfg.lanes), e));
        }
    }
    out
}

/// The lanes of `mask` in beat `beat`.
fn lanes_mask(mask: u32, beat: u32, lanes: u32) -> u32 {
    let all = if lanes == 32 {
        u32::MAX
    } else {
        (1 << lanes) - 1
    };
    mask >> (beat * lanes) & all
}

/// The input lines and each cycle's expected write-back, with the instructions of each
/// opcode run.
fn traffic(cfg: Config, count: usize, rng: &mut Rng) -> (Vec<Input>, Vec<Expect>, Vec<usize>) {
    let ops = common::instructions(&LANE_OPS);
    let per_warp = 40;
    let warps = count.div_ceil(per_warp * WARPS as usize) as u32;
    let mut slots: Vec<Slot> = (0..WARPS)
        .map(|_| Slot {
            warps_left: warps,
            program: Vec::new(),
            threads: Threads::new(),
            ready_at: cfg.sweep() + 2,
        })
        .collect();
    let mut inputs = vec![Input::default(); cfg.sweep() + 2];
    let mut expect: Vec<Expect> = vec![Expect::default(); inputs.len() + LATENCY];
    let mut tested = vec![0usize; LANE_OPS.len()];
    let mut beats: Vec<(u32, u32, bool, u64, u32, bool)> = Vec::new(); // left to issue
    let mut last = 0u32;
    let mut t = inputs.len();
    while slots
        .iter()
        .any(|s| s.warps_left > 0 || !s.program.is_empty())
        || !beats.is_empty()
    {
        let mut input = Input::default();
        // A new warp in a slot whose last one is done.
        if let Some(w) = (0..WARPS).find(|&w| {
            let s = &slots[w as usize];
            s.program.is_empty() && s.warps_left > 0 && t >= s.ready_at
        }) {
            let s = &mut slots[w as usize];
            s.warps_left -= 1;
            s.threads = Threads::new();
            s.program = (0..per_warp)
                .map(|_| {
                    let (word, insn) = instruction(rng, &ops);
                    (word, insn, active_mask(rng))
                })
                .rev()
                .collect();
            s.ready_at = t + 1;
            input.next = Some(w);
        }
        if beats.is_empty() && !rng.word().is_multiple_of(8) {
            // The next ready slot after the last to issue.
            let pick = (1..=WARPS).map(|k| (last + k) % WARPS).find(|&w| {
                let s = &slots[w as usize];
                !s.program.is_empty() && t >= s.ready_at && input.next != Some(w)
            });
            if let Some(w) = pick {
                let s = &mut slots[w as usize];
                let (word, insn, mask) = s.program.pop().expect("an instruction");
                let name = insn.op.mnemonic();
                tested[LANE_OPS.iter().position(|&n| n == name).expect("a lane op")] += 1;
                let planned = expectations(cfg, w, insn, mask, &mut s.threads);
                s.ready_at = t + planned.len() + LATENCY;
                let n = planned.len();
                for (i, (beat, hi, lanes, e)) in planned.into_iter().enumerate() {
                    beats.push((w, beat, hi, word, lanes, i + 1 == n));
                    let at = t + i + LATENCY;
                    if expect.len() <= at {
                        expect.resize(at + 1, Expect::default());
                    }
                    expect[at] = e;
                }
                beats.reverse();
                last = w;
            }
        }
        input.issue = beats.pop();
        inputs.push(input);
        t += 1;
    }
    inputs.extend(vec![Input::default(); LATENCY + 1]);
    expect.resize(inputs.len(), Expect::default());
    (inputs, expect, tested)
}

/// A printed predicate row's bytes, lane 0 first.
fn bytes_of(hex: &str, lanes: u32) -> Vec<u8> {
    lanes_of(hex, lanes.div_ceil(4))
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(lanes as usize)
        .collect()
}

/// What differs between a cycle's printed write-back `f` and `e`.
fn differences(cfg: Config, f: &[&str], e: &Expect) -> Vec<String> {
    let hex = |s: &str| u64::from_str_radix(s, 16).expect("hexadecimal");
    let mut out = Vec::new();
    match &e.reg {
        Some((slot, beat, row, lanes, data)) => {
            let got = (hex(f[2]), hex(f[3]), hex(f[4]), hex(f[5]));
            let want = (
                u64::from(*slot),
                u64::from(*beat),
                u64::from(*row),
                u64::from(*lanes),
            );
            if f[1] != "1" || got != want {
                out.push(format!(
                    "register write {} (slot, beat, row, lanes) {got:x?}, want {want:x?}",
                    f[1]
                ));
            }
            let values = lanes_of(f[6], cfg.lanes);
            for k in (0..cfg.lanes as usize).filter(|k| lanes >> k & 1 != 0) {
                if values[k] != data[k] {
                    out.push(format!(
                        "lane {k} wrote {:#x}, want {:#x}",
                        values[k], data[k]
                    ));
                }
            }
        }
        None if f[1] != "0" => out.push("a register write from nowhere".into()),
        None => {}
    }
    match &e.pred {
        Some((old, mask, lanes, new)) => {
            let got_old = bytes_of(f[8], cfg.lanes);
            let got_bits = bytes_of(f[11], cfg.lanes);
            if f[7] != "1" || hex(f[9]) != u64::from(*mask) || hex(f[10]) != u64::from(*lanes) {
                out.push(format!(
                    "predicate write {} mask {} lanes {}, want mask {mask:x} lanes {lanes:x}",
                    f[7], f[9], f[10]
                ));
            }
            if &got_old != old {
                out.push(format!("the row as read {got_old:x?}, want {old:x?}"));
            }
            for k in (0..cfg.lanes as usize).filter(|k| lanes >> k & 1 != 0) {
                if got_bits[k] & mask != new[k] & mask {
                    out.push(format!(
                        "lane {k}'s predicates {:#04x}, want {:#04x} (mask {mask:#04x})",
                        got_bits[k], new[k]
                    ));
                }
            }
        }
        None if f[7] != "0" => out.push("a predicate write from nowhere".into()),
        None => {}
    }
    let done = (f[12] == "1").then(|| hex(f[13]) as u32);
    if done != e.done {
        out.push(format!("done {done:?}, want {:?}", e.done));
    }
    out
}

fn check(cfg: Config, count: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let (inputs, expect, tested) = traffic(cfg, count, &mut rng);
    let exe = testbench_with(
        "lane_path_top",
        &[&RTL[..], &[HARNESS]].concat(),
        TESTBENCH,
        &[("LANES", cfg.lanes), ("BANKS", cfg.banks)],
    );
    let input: String = inputs.iter().map(|i| i.line(cfg)).collect();
    let lines = run(&exe, &input);
    let mut mismatches = Vec::new();
    let (mut writes, mut pred_writes) = (0, 0);
    for (t, line) in lines.iter().enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 14, "cycle {t}: {line}");
        if inputs[t].issue.is_some() && f[0] != "0" {
            mismatches.push(format!(
                "cycle {t}: an issue while the register file is busy"
            ));
        }
        writes += usize::from(f[1] == "1");
        pred_writes += usize::from(f[7] == "1");
        let wrong = differences(cfg, &f, &expect[t]);
        if !wrong.is_empty() {
            mismatches.push(format!("cycle {t}: {}", wrong.join("; ")));
        }
    }
    common::assert_cycles_agree(&cfg, &mismatches);
    for (name, n) in LANE_OPS.iter().zip(&tested) {
        assert!(
            *n * LANE_OPS.len() * 4 >= count,
            "{cfg:?}: only {n} of {name}"
        );
    }
    println!(
        "{cfg:?}: {} instructions, {} cycles, {writes} register and {pred_writes} predicate writes",
        tested.iter().sum::<usize>(),
        lines.len()
    );
}

#[test]
fn every_write_back_is_the_golden_models_nine_cycles_after_its_issue() {
    let count = count_from_env("RTL_TEST_CASES", 800) as usize;
    let configs = [(8, 2), (8, 4), (8, 1), (1, 2), (16, 2), (32, 1)];
    for (k, (lanes, banks)) in configs.into_iter().enumerate() {
        check(Config { lanes, banks }, count, 0x1a2e_5000 + k as u64);
    }
}
