//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared` beside the checkout, where CI and every developer machine keep the reference
/// material; `PTXAS_SHARED` overrides it. Missing is a hard failure, never a skip.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("PTXAS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    assert!(
        dir.join("corpus").is_dir(),
        "reference material not found at {} (set PTXAS_SHARED)",
        dir.display()
    );
    dir
}

/// Every `.ptx` file of the corpus, sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![shared_dir().join("corpus")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses and assembles `source` (named `file` in messages), then runs it on the golden model
/// as `manifest` launches it: the state after, or the trap. The literal translation (`-O0`)
/// runs too and must leave memory as the optimised code did ([`Both`]).
pub fn assemble_and_run(
    source: &str,
    file: &str,
    manifest: &str,
) -> Result<sgpu_sim::launch::Prepared, sgpu_sim::Trap> {
    assemble_and_observe(source, file, manifest, |_, _, _| {})
}

/// [`assemble_and_run`], showing `observe` every instruction the optimised code retires
/// (CTA, warp, record).
pub fn assemble_and_observe(
    source: &str,
    file: &str,
    manifest: &str,
    observe: impl FnMut(u32, u32, &sgpu_sim::record::Retired),
) -> Result<sgpu_sim::launch::Prepared, sgpu_sim::Trap> {
    let (p, ran) = load_both(source, file).launch_observed(manifest, Path::new("."), observe);
    ran.map(|_| p)
}

/// Parses and assembles `source` (named `file` in messages) and loads it as the model does.
pub fn load(source: &str, file: &str) -> sgpu_sim::program::Program {
    load_with(source, file, &Default::default())
}

/// [`load`] with the assembler's options given.
pub fn load_with(
    source: &str,
    file: &str,
    options: &ptx_encoder::Options,
) -> sgpu_sim::program::Program {
    let (module, diags) = ptx_grammar::parse(source);
    assert!(diags.is_empty(), "{file}: {diags:?}");
    let a = ptx_encoder::assemble(source, file, &module, options).unwrap_or_else(|d| {
        let shown: String = d
            .iter()
            .map(|d| ptxas_rs::render::render(file, source, d))
            .collect();
        panic!("{file} does not assemble:\n{shown}")
    });
    sgpu_sim::program::Program::load(&a.elf, sgpu_sim::memory::GLOBAL_BASE).unwrap()
}

/// A module assembled twice, optimised (the default, `-O3`) and literally (`-O0`): every
/// launch runs both and asserts that they leave global memory and every surface alike and
/// trap alike. This is the optimiser's differential test, over every kernel the tests run.
pub struct Both {
    pub optimised: sgpu_sim::program::Program,
    pub literal: sgpu_sim::program::Program,
    file: String,
    /// Warp instructions each launch may run before it traps (the model's default when
    /// `None`).
    pub max_instructions: Option<u64>,
}

/// [`load`] at `-O3` and at `-O0`.
pub fn load_both(source: &str, file: &str) -> Both {
    load_both_at(source, file, 3)
}

/// [`load`] at `-O<level>` and at `-O0`.
pub fn load_both_at(source: &str, file: &str, level: u8) -> Both {
    let optimised = ptx_encoder::Options {
        opt_level: level,
        ..Default::default()
    };
    load_both_with(source, file, &optimised)
}

/// [`load`] with `optimised`'s options and at `-O0` with the default registers.
pub fn load_both_with(source: &str, file: &str, optimised: &ptx_encoder::Options) -> Both {
    let literal = ptx_encoder::Options {
        opt_level: 0,
        ..Default::default()
    };
    Both {
        optimised: load_with(source, file, optimised),
        literal: load_with(source, file, &literal),
        file: file.to_string(),
        max_instructions: None,
    }
}

/// Runs `tests/kernels/NAME.ptx` as `manifest` launches it at every optimisation level,
/// `-O1` to `-O3` each against `-O0` ([`Both`]: memory and trap alike): the launch's end.
pub fn at_every_level(name: &str, manifest: &str) -> Launched {
    let (path, source) = kernel(name);
    let mut last = None;
    for level in 1..=3 {
        last = Some(load_both_at(&source, &path, level).launch(manifest, Path::new(".")));
    }
    last.expect("three levels ran")
}

/// What a launch left: the state after, and the trap if it stopped on one (the state then
/// holds what it stored before).
pub type Launched = (sgpu_sim::launch::Prepared, Result<(), sgpu_sim::Trap>);

impl Both {
    /// The file the programs were assembled from, as messages name it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Runs both programs as `manifest` (files relative to `dir`) launches them; the
    /// optimised one's result.
    pub fn launch(&self, manifest: &str, dir: &Path) -> Launched {
        self.launch_observed(manifest, dir, |_, _, _| {})
    }

    /// [`Both::launch`], showing `observe` what the optimised program retires.
    pub fn launch_observed(
        &self,
        manifest: &str,
        dir: &Path,
        observe: impl FnMut(u32, u32, &sgpu_sim::record::Retired),
    ) -> Launched {
        let run = |program: &sgpu_sim::program::Program, observe| {
            let mut p = sgpu_sim::launch::prepare(manifest, dir, program).unwrap();
            if let Some(limit) = self.max_instructions {
                p.launch.max_instructions = limit;
            }
            let ran = sgpu_sim::run(program, &mut p.global, &p.surfaces, &p.launch, observe);
            (p, ran.map(|_| ()))
        };
        let mut observe = observe;
        let file = &self.file;
        let checked = move |cta, warp, r: &sgpu_sim::record::Retired| {
            assert_uniform_branch(file, r);
            observe(cta, warp, r)
        };
        let optimised = run(
            &self.optimised,
            Box::new(checked) as Box<dyn FnMut(_, _, &_)>,
        );
        let literal = run(&self.literal, Box::new(|_, _, _| {}));
        assert_same(
            &self.file,
            (&optimised, &self.optimised),
            (&literal, &self.literal),
        );
        optimised
    }

    /// [`Both::launch`] of a kernel that must finish.
    pub fn finish(&self, manifest: &str, dir: &Path) -> sgpu_sim::launch::Prepared {
        let (p, ran) = self.launch(manifest, dir);
        ran.unwrap_or_else(|t| panic!("{t}"));
        p
    }
}

/// Asserts that a branch the optimiser marked uniform (`.UNI`, which gets no reconvergence
/// point: docs/optimiser.md) did not split the warp: every active thread went the same way.
fn assert_uniform_branch(file: &str, r: &sgpu_sim::record::Retired) {
    let Ok(insn) = sgpu_isa::decode(r.word) else {
        return;
    };
    if let sgpu_isa::Op::Bra { uni: true, .. } = insn.op {
        assert!(
            r.mask == 0 || r.mask == r.active,
            "{file}: the branch at {:#x} is marked uniform but split the warp: {:#x} of {:#x}",
            8 * r.pc,
            r.mask,
            r.active
        );
    }
}

/// Asserts that the optimised and the literal code did the same: both finished, or both
/// trapped for the same cause; and every region of global memory (buffers, surfaces,
/// variables) holds the same bytes, but for function pointers: the two programs' code is laid
/// out differently, so a word holding a function's address in one must hold the same
/// function's in the other.
fn assert_same(
    file: &str,
    optimised: (&Launched, &sgpu_sim::program::Program),
    literal: (&Launched, &sgpu_sim::program::Program),
) {
    let ((optimised, o_program), (literal, l_program)) = (optimised, literal);
    let cause = |r: &Result<(), sgpu_sim::Trap>| r.as_ref().err().map(|t| t.cause.clone());
    assert_eq!(
        cause(&optimised.1),
        cause(&literal.1),
        "{file}: -O3 and -O0 end differently: {:?} against {:?}",
        optimised.1,
        literal.1
    );
    let function_at = |p: &sgpu_sim::program::Program, address: u64| {
        let f = p
            .functions
            .iter()
            .find(|f| 8 * u64::from(f.start) == address)?;
        Some(f.name.clone())
    };
    let (a, b) = (&optimised.0.global.regions, &literal.0.global.regions);
    assert_eq!(a.len(), b.len(), "{file}: regions");
    for (x, y) in a.iter().zip(b) {
        if x.bytes == y.bytes {
            continue;
        }
        let words = x.bytes.chunks(8).zip(y.bytes.chunks(8)).enumerate();
        for (k, (p, q)) in words.filter(|(_, (p, q))| p != q) {
            let word = |w: &[u8]| w.try_into().ok().map(u64::from_le_bytes);
            let same_function = match (word(p), word(q)) {
                (Some(p), Some(q)) => {
                    let f = function_at(o_program, p);
                    f.is_some() && f == function_at(l_program, q)
                }
                _ => false,
            };
            assert!(
                same_function,
                "{file}: region `{}` differs between -O3 and -O0 at bytes {}..{}",
                x.name,
                8 * k,
                8 * k + 8
            );
        }
    }
}

/// Runs `tests/kernels/NAME.ptx`, a kernel `(in, out)` of one case a thread, over the cases
/// whose bytes are `input` (`cases` of them, a multiple of 128: CTAs of 128 threads), each
/// writing `out_bytes` bytes: the `out` buffer after (the same at -O0 and -O3: [`Both`]). The
/// input goes through a file, so that millions of cases cost no manifest text.
pub fn run_cases(name: &str, input: &[u8], cases: usize, out_bytes: usize) -> Vec<u8> {
    assert_eq!(cases % 128, 0, "whole CTAs");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.bin"), input).unwrap();
    let manifest = format!(
        "grid = [{}]\nblock = [128]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nfile = \"in.bin\"\n[buffers.out]\nsize = {}\n",
        cases / 128,
        cases * out_bytes
    );
    let (path, source) = kernel(name);
    let p = load_both(&source, &path).finish(&manifest, dir.path());
    sgpu_sim::launch::dump(&p, "out").unwrap()
}

/// Runs a loaded program as `manifest` (files relative to `dir`) launches it: the state
/// after; a trap panics.
pub fn run_program(
    program: &sgpu_sim::program::Program,
    manifest: &str,
    dir: &Path,
) -> sgpu_sim::launch::Prepared {
    let mut p = sgpu_sim::launch::prepare(manifest, dir, program).unwrap();
    sgpu_sim::run(program, &mut p.global, &p.surfaces, &p.launch, |_, _, _| {})
        .unwrap_or_else(|t| panic!("{t}"));
    p
}

/// `tests/kernels/NAME.ptx`, or `examples/NAME.ptx`: its path and text.
pub fn kernel(name: &str) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut path = root.join(format!("tests/kernels/{name}.ptx"));
    if !path.exists() {
        path = root.join(format!("examples/{name}.ptx"));
    }
    let source = read(&path);
    (path.display().to_string(), source)
}

/// Asserts that `source` passes the checker without errors.
pub fn assert_checks(source: &str) {
    let (module, _) = ptx_grammar::parse(source);
    let errors: Vec<_> = ptx_grammar::check(&module)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{source}");
}

/// A buffer after the run, as little-endian words of `N` bytes.
pub fn words<const N: usize>(p: &sgpu_sim::launch::Prepared, buffer: &str) -> Vec<[u8; N]> {
    sgpu_sim::launch::dump(p, buffer)
        .unwrap()
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap())
        .collect()
}

pub fn u32s(p: &sgpu_sim::launch::Prepared, buffer: &str) -> Vec<u32> {
    words::<4>(p, buffer)
        .into_iter()
        .map(u32::from_le_bytes)
        .collect()
}

pub fn u64s(p: &sgpu_sim::launch::Prepared, buffer: &str) -> Vec<u64> {
    words::<8>(p, buffer)
        .into_iter()
        .map(u64::from_le_bytes)
        .collect()
}

/// Values as a manifest writes a list: `1, 2, 3`.
pub fn list<T: std::fmt::Display>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A xorshift sequence from `seed`: test inputs that are the same on every run.
pub fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
