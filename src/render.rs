//! Diagnostics as people read them:
//!
//! ```text
//! kernel.ptx:12:5: error: unknown instruction `foo`
//!    12 |     foo.u32 %r1;
//!       |     ^^^
//! ```

use ptx_grammar::diag::{floor_char_boundary, LineIndex};
use ptx_grammar::Diagnostic;
use std::fmt::Write;

/// Renders one diagnostic against the source it points into.
pub fn render(file: &str, source: &str, d: &Diagnostic) -> String {
    render_with(file, &LineIndex::new(source), source, d)
}

/// [`render`] with the source's line index built once for many diagnostics.
pub fn render_with(file: &str, lines: &LineIndex<'_>, source: &str, d: &Diagnostic) -> String {
    let mut out = String::new();
    let (line, col) = lines.line_col(d.span.start as usize);
    let severity = d.severity.as_str();
    let _ = writeln!(out, "{file}:{line}:{col}: {severity}: {}", d.message);
    excerpt(
        &mut out,
        lines,
        source,
        d.span.start as usize,
        d.span.end as usize,
    );
    if let Some((span, note)) = &d.related {
        let (line, col) = lines.line_col(span.start as usize);
        let _ = writeln!(out, "{file}:{line}:{col}: note: {note}");
        excerpt(
            &mut out,
            lines,
            source,
            span.start as usize,
            span.end as usize,
        );
    }
    out
}

/// Longest part of a line shown; a 4 MB line is cut around the caret.
const MAX_SHOWN: usize = 160;

fn excerpt(out: &mut String, lines: &LineIndex<'_>, source: &str, start: usize, end: usize) {
    let start = floor_char_boundary(source, start.min(source.len()));
    let (line, _) = lines.line_col(start);
    let range = lines.line_range(line);
    let (line_start, line_end) = (range.start, range.end);
    // Keep the caret in view on very long lines.
    let shown_start = if start - line_start > MAX_SHOWN / 2 {
        floor_char_boundary(source, start - MAX_SHOWN / 2)
    } else {
        line_start
    };
    let shown_end = floor_char_boundary(source, line_end.min(shown_start + MAX_SHOWN));
    let text = source[shown_start..shown_end].trim_end_matches('\r');
    let gutter = line.to_string().len().max(4);
    let _ = writeln!(
        out,
        "{line:>gutter$} | {}{text}",
        if shown_start > line_start { "..." } else { "" }
    );
    // Tabs stay tabs under the text so the caret lines up in any terminal.
    let pad: String = source[shown_start..start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    // Spans may end inside a character (a replaced invalid byte): round down.
    let end = floor_char_boundary(source, end.clamp(start, shown_end.max(start)));
    let width = source[start..end].chars().count().max(1);
    let _ = writeln!(
        out,
        "{:gutter$} | {}{pad}{}",
        "",
        if shown_start > line_start { "   " } else { "" },
        "^".repeat(width)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_grammar::ast::Span;

    #[test]
    fn caret_under_span_with_tabs() {
        let src = ".version 7.0\n\tfoo.u32 %r1;\n";
        let d = Diagnostic::error(Span::new(14, 21), "unknown instruction `foo`");
        assert_eq!(
            render("k.ptx", src, &d),
            "k.ptx:2:2: error: unknown instruction `foo`\n   2 | \tfoo.u32 %r1;\n     | \t^^^^^^^\n"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let src = format!("{}bad", "x ".repeat(2_000_000));
        let at = src.len() - 3;
        let d = Diagnostic::error(Span::new(at, at + 3), "bad");
        let text = render("k.ptx", &src, &d);
        assert!(text.len() < 600, "{} bytes", text.len());
        assert!(text.contains("bad\n"));
        assert!(text.ends_with("^^^\n"));
    }

    #[test]
    fn empty_source_and_end_of_file() {
        let d = Diagnostic::error(Span::new(0, 0), "unexpected end of file");
        assert_eq!(
            render("e.ptx", "", &d),
            "e.ptx:1:1: error: unexpected end of file\n   1 | \n     | ^\n"
        );
    }
}
