//! What a declaration declares: its type, vector width and opaque kind.

use super::types::Type;
use crate::ast::{DeclSpec, Span, StateSpace, VarDecl};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opaque {
    Surface,
    Texture,
    Sampler,
}

#[derive(Clone, Copy, Debug)]
pub struct DeclInfo {
    pub space: StateSpace,
    pub ty: Option<Type>,
    /// 1 for scalars, else the `.vN` width.
    pub vector: u8,
    pub opaque: Option<Opaque>,
    /// `%r<N>` at module scope: the declaration covers `%r0` .. `%r{N-1}` (a function's
    /// ranges are kept by its `Scopes`).
    pub range: Option<u32>,
}

impl DeclInfo {
    /// For a declaration whose type could not be read; its uses are not type-checked.
    pub fn unknown(space: StateSpace) -> DeclInfo {
        DeclInfo {
            space,
            ty: None,
            vector: 1,
            opaque: None,
            range: None,
        }
    }

    pub fn with_range(self, range: Option<u32>) -> DeclInfo {
        DeclInfo { range, ..self }
    }

    pub fn is_register(&self) -> bool {
        self.space == StateSpace::Reg
    }
}

/// Reads the specifiers between the state space and the names.
pub fn declared_type(v: &VarDecl<'_>) -> Result<DeclInfo, (Span, String)> {
    let mut info = DeclInfo::unknown(v.space);
    let mut pointer = false;
    let mut type_span = None;
    for spec in &v.specs {
        let DeclSpec::Word(w) = spec else { continue };
        let word = w.text;
        if let Some(t) = Type::from_modifier(word) {
            if let Some(prev) = info.ty {
                return Err((
                    w.span,
                    format!(
                        "`{word}` after `.{}`: a declaration has one type",
                        prev.name
                    ),
                ));
            }
            info.ty = Some(t);
            type_span = Some(w.span);
            continue;
        }
        match word {
            ".v2" | ".v4" | ".v8" => info.vector = word[2..].parse().unwrap_or(1),
            ".surfref" => info.opaque = Some(Opaque::Surface),
            ".texref" => info.opaque = Some(Opaque::Texture),
            ".samplerref" => info.opaque = Some(Opaque::Sampler),
            ".ptr" if v.space == StateSpace::Param => pointer = true,
            ".global" | ".shared" | ".const" | ".local" if pointer => {}
            _ => {
                return Err((
                    w.span,
                    format!("`{word}` is not a type or attribute of a declaration"),
                ));
            }
        }
    }
    if info.ty.is_none() && info.opaque.is_none() {
        let at = v.declarators.first().map_or(v.span, |d| d.name.span);
        let name = v.declarators.first().map_or("", |d| d.name.text);
        return Err((at, format!("declaration of `{name}` has no type")));
    }
    if info.opaque.is_some() && info.ty.is_some() {
        return Err((
            type_span.unwrap_or(v.span),
            "an opaque type takes no other type".into(),
        ));
    }
    Ok(info)
}
