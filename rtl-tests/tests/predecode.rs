//! `hw/sgpu_predecode.sv`, built with Verilator, and the Rust decoder (`sgpu_isa::decode`)
//! see the same words alike: the RTL flags exactly the words the decoder rejects, and slices
//! the fixed fields as the table places them. The words: random ones over all 64 bits, random
//! valid encodings with each bit flipped in turn, and every value of every field of up to 6
//! bits (so every enumeration's end) in every instruction.
//!
//! `RTL_TEST_WORDS=10000000 cargo test -p rtl-tests --release` runs more random words (the
//! default is 100,000). Verilator (5.006 or later) must be installed; without it the test
//! fails and says so.

mod common;

use common::{hex_values, Rng};
use sgpu_isa::{decode, field, fields, Field, INSTRUCTIONS};
use std::fmt::Write as _;

const RTL: [&str; 2] = ["hw/sgpu_isa_pkg.sv", "hw/sgpu_predecode.sv"];
const TESTBENCH: &str = "rtl-tests/tb/predecode_tb.cpp";

/// What the testbench prints per word, in its order.
const OUTPUTS: [Field; 9] = [
    fields::OP,
    fields::PG,
    fields::PGN,
    fields::RD,
    fields::RA,
    fields::RB,
    fields::RC,
    fields::BI,
    fields::CI,
];

/// An encoding of a random instruction with random bits in every field it uses (an
/// enumerated field may hold no value, so not always valid).
fn encoding(rng: &mut Rng) -> u64 {
    let (_, op, used) = INSTRUCTIONS[(rng.word() % INSTRUCTIONS.len() as u64) as usize];
    rng.word() & used & !0xff | u64::from(op)
}

/// The words both sides see.
fn words() -> Vec<u64> {
    let random: usize = std::env::var("RTL_TEST_WORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut words: Vec<u64> = (0..random).map(|_| rng.word()).collect();
    for _ in 0..1000 {
        let word = encoding(&mut rng);
        words.push(word);
        words.extend((0..64).map(|bit| word ^ 1 << bit));
    }
    for &(_, op, used) in &INSTRUCTIONS {
        for f in fields::ALL
            .iter()
            .filter(|f| f.name != "op" && f.width() <= 6)
        {
            let mask = f.mask();
            if used & mask != mask {
                continue;
            }
            let base = rng.word() & used & !0xff & !mask | u64::from(op);
            words.extend((0..1u64 << f.width()).map(|v| base | v << f.lsb));
        }
    }
    words
}

/// Where the RTL's unit, written fields and register counts (`rtl`, in the testbench's
/// order) differ from the table's roles as Rust generates them. RZ names no register in
/// Rust's roles; the RTL counts it, and the scoreboard ignores it.
fn roles_mismatch(word: u64, op: sgpu_isa::Op, rtl: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    if rtl[0] != op.unit() as u64 {
        out.push(format!(
            "{word:#018x}: RTL unit {}, table {:?}",
            rtl[0],
            op.unit()
        ));
    }
    let roles = op.roles();
    for (k, f) in [fields::RD, fields::RA, fields::RB, fields::RC]
        .into_iter()
        .enumerate()
    {
        if field(word, f) == 0xff {
            continue;
        }
        let role = roles.regs.iter().flatten().find(|r| r.field == f);
        let (count, write) = role.map_or((0, false), |r| (u64::from(r.count), r.write));
        let (rtl_count, rtl_write) = (rtl[2 + k], rtl[1] >> k & 1 == 1);
        if rtl_count != count || (count > 0 && rtl_write != write) {
            out.push(format!(
                "{word:#018x} ({op:?}): `{}` RTL {rtl_count} registers (write {rtl_write}), table {count} (write {write})",
                f.name
            ));
        }
    }
    out
}

#[test]
fn the_predecoder_rejects_exactly_what_the_decoder_rejects() {
    let exe = common::testbench("sgpu_predecode", &RTL, TESTBENCH);
    let words = words();
    let input = words.iter().fold(String::new(), |mut s, w| {
        writeln!(s, "{w:x}").unwrap();
        s
    });
    let lines = common::run(&exe, &input);

    let mut mismatches = Vec::new();
    let mut illegal_count = 0;
    for (&word, line) in words.iter().zip(lines) {
        let values = hex_values(&line);
        let rust = decode(word);
        let rtl_illegal = values[0] != 0;
        illegal_count += usize::from(rtl_illegal);
        if rtl_illegal != rust.is_err() {
            mismatches.push(format!(
                "{word:#018x}: RTL illegal = {rtl_illegal}, Rust: {rust:?}"
            ));
        }
        for (f, &v) in OUTPUTS.iter().zip(&values[1..]) {
            if v != field(word, *f) {
                mismatches.push(format!("{word:#018x}: RTL `{}` = {v:#x}", f.name));
            }
        }
        if let Ok(insn) = rust {
            mismatches.extend(roles_mismatch(word, insn.op, &values[10..]));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {} words, the first:\n{}",
        mismatches.len(),
        words.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    // Both kinds of word were well represented, so the comparison said something.
    let legal_count = words.len() - illegal_count;
    assert!(
        legal_count > 10_000 && illegal_count > 10_000,
        "{legal_count} legal, {illegal_count} illegal words"
    );
}
