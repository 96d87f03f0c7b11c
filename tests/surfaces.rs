//! Surface instructions through the whole flow: generated PTX kernels for every geometry,
//! clamp mode, vector width and data size (suld.b, sust.b), every sust.p format, sured
//! under many threads, suq; each against an expectation computed here from the layout and
//! clamping rules of issue 4, not from the model's code.

mod common;
mod surface_kernels;

use common::{assert_checks, u32s};
use sgpu_sim::launch::{self, Prepared};
use sgpu_sim::trap::Fault;
use sgpu_sim::{Cause, Trap};
use surface_kernels::*;

fn assemble_and_run(ptx: &str, manifest: &str) -> Result<Prepared, Trap> {
    assert_checks(ptx);
    common::assemble_and_run(ptx, "surface.ptx", manifest)
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

/// Whether the four coordinates are all in bounds for this geometry's access.
fn inside(geom: &str, c: [i64; 4], size: i64) -> bool {
    locate(geom, c, size, false).is_some()
}

#[test]
fn suld_b_every_geometry_clamp_vector_and_size() {
    let mut checked = 0;
    for a in accesses(&CLAMPS) {
        let (size, bytes, n) = (a.size(), a.bytes, a.n);
        let sets = coordinate_sets(a.geom, size);
        let Kernel { ptx, manifest } = suld_b(&a);
        let data = pattern(surface_bytes(a.geom));
        let any_out = sets.iter().any(|c| !inside(a.geom, *c, size));
        let result = assemble_and_run(&ptx, &manifest);
        let case = a.name("suld");
        if a.clamp == "trap" && any_out {
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
            let at = locate(a.geom, *c, size, a.clamp == "clamp");
            let expect: Vec<u8> = match at {
                Some(at) => data[at..at + size as usize].to_vec(),
                None => vec![0; size as usize],
            };
            // Each element in its own register: 4 bytes, or 8 for b64.
            let per = if a.wide() { 8 } else { 4 };
            for e in 0..n as usize {
                let got = &out[64 * t + e * per..64 * t + e * per + bytes as usize];
                let want = &expect[e * bytes as usize..(e + 1) * bytes as usize];
                assert_eq!(
                    got, want,
                    "{case}: thread {t} coordinates {c:?} element {e}"
                );
                let pad = &out[64 * t + e * per + bytes as usize..64 * t + (e + 1) * per];
                assert!(
                    pad.iter().all(|&b| b == 0),
                    "{case}: thread {t}: bits above the element are not zero"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 700, "{checked}");
}

/// An access whose address is not a multiple of its size traps as misaligned (docs/hw.md);
/// one that is aligned runs, clamped or not.
#[test]
fn misaligned_surface_accesses_trap() {
    let data = pattern(32);
    let run = |x: i32| {
        let Kernel { ptx, manifest } = misaligned(x);
        assemble_and_run(&ptx, &manifest)
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
    for a in accesses(&["clamp", "zero"]) {
        let (size, bytes) = (a.size(), a.bytes);
        // One thread at a time, so that the order of overlapping stores is known.
        let sets = coordinate_sets(a.geom, size);
        let ptx = sust_b_ptx(&a);
        let mut expect = pattern(surface_bytes(a.geom));
        let mut data = expect.clone();
        for (t, c) in sets.iter().enumerate() {
            let manifest = sust_b_manifest(&a, t, &data);
            let case = format!("{} thread {t} at {c:?}", a.name("sust"));
            let p = assemble_and_run(&ptx, &manifest).unwrap_or_else(|e| panic!("{case}: {e}"));
            if let Some(at) = locate(a.geom, *c, size, a.clamp == "clamp") {
                let base = 17 * (t as u64 + 1);
                for e in 0..a.n as usize {
                    let v: u64 = if a.wide() {
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
    assert!(checked > 300, "{checked}");
}

/// sust.p.1d.v4.b32 of the given components into one element of each format.
#[test]
fn sust_p_converts_to_every_format() {
    let (floats, ints) = (P_FLOATS, P_INTS);
    let mut checked = 0;
    for channels in P_CHANNELS {
        for (suffix, bits) in P_SUFFIXES {
            let format = format!("{channels}{suffix}");
            let kind = &suffix[suffix.find('_').unwrap() + 1..];
            let nch = channels.len();
            let float = matches!(kind, "unorm" | "snorm" | "float");
            let Kernel { ptx, manifest } = sust_p(&format, float);
            let esize = nch * bits / 8;
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
    let Kernel { ptx, manifest } = sured();
    let p = assemble_and_run(&ptx, &manifest).unwrap();
    let got = u32s(&p, "s");
    // Each CTA's threads are 0..128: the sum over both CTAs, the max of 100 - tid (signed).
    assert_eq!(got, [2 * (0..128).sum::<u32>(), 100, u32::MAX, 0]);
}

#[test]
fn suq_reports_size_format_and_layout() {
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
        let Kernel { ptx, manifest } = suq(geom, format);
        let p = assemble_and_run(&ptx, &manifest).unwrap();
        assert_eq!(u32s(&p, "out"), want, "{geom} {format}");
    }
}
