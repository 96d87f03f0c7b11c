//! `hw/sgpu_coalesce.sv`, core v2's coalescer (docs/adr/0008-core-v2-pipeline.md, "Memory"),
//! built with Verilator and driven cycle by cycle against a reference written from its
//! definition: a beat's active lanes are served in requests for aligned 16-byte blocks, the
//! lowest lane left leading each and every lane left in its block joining it, a request every
//! two cycles (compare, then send) out of a register held until taken; the next beat is taken
//! in the cycle the last request of the one before is sent.
//!
//! Beats are drawn from the patterns kernels make: consecutive elements of every size (1 to
//! 16 bytes), strides, broadcasts, a few blocks hit at random, addresses anywhere in the 64-bit
//! space (the top block included), with all, some, one or no lane active; the memory side
//! takes requests at random. Checked every cycle: `in_ready_o`, and each request's block,
//! lanes, bytes and last flag; and that a beat costs as many requests as it has distinct
//! blocks. `RTL_TEST_CYCLES=N` runs N cycles a configuration (30,000 by default). Verilator
//! (5.006 or later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, hex_values, run, testbench_with, Bits, Rng};

const RTL: [&str; 1] = ["hw/sgpu_coalesce.sv"];
const TESTBENCH: &str = "rtl-tests/tb/coalesce_tb.cpp";

#[derive(Clone, Debug, PartialEq)]
struct Beat {
    addr: Vec<u64>,
    lanes: u64,
    size: u32, // log2 of the bytes
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Request {
    block: u64,
    lanes: u64,
    bytes: u16,
    last: bool,
}

impl Beat {
    fn random(lanes: u32, rng: &mut Rng) -> Beat {
        let size = (rng.word() % 5) as u32;
        let bytes = 1u64 << size;
        let align = |a: u64| a & !(bytes - 1);
        let base = match rng.word() % 8 {
            0 => u64::MAX - 15,              // the top block
            1 => align(rng.word()),          // anywhere
            _ => align(rng.word() % 0x1000), // low memory
        };
        let few: Vec<u64> = (0..3).map(|_| rng.word() % 0x40 * 16).collect();
        let stride = bytes * [1, 2, 4, 8, 32][(rng.word() % 5) as usize];
        let pattern = rng.word() % 6;
        let addr = (0..u64::from(lanes))
            .map(|k| match pattern {
                0 | 1 => base.wrapping_add(k * bytes),
                2 => base.wrapping_add(k * stride),
                3 => base,
                4 => few[(rng.word() % 3) as usize] + align(rng.word() % 16),
                _ => align(rng.word()),
            })
            .collect();
        let all = if lanes == 64 {
            u64::MAX
        } else {
            (1 << lanes) - 1
        };
        let active = match rng.word() % 10 {
            0 => 0,
            1 => 1 << (rng.word() % u64::from(lanes)),
            2..=4 => rng.word() & all,
            _ => all,
        };
        Beat {
            addr,
            lanes: active,
            size,
        }
    }

    fn bytes(&self, k: usize) -> u16 {
        let n = 1u32 << self.size;
        (((1u32 << n) - 1) << (self.addr[k] & 15)) as u16
    }

    /// The beat's requests, in order.
    fn requests(&self) -> Vec<Request> {
        let mut left = self.lanes;
        let mut out = Vec::new();
        while left != 0 {
            let leader = left.trailing_zeros() as usize;
            let block = self.addr[leader] >> 4;
            let joins: u64 = (0..self.addr.len())
                .filter(|&k| left >> k & 1 == 1 && self.addr[k] >> 4 == block)
                .map(|k| 1 << k)
                .sum();
            let bytes = (0..self.addr.len())
                .filter(|&k| joins >> k & 1 == 1)
                .fold(0, |b, k| b | self.bytes(k));
            left &= !joins;
            out.push(Request {
                block,
                lanes: joins,
                bytes,
                last: left == 0,
            });
        }
        out
    }
}

/// What the module shows in a cycle.
#[derive(Debug, PartialEq)]
struct Shown {
    in_ready: bool,
    req: Option<Request>,
}

/// The reference, a cycle at a time: the requests of the beat being served still to be
/// sent, whether the first of them has been compared (sent from the next cycle it can be),
/// and the output register.
#[derive(Default)]
struct Reference {
    left: Vec<Request>,
    compared: bool,
    out: Option<Request>,
}

impl Reference {
    fn step(&mut self, beat: Option<&Beat>, req_ready: bool) -> Shown {
        let shown = self.out;
        let advance = self.out.is_none() || req_ready;
        let send = self.compared && advance;
        let in_ready = self.left.is_empty() || send && self.left.len() == 1;
        if advance {
            self.out = send.then(|| self.left.remove(0));
        }
        self.compared = !send && !self.left.is_empty();
        if let Some(b) = beat.filter(|_| in_ready) {
            self.left = b.requests();
            self.compared = false;
        }
        Shown {
            in_ready,
            req: shown,
        }
    }
}

fn check(lanes: u32, cycles: usize, seed: u64) {
    let exe = testbench_with("sgpu_coalesce", &RTL, TESTBENCH, &[("LANES", lanes)]);
    let mut rng = Rng::new(seed);
    let mut model = Reference::default();
    let (mut inputs, mut expected) = (Vec::new(), Vec::new());
    let mut beat: Option<Beat> = None;
    let (mut beats, mut requests, mut lanes_served) = (0, 0, 0);
    // Busy stretches and quiet ones, on both sides.
    let mut busy = true;
    for _ in 0..cycles {
        if rng.word().is_multiple_of(50) {
            busy = !busy;
        }
        if beat.is_none() && (busy || rng.word().is_multiple_of(8)) {
            beat = Some(Beat::random(lanes, &mut rng));
        }
        let req_ready = !rng.word().is_multiple_of(if busy { 8 } else { 2 });
        let shown = model.step(beat.as_ref(), req_ready);
        let mut addr = Bits::default();
        let b = beat.clone().unwrap_or(Beat {
            addr: vec![0; lanes as usize],
            lanes: 0,
            size: 0,
        });
        for (k, &a) in b.addr.iter().enumerate() {
            addr.put(64 * k as u32, 32, a & 0xffff_ffff);
            addr.put(64 * k as u32 + 32, 32, a >> 32);
        }
        inputs.push(
            [
                Bits::of(beat.is_some().into(), 1),
                addr.hex(),
                Bits::of(b.lanes, lanes),
                Bits::of(b.size.into(), 3),
                // The lowest lane's block, as the load/store unit queues it.
                Bits::of(
                    b.addr[b.lanes.trailing_zeros().min(lanes - 1) as usize] >> 4,
                    60,
                ),
                Bits::of(req_ready.into(), 1),
            ]
            .join(" ")
                + "\n",
        );
        if beat.is_some() && shown.in_ready {
            beats += 1;
            requests += b.requests().len();
            lanes_served += b.lanes.count_ones();
            beat = None;
        }
        expected.push(shown);
    }
    let lines = run(&exe, &inputs.concat());
    assert_eq!(lines.len(), cycles, "one line a cycle");
    for (t, (line, want)) in lines.iter().zip(&expected).enumerate() {
        let f = hex_values(line);
        let got = Shown {
            in_ready: f[0] == 1,
            req: (f[1] == 1).then(|| Request {
                block: f[2],
                lanes: f[3],
                bytes: f[4] as u16,
                last: f[5] == 1,
            }),
        };
        assert_eq!(&got, want, "{lanes} lanes, cycle {t}");
    }
    println!(
        "{lanes} lanes: {cycles} cycles, {beats} beats, {lanes_served} lane accesses in \
         {requests} requests"
    );
    assert!(requests > cycles / 10, "too little exercised");
}

#[test]
fn a_beat_is_served_in_one_request_a_block() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 30_000) as usize;
    for (i, lanes) in [8, 1, 32, 16].into_iter().enumerate() {
        check(lanes, cycles, 0x8a2e_0370_7344_a409 ^ i as u64);
    }
}
