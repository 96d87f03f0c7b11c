//! Size rules the form table cannot express, with ptxas 12.9's limits: how many bytes a
//! `cp.async` copies and reads, and which spaces and types a 256-bit `ld` or `st` takes.

use super::types::Type;
use crate::ast::*;
use crate::diag::Diagnostic;

/// `cp.async`'s copy size: 4, 8 or 16 bytes (`.cg`: 16), and an immediate source size at
/// most the copy size.
pub fn check_copy(ins: &Instruction<'_>) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let immediate = |i: usize| match ins.operands.get(i) {
        Some(Operand::Expr(Expr::Int { value, span, .. })) => Some((*value, *span)),
        _ => None,
    };
    let Some((size, at)) = immediate(2) else {
        return errors;
    };
    let allowed: &[u64] = match ins.modifiers().any(|m| m == ".cg") {
        true => &[16],
        false => &[4, 8, 16],
    };
    if !allowed.contains(&size) {
        let list = match allowed {
            [one] => one.to_string(),
            _ => "4, 8 or 16".to_string(),
        };
        let message = format!("`cp.async` copies {list} bytes, not {size}");
        errors.push(Diagnostic::error(at, message));
    } else if let Some((source, at)) = immediate(3) {
        if source > size {
            let message = format!("a source size of {source} bytes is more than the {size} copied");
            errors.push(Diagnostic::error(at, message));
        }
    }
    errors
}

/// A 256-bit `ld` or `st` (`.v8` of 32-bit values, `.v4` of 64-bit ones): global memory or a
/// generic address only, and of scalars, not packed pairs; no access is wider.
pub fn check_access(ins: &Instruction<'_>) -> Vec<Diagnostic> {
    let lanes = ins.modifiers().find_map(|m| match m {
        ".v2" => Some(2u32),
        ".v4" => Some(4),
        ".v8" => Some(8),
        _ => None,
    });
    let ty = ins.modifiers().find_map(Type::from_modifier);
    let (Some(lanes), Some(ty)) = (lanes, ty) else {
        return Vec::new();
    };
    let bits = lanes * u32::from(ty.bits);
    let space = ins.modifiers().find(|m| {
        matches!(
            m.split("::").next(),
            Some(".shared" | ".local" | ".param" | ".const")
        )
    });
    let problem = match () {
        _ if bits > 256 => Some(format!(
            "{lanes} values of {} bits are {bits} bits; `{}` moves at most 256",
            ty.bits,
            ins.opcode()
        )),
        _ if bits < 256 => None,
        _ if !matches!(
            ty.name,
            "b32" | "u32" | "s32" | "f32" | "b64" | "u64" | "s64" | "f64"
        ) =>
        {
            Some(format!(
                "a 256-bit access is of 32- or 64-bit scalars, not `.{}`",
                ty.name
            ))
        }
        _ => space.map(|s| {
            format!("a 256-bit access is to global memory or a generic address, not `{s}`")
        }),
    };
    problem
        .map(|message| Diagnostic::error(ins.mnemonic.span, message))
        .into_iter()
        .collect()
}
