//! The checking pass: resolves every name and validates every instruction against the form
//! table, with family rules for surfaces and video that a table line cannot express.

pub mod decl;
mod forms;
mod operands;
mod special;
mod surface;
pub mod types;
pub mod video;
mod widths;

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::scope::Scopes;
use decl::{declared_type, DeclInfo};
use rustc_hash::FxHashMap;

pub use forms::opcodes;

/// Checks a parsed module and returns every problem found, in source order.
pub fn check(module: &Module<'_>) -> Vec<Diagnostic> {
    let skipped = module.skipped_names.iter();
    let mut c = Checker {
        skipped: skipped
            .map(|n| n.split_once('.').map_or(*n, |(base, _)| base))
            .collect(),
        ..Checker::default()
    };
    c.version_first(&module.items);
    c.declare_module(module);
    for item in &module.items {
        match item {
            Item::Function(f) => c.function(f),
            Item::Var(v) => c.check_decl(v),
            Item::Target { targets, .. } => c.targets(targets),
            _ => {}
        }
    }
    let mut diags = c.diags;
    diags.sort_by_key(|d| d.span.start);
    diags
}

/// What a name stands for.
#[derive(Clone, Copy, Debug)]
pub enum Symbol<'m, 'a> {
    Var(DeclInfo),
    Function(&'m Function<'a>),
    Label,
}

#[derive(Default)]
struct Checker<'m, 'a: 'm> {
    diags: Vec<Diagnostic>,
    globals: FxHashMap<&'a str, (Symbol<'m, 'a>, Span)>,
    /// The function's parameters, then one scope per block.
    scopes: Scopes<'a, (DeclInfo, Span)>,
    labels: FxHashMap<&'a str, Span>,
    /// The instruction being checked is a SIMD video one (`vadd2`, ...), whose operands take
    /// lane masks and selectors such as `.h10` and `.b3210`.
    simd_video: bool,
    /// The opcode of the instruction being checked, for messages.
    opcode: &'a str,
    /// Each distinct mnemonic's forms (see `Checker::mnemonic_forms`).
    mnemonics: FxHashMap<&'a str, MnemonicMatch>,
    /// The (form, modifier assignment) pairs that `mnemonics` ranges index.
    matches: Vec<(&'static forms::Form, forms::Matched)>,
    /// [`Module::skipped_names`] without their suffixes.
    skipped: rustc_hash::FxHashSet<&'a str>,
}

/// The forms a mnemonic's modifiers match, as a range of `Checker::matches`, or why none does.
type MnemonicMatch = Result<std::ops::Range<usize>, std::rc::Rc<str>>;

impl<'m, 'a: 'm> Checker<'m, 'a> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    fn redeclared(&mut self, at: Span, name: &str, first: Span) {
        let d = Diagnostic::error(at, format!("`{name}` is already declared"))
            .with_related(first, "first declared here");
        self.diags.push(d);
    }

    /// A module begins with `.version`, once: ptxas refuses a file without it (an empty one
    /// too) before reading anything else.
    fn version_first(&mut self, items: &[Item<'a>]) {
        let versions = items.iter().enumerate().filter_map(|(i, item)| match item {
            Item::Version { span, .. } => Some((i, *span)),
            _ => None,
        });
        let mut found = false;
        for (index, span) in versions {
            found = true;
            if index > 0 {
                let message = "`.version` must be the first directive of the file, and come once";
                self.error(span, message);
            }
        }
        // A syntax error at the start may have been the `.version`; the parser reported it.
        if !found && !matches!(items.first(), Some(Item::Error(_))) {
            let message = "missing `.version` directive at the start of the file";
            self.error(Span::new(0, 0), message);
        }
    }

    fn declare_module(&mut self, module: &'m Module<'a>) {
        for item in &module.items {
            match item {
                Item::Function(f) => {
                    if let Some((Symbol::Function(prev), first)) = self.globals.get(f.name.text) {
                        // A declaration may precede the definition; two bodies may not.
                        if prev.body.is_none() || f.body.is_none() {
                            if f.body.is_some() {
                                self.globals
                                    .insert(f.name.text, (Symbol::Function(f), f.name.span));
                            }
                            continue;
                        }
                        let first = *first;
                        self.redeclared(f.name.span, f.name.text, first);
                        continue;
                    }
                    self.insert_global(&f.name, Symbol::Function(f));
                }
                Item::Var(v) => {
                    let info = self.decl_info(v);
                    for d in &v.declarators {
                        if v.linkage == Some(Linkage::Extern)
                            && self.globals.contains_key(d.name.text)
                        {
                            continue;
                        }
                        self.insert_global(&d.name, Symbol::Var(info.with_range(d.range)));
                    }
                }
                _ => {}
            }
        }
    }

    /// `.target sm_80, texmode_independent, debug`: architectures and the target options.
    fn targets(&mut self, targets: &[Ident<'a>]) {
        for t in targets {
            let architecture = ["sm_", "compute_"].iter().any(|p| {
                t.text.strip_prefix(p).is_some_and(|n| {
                    let digits = n.trim_end_matches(['a', 'f']);
                    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                })
            });
            let option = matches!(
                t.text,
                "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32"
            );
            if !architecture && !option {
                self.error(
                    t.span,
                    format!("`{}` is not a target architecture or option", t.text),
                );
            }
        }
    }

    fn insert_global(&mut self, name: &Ident<'a>, sym: Symbol<'m, 'a>) {
        if let Some((_, first)) = self.globals.get(name.text) {
            let first = *first;
            self.redeclared(name.span, name.text, first);
        } else {
            self.globals.insert(name.text, (sym, name.span));
        }
    }

    fn decl_info(&mut self, v: &VarDecl<'_>) -> DeclInfo {
        match declared_type(v) {
            Ok(info) => info,
            Err((span, message)) => {
                self.error(span, message);
                DeclInfo::unknown(v.space)
            }
        }
    }

    fn check_decl(&mut self, v: &VarDecl<'a>) {
        for d in &v.declarators {
            if let Some(init) = &d.init {
                self.init_names(init);
            }
        }
    }

    fn init_names(&mut self, init: &Init<'a>) {
        match init {
            Init::Expr(e) => self.expr_names(e, true),
            Init::List(items, _) => items.iter().for_each(|i| self.init_names(i)),
            // Sampler fields name modes (`clamp_to_edge`), not symbols.
            Init::Field(..) => {}
        }
    }

    fn declare_local(&mut self, v: &VarDecl<'a>) {
        let info = self.decl_info(v);
        for d in &v.declarators {
            if let Err(e) = self
                .scopes
                .declare(d.name.text, d.range, (info, d.name.span))
            {
                let (name, first) = (e.name, e.first.1);
                match d.range {
                    // `%r<5>` after `%r3`.
                    Some(n) if name != d.name.text => {
                        let message = format!("`{}<{n}>` declares `{name}` again", d.name.text);
                        let e = Diagnostic::error(d.name.span, message)
                            .with_related(first, "first declared here");
                        self.diags.push(e);
                    }
                    _ => self.redeclared(d.name.span, name, first),
                }
            }
        }
        self.check_decl(v);
    }

    fn function(&mut self, f: &'m Function<'a>) {
        self.function_directives(f);
        let Some(body) = &f.body else { return };
        self.scopes.clear();
        self.labels.clear();
        self.scopes.push();
        for p in f.ret.iter().flatten().chain(f.params.iter().flatten()) {
            self.declare_local(p);
        }
        self.collect_labels(body);
        self.block(body);
        self.scopes.clear();
    }

    /// `.noreturn` and the performance-tuning directives, as ptxas 12.9 accepts them.
    fn function_directives(&mut self, f: &Function<'a>) {
        for d in &f.directives {
            let name = d.name.text;
            let (min, max) = match name {
                ".noreturn" | ".explicitcluster" => (0, 0),
                ".maxntid" | ".reqntid" | ".reqnctapercluster" => (1, 3),
                _ => (1, 1),
            };
            if name == ".noreturn" {
                if f.kind == FunctionKind::Entry {
                    self.error(d.name.span, "`.noreturn` applies to `.func`, not `.entry`");
                } else if f.ret.as_ref().is_some_and(|r| !r.is_empty()) {
                    self.error(
                        d.name.span,
                        "a `.noreturn` function cannot have return values",
                    );
                }
            } else if f.kind == FunctionKind::Func {
                self.error(
                    d.name.span,
                    format!("`{name}` applies to `.entry` functions only"),
                );
            }
            if d.values.len() < min || d.values.len() > max {
                let takes = if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                };
                self.error(
                    d.name.span,
                    format!("`{name}` takes {takes} values, found {}", d.values.len()),
                );
            }
        }
    }

    /// Labels are visible in the whole function, before and after their definition.
    fn collect_labels(&mut self, block: &Block<'a>) {
        for s in &block.statements {
            match s {
                Statement::Label(l) => self.declare_label(l),
                Statement::CallPrototype(p) => self.declare_label(&p.label),
                Statement::Targets { label, .. } => self.declare_label(label),
                Statement::Block(b) => self.collect_labels(b),
                _ => {}
            }
        }
    }

    fn declare_label(&mut self, l: &Ident<'a>) {
        if let Some(first) = self.labels.get(l.text) {
            let first = *first;
            self.redeclared(l.span, l.text, first);
        } else {
            self.labels.insert(l.text, l.span);
        }
    }

    fn block(&mut self, block: &Block<'a>) {
        self.scopes.push();
        for s in &block.statements {
            match s {
                Statement::Var(v) => self.declare_local(v),
                Statement::Instr(i) => self.instruction(i),
                Statement::Block(b) => self.block(b),
                Statement::Targets { targets, .. } => {
                    for t in targets {
                        if self.lookup(t.text).is_none() {
                            self.unknown(t);
                        }
                    }
                }
                _ => {}
            }
        }
        self.scopes.pop();
    }

    /// Resolves a name without any dotted suffix: locals (incl. `%r<N>` ranges), labels, then
    /// module scope.
    fn lookup(&self, name: &str) -> Option<Symbol<'m, 'a>> {
        if let Some(found) = self.scopes.get(name) {
            return Some(Symbol::Var(found.decl.0));
        }
        if self.labels.contains_key(name) {
            return Some(Symbol::Label);
        }
        // `%r<N>`-style ranges may be declared in any state space, so also at module scope.
        match self.globals.get(name) {
            Some((Symbol::Var(info), _)) if info.range.is_some() => None,
            Some((sym, _)) => Some(*sym),
            None => {
                let (prefix, index) = split_index(name)?;
                match self.globals.get(prefix) {
                    Some((Symbol::Var(info), _))
                        if info.range.is_some_and(|n| index < u64::from(n)) =>
                    {
                        Some(Symbol::Var(*info))
                    }
                    _ => None,
                }
            }
        }
    }

    /// A register named with a suffix: only a vector register's component (`.x`, `.y`, `.z`,
    /// `.w` or `.r`, `.g`, `.b`, `.a`) is one, whatever the instruction (video selectors are
    /// their family's, checked there). A register that hides a special register's name
    /// (`.reg .b32 %tid`) is the register: `%tid.x` is then no name at all, as in ptxas.
    fn register_suffix(&mut self, id: &Ident<'_>, info: &decl::DeclInfo) {
        let (base, suffix) = id.split_suffix();
        match suffix {
            None => {}
            Some(".x" | ".y" | ".z" | ".w" | ".r" | ".g" | ".b" | ".a") if info.vector > 1 => {}
            Some(s) => {
                let hidden = match special::lookup(id.text) {
                    Some(_) => format!(" (the register hides the special register `{}`)", id.text),
                    None => String::new(),
                };
                self.error(
                    id.span,
                    format!("`{s}` is not a valid suffix of register `{base}`{hidden}"),
                )
            }
        }
    }

    fn unknown(&mut self, name: &Ident<'_>) {
        let base = name.split_suffix().0;
        // A stretch skipped after a syntax error may have declared it (`%r<4` for `%r1`).
        let prefix = split_index(base).map(|(p, _)| p);
        if self.skipped.contains(base) || prefix.is_some_and(|p| self.skipped.contains(p)) {
            return;
        }
        let message = match split_index(base).and_then(|(p, _)| Some((p, self.range_of(p)?))) {
            Some((prefix, 0)) => format!("`{base}` is outside `{prefix}<0>`, which declares none"),
            Some((prefix, n)) => format!(
                "`{base}` is outside `{prefix}<{n}>`, which declares `{prefix}0` to `{prefix}{}`",
                n - 1
            ),
            None => format!("`{base}` is not declared"),
        };
        self.error(name.span, message);
    }

    fn range_of(&self, prefix: &str) -> Option<u32> {
        let global = || match self.globals.get(prefix) {
            Some((Symbol::Var(info), _)) => info.range,
            _ => None,
        };
        self.scopes.range_of(prefix).or_else(global)
    }

    /// Reports every name in `e` that does not resolve. `module_scope` allows only symbols.
    fn expr_names(&mut self, e: &Expr<'a>, module_scope: bool) {
        match e {
            Expr::Name(id) => {
                let (base, _) = id.split_suffix();
                if module_scope {
                    if !self.globals.contains_key(base) {
                        self.unknown(id);
                    }
                    return;
                }
                match self.lookup(base) {
                    Some(Symbol::Var(info)) if info.is_register() => {
                        self.register_suffix(id, &info)
                    }
                    Some(_) => {}
                    None if special::lookup(id.text).is_some() || base == "_" => {}
                    None => self.unknown(id),
                }
            }
            Expr::Node(n) => {
                // `generic(sym)`: the callee is an operator, not a symbol.
                for c in n.children() {
                    self.expr_names(c, module_scope);
                }
            }
            _ => {}
        }
    }
}

/// `%r12` -> (`%r`, 12). Names without trailing digits, or only digits, have no index.
pub fn split_index(name: &str) -> Option<(&str, u64)> {
    let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits == name.len() {
        return None;
    }
    let (prefix, index) = name.split_at(name.len() - digits);
    // `%r01` is not `%r1`: PTX names are strings; only canonical indices come from a range.
    if index.len() > 1 && index.starts_with('0') || index.len() > 19 {
        return None;
    }
    // At most 19 digits: no overflow.
    let value = index
        .bytes()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some((prefix, value))
}
