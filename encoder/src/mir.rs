//! Machine IR: sgpu instructions already encoded, with their register fields still to fill.
//!
//! Lowering builds each instruction with the generated [`Op`] (so every form is one the ISA
//! table defines) using register 0 as a placeholder, encodes it, and records which fields name
//! which virtual registers. Because every field sits at a fixed place in the word, register
//! allocation then only writes numbers into those fields ([`sgpu_isa::set_field`]).

use sgpu_isa::{fields, FieldError, Instruction, PredSrc};

/// A virtual register: an index into the function's [`VRegs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// What a virtual register holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `size` consecutive 32-bit registers, the first aligned to `size` (1, 2 or 4).
    Gpr { size: u8 },
    /// A predicate register.
    Pred,
}

/// The virtual registers of one function.
#[derive(Default, Debug)]
pub struct VRegs {
    pub classes: Vec<Class>,
}

impl VRegs {
    pub fn new_reg(&mut self, class: Class) -> VReg {
        self.classes.push(class);
        VReg(self.classes.len() as u32 - 1)
    }
    pub fn class(&self, v: VReg) -> Class {
        self.classes[v.0 as usize]
    }
    pub fn len(&self) -> usize {
        self.classes.len()
    }
}

/// A register or predicate field's bits (least, most significant) in a byte each, to keep
/// slots small: a function's machine IR is one of the larger things the encoder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field(pub u8, pub u8);

/// The fields a [`Slot`] may name.
const SLOT_FIELDS: [sgpu_isa::Field; 9] = [
    fields::RD,
    fields::RA,
    fields::RB,
    fields::RC,
    fields::PG,
    fields::PD,
    fields::PQ,
    fields::PC,
    fields::PA,
];

impl Field {
    pub const fn of(f: sgpu_isa::Field) -> Field {
        Field(f.lsb, f.msb)
    }

    /// Whether the field names a predicate (else a general register).
    pub fn is_pred(self) -> bool {
        [fields::PG, fields::PD, fields::PQ, fields::PC, fields::PA]
            .iter()
            .any(|f| Field::of(*f) == self)
    }

    /// The ISA's field at these bits, to write a register number into with its range checked.
    pub fn isa(self) -> sgpu_isa::Field {
        *SLOT_FIELDS
            .iter()
            .find(|f| Field::of(**f) == self)
            .expect("slots name only register and predicate fields")
    }
}

/// A register field of an instruction and the virtual register it names: `part` selects a
/// register of a tuple (the high word of a 64-bit value is part 1); `width` is how many
/// consecutive registers the instruction reads or writes from there; `def` whether it is
/// written. Eight bytes: the allocator streams every instruction's slots several times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub reg: VReg,
    pub field: Field,
    /// `part` in bits 0-1, `width` in bits 2-4, `def` in bit 5.
    bits: u8,
}

impl Slot {
    /// What fills the unused slots of an instruction.
    const NONE: Slot = Slot {
        reg: VReg(0),
        field: Field(0, 0),
        bits: 0,
    };

    pub fn new(field: Field, reg: VReg, part: u8, width: u8, def: bool) -> Slot {
        debug_assert!(part < 4 && (1..=4).contains(&width));
        Slot {
            reg,
            field,
            bits: part | width << 2 | u8::from(def) << 5,
        }
    }
    pub fn part(&self) -> u8 {
        self.bits & 3
    }
    pub fn width(&self) -> u8 {
        self.bits >> 2 & 7
    }
    pub fn def(&self) -> bool {
        self.bits & 32 != 0
    }
    /// The same field and role, naming part `part` of `reg` instead.
    pub fn renamed(self, reg: VReg, part: u8) -> Slot {
        Slot::new(self.field, reg, part, self.width(), self.def())
    }
}

/// Where a branch or `SSY` goes, before code layout fixes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Label(u32),
    /// Past the end of the function: a reconvergence point no thread reaches.
    End,
}

/// An address the loader fills in: of a global variable or a function (into `MOV32I`'s
/// immediate), or of a called function (into `CALL`'s target).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reloc {
    /// Global variable `symbol` (an index of the layout's globals) plus `addend`; the high
    /// word of the 64-bit address, or the low.
    Global {
        symbol: u32,
        addend: i64,
        high: bool,
    },
    /// The function named by this index of the layout's functions.
    Call { function: u32 },
    /// The address of that function (a function pointer, `mov.u64 %rd, f`), high word or
    /// low, into `MOV32I`'s immediate.
    FunctionAddress { function: u32, high: bool },
}

/// The most register fields one instruction has (ATOM: rd, ra, rb, rc and the guard).
pub const MAX_SLOTS: usize = 6;

#[derive(Clone, Debug)]
pub struct MInst {
    pub word: u64,
    /// The first `nslots` are the instruction's register fields: a slice rather than
    /// options, since every pass of the allocator walks them.
    pub slots: [Slot; MAX_SLOTS],
    pub nslots: u8,
    pub target: Option<Target>,
    /// Boxed: few instructions have one, and this keeps every instruction smaller.
    pub reloc: Option<Box<Reloc>>,
    /// The PTX source line it came from.
    pub line: u32,
    /// The `.loc` file index and line in force there, or zeros.
    pub loc: (u32, u32),
    /// What else is known of it: [`Marks`].
    pub marks: Marks,
}

/// Facts about an instruction beyond its word, one bit each (the allocator streams every
/// instruction several times, so they share a byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks(u8);

impl Marks {
    /// A load or store of the outgoing call area, whose offset is known only once the frame
    /// is laid out: its `off24` is relative to the area.
    pub const OUTGOING: Marks = Marks(1);
    /// A `CALL`, whose `frame` field gets the outgoing area's offset.
    pub const CALL_FRAME: Marks = Marks(2);
    /// A guarded instruction whose destinations' old values no thread reads afterwards (the
    /// optimiser's if-conversion made it of a block's own temporaries, read only under the
    /// same guard): the allocator takes its writes as definitions, not as merges.
    pub const FRESH_DEFS: Marks = Marks(4);
    /// A load of memory that does not change while the kernel runs (`ld.global.nc`): running
    /// it again later gives the same value.
    pub const INVARIANT: Marks = Marks(8);

    pub fn has(self, m: Marks) -> bool {
        self.0 & m.0 != 0
    }

    pub fn set(&mut self, m: Marks, on: bool) {
        if on {
            self.0 |= m.0;
        } else {
            self.0 &= !m.0;
        }
    }
}

impl MInst {
    /// The instruction encoded, or the operand that does not fit its field.
    pub fn new(insn: Instruction, line: u32) -> Result<MInst, FieldError> {
        Ok(MInst::from_word(insn.encode()?, line))
    }

    /// An instruction already encoded, with no register fields bound yet.
    pub fn from_word(word: u64, line: u32) -> MInst {
        MInst {
            word,
            slots: [Slot::NONE; MAX_SLOTS],
            nslots: 0,
            target: None,
            reloc: None,
            line,
            loc: (0, 0),
            marks: Marks::default(),
        }
    }

    pub fn slots(&self) -> std::slice::Iter<'_, Slot> {
        self.slots[..usize::from(self.nslots)].iter()
    }

    pub fn push_slot(&mut self, slot: Slot) {
        let n = usize::from(self.nslots);
        assert!(
            n < MAX_SLOTS,
            "an instruction has at most MAX_SLOTS register fields"
        );
        self.slots[n] = slot;
        self.nslots += 1;
    }

    /// Drops the slots of fields that `keep` refuses (fields no longer naming a register).
    pub fn retain_slots(&mut self, mut keep: impl FnMut(&Slot) -> bool) {
        let mut n = 0;
        for i in 0..usize::from(self.nslots) {
            if keep(&self.slots[i]) {
                self.slots[n] = self.slots[i];
                n += 1;
            }
        }
        self.slots[n..].fill(Slot::NONE);
        self.nslots = n as u8;
    }

    /// Whether a virtual predicate guards it.
    pub fn guarded(&self) -> bool {
        self.slots().any(|s| s.field == Field::of(fields::PG))
    }

    /// Whether control never falls through to the next instruction.
    pub fn is_unconditional_jump(&self) -> bool {
        let op = sgpu_isa::field(self.word, fields::OP) as u8;
        is_jump_opcode(op) && self.always_runs()
    }

    /// Whether the guard is PT (not negated) and no virtual predicate guards it.
    pub fn always_runs(&self) -> bool {
        let pred = sgpu_isa::field(self.word, fields::PG) as u8;
        let neg = sgpu_isa::field(self.word, fields::PGN) != 0;
        !self.guarded() && pred == PredSrc::ALWAYS.pred.0 && !neg
    }

    pub fn opcode(&self) -> u8 {
        sgpu_isa::field(self.word, fields::OP) as u8
    }

    /// A `CALL` or `CALLR`: the callee may use every register.
    pub fn is_call(&self) -> bool {
        matches!(
            self.opcode(),
            sgpu_isa::opcodes::CALL | sgpu_isa::opcodes::CALLR
        )
    }
}

/// The opcodes after which a thread does not continue to the next instruction.
fn is_jump_opcode(op: u8) -> bool {
    use sgpu_isa::opcodes::*;
    matches!(op, BRA | EXIT | RET | TRAP)
}

// The allocator streams every instruction several times; keep the record small.
const _: () = assert!(std::mem::size_of::<Slot>() == 8);
const _: () = assert!(std::mem::size_of::<MInst>() <= 88);
