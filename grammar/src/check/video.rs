//! Rules of the scalar video instructions that the form table cannot express
//! (shared/spec/ptx/scalar-video-instructions.md and the vadd, vshl, vmad, vset pages).

use crate::ast::*;
use crate::diag::Diagnostic;

/// Byte and half-word selectors, allowed on a and b, and on d for the data-merge form.
pub const SELECTORS: &[&str] = &[".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];

/// The elements of a SIMD video opcode (`vadd2`: 2 half-words, `vset4`: 4 bytes), `None` for
/// every other opcode.
pub fn simd_elements(opcode: &str) -> Option<u32> {
    let (base, elements) = match opcode.as_bytes().last() {
        Some(b'2') => (&opcode[..opcode.len() - 1], 2),
        Some(b'4') => (&opcode[..opcode.len() - 1], 4),
        _ => return None,
    };
    matches!(
        base,
        "vadd" | "vsub" | "vavrg" | "vabsdiff" | "vmin" | "vmax" | "vset"
    )
    .then_some(elements)
}

pub fn is_simd(opcode: &str) -> bool {
    simd_elements(opcode).is_some()
}

/// The digits after `.h` (2 elements) or `.b` (4), each below `limit`.
fn simd_digits(s: &str, elements: u32, limit: u8) -> Option<Vec<u8>> {
    let prefix = if elements == 2 { ".h" } else { ".b" };
    let digits: Vec<u8> = s
        .strip_prefix(prefix)?
        .bytes()
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    digits.iter().all(|&d| d < limit).then_some(digits)
}

/// A SIMD destination mask (`.h0`, `.h1`, `.h10`; `.b` and elements 3..0 in descending order):
/// bit i set when element i is written. ptxas 12.9 rejects ascending or repeated elements.
pub fn simd_mask(s: &str, elements: u32) -> Option<u32> {
    let digits = simd_digits(s, elements, elements as u8)?;
    let descending = digits.windows(2).all(|w| w[0] > w[1]);
    (!digits.is_empty() && descending).then(|| digits.iter().fold(0, |m, &d| m | 1 << d))
}

/// A SIMD source selector (`.hxy`, x and y of 0..3; `.bxyzw`, each of 0..7): for each element,
/// most significant first, the half-word or byte of the pair {b, a} it takes (a's are the
/// low ones).
pub fn simd_selector(s: &str, elements: u32) -> Option<Vec<u8>> {
    let digits = simd_digits(s, elements, 2 * elements as u8)?;
    (digits.len() == elements as usize).then_some(digits)
}

/// The problems of one SIMD video instruction whose modifiers matched a form: selectors in
/// their places (a destination mask on d, element selectors on a and b, none on c) and no
/// negation.
pub fn check_simd(ins: &Instruction<'_>) -> Vec<Diagnostic> {
    let opcode = ins.opcode();
    let Some(elements) = simd_elements(opcode) else {
        return Vec::new();
    };
    let (mask_help, selector_help) = if elements == 2 {
        (
            "`.h0`, `.h1` or `.h10`",
            "`.h` and two half-words of 0..3, as `.h10`",
        )
    } else {
        (
            "`.b` and elements of 3..0 in descending order, as `.b31`",
            "`.b` and four bytes of 0..7, as `.b3210`",
        )
    };
    let mut errors = Vec::new();
    for (i, op) in ins.operands.iter().map(video_operand).enumerate() {
        let role = ["d", "a", "b", "c"][i.min(3)];
        if op.negated {
            errors.push(Diagnostic::error(
                op.span,
                format!("only `vmad` operands may be negated, not `{opcode}`'s {role}"),
            ));
        }
        let Some(sel) = op.selector else { continue };
        let problem = match i {
            0 if simd_mask(sel, elements).is_none() => Some(format!(
                "`{sel}` is not a destination mask of `{opcode}`: {mask_help}"
            )),
            1 | 2 if simd_selector(sel, elements).is_none() => Some(format!(
                "`{sel}` is not a selector of `{opcode}`'s {role}: {selector_help}"
            )),
            3 => Some("operand c takes no selector".to_string()),
            _ => None,
        };
        errors.extend(problem.map(|p| Diagnostic::error(op.span, p)));
    }
    errors
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
