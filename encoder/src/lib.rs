//! The sgpu encoder: from a checked PTX module to an ELF of sgpu machine code.
//!
//! For each function: lowering to machine IR on virtual registers (`lower/`), optimisation
//! there (`opt/`), `SSY` before
//! every branch that may diverge (`cfg.rs`), register allocation with spilling
//! (`regalloc.rs`), then branch targets; the module's functions, data and metadata go into an
//! ELF file (`elf.rs`, format in docs/elf.md).

mod cfg;
mod diag;
pub mod disasm;
pub mod elf;
mod layout;
mod lower;
mod mir;
mod opt;
mod regalloc;
pub mod runtime;

use mir::{Marks, Reloc, Target};
use ptx_grammar::ast::{Item, Module};
use ptx_grammar::Diagnostic;
use sgpu_isa::fields;

/// What the encoder may use, and how hard it works.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// General registers per thread (ptxas's `--maxrregcount`).
    pub max_registers: u32,
    /// Optimisation level, 0 to 3 as ptxas's `-O` (docs/optimiser.md): 0 is the literal
    /// translation, one or a few sgpu instructions per PTX instruction.
    pub opt_level: u8,
}

/// The register file sgpu is designed with: 64 registers per thread.
pub const DEFAULT_REGISTERS: u32 = 64;

impl Default for Options {
    fn default() -> Options {
        Options {
            max_registers: DEFAULT_REGISTERS,
            opt_level: 3,
        }
    }
}

/// One function's machine code and what it uses, as `ptxas -v` reports it.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub entry: bool,
    pub code: Vec<u64>,
    /// Per instruction: the PTX line, and the `.loc` file and line (0 when none).
    pub lines: Vec<[u32; 3]>,
    /// (instruction index, relocation) for addresses of global variables.
    pub relocs: Vec<(usize, Reloc)>,
    /// Each PTX label and the index of the instruction it names (local symbols in the ELF,
    /// which the disassembler shows).
    pub labels: Vec<(String, usize)>,
    pub registers: u32,
    pub spilled: u32,
    pub spill_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    /// Bytes of the function's own and module-scope `.shared` variables.
    pub shared_bytes: u32,
    /// Bytes of local memory per thread: variables and spilled values.
    pub local_bytes: u32,
    /// Bytes of kernel parameters (constant bank 0).
    pub param_bytes: u32,
    /// Each kernel parameter's (offset, size) in constant bank 0.
    pub params: Vec<(u32, u32)>,
    pub max_threads: Option<u32>,
}

/// An assembled module.
#[derive(Debug)]
pub struct Assembled {
    pub functions: Vec<Function>,
    pub elf: Vec<u8>,
    /// Bytes of `.const` data (constant bank 1).
    pub const_bytes: u32,
}

/// Assembles a module that parsed and checked cleanly. `file` names the PTX file in the
/// line table.
pub fn assemble(
    source: &str,
    file: &str,
    module: &Module<'_>,
    options: &Options,
) -> Result<Assembled, Vec<Diagnostic>> {
    let mut diags = diag::Diags::default();
    let mut lines = lower::LineCursor::new(source);
    reserve_runtime_names(module, &mut diags);
    let libraries = runtime::libraries_for(module);
    let modules: Vec<&Module<'_>> = std::iter::once(module)
        .chain(libraries.iter().map(|l| l.module()))
        .collect();
    let layout = layout::Layout::build(&modules, &mut diags);
    check_vprintf(module, &libraries, &mut diags);
    let mut lowered = Vec::new();
    let mut loc_files = Vec::new();
    for item in &module.items {
        match item {
            Item::File(f) => loc_files.push((f.index as u32, f.path.to_string())),
            Item::Function(f) if f.body.is_some() => {
                lowered.extend(lower::FnLower::lower(
                    source, f, &layout, &mut lines, &mut diags,
                ));
            }
            _ => {}
        }
    }
    // Every frame starts at the largest alignment any frame needs, so that a callee's frame,
    // placed past its caller's, is aligned whoever calls it.
    let frame_align = (lowered.iter().map(|l| l.frame_align)).fold(layout::FRAME_ALIGN, u32::max);
    let mut functions = Vec::new();
    for l in lowered {
        match finish(l, options, frame_align) {
            Ok(function) => functions.push(function),
            Err(d) => diags.list.push(d),
        }
    }
    if options.opt_level > 0 {
        drop_unreferenced(&mut functions, &layout);
    }
    if diags.is_empty() {
        let linked = link_runtime(&mut functions, &layout, &libraries, options, frame_align);
        match linked {
            Ok(linked) => {
                loc_files.extend((linked.iter()).map(|l| (l.file_index, l.file.to_string())))
            }
            Err(list) => diags.list.extend(list),
        }
    }
    if !diags.is_empty() {
        let mut list = diags.list;
        list.sort_by_key(|d| d.span.start);
        return Err(list);
    }
    let elf = elf::write(&elf::Input {
        file,
        loc_files: &loc_files,
        functions: &functions,
        layout: &layout,
    });
    Ok(Assembled {
        functions,
        elf,
        const_bytes: layout.const_image.len() as u32,
    })
}

/// Reports the module's names that a library of the runtime defines (`__sgpu_*`), which
/// every module may be linked with (the runtime's would be used in their place).
fn reserve_runtime_names(module: &Module<'_>, diags: &mut diag::Diags) {
    let names = module.items.iter().flat_map(|item| match item {
        Item::Function(f) => vec![f.name],
        Item::Var(v) => v.declarators.iter().map(|d| d.name).collect(),
        _ => Vec::new(),
    });
    for name in names.filter(|n| n.text.starts_with("__sgpu_")) {
        if let Some(library) = runtime::LIBRARIES.iter().find(|l| l.defines(name.text)) {
            diags.error(
                name.span,
                format!(
                    "`{}` is reserved: sgpu's {} runtime defines it",
                    name.text, library.name
                ),
            );
        }
    }
}

/// Reports a declaration of `vprintf` whose parameters or result differ from the printf
/// runtime's (CUDA's `int vprintf(const char *, const char *)`): its calls would pass
/// arguments where the runtime does not read them.
fn check_vprintf(module: &Module<'_>, libraries: &[&runtime::Library], diags: &mut diag::Diags) {
    if !libraries.iter().any(|l| std::ptr::eq(*l, &runtime::PRINTF)) {
        return;
    }
    let Some(defined) = runtime::PRINTF.function(runtime::VPRINTF) else {
        return;
    };
    let slots = |f: &ptx_grammar::ast::Function<'_>| {
        let s = layout::signature(f);
        (s.results, s.params)
    };
    for item in &module.items {
        match item {
            Item::Function(f) if f.name.text == runtime::VPRINTF && slots(f) != slots(defined) => {
                diags.error(
                    f.name.span,
                    "`vprintf` is declared with other parameters than sgpu's printf runtime \
                     defines: `.func (.param .b32 r) vprintf(.param .b64 format, .param .b64 \
                     args)`",
                );
            }
            _ => {}
        }
    }
}

/// Removes the device functions that no kernel can reach: called by no function kept, their
/// address in no instruction and no initializer. sgpu has no linker, so nothing outside the
/// module can call them (NVIDIA's ptxas drops them too, outside separate compilation).
fn drop_unreferenced(functions: &mut Vec<Function>, layout: &layout::Layout<'_>) {
    let index = |name: &str| functions.iter().position(|f| f.name == name);
    let mut kept = vec![false; functions.len()];
    let mut work: Vec<usize> = (0..functions.len())
        .filter(|&i| functions[i].entry)
        .collect();
    for r in &layout.data_relocs {
        if let layout::AddressOf::Function(f) = r.target {
            work.extend(index(layout.functions[f as usize]));
        }
    }
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut kept[i], true) {
            continue;
        }
        for (_, r) in &functions[i].relocs {
            if let Reloc::Call { function } | Reloc::FunctionAddress { function, .. } = *r {
                work.extend(index(layout.functions[function as usize]));
            }
        }
    }
    let mut k = kept.into_iter();
    functions.retain(|_| k.next().unwrap_or(true));
}

/// Adds to `functions` the runtime functions that they call, and those that these call,
/// from `libraries`: the libraries linked, or what went wrong. The runtime lowers cleanly
/// (tested), and its frames are no larger than those of the module's functions that call it,
/// so nothing should be reported; what is is reported at the module's start, since the
/// runtime's source is not the module's.
fn link_runtime(
    functions: &mut Vec<Function>,
    layout: &layout::Layout<'_>,
    libraries: &[&'static runtime::Library],
    options: &Options,
    frame_align: u32,
) -> Result<Vec<&'static runtime::Library>, Vec<Diagnostic>> {
    // Per library: where its lines are counted, what it reported, whether it was linked.
    let mut cursors: Vec<_> = (libraries.iter())
        .map(|l| lower::LineCursor::new(l.source))
        .collect();
    let mut reported: Vec<diag::Diags> = libraries.iter().map(|_| Default::default()).collect();
    let mut used = vec![false; libraries.len()];
    let mut linked = std::collections::HashSet::new();
    let mut scanned = 0;
    while scanned < functions.len() {
        let callees: Vec<&str> = (functions[scanned].relocs.iter())
            .filter_map(|(_, r)| match r {
                Reloc::Call { function } => Some(layout.functions[*function as usize]),
                _ => None,
            })
            .collect();
        scanned += 1;
        for name in callees {
            let found = (libraries.iter().enumerate())
                .find_map(|(i, l)| Some((i, l.function(name)?)))
                .filter(|_| linked.insert(name));
            let Some((i, f)) = found else {
                continue;
            };
            let (library, diags) = (libraries[i], &mut reported[i]);
            let lowered = lower::FnLower::lower(library.source, f, layout, &mut cursors[i], diags);
            // The runtime's frames need no more than the module's (its C has no
            // over-aligned locals).
            let mut function = match lowered.map(|l| finish(l, options, frame_align)) {
                Some(Ok(function)) => function,
                Some(Err(d)) => {
                    diags.list.push(d);
                    continue;
                }
                None => continue,
            };
            // Lines of the library's file, not of the module's.
            for line in &mut function.lines {
                *line = [0, library.file_index, line[0]];
            }
            used[i] = true;
            functions.push(function);
        }
    }
    let errors: Vec<Diagnostic> = (libraries.iter().zip(reported))
        .flat_map(|(l, diags)| {
            diags.list.into_iter().map(move |d| {
                let message = format!("the {} runtime cannot be linked: {}", l.name, d.message);
                Diagnostic::error(ptx_grammar::ast::Span::new(0, 0), message)
            })
        })
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((libraries.iter().zip(used))
        .filter_map(|(l, used)| used.then_some(*l))
        .collect())
}

/// Reconvergence, allocation and branch targets for one lowered function; a frame or a
/// branch too large for the fields that hold it is reported at the function's name.
fn finish(
    mut l: lower::Lowered<'_>,
    options: &Options,
    frame_align: u32,
) -> Result<Function, Diagnostic> {
    let too_large = |what: &str, e: &dyn std::fmt::Display| {
        Diagnostic::error(
            l.span,
            format!("the frame of `{}` is too large {what}: {e}", l.name),
        )
    };
    let mut label_pos = l.label_pos;
    opt::optimise(&mut l.code, &mut l.vregs, &mut label_pos, options);
    let code = cfg::insert_reconvergence(l.code, &mut label_pos);
    // The frame: variables, spill slots, then the outgoing area for calls' arguments; its
    // size is checked in u64, since a wrapped size would overlap its parts.
    // Spill slots are aligned to their size (up to 16 bytes) from a 16-aligned base.
    let spill_base = u64::from(l.locals_end).div_ceil(16) * 16;
    let max = u64::from(u32::MAX);
    let past_u32 = |size: u64| format!("{size} bytes, more than {max}");
    let spill_base = u32::try_from(spill_base)
        .map_err(|_| too_large("for local memory", &past_u32(spill_base)))?;
    let frame = regalloc::Frame {
        budget: options.max_registers,
        spill_base,
        entry: l.entry,
    };
    let alloc = regalloc::allocate(code, &l.vregs, &label_pos, frame)
        .map_err(|e| too_large("for spill code to reach its slots", &e))?;
    for p in label_pos.iter_mut() {
        *p = alloc.new_index[(*p).min(alloc.new_index.len() - 1)];
    }
    // The outgoing area is where a callee's frame starts.
    let align = u64::from(frame_align);
    let out_base = (u64::from(spill_base) + u64::from(alloc.spill_bytes)).div_ceil(align) * align;
    let frame = out_base + u64::from(l.outgoing_size);
    if frame > max {
        return Err(too_large("for local memory", &past_u32(frame)));
    }
    let n = alloc.code.len();
    let mut words = Vec::with_capacity(n);
    let mut lines = Vec::with_capacity(n);
    let mut relocs = Vec::new();
    for (i, m) in alloc.code.iter().enumerate() {
        let mut word = m.word;
        if let Some(t) = m.target {
            let to = match t {
                Target::Label(id) => label_pos[id as usize],
                Target::End => n,
            };
            let offset = (to as i64 - (i as i64 + 1)) * 8;
            sgpu_isa::set_field(&mut word, fields::TARGET, offset).map_err(|e| {
                Diagnostic::error(l.span, format!("a branch in `{}` is too far: {e}", l.name))
            })?;
        }
        if let Some(r) = &m.reloc {
            relocs.push((i, **r));
        }
        if m.marks.has(Marks::OUTGOING) {
            // Relative to the outgoing area until now, and never negative.
            let off = sgpu_isa::field(word, fields::OFF24) as i64;
            sgpu_isa::set_field(&mut word, fields::OFF24, off + out_base as i64)
                .map_err(|e| too_large("for a call's arguments", &e))?;
        }
        if m.marks.has(Marks::CALL_FRAME) {
            let field = if m.opcode() == sgpu_isa::opcodes::CALLR {
                fields::RFRAME
            } else {
                fields::FRAME
            };
            sgpu_isa::set_field(&mut word, field, out_base as i64)
                .map_err(|e| too_large("for a call", &e))?;
        }
        words.push(word);
        lines.push([m.line, m.loc.0, m.loc.1]);
    }
    let labels = l
        .label_names
        .iter()
        .zip(&label_pos)
        .map(|(name, &at)| (name.to_string(), at))
        .collect();
    Ok(Function {
        name: l.name.to_string(),
        entry: l.entry,
        code: words,
        lines,
        relocs,
        labels,
        registers: alloc.registers,
        spilled: alloc.spilled,
        spill_bytes: alloc.spill_bytes,
        spill_store_bytes: alloc.spill_store_bytes,
        spill_load_bytes: alloc.spill_load_bytes,
        shared_bytes: l.shared_size,
        local_bytes: frame as u32,
        param_bytes: l.param_size,
        params: l.params,
        max_threads: l.max_threads,
    })
}
