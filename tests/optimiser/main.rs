//! The optimiser against the literal translation on random programs, in the style of Csmith
//! and YARPGen: each runs at -O1, -O2 and -O3 against -O0 (`common::Both`: all of global
//! memory compared, traps alike), and every register is stored at the end, so a wrong value
//! anywhere shows.
//!
//! - Random PTX (`ptx.rs`, the shapes it makes listed there); one program in four is
//!   optimised with 16 registers (ptxas's `-maxrregcount 16`), so values spill, across calls
//!   too.
//! - Random CUDA C (`cuda.rs`) compiled by clang-16, whose results the generator computes
//!   itself: each level must also store what it says.
//!
//! A failing program is shrunk (`minimise.rs`) and printed with the seed that makes it.
//! CI runs `OPT_CASES` PTX and `CUDA_CASES` CUDA programs; by hand, `SGPU_OPT_CASES=1000000
//! cargo test --release --test optimiser` (and `SGPU_OPT_CUDA_CASES`) run more, on every core,
//! from program `SGPU_OPT_FIRST` on (a long run in parts; docs/optimiser.md has the runs and
//! their times).

#[path = "../common/mod.rs"]
mod common;
mod cuda;
mod minimise;
mod ptx;

use common::list;
use ptx_encoder::Options;
use std::path::Path;

/// Random PTX programs in CI; `SGPU_OPT_CASES` overrides.
const OPT_CASES: u64 = 256;
/// Random CUDA C programs in CI; `SGPU_OPT_CUDA_CASES` overrides.
const CUDA_CASES: u64 = 48;
/// Registers for the optimised code of one program in four.
const FEW_REGISTERS: u32 = 16;

/// The count an environment variable asks for, or `default`.
fn cases(var: &str, default: u64) -> u64 {
    std::env::var(var).map_or(default, |v| v.parse().expect("a count"))
}

/// The `i`th program's seed (SplitMix64, so that workers need no shared sequence).
fn seed(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x0917).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs `check(i)` for `i` in `0..n` on every core; `check` panics on a failure.
fn on_every_core(n: u64, check: impl Fn(u64) + Sync) {
    let workers = std::thread::available_parallelism().map_or(1, |w| w.get() as u64);
    std::thread::scope(|s| {
        for w in 0..workers {
            let check = &check;
            s.spawn(move || (w..n).step_by(workers as usize).for_each(check));
        }
    });
}

/// Whether `source` checks and assembles with `options` and at -O0.
fn assembles(source: &str, options: &Options) -> bool {
    let (module, diags) = ptx_grammar::parse(source);
    let clean = diags.is_empty() && ptx_grammar::check(&module).iter().all(|d| !d.is_error());
    let at_o0 = Options {
        opt_level: 0,
        ..Default::default()
    };
    clean
        && [options, &at_o0]
            .iter()
            .all(|o| ptx_encoder::assemble(source, "random.ptx", &module, o).is_ok())
}

/// Warp instructions a launch of a program being shrunk may run (a removed line can leave
/// a loop that runs much longer).
const SHRINK_LIMIT: u64 = 1 << 22;

/// `source` with `options` and at -O0 launched as `manifest` says (at most
/// [`SHRINK_LIMIT`] warp instructions each), compared (`common::Both`: panics on a
/// difference).
fn launch_limited(source: &str, options: &Options, manifest: &str) -> common::Launched {
    let mut both = common::load_both_with(source, "random.ptx", options);
    both.max_instructions = Some(SHRINK_LIMIT);
    both.launch(manifest, Path::new("."))
}

/// `f` with panic messages silenced: a shrinker's tries that still fail each panic.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = f();
    std::panic::set_hook(hook);
    result
}

/// `source`, which differs with `options`, shrunk to the lines it needs to differ (a trap
/// at both levels alike is no difference).
fn shrunk(source: &str, options: &Options, manifest: &str) -> String {
    let differs = |s: &str| std::panic::catch_unwind(|| launch_limited(s, options, manifest));
    let fails = |s: &str| assembles(s, options) && differs(s).is_err();
    quietly(|| match fails(source) {
        true => minimise::minimise(source, fails),
        false => "(it traps alike at -O0; not shrunk)".to_string(),
    })
}

/// The options of level `level` with `registers`.
fn at(level: u8, registers: u32) -> Options {
    Options {
        opt_level: level,
        max_registers: registers,
    }
}

/// Panics with `what` went wrong with `source`, shrunk and whole.
fn failed(what: &str, why: &str, source: &str, options: &Options, manifest: &str) -> ! {
    let small = shrunk(source, options, manifest);
    panic!(
        "{what} at -O{} with {} registers: {why}\nshrunk:\n{small}\nwhole:\n{source}",
        options.opt_level, options.max_registers
    );
}

/// Runs `source` at -O1..-O3 (with `registers`) against -O0 as `manifest` launches it.
fn agrees_at_every_level(source: &str, registers: u32, manifest: &str, what: &str) {
    for level in 1..=3 {
        let options = at(level, registers);
        let run = std::panic::catch_unwind(|| {
            let both = common::load_both_with(source, "random.ptx", &options);
            both.finish(manifest, Path::new("."));
        });
        if run.is_err() {
            failed(what, "it differs from -O0", source, &options, manifest);
        }
    }
}

/// One program in four is optimised with few registers.
fn registers(i: u64) -> u32 {
    match i % 4 {
        0 => FEW_REGISTERS,
        _ => ptx_encoder::DEFAULT_REGISTERS,
    }
}

/// Whether CUDA program `p`, compiled alone, differs from -O0 with `options` or stores
/// other than what the generator computes.
fn cuda_fails(p: &cuda::Program, options: &Options) -> bool {
    let source = cuda::compile(&[p]);
    if !assembles(&source, options) {
        return false;
    }
    let wrong = quietly(|| {
        std::panic::catch_unwind(|| {
            let (state, ran) = launch_limited(&source, options, &p.manifest(0));
            ran.is_err() || p.check(&common::u32s(&state, "out")).is_err()
        })
    });
    wrong.unwrap_or(true)
}

#[test]
fn optimised_ptx_computes_what_the_literal_translation_does() {
    let n = cases("SGPU_OPT_CASES", OPT_CASES);
    // Where a by-hand run in parts starts (program numbers `first..first + n`).
    let first = cases("SGPU_OPT_FIRST", 0);
    let input: Vec<u32> = {
        let mut next = common::xorshift(0x1234);
        (0..ptx::INPUT_WORDS).map(|_| next() as u32).collect()
    };
    let manifest = format!(
        "block = [{}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, \
         {{ buffer = \"scratch\" }}]\n[buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n\
         [buffers.scratch]\nsize = {}\n",
        ptx::THREADS,
        list(&input),
        ptx::THREADS * ptx::OUT_BYTES,
        ptx::THREADS * ptx::SCRATCH_BYTES,
    );
    let started = std::time::Instant::now();
    on_every_core(n, |k| {
        let i = first + k;
        let source = ptx::program(seed(i));
        common::assert_checks(&source);
        let what = format!("random PTX program {i} (seed {:#x})", seed(i));
        agrees_at_every_level(&source, registers(i), &manifest, &what);
    });
    println!(
        "optimiser: {n} random PTX programs ({first}..{}), each at -O1, -O2 and -O3 against \
         -O0 (a quarter with {FEW_REGISTERS} registers), agree ({:.1} s)",
        first + n,
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn optimised_cuda_computes_what_the_generator_expects() {
    let n = cases("SGPU_OPT_CUDA_CASES", CUDA_CASES);
    let started = std::time::Instant::now();
    let batches = n.div_ceil(cuda::BATCH as u64);
    on_every_core(batches, |b| {
        let first = b * cuda::BATCH as u64;
        let programs: Vec<cuda::Program> = (first..(first + cuda::BATCH as u64).min(n))
            .map(|i| cuda::Program::new(seed(i ^ 0xC0DA)))
            .collect();
        let source = cuda::compile(&programs.iter().collect::<Vec<_>>());
        for level in 0..=3 {
            // -O0 against -O0 checks the literal code against the generator.
            let options = at(level, registers(b));
            let both = common::load_both_with(&source, "random.ptx", &options);
            for (k, program) in programs.iter().enumerate() {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    both.finish(&program.manifest(k), Path::new("."))
                }));
                let why = match &run {
                    Ok(p) => program.check(&common::u32s(p, "out")).err(),
                    Err(_) => Some("it differs from -O0".to_string()),
                };
                if let Some(why) = why {
                    let what = format!(
                        "random CUDA program {} (seed {:#x}):\n{}",
                        first + k as u64,
                        seed((first + k as u64) ^ 0xC0DA),
                        program.text(0)
                    );
                    let small = program.clone().shrink(|p| cuda_fails(p, &options));
                    panic!(
                        "{what}\nat -O{level} with {} registers: {why}\nshrunk:\n{}",
                        options.max_registers,
                        small.text(0)
                    );
                }
            }
        }
    });
    println!(
        "optimiser: {n} random CUDA C programs (clang-16), each at -O0 to -O3, store what the \
         generator computed ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// Device functions no kernel reaches are dropped from optimised code (sgpu has no linker,
/// so nothing else can call them), and kept at -O0; one reached through a function pointer
/// in an initializer stays.
#[test]
fn unreferenced_device_functions_are_dropped() {
    let source = ".version 7.0\n.target sm_80\n.address_size 64\n\n\
        .visible .func (.param .b32 r) unused(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tst.param.b32 [r], %r0;\n\tret;\n}\n\n\
        .visible .func (.param .b32 r) pointed(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tst.param.b32 [r], %r0;\n\tret;\n}\n\n\
        .global .u64 table[1] = {pointed};\n\n\
        .visible .func (.param .b32 r) called(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tadd.s32 %r1, %r0, 1;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n\n\
        .visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\
        \tld.param.u64 %rd0, [out];\n\tmov.u32 %r0, 7;\n\t{\n\t.param .b32 a;\n\t.param .b32 r;\n\
        \tst.param.b32 [a], %r0;\n\tcall (r), called, (a);\n\tld.param.b32 %r1, [r];\n\t}\n\
        \tst.global.u32 [%rd0], %r1;\n\tret;\n}\n";
    common::assert_checks(source);
    let (module, _) = ptx_grammar::parse(source);
    let names = |opt_level| {
        let options = ptx_encoder::Options {
            opt_level,
            ..Default::default()
        };
        let a = ptx_encoder::assemble(source, "f.ptx", &module, &options).unwrap();
        a.functions.into_iter().map(|f| f.name).collect::<Vec<_>>()
    };
    assert_eq!(names(0), ["unused", "pointed", "called", "k"]);
    assert_eq!(names(3), ["pointed", "called", "k"]);
    let manifest = "params = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 4\n";
    let p = common::load_both(source, "f.ptx").finish(manifest, std::path::Path::new("."));
    assert_eq!(common::u32s(&p, "out"), [8]);
}
