//! The sgpu golden model: a functional simulator that executes the machine code of an sgpu
//! ELF file and defines what every instruction does.

pub mod video;
