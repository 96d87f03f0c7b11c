//! The memory unit: loads, stores, constant loads and atomics, with generic addresses
//! resolved through the windows (docs/isa.md). Lanes access memory in lane order, lowest
//! first; so do a warp's atomics to one address, which is the order the record lists them in.

use super::{Ctx, Exec, Flow};
use crate::lane;
use crate::memory::{Access, CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::record::{Retired, Space};
use crate::trap::Cause;
use crate::warp::{lanes, reg_at, Warp};
use sgpu_isa::{Aop, Aty, Msize, Op, Reg};

pub(super) fn exec(
    op: Op,
    w: &mut Warp,
    cx: &mut Ctx<'_>,
    x: Exec,
    out: &mut Retired,
) -> Result<Flow, Cause> {
    let mask = x.mask;
    match op {
        Op::Ld {
            rd,
            ra,
            off24,
            space,
            msize,
            e,
            labs,
            ..
        } => {
            let n = bytes(msize);
            let at = Addressing {
                space,
                absolute: labs,
            };
            for l in lanes(mask) {
                let address = effective(w, ra, e, off24, l);
                let data = read(w, cx, l, at, address, n).map_err(|c| cx.lane_fault(l, c))?;
                store_reg(w, rd, l, &data[..n], msize);
            }
        }
        Op::St {
            ra,
            off24,
            rd,
            space,
            msize,
            e,
            labs,
            ..
        } => {
            let n = bytes(msize);
            let at = Addressing {
                space,
                absolute: labs,
            };
            for l in lanes(mask) {
                let address = effective(w, ra, e, off24, l);
                let data = reg_bytes(w, rd, l, n);
                write(w, cx, out, l, at, address, &data[..n]).map_err(|c| cx.lane_fault(l, c))?;
            }
        }
        Op::Ldc {
            rd,
            cbank,
            ra,
            off24,
            msize,
        } => {
            let n = bytes(msize);
            let space = match cbank {
                0 => Space::Param,
                1 => Space::Constant,
                bank if mask != 0 => return Err(Cause::NoConstantBank { bank }),
                _ => return Ok(Flow::Next),
            };
            for l in lanes(mask) {
                let address = u64::from(w.r(ra, l).wrapping_add(off24 as u32));
                aligned(address, n).map_err(|c| cx.lane_fault(l, c))?;
                let at = Access {
                    space,
                    address,
                    thread: w.thread(l),
                };
                let mut buf = [0u8; 16];
                cx.memory
                    .read(at, &mut buf[..n])
                    .map_err(|c| cx.lane_fault(l, c))?;
                store_reg(w, rd, l, &buf[..n], msize);
            }
        }
        Op::Atom {
            rd,
            ra,
            rb,
            rc,
            aop,
            aty,
            space,
            e,
        } => {
            let wide = matches!(aty, Aty::U64 | Aty::S64 | Aty::B64);
            for l in lanes(mask) {
                let address = effective(w, ra, e, 0, l);
                let (b, c) = (w.r64(rb, l), w.r64(rc, l));
                let old = atomic(w, cx, out, l, space, address, (aop, aty), b, c)
                    .map_err(|c| cx.lane_fault(l, c))?;
                if wide {
                    w.w64(rd, l, old);
                } else {
                    w.w(rd, l, old as u32);
                }
            }
        }
        Op::Red {
            ra,
            rb,
            aop,
            aty,
            space,
            e,
        } => {
            for l in lanes(mask) {
                let address = effective(w, ra, e, 0, l);
                let b = w.r64(rb, l);
                atomic(w, cx, out, l, space, address, (aop, aty), b, 0)
                    .map_err(|c| cx.lane_fault(l, c))?;
            }
        }
        _ => unreachable!("exec::step gives the memory unit only memory instructions"),
    }
    Ok(Flow::Next)
}

fn bytes(m: Msize) -> usize {
    m.bytes() as usize
}

/// A lane's address (docs/isa.md, "Addresses"): without `e` a 32-bit address, the register
/// plus the offset modulo 2^32, as PTX adds a 32-bit address register and its offset (so an
/// offset folded into the register, or out of it, changes nothing); with `e` the register
/// pair plus the offset, wrapping at 2^64 as an adder of that width does.
fn effective(w: &Warp, ra: Reg, e: bool, off: i32, l: usize) -> u64 {
    if e {
        w.r64(ra, l).wrapping_add(off as i64 as u64)
    } else {
        u64::from(w.r(ra, l).wrapping_add(off as u32))
    }
}

/// How an instruction addresses memory: its space, and whether a local address is the
/// thread's local memory offset (`ABS`) rather than one in the running function's frame.
#[derive(Clone, Copy)]
struct Addressing {
    space: sgpu_isa::Space,
    absolute: bool,
}

/// The space and offset an address lands in, and whether a local one is in the running
/// frame: a generic address in the local window is absolute.
fn resolve(at: Addressing, address: u64) -> (Space, u64, bool) {
    use sgpu_isa::Space as S;
    match at.space {
        S::Generic => {
            let window = |base: u64| address >= base && address < base + WINDOW_SIZE;
            if window(SHARED_WINDOW) {
                (Space::Shared, address - SHARED_WINDOW, false)
            } else if window(LOCAL_WINDOW) {
                (Space::Local, address - LOCAL_WINDOW, false)
            } else if window(CONST_WINDOW) {
                (Space::Constant, address - CONST_WINDOW, false)
            } else {
                (Space::Global, address, false)
            }
        }
        S::Global => (Space::Global, address, false),
        S::Shared => (Space::Shared, address, false),
        // `.param` of device functions and calls lives in the frame.
        S::Local | S::Param => (Space::Local, address, !at.absolute),
    }
}

fn aligned(address: u64, n: usize) -> Result<(), Cause> {
    if !address.is_multiple_of(n as u64) {
        return Err(Cause::Misaligned {
            address,
            size: n as u8,
        });
    }
    Ok(())
}

/// Lane `l`'s access at `address`, as the memory system takes it: generic addresses
/// resolved through their windows, frame-relative local ones moved by the lane's frame.
fn access(w: &Warp, l: usize, how: Addressing, address: u64, n: usize) -> Result<Access, Cause> {
    let (space, at, in_frame) = resolve(how, address);
    aligned(address, n)?;
    if space == Space::Local {
        return w.local_access(l, at, n, in_frame);
    }
    Ok(Access {
        space,
        address: at,
        thread: w.thread(l),
    })
}

/// Reads `n` (at most 16) bytes; the result is the first `n` of the buffer.
fn read(
    w: &Warp,
    cx: &mut Ctx<'_>,
    l: usize,
    how: Addressing,
    address: u64,
    n: usize,
) -> Result<[u8; 16], Cause> {
    let at = access(w, l, how, address, n)?;
    let mut buf = [0u8; 16];
    cx.memory.read(at, &mut buf[..n])?;
    Ok(buf)
}

/// Writes lane `l`'s bytes and notes the store in the record.
fn write(
    w: &Warp,
    cx: &mut Ctx<'_>,
    out: &mut Retired,
    l: usize,
    how: Addressing,
    address: u64,
    data: &[u8],
) -> Result<(), Cause> {
    let at = access(w, l, how, address, data.len())?;
    cx.memory.write(at, data)?;
    out.store(l, at.space, at.address, data);
    Ok(())
}

/// Loaded bytes into registers: 8- and 16-bit values extended by the size's sign.
fn store_reg(w: &mut Warp, rd: Reg, l: usize, data: &[u8], m: Msize) {
    let v32 = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    match m {
        Msize::U8 => w.w(rd, l, u32::from(data[0])),
        Msize::S8 => w.w(rd, l, data[0] as i8 as i32 as u32),
        Msize::U16 => w.w(rd, l, u32::from(u16::from_le_bytes([data[0], data[1]]))),
        Msize::S16 => w.w(rd, l, i16::from_le_bytes([data[0], data[1]]) as i32 as u32),
        _ => {
            for k in 0..data.len() / 4 {
                w.w(reg_at(rd, k as u8), l, v32(4 * k));
            }
        }
    }
}

fn reg_bytes(w: &Warp, rd: Reg, l: usize, n: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    for k in 0..n.div_ceil(4) {
        out[4 * k..4 * k + 4].copy_from_slice(&w.r(reg_at(rd, k as u8), l).to_le_bytes());
    }
    out
}

/// An atomic read-modify-write by lane `l`; returns the old value.
#[allow(clippy::too_many_arguments)]
fn atomic(
    w: &mut Warp,
    cx: &mut Ctx<'_>,
    out: &mut Retired,
    l: usize,
    space: sgpu_isa::Space,
    address: u64,
    (aop, aty): (Aop, Aty),
    b: u64,
    c: u64,
) -> Result<u64, Cause> {
    let n = match aty {
        Aty::U64 | Aty::S64 | Aty::B64 => 8,
        Aty::F16 | Aty::Bf16 => 2,
        _ => 4,
    };
    let how = Addressing {
        space,
        absolute: false,
    };
    let old_bytes = read(w, cx, l, how, address, n)?;
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(&old_bytes[..n]);
    let old = u64::from_le_bytes(buf);
    let new = lane::atom(old, b, c, aop, aty, n);
    write(w, cx, out, l, how, address, &new.to_le_bytes()[..n])?;
    Ok(old)
}
