//! sgpu's runtime: libraries of ordinary sgpu code that the assembler links into a module
//! that needs them, as libgcc serves CPUs: the f64 runtime, the functions f64 instructions
//! are lowered to calls of (`lower/double.rs`, docs/f64.md), and the printf runtime, CUDA's
//! `vprintf` (docs/hw.md, "Device printf").
//!
//! Each library is PTX (`runtime/NAME.ptx`, compiled by `cargo xtask codegen` from
//! `runtime/NAME.cu`), parsed once per process and assembled with a module as its own
//! functions are: a module's layout knows every function of the libraries it is assembled
//! with, and those its code calls, directly or through another runtime function, are
//! lowered after its own and written into its ELF. Their line table names lines of the
//! library's file ([`Library::file`], index [`Library::file_index`]).

use ptx_grammar::ast::{Function, Item, Module};
use std::sync::OnceLock;

/// One library of the runtime.
pub struct Library {
    /// Its name in messages: "f64" for "the f64 runtime".
    pub name: &'static str,
    /// Its PTX.
    pub source: &'static str,
    /// Its path in an ELF's `.sgpu.files`.
    pub file: &'static str,
    /// Its index in `.sgpu.files`, past any `.file` index a module's PTX can give
    /// (docs/elf.md).
    pub file_index: u32,
    module: OnceLock<Module<'static>>,
}

/// The f64 runtime (docs/f64.md), which every module is assembled with: any f64 instruction
/// may call it.
pub static F64: Library = Library {
    name: "f64",
    source: include_str!("../runtime/f64.ptx"),
    file: "<sgpu runtime>/f64.ptx",
    file_index: u32::MAX,
    module: OnceLock::new(),
};

/// The printf runtime: `vprintf`, for a module that declares it (docs/hw.md, "Device
/// printf").
pub static PRINTF: Library = Library {
    name: "printf",
    source: include_str!("../runtime/printf.ptx"),
    file: "<sgpu runtime>/printf.ptx",
    file_index: u32::MAX - 1,
    module: OnceLock::new(),
};

/// Every library of the runtime.
pub const LIBRARIES: [&Library; 2] = [&F64, &PRINTF];

/// The function CUDA compilers call for `printf`, which the printf runtime defines.
pub const VPRINTF: &str = "vprintf";

impl Library {
    /// The library, parsed.
    pub fn module(&'static self) -> &'static Module<'static> {
        self.module.get_or_init(|| {
            let (module, diags) = ptx_grammar::parse(self.source);
            debug_assert!(diags.is_empty(), "the runtime parses cleanly");
            module
        })
    }

    /// The function the library defines as `name`.
    pub fn function(&'static self, name: &str) -> Option<&'static Function<'static>> {
        self.module().items.iter().find_map(|item| match item {
            Item::Function(f) if f.name.text == name && f.body.is_some() => Some(&**f),
            _ => None,
        })
    }

    /// Whether the library defines `name`, a function or a module-scope variable.
    pub fn defines(&'static self, name: &str) -> bool {
        self.function(name).is_some()
            || self.module().items.iter().any(|item| match item {
                Item::Var(v) => v.declarators.iter().any(|d| d.name.text == name),
                _ => false,
            })
    }
}

/// The libraries `module` is assembled with: the f64 runtime always, and the printf runtime
/// when the module declares `vprintf` without defining it (a module may bring its own).
pub fn libraries_for(module: &Module<'_>) -> Vec<&'static Library> {
    let mut libraries = vec![&F64];
    let vprintf = || {
        module.items.iter().filter_map(|item| match item {
            Item::Function(f) if f.name.text == VPRINTF => Some(f),
            _ => None,
        })
    };
    if vprintf().next().is_some() && vprintf().all(|f| f.body.is_none()) {
        libraries.push(&PRINTF);
    }
    libraries
}

/// The f64 runtime's entry points, each lowering one family of f64 instructions.
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

    /// The `#define NAME VALUE` of a library's C source.
    fn defined(source: &str, name: &str) -> i64 {
        let value = source
            .lines()
            .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("the C source defines {name}"));
        value
            .trim()
            .trim_end_matches('u')
            .parse()
            .expect("a number")
    }

    #[test]
    fn constants_are_the_c_sources() {
        let source = include_str!("../runtime/f64.cu");
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
            assert_eq!(defined(source, name), i64::from(value), "{name}");
        }
        assert!(source.contains("enum { RN = 0, RZ = 1, RM = 2, RP = 3, RO = 4 };"));
    }

    /// The printf runtime writes the buffer the host reads (`sgpu_sim::printf`): one ABI.
    #[test]
    fn the_printf_abi_is_the_c_sources() {
        use sgpu_sim::printf::abi;
        let source = include_str!("../runtime/printf.cu");
        let pairs = [
            ("HEADER_BYTES", abi::HEADER_BYTES),
            ("RECORD_BYTES", abi::RECORD_BYTES),
            ("MAX_ARGS", abi::MAX_ARGS.into()),
        ];
        for (name, value) in pairs {
            assert_eq!(defined(source, name), value as i64, "{name}");
        }
        assert_eq!(defined(source, "NO_FORMAT"), abi::NO_FORMAT.into());
        assert_eq!(defined(source, "DROPPED"), abi::DROPPED.into());
        assert!(PRINTF.defines(abi::BUFFER_SYMBOL));
        let members = [
            "u64 cursor;",
            "u32 capacity;",
            "u32 dropped;",
            "u32 size;",
            "u32 args;",
            "u64 format;",
        ];
        for m in members {
            assert!(source.contains(m), "{m}");
        }
    }

    #[test]
    fn every_library_checks_cleanly() {
        for library in LIBRARIES {
            let (module, diags) = ptx_grammar::parse(library.source);
            assert!(diags.is_empty(), "{}: {diags:?}", library.name);
            let diags = ptx_grammar::check::check(&module);
            assert!(diags.is_empty(), "{}: {diags:?}", library.name);
        }
        use Routine::*;
        for r in [
            Add, Mul, Fma, Div, Sqrt, Rsqrt, MinMax, Cmp, Class, ToF32, FromF32, ToInt, FromInt,
            ToF64,
        ] {
            assert!(F64.function(r.name()).is_some(), "{}", r.name());
        }
        assert!(PRINTF.function(VPRINTF).is_some());
    }

    #[test]
    fn the_printf_runtime_comes_with_a_declared_vprintf_only() {
        let libraries = |text: &str| {
            let (module, _) = ptx_grammar::parse(text);
            libraries_for(&module)
                .iter()
                .map(|l| l.name)
                .collect::<Vec<_>>()
        };
        let head = ".version 7.0\n.target sm_80\n.address_size 64\n";
        let declared = ".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);";
        let defined = ".func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b) { ret; }";
        assert_eq!(libraries(head), ["f64"]);
        assert_eq!(libraries(&format!("{head}{declared}")), ["f64", "printf"]);
        assert_eq!(libraries(&format!("{head}{defined}")), ["f64"]);
    }
}
