//! `cargo bench -p rtl-tests --bench cosim`: the co-simulation's speed and the core's IPC
//! (docs/PERFORMANCE.md). Four tables: simulated cycles per second and warp instructions per
//! second of the default core (8 lanes, 8 warps) with and without the lock-step checker,
//! best of three runs, on kernels of every unit; each kernel's cycles and IPC at 8 lanes with
//! 1, 4 and 8 warps (CTAs of 32, 128 and 256 threads), with memory answering 4 and 100 cycles
//! after a request; the CUDA examples' cycles and IPC on cores of 1, 4 and 8 warps (where
//! their CTAs fit); and the cycles a warp instruction of each shared unit takes at 1, 8 and
//! 32 lanes.

use rtl_tests::cosim::{self, Options, Report};
use rtl_tests::port::Timing;
use rtl_tests::random::{single, Single};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn program(ptx: &Path) -> sgpu_sim::program::Program {
    let source = std::fs::read_to_string(ptx).unwrap();
    let (module, diags) = ptx_grammar::parse(&source);
    assert!(diags.is_empty(), "{}: {diags:?}", ptx.display());
    let name = ptx.to_string_lossy();
    let a = ptx_encoder::assemble(&source, &name, &module, &Default::default()).unwrap();
    sgpu_sim::program::Program::load(&a.elf, sgpu_sim::memory::GLOBAL_BASE).unwrap()
}

/// A kernel and its manifest, `{block}` in it standing for the CTA size (and `{shared}` for
/// four bytes a thread).
struct Case {
    name: &'static str,
    ptx: PathBuf,
    manifest: String,
}

fn cases() -> Vec<Case> {
    let w = workspace();
    let shared = std::env::var("PTXAS_SHARED").map_or(w.join("../shared"), PathBuf::from);
    let corpus = shared.join("corpus/generated/clang16_cuda");
    let launch = |file: &str, dir: &str| {
        std::fs::read_to_string(w.join(file))
            .unwrap()
            .replace("file = \"", &format!("file = \"{dir}/"))
    };
    let block = |m: String| {
        let line = m
            .lines()
            .find(|l| l.starts_with("block"))
            .unwrap()
            .to_string();
        m.replace(&line, "block = [{block}]")
    };
    vec![
        Case {
            name: "examples/reduce.ptx",
            ptx: w.join("examples/reduce.ptx"),
            manifest: block(launch("examples/reduce.toml", "examples")),
        },
        Case {
            name: "histogram256",
            ptx: corpus.join("histogram.sm80.O2.ptx"),
            manifest: block(launch(
                "bench/launch/histogram.sm80.O2.histogram256.toml",
                "bench/launch",
            )),
        },
        Case {
            name: "reduce_int_dynamic_smem",
            ptx: corpus.join("reduction.sm80.O2.ptx"),
            // A word of dynamic shared memory per thread.
            manifest: block(launch(
                "bench/launch/reduction.sm80.O2.reduce_int_dynamic_smem.toml",
                "bench/launch",
            ))
            .replace("shared = 512", "shared = {shared}"),
        },
        Case {
            name: "divergent",
            ptx: corpus.join("divergent.sm80.O2.ptx"),
            manifest: block(launch(
                "bench/launch/divergent.sm80.O2.divergent.toml",
                "bench/launch",
            )),
        },
        // The surface unit: a CTA a row of a 256 x 16 r32_uint surface, each thread loading
        // a pixel and storing its complement into another (SULD and SUST by handle).
        Case {
            name: "surf_copy_invert_bindless",
            ptx: shared.join("corpus/generated/llc16_ll/surf_basic.sm80.ptx"),
            manifest: format!(
                "kernel = \"surf_copy_invert_bindless\"\ngrid = [1, 16]\nblock = [{{block}}]\n\
                 params = [{{ surface = \"src\" }}, {{ surface = \"dst\" }}, {{ u32 = 256 }}, \
                 {{ u32 = 16 }}]\n\
                 [surfaces.src]\ngeometry = \"2d\"\nwidth = 256\nheight = 16\nformat = \"r32_uint\"\n\
                 u32 = [{}]\n\
                 [surfaces.dst]\ngeometry = \"2d\"\nwidth = 256\nheight = 16\nformat = \"r32_uint\"\n",
                (0..4096u32)
                    .map(|i| i.wrapping_mul(0x9e37_79b9).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    ]
}

/// One run at a fixed memory latency (the measurements repeat), with no random initial
/// values: its report and seconds.
fn run(c: &Case, warps: u32, check: bool, latency: u64) -> (Report, f64) {
    let program = program(&c.ptx);
    let manifest = c
        .manifest
        .replace("{block}", &(warps * 32).to_string())
        .replace("{shared}", &(warps * 128).to_string());
    let mut prepared = sgpu_sim::launch::prepare(&manifest, &workspace(), &program).unwrap();
    let options = Options {
        warps,
        check,
        memory: Timing::Fixed(latency),
        x_seed: 0,
        ..Options::default()
    };
    let start = Instant::now();
    let report = cosim::run(&program, &mut prepared, &options)
        .unwrap_or_else(|f| panic!("{}: {f:?}", c.name));
    (report, start.elapsed().as_secs_f64())
}

/// A CUDA example compiled by clang-16 (`ptxas-rs cuda`'s way) into `dir`, with its manifest.
fn cuda_example(name: &'static str, dir: &Path) -> Case {
    let examples = workspace().join("examples/cuda");
    let ptx = dir.join(format!("{name}.ptx"));
    assert!(ptxas_rs::cuda::compile(&examples.join(format!("{name}.cu")), &ptx, dir).unwrap());
    let manifest = std::fs::read_to_string(examples.join(format!("{name}.toml"))).unwrap();
    Case {
        name,
        ptx,
        manifest,
    }
}

/// The CUDA examples' cycles and IPC on cores of 1, 4 and 8 warps (8 lanes), memory at a
/// latency of 4; a CTA larger than the core's warps is left out.
fn cuda_examples() {
    let dir = tempfile::tempdir().unwrap();
    println!("| example | CTA | warps | warp instructions | cycles | IPC |");
    println!("|---|---:|---:|---:|---:|---:|");
    for name in [
        "saxpy",
        "matmul",
        "blur",
        "histogram",
        "reduce",
        "intrinsics",
        "simd",
        "video",
    ] {
        let c = cuda_example(name, dir.path());
        let block = c.manifest.lines().find(|l| l.starts_with("block")).unwrap();
        let threads: u32 = block
            .trim_start_matches("block = [")
            .trim_end_matches(']')
            .split(',')
            .map(|n| n.trim().parse::<u32>().unwrap())
            .product();
        for warps in [1, 4, 8] {
            if threads > warps * 32 {
                continue;
            }
            let (r, _) = run(&c, warps, false, 4);
            println!(
                "| {name}.cu | {threads} | {warps} | {} | {} | {:.4} |",
                r.retired,
                r.cycles,
                r.ipc()
            );
        }
    }
}

/// The cycles `text` adds to `single`'s program (one full warp) at `lanes` lanes, against the
/// same program with a NOP in its place, memory at a fixed latency.
fn instruction_cycles(text: &str, lanes: u32) -> u64 {
    let cycles = |insn| {
        let (mut g, _) = single(7, 7, Single::Insn(insn));
        let options = Options {
            lanes,
            check: false,
            memory: Timing::Fixed(4),
            x_seed: 0,
            ..Options::default()
        };
        cosim::run(&g.program, &mut g.prepared, &options)
            .unwrap_or_else(|f| panic!("{text}: {f:?}"))
            .cycles
    };
    let insn = sgpu_isa::parse(text).unwrap();
    cycles(insn) - cycles(sgpu_isa::parse("NOP").unwrap())
}

/// Cycles of a warp instruction of each shared unit (and of the lanes' for comparison), a
/// full warp, at 1, 8 and 32 lanes: more than a NOP takes.
fn shared_units() {
    println!("| instruction | 1 lane | 8 lanes | 32 lanes |");
    println!("|---|---:|---:|---:|");
    for text in [
        "IADD R1, R2, R3",
        "FFMA R1, R2, R3, R4",
        "F2F.F16 R1, R2",
        "MUFU.SIN R1, R2",
        "FDIV R1, R2, R3",
        "IDIV R1, R2, R3",
        "SHFL.BFLY R1, P0, R2, 0x1, 0x1f",
        "VOTE.BALLOT R1, PT, P1, RZ",
        "REDUX.ADD R1, R2, RZ",
        "MATCH R1, P0, R2, RZ",
    ] {
        let [one, eight, all] = [1, 8, 32].map(|lanes| instruction_cycles(text, lanes));
        println!("| `{text}` | {one} | {eight} | {all} |");
    }
}

fn main() {
    let cases = cases();
    println!("| kernel | cycles | warp instructions | checker | M cycles/s | M instructions/s |");
    println!("|---|---:|---:|---|---:|---:|");
    let mut ratios = Vec::new();
    for c in &cases {
        let mut speed = [0.0f64; 2];
        for (k, check) in [false, true].into_iter().enumerate() {
            let (report, seconds) = (0..3)
                .map(|_| run(c, 8, check, 4))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            speed[k] = report.cycles as f64 / seconds;
            println!(
                "| {} | {} | {} | {} | {:.2} | {:.3} |",
                c.name,
                report.cycles,
                report.retired,
                if check { "on" } else { "off" },
                speed[k] / 1e6,
                report.retired as f64 / seconds / 1e6
            );
        }
        ratios.push(speed[1] / speed[0]);
    }
    let mean = ratios
        .iter()
        .product::<f64>()
        .powf(1.0 / ratios.len() as f64);
    println!("\nWith the checker the co-simulation runs at {mean:.2}x the speed without it (geometric mean).\n");
    println!("| kernel | warps | warp instructions | cycles, latency 4 | IPC | cycles, latency 100 | IPC |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for c in &cases {
        for warps in [1, 4, 8] {
            let (near, _) = run(c, warps, false, 4);
            let (far, _) = run(c, warps, false, 100);
            println!(
                "| {} | {warps} | {} | {} | {:.4} | {} | {:.4} |",
                c.name,
                near.retired,
                near.cycles,
                near.ipc(),
                far.cycles,
                far.ipc()
            );
        }
    }
    println!();
    cuda_examples();
    println!();
    shared_units();
}
