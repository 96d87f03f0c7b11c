//! Lowering one PTX function to machine IR: names to virtual registers, operands to register
//! fields and immediates, each PTX instruction to sgpu instructions.
//!
//! The families live beside this file: `int.rs`, `float.rs`, `mem.rs`, `control.rs`,
//! `video.rs`, `surface.rs` and `warp.rs`. This file holds what they share: resolving
//! operands, and building instructions through the generated [`Op`] with their register
//! fields recorded as [`Slot`]s.

mod arith;
mod bits;
mod compare;
mod control;
mod convert;
mod double;
mod float;
mod float_convert;
mod half;
mod int;
mod mem;
mod moves;
mod surface;
mod video;
mod warp;

use crate::diag::Diags;
use crate::layout::{FrameSlot, Layout, Place, Signature};
use crate::mir::{Class, Field, MInst, Marks, Reloc, Slot, Target, VReg, VRegs};
use ptx_grammar::ast::{
    BinaryOp, Block, Expr, Function, FunctionKind, Ident, Instruction as PtxInstruction, NodeKind,
    Span, StateSpace, Statement, UnaryOp, VarDecl,
};
use ptx_grammar::check::decl::declared_type;
use ptx_grammar::check::types::{Class as TyClass, Type};
use ptx_grammar::check::video::simd_elements;
use ptx_grammar::scope::Scopes;
use rustc_hash::FxHashMap;
use sgpu_isa::{fields, Instruction, Op, Pred, PredSrc, Reg, RegOrImm};

/// A function after lowering: its code on virtual registers, ready for allocation.
pub struct Lowered<'a> {
    pub name: &'a str,
    /// The function's name, where what concerns the whole function is reported.
    pub span: Span,
    pub entry: bool,
    pub code: Vec<MInst>,
    pub vregs: VRegs,
    /// Each label's instruction index.
    pub label_pos: Vec<usize>,
    /// The PTX name of each label, by its index in `label_pos`.
    pub label_names: Vec<&'a str>,
    /// Bytes of kernel parameters (constant bank 0).
    pub param_size: u32,
    /// Each kernel parameter's (offset, size).
    pub params: Vec<(u32, u32)>,
    /// Where the spill slots may start in the frame: past the module's `.local` variables (a
    /// kernel's) or the results and parameters (a function's), and the function's own
    /// `.local` variables after them.
    pub locals_end: u32,
    /// Bytes of static shared memory: every `.shared` variable of the module
    /// (`Layout::shared_size`).
    pub shared_size: u32,
    /// `.maxntid` / `.reqntid` threads per CTA, when given.
    pub max_threads: Option<u32>,
    /// Bytes of the largest call's results and parameters: the outgoing area of the frame.
    pub outgoing_size: u32,
    /// The largest alignment of what the frame holds (its results and parameters, its
    /// `.local` variables), at least [`crate::layout::FRAME_ALIGN`]: where the frame may
    /// start.
    pub frame_align: u32,
}

/// What a name declared inside the function stands for.
#[derive(Clone, Copy, Debug)]
enum LocalDecl {
    /// A register, or each register of a range `%r<N>`.
    Reg { ty: Type, vector: u8 },
    /// A variable in memory.
    Var(Place),
    /// A kernel parameter at this offset of constant bank 0.
    KernelParam { offset: u32 },
}

/// A resolved source operand.
#[derive(Clone, Copy, Debug)]
enum Src<'a> {
    /// A register (or a register of a vector, `part`), with a video selector if written.
    Reg {
        v: VReg,
        ty: Type,
        part: u8,
        sel: Option<&'a str>,
    },
    Imm(u64),
    /// The address of a variable, plus an offset.
    Addr(Place, i64),
    /// A predicate register, negated with `!`.
    Pred(VReg, bool),
    Special(sgpu_isa::Sreg),
    /// `-%r`: only vmad takes it.
    Neg(VReg, Option<&'a str>),
}

/// One 32-bit lane of a source: a register (part of a virtual register), an immediate, or
/// zero (RZ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Reg(VReg, u8),
    Imm(u32),
}

/// A register operand ready for an instruction: the `Reg` to build it with (a placeholder
/// when `slot` names a virtual register) and the virtual register.
#[derive(Clone, Copy, Debug)]
struct R {
    reg: Reg,
    v: Option<(VReg, u8)>,
}

impl R {
    const ZERO: R = R {
        reg: Reg::RZ,
        v: None,
    };
    fn of(v: VReg, part: u8) -> R {
        R {
            reg: Reg(0),
            v: Some((v, part)),
        }
    }
}

/// An `rb`/`rc` operand that may be an 8-bit immediate.
#[derive(Clone, Copy, Debug)]
struct RI {
    val: RegOrImm,
    v: Option<(VReg, u8)>,
}

/// A register field binding for [`FnLower::push`].
#[derive(Clone, Copy)]
struct Bind {
    field: sgpu_isa::Field,
    v: Option<(VReg, u8)>,
    width: u8,
    def: bool,
}

fn use_(field: sgpu_isa::Field, r: R) -> Bind {
    Bind {
        field,
        v: r.v,
        width: 1,
        def: false,
    }
}
fn use_ri(field: sgpu_isa::Field, r: RI) -> Bind {
    Bind {
        field,
        v: r.v,
        width: 1,
        def: false,
    }
}
fn def(field: sgpu_isa::Field, r: R) -> Bind {
    Bind {
        field,
        v: r.v,
        width: 1,
        def: true,
    }
}
/// `rd` written, `ra` read: the fields of a unary operation.
fn unary(rd: R, ra: R) -> [Bind; 2] {
    [def(fields::RD, rd), use_(fields::RA, ra)]
}
/// `rd` written, `ra` and `rb` read.
fn binary(rd: R, ra: R, rb: R) -> [Bind; 3] {
    [
        def(fields::RD, rd),
        use_(fields::RA, ra),
        use_(fields::RB, rb),
    ]
}
/// `rd` written, `ra`, `rb` and `rc` read.
fn ternary(rd: R, ra: R, rb: R, rc: R) -> [Bind; 4] {
    [
        def(fields::RD, rd),
        use_(fields::RA, ra),
        use_(fields::RB, rb),
        use_(fields::RC, rc),
    ]
}
/// `rd` written, `ra` and `rb` (maybe an immediate) read.
fn binary_ri(rd: R, ra: R, rb: RI) -> [Bind; 3] {
    [
        def(fields::RD, rd),
        use_(fields::RA, ra),
        use_ri(fields::RB, rb),
    ]
}
fn wide(mut b: Bind, width: u8) -> Bind {
    b.width = width;
    b
}

pub struct FnLower<'a, 'l> {
    source: &'a str,
    layout: &'l Layout<'a>,
    lines: &'l mut LineCursor<'a>,
    diags: &'l mut Diags,
    vregs: VRegs,
    scopes: Scopes<'a, LocalDecl>,
    /// The virtual register of each register name used so far, by its number in `scopes`:
    /// in a table while numbers are small (those of LLVM's ranges are dense from zero), in
    /// a map for the numbers of huge ranges like `%r<4000000000>`.
    numbered: Vec<Option<VReg>>,
    numbered_sparse: FxHashMap<u64, VReg>,
    code: Vec<MInst>,
    labels: FxHashMap<&'a str, u32>,
    label_pos: Vec<usize>,
    /// The guard of the PTX instruction being lowered; every instruction it becomes has it.
    guard: Option<(VReg, bool)>,
    line: u32,
    span: Span,
    local_size: u32,
    entry: bool,
    /// Whether the instruction being lowered has been reported, so one line gets one error.
    failed: bool,
    /// The `.loc` in force: file index and line.
    loc: (u32, u32),
    /// The instruction's modifiers that `flag_bit` knows, as bits: read once per
    /// instruction, since every family asks about several.
    mods: u64,
    /// The instruction's type modifiers, read in the same pass.
    tys: Types,
    /// `mods` and `tys` of each distinct mnemonic met so far: a function uses few, and
    /// matching each modifier against the tables is most of what reading them costs.
    mnemonics: FxHashMap<&'a str, (u64, Types)>,
    /// Where the function's own `.local` variables start in its frame: after module-scope
    /// `.local` variables in a kernel, after the results and parameters in a function.
    frame_start: u32,
    /// The largest alignment in the frame so far (`Lowered::frame_align`).
    frame_align: u32,
    /// The `.param` variables of the calls in the blocks being lowered, by name: their
    /// offsets in the outgoing area.
    outgoing: Vec<FxHashMap<&'a str, u32>>,
    outgoing_size: u32,
    /// A device function's `.reg` results, which `ret` stores in their frame slots.
    reg_results: Vec<((VReg, u8), FrameSlot)>,
    /// The `.callprototype`s and `.calltargets` of the blocks being lowered (and of blocks
    /// closed, which no call names any more), by label: their frame layouts.
    prototypes: FxHashMap<&'a str, Signature>,
}

/// The type modifiers of an instruction, in the order written (`cvt.u32.f32`: u32, f32); the
/// operation's type is the last one. No instruction has more than four (`vmad` with a
/// secondary type has three).
#[derive(Clone, Copy)]
struct Types {
    list: [Type; 4],
    len: u8,
}

impl Types {
    const NONE: Types = Types {
        list: [ptx_grammar::check::types::TYPES[0]; 4],
        len: 0,
    };

    fn push(&mut self, t: Type) {
        if let Some(slot) = self.list.get_mut(usize::from(self.len)) {
            *slot = t;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Types {
    type Target = [Type];
    fn deref(&self) -> &[Type] {
        &self.list[..usize::from(self.len)]
    }
}

/// A register operand: a predicate, or part of a (vector) register with its `.x`-like or
/// video selector suffix.
fn reg_src<'a>(v: VReg, ty: Type, vector: u8, suffix: Option<&'a str>) -> Src<'a> {
    if ty.class == TyClass::Pred {
        return Src::Pred(v, false);
    }
    let (part, sel) = match suffix {
        Some(".x" | ".r") if vector > 1 => (0, None),
        Some(".y" | ".g") if vector > 1 => (1, None),
        Some(".z" | ".b") if vector > 1 => (2, None),
        Some(".w" | ".a") if vector > 1 => (3, None),
        other => (0, other),
    };
    let part = part * (u32::from(ty.bits).max(32) / 32) as u8;
    Src::Reg { v, ty, part, sel }
}

/// A register type as PTX writes it in a declaration: `.u32`, `.v2 .u32`.
fn register_type_name(ty: Type, vector: u8) -> String {
    match vector {
        1 => format!(".{}", ty.name),
        n => format!(".v{n} .{}", ty.name),
    }
}

/// The first modifier that names a value of an ISA enumeration (`.popc` names `Bred::Popc`).
fn isa_modifier<T>(ins: &PtxInstruction<'_>, from_name: fn(&str) -> Option<T>) -> Option<T> {
    ins.modifiers()
        .find_map(|m| from_name(&m[1..].to_uppercase()))
}

/// The bit of a modifier that lowering asks about (see `FnLower::has`).
fn flag_bit(m: &str) -> Option<u32> {
    Some(match m {
        ".hi" => 0,
        ".sat" => 1,
        ".cc" => 2,
        ".ftz" => 3,
        ".wrap" => 4,
        ".wide" => 5,
        ".sync" => 6,
        ".uni" => 7,
        ".to" => 8,
        ".sys" => 9,
        ".shr7" => 10,
        ".shr15" => 11,
        ".shiftamt" => 12,
        ".red" => 13,
        ".r" => 14,
        ".po" => 15,
        ".min" => 16,
        ".max" => 17,
        ".lo" => 18,
        ".full" => 19,
        ".cta" => 20,
        ".const" => 21,
        ".clamp" => 22,
        ".arrive" => 23,
        ".approx" => 24,
        ".add" => 25,
        ".NaN" => 26,
        ".zero" => 27,
        ".v2" => 28,
        ".v4" => 29,
        ".p" => 30,
        ".relu" => 31,
        ".satfinite" => 32,
        ".rna" => 33,
        ".rs" => 34,
        ".nc" => 35,
        ".warp" => 36,
        _ => return None,
    })
}

/// An instruction's modifiers that `flag_bit` knows, as bits, and its type modifiers.
fn modifier_summary(ins: &PtxInstruction<'_>) -> (u64, Types) {
    let (mut mods, mut tys) = (0, Types::NONE);
    for m in ins.modifiers() {
        if let Some(t) = Type::from_modifier(m) {
            tys.push(t);
        }
        if let Some(bit) = flag_bit(m) {
            mods |= 1 << bit;
        }
    }
    (mods, tys)
}

/// Integer constant folding over an expression of literals.
pub fn fold(e: &Expr<'_>) -> Option<i128> {
    match e {
        Expr::Int { value, .. } => Some(i128::from(*value)),
        Expr::Node(n) => match &n.kind {
            NodeKind::Paren(x) => fold(x),
            NodeKind::Unary(UnaryOp::Neg, x) => fold(x).map(|v| -v),
            NodeKind::Unary(UnaryOp::BitNot, x) => fold(x).map(|v| !v),
            NodeKind::Binary(op, l, r) => op.apply(fold(l)?, fold(r)?),
            _ => None,
        },
        _ => None,
    }
}

/// Register numbers below this have their virtual registers in a table (4 MiB at most).
const DENSE_NUMBERS: usize = 1 << 20;

/// Line numbers of byte offsets asked for mostly in increasing order, as lowering goes
/// through the source: counting the newlines since the previous offset is cheaper than
/// indexing every line first.
pub struct LineCursor<'a> {
    source: &'a str,
    /// The last offset asked about, and its line.
    at: u32,
    line: u32,
}

impl<'a> LineCursor<'a> {
    pub fn new(source: &'a str) -> LineCursor<'a> {
        LineCursor {
            source,
            at: 0,
            line: 1,
        }
    }

    /// The 1-based line of byte offset `offset`.
    pub fn line(&mut self, offset: u32) -> u32 {
        if offset < self.at {
            (self.at, self.line) = (0, 1);
        }
        let between = &self.source.as_bytes()[self.at as usize..offset as usize];
        self.line += between.iter().filter(|&&b| b == b'\n').count() as u32;
        self.at = offset;
        self.line
    }
}

/// The register class of a PTX register type.
fn class_of(ty: Type, vector: u8) -> Class {
    if ty.class == TyClass::Pred {
        return Class::Pred;
    }
    let words = (u32::from(ty.bits).max(32) / 32) as u8 * vector;
    Class::Gpr {
        size: words.next_power_of_two().min(4),
    }
}

impl<'a, 'l> FnLower<'a, 'l> {
    pub fn lower(
        source: &'a str,
        f: &Function<'a>,
        layout: &'l Layout<'a>,
        lines: &'l mut LineCursor<'a>,
        diags: &'l mut Diags,
    ) -> Option<Lowered<'a>> {
        let body = f.body.as_ref()?;
        let line = lines.line(f.span.start);
        let mut l = FnLower {
            source,
            layout,
            lines,
            diags,
            vregs: VRegs::default(),
            scopes: Scopes::default(),
            numbered: Vec::new(),
            numbered_sparse: FxHashMap::default(),
            // Most PTX instructions become one or two.
            code: Vec::with_capacity(2 * body.statements.len()),
            labels: FxHashMap::default(),
            label_pos: Vec::new(),
            guard: None,
            line,
            span: f.name.span,
            local_size: 0,
            entry: f.kind == FunctionKind::Entry,
            failed: false,
            mods: 0,
            tys: Types::NONE,
            mnemonics: FxHashMap::default(),
            loc: (0, 0),
            frame_start: layout.local_size,
            frame_align: crate::layout::FRAME_ALIGN,
            outgoing: Vec::new(),
            outgoing_size: 0,
            reg_results: Vec::new(),
            prototypes: FxHashMap::default(),
        };
        l.scopes.push();
        let mut param_size = 0;
        let mut params = Vec::new();
        if l.entry {
            for p in f.params.iter().flatten() {
                let (offset, size) = l.kernel_param(p, param_size);
                params.push((offset, size));
                param_size = offset + size;
            }
        } else {
            // Results and parameters are at the start of the function's frame.
            let sig = &layout.signatures[f.name.text];
            let names = |decls: &Option<Vec<VarDecl<'a>>>| {
                let decls = decls.iter().flatten();
                decls
                    .flat_map(|d| d.declarators.iter().map(|x| x.name.text))
                    .collect::<Vec<_>>()
            };
            for (name, &slot) in names(&f.ret).into_iter().zip(&sig.results) {
                if let Some(v) = l.define_slot(name, slot) {
                    l.reg_results.push((v, slot));
                }
            }
            for (name, &slot) in names(&f.params).into_iter().zip(&sig.params) {
                if let Some(v) = l.define_slot(name, slot) {
                    l.load_frame_slot(v, slot, false);
                }
            }
            l.frame_start = sig.size;
            l.frame_align = l.frame_align.max(sig.align);
        }
        l.collect_labels(body);
        l.block(body);
        // A kernel that runs off its end exits.
        if l.code.last().is_none_or(|m| !m.is_unconditional_jump()) {
            l.span = Span::new(body.span.end as usize - 1, body.span.end as usize);
            if l.entry {
                l.emit(Op::Exit, &[]);
            } else {
                l.ret();
            }
        }
        let max_threads = f.directives.iter().find_map(|d| {
            matches!(d.name.text, ".maxntid" | ".reqntid")
                .then(|| d.values.iter().product::<u64>() as u32)
        });
        let label_names = l.label_names();
        Some(Lowered {
            name: f.name.text,
            span: f.name.span,
            entry: l.entry,
            code: l.code,
            vregs: l.vregs,
            label_names,
            label_pos: l.label_pos,
            param_size,
            params,
            // `allocate` checked that the frame start plus the variables fit.
            locals_end: l.frame_start.saturating_add(l.local_size),
            shared_size: layout.shared_size,
            max_threads,
            outgoing_size: l.outgoing_size,
            frame_align: l.frame_align,
        })
    }

    /// Declares a device function's result or parameter `name`: a variable in its frame
    /// slot, or for a `.reg` one a register, returned, which moves through the slot.
    fn define_slot(&mut self, name: &'a str, slot: FrameSlot) -> Option<(VReg, u8)> {
        let Some((ty, vector)) = slot.reg else {
            let offset = slot.offset;
            self.define(name, None, LocalDecl::Var(Place::Local { offset }));
            return None;
        };
        self.define(name, None, LocalDecl::Reg { ty, vector });
        let (v, _, _) = self.vreg(name)?;
        Some((v, 0))
    }

    /// Places a kernel parameter at or after `at`: its (offset, size).
    fn kernel_param(&mut self, p: &VarDecl<'a>, at: u32) -> (u32, u32) {
        let Some((scalar, vector)) = crate::layout::element_size(p) else {
            return (at, 0);
        };
        let d = &p.declarators[0];
        let count: u64 = d.dims.iter().map(|n| n.unwrap_or(1)).product();
        let size = scalar * vector * count as u32;
        let align = crate::layout::alignment(p, scalar * vector);
        let offset = at.div_ceil(align) * align;
        self.define(d.name.text, None, LocalDecl::KernelParam { offset });
        (offset, size)
    }

    /// The PTX name of each label, by its id.
    fn label_names(&self) -> Vec<&'a str> {
        let mut names = vec![""; self.labels.len()];
        for (&name, &id) in &self.labels {
            names[id as usize] = name;
        }
        names
    }

    /// A label of the lowering's own (a loop it builds), placed by [`place_label`]; it has
    /// no PTX name, so no symbol.
    ///
    /// [`place_label`]: Self::place_label
    fn new_label(&mut self) -> u32 {
        self.label_pos.push(usize::MAX);
        self.label_pos.len() as u32 - 1
    }

    /// Places label `id` at the next instruction.
    fn place_label(&mut self, id: u32) {
        self.label_pos[id as usize] = self.code.len();
    }

    /// `BRA` to label `id` where predicate `p` holds (ignoring the instruction's guard,
    /// which `p` must take in already).
    fn branch_if(&mut self, p: VReg, id: u32) {
        let guard = self.guard.replace((p, false));
        let at = self.emit(
            Op::Bra {
                uni: false,
                target: 0,
            },
            &[],
        );
        self.set_target(at, Target::Label(id));
        self.guard = guard;
    }

    fn collect_labels(&mut self, b: &Block<'a>) {
        for s in &b.statements {
            match s {
                Statement::Label(l) => {
                    let id = self.label_pos.len() as u32;
                    self.labels.insert(l.text, id);
                    self.label_pos.push(usize::MAX);
                }
                Statement::Block(inner) => self.collect_labels(inner),
                _ => {}
            }
        }
    }

    fn block(&mut self, b: &Block<'a>) {
        self.scopes.push();
        self.declare_prototypes(b);
        let arguments = self.call_arguments(b);
        self.outgoing.push(arguments);
        for s in &b.statements {
            match s {
                Statement::Label(l) => {
                    let id = self.labels[l.text];
                    self.label_pos[id as usize] = self.code.len();
                }
                Statement::Var(v) => self.declare(v),
                Statement::Instr(i) => {
                    self.line = self.lines.line(i.span.start);
                    self.span = i.span;
                    self.failed = false;
                    self.guard = match &i.guard {
                        Some(g) => match self.pred_reg(&g.pred) {
                            Some(v) => Some((v, g.negated)),
                            None => continue,
                        },
                        None => None,
                    };
                    self.instruction(i);
                    self.guard = None;
                }
                Statement::Block(inner) => self.block(inner),
                Statement::CallPrototype(_) | Statement::Targets { .. } => {}
                Statement::Loc(loc) => self.loc = (loc.file as u32, loc.line as u32),
                Statement::Pragma(_) | Statement::Error(_) => {}
            }
        }
        self.scopes.pop();
        self.outgoing.pop();
    }

    /// Records the frame layouts of the `.callprototype`s declared directly in `b`, and of
    /// its `.calltargets` lists (their first function's: PTX requires them alike).
    fn declare_prototypes(&mut self, b: &Block<'a>) {
        for s in &b.statements {
            let (label, sig) = match s {
                Statement::CallPrototype(p) => {
                    let ret = p.ret.as_deref().unwrap_or(&[]);
                    (p.label.text, crate::layout::signature_of(ret, &p.params))
                }
                Statement::Targets {
                    label,
                    kind,
                    targets,
                } if kind.text == ".calltargets" => {
                    let first = targets
                        .first()
                        .and_then(|f| self.layout.signatures.get(f.text));
                    let Some(sig) = first else { continue };
                    (label.text, sig.clone())
                }
                _ => continue,
            };
            self.prototypes.insert(label, sig);
        }
    }

    /// The frame layout a call passes its arguments in: the callee's, or for an indirect
    /// call (through a register) its prototype's.
    fn callee_signature(
        &self,
        callee: &Ident<'a>,
        prototype: Option<&Ident<'a>>,
    ) -> Option<&Signature> {
        match self.lookup(callee.text) {
            Some((LocalDecl::Reg { .. }, _)) => self.prototypes.get(prototype?.text),
            _ => self.layout.signatures.get(callee.text),
        }
    }

    /// The `.param` variables that the call in `b` passes, with their offsets in the
    /// outgoing area: where the callee's frame has its results and parameters, so that they
    /// need no copy. That holds for a block with one call and no other in blocks inside it
    /// (what compilers write: a block per call, its arguments declared in it), where nothing
    /// else uses the outgoing area while the variables live. Every other `.param` variable
    /// (of a block with several calls, passed by calls of inner blocks, passed twice, or
    /// kept as scratch) gets storage of its own in the frame, which `call` copies to and
    /// from the slots.
    fn call_arguments(&mut self, b: &Block<'a>) -> FxHashMap<&'a str, u32> {
        let mut map = FxHashMap::default();
        let mut calls = b.statements.iter().filter_map(|s| match s {
            Statement::Instr(ins) if ins.opcode() == "call" => Some(ins),
            _ => None,
        });
        let (Some(ins), None) = (calls.next(), calls.next()) else {
            return map;
        };
        let nested_calls = b.statements.iter().any(|s| match s {
            Statement::Block(inner) => has_call(inner),
            _ => false,
        });
        if nested_calls {
            return map;
        }
        let Some(parts) = call_parts(ins) else {
            return map;
        };
        let Some(sig) = self
            .callee_signature(parts.callee, parts.prototype)
            .cloned()
        else {
            return map;
        };
        let slots = parts
            .results
            .iter()
            .zip(&sig.results)
            .chain(parts.params.iter().zip(&sig.params));
        let mut twice = Vec::new();
        for (arg, slot) in slots {
            if let (Expr::Name(id), None) = (arg, slot.reg) {
                if map.insert(id.text, slot.offset).is_some() {
                    twice.push(id.text);
                }
            }
        }
        map.retain(|name, _| !twice.contains(name));
        map
    }

    /// Places declarator `d` of `v` among the function's local variables; `None` after
    /// reporting that they pass 4 GiB. (Shared variables are the module's: layout.rs.)
    fn allocate(&mut self, v: &VarDecl<'a>, d: &ptx_grammar::ast::Declarator<'a>) -> Option<Place> {
        let (scalar, vector) = crate::layout::element_size(v)?;
        // Sizes in u64 and checked: a wrapped size would place variables on top of each
        // other.
        let size = d.dims.iter().try_fold(u64::from(scalar * vector), |s, n| {
            s.checked_mul(n.unwrap_or(0))
        });
        let align = crate::layout::alignment(v, scalar * vector);
        self.frame_align = self.frame_align.max(align);
        // Aligned from the frame's start (which is aligned to the largest alignment in any
        // frame), not from the end of the parameters before the variables.
        let start = self.frame_start;
        let fits = size.and_then(|size| {
            let mut end = self.local_size.checked_add(start)?;
            let offset = crate::layout::append(&mut end, align, size)?;
            self.local_size = end - start;
            Some(offset)
        });
        let Some(offset) = fits else {
            self.diags
                .unsupported(d.name.span, crate::layout::too_large(StateSpace::Local));
            return None;
        };
        Some(Place::Local { offset })
    }

    fn declare(&mut self, v: &VarDecl<'a>) {
        let Ok(info) = declared_type(v) else { return };
        for d in &v.declarators {
            let decl = match v.space {
                StateSpace::Reg => {
                    let Some(ty) = info.ty else { continue };
                    LocalDecl::Reg {
                        ty,
                        vector: info.vector,
                    }
                }
                StateSpace::Local => match self.allocate(v, d) {
                    Some(place) => LocalDecl::Var(place),
                    None => continue,
                },
                // In the outgoing area where its block's calls pass it; else (passed by calls
                // of inner blocks, by several, or kept as scratch) storage in the frame.
                StateSpace::Param => {
                    let found = self.outgoing.iter().rev().find_map(|m| m.get(d.name.text));
                    match found {
                        Some(&offset) => LocalDecl::Var(Place::Outgoing { offset }),
                        None => match self.allocate(v, d) {
                            Some(place) => LocalDecl::Var(place),
                            None => continue,
                        },
                    }
                }
                StateSpace::Global | StateSpace::Const | StateSpace::Shared => {
                    // Placed with the module's variables (layout.rs), if it could be.
                    match self.layout.scoped.get(&d.name.span.start) {
                        Some(&place) => LocalDecl::Var(place),
                        None => continue,
                    }
                }
                _ => {
                    self.diags.unsupported(
                        d.name.span,
                        format!("`{}` variables inside a function", v.space.as_str()),
                    );
                    continue;
                }
            };
            self.define(d.name.text, d.range, decl);
        }
    }

    /// Declares a name in the innermost scope. The checker has reported a name declared
    /// twice, which never reaches the encoder.
    fn define(&mut self, name: &'a str, range: Option<u32>, decl: LocalDecl) {
        let _ = self.scopes.declare(name, range, decl);
    }

    /// The declaration a name (without suffix) refers to, and the number `scopes` gives
    /// the register or variable it names.
    fn lookup(&self, name: &str) -> Option<(LocalDecl, u64)> {
        self.scopes.get(name).map(|f| (*f.decl, f.number))
    }

    /// The virtual register of a register name (without suffix), created on first use.
    fn vreg(&mut self, name: &str) -> Option<(VReg, Type, u8)> {
        let (decl, number) = self.lookup(name)?;
        self.reg_of(decl, number)
    }

    /// The virtual register numbered `number` of register declaration `decl`, created on
    /// first use.
    fn reg_of(&mut self, decl: LocalDecl, number: u64) -> Option<(VReg, Type, u8)> {
        let LocalDecl::Reg { ty, vector } = decl else {
            return None;
        };
        let class = class_of(ty, vector);
        let vregs = &mut self.vregs;
        let v = match usize::try_from(number) {
            Ok(i) if i < DENSE_NUMBERS => {
                if i >= self.numbered.len() {
                    self.numbered.resize(i + 1, None);
                }
                *self.numbered[i].get_or_insert_with(|| vregs.new_reg(class))
            }
            _ => *self
                .numbered_sparse
                .entry(number)
                .or_insert_with(|| vregs.new_reg(class)),
        };
        Some((v, ty, vector))
    }

    fn pred_reg(&mut self, id: &Ident<'a>) -> Option<VReg> {
        match self.vreg(id.text) {
            Some((v, ty, _)) if ty.class == TyClass::Pred => Some(v),
            _ => {
                self.fail(format!("`{}` is not a predicate register", id.text));
                None
            }
        }
    }

    /// Reports the instruction being lowered as unsupported (once).
    fn unsupported(&mut self, what: impl std::fmt::Display) {
        if !self.failed {
            self.failed = true;
            self.diags.unsupported(self.span, what);
        }
    }

    fn fail(&mut self, message: impl Into<String>) {
        if !self.failed {
            self.failed = true;
            self.diags.error(self.span, message);
        }
    }

    /// Resolves a source operand.
    fn src(&mut self, e: &Expr<'a>) -> Option<Src<'a>> {
        match e {
            Expr::Name(id) => self.name(id),
            Expr::Int { value, .. } => Some(Src::Imm(*value)),
            Expr::F32(bits, _) => Some(Src::Imm(u64::from(*bits))),
            Expr::F64(bits, _) => Some(Src::Imm(*bits)),
            Expr::Node(n) => {
                if let Some(v) = fold(e) {
                    return Some(Src::Imm(v as u64));
                }
                match &n.kind {
                    NodeKind::Paren(x) => self.src(x),
                    NodeKind::Unary(UnaryOp::Not, x) => match self.src(x)? {
                        Src::Pred(v, neg) => Some(Src::Pred(v, !neg)),
                        _ => self.bad_operand(e),
                    },
                    NodeKind::Unary(UnaryOp::Neg, x) => match self.src(x)? {
                        Src::Reg { v, sel, .. } => Some(Src::Neg(v, sel)),
                        _ => self.bad_operand(e),
                    },
                    NodeKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), l, r) => {
                        let (base, off) = match (self.src(l)?, fold(r)) {
                            (Src::Addr(p, o), Some(k)) => (p, o as i128 + k * sign(*op)),
                            // A register plus a constant (`st.u64 [x], r + 1`, which ptxas
                            // takes): the sum, in a register of its own.
                            (
                                Src::Reg {
                                    v,
                                    ty,
                                    part,
                                    sel: None,
                                },
                                Some(k),
                            ) if ty.class != TyClass::Float => {
                                return Some(self.offset_register(v, ty, part, k * sign(*op)));
                            }
                            _ => return self.bad_operand(e),
                        };
                        Some(Src::Addr(base, i64::try_from(off).ok()?))
                    }
                    _ => self.bad_operand(e),
                }
            }
            Expr::Error(_) => self.bad_operand(e),
        }
    }

    /// Register `v` (from `part`) plus `k`, at the register's width, in a new register.
    fn offset_register(&mut self, v: VReg, ty: Type, part: u8, k: i128) -> Src<'a> {
        let base = (Lane::Reg(v, part), Lane::Reg(v, part + 1));
        let t = self.add_constant(base, ty.bits == 64, k as u64);
        Src::Reg {
            v: t,
            ty,
            part: 0,
            sel: None,
        }
    }

    fn bad_operand<T>(&mut self, e: &Expr<'a>) -> Option<T> {
        let text = self.lines_text(e.span());
        self.unsupported(format!("the operand `{text}`"));
        None
    }

    fn lines_text(&self, span: Span) -> String {
        self.source.get(span.range()).unwrap_or("").to_string()
    }

    fn name(&mut self, id: &Ident<'a>) -> Option<Src<'a>> {
        let (base, suffix) = id.split_suffix();
        if let Some((decl, number)) = self.lookup(base) {
            return match decl {
                LocalDecl::Reg { .. } => {
                    let (v, ty, vector) = self.reg_of(decl, number)?;
                    Some(reg_src(v, ty, vector, suffix))
                }
                LocalDecl::Var(place) => Some(Src::Addr(place, 0)),
                // Its address in the `.param` space: its offset in constant bank 0, which
                // `ld.param` through a register reads in a kernel (mem.rs `address`).
                LocalDecl::KernelParam { offset } => Some(Src::Imm(u64::from(offset))),
            };
        }
        if let Some(place) = self.layout.places.get(base) {
            if matches!(place, Place::Local { .. }) && !self.entry {
                // Module-scope `.local` sits at the start of a kernel's frame; a function's
                // frame starts elsewhere.
                self.unsupported("a module-scope `.local` variable in a device function");
                return None;
            }
            return Some(Src::Addr(*place, 0));
        }
        if id.text == "WARP_SZ" {
            return Some(Src::Imm(32));
        }
        match special(id.text) {
            Some(s) => Some(Src::Special(s)),
            None if zero_special(id.text) => Some(Src::Imm(0)),
            None => {
                self.unsupported(format!("the special register `{}`", id.text));
                None
            }
        }
    }

    /// Lane `hi` (0 = low word) of a source, as a register or an immediate.
    fn lane(&mut self, s: Src<'a>, hi: bool) -> Option<Lane> {
        Some(match s {
            Src::Reg { v, part, .. } => Lane::Reg(v, part + u8::from(hi)),
            Src::Imm(i) => Lane::Imm(if hi { (i >> 32) as u32 } else { i as u32 }),
            Src::Special(sr) => {
                let t = self.vregs.new_reg(Class::Gpr {
                    size: if sr == sgpu_isa::Sreg::Clock64 { 2 } else { 1 },
                });
                self.emit_s2r(t, sr);
                Lane::Reg(t, u8::from(hi))
            }
            Src::Addr(place, off) => return self.address_lane(place, off, hi),
            Src::Pred(p, neg) => {
                // A predicate as a number: 1 when set.
                let t = self.new32();
                let rd = R::of(t, 0);
                self.push(
                    Op::Sel {
                        rd: rd.reg,
                        ra: Reg::RZ,
                        rb: RegOrImm::Imm(1),
                        pc: PredSrc {
                            pred: Pred(0),
                            negated: !neg,
                        },
                    },
                    &[def(fields::RD, rd)],
                    Some((p, fields::PC)),
                );
                Lane::Reg(t, 0)
            }
            Src::Neg(..) => {
                self.unsupported("a negated register here");
                return None;
            }
        })
    }

    /// The address of a variable: shared, local and constant offsets are known now; a
    /// global variable's address comes from a relocation.
    fn address_lane(&mut self, place: Place, off: i64, hi: bool) -> Option<Lane> {
        let known = |base: u32| {
            Lane::Imm(if hi {
                0
            } else {
                (i64::from(base) + off) as u32
            })
        };
        Some(match place {
            Place::Shared { offset } => known(offset),
            // A local address is absolute (docs/isa.md): the frame's start plus the offset,
            // so that it names the variable in a function it is passed to. A kernel's frame
            // starts at 0.
            Place::Local { offset } if self.entry || hi => known(offset),
            Place::Local { offset } => {
                let frame = self.new32();
                self.emit_s2r(frame, sgpu_isa::Sreg::Frame);
                let t = self.new32();
                let at = Lane::Imm((i64::from(offset) + off) as u32);
                self.add(t, 0, Lane::Reg(frame, 0), at);
                Lane::Reg(t, 0)
            }
            Place::Const { offset } => known(offset),
            // A surface's 64-bit handle is its descriptor slot.
            Place::Surface { slot } => known(u32::from(slot)),
            Place::Global { symbol } => self.relocated(Reloc::Global {
                symbol,
                addend: off,
                high: hi,
            }),
            // A function pointer: the byte address of its first instruction (docs/elf.md).
            Place::Function { index } if off == 0 => {
                let name = self.layout.functions[index as usize];
                if !self.layout.defined.contains(name) {
                    self.unsupported(format!(
                        "the address of `{name}`, which is not defined in this module"
                    ));
                    return None;
                }
                self.relocated(Reloc::FunctionAddress {
                    function: index,
                    high: hi,
                })
            }
            Place::Texture | Place::Function { .. } | Place::Outgoing { .. } => {
                self.unsupported("the address of a texture, call parameter or past a function");
                return None;
            }
        })
    }

    /// A new register holding the word that relocation `reloc` fills in.
    fn relocated(&mut self, reloc: Reloc) -> Lane {
        let t = self.new32();
        let rd = R::of(t, 0);
        let m = self.push(
            Op::Mov32i {
                rd: rd.reg,
                imm32: 0,
            },
            &[def(fields::RD, rd)],
            None,
        );
        self.code[m].reloc = Some(Box::new(reloc));
        Lane::Reg(t, 0)
    }

    fn new32(&mut self) -> VReg {
        self.vregs.new_reg(Class::Gpr { size: 1 })
    }

    fn new64(&mut self) -> VReg {
        self.vregs.new_reg(Class::Gpr { size: 2 })
    }

    fn emit_s2r(&mut self, t: VReg, sr: sgpu_isa::Sreg) {
        let rd = R::of(t, 0);
        let width = if sr == sgpu_isa::Sreg::Clock64 { 2 } else { 1 };
        self.push(
            Op::S2r {
                rd: rd.reg,
                sreg: sr,
            },
            &[wide(def(fields::RD, rd), width)],
            None,
        );
    }

    /// A lane as a register operand; immediates other than zero are built with `MOV32I`.
    fn r(&mut self, lane: Lane) -> R {
        match lane {
            Lane::Reg(v, p) => R::of(v, p),
            Lane::Imm(0) => R::ZERO,
            Lane::Imm(i) => {
                let t = self.new32();
                self.mov32i(t, i);
                R::of(t, 0)
            }
        }
    }

    /// A lane as an `rb`/`rc` operand: an 8-bit immediate in place, else a register.
    fn ri(&mut self, lane: Lane) -> RI {
        match lane {
            Lane::Imm(i) if (1..256).contains(&i) => RI {
                val: RegOrImm::Imm(i as u8),
                v: None,
            },
            other => {
                let r = self.r(other);
                RI {
                    val: RegOrImm::Reg(r.reg),
                    v: r.v,
                }
            }
        }
    }

    fn mov32i(&mut self, t: VReg, value: u32) {
        let rd = R::of(t, 0);
        self.push(
            Op::Mov32i {
                rd: rd.reg,
                imm32: value,
            },
            &[def(fields::RD, rd)],
            None,
        );
    }

    /// Copies a lane into register `d` (part `part`).
    fn mov_lane(&mut self, d: VReg, part: u8, lane: Lane) {
        let rd = R::of(d, part);
        match lane {
            Lane::Imm(i) => {
                self.push(
                    Op::Mov32i {
                        rd: rd.reg,
                        imm32: i,
                    },
                    &[def(fields::RD, rd)],
                    None,
                );
            }
            Lane::Reg(v, p) => {
                let ra = R::of(v, p);
                self.push(
                    Op::Mov {
                        rd: rd.reg,
                        ra: ra.reg,
                    },
                    &unary(rd, ra),
                    None,
                );
            }
        }
    }

    /// Emits an instruction with no register fields beyond those bound.
    fn emit(&mut self, op: Op, binds: &[Bind]) -> usize {
        self.push(op, binds, None)
    }

    /// Emits `op` under the current guard, binding its register fields and an optional
    /// predicate source field.
    fn push(&mut self, op: Op, binds: &[Bind], pred: Option<(VReg, sgpu_isa::Field)>) -> usize {
        let mut guard = PredSrc::ALWAYS;
        if let Some((_, neg)) = self.guard {
            guard = PredSrc {
                pred: Pred(0),
                negated: neg,
            };
        }
        // An operand that does not fit its field is reported at the PTX line; a placeholder
        // keeps the indices the caller binds right, and the module is not written.
        let mut m = MInst::new(Instruction { guard, op }, self.line).unwrap_or_else(|e| {
            self.fail(format!("{}: {e}", op.mnemonic()));
            MInst::from_word(0, self.line)
        });
        m.loc = self.loc;
        if let Some((v, _)) = self.guard {
            m.push_slot(Slot::new(Field::of(fields::PG), v, 0, 1, false));
        }
        for b in binds {
            if let Some((reg, part)) = b.v {
                debug_assert_role(&op, b.field, b.width, b.def);
                m.push_slot(Slot::new(Field::of(b.field), reg, part, b.width, b.def));
            }
        }
        if let Some((reg, field)) = pred {
            debug_assert_role(&op, field, 1, false);
            m.push_slot(Slot::new(Field::of(field), reg, 0, 1, false));
        }
        self.code.push(m);
        self.code.len() - 1
    }

    /// Binds a predicate field (destination or source) of the instruction at `at`.
    fn bind_pred(&mut self, at: usize, field: sgpu_isa::Field, v: VReg, def: bool) {
        if let Ok(insn) = sgpu_isa::decode(self.code[at].word) {
            debug_assert_role(&insn.op, field, 1, def);
        }
        self.code[at].push_slot(Slot::new(Field::of(field), v, 0, 1, def));
    }

    /// Binds a comparison's destinations and predicate source (see [`pred_source`]).
    fn bind_compare(&mut self, at: usize, pd: VReg, pq: Option<VReg>, c: Option<(VReg, bool)>) {
        self.bind_pred(at, fields::PD, pd, true);
        if let Some(q) = pq {
            self.bind_pred(at, fields::PQ, q, true);
        }
        if let Some((v, _)) = c {
            self.bind_pred(at, fields::PC, v, false);
        }
    }

    /// A branch or `SSY` target, fixed at layout.
    fn set_target(&mut self, at: usize, target: Target) {
        self.code[at].target = Some(target);
    }

    /// The destination register of an instruction: (virtual register, first part, type).
    fn dst(&mut self, e: &Expr<'a>) -> Option<(VReg, u8, Type)> {
        // Only a name is written to; `src` would take `r + 1` as a value in a new register.
        if !matches!(e, Expr::Name(_)) {
            self.unsupported("this destination");
            return None;
        }
        match self.src(e)? {
            Src::Reg { v, ty, part, .. } => Some((v, part, ty)),
            Src::Pred(v, false) => Some((v, 0, Type::from_name("pred").expect("a PTX type"))),
            _ => {
                self.unsupported("this destination");
                None
            }
        }
    }

    /// Whether the instruction being lowered has modifier `m`.
    fn has(&self, m: &str) -> bool {
        match flag_bit(m) {
            Some(bit) => self.mods & (1 << bit) != 0,
            None => unreachable!("`{m}` is not in flag_bit's table"),
        }
    }

    fn instruction(&mut self, ins: &PtxInstruction<'a>) {
        (self.mods, self.tys) = *self
            .mnemonics
            .entry(ins.mnemonic.text)
            .or_insert_with(|| modifier_summary(ins));
        let opcode = ins.opcode();
        let tys = self.tys;
        if tys.iter().any(|t| t.name == "f64") && !matches!(opcode, "mov" | "ld" | "st") {
            return self.double(ins);
        }
        match opcode {
            "mov" => self.mov(ins),
            "add" | "sub" | "mul" | "mad" | "mul24" | "mad24" | "div" | "rem" | "abs" | "neg"
            | "min" | "max" | "addc" | "subc" | "madc" | "sad" => self.arith(ins),
            "and" | "or" | "xor" | "not" | "cnot" | "shl" | "shr" | "shf" | "popc" | "clz"
            | "brev" | "bfe" | "bfi" | "bfind" | "bmsk" | "prmt" | "lop3" => self.bits(ins),
            "setp" | "set" | "selp" | "slct" => self.compare(ins),
            "cvt" | "cvta" => self.convert(ins),
            "fma" | "rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh"
            | "copysign" | "testp" => self.float(ins),
            "ld" | "ldu" | "st" | "atom" | "red" | "prefetch" | "prefetchu" | "createpolicy" => {
                self.memory(ins)
            }
            "cp" => self.copy_async(ins),
            "isspacep" => self.is_space(ins),
            "bra" | "ret" | "exit" | "trap" | "brkpt" | "bar" | "barrier" | "membar" | "fence"
            | "nanosleep" | "call" => self.control(ins),
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset" => {
                self.video(ins)
            }
            "dp4a" | "dp2a" => self.dot_product(ins),
            op if simd_elements(op).is_some() => self.simd_video(ins),
            "suld" | "sust" | "sured" | "suq" => self.surface(ins),
            "shfl" | "vote" | "activemask" | "redux" | "match" => self.warp(ins),
            other => self.unsupported(format!("`{other}`")),
        }
    }

    /// The operand `i` of the instruction, resolved.
    fn operand(&mut self, ins: &PtxInstruction<'a>, i: usize) -> Option<Src<'a>> {
        match ins.operands.get(i) {
            Some(ptx_grammar::ast::Operand::Expr(e)) => self.src(e),
            Some(other) => {
                let text = self.lines_text(other.span());
                self.unsupported(format!("the operand `{text}`"));
                None
            }
            None => None,
        }
    }

    /// Operands `from`, `from + 1`, ... resolved, or `None` after reporting one.
    fn sources<const N: usize>(
        &mut self,
        ins: &PtxInstruction<'a>,
        from: usize,
    ) -> Option<[Src<'a>; N]> {
        let mut out = [Src::Imm(0); N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.operand(ins, from + i)?;
        }
        Some(out)
    }

    /// Every operand after the destination, resolved, or `None` after reporting one.
    fn all_sources(&mut self, ins: &PtxInstruction<'a>) -> Option<Vec<Src<'a>>> {
        (1..ins.operands.len())
            .map(|i| self.operand(ins, i))
            .collect()
    }

    /// The low lanes of every operand after the destination, or `None` after reporting one.
    fn source_lanes(&mut self, ins: &PtxInstruction<'a>) -> Option<Vec<Lane>> {
        let srcs = self.all_sources(ins)?;
        srcs.into_iter().map(|s| self.lane(s, false)).collect()
    }

    /// The low lanes of several sources.
    fn lanes<const N: usize>(&mut self, srcs: [Src<'a>; N]) -> Option<[Lane; N]> {
        let mut out = [Lane::Imm(0); N];
        for (slot, s) in out.iter_mut().zip(srcs) {
            *slot = self.lane(s, false)?;
        }
        Some(out)
    }

    fn dest(&mut self, ins: &PtxInstruction<'a>, i: usize) -> Option<(VReg, u8, Type)> {
        match ins.operands.get(i) {
            Some(ptx_grammar::ast::Operand::Expr(e)) => self.dst(e),
            _ => {
                self.unsupported("this destination");
                None
            }
        }
    }
}

/// Whether block `b`, or one inside it, has a call.
fn has_call(b: &Block<'_>) -> bool {
    b.statements.iter().any(|s| match s {
        Statement::Instr(ins) => ins.opcode() == "call",
        Statement::Block(inner) => has_call(inner),
        _ => false,
    })
}

/// A call's parts: `call (r), f, (a, b);`, `call f, (a);`, `call f;`, and indirect ones
/// through a register with a prototype, `call (r), %rd, (a), proto;`.
struct CallParts<'i, 'a> {
    results: Vec<&'i Expr<'a>>,
    /// The called function, or the register holding its address.
    callee: &'i Ident<'a>,
    params: Vec<&'i Expr<'a>>,
    /// An indirect call's `.callprototype` (or `.calltargets`) label.
    prototype: Option<&'i Ident<'a>>,
}

/// A call's parts. A one-element list parses as a parenthesised expression.
fn call_parts<'i, 'a>(ins: &'i PtxInstruction<'a>) -> Option<CallParts<'i, 'a>> {
    use ptx_grammar::ast::Operand as O;
    let list = |o: &'i O<'a>| -> Option<Vec<&'i Expr<'a>>> {
        match o {
            O::List(items, _) => Some(items.iter().collect()),
            O::Expr(Expr::Node(n)) => match &n.kind {
                NodeKind::Paren(x) => Some(vec![x]),
                _ => None,
            },
            _ => None,
        }
    };
    let name = |o: Option<&'i O<'a>>| match o {
        Some(O::Expr(Expr::Name(id))) => Some(id),
        _ => None,
    };
    let at = ins
        .operands
        .iter()
        .position(|o| matches!(o, O::Expr(Expr::Name(_))))?;
    let callee = name(ins.operands.get(at))?;
    let results = if at == 1 {
        list(&ins.operands[0])?
    } else {
        Vec::new()
    };
    // The parameter list, if any, then the prototype.
    let (params, rest) = match ins.operands.get(at + 1) {
        Some(o) if name(Some(o)).is_none() => (list(o)?, at + 2),
        _ => (Vec::new(), at + 1),
    };
    Some(CallParts {
        results,
        callee,
        params,
        prototype: name(ins.operands.get(rest)),
    })
}

/// A predicate field to bind later (P0, a placeholder), or PT when there is none.
/// The lowering binds a register or predicate field only as the ISA table's roles say it is
/// used (read or written, and how many registers): the allocator's liveness rests on it.
/// Checked in debug builds, so every test that assembles checks every instruction it emits.
fn debug_assert_role(op: &Op, field: sgpu_isa::Field, width: u8, def: bool) {
    if cfg!(debug_assertions) {
        let roles = op.roles();
        let reg = roles.regs.iter().flatten().find(|r| r.field == field);
        let pred = roles.preds.iter().flatten().find(|p| p.field == field);
        let agrees = match (reg, pred) {
            (Some(r), _) => r.write == def && r.count == width,
            (None, Some(p)) => p.write == def && width == 1,
            (None, None) => false,
        };
        assert!(
            agrees,
            "{}: field {field:?} bound as {} of {width} register(s), against the table's roles {roles:?}",
            op.mnemonic(),
            if def { "a write" } else { "a read" }
        );
    }
}

fn placeholder(bound: bool) -> Pred {
    if bound {
        Pred(0)
    } else {
        Pred::PT
    }
}

/// A predicate source field: a placeholder with its negation, or PT.
fn pred_source(c: Option<(VReg, bool)>) -> PredSrc {
    PredSrc {
        pred: placeholder(c.is_some()),
        negated: c.is_some_and(|c| c.1),
    }
}

fn sign(op: BinaryOp) -> i128 {
    if op == BinaryOp::Sub {
        -1
    } else {
        1
    }
}

/// The sgpu special register of a PTX one.
fn special(name: &str) -> Option<sgpu_isa::Sreg> {
    use sgpu_isa::Sreg::*;
    Some(match name {
        "%tid.x" | "%tid" => TidX,
        "%tid.y" => TidY,
        "%tid.z" => TidZ,
        "%ntid.x" | "%ntid" => NtidX,
        "%ntid.y" => NtidY,
        "%ntid.z" => NtidZ,
        "%ctaid.x" | "%ctaid" => CtaidX,
        "%ctaid.y" => CtaidY,
        "%ctaid.z" => CtaidZ,
        "%nctaid.x" | "%nctaid" => NctaidX,
        "%nctaid.y" => NctaidY,
        "%nctaid.z" => NctaidZ,
        "%laneid" => Laneid,
        "%warpid" => Warpid,
        "%nwarpid" => Nwarpid,
        "%smid" => Smid,
        "%nsmid" => Nsmid,
        "%gridid" => Gridid,
        "%clock" => Clock,
        "%clock_hi" => ClockHi,
        "%clock64" => Clock64,
        "%lanemask_eq" => LanemaskEq,
        "%lanemask_lt" => LanemaskLt,
        "%lanemask_le" => LanemaskLe,
        "%lanemask_gt" => LanemaskGt,
        "%lanemask_ge" => LanemaskGe,
        "%dynamic_smem_size" => DynamicSmemSize,
        "%total_smem_size" => TotalSmemSize,
        // sgpu has no wall clock: the global timer counts what %clock64 counts.
        "%globaltimer" => Clock64,
        "%globaltimer_lo" => Clock,
        "%globaltimer_hi" => ClockHi,
        _ => return None,
    })
}

/// Special registers sgpu has nothing behind: performance monitors (`%pm0`..`%pm7`,
/// `%pm0_64`..) and the driver's environment registers (`%envreg0`..`%envreg31`) read 0.
fn zero_special(name: &str) -> bool {
    let numbered = |prefix: &str, below: u32| {
        name.strip_prefix(prefix)
            .and_then(|n| n.strip_suffix("_64").unwrap_or(n).parse::<u32>().ok())
            .is_some_and(|n| n < below)
    };
    numbered("%pm", 8) || (numbered("%envreg", 32) && !name.ends_with("_64"))
}

#[cfg(test)]
mod tests {
    use super::flag_bit;

    /// `FnLower::has` answers from `flag_bit`'s table; every modifier the families ask about
    /// must be in it.
    #[test]
    fn every_modifier_asked_about_has_a_bit() {
        let sources = [
            include_str!("mod.rs"),
            include_str!("moves.rs"),
            include_str!("arith.rs"),
            include_str!("bits.rs"),
            include_str!("compare.rs"),
            include_str!("convert.rs"),
            include_str!("float.rs"),
            include_str!("mem.rs"),
            include_str!("control.rs"),
            include_str!("video.rs"),
            include_str!("surface.rs"),
            include_str!("warp.rs"),
        ];
        let mut asked = 0;
        for source in sources {
            for part in source.split("self.has(\"").skip(1) {
                let name = &part[..part.find('"').unwrap()];
                assert!(flag_bit(name).is_some(), "`{name}` has no bit");
                asked += 1;
            }
        }
        assert!(asked > 30, "found only {asked} questions");
    }
}
