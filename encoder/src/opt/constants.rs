//! Constant propagation and folding. An SSA value computed from constants is known: its
//! instruction is evaluated by the golden model (`sgpu_sim::exec::evaluate`), so that what is
//! folded is what the hardware computes. A read of a known value becomes an immediate, RZ or
//! PT where the instruction has such a form; a guard known true goes, and so does an
//! instruction whose guard is known false. Definitions whose every read went are left to
//! dead-code elimination.

use super::defuse::{carry_roles, DefUse, Locs};
use super::rewrite::{decoded, delete, deleted, replace};
use crate::mir::{Field, MInst, Marks, Slot};
use sgpu_isa::{fields, Icmp, Instruction, Lop2, Op, Pred, PredSrc, Reg, RegOrImm, Rnd, Unit};

/// Propagates and folds constants; whether anything changed.
/// What [`propagate`] changed.
#[derive(Clone, Copy, Default)]
pub struct Changed {
    pub any: bool,
    /// A branch or exit went or lost its guard: the control flow changed.
    pub control: bool,
}

/// Propagates and folds constants.
pub fn propagate(code: &mut [MInst], du: &DefUse) -> Changed {
    let locs = &du.locs;
    let mut known: Vec<Option<u32>> = vec![None; locs.len()];
    let mut changed = false;
    let mut control = false;
    // Definitions dominate their reads, so reverse postorder meets every value's definition
    // before its reads.
    for b in du.cfg.reverse_postorder() {
        let start = du.cfg.starts[b];
        let end = du.cfg.end(b);
        // The carry is known after an instruction that wrote it from known operands.
        let mut carry = None;
        for m in &mut code[start..end] {
            if deleted(m) {
                continue;
            }
            let flow = sgpu_isa::unit_of_opcode(m.opcode()) == Some(Unit::Control);
            match guard_value(m, locs, &known) {
                Some(false) => {
                    delete(m);
                    changed = true;
                    control |= flow;
                    continue;
                }
                Some(true) => {
                    changed |= unguard(m);
                    control |= flow;
                }
                None => {}
            }
            if !m.marks.has(Marks::OUTGOING) {
                changed |= substitute_all(m, locs, &known);
            }
            let Some(unit) = foldable(m) else {
                continue;
            };
            let writes_carry = unit == Unit::Int && carry_roles(m).1;
            match evaluate(m, locs, &known, carry) {
                Some((values, carry_out)) => {
                    for (l, v) in values {
                        if du.ssa(l) && du.def(l).is_some() {
                            known[l] = Some(v);
                        }
                    }
                    if writes_carry {
                        carry = carry_out;
                    }
                }
                None if writes_carry => carry = None,
                None => {}
            }
        }
    }
    Changed {
        any: changed,
        control,
    }
}

/// Whether the instruction's results depend on its operands alone (the units the golden
/// model evaluates, but special registers), known from the opcode: its unit. Only the
/// integer unit writes the carry.
fn foldable(m: &MInst) -> Option<Unit> {
    let unit = sgpu_isa::unit_of_opcode(m.opcode())?;
    let pure = matches!(unit, Unit::Int | Unit::Float | Unit::Sfu | Unit::Video);
    (pure && m.opcode() != sgpu_isa::opcodes::S2R).then_some(unit)
}

/// The value of the instruction's guard when it is a known predicate.
fn guard_value(m: &MInst, locs: &Locs, known: &[Option<u32>]) -> Option<bool> {
    let s = m.slots().find(|s| s.field == Field::of(fields::PG))?;
    let v = known[locs.of(s).start]? != 0;
    let negated = sgpu_isa::field(m.word, fields::PGN) != 0;
    Some(v != negated)
}

/// Makes a guarded instruction unconditional.
fn unguard(m: &mut MInst) -> bool {
    let mut insn = decoded(m);
    insn.guard = PredSrc::ALWAYS;
    replace(m, insn)
}

/// Replaces every read of a known value that the instruction can take in another form.
fn substitute_all(m: &mut MInst, locs: &Locs, known: &[Option<u32>]) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < usize::from(m.nslots) {
        let s = m.slots[i];
        let value = (!s.def() && s.width() == 1)
            .then(|| known[locs.of(&s).start])
            .flatten();
        if let Some(k) = value {
            if substitute(m, s, k) {
                changed = true;
                // The slot went; the next one moved to `i`.
                continue;
            }
        }
        i += 1;
    }
    changed
}

/// The negation flag of each predicate source field.
const PRED_SOURCES: [(sgpu_isa::Field, sgpu_isa::Field); 2] =
    [(fields::PC, fields::PCN), (fields::PA, fields::PAN)];

/// Replaces the read in slot `s` of a register known to hold `k`; whether it could.
fn substitute(m: &mut MInst, s: Slot, k: u32) -> bool {
    if let Some(&(field, neg)) = PRED_SOURCES.iter().find(|(f, _)| Field::of(*f) == s.field) {
        // The operand reads the predicate, negated when `neg` is set: PT, negated so as to
        // read the same.
        let mut word = m.word;
        let negated = sgpu_isa::field(word, neg) != 0;
        let fits = sgpu_isa::set_field(&mut word, field, i64::from(Pred::PT.0)).is_ok()
            && sgpu_isa::set_field(&mut word, neg, i64::from((k != 0) == negated)).is_ok();
        return fits && sgpu_isa::decode(word).is_ok_and(|insn| replace(m, insn));
    }
    let mut insn = decoded(m);
    let mut field = s.field;
    if field == Field::of(fields::RA) {
        if let Some(op) = commuted(insn.op) {
            // The constant goes to rb, where the immediate forms take it; the register that
            // was there is read from ra.
            insn.op = op;
            for t in &mut m.slots[..usize::from(m.nslots)] {
                if t.field == Field::of(fields::RB) {
                    t.field = Field::of(fields::RA);
                } else if *t == s {
                    t.field = Field::of(fields::RB);
                }
            }
            field = Field::of(fields::RB);
        }
    }
    if let Some(op) = with_constant(insn.op, field, k) {
        if replace(m, Instruction { op, ..insn }) {
            return true;
        }
    }
    if k == 0 && zero_reads_zero(insn.op) {
        let mut word = insn.encode().expect("it encoded before");
        if sgpu_isa::set_field(&mut word, field.isa(), i64::from(Reg::RZ.0)).is_ok() {
            if let Ok(zeroed) = sgpu_isa::decode(word) {
                return replace(m, zeroed);
            }
        }
    }
    // A commuted instruction that took no constant still computes the same.
    replace(m, insn);
    false
}

/// Whether RZ in a register source means zero: not for the warp and control units, where
/// RZ in a mask or count field means "every thread".
fn zero_reads_zero(op: Op) -> bool {
    matches!(op.unit(), Unit::Int | Unit::Float | Unit::Sfu | Unit::Video)
        || matches!(op, Op::Ld { .. } | Op::St { .. } | Op::Ldc { .. })
}

/// The same operation with `ra` and `rb` exchanged, where the instruction can take them
/// either way round (`rb` must then be a register, as `ra` always is).
fn commuted(mut op: Op) -> Option<Op> {
    let swap = |ra: &mut Reg, rb: &mut RegOrImm| -> Option<()> {
        let b = rb.reg()?;
        *rb = RegOrImm::Reg(std::mem::replace(ra, b));
        Some(())
    };
    match &mut op {
        Op::Iadd {
            ra, rb, nb: false, ..
        }
        | Op::Imul { ra, rb, .. }
        | Op::Imad { ra, rb, .. }
        | Op::Imnmx { ra, rb, .. } => swap(ra, rb)?,
        Op::Isetp {
            ra,
            rb,
            icmp,
            x: false,
            ..
        } => {
            swap(ra, rb)?;
            *icmp = reversed(*icmp);
        }
        Op::Lop3 { ra, rb, lut, .. } => {
            swap(ra, rb)?;
            *lut = swap_lut_ab(*lut);
        }
        // pc ? ra : rb is !pc ? rb : ra.
        Op::Sel { ra, rb, pc, .. } => {
            swap(ra, rb)?;
            pc.negated = !pc.negated;
        }
        Op::Fadd {
            ra,
            rb,
            na,
            nb,
            absa,
            absb,
            ..
        } => {
            std::mem::swap(ra, rb);
            std::mem::swap(na, nb);
            std::mem::swap(absa, absb);
        }
        // The negation applies to the product, which does not change.
        Op::Fmul {
            ra, rb, absa, absb, ..
        } => {
            std::mem::swap(ra, rb);
            std::mem::swap(absa, absb);
        }
        _ => return None,
    }
    Some(op)
}

/// The comparison with its operands exchanged: a < b is b > a.
fn reversed(c: Icmp) -> Icmp {
    match c {
        Icmp::Lt => Icmp::Gt,
        Icmp::Le => Icmp::Ge,
        Icmp::Gt => Icmp::Lt,
        Icmp::Ge => Icmp::Le,
        same => same,
    }
}

/// A LOP3 truth table with its first two inputs exchanged (bit i is F at a = i>>2, b = i>>1).
fn swap_lut_ab(lut: u8) -> u8 {
    (0..8).fold(0, |out, i| {
        let j = (i & 1) | (i >> 1 & 2) | (i << 1 & 4);
        out | (lut >> j & 1) << i
    })
}

/// The instruction with the register in `field` replaced by the constant `k`, in an
/// immediate form of the instruction.
fn with_constant(op: Op, field: Field, k: u32) -> Option<Op> {
    let imm8 = u8::try_from(k).ok().filter(|&i| i != 0).map(RegOrImm::Imm);
    let rb = field == Field::of(fields::RB);
    let rc = field == Field::of(fields::RC);
    let ra = field == Field::of(fields::RA);
    if ra {
        if let Some(op) = at_constant_address(op, k) {
            return Some(op);
        }
    }
    Some(match op {
        Op::Iadd {
            rd,
            ra,
            nb,
            cc,
            x,
            sat,
            ..
        } if rb => match imm8 {
            Some(imm) => Op::Iadd {
                rd,
                ra,
                rb: imm,
                nb,
                cc,
                x,
                sat,
            },
            None if !cc && !x && !sat => Op::Iadd32i {
                rd,
                ra,
                imm32: if nb { k.wrapping_neg() } else { k },
            },
            None => return None,
        },
        Op::Imul {
            rd, ra, hi: false, ..
        } if rb && imm8.is_none() => Op::Imul32i { rd, ra, imm32: k },
        Op::Lop3 {
            rd,
            ra,
            rc: RegOrImm::Reg(Reg::RZ),
            lut,
            ..
        } if rb && imm8.is_none() => {
            let (lop2, imm32) = two_input_logic(lut, k)?;
            Op::Lop32i {
                rd,
                ra,
                imm32,
                lop2,
            }
        }
        Op::Fadd {
            rd,
            ra,
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            na: false,
            nb: false,
            absa: false,
            absb: false,
            ..
        } if rb => Op::Fadd32i { rd, ra, imm32: k },
        // fma.rn with a constant addend whose low 12 bits are zero; a negated addend is the
        // constant with its sign flipped.
        Op::Ffma {
            rd,
            ra,
            rb,
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            na: false,
            nc,
            ..
        } if rc && k & 0xfff == 0 => Op::Ffma32i {
            rd,
            ra,
            rb,
            fimm20: (k ^ u32::from(nc) << 31) >> 12,
        },
        Op::Fmul {
            rd,
            ra,
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            na: false,
            absa: false,
            absb: false,
            ..
        } if rb => Op::Fmul32i { rd, ra, imm32: k },
        op => return with_imm8(op, rb, rc, imm8?),
    })
}

/// A load or store (of a 32-bit address) whose address register holds `k`, addressing
/// `[RZ + k + offset]` instead.
fn at_constant_address(mut op: Op, k: u32) -> Option<Op> {
    match &mut op {
        Op::Ld {
            ra,
            off24,
            e: false,
            ..
        }
        | Op::St {
            ra,
            off24,
            e: false,
            ..
        }
        | Op::Ldc { ra, off24, .. } => {
            *ra = Reg::RZ;
            *off24 = absolute(k, *off24)?;
            Some(op)
        }
        _ => None,
    }
}

/// A register-or-immediate source (`rb/bi`, `rc/ci`) taking an 8-bit immediate.
fn with_imm8(mut op: Op, rb: bool, rc: bool, imm: RegOrImm) -> Option<Op> {
    let place = match &mut op {
        Op::Iadd { rb: b, .. }
        | Op::Imul { rb: b, .. }
        | Op::Imnmx { rb: b, .. }
        | Op::Isetp { rb: b, .. }
        | Op::Shl { rb: b, .. }
        | Op::Shr { rb: b, .. }
        | Op::Shf { rb: b, .. }
        | Op::Sel { rb: b, .. }
            if rb =>
        {
            b
        }
        Op::Imad { rb: b, rc: c, .. }
        | Op::Lop3 { rb: b, rc: c, .. }
        | Op::Bfe { rb: b, rc: c, .. } => match (rb, rc) {
            (true, _) => b,
            (_, true) => c,
            _ => return None,
        },
        _ => return None,
    };
    *place = imm;
    Some(op)
}

/// An address of `k` plus the offset, as the offset from RZ, when the field holds it.
fn absolute(k: u32, off24: i32) -> Option<i32> {
    let at = i64::from(k) + i64::from(off24);
    (0..1 << 23).contains(&at).then_some(at as i32)
}

/// `LOP32I`'s operation and immediate computing `lut(a, k, 0)`, if one does.
fn two_input_logic(lut: u8, k: u32) -> Option<(Lop2, u32)> {
    // Every combination of an input bit and a constant bit: a = 0b0011, k = 0b0101.
    let (a, b) = (0b0011u32, 0b0101u32);
    let want = sgpu_sim::lane::lop3(a, b, 0, lut) & 0xf;
    [Lop2::And, Lop2::Or, Lop2::Xor]
        .into_iter()
        .flat_map(|op| [(op, false), (op, true)])
        .find(|&(op, invert)| {
            let imm = if invert { !b } else { b };
            sgpu_sim::lane::lop2(a, imm, op) & 0xf == want
        })
        .map(|(op, invert)| (op, if invert { !k } else { k }))
}

/// What an evaluated instruction wrote: (location, value) pairs, and the carry out.
type Written = (Vec<(usize, u32)>, Option<bool>);

/// The values the instruction writes, as (location, value), and its carry out, when every
/// register and predicate it reads is known. Each read slot gets a register of its own in a
/// copy of the word, holding the known value, and the golden model evaluates it.
fn evaluate(m: &MInst, locs: &Locs, known: &[Option<u32>], carry: Option<bool>) -> Option<Written> {
    if !m.always_runs()
        || m.reloc.is_some()
        || m.marks.has(Marks::OUTGOING)
        || m.marks.has(Marks::CALL_FRAME)
    {
        return None;
    }
    // Most instructions read something not known: find out before building anything.
    let unknown = |s: &Slot| !s.def() && locs.of(s).any(|l| known[l].is_none());
    if m.slots().any(unknown) {
        return None;
    }
    let mut word = m.word;
    let mut regs = Vec::new();
    let mut preds = Vec::new();
    // Where each written slot went: (first register or predicate, its first location).
    let mut writes: Vec<(u8, bool, usize)> = Vec::new();
    let (mut next_read, mut next_write) = (0u8, 128u8);
    let (mut next_pred_read, mut next_pred_write) = (0u8, 3u8);
    for s in m.slots() {
        let range = locs.of(s);
        let pred = s.field.is_pred();
        let number = match (pred, s.def()) {
            (true, false) => post_increment(&mut next_pred_read, 1),
            (true, true) => post_increment(&mut next_pred_write, 1),
            (false, false) => post_increment(&mut next_read, 4),
            (false, true) => post_increment(&mut next_write, 4),
        };
        sgpu_isa::set_field(&mut word, s.field.isa(), i64::from(number)).ok()?;
        if s.def() {
            writes.push((number, pred, range.start));
            continue;
        }
        for (k, l) in range.enumerate() {
            let v = known[l]?;
            if pred {
                preds.push((Pred(number), v != 0));
            } else {
                regs.push((Reg(number + k as u8), v));
            }
        }
    }
    let insn = sgpu_isa::decode(word).ok()?;
    if insn.op.roles().carry_read && carry.is_none() {
        return None;
    }
    let out = sgpu_sim::exec::evaluate(insn, &regs, &preds, carry.unwrap_or(false))?;
    let mut values = Vec::new();
    for &(number, pred, first) in &writes {
        if pred {
            let (_, v) = out.preds.iter().find(|(p, _)| p.0 == number)?;
            values.push((first, u32::from(*v)));
        } else {
            for (r, v) in &out.regs {
                if (number..number + 4).contains(&r.0) {
                    values.push((first + usize::from(r.0 - number), *v));
                }
            }
        }
    }
    Some((values, out.carry))
}

/// `*n`, then `*n` advanced by `by`.
fn post_increment(n: &mut u8, by: u8) -> u8 {
    let v = *n;
    *n += by;
    v
}
