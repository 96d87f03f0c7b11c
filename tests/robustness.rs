//! Whatever the bytes, the front end and the encoder end cleanly: no panic, no stack
//! overflow, no runaway allocation. Pathological inputs from the issue, then random mutations
//! of the corpus.

mod common;

use common::{corpus_files, read};

/// Parses, checks, assembles what is clean and renders every diagnostic as the CLI does;
/// returns the number of errors. Panics propagate and fail the test.
fn front_end(source: &str) -> usize {
    let (module, mut diags) = ptx_grammar::parse(source);
    if diags.is_empty() {
        // Formatting a module without syntax errors must also survive, and give text that
        // parses back to the same tree with the same comments (the mutations splice `//` and
        // `/*` in anywhere) and formats to itself.
        let formatted = ptx_grammar::format_module(&module);
        let (again, errors) = ptx_grammar::parse(&formatted);
        assert!(
            errors.is_empty(),
            "formatted output does not parse: {errors:?}\n{formatted}"
        );
        assert!(again == module, "formatting changed the tree:\n{formatted}");
        assert_eq!(ptx_grammar::format_module(&again), formatted);
    }
    // The checker also runs over trees with syntax errors, as the CLI does.
    diags.extend(ptx_grammar::check(&module));
    if diags.iter().all(|d| !d.is_error()) {
        let options = ptx_encoder::Options::default();
        if let Err(e) = ptx_encoder::assemble(source, "f.ptx", &module, &options) {
            diags.extend(e);
        }
    }
    let lines = ptx_grammar::diag::LineIndex::new(source);
    for d in &diags {
        let _ = ptxas_rs::render::render_with("f.ptx", &lines, source, d);
    }
    diags.iter().filter(|d| d.is_error()).count()
}

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

#[test]
fn empty_and_blank_files_lack_their_version() {
    // One error each, as ptxas: "Missing .version directive at start of file".
    assert_eq!(front_end(""), 1);
    assert_eq!(front_end("\n\n   \t\n"), 1);
    assert_eq!(front_end("// only a comment"), 1);
}

#[test]
fn hundred_thousand_nested_scopes() {
    let depth = 100_000;
    let source = format!(
        "{HEADER}.entry k ()\n{}ret;\n{}",
        "{\n".repeat(depth),
        "}\n".repeat(depth)
    );
    let (_, diags) = ptx_grammar::parse(&source);
    assert!(
        diags.iter().any(|d| d.message.contains("nested deeper")),
        "{:?}",
        diags.first()
    );
    assert!(diags.len() < 10, "{} diagnostics", diags.len());
}

#[test]
fn deep_expressions_are_bounded() {
    for (what, expr) in [
        (
            "parentheses",
            format!("{}1{}", "(".repeat(50_000), ")".repeat(50_000)),
        ),
        ("prefix operators", format!("{}1", "-".repeat(200_000))),
        ("a long sum", format!("1{}", "+1".repeat(200_000))),
    ] {
        let source = format!("{HEADER}.global .u32 x = {expr};\n");
        let (_, diags) = ptx_grammar::parse(&source);
        assert!(
            diags.iter().any(|d| d.message.contains("nested deeper")),
            "{what}: {:?}",
            diags.first().map(|d| &d.message)
        );
    }
}

#[test]
fn a_four_megabyte_line() {
    let operands = "%r1, ".repeat(800_000);
    let source =
        format!("{HEADER}.entry k ()\n{{\n.reg .b32 %r<2>;\nadd.s32 {operands}%r1;\nret;\n}}\n");
    assert!(source.len() > 4_000_000);
    assert_eq!(front_end(&source), 1, "one error: too many operands");
}

#[test]
fn huge_register_ranges_allocate_nothing() {
    let source = format!(
        "{HEADER}.entry k ()\n{{\n.reg .b32 %r<4000000000>;\nadd.s32 %r3999999999, %r0, %r1;\nret;\n}}\n"
    );
    assert_eq!(front_end(&source), 0);
    let source = format!("{HEADER}.entry k ()\n{{\n.reg .b32 %r<40000000000>;\nret;\n}}\n");
    assert_eq!(front_end(&source), 1, "a range past 32 bits is reported");
}

#[test]
fn control_characters_and_stray_bytes() {
    let source = format!("{HEADER}\u{0}\u{7}.entry \u{1b}k () {{ ret; }}\u{feff}");
    assert!(front_end(&source) > 0);
}

/// A small deterministic generator, so a failure reproduces from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments that reach the parser's and checker's corners when spliced in.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "|",
    "!",
    "-",
    "@",
    "%r",
    "%r<",
    ">",
    ".v4",
    ".b0",
    ".h1",
    "_",
    "0f",
    "0d3FF",
    "0x",
    "1.5e",
    "\"",
    "/*",
    "//",
    "\n",
    ".reg .b32",
    ".entry",
    ".section",
    "{{{{",
    "]]]",
    "suld.b.2d.b32.trap",
    "vmad.s32.s32.s32.po",
    "%tid.",
    "U",
    "\0",
    "\u{fffd}",
    "::",
    ".loc 1 2",
    "call.uni (",
    ".callprototype",
    "$L__",
    "0b2",
    "09",
];

fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(5) {
            0 => {
                let end = (at + rng.below(64)).min(bytes.len());
                bytes.drain(at..end);
            }
            1 => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                bytes.splice(at..at, f.bytes());
            }
            2 if !bytes.is_empty() => {
                let at = at.min(bytes.len() - 1);
                bytes[at] = rng.next() as u8;
            }
            3 => {
                // Duplicate a stretch: repeated declarations, labels, nesting.
                let end = (at + rng.below(200)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            _ => {
                let end = (at + rng.below(32)).min(bytes.len());
                bytes[at..end].reverse();
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The count is bounded for CI; `PTXAS_RS_MUTATIONS=200000` runs a longer campaign by hand.
#[test]
fn random_mutations_of_the_corpus_never_panic() {
    let count: usize = std::env::var("PTXAS_RS_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed: u64 = std::env::var("PTXAS_RS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed);
    // Small files keep the run fast; the big ones add nothing the small ones lack.
    let sources: Vec<String> = corpus_files()
        .iter()
        .map(|p| read(p))
        .filter(|s| s.len() < 40_000)
        .collect();
    assert!(sources.len() > 100);
    let mut rng = Rng(seed);
    let mut with_errors = 0;
    for i in 0..count {
        let base = &sources[rng.below(sources.len())];
        let mutated = mutate(&mut rng, base);
        let result = std::panic::catch_unwind(|| front_end(&mutated));
        match result {
            Ok(errors) => with_errors += usize::from(errors > 0),
            Err(_) => {
                let path = std::env::temp_dir().join(format!("ptxas-rs-crash-{seed}-{i}.ptx"));
                std::fs::write(&path, &mutated).unwrap();
                panic!(
                    "mutation {i} (seed {seed}) panicked; input saved to {}",
                    path.display()
                );
            }
        }
    }
    // The mutations must actually reach error paths, or this test proves little.
    assert!(
        with_errors > count / 3,
        "only {with_errors} of {count} mutations had errors"
    );
}
