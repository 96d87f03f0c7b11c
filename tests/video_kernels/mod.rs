//! The video tests' generated kernels: one kernel per scalar and SIMD video instruction form
//! (every opcode, sign, selector, saturation, secondary operation, merge, shift mode, vmad
//! negation and scale, comparison, destination mask), each thread taking one (a, b, c) of
//! the edge operands, with the result the video ALU's definition gives.
//! tests/run_kernels.rs checks every thread's result against it on the golden model;
//! rtl-tests/tests/cosim_video.rs runs the same kernels on the RTL core in lock-step with the
//! model. Both crates include this file.
// Each including test uses only some of it.
#![allow(dead_code)]

/// A video instruction form of `d, a, b, c` (registers %r4, %r1, %r2, %r3) and its expected
/// result.
pub struct VideoCase {
    pub text: String,
    pub expect: Box<dyn Fn(u32, u32, u32) -> u32>,
}

fn ty(signed: bool) -> &'static str {
    if signed {
        "s32"
    } else {
        "u32"
    }
}

/// The scalar forms' edge operands, a and b each.
pub const SCALAR_EDGES: [u32; 8] = [0, 1, 0x7f, 0x80, 0xff, 0x8000, 0x7fff_ffff, 0xffff_ffff];

/// The SIMD forms' edge operands: each half-word and byte through its edges.
pub const SIMD_EDGES: [u32; 8] = [
    0,
    0x7f80_ff01,
    0x807f_01ff,
    0xffff_ffff,
    0x8000_7fff,
    0x0101_fefe,
    0x7fff_8000,
    0x1234_abcd,
];

/// Every (a, b, c) a kernel's threads take: a and b each of `edges`, c from b.
pub fn triples(edges: &[u32]) -> Vec<[u32; 3]> {
    edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| [a, b, b ^ 0x5a5a_5a5a]))
        .collect()
}

/// The kernel of a form: thread t loads its (a, b, c) and d's old value from `in + 16t`,
/// runs the instruction and stores d at `out + 4t`.
pub fn kernel(text: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry v (.param .u64 in, .param .u64 out)\n{{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r5, %tid.x;\n\
         \tmul.wide.u32 %rd3, %r5, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd4];\n\t{text}\n\
         \tmul.wide.u32 %rd5, %r5, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tst.global.u32 [%rd6], %r4;\n\tret;\n}}\n"
    )
}

/// The launch of a kernel over `triples`: a thread each. The fourth word of each input is
/// d's old value, which merges must not read.
pub fn manifest(triples: &[[u32; 3]]) -> String {
    let input: Vec<String> = triples
        .iter()
        .flat_map(|t| [t[0], t[1], t[2], 0xdead_beef])
        .map(|v| v.to_string())
        .collect();
    format!(
        "block = [{}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
        triples.len(),
        input.join(", "),
        4 * triples.len()
    )
}

/// Every scalar video form: vadd, vsub, vabsdiff, vmin and vmax of every sign combination
/// with selectors, saturation, secondary operations and merges; vshl and vshr clamped and
/// wrapped; vmad with negations, scales and `.po`; vset's comparisons.
pub fn scalar_cases() -> Vec<VideoCase> {
    use sgpu_isa::{Icmp, Vneg, Vscale, Vsec, Vsel};
    use sgpu_sim::video::{self, Arith, Mad, Operands};
    let sels = [
        ("", Vsel::B32),
        (".b1", Vsel::B1),
        (".b3", Vsel::B3),
        (".h0", Vsel::H0),
        (".h1", Vsel::H1),
    ];
    let mut cases: Vec<VideoCase> = Vec::new();
    for (name, op) in [
        ("vadd", Arith::Add),
        ("vsub", Arith::Sub),
        ("vabsdiff", Arith::Absdiff),
        ("vmin", Arith::Min),
        ("vmax", Arith::Max),
    ] {
        for (k, (an, asel)) in sels.iter().enumerate() {
            let (bn, bsel) = sels[(k + 2) % sels.len()];
            for signs in [0u8, 3, 5, 6] {
                let (ds, as_, bs) = (signs & 4 != 0, signs & 2 != 0, signs & 1 != 0);
                for (fin, vsec, dsel) in [
                    ("", Vsec::None, Vsel::B32),
                    (".sat", Vsec::None, Vsel::B32),
                    (".add", Vsec::Add, Vsel::B32),
                    (".sat.min", Vsec::Min, Vsel::B32),
                    ("m.b2", Vsec::Merge, Vsel::B2),
                    ("m.h1", Vsec::Merge, Vsel::H1),
                ] {
                    let sat = fin.contains("sat");
                    let (dst, mods) = match fin.strip_prefix('m') {
                        Some(d) => (format!("%r4{d}"), String::new()),
                        None => ("%r4".to_string(), fin.to_string()),
                    };
                    let text = format!(
                        "{name}.{}.{}.{}{mods} {dst}, %r1{an}, %r2{bn}, %r3;",
                        ty(ds),
                        ty(as_),
                        ty(bs)
                    );
                    let o = Operands {
                        dsgn: ds,
                        asgn: as_,
                        bsgn: bs,
                        asel: *asel,
                        bsel,
                        dsel,
                        sat,
                        vsec,
                    };
                    cases.push(VideoCase {
                        text,
                        expect: Box::new(move |a, b, c| video::arith(op, &o, a, b, c)),
                    });
                }
            }
        }
    }
    for (name, left) in [("vshl", true), ("vshr", false)] {
        for (mode, clamp) in [(".clamp", true), (".wrap", false)] {
            for (an, asel) in sels {
                let o = Operands {
                    dsgn: true,
                    asgn: true,
                    bsgn: false,
                    asel,
                    bsel: Vsel::B0,
                    dsel: Vsel::B32,
                    sat: true,
                    vsec: Vsec::Max,
                };
                let text = format!("{name}.s32.s32.u32.sat{mode}.max %r4, %r1{an}, %r2.b0, %r3;");
                cases.push(VideoCase {
                    text,
                    expect: Box::new(move |a, b, c| video::shift(left, clamp, &o, a, b, c)),
                });
            }
        }
    }
    for (neg, an, cn, vneg) in [
        ("", "", "", Vneg::None),
        ("ab", "-", "", Vneg::NegAb),
        ("c", "", "-", Vneg::NegC),
    ] {
        for (scale, vscale) in [
            ("", Vscale::None),
            (".shr7", Vscale::Shr7),
            (".shr15", Vscale::Shr15),
        ] {
            for (sat, po) in [("", false), (".sat", false), (".po", true)] {
                if po && !neg.is_empty() {
                    continue;
                }
                let m = Mad {
                    asgn: true,
                    bsgn: false,
                    asel: Vsel::H0,
                    bsel: Vsel::B2,
                    sat: sat == ".sat",
                    neg: vneg,
                    scale: vscale,
                    po,
                };
                let text =
                    format!("vmad.s32.s32.u32{sat}{scale} %r4, {an}%r1.h0, %r2.b2, {cn}%r3;");
                cases.push(VideoCase {
                    text,
                    expect: Box::new(move |a, b, c| video::mad(&m, a, b, c)),
                });
            }
        }
    }
    for (cmp, icmp) in [("eq", Icmp::Eq), ("lt", Icmp::Lt), ("ge", Icmp::Ge)] {
        let o = Operands {
            dsgn: false,
            asgn: true,
            bsgn: false,
            asel: Vsel::B1,
            bsel: Vsel::H1,
            dsel: Vsel::B32,
            sat: false,
            vsec: Vsec::Add,
        };
        let text = format!("vset.s32.u32.{cmp}.add %r4, %r1.b1, %r2.h1, %r3;");
        cases.push(VideoCase {
            text,
            expect: Box::new(move |a, b, c| video::set(icmp, &o, a, b, c)),
        });
    }
    cases
}

/// `extractAndSignExt`'s selection before the sign: element i (of `n`) of the result is the
/// element of the 64-bit {b, a} that the selector's digit for i names (digits most
/// significant element first).
fn simd_select(a: u32, b: u32, sel: &str, n: usize) -> u32 {
    let pair = (u64::from(b) << 32) | u64::from(a);
    let width = 32 / n;
    let digits = sel.trim_start_matches(['.', 'h', 'b']).as_bytes();
    (0..n).fold(0, |word, i| {
        let k = usize::from(digits[n - 1 - i] - b'0');
        let element = (pair >> (k * width)) as u32 & (u32::MAX >> (32 - width));
        word | element << (i * width)
    })
}

/// Every SIMD video form: each opcode with every type, `.sat`, `.add`, destination masks and
/// selectors that move elements (which the encoder does with PRMT).
pub fn simd_cases() -> Vec<VideoCase> {
    use sgpu_isa::{Icmp, Vop};
    use sgpu_sim::video::{self, Simd, SimdOp};
    // (destination mask, its element bits, asel, bsel) per element count.
    let shapes = |n: usize| -> [(&'static str, u32, &'static str, &'static str); 3] {
        if n == 2 {
            [
                ("", 0b11, ".h10", ".h32"),
                (".h1", 0b10, ".h32", ".h10"),
                (".h0", 0b01, ".h03", ".h22"),
            ]
        } else {
            [
                ("", 0b1111, ".b3210", ".b7654"),
                (".b31", 0b1010, ".b7654", ".b0123"),
                (".b210", 0b0111, ".b0246", ".b7777"),
            ]
        }
    };
    let mut cases = Vec::new();
    let mut push = |text: String, op: SimdOp, s: Simd, asel: &'static str, bsel: &'static str| {
        let n = s.elements as usize;
        cases.push(VideoCase {
            text,
            expect: Box::new(move |a, b, c| {
                let (sa, sb) = (simd_select(a, b, asel, n), simd_select(a, b, bsel, n));
                video::simd(op, &s, sa, sb, c)
            }),
        });
    };
    for n in [2, 4] {
        for (k, (name, vop)) in [
            ("vadd", Vop::Add),
            ("vsub", Vop::Sub),
            ("vavrg", Vop::Avrg),
            ("vabsdiff", Vop::Absdiff),
            ("vmin", Vop::Min),
            ("vmax", Vop::Max),
        ]
        .into_iter()
        .enumerate()
        {
            for signs in [0u8, 3, 5, 6] {
                let (dsgn, asgn, bsgn) = (signs & 4 != 0, signs & 2 != 0, signs & 1 != 0);
                for (fin, sat, acc) in [
                    ("", false, false),
                    (".sat", true, false),
                    (".add", false, true),
                ] {
                    // Each opcode and finish takes one of the shapes, all taken in turn.
                    let (dm, mask, asel, bsel) = shapes(n)[(k + signs as usize + fin.len()) % 3];
                    let text = format!(
                        "{name}{n}.{}.{}.{}{fin} %r4{dm}, %r1{asel}, %r2{bsel}, %r3;",
                        ty(dsgn),
                        ty(asgn),
                        ty(bsgn)
                    );
                    let s = Simd {
                        elements: n as u32,
                        dsgn,
                        asgn,
                        bsgn,
                        sat,
                        acc,
                        mask,
                    };
                    push(text, SimdOp::Arith(vop), s, asel, bsel);
                }
            }
        }
        for (k, (cmp, icmp)) in [
            ("eq", Icmp::Eq),
            ("ne", Icmp::Ne),
            ("lt", Icmp::Lt),
            ("le", Icmp::Le),
            ("gt", Icmp::Gt),
            ("ge", Icmp::Ge),
        ]
        .into_iter()
        .enumerate()
        {
            for signs in [0u8, 1, 2, 3] {
                let (asgn, bsgn) = (signs & 2 != 0, signs & 1 != 0);
                for (fin, acc) in [("", false), (".add", true)] {
                    let (dm, mask, asel, bsel) = shapes(n)[(k + signs as usize + fin.len()) % 3];
                    let text = format!(
                        "vset{n}.{}.{}.{cmp}{fin} %r4{dm}, %r1{asel}, %r2{bsel}, %r3;",
                        ty(asgn),
                        ty(bsgn)
                    );
                    let s = Simd {
                        elements: n as u32,
                        dsgn: false,
                        asgn,
                        bsgn,
                        sat: false,
                        acc,
                        mask,
                    };
                    push(text, SimdOp::Set(icmp), s, asel, bsel);
                }
            }
        }
    }
    cases
}
