//! Encoding vectors (LLVM MC style), round trips over random fields, and the errors.

use crate::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

const VECTORS: &str = include_str!("../vectors.txt");

fn vectors() -> impl Iterator<Item = (u64, &'static str)> {
    VECTORS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (word, text) = l.split_once(char::is_whitespace).unwrap();
            let word = u64::from_str_radix(word.trim_start_matches("0x"), 16).unwrap();
            (word, text.trim())
        })
}

#[test]
fn vectors_encode_decode_print_and_parse() {
    for (word, text) in vectors() {
        let parsed: Instruction = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.encode(), Ok(word), "{text}: encoding");
        let decoded = decode(word).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(decoded, parsed, "{text}: decoding");
        assert_eq!(decoded.to_string(), text, "{word:#018x}: printing");
    }
}

#[test]
fn every_instruction_has_a_vector() {
    let covered: BTreeSet<&str> = vectors()
        .map(|(w, _)| decode(w).unwrap().op.mnemonic())
        .collect();
    let missing: Vec<&str> = INSTRUCTIONS
        .iter()
        .map(|(m, _, _)| *m)
        .filter(|m| !covered.contains(m))
        .collect();
    assert!(missing.is_empty(), "no vector for {missing:?}");
}

#[test]
fn the_table_fits_a_one_cycle_decoder() {
    // The opcode alone names the instruction; every field sits at a fixed place.
    let opcodes: BTreeSet<u8> = INSTRUCTIONS.iter().map(|(_, op, _)| *op).collect();
    assert_eq!(opcodes.len(), INSTRUCTIONS.len());
    for (mnemonic, op, used) in INSTRUCTIONS {
        assert_eq!(
            used & 0xfff,
            0xfff,
            "{mnemonic}: opcode and guard are always used"
        );
        let word = u64::from(op) | 0x700;
        let reserved = !used;
        if reserved != 0 {
            // Setting any reserved bit makes the word invalid.
            let bit = reserved.trailing_zeros();
            assert!(matches!(
                decode(word | 1 << bit),
                Err(DecodeError::Reserved { .. }) | Err(DecodeError::BadValue { .. })
            ));
        }
    }
}

#[test]
fn bad_words_are_reported() {
    assert_eq!(decode(0xff), Err(DecodeError::Opcode(0xff)));
    // NOP with bit 63 set.
    assert_eq!(
        decode(0x8000_0000_0000_0700),
        Err(DecodeError::Reserved {
            mnemonic: "NOP",
            bits: 1 << 63
        })
    );
    // ISETP's icmp field (46:44) holding 7, one past `ge`.
    let isetp = "ISETP.LT.AND P0, PT, R4, R5, PT"
        .parse::<Instruction>()
        .unwrap();
    let word = isetp.encode().unwrap() | 0b111 << 44;
    assert_eq!(
        decode(word),
        Err(DecodeError::BadValue {
            mnemonic: "ISETP",
            field: "icmp"
        })
    );
    assert_eq!(
        DecodeError::Opcode(0xff).to_string(),
        "no instruction has opcode 0xff"
    );
}

#[test]
fn branch_targets_are_whole_instructions() {
    let bra = |target| Instruction::new(Op::Bra { target, uni: false });
    let word = bra(-16).encode().unwrap();
    assert_eq!(decode(word), Ok(bra(-16)));
    for misaligned in [1, 4, -12] {
        let bad = word & 0xffff_ffff | (misaligned as u32 as u64) << 32;
        assert_eq!(
            decode(bad),
            Err(DecodeError::BadValue {
                mnemonic: "BRA",
                field: "target"
            })
        );
        let err = bra(misaligned).encode().unwrap_err();
        assert_eq!(
            (err.field, err.value),
            (fields::TARGET, i64::from(misaligned))
        );
    }
    assert_eq!(
        bra(12).encode().unwrap_err().to_string(),
        "12 does not fit the 32-bit field `target` (-2147483648..=2147483647, a multiple of 8)"
    );
}

#[test]
fn values_that_do_not_fit_their_field_are_errors() {
    let ld = |off24| {
        Instruction::new(Op::Ld {
            rd: Reg(1),
            ra: Reg(2),
            off24,
            space: Space::Local,
            msize: Msize::B32,
            cop: Cop::Default,
            e: false,
            labs: false,
        })
    };
    // The ends of the signed 24-bit offset fit; one past either does not.
    for off in [-(1 << 23), (1 << 23) - 1] {
        let word = ld(off).encode().unwrap();
        assert_eq!(decode(word), Ok(ld(off)));
    }
    for off in [-(1 << 23) - 1, 1 << 23, 2_000_000_000] {
        let err = ld(off).encode().unwrap_err();
        assert_eq!((err.field, err.value), (fields::OFF24, i64::from(off)));
    }
    // CALL's frame is 20 bits unsigned.
    let call = |frame| Instruction::new(Op::Call { target: 8, frame });
    assert!(call((1 << 20) - 1).encode().is_ok());
    assert_eq!(
        call(2_000_000).encode().unwrap_err().to_string(),
        "2000000 does not fit the 20-bit field `frame` (0..=1048575)"
    );
    // A predicate number past PT, a constant bank past 15, a guard past PT.
    let plop = Instruction::new(Op::Plop {
        pd: Pred(8),
        pa: PredSrc::ALWAYS,
        pc: PredSrc::ALWAYS,
        bop: Bop::And,
    });
    assert_eq!(plop.encode().unwrap_err().field, fields::PD);
    let ldc = Instruction::new(Op::Ldc {
        rd: Reg(1),
        cbank: 16,
        ra: Reg::RZ,
        off24: 0,
        msize: Msize::B32,
    });
    assert_eq!(ldc.encode().unwrap_err().field, fields::CBANK);
    let mut exit = Instruction::new(Op::Exit);
    exit.guard.pred = Pred(9);
    assert_eq!(exit.encode().unwrap_err().field, fields::PG);
}

#[test]
fn set_field_checks_the_value() {
    let mut word = 0;
    assert_eq!(set_field(&mut word, fields::OFF24, -1), Ok(()));
    assert_eq!(field(word, fields::OFF24), 0xff_ffff);
    let err = set_field(&mut word, fields::OFF24, 1 << 23).unwrap_err();
    assert_eq!((err.field, err.value), (fields::OFF24, 1 << 23));
    assert_eq!(
        field(word, fields::OFF24),
        0xff_ffff,
        "a failed write leaves the word"
    );
    assert!(set_field(&mut word, fields::RD, 256).is_err());
    assert!(set_field(&mut word, fields::RD, -1).is_err());
    assert!(set_field(&mut word, fields::IMM32, i64::from(u32::MAX)).is_ok());
    assert!(set_field(&mut word, fields::IMM32, 1 << 32).is_err());
}

#[test]
fn bad_text_is_reported() {
    let err = |s: &str| s.parse::<Instruction>().unwrap_err().to_string();
    assert_eq!(err("FOO R1"), "unknown instruction `FOO`");
    assert_eq!(err("IADD R1, R2"), "`IADD` takes 3 operands, found 2");
    assert_eq!(
        err("IADD.RZ R1, R2, R3"),
        "`.RZ` is not a modifier of `IADD` here"
    );
    assert_eq!(err("IADD R1, R2, 0x100"), "`0x100` does not fit in 8 bits");
    assert_eq!(err("MOV R255, R1"), "expected a register, found `R255`");
    assert_eq!(
        err("ISETP P0, PT, R1, R2, PT"),
        "`ISETP` needs a `icmp` modifier"
    );
    assert_eq!(
        err("LD.GLOBAL.32 R1, [R2+0x800000]"),
        "`0x800000` does not fit in 24 signed bits"
    );
    assert_eq!(err("@P9 EXIT"), "expected a predicate, found `P9`");
    assert_eq!(err(""), "expected an instruction");
}

/// A word for instruction `index` of the table with random values in every field it uses.
fn random_word(index: usize, bits: u64) -> u64 {
    let (_, op, used) = INSTRUCTIONS[index];
    (bits & used & !0xff) | u64::from(op)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Field packing agrees with bitvec's view of the word as bits `lsb..=msb`, least
    /// significant first, and leaves every other bit alone.
    #[test]
    fn fields_agree_with_bitvec(word in any::<u64>(), value in any::<u64>(), lsb in 0usize..64, len in 1usize..=64) {
        use bitvec::prelude::*;
        let msb = (lsb + len - 1).min(63);
        let value = value & (u64::MAX >> (63 - (msb - lsb)));
        let mut ours = word;
        put(&mut ours, lsb, msb, value);
        let mut reference = word;
        reference.view_bits_mut::<Lsb0>()[lsb..=msb].store_le(value);
        prop_assert_eq!(ours, reference);
        prop_assert_eq!(get(word, lsb, msb), word.view_bits::<Lsb0>()[lsb..=msb].load_le::<u64>());
    }

    /// Any word at all, every bit random: decoding never panics, and a word it takes encodes
    /// back to itself.
    #[test]
    fn any_word_decodes_or_is_rejected(word in any::<u64>()) {
        if let Ok(insn) = decode(word) {
            prop_assert_eq!(insn.encode(), Ok(word));
        }
    }

    /// decode -> encode is the identity on every valid word, and print -> parse on every
    /// instruction; words with an out-of-range enumerated value or an operand wider than
    /// `SPAN_MAX` registers are the only rejects.
    #[test]
    fn random_fields_round_trip(index in 0..INSTRUCTIONS.len(), bits in any::<u64>()) {
        let word = random_word(index, bits);
        match decode(word) {
            Ok(insn) => {
                prop_assert_eq!(insn.encode(), Ok(word));
                let text = insn.to_string();
                let parsed = text.parse::<Instruction>();
                prop_assert_eq!(parsed, Ok(insn), "{}", text);
            }
            Err(DecodeError::BadValue { .. } | DecodeError::Span { .. }) => {}
            Err(e) => prop_assert!(false, "{word:#018x}: {e}"),
        }
    }
}

/// A surface access of four 64-bit elements (eight registers) is no instruction; every other
/// vector of every size is one.
#[test]
fn surface_data_spans_at_most_four_registers() {
    for (mnemonic, operand) in [("SULD", "rd"), ("SUST", "rc")] {
        let (_, op, _) = INSTRUCTIONS
            .iter()
            .find(|i| i.0 == mnemonic)
            .copied()
            .unwrap();
        for vec in Vwidth::ALL {
            for dsize in Dsize::ALL {
                let mut word = u64::from(op);
                set_field(&mut word, fields::VEC, vec as i64).unwrap();
                set_field(&mut word, fields::DSIZE, dsize as i64).unwrap();
                let wide = vec == Vwidth::V4 && dsize == Dsize::B64;
                match decode(word) {
                    Err(e @ DecodeError::Span { .. }) if wide => {
                        assert_eq!(
                            e,
                            DecodeError::Span { mnemonic, operand },
                            "{mnemonic} {vec:?} {dsize:?}"
                        );
                        assert_eq!(
                            e.to_string(),
                            format!(
                                "{mnemonic}: operand `{operand}` would span more than 4 registers"
                            )
                        );
                    }
                    Ok(i) if !wide => assert!(i.op.too_wide().is_none()),
                    other => panic!("{mnemonic} {vec:?} {dsize:?}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn record_members_hold_what_fits_and_refuse_the_rest() {
    let mut words = [0u32; abi::SURF_WORDS];
    abi::SURF_HEIGHT.put(&mut words, 0xffff).unwrap();
    abi::SURF_WIDTH.put(&mut words, 3).unwrap();
    abi::SURF_VALID.put(&mut words, 1).unwrap();
    assert_eq!(words[4], 0xffff_0003);
    assert_eq!(abi::SURF_HEIGHT.get(&words), 0xffff);
    assert_eq!(abi::SURF_VALID.get(&words), 1);
    let e = abi::SURF_WIDTH.put(&mut words, 0x1_0000).unwrap_err();
    assert_eq!(
        e,
        "surf.width = 65536 does not fit its 16 bits (at most 65535)"
    );
    assert_eq!(
        words[4], 0xffff_0003,
        "a refused value leaves the word alone"
    );
}

/// The member names of the table after `heading` in docs/hw.md: the backquoted names of
/// each row's first cell, `x_lo/hi` standing for `x_lo` and `x_hi`.
fn documented_members(heading: &str) -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hw.md");
    let text = std::fs::read_to_string(path).expect("docs/hw.md");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("docs/hw.md has no section {heading}"));
    let mut names = BTreeSet::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split('|').nth(1).expect("a cell");
        for name in first.split('`').skip(1).step_by(2) {
            match name.rsplit_once('_') {
                Some((stem, tail)) if tail.contains('/') => {
                    names.extend(tail.split('/').map(|t| format!("{stem}_{t}")))
                }
                _ => {
                    names.insert(name.to_string());
                }
            }
        }
    }
    names
}

/// docs/hw.md explains every member of the descriptor and the launch record, and no other:
/// the records are written once, in isa/sgpu.isa, and the golden model (`abi`), the RTL
/// (`sgpu_isa_pkg`) and the co-simulation harness take them from there.
#[test]
fn docs_hw_md_names_every_record_member() {
    for (heading, members) in [
        ("Surfaces", &abi::SURF_MEMBERS[..]),
        ("The launch record", &abi::LAUNCH_MEMBERS[..]),
    ] {
        let want: BTreeSet<String> = members
            .iter()
            .map(|m| m.name.split_once('.').expect("record.member").1.to_string())
            .collect();
        assert_eq!(documented_members(heading), want, "docs/hw.md, {heading}");
    }
}
