//! Surface instructions through the whole flow: generated PTX kernels for every geometry,
//! clamp mode, vector width and data size (suld.b, sust.b), every sust.p format, sured
//! under many threads, suq; each against an expectation computed here from the layout and
//! clamping rules of issue 4, not from the model's code.

mod common;

use common::{assert_checks, u32s};
use sgpu_sim::launch::{self, Prepared};
use sgpu_sim::trap::Fault;
use sgpu_sim::{Cause, Trap};

const GEOMS: [&str; 5] = ["1d", "2d", "3d", "a1d", "a2d"];
const CLAMPS: [&str; 3] = ["trap", "clamp", "zero"];
// The surface: 8 x 3 x 2 elements, 2 layers, 4 bytes an element: 32-byte rows, so that
// every access the tests place at a multiple of its size is aligned (a misaligned one traps).
const W: i64 = 8;
const H: i64 = 3;
const D: i64 = 2;
const L: i64 = 2;
const ESIZE: i64 = 4;

fn assemble_and_run(ptx: &str, manifest: &str) -> Result<Prepared, Trap> {
    assert_checks(ptx);
    common::assemble_and_run(ptx, "surface.ptx", manifest)
}

/// The `n` data registers of an access (`%r10..`, or `%rd10..` when `wide`) and the operand
/// that names them: the register itself, or a `{...}` vector.
fn data_registers(n: i64, wide: bool) -> (Vec<String>, String) {
    let prefix = if wide { "%rd" } else { "%r" };
    let regs: Vec<String> = (0..n).map(|i| format!("{prefix}{}", 10 + i)).collect();
    let operand = if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    };
    (regs, operand)
}

/// Dimensions (height, depth, layers) a geometry uses.
fn dims(geom: &str) -> (i64, i64, i64) {
    match geom {
        "1d" => (1, 1, 1),
        "2d" => (H, 1, 1),
        "3d" => (H, D, 1),
        "a1d" => (1, 1, L),
        _ => (H, 1, L),
    }
}

fn surface_toml(geom: &str, format: &str, data: &[u8]) -> String {
    let bytes: Vec<String> = data.iter().map(|b| b.to_string()).collect();
    format!(
        "[surfaces.s]\ngeometry = \"{geom}\"\nwidth = {W}\nheight = {H}\ndepth = {D}\nlayers = {L}\n\
         format = \"{format}\"\nu8 = [{}]\n",
        bytes.join(", ")
    )
}

fn surface_bytes(geom: &str) -> usize {
    let (h, d, l) = dims(geom);
    (W * h * d * l * ESIZE) as usize
}

/// The coordinate operand of a geometry, from registers %r1.. (layer first for arrays).
fn coords(geom: &str) -> &'static str {
    match geom {
        "1d" => "{%r1}",
        "2d" | "a1d" => "{%r1, %r2}",
        _ => "{%r1, %r2, %r3, %r4}",
    }
}

/// Where an access of `size` bytes lands: (x bytes, y, z, layer) from the four coordinate
/// values in PTX's order, clamped or not; `None` when out of bounds and not clamped.
fn locate(geom: &str, c: [i64; 4], size: i64, clamp: bool) -> Option<usize> {
    let (h, d, l) = dims(geom);
    let (layer, x, y, z) = match geom {
        "1d" => (0, c[0], 0, 0),
        "2d" => (0, c[0], c[1], 0),
        "3d" => (0, c[0], c[1], c[2]),
        "a1d" => (c[0], c[1], 0, 0),
        _ => (c[0], c[1], c[2], 0),
    };
    let fit = |v: i64, max: i64| -> Option<i64> {
        if (0..=max).contains(&v) {
            Some(v)
        } else if clamp {
            Some(v.clamp(0, max))
        } else {
            None
        }
    };
    let x = fit(x, W * ESIZE - size)?;
    let y = fit(y, h - 1)?;
    let z = fit(z, d - 1)?;
    let layer = fit(layer, l - 1)?;
    Some((((layer * d + z) * h + y) * W * ESIZE + x) as usize)
}

/// Coordinate sets each thread uses, in PTX's order for `geom`: inside, on the edges, and
/// outside in each direction. Written as (x, y, z, layer); x stays a multiple of the access.
fn coordinate_sets(geom: &str, size: i64) -> Vec<[i64; 4]> {
    let last_x = W * ESIZE - size;
    let xyzl = [
        [0, 0, 0, 0],
        [size, 1, 1, 1],
        [last_x, 2, 1, 1],
        [size, 2, 0, 1],
        [-size, 0, 0, 0],
        [0, -1, -1, -1],
        [W * ESIZE, 0, 0, 0],
        [0, 5, 7, 2],
        [last_x + size, 3, 2, 0],
    ];
    xyzl.iter()
        .map(|&[x, y, z, l]| match geom {
            "a1d" => [l, x, 0, 0],
            "a2d" => [l, x, y, 0],
            _ => [x, y, z, 0],
        })
        .collect()
}

fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 3) as u8).collect()
}

/// Whether the four coordinates are all in bounds for this geometry's access.
fn inside(geom: &str, c: [i64; 4], size: i64) -> bool {
    locate(geom, c, size, false).is_some()
}

#[test]
fn suld_b_every_geometry_clamp_vector_and_size() {
    let mut checked = 0;
    for geom in GEOMS {
        for clamp in CLAMPS {
            for (vec, n) in [("", 1), (".v2", 2), (".v4", 4)] {
                for (dsize, bytes) in [("b8", 1), ("b16", 2), ("b32", 4), ("b64", 8)] {
                    let size = n * bytes;
                    if size > 16 {
                        continue; // PTX allows at most 128 bits
                    }
                    let wide = bytes == 8;
                    let (regs, dst) = data_registers(n, wide);
                    let stores: String = regs
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            format!(
                                "\tst.global.{} [%rd3+{}], {r};\n",
                                if wide { "u64" } else { "u32" },
                                i as i64 * if wide { 8 } else { 4 }
                            )
                        })
                        .collect();
                    let sets = coordinate_sets(geom, size);
                    let ptx = format!(
                        ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
                         .visible .entry k (.param .u64 c, .param .u64 out)\n{{\n\
                         \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\
                         \tld.param.u64 %rd1, [c];\n\tld.param.u64 %rd2, [out];\n\
                         \tmov.u32 %r9, %tid.x;\n\tmul.wide.u32 %rd4, %r9, 16;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
                         \tld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd5];\n\
                         \tmul.wide.u32 %rd6, %r9, 64;\n\tadd.s64 %rd3, %rd2, %rd6;\n\
                         \tsuld.b.{geom}{vec}.{dsize}.{clamp} {dst}, [s, {}];\n{stores}\tret;\n}}\n",
                        coords(geom)
                    );
                    let data = pattern(surface_bytes(geom));
                    let cs: Vec<String> = sets
                        .iter()
                        .flat_map(|c| c.iter().map(|v| (*v as i32).to_string()))
                        .collect();
                    let manifest = format!(
                        "block = [{}]\nparams = [{{ buffer = \"c\" }}, {{ buffer = \"out\" }}]\n\
                         [buffers.c]\ns32 = [{}]\n[buffers.out]\nsize = {}\n{}",
                        sets.len(),
                        cs.join(", "),
                        64 * sets.len(),
                        surface_toml(geom, "rgba8_uint", &data)
                    );
                    let any_out = sets.iter().any(|c| !inside(geom, *c, size));
                    let result = assemble_and_run(&ptx, &manifest);
                    let case = format!("suld.b.{geom}{vec}.{dsize}.{clamp}");
                    if clamp == "trap" && any_out {
                        let trap = result.err().unwrap_or_else(|| panic!("{case}: no trap"));
                        assert!(
                            matches!(trap.cause, Cause::Surface(Fault::OutOfBounds { .. })),
                            "{case}: {trap}"
                        );
                        assert!(trap.instruction.starts_with("SULD"), "{case}: {trap}");
                        let line = ptx.lines().position(|l| l.contains("suld")).unwrap() + 1;
                        assert!(
                            trap.location.ends_with(&format!(":{line}")),
                            "{case}: {trap}"
                        );
                        checked += 1;
                        continue;
                    }
                    let p = result.unwrap_or_else(|t| panic!("{case}: {t}"));
                    let out = launch::dump(&p, "out").unwrap();
                    for (t, c) in sets.iter().enumerate() {
                        let at = locate(geom, *c, size, clamp == "clamp");
                        let expect: Vec<u8> = match at {
                            Some(at) => data[at..at + size as usize].to_vec(),
                            None => vec![0; size as usize],
                        };
                        // Each element in its own register: 4 bytes, or 8 for b64.
                        let per = if wide { 8 } else { 4 };
                        for e in 0..n as usize {
                            let got = &out[64 * t + e * per..64 * t + e * per + bytes as usize];
                            let want = &expect[e * bytes as usize..(e + 1) * bytes as usize];
                            assert_eq!(
                                got, want,
                                "{case}: thread {t} coordinates {c:?} element {e}"
                            );
                            let pad =
                                &out[64 * t + e * per + bytes as usize..64 * t + (e + 1) * per];
                            assert!(
                                pad.iter().all(|&b| b == 0),
                                "{case}: thread {t}: bits above the element are not zero"
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 700, "{checked}");
}

/// An access whose address is not a multiple of its size traps as misaligned (docs/hw.md);
/// one that is aligned runs, clamped or not.
#[test]
fn misaligned_surface_accesses_trap() {
    // 1d surface of 8 rgba8 elements (32 bytes); one thread's suld.b.v2.b32 at x.
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k (.param .u32 x, .param .u64 out)\n{\n\
               \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
               \tld.param.u32 %r1, [x];\n\tld.param.u64 %rd1, [out];\n\
               \tsuld.b.1d.v2.b32.clamp {%r2, %r3}, [s, {%r1}];\n\
               \tst.global.v2.u32 [%rd1], {%r2, %r3};\n\tret;\n}\n";
    let data = pattern(32);
    let run = |x: i32| {
        let manifest = format!(
            "block = [1]\nparams = [{{ u32 = {} }}, {{ buffer = \"out\" }}]\n\
             [buffers.out]\nsize = 8\n\
             [surfaces.s]\ngeometry = \"1d\"\nwidth = 8\nformat = \"rgba8_uint\"\nu8 = [{}]\n",
            x as u32,
            data.iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        assemble_and_run(ptx, &manifest)
    };
    for (x, at) in [
        (0, Some(0)),
        (8, Some(8)),
        (24, Some(24)),
        (100, Some(24)),
        (4, None),
        (-3, Some(0)),
        (12, None),
    ] {
        match (run(x), at) {
            (Ok(p), Some(at)) => {
                assert_eq!(launch::dump(&p, "out").unwrap(), &data[at..at + 8], "x {x}")
            }
            (Err(t), None) => assert!(
                matches!(t.cause, Cause::Misaligned { size: 8, address } if address % 8 == 4),
                "x {x}: {t}"
            ),
            (Ok(_), None) => panic!("x {x}: no trap"),
            (Err(t), Some(_)) => panic!("x {x}: {t}"),
        }
    }
}

#[test]
fn sust_b_every_geometry_clamp_vector_and_size() {
    let mut checked = 0;
    for geom in GEOMS {
        for clamp in ["clamp", "zero"] {
            for (vec, n) in [("", 1), (".v2", 2), (".v4", 4)] {
                for (dsize, bytes) in [("b8", 1), ("b16", 2), ("b32", 4), ("b64", 8)] {
                    let size = n * bytes;
                    if size > 16 {
                        continue;
                    }
                    let wide = bytes == 8;
                    let (regs, src) = data_registers(n, wide);
                    // Thread t stores the values 0x11 * (t + 1) + e.
                    let values: String = regs
                        .iter()
                        .enumerate()
                        .map(|(e, r)| {
                            if wide {
                                format!("\tcvt.u64.u32 {r}, %r15;\n\tadd.u64 {r}, {r}, {};\n\tshl.b64 %rd19, {r}, 32;\n\tor.b64 {r}, {r}, %rd19;\n", e)
                            } else {
                                format!("\tadd.u32 {r}, %r15, {e};\n")
                            }
                        })
                        .collect();
                    // One thread at a time, so that the order of overlapping stores is known.
                    let sets = coordinate_sets(geom, size);
                    let ptx = format!(
                        ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
                         .visible .entry k (.param .u64 c, .param .u32 t)\n{{\n\
                         \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\
                         \tld.param.u64 %rd1, [c];\n\tld.param.u32 %r9, [t];\n\
                         \tmul.wide.u32 %rd4, %r9, 16;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
                         \tld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd5];\n\
                         \tadd.u32 %r16, %r9, 1;\n\tmul.lo.u32 %r15, %r16, 17;\n{values}\
                         \tsust.b.{geom}{vec}.{dsize}.{clamp} [s, {}], {src};\n\tret;\n}}\n",
                        coords(geom)
                    );
                    let mut expect = pattern(surface_bytes(geom));
                    let mut data = expect.clone();
                    let cs: Vec<String> = sets
                        .iter()
                        .flat_map(|c| c.iter().map(|v| (*v as i32).to_string()))
                        .collect();
                    for (t, c) in sets.iter().enumerate() {
                        let manifest = format!(
                            "block = [1]\nparams = [{{ buffer = \"c\" }}, {{ u32 = {t} }}]\n[buffers.c]\ns32 = [{}]\n{}",
                            cs.join(", "),
                            surface_toml(geom, "rgba8_uint", &data)
                        );
                        let case =
                            format!("sust.b.{geom}{vec}.{dsize}.{clamp} thread {t} at {c:?}");
                        let p = assemble_and_run(&ptx, &manifest)
                            .unwrap_or_else(|e| panic!("{case}: {e}"));
                        if let Some(at) = locate(geom, *c, size, clamp == "clamp") {
                            let base = 17 * (t as u64 + 1);
                            for e in 0..n as usize {
                                let v: u64 = if wide {
                                    (base + e as u64) | (base + e as u64) << 32
                                } else {
                                    base + e as u64
                                };
                                let le = v.to_le_bytes();
                                expect[at + e * bytes as usize..at + (e + 1) * bytes as usize]
                                    .copy_from_slice(&le[..bytes as usize]);
                            }
                        }
                        data = launch::dump(&p, "s").unwrap();
                        assert_eq!(data, expect, "{case}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

/// sust.p.1d.v4.b32 of the given components into one element of each format.
#[test]
fn sust_p_converts_to_every_format() {
    let floats = [0.5f32, -0.25, 1.5, 0.3];
    let ints = [7u32, 300, 0xffff_fff0, 70000];
    let mut checked = 0;
    for channels in ["r", "rg", "rgba"] {
        for (suffix, bits) in [
            ("8_uint", 8),
            ("16_uint", 16),
            ("32_uint", 32),
            ("8_sint", 8),
            ("16_sint", 16),
            ("32_sint", 32),
            ("8_unorm", 8),
            ("16_unorm", 16),
            ("8_snorm", 8),
            ("16_snorm", 16),
            ("16_float", 16),
            ("32_float", 32),
        ] {
            let format = format!("{channels}{suffix}");
            let kind = &suffix[suffix.find('_').unwrap() + 1..];
            let nch = channels.len();
            let float = matches!(kind, "unorm" | "snorm" | "float");
            let comps: Vec<u32> = if float {
                floats.iter().map(|f| f.to_bits()).collect()
            } else {
                ints.to_vec()
            };
            let ptx = format!(
                ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
                 .visible .entry k ()\n{{\n\t.reg .b32 %r<8>;\n\
                 \tmov.u32 %r1, 1;\n\tmov.b32 %r2, {};\n\tmov.b32 %r3, {};\n\tmov.b32 %r4, {};\n\tmov.b32 %r5, {};\n\
                 \tsust.p.1d.v4.b32.trap [s, {{%r1}}], {{%r2, %r3, %r4, %r5}};\n\tret;\n}}\n",
                comps[0], comps[1], comps[2], comps[3]
            );
            let esize = nch * bits / 8;
            let manifest =
                format!("[surfaces.s]\ngeometry = \"1d\"\nwidth = 3\nformat = \"{format}\"\n");
            let p = assemble_and_run(&ptx, &manifest).unwrap_or_else(|e| panic!("{format}: {e}"));
            let data = launch::dump(&p, "s").unwrap();
            assert!(
                data[..esize]
                    .iter()
                    .chain(&data[2 * esize..])
                    .all(|&b| b == 0),
                "{format}: other elements touched"
            );
            for ch in 0..nch {
                let got = &data[esize + ch * bits / 8..esize + (ch + 1) * bits / 8];
                let want: u64 = match kind {
                    "uint" => u64::from(ints[ch]).min((1u64 << bits) - 1),
                    "sint" => {
                        let lim = 1i64 << (bits - 1);
                        (i64::from(ints[ch] as i32).clamp(-lim, lim - 1) as u64)
                            & ((1u64 << bits) - 1)
                    }
                    "unorm" => {
                        let c = floats[ch].clamp(0.0, 1.0) as f64;
                        (c * ((1u64 << bits) - 1) as f64).round_ties_even() as u64
                    }
                    "snorm" => {
                        let c = floats[ch].clamp(-1.0, 1.0) as f64;
                        let v = (c * ((1u64 << (bits - 1)) - 1) as f64).round_ties_even() as i64;
                        (v as u64) & ((1u64 << bits) - 1)
                    }
                    _ if bits == 32 => u64::from(floats[ch].to_bits()),
                    // f16 of these values is exact: 0.5, -0.25, 1.5 and 0.3's nearest.
                    _ => u64::from(match ch {
                        0 => 0x3800u16,
                        1 => 0xb400,
                        2 => 0x3e00,
                        _ => 0x34cd,
                    }),
                };
                assert_eq!(
                    got,
                    &want.to_le_bytes()[..bits / 8],
                    "{format} channel {ch}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 12 * 7);
}

#[test]
fn sured_is_atomic_under_many_threads() {
    // 256 threads add their index to one element, take the max into the next (.p: an element
    // index, signed because the format is sint), OR a bit into the third.
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k ()\n{\n\t.reg .b32 %r<8>;\n\
               \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n\tmov.u32 %r3, 4;\n\tmov.u32 %r4, 8;\n\
               \tsured.b.add.1d.u32.trap [s, {%r2}], %r1;\n\
               \tsub.s32 %r5, 100, %r1;\n\tmov.u32 %r3, 1;\n\tsured.p.max.1d.b32.trap [s, {%r3}], %r5;\n\
               \tand.b32 %r6, %r1, 31;\n\tshl.b32 %r7, 1, %r6;\n\tsured.b.or.1d.b32.trap [s, {%r4}], %r7;\n\tret;\n}\n";
    let manifest = "grid = [2]\nblock = [128]\n[surfaces.s]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_sint\"\ns32 = [0, -1000, 0, 0]\n";
    let p = assemble_and_run(ptx, manifest).unwrap();
    let got = u32s(&p, "s");
    // Each CTA's threads are 0..128: the sum over both CTAs, the max of 100 - tid (signed).
    assert_eq!(got, [2 * (0..128).sum::<u32>(), 100, u32::MAX, 0]);
}

#[test]
fn suq_reports_size_format_and_layout() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k (.param .u64 out)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\
               \tld.param.u64 %rd1, [out];\n\
               \tsuq.width.b32 %r1, [s];\n\tsuq.height.b32 %r2, [s];\n\tsuq.depth.b32 %r3, [s];\n\
               \tsuq.channel_data_type.b32 %r4, [s];\n\tsuq.channel_order.b32 %r5, [s];\n\
               \tsuq.array_size.b32 %r6, [s];\n\tsuq.memory_layout.b32 %r7, [s];\n\
               \tst.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n\tst.global.v2.u32 [%rd1+16], {%r5, %r6};\n\
               \tst.global.u32 [%rd1+24], %r7;\n\tret;\n}\n";
    for (geom, format, want) in [
        (
            "2d",
            "rgba8_unorm",
            [W as u32, H as u32, 1, 0x10D2, 0x10B5, 0, 1],
        ),
        (
            "3d",
            "r32_float",
            [W as u32, H as u32, D as u32, 0x10DE, 0x10B0, 0, 1],
        ),
        (
            "a1d",
            "rg16_sint",
            [W as u32, 1, 1, 0x10D8, 0x10B2, L as u32, 1],
        ),
    ] {
        let manifest = format!(
            "params = [{{ buffer = \"out\" }}]\n[buffers.out]\nsize = 28\n[surfaces.s]\ngeometry = \"{geom}\"\n\
             width = {W}\nheight = {H}\ndepth = {D}\nlayers = {L}\nformat = \"{format}\"\n"
        );
        let p = assemble_and_run(ptx, &manifest).unwrap();
        assert_eq!(u32s(&p, "out"), want, "{geom} {format}");
    }
}
