//! `hw/sgpu_shared_unit.sv`, core v2's units the lanes share (`sgpu_lane_serial`'s queue
//! and one lane a cycle through a unit: `sgpu_shared_int`, the integer operations the
//! lanes leave out, or `sgpu_video_pipe`, the video instructions, both pipelined), built
//! with Verilator and driven cycle by cycle as the core drives it: a warp instruction's beats issue in consecutive cycles when `room_o` says an
//! instruction fits, each beat's predicate row comes a cycle later and its operands five
//! cycles later (random values on those inputs in the other cycles, which the unit must
//! ignore), and the write-back takes its beats when it will (`wb_ready_i` at random,
//! sometimes held low for long).
//!
//! A reference written from the module's definition says what every cycle's outputs are:
//! `room_o`, and each beat written back in issue order (its warp slot, beat, row, whether
//! it writes, its lanes: active and guarded, the scoreboard entry and last beat) with each
//! writing lane's result what the golden model (`sgpu_sim::exec::evaluate`) writes for the
//! lane's operands. The instructions: all nine shared integer opcodes, or all thirteen
//! video opcodes, with random fields and guards, rd sometimes RZ, edge-biased operands,
//! partial and empty active masks. The integer unit at 8 lanes with 16 and 4 entries (one
//! instruction), 1, 16 and 32 lanes; the video unit at 8 and 32 lanes. `RTL_TEST_CYCLES=N`
//! runs N cycles a configuration (20,000 by default). Verilator (5.006 or later) must be
//! installed; without it the test fails and says so.

mod common;

use common::int_cases::{self, SHARED_OPS};
use common::{count_from_env, lanes_of, run, testbench_with, Bits, Rng};
use sgpu_isa::{field, fields, Pred, Reg};
use sgpu_sim::exec::evaluate;
use std::collections::VecDeque;

const RTL: [&str; 8] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_pipe.sv",
    "hw/sgpu_shared_int.sv",
    "hw/sgpu_video_pipe.sv",
    "hw/sgpu_lane_serial.sv",
    "hw/sgpu_shared_unit.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/shared_unit_tb.cpp";

const SW: u32 = 2; // 4 warp slots
const EW: u32 = 2; // 4 scoreboard entries
const RW: u32 = 6; // register rows

/// The unit between the queue and the write-back (the module's KIND).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Int,
    Video,
}

const VIDEO_OPS: [&str; 13] = [
    "VADD", "VSUB", "VABSDIFF", "VMIN", "VMAX", "VSHL", "VSHR", "VMAD", "VSET", "VOP2", "VOP4",
    "VSET2", "VSET4",
];

#[derive(Clone, Copy, Debug)]
struct Config {
    kind: Kind,
    lanes: u32,
    depth: u32,
}

impl Config {
    fn ops(self) -> Vec<(&'static str, u8, u64)> {
        common::instructions(match self.kind {
            Kind::Int => &SHARED_OPS,
            Kind::Video => &VIDEO_OPS,
        })
    }
    /// Cycles from a lane's operands at the unit to its result registered.
    fn latency(self) -> usize {
        match self.kind {
            Kind::Int => 3,
            Kind::Video => 5,
        }
    }

    fn beats(self) -> u32 {
        32 / self.lanes
    }
    fn all(self) -> u32 {
        if self.lanes == 32 {
            u32::MAX
        } else {
            (1 << self.lanes) - 1
        }
    }
}

/// A beat as it issues, and what the golden model says each lane writes.
#[derive(Clone, Debug)]
struct Issue {
    slot: u32,
    beat: u32,
    word: u64,
    lanes: u32,
    row: u32,
    rz: bool,
    last: bool,
    entry_valid: bool,
    entry: u32,
    /// Each lane's predicate byte, operands and result (the model's rd).
    preds: Vec<u8>,
    operands: Vec<[u32; 3]>,
    results: Vec<u32>,
}

impl Issue {
    /// The lanes whose guard holds among the active ones.
    fn writing(&self) -> u32 {
        let (pg, neg) = (
            field(self.word, fields::PG),
            field(self.word, fields::PGN) != 0,
        );
        (0..self.preds.len())
            .filter(|&k| self.lanes >> k & 1 != 0)
            .filter(|&k| (pg == u64::from(Pred::PT.0) || self.preds[k] >> pg & 1 != 0) != neg)
            .fold(0, |m, k| m | 1 << k)
    }
}

/// A beat's write-back, as the module presents it.
#[derive(Clone, Debug, PartialEq)]
struct Written {
    slot: u32,
    beat: u32,
    row: u32,
    rvalid: bool,
    lanes: u32,
    /// The writing lanes' data (the others' is undefined, and all of it when the beat
    /// writes no register).
    data: Vec<Option<u32>>,
    last: bool,
    entry_valid: bool,
    entry: u32,
}

/// The module's state, register by register (sgpu_lane_serial, the unit's stages and its
/// result register), stepped a cycle at a time.
struct Model {
    cfg: Config,
    count: u32,
    issued: Option<Issue>,              // the issue register (t + 1)
    v: [bool; 4],                       // t + 2 to t + 5
    entries: Vec<Option<(Issue, u32)>>, // the entry's beat and its writing lanes
    results: Vec<Vec<u32>>,
    alloc: u32,
    opnd: u32,
    send: u32,
    started: bool,
    todo: u32,
    /// The lanes on their way (entry, lane, last): picked, at the unit's inputs, then
    /// through its stages; the front's result is written this cycle.
    flight: VecDeque<Option<(u32, u32, bool)>>,
    wb: u32,
    whole: Vec<bool>,
    /// Lanes sent, and cycles with a lane sent, for the report.
    lanes_sent: usize,
}

impl Model {
    fn new(cfg: Config) -> Model {
        let d = cfg.depth as usize;
        Model {
            cfg,
            count: 0,
            issued: None,
            v: [false; 4],
            entries: vec![None; d],
            results: vec![vec![0; cfg.lanes as usize]; d],
            alloc: 0,
            opnd: 0,
            send: 0,
            started: false,
            todo: 0,
            flight: vec![None; 2 + cfg.latency()].into(),
            wb: 0,
            whole: vec![false; d],
            lanes_sent: 0,
        }
    }

    fn index(&self, ptr: u32) -> usize {
        (ptr % self.cfg.depth) as usize
    }

    fn room(&self) -> bool {
        self.count + self.cfg.beats() <= self.cfg.depth
    }

    /// The beat the write-back is offered this cycle.
    fn offered(&self) -> Option<Written> {
        let e = self.index(self.wb);
        if !self.whole[e] {
            return None;
        }
        let (issue, writing) = self.entries[e]
            .as_ref()
            .expect("a whole entry holds a beat");
        Some(Written {
            slot: issue.slot,
            beat: issue.beat,
            row: issue.row,
            rvalid: !issue.rz,
            lanes: *writing,
            data: (0..self.cfg.lanes as usize)
                .map(|k| (!issue.rz && writing >> k & 1 != 0).then_some(self.results[e][k]))
                .collect(),
            last: issue.last,
            entry_valid: issue.entry_valid,
            entry: issue.entry,
        })
    }

    /// The clock edge at the end of a cycle with these inputs.
    fn step(&mut self, issue: Option<Issue>, preds: &[u8], ready: bool) {
        let retire = self.whole[self.index(self.wb)] && ready;
        // A lane of the entry whose turn it is goes to the ALU.
        let have = self.send != self.opnd;
        let e = self.index(self.send);
        let mut sent = None;
        if have {
            let writing = self.entries[e].as_ref().expect("an entry with operands").1;
            let todo = if self.started { self.todo } else { writing };
            let pick = todo & todo.wrapping_neg();
            let rest = todo & !pick;
            if todo == 0 {
                self.whole[e] = true;
            } else {
                sent = Some((e as u32, pick.trailing_zeros(), rest == 0));
                self.lanes_sent += 1;
            }
            if rest == 0 {
                self.send += 1;
            }
            self.started = rest != 0;
            self.todo = rest;
        }
        // The lane back from the ALU writes its result.
        if let Some((e, lane, last)) = self.flight.pop_front().flatten() {
            let (issue, _) = self.entries[e as usize].as_ref().expect("its beat");
            self.results[e as usize][lane as usize] = issue.results[lane as usize];
            if last {
                self.whole[e as usize] = true;
            }
        }
        if retire {
            let w = self.index(self.wb);
            self.whole[w] = false;
            self.wb += 1;
        }
        self.flight.push_back(sent);
        // Operands at t + 5 (the model's entry holds them already), the entry at t + 1.
        if self.v[3] {
            self.opnd += 1;
        }
        let had = self.issued.is_some();
        if let Some(mut i) = self.issued.take() {
            i.preds = preds.to_vec();
            let writing = i.writing();
            let a = self.index(self.alloc);
            self.entries[a] = Some((i, writing));
            self.alloc += 1;
        }
        self.v = [had, self.v[0], self.v[1], self.v[2]];
        self.count = self.count + u32::from(issue.is_some()) - u32::from(retire);
        self.issued = issue;
    }
}

/// A random instruction's beats: one of the unit's opcodes with random fields and guard,
/// its active lanes (often all, sometimes none or one), each lane's predicate byte,
/// operands and the model's result.
fn instruction(rng: &mut Rng, cfg: Config, ops: &[(&str, u8, u64)]) -> Vec<Issue> {
    let (_, op, used) = ops[rng.below(ops.len() as u32) as usize];
    // The model's evaluation is the lane's, guarded by PT: the guard is the unit's to check.
    let (mut word, insn) = int_cases::word(rng, op, used);
    // A guard: PT half the time, else a random predicate, negated or not.
    if rng.below(2) == 0 {
        let pg = u64::from(rng.below(7));
        word = word & !fields::PG.mask() & !fields::PGN.mask()
            | pg << fields::PG.lsb
            | u64::from(rng.below(2)) << fields::PGN.lsb;
    }
    let rd = Reg(field(word, fields::RD) as u8);
    let (slot, row) = (rng.below(1 << SW), rng.below(1 << RW));
    let (entry_valid, entry) = (rng.below(4) != 0, rng.below(1 << EW));
    let mask = match rng.below(8) {
        0 => 0,
        1 => 1 << rng.below(32),
        2..=4 => u32::MAX,
        _ => rng.word() as u32,
    };
    (0..cfg.beats())
        .map(|beat| {
            let lanes = mask >> (beat * cfg.lanes) & cfg.all();
            let mut operands = Vec::new();
            let mut results = Vec::new();
            for _ in 0..cfg.lanes {
                let o = int_cases::operands(rng, word);
                let out = evaluate(insn, &o.regs, &[], false)
                    .unwrap_or_else(|| panic!("the model cannot evaluate {insn}"));
                let d = out
                    .regs
                    .iter()
                    .find(|(r, _)| *r == rd)
                    .map_or(0, |&(_, v)| v);
                operands.push([o.a, o.b, o.c]);
                results.push(d);
            }
            Issue {
                slot,
                beat,
                word,
                lanes,
                row,
                rz: rd == Reg::RZ,
                last: beat + 1 == cfg.beats(),
                entry_valid,
                entry,
                preds: (0..cfg.lanes).map(|_| rng.word() as u8).collect(),
                operands,
                results,
            }
        })
        .collect()
}

/// A run's input lines, what each cycle must print, and counts for the report.
struct Traffic {
    input: String,
    expect: Vec<(bool, Option<Written>)>,
    beats: usize,
    retired: usize,
    lanes_sent: usize,
    full_cycles: usize,
}

fn traffic(cfg: Config, cycles: usize, rng: &mut Rng) -> Traffic {
    let ops = cfg.ops();
    let mut model = Model::new(cfg);
    // Each cycle's predicate row and operands as the issue scheduled them (random where
    // none was: the unit must ignore those).
    let late = cycles + 8;
    let mut preds: Vec<Option<Vec<u8>>> = vec![None; late];
    let mut operands: Vec<Option<Vec<[u32; 3]>>> = vec![None; late];
    let mut beats: VecDeque<Issue> = VecDeque::new();
    let mut t = Traffic {
        input: String::new(),
        expect: Vec::new(),
        beats: 0,
        retired: 0,
        lanes_sent: 0,
        full_cycles: 0,
    };
    let mut stall = 0; // cycles the write-back still refuses
    for cycle in 0..cycles {
        // Busy phases (an instruction whenever there is room) and quiet ones.
        let busy = cycle % 3000 < 2000;
        let room = model.room();
        t.full_cycles += usize::from(!room);
        if beats.is_empty() && room && rng.below(10) < if busy { 9 } else { 1 } {
            beats.extend(instruction(rng, cfg, &ops));
        }
        let issue = beats.pop_front();
        if let Some(i) = &issue {
            preds[cycle + 1] = Some(i.preds.clone());
            operands[cycle + 5] = Some(i.operands.clone());
            t.beats += 1;
        }
        if stall > 0 {
            stall -= 1;
        } else if rng.below(200) == 0 {
            stall = rng.below(60);
        }
        let ready = stall == 0 && rng.below(10) < 7;
        let offered = model.offered();
        t.retired += usize::from(offered.is_some() && ready);
        t.expect.push((room, offered));

        let row = preds[cycle]
            .take()
            .unwrap_or_else(|| (0..cfg.lanes).map(|_| rng.word() as u8).collect());
        let opnds = operands[cycle].take().unwrap_or_else(|| {
            (0..cfg.lanes)
                .map(|_| [0; 3].map(|_| rng.word() as u32))
                .collect()
        });
        t.input += &line(issue.as_ref(), &row, &opnds, ready);
        model.step(issue, &row, ready);
    }
    t.lanes_sent = model.lanes_sent;
    t
}

/// A cycle's input line.
fn line(issue: Option<&Issue>, row: &[u8], opnds: &[[u32; 3]], ready: bool) -> String {
    let mut s = match issue {
        Some(i) => format!(
            "1 {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x}",
            i.slot,
            i.beat,
            i.word,
            i.lanes,
            i.row,
            u8::from(i.rz),
            u8::from(i.last),
            u8::from(i.entry_valid),
            i.entry
        ),
        None => "0 0 0 0 0 0 0 0 0 0".into(),
    };
    let mut bits = Bits::default();
    for (k, &b) in row.iter().enumerate() {
        bits.put(8 * k as u32, 8, u64::from(b));
    }
    s += &format!(" {}", bits.hex());
    for which in 0..3 {
        let mut bits = Bits::default();
        for (k, o) in opnds.iter().enumerate() {
            bits.put(32 * k as u32, 32, u64::from(o[which]));
        }
        s += &format!(" {}", bits.hex());
    }
    s + &format!(" {}\n", u8::from(ready))
}

/// What differs between a cycle's printed outputs `f` and what the reference expects.
fn differences(cfg: Config, f: &[&str], room: bool, want: &Option<Written>) -> Vec<String> {
    let v: Vec<u64> = f
        .iter()
        .enumerate()
        .map(|(k, s)| {
            if k == 7 {
                0
            } else {
                u64::from_str_radix(s, 16).expect("hex")
            }
        })
        .collect();
    let mut out = Vec::new();
    if (v[0] == 1) != room {
        out.push(format!("room_o {}, want {}", v[0], u8::from(room)));
    }
    match want {
        None if v[1] == 1 => out.push("a write-back from nowhere".into()),
        None => {}
        Some(w) => {
            let data = lanes_of(f[7], cfg.lanes);
            let got = Written {
                slot: v[2] as u32,
                beat: v[3] as u32,
                row: v[4] as u32,
                rvalid: v[5] == 1,
                lanes: v[6] as u32,
                data: (0..cfg.lanes as usize)
                    .map(|k| (v[5] == 1 && v[6] >> k & 1 != 0).then_some(data[k]))
                    .collect(),
                last: v[8] == 1,
                entry_valid: v[9] == 1,
                entry: v[10] as u32,
            };
            if v[1] != 1 {
                out.push(format!("no write-back, want {w:x?}"));
            } else if got != *w {
                out.push(format!("write-back {got:x?}, want {w:x?}"));
            }
        }
    }
    out
}

fn params(cfg: Config) -> [(&'static str, u32); 6] {
    [
        ("KIND", cfg.kind as u32),
        ("LANES", cfg.lanes),
        ("WARPS", 1 << SW),
        ("ENTRIES", 1 << EW),
        ("REGS_PER_LANE", cfg.beats() << RW),
        ("DEPTH", cfg.depth),
    ]
}

fn check_on(exe: &std::path::Path, cfg: Config, cycles: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let t = traffic(cfg, cycles, &mut rng);
    let lines = run(exe, &t.input);
    let mut mismatches = Vec::new();
    for (cycle, line) in lines.iter().enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        let (room, want) = &t.expect[cycle];
        let wrong = differences(cfg, &f, *room, want);
        if !wrong.is_empty() {
            mismatches.push(format!("cycle {cycle}: {}", wrong.join("; ")));
        }
    }
    common::assert_cycles_agree(&cfg, &mismatches);
    // The run said something: most beats came back, the queue filled, the unit was busy.
    assert!(
        t.retired + cfg.depth as usize >= t.beats,
        "{cfg:?}: beats lost"
    );
    assert!(t.full_cycles > 0, "{cfg:?}: the queue never filled");
    assert!(t.lanes_sent > cycles / 4, "{cfg:?}: the unit was idle");
    println!(
        "{cfg:?}: {cycles} cycles, {} beats issued, {} written back, {} lanes computed, \
         {} cycles without room",
        t.beats, t.retired, t.lanes_sent, t.full_cycles
    );
}

fn check(configs: &[(Kind, u32, u32)], seed: u64) {
    let cycles = count_from_env("RTL_TEST_CYCLES", 20_000) as usize;
    for (k, &(kind, lanes, depth)) in configs.iter().enumerate() {
        let cfg = Config { kind, lanes, depth };
        let exe = testbench_with("sgpu_shared_unit", &RTL, TESTBENCH, &params(cfg));
        check_on(&exe, cfg, cycles, seed ^ k as u64);
    }
}

#[test]
fn the_integer_units_beats_come_back_in_order_with_the_models_results() {
    let int = Kind::Int;
    let configs = [
        (int, 8, 16),
        (int, 8, 4),
        (int, 1, 64),
        (int, 16, 16),
        (int, 32, 2),
    ];
    check(&configs, 0x5be0_cd19_137e_2179);
}

#[test]
fn the_video_units_beats_come_back_in_order_with_the_models_results() {
    check(
        &[(Kind::Video, 8, 16), (Kind::Video, 32, 2)],
        0x1f83_d9ab_fb41_bd6b,
    );
}

/// The queue's memories are distributed RAM read as they are written, which yosys must read
/// as Verilator does, and the units' arithmetic must mean the same to both: the same traffic
/// on yosys 0.23's gate-level netlists (hw/synth/netlist.sh, its memories kept as memories)
/// of both kinds at 8 lanes.
#[test]
fn its_gate_level_netlist_does_the_same() {
    for (k, kind) in [Kind::Int, Kind::Video].into_iter().enumerate() {
        let cfg = Config {
            kind,
            lanes: 8,
            depth: 16,
        };
        let exe = common::netlist_testbench("sgpu_shared_unit", &RTL, TESTBENCH, &params(cfg));
        check_on(&exe, cfg, 5_000, 0x5be0_cd19_137e_2179 ^ k as u64);
    }
}
