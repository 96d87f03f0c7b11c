//! The memories of the machine behind one interface, [`Memory`]: every load, store, atomic,
//! constant read and surface access of a warp instruction is a [`Memory::read`] or
//! [`Memory::write`] of one space. [`Memories`] is the model's own; a co-simulation harness
//! can put its own in its place, to serve the accesses from the RTL's memory or to watch
//! them. Also here: global memory as separate allocations, and the generic address map with
//! its windows.

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

    /// The bytes from `address` to the end of its allocation, for a reader that does not
    /// know how many it needs (a NUL-terminated string); `None` outside every allocation.
    pub fn bytes_from(&self, address: u64) -> Option<&[u8]> {
        let r = &self.regions[self.region(address, 1)?];
        Some(&r.bytes[(address - r.base) as usize..])
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

/// One access of a thread: the space, the address within it (a generic address already
/// resolved through its window; a local address counts from the thread's local memory, its
/// frame added), and the thread (its index in the CTA), which picks its local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub space: Space,
    pub address: u64,
    pub thread: u32,
}

/// The memory system a warp instruction reaches. Accesses are aligned to their size (the
/// units check that first) and at most 32 bytes; an access outside a space's memory is an
/// `OutOfBounds` trap.
pub trait Memory {
    /// Reads `out.len()` bytes.
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause>;
    /// Writes `data`. Constant memory and parameters refuse writes.
    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause>;
    /// A CTA starts: `shared` bytes of shared memory and `threads` local memories of
    /// `local` bytes, all zero.
    fn start_cta(&mut self, shared: usize, threads: usize, local: usize);
}

/// The model's memories: global memory, the parameters (constant bank 0) and the module's
/// constants (bank 1), and the running CTA's shared memory and its threads' local memories.
pub struct Memories<'m> {
    pub global: &'m mut Global,
    pub params: &'m [u8],
    pub constants: &'m [u8],
    pub shared: Vec<u8>,
    /// Every thread's local memory, `local_size` bytes apiece, thread by thread.
    pub local: Vec<u8>,
    pub local_size: usize,
}

impl<'m> Memories<'m> {
    pub fn new(global: &'m mut Global, params: &'m [u8], constants: &'m [u8]) -> Memories<'m> {
        Memories {
            global,
            params,
            constants,
            shared: Vec::new(),
            local: Vec::new(),
            local_size: 0,
        }
    }

    /// Where an access to shared, local, constant or parameter memory starts in that
    /// space's bytes.
    fn place(&self, at: Access, len: usize) -> Result<usize, Cause> {
        let memory: &[u8] = match at.space {
            Space::Shared => &self.shared,
            Space::Constant => self.constants,
            Space::Param => self.params,
            // Global accesses go to `Global`, never here.
            Space::Global => return Err(outside(at.space, at.address, len)),
            Space::Local => {
                // The thread's own local memory: `local_size` bytes from its slot.
                let inside = at
                    .address
                    .checked_add(len as u64)
                    .is_some_and(|end| end <= self.local_size as u64);
                let start = at.thread as usize * self.local_size + at.address as usize;
                if !inside || start + len > self.local.len() {
                    return Err(outside(at.space, at.address, len));
                }
                return Ok(start);
            }
        };
        range(memory, at.space, at.address, len).map(|r| r.start)
    }
}

impl Memory for Memories<'_> {
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause> {
        if at.space == Space::Global {
            return Global::read(self.global, at.address, out);
        }
        let i = self.place(at, out.len())?;
        let memory: &[u8] = match at.space {
            Space::Shared => &self.shared,
            Space::Local => &self.local,
            Space::Constant => self.constants,
            _ => self.params,
        };
        out.copy_from_slice(&memory[i..i + out.len()]);
        Ok(())
    }

    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause> {
        match at.space {
            Space::Global => return Global::write(self.global, at.address, data),
            Space::Constant | Space::Param => {
                return Err(Cause::ConstantWrite {
                    address: at.address,
                })
            }
            Space::Shared | Space::Local => {}
        }
        let i = self.place(at, data.len())?;
        let memory = if at.space == Space::Shared {
            &mut self.shared
        } else {
            &mut self.local
        };
        memory[i..i + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn start_cta(&mut self, shared: usize, threads: usize, local: usize) {
        self.shared.clear();
        self.shared.resize(shared, 0);
        self.local.clear();
        self.local.resize(threads * local, 0);
        self.local_size = local;
    }
}

/// Global memory alone serves global accesses (the surface unit's, or a harness's); other
/// spaces are outside it.
impl Memory for Global {
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause> {
        match at.space {
            Space::Global => Global::read(self, at.address, out),
            space => Err(outside(space, at.address, out.len())),
        }
    }

    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause> {
        match at.space {
            Space::Global => Global::write(self, at.address, data),
            space => Err(outside(space, at.address, data.len())),
        }
    }

    fn start_cta(&mut self, _shared: usize, _threads: usize, _local: usize) {}
}
