//! PTX's fundamental types and its operand type-checking rules (PTX ISA 5.2, 5.5).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Bits,
    Unsigned,
    Signed,
    Float,
    Pred,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Type {
    pub name: &'static str,
    pub bits: u16,
    pub class: Class,
}

macro_rules! types {
    ($($name:literal $bits:literal $class:ident),* $(,)?) => {
        /// Every type name PTX spells with a leading dot, without the dot.
        pub const TYPES: &[Type] = &[$(Type { name: $name, bits: $bits, class: Class::$class }),*];

        /// A match rather than a search of `TYPES`: every modifier of every instruction is
        /// looked up here.
        fn by_name(name: &str) -> Option<Type> {
            match name {
                $($name => Some(Type { name: $name, bits: $bits, class: Class::$class }),)*
                _ => None,
            }
        }
    };
}

types! {
    "b8" 8 Bits, "b16" 16 Bits, "b32" 32 Bits, "b64" 64 Bits, "b128" 128 Bits,
    "u8" 8 Unsigned, "u16" 16 Unsigned, "u32" 32 Unsigned, "u64" 64 Unsigned,
    "s8" 8 Signed, "s16" 16 Signed, "s32" 32 Signed, "s64" 64 Signed,
    "u16x2" 32 Unsigned, "s16x2" 32 Signed,
    "f16" 16 Float, "f16x2" 32 Float, "bf16" 16 Float, "bf16x2" 32 Float, "tf32" 32 Float,
    "f32" 32 Float, "f64" 64 Float,
    "e4m3x2" 16 Float, "e5m2x2" 16 Float,
    "pred" 1 Pred,
}

impl Type {
    /// `name` without its dot: `u32`.
    pub fn from_name(name: &str) -> Option<Type> {
        by_name(name)
    }

    /// A modifier with its dot: `.u32`.
    pub fn from_modifier(modifier: &str) -> Option<Type> {
        Type::from_name(modifier.strip_prefix('.')?)
    }

    /// Whether a register declared with type `self` may be an operand of an instruction of
    /// type `inst`. `relaxed` is the rule of ld, st and cvt, whose registers may be wider.
    pub fn fits_instruction(self, inst: Type, relaxed: bool) -> bool {
        if self.class == Class::Pred || inst.class == Class::Pred {
            return self.class == inst.class;
        }
        let size_ok = if relaxed {
            self.bits >= inst.bits
        } else {
            self.bits == inst.bits
        };
        let class_ok = match inst.class {
            Class::Bits => true,
            Class::Unsigned | Class::Signed => self.class != Class::Float || relaxed,
            Class::Float => matches!(self.class, Class::Float | Class::Bits) || relaxed,
            Class::Pred => unreachable!("handled above"),
        };
        // Registers are at least 16 bits wide, so 8-bit instruction types always take wider
        // registers (PTX ISA 5.2.2).
        let small_ok = inst.bits == 8 && self.bits >= 8;
        (size_ok || small_ok) && class_ok
    }

    /// The type of the same class and twice the width (`.u32` -> `.u64`).
    pub fn widened(self) -> Option<Type> {
        TYPES
            .iter()
            .copied()
            .find(|t| t.class == self.class && t.bits == self.bits * 2 && !t.name.contains('x'))
    }

    /// Whether an integer immediate (already negated if written with `-`) fits this type.
    pub fn fits_int(self, value: i128) -> bool {
        match self.class {
            // ptxas takes any of 0, 1 and -1 (all bits set) as a predicate immediate.
            Class::Pred => matches!(value, -1..=1),
            Class::Float => true,
            _ => {
                let bits = u32::from(self.bits.min(64));
                let fits = |v: i128| v >= -(1i128 << (bits - 1)) && v < (1i128 << bits);
                // ptxas reads a 64-bit literal such as 0xffffffffffffffff as -1 for any width.
                fits(value) || (value >= 1i128 << 63 && fits(i128::from(value as u64 as i64)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> Type {
        Type::from_name(name).unwrap()
    }

    #[test]
    fn register_compatibility_follows_ptx() {
        assert!(t("b32").fits_instruction(t("u32"), false));
        assert!(t("s32").fits_instruction(t("u32"), false));
        assert!(!t("f32").fits_instruction(t("u32"), false));
        assert!(t("b32").fits_instruction(t("f32"), false));
        assert!(!t("u32").fits_instruction(t("f32"), false));
        assert!(!t("u64").fits_instruction(t("u32"), false));
        assert!(t("u64").fits_instruction(t("u32"), true));
        assert!(t("u16").fits_instruction(t("u8"), false));
        assert!(!t("pred").fits_instruction(t("b32"), false));
        assert!(t("b16").fits_instruction(t("f16"), false));
    }

    #[test]
    fn immediate_ranges() {
        assert!(t("u16").fits_int(65535));
        assert!(!t("u16").fits_int(65536));
        assert!(t("s16").fits_int(-32768));
        assert!(!t("s16").fits_int(-32769));
        assert!(t("u32").fits_int(-1));
        assert!(t("b64").fits_int(u64::MAX as i128));
        assert!(!t("pred").fits_int(2));
        assert!(t("u32").fits_int(u64::MAX as i128));
        assert!(!t("u32").fits_int(1 << 40));
        assert_eq!(t("s32").widened(), Some(t("s64")));
    }
}
