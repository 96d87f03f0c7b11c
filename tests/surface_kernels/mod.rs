//! The surface tests' generated kernels: PTX and launch manifests for suld.b and sust.b of
//! every geometry, clamp mode, vector width and data size, sust.p into every format, sured
//! from many threads, suq and misaligned accesses. tests/surfaces.rs checks what they compute
//! against the layout and clamping rules; rtl-tests/tests/cosim_surfaces.rs runs the same
//! kernels on the RTL core in lock-step with the golden model. Only std: both crates include
//! this file.
// Each including test uses only some of it.
#![allow(dead_code)]

pub const GEOMS: [&str; 5] = ["1d", "2d", "3d", "a1d", "a2d"];
pub const CLAMPS: [&str; 3] = ["trap", "clamp", "zero"];
// The surface: 8 x 3 x 2 elements, 2 layers, 4 bytes an element: 32-byte rows, so that
// every access the tests place at a multiple of its size is aligned (a misaligned one traps).
pub const W: i64 = 8;
pub const H: i64 = 3;
pub const D: i64 = 2;
pub const L: i64 = 2;
pub const ESIZE: i64 = 4;

/// One `.b` access form: geometry, clamp mode, vector (`""`, `.v2`, `.v4`) of `n` elements
/// of `dsize` (`b8` ... `b64`, `bytes` each).
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub geom: &'static str,
    pub clamp: &'static str,
    pub vec: &'static str,
    pub n: i64,
    pub dsize: &'static str,
    pub bytes: i64,
}

impl Access {
    pub fn size(&self) -> i64 {
        self.n * self.bytes
    }

    pub fn wide(&self) -> bool {
        self.bytes == 8
    }

    /// The instruction's name, e.g. `suld.b.2d.v2.b32.clamp`.
    pub fn name(&self, op: &str) -> String {
        let Access {
            geom,
            vec,
            dsize,
            clamp,
            ..
        } = self;
        format!("{op}.b.{geom}{vec}.{dsize}.{clamp}")
    }
}

/// Every `.b` access form of these clamp modes that PTX allows (128 bits at most).
pub fn accesses(clamps: &[&'static str]) -> Vec<Access> {
    let mut out = Vec::new();
    for geom in GEOMS {
        for &clamp in clamps {
            for (vec, n) in [("", 1), (".v2", 2), (".v4", 4)] {
                for (dsize, bytes) in [("b8", 1), ("b16", 2), ("b32", 4), ("b64", 8)] {
                    let a = Access {
                        geom,
                        clamp,
                        vec,
                        n,
                        dsize,
                        bytes,
                    };
                    if a.size() <= 16 {
                        out.push(a);
                    }
                }
            }
        }
    }
    out
}

/// The `n` data registers of an access (`%r10..`, or `%rd10..` when `wide`) and the operand
/// that names them: the register itself, or a `{...}` vector.
pub fn data_registers(n: i64, wide: bool) -> (Vec<String>, String) {
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
pub fn dims(geom: &str) -> (i64, i64, i64) {
    match geom {
        "1d" => (1, 1, 1),
        "2d" => (H, 1, 1),
        "3d" => (H, D, 1),
        "a1d" => (1, 1, L),
        _ => (H, 1, L),
    }
}

pub fn surface_toml(geom: &str, format: &str, data: &[u8]) -> String {
    format!(
        "[surfaces.s]\ngeometry = \"{geom}\"\nwidth = {W}\nheight = {H}\ndepth = {D}\nlayers = {L}\n\
         format = \"{format}\"\nu8 = [{}]\n",
        list(data)
    )
}

fn list<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn surface_bytes(geom: &str) -> usize {
    let (h, d, l) = dims(geom);
    (W * h * d * l * ESIZE) as usize
}

/// The coordinate operand of a geometry, from registers %r1.. (layer first for arrays).
pub fn coords(geom: &str) -> &'static str {
    match geom {
        "1d" => "{%r1}",
        "2d" | "a1d" => "{%r1, %r2}",
        _ => "{%r1, %r2, %r3, %r4}",
    }
}

/// Coordinate sets each thread uses, in PTX's order for `geom`: inside, on the edges, and
/// outside in each direction. Written as (x, y, z, layer); x stays a multiple of the access.
pub fn coordinate_sets(geom: &str, size: i64) -> Vec<[i64; 4]> {
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

/// The coordinate sets as the `c` buffer's s32 values.
fn coordinate_list(sets: &[[i64; 4]]) -> String {
    let values: Vec<i32> = sets.iter().flatten().map(|&v| v as i32).collect();
    list(&values)
}

pub fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 3) as u8).collect()
}

/// A generated kernel: its PTX, and a manifest that launches it.
pub struct Kernel {
    pub ptx: String,
    pub manifest: String,
}

/// `suld.b` of form `a`: thread t loads at `coordinate_sets(..)[t]` from an rgba8_uint surface
/// holding `pattern(..)`, and stores each element's register (4 bytes, 8 for b64) at
/// `out + 64t`.
pub fn suld_b(a: &Access) -> Kernel {
    let wide = a.wide();
    let (regs, dst) = data_registers(a.n, wide);
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
    let sets = coordinate_sets(a.geom, a.size());
    let ptx = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
         .visible .entry k (.param .u64 c, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\
         \tld.param.u64 %rd1, [c];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r9, %tid.x;\n\tmul.wide.u32 %rd4, %r9, 16;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
         \tld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd5];\n\
         \tmul.wide.u32 %rd6, %r9, 64;\n\tadd.s64 %rd3, %rd2, %rd6;\n\
         \t{} {dst}, [s, {}];\n{stores}\tret;\n}}\n",
        a.name("suld"),
        coords(a.geom)
    );
    let manifest = format!(
        "block = [{}]\nparams = [{{ buffer = \"c\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.c]\ns32 = [{}]\n[buffers.out]\nsize = {}\n{}",
        sets.len(),
        coordinate_list(&sets),
        64 * sets.len(),
        surface_toml(a.geom, "rgba8_uint", &pattern(surface_bytes(a.geom)))
    );
    Kernel { ptx, manifest }
}

/// `sust.b` of form `a` by the one thread of the launch, which stores the values
/// `17 * (t + 1) + e` (e the element; in both words of a b64) at `coordinate_sets(..)[t]`.
pub fn sust_b_ptx(a: &Access) -> String {
    let wide = a.wide();
    let (regs, src) = data_registers(a.n, wide);
    let values: String = regs
        .iter()
        .enumerate()
        .map(|(e, r)| {
            if wide {
                format!("\tcvt.u64.u32 {r}, %r15;\n\tadd.u64 {r}, {r}, {e};\n\tshl.b64 %rd19, {r}, 32;\n\tor.b64 {r}, {r}, %rd19;\n")
            } else {
                format!("\tadd.u32 {r}, %r15, {e};\n")
            }
        })
        .collect();
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
         .visible .entry k (.param .u64 c, .param .u32 t)\n{{\n\
         \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\
         \tld.param.u64 %rd1, [c];\n\tld.param.u32 %r9, [t];\n\
         \tmul.wide.u32 %rd4, %r9, 16;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
         \tld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd5];\n\
         \tadd.u32 %r16, %r9, 1;\n\tmul.lo.u32 %r15, %r16, 17;\n{values}\
         \t{} [s, {}], {src};\n\tret;\n}}\n",
        a.name("sust"),
        coords(a.geom)
    )
}

/// The launch of [`sust_b_ptx`] as thread `t` on an rgba8_uint surface holding `data`.
pub fn sust_b_manifest(a: &Access, t: usize, data: &[u8]) -> String {
    format!(
        "block = [1]\nparams = [{{ buffer = \"c\" }}, {{ u32 = {t} }}]\n[buffers.c]\ns32 = [{}]\n{}",
        coordinate_list(&coordinate_sets(a.geom, a.size())),
        surface_toml(a.geom, "rgba8_uint", data)
    )
}

/// The formats sust.p converts to: channels, then the channel's suffix and bits.
pub const P_CHANNELS: [&str; 3] = ["r", "rg", "rgba"];
pub const P_SUFFIXES: [(&str, usize); 12] = [
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
];
/// The components sust.p stores: floats for the normalized and float formats, else integers.
pub const P_FLOATS: [f32; 4] = [0.5, -0.25, 1.5, 0.3];
pub const P_INTS: [u32; 4] = [7, 300, 0xffff_fff0, 70000];

/// `sust.p.1d.v4.b32` of the P_FLOATS or P_INTS (`float`) into element 1 of a 1d surface of
/// three elements of `format`, all zero.
pub fn sust_p(format: &str, float: bool) -> Kernel {
    let comps: Vec<u32> = if float {
        P_FLOATS.iter().map(|f| f.to_bits()).collect()
    } else {
        P_INTS.to_vec()
    };
    let ptx = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
         .visible .entry k ()\n{{\n\t.reg .b32 %r<8>;\n\
         \tmov.u32 %r1, 1;\n\tmov.b32 %r2, {};\n\tmov.b32 %r3, {};\n\tmov.b32 %r4, {};\n\tmov.b32 %r5, {};\n\
         \tsust.p.1d.v4.b32.trap [s, {{%r1}}], {{%r2, %r3, %r4, %r5}};\n\tret;\n}}\n",
        comps[0], comps[1], comps[2], comps[3]
    );
    let manifest = format!("[surfaces.s]\ngeometry = \"1d\"\nwidth = 3\nformat = \"{format}\"\n");
    Kernel { ptx, manifest }
}

/// 256 threads add their index to element 0, take the max of 100 - tid into element 1
/// (`.p`: an element index, signed because the format is sint), OR a bit into element 2.
pub fn sured() -> Kernel {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k ()\n{\n\t.reg .b32 %r<8>;\n\
               \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n\tmov.u32 %r3, 4;\n\tmov.u32 %r4, 8;\n\
               \tsured.b.add.1d.u32.trap [s, {%r2}], %r1;\n\
               \tsub.s32 %r5, 100, %r1;\n\tmov.u32 %r3, 1;\n\tsured.p.max.1d.b32.trap [s, {%r3}], %r5;\n\
               \tand.b32 %r6, %r1, 31;\n\tshl.b32 %r7, 1, %r6;\n\tsured.b.or.1d.b32.trap [s, {%r4}], %r7;\n\tret;\n}\n";
    let manifest = "grid = [2]\nblock = [128]\n[surfaces.s]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_sint\"\ns32 = [0, -1000, 0, 0]\n";
    Kernel {
        ptx: ptx.into(),
        manifest: manifest.into(),
    }
}

/// Every suq query of a surface of `geom` and `format` into `out`'s seven words.
pub fn suq(geom: &str, format: &str) -> Kernel {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k (.param .u64 out)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\
               \tld.param.u64 %rd1, [out];\n\
               \tsuq.width.b32 %r1, [s];\n\tsuq.height.b32 %r2, [s];\n\tsuq.depth.b32 %r3, [s];\n\
               \tsuq.channel_data_type.b32 %r4, [s];\n\tsuq.channel_order.b32 %r5, [s];\n\
               \tsuq.array_size.b32 %r6, [s];\n\tsuq.memory_layout.b32 %r7, [s];\n\
               \tst.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n\tst.global.v2.u32 [%rd1+16], {%r5, %r6};\n\
               \tst.global.u32 [%rd1+24], %r7;\n\tret;\n}\n";
    let manifest = format!(
        "params = [{{ buffer = \"out\" }}]\n[buffers.out]\nsize = 28\n[surfaces.s]\ngeometry = \"{geom}\"\n\
         width = {W}\nheight = {H}\ndepth = {D}\nlayers = {L}\nformat = \"{format}\"\n"
    );
    Kernel {
        ptx: ptx.into(),
        manifest,
    }
}

/// One thread's `suld.b.1d.v2.b32.clamp` at byte x of a 1d surface of 8 rgba8 elements
/// (32 bytes, `pattern(32)`), its two words to `out`.
pub fn misaligned(x: i32) -> Kernel {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .surfref s;\n\
               .visible .entry k (.param .u32 x, .param .u64 out)\n{\n\
               \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
               \tld.param.u32 %r1, [x];\n\tld.param.u64 %rd1, [out];\n\
               \tsuld.b.1d.v2.b32.clamp {%r2, %r3}, [s, {%r1}];\n\
               \tst.global.v2.u32 [%rd1], {%r2, %r3};\n\tret;\n}\n";
    let manifest = format!(
        "block = [1]\nparams = [{{ u32 = {} }}, {{ buffer = \"out\" }}]\n\
         [buffers.out]\nsize = 8\n\
         [surfaces.s]\ngeometry = \"1d\"\nwidth = 8\nformat = \"rgba8_uint\"\nu8 = [{}]\n",
        x as u32,
        list(&pattern(32))
    );
    Kernel {
        ptx: ptx.into(),
        manifest,
    }
}
