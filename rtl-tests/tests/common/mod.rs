//! What the tests share: building a testbench with Verilator (kept between runs), running it
//! on a file of inputs, instruction words of every modifier combination, and random numbers.
// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

pub mod int_cases;

use std::path::{Path, PathBuf};
use std::process::Command;

use rtl_tests::units::LaneOut;

/// Core v2's front end (`hw/sgpu_frontend.sv`) and what it is made of, packages first: the
/// sources of the tests that build it.
pub const FRONTEND_RTL: [&str; 9] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_decode_pkg.sv",
    "hw/sgpu_ram.sv",
    "hw/sgpu_round_robin.sv",
    "hw/sgpu_icache.sv",
    "hw/sgpu_fetch.sv",
    "hw/sgpu_ibuffer.sv",
    "hw/sgpu_head_decode.sv",
    "hw/sgpu_frontend.sv",
];

/// The ISA's opcodes of the table's unit CONTROL, and the others.
pub fn control_and_other_opcodes() -> (Vec<u8>, Vec<u8>) {
    use sgpu_isa::{unit_of_opcode, Unit};
    (0..=255u8)
        .filter(|&op| unit_of_opcode(op).is_some())
        .partition(|&op| unit_of_opcode(op) == Some(Unit::Control))
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("rtl-tests sits in the workspace")
        .to_path_buf()
}

/// The reference corpus, `corpus/` of `../shared` beside the checkout (`PTXAS_SHARED`
/// overrides where that is).
pub fn corpus_dir() -> PathBuf {
    let shared = std::env::var("PTXAS_SHARED").unwrap_or_else(|_| "../shared".into());
    workspace().join(shared).join("corpus")
}

/// Builds the C++ testbench `testbench` around the module `top` of the files `rtl` (package
/// first; paths from the workspace root) into a directory kept between runs, again only
/// when one of them has changed. Returns the executable.
pub fn testbench(top: &str, rtl: &[&str], testbench: &str) -> PathBuf {
    testbench_with(top, rtl, testbench, &[])
}

/// [`testbench`] with the top's parameters set (`-GNAME=VALUE`), in a directory of its own
/// for each set; its assertions are on.
pub fn testbench_with(top: &str, rtl: &[&str], testbench: &str, params: &[(&str, u32)]) -> PathBuf {
    let suffix: String = params.iter().map(|(n, v)| format!("-{n}{v}")).collect();
    testbench_in(&format!("{top}{suffix}"), top, rtl, testbench, params, &[])
}

/// [`testbench_with`] in the directory `name` (under the tests' kept one), for another
/// build of the same top (its gate-level netlist, say), with Verilator's `flags` besides.
pub fn testbench_in(
    name: &str,
    top: &str,
    rtl: &[&str],
    testbench: &str,
    params: &[(&str, u32)],
    flags: &[&str],
) -> PathBuf {
    let suffix: String = params.iter().map(|(n, v)| format!("-{n}{v}")).collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let sources: Vec<PathBuf> = rtl
        .iter()
        .chain([&testbench])
        .map(|s| workspace().join(s))
        .collect();
    // What the build is made from: the sources, the testbenches' headers, and how Verilator
    // is run on them.
    let tb = workspace().join("rtl-tests/tb");
    let mut headers: Vec<PathBuf> = std::fs::read_dir(&tb)
        .unwrap_or_else(|e| panic!("{}: {e}", tb.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    headers.sort();
    let stamp: String = sources
        .iter()
        .chain(&headers)
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .chain([format!("--assert{suffix}{}", flags.join(" "))])
        .collect();
    let exe = dir.join(format!("V{top}"));
    let stamp_file = dir.join("sources.stamp");
    // One build at a time of a testbench: the tests of a binary (and nextest's processes)
    // that use one would otherwise build it over one another. Released when `_lock` drops.
    let lock_path = dir.with_extension("lock");
    let _lock = std::fs::File::create(&lock_path)
        .and_then(|f| f.lock().map(|()| f))
        .unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    if exe.exists() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return exe;
    }
    // A stale build is thrown away whole: Verilator's make would not see a changed package.
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new("verilator")
        .args(["--cc", "--exe", "--build", "-j", "2", "-O2", "--assert"])
        .args(params.iter().map(|(n, v)| format!("-G{n}={v}")))
        .args(flags)
        .args(["--top-module", top, "-CFLAGS"])
        .arg(format!("-I{}", tb.display()))
        .arg("-Mdir")
        .arg(&dir)
        .args(&sources)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run verilator ({e}): this test needs Verilator 5.006 or later \
                 (`apt-get install verilator`)"
            )
        });
    assert!(
        output.status.success(),
        "verilator failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(&stamp_file, stamp).expect("write the build stamp");
    exe
}

/// Fails, naming `what` and showing the first ten, if any cycle of a cycle-by-cycle check
/// went wrong (`mismatches`, one line each).
pub fn assert_cycles_agree(what: &impl std::fmt::Debug, mismatches: &[String]) {
    assert!(
        mismatches.is_empty(),
        "{what:?}: {} cycles wrong, the first:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
}

/// Runs the testbench `exe` on `input` (one line per case), which it reads from a file
/// named in its one argument, and returns what it prints: one line per case.
pub fn run(exe: &Path, input: &str) -> Vec<String> {
    let lines = run_events(exe, input);
    assert_eq!(lines.len(), input.lines().count(), "one line per case");
    lines
}

/// As [`run`], for a testbench that prints a line an event rather than a case.
pub fn run_events(exe: &Path, input: &str) -> Vec<String> {
    let name = exe.file_name().expect("an executable").to_string_lossy();
    // A file of its own for each run: the tests of a binary run at once, in one process.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("{name}-{}-{run}.txt", std::process::id()));
    std::fs::write(&file, input).expect("write the testbench's input");
    let output = Command::new(exe)
        .arg(&file)
        .output()
        .expect("run the testbench");
    let _ = std::fs::remove_file(&file);
    if !output.status.success() {
        // What it printed last: a failed assertion's message goes to standard output.
        let stdout = String::from_utf8_lossy(&output.stdout);
        let tail: Vec<&str> = stdout.lines().rev().take(3).collect();
        panic!(
            "the testbench failed ({}) after {} lines: {}\n{}",
            output.status,
            stdout.lines().count(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let stdout = String::from_utf8(output.stdout).expect("the testbench prints hexadecimal");
    stdout.lines().map(str::to_owned).collect()
}

/// The hexadecimal numbers of a line the testbench printed.
pub fn hex_values(line: &str) -> Vec<u64> {
    line.split(' ')
        .map(|v| u64::from_str_radix(v, 16).expect("a hexadecimal value"))
        .collect()
}

/// A testbench of yosys's gate-level netlist of `top` (hw/synth/netlist.sh: yosys 0.23 or
/// later) with its parameters `params` fixed in the netlist: the RTL's test run on it finds
/// where yosys reads the RTL otherwise than Verilator does.
pub fn netlist_testbench(
    top: &str,
    rtl: &[&str],
    testbench: &str,
    params: &[(&str, u32)],
) -> PathBuf {
    let netlist = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{top}_netlist.v"));
    let sources: Vec<_> = rtl.iter().map(|f| workspace().join(f)).collect();
    let status = Command::new(workspace().join("hw/synth/netlist.sh"))
        .arg(&netlist)
        .args(["--top", top])
        .args(params.iter().map(|(n, v)| format!("{n}={v}")))
        .arg("--")
        .args(&sources)
        .status()
        .expect("run hw/synth/netlist.sh (it needs yosys 0.23 or later)");
    assert!(status.success(), "hw/synth/netlist.sh failed on {top}");
    let netlist = netlist.to_str().expect("a UTF-8 path");
    // Its vectors are bit-level logic that Verilator may see as loops (as build.rs says of
    // the core's netlists).
    testbench_in(
        &format!("{top}-netlist"),
        top,
        &[netlist],
        testbench,
        &[],
        &["-Wno-UNOPTFLAT"],
    )
}

/// A printed vector of `lanes` 32-bit lanes, lane 0 first (the lowest bits).
pub fn lanes_of(hex: &str, lanes: u32) -> Vec<u32> {
    let padded = format!("{hex:0>width$}", width = 8 * lanes as usize);
    let n = padded.len();
    (0..lanes as usize)
        .map(|l| u32::from_str_radix(&padded[n - 8 * (l + 1)..n - 8 * l], 16).unwrap())
        .collect()
}

/// A number of any width for a cycle-driven testbench (tb/cycles.h), built field by field,
/// printed in hexadecimal.
#[derive(Default)]
pub struct Bits(Vec<u32>);

impl Bits {
    /// A field of one value.
    pub fn of(value: u64, width: u32) -> String {
        let mut b = Bits::default();
        b.put(0, width, value);
        b.hex()
    }

    /// `value`'s low `width` bits at bit `at`.
    pub fn put(&mut self, at: u32, width: u32, value: u64) {
        for i in 0..width {
            if value >> i & 1 == 1 {
                let bit = at + i;
                let w = (bit / 32) as usize;
                if self.0.len() <= w {
                    self.0.resize(w + 1, 0);
                }
                self.0[w] |= 1 << (bit % 32);
            }
        }
    }

    /// A printed number (the testbench's output).
    pub fn parse(hex: &str) -> Bits {
        Bits(lanes_of(hex, hex.len().div_ceil(8) as u32))
    }

    /// The `width` bits at bit `at` (64 at most).
    pub fn get(&self, at: u32, width: u32) -> u64 {
        (0..width).fold(0, |v, i| {
            let bit = at + i;
            let w = self.0.get((bit / 32) as usize).copied().unwrap_or(0);
            v | u64::from(w >> (bit % 32) & 1) << i
        })
    }

    pub fn hex(&self) -> String {
        let s: String = self.0.iter().rev().map(|w| format!("{w:08x}")).collect();
        let s = s.trim_start_matches('0');
        if s.is_empty() {
            "0".into()
        } else {
            s.into()
        }
    }
}

/// The inputs of a sweep over 32 bits: every one, or 2^20 spread evenly over the 2^32, one
/// in each block of 4,096 at a place that varies from block to block.
pub fn sweep(every: bool) -> Box<dyn Iterator<Item = u32>> {
    if every {
        Box::new(0..=u32::MAX)
    } else {
        Box::new((0..1u32 << 20).map(|i| i << 12 | (i.wrapping_mul(0x9e37_79b9) >> 20)))
    }
}

/// Reproducible random numbers: the random program generator's.
#[allow(unused_imports)] // not every test binary draws them
pub use rtl_tests::random::Rng;

/// The word of `op` (whose word uses the bits `used`) with `modifiers` in its modifier bits,
/// the registers `regs` (rd, ra, rb, rc) in the register fields it has, and the guard PT.
pub fn word_of(op: u8, used: u64, modifiers: u64, [rd, ra, rb, rc]: [u8; 4]) -> u64 {
    use sgpu_isa::fields;
    let registers = u64::from(rd) << fields::RD.lsb
        | u64::from(ra) << fields::RA.lsb
        | u64::from(rb) << fields::RB.lsb
        | u64::from(rc) << fields::RC.lsb;
    modifiers | u64::from(op) | u64::from(sgpu_isa::Pred::PT.0) << fields::PG.lsb | registers & used
}

/// The bits of an instruction that are modifiers: all it uses but the opcode, guard and
/// registers.
pub fn modifier_bits(used: u64) -> u64 {
    use sgpu_isa::fields;
    let fixed = [
        fields::OP,
        fields::PG,
        fields::PGN,
        fields::RD,
        fields::RA,
        fields::RB,
        fields::RC,
    ];
    fixed.iter().fold(used, |m, &f| m & !f.mask())
}

/// Every word of `op` the decoder accepts, one per modifier combination, with the registers
/// `regs`.
pub fn combinations(op: u8, used: u64, regs: [u8; 4]) -> Vec<u64> {
    let bits: Vec<u32> = (0..64)
        .filter(|b| modifier_bits(used) >> b & 1 != 0)
        .collect();
    assert!(bits.len() <= 20, "{} modifier bits of {op:#x}", bits.len());
    (0u64..1 << bits.len())
        .map(|n| {
            let m = bits
                .iter()
                .enumerate()
                .fold(0, |m, (i, &b)| m | (n >> i & 1) << b);
            word_of(op, used, m, regs)
        })
        .filter(|&w| sgpu_isa::decode(w).is_ok())
        .collect()
}

/// Positive f32 edges; each is used with both signs (see [`float_edges`]).
const FLOAT_EDGES: [u32; 24] = [
    0x0000_0000, // zero
    0x0000_0001, // the smallest subnormal
    0x0000_0002,
    0x0040_0000,
    0x007f_ffff, // the largest subnormal
    0x0080_0000, // the smallest normal
    0x0080_0001,
    0x3f7f_ffff, // one ulp below 1.0
    0x3f80_0000, // 1.0
    0x3f80_0001, // one ulp above
    0x3fc0_0000,
    0x3fff_ffff,
    0x4000_0000, // 2.0
    0x4000_0001,
    0x3380_0000, // 2^-24: half an ulp of 1.0
    0x3400_0000,
    0x4b80_0000, // 2^24
    0x7f00_0000,
    0x7f7f_ffff, // the largest normal
    0x7f80_0000, // infinity
    0x7f80_0001, // signalling NaNs, with payloads
    0x7fbf_ffff,
    0x7fc0_0000, // quiet NaNs
    0x7fc1_2345,
];

/// The f32 unit's edge operands: both zeros, the smallest and largest subnormals and
/// normals, one ulp either side of 1.0 and 2.0, infinities, quiet and signalling NaNs with
/// payloads, each with both signs.
pub fn float_edges() -> Vec<u32> {
    FLOAT_EDGES
        .iter()
        .flat_map(|&e| [e, e | 0x8000_0000])
        .collect()
}

/// A random f32 operand: often an edge or next to one, often with an exponent near the
/// others', at the subnormals or near overflow, else random.
pub fn float_value(rng: &mut Rng) -> u32 {
    let edges = &FLOAT_EDGES;
    let sign = (rng.word() as u32) & 0x8000_0000;
    match rng.word() % 8 {
        0 => sign | edges[(rng.word() % edges.len() as u64) as usize],
        1 => {
            let e = edges[(rng.word() % edges.len() as u64) as usize];
            sign | e.wrapping_add((rng.word() % 5) as u32).wrapping_sub(2) & 0x7fff_ffff
        }
        2..=4 => {
            // Exponents that meet: near 1.0, the subnormals, overflow.
            let base = [120u32, 0, 1, 230, 254][(rng.word() % 5) as usize];
            let exp = (base + (rng.word() % 10) as u32).min(255);
            sign | exp << 23 | (rng.word() as u32 & 0x7f_ffff)
        }
        _ => rng.word() as u32,
    }
}

/// A launch of `kernel` (parameters `in` and `out`) in two CTAs of `block` threads, each
/// reading `per_thread` words at `in + 4 x per_thread x i` and writing `out_bytes` bytes: the
/// words are f32 operands biased to the edges ([`float_value`], seeded by `seed`), the
/// second equal to the first, or its negation, one time in four, so that comparisons meet
/// ties.
pub fn float_manifest(
    kernel: &str,
    block: usize,
    per_thread: usize,
    out_bytes: usize,
    seed: u64,
) -> String {
    let threads = 2 * block;
    let mut rng = Rng::new(seed);
    let mut words = Vec::new();
    for _ in 0..threads {
        let a = float_value(&mut rng);
        words.push(a);
        for k in 1..per_thread {
            words.push(match rng.word() % 8 {
                0 if k == 1 => a,
                1 if k == 1 => a ^ 0x8000_0000,
                _ => float_value(&mut rng),
            });
        }
    }
    let words: Vec<String> = words.iter().map(|w| format!("{w:#x}")).collect();
    format!(
        "kernel = \"{kernel}\"\ngrid = [2]\nblock = [{block}]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
        words.join(", "),
        threads * out_bytes
    )
}

/// f16 and bf16 edges: zeros, the smallest and largest subnormals, the smallest normal, one
/// and its neighbours, the largest finite value, infinity, quiet and signalling NaNs; f16's
/// first, bf16's second (each is used with both signs).
const HALF_EDGES: [[u16; 12]; 2] = [
    [
        0x0000, 0x0001, 0x03ff, 0x0400, 0x3bff, 0x3c00, 0x3c01, 0x7bff, 0x7c00, 0x7c01, 0x7e00,
        0x7fff,
    ],
    [
        0x0000, 0x0001, 0x007f, 0x0080, 0x3f7f, 0x3f80, 0x3f81, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0,
        0x7fff,
    ],
];

/// A random 16-bit float of either kind: often an edge or next to one, else random bits.
pub fn half_value(rng: &mut Rng) -> u16 {
    let sign = (rng.word() as u16) & 0x8000;
    let edges = &HALF_EDGES[(rng.word() % 2) as usize];
    let edge = edges[(rng.word() % edges.len() as u64) as usize];
    match rng.word() % 4 {
        0 => sign | edge,
        1 => sign | (edge.wrapping_add((rng.word() % 3) as u16).wrapping_sub(1) & 0x7fff),
        _ => rng.word() as u16,
    }
}

/// A launch of `kernel` (parameters `in` and `out`) in two CTAs of `block` threads, with
/// `in_words` words of `in` and `out_bytes` bytes of `out` for each thread: each word two
/// 16-bit floats ([`half_value`], seeded by `seed`), or one in eight an f32 ([`float_value`]).
pub fn half_manifest(
    kernel: &str,
    block: usize,
    in_words: usize,
    out_bytes: usize,
    seed: u64,
) -> String {
    let threads = 2 * block;
    let mut rng = Rng::new(seed);
    let words: Vec<String> = (0..threads * in_words)
        .map(|_| {
            let w = if rng.word().is_multiple_of(8) {
                float_value(&mut rng)
            } else {
                u32::from(half_value(&mut rng)) | u32::from(half_value(&mut rng)) << 16
            };
            format!("{w:#x}")
        })
        .collect();
    format!(
        "kernel = \"{kernel}\"\ngrid = [2]\nblock = [{block}]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
        words.join(", "),
        threads * out_bytes
    )
}

/// The (name, opcode, used bits) of each instruction named.
pub fn instructions(names: &[&str]) -> Vec<(&'static str, u8, u64)> {
    names
        .iter()
        .map(|name| {
            *sgpu_isa::INSTRUCTIONS
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("no instruction {name}"))
        })
        .collect()
}

/// The bits of an index of `n` things, at least one: the RTL's `(N > 1) ? $clog2(N) : 1`.
pub fn index_bits(n: u32) -> u32 {
    if n > 1 {
        32 - (n - 1).leading_zeros()
    } else {
        1
    }
}

/// A count a test reads from the environment variable `name` (to run more by hand), or
/// `default`.
pub fn count_from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A case in a lane unit: the instruction word, its operands a, b and c and predicate p,
/// and what the model says it gives (as [`LaneOut`]).
type LaneCase = ([u64; 5], LaneOut);

/// The predicates a lane unit's cases use: pd and pq (the unit's outputs) and pc, which takes
/// the case's p. A word that reads pc names LANE_PC.
pub const LANE_PD: sgpu_isa::Pred = sgpu_isa::Pred(0);
pub const LANE_PQ: sgpu_isa::Pred = sgpu_isa::Pred(1);
pub const LANE_PC: sgpu_isa::Pred = sgpu_isa::Pred(2);

/// A lane unit and the golden model side by side: one instruction a cycle on the registers
/// `regs` (rd, ra, rb, rc) and the predicates LANE_PD, LANE_PQ and LANE_PC, each result
/// compared `latency` cycles later (while the next instructions are on the unit's inputs,
/// which its later stages must not read), and every 61st case followed by `latency` cycles
/// without an instruction (other values on the inputs), after which the output must be zero.
pub struct LaneCheck<U> {
    unit: U,
    name: &'static str,
    latency: usize,
    regs: [u8; 4],
    pub tally: Tally,
    /// The cycles in the unit, oldest first: the case given, or `None` for none.
    pending: std::collections::VecDeque<Option<LaneCase>>,
}

impl<U: rtl_tests::units::LaneUnit> LaneCheck<U> {
    pub fn new(unit: U, name: &'static str, latency: usize, regs: [u8; 4]) -> LaneCheck<U> {
        LaneCheck {
            unit,
            name,
            latency,
            regs,
            tally: Tally::default(),
            pending: Default::default(),
        }
    }

    /// A case whose predicate input is false.
    pub fn case(&mut self, word: u64, a: u32, b: u32, c: u32) {
        self.case_p(word, [a, b, c], false);
    }

    /// A case with operands a, b and c, and `p` in LANE_PC.
    pub fn case_p(&mut self, word: u64, [a, b, c]: [u32; 3], p: bool) {
        let insn = sgpu_isa::decode(word).expect("a legal word");
        let [_, ra, rb, rc] = self.regs.map(sgpu_isa::Reg);
        let regs = [(ra, a), (rb, b), (rc, c)];
        let e = sgpu_sim::exec::evaluate(insn, &regs, &[(LANE_PC, p)], false)
            .unwrap_or_else(|| panic!("the model cannot evaluate {insn}"));
        let mut want = LaneOut {
            d: e.regs.first().map_or(0, |&(_, v)| v),
            d_hi: e.regs.get(1).map_or(0, |&(_, v)| v),
            ..LaneOut::default()
        };
        for &(pred, v) in &e.preds {
            match pred {
                LANE_PD => want.pd = v.into(),
                LANE_PQ => want.pq = v.into(),
                _ => panic!("{insn} writes {pred:?}, not LANE_PD or LANE_PQ"),
            }
        }
        let got = self.unit.step(word, [a, b, c], p, true);
        let case = [word, a.into(), b.into(), c.into(), p.into()];
        self.compare(got, Some((case, want)));
        self.tally.cases += 1;
        if self.tally.cases.is_multiple_of(61) {
            for _ in 0..self.latency {
                let got = self.unit.step(!word, [!a, !b, !c], !p, false);
                self.compare(got, None);
            }
        }
    }

    /// The unit's output in a cycle against the case given `latency` cycles before, or zero;
    /// `next` enters the unit.
    fn compare(&mut self, got: LaneOut, next: Option<LaneCase>) {
        self.pending.push_back(next);
        let due = if self.pending.len() > self.latency {
            self.pending.pop_front().flatten()
        } else {
            // The first cycles: nothing has come out yet.
            None
        };
        let want = due.map_or(LaneOut::default(), |(_, want)| want);
        if got != want {
            self.tally.mismatch(|| {
                let what = match due {
                    Some(([word, a, b, c, p], _)) => format!(
                        "{} ({word:#018x}) with a {a:#x}, b {b:#x}, c {c:#x}, p {p}",
                        sgpu_isa::decode(word).expect("a legal word")
                    ),
                    None => "no instruction".to_string(),
                };
                format!("{what}: model {want:x?}, RTL {got:x?}")
            });
        }
    }

    /// Drains the unit, reports as [`Tally::report`] does, and returns the count.
    pub fn finish(mut self, what: &str, start: std::time::Instant) -> u64 {
        for _ in 0..self.latency {
            let got = self.unit.step(0, [0; 3], false, false);
            self.compare(got, None);
        }
        self.tally.report(self.name, what, start)
    }
}

/// Cases run and mismatches found by a unit test that compares a Verilated unit with the
/// golden model, with the first mismatches' descriptions.
#[derive(Default)]
pub struct Tally {
    pub cases: u64,
    wrong: u64,
    first: Vec<String>,
}

impl Tally {
    /// A mismatch: `describe` is called only for the first 20, which the report shows.
    pub fn mismatch(&mut self, describe: impl FnOnce() -> String) {
        self.wrong += 1;
        if self.first.len() < 20 {
            self.first.push(describe());
        }
    }

    /// Prints how many cases ran in how long, fails with the first mismatches if there were
    /// any, and returns the count.
    pub fn report(&self, unit: &str, what: &str, start: std::time::Instant) -> u64 {
        println!(
            "{unit}, {what}: {} cases in {:.1} s",
            self.cases,
            start.elapsed().as_secs_f64()
        );
        assert!(
            self.first.is_empty(),
            "{} mismatches of {} cases, the first:\n{}",
            self.wrong,
            self.cases,
            self.first.join("\n")
        );
        self.cases
    }
}

/// PTX source assembled (named `name` in its diagnostics) and loaded as the golden model
/// loads an ELF.
pub fn program_of(source: &str, name: &str) -> sgpu_sim::program::Program {
    let (module, diags) = ptx_grammar::parse(source);
    assert!(diags.is_empty(), "{name}: {diags:?}");
    let a = ptx_encoder::assemble(source, name, &module, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: {d:?}"));
    sgpu_sim::program::Program::load(&a.elf, sgpu_sim::memory::GLOBAL_BASE).unwrap()
}

/// Runs PTX `source` as `manifest` launches it (files relative to the workspace) on the core
/// in lock-step with the golden model.
pub fn cosim_source(
    source: &str,
    name: &str,
    manifest: &str,
    options: &rtl_tests::cosim::Options,
) -> Result<rtl_tests::cosim::Report, rtl_tests::cosim::Failure> {
    cosim_program(&program_of(source, name), name, manifest, options)
}

/// The text of `path`, relative to the workspace.
pub fn source(path: &str) -> String {
    let at = workspace().join(path);
    std::fs::read_to_string(&at).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// [`cosim_source`] of the PTX file `ptx` (relative to the workspace).
pub fn cosim_file(
    ptx: &str,
    manifest: &str,
    options: &rtl_tests::cosim::Options,
) -> Result<rtl_tests::cosim::Report, rtl_tests::cosim::Failure> {
    cosim_source(&source(ptx), ptx, manifest, options)
}

/// [`cosim_source`] of a program already assembled.
pub fn cosim_program(
    program: &sgpu_sim::program::Program,
    name: &str,
    manifest: &str,
    options: &rtl_tests::cosim::Options,
) -> Result<rtl_tests::cosim::Report, rtl_tests::cosim::Failure> {
    let mut prepared = sgpu_sim::launch::prepare(manifest, &workspace(), program)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    rtl_tests::cosim::run(program, &mut prepared, options)
}

/// Two CTAs of `block` threads with one output buffer (and an input of random words), and
/// 16 bytes of dynamic shared memory for kernels with an `.extern .shared` array.
pub fn manifest_of(kernel: &str, with_input: bool, block: u32) -> String {
    let mut m = format!("kernel = \"{kernel}\"\ngrid = [2]\nblock = [{block}]\nshared = 16\n");
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
    m + "[buffers.out]\nsize = 8192\n"
}

/// The passes hw/sgpu_shared_mem.sv takes for a beat of `words` (a word a lane, word w in
/// bank w % lanes) from the lanes set in `lanes`: the most rows any bank holds for it, one
/// if none.
pub fn shared_passes(words: &[u32], lanes: u32) -> u64 {
    let n = words.len() as u32;
    (0..n)
        .map(|bank| {
            (0..n)
                .filter(|&l| lanes >> l & 1 == 1)
                .map(|l| words[l as usize])
                .filter(|w| w % n == bank)
                .map(|w| w / n)
                .collect::<std::collections::BTreeSet<_>>()
                .len() as u64
        })
        .max()
        .unwrap_or(0)
        .max(1)
}

/// A copy of a warp (the model's has no `Clone`).
pub fn twin(w: &sgpu_sim::warp::Warp) -> sgpu_sim::warp::Warp {
    sgpu_sim::warp::Warp {
        id: w.id,
        lanes: w.lanes,
        exited: w.exited,
        regs: w.regs.clone(),
        preds: w.preds,
        carry: w.carry,
        stack: w.stack.clone(),
        pending_rpc: w.pending_rpc,
        frame: w.frame,
        tid: w.tid,
        state: w.state,
        reduction: w.reduction,
        local_size: w.local_size,
    }
}
