//! The PTX front end of ptxas-rs: lexer, parser, typed syntax tree, checker and formatter.
//!
//! `grammar` knows nothing of encodings or of the sgpu machine; it accepts PTX as NVIDIA
//! defines it and reports what is malformed. What the hardware cannot run is the encoder's
//! business.

pub mod ast;
pub mod diag;
pub mod fmt;
pub mod lexer;
pub mod parse;
pub mod scope;

pub use check::check;
pub use diag::{Diagnostic, Severity};
pub use fmt::format_module;
pub use parse::{parse, parse_expr};
pub mod check;
