//! The sgpu ELF file (docs/elf.md): a relocatable ELF64 with one code section per function,
//! its metadata and line table, the global and constant data, surface slots as symbols, and
//! relocations for the addresses of global variables.

use crate::layout::{AddressOf, Layout};
use crate::mir::Reloc;
use crate::Function;
use object::elf;
use object::write::elf::{FileHeader, Rel, SectionHeader, Sym, Writer};
use object::write::StringId;
use object::Endianness;
use std::collections::HashMap;

pub use sgpu_isa::elf::{
    EF_SGPU_ISA_1, EM_SGPU, INFO_VERSION, R_SGPU_ABS32_HI, R_SGPU_ABS32_LO, R_SGPU_ABS64,
    R_SGPU_CALL,
};

pub struct Input<'i, 'a> {
    pub file: &'i str,
    pub loc_files: &'i [(u32, String)],
    pub functions: &'i [Function],
    pub layout: &'i Layout<'a>,
}

/// A section to place: name, type, flags, alignment, contents (or a size for NOBITS).
struct Section {
    name: String,
    sh_type: u32,
    flags: u64,
    align: u64,
    data: Vec<u8>,
    size: u64,
    /// For a `.rela` section: the index (into the sections list) of the section it patches.
    info: Option<usize>,
    rels: Vec<Rel>,
}

impl Section {
    fn progbits(name: String, flags: u64, align: u64, data: Vec<u8>) -> Section {
        let size = data.len() as u64;
        Section {
            name,
            sh_type: elf::SHT_PROGBITS,
            flags,
            align,
            data,
            size,
            info: None,
            rels: Vec::new(),
        }
    }
}

struct Symbol {
    name: String,
    section: usize,
    value: u64,
    size: u64,
    kind: u8,
    global: bool,
}

/// Little-endian bytes of words, one copy per word (a `flat_map` over bytes goes a byte at a
/// time, and code sections are megabytes).
fn le_bytes<const N: usize, T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * N);
    for &v in values {
        out.extend_from_slice(&bytes(v));
    }
    out
}

fn words(values: &[u32]) -> Vec<u8> {
    le_bytes(values, u32::to_le_bytes)
}

pub fn write(input: &Input<'_, '_>) -> Vec<u8> {
    let mut sections: Vec<Section> = Vec::new();
    let mut symbols: Vec<Symbol> = Vec::new();
    let layout = input.layout;

    // Global data and its symbols.
    let data = sections.len();
    sections.push(Section::progbits(
        ".data".into(),
        u64::from(elf::SHF_ALLOC | elf::SHF_WRITE),
        u64::from(layout.global_align.max(1)),
        layout.global_image.clone(),
    ));
    for g in &layout.globals {
        symbols.push(Symbol {
            name: g.name.to_string(),
            section: data,
            value: u64::from(g.offset),
            size: u64::from(g.size),
            kind: elf::STT_OBJECT,
            global: g.visible,
        });
    }
    // Constant bank 1.
    let constants = sections.len();
    sections.push(Section::progbits(
        ".sgpu.const".into(),
        u64::from(elf::SHF_ALLOC),
        8,
        layout.const_image.clone(),
    ));
    // Surface slots: one symbol per `.surfref`, its value the slot.
    if !layout.surfaces.is_empty() {
        let surf = sections.len();
        sections.push(Section {
            name: ".sgpu.surfaces".into(),
            sh_type: elf::SHT_NOBITS,
            flags: 0,
            align: 1,
            data: Vec::new(),
            size: layout.surfaces.len() as u64,
            info: None,
            rels: Vec::new(),
        });
        for (slot, name) in layout.surfaces.iter().enumerate() {
            symbols.push(Symbol {
                name: name.to_string(),
                section: surf,
                value: slot as u64,
                size: 1,
                kind: elf::STT_OBJECT,
                global: true,
            });
        }
    }
    // Files of the line tables: index 0 is the PTX file, then the `.file` directives.
    let mut files = Vec::new();
    files.extend_from_slice(&0u32.to_le_bytes());
    files.extend_from_slice(input.file.as_bytes());
    files.push(0);
    for (index, path) in input.loc_files {
        files.extend_from_slice(&index.to_le_bytes());
        files.extend_from_slice(path.as_bytes());
        files.push(0);
    }
    sections.push(Section::progbits(".sgpu.files".into(), 0, 4, files));

    // Function symbols first, so calls can name functions defined later; their sections
    // follow.
    let first_text = sections.len();
    let mut function_symbol: HashMap<&str, usize> = HashMap::new();
    for (k, f) in input.functions.iter().enumerate() {
        function_symbol.insert(&f.name, symbols.len());
        symbols.push(Symbol {
            name: f.name.clone(),
            // Each function takes four sections at most; fixed below once placed.
            section: first_text + k,
            value: 0,
            size: f.code.len() as u64 * 8,
            kind: elf::STT_FUNC,
            global: true,
        });
    }
    for f in input.functions {
        let text = sections.len();
        symbols[function_symbol[f.name.as_str()]].section = text;
        for (name, at) in &f.labels {
            symbols.push(Symbol {
                name: name.clone(),
                section: text,
                value: *at as u64 * 8,
                size: 0,
                kind: elf::STT_NOTYPE,
                global: false,
            });
        }
        let code = le_bytes(&f.code, u64::to_le_bytes);
        sections.push(Section::progbits(
            format!(".text.{}", f.name),
            u64::from(elf::SHF_ALLOC | elf::SHF_EXECINSTR),
            8,
            code,
        ));
        let info = sgpu_isa::elf::Info {
            version: INFO_VERSION,
            entry: f.entry,
            registers: f.registers,
            shared_bytes: f.shared_bytes,
            local_bytes: f.local_bytes,
            param_bytes: f.param_bytes,
            max_threads: f.max_threads.unwrap_or(0),
            spilled: f.spilled,
            spill_bytes: f.spill_bytes,
            params: f.params.clone(),
        }
        .to_words();
        sections.push(Section::progbits(
            format!(".sgpu.info.{}", f.name),
            0,
            4,
            words(&info),
        ));
        sections.push(Section::progbits(
            format!(".sgpu.lines.{}", f.name),
            0,
            4,
            words(f.lines.as_flattened()),
        ));
        if !f.relocs.is_empty() {
            let rels = f
                .relocs
                .iter()
                .map(|(at, r)| {
                    // `r_sym` is an index into `symbols` plus one here; `emit` maps it to
                    // the symbol table's order.
                    let (symbol, r_type, r_addend) = match *r {
                        Reloc::Global {
                            symbol,
                            addend,
                            high,
                        } => (symbol as usize, abs32(high), addend),
                        Reloc::Call { function } => {
                            let name = input.layout.functions[function as usize];
                            (function_symbol[name], R_SGPU_CALL, 0)
                        }
                        Reloc::FunctionAddress { function, high } => {
                            let name = input.layout.functions[function as usize];
                            (function_symbol[name], abs32(high), 0)
                        }
                    };
                    Rel {
                        r_offset: *at as u64 * 8,
                        r_sym: symbol as u32 + 1,
                        r_type,
                        r_addend,
                    }
                })
                .collect();
            sections.push(Section {
                name: format!(".rela.text.{}", f.name),
                sh_type: elf::SHT_RELA,
                flags: u64::from(elf::SHF_INFO_LINK),
                align: 8,
                data: Vec::new(),
                size: 0,
                info: Some(text),
                rels,
            });
        }
    }
    // Addresses in the two images' initializers, once every function has its symbol.
    for (constant, target, name) in [
        (false, data, ".rela.data"),
        (true, constants, ".rela.sgpu.const"),
    ] {
        let rels: Vec<Rel> = layout
            .data_relocs
            .iter()
            .filter(|r| r.constant == constant)
            .map(|r| Rel {
                r_offset: u64::from(r.offset),
                // Symbols are numbered from one here; the data symbols come first.
                r_sym: match r.target {
                    AddressOf::Global(symbol) => symbol,
                    AddressOf::Function(f) => function_symbol[layout.functions[f as usize]] as u32,
                } + 1,
                r_type: R_SGPU_ABS64,
                r_addend: r.addend,
            })
            .collect();
        if !rels.is_empty() {
            sections.push(Section {
                name: name.into(),
                sh_type: elf::SHT_RELA,
                flags: u64::from(elf::SHF_INFO_LINK),
                align: 8,
                data: Vec::new(),
                size: 0,
                info: Some(target),
                rels,
            });
        }
    }
    emit(&sections, &mut symbols)
}

/// Lays the file out: header, section contents, symbol and string tables, section headers.
fn emit(sections: &[Section], symbols: &mut [Symbol]) -> Vec<u8> {
    // Local symbols come first in an ELF symbol table; relocations above index symbols in
    // our order, so globals and locals are not reordered: all but the null symbol are
    // written as given, and `sh_info` counts only the null symbol as local when any global
    // precedes a local. Keep it simple and valid: make every symbol global or local by its
    // flag, locals first, and remap.
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| symbols[i].global);
    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buffer);
    w.reserve_file_header();
    let names: Vec<StringId> = sections
        .iter()
        .map(|s| w.add_section_name(s.name.as_bytes()))
        .collect();
    let _null = w.reserve_null_section_index();
    let indices: Vec<_> = sections.iter().map(|_| w.reserve_section_index()).collect();
    let symtab = w.reserve_symtab_section_index();
    let strtab = w.reserve_strtab_section_index();
    let shstrtab = w.reserve_shstrtab_section_index();
    let mut offsets = Vec::with_capacity(sections.len());
    for s in sections {
        let offset = if s.sh_type == elf::SHT_RELA {
            w.reserve_relocations(s.rels.len(), true)
        } else if s.sh_type == elf::SHT_NOBITS {
            0
        } else {
            w.reserve(s.data.len(), s.align as usize)
        };
        offsets.push(offset);
    }
    w.reserve_null_symbol_index();
    let sym_names: Vec<StringId> = order
        .iter()
        .map(|&i| w.add_string(symbols[i].name.as_bytes()))
        .collect();
    let mut sym_index = vec![0u32; symbols.len()];
    for &i in &order {
        sym_index[i] = w.reserve_symbol_index(Some(indices[symbols[i].section])).0;
    }
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: EM_SGPU,
        e_entry: 0,
        e_flags: EF_SGPU_ISA_1,
    })
    .expect("the header fits the buffer");
    for s in sections {
        if s.sh_type == elf::SHT_RELA {
            w.write_align_relocation();
            for r in &s.rels {
                let mut r = r.clone();
                r.r_sym = sym_index[r.r_sym as usize - 1];
                w.write_relocation(true, &r);
            }
        } else if s.sh_type != elf::SHT_NOBITS {
            w.write_align(s.align as usize);
            w.write(&s.data);
        }
    }
    w.write_null_symbol();
    for (k, &i) in order.iter().enumerate() {
        let s = &symbols[i];
        let bind = if s.global {
            elf::STB_GLOBAL
        } else {
            elf::STB_LOCAL
        };
        w.write_symbol(&Sym {
            name: Some(sym_names[k]),
            section: Some(indices[s.section]),
            st_info: (bind << 4) | s.kind,
            st_other: elf::STV_DEFAULT,
            st_shndx: 0,
            st_value: s.value,
            st_size: s.size,
        });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    for (k, s) in sections.iter().enumerate() {
        if s.sh_type == elf::SHT_RELA {
            let target = indices[s.info.expect("a relocation section names its target")];
            w.write_relocation_section_header(
                names[k],
                target,
                symtab,
                offsets[k],
                s.rels.len(),
                true,
            );
            continue;
        }
        w.write_section_header(&SectionHeader {
            name: Some(names[k]),
            sh_type: s.sh_type,
            sh_flags: s.flags,
            sh_addr: 0,
            sh_offset: offsets[k] as u64,
            sh_size: s.size,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: s.align,
            sh_entsize: 0,
        });
    }
    let locals = order.iter().filter(|&&i| !symbols[i].global).count() as u32;
    w.write_symtab_section_header(locals + 1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    let _ = (strtab, shstrtab);
    buffer
}

/// The relocation of an address's high word, or its low.
fn abs32(high: bool) -> u32 {
    if high {
        R_SGPU_ABS32_HI
    } else {
        R_SGPU_ABS32_LO
    }
}
