//! `hw/sgpu_surface_unit.sv`, Verilated and linked into this process (`rtl_tests::units`),
//! computes what the golden model computes for one lane's surface access. The reference is
//! the model's own code in sim/src/surface.rs, not a copy: `Descriptor::decode` (the
//! descriptor's checks), `Descriptor::locate` (geometry, bounds and clamping, the end, the
//! overflow, the alignment and the address), `pack` (SUST.P's element), `Descriptor::query`
//! (SUQ) and `reduce_signed` (SURED's comparisons).
//!
//! - Every form: each word the decoder accepts of SULD, SUST, SURED and SUQ, one per
//!   modifier combination (geometry, .b/.p, vector width, data size, clamp mode, reduction
//!   type, query, handle kind, cache operator), on every format sgpu has, with coordinates
//!   inside, on and outside every edge (negative ones too), and SUST.P's components through
//!   their edges (NaN, infinities, zeros, subnormals, the rounding ties of each format).
//! - Random accesses: random legal words on random descriptors (bad ones, geometries that
//!   differ from the instruction's, unaligned bases, bases near 2^64, pitches and slices too
//!   small for the rows) and edge-biased coordinates; 2 million by default,
//!   `SURFACE_UNIT_VECTORS=N` runs N.
//! - The unit is a two-stage pipeline: an access every cycle, its results compared in the
//!   next while the following access is on the inputs; after a cycle with its enable low,
//!   valid_o is low and the element pdata_o zero.
//!
//! Both print how many cases they ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{combinations, count_from_env, instructions, modifier_bits, word_of, Rng, Tally};
use rtl_tests::units::{SurfaceOut, SurfaceUnit};
use sgpu_isa::{abi, decode, Geom, Op, Sclamp};
use sgpu_sim::surface::{
    elements, pack, reduce_bytes, reduce_signed, vector_bytes, Descriptor, Format, Request,
};
use sgpu_sim::Cause;
use std::time::Instant;

const OPS: [&str; 4] = ["SULD", "SUST", "SURED", "SUQ"];

/// rd, ra, rb, rc: multiples of 8, so that every vector and pair is aligned.
const REGS: [u8; 4] = [8, 16, 24, 32];

/// The formats sgpu has: every name `Format::parse` accepts.
fn formats() -> Vec<Format> {
    let mut all = Vec::new();
    for channels in ["r", "rg", "rgba"] {
        for bits in [8, 16, 32] {
            for kind in ["uint", "sint", "unorm", "snorm", "float"] {
                all.extend(Format::parse(&format!("{channels}{bits}_{kind}")));
            }
        }
    }
    assert_eq!(all.len(), 36);
    all
}

/// Components for SUST.P: f32 edges for the normalized and float formats (zeros, ones,
/// NaNs, infinities, subnormals, the f16 range's ends and its ties) and the f32 values on
/// either side of the points where unorm and snorm round up (k + 0.5 over the scale is not
/// a binary fraction, so never exactly on them); integer edges for the integer formats.
const COMPONENTS: [u32; 44] = [
    0x0000_0000, // 0.0
    0x8000_0000, // -0.0
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
    0x3f00_0000, // 0.5
    0x3f7f_ffff, // just under 1
    0x7fc0_0000, // NaN
    0xffff_ffff, // -NaN
    0x7f80_0000, // infinity
    0xff80_0000, // -infinity
    0x0000_0001, // the smallest subnormal; also the integer 1
    0x0080_0000, // the smallest normal
    0x477f_e000, // 65504, f16's largest
    0x477f_f000, // 65520: ties to infinity in f16
    0x477f_efff, // just under it
    0x3380_0000, // 2^-24, f16's smallest subnormal
    0x3300_0000, // 2^-25: ties to zero
    0x3300_0001, // just over it
    0x387f_c000, // f16's largest subnormal
    0x3f80_1000, // 1 + 2^-11: ties to even (1.0) in f16
    0x3f80_3000, // 1 + 3 x 2^-11: ties to even (up) in f16
    0x3b00_8080, // either side of 0.5/255
    0x3b00_8082,
    0x3f7f_7f7e, // either side of 254.5/255
    0x3f7f_7f80,
    0x3b81_0203, // either side of 0.5/127, and negated
    0x3b81_0205,
    0xbb81_0203,
    0xbb81_0205,
    0x3700_007f, // either side of 0.5/65535
    0x3700_0081,
    0x3780_00ff, // either side of 0.5/32767
    0x3780_0101,
    0x3eaa_aaab, // 1/3
    0x7f,        // integer edges
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0xffff_ff7f, // -129
    0xffff_8000, // -32768
    0x7fff_ffff,
];

/// A coordinate's value relative to its range 0..=max of an access of `size`: the edges,
/// each side of them, far outside, and inside.
fn coordinate(kind: u32, max: i64, size: i64, rng: &mut Rng) -> u32 {
    let v: i64 = match kind % 16 {
        0 => 0,
        1 => -1,
        2 => max,
        3 => max + 1,
        4 => max - 1,
        5 => -size,
        6 => max + size,
        7 => i64::from(i32::MIN),
        8 => i64::from(i32::MAX),
        9 => -65_537,
        10 => size,
        11 => i64::from(rng.below(max.clamp(0, i64::from(u32::MAX)) as u32 + 1)),
        12 => i64::from(rng.below(max.clamp(0, i64::from(u32::MAX)) as u32 + 1)) / size * size,
        13 => max / 2,
        14 => 1,
        _ => i64::from(rng.word() as u32 as i32),
    };
    v as u32
}

/// Coordinate registers, in PTX's order for `geom`, from x, y, z and layer (the fourth
/// register of 3d, w, is not an input).
fn registers(geom: Geom, [x, y, z, layer]: [u32; 4]) -> [u32; 3] {
    match geom {
        Geom::D1 => [x, 0, 0],
        Geom::D2 => [x, y, 0],
        Geom::D3 => [x, y, z],
        Geom::A1d => [layer, x, 0],
        Geom::A2d => [layer, x, y],
    }
}

/// What the model says the unit gives for an access: the trap code, or the fields that
/// matter for the instruction.
#[derive(Debug, PartialEq, Eq)]
enum Want {
    Trap(u8),
    Dropped,
    At {
        addr: u64,
        size: u8,
        element: Option<[u32; 4]>,
        signed: Option<bool>,
    },
    Query(u32),
}

/// The trap code the hardware reports for a cause of the model's surface unit.
fn code(cause: Cause) -> u8 {
    match cause {
        Cause::Surface(_) => abi::TRAP_SURFACE as u8,
        Cause::Misaligned { .. } => abi::TRAP_MISALIGNED as u8,
        other => panic!("the surface unit cannot raise {other:?}"),
    }
}

/// The access `op` makes on a surface of format `f`, as the model's surface unit sizes it:
/// its geometry, whether x counts elements (`.p`), its bytes (the vector's for `.b`, the
/// element's for SUST.P, 4 or 8 for SURED) and its clamp mode; `None` for SUQ.
fn access(op: Op, f: Format) -> Option<(Geom, bool, u32, Sclamp)> {
    match op {
        Op::Suld {
            geom,
            vec,
            dsize,
            sclamp,
            ..
        }
        | Op::Sust {
            sfmt: false,
            geom,
            vec,
            dsize,
            sclamp,
            ..
        } => Some((geom, false, vector_bytes(vec, dsize), sclamp)),
        Op::Sust {
            sfmt: true,
            geom,
            sclamp,
            ..
        } => Some((geom, true, f.esize(), sclamp)),
        Op::Sured {
            sfmt,
            geom,
            sty,
            sclamp,
            ..
        } => Some((geom, sfmt, reduce_bytes(sty), sclamp)),
        _ => None,
    }
}

/// What the model says the unit gives for an access.
fn model(word: u64, desc: &[u32; 8], coord: [u32; 3], comp: [u32; 4]) -> Want {
    let surface = abi::TRAP_SURFACE as u8;
    let op = decode(word).expect("a legal word").op;
    if let Op::Suld { sfmt: true, .. } = op {
        return Want::Trap(surface);
    }
    let d = match Descriptor::decode(desc) {
        Ok(Some(d)) => d,
        _ => return Want::Trap(surface),
    };
    if let Op::Suq { query, .. } = op {
        return Want::Query(d.query(query));
    }
    let (geom, elements_x, size, clamp) = access(op, d.format).expect("a surface access");
    let request = Request {
        geom,
        elements: elements_x,
        coords: [coord[0], coord[1], coord[2], 0],
        size,
        clamp,
    };
    let element = match op {
        Op::Sust {
            sfmt: true, vec, ..
        } => {
            let bytes = pack(comp, elements(vec), d.format);
            Some(std::array::from_fn(|i| {
                u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
            }))
        }
        _ => None,
    };
    let signed = match op {
        Op::Sured { sty, .. } => Some(reduce_signed(sty, d.format)),
        _ => None,
    };
    match d.locate(0, &request) {
        Err(cause) => Want::Trap(code(cause)),
        Ok(None) => Want::Dropped,
        Ok(Some(addr)) => Want::At {
            addr,
            size: size.trailing_zeros() as u8,
            element,
            signed,
        },
    }
}

/// What the unit's outputs say, read as the model's answer is shaped.
fn read(got: &SurfaceOut, want: &Want) -> Want {
    if got.trap != 0 {
        return Want::Trap(got.cause);
    }
    match want {
        Want::Query(_) => Want::Query(got.query),
        _ if got.drop != 0 => Want::Dropped,
        Want::At {
            element, signed, ..
        } => Want::At {
            addr: got.addr,
            size: got.size,
            element: element.map(|_| got.pdata),
            signed: signed.map(|_| got.is_signed != 0),
        },
        _ => Want::At {
            addr: got.addr,
            size: got.size,
            element: None,
            signed: None,
        },
    }
}

/// One access's inputs.
#[derive(Clone, Copy, Debug)]
struct Case {
    word: u64,
    desc: [u32; 8],
    coord: [u32; 3],
    comp: [u32; 4],
}

/// The unit and the model side by side: an access a cycle, each result compared in the cycle
/// after, and now and then a cycle without one, after which valid_o must be low and pdata_o
/// zero. The
/// description of a mismatch is formatted only for the first ones.
struct Check {
    unit: SurfaceUnit,
    tally: Tally,
    pending: Option<(Case, Want)>,
}

impl Check {
    fn new() -> Check {
        Check {
            unit: SurfaceUnit::new(),
            tally: Tally::default(),
            pending: None,
        }
    }

    fn case(&mut self, c: Case) {
        let want = model(c.word, &c.desc, c.coord, c.comp);
        let got = self.unit.step(c.word, &c.desc, &c.coord, &c.comp, true);
        self.compare(got);
        self.tally.cases += 1;
        self.pending = Some((c, want));
        if self.tally.cases.is_multiple_of(61) {
            let idle = [!0; 8];
            let got = self.unit.step(!c.word, &idle, &[!0; 3], &[!0; 4], false);
            self.compare(got);
        }
    }

    /// The unit's outputs in a cycle against the pending access's, or valid_o low.
    fn compare(&mut self, got: SurfaceOut) {
        match self.pending.take() {
            None if got.valid != 0 || got.pdata != [0; 4] => self.tally.mismatch(|| {
                format!(
                    "valid_o high or pdata_o not zero after a cycle without an access: {got:x?}"
                )
            }),
            None => {}
            Some((c, want)) => {
                let seen = read(&got, &want);
                if got.valid == 0 || seen != want {
                    self.tally.mismatch(|| {
                        format!(
                            "{} ({:#018x}) on {:?} ({:x?}) at {:?} with {:x?}: model {want:x?}, RTL {seen:x?} (valid {})",
                            decode(c.word).expect("a legal word"),
                            c.word,
                            Descriptor::decode(&c.desc),
                            c.desc,
                            c.coord.map(|v| v as i32),
                            c.comp,
                            got.valid
                        )
                    });
                }
            }
        }
    }

    fn finish(mut self, what: &str, start: Instant) -> u64 {
        let got = self.unit.step(0, &[0; 8], &[0; 3], &[0; 4], false);
        self.compare(got);
        self.tally.report("surface unit", what, start)
    }
}

/// The geometry a word names (SUQ's query field sits where the geometry is; any will do).
fn geometry(word: u64) -> Geom {
    match decode(word).expect("a legal word").op {
        Op::Suld { geom, .. } | Op::Sust { geom, .. } | Op::Sured { geom, .. } => geom,
        _ => Geom::D2,
    }
}

/// A packed surface of `geom` and `f` with the dimensions `dims`, at a 256-byte aligned base.
fn surface(geom: Geom, f: Format, dims: [u32; 4], base: u64) -> [u32; 8] {
    Descriptor::packed(base, geom, dims, f)
        .and_then(|d| d.words())
        .expect("a descriptor that fits")
}

/// Coordinates for a surface of `dims` (width, height, depth, layers): axis a takes the edge
/// kind in bits 4a.. of `turn`, so that successive turns meet every pair of kinds.
fn coordinates(word: u64, f: Format, dims: [u32; 4], turn: u32, rng: &mut Rng) -> [u32; 3] {
    let op = decode(word).expect("a legal word").op;
    // SUQ's coordinates do not matter: any access's will do.
    let (_, elements, size, _) =
        access(op, f).unwrap_or((Geom::D2, false, f.esize(), Sclamp::Trap));
    let size = i64::from(size);
    let x_max = if elements {
        i64::from(dims[0]) - 1
    } else {
        i64::from(dims[0]) * i64::from(f.esize()) - size
    };
    let max = [
        x_max,
        i64::from(dims[1]) - 1,
        i64::from(dims[2]) - 1,
        i64::from(dims[3]) - 1,
    ];
    let xyzl: [u32; 4] =
        std::array::from_fn(|a| coordinate(turn >> (4 * a), max[a], size.max(1), rng));
    registers(geometry(word), xyzl)
}

#[test]
fn every_form_agrees_with_the_model_on_edge_coordinates_and_components() {
    let start = Instant::now();
    let mut check = Check::new();
    let mut rng = Rng::new(0x005e_ed0f_5eed);
    let formats = formats();
    let mut forms = 0;
    // Dimensions with every edge: 1, small, 3 x 5 x 7 x 2 odd ones, the largest.
    let shapes: [[u32; 4]; 4] = [[1, 1, 1, 1], [3, 5, 7, 2], [64, 2, 3, 4], [65_535, 3, 2, 2]];
    // Each format's own turn: it moves the coordinates through their edges and the
    // components through theirs, so that every format meets every edge.
    let mut turns = vec![0u32; formats.len()];
    for (_, op, used) in instructions(&OPS) {
        let words = combinations(op, used, REGS);
        assert!(!words.is_empty());
        forms += words.len();
        for word in words {
            for (i, &f) in formats.iter().enumerate() {
                let geom = geometry(word);
                let dims = shapes[i % shapes.len()];
                let desc = surface(geom, f, dims, 0x1_0000_0000 + 0x100 * i as u64);
                for _ in 0..3 {
                    let t = turns[i];
                    turns[i] += 1;
                    let coord = coordinates(word, f, dims, t, &mut rng);
                    let comp = std::array::from_fn(|k| {
                        COMPONENTS[(t as usize + k * 11) % COMPONENTS.len()]
                    });
                    check.case(Case {
                        word,
                        desc,
                        coord,
                        comp,
                    });
                }
            }
        }
    }
    let what = format!("{forms} forms x 36 formats on edge coordinates");
    let cases = check.finish(&what, start);
    assert!(cases > 500_000, "only {cases} cases");
}

/// A random descriptor: mostly a surface like the host packs (now and then with the wrong
/// geometry for the word, an unaligned base or one near 2^64, too small a pitch or slice),
/// sometimes one that names nothing sgpu has, or random words.
fn random_descriptor(word: u64, formats: &[Format], rng: &mut Rng) -> ([u32; 8], [u32; 4]) {
    let f = formats[rng.below(formats.len() as u32) as usize];
    let pick = |rng: &mut Rng| match rng.below(6) {
        0 => 1,
        1 => 2 + rng.below(6),
        2 => 65_535,
        3 => 1 + rng.below(65_535),
        _ => 1 + rng.below(40),
    };
    let mut dims = [pick(rng), pick(rng), pick(rng), pick(rng)];
    let geom = if rng.below(8) == 0 {
        Geom::from_bits(u64::from(rng.below(5))).expect("a geometry")
    } else {
        geometry(word)
    };
    let base = match rng.below(8) {
        0 => u64::MAX - u64::from(rng.below(1 << 20)),
        1 => rng.word() >> 16 | 1 << 40,
        _ => (rng.word() >> 24) << 8,
    };
    let d = loop {
        match Descriptor::packed(base, geom, dims, f) {
            Ok(d) => break d,
            Err(_) => dims = dims.map(|v| v / 2 + 1),
        }
    };
    let dims = [d.width, d.height, d.depth, d.layers];
    let mut d = d;
    match rng.below(10) {
        0 => d.pitch = rng.below(d.pitch.max(1)),
        1 => d.slice = rng.below(d.slice.max(1)),
        _ => {}
    }
    let mut w = d.words().expect("a descriptor that fits");
    match rng.below(24) {
        0 => w[abi::SURF_GEOM.word] ^= 7 << abi::SURF_GEOM.lsb,
        1 => w[abi::SURF_KIND.word] |= (5 + rng.below(3)) << abi::SURF_KIND.lsb,
        2 => w[abi::SURF_CHANNELS.word] |= 3 << abi::SURF_CHANNELS.lsb,
        3 => w[abi::SURF_BYTES.word] |= 3 << abi::SURF_BYTES.lsb,
        4 => w[abi::SURF_VALID.word] &= !(1 << abi::SURF_VALID.lsb),
        5 => w[4 + rng.below(2) as usize] &= 0xffff << (16 * rng.below(2)),
        6 => w = std::array::from_fn(|_| rng.word() as u32),
        _ => {}
    }
    (w, dims)
}

#[test]
fn random_accesses_agree_with_the_model() {
    let vectors = count_from_env("SURFACE_UNIT_VECTORS", 2_000_000);
    let start = Instant::now();
    let ops = instructions(&OPS);
    let formats = formats();
    let mut rng = Rng::new(0x0bad_5eed);
    let mut check = Check::new();
    while check.tally.cases < vectors {
        let (_, op, used) = ops[rng.below(ops.len() as u32) as usize];
        let word = word_of(op, used, rng.word() & modifier_bits(used), REGS);
        if decode(word).is_err() {
            continue;
        }
        let (desc, dims) = random_descriptor(word, &formats, &mut rng);
        let f = Descriptor::decode(&desc)
            .ok()
            .flatten()
            .map_or(formats[0], |d| d.format);
        let turn = rng.below(1 << 16);
        let coord = coordinates(word, f, dims, turn, &mut rng);
        let comp = std::array::from_fn(|_| {
            if rng.below(2) == 0 {
                COMPONENTS[rng.below(COMPONENTS.len() as u32) as usize]
            } else {
                rng.word() as u32
            }
        });
        check.case(Case {
            word,
            desc,
            coord,
            comp,
        });
    }
    check.finish("random accesses", start);
}
