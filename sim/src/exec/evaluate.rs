//! One instruction evaluated in one thread on operands the caller knows: how the encoder's
//! optimiser folds constants, so that what it folds is what the golden model (and so the
//! hardware) computes, rather than a second statement of every instruction's semantics.

use super::{float, int, video, Exec};
use crate::warp::{reg_at, Warp, LANES};
use sgpu_isa::{Instruction, Op, Pred, Reg, Unit};
use std::cell::RefCell;

/// What an instruction wrote in the thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluated {
    /// Each register written, and its value (a tuple's registers in order).
    pub regs: Vec<(Reg, u32)>,
    pub preds: Vec<(Pred, bool)>,
    /// The carry out, when the instruction writes it.
    pub carry: Option<bool>,
}

thread_local! {
    /// A warp to evaluate in: allocated once per thread, since its register file is 32 KiB.
    static SCRATCH: RefCell<Warp> = RefCell::new(Warp::new(0, 0, [[0; 3]; LANES], 1, 0));
}

/// What `insn` writes when it runs in one thread whose registers `regs` and predicates
/// `preds` hold the given values and whose carry is `carry` (PT reads true, RZ zero). `None`
/// for an instruction whose result depends on more than its operands (special registers,
/// memory, other threads, control) or when a register it reads is not given. An instruction
/// whose guard is false writes nothing.
pub fn evaluate(
    insn: Instruction,
    regs: &[(Reg, u32)],
    preds: &[(Pred, bool)],
    carry: bool,
) -> Option<Evaluated> {
    let op = insn.op;
    let roles = op.roles();
    let given = |r: Reg| r == Reg::RZ || regs.iter().any(|&(g, _)| g == r);
    let reads_known = roles
        .regs
        .iter()
        .flatten()
        .filter(|r| !r.write)
        .all(|r| (0..r.count).all(|k| given(reg_at(r.first, k))));
    let pred_known = |p: Pred| p == Pred::PT || preds.iter().any(|&(g, _)| g == p);
    let preds_known = roles
        .preds
        .iter()
        .flatten()
        .filter(|p| !p.write)
        .all(|p| pred_known(p.pred))
        && pred_known(insn.guard.pred);
    let pure = match op.unit() {
        Unit::Int => !matches!(op, Op::S2r { .. }),
        Unit::Float | Unit::Sfu | Unit::Video => true,
        Unit::Control | Unit::Mem | Unit::Surface | Unit::Warp => false,
    };
    if !pure || !reads_known || !preds_known {
        return None;
    }
    SCRATCH.with(|w| {
        let w = &mut *w.borrow_mut();
        for &(r, v) in regs {
            w.w(r, 0, v);
        }
        for &(p, v) in preds {
            w.set_p(p, 1, u32::from(v));
        }
        w.carry = u32::from(carry);
        let e = Exec {
            next: 1,
            mask: w.ps(insn.guard) & 1,
        };
        if e.mask == 0 {
            return Some(Evaluated::default());
        }
        match op.unit() {
            Unit::Int => int::compute(op, w, e),
            Unit::Video => video::exec(op, w, e),
            _ => float::exec(op, w, e),
        }
        let mut out = Evaluated::default();
        if let Some(written) = roles.written() {
            for k in 0..written.count {
                let r = reg_at(written.first, k);
                out.regs.push((r, w.r(r, 0)));
            }
        }
        for p in roles.written_preds() {
            out.preds.push((p, w.p(p) & 1 != 0));
        }
        if roles.carry_write {
            out.carry = Some(w.carry & 1 != 0);
        }
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgpu_isa::{Icmp, PredSrc, RegOrImm};

    #[test]
    fn evaluates_integer_float_and_compare_instructions() {
        let add = Instruction::new(Op::Iadd {
            rd: Reg(2),
            ra: Reg(0),
            rb: RegOrImm::Reg(Reg(1)),
            nb: false,
            cc: true,
            x: false,
            sat: false,
        });
        let out = evaluate(add, &[(Reg(0), u32::MAX), (Reg(1), 2)], &[], false).unwrap();
        assert_eq!(out.regs, [(Reg(2), 1)]);
        assert_eq!(out.carry, Some(true));
        let fmul = Instruction::new(Op::Fmul32i {
            rd: Reg(3),
            ra: Reg(0),
            imm32: 2.5f32.to_bits(),
        });
        let out = evaluate(fmul, &[(Reg(0), 3.0f32.to_bits())], &[], false).unwrap();
        assert_eq!(out.regs, [(Reg(3), 7.5f32.to_bits())]);
        let setp = Instruction::new(Op::Isetp {
            pd: Pred(1),
            pq: Pred(2),
            ra: Reg(0),
            rb: RegOrImm::Imm(5),
            pc: PredSrc::ALWAYS,
            icmp: Icmp::Lt,
            sgn: true,
            x: false,
            bop: sgpu_isa::Bop::And,
        });
        let out = evaluate(setp, &[(Reg(0), -3i32 as u32)], &[], false).unwrap();
        assert_eq!(out.preds, [(Pred(1), true), (Pred(2), false)]);
    }

    /// IMADW (docs/adr/0006): the whole product, signed or not, plus a 64-bit addend,
    /// wrapping, against i128 arithmetic.
    #[test]
    fn imadw_adds_the_whole_product_to_a_pair() {
        let edges = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1234_5678];
        let addends = [
            0u64,
            1,
            u64::MAX,
            0x8000_0000_0000_0000,
            0xdead_beef_0000_0001,
        ];
        for sgn in [false, true] {
            for a in edges {
                for b in edges {
                    for c in addends {
                        let insn = Instruction::new(Op::Imadw {
                            rd: Reg(4),
                            ra: Reg(0),
                            rb: RegOrImm::Reg(Reg(1)),
                            rc: Reg(2),
                            sgn,
                        });
                        let regs = [(Reg(0), a), (Reg(1), b), (Reg(2), c as u32)];
                        let regs = [&regs[..], &[(Reg(3), (c >> 32) as u32)]].concat();
                        let out = evaluate(insn, &regs, &[], false).unwrap();
                        let wide = |x: u32| {
                            if sgn {
                                i128::from(x as i32)
                            } else {
                                i128::from(x)
                            }
                        };
                        let want = (wide(a) * wide(b) + i128::from(c)) as u64;
                        let got = u64::from(out.regs[0].1) | u64::from(out.regs[1].1) << 32;
                        assert_eq!(got, want, "{a:#x} * {b:#x} + {c:#x}, signed {sgn}");
                    }
                }
            }
        }
    }

    /// FFMA32I is FFMA rounding to nearest with the immediate as its addend.
    #[test]
    fn ffma32i_is_ffma_with_its_immediate_addend() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b, imm) = (x as u32, (x >> 32) as u32, (x >> 12) as u32 & 0xf_ffff);
            let short = Instruction::new(Op::Ffma32i {
                rd: Reg(3),
                ra: Reg(0),
                rb: Reg(1),
                fimm20: imm,
            });
            let full = Instruction::new(Op::Ffma {
                rd: Reg(3),
                ra: Reg(0),
                rb: Reg(1),
                rc: Reg(2),
                rnd: sgpu_isa::Rnd::Rn,
                ftz: false,
                sat: false,
                na: false,
                nc: false,
            });
            let regs = [(Reg(0), a), (Reg(1), b), (Reg(2), imm << 12)];
            assert_eq!(
                evaluate(short, &regs, &[], false),
                evaluate(full, &regs, &[], false),
                "{a:#x} * {b:#x} + {:#x}",
                imm << 12
            );
        }
    }

    #[test]
    fn refuses_what_depends_on_more_than_operands() {
        let s2r = Instruction::new(Op::S2r {
            rd: Reg(0),
            sreg: sgpu_isa::Sreg::TidX,
        });
        assert_eq!(evaluate(s2r, &[], &[], false), None);
        // R1 is read but not given.
        let mov = Instruction::new(Op::Mov {
            rd: Reg(0),
            ra: Reg(1),
        });
        assert_eq!(evaluate(mov, &[], &[], false), None);
        let guarded = Instruction {
            guard: PredSrc {
                pred: Pred(0),
                negated: false,
            },
            op: Op::Mov32i {
                rd: Reg(0),
                imm32: 7,
            },
        };
        assert_eq!(evaluate(guarded, &[], &[], false), None);
        let out = evaluate(guarded, &[], &[(Pred(0), false)], false).unwrap();
        assert_eq!(out, Evaluated::default());
        let out = evaluate(guarded, &[], &[(Pred(0), true)], false).unwrap();
        assert_eq!(out.regs, [(Reg(0), 7)]);
    }
}
