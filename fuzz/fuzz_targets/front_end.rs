//! Any bytes through everything the front end does: lex, parse, check, render every
//! diagnostic, and for clean input the formatter's round trip and the encoder.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let (module, mut diags) = ptx_grammar::parse(&source);
    let clean = diags.is_empty();
    // The checker also runs over trees with syntax errors, as the CLI does.
    diags.extend(ptx_grammar::check(&module));
    if diags.iter().all(|d| !d.is_error()) {
        let options = ptx_encoder::Options::default();
        if let Err(e) = ptx_encoder::assemble(&source, "fuzz.ptx", &module, &options) {
            diags.extend(e);
        }
    }
    let lines = ptx_grammar::diag::LineIndex::new(&source);
    for d in &diags {
        let _ = ptxas_rs::render::render_with("fuzz.ptx", &lines, &source, d);
    }
    if clean {
        let formatted = ptx_grammar::format_module(&module);
        let (again, errors) = ptx_grammar::parse(&formatted);
        assert!(errors.is_empty(), "formatted output does not parse: {errors:?}\n{formatted}");
        assert!(again == module, "formatting changed the tree:\n{formatted}");
    }
});
