//! Kernels run on the Verilated core in lock-step with the golden model (src/cosim.rs), at
//! the default 8 lanes and at 1 and 32: every retired warp instruction and the final memory
//! must agree, and traps must be the same trap. Also that the checker fails when it should.
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;

use rtl_tests::cosim::{Failure, Options, Report};
use rtl_tests::port::Timing;

fn program(ptx: &str) -> sgpu_sim::program::Program {
    common::program_of(&common::source(ptx), ptx)
}

/// Runs `ptx` as `manifest` launches it (files relative to the workspace) on a core of
/// `lanes` lanes.
fn cosim(ptx: &str, manifest: &str, lanes: u32, fault: Option<u64>) -> Result<Report, Failure> {
    let options = Options {
        lanes,
        fault,
        ..Options::default()
    };
    common::cosim_file(ptx, manifest, &options)
}

fn manifest(kernel: &str, with_input: bool) -> String {
    common::manifest_of(kernel, with_input, 64)
}

/// Kernels of tests/kernels/ that use only the core's units, whether they take input, and
/// their CTA size: divergence and reconvergence, guarded stores, special registers, calls
/// with local pointers and `.param` variables, indirect calls to several targets in a warp,
/// 64-bit arithmetic and high products, wide (up to 256-bit) and small vector accesses, module
/// variables and initialisers holding addresses, named barriers with thread counts, barrier
/// reductions over a partial last warp, barriers (plain and reductions) that warps' exits
/// complete while others wait, 32-bit addresses that wrap at 2^32, bit-field masks, cache
/// hints, odd local frames, SIMD video with masks and dot products on the video ALU, 64-bit
/// carry chains with set from f32 comparisons. (tests/cosim_float.rs runs the f32 kernels;
/// the other kernels there use units the core has not got yet: f32 conversions, division,
/// half precision, warp shuffles, votes and reductions, special functions.)
const KERNELS: [(&str, bool, u32); 30] = [
    ("divergent", false, 64),
    ("guarded", false, 64),
    ("specials", false, 64),
    ("localptr", false, 64),
    ("paramvars", false, 64),
    ("farcall", false, 64),
    ("statics", false, 64),
    ("mulhi", true, 64),
    ("more64", true, 64),
    ("wide", true, 64),
    ("smallvec", true, 64),
    ("named", true, 64),
    ("prodcons", false, 96),
    ("indirect", true, 64),
    ("barred", true, 80),
    ("barrier_exit", false, 128),
    ("address32", false, 64),
    ("addrinit", false, 64),
    ("bmsk", true, 64),
    ("cachehint", false, 64),
    ("movpack", true, 64),
    ("oddlocal", false, 64),
    ("paramaddr", false, 64),
    ("scopes", false, 64),
    ("vecmov", true, 64),
    ("wholevec", true, 64),
    ("wide256", true, 64),
    ("simdmask", true, 64),
    ("dot", true, 64),
    ("carry64", true, 64),
];

/// Corpus kernels with their manifests in bench/launch/: shared memory, barriers, atomics.
const CORPUS: [(&str, &str); 3] = [
    ("divergent.sm80.O2", "divergent"),
    ("histogram.sm80.O2", "histogram256"),
    ("reduction.sm80.O2", "reduce_int_dynamic_smem"),
];

/// The corpus's video kernels agree at `lanes`: LLVM's video_ops (312 inline-assembly
/// scalar and SIMD video instructions of every modifier, summed) on edge operands, and
/// ZLUDA's vshr_clamp.
fn video_corpus_agrees(lanes: u32) {
    let corpus = common::corpus_dir();
    let ptx = corpus.join("generated/llc16_ll/video_inline_asm.sm80.ptx");
    for [a, b, c] in [
        [0x80ff_7f01u32, 0x7f80_ff00, 0x1234_5678],
        [0xffff_ffff, 0x8000_0000, 0x7fff_ffff],
        [0x0000_8000, 0xffff_7fff, 0x0000_0000],
    ] {
        let m = format!(
            "kernel = \"video_ops\"\nblock = [40]\nparams = [{{ buffer = \"in\" }}, \
             {{ buffer = \"out\" }}]\n[buffers.in]\nu32 = [{a}, {b}, {c}]\n[buffers.out]\nsize = 4\n"
        );
        cosim(&ptx.to_string_lossy(), &m, lanes, None)
            .unwrap_or_else(|f| panic!("video_ops {a:#x} {b:#x} {c:#x} at {lanes} lanes: {f:?}"));
    }
    let ptx = corpus.join("zluda/spirv_run/vshr_clamp.ptx");
    let m = "params = [{ buffer = \"in\" }, { buffer = \"out\" }]\n\
             [buffers.in]\nu32 = [0x80000000, 33, 7]\n[buffers.out]\nsize = 8\n";
    cosim(&ptx.to_string_lossy(), m, lanes, None)
        .unwrap_or_else(|f| panic!("vshr_clamp at {lanes} lanes: {f:?}"));
}

/// Kernels of tests/kernels/ (name, whether they take input, CTA size) agree at `lanes`.
fn kernels_agree(kernels: &[(&str, bool, u32)], lanes: u32) {
    for &(kernel, input, block) in kernels {
        let ptx = format!("tests/kernels/{kernel}.ptx");
        let report = cosim(
            &ptx,
            &common::manifest_of(kernel, input, block),
            lanes,
            None,
        )
        .unwrap_or_else(|f| panic!("{kernel} at {lanes} lanes: {f:?}"));
        assert!(
            report.retired > 0 && report.cycles > report.retired,
            "{kernel}: {report:?}"
        );
    }
}

/// examples/reduce.toml, its input file found from the workspace.
fn reduce_manifest() -> String {
    std::fs::read_to_string(common::workspace().join("examples/reduce.toml"))
        .unwrap()
        .replace("file = \"", "file = \"examples/")
}

/// The shipped example agrees at `lanes`: two CTAs of 256 threads summing through shared
/// memory.
fn example_agrees(lanes: u32) {
    cosim("examples/reduce.ptx", &reduce_manifest(), lanes, None)
        .unwrap_or_else(|f| panic!("examples/reduce.ptx at {lanes} lanes: {f:?}"));
}

fn agree_at(lanes: u32) {
    kernels_agree(&KERNELS, lanes);
    for (file, kernel) in CORPUS {
        let launch = common::workspace().join(format!("bench/launch/{file}.{kernel}.toml"));
        let text = std::fs::read_to_string(launch)
            .unwrap()
            .replace("file = \"", "file = \"bench/launch/");
        let ptx = common::corpus_dir().join(format!("generated/clang16_cuda/{file}.ptx"));
        cosim(&ptx.to_string_lossy(), &text, lanes, None)
            .unwrap_or_else(|f| panic!("{file} {kernel} at {lanes} lanes: {f:?}"));
    }
    example_agrees(lanes);
    video_corpus_agrees(lanes);
    // tests/kernels/histogram.ptx: global atomics from eight CTAs of 128 threads.
    let data: Vec<String> = (0..1000u32)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 24) as u8).to_string())
        .collect();
    let m = format!(
        "grid = [8]\nblock = [128]\nparams = [{{ buffer = \"data\" }}, {{ buffer = \"bins\" }}, \
         {{ u32 = 1000 }}]\n[buffers.data]\nu8 = [{}]\n[buffers.bins]\nsize = 68\n",
        data.join(", ")
    );
    cosim("tests/kernels/histogram.ptx", &m, lanes, None)
        .unwrap_or_else(|f| panic!("histogram at {lanes} lanes: {f:?}"));
}

#[test]
fn kernels_agree_at_8_lanes() {
    agree_at(8);
}

#[test]
fn kernels_agree_at_1_lane() {
    agree_at(1);
}

#[test]
fn kernels_agree_at_32_lanes() {
    agree_at(32);
}

/// The other lane counts the core takes, on kernels of every kind: divergence, barriers with
/// reductions, indirect calls, shared memory.
#[test]
fn kernels_agree_at_2_4_and_16_lanes() {
    let some = [
        ("divergent", false, 64),
        ("barred", true, 80),
        ("barrier_exit", false, 128),
        ("address32", false, 64),
        ("indirect", true, 64),
    ];
    for lanes in [2, 4, 16] {
        kernels_agree(&some, lanes);
        example_agrees(lanes);
    }
}

/// Traps both sides raise: recursion past the reconvergence stack, a store and loads past
/// their buffers, warps waiting at barriers that cannot complete.
#[test]
fn traps_agree() {
    let trap_after = |ptx: &str, m: &str, latency: u64| {
        let options = Options {
            memory: Timing::Fixed(latency),
            ..Options::default()
        };
        match common::cosim_file(ptx, m, &options) {
            Err(Failure::Trap(t, _)) => t,
            other => {
                panic!("{ptx}, latency {latency}: expected a trap both agree on, got {other:?}")
            }
        }
    };
    let trap = |ptx: &str, m: &str| trap_after(ptx, m, 4);
    let t = trap("tests/kernels/calls.ptx", &manifest("calls", false));
    assert_eq!(t.cause, sgpu_sim::Cause::StackOverflow);
    // Stores and loads past their buffer answered with an error after their retirement,
    // soon or late, while other warps go on.
    let small = manifest("carry64", true).replace("size = 8192", "size = 256");
    let short = manifest("more64", true);
    let at = short.find("u32 = [").unwrap() + "u32 = [".len();
    let end = at + short[at..].find(']').unwrap();
    let short = format!("{}1, 2, 3, 4, 5, 6, 7, 8{}", &short[..at], &short[end..]);
    for latency in [1, 4, 64] {
        let t = trap_after("tests/kernels/carry64.ptx", &small, latency);
        assert!(
            matches!(t.cause, sgpu_sim::Cause::OutOfBounds { .. }),
            "{t}"
        );
        let t = trap_after("tests/kernels/more64.ptx", &short, latency);
        assert!(
            matches!(t.cause, sgpu_sim::Cause::OutOfBounds { .. }),
            "{t}"
        );
    }
    // An indirect call through a table entry that is data, not code.
    let t = trap("tests/kernels/badcall.ptx", &manifest("badcall", true));
    assert!(
        matches!(t.cause, sgpu_sim::Cause::PcOutsideCode { .. }),
        "{t}"
    );
    // prodcons needs three warps at its barriers; with two, both wait forever.
    let t = trap("tests/kernels/prodcons.ptx", &manifest("prodcons", false));
    assert_eq!(t.cause, sgpu_sim::Cause::Deadlock);
    // With three, but a count of 2,048 threads (64 warps, more than a barrier's six bits of
    // warps held once) at its first barrier, which therefore never completes.
    let ptx = "tests/kernels/prodcons.ptx";
    let wide = common::source(ptx).replace("bar.sync 2, 64;", "bar.sync 2, 2048;");
    let options = Options::default();
    match common::cosim_source(
        &wide,
        ptx,
        &common::manifest_of("prodcons", false, 96),
        &options,
    ) {
        Err(Failure::Trap(t, _)) => assert_eq!(t.cause, sgpu_sim::Cause::Deadlock),
        other => panic!("a count of 2,048 threads: expected a deadlock, got {other:?}"),
    }
}

/// The checker reports a corrupted model result as a mismatch at the instruction that
/// wrote it.
#[test]
fn the_checker_fails_when_it_should() {
    let ptx = "tests/kernels/divergent.ptx";
    let m = manifest("divergent", false);
    let Err(Failure::Mismatch(what)) = cosim(ptx, &m, 8, Some(40)) else {
        panic!("a corrupted result went unnoticed");
    };
    assert!(what.contains("register writes"), "{what}");
    let matched: u64 = what
        .split(" warp instructions matched")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(matched >= 40, "{what}");
    let pc = what
        .split("pc 0x")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .unwrap();
    let word = program(ptx).code[usize::from_str_radix(pc, 16).unwrap() / 8];
    let op = sgpu_isa::decode(word).unwrap().op;
    assert!(op.roles().regs.iter().flatten().any(|r| r.write), "{what}");

    // A corrupted load result is found when the RTL writes it, after the load retired, and
    // reported at the load.
    let ptx = "tests/kernels/more64.ptx";
    let m = manifest("more64", true);
    let load = (0..200)
        .find_map(|n| match cosim(ptx, &m, 8, Some(n)) {
            Err(Failure::Mismatch(what)) if what.contains("a load's register write") => Some(what),
            _ => None,
        })
        .expect("a corrupted load result went unnoticed");
    let pc = load
        .split("pc 0x")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .unwrap();
    let word = program(ptx).code[usize::from_str_radix(pc, 16).unwrap() / 8];
    assert!(
        matches!(
            sgpu_isa::decode(word).unwrap().op,
            sgpu_isa::Op::Ld { .. } | sgpu_isa::Op::Ldc { .. }
        ),
        "{load}"
    );
}

/// Recursion behind a conditional branch (tests/regressions.rs): a call's entry ends only
/// when its lanes return, in the core as in the model, at depths 1 to 5, the recursive call
/// uniform and divergent.
#[test]
fn recursion_agrees_at_8_1_and_32_lanes() {
    for lanes in [8, 1, 32] {
        for (kernel, depth) in [("uniform", 3), ("uniform", 5), ("divergent", 4)] {
            let m = format!(
                "kernel = \"{kernel}\"\nblock = [64]\nparams = [{{ buffer = \"in\" }}, \
                 {{ buffer = \"out\" }}]\n[buffers.in]\nu32 = [{depth}]\n[buffers.out]\nsize = 256\n"
            );
            cosim("tests/kernels/regress/recursion.ptx", &m, lanes, None)
                .unwrap_or_else(|f| panic!("{kernel} {depth} at {lanes} lanes: {f:?}"));
        }
    }
}

/// Each assertion of the RTL fires on the fault it guards against (hw/sgpu_core.sv's
/// `FAULT_*`, injected through `fault_i` from cycle 200 on), and the run stops there with its
/// name: a refused request that changes, a state that is none, a load pushed into a full
/// queue, two writers of the register file.
#[test]
fn assertions_fire_on_injected_faults() {
    // A timing that refuses requests (for the first fault), and one slow enough that the
    // loads in flight fill the queue (for the third).
    let refusing = (1..)
        .map(Timing::Random)
        .find(|t| t.profile().accept <= 50)
        .unwrap();
    let reduce = ("examples/reduce.ptx", reduce_manifest());
    // Three independent loads a thread: eight warps' worth fill the queue.
    let loads = (
        "tests/kernels/more64.ptx",
        common::manifest_of("more64", true, 256),
    );
    let cases = [
        (0, refusing, &reduce, "a_req_held"),
        (1, Timing::Fixed(4), &reduce, "a_state_legal"),
        (2, Timing::Fixed(5000), &loads, "a_push_room"),
        (3, Timing::Fixed(20), &reduce, "a_one_writer"),
    ];
    for (bit, memory, (ptx, m), assertion) in cases {
        let options = Options {
            memory,
            x_seed: 0,
            inject: Some((200, 1 << bit)),
            ..Options::default()
        };
        let result = common::cosim_file(ptx, m, &options);
        let Err(Failure::Mismatch(what)) = result else {
            panic!("fault {bit} went unnoticed: {result:?}");
        };
        assert!(
            what.contains("an assertion of the RTL failed") && what.contains(assertion),
            "fault {bit}: {what}"
        );
    }
}
