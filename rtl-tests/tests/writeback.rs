//! `hw/sgpu_writeback.sv`, core v2's write ports, built with Verilator and driven cycle by
//! cycle against a reference written from its definition: the lanes write beats as the
//! issue sends them (an instruction's beats in consecutive cycles, in busy and quiet
//! phases), the sources' beats arrive at random and each is held until taken; every cycle
//! the lanes' beat must be on its bank's port, unchanged, and the source taken the one the
//! round robin picks among those whose bank the lanes leave free, on its bank's port; the
//! done ports, and `starved_o` after a source has waited 16 cycles. With two banks or more
//! no source's beat may wait longer than two cycles a source (the issue never stalls for a
//! write); with one, the starvation signal must come. 8 lanes with 2 and 4 banks, 1, 16 and
//! 32 lanes, 1 to 3 sources. `RTL_TEST_CYCLES=N` runs N cycles a configuration (20,000 by
//! default). Verilator (5.006 or later) must be installed; without it the test fails and
//! says so.

mod common;

use common::{count_from_env, run, testbench_with, Bits, Rng};
use std::collections::VecDeque;

const RTL: [&str; 2] = ["hw/sgpu_round_robin.sv", "hw/sgpu_writeback.sv"];
const TESTBENCH: &str = "rtl-tests/tb/writeback_tb.cpp";

const SW: u32 = 2; // 4 warps
const EW: u32 = 2; // 4 entries
const RW: u32 = 6;
const STARVE: u32 = 16;

#[derive(Clone, Copy, Debug)]
struct Config {
    lanes: u32,
    banks: u32,
    sources: u32,
}

impl Config {
    fn beats(self) -> u32 {
        32 / self.lanes
    }
    fn bw(self) -> u32 {
        common::index_bits(self.beats())
    }
    fn pw(self) -> u32 {
        8 * self.lanes
    }
    /// A record's bits.
    fn xw(self) -> u32 {
        3 + EW + 8 + 2 * self.pw() + 1 + RW + 33 * self.lanes + SW + self.bw()
    }
    fn bank(self, beat: u32) -> u32 {
        beat % self.banks
    }
}

/// A beat's write, as the module's record holds it.
#[derive(Clone, Debug, PartialEq)]
struct Rec {
    last: bool,
    entry_valid: bool,
    entry: u32,
    pvalid: bool,
    pold: Vec<u8>,
    pmask: u8,
    pbits: Vec<u8>,
    rvalid: bool,
    row: u32,
    data: Vec<u32>,
    lanes: u32,
    slot: u32,
    beat: u32,
}

impl Rec {
    fn random(rng: &mut Rng, cfg: Config, beat: u32) -> Rec {
        let row_bits = |rng: &mut Rng| (0..cfg.lanes).map(|_| rng.word() as u8).collect();
        Rec {
            last: rng.word().is_multiple_of(2),
            entry_valid: !rng.word().is_multiple_of(4),
            entry: rng.below(1 << EW),
            pvalid: rng.word().is_multiple_of(3),
            pold: row_bits(rng),
            pmask: rng.word() as u8,
            pbits: row_bits(rng),
            rvalid: !rng.word().is_multiple_of(4),
            row: rng.below(1 << RW),
            data: (0..cfg.lanes).map(|_| rng.word() as u32).collect(),
            lanes: rng.word() as u32 & lane_bits(cfg.lanes),
            slot: rng.below(1 << SW),
            beat,
        }
    }

    /// Its bits, the beat lowest (the struct's order, last field first).
    fn put(&self, cfg: Config, b: &mut Bits, at: u32) {
        let mut at = at;
        let mut field = |b: &mut Bits, width: u32, v: u64| {
            b.put(at, width, v);
            at += width;
        };
        field(b, cfg.bw(), u64::from(self.beat));
        field(b, SW, u64::from(self.slot));
        field(b, cfg.lanes, u64::from(self.lanes));
        for &d in &self.data {
            field(b, 32, u64::from(d));
        }
        field(b, RW, u64::from(self.row));
        field(b, 1, u64::from(self.rvalid));
        for &v in &self.pbits {
            field(b, 8, u64::from(v));
        }
        field(b, 8, u64::from(self.pmask));
        for &v in &self.pold {
            field(b, 8, u64::from(v));
        }
        field(b, 1, u64::from(self.pvalid));
        field(b, EW, u64::from(self.entry));
        field(b, 1, u64::from(self.entry_valid));
        field(b, 1, u64::from(self.last));
    }
}

fn lane_bits(lanes: u32) -> u32 {
    if lanes == 32 {
        u32::MAX
    } else {
        (1 << lanes) - 1
    }
}

/// What the reference expects in a cycle.
struct Expect {
    ready: u32,
    starved: bool,
    /// Each port's write.
    ports: Vec<Option<Rec>>,
    done: [Option<(u32, u32)>; 2],
}

struct Traffic {
    input: String,
    expect: Vec<Expect>,
    longest_wait: usize,
    starved_cycles: usize,
    from_sources: usize,
}

fn traffic(cfg: Config, cycles: usize, rng: &mut Rng) -> Traffic {
    let mut queues: Vec<VecDeque<Rec>> = vec![VecDeque::new(); cfg.sources as usize];
    // The cycle each source's beat of the moment was first presented.
    let mut since: Vec<Option<usize>> = vec![None; cfg.sources as usize];
    let mut next_beat: Option<u32> = None; // the lanes' next beat of an instruction
    let mut last = 0u32;
    let mut waited = vec![0u32; cfg.sources as usize];
    let mut t = Traffic {
        input: String::new(),
        expect: Vec::new(),
        longest_wait: 0,
        starved_cycles: 0,
        from_sources: 0,
    };
    for cycle in 0..cycles {
        // Busy phases (the lanes write almost every cycle) and quiet ones.
        let busy = cycle % 2000 < 1200;
        let ln = match next_beat {
            Some(b) => Some(b),
            None if rng.below(10) < if busy { 9 } else { 3 } => Some(0),
            None => None,
        };
        next_beat = ln.and_then(|b| (b + 1 < cfg.beats()).then_some(b + 1));
        let ln = ln.map(|b| Rec::random(rng, cfg, b));
        for q in queues.iter_mut() {
            if rng.below(100) < 30 {
                let beat = rng.below(cfg.beats());
                q.push_back(Rec::random(rng, cfg, beat));
            }
        }
        // The reference arbiter.
        let ln_bank = ln.as_ref().map(|r| cfg.bank(r.beat));
        let can_go: Vec<bool> = queues
            .iter()
            .map(|q| q.front().is_some_and(|r| Some(cfg.bank(r.beat)) != ln_bank))
            .collect();
        // Round robin: the lowest above the last, else the lowest.
        let n = cfg.sources;
        let pick = (last + 1..n)
            .find(|&s| can_go[s as usize])
            .or_else(|| (0..n).find(|&s| can_go[s as usize]));
        let mut ports = vec![None; cfg.banks as usize];
        if let Some(r) = &ln {
            ports[cfg.bank(r.beat) as usize] = Some(r.clone());
        }
        let mut src_done = None;
        let mut ready = 0;
        let presented: Vec<Option<Rec>> = queues.iter().map(|q| q.front().cloned()).collect();
        for (s, p) in presented.iter().enumerate() {
            if p.is_some() && since[s].is_none() {
                since[s] = Some(cycle);
            }
        }
        if let Some(s) = pick {
            let r = queues[s as usize].pop_front().expect("a beat");
            let first = since[s as usize].take().expect("presented");
            t.longest_wait = t.longest_wait.max(cycle - first);
            t.from_sources += 1;
            ready = 1 << s;
            src_done = (r.last && r.entry_valid).then_some((r.slot, r.entry));
            let bank = cfg.bank(r.beat) as usize;
            ports[bank] = Some(r);
            last = s;
        }
        // Each source's beat's wait so far.
        let starved = waited.contains(&STARVE);
        t.starved_cycles += usize::from(starved);
        for (s, w) in waited.iter_mut().enumerate() {
            let held = presented[s].is_some() && ready >> s & 1 == 0;
            *w = if held { (*w + 1).min(STARVE) } else { 0 };
        }
        let ln_done = ln
            .as_ref()
            .and_then(|r| (r.last && r.entry_valid).then_some((r.slot, r.entry)));
        t.expect.push(Expect {
            ready,
            starved,
            ports,
            done: [ln_done, src_done],
        });
        // The input line.
        let mut ln_bits = Bits::default();
        if let Some(r) = &ln {
            r.put(cfg, &mut ln_bits, 0);
        }
        let (mut valid, mut src_bits) = (0u64, Bits::default());
        for (s, p) in presented.iter().enumerate() {
            if let Some(r) = p {
                valid |= 1 << s;
                r.put(cfg, &mut src_bits, s as u32 * cfg.xw());
            }
        }
        t.input += &format!(
            "{} {} {valid:x} {}\n",
            u8::from(ln.is_some()),
            ln_bits.hex(),
            src_bits.hex()
        );
    }
    t
}

/// What differs between a cycle's printed outputs `f` and `e`.
fn differences(cfg: Config, f: &[&str], e: &Expect) -> Vec<String> {
    let b: Vec<Bits> = f.iter().map(|s| Bits::parse(s)).collect();
    let mut out = Vec::new();
    if b[0].get(0, cfg.sources) != u64::from(e.ready) {
        out.push(format!("src_ready_o {}, want {:x}", f[0], e.ready));
    }
    if (f[1] == "1") != e.starved {
        out.push(format!("starved_o {}, want {}", f[1], e.starved));
    }
    let bw = cfg.bw();
    let (l, pw) = (cfg.lanes, cfg.pw());
    for (k, want) in e.ports.iter().enumerate() {
        let k = k as u32;
        let rvalid = b[2].get(k, 1) == 1;
        let pvalid = b[8].get(k, 1) == 1;
        match want {
            None if rvalid || pvalid => out.push(format!("port {k}: a write from nowhere")),
            None => {}
            Some(r) => {
                if rvalid != r.rvalid || pvalid != r.pvalid {
                    out.push(format!("port {k}: valid {rvalid}/{pvalid}, want {r:?}"));
                }
                let got = (
                    b[3].get(k * SW, SW) as u32,
                    b[4].get(k * bw, bw) as u32,
                    b[5].get(k * RW, RW) as u32,
                    b[6].get(k * l, l) as u32,
                );
                if r.rvalid && got != (r.slot, r.beat, r.row, r.lanes) {
                    out.push(format!(
                        "port {k}: (slot, beat, row, lanes) {got:?}, want {r:?}"
                    ));
                }
                let data: Vec<u32> = (0..l)
                    .map(|i| b[7].get(32 * (k * l + i), 32) as u32)
                    .collect();
                if r.rvalid && data != r.data {
                    out.push(format!("port {k}: data {data:x?}, want {:x?}", r.data));
                }
                let row = |b: &Bits| -> Vec<u8> {
                    (0..l).map(|i| b.get(k * pw + 8 * i, 8) as u8).collect()
                };
                let p = (row(&b[9]), b[10].get(8 * k, 8) as u8, row(&b[11]));
                if r.pvalid && p != (r.pold.clone(), r.pmask, r.pbits.clone()) {
                    out.push(format!("port {k}: predicate write {p:x?}, want {r:?}"));
                }
            }
        }
    }
    for (k, want) in e.done.iter().enumerate() {
        let k = k as u32;
        let got = (b[12].get(k, 1) == 1)
            .then(|| (b[13].get(k * SW, SW) as u32, b[14].get(k * EW, EW) as u32));
        if got != *want {
            out.push(format!("done port {k}: {got:?}, want {want:?}"));
        }
    }
    out
}

/// The module's parameters for `cfg`.
fn params(cfg: Config) -> [(&'static str, u32); 7] {
    [
        ("LANES", cfg.lanes),
        ("BANKS", cfg.banks),
        ("SOURCES", cfg.sources),
        ("WARPS", 1 << SW),
        ("ENTRIES", 1 << EW),
        ("RW", RW),
        ("STARVE", STARVE),
    ]
}

fn check(cfg: Config, cycles: usize, seed: u64) {
    let exe = testbench_with("sgpu_writeback", &RTL, TESTBENCH, &params(cfg));
    check_on(&exe, cfg, cycles, seed);
}

/// Runs the testbench `exe` (the RTL's or the netlist's, built for `cfg`).
fn check_on(exe: &std::path::Path, cfg: Config, cycles: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let t = traffic(cfg, cycles, &mut rng);
    let lines = run(exe, &t.input);
    let mut mismatches = Vec::new();
    for (cycle, line) in lines.iter().enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        let wrong = differences(cfg, &f, &t.expect[cycle]);
        if !wrong.is_empty() {
            mismatches.push(format!("cycle {cycle}: {}", wrong.join("; ")));
        }
    }
    common::assert_cycles_agree(&cfg, &mismatches);
    if cfg.banks > 1 {
        assert!(
            t.longest_wait <= 2 * cfg.sources as usize && t.starved_cycles == 0,
            "{cfg:?}: a source's beat waited {} cycles",
            t.longest_wait
        );
    } else {
        assert!(t.starved_cycles > 0, "{cfg:?}: never starved with one bank");
    }
    assert!(t.from_sources > cycles / 4, "{cfg:?}: too few source beats");
    println!(
        "{cfg:?}: {cycles} cycles, {} source beats, longest wait {} cycles, {} cycles starved",
        t.from_sources, t.longest_wait, t.starved_cycles
    );
}

#[test]
fn every_beat_takes_its_banks_port_and_the_lanes_never_wait() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 20_000) as usize;
    let configs = [(8, 2, 2), (8, 4, 3), (1, 2, 2), (16, 2, 1), (32, 1, 2)];
    for (k, (lanes, banks, sources)) in configs.into_iter().enumerate() {
        check(
            Config {
                lanes,
                banks,
                sources,
            },
            cycles,
            0x3c6e_f372_fe94_f82b ^ k as u64,
        );
    }
}

/// The module keeps its beats in a packed struct, a construct yosys 0.70 once synthesised
/// wrongly in the scoreboard: the same traffic on yosys 0.23's gate-level netlist of it
/// (hw/synth/netlist.sh, as for the lane ALU).
#[test]
fn its_gate_level_netlist_does_the_same() {
    let cfg = Config {
        lanes: 8,
        banks: 2,
        sources: 2,
    };
    let exe = common::netlist_testbench("sgpu_writeback", &RTL, TESTBENCH, &params(cfg));
    check_on(&exe, cfg, 5_000, 0x3c6e_f372_fe94_f82b);
}
