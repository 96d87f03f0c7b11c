//! Every file of ../shared/corpus parses and checks cleanly, and formats back to itself.

mod common;

use common::{corpus_files, read};

#[test]
fn corpus_parses_without_errors() {
    let files = corpus_files();
    assert!(
        files.len() >= 200,
        "expected the 200-file corpus, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let source = read(path);
        let (module, mut diags) = ptx_grammar::parse(&source);
        diags.extend(ptx_grammar::check(&module));
        diags.retain(|d| d.is_error());
        if let Some(d) = diags.first() {
            let (line, col) = ptx_grammar::diag::line_col(&source, d.span.start as usize);
            failures.push(format!(
                "{}:{line}:{col}: {} ({} errors)",
                path.display(),
                d.message,
                diags.len()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn formatter_round_trips_every_corpus_file() {
    let mut failures = Vec::new();
    for path in corpus_files() {
        let source = read(&path);
        let (module, _) = ptx_grammar::parse(&source);
        let formatted = ptx_grammar::format_module(&module);
        let (reparsed, diags) = ptx_grammar::parse(&formatted);
        if let Some(d) = diags.first() {
            let (line, col) = ptx_grammar::diag::line_col(&formatted, d.span.start as usize);
            failures.push(format!(
                "{}: formatted output does not parse: {line}:{col}: {}",
                path.display(),
                d.message
            ));
            continue;
        }
        if reparsed != module {
            let first = module
                .items
                .iter()
                .zip(&reparsed.items)
                .position(|(a, b)| a != b);
            failures.push(format!(
                "{}: tree differs after formatting (item {first:?})",
                path.display()
            ));
            continue;
        }
        if ptx_grammar::format_module(&reparsed) != formatted {
            failures.push(format!("{}: formatting is not idempotent", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
