//! `hw/sgpu_head_decode.sv`, core v2's decode of a new head for the scoreboard
//! (docs/adr/0008-core-v2-pipeline.md, "Decode"), built with Verilator, against the Rust
//! decoder's `Op::roles` (the same `role` lines of isa/sgpu.isa, generated into Rust): for
//! every legal word, the register ranges read (in field order, RZ none), the range written
//! (only `rd` is ever written, which the scoreboard's one written range relies on: checked
//! here), the predicates read (the guard's included unless PT) and written, and carry read
//! and written. The words: random encodings of every instruction with random bits in every
//! field it uses, and every value of every field of up to 6 bits in each.
//! `RTL_TEST_WORDS=N` runs N random encodings (200,000 by default). Verilator (5.006 or
//! later) must be installed; without it the test fails and says so.

mod common;

use common::{count_from_env, hex_values, run, testbench, Rng};
use sgpu_isa::{decode, fields, Instruction, Pred, Reg, INSTRUCTIONS};
use std::fmt::Write as _;

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_head_decode.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/head_decode_tb.cpp";

/// What the scoreboard is to be told of an instruction, as the testbench prints it.
#[derive(Debug, PartialEq)]
struct Head {
    reads: u64,
    pred_reads: u64,
    writes: u64,
    pred_writes: u64,
}

fn pred_bit(p: Pred) -> u64 {
    if p == Pred::PT {
        0
    } else {
        1 << p.0
    }
}

/// The head as `Op::roles` gives it.
fn expected(insn: &Instruction) -> Head {
    let roles = insn.op.roles();
    let range = |first: Reg, count: u8| u64::from(first.0) | u64::from(count) << 8;
    let mut head = Head {
        reads: 0,
        pred_reads: pred_bit(insn.guard.pred) | u64::from(roles.carry_read) << 7,
        writes: 0,
        pred_writes: u64::from(roles.carry_write) << 7,
    };
    let mut slot = 0;
    for f in [fields::RD, fields::RA, fields::RB, fields::RC] {
        for r in roles.regs.iter().flatten().filter(|r| r.field == f) {
            if r.write {
                assert_eq!(
                    f,
                    fields::RD,
                    "{insn:?}: a register field other than rd written"
                );
                head.writes = range(r.first, r.count);
            } else {
                head.reads |= range(r.first, r.count) << (11 * slot);
                slot += 1;
            }
        }
    }
    for p in roles.preds.iter().flatten() {
        if p.write {
            head.pred_writes |= pred_bit(p.pred);
        } else {
            head.pred_reads |= pred_bit(p.pred);
        }
    }
    head
}

/// Legal words: random encodings, and every value of each small field.
fn words() -> Vec<u64> {
    let mut rng = Rng::new(0x243f_6a88_85a3_08d3);
    let random = count_from_env("RTL_TEST_WORDS", 200_000);
    let mut words = Vec::new();
    for _ in 0..random {
        let (_, op, used) = INSTRUCTIONS[(rng.word() % INSTRUCTIONS.len() as u64) as usize];
        words.push(rng.word() & used & !0xff | u64::from(op));
    }
    for &(_, op, used) in &INSTRUCTIONS {
        for f in fields::ALL
            .iter()
            .filter(|f| f.name != "op" && f.width() <= 6)
        {
            if used & f.mask() != f.mask() {
                continue;
            }
            let base = rng.word() & used & !0xff & !f.mask() | u64::from(op);
            words.extend((0..1u64 << f.width()).map(|v| base | v << f.lsb));
        }
    }
    words.retain(|&w| decode(w).is_ok());
    words
}

#[test]
fn a_head_reads_and_writes_what_its_role_says() {
    let exe = testbench("sgpu_head_decode", &RTL, TESTBENCH);
    let words = words();
    let input = words.iter().fold(String::new(), |mut s, w| {
        writeln!(s, "{w:x}").unwrap();
        s
    });
    let lines = run(&exe, &input);
    assert_eq!(lines.len(), words.len(), "one line a word");
    let (mut preds, mut carries, mut mismatches) = (0, 0, Vec::new());
    for (&word, line) in words.iter().zip(&lines) {
        let f = hex_values(line);
        let got = Head {
            reads: f[0],
            pred_reads: f[1],
            writes: f[2],
            pred_writes: f[3],
        };
        let insn = decode(word).expect("legal words only");
        let want = expected(&insn);
        preds += usize::from(want.pred_writes & 0x7f != 0);
        carries += usize::from((want.pred_reads | want.pred_writes) >> 7 != 0);
        if got != want {
            mismatches.push(format!(
                "{word:#018x} ({:?}): RTL {got:?}, roles {want:?}",
                insn.op
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {} words, the first:\n{}",
        mismatches.len(),
        words.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    println!(
        "{} legal words: {preds} writing predicates, {carries} reading or writing carry",
        words.len()
    );
    assert!(preds > 1000 && carries > 1000, "too little exercised");
}
