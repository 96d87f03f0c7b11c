//! Constants of the sgpu ELF format (docs/elf.md), shared by the assembler that writes it
//! and the golden model that loads it.

/// `e_machine`: not assigned by the ELF registry; 0x5347 is "SG".
pub const EM_SGPU: u16 = 0x5347;
/// `e_flags`: the ISA version in the low byte.
pub const EF_SGPU_ISA_1: u32 = 1;
/// Relocations on the `imm32` field (bits 63:32) of the word at `r_offset`: the low and high
/// words of a global variable's or a function's address (docs/elf.md).
pub const R_SGPU_ABS32_LO: u32 = 1;
pub const R_SGPU_ABS32_HI: u32 = 2;
/// On the `target` field (bits 63:32): the callee's address relative to the next instruction.
pub const R_SGPU_CALL: u32 = 3;
/// On the 64-bit little-endian word at `r_offset` of `.data` or `.sgpu.const`: a global
/// variable's or a function's address (an initializer such as `{generic(x), x+8, f}`).
pub const R_SGPU_ABS64: u32 = 4;
/// The layout version of `.sgpu.info.NAME`.
pub const INFO_VERSION: u32 = 1;

/// `.sgpu.info.NAME`: little-endian u32, nine in this order, then the parameter count and
/// each parameter's offset and size in constant bank 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub version: u32,
    pub entry: bool,
    pub registers: u32,
    pub shared_bytes: u32,
    pub local_bytes: u32,
    pub param_bytes: u32,
    /// 0 when not given.
    pub max_threads: u32,
    pub spilled: u32,
    pub spill_bytes: u32,
    /// Kernel parameters: (offset, size) in bytes, in declaration order.
    pub params: Vec<(u32, u32)>,
}

impl Info {
    pub fn to_words(&self) -> Vec<u32> {
        let mut w = vec![
            self.version,
            u32::from(self.entry),
            self.registers,
            self.shared_bytes,
            self.local_bytes,
            self.param_bytes,
            self.max_threads,
            self.spilled,
            self.spill_bytes,
            self.params.len() as u32,
        ];
        w.extend(self.params.iter().flat_map(|&(o, s)| [o, s]));
        w
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<Info> {
        let w: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let [version, entry, registers, shared_bytes, local_bytes, param_bytes, max_threads, spilled, spill_bytes] =
            <[u32; 9]>::try_from(w.get(..9)?).ok()?;
        let count = *w.get(9)? as usize;
        let tail = w.get(10..10 + 2 * count)?;
        let params = tail.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        Some(Info {
            version,
            entry: entry != 0,
            registers,
            shared_bytes,
            local_bytes,
            param_bytes,
            max_threads,
            spilled,
            spill_bytes,
            params,
        })
    }
}
