//! Every file of ../shared/corpus assembles, or is rejected only because it uses textures or
//! tensor cores, which sgpu cannot run, with that said at the line; every ELF written
//! satisfies `readelf -a`, and its line table maps every instruction of the optimised code to
//! a line of the PTX (or of the f64 runtime's).

mod common;

use common::{corpus_files, read};
use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn corpus_assembles_or_is_rejected_as_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let mut assembled = 0;
    let mut rejected = 0;
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in corpus_files() {
        let source = read(&path);
        let (module, _) = ptx_grammar::parse(&source);
        let name = path.display().to_string();
        match ptx_encoder::assemble(&source, &name, &module, &ptx_encoder::Options::default()) {
            Ok(a) => {
                assembled += 1;
                let elf = dir.path().join("out.elf");
                std::fs::write(&elf, &a.elf).unwrap();
                let out = Command::new("readelf")
                    .args(["-a", "-W"])
                    .arg(&elf)
                    .output()
                    .expect("readelf (binutils) must be installed");
                let text = String::from_utf8_lossy(&out.stdout).to_lowercase()
                    + &String::from_utf8_lossy(&out.stderr).to_lowercase();
                if !out.status.success() || text.contains("warning") {
                    failures.push(format!("{name}: readelf: {text}"));
                }
                ptx_encoder::disasm::disassemble(&a.elf).unwrap();
                let words = a.functions.iter().flat_map(|f| &f.code);
                if words.into_iter().any(|&w| sgpu_isa::decode(w).is_err()) {
                    failures.push(format!("{name}: a word does not decode"));
                }
                failures.extend(unmapped_lines(&name, &source, &a));
            }
            Err(diags) => {
                rejected += 1;
                for d in &diags {
                    match d.message.strip_prefix("unsupported on sgpu: ") {
                        Some(reason) => *reasons.entry(reason.to_string()).or_default() += 1,
                        None => failures.push(format!("{name}: {}", d.message)),
                    }
                }
            }
        }
    }
    println!("corpus: {assembled} files assembled, {rejected} rejected as unsupported on sgpu");
    let mut by_count: Vec<_> = reasons.into_iter().collect();
    by_count.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (reason, n) in &by_count {
        println!("  {n:5}  {reason}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Only textures and tensor cores are beyond sgpu.
    let beyond = ["`tex`", "`tld4`", "`txq`", "`mma`", "`wmma`", "`ldmatrix`"];
    for (reason, _) in &by_count {
        assert!(beyond.contains(&reason.as_str()), "refused: {reason}");
    }
    assert!(assembled >= 179, "only {assembled} corpus files assemble");
}

/// Instructions whose line is no line of the file: a module function's must be a line of
/// the PTX; a runtime function's (PTX line 0) a line of its library's source.
fn unmapped_lines(name: &str, source: &str, a: &ptx_encoder::Assembled) -> Vec<String> {
    let lines = source.lines().count() as u32;
    let runtime_lines = |file: u32| {
        let libraries = ptx_encoder::runtime::LIBRARIES.iter();
        let library = libraries.into_iter().find(|l| l.file_index == file);
        library.map_or(0, |l| l.source.lines().count() as u32)
    };
    let mut bad = Vec::new();
    for f in &a.functions {
        for (i, &[line, file, loc_line]) in f.lines.iter().enumerate() {
            let fine = if line == 0 {
                (1..=runtime_lines(file)).contains(&loc_line)
            } else {
                (1..=lines).contains(&line)
            };
            if !fine {
                bad.push(format!(
                    "{name}: `{}` instruction {i} maps to line {line}",
                    f.name
                ));
            }
        }
    }
    bad
}
