//! Surface instructions: the surface by descriptor slot (a `.surfref`) or by 64-bit handle,
//! the coordinates gathered into consecutive registers in PTX's order, each element of the
//! data in its own register (a pair for `.b64`).

use super::*;
use ptx_grammar::ast::{AddressPart, Operand as O};
use sgpu_isa::{Cop, Dsize, Geom, Query, Sclamp, Sop, Sty, Surface, Vwidth};

impl<'a> FnLower<'a, '_> {
    pub(super) fn surface(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        if op == "suq" {
            return self.suq(ins);
        }
        let geom = match isa_modifier(ins, Geom::from_name) {
            Some(g) => g,
            None => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let sclamp = if self.has(".clamp") {
            Sclamp::Clamp
        } else if self.has(".zero") {
            Sclamp::Zero
        } else {
            Sclamp::Trap
        };
        let vec = if self.has(".v4") {
            Vwidth::V4
        } else if self.has(".v2") {
            Vwidth::V2
        } else {
            Vwidth::V1
        };
        let elements = match vec {
            Vwidth::V1 => 1,
            Vwidth::V2 => 2,
            Vwidth::V4 => 4,
        };
        let sfmt = self.has(".p");
        let cop = isa_modifier(ins, Cop::from_name).unwrap_or_default();
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        let address_at = usize::from(op == "suld");
        let Some((surface, coords)) = self.surface_address(&ins.operands[address_at], geom) else {
            return;
        };
        let per = if ty.bits == 64 { 2 } else { 1 };
        let words = elements * per;
        let (rb, rb_bind) = surface;
        match op {
            "suld" => {
                let dsize = dsize(ty);
                let t = self.vregs.new_reg(Class::Gpr { size: words });
                let rd = R::of(t, 0);
                self.emit(
                    Op::Suld {
                        rd: rd.reg,
                        ra: coords.reg,
                        rb,
                        sfmt,
                        geom,
                        vec,
                        dsize,
                        cop,
                        sclamp,
                    },
                    &[
                        wide(def(fields::RD, rd), words),
                        wide(use_(fields::RA, coords), coord_words(geom)),
                        rb_bind,
                    ],
                );
                self.scatter(&ins.operands[0], t, per);
            }
            "sust" => {
                let Some(rc) = self.gather(&ins.operands[1], words, per) else {
                    return;
                };
                let dsize = dsize(ty);
                self.emit(
                    Op::Sust {
                        ra: coords.reg,
                        rb,
                        rc: rc.reg,
                        sfmt,
                        geom,
                        vec,
                        dsize,
                        cop,
                        sclamp,
                    },
                    &[
                        wide(use_(fields::RA, coords), coord_words(geom)),
                        rb_bind,
                        wide(use_(fields::RC, rc), words),
                    ],
                );
            }
            _ => {
                let Some(sop) = isa_modifier(ins, Sop::from_name) else {
                    return self.unsupported(format!("`{}`", ins.mnemonic.text));
                };
                let sty = match ty.name {
                    "u32" => Sty::U32,
                    "s32" => Sty::S32,
                    "u64" => Sty::U64,
                    "s64" => Sty::S64,
                    "b32" => Sty::B32,
                    _ => Sty::B64,
                };
                let Some(rc) = self.gather(&ins.operands[1], per, per) else {
                    return;
                };
                self.emit(
                    Op::Sured {
                        ra: coords.reg,
                        rb,
                        rc: rc.reg,
                        sfmt,
                        sop,
                        geom,
                        sty,
                        sclamp,
                    },
                    &[
                        wide(use_(fields::RA, coords), coord_words(geom)),
                        rb_bind,
                        wide(use_(fields::RC, rc), per),
                    ],
                );
            }
        }
    }

    fn suq(&mut self, ins: &PtxInstruction<'a>) {
        let Some(query) = isa_modifier(ins, Query::from_name) else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let O::Address(parts, _) = &ins.operands[1] else {
            return self.unsupported("this surface operand");
        };
        let [AddressPart::Expr(s)] = parts.as_slice() else {
            return self.unsupported("this surface operand");
        };
        let Some((rb, bind)) = self.surface_name(s) else {
            return;
        };
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let rd = R::of(d, dp);
        self.emit(
            Op::Suq {
                rd: rd.reg,
                rb,
                query,
            },
            &[def(fields::RD, rd), bind],
        );
    }

    /// `[surf, {x, y}]`: the surface, and the coordinates in consecutive registers.
    fn surface_address(&mut self, op: &O<'a>, geom: Geom) -> Option<((Surface, Bind), R)> {
        let O::Address(parts, _) = op else {
            self.unsupported("this surface address");
            return None;
        };
        let (s, coords): (&Expr<'a>, Vec<&Expr<'a>>) = match parts.as_slice() {
            [AddressPart::Expr(s), AddressPart::Vector(v, _)] => (s, v.iter().collect()),
            [AddressPart::Expr(s), AddressPart::Expr(x)] => (s, vec![x]),
            _ => {
                self.unsupported("this surface address");
                return None;
            }
        };
        let surface = self.surface_name(s)?;
        let n = coord_words(geom);
        let t = self.vregs.new_reg(Class::Gpr { size: n });
        for i in 0..n {
            // Coordinates PTX ignores (the w of 3d, the z of a2d) may be left out.
            let lane = match coords.get(i as usize) {
                Some(e) => {
                    let s = self.src(e)?;
                    self.lane(s, false)?
                }
                None => Lane::Imm(0),
            };
            self.mov_lane(t, i, lane);
        }
        Some((surface, R::of(t, 0)))
    }

    fn surface_name(&mut self, e: &Expr<'a>) -> Option<(Surface, Bind)> {
        let unbound = Bind {
            field: fields::RB,
            v: None,
            width: 1,
            def: false,
        };
        // A handle passed as a kernel parameter and named directly.
        if let Expr::Name(id) = e {
            if let Some((LocalDecl::KernelParam { offset }, _)) = self.lookup(id.text) {
                let t = self.new64();
                let rd = R::of(t, 0);
                self.emit(
                    Op::Ldc {
                        rd: rd.reg,
                        cbank: 0,
                        ra: Reg::RZ,
                        off24: offset as i32,
                        msize: sgpu_isa::Msize::B64,
                    },
                    &[wide(def(fields::RD, rd), 2)],
                );
                return Some((Surface::Handle(rd.reg), wide(use_(fields::RB, rd), 2)));
            }
        }
        match self.src(e)? {
            Src::Addr(Place::Surface { slot }, 0) => Some((Surface::Slot(slot), unbound)),
            Src::Reg { v, part, ty, .. } if ty.bits == 64 => {
                let r = R::of(v, part);
                Some((Surface::Handle(r.reg), wide(use_(fields::RB, r), 2)))
            }
            _ => {
                self.unsupported("this surface: a `.surfref` or a 64-bit handle register");
                None
            }
        }
    }

    /// Copies the elements of tuple `t` into the destination register or vector.
    fn scatter(&mut self, op: &O<'a>, t: VReg, per: u8) {
        let items: Vec<&Expr<'a>> = match op {
            O::Vector(v, _) => v.iter().collect(),
            O::Expr(e) => vec![e],
            _ => return self.unsupported("this destination"),
        };
        for (i, e) in items.iter().enumerate() {
            if matches!(e, Expr::Name(id) if id.text == "_") {
                continue;
            }
            let Some((d, dp, _)) = self.dst(e) else {
                return;
            };
            for w in 0..per {
                self.mov_lane(d, dp + w, Lane::Reg(t, i as u8 * per + w));
            }
        }
    }

    /// Gathers a value or vector into a tuple of `words` registers.
    fn gather(&mut self, op: &O<'a>, words: u8, per: u8) -> Option<R> {
        let items: Vec<&Expr<'a>> = match op {
            O::Vector(v, _) => v.iter().collect(),
            O::Expr(e) => vec![e],
            _ => {
                self.unsupported("this value");
                return None;
            }
        };
        let t = self.vregs.new_reg(Class::Gpr { size: words });
        for (i, e) in items.iter().enumerate() {
            let s = self.src(e)?;
            for w in 0..per {
                let l = self.lane(s, w == 1)?;
                self.mov_lane(t, i as u8 * per + w, l);
            }
        }
        Some(R::of(t, 0))
    }
}

/// Registers of coordinates per geometry: PTX's vectors (3d and a2d take four).
fn coord_words(geom: Geom) -> u8 {
    match geom {
        Geom::D1 => 1,
        Geom::D2 | Geom::A1d => 2,
        Geom::D3 | Geom::A2d => 4,
    }
}

fn dsize(ty: Type) -> Dsize {
    match ty.bits {
        8 => Dsize::B8,
        16 => Dsize::B16,
        64 => Dsize::B64,
        _ => Dsize::B32,
    }
}
