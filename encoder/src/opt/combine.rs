//! Instruction combining: a multiply feeding an add becomes one multiply-add; the 64-bit
//! idioms of address arithmetic (a widening multiply, alone or added to a 64-bit base)
//! become one `IMADW` (docs/adr/0006-wide-multiply-add-and-ffma-immediate.md); and a
//! comparison whose only use is a predicate operation takes that operation in (`ISETP` and
//! `FSETP` combine their result with a predicate).
//!
//! An instruction is rewritten in place of the last one it replaces, reading the operands
//! the first one read; those are SSA values, so they hold the same there. What it replaces
//! is left to dead-code elimination, except the low half of a 64-bit add, which `IMADW`
//! now writes and which is deleted here.

use super::defuse::DefUse;
use super::rewrite::{decoded, delete, deleted, plain_add};
use crate::mir::{Field, MInst, Slot};
use sgpu_isa::{fields, opcodes, Instruction, Op, Reg, RegOrImm};

/// Combines what it can; whether anything changed.
pub fn combine(code: &mut [MInst], du: &DefUse) -> bool {
    let mut changed = false;
    // Adds first: a widening product that an add takes in goes into that add's IMADW,
    // rather than into one of its own.
    for i in 0..code.len() {
        if deleted(&code[i]) || !code[i].always_runs() {
            continue;
        }
        changed |= match code[i].opcode() {
            opcodes::IADD => multiply_add(code, du, i) || wide_add(code, du, i),
            opcodes::PLOP => compare_and_combine(code, du, i),
            opcodes::SHF => sign_extended_shift(code, du, i),
            _ => false,
        };
    }
    for i in 0..code.len() {
        let op = code[i].opcode();
        let product = op == opcodes::IMUL || op == opcodes::SHL;
        if !deleted(&code[i]) && code[i].always_runs() && product {
            changed |= wide_product(code, du, i);
        }
    }
    changed
}

/// The slot of `m` in `field`.
fn slot(m: &MInst, field: sgpu_isa::Field) -> Option<Slot> {
    m.slots().find(|s| s.field == Field::of(field)).copied()
}

/// The instruction defining the SSA value read in `field` of `m`, if the read is of one
/// location and that location has a defining instruction that always runs.
fn producer<'c>(
    code: &'c [MInst],
    du: &DefUse,
    m: &MInst,
    field: sgpu_isa::Field,
) -> Option<(usize, &'c MInst)> {
    let s = slot(m, field)?;
    let l = du.locs.of(&s).start;
    let d = du.def(l).filter(|_| s.width() == 1)?;
    let p = &code[d];
    (!deleted(p) && p.always_runs()).then_some((d, p))
}

/// Whether every register the instruction at `at` reads holds the same value at `to`, a
/// later instruction: an SSA value does, and so does one that nothing writes between them
/// within one block.
fn reads_hold(code: &[MInst], du: &DefUse, at: usize, to: usize) -> bool {
    code[at]
        .slots()
        .filter(|s| !s.def())
        .all(|s| du.locs.of(s).all(|l| holds(code, du, l, at, to)))
}

/// Whether location `l` holds the same value at instruction `to` as at `at`.
fn holds(code: &[MInst], du: &DefUse, l: usize, at: usize, to: usize) -> bool {
    let block = &du.cfg.block_of;
    let writes = |m: &MInst| m.slots().any(|s| s.def() && du.locs.of(s).contains(&l));
    du.ssa(l) || (at < to && block[at] == block[to] && !code[at + 1..to].iter().any(writes))
}

/// What a multiply (or a shift by a constant) computes, as `ra * rb`: the low word.
fn multiplier(m: &MInst) -> Option<RegOrImm> {
    match decoded(m).op {
        Op::Imul { rb, hi: false, .. } => Some(rb),
        Op::Shl {
            rb: RegOrImm::Imm(k),
            ..
        } if k < 8 => Some(RegOrImm::Imm(1 << k)),
        _ => None,
    }
}

/// `IADD d = t + c` with `t = a * b` (or `a << k`): `IMAD d = a * b + c`.
fn multiply_add(code: &mut [MInst], du: &DefUse, i: usize) -> bool {
    let Some((rd, ra, rb)) = plain_add(decoded(&code[i]).op) else {
        return false;
    };
    // The product may be either operand; the other is the addend.
    for (product_field, addend) in [(fields::RA, rb), (fields::RB, RegOrImm::Reg(ra))] {
        let Some((at, p)) = producer(code, du, &code[i], product_field) else {
            continue;
        };
        let Some(b) = multiplier(p) else { continue };
        if !reads_hold(code, du, at, i) {
            continue;
        }
        // The addend is read where it was; the factors are read here instead of at the
        // multiply, which `reads_hold` made safe.
        let addend_slot = match product_field {
            f if f == fields::RA => slot(&code[i], fields::RB),
            _ => slot(&code[i], fields::RA),
        };
        let (Some(a_slot), b_slot) = (slot(p, fields::RA), slot(p, fields::RB)) else {
            continue;
        };
        let op = Op::Imad {
            rd,
            ra: Reg(0),
            rb: b,
            rc: addend,
            hi: false,
            sgn: false,
            cc: false,
            x: false,
        };
        let Ok(word) = Instruction::new(op).encode() else {
            continue;
        };
        let d = slot(&code[i], fields::RD).expect("an IADD writes rd");
        let m = &mut code[i];
        let line = m.line;
        let mut new = MInst::from_word(word, line);
        new.loc = m.loc;
        new.push_slot(d);
        new.push_slot(with_field(a_slot, fields::RA));
        if let Some(b) = b_slot {
            new.push_slot(with_field(b, fields::RB));
        }
        if let Some(c) = addend_slot {
            new.push_slot(with_field(c, fields::RC));
        }
        *m = new;
        return true;
    }
    false
}

fn with_field(s: Slot, field: sgpu_isa::Field) -> Slot {
    Slot::new(Field::of(field), s.reg, s.part(), s.width(), s.def())
}

/// A 64-bit product of a 32-bit value: `(lo, hi)` = `x * k` widened, from the instruction
/// writing the low word and the one writing the high word.
struct Wide {
    /// `x` and the multiplier, as the low word's instruction reads them.
    x: Slot,
    k: RegOrImm,
    k_slot: Option<Slot>,
    sgn: bool,
}

/// Whether `lo` and `hi` compute the low and high words of one widening product.
fn wide(lo: &MInst, hi: &MInst) -> Option<Wide> {
    let x = slot(lo, fields::RA)?;
    let hx = slot(hi, fields::RA)?;
    if (x.reg, x.part()) != (hx.reg, hx.part()) {
        return None;
    }
    let k = multiplier(lo)?;
    let k_slot = slot(lo, fields::RB);
    let sgn = match (k, decoded(hi).op) {
        // The high word of x * k: IMUL.HI by the same multiplier.
        (
            _,
            Op::Imul {
                rb, hi: true, sgn, ..
            },
        ) => {
            let same = match (k, rb) {
                (RegOrImm::Imm(a), RegOrImm::Imm(b)) => a == b,
                (RegOrImm::Reg(_), RegOrImm::Reg(_)) => {
                    let (a, b) = (k_slot?, slot(hi, fields::RB)?);
                    (a.reg, a.part()) == (b.reg, b.part())
                }
                _ => false,
            };
            same.then_some(sgn)?
        }
        // x * 2^n's high word is x shifted right by 32 - n (the simplifier's form).
        (
            RegOrImm::Imm(two_n),
            Op::Shr {
                rb: RegOrImm::Imm(s),
                sgn,
                ..
            },
        ) if u32::from(s) + two_n.trailing_zeros() == 32 => sgn,
        _ => return None,
    };
    Some(Wide { x, k, k_slot, sgn })
}

/// `IMADW d = x * k + c` in place of `m`, writing the pair `d`.
fn imadw(m: &mut MInst, w: &Wide, d: Slot, c: Option<Slot>) -> bool {
    let op = Op::Imadw {
        rd: Reg(0),
        ra: Reg(0),
        rb: w.k,
        rc: if c.is_some() { Reg(0) } else { Reg::RZ },
        sgn: w.sgn,
    };
    let Ok(word) = Instruction::new(op).encode() else {
        return false;
    };
    let mut new = MInst::from_word(word, m.line);
    new.loc = m.loc;
    new.push_slot(Slot::new(Field::of(fields::RD), d.reg, d.part(), 2, true));
    new.push_slot(with_field(w.x, fields::RA));
    if let Some(k) = w.k_slot {
        new.push_slot(with_field(k, fields::RB));
    }
    if let Some(c) = c {
        new.push_slot(Slot::new(Field::of(fields::RC), c.reg, c.part(), 2, false));
    }
    *m = new;
    true
}

/// The pair `d`'s two words written at `lo` and `hi`: the low word's slot when they are the
/// aligned halves of one register pair.
fn pair(lo: Slot, hi: Slot) -> Option<Slot> {
    let aligned = lo.part().is_multiple_of(2) && hi.part() == lo.part() + 1 && lo.reg == hi.reg;
    (aligned && lo.width() == 1 && hi.width() == 1).then_some(lo)
}

/// `lo = x * k; hi = high word of x * k` writing a pair: one `IMADW` with a zero addend,
/// in place of the low word's instruction (the high one is left to dead-code elimination
/// once nothing reads what it wrote... which is then nothing, since `IMADW` writes it: it
/// is deleted here).
fn wide_product(code: &mut [MInst], du: &DefUse, i: usize) -> bool {
    let Some(d_lo) = slot(&code[i], fields::RD) else {
        return false;
    };
    let hi_loc = du.locs.at(d_lo.reg, d_lo.part()) + 1;
    if d_lo.part() % 2 != 0 || hi_loc >= du.locs.len() || du.locs.reg(hi_loc).0 != d_lo.reg {
        return false;
    }
    let Some(h) = du.def(hi_loc) else {
        return false;
    };
    let (lo, hi) = (&code[i], &code[h]);
    if h <= i || deleted(hi) || !hi.always_runs() || !reads_hold(code, du, i, h) {
        return false;
    }
    if !du.ssa(du.locs.at(d_lo.reg, d_lo.part())) || !du.ssa(hi_loc) {
        return false;
    }
    let Some(d_hi) = slot(hi, fields::RD) else {
        return false;
    };
    let (Some(d), Some(w)) = (pair(d_lo, d_hi), wide(lo, hi)) else {
        return false;
    };
    if du.uses(hi_loc).is_empty() {
        // Only the low word is read: the multiply alone does it.
        return false;
    }
    // The pair is written where its high word was; reads of the low word in between would
    // see it late.
    if du
        .uses(du.locs.at(d.reg, d.part()))
        .iter()
        .any(|&u| (u as usize) < h)
    {
        return false;
    }
    if !imadw(&mut code[h], &w, d, None) {
        return false;
    }
    delete(&mut code[i]);
    true
}

/// `IADD.CC lo = a.lo + w.lo; IADD.X hi = a.hi + w.hi` with `w` a widening product:
/// `IMADW d = x * k + a`.
fn wide_add(code: &mut [MInst], du: &DefUse, i: usize) -> bool {
    let x_at = i + 1;
    // The low half's carry must reach the high half alone: it goes.
    if !du.carry_reaches_only_next(code, i)
        || code[x_at].opcode() != opcodes::IADD
        || !code[x_at].always_runs()
    {
        return false;
    }
    let (lo_op, hi_op) = (decoded(&code[i]).op, decoded(&code[x_at]).op);
    let (
        Op::Iadd {
            cc: true,
            x: false,
            nb: false,
            sat: false,
            ..
        },
        Op::Iadd {
            cc: false,
            x: true,
            nb: false,
            sat: false,
            ..
        },
    ) = (lo_op, hi_op)
    else {
        return false;
    };
    let (Some(d_lo), Some(d_hi)) = (slot(&code[i], fields::RD), slot(&code[x_at], fields::RD))
    else {
        return false;
    };
    let Some(d) = pair(d_lo, d_hi) else {
        return false;
    };
    if du.uses(du.locs.at(d.reg, d.part()) + 1).is_empty() {
        // Only the low word is read: 32-bit arithmetic does it.
        return false;
    }
    // The product may be either operand.
    for (pf, af) in [(fields::RB, fields::RA), (fields::RA, fields::RB)] {
        let (Some((wlo_at, wlo)), Some((_, whi))) = (
            producer(code, du, &code[i], pf),
            producer(code, du, &code[x_at], pf),
        ) else {
            continue;
        };
        let (Some(alo), Some(ahi)) = (slot(&code[i], af), slot(&code[x_at], af)) else {
            continue;
        };
        let Some(a) = pair(alo, ahi) else { continue };
        let a_holds = du.locs.of(&alo).all(|l| holds(code, du, l, i, x_at));
        let Some(w) = wide(wlo, whi) else { continue };
        if !a_holds || !reads_hold(code, du, wlo_at, x_at) {
            continue;
        }
        if imadw(&mut code[x_at], &w, d, Some(a)) {
            delete(&mut code[i]);
            return true;
        }
    }
    false
}

/// `PLOP pd = t bop c` where `t` is a plain comparison read nowhere else: the comparison
/// with `bop c` in place of `and PT`, at the `PLOP`.
fn compare_and_combine(code: &mut [MInst], du: &DefUse, i: usize) -> bool {
    let Op::Plop { pa, pc, bop, .. } = decoded(&code[i]).op else {
        return false;
    };
    let (Some(a_slot), c_slot) = (slot(&code[i], fields::PA), slot(&code[i], fields::PC)) else {
        return false;
    };
    // The comparison may be either operand, read as it is (not negated).
    let options = [
        (fields::PA, pa, c_slot, pc),
        (fields::PC, pc, Some(a_slot), pa),
    ];
    for (field, read, other_slot, other) in options {
        if read.negated {
            continue;
        }
        let Some((at, p)) = producer(code, du, &code[i], field) else {
            continue;
        };
        let t = du
            .locs
            .of(&slot(&code[i], field).expect("a producer is read from a slot"));
        if du.uses(t.start).len() != 1 || !reads_hold(code, du, at, i) {
            continue;
        }
        let mut insn = decoded(p);
        let plain = |pq: sgpu_isa::Pred, pc: sgpu_isa::PredSrc, b: sgpu_isa::Bop| {
            pq == sgpu_isa::Pred::PT && pc == sgpu_isa::PredSrc::ALWAYS && b == sgpu_isa::Bop::And
        };
        // A comparison of high words (`.X`) reads `pc` as the low words' result and has no
        // operation to take in.
        match &mut insn.op {
            Op::Isetp {
                pq,
                pc,
                bop: b,
                x: false,
                ..
            }
            | Op::Fsetp { pq, pc, bop: b, .. }
                if plain(*pq, *pc, *b) =>
            {
                *pc = sgpu_isa::PredSrc {
                    pred: if other_slot.is_some() {
                        sgpu_isa::Pred(0)
                    } else {
                        other.pred
                    },
                    negated: other.negated,
                };
                *b = bop;
            }
            _ => continue,
        }
        let Ok(word) = insn.encode() else { continue };
        let d = slot(&code[i], fields::PD).expect("a PLOP writes pd");
        let mut new = MInst::from_word(word, code[i].line);
        new.loc = code[i].loc;
        for s in p.slots().filter(|s| !s.def()) {
            new.push_slot(*s);
        }
        new.push_slot(d);
        if let Some(c) = other_slot {
            new.push_slot(with_field(c, fields::PC));
        }
        code[i] = new;
        return true;
    }
    false
}

/// The high word of a sign-extended value shifted left by 1 to 31 (`SHF.HI` of `x` with `x`'s
/// sign word, `SHR.S32 x, 31`, as its high word): `x` shifted right arithmetically by the
/// rest, which the widening-product patterns then recognise.
fn sign_extended_shift(code: &mut [MInst], du: &DefUse, i: usize) -> bool {
    let Op::Shf {
        rd,
        ra,
        rb: RegOrImm::Imm(n),
        shr: false,
        hi: true,
        ..
    } = decoded(&code[i]).op
    else {
        return false;
    };
    let (Some(x), Some((at, p))) = (
        slot(&code[i], fields::RA),
        producer(code, du, &code[i], fields::RC),
    ) else {
        return false;
    };
    let sign = matches!(
        decoded(p).op,
        Op::Shr {
            rb: RegOrImm::Imm(31),
            sgn: true,
            ..
        }
    );
    let same_x = slot(p, fields::RA).is_some_and(|s| du.locs.of(&s).eq(du.locs.of(&x)));
    if !(1..32).contains(&n) || !sign || !same_x || !reads_hold(code, du, at, i) {
        return false;
    }
    let insn = Instruction::new(Op::Shr {
        rd,
        ra,
        rb: RegOrImm::Imm(32 - n),
        sgn: true,
    });
    super::rewrite::replace(&mut code[i], insn)
}
