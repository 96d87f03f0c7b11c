//! The memories of the machine: global memory as separate allocations, the generic address
//! map with its windows, and the faults an access can raise.

use crate::record::Space;
use crate::trap::Cause;
use sgpu_isa::abi::GLOBAL_ALIGN;

/// The memory map (docs/hw.md): generic addresses of the shared, local and constant bank 1
/// windows, each below 4 GiB so that a generic address there has a zero high word (`cvta` is
/// one add), and global memory from 4 GiB up.
pub use sgpu_isa::abi::{CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};

/// The most bytes the model gives one allocation (a buffer or a surface's data): a bound
/// on what a manifest may ask of the host, not a limit of the hardware's addresses.
pub const MAX_ALLOCATION: u64 = 1 << 32;

/// One allocation of global memory: a buffer of the launch or the module's variables.
#[derive(Clone, Debug)]
pub struct Region {
    pub name: String,
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// Global memory: allocations at 256-byte aligned addresses, in address order, with gaps
/// between them so that running off one is a fault rather than another's data.
#[derive(Clone, Debug, Default)]
pub struct Global {
    pub regions: Vec<Region>,
}

impl Global {
    /// Places `bytes` (zero-filled to `size`) at the next free [`GLOBAL_ALIGN`] boundary,
    /// leaving a gap of at least that much after the last allocation.
    pub fn alloc(&mut self, name: &str, mut bytes: Vec<u8>, size: usize) -> u64 {
        let next = self.regions.last().map_or(GLOBAL_BASE, |r| {
            r.base + r.bytes.len() as u64 + GLOBAL_ALIGN
        });
        let base = next.div_ceil(GLOBAL_ALIGN) * GLOBAL_ALIGN;
        bytes.resize(size.max(bytes.len()), 0);
        self.regions.push(Region {
            name: name.to_string(),
            base,
            bytes,
        });
        base
    }

    fn region(&self, address: u64, len: u64) -> Option<usize> {
        let i = self
            .regions
            .partition_point(|r| r.base <= address)
            .checked_sub(1)?;
        let r = &self.regions[i];
        let end = address.checked_add(len)?;
        (end <= r.base + r.bytes.len() as u64).then_some(i)
    }

    pub fn read(&self, address: u64, out: &mut [u8]) -> Result<(), Cause> {
        let i = self
            .region(address, out.len() as u64)
            .ok_or_else(|| outside(Space::Global, address, out.len()))?;
        let r = &self.regions[i];
        let at = (address - r.base) as usize;
        out.copy_from_slice(&r.bytes[at..at + out.len()]);
        Ok(())
    }

    pub fn write(&mut self, address: u64, data: &[u8]) -> Result<(), Cause> {
        let i = self
            .region(address, data.len() as u64)
            .ok_or_else(|| outside(Space::Global, address, data.len()))?;
        let r = &mut self.regions[i];
        let at = (address - r.base) as usize;
        r.bytes[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    pub fn by_name(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }
}

/// Bytes `[at, at + len)` of a memory of `space`, or why not.
pub fn range(
    memory: &[u8],
    space: Space,
    at: u64,
    len: usize,
) -> Result<std::ops::Range<usize>, Cause> {
    match at.checked_add(len as u64) {
        Some(end) if end <= memory.len() as u64 => Ok(at as usize..end as usize),
        _ => Err(outside(space, at, len)),
    }
}

fn outside(space: Space, address: u64, len: usize) -> Cause {
    Cause::OutOfBounds {
        space,
        address,
        size: len as u8,
    }
}
