//! The ISA table and the files generated from it.

pub mod decode_sv;
pub mod doc;
pub mod roles;
pub mod rust;
pub mod sv;
pub mod table;
