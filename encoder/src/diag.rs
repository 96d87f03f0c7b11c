//! The encoder's diagnostics: mostly what sgpu cannot run, at the line that asks for it.

use ptx_grammar::ast::Span;
use ptx_grammar::Diagnostic;

#[derive(Default, Debug)]
pub struct Diags {
    pub list: Vec<Diagnostic>,
}

impl Diags {
    /// A construct that is valid PTX but that sgpu has no way to run.
    pub fn unsupported(&mut self, span: Span, what: impl std::fmt::Display) {
        self.list.push(Diagnostic::error(
            span,
            format!("unsupported on sgpu: {what}"),
        ));
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.list.push(Diagnostic::error(span, message));
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
