//! Loading an sgpu ELF file (docs/elf.md): every function's code placed in one code space,
//! calls and global addresses relocated, the data images, the kernels' metadata and line
//! tables.

use object::read::elf::{ElfFile64, FileHeader};
use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget};
use sgpu_isa::elf::{Info, EM_SGPU, R_SGPU_ABS32_HI, R_SGPU_ABS32_LO, R_SGPU_ABS64, R_SGPU_CALL};
use sgpu_isa::{Instruction, Op, Pred, Reg, Sreg, Unit};
use std::collections::HashMap;

/// One function of the program.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Its first word in [`Program::code`].
    pub start: u32,
    pub len: u32,
    pub info: Info,
}

/// An instruction word decoded, with what each step needs of the ISA table's roles worked
/// out once.
#[derive(Clone, Copy, Debug)]
pub struct Decoded {
    pub insn: Instruction,
    pub unit: Unit,
    /// The registers (first, count), predicates (PT for none) and carry it writes, which the
    /// record copies after the step. A control instruction's writes (`BARRED`'s) come with
    /// the barrier's completion instead.
    pub writes: (Option<(Reg, u8)>, [Pred; 2], bool),
    /// It reads `%clock`, which the RTL may legally read differently.
    pub nondeterministic: bool,
}

impl Decoded {
    pub fn new(insn: Instruction) -> Decoded {
        let unit = insn.op.unit();
        let roles = insn.op.roles();
        let mut preds = [Pred::PT; 2];
        for (slot, p) in preds.iter_mut().zip(roles.written_preds()) {
            *slot = p;
        }
        let writes = if unit == Unit::Control {
            (None, [Pred::PT; 2], false)
        } else {
            (
                roles.written().map(|r| (r.first, r.count)),
                preds,
                roles.carry_write,
            )
        };
        Decoded {
            insn,
            unit,
            writes,
            nondeterministic: matches!(
                insn.op,
                Op::S2r {
                    sreg: Sreg::Clock | Sreg::ClockHi | Sreg::Clock64,
                    ..
                }
            ),
        }
    }
}

/// Every word decoded (`None` for a word that is no instruction).
pub fn decode_all(code: &[u64]) -> Vec<Option<Decoded>> {
    code.iter()
        .map(|&w| sgpu_isa::decode(w).ok().map(Decoded::new))
        .collect()
}

/// A loaded program: code, where global data goes, and what to say about each word.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub code: Vec<u64>,
    /// Each word of `code` decoded once at load (`None` for a word that is no instruction),
    /// so that a step only looks it up.
    pub decoded: Vec<Option<Decoded>>,
    pub functions: Vec<Function>,
    /// Per word of `code`: the PTX line, `.loc` file index and line.
    pub lines: Vec<[u32; 3]>,
    /// `.sgpu.files`: index -> path; 0 is the PTX file.
    pub files: HashMap<u32, String>,
    /// The initial image of the module's global variables, to be placed at `data_base`.
    pub data: Vec<u8>,
    pub data_base: u64,
    /// Constant bank 1.
    pub constants: Vec<u8>,
    /// `.surfref` names and their descriptor slots.
    pub surfaces: Vec<(String, u8)>,
    /// Global variables: name -> (address, size).
    pub globals: HashMap<String, (u64, u64)>,
}

impl Program {
    /// Loads an ELF file; the module's global variables go at `data_base`.
    pub fn load(bytes: &[u8], data_base: u64) -> Result<Program, String> {
        let file = ElfFile64::<object::Endianness>::parse(bytes)
            .map_err(|e| format!("not an ELF64 file: {e}"))?;
        let machine = file.elf_header().e_machine(file.endian());
        if machine != EM_SGPU {
            return Err(format!("not an sgpu ELF file (e_machine {machine:#x})"));
        }
        let mut p = Program {
            data_base,
            ..Program::default()
        };
        let data_section = file.section_by_name(".data");
        if let Some(s) = &data_section {
            p.data = s.data().map_err(|e| e.to_string())?.to_vec();
        }
        if let Some(s) = file.section_by_name(".sgpu.const") {
            p.constants = s.data().map_err(|e| e.to_string())?.to_vec();
        }
        if let Some(s) = file.section_by_name(".sgpu.files") {
            let mut rest = s.data().map_err(|e| e.to_string())?;
            while rest.len() >= 4 {
                let index = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
                let tail = &rest[4..];
                let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
                p.files
                    .insert(index, String::from_utf8_lossy(&tail[..end]).into_owned());
                rest = tail.get(end + 1..).unwrap_or(&[]);
            }
        }
        // Code: every `.text.NAME`, one after another.
        let mut section_start: HashMap<object::SectionIndex, u32> = HashMap::new();
        for section in file.sections() {
            let Ok(name) = section.name() else { continue };
            let Some(function) = name.strip_prefix(".text.") else {
                continue;
            };
            let bytes = section.data().map_err(|e| e.to_string())?;
            if bytes.len() % 8 != 0 {
                return Err(format!("{name} is not a whole number of words"));
            }
            let start = p.code.len() as u32;
            section_start.insert(section.index(), start);
            p.code.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("eight bytes"))),
            );
            let info = file
                .section_by_name(&format!(".sgpu.info.{function}"))
                .and_then(|s| s.data().ok())
                .and_then(Info::from_bytes)
                .ok_or_else(|| format!("{function} has no .sgpu.info"))?;
            let lines: Vec<u32> = file
                .section_by_name(&format!(".sgpu.lines.{function}"))
                .and_then(|s| s.data().ok())
                .map(|d| {
                    d.chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect()
                })
                .unwrap_or_default();
            let n = bytes.len() / 8;
            for i in 0..n {
                let l = lines.get(i * 3..i * 3 + 3).unwrap_or(&[0, 0, 0]);
                p.lines.push([l[0], l[1], l[2]]);
            }
            p.functions.push(Function {
                name: function.to_string(),
                start,
                len: n as u32,
                info,
            });
        }
        // Symbols: globals and surfaces.
        for sym in file.symbols() {
            let Ok(name) = sym.name() else { continue };
            let Some(index) = sym.section_index() else {
                continue;
            };
            let Ok(section) = file.section_by_index(index) else {
                continue;
            };
            match section.name() {
                Ok(".data") => {
                    p.globals
                        .insert(name.to_string(), (data_base + sym.address(), sym.size()));
                }
                Ok(".sgpu.surfaces") => {
                    p.surfaces.push((name.to_string(), sym.address() as u8));
                }
                _ => {}
            }
        }
        // Relocations: global addresses in the data images, then in code.
        for section in file.sections() {
            let image = match section.name() {
                Ok(".data") => &mut p.data,
                Ok(".sgpu.const") => &mut p.constants,
                _ => continue,
            };
            for (offset, rel) in section.relocations() {
                let object::RelocationFlags::Elf {
                    r_type: R_SGPU_ABS64,
                } = rel.flags()
                else {
                    return Err("a data relocation other than R_SGPU_ABS64".into());
                };
                let RelocationTarget::Symbol(sym) = rel.target() else {
                    return Err("a relocation without a symbol".into());
                };
                let sym = file.symbol_by_index(sym).map_err(|e| e.to_string())?;
                let address = symbol_base(&sym, &section_start, data_base)
                    .wrapping_add(sym.address())
                    .wrapping_add(rel.addend() as u64);
                let word = usize::try_from(offset)
                    .ok()
                    .and_then(|at| image.get_mut(at..at.checked_add(8)?))
                    .ok_or("a data relocation outside its section")?;
                word.copy_from_slice(&address.to_le_bytes());
            }
        }
        for section in file.sections() {
            let Some(&start) = section_start.get(&section.index()) else {
                continue;
            };
            for (offset, rel) in section.relocations() {
                let at = start as usize + offset as usize / 8;
                let object::RelocationFlags::Elf { r_type } = rel.flags() else {
                    continue;
                };
                let RelocationTarget::Symbol(sym) = rel.target() else {
                    return Err("a relocation without a symbol".into());
                };
                let sym = file.symbol_by_index(sym).map_err(|e| e.to_string())?;
                let target_section = sym.section_index();
                let value: i64 = match r_type {
                    R_SGPU_CALL => {
                        let callee = target_section
                            .and_then(|s| section_start.get(&s))
                            .ok_or("a call to something that is not code")?;
                        (i64::from(*callee) - (at as i64 + 1)) * 8
                    }
                    R_SGPU_ABS32_LO | R_SGPU_ABS32_HI => {
                        let base = symbol_base(&sym, &section_start, data_base) as i64;
                        let address = base + sym.address() as i64 + rel.addend();
                        if r_type == R_SGPU_ABS32_HI {
                            address >> 32
                        } else {
                            address
                        }
                    }
                    other => return Err(format!("unknown relocation type {other}")),
                };
                let word = p
                    .code
                    .get_mut(at)
                    .ok_or("a relocation outside its code section")?;
                // Each relocation takes one 32-bit half of the address.
                sgpu_isa::set_field(word, sgpu_isa::fields::IMM32, i64::from(value as u32))
                    .map_err(|e| e.to_string())?;
            }
        }
        p.decoded = decode_all(&p.code);
        Ok(p)
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.info.entry)
    }

    /// `file.ptx:LINE` of a word, for messages: the module's PTX line, or where it has none
    /// (the f64 runtime's code, docs/elf.md) the `.loc` file and line.
    pub fn source_line(&self, pc: u32) -> String {
        let file = |index: u32| self.files.get(&index).map_or("?", String::as_str);
        match self.lines.get(pc as usize) {
            Some([0, loc_file, loc_line]) if *loc_file != 0 => {
                format!("{}:{loc_line}", file(*loc_file))
            }
            Some([line, ..]) => format!("{}:{line}", file(0)),
            None => format!("{}:?", file(0)),
        }
    }
}

/// Where a symbol's section is placed: a function's code at its first instruction's byte
/// address in the code space (a function pointer), a variable's data in global memory.
fn symbol_base<'d>(
    sym: &impl ObjectSymbol<'d>,
    section_start: &HashMap<object::SectionIndex, u32>,
    data_base: u64,
) -> u64 {
    match sym.section_index().and_then(|s| section_start.get(&s)) {
        Some(&start) => u64::from(start) * 8,
        None => data_base,
    }
}
