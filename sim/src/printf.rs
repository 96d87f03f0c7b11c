//! Device printf (docs/hw.md, "Device printf"): the buffer a launch reserves for the printf
//! runtime (`encoder/runtime/printf.cu`, linked into modules that declare CUDA's `vprintf`),
//! and what the host prints from it after the kernel: each record in buffer order, formatted
//! as C's printf does (`format.rs`, with `spec.rs` the conversion specifications the runtime
//! reads too, and `float.rs` the digits of doubles).

mod float;
mod format;
mod spec;

pub use format::{format, Strings};

use crate::memory::{Global, CONST_WINDOW, MAX_ALLOCATION};
use crate::program::Program;

/// The buffer's layout, which the printf runtime's C source writes too (a test of the
/// encoder reads it there).
pub mod abi {
    /// The runtime's variable that holds the buffer's address: the host writes it before a
    /// launch (0, as the ELF has it: no buffer, every record dropped).
    pub const BUFFER_SYMBOL: &str = "__sgpu_printf_buffer";
    /// The header at the buffer's start: u64 `cursor` (bytes of records claimed, past the
    /// capacity once records are dropped), u32 `capacity` (bytes of the record area after
    /// the header), u32 `dropped` (records that did not fit).
    pub const HEADER_BYTES: u64 = 16;
    /// A record's own bytes before its arguments: u32 `size` (the record's bytes, a multiple
    /// of 8; 0 while claimed but not yet written), u32 `args` (the arguments' bytes), u64
    /// `format` (the format string's generic address).
    pub const RECORD_BYTES: u64 = 16;
    /// The most arguments a record holds (CUDA's limit).
    pub const MAX_ARGS: u32 = 32;
    /// What `vprintf` returns for a NULL format.
    pub const NO_FORMAT: i32 = -1;
    /// What `vprintf` returns when the record did not fit (or there is no buffer).
    pub const DROPPED: i32 = -2;
    /// The buffer's size when the manifest does not give one: CUDA's default
    /// (`cudaLimitPrintfFifoSize`).
    pub const DEFAULT_BYTES: u64 = 1 << 20;
}

/// The name of the buffer's allocation in global memory.
pub const REGION: &str = "(printf buffer)";

/// The most text [`printed`] makes: a kernel's records with wide fields could otherwise ask
/// the host for more memory than it has (each conversion is at most `spec::MAX_FIELD`).
const MAX_TEXT: usize = 1 << 28;

/// Reserves a printf buffer of `bytes` (header included) in `global` when `program` is
/// linked with the printf runtime, and writes its address where the runtime reads it (and
/// [`printed`] after the kernel). Nothing for a program that cannot print or a size of 0
/// (no buffer: every record is dropped). `global` holds the program's data already.
pub fn reserve(global: &mut Global, program: &Program, bytes: u64) -> Result<(), String> {
    let Some(&(variable, _)) = program.globals.get(abi::BUFFER_SYMBOL) else {
        return Ok(());
    };
    if bytes == 0 {
        return Ok(());
    }
    // At most what the model gives any allocation, which leaves `capacity` a u32.
    if !(abi::HEADER_BYTES..=MAX_ALLOCATION).contains(&bytes) {
        return Err(format!(
            "`printf_buffer` must be 0 or {} to {MAX_ALLOCATION} bytes, not {bytes}",
            abi::HEADER_BYTES
        ));
    }
    let capacity = (bytes - abi::HEADER_BYTES) as u32;
    let mut header = vec![0u8; abi::HEADER_BYTES as usize];
    header[8..12].copy_from_slice(&capacity.to_le_bytes());
    let base = global.alloc(REGION, header, bytes as usize);
    global.write(variable, &base.to_le_bytes()).map_err(|_| {
        format!(
            "internal: `{}` lies outside the module data",
            abi::BUFFER_SYMBOL
        )
    })
}

/// What a kernel printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Printed {
    /// The records formatted, one after another.
    pub text: Vec<u8>,
    pub records: usize,
    /// Records that did not fit.
    pub dropped: u32,
    /// What went wrong, for people: a record claimed but not written (its thread trapped
    /// first), a malformed record, a format string at an address without memory.
    pub problems: Vec<String>,
}

/// What the kernel printed into `program`'s printf buffer: its records formatted, strings
/// read from global memory or from constant bank 1 through its window. `None` when the
/// program cannot print or has no buffer.
pub fn printed(global: &Global, program: &Program) -> Option<Printed> {
    let &(variable, _) = program.globals.get(abi::BUFFER_SYMBOL)?;
    let mut le = [0; 8];
    global.read(variable, &mut le).ok()?;
    let base = u64::from_le_bytes(le);
    let buffer = global.bytes_from(base).filter(|_| base != 0)?;
    let constants = &program.constants;
    let strings = |address: u64| -> Option<&[u8]> {
        match address.checked_sub(CONST_WINDOW) {
            Some(at) if at < constants.len() as u64 => Some(&constants[at as usize..]),
            _ => global.bytes_from(address),
        }
    };
    Some(records(buffer, &strings))
}

/// The records of `buffer` (header first), formatted.
fn records(buffer: &[u8], strings: &Strings<'_>) -> Printed {
    let mut p = Printed::default();
    if buffer.len() < abi::HEADER_BYTES as usize {
        return p;
    }
    let word = |at: u64, n: usize| -> u64 {
        let mut le = [0; 8];
        let at = at as usize;
        le[..n].copy_from_slice(&buffer[at..at + n]);
        u64::from_le_bytes(le)
    };
    // The header as the kernel left it, which it may have overwritten: nothing is read past
    // the buffer.
    let area = abi::HEADER_BYTES;
    let capacity = word(8, 4).min(buffer.len() as u64 - area);
    let end = word(0, 8).min(capacity);
    p.dropped = word(12, 4) as u32;
    let mut at = 0;
    while at + abi::RECORD_BYTES <= end {
        if p.text.len() > MAX_TEXT {
            p.problems.push(format!(
                "the records from byte {at} of the printf buffer are not shown: the ones \
                 before make more than {MAX_TEXT} bytes of text"
            ));
            break;
        }
        let (size, args) = (word(area + at, 4), word(area + at + 4, 4));
        // A size of 0 is where the records that fit end (the first record dropped was
        // claimed there), or, when none was dropped, a record whose thread stopped between
        // claiming and writing it.
        if size == 0 {
            if p.dropped == 0 {
                p.problems.push(format!(
                    "the record at byte {at} of the printf buffer was never written (its \
                     thread stopped first): the records after it are not shown"
                ));
            }
            break;
        }
        if size < abi::RECORD_BYTES
            || size % 8 != 0
            || size > end - at
            || args > size - abi::RECORD_BYTES
        {
            p.problems.push(format!(
                "the record at byte {at} of the printf buffer is malformed (the kernel wrote \
                 over the buffer?): it and the records after it are not shown"
            ));
            break;
        }
        let format_at = word(area + at + 8, 8);
        let first = (area + at + abi::RECORD_BYTES) as usize;
        let args = &buffer[first..first + args as usize];
        match strings(format_at) {
            Some(bytes) => {
                let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
                p.text.extend(format(&bytes[..end], args, strings));
            }
            None => p.problems.push(format!(
                "the record at byte {at} of the printf buffer has its format string at \
                 {format_at:#x}, where there is no memory"
            )),
        }
        p.records += 1;
        at += size;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of `capacity` record bytes holding `records` (format address, argument
    /// bytes), with `claimed` bytes more past them claimed and `dropped` records dropped.
    fn buffer(capacity: u32, records: &[(u64, &[u8])], claimed: u64, dropped: u32) -> Vec<u8> {
        let mut area = Vec::new();
        for &(format, args) in records {
            let size = abi::RECORD_BYTES as usize + args.len().div_ceil(8) * 8;
            area.extend((size as u32).to_le_bytes());
            area.extend((args.len() as u32).to_le_bytes());
            area.extend(format.to_le_bytes());
            area.extend(args);
            area.resize(area.len().div_ceil(8) * 8, 0);
        }
        let cursor = area.len() as u64 + claimed;
        let mut b = cursor.to_le_bytes().to_vec();
        b.extend(capacity.to_le_bytes());
        b.extend(dropped.to_le_bytes());
        area.resize(capacity as usize, 0);
        b.extend(area);
        b
    }

    const FORMATS: &[u8] = b"x=%d\n\0%s and %s\n\0done\n\0";

    fn strings(address: u64) -> Option<&'static [u8]> {
        FORMATS.get(usize::try_from(address.checked_sub(0x100)?).ok()?..)
    }

    fn read(b: &[u8]) -> (String, Printed) {
        let p = records(b, &strings);
        (String::from_utf8(p.text.clone()).unwrap(), p)
    }

    #[test]
    fn records_print_in_buffer_order() {
        let args: Vec<u8> = [0x106u64, 0x111]
            .iter()
            .flat_map(|a| a.to_le_bytes())
            .collect();
        let b = buffer(
            256,
            &[(0x100, &7i32.to_le_bytes()), (0x106, &args), (0x111, &[])],
            0,
            0,
        );
        let (text, p) = read(&b);
        assert_eq!(text, "x=7\n%s and %s\n and done\n\ndone\n");
        assert_eq!((p.records, p.dropped, p.problems.len()), (3, 0, 0));
    }

    #[test]
    fn records_past_the_capacity_were_dropped() {
        // Two records fit in 48 bytes; a third claimed 24 more, which did not fit.
        let b = buffer(48, &[(0x100, &[1, 0, 0, 0]), (0x100, &[2, 0, 0, 0])], 24, 1);
        let (text, p) = read(&b);
        assert_eq!(text, "x=1\nx=2\n");
        assert_eq!((p.records, p.dropped, p.problems.len()), (2, 1, 0));
        // Room left past the last record that fit is not a record.
        let b = buffer(64, &[(0x100, &[1, 0, 0, 0])], 48, 1);
        assert_eq!(read(&b).1.problems, Vec::<String>::new());
    }

    #[test]
    fn a_record_never_written_stops_the_walk() {
        let b = buffer(96, &[(0x100, &[1, 0, 0, 0])], 24, 0);
        let (text, p) = read(&b);
        assert_eq!(text, "x=1\n");
        assert!(p.problems[0].contains("never written"), "{:?}", p.problems);
    }

    #[test]
    fn a_malformed_record_or_format_is_reported() {
        let mut b = buffer(64, &[(0x100, &[1, 0, 0, 0]), (0x100, &[2, 0, 0, 0])], 0, 0);
        b[16 + 24] = 9; // the second record's size
        let (text, p) = read(&b);
        assert_eq!(text, "x=1\n");
        assert!(p.problems[0].contains("malformed"), "{:?}", p.problems);
        let b = buffer(64, &[(0x9999, &[])], 0, 0);
        let (text, p) = read(&b);
        assert_eq!((text.as_str(), p.records), ("", 1));
        assert!(p.problems[0].contains("0x9999"), "{:?}", p.problems);
        // A header the kernel overwrote reads nothing past the buffer.
        let mut b = buffer(32, &[], 0, 0);
        b[..12].copy_from_slice(&[0xff; 12]);
        assert_eq!(read(&b).1.records, 0);
    }
}
