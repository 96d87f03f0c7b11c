//! `hw/sgpu_lsu_beat.sv`, the first half of core v2's load/store unit, built with Verilator
//! and driven cycle by cycle as the core drives it, against the golden model itself: random
//! LD, ST and LDC of every size, space and addressing form (32-bit and pair addresses, ABS,
//! every constant bank), issued back to back or with gaps, pass after pass as the scheduler
//! issues them, their predicate rows a cycle later and their operands five cycles later
//! (random values on those inputs in the other cycles, which the unit must ignore).
//!
//! For each instruction the model's `exec::step` runs on a warp whose memory records every
//! access (and refuses stores to constant memory, as the model's memory does), and the
//! unit's beats must make the same accesses: each lane's space, offset (a local one moved
//! by its frame) and stored bytes, no lane after the model's fault, and the fault's cause
//! and lane. Addresses lean to the edges: the windows' ends, the end of a thread's local
//! memory with its frame, offsets that wrap at 2^32 and pairs that wrap at 2^64, a lane
//! misaligned here and there. 1, 8 and 32 lanes. `RTL_TEST_CASES=N` runs N instructions a
//! configuration (20,000 by default). Verilator (5.006 or later) must be installed; without
//! it the test fails and says so.

mod common;

use common::{count_from_env, run, run_events, testbench_with, twin, Bits, Rng};
use rtl_tests::cosim::trap_code;
use sgpu_isa::{abi, Cop, Instruction, Msize, Op, Pred, PredSrc, Reg, Space};
use sgpu_sim::exec::{step, Ctx};
use sgpu_sim::memory::{Access, Memory};
use sgpu_sim::program::{decode_all, Program};
use sgpu_sim::record::{Retired, Space as Port};
use sgpu_sim::surface::Surfaces;
use sgpu_sim::trap::Cause;
use sgpu_sim::warp::{reg_at, Warp, LANES};
use std::collections::HashMap;

const RTL: [&str; 4] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_pipe.sv",
    "hw/sgpu_lsu_beat.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/lsu_beat_tb.cpp";
const WARPS: u32 = 4;
/// From a last-pass beat's issue to its accesses on the outputs.
const LATENCY: usize = 10;

/// The bytes of the bounded spaces: local (a thread's), shared, parameters, constants.
#[derive(Clone, Copy, Default)]
struct Sizes {
    local: u32,
    shared: u32,
    param: u32,
    constant: u32,
}

/// A memory that records each access and answers every read with zeros, with the bounds
/// and refusals of the model's memory: shared, parameter and constant accesses within their
/// sizes (the model's `Memories`; local memory's bound is the warp's), no store to constant
/// memory or parameters, global memory unbounded.
struct Recording {
    sizes: Sizes,
    accesses: Vec<(Access, Vec<u8>, bool)>, // the access, its bytes (a read's: zeros), write
}

impl Sizes {
    /// The model's memory's bounds (its `Memories`): shared, parameter and constant
    /// accesses within their sizes; local memory's bound is the warp's, global memory's
    /// the memory's.
    fn within(&self, at: Access, len: usize) -> Result<(), Cause> {
        let size = match at.space {
            Port::Shared => self.shared,
            Port::Param => self.param,
            Port::Constant => self.constant,
            Port::Global | Port::Local => return Ok(()),
        };
        if at.address + len as u64 > u64::from(size) {
            return Err(Cause::OutOfBounds {
                space: at.space,
                address: at.address,
                size: len as u8,
            });
        }
        Ok(())
    }
}

impl Memory for Recording {
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause> {
        self.sizes.within(at, out.len())?;
        out.fill(0);
        self.accesses.push((at, out.to_vec(), false));
        Ok(())
    }
    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause> {
        if matches!(at.space, Port::Constant | Port::Param) {
            return Err(Cause::ConstantWrite {
                address: at.address,
            });
        }
        self.sizes.within(at, data.len())?;
        self.accesses.push((at, data.to_vec(), true));
        Ok(())
    }
    fn start_cta(&mut self, _: usize, _: usize, _: usize) {}
}

fn port(s: Port) -> u32 {
    (match s {
        Port::Global => abi::PORT_GLOBAL,
        Port::Shared => abi::PORT_SHARED,
        Port::Local => abi::PORT_LOCAL,
        Port::Constant => abi::PORT_CONSTANT,
        Port::Param => abi::PORT_PARAM,
    }) as u32
}

/// One cycle's inputs, in the testbench's order.
#[derive(Clone, Default)]
struct In {
    sizes: Sizes,
    reserve: bool, // the port test's: an instruction's first beat books its room
    issue: Option<Issue>,
    pred_row: Vec<u8>,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
}

#[derive(Clone, Copy, Default)]
struct Issue {
    slot: u32,
    beat: u32,
    pass: u32,
    last: bool,
    word: u64,
    lanes: u32,
    tag: u32,
}

fn wide(v: &[u32]) -> String {
    let mut b = Bits::default();
    for (k, &x) in v.iter().enumerate() {
        b.put(32 * k as u32, 32, u64::from(x));
    }
    b.hex()
}

impl In {
    fn noise(lanes: u32, rng: &mut Rng, sizes: Sizes) -> In {
        let n = lanes as usize;
        In {
            sizes,
            issue: None,
            pred_row: (0..n).map(|_| rng.word() as u8).collect(),
            a: (0..n).map(|_| rng.word() as u32).collect(),
            b: (0..n).map(|_| rng.word() as u32).collect(),
            c: (0..n).map(|_| rng.word() as u32).collect(),
            reserve: false,
        }
    }

    fn line(&self) -> String {
        self.fields().join(" ")
    }

    /// The port test's line: the beat stage's inputs with the memory map, the booking, and
    /// the memory's and write-back's readiness (`port`: ready, delay, write-back ready).
    fn port_line(&self, (ready, delay, wb_ready): (bool, u32, bool)) -> String {
        let mut f = self.fields();
        let tail = f.split_off(4);
        f.extend([LOCAL_BASE, PARAM_BASE, CONST_BASE].map(|b| format!("{b:x}")));
        f.push(format!("{:x}", u32::from(self.reserve)));
        f.extend(tail);
        f.extend([u32::from(ready), delay, u32::from(wb_ready)].map(|x| format!("{x:x}")));
        f.join(" ")
    }

    fn fields(&self) -> Vec<String> {
        let mut row = Bits::default();
        for (k, &x) in self.pred_row.iter().enumerate() {
            row.put(8 * k as u32, 8, u64::from(x));
        }
        let i = self.issue.unwrap_or_default();
        let z = &self.sizes;
        [
            format!("{:x}", z.local),
            format!("{:x}", z.shared),
            format!("{:x}", z.param),
            format!("{:x}", z.constant),
            format!("{:x}", u32::from(self.issue.is_some())),
            format!("{:x}", i.slot),
            format!("{:x}", i.beat),
            format!("{:x}", i.pass),
            format!("{:x}", u32::from(i.last)),
            format!("{:x}", i.word),
            format!("{:x}", i.lanes),
            format!("{:x}", i.tag),
            row.hex(),
            wide(&self.a),
            wide(&self.b),
            wide(&self.c),
        ]
        .to_vec()
    }
}

/// A last-pass beat's accesses as the unit puts them out (or as the model makes them).
#[derive(Clone, Debug, Default, PartialEq)]
struct Beat {
    slot: u32,
    beat: u32,
    last: bool,
    tag: u32,
    write: bool,
    size: u32,
    signed: bool,
    lanes: u32,
    /// Per accessing lane, in lane order: its space, offset and (a store's) bytes.
    accesses: Vec<(u32, u64, Vec<u8>)>,
    fault: Option<(u32, u32)>, // cause, lane in the warp
}

fn parse(lanes: u32, line: &str) -> Option<Beat> {
    let v: Vec<&str> = line.split(' ').collect();
    let n = |i: usize| u64::from_str_radix(v[i], 16).expect("hexadecimal");
    if n(0) == 0 {
        return None;
    }
    let (space, at, data) = (Bits::parse(v[9]), Bits::parse(v[10]), Bits::parse(v[11]));
    let size = n(6) as u32;
    let write = n(5) == 1;
    let mask = n(8) as u32;
    let accesses = (0..lanes)
        .filter(|k| mask >> k & 1 == 1)
        .map(|k| {
            let bytes = if write {
                (0..1u32 << size)
                    .map(|i| data.get(128 * k + 8 * i, 8) as u8)
                    .collect()
            } else {
                Vec::new()
            };
            (
                space.get(3 * k, 3) as u32,
                at.get(64 * k, 32) | at.get(64 * k + 32, 32) << 32,
                bytes,
            )
        })
        .collect();
    Some(Beat {
        slot: n(1) as u32,
        beat: n(2) as u32,
        last: n(3) == 1,
        tag: n(4) as u32,
        write,
        size,
        lanes: mask,
        accesses,
        signed: n(7) == 1,
        fault: (n(12) == 1).then(|| (n(13) as u32, n(14) as u32)),
    })
}

/// A random memory instruction and the warp it runs on: addresses, data, frames, guard and
/// active lanes drawn for it. With `for_memory`, a store's addresses have bit 63 set in all
/// lanes or none (the whole unit's test's memory answers those with an error, which loads
/// meet anywhere; a store's lanes after a failing one may be written, where the model
/// stops).
fn draw(rng: &mut Rng, slot: u32, sizes: Sizes, for_memory: bool) -> (Instruction, Warp) {
    let local_size = sizes.local;
    let mut w = Warp::new(slot, 0, [[0; 3]; LANES], 32, local_size as usize);
    // Partial active masks now and then (the model's active lanes are its stack top's).
    if rng.below(3) == 0 {
        let lanes = rng.word() as u32 | 1 << rng.below(32);
        w.lanes = lanes;
        w.stack[0].mask = lanes;
    }
    for p in 0..7 {
        w.preds[p] = if rng.below(2) == 0 {
            u32::MAX
        } else {
            rng.word() as u32
        };
    }
    w.carry = rng.word() as u32;
    let msize = Msize::ALL[rng.below(7) as usize];
    let n = msize.bytes();
    let kind = rng.below(10);
    let space = Space::ALL[rng.below(Space::ALL.len() as u32) as usize];
    let (op, e, space) = match kind {
        0..=3 => ("ld", rng.below(3) == 0, space),
        4..=7 => ("st", rng.below(3) == 0, space),
        _ => ("ldc", false, Space::Generic),
    };
    let labs = op != "ldc" && rng.below(3) == 0;
    let ra = if !e && rng.below(16) == 0 {
        Reg::RZ
    } else {
        Reg(2 * rng.below(4) as u8)
    };
    let rd = Reg(8 + 4 * rng.below(2) as u8);
    let off24: i32 = match rng.below(6) {
        0 => 0,
        1 => -((n * (1 + rng.below(8))) as i32),
        2 => (rng.word() as i32) >> 8,
        _ => (n * rng.below(64)) as i32,
    };
    let cbank = match rng.below(8) {
        0 => 2 + rng.below(14) as u8,
        k => (k & 1) as u8,
    };
    // A base the lanes stray from: the windows and their ends, the bounded spaces' ends.
    let window = [
        abi::SHARED_WINDOW,
        abi::LOCAL_WINDOW,
        abi::CONST_WINDOW,
        abi::CONST_WINDOW + abi::WINDOW_SIZE,
    ][rng.below(4) as usize];
    let base: u64 = match rng.below(8) {
        0 => rng.word() & !15,
        1 => window - 16 * u64::from(rng.below(3)),
        2 => window + abi::WINDOW_SIZE - 16 * u64::from(1 + rng.below(2)),
        3 => {
            let end =
                [sizes.local, sizes.shared, sizes.param, sizes.constant][rng.below(4) as usize];
            let end = u64::from(end).saturating_sub(16 * u64::from(rng.below(4)));
            if rng.below(2) == 0 {
                end
            } else {
                window + end
            }
        }
        4 => (rng.word() as u32 & !15) as u64 | 0xffff_ffff_0000_0000,
        // Within shared memory, and just below its window (a beat's lanes on either side).
        5 => {
            let window = if space == Space::Generic {
                abi::SHARED_WINDOW
            } else {
                0
            };
            window + u64::from(rng.below(sizes.shared.max(16)) & !15)
        }
        6 if space == Space::Generic => abi::SHARED_WINDOW - u64::from(n * (1 + rng.below(3))),
        // At a multiple of 2^32: a pair's low word carries or borrows into its high word.
        7 => ((1 + u64::from(rng.below(3))) << 32) - 16 * u64::from(rng.below(3)),
        _ => u64::from(rng.below(0x100) & !15),
    };
    let fault_rate = [0, 0, 0, 64, 1024][rng.below(5) as usize];
    // Now and then a store whose every lane fails in global memory (none is written).
    let failing_store = for_memory && op == "st" && e && rng.below(8) == 0;
    for l in 0..LANES {
        let mut at = base.wrapping_add(u64::from(n) * u64::from(rng.below(4)));
        if fault_rate != 0 && rng.below(fault_rate) == 0 && n > 1 {
            at += u64::from(1 + rng.below(n - 1));
        }
        if failing_store {
            at |= 1 << 63;
        } else if for_memory && op == "st" {
            at &= !(1 << 63);
        }
        if !e {
            // The register holds the address less the offset, modulo 2^32.
            at = u64::from((at as u32).wrapping_sub(off24 as u32));
        } else {
            at = at.wrapping_sub(off24 as i64 as u64);
        }
        if ra != Reg::RZ {
            w.w(ra, l, at as u32);
            w.w(Reg(ra.0 + 1), l, (at >> 32) as u32);
        }
        for k in 0..4 {
            w.w(Reg(rd.0 + k), l, rng.word() as u32);
        }
        w.frame[l] = match rng.below(16) {
            0..=5 => 0,
            6..=8 => local_size.saturating_sub(n * rng.below(4)),
            9 => rng.word() as u32,
            _ => rng.below(local_size.max(1)) & !15,
        };
    }
    let cop = Cop::Default;
    let op = match op {
        "ld" => Op::Ld {
            rd,
            ra,
            off24,
            space,
            msize,
            cop,
            e,
            labs,
        },
        "st" => Op::St {
            ra,
            off24,
            rd,
            space,
            msize,
            cop,
            e,
            labs,
        },
        _ => Op::Ldc {
            rd,
            cbank,
            ra,
            off24,
            msize,
        },
    };
    let guard = if rng.below(3) == 0 {
        PredSrc {
            pred: Pred(rng.below(7) as u8),
            negated: rng.below(2) == 0,
        }
    } else {
        PredSrc {
            pred: Pred::PT,
            negated: false,
        }
    };
    (Instruction { guard, op }, w)
}

/// A thread's predicate byte (P0 to P6, the carry in bit 7).
fn pred_byte(w: &Warp, l: usize) -> u8 {
    let p = (0..7).fold(0, |b, i| b | ((w.preds[i] >> l & 1) as u8) << i);
    p | ((w.carry >> l & 1) as u8) << 7
}

/// The model's beats of an instruction on warp `w`.
/// The model's step of `insn` on `w` with `memory`: its fault, if any, as the core reports
/// it (TRAP_*, and the lane: a fault with no lane of its own, no such bank, is the first
/// executing lane's).
fn model(insn: &Instruction, w: &mut Warp, memory: &mut dyn Memory) -> Option<(u32, u32)> {
    let word = insn.encode().expect("an encodable instruction");
    let program = Program {
        decoded: decode_all(&[word]),
        code: vec![word],
        ..Program::default()
    };
    let surfaces = Surfaces::default();
    let mut cx = Ctx {
        program: &program,
        memory,
        surfaces: &surfaces,
        ntid: [128, 1, 1],
        ctaid: [0; 3],
        nctaid: [1; 3],
        warps_per_cta: WARPS,
        smem: [0, 0],
        clock: 0,
        faulting_lane: None,
    };
    let exec = w.active() & w.ps(insn.guard);
    let result = step(w, &mut cx, &mut Retired::default());
    let faulting = cx.faulting_lane;
    result.err().map(|c| {
        let code = trap_code(&c).expect("a trap the core reports") as u32;
        (code, faulting.map_or(exec.trailing_zeros(), u32::from))
    })
}

/// An instruction's store flag and log2 of its bytes.
fn shape(insn: &Instruction) -> (bool, u32) {
    match insn.op {
        Op::St { msize, .. } => (true, msize.bytes().trailing_zeros()),
        Op::Ld { msize, .. } | Op::Ldc { msize, .. } => (false, msize.bytes().trailing_zeros()),
        _ => unreachable!(),
    }
}

fn expected(lanes: u32, insn: &Instruction, w: &mut Warp, sizes: Sizes, tag: u32) -> Vec<Beat> {
    let mut memory = Recording {
        sizes,
        accesses: Vec::new(),
    };
    let fault = model(insn, w, &mut memory);
    let (write, size) = shape(insn);
    let signed = matches!(
        insn.op,
        Op::Ld {
            msize: Msize::S8 | Msize::S16,
            ..
        } | Op::St {
            msize: Msize::S8 | Msize::S16,
            ..
        } | Op::Ldc {
            msize: Msize::S8 | Msize::S16,
            ..
        }
    );
    let beats = 32 / lanes;
    (0..beats)
        .map(|b| {
            let in_beat = |l: u32| l / lanes == b;
            let mut beat = Beat {
                slot: w.id,
                beat: b,
                last: b + 1 == beats,
                tag,
                write,
                size,
                signed,
                ..Beat::default()
            };
            for (at, data, _) in &memory.accesses {
                let l = at.thread % 32;
                if in_beat(l) {
                    beat.lanes |= 1 << (l % lanes);
                    let bytes = if write { data.clone() } else { Vec::new() };
                    beat.accesses.push((port(at.space), at.address, bytes));
                }
            }
            beat.fault = fault.filter(|&(_, l)| in_beat(l));
            beat
        })
        .collect()
}

/// Instructions issued from `t`: each pass's beats in consecutive cycles, the beat's
/// predicate row a cycle later, its operands five cycles later. Returns the cycle after.
fn issue(
    lanes: u32,
    inputs: &mut Vec<In>,
    rng: &mut Rng,
    sizes: Sizes,
    (insn, w, tag): (&Instruction, &Warp, u32),
    t: usize,
) -> usize {
    let beats = 32 / lanes;
    let word = insn.encode().expect("an encodable instruction");
    let (ra, data, e, n) = match insn.op {
        Op::Ld { ra, e, msize, .. } => (ra, None, e, msize.bytes()),
        Op::St {
            ra, rd, e, msize, ..
        } => (ra, Some(rd), e, msize.bytes()),
        Op::Ldc { ra, msize, .. } => (ra, None, false, msize.bytes()),
        _ => unreachable!(),
    };
    let (ra_words, data_words) = (if e { 2 } else { 1 }, n.div_ceil(4));
    let passes = ra_words.max(data_words);
    let r = |x: Reg, k: u32, count: u32, l: usize| w.r(reg_at(x, k.min(count - 1) as u8), l);
    for pass in 0..passes {
        for b in 0..beats {
            let at = t + (pass * beats + b) as usize;
            while inputs.len() <= at + 5 {
                inputs.push(In::noise(lanes, rng, sizes));
            }
            let part = |m: u32| {
                if lanes == 32 {
                    m
                } else {
                    m >> (b * lanes) & ((1 << lanes) - 1)
                }
            };
            inputs[at].reserve = pass == 0 && b == 0;
            inputs[at].issue = Some(Issue {
                slot: w.id,
                beat: b,
                pass,
                last: pass + 1 == passes && b + 1 == beats,
                word,
                lanes: part(w.active()),
                tag,
            });
            for k in 0..lanes as usize {
                let l = (b * lanes) as usize + k;
                inputs[at + 1].pred_row[k] = pred_byte(w, l);
                inputs[at + 5].a[k] = r(ra, pass, ra_words, l);
                if let Some(rd) = data {
                    inputs[at + 5].b[k] = r(rd, pass, data_words, l);
                }
                inputs[at + 5].c[k] = w.frame[l];
            }
        }
    }
    t + (passes * beats) as usize
}

/// `count` instructions at `lanes`, every beat checked, and every space, size and fault met
/// with lanes that access.
fn agree(lanes: u32, seed: u64) {
    let exe = testbench_with(
        "sgpu_lsu_beat",
        &RTL,
        TESTBENCH,
        &[("LANES", lanes), ("WARPS", WARPS), ("TW", 8)],
    );
    let count = count_from_env("RTL_TEST_CASES", 20000) as usize;
    let start = std::time::Instant::now();
    let mut rng = Rng::new(seed);
    let (mut done, mut faults, mut accesses) = (0, 0, 0);
    let mut causes = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new(); // (space, write, size) accessed
    let mut wrong = Vec::new();
    while done < count {
        // Runs of 200 instructions, each with its sizes of memory.
        let mut size = |sizes: &[u32]| sizes[rng.below(sizes.len() as u32) as usize];
        let sizes = Sizes {
            local: size(&[0, 0x40, 0x100, 0x1000, 0x4100]),
            shared: size(&[0, 0x100, 0x1000, 0xc000]),
            param: size(&[0x20, 0x100, 0x1000]),
            constant: size(&[0, 0x40, 0x10000]),
        };
        let mut inputs: Vec<In> = Vec::new();
        let mut want: Vec<(usize, Beat)> = Vec::new(); // the cycle each beat comes out
        let mut t = 2;
        for i in 0..200.min(count - done) {
            let slot = rng.below(WARPS);
            let (insn, mut w) = draw(&mut rng, slot, sizes, false);
            let before = w.regs.clone();
            let tag = i as u32 & 0xff;
            let beats = expected(lanes, &insn, &mut w, sizes, tag);
            w.regs = before; // the model's load changed its registers; the issue reads before
            let end = issue(lanes, &mut inputs, &mut rng, sizes, (&insn, &w, tag), t);
            let first_final = end - beats.len();
            for (b, beat) in beats.into_iter().enumerate() {
                want.push((first_final + b + LATENCY, beat));
            }
            t = end
                + if rng.below(2) == 0 {
                    0
                } else {
                    rng.below(6) as usize
                };
        }
        while inputs.len() < t + LATENCY + 4 {
            inputs.push(In::noise(lanes, &mut rng, sizes));
        }
        let input: String = inputs.iter().map(|i| i.line() + "\n").collect();
        let lines = run(&exe, &input);
        let got: Vec<(usize, Beat)> = lines
            .iter()
            .enumerate()
            .filter_map(|(c, line)| parse(lanes, line).map(|b| (c, b)))
            .collect();
        if got.len() != want.len() {
            wrong.push(format!("{} beats out, {} expected", got.len(), want.len()));
        }
        for ((tc, g), (wc, e)) in got.iter().zip(&want) {
            if tc != wc || g != e {
                wrong.push(format!(
                    "cycle {tc} (expected {wc}): {g:x?}\n  expected {e:x?}"
                ));
            }
            accesses += e.accesses.len();
            for a in &e.accesses {
                kinds.insert((a.0, e.write, e.size));
            }
            if let Some((c, _)) = e.fault {
                faults += 1;
                causes.insert(c);
            }
        }
        done += 200.min(count - done);
    }
    common::assert_cycles_agree(&format!("sgpu_lsu_beat at {lanes} lanes"), &wrong);
    // Every fault the unit finds, met.
    let all = [
        abi::TRAP_MISALIGNED,
        abi::TRAP_OUT_OF_BOUNDS,
        abi::TRAP_CONSTANT_WRITE,
        abi::TRAP_NO_CONST_BANK,
    ];
    for c in all {
        assert!(causes.contains(&(c as u32)), "no fault of cause {c} met");
    }
    // Every space read at every size, and written but for constant memory's.
    for space in 0..5u32 {
        for size in 0..5 {
            assert!(
                kinds.contains(&(space, false, size)),
                "no {size} load of space {space}"
            );
            let writable = space != abi::PORT_CONSTANT as u32 && space != abi::PORT_PARAM as u32;
            assert!(
                !writable || kinds.contains(&(space, true, size)),
                "no {size} store to space {space}"
            );
        }
    }
    println!(
        "sgpu_lsu_beat at {lanes} lanes: {done} instructions, {accesses} lane accesses, \
         {faults} faults, {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn lane_accesses_agree_with_the_model_at_8_lanes() {
    agree(8, 0x15b_0008);
}

#[test]
fn lane_accesses_agree_with_the_model_at_1_lane() {
    agree(1, 0x15b_0001);
}

#[test]
fn lane_accesses_agree_with_the_model_at_32_lanes() {
    agree(32, 0x15b_0020);
}

// ---- The whole unit before a memory: `rtl-tests/tb/lsu_top.sv` ----

const UNIT_RTL: [&str; 13] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_lsu_pkg.sv",
    "hw/sgpu_pipe.sv",
    "hw/sgpu_lsu_beat.sv",
    "hw/sgpu_lsu_room.sv",
    "hw/sgpu_coalesce.sv",
    "hw/sgpu_lsu_port.sv",
    "hw/sgpu_shared_mem.sv",
    "hw/sgpu_lsu_shared.sv",
    "hw/sgpu_lsu_join.sv",
    "hw/sgpu_lsu.sv",
    "rtl-tests/tb/lsu_top.sv",
];
const UNIT_TESTBENCH: &str = "rtl-tests/tb/lsu_tb.cpp";
/// The memory map's bases (docs/hw.md, "Core v2's memory map").
const LOCAL_BASE: u64 = 0x4000_0000_0000;
const PARAM_BASE: u64 = 0x5000_0000_0000;
const CONST_BASE: u64 = 0x6000_0000_0000;

/// splitmix64's finaliser, as `lsu_top.sv`'s memory starts its blocks.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A byte of the memory before anything is written: of block b, word h (0 or 1) of
/// {mix(16b + 1), mix(16b)}.
fn initial(x: u64) -> u8 {
    let (b, j) = (x >> 4, x & 15);
    (mix((b << 4) | (j / 8)) >> (8 * (j % 8))) as u8
}

/// Where an access of the model lands on the port (docs/hw.md, "Core v2's memory map"):
/// local memory interleaved by 16-byte pieces over the core's thread slots; shared memory
/// is not on the port.
fn port_address(at: Access) -> Option<u64> {
    let thread_bits = (32 * WARPS).trailing_zeros();
    Some(match at.space {
        Port::Global => at.address,
        Port::Param => PARAM_BASE + at.address,
        Port::Constant => CONST_BASE + at.address,
        Port::Local => {
            LOCAL_BASE
                + ((at.address >> 4) << (4 + thread_bits))
                + (u64::from(at.thread) << 4)
                + (at.address & 15)
        }
        Port::Shared => return None,
    })
}

/// The model's memory laid out as the unit's: on the port, bytes written so far over the
/// initial hash, a global address with bit 63 set outside memory (as the harness's),
/// parameters and constants bounded by their sizes, stores to them refused; shared memory
/// apart, zero at first. It notes the lanes that accessed memory and whether a global
/// access failed.
struct Flat {
    sizes: Sizes,
    bytes: HashMap<u64, u8>,
    shared: Vec<u8>,
    lanes: u32,
    global_fault: bool,
}

/// A byte's place in [`Flat`]: a port address, or an offset in shared memory.
enum Place {
    Port(u64),
    Shared(usize),
}

impl Flat {
    fn check(&mut self, at: Access, len: usize) -> Result<Place, Cause> {
        if at.space == Port::Global && at.address >> 63 == 1 {
            self.global_fault = true;
            return Err(Cause::OutOfBounds {
                space: at.space,
                address: at.address,
                size: len as u8,
            });
        }
        self.sizes.within(at, len)?;
        self.lanes |= 1 << (at.thread % 32);
        Ok(port_address(at).map_or(Place::Shared(at.address as usize), Place::Port))
    }
}

impl Memory for Flat {
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause> {
        match self.check(at, out.len())? {
            Place::Port(x) => {
                for (i, o) in out.iter_mut().enumerate() {
                    let a = x + i as u64;
                    *o = self.bytes.get(&a).copied().unwrap_or_else(|| initial(a));
                }
            }
            Place::Shared(x) => out.copy_from_slice(&self.shared[x..x + out.len()]),
        }
        Ok(())
    }
    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause> {
        if matches!(at.space, Port::Constant | Port::Param) {
            return Err(Cause::ConstantWrite {
                address: at.address,
            });
        }
        match self.check(at, data.len())? {
            Place::Port(x) => {
                for (i, &d) in data.iter().enumerate() {
                    self.bytes.insert(x + i as u64, d);
                }
            }
            Place::Shared(x) => self.shared[x..x + data.len()].copy_from_slice(data),
        }
        Ok(())
    }
    fn start_cta(&mut self, _: usize, _: usize, _: usize) {}
}

/// The registers an instruction writes: (beat, word of the destination, lane in the beat)
/// to the value.
type Writes = HashMap<(u32, u32, u32), u32>;

/// What one instruction should make the unit do.
struct Case {
    what: String,
    slot: u32,
    last_beat: u32,
    beat_fault: Option<(u32, u32)>, // the beat stage's (cause, lane)
    memory_fault: Option<u32>,      // the lane whose global access fails, first
    writes: Writes,
}

/// The model's register writes of `insn`, its registers as `after` holds them, in the
/// lanes that access memory (per beat, from the beat stage's expectation).
fn writes_of(lanes: u32, insn: &Instruction, after: &Warp, beats: &[Beat]) -> Writes {
    let (write, size) = shape(insn);
    let rd = match insn.op {
        Op::Ld { rd, .. } | Op::Ldc { rd, .. } => rd,
        _ => return Writes::new(),
    };
    debug_assert!(!write);
    let mut out = Writes::new();
    for b in beats {
        for p in 0..(1u32 << size).div_ceil(4) {
            for k in (0..lanes).filter(|k| b.lanes >> k & 1 == 1) {
                let value = after.r(reg_at(rd, p as u8), (b.beat * lanes + k) as usize);
                out.insert((b.beat, p, k), value);
            }
        }
    }
    out
}

/// What the runs met: requests and lane accesses on the port, accesses in shared memory,
/// instructions with lanes in both, failed global accesses, shared memory's bank conflicts.
#[derive(Default)]
struct Met {
    requests: usize,
    port: usize,
    shared: usize,
    mixed: usize,
    memory_faults: usize,
    failed_stores: usize,
    conflicts: u64,
}

/// The whole unit at `lanes`: runs of instructions, each run's memory a hash written over
/// and its shared memory zero; every register write, instruction end and fault, and every
/// byte stored on the port, against the model with the same memory.
fn unit_agree(lanes: u32, seed: u64) {
    let beats = 32 / lanes;
    let exe = testbench_with(
        "lsu_top",
        &UNIT_RTL,
        UNIT_TESTBENCH,
        &[
            ("LANES", lanes),
            ("WARPS", WARPS),
            ("TW", 8),
            ("QD", 2 * beats.max(4)),
        ],
    );
    let count = count_from_env("RTL_TEST_CASES", 4000) as usize / 2;
    let start = std::time::Instant::now();
    let mut rng = Rng::new(seed);
    let mut met = Met::default();
    let mut done = 0;
    let mut wrong = Vec::new();
    while done < count {
        let mut size = |sizes: &[u32]| sizes[rng.below(sizes.len() as u32) as usize];
        let sizes = Sizes {
            local: size(&[0x40, 0x100, 0x1000]),
            shared: size(&[0x40, 0x100, 0x1000, 0xc000]),
            param: size(&[0x20, 0x100, 0x1000]),
            constant: size(&[0x40, 0x10000]),
        };
        let mut flat = Flat {
            sizes,
            bytes: HashMap::new(),
            shared: vec![0; sizes.shared as usize],
            lanes: 0,
            global_fault: false,
        };
        let mut inputs: Vec<In> = Vec::new();
        let mut cases = Vec::new();
        let mut t = 2;
        let n = 100.min(count - done);
        for i in 0..n {
            let slot = rng.below(WARPS);
            let (insn, w) = draw(&mut rng, slot, sizes, true);
            let tag = i as u32 & 0xff;
            let stage = expected(lanes, &insn, &mut twin(&w), sizes, tag);
            let mut after = twin(&w);
            flat.lanes = 0;
            flat.global_fault = false;
            let fault = model(&insn, &mut after, &mut flat);
            let memory_fault = (flat.global_fault).then(|| fault.expect("a fault").1);
            let end = issue(lanes, &mut inputs, &mut rng, sizes, (&insn, &w, tag), t);
            let accessed: usize = stage.iter().map(|b| b.accesses.len()).sum();
            let in_shared = stage
                .iter()
                .flat_map(|b| &b.accesses)
                .filter(|a| a.0 == port(Port::Shared))
                .count();
            met.shared += in_shared;
            met.port += accessed - in_shared;
            met.mixed += usize::from(in_shared > 0 && in_shared < accessed);
            met.failed_stores += usize::from(memory_fault.is_some() && shape(&insn).0);
            cases.push(Case {
                what: format!("{insn:?} fault {fault:x?}"),
                slot,
                last_beat: beats - 1,
                beat_fault: stage.iter().find_map(|b| b.fault),
                memory_fault,
                writes: writes_of(lanes, &insn, &after, &stage),
            });
            // Six quiet cycles at least (the testbench holds an instruction back while
            // the queue has no room for it); room for the queues to drain now and then.
            t = end
                + 5
                + match rng.below(3) {
                    0 => 6 * accessed + 40,
                    1 => 2 * accessed,
                    _ => rng.below(3) as usize,
                };
        }
        while inputs.len() < t + 400 {
            inputs.push(In::noise(lanes, &mut rng, sizes));
        }
        let port: Vec<(bool, u32, bool)> = (0..inputs.len())
            .map(|_| (rng.below(3) != 0, rng.below(24), rng.below(4) != 0))
            .collect();
        let input: String = inputs
            .iter()
            .zip(&port)
            .map(|(i, &p)| i.port_line(p) + "\n")
            .collect();
        let lines = run_events(&exe, &input);
        wrong.extend(check_unit(lanes, &cases, &lines, &flat, &mut met.requests));
        // Shared memory's bank conflicts, counted since the run's reset.
        met.conflicts += lines.last().map_or(0, |l| {
            u64::from_str_radix(l.split(' ').nth(19).expect("a field"), 16).expect("hex")
        });
        met.memory_faults += cases.iter().filter(|c| c.memory_fault.is_some()).count();
        done += n;
    }
    common::assert_cycles_agree(&format!("the load/store unit at {lanes} lanes"), &wrong);
    assert!(met.memory_faults > 0, "no global access failed");
    assert!(met.failed_stores > 0, "no store failed in global memory");
    assert!(
        met.shared > 0 && met.mixed > 0,
        "no instruction in both memories"
    );
    // (At 32 lanes, 32 banks: the lanes' addresses, a few elements apart, never conflict.)
    assert!(
        lanes != 8 || met.conflicts > 0,
        "no bank conflict in shared memory"
    );
    // Lanes share requests where they can: fewer requests than lane accesses.
    assert!(
        lanes == 1 || 10 * met.requests < 7 * met.port,
        "{} requests for {} accesses",
        met.requests,
        met.port
    );
    println!(
        "sgpu_lsu at {lanes} lanes: {done} instructions, {} lane accesses on the port in {} \
         requests, {} in shared memory ({} instructions in both, {} bank conflicts), {} failed \
         global accesses ({} stores), {:.1} s",
        met.port,
        met.requests,
        met.shared,
        met.mixed,
        met.conflicts,
        met.memory_faults,
        met.failed_stores,
        start.elapsed().as_secs_f64()
    );
}

/// One write-back beat, as the testbench printed it: (slot, beat, word, tag, lanes, data,
/// last, error, error's lane).
struct WbLine {
    slot: u32,
    beat: u32,
    word: u32,
    tag: u32,
    lanes: u32,
    data: Bits,
    last: bool,
    err: Option<u32>,
}

/// Every cycle's outputs against the cases: the beat stage's faults in order; each
/// write-back beat's lanes and values against its instruction's register writes (each
/// written once, all before the instruction's end), the ends in order and once each; each
/// failed global access's lane; and the bytes the taken requests wrote against the model's.
fn check_unit(
    lanes: u32,
    cases: &[Case],
    lines: &[String],
    flat: &Flat,
    requests: &mut usize,
) -> Vec<String> {
    let mut wrong = Vec::new();
    let want_faults: Vec<(u32, u32)> = cases.iter().filter_map(|c| c.beat_fault).collect();
    let mut faults = 0;
    let mut ended = 0; // the instructions ended, in order
    let mut writes: Vec<Writes> = vec![Writes::new(); cases.len()];
    let mut first_err: Vec<Option<u32>> = vec![None; cases.len()];
    let mut written: HashMap<u64, u8> = HashMap::new();
    for (t, line) in lines.iter().enumerate() {
        let v: Vec<&str> = line.split(' ').collect();
        let n = |i: usize| u64::from_str_radix(v[i], 16).expect("hexadecimal");
        if n(1) == 1 {
            let got = (n(2) as u32, n(3) as u32);
            if want_faults.get(faults) != Some(&got) {
                wrong.push(format!(
                    "cycle {t}: fault {got:x?}, expected {:x?}",
                    want_faults.get(faults)
                ));
            }
            faults += 1;
        }
        if n(4) == 1 {
            let (write, addr, be, data) = (n(5) == 1, n(6), n(7) as u16, Bits::parse(v[8]));
            *requests += 1;
            if addr % 16 != 0 {
                wrong.push(format!(
                    "cycle {t}: a request at {addr:#x}, not a block's start"
                ));
            }
            for j in 0..16u32 {
                // (The memory writes no block outside it: bit 63 set.)
                if write && be >> j & 1 == 1 && addr >> 63 == 0 {
                    written.insert(addr + u64::from(j), data.get(8 * j, 8) as u8);
                }
            }
        }
        if n(9) == 1 && n(20) == 1 {
            let got = WbLine {
                slot: n(10) as u32,
                beat: n(11) as u32,
                word: n(12) as u32,
                tag: n(13) as u32,
                lanes: n(14) as u32,
                data: Bits::parse(v[15]),
                last: n(16) == 1,
                err: (n(17) == 1).then_some(n(18) as u32),
            };
            let i = got.tag as usize;
            match cases.get(i) {
                Some(case) if i >= ended => {
                    if let Some(e) = take_beat(lanes, case, &got, &mut writes[i]) {
                        wrong.push(format!("cycle {t}: {e}\n  of {}", case.what));
                    }
                    if first_err[i].is_none() {
                        first_err[i] = got.err;
                    }
                    if got.last {
                        if i != ended {
                            wrong.push(format!("cycle {t}: instruction {i} ended before {ended}"));
                        }
                        ended = i + 1;
                    }
                }
                _ => wrong.push(format!(
                    "cycle {t}: a write-back beat of instruction {i}, which has ended \
                     or does not exist"
                )),
            }
        }
    }
    if faults != want_faults.len() || ended != cases.len() {
        wrong.push(format!(
            "{faults} faults and {ended} instructions ended, expected {} and {}",
            want_faults.len(),
            cases.len()
        ));
    }
    for (i, c) in cases.iter().enumerate() {
        if first_err[i] != c.memory_fault {
            wrong.push(format!(
                "instruction {i}: a failed global access at lane {:?}, expected {:?}",
                first_err[i], c.memory_fault
            ));
        }
        let checked = c.memory_fault.is_none();
        let missing = c
            .writes
            .keys()
            .filter(|k| !writes[i].contains_key(k))
            .count();
        let differ = c
            .writes
            .iter()
            .filter(|(k, v)| checked && writes[i].get(k).is_some_and(|g| g != *v))
            .count();
        if missing > 0 || differ > 0 || writes[i].len() != c.writes.len() {
            wrong.push(format!(
                "instruction {i}: {} register words written, expected {}; {missing} \
                 missing, {differ} wrong\n  {}",
                writes[i].len(),
                c.writes.len(),
                c.what
            ));
        }
    }
    if written != flat.bytes {
        let differ = flat
            .bytes
            .iter()
            .filter(|(a, v)| written.get(a) != Some(v))
            .count();
        wrong.push(format!(
            "memory: {} bytes written, the model {}; {differ} of the model's differ",
            written.len(),
            flat.bytes.len()
        ));
    }
    wrong
}

/// A write-back beat of `case` into its writes so far: what is wrong with it, if anything
/// (another warp slot, a register word written twice, an end not on the last beat).
fn take_beat(lanes: u32, case: &Case, got: &WbLine, writes: &mut Writes) -> Option<String> {
    if got.slot != case.slot {
        return Some(format!("warp slot {}, expected {}", got.slot, case.slot));
    }
    if got.last && got.beat != case.last_beat {
        return Some(format!("the end on beat {}", got.beat));
    }
    for k in (0..lanes).filter(|k| got.lanes >> k & 1 == 1) {
        let value = got.data.get(32 * k, 32) as u32;
        if writes.insert((got.beat, got.word, k), value).is_some() {
            return Some(format!(
                "beat {} word {} lane {k} written twice",
                got.beat, got.word
            ));
        }
    }
    None
}

#[test]
fn the_unit_agrees_with_the_model_before_a_memory_at_8_lanes() {
    unit_agree(8, 0x15b_1008);
}

#[test]
fn the_unit_agrees_with_the_model_before_a_memory_at_1_lane() {
    unit_agree(1, 0x15b_1001);
}

#[test]
fn the_unit_agrees_with_the_model_before_a_memory_at_32_lanes() {
    unit_agree(32, 0x15b_1020);
}
