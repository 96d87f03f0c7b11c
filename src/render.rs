//! Diagnostics as people read them:
//!
//! ```text
//! kernel.ptx:12:5: error: unknown instruction `foo`
//!    12 |     foo.u32 %r1;
//!       |     ^^^
//! ```
//!
//! What a terminal would act on rather than show (control characters, bidirectional
//! overrides) is shown escaped, as Rust writes it (`\u{1b}`), and bytes that are not UTF-8 as
//! `\xff`; the caret counts the escapes' width, so it stays under what it points at.

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
    let _ = writeln!(
        out,
        "{}:{line}:{col}: {severity}: {}",
        escape(file),
        escape(&d.message)
    );
    excerpt(
        &mut out,
        lines,
        source,
        d.span.start as usize,
        d.span.end as usize,
    );
    if let Some((span, note)) = &d.related {
        let (line, col) = lines.line_col(span.start as usize);
        let _ = writeln!(out, "{}:{line}:{col}: note: {}", escape(file), escape(note));
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

/// At most this many errors are shown for a file, as compilers stop (clang after 20, rustc's
/// and gcc's users with `-fmax-errors`): past them a binary file's noise helps no one.
pub const MAX_ERRORS: usize = 100;

/// Writes the diagnostics, in order, up to the [`MAX_ERRORS`]th error, then, when there are
/// errors, a line saying how many (and one before it when some were not shown); whether there
/// were none. Write errors are ignored: this is the report of last resort.
pub fn report(
    out: &mut dyn std::io::Write,
    file: &str,
    source: &str,
    diags: &[Diagnostic],
) -> bool {
    let lines = LineIndex::new(source);
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let mut shown = 0;
    for d in diags {
        if shown == MAX_ERRORS && errors > MAX_ERRORS {
            let _ = writeln!(
                out,
                "ptxas-rs: too many errors; stopped after the first {MAX_ERRORS}"
            );
            break;
        }
        shown += usize::from(d.is_error());
        let _ = out.write_all(render_with(file, &lines, source, d).as_bytes());
    }
    if errors > 0 {
        let s = if errors == 1 { "" } else { "s" };
        let _ = writeln!(out, "ptxas-rs: {errors} error{s} in {}", escape(file));
    }
    errors == 0
}

/// The report for a file that is not UTF-8: the error at its first bad byte, the line shown
/// with the bad bytes as `\xNN`, and the count, as [`report`] ends.
pub fn not_utf8(file: &str, bytes: &[u8]) -> String {
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => return String::new(),
        Err(e) => e.valid_up_to(),
    };
    let line_start = bytes[..valid]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + bytes[..line_start].iter().filter(|&&b| b == b'\n').count();
    let before = std::str::from_utf8(&bytes[line_start..valid]).unwrap_or_default();
    let col = before.chars().count() + 1;
    // The line to the caret, and no more after it than can be shown.
    let rest = &bytes[valid..];
    let line_end = valid + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let shown_end = line_end.min(valid + 4 * MAX_SHOWN);
    let mut text = String::from(before);
    for chunk in bytes[valid..shown_end].utf8_chunks() {
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(text, "\\x{b:02x}");
        }
    }
    let mut out = String::new();
    let file = escape(file);
    let _ = writeln!(
        out,
        "{file}:{line}:{col}: error: the file is not valid UTF-8"
    );
    show_line(&mut out, line, &text, before.len(), before.len() + 4);
    let _ = writeln!(out, "ptxas-rs: 1 error in {file}");
    out
}

/// Longest part of a line shown, in columns; a 4 MB line is cut around the caret.
const MAX_SHOWN: usize = 160;

fn excerpt(out: &mut String, lines: &LineIndex<'_>, source: &str, start: usize, end: usize) {
    let start = floor_char_boundary(source, start.min(source.len()));
    let (line, _) = lines.line_col(start);
    let range = lines.line_range(line);
    let text = &source[range.clone()];
    // A CRLF line's `\r` is part of its end, not shown (unless a span covers it: an empty one
    // there, after the line's last token, points at the line's end).
    let text = match text.strip_suffix('\r') {
        Some(shorter) if start < range.start + shorter.len() || end <= start => shorter,
        _ => text,
    };
    // Spans may end inside a character (a replaced invalid byte): round down.
    let end = floor_char_boundary(
        text,
        end.clamp(start, range.start + text.len()) - range.start,
    );
    show_line(out, line, text, start - range.start, end);
}

/// Whether a character is shown escaped: it would move the cursor, ring, recolour or reorder
/// the terminal's text rather than show. Tabs stay, so the caret lines up under them.
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The columns a character takes when shown.
fn width(c: char) -> usize {
    if needs_escape(c) {
        // `\u{` + hex digits + `}`
        4 + (32 - (c as u32 | 1).leading_zeros()).div_ceil(4) as usize
    } else {
        1
    }
}

/// `text` with [`needs_escape`]'s characters as `\u{..}`.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if needs_escape(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// One line of source under its number, cut to [`MAX_SHOWN`] columns around `start`, with a
/// caret under `start..end` (byte offsets into `text`, on character boundaries).
fn show_line(out: &mut String, line: usize, text: &str, start: usize, end: usize) {
    // Keep the caret in view on very long lines: at most half the width before it.
    let mut shown_start = start;
    let mut columns = 0;
    for (i, c) in text[..start].char_indices().rev() {
        columns += width(c);
        if columns > MAX_SHOWN / 2 {
            break;
        }
        shown_start = i;
    }
    let mut shown_end = shown_start;
    let mut columns = 0;
    for c in text[shown_start..].chars() {
        columns += width(c);
        if columns > MAX_SHOWN {
            break;
        }
        shown_end += c.len_utf8();
    }
    let cut = if shown_start > 0 { "..." } else { "" };
    let gutter = line.to_string().len().max(4);
    let _ = writeln!(
        out,
        "{line:>gutter$} | {cut}{}",
        escape(&text[shown_start..shown_end])
    );
    // Tabs stay tabs under the text so the caret lines up in any terminal.
    let pad: String = text[shown_start..start]
        .chars()
        .map(|c| {
            if c == '\t' {
                "\t".to_string()
            } else {
                " ".repeat(width(c))
            }
        })
        .collect();
    let end = end.clamp(start, shown_end.max(start));
    let carets = text[start..end].chars().map(width).sum::<usize>().max(1);
    let _ = writeln!(
        out,
        "{:gutter$} | {}{pad}{}",
        "",
        if cut.is_empty() { "" } else { "   " },
        "^".repeat(carets)
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

    #[test]
    fn control_characters_are_shown_escaped_with_the_caret_under_them() {
        let src = ".version 7.0\n\u{1b}[31m\u{7}foo \u{202e}bar\r\n";
        let at = src.find("bar").unwrap();
        let d = Diagnostic::error(Span::new(at, at + 3), "unknown `\u{1b}[0m`");
        let lines: Vec<String> = render("k\u{0}.ptx", src, &d)
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            lines,
            [
                "k\\u{0}.ptx:2:12: error: unknown `\\u{1b}[0m`".to_string(),
                "   2 | \\u{1b}[31m\\u{7}foo \\u{202e}bar".to_string(),
                format!("     | {}^^^", " ".repeat(27)),
            ]
        );
        // A span over an escaped character covers all of its escape.
        let d = Diagnostic::error(Span::new(13, 14), "unexpected character U+001B");
        assert!(render("k.ptx", src, &d)
            .ends_with("   2 | \\u{1b}[31m\\u{7}foo \\u{202e}bar\n     | ^^^^^^\n"));
    }

    #[test]
    fn a_crlf_line_end_is_not_shown() {
        let src = "mov.u32 %r1, %r2\r\nret;\r\n";
        // After the line's last token, as a missing `;` is reported.
        let d = Diagnostic::error(Span::new(16, 16), "expected `;`, found `ret`");
        assert!(render("k.ptx", src, &d).ends_with(&format!(
            "   1 | mov.u32 %r1, %r2\n     | {}^\n",
            " ".repeat(16)
        )));
        // A character that is there is shown, even a `\r`.
        let d = Diagnostic::error(Span::new(16, 17), "unexpected character U+000D");
        assert!(render("k.ptx", src, &d).ends_with(&format!(
            "   1 | mov.u32 %r1, %r2\\u{{d}}\n     | {}^^^^^\n",
            " ".repeat(16)
        )));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex() {
        let text = not_utf8(
            "b.ptx",
            b".version 7.0\n\x7fELF\x02\x01\xff\xfe ok\nnext\xff\n",
        );
        let lines: Vec<String> = text.lines().map(String::from).collect();
        assert_eq!(
            lines,
            [
                "b.ptx:2:7: error: the file is not valid UTF-8".to_string(),
                "   2 | \\u{7f}ELF\\u{2}\\u{1}\\xff\\xfe ok".to_string(),
                format!("     | {}^^^^", " ".repeat(19)),
                "ptxas-rs: 1 error in b.ptx".to_string(),
            ]
        );
        // A long line without a line end is cut around the caret.
        let mut bytes = vec![b'x'; 1_000_000];
        bytes[500_000] = 0x80;
        let text = not_utf8("b.ptx", &bytes);
        assert!(text.starts_with("b.ptx:1:500001: error"), "{text}");
        assert!(text.len() < 600, "{text}");
        assert!(text.contains("x\\x80x"), "{text}");
    }

    #[test]
    fn the_report_stops_after_max_errors_and_always_counts() {
        let src = "x\n".repeat(300);
        let diags: Vec<Diagnostic> = (0..300)
            .map(|i| Diagnostic::error(Span::new(2 * i, 2 * i + 1), "bad"))
            .collect();
        let mut out = Vec::new();
        assert!(!report(&mut out, "k.ptx", &src, &diags));
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches(": error: bad").count(), MAX_ERRORS);
        assert!(
            out.ends_with(
                "ptxas-rs: too many errors; stopped after the first 100\n\
                 ptxas-rs: 300 errors in k.ptx\n"
            ),
            "{out}"
        );
        // Exactly the limit: all shown, no stop line.
        let mut out = Vec::new();
        report(&mut out, "k.ptx", &src, &diags[..MAX_ERRORS]);
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains("too many"));
        assert!(out.ends_with("\nptxas-rs: 100 errors in k.ptx\n"));
        // Warnings alone: shown, no count.
        let mut out = Vec::new();
        let warning = Diagnostic::warning(Span::new(0, 1), "odd");
        assert!(report(&mut out, "k.ptx", &src, &[warning]));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "k.ptx:1:1: warning: odd\n   1 | x\n     | ^\n"
        );
    }
}
