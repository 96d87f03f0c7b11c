//! sgpu's f64 runtime: the functions f64 instructions are lowered to calls of
//! (`lower/double.rs`), and what linking them into a module takes (docs/f64.md).
//!
//! The runtime is PTX (`runtime/f64.ptx`, compiled by `cargo xtask codegen` from
//! `runtime/f64.cu`), parsed once per process and assembled with each module as its own
//! functions are: a module's layout knows every runtime function, and those its code calls,
//! directly or through another runtime function, are lowered after its own and written into
//! its ELF. Their line table names lines of the runtime's file (`FILE`, index `FILE_INDEX`).

use ptx_grammar::ast::{Function, Item, Module};
use std::sync::OnceLock;

/// The runtime's PTX.
pub const SOURCE: &str = include_str!("../runtime/f64.ptx");

/// The runtime's path in an ELF's `.sgpu.files`.
pub const FILE: &str = "<sgpu runtime>/f64.ptx";

/// The runtime's index in `.sgpu.files`, past any `.file` index a module's PTX can give
/// (docs/elf.md).
pub const FILE_INDEX: u32 = u32::MAX;

/// The runtime, parsed.
pub fn module() -> &'static Module<'static> {
    static MODULE: OnceLock<Module<'static>> = OnceLock::new();
    MODULE.get_or_init(|| {
        let (module, diags) = ptx_grammar::parse(SOURCE);
        debug_assert!(diags.is_empty(), "the runtime parses cleanly");
        module
    })
}

/// The runtime function defined as `name`.
pub fn function(name: &str) -> Option<&'static Function<'static>> {
    module().items.iter().find_map(|item| match item {
        Item::Function(f) if f.name.text == name && f.body.is_some() => Some(&**f),
        _ => None,
    })
}

/// The runtime's entry points, each lowering one family of f64 instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    /// `(a, b, flags) -> a + b` (NEG: a - b)
    Add,
    /// `(a, b, flags) -> a x b`
    Mul,
    /// `(a, b, c, flags) -> a x b + c`, rounded once
    Fma,
    /// `(a, b, flags) -> a / b`
    Div,
    /// `(a, flags) -> sqrt(a)`
    Sqrt,
    /// `(a, flags) -> 1 / sqrt(a)`, approximately
    Rsqrt,
    /// `(a, b, max) -> min or max`
    MinMax,
    /// `(a, b) -> CMP_* bits`
    Cmp,
    /// `(a) -> CLASS_* bits`
    Class,
    /// `(a, flags) -> f32 bits`
    ToF32,
    /// `(f32 bits, flags) -> f64`
    FromF32,
    /// `(a, flags, ity) -> integer`
    ToInt,
    /// `(x, flags, signed) -> f64`
    FromInt,
    /// `(a, flags) -> f64` (INTEGRAL, SAT)
    ToF64,
}

impl Routine {
    /// The runtime function's name.
    pub fn name(self) -> &'static str {
        match self {
            Routine::Add => "__sgpu_f64_add",
            Routine::Mul => "__sgpu_f64_mul",
            Routine::Fma => "__sgpu_f64_fma",
            Routine::Div => "__sgpu_f64_div",
            Routine::Sqrt => "__sgpu_f64_sqrt",
            Routine::Rsqrt => "__sgpu_f64_rsqrt",
            Routine::MinMax => "__sgpu_f64_minmax",
            Routine::Cmp => "__sgpu_f64_cmp",
            Routine::Class => "__sgpu_f64_class",
            Routine::ToF32 => "__sgpu_f64_to_f32",
            Routine::FromF32 => "__sgpu_f32_to_f64",
            Routine::ToInt => "__sgpu_f64_to_int",
            Routine::FromInt => "__sgpu_int_to_f64",
            Routine::ToF64 => "__sgpu_f64_to_f64",
        }
    }
}

/// The bits of a runtime function's `flags` argument, as `runtime/f64.cu` defines them (a
/// test reads them there). The rounding mode takes bits 2:0, numbered as sgpu's `rnd`
/// field, with `RO` (round to odd) after them.
pub mod flags {
    pub const RO: u32 = 4;
    pub const FTZ: u32 = 8;
    pub const SAT: u32 = 16;
    pub const NEG: u32 = 32;
    pub const INTEGRAL: u32 = 64;
}

/// What `__sgpu_f64_cmp` returns: one of these.
pub mod cmp {
    pub const LT: u32 = 1;
    pub const EQ: u32 = 2;
    pub const GT: u32 = 4;
    pub const UNORDERED: u32 = 8;
}

/// What `__sgpu_f64_class` returns: the bits that hold.
pub mod class {
    pub const FINITE: u32 = 1;
    pub const INFINITE: u32 = 2;
    pub const NUMBER: u32 = 4;
    pub const NOTANUMBER: u32 = 8;
    pub const NORMAL: u32 = 16;
    pub const SUBNORMAL: u32 = 32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `#define NAME VALUE` of the runtime's C source.
    fn defined(name: &str) -> u32 {
        let source = include_str!("../runtime/f64.cu");
        let value = source
            .lines()
            .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("f64.cu defines {name}"));
        value
            .trim()
            .trim_end_matches('u')
            .parse()
            .expect("a number")
    }

    #[test]
    fn constants_are_the_c_sources() {
        let pairs = [
            ("FTZ", flags::FTZ),
            ("SAT", flags::SAT),
            ("NEG", flags::NEG),
            ("INTEGRAL", flags::INTEGRAL),
            ("CMP_LT", cmp::LT),
            ("CMP_EQ", cmp::EQ),
            ("CMP_GT", cmp::GT),
            ("CMP_UNORDERED", cmp::UNORDERED),
            ("CLASS_FINITE", class::FINITE),
            ("CLASS_INFINITE", class::INFINITE),
            ("CLASS_NUMBER", class::NUMBER),
            ("CLASS_NOTANUMBER", class::NOTANUMBER),
            ("CLASS_NORMAL", class::NORMAL),
            ("CLASS_SUBNORMAL", class::SUBNORMAL),
        ];
        for (name, value) in pairs {
            assert_eq!(defined(name), value, "{name}");
        }
        let source = include_str!("../runtime/f64.cu");
        assert!(source.contains("enum { RN = 0, RZ = 1, RM = 2, RP = 3, RO = 4 };"));
    }

    #[test]
    fn every_routine_is_defined_and_checks_cleanly() {
        let (module, diags) = ptx_grammar::parse(SOURCE);
        assert!(diags.is_empty(), "{diags:?}");
        let diags = ptx_grammar::check::check(&module);
        assert!(diags.is_empty(), "{diags:?}");
        use Routine::*;
        for r in [
            Add, Mul, Fma, Div, Sqrt, Rsqrt, MinMax, Cmp, Class, ToF32, FromF32, ToInt, FromInt,
            ToF64,
        ] {
            assert!(function(r.name()).is_some(), "{}", r.name());
        }
    }
}
