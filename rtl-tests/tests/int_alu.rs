//! `hw/sgpu_int_alu.sv`, built with Verilator, computes what the golden model computes
//! (`sgpu_sim::exec::evaluate`) in one lane: random valid instructions of every opcode it
//! implements, with random values in every field they use, on operands biased to the edges
//! (0, 1, the extremes of both signednesses, small shift counts and bit positions, equal
//! operands, RZ), with random carry and predicates. Every output the instruction defines
//! must match: rd (and rd+1 for IMADW) unless it is RZ, the carry with `.cc`, pd and pq. The
//! ALU must give zeros for every other opcode. Registers the instruction does not read (an
//! immediate's field, an opcode without rb) reach the ALU as random values, to show it
//! ignores them.
//!
//! `RTL_TEST_CASES=2000000 cargo test -p rtl-tests --test int_alu --release` runs more cases
//! (the default is 200,000). Verilator (5.006 or later) must be installed; without it the
//! test fails and says so.

mod common;

use common::{hex_values, Rng};
use sgpu_isa::{decode, field, fields, Field, Instruction, Op, Pred, Reg, INSTRUCTIONS};
use sgpu_sim::exec::{evaluate, Evaluated};
use sgpu_sim::warp::reg_at;
use std::fmt::Write as _;

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_int_alu.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/int_alu_tb.cpp";

/// The instructions the ALU computes; it gives zeros for the others.
const OPS: [&str; 27] = [
    "MOV", "MOV32I", "SEL", "PLOP", "IADD", "IADD32I", "IMUL", "IMUL32I", "IMAD", "IMADW", "IMNMX",
    "IABS", "ISETP", "LOP3", "LOP32I", "SHL", "SHR", "SHF", "BFE", "BFI", "POPC", "CLZ", "FLO",
    "BREV", "PRMT", "PRMTI", "I2I",
];

const EDGES: [u32; 9] = [
    0,
    1,
    2,
    0x7fff_fffe,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
];

/// One case: the word and what the ALU's inputs hold.
struct Case {
    word: u64,
    insn: Instruction,
    a: u32,
    b: u32,
    c: u32,
    c_hi: u32,
    carry: bool,
    pa: bool,
    pc: bool,
    /// The registers read, for the golden model.
    regs: Vec<(Reg, u32)>,
    preds: Vec<(Pred, bool)>,
}

impl Case {
    fn input_line(&self) -> String {
        let bits = u32::from(self.carry) | u32::from(self.pa) << 1 | u32::from(self.pc) << 2;
        format!(
            "{:x} {:x} {:x} {:x} {:x} {bits:x}\n",
            self.word, self.a, self.b, self.c, self.c_hi
        )
    }

    fn describe(&self) -> String {
        format!(
            "{} ({:#018x}) with a {:#x}, b {:#x}, c {:#x}, c_hi {:#x}, carry {}, pa {}, pc {}",
            self.insn,
            self.word,
            self.a,
            self.b,
            self.c,
            self.c_hi,
            u8::from(self.carry),
            u8::from(self.pa),
            u8::from(self.pc)
        )
    }
}

/// An operand value, often an edge.
fn value(rng: &mut Rng) -> u32 {
    match rng.word() % 8 {
        0 | 1 => EDGES[(rng.word() % EDGES.len() as u64) as usize],
        // Shift counts, bit positions and lengths, PRMT's small selectors.
        2 => (rng.word() % 71) as u32,
        // BFI's position and length.
        3 => (rng.word() % 40) as u32 | ((rng.word() % 40) as u32) << 8,
        4 => ((rng.word() % 71) as u32).wrapping_neg(),
        _ => rng.word() as u32,
    }
}

/// A valid word of the instruction `(op, used)` with random bits in every field it uses,
/// guarded by PT; register fields are often RZ or R254 (whose pair's second is RZ), a
/// 32-bit immediate often an edge.
fn word(rng: &mut Rng, op: u8, used: u64) -> (u64, Instruction) {
    let fixed = fields::OP.mask() | fields::PG.mask() | fields::PGN.mask();
    loop {
        let mut word =
            rng.word() & used & !fixed | u64::from(op) | u64::from(Pred::PT.0) << fields::PG.lsb;
        for f in [fields::RA, fields::RB, fields::RC] {
            if used & f.mask() == f.mask() && rng.word().is_multiple_of(8) {
                let r = if rng.word().is_multiple_of(4) {
                    254
                } else {
                    Reg::RZ.0
                };
                word = word & !f.mask() | u64::from(r) << f.lsb;
            }
        }
        let imm = fields::IMM32.mask();
        if used & imm == imm && rng.word().is_multiple_of(4) {
            word = word & !imm | u64::from(value(rng)) << fields::IMM32.lsb;
        }
        if let Ok(insn) = decode(word) {
            return (word, insn);
        }
    }
}

/// `r`'s value: 0 for RZ, what an earlier operand gave it, else `fresh`.
fn read(regs: &mut Vec<(Reg, u32)>, r: Reg, fresh: u32) -> u32 {
    if r == Reg::RZ {
        return 0;
    }
    if let Some(&(_, v)) = regs.iter().find(|&&(g, _)| g == r) {
        return v;
    }
    regs.push((r, fresh));
    fresh
}

fn case(rng: &mut Rng, op: u8, used: u64) -> Case {
    let (word, insn) = word(rng, op, used);
    let reg = |f: Field| Reg(field(word, f) as u8);
    let mut regs = Vec::new();
    let a = read(&mut regs, reg(fields::RA), value(rng));
    // Often equal operands, for the comparisons.
    let fresh = if rng.word().is_multiple_of(8) {
        a
    } else {
        value(rng)
    };
    let b = read(&mut regs, reg(fields::RB), fresh);
    let c = read(&mut regs, reg(fields::RC), value(rng));
    let c_hi = read(&mut regs, reg_at(reg(fields::RC), 1), value(rng));
    let bits = rng.word();
    let preds: Vec<(Pred, bool)> = (0..Pred::PT.0)
        .map(|p| (Pred(p), bits >> p & 1 != 0))
        .collect();
    let pred = |p: u64| p == u64::from(Pred::PT.0) || bits >> p & 1 != 0;
    Case {
        word,
        insn,
        a,
        b,
        c,
        c_hi,
        carry: bits >> 8 & 1 != 0,
        pa: pred(field(word, fields::PA)) != (field(word, fields::PAN) != 0),
        pc: pred(field(word, fields::PC)) != (field(word, fields::PCN) != 0),
        regs,
        preds,
    }
}

/// Where the RTL's outputs (d, d_hi, carry, pd, pq) differ from what the golden model
/// wrote.
fn differences(insn: Instruction, want: &Evaluated, rtl: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    // Writes to RZ vanish (the model reads them back as 0).
    for (k, &(r, v)) in want.regs.iter().enumerate() {
        let (name, got) = [("d", rtl[0]), ("d_hi", rtl[1])][k];
        if r != Reg::RZ && got != u64::from(v) {
            out.push(format!("{name} ({r}) {v:#x}, RTL {got:#x}"));
        }
    }
    if let Some(v) = want.carry {
        if rtl[2] != u64::from(v) {
            out.push(format!("carry {}, RTL {}", u8::from(v), rtl[2]));
        }
    }
    // ISETP writes pq after pd: when they are one predicate, the model holds pq's value.
    for &(p, v) in &want.preds {
        let (name, got) = match insn.op {
            Op::Isetp { pq, .. } if p == pq => ("pq", rtl[4]),
            _ => ("pd", rtl[3]),
        };
        if got != u64::from(v) {
            out.push(format!("{name} ({p}) {}, RTL {got}", u8::from(v)));
        }
    }
    out
}

#[test]
fn the_integer_alu_computes_what_the_golden_model_does() {
    let cases: usize = std::env::var("RTL_TEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let alu: Vec<(&str, u8, u64)> = OPS
        .iter()
        .map(|name| {
            *INSTRUCTIONS
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("no instruction {name}"))
        })
        .collect();
    let others: Vec<(&str, u8, u64)> = INSTRUCTIONS
        .iter()
        .filter(|(n, _, _)| !OPS.contains(n))
        .copied()
        .collect();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    // One case in 32 is another unit's instruction, which must give zeros.
    let cases: Vec<(Case, Option<Evaluated>)> = (0..cases)
        .map(|_| {
            if rng.word().is_multiple_of(32) {
                let (_, op, used) = others[(rng.word() % others.len() as u64) as usize];
                (case(&mut rng, op, used), None)
            } else {
                let (_, op, used) = alu[(rng.word() % alu.len() as u64) as usize];
                let case = case(&mut rng, op, used);
                let want = evaluate(case.insn, &case.regs, &case.preds, case.carry)
                    .unwrap_or_else(|| panic!("the model cannot evaluate {}", case.describe()));
                (case, Some(want))
            }
        })
        .collect();

    let exe = common::testbench("sgpu_int_alu", &RTL, TESTBENCH);
    let input = cases.iter().fold(String::new(), |mut s, (case, _)| {
        s.write_str(&case.input_line()).unwrap();
        s
    });
    let lines = common::run(&exe, &input);

    let mut mismatches = Vec::new();
    let mut tested = vec![0usize; OPS.len()];
    for ((case, want), line) in cases.iter().zip(&lines) {
        let rtl = hex_values(line);
        let wrong = match want {
            Some(want) => {
                let name = case.insn.op.mnemonic();
                tested[OPS.iter().position(|&n| n == name).expect("an ALU opcode")] += 1;
                differences(case.insn, want, &rtl)
            }
            None if rtl.iter().any(|&v| v != 0) => vec![format!("not zeros: RTL {line}")],
            None => Vec::new(),
        };
        if !wrong.is_empty() {
            mismatches.push(format!("{}: {}", case.describe(), wrong.join(", ")));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {} cases, the first:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    // Every opcode had its share, so the comparison said something about each.
    let least = cases.len() / OPS.len() / 4;
    for (name, n) in OPS.iter().zip(&tested) {
        assert!(*n >= least, "only {n} cases of {name}");
    }
}
