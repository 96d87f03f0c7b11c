//! The canonical printer: one layout for every module, so that formatting is idempotent and
//! parsing the output gives back the same tree (spans aside).
//!
//! Layout: directives at column 0; one tab per block level; a label on its own line at its
//! block's level minus one; `mnemonic operands;` with one space after the mnemonic and `, `
//! between operands; integers in decimal, floats as `0f`/`0d` bit patterns (so decimal floats
//! come back exact); binary operators without spaces (but `a % b`, since `%b` is a name), as
//! the tree's explicit parentheses already say everything about grouping.

use crate::ast::*;
use std::fmt::{self, Write};

/// Formats a module. The module should be free of syntax errors; error nodes print as
/// comments so the output still says where input was skipped.
pub fn format_module(module: &Module<'_>) -> String {
    let mut out = String::new();
    let mut p = Printer { out: &mut out };
    // Writing to a String cannot fail.
    let _ = p.module(module);
    out
}

/// Formats one expression as [`format_module`] would.
pub fn format_expr(e: &Expr<'_>) -> String {
    let mut out = String::new();
    let _ = Printer { out: &mut out }.expr(e);
    out
}

struct Printer<'o> {
    out: &'o mut String,
}

fn tabs(level: usize) -> String {
    "\t".repeat(level)
}

impl Printer<'_> {
    fn module(&mut self, m: &Module<'_>) -> fmt::Result {
        let mut previous_was_block = false;
        for item in &m.items {
            let is_block = matches!(item, Item::Function(_) | Item::Section(_));
            if is_block || previous_was_block {
                self.out.push('\n');
            }
            previous_was_block = is_block;
            self.item(item)?;
        }
        Ok(())
    }

    fn item(&mut self, item: &Item<'_>) -> fmt::Result {
        match item {
            Item::Version { major, minor, .. } => writeln!(self.out, ".version {major}.{minor}"),
            Item::Target { targets, .. } => {
                let names: Vec<_> = targets.iter().map(|t| t.text).collect();
                writeln!(self.out, ".target {}", names.join(", "))
            }
            Item::AddressSize { bits, .. } => writeln!(self.out, ".address_size {bits}"),
            Item::File(f) => {
                write!(self.out, ".file {} \"{}\"", f.index, f.path)?;
                for e in &f.extra {
                    write!(self.out, ", {e}")?;
                }
                self.out.push('\n');
                Ok(())
            }
            Item::Loc(l) => self.loc(l, 0),
            Item::Pragma(p) => self.pragma(p, 0),
            Item::Section(s) => self.section(s),
            Item::Var(v) => {
                self.decl(v)?;
                self.out.push_str(";\n");
                Ok(())
            }
            Item::Function(f) => self.function(f),
            Item::Error(_) => writeln!(self.out, "// (syntax error)"),
        }
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
        self.out.push('\n');
        Ok(())
    }

    fn pragma(&mut self, p: &Pragma<'_>, level: usize) -> fmt::Result {
        let values: Vec<_> = p.values.iter().map(|v| format!("\"{v}\"")).collect();
        writeln!(self.out, "{}.pragma {};", tabs(level), values.join(", "))
    }

    fn section(&mut self, s: &Section<'_>) -> fmt::Result {
        writeln!(self.out, ".section {}\n{{", s.name.text)?;
        for e in &s.entries {
            match e {
                SectionEntry::Label(l) => writeln!(self.out, "{}:", l.text)?,
                SectionEntry::Data { ty, values } => {
                    write!(self.out, "\t{} ", ty.text)?;
                    self.list(values, |p, v| p.expr(v))?;
                    self.out.push('\n');
                }
            }
        }
        self.out.push_str("}\n");
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

    fn params(&mut self, params: &[VarDecl<'_>], multiline: bool) -> fmt::Result {
        self.out.push('(');
        for (i, p) in params.iter().enumerate() {
            if multiline {
                self.out.push_str("\n\t");
            } else if i > 0 {
                self.out.push(' ');
            }
            self.decl(p)?;
            if i + 1 < params.len() {
                self.out.push(',');
            }
        }
        if multiline && !params.is_empty() {
            self.out.push('\n');
        }
        self.out.push(')');
        Ok(())
    }

    fn function(&mut self, f: &Function<'_>) -> fmt::Result {
        if let Some(l) = f.linkage {
            write!(self.out, "{} ", l.as_str())?;
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if let Some(ret) = &f.ret {
            self.params(ret, false)?;
            self.out.push(' ');
        }
        self.out.push_str(f.name.text);
        if let Some(params) = &f.params {
            self.params(params, true)?;
        }
        for d in &f.directives {
            write!(self.out, "\n{}", d.name.text)?;
            for (i, v) in d.values.iter().enumerate() {
                write!(self.out, "{}{v}", if i == 0 { " " } else { ", " })?;
            }
        }
        match &f.body {
            Some(body) => {
                self.out.push('\n');
                self.block(body, 0)
            }
            None => {
                self.out.push_str(";\n");
                Ok(())
            }
        }
    }

    fn block(&mut self, b: &Block<'_>, level: usize) -> fmt::Result {
        writeln!(self.out, "{}{{", tabs(level))?;
        for s in &b.statements {
            self.statement(s, level + 1)?;
        }
        writeln!(self.out, "{}}}", tabs(level))
    }

    fn statement(&mut self, s: &Statement<'_>, level: usize) -> fmt::Result {
        match s {
            Statement::Label(l) => writeln!(self.out, "{}{}:", tabs(level - 1), l.text),
            Statement::Instr(i) => {
                self.out.push_str(&tabs(level));
                self.instruction(i)?;
                self.out.push_str(";\n");
                Ok(())
            }
            Statement::Var(v) => {
                self.out.push_str(&tabs(level));
                self.decl(v)?;
                self.out.push_str(";\n");
                Ok(())
            }
            Statement::Block(b) => self.block(b, level),
            Statement::Loc(l) => self.loc(l, level),
            Statement::Pragma(p) => self.pragma(p, level),
            Statement::CallPrototype(p) => {
                write!(
                    self.out,
                    "{}{}: .callprototype ",
                    tabs(level - 1),
                    p.label.text
                )?;
                if let Some(ret) = &p.ret {
                    self.params(ret, false)?;
                    self.out.push(' ');
                }
                self.out.push_str("_ ");
                self.params(&p.params, false)?;
                if p.noreturn {
                    self.out.push_str(" .noreturn");
                }
                self.out.push_str(";\n");
                Ok(())
            }
            Statement::Targets {
                label,
                kind,
                targets,
            } => {
                let names: Vec<_> = targets.iter().map(|t| t.text).collect();
                writeln!(
                    self.out,
                    "{}{}: {} {};",
                    tabs(level - 1),
                    label.text,
                    kind.text,
                    names.join(", ")
                )
            }
            Statement::Error(_) => writeln!(self.out, "{}// (syntax error)", tabs(level)),
        }
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
    use crate::parse_expr;
    use proptest::prelude::*;

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
