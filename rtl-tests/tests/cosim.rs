//! Kernels run on the Verilated core in lock-step with the golden model (src/cosim.rs), at
//! the default 8 lanes and at 1 and 32: every retired warp instruction and the final memory
//! must agree, and traps must be the same trap. Also that the checker fails when it should.
//! Verilator and g++ must be installed: without them the build of this crate fails.

use rtl_tests::cosim::{self, Failure, Options, Report};
use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn program(ptx: &str) -> sgpu_sim::program::Program {
    let path = workspace().join(ptx);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{ptx}: {e}"));
    let (module, diags) = ptx_grammar::parse(&source);
    assert!(diags.is_empty(), "{ptx}: {diags:?}");
    let a = ptx_encoder::assemble(&source, ptx, &module, &Default::default())
        .unwrap_or_else(|d| panic!("{ptx}: {d:?}"));
    sgpu_sim::program::Program::load(&a.elf, sgpu_sim::memory::GLOBAL_BASE).unwrap()
}

/// Runs `ptx` as `manifest` launches it (files relative to the workspace) on a core of
/// `lanes` lanes.
fn cosim(ptx: &str, manifest: &str, lanes: u32, fault: Option<u64>) -> Result<Report, Failure> {
    let program = program(ptx);
    let mut prepared = sgpu_sim::launch::prepare(manifest, workspace(), &program)
        .unwrap_or_else(|e| panic!("{ptx}: {e}"));
    let options = Options {
        lanes,
        fault,
        ..Options::default()
    };
    cosim::run(&program, &mut prepared, &options)
}

/// Two CTAs of 64 threads with one output buffer (and an input of random words).
fn manifest(kernel: &str, with_input: bool) -> String {
    let mut m = format!("kernel = \"{kernel}\"\ngrid = [2]\nblock = [64]\n");
    if with_input {
        let mut x = 0x9e37_79b9u32;
        let words: Vec<String> = (0..2048)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x.to_string()
            })
            .collect();
        m += "params = [{ buffer = \"in\" }, { buffer = \"out\" }]\n";
        m += &format!("[buffers.in]\nu32 = [{}]\n", words.join(", "));
    } else {
        m += "params = [{ buffer = \"out\" }]\n";
    }
    m + "[buffers.out]\nsize = 4096\n"
}

/// Kernels of tests/kernels/ that use only the core's units, and whether they take input.
const KERNELS: [(&str, bool); 6] = [
    ("divergent", false),
    ("guarded", false),
    ("specials", false),
    ("localptr", false),
    ("mulhi", true),
    ("more64", true),
];

fn agree_at(lanes: u32) {
    for (kernel, input) in KERNELS {
        let ptx = format!("tests/kernels/{kernel}.ptx");
        let report = cosim(&ptx, &manifest(kernel, input), lanes, None)
            .unwrap_or_else(|f| panic!("{kernel} at {lanes} lanes: {f:?}"));
        assert!(
            report.retired > 0 && report.cycles > report.retired,
            "{kernel}: {report:?}"
        );
    }
    let corpus = "generated/clang16_cuda/divergent.sm80.O2.ptx";
    let text =
        std::fs::read_to_string(workspace().join("bench/launch/divergent.sm80.O2.divergent.toml"))
            .unwrap()
            .replace("file = \"", "file = \"bench/launch/");
    let shared = std::env::var("PTXAS_SHARED").unwrap_or_else(|_| "../shared".into());
    let ptx = workspace().join(shared).join("corpus").join(corpus);
    let ptx = ptx.to_string_lossy();
    cosim(&ptx, &text, lanes, None).unwrap_or_else(|f| panic!("{corpus}: {f:?}"));
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

/// Traps both sides raise: recursion past the reconvergence stack, a store past its buffer.
#[test]
fn traps_agree() {
    let trap = |ptx: &str, m: &str| match cosim(ptx, m, 8, None) {
        Err(Failure::Trap(t, _)) => t,
        other => panic!("{ptx}: expected a trap both agree on, got {other:?}"),
    };
    let t = trap("tests/kernels/calls.ptx", &manifest("calls", false));
    assert_eq!(t.cause, sgpu_sim::Cause::StackOverflow);
    let small = manifest("carry64", true).replace("size = 4096", "size = 256");
    let t = trap("tests/kernels/carry64.ptx", &small);
    assert!(
        matches!(t.cause, sgpu_sim::Cause::OutOfBounds { .. }),
        "{t}"
    );
}

/// The checker reports a corrupted model result as a mismatch at the instruction that
/// wrote it, and an instruction the core has no unit for as such.
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

    let Err(Failure::Mismatch(what)) = cosim(
        "tests/kernels/special.ptx",
        &manifest("special", true),
        8,
        None,
    ) else {
        panic!("an unimplemented instruction went unnoticed");
    };
    assert!(
        what.contains("MUFU.SIN") && what.contains("no unit"),
        "{what}"
    );
}
