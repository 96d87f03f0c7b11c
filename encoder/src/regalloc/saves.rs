//! The callee's half of the calling convention (docs/hw.md): a called function that writes
//! a callee-saved register stores it in its frame on entry and loads it back before each
//! `RET` (under the `RET`'s guard), so that its caller finds the register as it left it. A
//! kernel has no caller and saves nothing.

use super::{local, msize, slot_offset};
use crate::mir::MInst;
use sgpu_isa::{fields, opcodes, FieldError, Op, Reg, Space};

/// The code with the saves and restores, each old instruction's new index (the entry's and a
/// `RET`'s naming the code put before them, so that a branch to a `RET` restores too, but
/// a loop back to the first instruction does not save again), the bytes of save slots, and
/// the bytes stored and loaded.
pub type Saved = (Vec<MInst>, Vec<usize>, u32, (u32, u32));

/// Adds the saves of the callee-saved registers (from `saved_from`) that `code` writes, in
/// slots from `slot_base`.
pub fn save_registers(
    code: Vec<MInst>,
    saved_from: u32,
    slot_base: u32,
) -> Result<Saved, FieldError> {
    let mut written: Vec<u32> = Vec::new();
    for m in &code {
        let Ok(insn) = sgpu_isa::decode(m.word) else {
            continue;
        };
        if let Some(w) = insn.op.roles().written() {
            for k in 0..u32::from(w.count) {
                let r = u32::from(w.first.0) + k;
                if r >= saved_from && r != u32::from(Reg::RZ.0) && !written.contains(&r) {
                    written.push(r);
                }
            }
        }
    }
    let n = code.len();
    if written.is_empty() {
        return Ok((code, (0..=n).collect(), 0, (0, 0)));
    }
    written.sort_unstable();
    let slot = |k: usize| slot_base + 4 * k as u32;
    let access = |store: bool, r: u32, at: u32, line: u32| {
        let (rd, ra, off24) = (Reg(r as u8), Reg::RZ, slot_offset(at, 0)?);
        let (space, msize, cop, e, labs) =
            (Space::Local, msize(1), Default::default(), false, false);
        let op = if store {
            Op::St {
                ra,
                off24,
                rd,
                space,
                msize,
                cop,
                e,
                labs,
            }
        } else {
            Op::Ld {
                rd,
                ra,
                off24,
                space,
                msize,
                cop,
                e,
                labs,
            }
        };
        local(op, line)
    };
    let mut out = Vec::with_capacity(n + written.len() * 2);
    let line = code.first().map_or(0, |m| m.line);
    for (k, &r) in written.iter().enumerate() {
        out.push(access(true, r, slot(k), line)?);
    }
    let mut new_index = Vec::with_capacity(n + 1);
    let mut returns = 0;
    for m in code {
        new_index.push(out.len());
        if m.opcode() == opcodes::RET {
            returns += 1;
            for (k, &r) in written.iter().enumerate() {
                let mut restore = access(false, r, slot(k), m.line)?;
                // Under the RET's own guard: threads that do not return keep their values.
                for f in [fields::PG, fields::PGN] {
                    sgpu_isa::set_field(&mut restore.word, f, sgpu_isa::field(m.word, f) as i64)?;
                }
                restore.loc = m.loc;
                out.push(restore);
            }
        }
        out.push(m);
    }
    new_index.push(out.len());
    let bytes = 4 * written.len() as u32;
    Ok((out, new_index, bytes, (bytes, bytes * returns)))
}
