//! End-to-end assembly throughput: PTX text to ELF bytes (parse, check, lower, optimise,
//! allocate, write), on one core, on a large LLVM-generated module, and on a module a tenth
//! its size to show how cost grows; the literal translation (`-O0`) and the optimised one
//! (`-O3`, the default) side by side. `cargo bench -p ptx-encoder --bench assemble` prints
//! the rows kept in docs/PERFORMANCE.md.

#[path = "../../grammar/benches/big_module.rs"]
mod big_module;

use big_module::{build_module, count_instructions};
use std::time::Instant;

/// The corpus files in the input: those that assemble, f64 left out (a call of the f64
/// runtime each, and the runtime's code, would be most of what they measure).
fn assembles(source: &str) -> bool {
    if source.contains(".f64") {
        return false;
    }
    let (m, d) = ptx_grammar::parse(source);
    d.is_empty()
        && ptx_encoder::assemble(source, "bench.ptx", &m, &ptx_encoder::Options::default()).is_ok()
}

/// Parse, check and (at optimisation level `encode`) assemble; the best of `runs` (the least
/// disturbed by the machine).
fn time(module: &str, runs: usize, encode: Option<u8>) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let (m, d) = ptx_grammar::parse(module);
        assert!(d.is_empty());
        assert!(ptx_grammar::check(&m).iter().all(|e| !e.is_error()));
        if let Some(opt_level) = encode {
            let options = ptx_encoder::Options {
                opt_level,
                ..Default::default()
            };
            let out = ptx_encoder::assemble(module, "bench.ptx", &m, &options)
                .expect("the module assembles");
            assert!(!out.elf.is_empty());
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    // One copy of every corpus file that assembles, and ten.
    let small = build_module(1, assembles);
    let large = build_module(10 * small.len() - 1, assembles);
    let count = |s: &str| count_instructions(&ptx_grammar::parse(s).0);
    let (li, si) = (count(&large), count(&small));
    let literal = time(&large, 3, Some(0));
    let (lt, st) = (time(&large, 3, Some(3)), time(&small, 5, Some(3)));
    let front = time(&large, 3, None);
    println!(
        "Input: {:.1} MB, {li} PTX instructions (the corpus files that assemble, renamed copies)",
        large.len() as f64 / 1e6
    );
    println!();
    println!("| stage | module | MB | PTX instructions | MB/s | M instructions/s |");
    println!("|---|---|---:|---:|---:|---:|");
    let rows = [
        ("parse + check", "large", &large, li, front),
        ("assemble -O0 (parse to ELF)", "large", &large, li, literal),
        ("assemble -O3 (parse to ELF)", "large", &large, li, lt),
        ("assemble -O3 (parse to ELF)", "one copy", &small, si, st),
    ];
    for (stage, name, s, n, t) in rows {
        println!(
            "| {stage} | {name} | {:.1} | {n} | {:.1} | {:.2} |",
            s.len() as f64 / 1e6,
            s.len() as f64 / 1e6 / t,
            n as f64 / 1e6 / t
        );
    }
    let growth = (lt / st) / (li as f64 / si as f64);
    println!();
    println!(
        "Encoding (lowering, optimisation, allocation, ELF) takes {:.0}% of assembly at -O3; \
         -O3 takes {:.2}x the time of -O0.",
        100.0 * (lt - front) / lt,
        lt / literal
    );
    println!(
        "{:.1}x the instructions took {:.1}x the time: cost per instruction {growth:.2}x that of one copy.",
        li as f64 / si as f64,
        lt / st
    );
}
