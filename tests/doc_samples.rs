//! The sample outputs the documents show are what the commands print. A sample is marked by
//! the comment `<!-- output of: FILE.ptx | ARGS -->` on the line before its indented block:
//! FILE.ptx is assembled with the default options, `ELF` in ARGS is replaced by the ELF's
//! path, and `ptxas-rs ARGS` run from the repository's root must print the block exactly.

use std::path::Path;
use std::process::Command;

const MARK: &str = "<!-- output of: ";

/// (document, line of the mark, PTX file, arguments, the sample's lines) of every mark.
fn samples() -> Vec<(String, usize, String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut documents: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    documents.push(root.join("README.md"));
    documents.sort();
    let mut found = Vec::new();
    for doc in documents {
        let text = std::fs::read_to_string(&doc).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix(MARK) else {
                continue;
            };
            let command = rest.strip_suffix(" -->").expect("a mark ends with -->");
            let (ptx, args) = command
                .split_once(" | ")
                .expect("a mark is FILE.ptx | ARGS");
            let sample: String = lines[i + 1..]
                .iter()
                .take_while(|l| l.starts_with("    "))
                .map(|l| format!("{}\n", &l[4..]))
                .collect();
            found.push((
                doc.display().to_string(),
                i + 1,
                ptx.to_string(),
                args.to_string(),
                sample,
            ));
        }
    }
    found
}

#[test]
fn every_sample_output_is_what_the_command_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let samples = samples();
    assert!(
        samples.iter().any(|s| s.0.ends_with("launch.md")),
        "docs/launch.md's sample is marked"
    );
    let dir = tempfile::tempdir().unwrap();
    for (doc, line, ptx, args, sample) in samples {
        let elf = dir.path().join("sample.elf");
        let asm = Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
            .current_dir(root)
            .args([ptx.as_str(), "-o", elf.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            asm.status.success(),
            "{doc}:{line}: {ptx} does not assemble"
        );
        let args: Vec<String> = args
            .split_whitespace()
            .map(|a| {
                if a == "ELF" {
                    elf.display().to_string()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
            .current_dir(root)
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{doc}:{line}: the command fails");
        assert!(
            !sample.is_empty(),
            "{doc}:{line}: no indented sample after the mark"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            sample,
            "{doc}:{line}: the sample is not what `ptxas-rs {}` prints",
            args.join(" ")
        );
    }
}

/// The README's first command (`cargo run --release -- ARGS`) runs the shipped example and
/// leaves nothing behind: run with ARGS from a copy of the example's folder, which must hold
/// nothing new afterwards.
#[test]
fn the_readme_first_command_runs_and_leaves_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = readme
        .lines()
        .find_map(|l| l.strip_prefix("    cargo run --release -- "))
        .expect("the README's first command");
    let args: Vec<&str> = command.split_whitespace().collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    for name in ["blend.ptx", "blend.toml"] {
        std::fs::copy(
            root.join("examples").join(name),
            dir.path().join("examples").join(name),
        )
        .unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.starts_with("ran blend:") && shown.contains("out as u8: 32 values"),
        "{shown}"
    );
    let mut left: Vec<String> = walk(dir.path());
    left.sort();
    assert_eq!(
        left,
        ["examples", "examples/blend.ptx", "examples/blend.toml"]
    );
}

/// Every path below `dir`, relative to it.
fn walk(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    found
}
