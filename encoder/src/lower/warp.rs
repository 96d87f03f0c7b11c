//! Warp operations: `.sync` forms become `WARPSYNC` on their member mask, then the operation,
//! which `VOTE`, `REDUX` and `MATCH` also give the member mask (RZ, the lanes running it, for a
//! full mask and for the forms without `.sync`).

use super::*;
use sgpu_isa::{Redop, Smode, Vmode};

impl<'a> FnLower<'a, '_> {
    pub(super) fn warp(&mut self, ins: &PtxInstruction<'a>) {
        match ins.opcode() {
            "activemask" => {
                let Some((d, dp, _)) = self.dest(ins, 0) else {
                    return;
                };
                let rd = R::of(d, dp);
                self.emit(
                    Op::Vote {
                        rd: rd.reg,
                        pd: Pred::PT,
                        pc: PredSrc::ALWAYS,
                        rb: Reg::RZ,
                        vmode: Vmode::Ballot,
                    },
                    &[def(fields::RD, rd)],
                );
            }
            "shfl" => self.shfl(ins),
            "redux" => self.redux(ins),
            "match" => self.match_(ins),
            _ => self.vote(ins),
        }
    }

    /// `WARPSYNC` on a member mask; returns the mask.
    pub(super) fn warpsync(&mut self, mask: Src<'a>) -> Option<Lane> {
        let lane = self.lane(mask, false)?;
        match lane {
            Lane::Imm(imm32) => {
                self.emit(Op::Warpsynci { imm32 }, &[]);
            }
            reg => {
                let ra = self.r(reg);
                self.emit(Op::Warpsync { ra: ra.reg }, &[use_(fields::RA, ra)]);
            }
        }
        Some(lane)
    }

    /// `WARPSYNC` on a member mask, and the mask as the operation's `rb`: RZ for a full mask
    /// (once synchronised, the lanes running the operation are all the members).
    fn members(&mut self, mask: Src<'a>) -> Option<R> {
        Some(match self.warpsync(mask)? {
            Lane::Imm(u32::MAX) => R::ZERO,
            lane => self.r(lane),
        })
    }

    /// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`.
    fn shfl(&mut self, ins: &PtxInstruction<'a>) {
        let smode = match isa_modifier(ins, Smode::from_name) {
            Some(m) => m,
            None => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let sync = self.has(".sync");
        let Some((d, p)) = self.dest_and_pred(ins) else {
            return;
        };
        let Some([a, b, c]) = self.sources(ins, 1) else {
            return;
        };
        if sync {
            let Some(mask) = self.operand(ins, 4) else {
                return;
            };
            if self.warpsync(mask).is_none() {
                return;
            }
        }
        let Some([a, b, c]) = self.lanes([a, b, c]) else {
            return;
        };
        let ra = self.r(a);
        let (rb, rc) = (self.ri_zero(b), self.ri_zero(c));
        let rd = R::of(d.0, d.1);
        let at = self.emit(
            Op::Shfl {
                rd: rd.reg,
                pd: placeholder(p.is_some()),
                ra: ra.reg,
                rb: rb.val,
                rc: rc.val,
                smode,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
        );
        if let Some(p) = p {
            self.bind_pred(at, fields::PD, p, true);
        }
    }

    /// An `rb`/`rc` operand where zero is the immediate 0 rather than RZ (the same value;
    /// shorter to read in a disassembly of `shfl`).
    fn ri_zero(&mut self, l: Lane) -> RI {
        match l {
            Lane::Imm(0) => RI {
                val: RegOrImm::Imm(0),
                v: None,
            },
            other => self.ri(other),
        }
    }

    /// `redux.sync.op.type d, a, membermask`.
    fn redux(&mut self, ins: &PtxInstruction<'a>) {
        let redop = match isa_modifier(ins, Redop::from_name) {
            Some(op) => op,
            None => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let sgn = ins.modifiers().any(|m| m == ".s32");
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some([a, mask]) = self.sources(ins, 1) else {
            return;
        };
        let Some(rb) = self.members(mask) else {
            return;
        };
        let Some(a) = self.lane(a, false) else { return };
        let ra = self.r(a);
        let rd = R::of(d, dp);
        self.emit(
            Op::Redux {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.reg,
                redop,
                sgn,
            },
            &binary(rd, ra, rb),
        );
    }

    /// `match.any.sync.b32 d, a, membermask` and `match.all.sync.b32 d{|p}, a, membermask`.
    fn match_(&mut self, ins: &PtxInstruction<'a>) {
        if ins.modifiers().any(|m| m == ".b64") {
            return self.unsupported("`match` on 64-bit values");
        }
        let all = ins.modifiers().any(|m| m == ".all");
        let Some((d, p)) = self.dest_and_pred(ins) else {
            return;
        };
        let Some([a, mask]) = self.sources(ins, 1) else {
            return;
        };
        let Some(rb) = self.members(mask) else {
            return;
        };
        let Some(a) = self.lane(a, false) else { return };
        let ra = self.r(a);
        let rd = R::of(d.0, d.1);
        let at = self.emit(
            Op::Match {
                rd: rd.reg,
                pd: placeholder(p.is_some()),
                ra: ra.reg,
                rb: rb.reg,
                mall: all,
            },
            &binary(rd, ra, rb),
        );
        if let Some(p) = p {
            self.bind_pred(at, fields::PD, p, true);
        }
    }

    /// `vote{.sync}.mode.pred d, {!}a{, membermask}` and `vote.ballot.b32 d, {!}a`.
    fn vote(&mut self, ins: &PtxInstruction<'a>) {
        let vmode = match isa_modifier(ins, Vmode::from_name) {
            Some(m) => m,
            None => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        // The predicate voted on: a register, or a constant (true is PT, false !PT).
        let (pc, a) = match self.operand(ins, 1) {
            Some(Src::Pred(a, negated)) => (
                PredSrc {
                    pred: Pred(0),
                    negated,
                },
                Some((a, fields::PC)),
            ),
            Some(Src::Imm(v)) => (
                PredSrc {
                    pred: Pred::PT,
                    negated: v == 0,
                },
                None,
            ),
            _ => return self.unsupported("a vote on something other than a predicate"),
        };
        let rb = if self.has(".sync") {
            let Some(mask) = self.operand(ins, 2) else {
                return;
            };
            let Some(rb) = self.members(mask) else {
                return;
            };
            rb
        } else {
            R::ZERO
        };
        if vmode == Vmode::Ballot {
            let Some((d, dp, _)) = self.dest(ins, 0) else {
                return;
            };
            let rd = R::of(d, dp);
            self.push(
                Op::Vote {
                    rd: rd.reg,
                    pd: Pred::PT,
                    pc,
                    rb: rb.reg,
                    vmode,
                },
                &[def(fields::RD, rd), use_(fields::RB, rb)],
                a,
            );
        } else {
            let Some(Src::Pred(d, _)) = self.operand(ins, 0) else {
                return self.unsupported("this destination");
            };
            let at = self.push(
                Op::Vote {
                    rd: Reg::RZ,
                    pd: Pred(0),
                    pc,
                    rb: rb.reg,
                    vmode,
                },
                &[use_(fields::RB, rb)],
                a,
            );
            self.bind_pred(at, fields::PD, d, true);
        }
    }

    /// The destination of `shfl` and `match`: a register, or `d|p`, a register and a
    /// predicate.
    fn dest_and_pred(&mut self, ins: &PtxInstruction<'a>) -> Option<((VReg, u8), Option<VReg>)> {
        use ptx_grammar::ast::Operand as O;
        match &ins.operands[0] {
            O::PredPair(pair) => {
                let (Some(Src::Reg { v, part, .. }), Some(Src::Pred(p, _))) =
                    (self.src(&pair[0]), self.src(&pair[1]))
                else {
                    self.unsupported("these destinations");
                    return None;
                };
                Some(((v, part), Some(p)))
            }
            O::Expr(e) => self.dst(e).map(|(v, part, _)| ((v, part), None)),
            _ => {
                self.unsupported("this destination");
                None
            }
        }
    }
}
