//! Module-scope storage: where every `.global`, `.const`, `.shared` and `.local` variable and
//! every `.surfref` lives, and the initial images of global and constant memory.

use crate::diag::Diags;
use ptx_grammar::ast::{
    Block, DeclSpec, Expr, Init, Item, Linkage, Module, Span, StateSpace, Statement, VarDecl,
};
use ptx_grammar::check::decl::{declared_type, Opaque};
use ptx_grammar::check::types::Type;
use rustc_hash::FxHashMap;

/// Where a module-scope name lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In global memory, at `offset` of the module's global image; `symbol` indexes
    /// [`Layout::globals`].
    Global { symbol: u32 },
    /// In constant bank 1, at `offset`.
    Const { offset: u32 },
    /// In each CTA's shared memory, at `offset`.
    Shared { offset: u32 },
    /// In each thread's local memory, at `offset`.
    Local { offset: u32 },
    /// Surface descriptor slot `slot`.
    Surface { slot: u8 },
    /// A texture or sampler reference: nothing sgpu can run.
    Texture,
    /// A function or kernel: an index of [`Layout::functions`].
    Function { index: u32 },
    /// In the outgoing call area of the current function's frame, at `offset`: the `.param`
    /// variables of a call.
    Outgoing { offset: u32 },
}

/// Where a device function's results and parameters are in its frame: results first, then
/// parameters, each at its alignment, from offset 0. `.reg` parameters and results (old
/// nvcc's style) are passed through the frame too, like `.param` ones: the caller stores
/// each argument register in its slot before `CALL` and loads each result register after it,
/// the callee loads its parameter registers on entry and stores its result registers before
/// `RET`.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub results: Vec<FrameSlot>,
    pub params: Vec<FrameSlot>,
    pub size: u32,
    /// The largest alignment among them.
    pub align: u32,
}

/// The least alignment of a function's frame start: spill slots are aligned to their size, up
/// to 16 bytes, from a 16-aligned base in the frame. Every frame starts at a multiple of the
/// module's largest frame alignment (docs/hw.md, "Calls and registers"), so that everything a frame holds
/// is aligned in the thread's local memory as declared.
pub const FRAME_ALIGN: u32 = 16;

/// One declarator of a signature in the callee's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSlot {
    pub offset: u32,
    pub size: u32,
    /// The register type and vector width of a `.reg` declarator, `None` for a `.param` one.
    pub reg: Option<(Type, u8)>,
}

/// A variable of global memory: an ELF symbol of the data section.
#[derive(Clone, Debug)]
pub struct GlobalVar<'a> {
    pub name: &'a str,
    pub offset: u32,
    pub size: u32,
    pub visible: bool,
}

#[derive(Debug, Default)]
pub struct Layout<'a> {
    pub places: FxHashMap<&'a str, Place>,
    /// `.global`, `.const` and `.shared` variables declared inside functions, by where
    /// their name starts in the source (names may repeat across functions): module storage
    /// all the same, seen only from their block.
    pub scoped: FxHashMap<u32, Place>,
    pub globals: Vec<GlobalVar<'a>>,
    /// The initial contents of global memory, all `.global` variables in declaration order.
    pub global_image: Vec<u8>,
    pub global_align: u32,
    /// Constant bank 1.
    pub const_image: Vec<u8>,
    /// Addresses of global variables in initializers, which the loader fills in.
    pub data_relocs: Vec<DataReloc>,
    /// Bytes of static shared memory: every `.shared` variable of the module, module-scope
    /// and function-scope alike, each at its own offset (so that a kernel and the functions
    /// it calls never share bytes by accident), and past them, aligned, where the
    /// `.extern .shared` arrays start (the dynamic shared memory a launch adds).
    pub shared_size: u32,
    /// Bytes of module-scope `.local` variables.
    pub local_size: u32,
    /// `.surfref` names by slot.
    pub surfaces: Vec<&'a str>,
    /// Every function and kernel, declared or defined.
    pub functions: Vec<&'a str>,
    pub signatures: FxHashMap<&'a str, Signature>,
    /// The functions with a body in this module.
    pub defined: rustc_hash::FxHashSet<&'a str>,
    /// Functions whose address an initializer holds, and where: each must be defined in
    /// the module by its end.
    function_addresses: Vec<(&'a str, Span)>,
    /// `.extern .shared` arrays without a size, placed after every static one: (name,
    /// whether scoped, where the name starts, alignment).
    extern_shared: Vec<(&'a str, bool, u32, u32)>,
}

/// A 64-bit word of `.data` (or, with `constant`, of `.sgpu.const`) at `offset` that holds
/// the address of `target` plus `addend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataReloc {
    pub constant: bool,
    pub offset: u32,
    pub target: AddressOf,
    pub addend: i64,
}

/// What an address in an initializer is the address of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressOf {
    /// A global variable: an index of [`Layout::globals`].
    Global(u32),
    /// A function (a function pointer): an index of [`Layout::functions`].
    Function(u32),
}

/// The byte size of a declaration's scalar type, and its vector width. An opaque
/// `.surfref`, `.texref` or `.samplerref` parameter is a 64-bit handle.
pub fn element_size(v: &VarDecl<'_>) -> Option<(u32, u32)> {
    let info = declared_type(v).ok()?;
    if info.opaque.is_some() {
        return Some((8, 1));
    }
    let ty = info.ty?;
    Some(((u32::from(ty.bits) / 8).max(1), u32::from(info.vector)))
}

/// `.align N`, or the element size.
pub fn alignment(v: &VarDecl<'_>, element: u32) -> u32 {
    v.specs
        .iter()
        .find_map(|s| match s {
            DeclSpec::Align { value, .. } => u32::try_from(*value).ok(),
            _ => None,
        })
        .unwrap_or(element)
        .max(1)
}

/// The frame layout of a function's results and parameters.
pub fn signature(f: &ptx_grammar::ast::Function<'_>) -> Signature {
    signature_of(
        f.ret.as_deref().unwrap_or(&[]),
        f.params.as_deref().unwrap_or(&[]),
    )
}

/// The frame layout of results and parameters `ret` and `params` (a function's, or a call
/// prototype's).
pub fn signature_of(ret: &[VarDecl<'_>], params: &[VarDecl<'_>]) -> Signature {
    let mut sig = Signature::default();
    let mut align = 1;
    let mut place = |decls: &[VarDecl<'_>], out: &mut Vec<FrameSlot>, at: &mut u32| {
        for p in decls {
            let reg = match p.space {
                StateSpace::Reg => declared_type(p)
                    .ok()
                    .and_then(|info| Some((info.ty?, info.vector))),
                _ => None,
            };
            let Some((scalar, vector)) = element_size(p) else {
                out.push(FrameSlot {
                    offset: *at,
                    size: 0,
                    reg,
                });
                continue;
            };
            for d in &p.declarators {
                let count: u64 = d.dims.iter().map(|n| n.unwrap_or(1)).product();
                let size = scalar * vector * count as u32;
                let a = alignment(p, scalar * vector);
                align = align.max(a);
                let offset = align_to(*at, a);
                out.push(FrameSlot { offset, size, reg });
                *at = offset + size;
            }
        }
    };
    let mut at = 0;
    place(ret, &mut sig.results, &mut at);
    place(params, &mut sig.params, &mut at);
    sig.size = align_to(at, 8);
    sig.align = align;
    sig
}

fn align_to(n: u32, align: u32) -> u32 {
    n.div_ceil(align) * align
}

/// Places `size` bytes at `align` after the `total` bytes of a memory (a function's local or
/// shared variables): their offset, with `total` grown past them; `None`, with `total` left
/// alone, when they would end past 4 GiB, the most a frame or a CTA's shared memory holds.
pub fn append(total: &mut u32, align: u32, size: u64) -> Option<u32> {
    let offset = u64::from(*total).div_ceil(u64::from(align)) * u64::from(align);
    let end = u32::try_from(offset.checked_add(size)?).ok()?;
    *total = end;
    Some(offset as u32)
}

/// What [`append`] reports when memory runs past 4 GiB.
pub fn too_large(space: StateSpace) -> String {
    format!(
        "{} variables of more than {} bytes in all",
        space.as_str(),
        u32::MAX
    )
}

impl<'a> Layout<'a> {
    /// The layout of `modules`' storage and functions, as if one module: the module being
    /// assembled, and the runtime it may be linked with.
    pub fn build(modules: &[&Module<'a>], diags: &mut Diags) -> Layout<'a> {
        let mut l = Layout {
            global_align: 1,
            ..Layout::default()
        };
        for item in modules.iter().flat_map(|m| &m.items) {
            match item {
                Item::Function(f) => {
                    let index = match l.places.get(f.name.text) {
                        Some(Place::Function { index }) => *index,
                        _ => {
                            l.functions.push(f.name.text);
                            l.functions.len() as u32 - 1
                        }
                    };
                    l.places.insert(f.name.text, Place::Function { index });
                    l.signatures.insert(f.name.text, signature(f));
                    if let Some(body) = &f.body {
                        l.defined.insert(f.name.text);
                        l.scoped_variables(body, diags);
                    }
                }
                Item::Var(v) => l.variable(v, false, diags),
                _ => {}
            }
        }
        l.place_extern_shared();
        for &(name, span) in &l.function_addresses {
            if !l.defined.contains(name) {
                diags.unsupported(
                    span,
                    format!("the address of `{name}`, which is not defined in this module"),
                );
            }
        }
        l
    }

    /// Every `.extern .shared` array starts where the static shared memory ends (aligned
    /// to 16 bytes at least, as CUDA's dynamic shared memory is): they alias one another, as
    /// in CUDA, and a launch's dynamic bytes lie there.
    fn place_extern_shared(&mut self) {
        if self.extern_shared.is_empty() {
            return;
        }
        let align = (self.extern_shared.iter().map(|e| e.3)).fold(16, u32::max);
        let offset = align_to(self.shared_size, align);
        self.shared_size = offset;
        for &(name, scoped, start, _) in &self.extern_shared {
            let place = Place::Shared { offset };
            if scoped {
                self.scoped.insert(start, place);
            } else {
                self.places.insert(name, place);
            }
        }
    }

    /// The `.global`, `.const` and `.shared` variables of a function's blocks, placed as
    /// module ones.
    fn scoped_variables(&mut self, block: &Block<'a>, diags: &mut Diags) {
        for s in &block.statements {
            match s {
                Statement::Var(v)
                    if matches!(
                        v.space,
                        StateSpace::Global | StateSpace::Const | StateSpace::Shared
                    ) =>
                {
                    self.variable(v, true, diags)
                }
                Statement::Block(inner) => self.scoped_variables(inner, diags),
                _ => {}
            }
        }
    }

    /// Places a variable: module-scope ones by name, `scoped` ones (inside a function) by
    /// where their name starts.
    fn variable(&mut self, v: &VarDecl<'a>, scoped: bool, diags: &mut Diags) {
        let Ok(info) = declared_type(v) else { return };
        if let Some(opaque) = info.opaque {
            for d in &v.declarators {
                let place = match opaque {
                    Opaque::Surface if (self.surfaces.len() as u64) < sgpu_isa::abi::SURF_SLOTS => {
                        self.surfaces.push(d.name.text);
                        Place::Surface {
                            slot: self.surfaces.len() as u8 - 1,
                        }
                    }
                    Opaque::Surface => {
                        let most = sgpu_isa::abi::SURF_SLOTS;
                        diags.unsupported(
                            d.name.span,
                            format!("more than {most} surface references"),
                        );
                        continue;
                    }
                    Opaque::Texture | Opaque::Sampler => Place::Texture,
                };
                self.places.insert(d.name.text, place);
            }
            return;
        }
        let Some((scalar, vector)) = element_size(v) else {
            return;
        };
        let element = scalar * vector;
        let align = alignment(v, element);
        for d in &v.declarators {
            // `.extern` declares a variable defined elsewhere: sgpu links one module.
            if v.linkage == Some(Linkage::Extern) && d.dims.iter().all(|x| x.is_some()) {
                diags.unsupported(d.name.span, "`.extern` variables defined in another module");
                continue;
            }
            if v.space == StateSpace::Shared
                && d.dims.iter().any(Option::is_none)
                && d.init.is_none()
            {
                let start = d.name.span.start;
                self.extern_shared.push((d.name.text, scoped, start, align));
                continue;
            }
            // `[]` takes its length from the initializer.
            let count: u64 = match &d.init {
                Some(init) if d.dims.iter().any(Option::is_none) => {
                    let mut values = Vec::new();
                    flatten(init, &mut values);
                    (values.len() as u64).div_ceil(u64::from(vector))
                }
                _ => d.dims.iter().map(|n| n.unwrap_or(0)).product(),
            };
            let Some(size) = u64::from(element)
                .checked_mul(count)
                .and_then(|s| u32::try_from(s).ok())
            else {
                diags.unsupported(d.name.span, "a variable of 4 GiB or more");
                continue;
            };
            let place = match v.space {
                StateSpace::Global => {
                    let offset = align_to(self.global_image.len() as u32, align);
                    self.global_image.resize(offset as usize, 0);
                    let mut bytes = vec![0u8; size as usize];
                    if let Some(init) = &d.init {
                        self.initialize(&mut bytes, (false, offset), init, scalar, diags);
                    }
                    self.global_image.extend_from_slice(&bytes);
                    self.global_align = self.global_align.max(align);
                    self.globals.push(GlobalVar {
                        name: d.name.text,
                        offset,
                        size,
                        visible: v.linkage.is_some(),
                    });
                    Place::Global {
                        symbol: self.globals.len() as u32 - 1,
                    }
                }
                StateSpace::Const => {
                    let offset = align_to(self.const_image.len() as u32, align);
                    self.const_image.resize(offset as usize, 0);
                    let mut bytes = vec![0u8; size as usize];
                    if let Some(init) = &d.init {
                        self.initialize(&mut bytes, (true, offset), init, scalar, diags);
                    }
                    self.const_image.extend_from_slice(&bytes);
                    Place::Const { offset }
                }
                StateSpace::Shared | StateSpace::Local => {
                    let total = if v.space == StateSpace::Shared {
                        &mut self.shared_size
                    } else {
                        &mut self.local_size
                    };
                    let Some(offset) = append(total, align, u64::from(size)) else {
                        diags.unsupported(d.name.span, too_large(v.space));
                        continue;
                    };
                    if v.space == StateSpace::Shared {
                        Place::Shared { offset }
                    } else {
                        Place::Local { offset }
                    }
                }
                _ => continue,
            };
            if scoped {
                self.scoped.insert(d.name.span.start, place);
            } else {
                self.places.insert(d.name.text, place);
            }
        }
    }
}

impl<'a> Layout<'a> {
    /// Writes an initializer into `bytes` (which go at `offset` of `.data`, or of
    /// `.sgpu.const` when `constant`), element by element (little-endian). An element may be
    /// the address of a variable declared before: a global one is a relocation the loader
    /// fills in (64-bit elements only: global addresses are above 4 GiB); a constant one is
    /// its offset in constant bank 1, or with `generic(...)` its address in the window.
    fn initialize(
        &mut self,
        bytes: &mut [u8],
        (constant, offset): (bool, u32),
        init: &Init<'a>,
        element: u32,
        diags: &mut Diags,
    ) {
        let mut values = Vec::new();
        flatten(init, &mut values);
        for (i, e) in values.into_iter().enumerate() {
            let at = i * element as usize;
            if at + element as usize > bytes.len() {
                break;
            }
            let value = match e {
                Expr::Int { value, .. } => *value,
                Expr::F32(bits, _) => u64::from(*bits),
                Expr::F64(bits, _) if element == 4 => {
                    u64::from((f64::from_bits(*bits) as f32).to_bits())
                }
                Expr::F64(bits, _) => *bits,
                other => match crate::lower::fold(other) {
                    Some(v) => v as u64,
                    None => {
                        let word = (constant, offset + at as u32, element);
                        match self.address_value(other, word, diags) {
                            Some(v) => v,
                            None => return,
                        }
                    }
                },
            };
            bytes[at..at + element as usize]
                .copy_from_slice(&value.to_le_bytes()[..element as usize]);
        }
    }

    /// The value of an initializer element that names a variable (`x`, `generic(x)`, either
    /// plus or minus a constant), for the word `(constant, offset, bytes)`: a number, or 0
    /// with a relocation for a global variable's address. `None` after reporting why not.
    fn address_value(
        &mut self,
        e: &Expr<'a>,
        (constant, offset, bytes): (bool, u32, u32),
        diags: &mut Diags,
    ) -> Option<u64> {
        let not_address = |diags: &mut Diags| {
            diags.unsupported(
                e.span(),
                "an initializer that is neither a constant number nor a variable's address",
            );
            None
        };
        let Some((name, generic, addend)) = address_expr(e) else {
            return not_address(diags);
        };
        let window = |base: u64| if generic { base } else { 0 };
        let place = self.places.get(name.text).copied();
        let value = match place {
            Some(Place::Global { symbol }) if bytes == 8 => {
                self.data_relocs.push(DataReloc {
                    constant,
                    offset,
                    target: AddressOf::Global(symbol),
                    addend,
                });
                return Some(0);
            }
            Some(Place::Global { .. }) => {
                diags.unsupported(
                    e.span(),
                    "a global variable's address in a 32-bit initializer (it is above 4 GiB)",
                );
                return None;
            }
            // A function pointer; the function may be defined further on (`build` checks).
            Some(Place::Function { index }) if bytes == 8 && !generic && addend == 0 => {
                self.data_relocs.push(DataReloc {
                    constant,
                    offset,
                    target: AddressOf::Function(index),
                    addend,
                });
                self.function_addresses.push((name.text, e.span()));
                return Some(0);
            }
            Some(Place::Function { .. }) => {
                diags.unsupported(
                    e.span(),
                    "a function's address other than whole in a 64-bit initializer",
                );
                return None;
            }
            Some(Place::Const { offset }) => {
                window(sgpu_isa::abi::CONST_WINDOW) + u64::from(offset)
            }
            Some(Place::Shared { .. } | Place::Local { .. }) => {
                diags.unsupported(
                    e.span(),
                    "an initializer naming a `.shared` or `.local` variable (PTX allows only \
                     `.global` and `.const` ones)",
                );
                return None;
            }
            _ => return not_address(diags),
        };
        Some(value.wrapping_add(addend as u64))
    }
}

/// `x`, `generic(x)`, `x + k`, `k + x`, `x - k` (and nested): the name, whether generic,
/// and the constant added.
fn address_expr<'e, 'a>(e: &'e Expr<'a>) -> Option<(&'e ptx_grammar::ast::Ident<'a>, bool, i64)> {
    use ptx_grammar::ast::{BinaryOp, NodeKind};
    match e {
        Expr::Name(id) => Some((id, false, 0)),
        Expr::Node(n) => match &n.kind {
            NodeKind::Call(f, inner) if f.text == "generic" => {
                let (id, _, addend) = address_expr(inner)?;
                Some((id, true, addend))
            }
            NodeKind::Paren(inner) => address_expr(inner),
            NodeKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
                let k = |x: &Expr<'_>| crate::lower::fold(x).map(|v| v as i64);
                match (address_expr(a), k(b), k(a), address_expr(b)) {
                    (Some((id, g, add)), Some(k), _, _) => {
                        let k = if *op == BinaryOp::Sub { -k } else { k };
                        Some((id, g, add.wrapping_add(k)))
                    }
                    (_, _, Some(k), Some((id, g, add))) if *op == BinaryOp::Add => {
                        Some((id, g, add.wrapping_add(k)))
                    }
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

fn flatten<'e, 'a>(init: &'e Init<'a>, out: &mut Vec<&'e Expr<'a>>) {
    match init {
        Init::Expr(e) => out.push(e),
        Init::List(items, _) => items.iter().for_each(|i| flatten(i, out)),
        Init::Field(_, value) => flatten(value, out),
    }
}
