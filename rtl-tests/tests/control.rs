//! `hw/sgpu_control.sv`, core v2's control unit, built with Verilator and driven cycle by
//! cycle as the core drives it, against the golden model itself: random walks of four warps
//! through control instructions (divergent and uniform branches, SSY, calls, indirect calls
//! to one or several targets, returns, exits, barriers and BARRED, WARPSYNC with register
//! and immediate masks, NOP, MEMBAR, TRAP), with random guards, partial active masks,
//! exited lanes, frames near the end of local memory. Each instruction's beats issue when
//! `room_o` says so, its predicate row a cycle later and its operands five cycles later
//! (random values on those inputs in the other cycles, which the unit must ignore); the
//! table takes outcomes and the write-back takes beats when it will; a return's lanes come
//! back from the "table" as the stack says them, barriers release their BARRED warps at
//! random.
//!
//! For each instruction the model's `exec::step` runs on the warp, and the unit's outcome,
//! applied to a copy of the warp as the stack applies it (`Warp::branch`, `call`, `ret`,
//! `exit`, `advance`), must leave the same reconvergence stack, SSY point and exited lanes;
//! its barrier arrival must be the model's; a trap the model raises must be the unit's (or,
//! for stack faults, the stack's once it takes the outcome; a frame overflow the table's
//! once the stack has taken the call); the frame starts it writes must be the model's, and
//! a BARRED's result the model's `write_result`. A run ends at its first trapping
//! instruction (the core stops there). 1, 8 and 32 lanes. `RTL_TEST_CASES=N` runs N
//! instructions a configuration (3,000 by default). Verilator (5.006 or later) must be
//! installed; without it the test fails and says so.

mod common;

use common::{count_from_env, run, testbench_with, twin, Bits, Rng};
use rtl_tests::cosim::trap_code;
use sgpu_isa::{Bmode, Bred, Instruction, Level, Op, Pred, PredSrc, Reg, RegOrImm};
use sgpu_sim::barrier::Arrival;
use sgpu_sim::exec::{step, Ctx};
use sgpu_sim::memory::Global;
use sgpu_sim::program::{decode_all, Program};
use sgpu_sim::record::Retired;
use sgpu_sim::surface::Surfaces;
use sgpu_sim::trap::Cause;
use sgpu_sim::warp::{lanes, Entry, Reduction, Warp, LANES};
use std::collections::VecDeque;

const RTL: [&str; 4] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_pipe.sv",
    "hw/sgpu_control.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/control_tb.cpp";

const WARPS: u32 = 4;
const REGS: u32 = 256; // REGS_PER_LANE
const CODE: u32 = 32; // the words of code the pcs and targets stay in

#[derive(Clone, Copy, Debug)]
struct Config {
    lanes: u32,
}

impl Config {
    fn beats(self) -> u32 {
        32 / self.lanes
    }
    fn rw(self) -> u32 {
        common::index_bits(REGS / self.beats())
    }
    /// Beat `b`'s lanes of a warp mask.
    fn part(self, mask: u32, b: u32) -> u32 {
        let bits = if self.lanes == 32 {
            u32::MAX
        } else {
            (1 << self.lanes) - 1
        };
        mask >> (b * self.lanes) & bits
    }
}

/// One cycle's inputs, in the testbench's order.
#[derive(Clone, Default)]
struct In {
    local_size: u32,
    start: Option<(u32, u32)>, // warp, lanes
    issue: Option<Issue>,
    pred_row: Vec<u8>,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    ctl_ready: bool,
    ret: Option<(u32, u32, u32)>,  // warp, lanes, frame
    rel: Option<(u32, Bred, u32)>, // warps, operation, value
    wb_ready: bool,
}

#[derive(Clone, Copy, Default)]
struct Issue {
    slot: u32,
    beat: u32,
    pass: u32,
    last: bool,
    word: u64,
    pc: u32,
    lanes: u32,
    row: u32,
    entry: Option<u32>,
}

impl In {
    fn noise(cfg: Config, rng: &mut Rng, cycle: usize) -> In {
        let n = cfg.lanes as usize;
        In {
            pred_row: (0..n).map(|_| rng.word() as u8).collect(),
            a: (0..n).map(|_| rng.word() as u32).collect(),
            b: (0..n).map(|_| rng.word() as u32).collect(),
            c: (0..n).map(|_| rng.word() as u32).collect(),
            // Each taken at least every fourth cycle, so the schedule's gaps hold.
            ctl_ready: cycle.is_multiple_of(4) || rng.below(2) == 0,
            wb_ready: cycle % 4 == 2 || rng.below(2) == 0,
            ..In::default()
        }
    }

    fn line(&self) -> String {
        let wide = |v: &[u32]| {
            let mut b = Bits::default();
            for (k, &x) in v.iter().enumerate() {
                b.put(32 * k as u32, 32, u64::from(x));
            }
            b.hex()
        };
        let mut row = Bits::default();
        for (k, &x) in self.pred_row.iter().enumerate() {
            row.put(8 * k as u32, 8, u64::from(x));
        }
        let i = self.issue.unwrap_or_default();
        let (start, start_warp, start_lanes) = self.start.map_or((0, 0, 0), |(w, l)| (1, w, l));
        let (ret, ret_warp, ret_lanes, ret_frame) =
            self.ret.map_or((0, 0, 0, 0), |(w, l, f)| (1, w, l, f));
        let (rel, rel_warps, rel_bred, rel_value) = self
            .rel
            .map_or((0, 0, 0, 0), |(w, op, v)| (1, w, op as u32, v));
        let fields: Vec<String> = vec![
            format!("{:x}", self.local_size),
            format!("{start:x}"),
            format!("{start_warp:x}"),
            format!("{start_lanes:x}"),
            format!("{:x}", u32::from(self.issue.is_some())),
            format!("{:x}", i.slot),
            format!("{:x}", i.beat),
            format!("{:x}", i.pass),
            format!("{:x}", u32::from(i.last)),
            format!("{:x}", i.word),
            format!("{:x}", i.pc),
            format!("{:x}", i.lanes),
            format!("{:x}", i.row),
            format!("{:x}", u32::from(i.entry.is_some())),
            format!("{:x}", i.entry.unwrap_or(0)),
            row.hex(),
            wide(&self.a),
            wide(&self.b),
            wide(&self.c),
            format!("{:x}", u32::from(self.ctl_ready)),
            format!("{ret:x}"),
            format!("{ret_warp:x}"),
            format!("{ret_lanes:x}"),
            format!("{ret_frame:x}"),
            format!("{rel:x}"),
            format!("{rel_warps:x}"),
            format!("{rel:x}"), // a released BARRED's barrier always reduces
            format!("{rel_bred:x}"),
            format!("{rel_value:x}"),
            format!("{:x}", u32::from(self.wb_ready)),
        ];
        fields.join(" ")
    }
}

/// An outcome as the unit offers it.
#[derive(Debug)]
struct Outcome {
    warp: u32,
    kind: u32,
    next: u32,
    target: u32,
    mask: u32,
    waiting: u32,
    frame: u32,
    bar: bool,
    id: u32,
    counted: bool,
    threads: u32,
    waits: bool,
    red: bool,
    bred: u32,
    set: u32,
    trap: u32,
    frame_fault: bool,
}

/// A write-back beat.
#[derive(Clone, Debug, Default)]
struct Beat {
    slot: u32,
    beat: u32,
    rvalid: bool,
    row: u32,
    lanes: u32,
    data: Vec<u32>,
    pvalid: bool,
    pold: Vec<u8>,
    pmask: u8,
    pbits: Vec<u8>,
    last: bool,
    entry: Option<u32>,
}

impl Beat {
    /// Whether `got` is this expected beat: the fields a write uses, in its lanes.
    fn matches(&self, got: &Beat) -> bool {
        let same_lanes =
            |a: &[u32], b: &[u32]| (0..a.len()).all(|k| self.lanes >> k & 1 == 0 || a[k] == b[k]);
        let writes = self.lanes != 0;
        self.slot == got.slot
            && self.beat == got.beat
            && self.lanes == got.lanes
            && self.last == got.last
            && self.entry == got.entry
            && (!writes || self.rvalid == got.rvalid && self.pvalid == got.pvalid)
            && (!(writes && self.rvalid)
                || self.row == got.row && same_lanes(&self.data, &got.data))
            && (!(writes && self.pvalid)
                || self.pmask == got.pmask
                    && self.pold == got.pold
                    && (0..self.pbits.len()).all(|k| {
                        self.lanes >> k & 1 == 0
                            || self.pbits[k] & self.pmask == got.pbits[k] & self.pmask
                    }))
    }
}

/// What a cycle's outputs say.
struct Out {
    room: bool,
    outcome: Option<Outcome>,
    beat: Option<Beat>,
}

fn parse(cfg: Config, line: &str) -> Out {
    let v: Vec<&str> = line.split(' ').collect();
    let n = |i: usize| u64::from_str_radix(v[i], 16).expect("hexadecimal") as u32;
    let lanes = cfg.lanes as usize;
    let words = |i: usize| {
        let b = Bits::parse(v[i]);
        (0..lanes)
            .map(|k| b.get(32 * k as u32, 32) as u32)
            .collect::<Vec<_>>()
    };
    let bytes = |i: usize| {
        let b = Bits::parse(v[i]);
        (0..lanes)
            .map(|k| b.get(8 * k as u32, 8) as u8)
            .collect::<Vec<_>>()
    };
    Out {
        room: n(0) == 1,
        outcome: (n(1) == 1).then(|| Outcome {
            warp: n(2),
            kind: n(3),
            next: n(4),
            target: n(5),
            mask: n(6),
            waiting: n(7),
            frame: n(8),
            bar: n(9) == 1,
            id: n(10),
            counted: n(11) == 1,
            threads: n(12),
            waits: n(13) == 1,
            red: n(14) == 1,
            bred: n(15),
            set: n(16),
            trap: n(17),
            frame_fault: n(18) == 1,
        }),
        beat: (n(19) == 1).then(|| Beat {
            slot: n(20),
            beat: n(21),
            rvalid: n(22) == 1,
            row: n(23),
            lanes: n(24),
            data: words(25),
            pvalid: n(26) == 1,
            pold: bytes(27),
            pmask: n(28) as u8,
            pbits: bytes(29),
            last: n(30) == 1,
            entry: (n(31) == 1).then(|| n(32)),
        }),
    }
}

/// A thread's predicate byte (P0 to P6, the carry in bit 7).
fn pred_byte(w: &Warp, l: usize) -> u8 {
    let p = (0..7).fold(0, |b, i| b | ((w.preds[i] >> l & 1) as u8) << i);
    p | ((w.carry >> l & 1) as u8) << 7
}

/// One instruction as issued, and what the model made of it.
struct Case {
    slot: u32,
    insn: Instruction,
    pc: u32,
    before: Warp,
    after: Warp,
    result: Result<Option<Arrival>, Cause>,
}

impl Case {
    fn exec(&self) -> u32 {
        self.before.active() & self.before.ps(self.insn.guard)
    }
}

/// The unit's outcome applied to the warp as the table's stack applies it (its frame check
/// left to the unit: local memory unbounded).
fn apply(case: &Case, o: &Outcome) -> Result<Warp, Cause> {
    let mut w = twin(&case.before);
    w.local_size = usize::MAX;
    let next = case.pc + 1;
    let target = o.target / 8;
    match o.kind {
        0 => w.advance(next),
        1 => {
            w.pending_rpc = Some(target);
            w.advance(next);
        }
        2 => w.branch(next, target, o.mask)?,
        3 => w.exit(o.mask, next),
        4 => w.call(o.mask, o.waiting, next, target, o.frame)?,
        5 => w.ret(o.mask, next)?,
        k => panic!("no stack operation {k}"),
    }
    Ok(w)
}

/// Whether the outcome does to the warp what the model's step did.
fn check_outcome(case: &Case, o: &Outcome) -> Result<(), String> {
    if o.warp != case.slot || o.next != (case.pc + 1) * 8 {
        return Err(format!("warp {} next {:#x}", o.warp, o.next));
    }
    match &case.result {
        Err(cause) => {
            let code = trap_code(cause).expect("a core's cause") as u32;
            let ok = match cause {
                Cause::TrapInstruction | Cause::SyncMembers { .. } | Cause::CallTarget { .. } => {
                    o.trap == code
                }
                Cause::FrameOverflow { .. } => {
                    o.trap == 0 && o.frame_fault && apply(case, o).is_ok()
                }
                Cause::StackOverflow | Cause::RetOutsideCall => {
                    o.trap == 0 && apply(case, o).err().as_ref() == Some(cause)
                }
                _ => false,
            };
            if !ok {
                return Err(format!("the model traps with {cause:?}"));
            }
        }
        Ok(arrival) => {
            if o.trap != 0 || o.frame_fault {
                return Err("a trap the model does not raise".into());
            }
            let w = apply(case, o).map_err(|c| format!("the stack faults: {c:?}"))?;
            if w.stack != case.after.stack
                || w.pending_rpc != case.after.pending_rpc
                || w.exited != case.after.exited
            {
                return Err(format!(
                    "its stack {:x?} (SSY {:?}, exited {:#x}), the model's {:x?} ({:?}, {:#x})",
                    w.stack,
                    w.pending_rpc,
                    w.exited,
                    case.after.stack,
                    case.after.pending_rpc,
                    case.after.exited
                ));
            }
            let got = o.bar.then(|| {
                let threads = o.counted.then_some(o.threads);
                let red = o.red.then_some((o.bred, o.mask, o.set));
                (o.id, threads, o.waits, red, o.mask)
            });
            let want = arrival.as_ref().map(|a| {
                let red = a.reduction.map(|(r, set)| (r.op as u32, r.mask, set));
                (a.id, a.threads, a.waits, red, case.exec())
            });
            if got != want {
                return Err(format!("arrival {got:x?}, the model's {want:x?}"));
            }
        }
    }
    Ok(())
}

/// A warp at its barrier after a BARRED: its reduction, the predicate rows it issued with,
/// the row and scoreboard entry of its result, and the cycle from which it may be released
/// (its outcome taken).
#[derive(Clone)]
struct Waiting {
    r: Reduction,
    rows: Vec<u8>,
    row: u32,
    entry: Option<u32>,
    from: usize,
}

/// The walk's state: the warps, the cases, the inputs and the beats expected.
struct Walk {
    cfg: Config,
    rng: Rng,
    inputs: Vec<In>,
    local_size: u32,
    warps: Vec<Warp>,
    /// When each warp may issue again (its writes done), and whether it waits at a barrier
    /// with its BARRED's reduction and the predicate rows it issued with.
    ready_at: Vec<usize>,
    waiting: Vec<Option<Waiting>>,
    cases: Vec<Case>,
    beats: Vec<VecDeque<Beat>>, // per warp slot, in order
    program: Program,
}

impl Walk {
    fn at(&mut self, t: usize) -> &mut In {
        while self.inputs.len() <= t {
            let c = self.inputs.len();
            let mut i = In::noise(self.cfg, &mut self.rng, c);
            i.local_size = self.local_size;
            self.inputs.push(i);
        }
        &mut self.inputs[t]
    }

    /// A new warp in `slot`, started at cycle `t`.
    fn start(&mut self, slot: u32, t: usize) {
        let rng = &mut self.rng;
        let count = if rng.below(2) == 0 {
            32
        } else {
            1 + rng.below(32)
        };
        let mut w = Warp::new(
            slot,
            rng.below(CODE),
            [[0; 3]; LANES],
            count,
            self.local_size as usize,
        );
        if rng.below(4) == 0 {
            w.exited = w.lanes & rng.word() as u32 & !1;
            w.stack[0].mask = w.lanes & !w.exited;
        }
        // Frames in the first half of local memory, or for a warp in eight at or near its
        // end.
        let near = rng.below(8) == 0;
        for l in 0..LANES {
            w.frame[l] = if near {
                self.local_size.saturating_sub(rng.below(64))
            } else {
                rng.below(self.local_size / 2 + 1) & !7
            };
        }
        let live = w.lanes & !w.exited;
        self.at(t).start = Some((slot, live));
        self.warps[slot as usize] = w;
        self.ready_at[slot as usize] = t + 2;
    }

    fn frame_size(&mut self) -> u32 {
        match self.rng.below(20) {
            0 => self.local_size,
            1 => self.rng.below(1 << 20),
            2..=5 => self.rng.below(self.local_size / 4 + 1),
            6..=9 => 0,
            _ => 8 * self.rng.below(8),
        }
    }

    /// A random control instruction for warp `slot`, its registers set in the warp.
    fn instruction(&mut self, slot: u32) -> Instruction {
        let s = slot as usize;
        let pc = self.warps[s].pc().expect("a running warp");
        let rng = &mut self.rng;
        let w = &mut self.warps[s];
        for p in &mut w.preds {
            *p = rng.word() as u32;
        }
        w.carry = rng.word() as u32;
        let guard = if rng.below(3) == 0 {
            PredSrc {
                pred: Pred(rng.below(7) as u8),
                negated: rng.below(2) == 0,
            }
        } else {
            PredSrc::ALWAYS
        };
        let exec = w.active() & w.ps(guard);
        let live = w.lanes & !w.exited;
        let rel = |rng: &mut Rng| ((rng.below(CODE) as i32) - (pc as i32 + 1)) * 8;
        let in_call = w.stack.iter().any(|e| e.call.is_some());
        let op = match rng.below(100) {
            0..=19 => Op::Bra {
                target: rel(rng),
                uni: rng.below(2) == 0,
            },
            20..=27 => Op::Ssy { target: rel(rng) },
            28..=37 => {
                let frame = self.frame_size();
                Op::Call {
                    target: rel(&mut self.rng),
                    frame,
                }
            }
            38..=45 => {
                // One to three targets among the lanes; now and then one that is no
                // instruction's (misaligned, or past 2^35).
                let targets: Vec<u64> = (0..3)
                    .map(|_| match self.rng.below(40) {
                        0 => 8 * u64::from(self.rng.below(CODE)) + 4,
                        1 => 1 << (35 + self.rng.below(20)),
                        _ => 8 * u64::from(self.rng.below(CODE)),
                    })
                    .collect();
                let spread = 1 + self.rng.below(3) as usize;
                let w = &mut self.warps[s];
                for l in 0..LANES {
                    let t = targets[self.rng.below(spread as u32) as usize];
                    w.w64(Reg(0), l, t);
                }
                let rframe = self.frame_size();
                Op::Callr { ra: Reg(0), rframe }
            }
            46..=55 if in_call || rng.below(10) == 0 => Op::Ret,
            46..=62 => Op::Exit,
            63..=72 => {
                let rb = if rng.below(2) == 0 {
                    RegOrImm::Imm(if rng.below(8) == 0 {
                        rng.word() as u8
                    } else {
                        rng.below(16) as u8
                    })
                } else {
                    RegOrImm::Reg(Reg(2))
                };
                let rc = if rng.below(2) == 0 { Reg::RZ } else { Reg(3) };
                for l in 0..LANES {
                    w.w(
                        Reg(2),
                        l,
                        if rng.below(8) == 0 {
                            rng.word() as u32
                        } else {
                            rng.below(16)
                        },
                    );
                    w.w(
                        Reg(3),
                        l,
                        32 * rng.below(8) + if rng.below(8) == 0 { 1 } else { 0 },
                    );
                }
                if rng.below(2) == 0 {
                    Op::Bar {
                        rb,
                        rc,
                        bmode: if rng.below(2) == 0 {
                            Bmode::Sync
                        } else {
                            Bmode::Arrive
                        },
                    }
                } else {
                    Op::Barred {
                        rd: if rng.below(6) == 0 {
                            Reg::RZ
                        } else {
                            Reg(4 + rng.below(6) as u8)
                        },
                        pd: Pred(rng.below(8) as u8),
                        rb,
                        rc,
                        pc: PredSrc {
                            pred: Pred(rng.below(8) as u8),
                            negated: rng.below(2) == 0,
                        },
                        bred: [Bred::Popc, Bred::And, Bred::Or][rng.below(3) as usize],
                    }
                }
            }
            73..=84 => {
                // Members: the executing lanes, with non-live lanes or not (holds), or any.
                let member = |rng: &mut Rng| match rng.below(8) {
                    0 => rng.word() as u32,
                    1..=4 => exec | (rng.word() as u32 & !live),
                    _ => exec & rng.word() as u32,
                };
                if rng.below(2) == 0 {
                    for l in 0..LANES {
                        let m = member(rng);
                        w.w(Reg(5), l, m);
                    }
                    Op::Warpsync { ra: Reg(5) }
                } else {
                    Op::Warpsynci { imm32: member(rng) }
                }
            }
            85..=90 => Op::Nop,
            91..=97 => Op::Membar {
                level: [Level::Cta, Level::Gl, Level::Sys][rng.below(3) as usize],
            },
            _ => Op::Trap,
        };
        Instruction { guard, op }
    }

    /// Issues instruction `insn` of warp `slot` from cycle `t`, runs the model on it and
    /// schedules what follows; returns when the unit is free again and whether it trapped.
    fn issue(&mut self, slot: u32, insn: Instruction, t: usize) -> (usize, bool) {
        let cfg = self.cfg;
        let s = slot as usize;
        let before = twin(&self.warps[s]);
        let pc = before.pc().expect("running");
        let word = insn.encode().expect("an encodable instruction");
        // The model on its own program: the word at the pc.
        let mut code = vec![0u64; CODE.max(pc + 1) as usize];
        code[pc as usize] = word;
        self.program.decoded = decode_all(&code);
        self.program.code = code;
        let mut global = Global::default();
        let surfaces = Surfaces::default();
        let mut cx = Ctx {
            program: &self.program,
            memory: &mut global,
            surfaces: &surfaces,
            ntid: [128, 1, 1],
            ctaid: [0; 3],
            nctaid: [1; 3],
            warps_per_cta: WARPS,
            smem: [0, 0],
            clock: 0,
            faulting_lane: None,
        };
        let result = step(&mut self.warps[s], &mut cx, &mut Retired::default());

        let passes = if matches!(insn.op, Op::Callr { .. }) {
            2
        } else {
            1
        };
        let frames_op = matches!(insn.op, Op::Call { .. } | Op::Callr { .. } | Op::Ret);
        let row = self.rng.below(1 << cfg.rw());
        let entry = (frames_op || matches!(insn.op, Op::Barred { .. }) || self.rng.below(4) == 0)
            .then(|| self.rng.below(4));
        let beats = cfg.beats();
        let rows: Vec<u8> = (0..LANES).map(|l| pred_byte(&before, l)).collect();
        for pass in 0..passes {
            for b in 0..beats {
                let at = t + (pass * beats + b) as usize;
                let lanes_of = |k: u32| (b * cfg.lanes + k) as usize;
                self.at(at).issue = Some(Issue {
                    slot,
                    beat: b,
                    pass,
                    last: pass + 1 == passes && b + 1 == beats,
                    word,
                    pc: pc * 8,
                    lanes: cfg.part(before.active(), b),
                    row,
                    entry,
                });
                self.at(at + 1).pred_row = (0..cfg.lanes).map(|k| rows[lanes_of(k)]).collect();
                let i = self.at(at + 5);
                for k in 0..cfg.lanes {
                    let l = lanes_of(k);
                    let (k, r) = (k as usize, |x: Reg| before.r(x, l));
                    match insn.op {
                        Op::Callr { ra, .. } => {
                            i.a[k] = r(Reg(ra.0 + pass as u8));
                            i.c[k] = before.frame[l];
                        }
                        Op::Call { .. } | Op::Ret => i.c[k] = before.frame[l],
                        Op::Warpsync { ra } => i.a[k] = r(ra),
                        Op::Bar { rb, rc, .. } | Op::Barred { rb, rc, .. } => {
                            i.b[k] = rb.reg().map_or(0, r);
                            i.c[k] = r(rc);
                        }
                        _ => {}
                    }
                }
            }
        }
        let last = t + (passes * beats) as usize - 1;
        let case = Case {
            slot,
            insn,
            pc,
            after: twin(&self.warps[s]),
            before,
            result,
        };
        let exec = case.exec();
        let trapped = case.result.is_err();
        let mut free = last + 30 + 5 * beats as usize + self.rng.below(4) as usize;
        if !trapped {
            // The frames written: the calling lanes' (CALL: every executing one; CALLR: those
            // with the first one's target), the returning lanes', each as the model left it.
            let written = match insn.op {
                Op::Call { .. } => exec,
                Op::Callr { ra, .. } => lanes(exec).next().map_or(0, |first| {
                    let at = case.before.r64(ra, first);
                    lanes(exec)
                        .filter(|&l| case.before.r64(ra, l) == at)
                        .fold(0, |m, l| m | 1 << l)
                }),
                Op::Ret => {
                    let call = case.before.stack.iter().rev().find(|e| e.call.is_some());
                    let Entry { mask, call, .. } = *call.expect("a return inside a call");
                    let (lanes, frame) = (exec & mask, call.unwrap_or(0));
                    self.at(last + 12).ret = Some((slot, lanes, frame));
                    free += 12;
                    lanes
                }
                _ => 0,
            };
            let arrived = matches!(&case.result, Ok(Some(a)) if a.reduction.is_some());
            if arrived {
                let Ok(Some(a)) = &case.result else {
                    unreachable!()
                };
                let (r, _) = a.reduction.expect("a BARRED");
                self.waiting[s] = Some(Waiting {
                    r,
                    rows,
                    row,
                    entry,
                    from: last + 12,
                });
            } else if frames_op || entry.is_some() {
                for b in 0..beats {
                    let lanes = cfg.part(written, b);
                    self.beats[s].push_back(Beat {
                        slot,
                        beat: b,
                        rvalid: frames_op,
                        row,
                        lanes,
                        data: (0..cfg.lanes)
                            .map(|k| case.after.frame[(b * cfg.lanes + k) as usize])
                            .collect(),
                        last: b + 1 == beats,
                        entry,
                        ..Beat::default()
                    });
                }
            }
        }
        self.cases.push(case);
        (free, trapped)
    }

    /// Releases the waiting warps of `warps` at cycle `t`: each BARRED's result into its
    /// warp, as the model's `barrier.rs` writes it.
    fn release(&mut self, warps: u32, t: usize) {
        let cfg = self.cfg;
        let Some(op) = lanes(warps).find_map(|w| self.waiting[w].as_ref().map(|x| x.r.op)) else {
            return;
        };
        let value = match op {
            Bred::Popc => self.rng.below(1025),
            _ => self.rng.below(2),
        };
        let mut released = 0;
        for s in lanes(warps) {
            let Some(Waiting {
                r,
                rows,
                row,
                entry,
                ..
            }) = self.waiting[s].take_if(|x| x.r.op == op && x.from <= t)
            else {
                continue;
            };
            released |= 1 << s;
            let w = &mut self.warps[s];
            match op {
                Bred::Popc => {
                    for l in lanes(r.mask) {
                        w.w(r.rd, l, value);
                    }
                }
                _ => w.set_p(r.pd, r.mask, if value != 0 { u32::MAX } else { 0 }),
            }
            for b in 0..cfg.beats() {
                let k0 = (b * cfg.lanes) as usize;
                let n = cfg.lanes as usize;
                self.beats[s].push_back(Beat {
                    slot: s as u32,
                    beat: b,
                    rvalid: op == Bred::Popc && r.rd != Reg::RZ,
                    row,
                    lanes: cfg.part(r.mask, b),
                    data: vec![value; n],
                    pvalid: op != Bred::Popc && r.pd != Pred::PT,
                    pold: rows[k0..k0 + n].to_vec(),
                    pmask: if r.pd == Pred::PT { 0 } else { 1 << r.pd.0 },
                    pbits: vec![if value != 0 { 0xff } else { 0 }; n],
                    last: b + 1 == cfg.beats(),
                    entry,
                });
            }
            // The warp runs again once its result is written (the scoreboard keeps rd).
            self.ready_at[s] = t + 8 * (cfg.beats() as usize) * WARPS as usize + 40;
        }
        if released != 0 {
            self.at(t).rel = Some((released, op, value));
        }
    }
}

/// A walk of the four warps: `count` instructions, or fewer up to the first that traps.
fn walk(cfg: Config, mut rng: Rng, count: usize) -> Walk {
    let local_size = [0x40, 0x100, 0x1000, 0x4100][rng.below(4) as usize];
    let mut walk = Walk {
        cfg,
        rng,
        inputs: Vec::new(),
        local_size,
        warps: (0..WARPS)
            .map(|s| Warp::new(s, 0, [[0; 3]; LANES], 32, 0))
            .collect(),
        ready_at: vec![0; WARPS as usize],
        waiting: vec![None; WARPS as usize],
        cases: Vec::new(),
        beats: vec![VecDeque::new(); WARPS as usize],
        program: Program::default(),
    };
    for s in 0..WARPS {
        walk.start(s, s as usize);
    }
    let mut t = WARPS as usize + 2;
    while walk.cases.len() < count {
        // Barriers complete now and then, and when every warp waits.
        let waiting: u32 = (0..WARPS as usize)
            .filter(|&s| walk.waiting[s].as_ref().is_some_and(|x| x.from <= t))
            .fold(0, |m, s| m | 1 << s);
        let all = (0..WARPS as usize).all(|s| walk.waiting[s].is_some());
        if waiting != 0 && (all || walk.rng.below(4) == 0) {
            let some = walk.rng.word() as u32 | waiting & waiting.wrapping_neg();
            walk.release(waiting & some, t);
        }
        let ready: Vec<u32> = (0..WARPS)
            .filter(|&s| walk.waiting[s as usize].is_none() && walk.ready_at[s as usize] <= t)
            .collect();
        let Some(&slot) = ready.get(walk.rng.below(ready.len() as u32) as usize) else {
            t += 8;
            continue;
        };
        if walk.warps[slot as usize].pc().is_none() {
            walk.start(slot, t);
            t += 2;
            continue;
        }
        let insn = walk.instruction(slot);
        let (free, trapped) = walk.issue(slot, insn, t);
        t = free;
        if trapped {
            break;
        }
    }
    // The barriers left complete, and the write-back drains.
    let waiting: u32 = (0..WARPS as usize)
        .filter(|&s| walk.waiting[s].is_some())
        .fold(0, |m, s| m | 1 << s);
    for s in lanes(waiting) {
        walk.release(1 << s, t + s);
    }
    walk.at(t + 100 + 10 * (cfg.beats() * WARPS) as usize);
    walk
}

/// What the outcomes and writes taken covered.
#[derive(Debug, Default)]
struct Seen {
    /// Outcomes by stack operation: advance, SSY, branch, exit, call, return.
    kinds: [usize; 8],
    /// CALLRs whose lanes held several targets.
    split: usize,
    /// Beats that wrote some lane.
    writes: usize,
}

/// Every cycle's outputs against the walk: `room_o` at each instruction's first beat, each
/// outcome taken against its instruction's model, each beat taken against its warp's next.
fn check(cfg: Config, walk: &Walk, lines: &[String], seen: &mut Seen) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut next = 0;
    let mut beats = walk.beats.clone();
    for (t, (line, i)) in lines.iter().zip(&walk.inputs).enumerate() {
        let out = parse(cfg, line);
        if i.issue.is_some_and(|i| i.beat == 0 && i.pass == 0) && !out.room {
            wrong.push(format!(
                "cycle {t}: room_o low at an instruction's first beat"
            ));
        }
        if let (Some(o), true) = (&out.outcome, i.ctl_ready) {
            seen.kinds[o.kind as usize % 8] += 1;
            seen.split += usize::from(o.waiting != 0);
            match walk.cases.get(next) {
                Some(c) => {
                    if let Err(e) = check_outcome(c, o) {
                        wrong.push(format!(
                            "cycle {t}: {:?} at pc {} (warp {}, active {:#x}): {e}; outcome {o:x?}",
                            c.insn,
                            c.pc,
                            c.slot,
                            c.before.active()
                        ));
                    }
                }
                None => wrong.push(format!("cycle {t}: an outcome with no instruction")),
            }
            next += 1;
        }
        if let (Some(b), true) = (&out.beat, i.wb_ready) {
            let q = &mut beats[b.slot as usize];
            if q.front().is_some_and(|e| e.matches(b)) {
                seen.writes += usize::from(b.lanes != 0 && (b.rvalid || b.pvalid));
                q.pop_front();
            } else {
                wrong.push(format!("cycle {t}: beat {b:x?}, expected {:x?}", q.front()));
                q.pop_front();
            }
        }
    }
    if next != walk.cases.len() {
        wrong.push(format!(
            "{} outcomes for {} instructions",
            next,
            walk.cases.len()
        ));
    }
    for (s, q) in beats.iter().enumerate() {
        if let Some(b) = q.front() {
            wrong.push(format!(
                "warp {s}: {} beats never written, the first {b:x?}",
                q.len()
            ));
        }
    }
    wrong
}

/// Walks of `RTL_TEST_CASES` instructions in all at `lanes`, every outcome and write
/// checked, and every trap of the unit's met at least once.
fn agree(lanes: u32, seed: u64) {
    let cfg = Config { lanes };
    let exe = testbench_with(
        "sgpu_control",
        &RTL,
        TESTBENCH,
        &[("LANES", lanes), ("WARPS", WARPS), ("REGS_PER_LANE", REGS)],
    );
    let count = count_from_env("RTL_TEST_CASES", 3000) as usize;
    let start = std::time::Instant::now();
    let mut rng = Rng::new(seed);
    let (mut cases, mut cycles, mut released) = (0, 0, 0);
    let mut traps = std::collections::BTreeMap::new();
    let mut wrong = Vec::new();
    let mut seen = Seen::default();
    while cases < count {
        let walk = walk(cfg, Rng::new(rng.word()), (count - cases).min(300));
        let input: String = walk.inputs.iter().map(|i| i.line() + "\n").collect();
        let lines = run(&exe, &input);
        wrong.extend(check(cfg, &walk, &lines, &mut seen));
        cases += walk.cases.len();
        cycles += lines.len();
        released += walk.inputs.iter().filter(|i| i.rel.is_some()).count();
        for c in &walk.cases {
            if let Err(e) = &c.result {
                *traps.entry(trap_code(e).unwrap_or(0)).or_insert(0) += 1;
            }
        }
    }
    println!(
        "sgpu_control at {lanes} lanes: {cases} instructions, {cycles} cycles, {released} \
         releases, traps by code {traps:?}, {seen:?}, in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    common::assert_cycles_agree(&cfg, &wrong);
    for cause in [
        Cause::TrapInstruction,
        Cause::RetOutsideCall,
        Cause::CallTarget { address: 0 },
        Cause::FrameOverflow { lane: 0, frame: 0 },
        Cause::SyncMembers {
            members: 0,
            executing: 0,
        },
    ] {
        let code = trap_code(&cause).expect("a core's cause");
        assert!(traps.contains_key(&code), "no {cause:?} in {traps:?}");
    }
    assert!(released > 0, "no barrier released a BARRED");
    assert!(
        seen.kinds[..6].iter().all(|&n| n > 0) && seen.split > 0 && seen.writes > 0,
        "{seen:?}"
    );
}

#[test]
fn control_instructions_agree_with_the_model_at_8_lanes() {
    agree(8, 1);
}

#[test]
fn control_instructions_agree_with_the_model_at_1_lane() {
    agree(1, 2);
}

#[test]
fn control_instructions_agree_with_the_model_at_32_lanes() {
    agree(32, 3);
}
