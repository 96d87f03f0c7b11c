//! Random programs (src/random.rs) on the core in lock-step with the golden model: every one
//! must run with no mismatch, or trap alike on both sides. CI runs 40 programs at 8 lanes
//! and 8 at each of 1, 2, 4, 16 and 32 lanes; `SGPU_COSIM_PROGRAMS=2000 cargo test --release
//! -p rtl-tests --test cosim_random` runs more (docs/cosim.md). A failure prints its seed:
//! add it to `REGRESSIONS`, which run first, every time.

use rtl_tests::cosim::{self, Failure, Options};
use rtl_tests::port::Timing;
use rtl_tests::random::{generate, Mix};

/// Seeds that once found a difference.
const REGRESSIONS: [u64; 0] = [];

fn programs(default: u64) -> u64 {
    std::env::var("SGPU_COSIM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs the program of `seed` at `lanes`, with a random memory timing the seed picks too
/// (requests refused, answers that come while the load is still sending, and long after); a
/// difference panics with the seed.
fn check(seed: u64, lanes: u32) -> cosim::Report {
    let warps = 1 + (seed % 8) as u32;
    let mut g = generate(seed, Mix::ALL, 60, warps);
    let options = Options {
        lanes,
        memory: Timing::Random(seed),
        max_cycles: 50_000_000,
        ..Options::default()
    };
    match cosim::run(&g.program, &mut g.prepared, &options) {
        Ok(report) => report,
        Err(Failure::Trap(_, report)) => report,
        Err(f) => panic!("random program, seed {seed}, {warps} warps, {lanes} lanes: {f:?}"),
    }
}

#[test]
fn random_programs_agree_at_8_lanes() {
    let mut retired = 0;
    for seed in REGRESSIONS.into_iter().chain(1..=programs(40)) {
        retired += check(seed, 8).retired;
    }
    println!("{retired} warp instructions in lock-step");
    assert!(retired > 0);
}

#[test]
fn random_programs_agree_at_other_lane_counts() {
    for seed in 1000..1000 + programs(40) / 5 {
        for lanes in [1, 2, 4, 16, 32] {
            check(seed + u64::from(lanes) * 100_000, lanes);
        }
    }
}

/// The generator makes what it promises: programs of every kind of statement, which run,
/// over the registers and predicates it promises, on CTAs of every dimension.
#[test]
fn the_generator_covers_its_mix() {
    use sgpu_isa::{Bmode, Op, Space};
    const KINDS: [&str; 34] = [
        "integer ALU",
        "division",
        "load or store",
        "global atomic",
        "branch",
        "call",
        "barrier",
        "indirect call",
        "video ALU",
        "surface load",
        "surface store",
        "surface reduction",
        "surface query",
        "generic access",
        "shared atomic",
        "constant bank 1",
        "exit",
        "return under a guard",
        "WARPSYNC",
        "counted barrier",
        "arrive-only barrier",
        "register R239 and up",
        "predicate P4 to P6",
        "CTA of 3 dimensions",
        "f32 arithmetic",
        "f32 comparison",
        "f32 conversion with integers",
        "conversion between float formats",
        "shuffle",
        "vote",
        "warp reduction",
        "match",
        "special function",
        "f32 division or square root",
    ];
    let mut seen = [false; KINDS.len()];
    for seed in 0..60 {
        let g = generate(seed, Mix::ALL, 60, 4);
        for d in g.program.decoded.iter().flatten() {
            let i = &d.insn;
            let k = match i.op {
                Op::Idiv { .. } => 1,
                Op::Ld {
                    space: Space::Generic,
                    ..
                }
                | Op::St {
                    space: Space::Generic,
                    ..
                } => 13,
                Op::Ld { .. } | Op::St { .. } => 2,
                Op::Atom {
                    space: Space::Shared,
                    ..
                }
                | Op::Red {
                    space: Space::Shared,
                    ..
                } => 14,
                Op::Atom { .. } | Op::Red { .. } => 3,
                Op::Bra { .. } => 4,
                Op::Call { .. } => 5,
                Op::Bar {
                    bmode: Bmode::Arrive,
                    ..
                } => 20,
                Op::Bar { rc, .. } if rc != sgpu_isa::Reg::RZ => 19,
                Op::Bar { .. } | Op::Barred { .. } => 6,
                Op::Callr { .. } => 7,
                Op::Fadd { .. }
                | Op::Fadd32i { .. }
                | Op::Fmul { .. }
                | Op::Fmul32i { .. }
                | Op::Ffma { .. }
                | Op::Ffma32i { .. } => 24,
                Op::Fmnmx { .. } | Op::Fsetp { .. } => 25,
                Op::F2i { .. } | Op::I2f { .. } => 26,
                Op::F2f { .. } => 27,
                Op::Shfl { .. } => 28,
                Op::Vote { .. } => 29,
                Op::Redux { .. } => 30,
                Op::Match { .. } => 31,
                Op::Mufu { .. } => 32,
                Op::Fdiv { .. } | Op::Fsqrt { .. } | Op::Frcp { .. } => 33,
                _ if d.unit == sgpu_isa::Unit::Int => 0,
                _ if d.unit == sgpu_isa::Unit::Video => 8,
                Op::Suld { .. } => 9,
                Op::Sust { .. } => 10,
                Op::Sured { .. } => 11,
                Op::Suq { .. } => 12,
                Op::Ldc { cbank: 1, .. } => 15,
                Op::Exit => 16,
                Op::Ret if i.guard != sgpu_isa::PredSrc::ALWAYS => 17,
                Op::Warpsync { .. } | Op::Warpsynci { .. } => 18,
                _ => continue,
            };
            seen[k] = true;
            let roles = i.op.roles();
            seen[21] |= roles.regs.iter().flatten().any(|r| r.first.0 == 254);
            seen[22] |= i.guard.pred.0 >= 4 && i.guard.pred.0 < 7;
        }
        seen[23] |= g.prepared.launch.block.iter().all(|&n| n > 1);
        assert_eq!(g.program.decoded.iter().filter(|d| d.is_none()).count(), 0);
    }
    let missing: Vec<&str> = (0..KINDS.len())
        .filter(|&k| !seen[k])
        .map(|k| KINDS[k])
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
