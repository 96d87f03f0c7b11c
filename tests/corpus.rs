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
