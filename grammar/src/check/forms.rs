//! The instruction form table (`forms.txt`) and matching an instruction's modifiers against it.

use super::types::Type;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("forms.txt");

/// One line of the table.
#[derive(Debug)]
pub struct Form {
    pub groups: Vec<Group>,
    /// Each option's name without its dot -> the groups (bits) that take it. Matching is a
    /// lookup per modifier instead of a scan of every group's options.
    accepts: FxHashMap<&'static str, u32>,
    /// The groups that are type slots, as bits, in order.
    slot_mask: u32,
    /// `*` among the modifiers: the checker knows this instruction only by name.
    pub any_modifiers: bool,
    pub operands: Vec<OperandSpec>,
    /// `*` among the operands: any number of further operands.
    pub any_operands: bool,
}

#[derive(Debug)]
pub struct Group {
    pub options: Vec<&'static str>,
    pub required: bool,
    /// The slot name when this group holds a type (`T`, `D`, ...); its options are then type
    /// names without the dot.
    pub slot: Option<&'static str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dest,
    Reg,
    RegOrImm,
    Imm,
    Pred,
    PredDest,
    PredDestPair,
    DestPair,
    VectorOrReg,
    Packed,
    Address,
    Target,
    Any,
}

#[derive(Debug)]
pub struct OperandSpec {
    pub kind: Kind,
    pub ty: Option<TypeRef>,
    pub optional: bool,
}

#[derive(Clone, Copy, Debug)]
pub enum TypeRef {
    Slot(&'static str),
    /// Twice the width of a slot's type.
    Wide(&'static str),
    Fixed(Type),
}

/// The result of matching modifiers to a form: the type in each slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct Matched {
    /// No form has more than four type slots (`vadd.d.a.b` has three).
    pub slots: [Option<(&'static str, Type)>; 4],
}

impl Matched {
    pub fn resolve(&self, ty: TypeRef) -> Option<Type> {
        match ty {
            TypeRef::Fixed(t) => Some(t),
            TypeRef::Slot(s) => self
                .slots
                .iter()
                .flatten()
                .find(|(n, _)| *n == s)
                .map(|(_, t)| *t),
            TypeRef::Wide(s) => self.resolve(TypeRef::Slot(s))?.widened(),
        }
    }
}

/// The forms of every opcode, parsed once.
pub fn forms(opcode: &str) -> Option<&'static [Form]> {
    static FORMS: OnceLock<FxHashMap<&'static str, Vec<Form>>> = OnceLock::new();
    FORMS
        .get_or_init(|| parse_table(TABLE))
        .get(opcode)
        .map(Vec::as_slice)
}

/// Every opcode the table knows.
pub fn opcodes() -> Vec<&'static str> {
    let mut v: Vec<_> = TABLE
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .flat_map(|l| l.split_whitespace().next().unwrap_or("").split('|'))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn expand_types(spec: &'static str) -> Vec<&'static str> {
    spec.split('|')
        .flat_map(|t| match t {
            "$int" => vec!["u16", "u32", "u64", "s16", "s32", "s64"],
            "$int8" => vec!["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"],
            "$bit" => vec!["b16", "b32", "b64"],
            "$f" => vec!["f32", "f64"],
            "$half" => vec!["f16", "f16x2", "bf16", "bf16x2"],
            "$ldst" => vec![
                "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
                "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
            ],
            other => vec![other],
        })
        .collect()
}

/// Parses forms.txt. The table is part of the program, so a malformed line is a bug that
/// the unit tests catch, and panicking names the line.
fn parse_table(table: &'static str) -> FxHashMap<&'static str, Vec<Form>> {
    let mut map: FxHashMap<&'static str, Vec<Form>> = FxHashMap::default();
    for (i, line) in table.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, operands) = line
            .split_once(" :")
            .unwrap_or_else(|| panic!("forms.txt:{line_no}: missing ` :`"));
        let mut words = head.split_whitespace();
        let opcodes = words
            .next()
            .unwrap_or_else(|| panic!("forms.txt:{line_no}: no opcode"));
        let mut groups = Vec::new();
        let mut any_modifiers = false;
        for word in words {
            if word == "*" {
                any_modifiers = true;
                continue;
            }
            let (word, required) = match word.strip_suffix('?') {
                Some(w) => (w, false),
                None => (word, true),
            };
            let (options, slot) = if let Some((slot, types)) = word.split_once('=') {
                let options = expand_types(types);
                for t in &options {
                    assert!(
                        Type::from_name(t).is_some(),
                        "forms.txt:{line_no}: type `{t}`"
                    );
                }
                (options, Some(slot))
            } else if let Some(inner) = word.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                (inner.split('|').collect(), None)
            } else {
                // `.x`, or `.a.b` (modifiers that only come together).
                (vec![word], None)
            };
            groups.push(Group {
                options,
                required,
                slot,
            });
        }
        let mut specs = Vec::new();
        let mut any_operands = false;
        for op in operands.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            if op == "*" {
                any_operands = true;
                continue;
            }
            let (op, optional) = match op.strip_suffix('?') {
                Some(o) => (o, true),
                None => (op, false),
            };
            let (kind, ty) = match op.split_once(':') {
                Some((k, t)) => (k, Some(t)),
                None => (op, None),
            };
            let kind = match kind {
                "d" => Kind::Dest,
                "r" => Kind::Reg,
                "x" => Kind::RegOrImm,
                "i" => Kind::Imm,
                "p" => Kind::Pred,
                "pd" => Kind::PredDest,
                "pq" => Kind::PredDestPair,
                "dq" => Kind::DestPair,
                "v" => Kind::VectorOrReg,
                "u" => Kind::Packed,
                "a" => Kind::Address,
                "t" => Kind::Target,
                "any" => Kind::Any,
                other => panic!("forms.txt:{line_no}: operand kind `{other}`"),
            };
            let ty = ty.map(|t| match (Type::from_name(t), t.strip_prefix('2')) {
                (Some(t), _) => TypeRef::Fixed(t),
                (None, Some(slot)) => TypeRef::Wide(slot),
                (None, None) => TypeRef::Slot(t),
            });
            specs.push(OperandSpec { kind, ty, optional });
        }
        for opcode in opcodes.split('|') {
            // Each opcode gets its own copy: forms are few and small, lookups many.
            assert!(
                groups.len() <= 32,
                "forms.txt:{line_no}: more than 32 groups"
            );
            let mut accepts: FxHashMap<&'static str, u32> = FxHashMap::default();
            let mut slot_mask: u32 = 0;
            for (i, g) in groups.iter().enumerate() {
                for o in &g.options {
                    *accepts.entry(o.strip_prefix('.').unwrap_or(o)).or_default() |= 1 << i;
                }
                if g.slot.is_some() {
                    slot_mask |= 1 << i;
                }
            }
            assert!(
                slot_mask.count_ones() <= 4,
                "forms.txt:{line_no}: more than 4 type slots"
            );
            let form = Form {
                accepts,
                slot_mask,
                groups: groups
                    .iter()
                    .map(|g| Group {
                        options: g.options.clone(),
                        required: g.required,
                        slot: g.slot,
                    })
                    .collect(),
                any_modifiers,
                operands: specs
                    .iter()
                    .map(|s| OperandSpec {
                        kind: s.kind,
                        ty: s.ty,
                        optional: s.optional,
                    })
                    .collect(),
                any_operands,
            };
            map.entry(opcode).or_default().push(form);
        }
    }
    map
}

/// Why modifiers did not match a form; the fewer problems, the closer the form.
#[derive(Debug)]
pub enum Mismatch {
    Unknown(String),
    Conflict(String, String),
    Missing(String),
    /// A type in a position whose slot takes others: (found, what the slot takes).
    WrongType(String, String),
}

impl Mismatch {
    pub fn message(&self, opcode: &str) -> String {
        match self {
            Mismatch::Unknown(m) => format!("`{m}` is not a valid modifier of `{opcode}` here"),
            Mismatch::Conflict(a, b) => {
                format!("`{a}` and `{b}` cannot be used together on `{opcode}`")
            }
            Mismatch::Missing(what) => format!("`{opcode}` needs {what}"),
            Mismatch::WrongType(found, takes) => {
                format!("`{found}` is not valid here: `{opcode}` takes {takes} in this position")
            }
        }
    }

    /// How far off a form is: a wrong type is nearer than an unknown modifier, so that
    /// `sust.p.2d.b64` is explained by the `sust.p` form rather than `sust.b`.
    pub fn weight(&self) -> u32 {
        match self {
            Mismatch::WrongType(..) => 1,
            _ => 2,
        }
    }
}

/// Assigns each modifier to a group of `form`; types fill type slots in written order.
pub fn match_modifiers<'m>(
    form: &Form,
    modifiers: impl Iterator<Item = &'m str>,
) -> Result<Matched, Vec<Mismatch>> {
    let mut filled: u32 = 0;
    let mut written: [&str; 32] = [""; 32];
    let mut problems = Vec::new();
    let mut modifiers = modifiers.peekable();
    while let Some(m) = modifiers.next() {
        let mut mask = form.accepts.get(&m[1..]).copied().unwrap_or(0);
        // `.a.b`, a group of modifiers that only come together (`.xorsign.abs`).
        if mask == 0 {
            if let Some(next) = modifiers.peek() {
                let joined = format!("{}{next}", &m[1..]);
                if let Some(&both) = form.accepts.get(joined.as_str()) {
                    mask = both;
                    modifiers.next();
                }
            }
        }
        // Types fill type slots strictly in order.
        if Type::from_modifier(m).is_some() {
            let next = form.slot_mask & !filled;
            match next.trailing_zeros() {
                i if i < 32 && mask & (1 << i) != 0 => {
                    filled |= 1 << i;
                    written[i as usize] = m;
                }
                _ if form.any_modifiers => {}
                i if i < 32 => problems.push(Mismatch::WrongType(
                    m.to_string(),
                    describe_group(&form.groups[i as usize]),
                )),
                _ => problems.push(Mismatch::Unknown(m.to_string())),
            }
            continue;
        }
        let candidates = mask & !form.slot_mask;
        let free = candidates & !filled;
        if free != 0 {
            let i = free.trailing_zeros();
            filled |= 1 << i;
            written[i as usize] = m;
        } else if !form.any_modifiers {
            problems.push(match candidates {
                0 => Mismatch::Unknown(m.to_string()),
                taken => Mismatch::Conflict(
                    written[taken.trailing_zeros() as usize].to_string(),
                    m.to_string(),
                ),
            });
        }
    }
    if !form.any_modifiers {
        for (i, g) in form.groups.iter().enumerate() {
            if g.required && filled & (1 << i) == 0 {
                problems.push(Mismatch::Missing(describe_group(g)));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut slots = [None; 4];
    let filled_slots = (0..form.groups.len())
        .filter(|&i| form.slot_mask & (1 << i) != 0 && filled & (1 << i) != 0);
    for (slot, i) in slots.iter_mut().zip(filled_slots) {
        *slot = Some((
            form.groups[i].slot.unwrap_or(""),
            Type::from_modifier(written[i]).unwrap_or(Type::from_name("b32").unwrap()),
        ));
    }
    Ok(Matched { slots })
}

fn describe_group(g: &Group) -> String {
    if g.slot.is_some() {
        let list: Vec<_> = g.options.iter().map(|o| format!("`.{o}`")).collect();
        return match list.as_slice() {
            [one] => one.clone(),
            _ => format!("one of {}", list.join(", ")),
        };
    }
    match g.options.as_slice() {
        [one] => format!("`{one}`"),
        many => {
            let list: Vec<_> = many.iter().map(|o| format!("`{o}`")).collect();
            format!("one of {}", list.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_every_opcode_has_forms() {
        let ops = opcodes();
        assert!(ops.len() > 100, "{} opcodes", ops.len());
        for op in ops {
            assert!(forms(op).is_some_and(|f| !f.is_empty()), "{op}");
        }
    }

    #[test]
    fn types_fill_slots_in_order() {
        let form = &forms("cvt").unwrap()[0];
        let m = match_modifiers(form, [".rn", ".f32", ".s32"].into_iter()).unwrap();
        assert_eq!(
            m.slots[..2],
            [
                Some(("D", Type::from_name("f32").unwrap())),
                Some(("A", Type::from_name("s32").unwrap()))
            ]
        );
    }

    #[test]
    fn conflicts_unknowns_and_missing_groups_are_reported() {
        let form = &forms("add").unwrap()[3]; // the f32 form
        let errs = match_modifiers(form, [".rn", ".rz", ".f32"].into_iter()).unwrap_err();
        assert!(matches!(&errs[0], Mismatch::Conflict(a, b) if a == ".rn" && b == ".rz"));
        let errs = match_modifiers(form, [".wide", ".f32"].into_iter()).unwrap_err();
        assert!(matches!(&errs[0], Mismatch::Unknown(m) if m == ".wide"));
        let errs = match_modifiers(form, [".rn"].into_iter()).unwrap_err();
        assert!(matches!(&errs[0], Mismatch::Missing(_)));
    }
}
