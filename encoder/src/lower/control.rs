//! Branches, exits, barriers and memory ordering. Reconvergence (`SSY`) is added after
//! lowering, from the control-flow graph (`cfg.rs`).

use super::*;
use sgpu_isa::{Bmode, Level};

impl<'a> FnLower<'a, '_> {
    pub(super) fn control(&mut self, ins: &PtxInstruction<'a>) {
        match ins.opcode() {
            "bra" => {
                let Some(ptx_grammar::ast::Operand::Expr(Expr::Name(label))) = ins.operands.first()
                else {
                    return self.unsupported("an indirect branch");
                };
                let Some(&id) = self.labels.get(label.text) else {
                    return self.fail(format!("unknown label `{}`", label.text));
                };
                let at = self.emit(
                    Op::Bra {
                        uni: self.has(".uni"),
                        target: 0,
                    },
                    &[],
                );
                self.set_target(at, Target::Label(id));
            }
            "ret" if !self.entry => {
                self.emit(Op::Ret, &[]);
            }
            "ret" | "exit" => {
                self.emit(Op::Exit, &[]);
            }
            "trap" => {
                self.emit(Op::Trap, &[]);
            }
            // A hint that may sleep for any time up to the one given, none included.
            "nanosleep" => {}
            "bar" | "barrier" => self.barrier(ins),
            "membar" | "fence" => {
                let level = if self.has(".cta") {
                    Level::Cta
                } else if self.has(".sys") {
                    Level::Sys
                } else {
                    Level::Gl
                };
                self.emit(Op::Membar { level }, &[]);
            }
            "call" => self.call(ins),
            other => self.unsupported(format!("`{other}`")),
        }
    }

    /// `call (results), f, (params);`: the arguments are already in the outgoing area (see
    /// `call_arguments`); CALL moves the frame there. Every register is the callee's to use,
    /// so the allocator keeps nothing in registers across a call.
    fn call(&mut self, ins: &PtxInstruction<'a>) {
        let Some((_, callee, _)) = call_parts(ins) else {
            return self.unsupported("this call");
        };
        // CUDA's assert calls `__assertfail` from the runtime: on sgpu a failed assertion stops
        // the kernel.
        if callee.text == "__assertfail" {
            self.emit(Op::Trap, &[]);
            return;
        }
        let function = match self.layout.places.get(callee.text) {
            Some(Place::Function { index }) if self.layout.defined.contains(callee.text) => *index,
            Some(Place::Function { .. }) => {
                return self.unsupported(format!(
                    "a call to `{}`, which is not defined in this module",
                    callee.text
                ))
            }
            _ => return self.unsupported("an indirect call"),
        };
        let at = self.emit(
            Op::Call {
                target: 0,
                frame: 0,
            },
            &[],
        );
        self.code[at].reloc = Some(Reloc::Call { function });
        self.code[at].call_frame = true;
    }

    fn barrier(&mut self, ins: &PtxInstruction<'a>) {
        let bmode = if self.has(".arrive") {
            Bmode::Arrive
        } else if self.has(".red") {
            return self.unsupported("`bar.red`");
        } else {
            Bmode::Sync
        };
        let id = match self.operand(ins, 0) {
            Some(s) => match self.lane(s, false) {
                Some(l) => l,
                None => return,
            },
            // `barrier.sync` without operands is barrier 0.
            None if ins.operands.is_empty() => Lane::Imm(0),
            None => return,
        };
        let count = if ins.operands.len() > 1 {
            match self.operand(ins, 1).and_then(|s| self.lane(s, false)) {
                Some(l) => l,
                None => return,
            }
        } else {
            Lane::Imm(0)
        };
        let rb = match id {
            Lane::Imm(0) => RI {
                val: RegOrImm::Imm(0),
                v: None,
            },
            other => self.ri(other),
        };
        let rc = self.r(count);
        self.emit(
            Op::Bar {
                rb: rb.val,
                rc: rc.reg,
                bmode,
            },
            &[use_ri(fields::RB, rb), use_(fields::RC, rc)],
        );
    }
}
