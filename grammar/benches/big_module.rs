//! The benchmarks' input: a large module of LLVM-generated PTX, from the corpus files in
//! $PTXAS_SHARED/corpus/generated (../shared by default) concatenated with every function and
//! module-scope variable renamed per copy.

use ptx_grammar::lexer::{Lexer, Tok};
use std::path::Path;

/// About `target` bytes of PTX: the corpus files that `keep` accepts, renamed per copy and
/// concatenated until the module is that large.
pub fn build_module(target: usize, keep: impl Fn(&str) -> bool) -> String {
    // Where the tests find it: $PTXAS_SHARED, or ../shared beside the checkout.
    let shared = std::env::var_os("PTXAS_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        std::path::PathBuf::from,
    );
    let dir = shared.join("corpus/generated");
    let mut files: Vec<String> = ["clang16_cuda", "llc16_ll"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(dir.join(d))
                .unwrap_or_else(|e| panic!("{}: {e} (set PTXAS_SHARED)", dir.join(d).display()))
        })
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        // DWARF sections name labels across functions; leave the `-g` file out.
        .filter(|s| !s.contains(".section"))
        .filter(|s| keep(s))
        .collect();
    files.sort();
    let mut out = String::from(".version 7.5\n.target sm_80\n.address_size 64\n");
    let mut copy = 0;
    // At least one copy of everything.
    loop {
        for source in &files {
            out.push_str(&renamed(source, copy));
            copy += 1;
        }
        if out.len() >= target {
            break;
        }
    }
    out
}

/// The module's text after its header, with module-scope names suffixed by `_c{copy}`.
fn renamed(source: &str, copy: usize) -> String {
    let (module, diags) = ptx_grammar::parse(source);
    assert!(diags.is_empty(), "corpus file does not parse");
    let mut names = std::collections::HashSet::new();
    for item in &module.items {
        match item {
            ptx_grammar::ast::Item::Function(f) => {
                names.insert(f.name.text);
            }
            ptx_grammar::ast::Item::Var(v) => {
                names.extend(v.declarators.iter().map(|d| d.name.text))
            }
            _ => {}
        }
    }
    let body = &source[source.find(".address_size").map_or(0, |i| i + 17)..];
    let mut out = String::with_capacity(body.len() + 1024);
    let mut last = 0;
    for (start, tok, end) in Lexer::new(body).map(|t| t.unwrap()) {
        if tok == Tok::Name {
            let text = &body[start..end];
            let base = &text[..text.find('.').unwrap_or(text.len())];
            if names.contains(base) {
                out.push_str(&body[last..start + base.len()]);
                out.push_str(&format!("_c{copy}"));
                last = start + base.len();
            }
        }
    }
    out.push_str(&body[last..]);
    out
}

/// PTX instructions in a module.
pub fn count_instructions(m: &ptx_grammar::ast::Module<'_>) -> usize {
    use ptx_grammar::ast::{Item, Statement};
    let mut n = 0;
    for item in &m.items {
        let Item::Function(f) = item else { continue };
        let mut stack: Vec<&ptx_grammar::ast::Block<'_>> = f.body.iter().collect();
        while let Some(b) = stack.pop() {
            for s in &b.statements {
                match s {
                    Statement::Instr(_) => n += 1,
                    Statement::Block(inner) => stack.push(inner),
                    _ => {}
                }
            }
        }
    }
    n
}
