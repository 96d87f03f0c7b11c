//! The sgpu instruction set.
//!
//! `isa/sgpu.isa` defines every instruction once; `cargo xtask codegen` generates the typed
//! [`Op`] enum, [`Instruction::encode`], [`decode`], the printer ([`Instruction`]'s
//! `Display`) and [`parse`] into `generated.rs`, and the hardware's package and
//! `docs/isa.md` beside it. This file holds the operand types they share.

pub mod elf;
mod generated;
mod text;

pub use generated::*;

use std::fmt;

/// A general register R0..R254; R255 is RZ, which reads as zero and discards writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl Reg {
    pub const RZ: Reg = Reg(255);
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reg::RZ => f.write_str("RZ"),
            Reg(n) => write!(f, "R{n}"),
        }
    }
}

/// A predicate register P0..P6; P7 is PT, which reads as true and discards writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pred(pub u8);

impl Pred {
    pub const PT: Pred = Pred(7);
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Pred::PT => f.write_str("PT"),
            Pred(n) => write!(f, "P{n}"),
        }
    }
}

impl Msize {
    /// The bytes an access of this size moves.
    pub fn bytes(self) -> u32 {
        match self {
            Msize::U8 | Msize::S8 => 1,
            Msize::U16 | Msize::S16 => 2,
            Msize::B32 => 4,
            Msize::B64 => 8,
            Msize::B128 => 16,
        }
    }
}

/// A predicate read, possibly negated: a guard or a predicate source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PredSrc {
    pub pred: Pred,
    pub negated: bool,
}

impl PredSrc {
    /// `PT`: the guard of an instruction that always runs.
    pub const ALWAYS: PredSrc = PredSrc {
        pred: Pred::PT,
        negated: false,
    };
}

impl fmt::Display for PredSrc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("!")?;
        }
        write!(f, "{}", self.pred)
    }
}

/// An operand that is a register or, with the instruction's immediate flag, an 8-bit
/// unsigned immediate in the register field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegOrImm {
    Reg(Reg),
    Imm(u8),
}

impl fmt::Display for RegOrImm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegOrImm::Reg(r) => write!(f, "{r}"),
            RegOrImm::Imm(i) => write!(f, "{i:#x}"),
        }
    }
}

/// The surface a surface instruction accesses: a descriptor slot (a module's `.surfref`), or
/// a 64-bit handle in a register pair (PTX's indirect access).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    Slot(u8),
    Handle(Reg),
}

impl fmt::Display for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Surface::Slot(n) => write!(f, "S{n}"),
            Surface::Handle(r) => write!(f, "{r}"),
        }
    }
}

/// One instruction: the guard predicate every instruction has, and the operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub guard: PredSrc,
    pub op: Op,
}

impl Instruction {
    /// An instruction that always runs.
    pub fn new(op: Op) -> Instruction {
        Instruction {
            guard: PredSrc::ALWAYS,
            op,
        }
    }
}

impl RegOrImm {
    /// The register, if it is one.
    pub fn reg(self) -> Option<Reg> {
        match self {
            RegOrImm::Reg(r) => Some(r),
            RegOrImm::Imm(_) => None,
        }
    }
}

impl Surface {
    /// The register pair holding the handle, if the surface is named by one.
    pub fn reg(self) -> Option<Reg> {
        match self {
            Surface::Handle(r) => Some(r),
            Surface::Slot(_) => None,
        }
    }
}

/// Registers from `first` that an instruction reads or writes, named in `field`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegRole {
    pub field: Field,
    pub first: Reg,
    pub count: u8,
    pub write: bool,
}

/// A predicate an instruction reads or writes, named in `field`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredRole {
    pub field: Field,
    pub pred: Pred,
    pub write: bool,
}

/// What an instruction reads and writes besides memory ([`Op::roles`], generated from the
/// table's `role` lines): registers (RZ and immediates left out), predicates (PT left out;
/// the guard is not listed) and the carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    pub regs: [Option<RegRole>; 4],
    pub preds: [Option<PredRole>; 3],
    pub carry_read: bool,
    pub carry_write: bool,
}

impl Roles {
    fn reg(&mut self, field: Field, r: Option<Reg>, count: u8, write: bool) {
        if let Some(first) = r.filter(|&r| r != Reg::RZ) {
            if let Some(slot) = self.regs.iter_mut().find(|s| s.is_none()) {
                *slot = Some(RegRole {
                    field,
                    first,
                    count,
                    write,
                });
            }
        }
    }

    fn pred(&mut self, field: Field, pred: Pred, write: bool) {
        if pred != Pred::PT {
            if let Some(slot) = self.preds.iter_mut().find(|s| s.is_none()) {
                *slot = Some(PredRole { field, pred, write });
            }
        }
    }

    /// The registers written (an instruction writes one range at most).
    pub fn written(&self) -> Option<RegRole> {
        self.regs.iter().flatten().copied().find(|r| r.write)
    }

    /// The predicates written.
    pub fn written_preds(&self) -> impl Iterator<Item = Pred> + '_ {
        self.preds
            .iter()
            .flatten()
            .filter(|p| p.write)
            .map(|p| p.pred)
    }
}

/// Why a word is not an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// No instruction has this opcode.
    Opcode(u8),
    /// Bits the instruction does not use are set.
    Reserved { mnemonic: &'static str, bits: u64 },
    /// An enumerated field holds a value the table does not list.
    BadValue {
        mnemonic: &'static str,
        field: &'static str,
    },
    /// A register operand's fields make it span more than [`SPAN_MAX`] registers.
    Span {
        mnemonic: &'static str,
        operand: &'static str,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Opcode(op) => write!(f, "no instruction has opcode {op:#04x}"),
            DecodeError::Reserved { mnemonic, bits } => {
                write!(f, "{mnemonic}: reserved bits {bits:#018x} are set")
            }
            DecodeError::BadValue { mnemonic, field } => {
                write!(f, "{mnemonic}: field `{field}` holds no valid value")
            }
            DecodeError::Span { mnemonic, operand } => write!(
                f,
                "{mnemonic}: operand `{operand}` would span more than {SPAN_MAX} registers"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a line of assembly is not an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl ParseError {
    fn new(message: impl Into<String>) -> ParseError {
        ParseError(message.into())
    }
    fn missing(mnemonic: &str, field: &str) -> ParseError {
        ParseError(format!("`{mnemonic}` needs a `{field}` modifier"))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

impl std::str::FromStr for Instruction {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Instruction, ParseError> {
        parse(s)
    }
}

/// A field of the instruction word (the constants of [`fields`]): where it sits and which
/// values it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u8,
    pub msb: u8,
    /// Whether it holds a two's-complement value.
    pub signed: bool,
    /// Values are multiples of this (branch targets: whole instructions).
    pub align: u8,
}

impl Field {
    pub const fn width(self) -> u32 {
        (self.msb - self.lsb) as u32 + 1
    }

    /// Its bits in a word.
    pub const fn mask(self) -> u64 {
        (u64::MAX >> (64 - self.width())) << self.lsb
    }

    /// The least value it holds.
    pub const fn min(self) -> i64 {
        if self.signed {
            -(1 << (self.width() - 1))
        } else {
            0
        }
    }

    /// The greatest value it holds.
    pub const fn max(self) -> i64 {
        if self.signed {
            (1 << (self.width() - 1)) - 1
        } else {
            (1 << self.width()) - 1
        }
    }

    /// `value` as the field's bits, or why it has none. One compare and branch for the range
    /// (and one for the alignment of branch targets): the encoder runs this for every field
    /// of every instruction, in release builds too.
    #[inline(always)]
    pub fn bits(self, value: i64) -> Result<u64, FieldError> {
        // Alignments are powers of two (the table checker sees to it): a mask, not a division.
        let misaligned = value & (i64::from(self.align) - 1) != 0;
        if value < self.min() || value > self.max() || misaligned {
            return Err(FieldError { field: self, value });
        }
        Ok(value as u64 & (u64::MAX >> (64 - self.width())))
    }
}

/// A field of a record of 32-bit words the hardware reads from memory (a surface descriptor,
/// the launch record; see [`abi`] and docs/hw.md): bits `lsb..lsb + bits` of word `word`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// `record.member`, for messages.
    pub name: &'static str,
    pub word: usize,
    pub lsb: u32,
    pub bits: u32,
}

impl Member {
    /// The largest value the member holds.
    pub const fn max(self) -> u32 {
        u32::MAX >> (32 - self.bits)
    }

    /// The member's value in `words`, which must be the whole record.
    pub fn get(self, words: &[u32]) -> u32 {
        (words[self.word] >> self.lsb) & self.max()
    }

    /// Writes `value` into the member; a value wider than the member is an error, never cut.
    pub fn put(self, words: &mut [u32], value: u32) -> Result<(), String> {
        if value > self.max() {
            return Err(format!(
                "{} = {value} does not fit its {} bits (at most {})",
                self.name,
                self.bits,
                self.max()
            ));
        }
        let w = &mut words[self.word];
        *w = (*w & !(self.max() << self.lsb)) | (value << self.lsb);
        Ok(())
    }
}

/// A value that a field of the instruction word cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: Field,
    pub value: i64,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field;
        write!(
            f,
            "{} does not fit the {}-bit field `{}` ({}..={}",
            self.value,
            field.width(),
            field.name,
            field.min(),
            field.max()
        )?;
        if field.align > 1 {
            write!(f, ", a multiple of {}", field.align)?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for FieldError {}

/// Writes `value` into `field` of an encoded word: how the assembler fills in registers,
/// branch targets and frame offsets once they are known. A value the field cannot hold is an
/// error, never truncated.
#[inline(always)]
pub fn set_field(word: &mut u64, field: Field, value: i64) -> Result<(), FieldError> {
    let bits = field.bits(value)?;
    put(word, usize::from(field.lsb), usize::from(field.msb), bits);
    Ok(())
}

/// Reads `field` of an encoded word, as its raw bits.
pub fn field(word: u64, field: Field) -> u64 {
    get(word, usize::from(field.lsb), usize::from(field.msb))
}

/// Writes `value`, which fits (checked by [`Field::bits`] or by the field's width), into bits
/// `lsb..=msb` of `word`.
///
/// Plain shifts and masks: bitvec's slice stores, which the tests check these against, made
/// all of encoding (lowering, allocation, ELF) 1.3x slower, even inlined.
fn put(word: &mut u64, lsb: usize, msb: usize, value: u64) {
    let mask = u64::MAX >> (63 - (msb - lsb));
    *word = (*word & !(mask << lsb)) | ((value & mask) << lsb);
}

/// Reads bits `lsb..=msb` of `word`.
fn get(word: u64, lsb: usize, msb: usize) -> u64 {
    (word >> lsb) & (u64::MAX >> (63 - (msb - lsb)))
}

/// `value` when it is a multiple of `align` (a power of two): how the decoder checks a field
/// with an alignment.
fn aligned(value: u64, align: u64) -> Option<u64> {
    (value & (align - 1) == 0).then_some(value)
}

/// A `width`-bit two's-complement field as i32.
fn sign_extend(value: u64, width: u32) -> i32 {
    let shift = 64 - width;
    ((value << shift) as i64 >> shift) as i32
}

#[cfg(test)]
mod tests;
