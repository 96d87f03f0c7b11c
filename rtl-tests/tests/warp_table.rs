//! `hw/sgpu_warp_table.sv`, core v2's warp table (with its reconvergence stacks and
//! barriers), steering the real front end (`rtl-tests/tb/warp_table_top.sv`), built with
//! Verilator and run in a closed loop (`rtl-tests/tb/warp_table_tb.cpp`: the instruction
//! memory, the launch, the issue and a control unit) on random programs of branches that
//! diverge and loop, SSY points, exits, calls and returns, NOPs and barriers, against the
//! golden model's own `sgpu_sim::warp::Warp` and `sgpu_sim::barrier::Barriers` running the
//! same programs (the oracle). Two CTAs of up to 32 warps, the last warp partial.
//!
//! Checked for every run: each warp's instructions as the RTL issued them (pc and active
//! mask, in order) are the model's; no warp issues past a barrier it waits at before a
//! release names it, and a release names only warps that wait; the run ends as the model's does: every warp exits (each
//! once, its CTA's last flagged), or the RTL's trap is one the model raises (a stack
//! overflow, a return outside a call, a pc outside the code, with its warp and pc; a CTA
//! whose warps all wait at barriers, with its lowest warp), the trapping warp's (or CTA's)
//! instructions being the model's up to there and every other warp's a prefix of its own.
//! And that the runs together exercised every way a run ends.
//!
//! `RTL_TEST_CASES=N` runs N programs a configuration (300 by default). Verilator (5.006 or
//! later) must be installed; without it the test fails and says so.

mod common;

use common::{
    control_and_other_opcodes, count_from_env, hex_values, run_events, testbench_with, Rng,
    FRONTEND_RTL,
};
use rtl_tests::cosim::trap_code;
use sgpu_sim::barrier::{Arrival, Barriers};
use sgpu_sim::warp::{State, Warp};
use sgpu_sim::Cause;
use std::collections::HashMap;

/// Beside the front end's sources.
const RTL: [&str; 4] = [
    "hw/sgpu_simt_stack.sv",
    "hw/sgpu_barriers.sv",
    "hw/sgpu_warp_table.sv",
    "rtl-tests/tb/warp_table_top.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/warp_table_tb.cpp";
/// The testbench's kinds of instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Other,
    Nop,
    Bra,
    Ssy,
    Exit,
    Call,
    Ret,
    Bar,
    /// TRAP, the control unit's own trap when a lane runs it.
    Trap,
}
/// A warp's calls less its returns (those with lanes running), kept in the visits' map at
/// this pc; a CALL of limit 0 at this depth or more overflows its frame.
const CALL_DEPTH: u32 = u32::MAX;
const FRAME_DEPTH: u32 = 60;
/// The model runs a warp at most this many instructions; a program that runs longer is
/// replaced.
const MOST: usize = 4_000;

#[derive(Clone, Copy)]
struct Insn {
    word: u64,
    kind: Kind,
    /// An instruction index (BAR: the barrier).
    target: u32,
    guard: u32,
    taken: u32,
    limit: u32,
}

/// A run's program and launch.
struct Launch {
    program: Vec<Insn>,
    warps: u32,
    cta0: u32,
    last_lanes: u32,
}

fn random_mask(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => u32::MAX,
        1 => 0x0000_ffff << (rng.below(2) * 16),
        _ => rng.word() as u32,
    }
}

/// A random program: mostly plain instructions and branches, with loops (backward branches
/// taken a few times, a different number in each warp), SSY points, calls and returns, barriers 0 and 1, now and then a
/// target past the end; usually an EXIT last.
fn program(rng: &mut Rng, control: &[u8], other: &[u8]) -> Vec<Insn> {
    use Kind::*;
    let n = 4 + rng.below(36);
    (0..n)
        .map(|i| {
            let kind = match rng.below(100) {
                _ if i + 1 == n && rng.below(5) != 0 => Exit,
                0..=44 => Other,
                45..=62 => Bra,
                63..=68 => Ssy,
                69..=73 => Exit,
                74..=80 => Call,
                81..=83 => Ret,
                84..=89 => Nop,
                90 => Trap,
                _ => Bar,
            };
            let ops = if kind == Other { other } else { control };
            let op = ops[rng.below(ops.len() as u32) as usize];
            let target = match kind {
                Bar => u32::from(rng.below(4) == 0),
                _ if rng.below(40) == 0 => n,
                _ => rng.below(n),
            };
            Insn {
                word: rng.word() & !0xff | u64::from(op),
                kind,
                target,
                guard: if rng.below(4) == 0 {
                    random_mask(rng)
                } else {
                    u32::MAX
                },
                taken: random_mask(rng),
                limit: rng.below(5),
            }
        })
        .collect()
}

/// How a warp's run ended in the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum End {
    Exited,
    /// A trap: its code and pc.
    Trap(u64, u32),
    /// Waiting at a barrier when the run stopped.
    Waiting,
}

/// The model's run: each warp's instructions (pc, active mask) and end, and the CTAs that
/// deadlocked.
struct Model {
    traces: Vec<Vec<(u32, u32)>>,
    ends: Vec<End>,
    deadlocked: Vec<usize>,
}

/// Runs the launch on the golden model's warps and barriers, a warp an instruction at a time
/// in turn; a warp that traps stops, the others go on. `None` if a warp runs past `MOST`.
fn model(l: &Launch) -> Option<Model> {
    let w = l.warps as usize;
    let mut ctas: Vec<Vec<Warp>> = [0..l.cta0, l.cta0..l.warps]
        .into_iter()
        .map(|r| {
            r.map(|i| {
                let lanes = if i + 1 == l.warps {
                    l.last_lanes.count_ones()
                } else {
                    32
                };
                Warp::new(i, 0, [[0; 3]; 32], lanes, 0)
            })
            .collect()
        })
        .collect();
    let mut barriers = [Barriers::default(), Barriers::default()];
    let mut traces = vec![Vec::new(); w];
    let mut ends = vec![End::Waiting; w];
    let mut visits: HashMap<(usize, u32), u32> = HashMap::new();
    let slot = |c: usize, i: usize| if c == 0 { i } else { l.cta0 as usize + i };
    loop {
        let mut ran = false;
        for c in 0..2 {
            for i in 0..ctas[c].len() {
                let s = slot(c, i);
                if ctas[c][i].state != State::Running || matches!(ends[s], End::Trap(..)) {
                    continue;
                }
                ran = true;
                if traces[s].len() > MOST {
                    return None;
                }
                if let Err(cause) = step(
                    l,
                    &mut ctas[c],
                    &mut barriers[c],
                    i,
                    s,
                    &mut traces[s],
                    &mut visits,
                ) {
                    let pc = match cause {
                        Cause::PcOutsideCode { pc } => pc,
                        _ => traces[s].last().map_or(0, |t| t.0),
                    };
                    ends[s] = End::Trap(trap_code(&cause).expect("a core's trap"), pc);
                }
            }
        }
        if !ran {
            break;
        }
    }
    let mut deadlocked = Vec::new();
    for c in 0..2 {
        for (i, warp) in ctas[c].iter().enumerate() {
            if warp.state == State::Exited {
                ends[slot(c, i)] = End::Exited;
            }
        }
        let live: Vec<usize> = (0..ctas[c].len())
            .map(|i| slot(c, i))
            .filter(|&s| ends[s] != End::Exited)
            .collect();
        if !live.is_empty() && live.iter().all(|&s| ends[s] == End::Waiting) {
            deadlocked.push(c);
        }
    }
    Some(Model {
        traces,
        ends,
        deadlocked,
    })
}

/// One instruction of warp `i` of a CTA (slot `s`), as the testbench's control unit and
/// the model's `exec::step` and `control::exec` do it.
fn step(
    l: &Launch,
    warps: &mut [Warp],
    barriers: &mut Barriers,
    i: usize,
    s: usize,
    trace: &mut Vec<(u32, u32)>,
    visits: &mut HashMap<(usize, u32), u32>,
) -> Result<(), Cause> {
    let w = &mut warps[i];
    let pc = w.pc().expect("a running warp has a pc");
    let Some(insn) = l.program.get(pc as usize) else {
        return Err(Cause::PcOutsideCode { pc });
    };
    let active = w.active();
    trace.push((pc, active));
    let exec = active & insn.guard;
    let next = pc + 1;
    let mut arrival = None;
    match insn.kind {
        Kind::Other | Kind::Nop => w.advance(next),
        Kind::Bra => {
            let runs = visits.entry((s, pc)).or_default();
            let taken = if *runs < (insn.limit + s as u32) % 5 {
                exec & insn.taken
            } else {
                0
            };
            *runs += 1;
            w.branch(next, insn.target, taken)?;
        }
        Kind::Ssy => {
            w.pending_rpc = Some(insn.target);
            w.advance(next);
        }
        Kind::Exit => w.exit(exec, next),
        // A CALL of limit 1, or of limit 0 in a warp FRAME_DEPTH calls deep, moves a frame
        // past the end of local memory: a fault once the stack has taken the call
        // (`Warp::call` checks the stack first).
        Kind::Call if exec != 0 => {
            let depth = visits.entry((s, CALL_DEPTH)).or_default();
            let overflows = insn.limit == 1 || insn.limit == 0 && *depth >= FRAME_DEPTH;
            *depth += 1;
            w.call(exec, 0, next, insn.target, 0)?;
            if overflows {
                return Err(Cause::FrameOverflow { lane: 0, frame: 0 });
            }
        }
        Kind::Call => w.call(exec, 0, next, insn.target, 0)?,
        Kind::Trap if exec != 0 => return Err(Cause::TrapInstruction),
        Kind::Trap => w.advance(next),
        Kind::Ret => {
            if exec != 0 {
                let depth = visits.entry((s, CALL_DEPTH)).or_default();
                *depth = depth.saturating_sub(1);
            }
            w.ret(exec, next)?;
        }
        Kind::Bar => {
            w.advance(next);
            arrival = (exec != 0).then_some(Arrival {
                id: insn.target,
                threads: None,
                waits: true,
                reduction: None,
            });
        }
    }
    if let Some(a) = arrival {
        barriers.arrive(warps, i, a)?;
    }
    if warps[i].state == State::Exited {
        barriers.recheck(warps);
    }
    Ok(())
}

/// The testbench's input for a run.
fn input(l: &Launch, seed: u64) -> String {
    let mut s = format!(
        "{seed:x} {:x} {:x} {:x} {:x} {:x}\n",
        400_000,
        l.warps,
        l.cta0,
        l.last_lanes,
        l.program.len()
    );
    for i in &l.program {
        s += &format!(
            "{:x} {:x} {:x} {:x} {:x} {:x}\n",
            i.word, i.kind as u32, i.target, i.guard, i.taken, i.limit
        );
    }
    s
}

/// What the testbench printed for a run.
#[derive(Default)]
struct Rtl {
    traces: Vec<Vec<(u32, u32)>>,
    /// The events in order: an instruction popped (warp, pc, mask) or a release (warps).
    events: Vec<Event>,
    /// (warp, its CTA's last) in exit order.
    exits: Vec<(usize, bool)>,
    /// (warp, code, pc).
    trap: Option<(usize, u64, u32)>,
}

#[derive(Clone, Copy)]
enum Event {
    Popped(usize, u32, u32),
    Released(u64),
}

/// The runs of the testbench's output, each up to its "end" line.
fn parse(out: &[String], warps: &[u32]) -> Vec<Rtl> {
    let mut runs = Vec::new();
    let mut r = Rtl {
        traces: vec![Vec::new(); warps[0] as usize],
        ..Rtl::default()
    };
    for line in out {
        let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
        let v = || hex_values(rest);
        match tag {
            "i" => {
                let v = v();
                let (w, pc, mask) = (v[0] as usize, v[1] as u32, v[2] as u32);
                r.traces[w].push((pc, mask));
                r.events.push(Event::Popped(w, pc, mask));
            }
            "l" => r.events.push(Event::Released(v()[0])),
            "x" => r.exits.push((v()[0] as usize, v()[1] == 1)),
            "t" => r.trap = Some((v()[0] as usize, v()[1], v()[2] as u32)),
            "end" => {
                runs.push(std::mem::take(&mut r));
                if let Some(&n) = warps.get(runs.len()) {
                    r.traces = vec![Vec::new(); n as usize];
                }
            }
            _ => panic!("the testbench printed: {line} (after {} runs)", runs.len()),
        }
    }
    runs
}

/// How the runs ended, counted.
#[derive(Default, Debug)]
struct Tally {
    exited: u64,
    traps: HashMap<u64, u64>,
    instructions: u64,
}

/// Checks that no warp issued past a barrier it waits at before a release named it, and
/// that a release names only warps that wait.
fn check_barriers(l: &Launch, r: &Rtl) -> Result<(), String> {
    let mut waiting = vec![false; l.warps as usize];
    for e in &r.events {
        match *e {
            Event::Popped(w, pc, mask) => {
                if waiting[w] {
                    return Err(format!("warp {w} issued {pc} before its barrier's release"));
                }
                let i = &l.program[pc as usize];
                waiting[w] = i.kind == Kind::Bar && mask & i.guard != 0;
            }
            Event::Released(warps) => {
                for (w, wait) in waiting.iter_mut().enumerate() {
                    if warps >> w & 1 == 1 {
                        if !*wait {
                            return Err(format!("a release of warp {w}, which does not wait"));
                        }
                        *wait = false;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks one run; what is wrong, if anything.
fn check(l: &Launch, m: &Model, r: &Rtl, t: &mut Tally) -> Result<(), String> {
    let w = l.warps as usize;
    check_barriers(l, r)?;
    t.instructions += r.traces.iter().map(|x| x.len() as u64).sum::<u64>();
    let cta_of = |s: usize| usize::from(s >= l.cta0 as usize);
    let Some((tw, code, pc)) = r.trap else {
        if m.ends.iter().any(|e| *e != End::Exited) {
            return Err(format!("every warp exited, the model's ends: {:?}", m.ends));
        }
        for s in 0..w {
            if r.traces[s] != m.traces[s] {
                return Err(format!("warp {s}'s instructions differ"));
            }
        }
        let mut seen = vec![false; w];
        for (k, &(s, last)) in r.exits.iter().enumerate() {
            let later = r.exits[k + 1..]
                .iter()
                .any(|&(o, _)| cta_of(o) == cta_of(s));
            if seen[s] || last == later {
                return Err(format!("exits {:?}", r.exits));
            }
            seen[s] = true;
        }
        t.exited += 1;
        return Ok(());
    };
    // The warps whose instructions must be the model's in full.
    let whole: Vec<usize> = if code == trap_code(&Cause::Deadlock).unwrap_or(0) {
        let c = cta_of(tw);
        let live = (0..w).filter(|&s| cta_of(s) == c && m.ends[s] != End::Exited);
        if !m.deadlocked.contains(&c) || live.clone().next() != Some(tw) {
            return Err(format!(
                "a deadlock at warp {tw}: the model's {:?}",
                m.deadlocked
            ));
        }
        (0..w).filter(|&s| cta_of(s) == c).collect()
    } else {
        if m.ends[tw] != End::Trap(code, pc) {
            return Err(format!(
                "trap {code} at {pc} of warp {tw}: the model's {:?}",
                m.ends[tw]
            ));
        }
        vec![tw]
    };
    for s in 0..w {
        let ok = if whole.contains(&s) {
            r.traces[s] == m.traces[s]
        } else {
            m.traces[s].starts_with(&r.traces[s])
        };
        if !ok {
            return Err(format!("warp {s}'s instructions differ"));
        }
    }
    *t.traps.entry(code).or_default() += 1;
    Ok(())
}

#[test]
fn warps_run_their_paths_as_the_model_runs_them() {
    let cases = count_from_env("RTL_TEST_CASES", 300);
    let (control, other) = control_and_other_opcodes();
    for (slots, seed) in [
        (8u32, 0x243f_6a88_85a3_08d3_u64),
        (1, 0x1319_8a2e),
        (32, 0xa409_3822),
    ] {
        let sources: Vec<&str> = FRONTEND_RTL.iter().chain(&RTL).copied().collect();
        let exe = testbench_with("warp_table_top", &sources, TESTBENCH, &[("WARPS", slots)]);
        let mut rng = Rng::new(seed);
        let mut launches = Vec::new();
        while (launches.len() as u64) < cases {
            let warps = 1 + rng.below(slots);
            let l = Launch {
                program: program(&mut rng, &control, &other),
                warps,
                cta0: 1 + rng.below(warps),
                last_lanes: match rng.below(3) {
                    0 => u32::MAX >> rng.below(32),
                    _ => u32::MAX,
                },
            };
            if let Some(m) = model(&l) {
                launches.push((l, m));
            }
        }
        let text: String = launches
            .iter()
            .enumerate()
            .map(|(k, (l, _))| input(l, seed ^ k as u64))
            .collect();
        let out = run_events(&exe, &text);
        let counts: Vec<u32> = launches.iter().map(|(l, _)| l.warps).collect();
        let runs = parse(&out, &counts);
        assert_eq!(
            runs.len(),
            launches.len(),
            "every run ended: {:?}",
            out.last()
        );
        let mut tally = Tally::default();
        for (k, ((l, m), r)) in launches.iter().zip(&runs).enumerate() {
            if let Err(e) = check(l, m, r, &mut tally) {
                panic!("{slots} warp slots, run {k} ({} warps): {e}", l.warps);
            }
        }
        println!("{slots} warp slots, {cases} programs: {tally:?}");
        let traps = |c: &Cause| {
            tally
                .traps
                .get(&trap_code(c).unwrap_or(0))
                .copied()
                .unwrap_or(0)
        };
        assert!(
            tally.exited > cases / 10
                && traps(&Cause::StackOverflow) + traps(&Cause::RetOutsideCall) > 0
                && traps(&Cause::PcOutsideCode { pc: 0 }) > 0
                && traps(&Cause::TrapInstruction) > 0
                && traps(&Cause::FrameOverflow { lane: 0, frame: 0 }) > 0
                && (slots == 1 || traps(&Cause::Deadlock) > 0),
            "too little exercised: {tally:?}"
        );
    }
}
