//! Front-end throughput on a large LLVM-generated module: lexing alone (the floor), parsing,
//! parsing plus checking, and peak heap, all in one run so the figures compare with each
//! other. `cargo bench -p ptx-grammar --bench front_end` prints the table kept in
//! docs/PERFORMANCE.md.
//!
//! The module is the LLVM NVPTX output in ../shared/corpus/generated, concatenated with every
//! function and module-scope variable renamed per copy, to about 10 MB.

// A counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to the system one.
#![allow(unsafe_code)]

#[path = "big_module.rs"]
mod big_module;

use big_module::{build_module, count_instructions};
use ptx_grammar::lexer::Lexer;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    /// Forwarded too: the default (allocate, copy, free) would make every growing Vec slower
    /// here than in the real program, where large blocks grow in place.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let now = CURRENT.fetch_add(new_size, Relaxed) + new_size;
        PEAK.fetch_max(now, Relaxed);
        CURRENT.fetch_sub(layout.size(), Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Best of `runs`: the least disturbed by whatever else the machine does.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(out);
    }
    (best, last.unwrap())
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let module = build_module(10_000_000, |_| true);
    let bytes = module.len();
    let mb = bytes as f64 / 1e6;
    let runs = 5;

    let (lex, tokens) = best(runs, || Lexer::new(&module).count());
    let (lex_vec, _) = best(runs, || Lexer::new(&module).collect::<Vec<_>>().len());
    let (parse, instructions) = best(runs, || {
        let (m, d) = ptx_grammar::parse(&module);
        assert!(d.is_empty());
        count_instructions(&m)
    });
    let (check, _) = best(runs, || {
        let (m, d) = ptx_grammar::parse(&module);
        let errors = ptx_grammar::check(&m);
        assert!(d.is_empty() && errors.iter().all(|e| !e.is_error()));
    });

    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    {
        let (m, _) = ptx_grammar::parse(&module);
        let _ = ptx_grammar::check(&m);
    }
    let peak = PEAK.load(Relaxed) - base;

    let mi = instructions as f64 / 1e6;
    println!("Input: {mb:.1} MB, {tokens} tokens, {instructions} instructions (renamed copies of the LLVM-generated corpus files)");
    println!();
    println!("| stage | MB/s | M instructions/s | time vs lexing |");
    println!("|---|---:|---:|---:|");
    for (name, secs) in [
        ("lex (tokens not stored)", lex),
        ("lex into a Vec", lex_vec),
        ("parse", parse),
        ("parse + check", check),
    ] {
        println!(
            "| {name} | {:.0} | {:.2} | {:.1}x |",
            mb / secs,
            mi / secs,
            secs / lex
        );
    }
    println!();
    println!(
        "Peak heap during parse + check: {:.0} MB, {:.1}x the input.",
        peak as f64 / 1e6,
        peak as f64 / bytes as f64
    );
}
