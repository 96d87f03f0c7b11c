//! The logos lexer.
//!
//! Structural directives (`.entry`, `.reg`, `.section`, ...) are keywords because the grammar
//! builds on them. Every other `.name` (types, modifiers, section names) is one generic
//! [`Tok::Dot`] token, and a dotted mnemonic such as `ld.global.v4.f32` or `%tid.x` is one
//! [`Tok::Name`]: PTX identifiers never contain dots, so the suffixes are split off later and
//! checked against tables instead of each being a token (see STYLE.md on ZLUDA's grammar).

use crate::ast::{Comment, Span, MAX_NESTING};
use logos::{FilterResult, Logos};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LexError {
    #[default]
    UnexpectedChar,
    UnterminatedComment,
    UnterminatedString,
    TooDeep,
}

impl LexError {
    pub fn message(self, text: &str) -> String {
        match self {
            LexError::UnexpectedChar => match text.chars().next() {
                Some('`') => "unexpected character '`'".to_string(),
                Some(c) if !c.is_control() => format!("unexpected character `{c}`"),
                Some(c) => format!("unexpected character U+{:04X}", c as u32),
                None => "unexpected input".to_string(),
            },
            LexError::UnterminatedComment => "unterminated block comment".to_string(),
            LexError::UnterminatedString => "unterminated string literal".to_string(),
            LexError::TooDeep => format!("brackets nested deeper than {MAX_NESTING} levels"),
        }
    }
}

/// The comments the lexer skipped, kept on the side for the formatter and for placing
/// diagnostics between tokens; in source order.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    comments: Vec<RawComment>,
    /// The end of the last token produced, if any.
    last_token: Option<u32>,
}

/// A comment's position and surroundings; [`Lexer::into_comments`] adds its text.
#[derive(Clone, Copy, Debug)]
struct RawComment {
    span: (u32, u32),
    after: u32,
    own_line: bool,
}

/// Records the comment the lexer is at, `start..end`.
fn record_comment(lex: &mut logos::Lexer<'_, Tok>, end: usize) {
    let start = lex.span().start;
    let extras = &lex.extras;
    // The end of whatever came last, token or comment.
    let previous = match (extras.last_token, extras.comments.last()) {
        (Some(t), Some(c)) => Some(t.max(c.span.1)),
        (t, c) => t.or(c.map(|c| c.span.1)),
    };
    let own_line = previous.is_none_or(|p| lex.source()[p as usize..start].contains('\n'));
    let after = extras.last_token.unwrap_or(0);
    lex.extras.comments.push(RawComment {
        span: (start as u32, end as u32),
        after,
        own_line,
    });
}

fn block_comment(lex: &mut logos::Lexer<'_, Tok>) -> FilterResult<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            record_comment(lex, lex.span().end);
            FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            FilterResult::Error(LexError::UnterminatedComment)
        }
    }
}

fn line_comment(lex: &mut logos::Lexer<'_, Tok>) -> logos::Skip {
    let rest = lex.remainder();
    lex.bump(rest.find('\n').unwrap_or(rest.len()));
    // The comment without the blanks before the line's end (a CRLF's `\r` among them), so
    // that what the formatter prints back is the same comment.
    let text = lex.slice().trim_end_matches([' ', '\t', '\r', '\x0c']);
    record_comment(lex, lex.span().start + text.len());
    logos::Skip
}

fn unterminated_string(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::UnterminatedString)
}

#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(extras = Extras)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    /// Never produced: the callbacks skip comments, recording them in [`Extras`] (or report
    /// an unterminated one).
    #[token("/*", block_comment)]
    #[token("//", line_comment)]
    Comment,

    #[token(".version")]
    Version,
    #[token(".target")]
    Target,
    #[token(".address_size")]
    AddressSize,
    #[token(".file")]
    File,
    #[token(".loc")]
    Loc,
    #[token(".section")]
    Section,
    #[token(".pragma")]
    Pragma,
    #[token(".visible")]
    Visible,
    #[token(".extern")]
    Extern,
    #[token(".weak")]
    Weak,
    #[token(".common")]
    Common,
    #[token(".entry")]
    Entry,
    #[token(".func")]
    Func,
    #[token(".callprototype")]
    CallPrototype,
    #[token(".calltargets")]
    CallTargets,
    #[token(".branchtargets")]
    BranchTargets,
    #[token(".noreturn")]
    NoReturn,
    #[token(".reg")]
    Reg,
    #[token(".param")]
    Param,
    #[token(".local")]
    Local,
    #[token(".shared")]
    Shared,
    #[token(".global")]
    Global,
    #[token(".const")]
    Const,
    #[token(".tex")]
    Tex,
    #[token(".align")]
    Align,
    /// `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnctapersm`, `.maxnreg`, `.maxclusterrank`,
    /// `.reqnctapercluster`, `.explicitcluster`: performance-tuning directives of a function.
    #[regex(r"\.(maxntid|reqntid|minnctapersm|maxnctapersm|maxnreg|maxclusterrank|reqnctapercluster|explicitcluster)")]
    Perf,

    /// Any other `.name`.
    #[regex(r"\.[A-Za-z_$][A-Za-z0-9_$]*(::[A-Za-z0-9_$]+)*")]
    Dot,
    /// An identifier, possibly with dotted suffixes: `ld.global.u32`, `%r1`, `%tid.x`, `_`.
    /// Modifiers may carry `::` qualifiers (`.L2::evict_last`, `.shared::cta`).
    #[regex(r"([A-Za-z_$][A-Za-z0-9_$]*|%[A-Za-z0-9_$]+)(\.[A-Za-z0-9_$]+(::[A-Za-z0-9_$]+)*)*")]
    Name,
    /// Decimal, hex (`0x`), octal (leading `0`) or binary (`0b`) integer, optional `U` suffix.
    #[regex(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)U?")]
    Int,
    /// `0f3F800000` (f32 bits) or `0d3FF0000000000000` (f64 bits).
    #[regex(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}")]
    HexFloat,
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")]
    Float,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    #[regex(r#""([^"\\\n]|\\[^\n])*"#, unterminated_string)]
    UnterminatedStr,

    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("&&")]
    AndAnd,
    #[token("|")]
    Pipe,
    #[token("||")]
    OrOr,
    #[token("^")]
    Caret,
    #[token("?")]
    Question,
    #[token("=")]
    Assign,
    #[token("@")]
    At,

    /// Never produced by logos: [`Lexer`] turns a lexical error into this token, which no
    /// production accepts, so the parser reports it and recovers like from any syntax error.
    Invalid(LexError),
}

/// Lexical errors travel as [`Tok::Invalid`], so the stream itself never fails.
pub type Spanned = Result<(usize, Tok, usize), std::convert::Infallible>;

/// The token stream the parser pulls from. Besides lexing it caps bracket nesting, so that
/// pathological input (`((((...` a megabyte long) is reported instead of growing the parser's
/// stack without bound; after that error it ends the stream.
pub struct Lexer<'a> {
    inner: logos::SpannedIter<'a, Tok>,
    depth: u32,
    done: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a str) -> Lexer<'a> {
        Lexer {
            inner: Tok::lexer(source).spanned(),
            depth: 0,
            done: false,
        }
    }

    /// The comments skipped so far, in source order (all of them once the stream has ended).
    pub fn into_comments(self) -> Vec<Comment<'a>> {
        let source = self.inner.source();
        self.inner
            .extras
            .comments
            .iter()
            .map(|c| Comment {
                text: &source[c.span.0 as usize..c.span.1 as usize],
                span: Span::new(c.span.0 as usize, c.span.1 as usize),
                after: c.after,
                own_line: c.own_line,
            })
            .collect()
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Spanned;

    #[inline]
    fn next(&mut self) -> Option<Spanned> {
        if self.done {
            return None;
        }
        let (tok, span) = self.inner.next()?;
        self.inner.extras.last_token = Some(span.end as u32);
        match tok {
            Ok(tok) => {
                match tok {
                    Tok::LParen | Tok::LBracket | Tok::LBrace => {
                        self.depth += 1;
                        if self.depth > MAX_NESTING {
                            self.done = true;
                            return Some(Ok((
                                span.start,
                                Tok::Invalid(LexError::TooDeep),
                                span.end,
                            )));
                        }
                    }
                    Tok::RParen | Tok::RBracket | Tok::RBrace => {
                        self.depth = self.depth.saturating_sub(1)
                    }
                    _ => {}
                }
                Some(Ok((span.start, tok, span.end)))
            }
            Err(e) => Some(Ok((span.start, Tok::Invalid(e), span.end))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each token with its text.
    fn toks(s: &str) -> Vec<(Tok, &str)> {
        Lexer::new(s)
            .map(|t| t.unwrap())
            .map(|(l, tok, r)| (tok, &s[l..r]))
            .collect()
    }

    fn errors(s: &str) -> Vec<LexError> {
        Lexer::new(s)
            .filter_map(|t| match t.unwrap().1 {
                Tok::Invalid(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn dotted_names_and_directives() {
        assert_eq!(
            toks("ld.global.v4.f32 {%f1}, [%rd1+-4]; .reg .b32 %r<5>;"),
            vec![
                (Tok::Name, "ld.global.v4.f32"),
                (Tok::LBrace, "{"),
                (Tok::Name, "%f1"),
                (Tok::RBrace, "}"),
                (Tok::Comma, ","),
                (Tok::LBracket, "["),
                (Tok::Name, "%rd1"),
                (Tok::Plus, "+"),
                (Tok::Minus, "-"),
                (Tok::Int, "4"),
                (Tok::RBracket, "]"),
                (Tok::Semi, ";"),
                (Tok::Reg, ".reg"),
                (Tok::Dot, ".b32"),
                (Tok::Name, "%r"),
                (Tok::Lt, "<"),
                (Tok::Int, "5"),
                (Tok::Gt, ">"),
                (Tok::Semi, ";"),
            ]
        );
    }

    #[test]
    fn literals() {
        assert_eq!(
            toks("0f3F800000 0d3FF0000000000000 1.5 7.0 .5 1e3 0x1FU 017 0b101 0"),
            vec![
                (Tok::HexFloat, "0f3F800000"),
                (Tok::HexFloat, "0d3FF0000000000000"),
                (Tok::Float, "1.5"),
                (Tok::Float, "7.0"),
                (Tok::Float, ".5"),
                (Tok::Float, "1e3"),
                (Tok::Int, "0x1FU"),
                (Tok::Int, "017"),
                (Tok::Int, "0b101"),
                (Tok::Int, "0"),
            ]
        );
    }

    #[test]
    fn comments_and_errors() {
        assert_eq!(
            toks("/* a\n b */ ret; // x"),
            vec![(Tok::Name, "ret"), (Tok::Semi, ";")]
        );
        assert_eq!(errors("/* open"), vec![LexError::UnterminatedComment]);
        assert_eq!(errors("\"open"), vec![LexError::UnterminatedString]);
        assert_eq!(errors("ret # ;"), vec![LexError::UnexpectedChar]);
        assert_eq!(errors(&"(".repeat(10_000)), vec![LexError::TooDeep]);
    }
}
