//! Loads, stores, atomics and reductions.

use super::int::{pair_lanes, signed};
use super::*;
use crate::layout::FrameSlot;
use ptx_grammar::ast::{AddressPart, Operand as O};
use sgpu_isa::abi::{CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use sgpu_isa::{Aop, Aty, Bop, Cop, Icmp, Msize, Space};

mod copy_async;

/// Where an address points, once resolved.
#[derive(Clone, Copy)]
enum Address {
    /// A register (pair with `wide`) plus a byte offset, in `space`; for local memory,
    /// `local` says what the address is relative to.
    Reg {
        base: R,
        wide: bool,
        offset: i64,
        local: Local,
    },
    /// Constant bank `bank` at a register (RZ for none) plus `offset` (kernel parameters are
    /// bank 0, `.const` data bank 1).
    Const { bank: u8, base: R, offset: i64 },
}

/// What a local address is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Local {
    /// The running function's frame (its variables and spill slots, by their offsets).
    Frame,
    /// The frame's outgoing call area (a call's arguments), placed after allocation.
    Outgoing,
    /// Nothing: an address a register holds, the offset in the thread's local memory
    /// (docs/isa.md), taken by `LD`/`ST` with `ABS`.
    Absolute,
}

/// Whether an access of `space` takes its address as absolute (`ABS`): a local address a
/// register holds.
fn absolute(space: Space, local: Local) -> bool {
    matches!(space, Space::Local | Space::Param) && local == Local::Absolute
}

impl Address {
    /// The address `bytes` further on.
    fn plus(self, bytes: i64) -> Address {
        match self {
            Address::Reg {
                base,
                wide,
                offset,
                local,
            } => Address::Reg {
                base,
                wide,
                offset: offset + bytes,
                local,
            },
            Address::Const { bank, base, offset } => Address::Const {
                bank,
                base,
                offset: offset + bytes,
            },
        }
    }
}

const OFF24: std::ops::RangeInclusive<i64> = -(1 << 23)..=(1 << 23) - 1;

fn msize(ty: Type) -> Option<Msize> {
    Some(match (ty.bits, ty.class) {
        (8, TyClass::Signed) => Msize::S8,
        (8, _) => Msize::U8,
        (16, TyClass::Signed) => Msize::S16,
        (16, _) => Msize::U16,
        (32, _) => Msize::B32,
        (64, _) => Msize::B64,
        (128, _) => Msize::B128,
        _ => return None,
    })
}

fn cache_op(ins: &PtxInstruction<'_>) -> Cop {
    isa_modifier(ins, Cop::from_name).unwrap_or_default()
}

impl<'a> FnLower<'a, '_> {
    pub(super) fn memory(&mut self, ins: &PtxInstruction<'a>) {
        let op = ins.opcode();
        if matches!(op, "prefetch" | "prefetchu") {
            // A hint: sgpu has no cache to warm.
            return;
        }
        if op == "createpolicy" {
            // An L2 eviction policy for `.L2::cache_hint` accesses. sgpu has no such policies
            // and its loads and stores ignore the operand, so any value serves: zero.
            if let Some((d, dp, _)) = self.dest(ins, 0) {
                self.mov_lane(d, dp, Lane::Imm(0));
                self.mov_lane(d, dp + 1, Lane::Imm(0));
            }
            return;
        }
        let space = ins.modifiers().find_map(|m| match m {
            ".global" => Some(Space::Global),
            ".shared" | ".shared::cta" => Some(Space::Shared),
            ".local" => Some(Space::Local),
            ".param" => Some(Space::Param),
            ".const" => Some(Space::Param), // resolved to constant bank 1 below
            _ => None,
        });
        let is_const = self.has(".const");
        let space = space.unwrap_or(Space::Generic);
        match op {
            "ld" | "ldu" => self.load(ins, space, is_const),
            "st" => self.store(ins, space),
            _ => self.atomic(ins, space),
        }
    }

    /// Resolves `[...]` for an access in `space`, and the space the access is made in
    /// (`space` changes): a generic access to a variable named by its `.shared` or `.local`
    /// name is made in that space, since its window is known, and `.param` is the frame.
    fn address(&mut self, op: &O<'a>, space: &mut Space, is_const: bool) -> Option<Address> {
        // Parameters of device functions and calls live in the frame (kernel parameters, in
        // constant bank 0, come back as `Address::Const`).
        let param = *space == Space::Param && !is_const;
        if param {
            *space = Space::Local;
        }
        let O::Address(parts, _) = op else {
            self.unsupported("an operand that is not an address");
            return None;
        };
        let [AddressPart::Expr(e)] = parts.as_slice() else {
            self.unsupported("this address");
            return None;
        };
        // `[name+offset]` where the name is a kernel parameter or a variable.
        let (base, offset) = split_offset(e);
        if let Expr::Name(id) = base {
            if let Some((LocalDecl::KernelParam { offset: at }, _)) = self.lookup(id.text) {
                return Some(Address::Const {
                    bank: 0,
                    base: R::ZERO,
                    offset: i64::from(at) + offset,
                });
            }
        }
        match self.src(base)? {
            Src::Reg { v, part, ty, .. } => {
                let wide = ty.bits == 64 && matches!(space, Space::Global | Space::Generic);
                if param && self.entry {
                    // In a kernel a `.param` address in a register is a kernel parameter's
                    // (its offset in constant bank 0, as `mov %rd, param` gives).
                    return Some(Address::Const {
                        bank: 0,
                        base: R::of(v, part),
                        offset,
                    });
                }
                if is_const {
                    // A `.const` address is an offset in bank 1 (below 4 GiB: the low word).
                    return Some(Address::Const {
                        bank: 1,
                        base: R::of(v, part),
                        offset,
                    });
                }
                // A local address in a register is absolute (`address_lane`).
                Some(Address::Reg {
                    base: R::of(v, part),
                    wide,
                    offset,
                    local: Local::Absolute,
                })
            }
            Src::Addr(place, o) => {
                let offset = offset + o;
                match place {
                    Place::Const { offset: at } => Some(Address::Const {
                        bank: 1,
                        base: R::ZERO,
                        offset: i64::from(at) + offset,
                    }),
                    Place::Shared { offset: at } | Place::Local { offset: at } => {
                        if *space == Space::Generic {
                            *space = match place {
                                Place::Shared { .. } => Space::Shared,
                                _ => Space::Local,
                            };
                        }
                        Some(Address::Reg {
                            base: R::ZERO,
                            wide: false,
                            offset: i64::from(at) + offset,
                            local: Local::Frame,
                        })
                    }
                    Place::Outgoing { offset: at } => Some(Address::Reg {
                        base: R::ZERO,
                        wide: false,
                        offset: i64::from(at) + offset,
                        local: Local::Outgoing,
                    }),
                    Place::Global { symbol } => {
                        let t = self.new64();
                        for high in [false, true] {
                            let rd = R::of(t, u8::from(high));
                            let m = self.emit(
                                Op::Mov32i {
                                    rd: rd.reg,
                                    imm32: 0,
                                },
                                &[def(fields::RD, rd)],
                            );
                            self.code[m].reloc = Some(Box::new(Reloc::Global {
                                symbol,
                                addend: offset,
                                high,
                            }));
                        }
                        Some(Address::Reg {
                            base: R::of(t, 0),
                            wide: true,
                            offset: 0,
                            local: Local::Frame,
                        })
                    }
                    _ => {
                        self.unsupported("an access to this name");
                        None
                    }
                }
            }
            Src::Imm(a) => Some(Address::Reg {
                base: R::ZERO,
                wide: false,
                offset: a as i64,
                local: Local::Frame,
            }),
            _ => {
                self.unsupported("this address");
                None
            }
        }
    }

    /// The vector register of 8- or 16-bit elements that `op` names whole: a load or store
    /// moves its elements side by side in one access.
    fn whole_small_vector(&mut self, op: &O<'a>) -> Option<(VReg, Type, u8)> {
        let O::Expr(Expr::Name(id)) = op else {
            return None;
        };
        if id.split_suffix().1.is_some() {
            return None;
        }
        match self.vreg(id.text)? {
            (v, element, count @ 2..) if element.bits < 32 => Some((v, element, count)),
            _ => None,
        }
    }

    /// A load's or store's vector width, access size and registers: `ld.v4.f32` is four
    /// elements, 128 bits, four registers.
    fn access_size(&mut self, ins: &PtxInstruction<'a>) -> Option<(u32, Msize, u8)> {
        let Some(ty) = self.tys.last().copied() else {
            self.unsupported(format!("`{}` without a type", ins.opcode()));
            return None;
        };
        let n = ins
            .modifiers()
            .find_map(|m| match m {
                ".v2" => Some(2u32),
                ".v4" => Some(4),
                ".v8" => Some(8),
                _ => None,
            })
            .unwrap_or(1);
        let bits = u32::from(ty.bits) * n;
        // A vector of 8- or 16-bit elements is one access of all of them, unsigned.
        let access = if n > 1 && ty.bits < 32 {
            Type {
                class: TyClass::Unsigned,
                bits: bits as u16,
                ..ty
            }
        } else {
            Type {
                bits: bits as u16,
                ..ty
            }
        };
        let Some(size) = msize(access) else {
            self.unsupported(format!("`{}`", ins.mnemonic.text));
            return None;
        };
        Some((n, size, (bits.max(32) / 32) as u8))
    }

    /// Moves an offset that does not fit 24 bits into the base register.
    fn fit_offset(&mut self, base: R, wide: bool, offset: i64) -> (R, i64) {
        if OFF24.contains(&offset) {
            return (base, offset);
        }
        (self.offset_base(base, wide, offset), 0)
    }

    /// `base + offset` in a new register (a pair when `wide`).
    fn offset_base(&mut self, base: R, wide: bool, offset: i64) -> R {
        let word = |hi: bool| match base.v {
            Some((v, p)) => Lane::Reg(v, p + u8::from(hi)),
            None => Lane::Imm(0),
        };
        R::of(
            self.add_constant((word(false), word(true)), wide, offset as u64),
            0,
        )
    }

    fn load(&mut self, ins: &PtxInstruction<'a>, mut space: Space, is_const: bool) {
        if self.is_256_bits(ins) {
            return self.access_256(ins, space, is_const, true);
        }
        let Some((n, size, words)) = self.access_size(ins) else {
            return;
        };
        let Some(addr) = self.address(&ins.operands[1], &mut space, is_const) else {
            return;
        };
        // The destination: one register (tuple), or a vector of them gathered from a
        // temporary tuple, or a vector register of small elements unpacked from one.
        let whole = self.whole_small_vector(&ins.operands[0]);
        // A 64-bit register loaded from 32 bits or fewer: its high word, written after.
        let mut widened = None;
        let (target, gather) = match &ins.operands[0] {
            O::Vector(items, _) if n > 1 => {
                let t = self.vregs.new_reg(Class::Gpr { size: words });
                (R::of(t, 0), Some((t, items)))
            }
            _ if whole.is_some() => (
                R::of(self.vregs.new_reg(Class::Gpr { size: words }), 0),
                None,
            ),
            O::Expr(e) => match self.dst(e) {
                Some((v, p, ty)) => {
                    if ty.bits == 64 && words == 1 {
                        widened = Some((v, p + 1));
                    }
                    (R::of(v, p), None)
                }
                None => return,
            },
            _ => return self.unsupported("this destination"),
        };
        let first = self.code.len();
        self.emit_load(target, addr, space, (size, words), cache_op(ins));
        if let Some((v, high)) = widened {
            self.extend_high(v, high, target);
        }
        if self.has(".nc") && space == Space::Global {
            // ld.global.nc: the data does not change while the kernel runs, so the load may
            // run again in place of keeping its value (the allocator's rematerialisation).
            for m in &mut self.code[first..] {
                let load = m.opcode() == sgpu_isa::opcodes::LD;
                m.marks.set(Marks::INVARIANT, load);
            }
        }
        if let (Some((v, element, count)), Some((t, _))) = (whole, target.v) {
            let word = |w: u8| Lane::Reg(t, w.min(words - 1));
            self.unpack_vector(v, element, count, [word(0), word(1)]);
        }
        if let Some((t, items)) = gather {
            let ty = self.tys.last().copied().expect("checked by access_size");
            let per = words / n as u8;
            for (i, e) in items.iter().enumerate() {
                if matches!(e, Expr::Name(id) if id.text == "_") {
                    continue;
                }
                let Some((d, dp, dty)) = self.dst(e) else {
                    return;
                };
                if ty.bits < 32 {
                    // Small elements sit side by side in the loaded words.
                    let at = i as u32 * u32::from(ty.bits);
                    let word = Lane::Reg(t, (at / 32) as u8);
                    let (pos, len) = (Lane::Imm(at % 32), Lane::Imm(u32::from(ty.bits)));
                    self.bfe(d, dp, word, pos, len, ty.class == TyClass::Signed);
                } else {
                    for w in 0..per {
                        self.mov_lane(d, dp + w, Lane::Reg(t, i as u8 * per + w));
                    }
                }
                if dty.bits == 64 && ty.bits <= 32 {
                    self.extend_high(d, dp + 1, R::of(d, dp));
                }
            }
        }
    }

    /// The high word of 64-bit register `v` whose low word `low` was loaded from 32 bits or
    /// fewer: the value zero- or sign-extended by the instruction's type, PTX's rule for a
    /// destination wider than the instruction type (`ld.u8 %rd1, [a]`).
    fn extend_high(&mut self, v: VReg, high: u8, low: R) {
        match self.tys.last().copied() {
            Some(ty) if signed(ty) => self.shift(v, high, low, Lane::Imm(31), true, true),
            _ => self.mov_lane(v, high, Lane::Imm(0)),
        }
    }

    fn store(&mut self, ins: &PtxInstruction<'a>, mut space: Space) {
        if self.is_256_bits(ins) {
            return self.access_256(ins, space, false, false);
        }
        let Some((_, size, words)) = self.access_size(ins) else {
            return;
        };
        let Some(addr) = self.address(&ins.operands[0], &mut space, false) else {
            return;
        };
        // The value: a register (tuple), or a vector scattered into a temporary tuple, or a
        // vector register of small elements packed into one.
        let whole = self.whole_small_vector(&ins.operands[1]);
        let packed = whole.map(|(v, element, count)| {
            let t = self.vregs.new_reg(Class::Gpr { size: words });
            self.pack_vector(t, 0, v, element, count);
            R::of(t, 0)
        });
        let value = match (packed, &ins.operands[1]) {
            (Some(r), _) => r,
            (None, O::Vector(items, _)) if self.tys.last().is_some_and(|t| t.bits < 32) => {
                // Small elements are packed side by side, the first lowest.
                let bits = u32::from(self.tys.last().expect("matched").bits);
                let t = self.vregs.new_reg(Class::Gpr { size: words });
                for w in 0..words {
                    self.mov_lane(t, w, Lane::Imm(0));
                }
                for (i, e) in items.iter().enumerate() {
                    let Some(s) = self.src(e) else { return };
                    let Some(l) = self.lane(s, false) else { return };
                    let at = i as u32 * bits;
                    let word = (at / 32) as u8;
                    let packed = self.r(Lane::Imm((at % 32) | bits << 8));
                    let (ra, rb) = (self.r(l), R::of(t, word));
                    let rd = R::of(t, word);
                    self.emit(
                        Op::Bfi {
                            rd: rd.reg,
                            ra: ra.reg,
                            rb: rb.reg,
                            rc: packed.reg,
                        },
                        &ternary(rd, ra, rb, packed),
                    );
                }
                R::of(t, 0)
            }
            (None, O::Vector(items, _)) => {
                let t = self.vregs.new_reg(Class::Gpr { size: words });
                let per = words / items.len() as u8;
                for (i, e) in items.iter().enumerate() {
                    let Some(s) = self.src(e) else { return };
                    for w in 0..per {
                        let Some(l) = self.lane(s, w == 1) else {
                            return;
                        };
                        self.mov_lane(t, i as u8 * per + w, l);
                    }
                }
                R::of(t, 0)
            }
            (None, O::Expr(e)) => {
                let Some(s) = self.src(e) else { return };
                match s {
                    Src::Reg { v, part, .. } => R::of(v, part),
                    other => {
                        // An immediate: built in a register (tuple) first.
                        let t = self.vregs.new_reg(Class::Gpr { size: words });
                        for w in 0..words {
                            let Some(l) = self.lane(other, w == 1) else {
                                return;
                            };
                            self.mov_lane(t, w, l);
                        }
                        R::of(t, 0)
                    }
                }
            }
            _ => return self.unsupported("this value"),
        };
        self.emit_store(addr, value, space, (size, words), cache_op(ins));
    }

    /// Whether the access is 256 bits: `.v8` of 32-bit elements, `.v4` of 64-bit ones.
    fn is_256_bits(&self, ins: &PtxInstruction<'a>) -> bool {
        let n = match () {
            _ if self.has(".v4") => 4,
            _ if ins.modifiers().any(|m| m == ".v8") => 8,
            _ => 1,
        };
        self.tys
            .last()
            .is_some_and(|t| u32::from(t.bits) * n == 256)
    }

    /// A 256-bit `ld` (with `load`) or `st`: two 128-bit accesses, at the address and 16
    /// bytes on, through two four-register tuples. Each half is checked for its own 16-byte
    /// alignment; PTX asks 32 bytes of the whole, which sgpu does not check.
    fn access_256(
        &mut self,
        ins: &PtxInstruction<'a>,
        mut space: Space,
        is_const: bool,
        load: bool,
    ) {
        let (address, vector) = if load { (1, 0) } else { (0, 1) };
        let O::Vector(items, _) = &ins.operands[vector] else {
            return self.unsupported("a 256-bit access to something other than a vector");
        };
        let Some(addr) = self.address(&ins.operands[address], &mut space, is_const) else {
            return;
        };
        let per = (8 / items.len()) as u8;
        let halves = [self.new_tuple(4), self.new_tuple(4)];
        // Word `k` of the 256 bits: register `k % 4` of half `k / 4`.
        let word = |k: u8| (halves[usize::from(k / 4)], k % 4);
        if !load {
            for (i, e) in items.iter().enumerate() {
                let Some(s) = self.src(e) else { return };
                for w in 0..per {
                    let Some(l) = self.lane(s, w == 1) else {
                        return;
                    };
                    let (t, k) = word(i as u8 * per + w);
                    self.mov_lane(t, k, l);
                }
            }
        }
        for (h, &t) in halves.iter().enumerate() {
            let at = addr.plus(16 * h as i64);
            let sized = (Msize::B128, 4);
            if load {
                self.emit_load(R::of(t, 0), at, space, sized, cache_op(ins));
            } else {
                self.emit_store(at, R::of(t, 0), space, sized, cache_op(ins));
            }
        }
        if load {
            for (i, e) in items.iter().enumerate() {
                if matches!(e, Expr::Name(id) if id.text == "_") {
                    continue;
                }
                let Some((d, dp, _)) = self.dst(e) else {
                    return;
                };
                for w in 0..per {
                    let (t, k) = word(i as u8 * per + w);
                    self.mov_lane(d, dp + w, Lane::Reg(t, k));
                }
            }
        }
    }

    /// A new tuple of `size` consecutive registers.
    fn new_tuple(&mut self, size: u8) -> VReg {
        self.vregs.new_reg(Class::Gpr { size })
    }

    /// `LD` (or `LDC` for a constant bank) of `words` registers of `size` into `rd`.
    fn emit_load(
        &mut self,
        rd: R,
        addr: Address,
        space: Space,
        (size, words): (Msize, u8),
        cop: Cop,
    ) {
        match addr {
            Address::Const { bank, base, offset } => {
                let (ra, off24) = self.fit_offset(base, false, offset);
                self.emit(
                    Op::Ldc {
                        rd: rd.reg,
                        cbank: bank,
                        ra: ra.reg,
                        off24: off24 as i32,
                        msize: size,
                    },
                    &[wide(def(fields::RD, rd), words), use_(fields::RA, ra)],
                );
            }
            Address::Reg {
                base,
                wide: w,
                offset,
                local,
            } => {
                let (ra, off24) = self.fit_offset(base, w, offset);
                let at = self.emit(
                    Op::Ld {
                        rd: rd.reg,
                        ra: ra.reg,
                        off24: off24 as i32,
                        space,
                        msize: size,
                        cop,
                        e: w,
                        labs: absolute(space, local),
                    },
                    &[
                        wide(def(fields::RD, rd), words),
                        wide(use_(fields::RA, ra), if w { 2 } else { 1 }),
                    ],
                );
                self.code[at]
                    .marks
                    .set(Marks::OUTGOING, local == Local::Outgoing);
            }
        }
    }

    /// `ST` of `words` registers from `value`, of `size`.
    fn emit_store(
        &mut self,
        addr: Address,
        value: R,
        space: Space,
        (size, words): (Msize, u8),
        cop: Cop,
    ) {
        let Address::Reg {
            base,
            wide: w,
            offset,
            local,
        } = addr
        else {
            return self.unsupported("a store to constant memory");
        };
        let (ra, off24) = self.fit_offset(base, w, offset);
        let at = self.emit(
            Op::St {
                ra: ra.reg,
                off24: off24 as i32,
                rd: value.reg,
                space,
                msize: size,
                cop,
                e: w,
                labs: absolute(space, local),
            },
            &[
                wide(use_(fields::RD, value), words),
                wide(use_(fields::RA, ra), if w { 2 } else { 1 }),
            ],
        );
        self.code[at]
            .marks
            .set(Marks::OUTGOING, local == Local::Outgoing);
    }

    /// The access that moves a `.reg` parameter or result of type `ty` (a vector of
    /// `vector` elements) through its frame slot, and whether its elements are packed
    /// (8- and 16-bit ones, each in its own register, lie side by side in memory). A
    /// predicate is one byte, 0 or 1.
    fn frame_slot_access(&mut self, (ty, vector): (Type, u8)) -> Option<(Msize, u8, bool)> {
        if ty.class == TyClass::Pred {
            return Some((Msize::U8, 1, false));
        }
        let packed = vector > 1 && ty.bits < 32;
        let bits = u32::from(ty.bits) * u32::from(vector);
        let access = Type {
            bits: bits as u16,
            class: if packed { TyClass::Unsigned } else { ty.class },
            ..ty
        };
        match msize(access) {
            Some(size) => Some((size, (bits.max(32) / 32) as u8, packed)),
            None => {
                self.unsupported(format!(
                    "a {bits}-bit `.reg {}` parameter or result",
                    register_type_name(ty, vector)
                ));
                None
            }
        }
    }

    /// The address of frame slot `slot`: in this function's frame, or with `outgoing` in
    /// its outgoing call area (the callee's frame).
    fn frame_slot_address(slot: FrameSlot, outgoing: bool) -> Address {
        Address::Reg {
            base: R::ZERO,
            wide: false,
            offset: i64::from(slot.offset),
            local: if outgoing {
                Local::Outgoing
            } else {
                Local::Frame
            },
        }
    }

    /// A `.param` variable `arg` passed for the callee's `.param` slot `slot`: where the
    /// variable is not that slot (`call_arguments` gave it storage of its own), its bytes are
    /// copied into the slot before the call (`into_call`) or out of it after.
    pub(super) fn pass_param_variable(&mut self, arg: &Expr<'a>, slot: FrameSlot, into_call: bool) {
        let Expr::Name(id) = arg else { return };
        let own = match self.lookup(id.text) {
            Some((LocalDecl::Var(Place::Local { offset }), _)) => (offset, Local::Frame),
            Some((LocalDecl::Var(Place::Outgoing { offset }), _)) if offset != slot.offset => {
                (offset, Local::Outgoing)
            }
            _ => return,
        };
        let at = |(offset, local): (u32, Local)| Address::Reg {
            base: R::ZERO,
            wide: false,
            offset: i64::from(offset),
            local,
        };
        let (own, slot_at) = (at(own), at((slot.offset, Local::Outgoing)));
        let (from, to) = if into_call {
            (own, slot_at)
        } else {
            (slot_at, own)
        };
        self.copy_frame_bytes(from, to, slot.size);
    }

    /// Copies `size` bytes of the frame from `from` to `to`, all loaded before any is stored
    /// (the two may overlap), in the widest accesses their alignments allow.
    fn copy_frame_bytes(&mut self, from: Address, to: Address, size: u32) {
        let offset = |a: &Address| match a {
            Address::Reg { offset, .. } => *offset as u32,
            Address::Const { offset, .. } => *offset as u32,
        };
        let joint = size | offset(&from) | offset(&to);
        let (chunk, access) = match joint.trailing_zeros() {
            3.. => (8, (Msize::B64, 2)),
            2 => (4, (Msize::B32, 1)),
            1 => (2, (Msize::U16, 1)),
            _ => (1, (Msize::U8, 1)),
        };
        let chunks: Vec<u32> = (0..size / chunk).collect();
        let temps: Vec<R> = chunks
            .iter()
            .map(|&k| {
                let t = self.new_tuple(access.1);
                let at = from.plus(i64::from(k * chunk));
                self.emit_load(R::of(t, 0), at, Space::Local, access, Cop::default());
                R::of(t, 0)
            })
            .collect();
        for (&k, t) in chunks.iter().zip(temps) {
            let at = to.plus(i64::from(k * chunk));
            self.emit_store(at, t, Space::Local, access, Cop::default());
        }
    }

    /// Stores `value` (a `Msize` access of as many registers) in frame slot `slot` of the
    /// outgoing area: a call's argument.
    pub(super) fn store_outgoing(&mut self, slot: FrameSlot, value: R, access: (Msize, u8)) {
        let at = Self::frame_slot_address(slot, true);
        self.emit_store(at, value, Space::Local, access, Cop::default());
    }

    /// Loads frame slot `slot` of the outgoing area (a call's result) into `d`.
    pub(super) fn load_outgoing(&mut self, d: R, slot: FrameSlot, access: (Msize, u8)) {
        let at = Self::frame_slot_address(slot, true);
        self.emit_load(d, at, Space::Local, access, Cop::default());
    }

    /// Stores `value` in the frame slot of a `.reg` parameter or result; for a vector,
    /// `value` is its whole register.
    pub(super) fn store_frame_slot(&mut self, value: Src<'a>, slot: FrameSlot, outgoing: bool) {
        let Some((ty, vector)) = slot.reg else { return };
        let Some((size, words, packed)) = self.frame_slot_access((ty, vector)) else {
            return;
        };
        let lane = match (value, words) {
            (Src::Reg { v, .. }, _) if packed => {
                let t = self.new_tuple(words);
                self.pack_vector(t, 0, v, ty, vector);
                Some(Lane::Reg(t, 0))
            }
            (Src::Reg { v, part, .. }, _) => Some(Lane::Reg(v, part)),
            (_, 1) => self.lane(value, false),
            (_, 2) => self.pair(value),
            _ => {
                self.unsupported("this argument");
                return;
            }
        };
        let Some(lane) = lane else { return };
        let value = self.r(lane);
        let addr = Self::frame_slot_address(slot, outgoing);
        self.emit_store(addr, value, Space::Local, (size, words), Cop::default());
    }

    /// Loads the frame slot of a `.reg` parameter or result into register `d` (from part
    /// `part`; a vector's whole register).
    pub(super) fn load_frame_slot(
        &mut self,
        (d, part): (VReg, u8),
        slot: FrameSlot,
        outgoing: bool,
    ) {
        let Some((ty, vector)) = slot.reg else { return };
        let Some((size, words, packed)) = self.frame_slot_access((ty, vector)) else {
            return;
        };
        let addr = Self::frame_slot_address(slot, outgoing);
        let direct = !packed && ty.class != TyClass::Pred;
        if direct {
            return self.emit_load(
                R::of(d, part),
                addr,
                Space::Local,
                (size, words),
                Cop::default(),
            );
        }
        let t = self.new_tuple(words);
        self.emit_load(
            R::of(t, 0),
            addr,
            Space::Local,
            (size, words),
            Cop::default(),
        );
        if packed {
            let word = |w: u8| Lane::Reg(t, w.min(words - 1));
            self.unpack_vector(d, ty, vector, [word(0), word(1)]);
        } else {
            let (t, zero) = (Lane::Reg(t, 0), Lane::Imm(0));
            self.icmp32(d, None, Icmp::Ne, false, t, zero, None, Bop::And, false);
        }
    }

    /// `isspacep.space p, a`: whether generic address `a` is in `space`. Shared, local and
    /// constant bank 1 memory are windows below 4 GiB (docs/hw.md): `a` is in one when its
    /// high word is zero and its low word less the window's base is below the window's size;
    /// an address in no window is global. sgpu has no generic addresses of kernel parameters
    /// (`.param`), which are refused.
    pub(super) fn is_space(&mut self, ins: &PtxInstruction<'a>) {
        let has = |m: &str| ins.modifiers().any(|x| x == m);
        let (base, size, inside) = if has(".global") {
            // Every window, as one range: they are adjacent.
            let span = CONST_WINDOW + WINDOW_SIZE - SHARED_WINDOW;
            (SHARED_WINDOW, span, false)
        } else if has(".shared") || has(".shared::cta") || has(".shared::cluster") {
            (SHARED_WINDOW, WINDOW_SIZE, true)
        } else if has(".local") {
            (LOCAL_WINDOW, WINDOW_SIZE, true)
        } else if has(".const") {
            (CONST_WINDOW, WINDOW_SIZE, true)
        } else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let (Some(Src::Pred(d, _)), Some(a)) = (self.operand(ins, 0), self.operand(ins, 1)) else {
            return self.unsupported("these operands of `isspacep`");
        };
        let wide = matches!(a, Src::Reg { ty, .. } if ty.bits == 64);
        let Some(lo) = self.lane(a, false) else {
            return;
        };
        let offset = self.new32();
        self.add(offset, 0, lo, Lane::Imm((base as u32).wrapping_neg()));
        let below = self.is(
            Icmp::Lt,
            false,
            Lane::Reg(offset, 0),
            Lane::Imm(size as u32),
        );
        let in_window = if wide {
            let Some(hi) = self.lane(a, true) else { return };
            let p = self.vregs.new_reg(Class::Pred);
            let c = Some((below, false));
            self.icmp32(
                p,
                None,
                Icmp::Eq,
                false,
                hi,
                Lane::Imm(0),
                c,
                Bop::And,
                false,
            );
            p
        } else {
            below
        };
        self.plop(d, Some((in_window, !inside)), None, Bop::And);
    }

    fn atomic(&mut self, ins: &PtxInstruction<'a>, mut space: Space) {
        let red = ins.opcode() == "red";
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        let aty = match ty.name {
            "u32" => Aty::U32,
            "s32" => Aty::S32,
            "u64" => Aty::U64,
            "s64" => Aty::S64,
            "f32" => Aty::F32,
            "b32" => Aty::B32,
            "b64" => Aty::B64,
            "f16" => Aty::F16,
            "f16x2" => Aty::F16x2,
            "bf16" => Aty::Bf16,
            "bf16x2" => Aty::Bf16x2,
            // ATOM has no f64 sum: a compare-and-swap loop (`atomic_add_f64`).
            "f64" => Aty::B64,
            _ => return self.unsupported(format!("`{}`", ins.mnemonic.text)),
        };
        let aop = isa_modifier(ins, Aop::from_name);
        let Some(aop) = aop else {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        };
        let first = usize::from(!red);
        let Some(addr) = self.address(&ins.operands[first], &mut space, false) else {
            return;
        };
        if matches!(space, Space::Local | Space::Param) {
            return self.unsupported("atomics on local or parameter memory");
        }
        // Atomics are not made on local memory (refused above): `local` says nothing here.
        let Address::Reg {
            base,
            wide: w,
            offset,
            local: _,
        } = addr
        else {
            return self.unsupported("an atomic on constant memory");
        };
        let words = if ty.bits == 64 { 2 } else { 1 };
        let site = AtomicSite {
            base,
            wide: w,
            space,
            aop,
            aty,
            words,
        };
        if let O::Vector(values, _) = &ins.operands[first + 1] {
            let dests = match &ins.operands[0] {
                O::Vector(d, _) if !red => Some(d.as_slice()),
                _ => None,
            };
            return self.vector_atomic(site, offset, values, dests, u32::from(ty.bits) / 8);
        }
        // ATOM takes no offset: add it to the address.
        let site = self.at_offset(site, offset);
        let value = |me: &mut Self, i| me.operand(ins, i).and_then(|s| me.atomic_value(s, words));
        let Some(rb) = value(self, first + 1) else {
            return;
        };
        let rc = match aop {
            Aop::Cas => match value(self, first + 2) {
                Some(r) => r,
                None => return,
            },
            _ => R::ZERO,
        };
        let result = if red {
            None
        } else {
            match self.dest(ins, 0) {
                Some((d, dp, _)) => Some(R::of(d, dp)),
                None => return,
            }
        };
        if ty.name == "f64" {
            if aop != Aop::Add {
                return self.unsupported(format!("`{}`", ins.mnemonic.text));
            }
            let result = result.and_then(|r| r.v);
            return self.atomic_add_f64((site.base, w), space, rb, result);
        }
        self.emit_atomic(&site, result, rb, rc);
    }

    /// An atomic of a vector (`atom.global.v8.f16.max.noftz`): one atomic of each element,
    /// `bytes` apart, as PTX defines it (each element atomic on its own).
    fn vector_atomic(
        &mut self,
        site: AtomicSite,
        offset: i64,
        values: &[Expr<'a>],
        dests: Option<&[Expr<'a>]>,
        bytes: u32,
    ) {
        for (i, e) in values.iter().enumerate() {
            let at = self.at_offset(site, offset + i64::from(bytes) * i as i64);
            let Some(rb) = self.src(e).and_then(|s| self.atomic_value(s, site.words)) else {
                return;
            };
            // A sunk element (`_`) has no destination: a reduction.
            let result = match dests.map(|d| &d[i]) {
                None => None,
                Some(Expr::Name(id)) if id.text == "_" => None,
                Some(d) => match self.dst(d) {
                    Some((d, dp, _)) => Some(R::of(d, dp)),
                    None => return,
                },
            };
            self.emit_atomic(&at, result, rb, R::ZERO);
        }
    }

    /// `site` moved `offset` bytes on (ATOM takes no offset: it is added to the address).
    fn at_offset(&mut self, site: AtomicSite, offset: i64) -> AtomicSite {
        if offset == 0 {
            return site;
        }
        AtomicSite {
            base: self.offset_base(site.base, site.wide, offset),
            ..site
        }
    }

    /// An atomic's value operand in registers: an immediate moved into new ones.
    fn atomic_value(&mut self, s: Src<'a>, words: u8) -> Option<R> {
        if let Src::Reg { v, part, .. } = s {
            return Some(R::of(v, part));
        }
        let t = self.vregs.new_reg(Class::Gpr { size: words });
        for w in 0..words {
            let l = self.lane(s, w == 1)?;
            self.mov_lane(t, w, l);
        }
        Some(R::of(t, 0))
    }

    /// `ATOM` into `result`, or `RED` without one.
    fn emit_atomic(&mut self, site: &AtomicSite, result: Option<R>, rb: R, rc: R) {
        let AtomicSite {
            base,
            wide: e,
            space,
            aop,
            aty,
            words,
        } = *site;
        let aw = if e { 2 } else { 1 };
        let Some(rd) = result else {
            let op = Op::Red {
                ra: base.reg,
                rb: rb.reg,
                aop,
                aty,
                space,
                e,
            };
            let fields = [
                wide(use_(fields::RA, base), aw),
                wide(use_(fields::RB, rb), words),
            ];
            self.emit(op, &fields);
            return;
        };
        let op = Op::Atom {
            rd: rd.reg,
            ra: base.reg,
            rb: rb.reg,
            rc: rc.reg,
            aop,
            aty,
            space,
            e,
        };
        let fields = [
            wide(def(fields::RD, rd), words),
            wide(use_(fields::RA, base), aw),
            wide(use_(fields::RB, rb), words),
            wide(use_(fields::RC, rc), words),
        ];
        self.emit(op, &fields);
    }
}

/// Where and how an atomic operates: its address register (a pair when `wide`), space,
/// operation, type, and the registers a value takes.
#[derive(Clone, Copy)]
struct AtomicSite {
    base: R,
    wide: bool,
    space: Space,
    aop: Aop,
    aty: Aty,
    words: u8,
}

impl<'a> FnLower<'a, '_> {
    /// `atom.add.f64` and `red.add.f64`: sgpu's ATOM has no f64 sum (the f64 runtime
    /// computes it), so a loop, as CUDA's software `atomicAdd(double *)` is written: load the
    /// value, add, compare-and-swap; while another thread changed the value in between,
    /// take what the swap found and go again. The old value is the result.
    fn atomic_add_f64(
        &mut self,
        (base, w): (R, bool),
        space: Space,
        b: R,
        result: Option<(VReg, u8)>,
    ) {
        let at = Address::Reg {
            base,
            wide: w,
            offset: 0,
            local: Local::Frame,
        };
        let old = self.new64();
        self.emit_load(R::of(old, 0), at, space, (Msize::B64, 2), Cop::default());
        let again = self.new_label();
        self.place_label(again);
        let f64_ty = Type::from_name("f64").expect("a PTX type");
        let reg = |v: VReg, part: u8| Src::Reg {
            v,
            ty: f64_ty,
            part,
            sel: None,
        };
        let (sum, seen) = (self.new64(), self.new64());
        let addend = b.v.map_or(Src::Imm(0), |(v, p)| reg(v, p));
        self.double_add(sum, reg(old, 0), addend);
        let (rs, ro, rn) = (R::of(seen, 0), R::of(old, 0), R::of(sum, 0));
        let aw = if w { 2 } else { 1 };
        self.emit(
            Op::Atom {
                rd: rs.reg,
                ra: base.reg,
                rb: ro.reg,
                rc: rn.reg,
                aop: Aop::Cas,
                aty: Aty::B64,
                space,
                e: w,
            },
            &[
                wide(def(fields::RD, rs), 2),
                wide(use_(fields::RA, base), aw),
                wide(use_(fields::RB, ro), 2),
                wide(use_(fields::RC, rn), 2),
            ],
        );
        // Again where the swap found another value, and only in the lanes the guard runs:
        // computed for every lane, so that the others read false.
        let retry = self.vregs.new_reg(Class::Pred);
        let guard = self.guard.take();
        self.icmp64(
            retry,
            Icmp::Ne,
            false,
            pair_lanes(seen),
            pair_lanes(old),
            guard,
            Bop::And,
        );
        self.guard = guard;
        self.mov_lane(old, 0, Lane::Reg(seen, 0));
        self.mov_lane(old, 1, Lane::Reg(seen, 1));
        self.branch_if(retry, again);
        if let Some((d, dp)) = result {
            self.mov_lane(d, dp, Lane::Reg(seen, 0));
            self.mov_lane(d, dp + 1, Lane::Reg(seen, 1));
        }
    }
}

/// `a + 4` -> (`a`, 4); `a` -> (`a`, 0).
fn split_offset<'e, 'a>(e: &'e Expr<'a>) -> (&'e Expr<'a>, i64) {
    if let Expr::Node(n) = e {
        if let NodeKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), l, r) = &n.kind {
            if let Some(k) = fold(r) {
                let k = if *op == BinaryOp::Sub { -k } else { k };
                if let Ok(k) = i64::try_from(k) {
                    let (base, inner) = split_offset(l);
                    return (base, inner + k);
                }
            }
        }
    }
    (e, 0)
}
