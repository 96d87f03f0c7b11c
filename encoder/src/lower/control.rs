//! Branches, exits, barriers and memory ordering. Reconvergence (`SSY`) is added after
//! lowering, from the control-flow graph (`cfg.rs`).

use super::*;
use sgpu_isa::{Bmode, Bred, Level};

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
            "ret" if !self.entry => self.ret(),
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

    /// A device function's return: its `.reg` results go to their frame slots, where the
    /// caller loads them.
    pub(super) fn ret(&mut self) {
        for i in 0..self.reg_results.len() {
            let ((v, part), slot) = self.reg_results[i];
            let ty = slot.reg.expect("a .reg result").0;
            let value = if ty.class == TyClass::Pred {
                Src::Pred(v, false)
            } else {
                Src::Reg {
                    v,
                    ty,
                    part,
                    sel: None,
                }
            };
            self.store_frame_slot(value, slot, false);
        }
        self.emit(Op::Ret, &[]);
    }

    /// `call (results), f, (params);`: `.param` arguments are already in the outgoing area
    /// (see `call_arguments`), `.reg` ones are stored there now and `.reg` results loaded
    /// from there after the call; CALL moves the frame there. Every register is the
    /// callee's to use, so the allocator keeps nothing in registers across a call. An
    /// indirect call, through a register with a prototype, is CALLR.
    fn call(&mut self, ins: &PtxInstruction<'a>) {
        let Some(CallParts {
            results,
            callee,
            params,
            prototype,
        }) = call_parts(ins)
        else {
            return self.unsupported("this call");
        };
        // CUDA's assert calls `__assertfail` from the runtime: on sgpu a failed assertion stops
        // the kernel.
        if callee.text == "__assertfail" {
            self.emit(Op::Trap, &[]);
            return;
        }
        let Some(target) = self.call_target(callee) else {
            return;
        };
        let Some(sig) = self.callee_signature(callee, prototype) else {
            return self.unsupported(format!(
                "an indirect call without a `.callprototype` or `.calltargets` (through `{}`)",
                prototype.map_or("nothing", |p| p.text)
            ));
        };
        let (param_slots, result_slots) = (sig.params.clone(), sig.results.clone());
        self.outgoing_size = self.outgoing_size.max(sig.size);
        for (arg, slot) in params.iter().zip(param_slots) {
            if slot.reg.is_none() {
                self.pass_param_variable(arg, slot, true);
            }
            if let Some(declared) = slot.reg {
                let Some(value) = self.src(arg) else { return };
                if let Src::Reg { ty, .. } = value {
                    let given = (ty, self.register_width(arg));
                    if !self.same_register_type(given, declared) {
                        return;
                    }
                }
                self.store_frame_slot(value, slot, true);
            }
        }
        match target {
            CallTarget::Function(function) => self.call_function(function),
            CallTarget::Pointer(ra) => {
                let at = self.emit(
                    Op::Callr {
                        ra: ra.reg,
                        rframe: 0,
                    },
                    &[wide(use_(fields::RA, ra), 2)],
                );
                self.code[at].marks.set(Marks::CALL_FRAME, true);
            }
        }
        for (result, slot) in results.iter().zip(result_slots) {
            if slot.reg.is_none() {
                self.pass_param_variable(result, slot, false);
            }
            if let Some(declared) = slot.reg {
                let Some((v, part, ty)) = self.dst(result) else {
                    return;
                };
                let given = (ty, self.register_width(result));
                if !self.same_register_type(given, declared) {
                    return;
                }
                self.load_frame_slot((v, part), slot, true);
            }
        }
    }

    /// `CALL` of function `function` (an index of the layout's functions), its frame after
    /// this function's: arguments are in the outgoing area.
    pub(super) fn call_function(&mut self, function: u32) {
        let at = self.emit(
            Op::Call {
                target: 0,
                frame: 0,
            },
            &[],
        );
        self.code[at].reloc = Some(Box::new(Reloc::Call { function }));
        self.code[at].marks.set(Marks::CALL_FRAME, true);
    }

    /// What a call calls: a function defined in this module, or the address in a register
    /// (a 32-bit one, which ptxas takes too, zero-extended). Anything else is reported.
    fn call_target(&mut self, callee: &Ident<'a>) -> Option<CallTarget> {
        if let Some((v, ty, _)) = self.vreg(callee.text) {
            return match (ty.bits, ty.class) {
                (_, TyClass::Pred) | (..=16, _) => {
                    self.fail(format!(
                        "a call through `{}`, a `.{}` register, which cannot hold an address",
                        callee.text, ty.name
                    ));
                    None
                }
                (32, _) => {
                    let t = self.new64();
                    self.mov_lane(t, 0, Lane::Reg(v, 0));
                    self.mov_lane(t, 1, Lane::Imm(0));
                    Some(CallTarget::Pointer(R::of(t, 0)))
                }
                _ => Some(CallTarget::Pointer(R::of(v, 0))),
            };
        }
        match self.layout.places.get(callee.text) {
            Some(Place::Function { index }) if self.layout.defined.contains(callee.text) => {
                Some(CallTarget::Function(*index))
            }
            Some(Place::Function { .. }) => {
                self.unsupported(format!(
                    "a call to `{}`, which is not defined in this module",
                    callee.text
                ));
                None
            }
            _ => {
                self.fail(format!("a call to `{}`, which is no function", callee.text));
                None
            }
        }
    }

    /// The vector width of the register an operand names whole (1 for a scalar or an
    /// element).
    fn register_width(&mut self, e: &Expr<'a>) -> u8 {
        match e {
            Expr::Name(id) if id.split_suffix().1.is_none() => {
                self.vreg(id.text).map_or(1, |(_, _, n)| n)
            }
            _ => 1,
        }
    }

    /// Whether a register passed for a `.reg` parameter or result has its type's size and
    /// vector width (as ptxas requires: `.b32` for `.f32` passes, `.u32` for `.u64` does
    /// not); an error when not.
    fn same_register_type(&mut self, given: (Type, u8), declared: (Type, u8)) -> bool {
        let kind = |(t, n): (Type, u8)| (t.bits, t.class == TyClass::Pred, n);
        if kind(given) == kind(declared) {
            return true;
        }
        self.fail(format!(
            "a `{}` register passed for a `.reg {}` parameter or result",
            register_type_name(given.0, given.1),
            register_type_name(declared.0, declared.1)
        ));
        false
    }

    fn barrier(&mut self, ins: &PtxInstruction<'a>) {
        if self.has(".red") {
            return self.barrier_reduction(ins);
        }
        // `bar.warp.sync membermask` waits for the warp's members, not the CTA.
        if self.has(".warp") {
            if let Some(mask) = self.operand(ins, 0) {
                self.warpsync(mask);
            }
            return;
        }
        let bmode = if self.has(".arrive") {
            Bmode::Arrive
        } else {
            Bmode::Sync
        };
        // `barrier.sync` without operands is barrier 0.
        let Some((rb, rc)) = self.barrier_operands(ins, 0, ins.operands.len()) else {
            return;
        };
        self.emit(
            Op::Bar {
                rb: rb.val,
                rc: rc.reg,
                bmode,
            },
            &[use_ri(fields::RB, rb), use_(fields::RC, rc)],
        );
    }

    /// `bar.red.popc.u32 d, a{, b}, {!}c` and `bar.red.and|or.pred p, a{, b}, {!}c`: a barrier
    /// that also counts the threads where c holds, or says whether all or any do.
    fn barrier_reduction(&mut self, ins: &PtxInstruction<'a>) {
        let Some(bred) = isa_modifier(ins, Bred::from_name) else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let last = ins.operands.len().saturating_sub(1);
        let Some(Src::Pred(c, negated)) = self.operand(ins, last) else {
            return self.unsupported("a barrier reduction of something other than a predicate");
        };
        let Some((rb, rc)) = self.barrier_operands(ins, 1, last) else {
            return;
        };
        let pc = PredSrc {
            pred: Pred(0),
            negated,
        };
        let bars = [use_ri(fields::RB, rb), use_(fields::RC, rc)];
        if bred == Bred::Popc {
            let Some((d, dp, _)) = self.dest(ins, 0) else {
                return;
            };
            let rd = R::of(d, dp);
            let op = Op::Barred {
                rd: rd.reg,
                pd: Pred::PT,
                rb: rb.val,
                rc: rc.reg,
                pc,
                bred,
            };
            self.push(
                op,
                &[def(fields::RD, rd), bars[0], bars[1]],
                Some((c, fields::PC)),
            );
        } else {
            let Some(Src::Pred(d, _)) = self.operand(ins, 0) else {
                return self.unsupported("this destination");
            };
            let op = Op::Barred {
                rd: Reg::RZ,
                pd: Pred(0),
                rb: rb.val,
                rc: rc.reg,
                pc,
                bred,
            };
            let at = self.push(op, &bars, Some((c, fields::PC)));
            self.bind_pred(at, fields::PD, d, true);
        }
    }

    /// A barrier's number and thread count, from operands `first..end` (none: barrier 0 and
    /// the whole CTA, which RZ stands for).
    fn barrier_operands(
        &mut self,
        ins: &PtxInstruction<'a>,
        first: usize,
        end: usize,
    ) -> Option<(RI, R)> {
        let mut lanes = [Lane::Imm(0); 2];
        for (lane, i) in lanes.iter_mut().zip(first..end) {
            *lane = self.operand(ins, i).and_then(|s| self.lane(s, false))?;
        }
        let [id, count] = lanes;
        let rb = match id {
            Lane::Imm(0) => RI {
                val: RegOrImm::Imm(0),
                v: None,
            },
            other => self.ri(other),
        };
        Some((rb, self.r(count)))
    }
}

/// What a call instruction calls.
enum CallTarget {
    /// The function of this index of the layout's functions: `CALL`.
    Function(u32),
    /// The code address in this register pair: `CALLR`.
    Pointer(R),
}
