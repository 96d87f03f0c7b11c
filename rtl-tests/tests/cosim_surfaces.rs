//! Surface kernels run on the Verilated core in lock-step with the golden model (src/cosim.rs):
//! every retired warp instruction (the registers SULD and SUQ write, the stores SUST and
//! SURED make) and the final memory must agree, and a trap must be the same trap.
//!
//! - The surface tests' generated kernels (tests/surface_kernels/, which tests/surfaces.rs
//!   checks against the layout rules): suld.b and sust.b of every geometry, clamp mode,
//!   vector width and data size on coordinates inside, on and outside every edge, negative
//!   ones included; sust.p into all 36 formats; sured from 256 threads, many lanes of a warp
//!   to the same sample; suq of every query; misaligned accesses.
//! - Every sured operation and type, `.b` and `.p`, on uint and sint surfaces.
//! - LLVM's texsurf_all tests (generated/llc16_ll): a kernel for every surface intrinsic, in
//!   CUDA's and OpenCL's flavour, their texture kernels left out.
//! - examples/blend.ptx, and the LLVM NVPTX output of the surface intrinsics in the corpus
//!   (generated/llc16_ll: surf_basic's four kernels and video_inline_asm's
//!   surface_reductions), with their traps.
//! - The CUDA examples that use surfaces or video instructions (examples/cuda/blur.cu,
//!   surfaces.cu, video.cu and simd.cu, compiled by clang-16 as `ptxas-rs cuda` does) and
//!   tests/kernels/trap.ptx.
//! - Edges of the core's part: lanes of one instruction on different surfaces, a lane's
//!   store into the descriptor table that the next lane must see, handles past the table's
//!   end.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;
#[path = "../../tests/surface_kernels/mod.rs"]
mod surface_kernels;

use rtl_tests::cosim::{Failure, Options, Report};
use sgpu_sim::program::Program;
use sgpu_sim::trap::Fault;
use sgpu_sim::Cause;
use surface_kernels::*;

/// `kernel` on a core of `lanes` lanes: it agrees with the model, ending well or in the same
/// trap; the cause of that trap, if any.
fn agree(kernel: &Kernel, name: &str, lanes: u32) -> Option<Cause> {
    let options = Options {
        lanes,
        ..Options::default()
    };
    let program = common::program_of(&kernel.ptx, name);
    agree_program(&program, &kernel.manifest, name, &options)
}

/// [`agree`] for a program already assembled, on the core `options` describe.
fn agree_program(
    program: &Program,
    manifest: &str,
    name: &str,
    options: &Options,
) -> Option<Cause> {
    match common::cosim_program(program, name, manifest, options) {
        Ok(report) => {
            check_report(&report, name);
            None
        }
        Err(Failure::Trap(trap, report)) => {
            check_report(&report, name);
            Some(trap.cause)
        }
        Err(f) => panic!(
            "{name} at {} lanes, {} warps: {f:?}",
            options.lanes, options.warps
        ),
    }
}

fn check_report(report: &Report, name: &str) {
    assert!(
        report.retired > 0 && report.cycles > report.retired,
        "{name}: {report:?}"
    );
}

/// Every suld.b form on the nine coordinate sets, one thread each: at 8 lanes, and a
/// geometry each at 1 and 32.
#[test]
fn suld_b_kernels_agree() {
    let mut traps = 0;
    for a in accesses(&CLAMPS) {
        let lanes: &[u32] = match a.geom {
            "1d" => &[8, 1],
            "a2d" => &[8, 32],
            _ => &[8],
        };
        for &lanes in lanes {
            if let Some(cause) = agree(&suld_b(&a), &a.name("suld"), lanes) {
                assert!(
                    matches!(cause, Cause::Surface(Fault::OutOfBounds { .. })),
                    "{}: {cause}",
                    a.name("suld")
                );
                traps += 1;
            }
        }
    }
    // Every .trap form has coordinates outside.
    assert_eq!(traps, accesses(&["trap"]).len() + 11 * 2, "{traps}");
}

/// Every sust.b form, a thread at a time on each coordinate set, at 8 lanes.
#[test]
fn sust_b_kernels_agree() {
    let mut runs = 0;
    for a in accesses(&["clamp", "zero"]) {
        let kernel = |t: usize| Kernel {
            ptx: sust_b_ptx(&a),
            manifest: sust_b_manifest(&a, t, &pattern(surface_bytes(a.geom))),
        };
        for t in 0..coordinate_sets(a.geom, a.size()).len() {
            let name = format!("{} thread {t}", a.name("sust"));
            assert_eq!(agree(&kernel(t), &name, 8), None, "{name}");
            runs += 1;
        }
    }
    assert_eq!(runs, 10 * 11 * 9);
}

/// sust.p into each of the 36 formats.
#[test]
fn sust_p_kernels_agree() {
    for channels in P_CHANNELS {
        for (suffix, _) in P_SUFFIXES {
            let format = format!("{channels}{suffix}");
            let float = ["unorm", "snorm", "float"]
                .iter()
                .any(|k| suffix.ends_with(k));
            assert_eq!(agree(&sust_p(&format, float), &format, 8), None, "{format}");
        }
    }
}

/// sured from two CTAs of 128 threads, every lane of every warp into the same three
/// samples, at each lane count the core takes.
#[test]
fn sured_from_many_lanes_to_one_sample_agrees() {
    for lanes in [1, 2, 4, 8, 16, 32] {
        assert_eq!(agree(&sured(), "sured", lanes), None, "{lanes} lanes");
    }
}

/// suq's every query, and the misaligned loads' traps.
#[test]
fn suq_and_misaligned_kernels_agree() {
    for (geom, format) in [
        ("2d", "rgba8_unorm"),
        ("3d", "r32_float"),
        ("a1d", "rg16_sint"),
        ("a2d", "rgba16_snorm"),
    ] {
        assert_eq!(agree(&suq(geom, format), "suq", 8), None, "{geom} {format}");
    }
    for (x, traps) in [(0, false), (24, false), (100, false), (4, true), (12, true)] {
        let cause = agree(&misaligned(x), "misaligned", 8);
        assert_eq!(
            matches!(cause, Some(Cause::Misaligned { size: 8, .. })),
            traps,
            "x {x}: {cause:?}"
        );
    }
}

fn corpus(file: &str) -> String {
    let path = common::corpus_dir().join("generated/llc16_ll").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn words(n: u32, f: impl Fn(u32) -> u32) -> String {
    (0..n)
        .map(|i| f(i).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// examples/blend.ptx as its manifest launches it, at 8, 1 and 32 lanes.
#[test]
fn blend_example_agrees() {
    let read = |f: &str| std::fs::read_to_string(common::workspace().join(f)).unwrap();
    let kernel = Kernel {
        ptx: read("examples/blend.ptx"),
        manifest: read("examples/blend.toml"),
    };
    for lanes in [8, 1, 32] {
        assert_eq!(agree(&kernel, "blend", lanes), None, "{lanes} lanes");
    }
}

/// surf_basic's kernels: a bindless copy by 2x2 CTAs of 16x8 threads; the `.surfref`
/// loads and stores in bounds, clamped, zeroed and trapping; suq of a parameter's surface
/// and a `.surfref`; and surf_vectors, whose first access of another geometry traps.
#[test]
fn surf_basic_kernels_agree() {
    let ptx = corpus("surf_basic.sm80.ptx");
    let run = |manifest: String| {
        let kernel = Kernel {
            ptx: ptx.clone(),
            manifest,
        };
        agree(&kernel, "surf_basic", 8)
    };
    let copy = format!(
        "kernel = \"surf_copy_invert_bindless\"\ngrid = [2, 2]\nblock = [16, 8]\n\
         params = [{{ surface = \"src\" }}, {{ surface = \"dst\" }}, {{ u32 = 20 }}, {{ u32 = 11 }}]\n\
         [surfaces.src]\ngeometry = \"2d\"\nwidth = 20\nheight = 11\nformat = \"r32_uint\"\nu32 = [{}]\n\
         [surfaces.dst]\ngeometry = \"2d\"\nwidth = 24\nheight = 12\nformat = \"rgba8_unorm\"\n",
        words(220, |i| i.wrapping_mul(0x9e37_79b9))
    );
    assert_eq!(run(copy), None);
    let global_ref = |x: i32, y: i32| {
        format!(
            "kernel = \"surf_global_ref\"\n\
             params = [{{ buffer = \"out\" }}, {{ s32 = {x} }}, {{ s32 = {y} }}]\n\
             [buffers.out]\nsize = 4\n\
             [surfaces.surf0]\ngeometry = \"2d\"\nwidth = 8\nheight = 4\nformat = \"r32_uint\"\nu32 = [{}]\n\
             [surfaces.surf1]\ngeometry = \"2d\"\nwidth = 48\nheight = 4\nformat = \"r32_uint\"\nu32 = [{}]\n",
            words(32, |i| i * 0x0101_0101 + 0x0100_0000),
            words(192, |i| i.wrapping_mul(0x8000_8001))
        )
    };
    assert_eq!(run(global_ref(8, 1)), None);
    assert_eq!(run(global_ref(40, 3)), None);
    assert!(matches!(
        run(global_ref(4, -1)),
        Some(Cause::Surface(Fault::OutOfBounds { .. }))
    ));
    for (s, surf0) in [
        (
            "geometry = \"3d\"\nwidth = 5\nheight = 6\ndepth = 7\nformat = \"r32_float\"",
            "geometry = \"a2d\"\nwidth = 3\nheight = 2\nlayers = 4\nformat = \"rg16_snorm\"",
        ),
        (
            "geometry = \"2d\"\nwidth = 9\nheight = 10\nformat = \"r16_sint\"",
            "geometry = \"2d\"\nwidth = 4\nheight = 4\nformat = \"rgba8_unorm\"",
        ),
    ] {
        let query = format!(
            "kernel = \"surf_query\"\nparams = [{{ surface = \"s\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.out]\nsize = 24\n[surfaces.s]\n{s}\n[surfaces.surf0]\n{surf0}\n"
        );
        assert_eq!(run(query), None, "{s}");
    }
    let vectors = format!(
        "kernel = \"surf_vectors\"\n\
         params = [{{ surface = \"s\" }}, {{ buffer = \"out\" }}, {{ u32 = 4 }}, {{ u32 = 2 }}, \
         {{ u32 = 0 }}, {{ u32 = 0 }}]\n[buffers.out]\nsize = 4\n\
         [surfaces.s]\ngeometry = \"2d\"\nwidth = 4\nheight = 3\nformat = \"r32_uint\"\nu32 = [{}]\n",
        words(12, |i| 0x0403_0201u32.wrapping_mul(i + 1))
    );
    assert!(matches!(
        run(vectors),
        Some(Cause::Surface(Fault::Geometry { .. }))
    ));
}

/// video_inline_asm's surface_reductions: a 2d reduction, then the first 1d one traps.
#[test]
fn surface_reductions_agree() {
    let kernel = Kernel {
        ptx: corpus("video_inline_asm.sm80.ptx"),
        manifest: format!(
            "kernel = \"surface_reductions\"\nblock = [32]\n\
             params = [{{ surface = \"s\" }}, {{ u32 = 8 }}, {{ u32 = 1 }}, {{ u32 = 2097157 }}, \
             {{ u64 = 9 }}]\n\
             [surfaces.s]\ngeometry = \"2d\"\nwidth = 4\nheight = 3\nformat = \"r32_uint\"\nu32 = [{}]\n",
            words(12, |i| 0xfff0_0000 + i)
        ),
    };
    assert!(matches!(
        agree(&kernel, "surface_reductions", 8),
        Some(Cause::Surface(Fault::Geometry { .. }))
    ));
}

/// tests/kernels/trap.ptx as tests/cli.rs runs it: eight threads read a 4-pixel surface
/// with `.trap`, and the fifth traps.
#[test]
fn trap_kernel_agrees() {
    let kernel = Kernel {
        ptx: std::fs::read_to_string(common::workspace().join("tests/kernels/trap.ptx")).unwrap(),
        manifest: "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n\
                   [surfaces.img]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_uint\"\n"
            .into(),
    };
    assert!(matches!(
        agree(&kernel, "trap.ptx", 8),
        Some(Cause::Surface(Fault::OutOfBounds { value: 16, .. }))
    ));
}

/// A handle past the descriptor table's end, from a parameter, traps before any descriptor
/// is read.
#[test]
fn refused_handles_agree() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
               .visible .entry k (.param .u64 h)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\
               \tld.param.u64 %rd1, [h];\n\tmov.u32 %r1, 0;\n\
               \tsuld.b.1d.b32.trap %r2, [%rd1, {%r1}];\n\tret;\n}\n";
    for handle in [1u64, 1 << 32] {
        let kernel = Kernel {
            ptx: ptx.into(),
            manifest: format!(
                "params = [{{ u64 = {handle} }}]\n\
                 [surfaces.s]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_uint\"\n"
            ),
        };
        assert!(
            matches!(
                agree(&kernel, "unbound", 8),
                Some(Cause::Surface(Fault::Unbound { .. }))
            ),
            "handle {handle:#x}"
        );
    }
}

/// A lane's store into the descriptor table (a descriptor whose data is the table itself)
/// changes the descriptor the next lane uses: lane 0's `sust` shrinks the surface to two
/// elements, so lane 1's, at byte 12, traps, on the model and so on the core, which reads
/// the descriptor again rather than keep the one it read for lane 0.
#[test]
fn a_store_into_the_descriptor_table_reaches_the_next_lane() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
               .visible .entry k (.param .u64 s, .param .u64 table)\n{\n\
               \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\
               \tld.param.u64 %rd1, [s];\n\tld.param.u64 %rd2, [table];\n\
               \tst.global.u64 [%rd2], %rd2;\n\
               \tmov.u32 %r1, %tid.x;\n\tmul.lo.u32 %r2, %r1, -4;\n\tadd.u32 %r2, %r2, 16;\n\
               \tmov.u32 %r3, 65538;\n\
               \tsust.b.1d.b32.trap [%rd1, {%r2}], %r3;\n\tret;\n}\n";
    let manifest = |table: u64| {
        format!(
            "block = [2]\nparams = [{{ surface = \"s\" }}, {{ u64 = {table} }}]\n\
             [surfaces.s]\ngeometry = \"1d\"\nwidth = 16\nformat = \"r32_uint\"\n"
        )
    };
    let program = common::program_of(ptx, "table");
    let table = sgpu_sim::launch::prepare(&manifest(0), &common::workspace(), &program)
        .unwrap()
        .surfaces
        .table;
    let kernel = Kernel {
        ptx: ptx.into(),
        manifest: manifest(table),
    };
    assert!(matches!(
        agree(&kernel, "table", 8),
        Some(Cause::Surface(Fault::OutOfBounds { value: 12, .. }))
    ));
}

/// Every sured operation and type PTX has, `.b` and `.p`, on a uint and a sint surface
/// (whose format decides `.b32`'s and `.b64`'s signedness): the 32 lanes of one warp reduce
/// edge values into four samples, eight lanes into each.
#[test]
fn sured_every_operation_and_type_agrees() {
    let b = [
        ("add", "u32"),
        ("add", "u64"),
        ("add", "s32"),
        ("min", "u32"),
        ("min", "s32"),
        ("min", "u64"),
        ("min", "s64"),
        ("max", "u32"),
        ("max", "s32"),
        ("max", "u64"),
        ("max", "s64"),
        ("and", "b32"),
        ("or", "b32"),
    ];
    let p = [
        ("add", "b32"),
        ("min", "b32"),
        ("max", "b32"),
        ("and", "b32"),
        ("or", "b32"),
        ("min", "b64"),
        ("max", "b64"),
    ];
    let edges: [u32; 8] = [
        0,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fffe,
        0x1234_5678,
        100,
    ];
    let values: Vec<i64> = (0..32)
        .map(|t| (u64::from(edges[t / 4 % 8]) << 32 | u64::from(edges[(t + 3) % 8])) as i64)
        .collect();
    let forms = b.iter().map(|f| ("b", f)).chain(p.iter().map(|f| ("p", f)));
    let mut runs = 0;
    for (addressing, &(op, ty)) in forms {
        let wide = ty.ends_with("64");
        // A sample's offset: x in bytes for .b, in elements for .p.
        let scale = if addressing == "p" {
            1
        } else if wide {
            8
        } else {
            4
        };
        let data = if wide { "%rd4" } else { "%r2" };
        let ptx = format!(
            ".version 8.1\n.target sm_80\n.address_size 64\n\
             .visible .entry k (.param .u64 s, .param .u64 v)\n{{\n\
             \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<5>;\n\
             \tld.param.u64 %rd1, [s];\n\tld.param.u64 %rd2, [v];\n\
             \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 8;\n\tadd.s64 %rd3, %rd2, %rd3;\n\
             \tld.global.u64 %rd4, [%rd3];\n\tcvt.u32.u64 %r2, %rd4;\n\
             \tand.b32 %r3, %r1, 3;\n\tmul.lo.u32 %r3, %r3, {scale};\n\
             \tsured.{addressing}.{op}.1d.{ty}.trap [%rd1, {{%r3}}], {data};\n\tret;\n}}\n"
        );
        for kind in ["uint", "sint"] {
            // .p of 64 bits needs 8-byte samples.
            let (format, width) = match (addressing, wide) {
                ("p", true) => (format!("rg32_{kind}"), 4),
                _ => (format!("r32_{kind}"), 8),
            };
            let manifest = format!(
                "block = [32]\nparams = [{{ surface = \"s\" }}, {{ buffer = \"v\" }}]\n\
                 [buffers.v]\ns64 = [{}]\n\
                 [surfaces.s]\ngeometry = \"1d\"\nwidth = {width}\nformat = \"{format}\"\n\
                 u32 = [2147483647, 2147483648, 5, 4294967280, 0, 1, 4294967295, 1073741824]\n",
                values
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let name = format!("sured.{addressing}.{op}.1d.{ty} on {format}");
            let kernel = Kernel {
                ptx: ptx.clone(),
                manifest,
            };
            assert_eq!(agree(&kernel, &name, 8), None, "{name}");
            runs += 1;
        }
    }
    assert_eq!(runs, 2 * (13 + 7));
}

/// The lanes of one instruction on different surfaces: every third lane loads from and
/// stores to one, the others to the other, so the core reads a descriptor again as the
/// handle changes from lane to lane.
#[test]
fn lanes_on_different_surfaces_agree() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
               .visible .entry k (.param .u64 a, .param .u64 b, .param .u64 out)\n{\n\
               \t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<8>;\n\
               \tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [b];\n\tld.param.u64 %rd3, [out];\n\
               \tmov.u32 %r1, %tid.x;\n\trem.u32 %r2, %r1, 3;\n\tsetp.eq.u32 %p1, %r2, 0;\n\
               \tselp.b64 %rd4, %rd1, %rd2, %p1;\n\tselp.b64 %rd5, %rd2, %rd1, %p1;\n\
               \tshl.b32 %r3, %r1, 2;\n\
               \tsuld.b.1d.b32.clamp %r4, [%rd4, {%r3}];\n\
               \tadd.u32 %r5, %r4, %r1;\n\
               \tsust.b.1d.b32.zero [%rd5, {%r3}], %r5;\n\
               \tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd7, %rd3, %rd6;\n\
               \tst.global.u32 [%rd7], %r4;\n\tret;\n}\n";
    let manifest = format!(
        "block = [32]\nparams = [{{ surface = \"a\" }}, {{ surface = \"b\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.out]\nsize = 128\n\
         [surfaces.a]\ngeometry = \"1d\"\nwidth = 32\nformat = \"r32_uint\"\nu32 = [{}]\n\
         [surfaces.b]\ngeometry = \"1d\"\nwidth = 20\nformat = \"r32_uint\"\nu32 = [{}]\n",
        words(32, |i| i * 3 + 1000),
        words(20, |i| i * 7 + 5000)
    );
    let kernel = Kernel {
        ptx: ptx.into(),
        manifest,
    };
    assert_eq!(agree(&kernel, "two surfaces", 8), None);
    assert_eq!(agree(&kernel, "two surfaces", 1), None);
}

/// The CUDA examples that use surfaces or video instructions, compiled by clang-16 as
/// `ptxas-rs cuda` compiles them: blur.cu (a box blur through 2d surfaces, 2 x 2 CTAs of
/// 8 x 8 threads), video.cu and simd.cu (the scalar video and SIMD intrinsics), and
/// surfaces.cu (every surface read and write of sgpu_cuda.h: five geometries, eleven element
/// shapes, three boundary modes), also reading (trap = 1) and writing (2) out of bounds in
/// trap mode.
#[test]
fn cuda_surface_and_video_examples_agree() {
    let dir = tempfile::tempdir().unwrap();
    let examples = common::workspace().join("examples/cuda");
    let compile = |name: &str| {
        let ptx = dir.path().join(format!("{name}.ptx"));
        let cu = examples.join(format!("{name}.cu"));
        assert!(
            ptxas_rs::cuda::compile(&cu, &ptx, dir.path()).unwrap(),
            "{name}.cu"
        );
        std::fs::read_to_string(&ptx).unwrap()
    };
    let manifest = |name: &str| std::fs::read_to_string(examples.join(format!("{name}.toml")));
    for name in ["blur", "video", "simd"] {
        let kernel = Kernel {
            ptx: compile(name),
            manifest: manifest(name).unwrap(),
        };
        assert_eq!(agree(&kernel, name, 8), None, "{name}.cu");
    }
    let surfaces = manifest("surfaces").unwrap();
    assert!(
        surfaces.contains("{ s32 = 0 }]"),
        "trap is the last parameter"
    );
    let ptx = compile("surfaces");
    for trap in 0..3 {
        let kernel = Kernel {
            ptx: ptx.clone(),
            manifest: surfaces.replace("{ s32 = 0 }]", &format!("{{ s32 = {trap} }}]")),
        };
        let cause = agree(&kernel, "surfaces.cu", 8);
        assert_eq!(
            matches!(cause, Some(Cause::Surface(Fault::OutOfBounds { .. }))),
            trap != 0,
            "trap = {trap}: {cause:?}"
        );
    }
}

/// The kernels of a PTX module that use no texture (`tex`, `tld4`, `txq`, which sgpu has
/// not), as the module with the others left out, and each kept kernel's name and parameter
/// types (`.u64`, `.u32`, `.surfref`, ...).
fn surface_only(source: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut module = String::new();
    let mut kernels = Vec::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.contains(".entry ") {
            module += line;
            module.push('\n');
            continue;
        }
        let mut body = vec![line];
        for l in lines.by_ref() {
            body.push(l);
            if l == "}" {
                break;
            }
        }
        let texture = body.iter().any(|l| {
            let op = l.trim_start();
            op.starts_with("tex.") || op.starts_with("tld4.") || op.starts_with("txq.")
        });
        if texture {
            continue;
        }
        let name = line.split(".entry ").nth(1).unwrap().trim_end_matches('(');
        let params = body
            .iter()
            .filter_map(|l| l.trim_start().strip_prefix(".param "))
            .map(|p| p.split_whitespace().next().unwrap().to_string())
            .collect();
        kernels.push((name.to_string(), params));
        module += &body.join("\n");
        module.push('\n');
    }
    (module, kernels)
}

/// The geometry a texsurf_all kernel's name says (its suq kernels query a 2d array).
fn geometry_of(kernel: &str) -> &'static str {
    [
        ("_1d_array", "a1d"),
        ("_2d_array", "a2d"),
        ("_1d", "1d"),
        ("_2d", "2d"),
        ("_3d", "3d"),
    ]
    .into_iter()
    .find(|(part, _)| kernel.contains(part))
    .map_or("a2d", |(_, g)| g)
}

/// LLVM's texsurf_all tests (generated/llc16_ll, CUDA's and OpenCL's flavour): a kernel for
/// every surface intrinsic (suld and sust.b of every geometry, element type and clamp mode,
/// sust.p, suq of every query; by handle and by `.surfref`), their texture kernels left out.
/// Each runs as one thread on a 4 x 2 x 2 (x 2 layers) rgba32_uint surface, once with every
/// coordinate and value parameter 0 (in bounds) and once 64 (out of bounds: clamped, zeroed
/// or trapping), the handle or `.surfref` bound to the surface, a u64 pointer to an output
/// buffer where the kernel stores. The OpenCL flavour's kernels are the CUDA flavour's
/// instructions with other parameters: one in four of them run, every one with
/// `SGPU_CORPUS_ALL` (as `cosim_corpus.rs` chooses; it halves the test's time, the longest
/// of the test command's).
#[test]
fn texsurf_all_surface_kernels_agree() {
    let all = std::env::var_os("SGPU_CORPUS_ALL").is_some();
    for (file, every) in [
        ("texsurf_all_cuda.sm80.ptx", 1),
        ("texsurf_all_nvcl.sm80.ptx", if all { 1 } else { 4 }),
    ] {
        let (ptx, kernels) = surface_only(&corpus(file));
        assert!(kernels.len() > 650, "{file}: {} kernels", kernels.len());
        let kernels: Vec<_> = kernels.into_iter().step_by(every).collect();
        let program = common::program_of(&ptx, file);
        // One thread: a core of one warp starts its CTA eight times sooner.
        let one_warp = Options {
            warps: 1,
            ..Options::default()
        };
        let (mut ran, mut trapped) = (0, 0);
        for (name, params) in &kernels {
            let stores = ptx
                .split(&format!(".entry {name}("))
                .nth(1)
                .and_then(|k| k.split("\n}").next())
                .is_some_and(|k| k.contains("st.global"));
            let surface = if name.ends_with("_bindless") {
                "s"
            } else {
                "gsurf"
            };
            for value in [0, 64] {
                let args: Vec<String> = params
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| match ty.as_str() {
                        ".surfref" => "{ surface = \"s\" }".to_string(),
                        ".u64" if i == 0 && surface == "s" => "{ surface = \"s\" }".into(),
                        ".u64" if stores => "{ buffer = \"out\" }".into(),
                        ty => format!("{{ {} = {value} }}", &ty[1..]),
                    })
                    .collect();
                // 64-byte rows; two of them, two slices or two layers as the geometry has.
                let geometry = geometry_of(name);
                let rows = match geometry {
                    "1d" => 1,
                    "2d" | "a1d" => 2,
                    _ => 4,
                };
                let manifest = format!(
                    "kernel = \"{name}\"\nparams = [{}]\n[buffers.out]\nsize = 64\n\
                     [surfaces.{surface}]\ngeometry = \"{geometry}\"\nwidth = 4\nheight = 2\n\
                     depth = 2\nlayers = 2\nformat = \"rgba32_uint\"\nu32 = [{}]\n",
                    args.join(", "),
                    words(16 * rows, |i| i.wrapping_mul(0x0101_0101) ^ 0x8040_2010)
                );
                let run = format!("{file} {name} ({value})");
                if agree_program(&program, &manifest, &run, &one_warp).is_some() {
                    trapped += 1;
                }
                ran += 1;
            }
        }
        println!(
            "{file}: {} kernels run (one in {every}), {ran} runs, {trapped} trapped alike",
            kernels.len()
        );
        assert!(
            trapped > 0 && trapped < ran,
            "{file}: {trapped} of {ran} trapped"
        );
    }
}
