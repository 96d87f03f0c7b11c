//! What one warp instruction did, as a lock-step checker compares it with the RTL: one
//! [`Retired`] per retired warp instruction, holding every architectural effect of it.
//!
//! The record is fixed-size and filled in place, so a step allocates nothing. Values the RTL
//! may legally produce differently (`%clock`) are flagged so a checker takes them from the RTL
//! instead of comparing them.

use crate::warp::LANES;
use sgpu_isa::Bred;

/// The most registers one instruction writes: a four-element surface load of 64-bit elements
/// (a word can encode it though PTX has no such form).
pub const MAX_REG_WRITES: usize = 8;
/// The most bytes one lane's store writes: a four-element surface store of 64-bit elements
/// (a word can encode it though PTX has no such form); PTX's widest are 16 (`ST.128`,
/// `sust.b.v4.b32`).
pub const MAX_STORE_BYTES: usize = 32;

/// One retired warp instruction and all it changed.
#[derive(Clone, Debug)]
pub struct Retired {
    pub pc: u32,
    pub word: u64,
    /// The warp's active lanes before the instruction.
    pub active: u32,
    /// The lanes that executed it: active, and their guard true.
    pub mask: u32,
    /// Where the warp goes next: the pc and active lanes of its reconvergence stack's top
    /// after the instruction; `None` once every lane has exited.
    pub next: Option<(u32, u32)>,
    /// Registers written, each in the lanes of `mask`.
    pub regs: RegWrites,
    /// Predicates written, with their value in every lane after the write (lanes outside
    /// `mask` keep their old bits).
    pub preds: [Option<(u8, u32)>; 2],
    /// The carry bits of all lanes after the instruction, when it wrote them (`.cc`).
    pub carry: Option<u32>,
    /// Memory written, at most one store per lane, in lane order (which is also the order in
    /// which a warp's atomics take effect).
    pub stores: [Store; LANES],
    pub store_count: usize,
    /// What the instruction did at a barrier, for `BAR` and `BARRED`.
    pub barrier: Option<BarrierEvent>,
    /// The registers hold a value the RTL may legally differ on (`%clock`, `%clock64`): a
    /// checker takes them from the RTL.
    pub nondeterministic: bool,
}

/// The registers an instruction wrote: `count` consecutive ones from `first`, with every
/// lane's value after the write.
#[derive(Clone, Debug, Default)]
pub struct RegWrites {
    pub first: u8,
    pub count: u8,
    pub values: [[u32; LANES]; MAX_REG_WRITES],
}

impl RegWrites {
    /// The written registers and their values, in register order.
    pub fn iter(&self) -> impl Iterator<Item = (u8, &[u32; LANES])> {
        (0..self.count).map(|k| (self.first.wrapping_add(k), &self.values[usize::from(k)]))
    }
}

/// One lane's store: where, and the bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Store {
    pub lane: u8,
    pub space: Space,
    /// The address within its space (a generic address already resolved to its window).
    pub address: u64,
    pub bytes: [u8; MAX_STORE_BYTES],
    pub len: u8,
}

impl Store {
    /// The bytes written, as a mask over the 32-byte aligned block holding the address
    /// (accesses are aligned to their size, so one store never straddles two blocks).
    pub fn byte_mask(&self) -> u32 {
        let first = (self.address % 32) as u32;
        let ones = if self.len >= 32 {
            u32::MAX
        } else {
            (1u32 << self.len) - 1
        };
        ones << first
    }

    pub fn data(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The memory spaces an access lands in, once a generic address is resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Space {
    #[default]
    Global,
    Shared,
    Local,
    /// Constant bank 1: the module's `.const` data.
    Constant,
    /// Constant bank 0: the kernel's parameters.
    Param,
}

/// A warp's arrival at a barrier, and what completing the barrier did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierEvent {
    pub id: u8,
    /// The warp waits (`.sync`, `.red`) rather than passing on (`.arrive`).
    pub waits: bool,
    /// The warps this arrival released by completing the barrier (0 while it is incomplete),
    /// this warp included when it waited.
    pub released: u32,
    /// A completed `BARRED` barrier's result, written to every released warp's `rd` (POPC)
    /// or `pd` (AND, OR) in the lanes that ran the `BARRED`.
    pub result: Option<(Bred, u32)>,
}

impl Default for Retired {
    fn default() -> Retired {
        Retired {
            pc: 0,
            word: 0,
            active: 0,
            mask: 0,
            next: None,
            regs: RegWrites::default(),
            preds: [None; 2],
            carry: None,
            stores: [Store::default(); LANES],
            store_count: 0,
            barrier: None,
            nondeterministic: false,
        }
    }
}

impl Retired {
    pub fn stores(&self) -> &[Store] {
        &self.stores[..self.store_count]
    }

    /// Clears what the last step recorded.
    pub(crate) fn reset(&mut self, pc: u32, word: u64, active: u32, mask: u32) {
        self.pc = pc;
        self.word = word;
        self.active = active;
        self.mask = mask;
        self.next = None;
        self.regs.count = 0;
        self.preds = [None; 2];
        self.carry = None;
        self.store_count = 0;
        self.barrier = None;
        self.nondeterministic = false;
    }

    /// Notes a store of `data` by `lane`.
    pub(crate) fn store(&mut self, lane: usize, space: Space, address: u64, data: &[u8]) {
        let mut bytes = [0u8; MAX_STORE_BYTES];
        bytes[..data.len()].copy_from_slice(data);
        self.stores[self.store_count] = Store {
            lane: lane as u8,
            space,
            address,
            bytes,
            len: data.len() as u8,
        };
        self.store_count += 1;
    }
}
