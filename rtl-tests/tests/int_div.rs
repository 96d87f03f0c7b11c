//! `hw/sgpu_int_div.sv`, built with Verilator, divides as the golden model's IDIV does
//! (`sgpu_sim::exec::evaluate`, the oracle): every pair of edge values (zero, one, minus one,
//! the most negative and most positive, powers of two and their neighbours, a few random
//! values) in each of the eight forms (sgn, rem, w64), then random divisions of operands of
//! random lengths. The 32-bit forms get random high words, which they must ignore. Every
//! division takes exactly the latency the module documents.
//!
//! `RTL_TEST_CASES=2000000 cargo test -p rtl-tests --release --test int_div` runs more random
//! divisions (the default is 100,000). Verilator (5.006 or later) must be installed; without
//! it the test fails and says so.

mod common;

use common::{run, testbench, Rng};
use sgpu_isa::{Instruction, Op, Reg};
use sgpu_sim::exec::evaluate;
use std::fmt::Write as _;

const RTL: [&str; 2] = ["hw/sgpu_isa_pkg.sv", "hw/sgpu_int_div.sv"];
const TESTBENCH: &str = "rtl-tests/tb/int_div_tb.cpp";

/// Cycles from start_i to done_o, as the module's header says: 32 bits, 64 bits.
const LATENCY: [u32; 2] = [35, 67];

/// A value of random length, negated half the time, so that quotients of every size come
/// up (uniform operands mostly divide to zero or little).
fn operand(rng: &mut Rng) -> u64 {
    let v = rng.word() >> (rng.word() % 64);
    if rng.word() & 1 == 1 {
        v.wrapping_neg()
    } else {
        v
    }
}

/// One division: the form and the operands as the RTL sees them (a 32-bit form's high words
/// are noise).
#[derive(Clone, Copy, Debug)]
struct Case {
    sgn: bool,
    rem: bool,
    w64: bool,
    a: u64,
    b: u64,
}

impl Case {
    fn flags(self) -> u32 {
        u32::from(self.sgn) | u32::from(self.rem) << 1 | u32::from(self.w64) << 2
    }

    /// What the golden model writes: IDIV R4, R0, R2, the pairs' high words in R1, R3, R5.
    fn expected(self) -> u64 {
        let insn = Instruction::new(Op::Idiv {
            rd: Reg(4),
            ra: Reg(0),
            rb: Reg(2),
            sgn: self.sgn,
            rem: self.rem,
            w64: self.w64,
        });
        let mut regs = vec![(Reg(0), self.a as u32), (Reg(2), self.b as u32)];
        if self.w64 {
            regs.extend([
                (Reg(1), (self.a >> 32) as u32),
                (Reg(3), (self.b >> 32) as u32),
            ]);
        }
        let out = evaluate(insn, &regs, &[], false).expect("IDIV is evaluated");
        let want: &[Reg] = if self.w64 {
            &[Reg(4), Reg(5)]
        } else {
            &[Reg(4)]
        };
        assert_eq!(
            out.regs.iter().map(|&(r, _)| r).collect::<Vec<_>>(),
            want,
            "IDIV writes rd (and rd + 1 with w64)"
        );
        out.regs
            .iter()
            .enumerate()
            .fold(0, |acc, (k, &(_, v))| acc | u64::from(v) << (32 * k))
    }
}

/// Edge values of a width, as 64-bit patterns (a 32-bit one sign-extended, which the
/// testbench's noise then partly overwrites).
fn edges(bits: u32, rng: &mut Rng) -> Vec<u64> {
    let min = 1u64 << (bits - 1);
    let max = min - 1;
    let mut v = vec![0, 1, 2, 3, 7, 10, max, max - 1, min, min + 1];
    for k in 0..bits {
        let p = 1u64 << k;
        v.push(p);
        // The neighbours of some, where a carry crosses a half or a quarter.
        if k % 16 == 15 {
            v.extend([p - 1, p + 1]);
        }
    }
    let mut negatives: Vec<u64> = v.iter().map(|x| x.wrapping_neg()).collect();
    v.append(&mut negatives);
    v.extend((0..8).map(|_| operand(rng)));
    v.sort_unstable();
    v.dedup();
    v
}

fn cases() -> Vec<Case> {
    let random: usize = std::env::var("RTL_TEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut cases = Vec::new();
    for flags in 0..8u32 {
        let (sgn, rem, w64) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
        let values = edges(if w64 { 64 } else { 32 }, &mut rng);
        for &a in &values {
            for &b in &values {
                let noise = |v: u64, rng: &mut Rng| {
                    if w64 {
                        v
                    } else {
                        v & 0xffff_ffff | rng.word() << 32
                    }
                };
                let (a, b) = (noise(a, &mut rng), noise(b, &mut rng));
                cases.push(Case {
                    sgn,
                    rem,
                    w64,
                    a,
                    b,
                });
            }
        }
    }
    for _ in 0..random {
        let flags = rng.word();
        let b = match rng.word() % 16 {
            0 => 0,
            1 => u64::MAX,
            _ => operand(&mut rng),
        };
        cases.push(Case {
            sgn: flags & 1 != 0,
            rem: flags & 2 != 0,
            w64: flags & 4 != 0,
            a: operand(&mut rng),
            b,
        });
    }
    cases
}

#[test]
fn the_divider_divides_as_the_golden_model() {
    let exe = testbench("sgpu_int_div", &RTL, TESTBENCH);
    let cases = cases();
    let text = cases.iter().fold(String::new(), |mut s, c| {
        writeln!(s, "{:x} {:x} {:x}", c.flags(), c.a, c.b).unwrap();
        s
    });
    let lines = run(&exe, &text);

    let mut mismatches = Vec::new();
    for (case, line) in cases.iter().zip(&lines) {
        let (result, cycles) = line.split_once(' ').expect("a result and a cycle count");
        let result = u64::from_str_radix(result, 16).expect("a hexadecimal result");
        let cycles: u32 = cycles.parse().expect("a decimal cycle count");
        let want = case.expected();
        if result != want {
            mismatches.push(format!("{case:x?}: RTL {result:#x}, model {want:#x}"));
        }
        let latency = LATENCY[usize::from(case.w64)];
        if cycles != latency {
            mismatches.push(format!("{case:x?}: {cycles} cycles, documented {latency}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {} divisions, the first:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
}
