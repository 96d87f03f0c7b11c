//! The parser's entry point and the helpers its grammar actions call.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Lexer, Tok};
use lalrpop_util::{ErrorRecovery, ParseError};
use std::convert::Infallible;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications)]
    grammar,
    "/ptx.rs"
);

/// Parses a whole module. Always returns a tree (with [`Item::Error`] and [`Statement::Error`]
/// where input was skipped) and every syntax error found, in source order.
pub fn parse(source: &str) -> (Module<'_>, Vec<Diagnostic>) {
    if source.len() >= u32::MAX as usize {
        let span = Span::new(0, 0);
        return (
            Module::default(),
            vec![Diagnostic::error(span, "file is larger than 4 GiB")],
        );
    }
    let mut ctx = Ctx::new(source);
    let mut lexer = Lexer::new(source);
    let result = grammar::ModuleParser::new().parse(&mut ctx, &mut lexer);
    let mut module = match result {
        Ok(module) => module,
        Err(error) => {
            ctx.report(error);
            // Nothing was kept: the whole file reads as skipped.
            Module {
                items: vec![Item::Error(Span::new(0, source.len()))],
                ..Module::default()
            }
        }
    };
    module.comments = lexer.into_comments();
    let mut diags = ctx.diags;
    for (i, found) in ctx.missing_semicolons {
        if let Some(d) = missing_semicolon(source, &module.comments, found) {
            diags[i] = d;
        }
    }
    diags.sort_by_key(|d| d.span.start);
    (module, diags)
}

/// An error at a token that starts a later line than the token before it, where a `;` would
/// have been taken, is reported where the `;` is missing, as rustc does: just after that
/// token, at the end of the statement it would have ended. `None` keeps the error as it is.
fn missing_semicolon(source: &str, comments: &[Comment<'_>], found: Span) -> Option<Diagnostic> {
    let end = previous_token_end(source, comments, found.start as usize)?;
    if !source[end..found.start as usize].contains('\n') {
        return None;
    }
    let found_text = quote_source(&source[found.range()]);
    let d = Diagnostic::error(
        Span::new(end, end),
        format!("expected `;`, found {found_text}"),
    );
    Some(d.with_related(found, "unexpected token"))
}

/// The end of the last token before `at`, skipping blanks and comments; `None` when only
/// they precede it.
fn previous_token_end(source: &str, comments: &[Comment<'_>], at: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut at = at;
    loop {
        while at > 0 && matches!(bytes[at - 1], b' ' | b'\t' | b'\r' | b'\n' | 0x0c) {
            at -= 1;
        }
        // A comment ending here (comments are in order and do not overlap).
        let i = comments.partition_point(|c| (c.span.end as usize) < at);
        match comments.get(i) {
            Some(c) if c.span.end as usize == at && c.span.start < c.span.end => {
                at = c.span.start as usize
            }
            _ => return (at > 0).then_some(at),
        }
    }
}

/// Parses one expression, as the formatter's tests and tools that take expressions do.
pub fn parse_expr(source: &str) -> Result<Expr<'_>, Vec<Diagnostic>> {
    let mut ctx = Ctx::new(source);
    match grammar::ExprParser::new().parse(&mut ctx, Lexer::new(source)) {
        Ok(e) if ctx.diags.is_empty() => Ok(e),
        Ok(_) => Err(ctx.diags),
        Err(error) => {
            ctx.report(error);
            Err(ctx.diags)
        }
    }
}

/// State shared by the grammar's actions.
pub struct Ctx<'a> {
    source: &'a str,
    diags: Vec<Diagnostic>,
    /// After a nesting error the lexer ends the stream; the resulting end-of-file error is noise.
    too_deep: bool,
    /// See [`Module::skipped_names`].
    skipped_names: Vec<&'a str>,
    /// Errors (index into `diags`) at a token where a `;` would have been taken, with that
    /// token: [`parse`] moves those that follow a line's end to where the `;` is missing.
    missing_semicolons: Vec<(usize, Span)>,
}

type Error = ParseError<usize, Tok, Infallible>;

impl<'a> Ctx<'a> {
    fn new(source: &'a str) -> Ctx<'a> {
        Ctx {
            source,
            diags: Vec::new(),
            too_deep: false,
            skipped_names: Vec::new(),
            missing_semicolons: Vec::new(),
        }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// Reports a recovered syntax error and every lexical error among the skipped tokens;
    /// returns the span the error covers.
    pub fn recover(&mut self, e: ErrorRecovery<usize, Tok, Infallible>, at: Span) -> Span {
        let mut span = match &e.error {
            ParseError::UnrecognizedToken {
                token: (l, _, r), ..
            }
            | ParseError::ExtraToken { token: (l, _, r) } => Span::new(*l, *r),
            ParseError::UnrecognizedEof { location, .. }
            | ParseError::InvalidToken { location } => Span::new(*location, *location),
            ParseError::User { error } => match *error {},
        };
        let reported_at = span.start;
        self.report(e.error);
        for (l, tok, r) in e.dropped_tokens {
            // The token that caused the error is usually the first one dropped.
            if let (Tok::Invalid(err), false) = (tok, l as u32 == reported_at) {
                self.error(Span::new(l, r), err.message(&self.source[l..r]));
            }
            span = span.to(Span::new(l, r));
        }
        if at.end > at.start {
            span = span.to(at);
        }
        self.skip_names(span);
        span
    }

    /// Records the names in a skipped stretch (see [`Module::skipped_names`]).
    fn skip_names(&mut self, span: Span) {
        let source = self.source;
        let text = &source[span.range()];
        let names = Lexer::new(text).filter_map(|token| match token {
            Ok((l, Tok::Name, r)) => Some(&text[l..r]),
            _ => None,
        });
        self.skipped_names.extend(names);
    }

    pub fn take_skipped_names(&mut self) -> Vec<&'a str> {
        std::mem::take(&mut self.skipped_names)
    }

    fn report(&mut self, error: Error) {
        match error {
            ParseError::UnrecognizedToken {
                token: (l, tok, r),
                expected,
            } => {
                let span = Span::new(l, r);
                if let Tok::Invalid(err) = tok {
                    if err == crate::lexer::LexError::TooDeep {
                        self.too_deep = true;
                    }
                    let message = err.message(&self.source[l..r]);
                    return self.error(span, message);
                }
                let found = quote_source(&self.source[l..r]);
                let message = match describe_expected(&expected) {
                    Some(what) => format!("expected {what}, found {found}"),
                    None => format!("unexpected {found}"),
                };
                if expected.iter().any(|t| t == "\";\"") {
                    self.missing_semicolons.push((self.diags.len(), span));
                }
                self.error(span, message)
            }
            ParseError::ExtraToken { token: (l, _, r) } => {
                let found = quote_source(&self.source[l..r]);
                self.error(Span::new(l, r), format!("unexpected {found}"))
            }
            ParseError::UnrecognizedEof { location, expected } => {
                if self.too_deep {
                    return;
                }
                let message = match describe_expected(&expected) {
                    Some(what) => format!("unexpected end of file, expected {what}"),
                    None => "unexpected end of file".to_string(),
                };
                self.error(Span::new(location, location), message)
            }
            ParseError::InvalidToken { location } => {
                self.error(Span::new(location, location), "invalid token")
            }
            ParseError::User { error } => match error {},
        }
    }

    pub fn version(&mut self, text: &str, span: Span, whole: Span) -> Item<'a> {
        let parsed = text
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        match parsed {
            Some((major, minor)) => Item::Version {
                major,
                minor,
                span: whole,
            },
            None => {
                self.error(
                    span,
                    format!("expected a version `major.minor`, found `{text}`"),
                );
                Item::Error(whole)
            }
        }
    }

    /// The source text of a token.
    pub fn text(&self, span: Span) -> &'a str {
        &self.source[span.range()]
    }

    pub fn ident(&self, span: Span) -> Ident<'a> {
        Ident {
            text: self.text(span),
            span,
        }
    }

    /// An integer literal's value; a bad one is reported and reads as 0.
    pub fn int(&mut self, span: Span) -> (u64, Span) {
        let text = self.text(span);
        let digits = text.strip_suffix('U').unwrap_or(text);
        let (radix, body) = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X"))
        {
            (16, h)
        } else if let Some(b) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
            (2, b)
        } else if digits.len() > 1 && digits.starts_with('0') {
            (8, &digits[1..])
        } else {
            (10, digits)
        };
        match u64::from_str_radix(body, radix) {
            Ok(v) => (v, span),
            Err(_) if radix == 8 && body.bytes().all(|b| b.is_ascii_digit()) => {
                self.error(span, format!("invalid digit in octal literal `{text}`"));
                (0, span)
            }
            Err(_) => {
                self.error(
                    span,
                    format!("integer literal `{}` does not fit in 64 bits", short(text)),
                );
                (0, span)
            }
        }
    }

    pub fn int_expr(&mut self, span: Span) -> Expr<'a> {
        let (value, _) = self.int(span);
        Expr::Int {
            value,
            unsigned: self.text(span).ends_with('U'),
            span,
        }
    }

    /// A value that must fit in 32 bits (`.address_size`, `%r<N>` ranges).
    pub fn narrow(&mut self, (value, span): (u64, Span)) -> u32 {
        u32::try_from(value).unwrap_or_else(|_| {
            self.error(span, format!("{value} does not fit in 32 bits"));
            0
        })
    }

    pub fn hex_float(&mut self, span: Span) -> Expr<'a> {
        let text = self.text(span);
        // The lexer guarantees the digit count, so these parses cannot fail.
        if text.len() == 10 {
            Expr::F32(u32::from_str_radix(&text[2..], 16).unwrap_or(0), span)
        } else {
            Expr::F64(u64::from_str_radix(&text[2..], 16).unwrap_or(0), span)
        }
    }

    pub fn float(&mut self, span: Span) -> Expr<'a> {
        let text = self.text(span);
        match text.parse::<f64>() {
            Ok(v) => Expr::F64(v.to_bits(), span),
            Err(_) => {
                self.error(
                    span,
                    format!("invalid floating-point literal `{}`", short(text)),
                );
                Expr::Error(span)
            }
        }
    }

    /// An interior expression node, refused past [`MAX_NESTING`].
    pub fn node(&mut self, kind: NodeKind<'a>, span: Span) -> Expr<'a> {
        let node = Node::new(kind, span);
        if node.children().any(|c| matches!(c, Expr::Error(_))) {
            return Expr::Error(span);
        }
        if u32::from(node.depth) > MAX_NESTING {
            self.error(
                span,
                format!("expression nested deeper than {MAX_NESTING} levels"),
            );
            return Expr::Error(span);
        }
        Expr::Node(Box::new(node))
    }

    pub fn binary(&mut self, op: BinaryOp, a: Expr<'a>, b: Expr<'a>, span: Span) -> Expr<'a> {
        self.node(NodeKind::Binary(op, a, b), span)
    }

    pub fn prefix(&mut self, ops: Vec<(UnaryOp, Span)>, operand: Expr<'a>) -> Expr<'a> {
        if ops.len() as u32 + u32::from(operand.depth()) > MAX_NESTING {
            let span = ops[0].1.to(operand.span());
            self.error(
                span,
                format!("expression nested deeper than {MAX_NESTING} levels"),
            );
            return Expr::Error(span);
        }
        ops.into_iter().rev().fold(operand, |e, (op, at)| {
            let span = at.to(e.span());
            self.node(NodeKind::Unary(op, e), span)
        })
    }
}

fn short(text: &str) -> &str {
    &text[..crate::diag::floor_char_boundary(text, 40)]
}

fn quote_source(text: &str) -> String {
    let s = short(text);
    if s.len() < text.len() {
        format!("`{s}...`")
    } else {
        format!("`{s}`")
    }
}

/// Turns lalrpop's expected-terminal list into words; `None` when it is too long to help.
/// Operators are left out: after an operand almost anything binary could follow, and listing
/// them hides the `;` or `,` the writer most likely forgot.
fn describe_expected(expected: &[String]) -> Option<String> {
    const OPERATORS: &[&str] = &[
        "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "==", "!=", "<", ">", "<=",
        ">=", "?", "!", "~",
    ];
    let words: Vec<String> = expected
        .iter()
        .filter_map(|t| {
            let unquoted = t.trim_matches('"');
            if t.starts_with('"') {
                (!OPERATORS.contains(&unquoted)).then(|| format!("`{unquoted}`"))
            } else {
                Some(
                    match unquoted {
                        "NAME" => "a name",
                        "INT" => "an integer",
                        "DOT" => "a `.name`",
                        "PERF" => "a performance directive",
                        "STR" => "a string",
                        "FLOAT" | "HEXFLOAT" => "a number",
                        other => other,
                    }
                    .to_string(),
                )
            }
        })
        .collect();
    let mut words: Vec<String> = words.into_iter().fold(Vec::new(), |mut v, w| {
        if !v.contains(&w) {
            v.push(w);
        }
        v
    });
    match words.len() {
        0 => None,
        1 => words.pop(),
        2..=4 => {
            let last = words.pop()?;
            Some(format!("{} or {last}", words.join(", ")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_arithmetic_parses_like_an_expression() {
        // Operands have their own tiers so that a bare name or integer reduces straight to an
        // operand; precedence and associativity must still match the expression grammar.
        for text in [
            "x",
            "7",
            "a+b*c",
            "a*b+c",
            "a-b-c",
            "a*b/c % d",
            "-4+x",
            "x+-4",
            "~1+2*-x",
            "(a+b)*c",
            "a+(b*c)",
            "x*2+1*y-z",
            "!p",
            "0f3F800000",
            "1.5",
            "sym+8",
        ] {
            let source = format!(".entry k {{ mov.u32 %r1, {text}; }}");
            let (module, diags) = parse(&source);
            assert!(diags.is_empty(), "{text}: {diags:?}");
            let Item::Function(f) = &module.items[0] else {
                panic!()
            };
            let Statement::Instr(ins) = &f.body.as_ref().unwrap().statements[0] else {
                panic!()
            };
            let Operand::Expr(got) = &ins.operands[1] else {
                panic!("{text}: {:?}", ins.operands[1])
            };
            assert_eq!(*got, parse_expr(text).unwrap(), "{text}");
        }
    }

    const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn a_missing_semicolon_is_reported_after_the_statement_it_would_end() {
        // The next statement starts a later line, past a comment of each kind.
        let body =
            "\tmov.u32 %r1, %r2 // no `;`\n\t/* a\n comment */\n\n\t@%p1 bra $L1;\n$L1:\n\tret;\n";
        let source = format!("{HEADER}.entry k ()\n{{\n{body}}}\n");
        let (_, diags) = parse(&source);
        assert_eq!(diags.len(), 1, "{diags:?}");
        let d = &diags[0];
        assert_eq!(d.message, "expected `;`, found `@`");
        let end = source.find("%r2").unwrap() + 3;
        assert_eq!(d.span.range(), end..end);
        let (at, note) = d.related.as_ref().unwrap();
        assert_eq!(
            at.range(),
            source.find('@').unwrap()..source.find('@').unwrap() + 1
        );
        assert_eq!(note, "unexpected token");

        // At module level, where the expected list is too long to spell out.
        let source = format!("{HEADER}.global .u32 g\n.global .u32 h;\n");
        let (_, diags) = parse(&source);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].message, "expected `;`, found `.global`");
        let end = source.find(" g").unwrap() + 2;
        assert_eq!(diags[0].span.range(), end..end);
    }

    #[test]
    fn an_unexpected_token_on_the_same_line_is_reported_where_it_is() {
        let source = format!("{HEADER}.entry k ()\n{{\n\tadd.s32 %r1, %r2 /* c */ %r3;\n}}\n");
        let (_, diags) = parse(&source);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].message, "expected `,` or `;`, found `%r3`");
        let at = source.find("%r3").unwrap();
        assert_eq!(diags[0].span.range(), at..at + 3);
        assert!(diags[0].related.is_none());
    }

    #[test]
    fn comments_are_kept_beside_the_tree() {
        let source = "// one\n.version 7.0 /* two */ // three\r\n\t/* four\n*/.target sm_80\n";
        let (module, diags) = parse(source);
        assert!(diags.is_empty(), "{diags:?}");
        let got: Vec<_> = module
            .comments
            .iter()
            .map(|c| {
                (
                    c.text,
                    c.own_line,
                    &source[c.after as usize..c.span.start as usize],
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("// one", true, ""),
                ("/* two */", false, " "),
                ("// three", false, " /* two */ "),
                ("/* four\n*/", true, " /* two */ // three\r\n\t"),
            ]
        );
    }
}
