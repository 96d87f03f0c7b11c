//! Rules of suld, sust, sured and suq that the form table cannot express
//! (shared/spec/ptx/surface-instructions.txt).

use super::decl::Opaque;
use super::Symbol;
use crate::ast::*;
use crate::diag::Diagnostic;

/// Coordinate vector length for each geometry: 3d and a2d take four, the last ignored.
fn coordinates(geometry: &str) -> Option<usize> {
    Some(match geometry {
        ".1d" => 1,
        ".2d" | ".a1d" => 2,
        ".3d" | ".a2d" => 4,
        _ => return None,
    })
}

/// The problems of one surface instruction whose modifiers matched a form.
pub fn check<'m, 'a: 'm>(
    ins: &Instruction<'a>,
    lookup: impl Fn(&'a str) -> Option<Symbol<'m, 'a>>,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let opcode = ins.opcode();
    let address = ins.operands.iter().find_map(|o| match o {
        Operand::Address(parts, span) => Some((parts.as_slice(), *span)),
        _ => None,
    });
    let Some((parts, span)) = address else {
        return errors;
    };

    // The surface: a `.surfref` or a 64-bit register holding a handle.
    match parts.first() {
        Some(AddressPart::Expr(Expr::Name(id))) => match lookup(id.text) {
            Some(Symbol::Var(info)) if info.opaque == Some(Opaque::Surface) => {}
            Some(Symbol::Var(info))
                if info.is_register() && info.ty.is_none_or(|t| t.bits == 64 && t.class != super::types::Class::Float) => {}
            Some(_) => errors.push(Diagnostic::error(
                id.span,
                format!("`{}` is not a surface: expected a `.surfref` or a `.u64` register holding a surface handle", id.text),
            )),
            None => errors.push(Diagnostic::error(id.span, format!("`{}` is not declared", id.text))),
        },
        Some(other) => errors.push(Diagnostic::error(
            part_span(other),
            "expected a surface: a `.surfref` or a `.u64` register",
        )),
        None => {}
    }

    if opcode == "suq" {
        if parts.len() != 1 {
            errors.push(Diagnostic::error(
                span,
                "`suq` takes the surface alone: `[surf]`",
            ));
        }
        return errors;
    }

    let geometry = ins.modifiers().find(|m| coordinates(m).is_some());
    let expected = geometry.and_then(coordinates).unwrap_or(1);
    match parts {
        [_, AddressPart::Vector(v, vspan)] => {
            if v.len() != expected {
                errors.push(Diagnostic::error(
                    *vspan,
                    format!(
                        "`{}` takes {expected} coordinate{}, found {}",
                        geometry.unwrap_or(""),
                        if expected == 1 { "" } else { "s" },
                        v.len()
                    ),
                ));
            }
        }
        // A 1d coordinate may be a plain scalar instead of `{x}`.
        [_, AddressPart::Expr(_)] if expected == 1 => {}
        [_, AddressPart::Expr(e)] => errors.push(Diagnostic::error(
            e.span(),
            format!(
                "`{}` takes a vector of {expected} coordinates",
                geometry.unwrap_or("")
            ),
        )),
        _ => errors.push(Diagnostic::error(span, "expected `[surface, coordinates]`")),
    }

    // suld/sust move at most 128 bits: `.v4.b64` is too wide.
    let lanes = ins.modifiers().find_map(|m| match m {
        ".v2" => Some(2),
        ".v4" => Some(4),
        _ => None,
    });
    let width = ins
        .modifiers()
        .find_map(super::types::Type::from_modifier)
        .map(|t| t.bits);
    if let (Some(lanes), Some(bits)) = (lanes, width) {
        if lanes * bits > 128 {
            errors.push(Diagnostic::error(
                ins.mnemonic.span,
                format!("a {lanes}-element vector of {bits}-bit values is {} bits; surface accesses move at most 128", lanes * bits),
            ));
        }
    }

    if opcode == "sured" {
        let op = ins
            .modifiers()
            .find(|m| matches!(*m, ".add" | ".min" | ".max" | ".and" | ".or"));
        let ty = ins
            .modifiers()
            .find(|m| super::types::Type::from_modifier(m).is_some());
        let byte = ins.modifiers().any(|m| m == ".b");
        let allowed: &[&str] = match (byte, op) {
            (true, Some(".add")) => &[".u32", ".u64", ".s32"],
            (true, Some(".min" | ".max")) => &[".u32", ".s32", ".u64", ".s64"],
            (true, Some(".and" | ".or")) => &[".b32"],
            (false, Some(".min" | ".max")) => &[".b32", ".b64"],
            (false, Some(_)) => &[".b32"],
            _ => &[],
        };
        if let (Some(op), Some(ty)) = (op, ty) {
            if !allowed.contains(&ty) {
                errors.push(Diagnostic::error(
                    ins.mnemonic.span,
                    format!(
                        "`sured.{}{op}` does not apply to `{ty}`; it takes {}",
                        if byte { "b" } else { "p" },
                        allowed
                            .iter()
                            .map(|t| format!("`{t}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    errors
}

fn part_span(p: &AddressPart<'_>) -> Span {
    match p {
        AddressPart::Expr(e) => e.span(),
        AddressPart::Vector(_, s) => *s,
    }
}
