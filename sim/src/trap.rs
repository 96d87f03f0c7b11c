//! Why a kernel stopped early. The [`Cause`] is typed so that a lock-step checker can compare
//! it with the RTL's trap cause; [`Trap`] adds where it happened, for people.

use crate::record::Space;
use sgpu_isa::{DecodeError, Geom};
use std::fmt;

/// What went wrong. Each variant is one trap cause the hardware reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The pc names no instruction of the program.
    PcOutsideCode { pc: u32 },
    /// The word at the pc is no instruction.
    InvalidInstruction(DecodeError),
    /// `TRAP` ran.
    TrapInstruction,
    /// An access whose address is not a multiple of its size.
    Misaligned { address: u64, size: u8 },
    /// An access outside the memory of its space (global: outside every allocation).
    OutOfBounds {
        space: Space,
        address: u64,
        size: u8,
    },
    /// A store or atomic to constant memory.
    ConstantWrite { address: u64 },
    /// `LDC` from a constant bank that does not exist.
    NoConstantBank { bank: u8 },
    /// `RET` with no call to return from.
    RetOutsideCall,
    /// A divergent branch or a call needed more than [`crate::warp::STACK_DEPTH`] entries
    /// of the reconvergence stack.
    StackOverflow,
    /// `CALLR` to an address that is not a multiple of 8 or lies past every word index.
    CallTarget { address: u64 },
    /// A call moved a lane's frame past the end of its local memory.
    FrameOverflow { lane: u8, frame: u64 },
    /// A `.sync` warp operation whose member mask names lanes that are not executing it.
    SyncMembers { members: u32, executing: u32 },
    /// A barrier other than 0..=15.
    BarrierId { id: u32 },
    /// A barrier thread count that is not a positive multiple of the warp size.
    BarrierCount { count: u32 },
    /// Warps arrived at one barrier with different thread counts (or with and without a
    /// reduction), which PTX leaves undefined.
    BarrierMismatch { id: u8 },
    /// A surface access the surface unit refuses.
    Surface(Fault),
    /// The launch's instruction limit was reached.
    InstructionLimit { limit: u64 },
    /// The run was interrupted from outside (Ctrl-C): not the kernel's doing.
    Interrupted,
    /// Every warp left waits at a barrier that cannot complete.
    Deadlock,
    /// No kernel of that name.
    NoKernel(String),
    /// The launch asks for more than the hardware has (docs/hw.md); the message names the
    /// manifest key.
    Launch(String),
    /// A harness stepped a warp that cannot issue (exited, waiting at a barrier, or no such
    /// warp): its own error, not the kernel's.
    NotReady { warp: u32 },
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Cause::*;
        match self {
            PcOutsideCode { pc } => write!(
                f,
                "the program counter {:#x} is outside the code",
                u64::from(*pc) * 8
            ),
            InvalidInstruction(e) => write!(f, "an invalid instruction word: {e}"),
            TrapInstruction => f.write_str("trap instruction"),
            Misaligned { address, size } => {
                write!(f, "misaligned {size}-byte access at address {address:#x}")
            }
            OutOfBounds {
                space,
                address,
                size,
            } => write!(
                f,
                "{size}-byte {} access at {address:#x} is outside its memory",
                space_name(*space)
            ),
            ConstantWrite { address } => write!(f, "a store to constant memory at {address:#x}"),
            NoConstantBank { bank } => write!(f, "constant bank {bank} does not exist"),
            RetOutsideCall => f.write_str("RET outside a call"),
            StackOverflow => write!(
                f,
                "the reconvergence stack overflowed its {} entries",
                crate::warp::STACK_DEPTH
            ),
            CallTarget { address } => write!(
                f,
                "an indirect call to {address:#x}, which is no instruction's address"
            ),
            FrameOverflow { lane, frame } => write!(
                f,
                "a call moved lane {lane}'s frame to {frame:#x}, past its local memory"
            ),
            SyncMembers { members, executing } => write!(
                f,
                "warp-synchronous operation with member mask {members:#010x} run by lanes {executing:#010x}"
            ),
            BarrierId { id } => write!(f, "barrier {id} does not exist (0..=15)"),
            BarrierCount { count } => write!(
                f,
                "barrier thread count {count} is not a positive multiple of the warp size"
            ),
            BarrierMismatch { id } => write!(
                f,
                "warps arrived at barrier {id} with different thread counts or operations"
            ),
            Surface(fault) => write!(f, "{fault}"),
            InstructionLimit { limit } => write!(f, "ran past {limit} warp instructions"),
            Interrupted => f.write_str("interrupted"),
            Deadlock => f.write_str("no warp can make progress: every one waits at a barrier"),
            NoKernel(name) => write!(f, "no kernel `{name}` in the program"),
            Launch(why) => f.write_str(why),
            NotReady { warp } => write!(f, "warp {warp} cannot issue: exited, waiting, or absent"),
        }
    }
}

/// Why the surface unit refused an access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The handle names no descriptor of the table, or one not marked valid.
    Unbound { handle: u64 },
    /// The descriptor names no geometry or format sgpu has, or a zero dimension.
    BadDescriptor { handle: u64, why: &'static str },
    /// An instruction of one geometry on a surface of another.
    Geometry {
        handle: u64,
        access: Geom,
        surface: Geom,
    },
    /// A coordinate outside the surface, with `.trap`.
    OutOfBounds {
        handle: u64,
        coordinate: Axis,
        value: i64,
        max: i64,
    },
    /// An access that ends past the surface's data (slice x depth x layers bytes): a
    /// `.p` reduction wider than the element at the last one, or a descriptor whose pitch
    /// or slice is too small for its width or height.
    PastEnd { handle: u64 },
    /// The surface's base plus an offset passes 2^64.
    AddressOverflow { handle: u64 },
    /// `SULD.P`, which PTX does not have.
    FormattedLoad,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Unbound { handle } => write!(f, "surface {handle} is not bound"),
            Fault::BadDescriptor { handle, why } => {
                write!(f, "surface {handle}: a descriptor with {why}")
            }
            Fault::Geometry {
                handle,
                access,
                surface,
            } => write!(
                f,
                "a {access:?} access to surface {handle}, which is {surface:?}"
            ),
            Fault::OutOfBounds {
                handle,
                coordinate,
                value,
                max,
            } => write!(
                f,
                "surface {handle}: {coordinate} = {value} is out of bounds (0..={max})"
            ),
            Fault::PastEnd { handle } => write!(f, "surface {handle}: an access past its end"),
            Fault::AddressOverflow { handle } => {
                write!(f, "surface {handle}: its address overflows")
            }
            Fault::FormattedLoad => f.write_str("suld.p does not exist in PTX"),
        }
    }
}

/// A surface coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
    Layer,
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
            Axis::Layer => "layer",
        })
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Constant => "constant",
        Space::Param => "parameter",
    }
}

/// A kernel that stopped on an error: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    pub cause: Cause,
    /// The CTA and warp that trapped (zeros for a trap before any warp ran).
    pub cta: [u32; 3],
    pub warp: u32,
    /// The `%tid` of the thread whose own access trapped (an address or surface coordinate
    /// of its own); `None` when the warp as a whole did. A component is at most 1024
    /// (docs/hw.md): 16 bits hold it and keep a trap small enough to return by value.
    pub thread: Option<[u16; 3]>,
    /// `file.ptx:LINE` of the instruction.
    pub location: String,
    /// The instruction, as sgpu assembly.
    pub instruction: String,
    /// Every warp of the CTA when the run was stopped from outside (an instruction limit, an
    /// interrupt), to find where a kernel hangs; `None` for the kernel's own traps. Boxed:
    /// a trap is returned by value on every step's error path.
    pub stopped: Option<Box<Stopped>>,
}

/// Where the warps were when a run was stopped from outside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub warps: Vec<WarpState>,
}

/// Where one warp was when a run was stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpState {
    pub warp: u32,
    /// `running`, `waiting at barrier N` or `exited`.
    pub state: String,
    /// The byte address of its next instruction; `None` once exited.
    pub pc: Option<u64>,
    /// Its active lanes.
    pub active: u32,
    /// `file.ptx:LINE` and the sgpu assembly of the next instruction.
    pub location: String,
    pub instruction: String,
}

impl Trap {
    /// A trap before any warp ran: the launch itself is wrong.
    pub fn before_start(cause: Cause) -> Trap {
        Trap {
            cause,
            cta: [0; 3],
            warp: 0,
            thread: None,
            location: String::new(),
            instruction: String::new(),
            stopped: None,
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trap: ")?;
        if !self.location.is_empty() {
            write!(f, "{}: ", self.location)?;
        }
        if !self.instruction.is_empty() {
            write!(f, "{}: ", self.instruction)?;
        }
        let [x, y, z] = self.cta;
        write!(f, "{} (CTA ({x}, {y}, {z}), ", self.cause)?;
        match self.thread {
            Some([tx, ty, tz]) => write!(f, "thread ({tx}, {ty}, {tz}), warp {})", self.warp)?,
            None => write!(f, "warp {})", self.warp)?,
        }
        for w in self.stopped.iter().flat_map(|s| &s.warps) {
            write!(f, "\n  warp {}: {}", w.warp, w.state)?;
            if let Some(pc) = w.pc {
                write!(f, ", active {:#010x}, pc {pc:#x}", w.active)?;
            }
            if !w.location.is_empty() {
                write!(f, " at {}: {}", w.location, w.instruction)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cause prints, with the extreme values a random word can give, without
    /// overflowing.
    #[test]
    fn causes_print_at_their_extremes() {
        let causes = [
            Cause::PcOutsideCode { pc: u32::MAX },
            Cause::Misaligned {
                address: u64::MAX,
                size: 16,
            },
            Cause::OutOfBounds {
                space: Space::Param,
                address: u64::MAX,
                size: u8::MAX,
            },
            Cause::FrameOverflow {
                lane: 31,
                frame: u64::MAX,
            },
            Cause::BarrierId { id: u32::MAX },
            Cause::Surface(Fault::OutOfBounds {
                handle: u64::MAX,
                coordinate: Axis::X,
                value: i64::MIN,
                max: i64::MAX,
            }),
            Cause::InstructionLimit { limit: u64::MAX },
        ];
        let texts: Vec<String> = causes.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            texts[0],
            "the program counter 0x7fffffff8 is outside the code"
        );
        assert!(texts.iter().all(|t| !t.is_empty()));
    }
}
