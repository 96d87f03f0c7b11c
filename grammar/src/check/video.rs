//! Rules of the scalar video instructions that the form table cannot express
//! (shared/spec/ptx/scalar-video-instructions.md and the vadd, vshl, vmad, vset pages).

use crate::ast::*;
use crate::diag::Diagnostic;

/// Byte and half-word selectors, allowed on a and b, and on d for the data-merge form.
pub const SELECTORS: &[&str] = &[".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];

pub fn is_simd(opcode: &str) -> bool {
    let base = opcode.trim_end_matches(['2', '4']);
    base.len() < opcode.len()
        && matches!(
            base,
            "vadd" | "vsub" | "vavrg" | "vabsdiff" | "vmin" | "vmax" | "vset"
        )
}

/// `.h10`, `.h01` (half-word lanes) and `.b3210`, `.b7654` (byte lanes) of SIMD video.
pub fn is_simd_selector(s: &str) -> bool {
    match (s.strip_prefix(".h"), s.strip_prefix(".b")) {
        (Some(h), _) => matches!(h.len(), 1 | 2) && h.bytes().all(|b| matches!(b, b'0' | b'1')),
        (_, Some(b)) => (1..=4).contains(&b.len()) && b.bytes().all(|c| (b'0'..=b'7').contains(&c)),
        _ => false,
    }
}

/// A video operand: the register name, its selector and whether it is negated.
struct VideoOperand<'a> {
    name: Option<Ident<'a>>,
    selector: Option<&'a str>,
    negated: bool,
    span: Span,
}

fn video_operand<'a>(op: &Operand<'a>) -> VideoOperand<'a> {
    let span = op.span();
    let (expr, negated) = match op {
        Operand::Expr(Expr::Node(n)) => match &n.kind {
            NodeKind::Unary(UnaryOp::Neg, inner) => (Some(inner), true),
            _ => (None, false),
        },
        Operand::Expr(e) => (Some(e), false),
        _ => (None, false),
    };
    let name = expr.and_then(|e| e.as_name()).copied();
    let selector = name.and_then(|n| n.split_suffix().1);
    VideoOperand {
        name,
        selector,
        negated,
        span,
    }
}

/// The problems of one video instruction whose modifiers matched a form.
pub fn check(ins: &Instruction<'_>) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let opcode = ins.opcode();
    let ops: Vec<VideoOperand<'_>> = ins.operands.iter().map(video_operand).collect();
    let secondary = ins
        .modifiers()
        .find(|m| matches!(*m, ".add" | ".min" | ".max"));
    let po = ins.modifiers().any(|m| m == ".po");

    for (i, op) in ops.iter().enumerate() {
        if op.name.is_none() {
            // Sources may be immediates (ptxas accepts `vshr... d, a, 32, c`); d may not.
            if i == 0 {
                errors.push(Diagnostic::error(
                    op.span,
                    "the destination must be a register",
                ));
            }
            continue;
        }
        let role = ["d", "a", "b", "c"][i.min(3)];
        if op.negated && (opcode != "vmad" || i == 0) {
            let message = if opcode == "vmad" {
                "the destination of `vmad` cannot be negated".to_string()
            } else {
                format!("only `vmad` operands may be negated, not `{opcode}`'s {role}")
            };
            errors.push(Diagnostic::error(op.span, message));
        }
        if i == 3 && op.selector.is_some() {
            errors.push(Diagnostic::error(op.span, "operand c takes no selector"));
        }
    }

    let dsel = ops.first().and_then(|d| d.selector);
    let has_c = ops.len() == 4;
    if opcode == "vmad" {
        if dsel.is_some() {
            errors.push(Diagnostic::error(
                ops[0].span,
                "`vmad` has no destination selector",
            ));
        }
        let neg = |i: usize| ops.get(i).is_some_and(|o| o.negated);
        if po && (neg(1) || neg(2) || neg(3)) {
            let at = (1..4).find(|&i| neg(i)).map_or(ins.span, |i| ops[i].span);
            errors.push(Diagnostic::error(
                at,
                "operands cannot be negated in `.po` mode",
            ));
        } else if (neg(1) ^ neg(2)) && neg(3) {
            errors.push(Diagnostic::error(
                ops[3].span,
                "`vmad` may negate the product a*b or c, not both",
            ));
        }
    } else {
        match (dsel, secondary, has_c) {
            (Some(_), Some(op), _) => errors.push(Diagnostic::error(
                ins.mnemonic.span,
                format!("a destination selector merges into c; it cannot be combined with the secondary operation `{op}`"),
            )),
            (Some(_), None, false) => errors.push(Diagnostic::error(
                ops[0].span,
                "a destination selector merges into c, which is missing",
            )),
            (None, Some(op), false) => errors.push(Diagnostic::error(
                ins.span,
                format!("the secondary operation `{op}` needs operand c"),
            )),
            // ptxas accepts c without either and ignores it; LLVM's inline-asm tests emit it.
            (None, None, true) => errors.push(Diagnostic::warning(
                ops[3].span,
                "operand c is ignored without a secondary operation (`.add`, `.min`, `.max`) or a destination selector",
            )),
            _ => {}
        }
    }
    errors
}
