//! The corpus kernels the golden model runs, on the Verilated core in lock-step with it, at
//! the default 8 lanes and at 1 and 32: every launch of tests/corpus_kernels.rs (LLVM's
//! NVPTX output of CUDA C and of LLVM IR, and ZLUDA's test kernels: reductions, histograms
//! with integer and float atomics, tiled matrix multiplies, warp shuffles, votes and scans,
//! device functions, divergence, f32 math and f64 through the runtime, surfaces, 312 video
//! instructions, half-precision and 8-bit float conversions), whose manifests that test keeps
//! in tests/launches/corpus/. Each must run to the end or trap alike on both sides (some
//! launches are there to trap). A file whose code is larger than the core's instruction
//! memory (big_unrolled's 130,000 words against 16,384) runs with its launch's kernel
//! alone, the other kernels taken out of its text.
//!
//! The test command runs a bounded share: at 8 lanes every launch but of big_unrolled's 32
//! (alike but for their constants) one in eight (`chosen`), at 1 and 32 lanes each corpus file's first
//! launch. `SGPU_CORPUS_ALL=1` runs every launch at every lane count (by hand, in release:
//! docs/cosim.md has its time); `SGPU_CORPUS_TIMES=1` prints each launch's cycles and time.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;

use rtl_tests::cosim::{Failure, Options, IMEM_WORDS};
use sgpu_sim::program::Program;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

/// The kept launches: (file name, the corpus file it runs, its manifest).
fn launches() -> Vec<(String, String, String)> {
    let dir = common::workspace().join("tests/launches/corpus");
    let mut found: Vec<(String, String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path: PathBuf = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let (first, manifest) = text.split_once('\n').expect("a first line");
            let ptx = first
                .strip_prefix("# ptx: ")
                .unwrap_or_else(|| panic!("{}: no `# ptx:` line", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, ptx.to_string(), manifest.to_string())
        })
        .collect();
    found.sort();
    assert!(found.len() >= 80, "only {} launches kept", found.len());
    found
}

/// `source` without its kernels (`.entry`) other than `kernel`: each is a block of the
/// module's top level, from its `.entry` line's directives to its closing brace.
fn only_kernel(source: &str, kernel: &str) -> String {
    let mut kept = String::new();
    let mut rest = source;
    while let Some(at) = rest.find(".entry ") {
        // The entry's directives start its line.
        let start = rest[..at].rfind('\n').map_or(0, |n| n + 1);
        let name: String = rest[at + 7..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        let end = start
            + rest[start..]
                .find("\n}\n")
                .expect("an entry's closing brace")
            + 3;
        kept.push_str(&rest[..start]);
        if name == kernel {
            kept.push_str(&rest[start..end]);
        }
        rest = &rest[end..];
    }
    kept + rest
}

/// A kept launch, assembled: the program it runs (its kernel alone when the whole file
/// is larger than the instruction memory) and its manifest.
struct Launch {
    name: String,
    ptx: String,
    program: Rc<Program>,
    manifest: String,
}

/// Whether the `nth` of a file's `count` launches (in name order) runs at `lanes`: all with
/// `SGPU_CORPUS_ALL`, else at 8 lanes all of a file of at most 16 and one in eight of a
/// larger one, at other lane counts the first.
fn chosen(lanes: u32, nth: usize, count: usize) -> bool {
    std::env::var_os("SGPU_CORPUS_ALL").is_some()
        || match lanes {
            8 => count <= 16 || nth.is_multiple_of(8),
            _ => nth == 0,
        }
}

/// The kept launches run at `lanes` ([`chosen`]), each corpus file assembled once.
fn assembled(lanes: u32) -> Vec<Launch> {
    let mut whole: HashMap<String, Rc<Program>> = HashMap::new();
    let all = launches();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, ptx, _) in &all {
        *count.entry(ptx).or_default() += 1;
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    all.iter()
        .filter(|(_, ptx, _)| {
            let nth = seen.entry(ptx).or_default();
            *nth += 1;
            chosen(lanes, *nth - 1, count[ptx.as_str()])
        })
        .cloned()
        .map(|(name, ptx, manifest)| {
            let source = std::fs::read_to_string(common::corpus_dir().join(&ptx)).unwrap();
            let program = whole
                .entry(ptx.clone())
                .or_insert_with(|| Rc::new(common::program_of(&source, &ptx)));
            let program = if program.code.len() > IMEM_WORDS {
                let kernel = manifest
                    .lines()
                    .find_map(|l| l.strip_prefix("kernel = \""))
                    .expect("a launch of a file of several kernels names its kernel");
                let pruned = only_kernel(&source, kernel.trim_end_matches('"'));
                Rc::new(common::program_of(&pruned, &ptx))
            } else {
                Rc::clone(program)
            };
            Launch {
                name,
                ptx,
                program,
                manifest,
            }
        })
        .collect()
}

/// Every kept launch agrees at `lanes`.
fn agree_at(lanes: u32) {
    let options = Options {
        lanes,
        ..Options::default()
    };
    let (mut cycles, mut retired) = (0, 0);
    let launches = assembled(lanes);
    let started = Instant::now();
    for launch in &launches {
        let at = Instant::now();
        let report =
            match common::cosim_program(&launch.program, &launch.ptx, &launch.manifest, &options) {
                Ok(r) | Err(Failure::Trap(_, r)) => r,
                Err(f) => panic!("{} at {lanes} lanes: {f:?}", launch.name),
            };
        if std::env::var_os("SGPU_CORPUS_TIMES").is_some() {
            println!(
                "{:.2} s {}: {report:?}",
                at.elapsed().as_secs_f64(),
                launch.name
            );
        }
        cycles += report.cycles;
        retired += report.retired;
    }
    println!(
        "{} corpus launches at {lanes} lanes: {retired} warp instructions in {cycles} cycles, {:.1} s",
        launches.len(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn corpus_kernels_agree_at_8_lanes() {
    agree_at(8);
}

#[test]
fn corpus_kernels_agree_at_1_lane() {
    agree_at(1);
}

#[test]
fn corpus_kernels_agree_at_32_lanes() {
    agree_at(32);
}
