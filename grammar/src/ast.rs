//! The typed syntax tree of a PTX module.
//!
//! Names and literals borrow from the source text, so parsing allocates only the tree's own
//! vectors. Every node that a diagnostic can point at carries a [`Span`]. Spans never take part
//! in equality (as in `syn`): two trees are equal when they say the same thing, which is what
//! the formatter's round-trip test compares.

use std::fmt;

/// A byte range in the source text.
#[derive(Clone, Copy, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        // Sources are capped below 4 GiB by the parser's entry point, so this never truncates.
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl PartialEq for Span {
    /// Always true: positions are not part of what a tree means.
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A name as written: an identifier, register, label, special register or `.section` name.
/// Dotted suffixes stay attached (`%tid.x`, `%r1.h0`); [`Ident::split_suffix`] separates them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ident<'a> {
    pub text: &'a str,
    pub span: Span,
}

impl<'a> Ident<'a> {
    /// `%r1.b0` -> (`%r1`, Some(`.b0`)); `%tid.x` -> (`%tid`, Some(`.x`)).
    pub fn split_suffix(&self) -> (&'a str, Option<&'a str>) {
        // A byte search: names are short, and this runs for every operand.
        match self.text.bytes().position(|b| b == b'.') {
            Some(i) => (&self.text[..i], Some(&self.text[i..])),
            None => (self.text, None),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module<'a> {
    pub items: Vec<Item<'a>>,
    /// The names in stretches the parser skipped after syntax errors. The checker does not
    /// report them undeclared: the skipped text may have declared them.
    pub skipped_names: Vec<&'a str>,
    /// Every comment, in source order, beside the tree rather than in it: the formatter puts
    /// each back before the item or statement that follows it or at the end of the line it
    /// ends. Two modules are equal only if their comments' texts are.
    pub comments: Vec<Comment<'a>>,
}

/// A `// line` comment (without the blanks that end its line) or a `/* block */` comment.
#[derive(Clone, Copy, Debug)]
pub struct Comment<'a> {
    pub text: &'a str,
    pub span: Span,
    /// The end of the token before the comment (0 when there is none).
    pub after: u32,
    /// Whether a line ends between the token or comment before and this comment (true for
    /// a comment at the start of the file).
    pub own_line: bool,
}

impl PartialEq for Comment<'_> {
    /// The text only: where a comment sits is layout, like a span.
    fn eq(&self, other: &Comment<'_>) -> bool {
        self.text == other.text
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    Version {
        major: u32,
        minor: u32,
        span: Span,
    },
    Target {
        targets: Vec<Ident<'a>>,
        span: Span,
    },
    AddressSize {
        bits: u32,
        span: Span,
    },
    File(FileDirective<'a>),
    Loc(Loc<'a>),
    Pragma(Pragma<'a>),
    Section(Section<'a>),
    Var(VarDecl<'a>),
    Function(Box<Function<'a>>),
    /// A syntax error was reported for this stretch of the source.
    Error(Span),
}

/// `.file 1 "name.cu" {, timestamp, size}`
#[derive(Clone, Debug, PartialEq)]
pub struct FileDirective<'a> {
    pub index: u64,
    pub path: &'a str,
    pub extra: Vec<u64>,
    pub span: Span,
}

/// `.loc file line col {, function_name sym {+off}, inlined_at file line col}`
#[derive(Clone, Debug, PartialEq)]
pub struct Loc<'a> {
    pub file: u64,
    pub line: u64,
    pub col: u64,
    pub attrs: Vec<LocAttr<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LocAttr<'a> {
    pub name: Ident<'a>,
    pub values: Vec<Expr<'a>>,
}

/// `.pragma "a", "b";`: the strings without their quotes.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma<'a> {
    pub values: Vec<&'a str>,
    pub span: Span,
}

/// `.section .debug_info { .b32 1 .b8 2, 3 label: }` as `-g` output carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct Section<'a> {
    pub name: Ident<'a>,
    pub entries: Vec<SectionEntry<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SectionEntry<'a> {
    Label(Ident<'a>),
    /// `.b8`/`.b16`/`.b32`/`.b64` and the values; a value may name another section.
    Data {
        ty: Ident<'a>,
        values: Vec<Expr<'a>>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

impl Linkage {
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Param,
    Local,
    Shared,
    Global,
    Const,
    /// Pre-2.0 `.tex` state space (texture references declared as `.tex .u64 t;`).
    Tex,
}

impl StateSpace {
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Param => ".param",
            StateSpace::Local => ".local",
            StateSpace::Shared => ".shared",
            StateSpace::Global => ".global",
            StateSpace::Const => ".const",
            StateSpace::Tex => ".tex",
        }
    }
}

/// A declaration: `.reg .b32 %r<5>;`, `.shared .align 4 .b8 buf[256];`, a parameter, ...
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    pub linkage: Option<Linkage>,
    pub space: StateSpace,
    /// Everything between the state space and the first name, in source order: the type,
    /// `.v2`/`.v4`, `.align N`, `.ptr`, the pointee space of `.ptr`. Checked, not trusted.
    pub specs: Vec<DeclSpec<'a>>,
    pub declarators: Vec<Declarator<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeclSpec<'a> {
    /// A generic `.name`: a type, a vector width, `.ptr`, a pointee space, ...
    Word(Ident<'a>),
    Align {
        value: u64,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declarator<'a> {
    pub name: Ident<'a>,
    /// `%r<100>`: declares `%r0` .. `%r99`.
    pub range: Option<u32>,
    /// `[4][8]`; `None` is `[]` (size from the initializer or, for `.extern .shared`, unsized).
    pub dims: Vec<Option<u64>>,
    pub init: Option<Init<'a>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init<'a> {
    Expr(Expr<'a>),
    List(Vec<Init<'a>>, Span),
    /// `name = value` inside a `.samplerref`/`.texref` initializer block.
    Field(Ident<'a>, Box<Init<'a>>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    pub linkage: Option<Linkage>,
    pub kind: FunctionKind,
    pub name: Ident<'a>,
    /// `.func (.param .b32 r) name ...`: `None` when there is no return list.
    pub ret: Option<Vec<VarDecl<'a>>>,
    /// `None` when there is no parameter list at all (`.entry foo {`).
    pub params: Option<Vec<VarDecl<'a>>>,
    pub directives: Vec<FunctionDirective<'a>>,
    /// `None` for a declaration (`.extern .func foo (...);`).
    pub body: Option<Block<'a>>,
    pub span: Span,
}

/// `.noreturn`, `.maxntid 256, 1, 1`, `.reqntid`, `.minnctapersm`, `.maxnreg`, ...
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDirective<'a> {
    pub name: Ident<'a>,
    pub values: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block<'a> {
    pub statements: Vec<Statement<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    Label(Ident<'a>),
    Instr(Instruction<'a>),
    Var(VarDecl<'a>),
    Block(Block<'a>),
    Loc(Loc<'a>),
    Pragma(Pragma<'a>),
    /// `label: .callprototype (.param .b32 _) _ (.param .b32 _);`
    CallPrototype(Box<CallPrototype<'a>>),
    /// `label: .branchtargets a, b;` and `label: .calltargets f, g;`
    Targets {
        label: Ident<'a>,
        kind: Ident<'a>,
        targets: Vec<Ident<'a>>,
    },
    Error(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype<'a> {
    pub label: Ident<'a>,
    pub ret: Option<Vec<VarDecl<'a>>>,
    pub params: Vec<VarDecl<'a>>,
    pub noreturn: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Guard<'a> {
    pub negated: bool,
    pub pred: Ident<'a>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    pub guard: Option<Guard<'a>>,
    /// The whole dotted mnemonic: `ld.global.u32`.
    pub mnemonic: Ident<'a>,
    pub operands: Vec<Operand<'a>>,
    pub span: Span,
}

impl<'a> Instruction<'a> {
    /// The opcode without modifiers: `ld` for `ld.global.u32`.
    pub fn opcode(&self) -> &'a str {
        self.mnemonic.split_suffix().0
    }

    /// The modifiers in order, each with its leading dot: `.global`, `.u32`.
    pub fn modifiers(&self) -> Modifiers<'a> {
        Modifiers {
            rest: self.mnemonic.split_suffix().1.unwrap_or(""),
        }
    }
}

/// Iterator over an instruction's modifiers; see [`Instruction::modifiers`].
#[derive(Clone)]
pub struct Modifiers<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Modifiers<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self.rest.as_bytes()[1..]
            .iter()
            .position(|&b| b == b'.')
            .map_or(self.rest.len(), |i| i + 1);
        let (m, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(m)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand<'a> {
    /// A register, symbol, label, immediate or constant expression (incl. `-a`, `!p`).
    Expr(Expr<'a>),
    /// `{a, b, c, d}`
    Vector(Vec<Expr<'a>>, Span),
    /// `[a]`, `[a+4]`, `[surf, {x, y}]`, `[tex, sampler, {x, y}]`
    Address(Vec<AddressPart<'a>>, Span),
    /// `%p|%q`
    PredPair(Box<[Expr<'a>; 2]>),
    /// `(a, b)` in `call`; a single parenthesised name is an [`ExprKind::Paren`].
    List(Vec<Expr<'a>>, Span),
}

impl Operand<'_> {
    pub fn span(&self) -> Span {
        match self {
            Operand::Expr(e) => e.span(),
            Operand::Vector(_, s) | Operand::Address(_, s) | Operand::List(_, s) => *s,
            Operand::PredPair(p) => p[0].span().to(p[1].span()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum AddressPart<'a> {
    Expr(Expr<'a>),
    Vector(Vec<Expr<'a>>, Span),
}

/// An expression: 32 bytes, with interior nodes boxed, because the parser moves these often.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr<'a> {
    /// A register, symbol, label or special register, with any dotted suffix.
    Name(Ident<'a>),
    /// An integer literal's value; `unsigned` records a `U` suffix.
    Int {
        value: u64,
        unsigned: bool,
        span: Span,
    },
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32, Span),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float literal: the bits of an f64.
    F64(u64, Span),
    Node(Box<Node<'a>>),
    /// Unusable (too deep, a bad literal); a diagnostic was reported.
    Error(Span),
}

/// An interior expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node<'a> {
    pub kind: NodeKind<'a>,
    pub span: Span,
    /// Nesting depth; bounded by [`MAX_NESTING`].
    pub depth: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind<'a> {
    Unary(UnaryOp, Expr<'a>),
    Binary(BinaryOp, Expr<'a>, Expr<'a>),
    Conditional(Expr<'a>, Expr<'a>, Expr<'a>),
    Paren(Expr<'a>),
    /// `generic(sym)` and similar operator-like calls in initializers.
    Call(Ident<'a>, Expr<'a>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

impl UnaryOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOp {
    pub fn as_str(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }

    /// The operator on two integer constants, or `None` when it has no integer value
    /// (overflow, division by zero, a comparison or logical operator).
    pub fn apply(self, a: i128, b: i128) -> Option<i128> {
        use BinaryOp::*;
        Some(match self {
            Add => a.checked_add(b)?,
            Sub => a.checked_sub(b)?,
            Mul => a.checked_mul(b)?,
            Div => a.checked_div(b)?,
            Rem => a.checked_rem(b)?,
            Shl => a.checked_shl(u32::try_from(b).ok()?)?,
            Shr => a.checked_shr(u32::try_from(b).ok()?)?,
            BitAnd => a & b,
            BitOr => a | b,
            BitXor => a ^ b,
            _ => return None,
        })
    }

    /// Binding strength, C's order; higher binds tighter.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Gt | Le | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }
}

/// The deepest expression or scope nesting the parser builds. Deeper input is reported, not
/// parsed, so that no later recursive pass (checking, formatting, dropping) can overflow the
/// stack.
pub const MAX_NESTING: u32 = 256;

impl<'a> Expr<'a> {
    pub fn span(&self) -> Span {
        match self {
            Expr::Name(i) => i.span,
            Expr::Int { span, .. }
            | Expr::F32(_, span)
            | Expr::F64(_, span)
            | Expr::Error(span) => *span,
            Expr::Node(n) => n.span,
        }
    }

    /// Nesting depth, 1 for a leaf.
    pub fn depth(&self) -> u16 {
        match self {
            Expr::Node(n) => n.depth,
            _ => 1,
        }
    }

    /// The register or symbol this expression names, if it is a plain name.
    pub fn as_name(&self) -> Option<&Ident<'a>> {
        match self {
            Expr::Name(i) => Some(i),
            _ => None,
        }
    }
}

impl<'a> Node<'a> {
    /// Builds a node over its children; the caller checks the depth against [`MAX_NESTING`].
    pub fn new(kind: NodeKind<'a>, span: Span) -> Node<'a> {
        let depth = match &kind {
            NodeKind::Unary(_, x) | NodeKind::Paren(x) | NodeKind::Call(_, x) => x.depth(),
            NodeKind::Binary(_, l, r) => l.depth().max(r.depth()),
            NodeKind::Conditional(c, t, f) => c.depth().max(t.depth()).max(f.depth()),
        };
        Node {
            kind,
            span,
            depth: depth.saturating_add(1),
        }
    }

    pub fn children(&self) -> impl Iterator<Item = &Expr<'a>> {
        let (a, b, c) = match &self.kind {
            NodeKind::Unary(_, x) | NodeKind::Paren(x) | NodeKind::Call(_, x) => {
                (Some(x), None, None)
            }
            NodeKind::Binary(_, l, r) => (Some(l), Some(r), None),
            NodeKind::Conditional(x, y, z) => (Some(x), Some(y), Some(z)),
        };
        a.into_iter().chain(b).chain(c)
    }
}
