//! The canonical printer: one layout for every module, so that formatting is idempotent and
//! parsing the output gives back the same tree (spans aside) with the same comments.
//!
//! Layout: directives at column 0; one tab per block level; a label on its own line at its
//! block's level minus one; `mnemonic operands;` with one space after the mnemonic and `, `
//! between operands; integers in decimal, floats as `0f`/`0d` bit patterns (so decimal floats
//! come back exact); binary operators without spaces (but `a % b`, since `%b` is a name), as
//! the tree's explicit parentheses already say everything about grouping.
//!
//! Comments ([`Module::comments`]) are printed as written and in order, on the printed lines:
//! items, statements, a block's braces, a section's entries, and a function header's parts
//! (the line up to its `(`, each parameter, the `)`, each performance directive). A comment on
//! a line of its own goes on a line of its own before the printed line that follows it, at
//! the indentation of the block's statements; one after code goes at the end of the printed
//! line holding the token before it, after a space. So a comment inside a statement (between
//! operands, in an initializer) moves to the end of its line, and one that would follow a `//`
//! comment there, or that sits on a line of its own inside a statement written over several
//! lines, goes on a line of its own after it (docs/ptx-dialect.md, "`ptxas-rs fmt`").

use crate::ast::*;
use std::fmt::{self, Write};

/// Formats a module. The module should be free of syntax errors; error nodes print as
/// comments so the output still says where input was skipped.
pub fn format_module(module: &Module<'_>) -> String {
    let mut out = String::new();
    let mut p = Printer {
        out: &mut out,
        comments: &module.comments,
        next: 0,
    };
    // Writing to a String cannot fail.
    let _ = p.module(module);
    out
}

/// Formats one expression as [`format_module`] would.
pub fn format_expr(e: &Expr<'_>) -> String {
    let mut out = String::new();
    let _ = Printer {
        out: &mut out,
        comments: &[],
        next: 0,
    }
    .expr(e);
    out
}

struct Printer<'o, 'c> {
    out: &'o mut String,
    /// The module's comments, and the first not yet printed: each is printed once, in order.
    comments: &'c [Comment<'c>],
    next: usize,
}

fn tabs(level: usize) -> String {
    "\t".repeat(level)
}

fn item_start(item: &Item<'_>) -> u32 {
    match item {
        Item::Version { span, .. }
        | Item::Target { span, .. }
        | Item::AddressSize { span, .. }
        | Item::Error(span) => span.start,
        Item::File(f) => f.span.start,
        Item::Loc(l) => l.span.start,
        Item::Pragma(p) => p.span.start,
        Item::Section(s) => s.span.start,
        Item::Var(v) => v.span.start,
        Item::Function(f) => f.span.start,
    }
}

fn statement_start(s: &Statement<'_>) -> u32 {
    match s {
        Statement::Label(l) => l.span.start,
        Statement::Instr(i) => i.span.start,
        Statement::Var(v) => v.span.start,
        Statement::Block(b) => b.span.start,
        Statement::Loc(l) => l.span.start,
        Statement::Pragma(p) => p.span.start,
        Statement::CallPrototype(p) => p.label.span.start,
        Statement::Targets { label, .. } => label.span.start,
        Statement::Error(span) => span.start,
    }
}

fn entry_start(e: &SectionEntry<'_>) -> u32 {
    match e {
        SectionEntry::Label(l) => l.span.start,
        SectionEntry::Data { ty, .. } => ty.span.start,
    }
}

impl Printer<'_, '_> {
    /// Prints each comment that starts before `at` on a line of its own, `level` tabs in.
    fn leading(&mut self, at: u32, level: usize) {
        while let Some(c) = self.comments.get(self.next) {
            if c.span.start >= at {
                break;
            }
            self.out.push_str(&tabs(level));
            self.out.push_str(c.text);
            self.out.push('\n');
            self.next += 1;
        }
    }

    /// Ends the line, after the comments that follow its code on their line: those whose
    /// token before them comes before `limit` (where the next line's code starts). Nothing
    /// can follow a `//` comment on its line; what does in the source waits for the next line.
    fn end_line(&mut self, limit: u32) {
        while let Some(c) = self.comments.get(self.next) {
            if c.own_line || c.after >= limit {
                break;
            }
            self.out.push(' ');
            self.out.push_str(c.text);
            self.next += 1;
            if c.text.starts_with("//") {
                break;
            }
        }
        self.out.push('\n');
    }

    fn module(&mut self, m: &Module<'_>) -> fmt::Result {
        let mut previous_was_block = false;
        for (i, item) in m.items.iter().enumerate() {
            let is_block = matches!(item, Item::Function(_) | Item::Section(_));
            if is_block || previous_was_block {
                self.out.push('\n');
            }
            previous_was_block = is_block;
            self.leading(item_start(item), 0);
            let limit = m.items.get(i + 1).map_or(u32::MAX, item_start);
            self.item(item, limit)?;
        }
        if self.next < self.comments.len() && previous_was_block {
            self.out.push('\n');
        }
        self.leading(u32::MAX, 0);
        Ok(())
    }

    /// An item, and the comments at the end of its lines; `limit` is where the next one starts.
    fn item(&mut self, item: &Item<'_>, limit: u32) -> fmt::Result {
        match item {
            Item::Version { major, minor, .. } => write!(self.out, ".version {major}.{minor}")?,
            Item::Target { targets, .. } => {
                let names: Vec<_> = targets.iter().map(|t| t.text).collect();
                write!(self.out, ".target {}", names.join(", "))?
            }
            Item::AddressSize { bits, .. } => write!(self.out, ".address_size {bits}")?,
            Item::File(f) => {
                write!(self.out, ".file {} \"{}\"", f.index, f.path)?;
                for e in &f.extra {
                    write!(self.out, ", {e}")?;
                }
            }
            Item::Loc(l) => self.loc(l, 0)?,
            Item::Pragma(p) => self.pragma(p, 0)?,
            Item::Section(s) => return self.section(s, limit),
            Item::Var(v) => {
                self.decl(v)?;
                self.out.push(';');
            }
            Item::Function(f) => return self.function(f, limit),
            // Nothing may follow on a comment's line.
            Item::Error(_) => return writeln!(self.out, "// (syntax error)"),
        }
        self.end_line(limit);
        Ok(())
    }

    fn loc(&mut self, l: &Loc<'_>, level: usize) -> fmt::Result {
        write!(
            self.out,
            "{}.loc {} {} {}",
            tabs(level),
            l.file,
            l.line,
            l.col
        )?;
        for a in &l.attrs {
            write!(self.out, ", {}", a.name.text)?;
            for v in &a.values {
                self.out.push(' ');
                self.expr(v)?;
            }
        }
        Ok(())
    }

    fn pragma(&mut self, p: &Pragma<'_>, level: usize) -> fmt::Result {
        let values: Vec<_> = p.values.iter().map(|v| format!("\"{v}\"")).collect();
        write!(self.out, "{}.pragma {};", tabs(level), values.join(", "))
    }

    fn section(&mut self, s: &Section<'_>, limit: u32) -> fmt::Result {
        let close = s.span.end.saturating_sub(1);
        write!(self.out, ".section {}", s.name.text)?;
        self.end_line(s.entries.first().map_or(close, entry_start));
        self.out.push_str("{\n");
        for (i, e) in s.entries.iter().enumerate() {
            let next = s.entries.get(i + 1).map_or(close, entry_start);
            match e {
                SectionEntry::Label(l) => {
                    self.leading(l.span.start, 0);
                    write!(self.out, "{}:", l.text)?;
                }
                SectionEntry::Data { ty, values } => {
                    self.leading(ty.span.start, 1);
                    write!(self.out, "\t{} ", ty.text)?;
                    self.list(values, |p, v| p.expr(v))?;
                }
            }
            self.end_line(next);
        }
        self.leading(close, 1);
        self.out.push('}');
        self.end_line(limit);
        Ok(())
    }

    fn decl(&mut self, v: &VarDecl<'_>) -> fmt::Result {
        if let Some(l) = v.linkage {
            write!(self.out, "{} ", l.as_str())?;
        }
        self.out.push_str(v.space.as_str());
        for s in &v.specs {
            match s {
                DeclSpec::Word(w) => write!(self.out, " {}", w.text)?,
                DeclSpec::Align { value, .. } => write!(self.out, " .align {value}")?,
            }
        }
        self.out.push(' ');
        self.list(&v.declarators, |p, d| p.declarator(d))
    }

    fn declarator(&mut self, d: &Declarator<'_>) -> fmt::Result {
        self.out.push_str(d.name.text);
        if let Some(n) = d.range {
            write!(self.out, "<{n}>")?;
        }
        for dim in &d.dims {
            match dim {
                Some(n) => write!(self.out, "[{n}]")?,
                None => self.out.push_str("[]"),
            }
        }
        if let Some(init) = &d.init {
            self.out.push_str(" = ");
            self.init(init)?;
        }
        Ok(())
    }

    fn init(&mut self, init: &Init<'_>) -> fmt::Result {
        match init {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => {
                self.out.push('{');
                self.list(items, |p, i| p.init(i))?;
                self.out.push('}');
                Ok(())
            }
            Init::Field(name, value) => {
                write!(self.out, "{} = ", name.text)?;
                self.init(value)
            }
        }
    }

    /// A parameter list on one line (a function's return list, `.callprototype`'s lists).
    fn params(&mut self, params: &[VarDecl<'_>]) -> fmt::Result {
        self.out.push('(');
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.decl(p)?;
            if i + 1 < params.len() {
                self.out.push(',');
            }
        }
        self.out.push(')');
        Ok(())
    }

    fn function(&mut self, f: &Function<'_>, limit: u32) -> fmt::Result {
        if let Some(l) = f.linkage {
            write!(self.out, "{} ", l.as_str())?;
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if let Some(ret) = &f.ret {
            self.params(ret)?;
            self.out.push(' ');
        }
        self.out.push_str(f.name.text);
        if let Some(params) = &f.params {
            // Each parameter on its own line.
            self.out.push('(');
            if let Some(first) = params.first() {
                self.end_line(first.span.start);
                for (i, p) in params.iter().enumerate() {
                    self.leading(p.span.start, 1);
                    self.out.push('\t');
                    self.decl(p)?;
                    let next = match params.get(i + 1) {
                        Some(next) => {
                            self.out.push(',');
                            next.span.start
                        }
                        // The comments that follow the last parameter, not the `)`.
                        None => p.span.end + 1,
                    };
                    self.end_line(next);
                }
            }
            self.out.push(')');
        }
        for d in &f.directives {
            self.end_line(d.name.span.start);
            self.leading(d.name.span.start, 0);
            self.out.push_str(d.name.text);
            for (i, v) in d.values.iter().enumerate() {
                write!(self.out, "{}{v}", if i == 0 { " " } else { ", " })?;
            }
        }
        match &f.body {
            Some(body) => {
                self.end_line(body.span.start);
                self.block(body, 0, limit)
            }
            None => {
                self.out.push(';');
                self.end_line(limit);
                Ok(())
            }
        }
    }

    /// A block and the comments in it; `limit` is where the code after it starts.
    fn block(&mut self, b: &Block<'_>, level: usize, limit: u32) -> fmt::Result {
        let close = b.span.end.saturating_sub(1);
        self.leading(b.span.start, level);
        write!(self.out, "{}{{", tabs(level))?;
        self.end_line(b.statements.first().map_or(close, statement_start));
        for (i, s) in b.statements.iter().enumerate() {
            let next = b.statements.get(i + 1).map_or(close, statement_start);
            self.leading(statement_start(s), level + 1);
            self.statement(s, level + 1, next)?;
        }
        self.leading(close, level + 1);
        write!(self.out, "{}}}", tabs(level))?;
        self.end_line(limit);
        Ok(())
    }

    /// A statement, and the comments at the end of its line; `limit` is where the next one
    /// starts.
    fn statement(&mut self, s: &Statement<'_>, level: usize, limit: u32) -> fmt::Result {
        match s {
            Statement::Label(l) => write!(self.out, "{}{}:", tabs(level - 1), l.text)?,
            Statement::Instr(i) => {
                self.out.push_str(&tabs(level));
                self.instruction(i)?;
                self.out.push(';');
            }
            Statement::Var(v) => {
                self.out.push_str(&tabs(level));
                self.decl(v)?;
                self.out.push(';');
            }
            Statement::Block(b) => return self.block(b, level, limit),
            Statement::Loc(l) => self.loc(l, level)?,
            Statement::Pragma(p) => self.pragma(p, level)?,
            Statement::CallPrototype(p) => {
                write!(
                    self.out,
                    "{}{}: .callprototype ",
                    tabs(level - 1),
                    p.label.text
                )?;
                if let Some(ret) = &p.ret {
                    self.params(ret)?;
                    self.out.push(' ');
                }
                self.out.push_str("_ ");
                self.params(&p.params)?;
                if p.noreturn {
                    self.out.push_str(" .noreturn");
                }
                self.out.push(';');
            }
            Statement::Targets {
                label,
                kind,
                targets,
            } => {
                let names: Vec<_> = targets.iter().map(|t| t.text).collect();
                write!(
                    self.out,
                    "{}{}: {} {};",
                    tabs(level - 1),
                    label.text,
                    kind.text,
                    names.join(", ")
                )?
            }
            // Nothing may follow on a comment's line.
            Statement::Error(_) => return writeln!(self.out, "{}// (syntax error)", tabs(level)),
        }
        self.end_line(limit);
        Ok(())
    }

    fn instruction(&mut self, i: &Instruction<'_>) -> fmt::Result {
        if let Some(g) = &i.guard {
            write!(
                self.out,
                "@{}{} ",
                if g.negated { "!" } else { "" },
                g.pred.text
            )?;
        }
        self.out.push_str(i.mnemonic.text);
        if !i.operands.is_empty() {
            self.out.push(' ');
            self.list(&i.operands, |p, o| p.operand(o))?;
        }
        Ok(())
    }

    fn operand(&mut self, o: &Operand<'_>) -> fmt::Result {
        match o {
            Operand::Expr(e) => self.expr(e),
            Operand::Vector(items, _) => self.braced(items),
            Operand::Address(parts, _) => {
                self.out.push('[');
                self.list(parts, |p, part| match part {
                    AddressPart::Expr(e) => p.expr(e),
                    AddressPart::Vector(items, _) => p.braced(items),
                })?;
                self.out.push(']');
                Ok(())
            }
            Operand::PredPair(pair) => {
                self.expr(&pair[0])?;
                self.out.push('|');
                self.expr(&pair[1])
            }
            Operand::List(items, _) => {
                self.out.push('(');
                self.list(items, |p, e| p.expr(e))?;
                self.out.push(')');
                Ok(())
            }
        }
    }

    fn braced(&mut self, items: &[Expr<'_>]) -> fmt::Result {
        self.out.push('{');
        self.list(items, |p, e| p.expr(e))?;
        self.out.push('}');
        Ok(())
    }

    fn list<T>(
        &mut self,
        items: &[T],
        mut each: impl FnMut(&mut Self, &T) -> fmt::Result,
    ) -> fmt::Result {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            each(self, item)?;
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr<'_>) -> fmt::Result {
        match e {
            Expr::Name(id) => {
                self.out.push_str(id.text);
                Ok(())
            }
            Expr::Int {
                value, unsigned, ..
            } => {
                write!(self.out, "{value}{}", if *unsigned { "U" } else { "" })
            }
            Expr::F32(bits, _) => write!(self.out, "0f{bits:08X}"),
            Expr::F64(bits, _) => write!(self.out, "0d{bits:016X}"),
            Expr::Error(_) => self.out.write_str("/* error */0"),
            Expr::Node(n) => match &n.kind {
                NodeKind::Unary(op, x) => {
                    self.out.push_str(op.as_str());
                    self.expr(x)
                }
                NodeKind::Binary(op, l, r) => {
                    self.expr(l)?;
                    // `5%3` would lex as `5` and the register name `%3`.
                    if *op == BinaryOp::Rem {
                        self.out.push_str(" % ");
                    } else {
                        self.out.push_str(op.as_str());
                    }
                    self.expr(r)
                }
                NodeKind::Conditional(c, t, f) => {
                    self.expr(c)?;
                    self.out.push_str(" ? ");
                    self.expr(t)?;
                    self.out.push_str(" : ");
                    self.expr(f)
                }
                NodeKind::Paren(x) => {
                    self.out.push('(');
                    self.expr(x)?;
                    self.out.push(')');
                    Ok(())
                }
                NodeKind::Call(f, x) => {
                    write!(self.out, "{}(", f.text)?;
                    self.expr(x)?;
                    self.out.push(')');
                    Ok(())
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lexer::Lexer, parse, parse_expr};
    use proptest::prelude::*;

    /// Formats a clean module, checks that the output parses back to the same tree with the
    /// same comments and formats to itself, and returns it.
    fn format_checked(source: &str) -> Result<String, TestCaseError> {
        let (module, diags) = parse(source);
        prop_assert!(diags.is_empty(), "{diags:?}\n{source}");
        let formatted = format_module(&module);
        let (again, diags) = parse(&formatted);
        prop_assert!(diags.is_empty(), "{diags:?}\n{formatted}");
        let texts = |m: &Module<'_>| m.comments.iter().map(|c| c.text.to_string()).collect();
        let (before, after): (Vec<String>, Vec<String>) = (texts(&module), texts(&again));
        prop_assert_eq!(before, after, "comments changed:\n{}", formatted);
        prop_assert!(again == module, "tree changed:\n{formatted}");
        prop_assert_eq!(format_module(&again), formatted.clone(), "not idempotent");
        Ok(formatted)
    }

    #[test]
    fn comments_stay_on_their_own_lines_or_at_the_ends_of_lines() {
        let source = "// header
/* a block
   comment */
.version 7.0 // the version
.target sm_80
.address_size 64 /* a */ /* b */ // c

/* before g */ .global .u32 g[2] = {1, // inside the initializer
\t2}; // after g

// before the function
.visible .entry k( // after the parenthesis
\t.param .u64 p, // the first parameter
\t.param .u32 n /* the last */
) // after the parameters
.maxntid 256, 1, 1 // a directive
{ // after the brace
\t.reg .b32 %r<4>; // registers
\t\t// before mov
\tmov.u32 %r1, /* between operands */ %r2; // after mov
\tadd.s32 %r1, // line one
\t\t%r2, // line two
\t\t%r3; // line three
$L1: // a label
\t{ /* inner */
\t\tret; // inner ret
\t\t// end of inner
\t} // inner close
\t// end of body
} // after the function
.section .debug_abbrev
{
.b8 1 // Abbreviation Code
// before a label
l: // the label
.b32 2
}
// end of file";
        let formatted = format_checked(source).unwrap();
        assert_eq!(
            formatted,
            "// header
/* a block
   comment */
.version 7.0 // the version
.target sm_80
.address_size 64 /* a */ /* b */ // c
/* before g */
.global .u32 g[2] = {1, 2}; // inside the initializer

// after g
// before the function
.visible .entry k( // after the parenthesis
\t.param .u64 p, // the first parameter
\t.param .u32 n /* the last */
) // after the parameters
.maxntid 256, 1, 1 // a directive
{ // after the brace
\t.reg .b32 %r<4>; // registers
\t// before mov
\tmov.u32 %r1, %r2; /* between operands */ // after mov
\tadd.s32 %r1, %r2, %r3; // line one
\t// line two
\t// line three
$L1: // a label
\t{ /* inner */
\t\tret; // inner ret
\t\t// end of inner
\t} // inner close
\t// end of body
} // after the function

.section .debug_abbrev
{
\t.b8 1 // Abbreviation Code
// before a label
l: // the label
\t.b32 2
}

// end of file
"
        );
    }

    /// A clean module using every construct whose lines carry comments.
    const PLAIN: &str = ".version 7.0
.target sm_80
.address_size 64
.global .u32 g[2] = {1, 2};
.section .debug_info
{
.b8 1
l:
.b32 2, 3
}
.func (.param .b32 r) f (.param .b32 a, .param .b32 b) .noreturn
{
\t.reg .b32 %r<4>;
\tld.param.b32 %r1, [a];
$L1:
\t{
\t\tadd.s32 %r1, %r1, 1;
\t}
\t@%p1 bra $L1;
\tret;
}
.extern .func x ()
;
.entry k (.param .u64 p) .maxntid 1, 1, 1
{
\tret;
}
";

    proptest! {
        #[test]
        fn comments_anywhere_between_tokens_survive_formatting(
            inserts in prop::collection::vec((any::<prop::sample::Index>(), 0..4u8), 0..16)
        ) {
            // Every place between two tokens (and the ends of the file).
            let mut places: Vec<usize> = vec![0, PLAIN.len()];
            for token in Lexer::new(PLAIN) {
                let (l, _, r) = token.unwrap();
                places.extend([l, r]);
            }
            let mut inserts: Vec<(usize, u8)> =
                inserts.iter().map(|(i, kind)| (*i.get(&places), *kind)).collect();
            inserts.sort_by_key(|&(at, _)| at);
            let mut source = String::new();
            let mut from = 0;
            for (n, (at, kind)) in inserts.iter().enumerate() {
                source.push_str(&PLAIN[from..*at]);
                from = *at;
                source.push_str(&match kind {
                    0 => format!(" /* b{n} */ "),
                    1 => format!(" // l{n}\n"),
                    2 => format!("\n/* m{n}\n  more */\n"),
                    _ => format!("\n\t// o{n}\n"),
                });
            }
            source.push_str(&PLAIN[from..]);
            format_checked(&source)?;
        }
    }

    /// Expression source text as people write it, with spaces that formatting removes.
    fn expression() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            "[a-z_$][a-z0-9_$]{0,6}",
            "%r[0-9]{1,3}",
            any::<u64>().prop_map(|v| v.to_string()),
            any::<u32>().prop_map(|v| format!("0x{v:x}U")),
            (0u32..512).prop_map(|v| format!("0{v:o}")),
            (0u32..64).prop_map(|v| format!("0b{v:b}")),
            any::<u32>().prop_map(|b| format!("0f{b:08X}")),
            any::<u64>().prop_map(|b| format!("0d{b:016x}")),
            (0.0f64..1e9).prop_map(|f| format!("{f:.4}")),
        ];
        let binary = prop::sample::select(vec![
            "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|",
            "&&", "||",
        ]);
        let unary = prop::sample::select(vec!["-", "!", "~"]);
        leaf.prop_recursive(5, 48, 3, move |inner| {
            prop_oneof![
                (inner.clone(), binary.clone(), inner.clone())
                    .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
                (unary.clone(), inner.clone()).prop_map(|(op, a)| format!("{op}{a}")),
                inner.clone().prop_map(|a| format!("( {a} )")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, t, f)| format!("{c} ? {t} : {f}")),
                ("[a-z]{1,8}", inner).prop_map(|(f, a)| format!("{f}({a})")),
            ]
        })
    }

    proptest! {
        #[test]
        fn formatted_expressions_parse_back_to_the_same_tree(source in expression()) {
            let parsed = parse_expr(&source).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
            let formatted = format_expr(&parsed);
            let again = parse_expr(&formatted)
                .map_err(|d| TestCaseError::fail(format!("`{formatted}` does not parse: {d:?}")))?;
            prop_assert_eq!(&again, &parsed, "through `{}`", formatted);
            prop_assert_eq!(format_expr(&again), formatted);
        }
    }
}
