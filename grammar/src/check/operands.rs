//! Checking one instruction: pick the form its modifiers match, then its operands.

use super::decl::DeclInfo;
use super::forms::{self, Form, Kind, Matched, OperandSpec};
use super::types::{Class, Type};
use super::{special, surface, video, widths, Checker, MnemonicMatch, Symbol};
use crate::ast::*;
use crate::diag::Diagnostic;

/// The family whose operands may carry `.b0`..`.h1` selectors.
pub fn is_scalar_video(opcode: &str) -> bool {
    matches!(
        opcode,
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset"
    )
}

/// What an operand expression turned out to be.
enum Value {
    Register(DeclInfo),
    Special(Type),
    /// An integer constant, already folded.
    Int(i128),
    Float,
    /// A variable's or function's address, possibly plus an offset.
    Address,
    Label,
    Sink,
    /// Already reported, or not type-checkable (an expression over registers).
    Unknown,
}

impl<'m, 'a: 'm> Checker<'m, 'a> {
    pub(super) fn instruction(&mut self, ins: &Instruction<'a>) {
        if let Some(g) = &ins.guard {
            self.predicate(&Expr::Name(g.pred), true);
        }
        let range = self.mnemonic_forms(ins);
        let mut operand_errors: Option<Vec<Diagnostic>> = None;
        for i in range {
            let (form, matched) = self.matches[i];
            let before = self.diags.len();
            self.operands(ins, form, &matched);
            if self.diags.len() == before {
                self.family_rules(ins);
                return;
            }
            let errs = self.diags.split_off(before);
            if operand_errors.as_ref().is_none_or(|e| errs.len() < e.len()) {
                operand_errors = Some(errs);
            }
        }
        self.diags.extend(operand_errors.into_iter().flatten());
    }

    /// The forms whose modifiers `ins`'s mnemonic matches, as a range of `self.matches`.
    /// Matching depends on the mnemonic alone, and a module repeats few mnemonics many
    /// times, so each distinct one is matched once; one that matches no form is reported
    /// each time it appears, from the message kept for it.
    fn mnemonic_forms(&mut self, ins: &Instruction<'a>) -> std::ops::Range<usize> {
        let text = ins.mnemonic.text;
        let outcome = match self.mnemonics.get(text) {
            Some(outcome) => outcome.clone(),
            None => {
                let outcome = self.match_mnemonic(ins);
                self.mnemonics.insert(text, outcome.clone());
                outcome
            }
        };
        match outcome {
            Ok(range) => range,
            Err(message) => {
                self.error(ins.mnemonic.span, message.to_string());
                0..0
            }
        }
    }

    fn match_mnemonic(&mut self, ins: &Instruction<'a>) -> MnemonicMatch {
        let opcode = ins.opcode();
        let Some(forms) = forms::forms(opcode) else {
            return Err(format!("unknown instruction `{opcode}`").into());
        };
        // Failing every form, the closest one explains the problem.
        let mut best: Option<Vec<forms::Mismatch>> = None;
        let start = self.matches.len();
        for form in forms {
            match forms::match_modifiers(form, ins.modifiers()) {
                Ok(matched) => self.matches.push((form, matched)),
                Err(problems) => {
                    let weight =
                        |p: &Vec<forms::Mismatch>| p.iter().map(|m| m.weight()).sum::<u32>();
                    if best.as_ref().is_none_or(|b| weight(&problems) < weight(b)) {
                        best = Some(problems);
                    }
                }
            }
        }
        match best {
            Some(problems) if self.matches.len() == start => {
                Err(problems[0].message(opcode).into())
            }
            _ => Ok(start..self.matches.len()),
        }
    }

    fn family_rules(&mut self, ins: &Instruction<'a>) {
        let opcode = ins.opcode();
        if is_scalar_video(opcode) {
            self.diags.extend(video::check(ins));
        }
        if video::is_simd(opcode) {
            self.diags.extend(video::check_simd(ins));
        }
        match opcode {
            "mov" => self.whole_vector_mov(ins),
            "cp" if ins.modifiers().any(|m| m == ".async")
                && !ins.modifiers().any(|m| m == ".bulk") =>
            {
                self.diags.extend(widths::check_copy(ins));
            }
            "ld" | "st" => self.diags.extend(widths::check_access(ins)),
            _ => {}
        }
        if matches!(opcode, "suld" | "sust" | "sured" | "suq") {
            let problems = surface::check(ins, |name| self.lookup(name));
            self.diags.extend(problems);
        }
    }

    fn operands(&mut self, ins: &Instruction<'a>, form: &Form, matched: &Matched) {
        let required = form.operands.iter().filter(|s| !s.optional).count();
        let n = ins.operands.len();
        if n < required || (n > form.operands.len() && !form.any_operands) {
            let expected = if required == form.operands.len() {
                format!("{required}")
            } else if form.any_operands {
                format!("at least {required}")
            } else {
                format!("{required} to {}", form.operands.len())
            };
            let s = if expected == "1" { "" } else { "s" };
            self.error(
                ins.span,
                format!(
                    "`{}` takes {expected} operand{s}, found {n}",
                    ins.mnemonic.text
                ),
            );
            return;
        }
        let vector = ins.modifiers().find_map(|m| match m {
            ".v2" => Some(2),
            ".v4" => Some(4),
            ".v8" => Some(8),
            _ => None,
        });
        let selectors = is_scalar_video(ins.opcode());
        self.opcode = ins.opcode();
        self.simd_video = video::is_simd(ins.opcode());
        let relaxed = matches!(ins.opcode(), "ld" | "ldu" | "st" | "cvt" | "suld" | "sust");
        // ptxas: "Result discard mode is not allowed" for these.
        let sink = !matches!(ins.opcode(), "mov" | "shfl");
        for (i, op) in ins.operands.iter().enumerate() {
            let Some(spec) = form.operands.get(i) else {
                self.any_operand(op);
                continue;
            };
            let ty = spec.ty.and_then(|t| matched.resolve(t));
            self.operand(
                op,
                spec,
                ty,
                Ctx {
                    vector,
                    selectors,
                    relaxed,
                    sink,
                    first: i == 0,
                },
            );
        }
    }

    fn operand(&mut self, op: &Operand<'a>, spec: &OperandSpec, ty: Option<Type>, cx: Ctx) {
        match (spec.kind, op) {
            (Kind::Any, _) => self.any_operand(op),
            (Kind::Address, Operand::Address(parts, _)) => self.address(parts),
            (Kind::Address, _) => self.error(op.span(), "expected an address `[...]`"),
            (Kind::Target, Operand::Expr(Expr::Name(id))) => {
                if self.lookup(id.text).is_none() {
                    self.unknown(id);
                }
            }
            (Kind::Target, _) => self.error(op.span(), "expected a label"),
            (Kind::Pred, Operand::Expr(e)) => self.predicate(e, false),
            (Kind::PredDest, Operand::Expr(e)) => self.predicate(e, true),
            (Kind::PredDestPair, Operand::Expr(e)) => self.predicate(e, true),
            (Kind::PredDestPair, Operand::PredPair(p)) => {
                self.predicate(&p[0], true);
                self.predicate(&p[1], true);
            }
            (Kind::DestPair, Operand::PredPair(p)) => {
                self.value(&p[0], ty, true, cx);
                self.predicate(&p[1], true);
            }
            // LLVM writes a scalar as a singleton vector: `suld.b.2d.b32.trap {%r1}, [...]`.
            (Kind::VectorOrReg, Operand::Vector(items, _))
                if cx.vector.is_none() && items.len() == 1 =>
            {
                self.value(&items[0], ty, cx.first, cx);
            }
            (Kind::VectorOrReg, Operand::Vector(items, span)) => match cx.vector {
                Some(n) if n == items.len() => {
                    for e in items {
                        self.value(e, ty, cx.first, cx);
                    }
                }
                Some(n) => self.error(
                    *span,
                    format!("expected a vector of {n}, found {}", items.len()),
                ),
                None => self.error(
                    *span,
                    "a vector operand needs a `.v2`, `.v4` or `.v8` modifier",
                ),
            },
            (Kind::VectorOrReg, Operand::Expr(e)) => match (cx.vector, self.vector_width(e)) {
                (None, _) => {
                    self.value(e, ty, cx.first, cx);
                }
                (Some(n), Some(w)) if usize::from(w) == n => {}
                (Some(n), _) => self.error(
                    e.span(),
                    format!("expected a vector of {n}, `{{...}}` or a `.v{n}` register"),
                ),
            },
            (Kind::Packed, Operand::Vector(items, _)) => {
                // ptxas takes `_` for an element an unpacking `mov` drops
                // (`mov.b64 {%r1, _}, %rd1`), though not for a whole result.
                let cx = Ctx {
                    sink: cx.sink || cx.first,
                    ..cx
                };
                for e in items {
                    self.value(e, None, cx.first, cx);
                }
            }
            // A vector register as a whole (`mov.b32 %r, %v2b16`): `whole_vector_mov` checks
            // its size.
            (Kind::Packed, Operand::Expr(e)) if self.whole_vector(e).is_some() => {}
            (Kind::Packed, Operand::Expr(e)) => {
                self.value(e, ty, cx.first, cx);
            }

            (Kind::Dest | Kind::DestPair, Operand::Expr(e)) => {
                self.value(e, ty, true, cx);
            }
            (Kind::Reg | Kind::RegOrImm | Kind::Imm, Operand::Expr(e)) => {
                let v = self.value(e, ty, false, cx);
                let is_imm = matches!(v, Value::Int(_) | Value::Float | Value::Address);
                if spec.kind == Kind::Reg && is_imm {
                    self.error(e.span(), "expected a register, found an immediate");
                } else if spec.kind == Kind::Imm && matches!(v, Value::Register(_)) {
                    self.error(e.span(), "expected an immediate, found a register");
                }
            }
            (_, other) => self.error(other.span(), format!("expected {}", describe(spec.kind))),
        }
    }

    /// The declaration of the vector register that `e` names without an element suffix.
    fn whole_vector(&mut self, e: &Expr<'a>) -> Option<DeclInfo> {
        match self.lookup(e.as_name()?.text) {
            Some(Symbol::Var(info)) if info.is_register() && info.vector > 1 => Some(info),
            _ => None,
        }
    }

    /// A scalar `mov` with a whole vector register on one side (`mov.b32 %r, %v` with `%v` a
    /// `.v2 .b16` or `.v4 .b8`): as ptxas has it, the type is the `.bN` of the vector's size
    /// and the other side is a scalar. The `d, any` form lets a vector register through, so
    /// its size is checked here whatever form matched.
    fn whole_vector_mov(&mut self, ins: &Instruction<'a>) {
        if ins.modifiers().any(|m| matches!(m, ".v2" | ".v4" | ".v8")) {
            return;
        }
        let Some(ty) = ins.modifiers().filter_map(Type::from_modifier).last() else {
            return;
        };
        let mut vectors = 0;
        for op in &ins.operands {
            let Operand::Expr(e) = op else {
                vectors += usize::from(matches!(op, Operand::Vector(..)));
                continue;
            };
            let Some(info) = self.whole_vector(e) else {
                continue;
            };
            vectors += 1;
            let element = info.ty.map_or(0, |t| t.bits);
            let bits = element * u16::from(info.vector);
            if ty.class != Class::Bits || ty.bits != bits {
                let message = format!(
                    "a `.v{}` register of `.{}` moves as a whole only with `mov.b{bits}`",
                    info.vector,
                    info.ty.map_or("?", |t| t.name),
                );
                self.error(e.span(), message);
            }
        }
        if vectors > 1 {
            let message =
                "a scalar `mov` takes a vector on one side only (`.v2` and `.v4` move elements)";
            self.error(ins.span, message);
        }
    }

    /// The `.vN` width of a vector register named by `e`.
    fn vector_width(&mut self, e: &Expr<'a>) -> Option<u8> {
        self.whole_vector(e).map(|info| info.vector)
    }

    fn any_operand(&mut self, op: &Operand<'a>) {
        match op {
            Operand::Expr(e) => self.expr_names(e, false),
            Operand::Vector(v, _) | Operand::List(v, _) => {
                v.iter().for_each(|e| self.expr_names(e, false))
            }
            Operand::PredPair(p) => p.iter().for_each(|e| self.expr_names(e, false)),
            Operand::Address(parts, _) => {
                for part in parts {
                    match part {
                        AddressPart::Expr(e) => self.expr_names(e, false),
                        AddressPart::Vector(v, _) => {
                            v.iter().for_each(|e| self.expr_names(e, false))
                        }
                    }
                }
            }
        }
    }

    fn address(&mut self, parts: &[AddressPart<'a>]) {
        // Surface and texture addresses (`[surf, {x, y}]`) are checked by their families.
        if let [AddressPart::Expr(e)] = parts {
            if let Value::Register(info) = self.value(e, None, false, Ctx::default()) {
                if let Some(t) = info.ty {
                    if t.bits < 32 || t.class == Class::Float {
                        self.error(
                            e.span(),
                            format!(
                                "an address register must be 32 or 64 bits wide, not `.{}`",
                                t.name
                            ),
                        );
                    }
                }
            }
        } else {
            for p in parts {
                match p {
                    AddressPart::Expr(e) => self.expr_names(e, false),
                    AddressPart::Vector(v, _) => v.iter().for_each(|e| self.expr_names(e, false)),
                }
            }
        }
    }

    fn predicate(&mut self, e: &Expr<'a>, dest: bool) {
        let inner = match e {
            Expr::Node(n) if !dest => match &n.kind {
                NodeKind::Unary(UnaryOp::Not, x) => x,
                _ => e,
            },
            _ => e,
        };
        match inner {
            Expr::Name(id) if id.text == "_" && dest => {}
            Expr::Name(id) => match self.lookup(id.text) {
                Some(Symbol::Var(info)) if info.is_register() => {
                    if info.ty.is_some_and(|t| t.class != Class::Pred) {
                        let t = info.ty.map_or("", |t| t.name);
                        self.error(
                            id.span,
                            format!("`{}` is a `.{t}` register, expected a predicate", id.text),
                        );
                    }
                }
                Some(_) => self.error(
                    id.span,
                    format!("`{}` is not a predicate register", id.text),
                ),
                None => self.unknown(id),
            },
            Expr::Int { value: 0 | 1, .. } if !dest => {}
            other => self.error(other.span(), "expected a predicate register"),
        }
    }

    /// Classifies and checks a scalar operand of type `ty`.
    fn value(&mut self, e: &Expr<'a>, ty: Option<Type>, dest: bool, cx: Ctx) -> Value {
        let v = self.classify(e, cx.selectors);
        let span = e.span();
        match (&v, ty) {
            (Value::Register(info), Some(t)) => {
                if let Some(rt) = info.ty {
                    if !rt.fits_instruction(t, cx.relaxed) {
                        self.error(
                            span,
                            format!("`.{}` register used as a `.{}` operand", rt.name, t.name),
                        );
                    }
                }
                if info.vector > 1 && e.as_name().is_none_or(|n| n.split_suffix().1.is_none()) {
                    self.error(
                        span,
                        format!("vector register used as a scalar `.{}` operand", t.name),
                    );
                }
            }
            (Value::Special(st), Some(t)) if !st.fits_instruction(t, true) => {
                self.error(
                    span,
                    format!(
                        "special register of type `.{}` used as a `.{}` operand",
                        st.name, t.name
                    ),
                );
            }
            (Value::Int(n), Some(t)) if !t.fits_int(*n) => {
                self.error(span, format!("immediate {n} does not fit in `.{}`", t.name));
            }
            (Value::Float, Some(t)) if t.class != Class::Float && t.class != Class::Bits => {
                self.error(
                    span,
                    format!("floating-point immediate used as a `.{}` operand", t.name),
                );
            }
            _ => {}
        }
        if dest {
            match v {
                Value::Register(_) | Value::Unknown => {}
                Value::Sink if cx.sink => {}
                Value::Sink => self.error(
                    span,
                    format!(
                        "the result of `{}` cannot be discarded with `_`",
                        self.opcode
                    ),
                ),
                Value::Special(_) => self.error(span, "a special register cannot be written"),
                _ => self.error(span, "expected a destination register"),
            }
        }
        v
    }

    fn classify(&mut self, e: &Expr<'a>, selectors: bool) -> Value {
        let simd = self.simd_video;
        match e {
            Expr::Name(id) if id.text == "_" => Value::Sink,
            Expr::Name(id) => {
                let (base, suffix) = id.split_suffix();
                match self.lookup(base) {
                    Some(Symbol::Var(info)) if info.is_register() => {
                        match suffix {
                            Some(s) if selectors && video::SELECTORS.contains(&s) => {}
                            // Which selector goes where: video::check_simd.
                            Some(_) if simd => {}
                            _ => self.register_suffix(id, &info),
                        }
                        Value::Register(info)
                    }
                    Some(Symbol::Var(_) | Symbol::Function(_)) if suffix.is_none() => {
                        Value::Address
                    }
                    Some(Symbol::Label) if suffix.is_none() => Value::Label,
                    _ => match special::lookup(id.text) {
                        Some(t) => Value::Special(t),
                        None => {
                            self.unknown(id);
                            Value::Unknown
                        }
                    },
                }
            }
            Expr::Int { value, .. } => Value::Int(i128::from(*value)),
            Expr::F32(..) | Expr::F64(..) => Value::Float,
            Expr::Error(_) => Value::Unknown,
            Expr::Node(n) => match &n.kind {
                NodeKind::Paren(x) => self.classify(x, selectors),
                NodeKind::Unary(UnaryOp::Neg, x) => match self.classify(x, selectors) {
                    Value::Int(v) => Value::Int(-v),
                    Value::Float => Value::Float,
                    // `-a` on a register is vmad's negation; video checks where it may appear.
                    other => other,
                },
                NodeKind::Unary(UnaryOp::BitNot, x) => match self.classify(x, selectors) {
                    Value::Int(v) => Value::Int(!v & i128::from(u64::MAX)),
                    other => other,
                },
                NodeKind::Binary(op, l, r) => {
                    let (l, r) = (self.classify(l, selectors), self.classify(r, selectors));
                    match (l, r) {
                        (Value::Int(a), Value::Int(b)) => {
                            op.apply(a, b).map_or(Value::Unknown, Value::Int)
                        }
                        (Value::Address, Value::Int(_)) | (Value::Int(_), Value::Address) => {
                            Value::Address
                        }
                        _ => Value::Unknown,
                    }
                }
                _ => {
                    self.expr_names(e, false);
                    Value::Unknown
                }
            },
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Ctx {
    vector: Option<usize>,
    selectors: bool,
    relaxed: bool,
    /// Whether `_` may stand for a destination.
    sink: bool,
    first: bool,
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Dest | Kind::DestPair => "a destination register",
        Kind::Reg => "a register",
        Kind::RegOrImm => "a register or an immediate",
        Kind::Imm => "an immediate",
        Kind::Pred | Kind::PredDest => "a predicate register",
        Kind::PredDestPair => "a predicate register or a pair `p|q`",
        Kind::VectorOrReg => "a register or a vector",
        Kind::Packed => "a register or a vector of registers",
        Kind::Address => "an address `[...]`",
        Kind::Target => "a label",
        Kind::Any => "an operand",
    }
}
