//! Reading an sgpu ELF back: every function as sgpu assembly, with addresses, encodings, the
//! PTX (and `.loc`) lines each instruction came from, and the PTX labels, which branch and
//! `SSY` targets name.

use crate::elf::EM_SGPU;
use object::read::elf::{ElfFile64, FileHeader};
use object::{Object, ObjectSection, ObjectSymbol, SectionIndex, SymbolKind};
use sgpu_isa::Op;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The disassembly of an sgpu ELF file, or why it cannot be read.
pub fn disassemble(bytes: &[u8]) -> Result<String, String> {
    let file = ElfFile64::<object::Endianness>::parse(bytes)
        .map_err(|e| format!("not an ELF64 file: {e}"))?;
    let machine = file.elf_header().e_machine(file.endian());
    if machine != EM_SGPU {
        return Err(format!(
            "not an sgpu ELF file (e_machine {machine:#x}, expected {EM_SGPU:#x})"
        ));
    }
    let files = file
        .section_by_name(".sgpu.files")
        .and_then(|s| s.data().ok())
        .map(read_files)
        .unwrap_or_default();
    let name_of = |index: u32| {
        files
            .iter()
            .find(|(i, _)| *i == index)
            .map_or("?", |(_, n)| n.as_str())
            .to_string()
    };
    let mut out = String::new();
    for section in file.sections() {
        let Ok(name) = section.name() else { continue };
        let Some(function) = name.strip_prefix(".text.") else {
            continue;
        };
        let code = section.data().map_err(|e| format!("{name}: {e}"))?;
        if code.len() % 8 != 0 {
            return Err(format!(
                "{name}: {} bytes is not a whole number of words",
                code.len()
            ));
        }
        let lines: Vec<u32> = file
            .section_by_name(&format!(".sgpu.lines.{function}"))
            .and_then(|s| s.data().ok())
            .map(|d| {
                d.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("four bytes")))
                    .collect()
            })
            .unwrap_or_default();
        let labels = labels_in(&file, section.index());
        writeln!(out, "{function}:").unwrap();
        for (i, chunk) in code.chunks_exact(8).enumerate() {
            let at = i as u64 * 8;
            for name in labels.get(&at).into_iter().flatten() {
                writeln!(out, "{name}:").unwrap();
            }
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let text = match sgpu_isa::decode(word) {
                Ok(insn) => instruction(&insn, at, &labels),
                Err(e) => format!("<{e}>"),
            };
            write!(out, "  /*{at:04x}*/  {text:<48} /* {word:#018x} */").unwrap();
            if let Some(&[line, loc_file, loc_line]) = lines
                .get(i * 3..i * 3 + 3)
                .map(|s| <&[u32; 3]>::try_from(s).expect("three values"))
            {
                // Line 0: no line of the module's PTX (the f64 runtime's code).
                if line != 0 {
                    write!(out, "  // {}:{line}", name_of(0)).unwrap();
                }
                if loc_file != 0 {
                    let sep = if line != 0 { "," } else { "  //" };
                    write!(out, "{sep} {}:{loc_line}", name_of(loc_file)).unwrap();
                }
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// The labels of a code section (its local symbols other than the function's), by offset.
fn labels_in(file: &ElfFile64<'_, object::Endianness>, section: SectionIndex) -> Labels {
    let mut labels = Labels::new();
    for sym in file.symbols() {
        if sym.section_index() != Some(section) || sym.kind() == SymbolKind::Text {
            continue;
        }
        if let Ok(name) = sym.name() {
            labels
                .entry(sym.address())
                .or_default()
                .push(name.to_string());
        }
    }
    labels
}

type Labels = BTreeMap<u64, Vec<String>>;

/// An instruction at byte offset `at` as the ISA prints it, except that a branch or `SSY`
/// target, which the field holds relative to the next instruction, is shown as the absolute
/// offset it reaches and the label there: `@P0 BRA 0xa8 <$L__BB0_2>`.
fn instruction(insn: &sgpu_isa::Instruction, at: u64, labels: &Labels) -> String {
    let text = insn.to_string();
    let (Op::Bra { target, .. } | Op::Ssy { target }) = insn.op else {
        return text;
    };
    // The printer writes the target last, after a space.
    let head = text
        .rsplit_once(' ')
        .map_or(text.as_str(), |(head, _)| head);
    let to = at as i64 + 8 + i64::from(target);
    let mut out = if to < 0 {
        format!("{head} -{:#x}", to.unsigned_abs())
    } else {
        format!("{head} {to:#x}")
    };
    if let Some(name) = u64::try_from(to)
        .ok()
        .and_then(|to| labels.get(&to)?.first())
    {
        write!(out, " <{name}>").unwrap();
    }
    out
}

/// `.sgpu.files`: records of a little-endian u32 index and a NUL-terminated path.
fn read_files(data: &[u8]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut rest = data;
    while rest.len() >= 4 {
        let index = u32::from_le_bytes(rest[..4].try_into().expect("four bytes"));
        let tail = &rest[4..];
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        out.push((index, String::from_utf8_lossy(&tail[..end]).into_owned()));
        rest = tail.get(end + 1..).unwrap_or(&[]);
    }
    out
}
