//! Parser, checker and encoder fixtures: adding a test is adding a file under tests/fixtures.
//! `ok/` files must be clean, and their snapshot is the canonical formatting (the tree as the
//! parser understood it); `err/` files must have errors, and their snapshot is exactly what
//! the CLI prints; `encode_err/` files must check cleanly and be refused by the encoder
//! (what sgpu's fields cannot hold), their snapshot again what the CLI prints. Every fixture was checked against NVIDIA ptxas 12.9; where we are stricter,
//! the file's first comment says so.

use ptxas_rs::render::render;

fn diagnostics(source: &str) -> Vec<ptx_grammar::Diagnostic> {
    let (module, mut diags) = ptx_grammar::parse(source);
    diags.extend(ptx_grammar::check(&module));
    diags.sort_by_key(|d| d.span.start);
    diags
}

fn name(path: &std::path::Path) -> String {
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .unwrap()
        .to_string_lossy();
    format!("{parent}/{}", path.file_name().unwrap().to_string_lossy())
}

#[test]
fn ok_fixtures_are_clean_and_format_canonically() {
    insta::glob!("fixtures/ok/*.ptx", |path| {
        let source = std::fs::read_to_string(path).unwrap();
        let diags = diagnostics(&source);
        let rendered: String = diags
            .iter()
            .map(|d| render(&name(path), &source, d))
            .collect();
        assert!(diags.is_empty(), "{rendered}");
        let (module, _) = ptx_grammar::parse(&source);
        insta::assert_snapshot!(ptx_grammar::format_module(&module));
    });
}

#[test]
fn err_fixtures_report_every_error() {
    insta::glob!("fixtures/err/*.ptx", |path| {
        let source = std::fs::read_to_string(path).unwrap();
        let diags = diagnostics(&source);
        assert!(
            diags.iter().any(|d| d.is_error()),
            "{} has no errors",
            path.display()
        );
        let rendered: String = diags
            .iter()
            .map(|d| render(&name(path), &source, d))
            .collect();
        insta::assert_snapshot!(rendered);
    });
}

#[test]
fn encode_err_fixtures_are_refused_by_the_encoder() {
    insta::glob!("fixtures/encode_err/*.ptx", |path| {
        let source = std::fs::read_to_string(path).unwrap();
        let diags = diagnostics(&source);
        assert!(
            diags.is_empty(),
            "{} does not check cleanly",
            path.display()
        );
        let (module, _) = ptx_grammar::parse(&source);
        let options = ptx_encoder::Options::default();
        let Err(diags) = ptx_encoder::assemble(&source, &name(path), &module, &options) else {
            panic!("{} assembled", path.display());
        };
        let rendered: String = diags
            .iter()
            .map(|d| render(&name(path), &source, d))
            .collect();
        insta::assert_snapshot!(rendered);
    });
}
