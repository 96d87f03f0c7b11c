//! The SIMD video instructions (vadd2 .. vset4) against an oracle written here from the PTX
//! ISA's pseudocode (the vadd2, vadd4, vset2, vset4 pages), in 128-bit arithmetic and with none
//! of the model's code. The model runs them as the encoder does (docs/adr/0003-simd-video.md):
//! a PRMT per source gathers the selected elements, then VOP2/VOP4/VSET2/VSET4. Every
//! operation, type, `.sat`/`.add`, destination mask, and selectors that keep, swap, spread and
//! repeat elements, on edge operands.

use sgpu_isa::{Icmp, Pmode, Vop};
use sgpu_sim::lane::permute;
use sgpu_sim::video::{self, Simd, SimdOp};

/// Operands whose bytes and half-words are the edges of their ranges: 0, 1, 0x7f, 0x80, 0xff,
/// 0x7fff, 0x8000, 0xffff, in every element.
const EDGES: [u32; 15] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x807f_01ff,
    0x7f80_ff00,
    0x8000_7fff,
    0x0180_ff7f,
];
const C_VALUES: [u32; 2] = [0xffff_ffff, 0x1234_8765];

// ---- the oracle -------------------------------------------------------------------------

/// extractAndSignExt_n(a, b, sel, type): element i is the half-word (n = 2) or byte (n = 4) of
/// the 64-bit {b, a} that the selector's digit for i names; the digits are written most
/// significant element first.
fn o_extract(a: u32, b: u32, sel: &str, n: usize, signed: bool) -> [i128; 4] {
    let pair = (u128::from(b) << 32) | u128::from(a);
    let width = 32 / n;
    let digits = sel.as_bytes();
    let mut v = [0i128; 4];
    for (i, e) in v.iter_mut().enumerate().take(n) {
        let k = usize::from(digits[n - 1 - i] - b'0');
        let x = (pair >> (k * width)) & ((1 << width) - 1);
        *e = if signed && x >> (width - 1) == 1 {
            x as i128 - (1 << width)
        } else {
            x as i128
        };
    }
    v
}

/// extractMaskBits(mask): element i is in the mask when its digit is written.
fn o_mask(mask: &str, i: usize) -> bool {
    mask.as_bytes().contains(&(b'0' + i as u8))
}

fn o_clamp(x: i128, max: i128, min: i128) -> i128 {
    if x > max {
        max
    } else if x < min {
        min
    } else {
        x
    }
}

/// One PTX SIMD video instruction, as written.
struct Form<'a> {
    n: usize,
    /// vadd .. vmax, or `set`.
    op: &'a str,
    cmp: &'a str,
    dsgn: bool,
    asgn: bool,
    bsgn: bool,
    sat: bool,
    add: bool,
    mask: &'a str,
    asel: &'a str,
    bsel: &'a str,
}

fn oracle(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    let n = f.n;
    let va = o_extract(a, b, f.asel, n, f.asgn);
    let vb = o_extract(a, b, f.bsel, n, f.bsgn);
    let width = 32 / n;
    let (smax, smin, umax) = (
        (1i128 << (width - 1)) - 1,
        -(1i128 << (width - 1)),
        (1i128 << width) - 1,
    );
    let mut t = [0i128; 4];
    for i in 0..n {
        let (x, y) = (va[i], vb[i]);
        t[i] = match f.op {
            "add" => x + y,
            "sub" => x - y,
            "avrg" => {
                if x + y >= 0 {
                    (x + y + 1) >> 1
                } else {
                    (x + y) >> 1
                }
            }
            "absdiff" => (x - y).abs(),
            "min" => x.min(y),
            "max" => x.max(y),
            _ => i128::from(match f.cmp {
                "eq" => x == y,
                "ne" => x != y,
                "lt" => x < y,
                "le" => x <= y,
                "gt" => x > y,
                _ => x >= y,
            }),
        };
        if f.sat {
            t[i] = if f.dsgn {
                o_clamp(t[i], smax, smin)
            } else {
                o_clamp(t[i], umax, 0)
            };
        }
    }
    let mut d: i128;
    if f.add {
        d = i128::from(c);
        for (i, ti) in t.iter().enumerate().take(n) {
            d += if o_mask(f.mask, i) { *ti } else { 0 };
        }
    } else {
        d = 0;
        for (i, ti) in t.iter().enumerate().take(n) {
            let vc = (i128::from(c) >> (i * width)) & umax;
            let e = if o_mask(f.mask, i) { *ti } else { vc };
            d |= (e & umax) << (i * width);
        }
    }
    (d as u128 & 0xffff_ffff) as u32
}

// ---- the model, as the encoder runs it -------------------------------------------------

/// PRMT's selector for a SIMD selector: a nibble per byte of the result, naming a byte of
/// {b, a}.
fn prmt(sel: &str, n: usize) -> u32 {
    let bytes: Vec<u32> = sel
        .bytes()
        .flat_map(|d| {
            let k = u32::from(d - b'0');
            if n == 2 {
                vec![2 * k + 1, 2 * k]
            } else {
                vec![k]
            }
        })
        .collect();
    bytes.iter().fold(0, |s, &b| s << 4 | b)
}

/// A form as the encoder lowers it: PRMT selectors for a and b, and the SIMD instruction.
struct Lowered {
    asel: u32,
    bsel: u32,
    op: SimdOp,
    simd: Simd,
}

fn lower(f: &Form) -> Lowered {
    let op = match f.op {
        "add" => SimdOp::Arith(Vop::Add),
        "sub" => SimdOp::Arith(Vop::Sub),
        "avrg" => SimdOp::Arith(Vop::Avrg),
        "absdiff" => SimdOp::Arith(Vop::Absdiff),
        "min" => SimdOp::Arith(Vop::Min),
        "max" => SimdOp::Arith(Vop::Max),
        _ => SimdOp::Set(Icmp::from_name(&f.cmp.to_uppercase()).unwrap()),
    };
    let simd = Simd {
        elements: f.n as u32,
        dsgn: f.dsgn,
        asgn: f.asgn,
        bsgn: f.bsgn,
        sat: f.sat,
        acc: f.add,
        mask: (0..f.n)
            .filter(|&i| o_mask(f.mask, i))
            .map(|i| 1 << i)
            .sum(),
    };
    Lowered {
        asel: prmt(f.asel, f.n),
        bsel: prmt(f.bsel, f.n),
        op,
        simd,
    }
}

fn run(l: &Lowered, a: u32, b: u32, c: u32) -> u32 {
    let pa = permute(a, b, l.asel, Pmode::Default);
    let pb = permute(a, b, l.bsel, Pmode::Default);
    video::simd(l.op, &l.simd, pa, pb, c)
}

fn model(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    run(&lower(f), a, b, c)
}

// ---- enumerations -----------------------------------------------------------------------

const MASKS2: [&str; 3] = ["10", "1", "0"];
const MASKS4: [&str; 15] = [
    "3210", "321", "320", "32", "310", "31", "30", "3", "210", "21", "20", "2", "10", "1", "0",
];
/// (asel, bsel): the defaults, swapped, spread over both operands, repeated.
const SELS2: [(&str, &str); 4] = [("10", "32"), ("32", "10"), ("03", "21"), ("22", "00")];
const SELS4: [(&str, &str); 4] = [
    ("3210", "7654"),
    ("7654", "3210"),
    ("0246", "1357"),
    ("7777", "0000"),
];

/// Checks every form against the oracle on every edge triple; returns the cases run.
fn check_all(forms: impl Iterator<Item = Form<'static>>) -> u64 {
    let mut cases = 0;
    for f in forms {
        let l = lower(&f);
        for a in EDGES {
            for b in EDGES {
                for c in C_VALUES {
                    let (want, got) = (oracle(&f, a, b, c), run(&l, a, b, c));
                    assert_eq!(
                        got, want,
                        "v{}{}{} types {}{}{} sat {} add {} mask {} sel {} {} a={a:#x} b={b:#x} c={c:#x}",
                        f.op, f.cmp, f.n, f.dsgn, f.asgn, f.bsgn, f.sat, f.add, f.mask, f.asel, f.bsel
                    );
                    cases += 1;
                }
            }
        }
    }
    cases
}

fn forms(
    n: usize,
    ops: &'static [&'static str],
    cmps: &'static [&'static str],
) -> Vec<Form<'static>> {
    let (masks, sels): (&[&str], &[(&str, &str)]) = if n == 2 {
        (&MASKS2, &SELS2)
    } else {
        (&MASKS4, &SELS4)
    };
    let set = cmps.len() > 1;
    let mut v = Vec::new();
    for &op in ops {
        for &cmp in cmps {
            for signs in 0..8u8 {
                // vset has no destination type: d and c are unsigned.
                if set && signs & 4 != 0 {
                    continue;
                }
                for (sat, add) in [(false, false), (true, false), (false, true)] {
                    if set && sat {
                        continue;
                    }
                    for &mask in masks {
                        for &(asel, bsel) in sels {
                            v.push(Form {
                                n,
                                op,
                                cmp,
                                dsgn: signs & 4 != 0,
                                asgn: signs & 2 != 0,
                                bsgn: signs & 1 != 0,
                                sat,
                                add,
                                mask,
                                asel,
                                bsel,
                            });
                        }
                    }
                }
            }
        }
    }
    v
}

const ARITH: &[&str] = &["add", "sub", "avrg", "absdiff", "min", "max"];
const CMPS: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];

#[test]
fn two_way_arithmetic() {
    let cases = check_all(forms(2, ARITH, &[""]).into_iter());
    assert_eq!(cases, 6 * 8 * 3 * 3 * 4 * 450);
}

#[test]
fn four_way_arithmetic() {
    let cases = check_all(forms(4, ARITH, &[""]).into_iter());
    assert_eq!(cases, 6 * 8 * 3 * 15 * 4 * 450);
}

#[test]
fn two_and_four_way_compare() {
    let cases = check_all(forms(2, &["set"], CMPS).into_iter())
        + check_all(forms(4, &["set"], CMPS).into_iter());
    assert_eq!(cases, 6 * 4 * 2 * (3 + 15) * 4 * 450);
}

/// The pseudocode on values worked by hand, so that a misreading shared by the oracle and the
/// model would show.
#[test]
fn worked_examples() {
    let f = |op, n, dsgn, sat, add, mask| Form {
        n,
        op,
        cmp: "lt",
        dsgn,
        asgn: dsgn,
        bsgn: dsgn,
        sat,
        add,
        mask,
        asel: if n == 2 { "10" } else { "3210" },
        bsel: if n == 2 { "32" } else { "7654" },
    };
    // Bytes 0xff + 0x01 wrap to 0x00 without `.sat`, stay 0xff with it (unsigned).
    assert_eq!(
        model(&f("add", 4, false, false, false, "3210"), 0xff, 0x01, 0),
        0x00
    );
    assert_eq!(
        model(&f("add", 4, false, true, false, "3210"), 0xff, 0x01, 0),
        0xff
    );
    // Signed: -128 + -1 clamps to -128 (0x80).
    assert_eq!(
        model(&f("add", 4, true, true, false, "3210"), 0x80, 0xff, 0),
        0x80
    );
    // Averages round half away from zero: (1 + 2) -> 2, (-1 + -2) -> -2 (0xfe).
    assert_eq!(
        model(&f("avrg", 4, true, false, false, "0"), 0x01, 0x02, 0),
        0x02
    );
    assert_eq!(
        model(&f("avrg", 4, true, false, false, "0"), 0xff, 0xfe, 0),
        0xfe
    );
    // Sum of absolute differences into c: |1-4| + |9-2| + |0-0| + |255-0| = 265, plus 1000.
    let sad = f("absdiff", 4, false, false, true, "3210");
    assert_eq!(model(&sad, 0xff00_0901, 0x0000_0204, 1000), 1265);
    // Merge: elements outside the mask come from c.
    let merge = f("max", 2, false, false, false, "1");
    assert_eq!(
        model(&merge, 0x0005_0007, 0x0009_0001, 0xaaaa_bbbb),
        0x0009_bbbb
    );
    // Accumulating a signed difference subtracts: c + (1 - 3) + (2 - 2).
    assert_eq!(
        model(
            &f("sub", 2, true, false, true, "10"),
            0x0002_0001,
            0x0002_0003,
            10
        ),
        8
    );
    // vset4.lt: 1 where a < b.
    assert_eq!(
        model(
            &f("set", 4, false, false, false, "3210"),
            0x0102_0304,
            0x0202_0202,
            0
        ),
        0x0100_0000
    );
}
