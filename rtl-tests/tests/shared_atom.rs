//! `hw/sgpu_shared_atom.sv`, core v2's shared-memory atomics (docs/adr/0008-core-v2-pipeline.md,
//! "Memory"), in front of `hw/sgpu_shared_mem.sv` in the harness `rtl-tests/tb/shared_atom_top.sv`,
//! built with Verilator and run on random mixes of atomic and plain beats against the
//! golden model's own `sgpu_sim::lane::atom`: every operation (add, min, max, inc, dec, and,
//! or, xor, exch, cas) on every type (32- and 64-bit integers, f32, f16, bf16 and their
//! pairs), a lane's bytes where the model puts them (a 16-bit type in either half of its
//! word, a 64-bit one across two words), lanes in order where they share an address (every
//! lane on one counter, neighbours, a few addresses, anywhere), partial masks; plain reads
//! and writes in between see what the atomics left. Checked: each answer (every lane's old
//! value; a plain read's words) in order, and each atomic beat's cycles against the unit's
//! count (docs/hw.md): 2 a lane that takes no part, 11 a lane of 32 bits or less (f32 add
//! 7 more, the 16-bit floats 10, their pairs 11), 13 a 64-bit one, 2 to answer.
//! `RTL_TEST_BEATS=N` runs N beats a configuration (3,000 by default). Verilator (5.006 or
//! later) must be installed; without it the test fails and says so.

mod common;

use common::{
    count_from_env, float_value, half_value, run_events, shared_passes, testbench_with, Bits, Rng,
};
use sgpu_isa::{Aop, Aty};
use sgpu_sim::lane;

const RTL: [&str; 6] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_atom_alu.sv",
    "hw/sgpu_atom_float.sv",
    "hw/sgpu_shared_atom.sv",
    "hw/sgpu_shared_mem.sv",
];
const HARNESS: &str = "rtl-tests/tb/shared_atom_top.sv";
const TESTBENCH: &str = "rtl-tests/tb/shared_atom_tb.cpp";
const BYTES: u32 = 49152;
const WW: u32 = 14; // a word's index: 12,288 words
/// Where the beats meet: a window of shared memory small enough that they keep meeting.
const WINDOW: u32 = 256;

/// An atomic beat.
struct Atomic {
    aop: Aop,
    aty: Aty,
    lanes: u32,
    addr: Vec<u32>,
    b: Vec<u64>,
    c: Vec<u64>,
}

/// A plain beat: per lane its word, bytes written and data.
struct Plain {
    write: bool,
    lanes: u32,
    words: Vec<u32>,
    bytes: Vec<u8>,
    data: Vec<u32>,
}

enum Beat {
    Atomic(Atomic),
    Plain(Plain),
}

fn size(aty: Aty) -> u32 {
    match aty {
        Aty::U64 | Aty::S64 | Aty::B64 => 8,
        Aty::F16 | Aty::Bf16 => 2,
        _ => 4,
    }
}

fn lane_mask(n: u32, rng: &mut Rng) -> u32 {
    let all = if n == 32 { u32::MAX } else { (1 << n) - 1 };
    match rng.word() % 4 {
        0 => rng.word() as u32 & all,
        _ => all,
    }
}

/// An operand the operation and type make interesting: floats near their edges, small
/// integers near the old values, else random bits.
fn operand(aty: Aty, rng: &mut Rng) -> u64 {
    let half = |rng: &mut Rng| u64::from(half_value(rng));
    match (aty, rng.word() % 3) {
        (Aty::F32, 0 | 1) => u64::from(float_value(rng)),
        (Aty::F16 | Aty::Bf16, 0 | 1) => half(rng),
        (Aty::F16x2 | Aty::Bf16x2, 0 | 1) => half(rng) << 16 | half(rng),
        (_, 0) => rng.word() % 8,
        (_, 1) => (rng.word() % 8).wrapping_neg(),
        _ => rng.word(),
    }
}

fn atomic(n: u32, rng: &mut Rng) -> Atomic {
    let aop = Aop::ALL[(rng.word() % Aop::ALL.len() as u64) as usize];
    let aty = Aty::ALL[(rng.word() % Aty::ALL.len() as u64) as usize];
    let s = size(aty);
    let elements = WINDOW / s;
    let base = (rng.word() % u64::from(elements)) as u32;
    let pattern = rng.word() % 4;
    let addr = (0..n)
        .map(|l| {
            let e = match pattern {
                0 => base,                                      // one counter
                1 => base + l,                                  // neighbours
                2 => base + (rng.word() % 4) as u32,            // a few
                _ => (rng.word() % u64::from(elements)) as u32, // anywhere in the window
            };
            (e % elements) * s
        })
        .collect();
    Atomic {
        aop,
        aty,
        lanes: lane_mask(n, rng),
        addr,
        b: (0..n).map(|_| operand(aty, rng)).collect(),
        c: (0..n).map(|_| operand(aty, rng)).collect(),
    }
}

fn plain(n: u32, rng: &mut Rng) -> Plain {
    let write = rng.word().is_multiple_of(3);
    Plain {
        write,
        lanes: lane_mask(n, rng),
        words: (0..n)
            .map(|_| (rng.word() % u64::from(WINDOW / 4)) as u32)
            .collect(),
        bytes: (0..n).map(|_| (rng.word() % 16) as u8).collect(),
        data: (0..n)
            .map(|_| match rng.word() % 2 {
                0 => float_value(rng),
                _ => u32::from(half_value(rng)) << 16 | u32::from(half_value(rng)),
            })
            .collect(),
    }
}

impl Plain {
    /// The passes the memory takes for it, as rtl-tests/tests/shared_mem.rs checks them.
    fn passes(&self) -> u64 {
        shared_passes(&self.words, self.lanes)
    }
}

/// The golden model's memory, beat after beat.
struct Reference {
    memory: Vec<u8>,
}

impl Reference {
    fn load(&self, at: u32, n: u32) -> u64 {
        let mut buf = [0u8; 8];
        buf[..n as usize].copy_from_slice(&self.memory[at as usize..(at + n) as usize]);
        u64::from_le_bytes(buf)
    }

    fn store(&mut self, at: u32, n: u32, value: u64) {
        self.memory[at as usize..(at + n) as usize]
            .copy_from_slice(&value.to_le_bytes()[..n as usize]);
    }

    /// Each lane in order, as sim/src/exec/mem.rs's `atomic`: its old values.
    fn atomic(&mut self, a: &Atomic) -> Vec<u64> {
        let n = size(a.aty);
        (0..a.addr.len())
            .map(|l| {
                if a.lanes >> l & 1 == 0 {
                    return 0;
                }
                let old = self.load(a.addr[l], n);
                let new = lane::atom(old, a.b[l], a.c[l], a.aop, a.aty, n as usize);
                self.store(a.addr[l], n, new);
                old
            })
            .collect()
    }

    /// A plain beat's words (zero for a write and for lanes that take no part).
    fn plain(&mut self, p: &Plain) -> Vec<u64> {
        (0..p.words.len())
            .map(|l| {
                if p.lanes >> l & 1 == 0 {
                    return 0;
                }
                let at = 4 * p.words[l];
                if !p.write {
                    return self.load(at, 4);
                }
                for k in 0..4 {
                    if p.bytes[l] >> k & 1 == 1 {
                        self.store(at + k, 1, u64::from(p.data[l] >> (8 * k) & 0xff));
                    }
                }
                0
            })
            .collect()
    }
}

/// The cycles from an atomic beat's acceptance to its answer (docs/hw.md).
fn cycles(a: &Atomic) -> u64 {
    let lane = match a.aty {
        Aty::U64 | Aty::S64 | Aty::B64 => 13,
        Aty::F32 if a.aop == Aop::Add => 18,
        Aty::F16 | Aty::Bf16 if matches!(a.aop, Aop::Add | Aop::Min | Aop::Max) => 21,
        Aty::F16x2 | Aty::Bf16x2 if matches!(a.aop, Aop::Add | Aop::Min | Aop::Max) => 22,
        _ => 11,
    };
    let active = u64::from(a.lanes.count_ones());
    2 + 2 * (a.addr.len() as u64 - active) + lane * active
}

fn line(beat: &Beat, gap: u64, n: u32) -> String {
    let aw = WW + 2;
    let mut f: Vec<String> = Vec::new();
    match beat {
        Beat::Atomic(a) => {
            let (mut addr, mut b, mut c) = (Bits::default(), Bits::default(), Bits::default());
            for l in 0..n as usize {
                addr.put(aw * l as u32, aw, a.addr[l].into());
                b.put(64 * l as u32, 64, a.b[l]);
                c.put(64 * l as u32, 64, a.c[l]);
            }
            f.push(format!("1 {gap}"));
            f.push(Bits::of(a.aop as u64, 4));
            f.push(Bits::of(a.aty as u64, 4));
            f.push(Bits::of(a.lanes.into(), n));
            f.extend([addr.hex(), b.hex(), c.hex()]);
        }
        Beat::Plain(p) => {
            let (mut words, mut bytes, mut data) =
                (Bits::default(), Bits::default(), Bits::default());
            for l in 0..n as usize {
                words.put(WW * l as u32, WW, p.words[l].into());
                bytes.put(4 * l as u32, 4, p.bytes[l].into());
                data.put(32 * l as u32, 32, p.data[l].into());
            }
            f.push(format!("0 {gap}"));
            f.push(Bits::of(p.write.into(), 1));
            f.push(Bits::of(p.lanes.into(), n));
            f.extend([words.hex(), bytes.hex(), data.hex()]);
        }
    }
    f.join(" ") + "\n"
}

/// A wide hexadecimal value as `width`-bit fields (32 or 64), least significant first.
fn fields(hex: &str, width: usize, n: usize) -> Vec<u64> {
    let digits = width / 4;
    let mut v = Vec::new();
    let mut end = hex.len();
    while end > 0 {
        let begin = end.saturating_sub(digits);
        v.push(u64::from_str_radix(&hex[begin..end], 16).expect("hexadecimal"));
        end = begin;
    }
    v.resize(n, 0);
    v
}

fn check(n: u32, beats: usize, seed: u64) {
    let exe = testbench_with(
        "shared_atom_top",
        &[&RTL[..], &[HARNESS]].concat(),
        TESTBENCH,
        &[("LANES", n)],
    );
    let mut rng = Rng::new(seed);
    let mut model = Reference {
        memory: vec![0; BYTES as usize],
    };
    let (mut input, mut plain_answers, mut atomic_answers) =
        (String::new(), Vec::new(), Vec::new());
    let mut info = Vec::new();
    // Per beat: an atomic's cycles and the position of its first lane that takes part, or
    // a plain beat's passes.
    let mut kinds = Vec::new();
    for _ in 0..beats {
        let beat = if rng.word().is_multiple_of(2) {
            Beat::Atomic(atomic(n, &mut rng))
        } else {
            Beat::Plain(plain(n, &mut rng))
        };
        let gap = if rng.word().is_multiple_of(4) {
            rng.word() % 6
        } else {
            0
        };
        input += &line(&beat, gap, n);
        match &beat {
            Beat::Atomic(a) => {
                atomic_answers.push(model.atomic(a));
                info.push((a.aop, a.aty, a.lanes));
                kinds.push(Ok((cycles(a), a.lanes.trailing_zeros().min(n))));
            }
            Beat::Plain(p) => {
                plain_answers.push(model.plain(p));
                kinds.push(Err(p.passes()));
            }
        }
    }
    let lines = run_events(&exe, &input);
    let (mut taken, mut plains, mut atomics) = (Vec::new(), Vec::new(), Vec::new());
    let mut end = 0;
    for l in &lines {
        let f: Vec<&str> = l.split(' ').collect();
        let cycle: u64 = f[1].parse().expect("a cycle");
        match f[0] {
            "t" => taken.push(cycle),
            "p" => plains.push(fields(f[2], 32, n as usize)),
            "a" => atomics.push((cycle, fields(f[2], 64, n as usize))),
            "end" => end = cycle,
            other => panic!("unexpected line {other}"),
        }
    }
    assert_eq!(taken.len(), beats, "{n} lanes: every beat taken");
    assert_eq!(
        plains.len(),
        plain_answers.len(),
        "{n} lanes: every plain beat answered"
    );
    assert_eq!(
        atomics.len(),
        atomic_answers.len(),
        "{n} lanes: every atomic beat answered"
    );
    for (i, (got, want)) in plains.iter().zip(&plain_answers).enumerate() {
        assert_eq!(got, want, "{n} lanes, plain beat {i}");
    }
    // An atomic beat's cycles, from its acceptance: its count, and the wait of its first read
    // (two cycles after it and two a lane passed over before it) for the last pass of the
    // plain beat before it.
    let mut busy_until = 0u64;
    let mut starts = Vec::new();
    for (kind, &t) in kinds.iter().zip(&taken) {
        match *kind {
            Ok((count, first)) => {
                let read = t + 2 + 2 * u64::from(first);
                let wait = if first < n {
                    busy_until.saturating_sub(read)
                } else {
                    0
                };
                starts.push((t, count + wait));
            }
            Err(passes) => busy_until = t + passes,
        }
    }
    let (mut lanes_done, mut atomic_cycles) = (0u64, 0u64);
    for (i, (((cycle, got), want), (start, count))) in
        atomics.iter().zip(&atomic_answers).zip(starts).enumerate()
    {
        assert_eq!(got, want, "{n} lanes, atomic beat {i}");
        assert_eq!(
            cycle - start,
            count,
            "{n} lanes, atomic beat {i}: its cycles ({:?})",
            info[i]
        );
        atomic_cycles += count;
        lanes_done += u64::from(info[i].2.count_ones());
    }
    println!(
        "{n} lanes: {beats} beats in {end} cycles; {} atomic ({lanes_done} lanes in {atomic_cycles} cycles)",
        atomic_answers.len()
    );
}

/// `check` at `lanes` lanes, the `i`th configuration (a test each, so that they run at once).
fn lanes_agree(lanes: u32, i: u64) {
    let beats = count_from_env("RTL_TEST_BEATS", 3_000) as usize;
    check(lanes, beats, 0x7a1c_44e3_09b2_d5f1 ^ i);
}

#[test]
fn atomics_run_lane_by_lane_as_the_model_at_8_lanes() {
    lanes_agree(8, 0);
}

#[test]
fn atomics_run_lane_by_lane_as_the_model_at_1_lane() {
    lanes_agree(1, 1);
}

#[test]
fn atomics_run_lane_by_lane_as_the_model_at_32_lanes() {
    lanes_agree(32, 2);
}
