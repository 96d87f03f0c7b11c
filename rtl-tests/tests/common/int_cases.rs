//! Random cases of the integer unit's instructions for the ALU tests (int_alu.rs, the first
//! core's one-cycle ALU, and lane_alu.rs, core v2's pipelined lane ALU): valid words of an
//! opcode with random bits in every field they use, operands biased to the edges, and what
//! the golden model (`sgpu_sim::exec::evaluate`) writes for them.

use super::Rng;
use sgpu_isa::{decode, field, fields, Field, Instruction, Op, Pred, Reg};
use sgpu_sim::exec::{evaluate, Evaluated};
use sgpu_sim::warp::reg_at;

/// The instructions every lane of core v2 computes (`sgpu_lane_alu`; the shared unit
/// computes the integer unit's others).
pub const LANE_OPS: [&str; 18] = [
    "MOV", "MOV32I", "SEL", "PLOP", "IADD", "IADD32I", "IMUL", "IMUL32I", "IMAD", "IMADW", "IMNMX",
    "IABS", "ISETP", "LOP3", "LOP32I", "SHL", "SHR", "SHF",
];

/// The integer unit's instructions the lanes leave to the shared unit (`sgpu_shared_int`,
/// `sgpu_core_pkg::shared_op`).
pub const SHARED_OPS: [&str; 9] = [
    "BFE", "BFI", "POPC", "CLZ", "FLO", "BREV", "PRMT", "PRMTI", "I2I",
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
pub struct Case {
    pub word: u64,
    pub insn: Instruction,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub c_hi: u32,
    pub carry: bool,
    pub pa: bool,
    pub pc: bool,
    /// The registers read, for the golden model.
    pub regs: Vec<(Reg, u32)>,
    pub preds: Vec<(Pred, bool)>,
}

impl Case {
    pub fn input_line(&self) -> String {
        let bits = u32::from(self.carry) | u32::from(self.pa) << 1 | u32::from(self.pc) << 2;
        format!(
            "{:x} {:x} {:x} {:x} {:x} {bits:x}\n",
            self.word, self.a, self.b, self.c, self.c_hi
        )
    }

    pub fn describe(&self) -> String {
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
pub fn word(rng: &mut Rng, op: u8, used: u64) -> (u64, Instruction) {
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

/// A thread's register operands of `word`: ra, rb, rc and rc+1 as the ALU reads them,
/// each register one value however often it is read (RZ reads 0), values often edges and
/// rb often ra; and the registers for the golden model.
pub struct Operands {
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub c_hi: u32,
    pub regs: Vec<(Reg, u32)>,
}

pub fn operands(rng: &mut Rng, word: u64) -> Operands {
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
    Operands {
        a,
        b,
        c,
        c_hi,
        regs,
    }
}

pub fn case(rng: &mut Rng, op: u8, used: u64) -> Case {
    let (word, insn) = word(rng, op, used);
    let Operands {
        a,
        b,
        c,
        c_hi,
        regs,
    } = operands(rng, word);
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

/// `count` cases of the instructions `ops` (from [`super::instructions`]), with what the
/// model writes, and one in `foreign_every` (if any) of the instructions `others` instead,
/// with `None`: the ALU must give zeros for them, or refuse them.
pub fn cases(
    rng: &mut Rng,
    count: usize,
    ops: &[(&str, u8, u64)],
    others: &[(&str, u8, u64)],
    foreign_every: Option<u64>,
) -> Vec<(Case, Option<Evaluated>)> {
    (0..count)
        .map(|_| {
            if foreign_every.is_some_and(|n| rng.word().is_multiple_of(n)) {
                let (_, op, used) = others[(rng.word() % others.len() as u64) as usize];
                (case(rng, op, used), None)
            } else {
                let (_, op, used) = ops[(rng.word() % ops.len() as u64) as usize];
                let case = case(rng, op, used);
                let want = evaluate(case.insn, &case.regs, &case.preds, case.carry)
                    .unwrap_or_else(|| panic!("the model cannot evaluate {}", case.describe()));
                (case, Some(want))
            }
        })
        .collect()
}

/// What is wrong with the outputs `rtl` (d, d_hi, carry, pd, pq) of `case`: a difference
/// from the model's `want`, or for another unit's instruction any output not zero. Counts
/// the case's opcode in `tested` (by its place in `names`).
pub fn check(
    case: &Case,
    want: &Option<Evaluated>,
    rtl: &[u64],
    names: &[&str],
    tested: &mut [usize],
) -> Option<String> {
    let wrong = match want {
        Some(want) => {
            let name = case.insn.op.mnemonic();
            tested[names
                .iter()
                .position(|&n| n == name)
                .expect("an ALU opcode")] += 1;
            differences(case.insn, want, rtl)
        }
        None if rtl.iter().any(|&v| v != 0) => vec![format!("not zeros: RTL {rtl:x?}")],
        None => Vec::new(),
    };
    (!wrong.is_empty()).then(|| format!("{}: {}", case.describe(), wrong.join(", ")))
}

/// Fails with the first mismatches, or when an opcode of `names` had less than a quarter of
/// its share of `total` cases (so that the comparison said something about each).
pub fn assert_agree(mismatches: &[String], total: usize, names: &[&str], tested: &[usize]) {
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {} cases, the first:\n{}",
        mismatches.len(),
        total,
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    let least = total / names.len() / 4;
    for (name, n) in names.iter().zip(tested) {
        assert!(*n >= least, "only {n} cases of {name}");
    }
}
