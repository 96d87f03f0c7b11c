//! Rematerialisation: a value the scan sent to memory is computed again before each
//! instruction that reads it, instead of being stored after its definition and loaded back,
//! when its definition reads no register and gives the same value wherever it runs. That
//! saves every spill store and the spill slot; each load becomes the recomputation (one
//! instruction either way). Values live across calls, which all go to memory (the callee
//! may use every register), are most of them.
//!
//! Such definitions: `MOV32I` of a constant (not a relocated address), `LDC` at a constant
//! offset (constant banks do not change during a kernel), `S2R` of anything but the clock;
//! in a called function, `LD.LOCAL` at a constant offset of its own frame that nothing in the
//! function writes (its parameters, which its caller wrote before the call) while no local
//! address is taken in it (so no callee can write there either); and a load of memory that
//! does not change during the kernel (`ld.global.nc`) whose address register is written once
//! and is still in its register at every read of the value: [`extend_addresses`] keeps it
//! there, at the cost of the address's register, before the scan runs again.

use super::Home;
use crate::mir::{Class, MInst, Marks, VRegs};
use sgpu_isa::{fields, opcodes, Op, Reg, Space, Sreg};

/// The defining instruction of each virtual register written exactly once, by an
/// instruction that always runs and writes nothing else.
fn single_defs(code: &[MInst], vregs: &VRegs) -> Vec<Option<usize>> {
    let mut defs = vec![0u32; vregs.len()];
    let mut def_at = vec![usize::MAX; vregs.len()];
    for (i, m) in code.iter().enumerate() {
        for s in m.slots().filter(|s| s.def()) {
            defs[s.reg.0 as usize] += 1;
            def_at[s.reg.0 as usize] = i;
        }
    }
    (0..vregs.len())
        .map(|v| {
            let m = code.get(def_at[v])?;
            let d = m.slots().find(|s| s.def())?;
            let whole = match vregs.classes[v] {
                Class::Gpr { size } => d.part() == 0 && d.width() == size,
                Class::Pred => false,
            };
            let one = m.slots().filter(|s| s.def()).count() == 1;
            (defs[v] == 1 && whole && one && m.always_runs()).then_some(def_at[v])
        })
        .collect()
}

/// The register the recomputation of `m` reads (an invariant load's address), if any, when
/// `m` can be repeated at all.
fn operand(m: &MInst, frame: &Frame) -> Option<Option<crate::mir::Slot>> {
    let reads: Vec<_> = m.slots().filter(|s| !s.def()).copied().collect();
    match reads.as_slice() {
        [] if repeatable(m, frame) => Some(None),
        [a] if m.marks.has(Marks::INVARIANT) && a.field.isa() == fields::RA => Some(Some(*a)),
        _ => None,
    }
}

/// What rematerialisation knows of a function: each value's one definition, and what the
/// function does with its frame. Built once, when something spilled.
pub struct Candidates {
    defs: Vec<Option<usize>>,
    frame: Frame,
}

impl Candidates {
    pub fn of(code: &[MInst], vregs: &VRegs, entry: bool) -> Candidates {
        Candidates {
            defs: single_defs(code, vregs),
            frame: Frame::of(code, entry),
        }
    }

    /// Lengthens the interval of each register holding the address of an invariant load
    /// whose value the scan spilled, up to that value's last read, so that the load can be
    /// repeated there instead; whether any grew (the scan must then run again).
    pub fn extend_addresses(
        &self,
        code: &[MInst],
        homes: &[Home],
        ranges: &mut [Option<(u32, u32)>],
    ) -> bool {
        let defs = &self.defs;
        let mut grew = false;
        for v in 0..homes.len() {
            let (Home::Spilled(_), Some(d), Some((_, end))) = (homes[v], defs[v], ranges[v]) else {
                continue;
            };
            let Some(Some(a)) = operand(&code[d], &self.frame) else {
                continue;
            };
            let a = a.reg.0 as usize;
            if let (Some(_), Some((start, a_end))) = (defs[a], ranges[a]) {
                if a_end < end {
                    ranges[a] = Some((start, end));
                    grew = true;
                }
            }
        }
        grew
    }

    /// Turns every spilled value whose definition can be repeated before its reads into
    /// `Home::Remat`: one reading no register, or an invariant load whose address register
    /// holds its one value, in a register, up to the spilled value's last read.
    pub fn apply(&self, code: &[MInst], homes: &mut [Home], ranges: &[Option<(u32, u32)>]) {
        let defs = &self.defs;
        for v in 0..homes.len() {
            let (Home::Spilled(_), Some(d), Some((_, end))) = (homes[v], defs[v], ranges[v]) else {
                continue;
            };
            let m = &code[d];
            let word = match operand(m, &self.frame) {
                Some(None) => m.word,
                Some(Some(a)) => {
                    let at = a.reg.0 as usize;
                    let (Home::Reg(r), Some(_), Some((_, a_end))) =
                        (homes[at], defs[at], ranges[at])
                    else {
                        continue;
                    };
                    let mut word = m.word;
                    let reg = i64::from(r + u32::from(a.part()));
                    if a_end < end || sgpu_isa::set_field(&mut word, fields::RA, reg).is_err() {
                        continue;
                    }
                    word
                }
                None => continue,
            };
            homes[v] = Home::Remat(word);
        }
    }
}

/// What the function does with its own frame.
struct Frame {
    /// A called function that takes no local address: only `[RZ+offset]` reaches its frame.
    closed: bool,
    /// Byte ranges of the frame it stores to.
    written: Vec<(i64, i64)>,
}

impl Frame {
    fn of(code: &[MInst], entry: bool) -> Frame {
        let mut f = Frame {
            closed: !entry,
            written: Vec::new(),
        };
        for m in code {
            // Only these can take an address or reach the frame.
            let relevant = matches!(
                m.opcode(),
                opcodes::S2R | opcodes::LD | opcodes::ST | opcodes::ATOM | opcodes::RED
            );
            if !relevant {
                continue;
            }
            let Ok(insn) = sgpu_isa::decode(m.word) else {
                f.closed = false;
                continue;
            };
            match insn.op {
                Op::S2r {
                    sreg: Sreg::Frame, ..
                } => f.closed = false,
                Op::St {
                    ra: Reg::RZ,
                    off24,
                    space: Space::Local,
                    msize,
                    labs: false,
                    ..
                } if !m.marks.has(Marks::OUTGOING) => {
                    let at = i64::from(off24);
                    f.written.push((at, at + bytes(msize)));
                }
                Op::St { space, .. } | Op::Atom { space, .. } | Op::Red { space, .. }
                    if matches!(space, Space::Local | Space::Generic)
                        && !m.marks.has(Marks::OUTGOING) =>
                {
                    f.closed = false
                }
                Op::Ld { labs: true, .. } | Op::St { labs: true, .. } => f.closed = false,
                _ => {}
            }
        }
        f
    }

    /// Whether `[offset, offset + size)` of the frame keeps what the caller put there.
    fn unchanged(&self, offset: i64, size: i64) -> bool {
        self.closed
            && self
                .written
                .iter()
                .all(|&(a, b)| b <= offset || offset + size <= a)
    }
}

fn bytes(msize: sgpu_isa::Msize) -> i64 {
    i64::from(msize.bytes())
}

/// Whether running `m` again anywhere in the function gives the value it gave.
fn repeatable(m: &MInst, frame: &Frame) -> bool {
    if m.reloc.is_some() || m.marks.has(Marks::OUTGOING) || m.marks.has(Marks::CALL_FRAME) {
        return false;
    }
    let Ok(insn) = sgpu_isa::decode(m.word) else {
        return false;
    };
    match insn.op {
        Op::Mov32i { .. } => true,
        Op::Ldc { ra: Reg::RZ, .. } => true,
        Op::S2r { sreg, .. } => !matches!(sreg, Sreg::Clock | Sreg::ClockHi | Sreg::Clock64),
        Op::Ld {
            ra: Reg::RZ,
            off24,
            space: Space::Local,
            msize,
            labs: false,
            ..
        } => frame.unchanged(i64::from(off24), bytes(msize)),
        _ => false,
    }
}

/// `word` with its destination set to `r`: the recomputation before a use.
pub fn recompute(word: u64, r: u32, line: u32) -> Result<MInst, sgpu_isa::FieldError> {
    let mut word = word;
    sgpu_isa::set_field(&mut word, fields::RD, i64::from(r))?;
    debug_assert_ne!(
        sgpu_isa::field(word, fields::OP) as u8,
        opcodes::NOP,
        "a recomputation is a real instruction"
    );
    Ok(MInst::from_word(word, line))
}
