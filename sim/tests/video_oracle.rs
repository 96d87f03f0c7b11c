//! The video ALU against an oracle written here from the PTX ISA's pseudocode, line by line,
//! in 128-bit arithmetic and with none of the model's code: every modifier combination of
//! every scalar video instruction, on the edge operands the issue lists.

use sgpu_isa::{Icmp, Vneg, Vscale, Vsec, Vsel};
use sgpu_sim::video::{self, Arith, Mad, Operands};

const EDGES: [u32; 11] = [
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
];
const C_VALUES: [u32; 4] = [0, 0x7fff_ffff, 0x8000_0001, 0x1234_5678];

// ---- the oracle -------------------------------------------------------------------------

/// partSelectSignExtend: bits [hi:lo] of x, then sign- or zero-extension.
fn o_part(x: u32, signed: bool, sel: &str) -> i128 {
    let (lo, hi) = match sel {
        "b0" => (0, 7),
        "b1" => (8, 15),
        "b2" => (16, 23),
        "b3" => (24, 31),
        "h0" => (0, 15),
        "h1" => (16, 31),
        _ => (0, 31),
    };
    let width = hi - lo + 1;
    let v = (x as u128 >> lo) & ((1u128 << width) - 1);
    let top = (v >> (width - 1)) & 1;
    if signed && top == 1 {
        v as i128 - (1i128 << width)
    } else {
        v as i128
    }
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

fn o_saturate(tmp: i128, sat: bool, sign: bool, dsel: &str) -> i128 {
    if !sat {
        return tmp;
    }
    match dsel {
        "b0" | "b1" | "b2" | "b3" if sign => o_clamp(tmp, 127, -128),
        "b0" | "b1" | "b2" | "b3" => o_clamp(tmp, 255, 0),
        "h0" | "h1" if sign => o_clamp(tmp, 32767, -32768),
        "h0" | "h1" => o_clamp(tmp, 65535, 0),
        _ if sign => o_clamp(tmp, 2147483647, -2147483648),
        _ => o_clamp(tmp, 4294967295, 0),
    }
}

fn o_secop(secop: &str, tmp: i128, c: i128) -> i128 {
    match secop {
        "add" => tmp + c,
        "min" => tmp.min(c),
        "max" => tmp.max(c),
        _ => tmp,
    }
}

fn o_merge(dsel: &str, tmp: i128, c: i128) -> i128 {
    let (t, c) = (tmp as u128 & 0xffff_ffff, c as u128 & 0xffff_ffff);
    (match dsel {
        "h0" => (t & 0xffff) | (0xffff0000 & c),
        "h1" => ((t & 0xffff) << 16) | (0x0000ffff & c),
        "b0" => (t & 0xff) | (0xffffff00 & c),
        "b1" => ((t & 0xff) << 8) | (0xffff00ff & c),
        "b2" => ((t & 0xff) << 16) | (0xff00ffff & c),
        "b3" => ((t & 0xff) << 24) | (0x00ffffff & c),
        _ => return tmp,
    }) as i128
}

fn low32(x: i128) -> u32 {
    (x as u128 & 0xffff_ffff) as u32
}

// ---- enumerations -----------------------------------------------------------------------

const SELS: [(&str, Vsel); 7] = [
    ("", Vsel::B32),
    ("b0", Vsel::B0),
    ("b1", Vsel::B1),
    ("b2", Vsel::B2),
    ("b3", Vsel::B3),
    ("h0", Vsel::H0),
    ("h1", Vsel::H1),
];

/// The ways a result is finished: a secondary operation, or a merge into a byte/half.
fn finishes() -> Vec<(&'static str, Vsec, &'static str, Vsel)> {
    let mut v = vec![
        ("", Vsec::None, "", Vsel::B32),
        ("add", Vsec::Add, "", Vsel::B32),
        ("min", Vsec::Min, "", Vsel::B32),
        ("max", Vsec::Max, "", Vsel::B32),
    ];
    for (name, sel) in &SELS[1..] {
        v.push(("", Vsec::Merge, name, *sel));
    }
    v
}

fn operand_pairs() -> impl Iterator<Item = (u32, u32, u32)> {
    EDGES.into_iter().flat_map(|a| {
        EDGES
            .into_iter()
            .flat_map(move |b| C_VALUES.into_iter().map(move |c| (a, b, c)))
    })
}

// ---- the tables -------------------------------------------------------------------------

#[test]
fn vadd_vsub_vabsdiff_vmin_vmax() {
    let mut cases = 0u64;
    for (op, name) in [
        (Arith::Add, "vadd"),
        (Arith::Sub, "vsub"),
        (Arith::Absdiff, "vabsdiff"),
        (Arith::Min, "vmin"),
        (Arith::Max, "vmax"),
    ] {
        for signs in 0..8 {
            let (ds, as_, bs) = (signs & 4 != 0, signs & 2 != 0, signs & 1 != 0);
            for (an, asel) in SELS {
                for (bn, bsel) in SELS {
                    for sat in [false, true] {
                        for (secop, vsec, dn, dsel) in finishes() {
                            let o = Operands {
                                dsgn: ds,
                                asgn: as_,
                                bsgn: bs,
                                asel,
                                bsel,
                                dsel,
                                sat,
                                vsec,
                            };
                            for (a, b, c) in operand_pairs() {
                                let ta = o_part(a, as_, an);
                                let tb = o_part(b, bs, bn);
                                let tmp = match name {
                                    "vadd" => ta + tb,
                                    "vsub" => ta - tb,
                                    "vabsdiff" => (ta - tb).abs(),
                                    "vmin" => ta.min(tb),
                                    _ => ta.max(tb),
                                };
                                let tmp = o_saturate(tmp, sat, ds, dn);
                                let cc = o_part(c, ds, "");
                                let d = if vsec == Vsec::Merge {
                                    o_merge(dn, tmp, cc)
                                } else {
                                    o_secop(secop, tmp, cc)
                                };
                                let want = low32(d);
                                let got = video::arith(op, &o, a, b, c);
                                assert_eq!(got, want, "{name} ds={ds} as={as_} bs={bs} a={a:#x}.{an} b={b:#x}.{bn} c={c:#x} sat={sat} {secop}{dn}");
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 1_000_000, "{cases} cases");
}

#[test]
fn vshl_vshr() {
    let mut cases = 0u64;
    for left in [true, false] {
        for clamp in [true, false] {
            for signs in 0..4 {
                let (ds, as_) = (signs & 2 != 0, signs & 1 != 0);
                for (an, asel) in SELS {
                    for (bn, bsel) in SELS {
                        for sat in [false, true] {
                            for (secop, vsec, dn, dsel) in finishes() {
                                let o = Operands {
                                    dsgn: ds,
                                    asgn: as_,
                                    bsgn: false,
                                    asel,
                                    bsel,
                                    dsel,
                                    sat,
                                    vsec,
                                };
                                for (a, b, c) in operand_pairs() {
                                    let ta = o_part(a, as_, an);
                                    let mut tb = o_part(b, false, bn);
                                    if clamp && tb > 32 {
                                        tb = 32;
                                    }
                                    if !clamp {
                                        tb &= 0x1f;
                                    }
                                    let wide = if left { ta << tb } else { ta >> tb };
                                    // The s34 intermediate.
                                    let bits = (wide as u128) & ((1u128 << 34) - 1);
                                    let tmp = if bits >> 33 == 1 {
                                        bits as i128 - (1i128 << 34)
                                    } else {
                                        bits as i128
                                    };
                                    let tmp = o_saturate(tmp, sat, ds, dn);
                                    let cc = o_part(c, ds, "");
                                    let d = if vsec == Vsec::Merge {
                                        o_merge(dn, tmp, cc)
                                    } else {
                                        o_secop(secop, tmp, cc)
                                    };
                                    let got = video::shift(left, clamp, &o, a, b, c);
                                    assert_eq!(got, low32(d), "left={left} clamp={clamp} a={a:#x}.{an} b={b:#x}.{bn} ds={ds} as={as_} sat={sat} {secop}{dn}");
                                    cases += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 500_000, "{cases} cases");
}

#[test]
fn vset() {
    let mut cases = 0u64;
    for (cmp, cn) in [
        (Icmp::Eq, "eq"),
        (Icmp::Ne, "ne"),
        (Icmp::Lt, "lt"),
        (Icmp::Le, "le"),
        (Icmp::Gt, "gt"),
        (Icmp::Ge, "ge"),
    ] {
        for signs in 0..4 {
            let (as_, bs) = (signs & 2 != 0, signs & 1 != 0);
            for (an, asel) in SELS {
                for (bn, bsel) in SELS {
                    for (secop, vsec, dn, dsel) in finishes() {
                        let o = Operands {
                            dsgn: false,
                            asgn: as_,
                            bsgn: bs,
                            asel,
                            bsel,
                            dsel,
                            sat: false,
                            vsec,
                        };
                        for (a, b, c) in operand_pairs() {
                            let (ta, tb) = (o_part(a, as_, an), o_part(b, bs, bn));
                            let holds = match cn {
                                "eq" => ta == tb,
                                "ne" => ta != tb,
                                "lt" => ta < tb,
                                "le" => ta <= tb,
                                "gt" => ta > tb,
                                _ => ta >= tb,
                            };
                            let tmp = i128::from(holds);
                            let cc = o_part(c, false, "");
                            let d = if vsec == Vsec::Merge {
                                o_merge(dn, tmp, cc)
                            } else {
                                o_secop(secop, tmp, cc)
                            };
                            assert_eq!(
                                video::set(cmp, &o, a, b, c),
                                low32(d),
                                "vset.{cn} a={a:#x}.{an} b={b:#x}.{bn} {secop}{dn}"
                            );
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 100_000, "{cases} cases");
}

#[test]
fn vmad() {
    let mut cases = 0u64;
    for signs in 0..4 {
        let (as_, bs) = (signs & 2 != 0, signs & 1 != 0);
        for (an, asel) in SELS {
            for (bn, bsel) in SELS {
                for sat in [false, true] {
                    for (neg, na, nc) in [
                        (Vneg::None, false, false),
                        (Vneg::NegAb, true, false),
                        (Vneg::NegC, false, true),
                    ] {
                        for po in [false, true] {
                            if po && neg != Vneg::None {
                                continue; // PTX: no negation in .po mode
                            }
                            for (scale, sn) in [
                                (Vscale::None, ""),
                                (Vscale::Shr7, "shr7"),
                                (Vscale::Shr15, "shr15"),
                            ] {
                                let m = Mad {
                                    asgn: as_,
                                    bsgn: bs,
                                    asel,
                                    bsel,
                                    sat,
                                    neg,
                                    scale,
                                    po,
                                };
                                for (a, b, c) in operand_pairs() {
                                    // The pseudocode, in 128-bit two's complement.
                                    let ta = o_part(a, as_, an);
                                    let tb = o_part(b, bs, bn);
                                    let signed_final = as_ || bs || na || nc;
                                    let mut tmp: u128 = (ta * tb) as u128;
                                    let mut cv: u32 = c;
                                    let mut lsb: u128 = 0;
                                    if po {
                                        lsb = 1;
                                    } else if na {
                                        tmp = !tmp;
                                        lsb = 1;
                                    } else if nc {
                                        cv = !cv;
                                        lsb = 1;
                                    }
                                    let c128: u128 = if signed_final {
                                        cv as i32 as i128 as u128
                                    } else {
                                        cv as u128
                                    };
                                    let tmp = tmp.wrapping_add(c128).wrapping_add(lsb);
                                    let result: i128 = match sn {
                                        "shr7" => {
                                            ((tmp >> 7) & 0xffff_ffff_ffff_ffff) as u64 as i64
                                                as i128
                                        }
                                        "shr15" => {
                                            ((tmp >> 15) & 0xffff_ffff_ffff_ffff) as u64 as i64
                                                as i128
                                        }
                                        _ => tmp as i128,
                                    };
                                    let result = match (sat, signed_final) {
                                        (true, true) => o_clamp(result, 2147483647, -2147483648),
                                        (true, false) => o_clamp(result, 4294967295, 0),
                                        _ => result,
                                    };
                                    assert_eq!(video::mad(&m, a, b, c), low32(result), "vmad a={a:#x}.{an} b={b:#x}.{bn} c={c:#x} as={as_} bs={bs} sat={sat} neg={neg:?} po={po} {sn}");
                                    cases += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 100_000, "{cases} cases");
}
