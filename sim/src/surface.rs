//! The surface unit: surfaces of every geometry and format, and what suld, sust, sured and
//! suq do to them, made exact (issue 4; shared/spec/ptx/surface-instructions.txt).
//!
//! The unit finds a surface as the RTL will (docs/hw.md): a handle indexes the descriptor
//! table in global memory, the descriptor's words give the surface's base, pitches,
//! dimensions and format, and the data is read and written through global memory. Element
//! (x, y, z, layer) is at byte `(layer + z) * slice + y * pitch + x * esize` from the base
//! (a surface has depth or layers, never both), esize being channels times channel bytes.
//! `.b` forms address x in bytes, `.p` forms in elements.

use crate::float;
use crate::memory::{Access, Memory};
use crate::record::{Retired, Space, MAX_STORE_BYTES};
use crate::trap::{Axis, Cause, Fault};
use crate::warp::Warp;
use sgpu_isa::{abi, Dsize, Geom, Query, Reg, Rnd, Sclamp, Sop, Sty, Surface as Operand, Vwidth};

/// How a channel is stored; the discriminants are the descriptor's `surf.kind` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Uint = abi::SURF_KIND_UINT as isize,
    Sint = abi::SURF_KIND_SINT as isize,
    Unorm = abi::SURF_KIND_UNORM as isize,
    Snorm = abi::SURF_KIND_SNORM as isize,
    Float = abi::SURF_KIND_FLOAT as isize,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Uint,
        Kind::Sint,
        Kind::Unorm,
        Kind::Snorm,
        Kind::Float,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub channels: u32,
    /// Bytes per channel: 1, 2 or 4.
    pub bytes: u32,
    pub kind: Kind,
}

impl Format {
    /// A format sgpu has: 1, 2 or 4 channels of a size the kind comes in.
    fn new(channels: u32, bytes: u32, kind: Kind) -> Option<Format> {
        let sizes: &[u32] = match kind {
            Kind::Uint | Kind::Sint => &[1, 2, 4],
            Kind::Unorm | Kind::Snorm => &[1, 2],
            Kind::Float => &[2, 4],
        };
        (matches!(channels, 1 | 2 | 4) && sizes.contains(&bytes)).then_some(Format {
            channels,
            bytes,
            kind,
        })
    }

    /// The PTX type of one channel as stored: `u8` for `rgba8_unorm`, `f16` for
    /// `r16_float`, `s32` for `rg32_sint`.
    pub fn channel_type(self) -> &'static str {
        match (self.kind, self.bytes) {
            (Kind::Uint | Kind::Unorm, 1) => "u8",
            (Kind::Uint | Kind::Unorm, 2) => "u16",
            (Kind::Sint | Kind::Snorm, 1) => "s8",
            (Kind::Sint | Kind::Snorm, 2) => "s16",
            (Kind::Sint, _) => "s32",
            (Kind::Float, 2) => "f16",
            (Kind::Float, _) => "f32",
            _ => "u32",
        }
    }

    /// `rgba8_unorm`, `r32_uint`, `rg16_float`, ...
    pub fn parse(name: &str) -> Option<Format> {
        let (head, kind) = name.split_once('_')?;
        let digits = head.find(|c: char| c.is_ascii_digit())?;
        let channels = match &head[..digits] {
            "r" => 1,
            "rg" => 2,
            "rgba" => 4,
            _ => return None,
        };
        let bits: u32 = head[digits..].parse().ok()?;
        let kind = match kind {
            "uint" => Kind::Uint,
            "sint" => Kind::Sint,
            "unorm" => Kind::Unorm,
            "snorm" => Kind::Snorm,
            "float" => Kind::Float,
            _ => return None,
        };
        if !bits.is_multiple_of(8) {
            return None;
        }
        Format::new(channels, bits / 8, kind)
    }

    pub fn esize(self) -> u32 {
        self.channels * self.bytes
    }

    /// OpenCL's channel data type enumeration, as suq reports it.
    fn cl_data_type(self) -> u32 {
        match (self.kind, self.bytes) {
            (Kind::Snorm, 1) => 0x10D0,
            (Kind::Snorm, _) => 0x10D1,
            (Kind::Unorm, 1) => 0x10D2,
            (Kind::Unorm, _) => 0x10D3,
            (Kind::Sint, 1) => 0x10D7,
            (Kind::Sint, 2) => 0x10D8,
            (Kind::Sint, _) => 0x10D9,
            (Kind::Uint, 1) => 0x10DA,
            (Kind::Uint, 2) => 0x10DB,
            (Kind::Uint, _) => 0x10DC,
            (Kind::Float, 2) => 0x10DD,
            (Kind::Float, _) => 0x10DE,
        }
    }

    fn cl_order(self) -> u32 {
        match self.channels {
            1 => 0x10B0,
            2 => 0x10B2,
            _ => 0x10B5,
        }
    }
}

/// A surface as its descriptor in memory describes it (docs/hw.md). Height, depth and layers
/// are 1 where the geometry has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Address of element (0, 0, 0, 0) in global memory.
    pub base: u64,
    /// Bytes from one row to the next.
    pub pitch: u32,
    /// Bytes from one depth slice or layer to the next.
    pub slice: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub layers: u32,
    pub geom: Geom,
    pub format: Format,
}

impl Descriptor {
    /// A tightly packed surface at `base` (pitch width x element size, slice pitch x
    /// height), its dimensions as given (only those of its geometry count). A dimension over
    /// its member's 16 bits, or a slice over 32 bits, is an error naming it.
    pub fn packed(
        base: u64,
        geom: Geom,
        [width, height, depth, layers]: [u32; 4],
        format: Format,
    ) -> Result<Descriptor, String> {
        let (height, depth, layers) = match geom {
            Geom::D1 => (1, 1, 1),
            Geom::D2 => (height, 1, 1),
            Geom::D3 => (height, depth, 1),
            Geom::A1d => (1, 1, layers),
            Geom::A2d => (height, 1, layers),
        };
        let members = [
            (abi::SURF_WIDTH, width, "width"),
            (abi::SURF_HEIGHT, height, "height"),
            (abi::SURF_DEPTH, depth, "depth"),
            (abi::SURF_LAYERS, layers, "layers"),
        ];
        for (member, value, key) in members {
            if value > member.max() {
                return Err(format!("`{key}` {value} is more than {}", member.max()));
            }
        }
        let pitch = u64::from(width) * u64::from(format.esize());
        let slice = pitch * u64::from(height);
        let slice = u32::try_from(slice).map_err(|_| {
            format!("a slice of {slice} bytes (width x height x element size) is more than the descriptor's 32 bits hold")
        })?;
        Ok(Descriptor {
            base,
            pitch: pitch as u32,
            slice,
            width,
            height,
            depth,
            layers,
            geom,
            format,
        })
    }

    /// Bytes from the first element to the end of the last slice.
    pub fn bytes(&self) -> u64 {
        u64::from(self.slice) * u64::from(self.depth) * u64::from(self.layers)
    }

    /// The descriptor's words, as the surface unit reads them.
    pub fn words(&self) -> Result<[u32; abi::SURF_WORDS], String> {
        let log2 = |n: u32| n.trailing_zeros();
        let f = self.format;
        let mut w = [0; abi::SURF_WORDS];
        let members = [
            (abi::SURF_BASE_LO, self.base as u32),
            (abi::SURF_BASE_HI, (self.base >> 32) as u32),
            (abi::SURF_PITCH, self.pitch),
            (abi::SURF_SLICE, self.slice),
            (abi::SURF_WIDTH, self.width),
            (abi::SURF_HEIGHT, self.height),
            (abi::SURF_DEPTH, self.depth),
            (abi::SURF_LAYERS, self.layers),
            (abi::SURF_GEOM, self.geom as u32),
            (abi::SURF_CHANNELS, log2(f.channels)),
            (abi::SURF_BYTES, log2(f.bytes)),
            (abi::SURF_KIND, f.kind as u32),
            (abi::SURF_VALID, 1),
        ];
        for (member, value) in members {
            member.put(&mut w, value)?;
        }
        Ok(w)
    }

    /// Reads descriptor words: `None` for a descriptor not marked valid, an error for one
    /// that names no geometry or format sgpu has, a zero dimension, or a dimension its
    /// geometry has not (height, depth or layers) other than 1. So a surface has depth or
    /// layers, never both, and its bytes are slice x (depth or layers): the surface unit
    /// needs no multiplier for them.
    pub fn decode(w: &[u32; abi::SURF_WORDS]) -> Result<Option<Descriptor>, &'static str> {
        if abi::SURF_VALID.get(w) == 0 {
            return Ok(None);
        }
        let bad = |what: &'static str| what;
        let geom =
            Geom::from_bits(abi::SURF_GEOM.get(w).into()).ok_or_else(|| bad("no geometry"))?;
        let kind = *Kind::ALL
            .get(abi::SURF_KIND.get(w) as usize)
            .ok_or_else(|| bad("no channel kind"))?;
        let format = Format::new(
            1 << abi::SURF_CHANNELS.get(w),
            1 << abi::SURF_BYTES.get(w),
            kind,
        )
        .ok_or_else(|| bad("no format sgpu has"))?;
        let d = Descriptor {
            base: u64::from(abi::SURF_BASE_LO.get(w)) | u64::from(abi::SURF_BASE_HI.get(w)) << 32,
            pitch: abi::SURF_PITCH.get(w),
            slice: abi::SURF_SLICE.get(w),
            width: abi::SURF_WIDTH.get(w),
            height: abi::SURF_HEIGHT.get(w),
            depth: abi::SURF_DEPTH.get(w),
            layers: abi::SURF_LAYERS.get(w),
            geom,
            format,
        };
        if [d.width, d.height, d.depth, d.layers].contains(&0) {
            return Err(bad("a zero dimension"));
        }
        let (has_height, has_depth, has_layers) = match geom {
            Geom::D1 => (false, false, false),
            Geom::D2 => (true, false, false),
            Geom::D3 => (true, true, false),
            Geom::A1d => (false, false, true),
            Geom::A2d => (true, false, true),
        };
        let absent = [
            (has_height, d.height),
            (has_depth, d.depth),
            (has_layers, d.layers),
        ];
        if absent.iter().any(|&(has, n)| !has && n != 1) {
            return Err(bad("a dimension its geometry has not"));
        }
        Ok(Some(d))
    }
}

/// A bound surface, as the host placed it: its name (for messages and `--dump`) and the
/// address of its data.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub data: u64,
}

/// The surfaces of a launch: the descriptor table in global memory, which the surface unit
/// reads (a handle is an index into it, docs/adr/0002-surface-handles.md), and the host's
/// record of what it bound at each handle.
#[derive(Clone, Debug, Default)]
pub struct Surfaces {
    /// Address of the descriptor table (the launch record's `surf_lo`/`surf_hi`).
    pub table: u64,
    /// Per handle, what is bound there; as many as the table has descriptors.
    pub bound: Vec<Option<Binding>>,
}

/// The handle an instruction names: a descriptor slot, or a 64-bit handle in registers.
pub fn target(w: &Warp, s: Operand, lane: usize) -> u64 {
    match s {
        Operand::Slot(n) => u64::from(n),
        Operand::Handle(r) => w.r64(r, lane),
    }
}

/// Registers a load of `vec` elements of `dsize` writes.
pub fn data_registers(vec: Vwidth, dsize: Dsize) -> u8 {
    elements(vec) as u8 * if dsize == Dsize::B64 { 2 } else { 1 }
}

/// Bytes a `.b` load or store of `vec` elements of `dsize` moves.
pub fn vector_bytes(vec: Vwidth, dsize: Dsize) -> u32 {
    elements(vec) * dsize_bytes(dsize)
}

/// Bytes a reduction of type `ty` reads and writes: 8 for the 64-bit types, else 4.
pub fn reduce_bytes(ty: Sty) -> u32 {
    if matches!(ty, Sty::U64 | Sty::S64 | Sty::B64) {
        8
    } else {
        4
    }
}

/// Whether a reduction's min and max compare as signed: `.s32` and `.s64`, and `.b32` and
/// `.b64` on a surface of sint channels.
pub fn reduce_signed(ty: Sty, f: Format) -> bool {
    match ty {
        Sty::S32 | Sty::S64 => true,
        Sty::B32 | Sty::B64 => f.kind == Kind::Sint,
        _ => false,
    }
}

/// Elements of a vector access: 1, 2 or 4.
pub fn elements(vec: Vwidth) -> u32 {
    match vec {
        Vwidth::V1 => 1,
        Vwidth::V2 => 2,
        Vwidth::V4 => 4,
    }
}

fn dsize_bytes(d: Dsize) -> u32 {
    match d {
        Dsize::B8 => 1,
        Dsize::B16 => 2,
        Dsize::B32 => 4,
        Dsize::B64 => 8,
    }
}

/// One lane's access as the surface unit sees it once it holds the descriptor: the
/// instruction's geometry, addressing and clamp mode, the coordinate registers from `ra` in
/// PTX's order (1d {x}, 2d {x, y}, 3d {x, y, z, w}, a1d {layer, x}, a2d {layer, x, y, z};
/// those the geometry has not are ignored) and the bytes it reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub geom: Geom,
    /// `.p`: x counts elements; else (`.b`) bytes.
    pub elements: bool,
    pub coords: [u32; 4],
    /// Bytes the access reads or writes: the vector's bytes for `.b`, the element for
    /// `sust.p`, 4 or 8 for `sured`. Always a power of two.
    pub size: u32,
    pub clamp: Sclamp,
}

impl Descriptor {
    /// The global address of an access, or `None` where `.zero` drops it. The checks, in the
    /// order the unit makes them (docs/hw.md, "Surfaces"): the geometry, each coordinate's
    /// bounds (x, y, z, layer), the access's end within the surface's bytes, the address's
    /// 64 bits, and its alignment to the access size.
    pub fn locate(&self, handle: u64, r: &Request) -> Result<Option<u64>, Cause> {
        let fault = |f: Fault| Err(Cause::Surface(f));
        if r.geom != self.geom {
            return fault(Fault::Geometry {
                handle,
                access: r.geom,
                surface: self.geom,
            });
        }
        let c = |i: usize| r.coords[i] as i32 as i64;
        let (layer, x, y, z) = match r.geom {
            Geom::D1 => (0, c(0), 0, 0),
            Geom::D2 => (0, c(0), c(1), 0),
            Geom::D3 => (0, c(0), c(1), c(2)),
            Geom::A1d => (c(0), c(1), 0, 0),
            Geom::A2d => (c(0), c(1), c(2), 0),
        };
        let esize = i64::from(self.format.esize());
        // x's range: bytes 0..=width*esize-size for .b, elements 0..width for .p.
        let x_max = if r.elements {
            i64::from(self.width) - 1
        } else {
            i64::from(self.width) * esize - i64::from(r.size)
        };
        let coords = [
            (x, x_max, Axis::X),
            (y, i64::from(self.height) - 1, Axis::Y),
            (z, i64::from(self.depth) - 1, Axis::Z),
            (layer, i64::from(self.layers) - 1, Axis::Layer),
        ];
        let mut fixed = [0u64; 4];
        for (k, (v, max, name)) in coords.into_iter().enumerate() {
            let inside = (0..=max).contains(&v);
            fixed[k] = match r.clamp {
                _ if inside => v as u64,
                Sclamp::Trap => {
                    return fault(Fault::OutOfBounds {
                        handle,
                        coordinate: name,
                        value: v,
                        max,
                    })
                }
                Sclamp::Zero => return Ok(None),
                // A .b access wider than the row clamps to x 0 (max is negative).
                Sclamp::Clamp => v.clamp(0, max.max(0)) as u64,
            };
        }
        // Every coordinate is now in 0..=max, so the sum is far below 2^64: slices and rows
        // are under 2^16 and pitches under 2^32.
        let [x, y, z, layer] = fixed;
        let x_bytes = if r.elements { x * esize as u64 } else { x };
        let offset = (layer + z) * u64::from(self.slice) + y * u64::from(self.pitch) + x_bytes;
        if offset + u64::from(r.size) > self.bytes() {
            return fault(Fault::PastEnd { handle });
        }
        let Some(address) = self.base.checked_add(offset) else {
            return fault(Fault::AddressOverflow { handle });
        };
        if address % u64::from(r.size) != 0 {
            return Err(Cause::Misaligned {
                address,
                size: r.size as u8,
            });
        }
        Ok(Some(address))
    }

    /// What `suq` answers.
    pub fn query(&self, q: Query) -> u32 {
        let arrayed = matches!(self.geom, Geom::A1d | Geom::A2d);
        match q {
            Query::Width => self.width,
            Query::Height => self.height,
            Query::Depth => self.depth,
            Query::ChannelDataType => self.format.cl_data_type(),
            Query::ChannelOrder => self.format.cl_order(),
            Query::ArraySize if arrayed => self.layers,
            Query::ArraySize => 0,
            Query::MemoryLayout => 1,
        }
    }
}

/// A surface unit access to global memory (descriptors and data).
fn global(address: u64) -> Access {
    Access {
        space: Space::Global,
        address,
        thread: 0,
    }
}

/// The coordinate registers of a lane's access, from `ra` (those past the geometry's count
/// read as 0: the instruction does not name them).
fn coords(w: &Warp, lane: usize, ra: Reg, geom: Geom) -> [u32; 4] {
    let n = match geom {
        Geom::D1 => 1,
        Geom::D2 | Geom::A1d => 2,
        Geom::D3 | Geom::A2d => 4,
    };
    std::array::from_fn(|i| {
        if i < n {
            w.r(crate::warp::reg_at(ra, i as u8), lane)
        } else {
            0
        }
    })
}

impl Surfaces {
    /// Reads handle `handle`'s descriptor from the table, as the surface unit does.
    fn find(&self, mem: &mut dyn Memory, handle: u64) -> Result<Descriptor, Cause> {
        let unbound = || Cause::Surface(Fault::Unbound { handle });
        // A handle past the table's end is not bound (the table's length is in the launch
        // record).
        if usize::try_from(handle).map_or(true, |i| i >= self.bound.len()) {
            return Err(unbound());
        }
        let mut bytes = [0u8; abi::SURF_WORDS * 4];
        let at = self.table + handle * bytes.len() as u64;
        mem.read(global(at), &mut bytes)?;
        let words = std::array::from_fn(|i| {
            u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("four bytes"))
        });
        Descriptor::decode(&words)
            .map_err(|why| Cause::Surface(Fault::BadDescriptor { handle, why }))?
            .ok_or_else(unbound)
    }

    /// Finds the surface and places a lane's access on it: its global address, or `None`
    /// where `.zero` drops it.
    #[allow(clippy::too_many_arguments)]
    fn locate(
        &self,
        mem: &mut dyn Memory,
        w: &Warp,
        lane: usize,
        handle: u64,
        ra: Reg,
        geom: Geom,
        elements: bool,
        size: impl FnOnce(&Descriptor) -> u32,
        clamp: Sclamp,
    ) -> Result<(Descriptor, Option<u64>), Cause> {
        let d = self.find(mem, handle)?;
        let r = Request {
            geom,
            elements,
            coords: coords(w, lane, ra, geom),
            size: size(&d),
            clamp,
        };
        Ok((d, d.locate(handle, &r)?))
    }

    /// suld: `.b` reads raw bytes into one register per element (a pair for `.b64`).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &self,
        mem: &mut dyn Memory,
        w: &mut Warp,
        lane: usize,
        handle: u64,
        rd: Reg,
        ra: Reg,
        p: bool,
        geom: Geom,
        vec: Vwidth,
        dsize: Dsize,
        clamp: Sclamp,
    ) -> Result<(), Cause> {
        if p {
            return Err(Cause::Surface(Fault::FormattedLoad));
        }
        let (n, eb) = (elements(vec), dsize_bytes(dsize));
        let size = |_: &Descriptor| vector_bytes(vec, dsize);
        let (_, at) = self.locate(mem, w, lane, handle, ra, geom, false, size, clamp)?;
        let mut data = [0u8; MAX_STORE_BYTES];
        let bytes = &mut data[..(n * eb) as usize];
        if let Some(at) = at {
            mem.read(global(at), bytes)?;
        }
        for (i, element) in bytes.chunks(eb as usize).enumerate() {
            let mut buf = [0u8; 8];
            buf[..element.len()].copy_from_slice(element);
            let value = u64::from_le_bytes(buf);
            let r = crate::warp::reg_at(rd, (i * if eb == 8 { 2 } else { 1 }) as u8);
            if eb == 8 {
                w.w64(r, lane, value);
            } else {
                w.w(r, lane, value as u32);
            }
        }
        Ok(())
    }

    /// sust: `.b` writes raw bytes; `.p` converts the components to the format.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        mem: &mut dyn Memory,
        out: &mut Retired,
        w: &mut Warp,
        lane: usize,
        handle: u64,
        rc: Reg,
        ra: Reg,
        p: bool,
        geom: Geom,
        vec: Vwidth,
        dsize: Dsize,
        clamp: Sclamp,
    ) -> Result<(), Cause> {
        let (n, eb) = (elements(vec), dsize_bytes(dsize));
        let size = |d: &Descriptor| {
            if p {
                d.format.esize()
            } else {
                vector_bytes(vec, dsize)
            }
        };
        let (d, at) = self.locate(mem, w, lane, handle, ra, geom, p, size, clamp)?;
        let Some(at) = at else { return Ok(()) };
        let data = if p {
            // Only the registers the vector names are read.
            let components = std::array::from_fn(|ch| {
                let ch = ch as u8;
                if u32::from(ch) < n {
                    w.r(crate::warp::reg_at(rc, ch), lane)
                } else {
                    0
                }
            });
            pack(components, n, d.format)
        } else {
            let mut data = [0u8; MAX_STORE_BYTES];
            for i in 0..n {
                let r = crate::warp::reg_at(rc, (i * if eb == 8 { 2 } else { 1 }) as u8);
                let v = if eb == 8 {
                    w.r64(r, lane)
                } else {
                    u64::from(w.r(r, lane))
                };
                let from = (i * eb) as usize;
                data[from..from + eb as usize].copy_from_slice(&v.to_le_bytes()[..eb as usize]);
            }
            data
        };
        let data = &data[..size(&d) as usize];
        mem.write(global(at), data)?;
        out.store(lane, Space::Global, at, data);
        Ok(())
    }

    /// sured: an atomic reduction (the model runs one lane at a time, so each is atomic).
    #[allow(clippy::too_many_arguments)]
    pub fn reduce(
        &self,
        mem: &mut dyn Memory,
        out: &mut Retired,
        w: &mut Warp,
        lane: usize,
        handle: u64,
        rc: Reg,
        ra: Reg,
        p: bool,
        op: Sop,
        geom: Geom,
        ty: Sty,
        clamp: Sclamp,
    ) -> Result<(), Cause> {
        let n = reduce_bytes(ty);
        let wide = n == 8;
        let (d, at) = self.locate(mem, w, lane, handle, ra, geom, p, |_| n, clamp)?;
        let Some(at) = at else { return Ok(()) };
        let signed = reduce_signed(ty, d.format);
        let mut buf = [0u8; 8];
        mem.read(global(at), &mut buf[..n as usize])?;
        let b = if wide {
            w.r64(rc, lane)
        } else {
            u64::from(w.r(rc, lane))
        };
        let new = combine(op, signed, wide, u64::from_le_bytes(buf), b);
        let data = &new.to_le_bytes()[..n as usize];
        mem.write(global(at), data)?;
        out.store(lane, Space::Global, at, data);
        Ok(())
    }

    pub fn query(&self, mem: &mut dyn Memory, handle: u64, q: Query) -> Result<u32, Cause> {
        Ok(self.find(mem, handle)?.query(q))
    }
}

/// sured's new value from the old one in memory and the operand `b`, on 4 or 8 bytes
/// (`wide`); min and max compare as signed where `signed`.
pub fn combine(op: Sop, signed: bool, wide: bool, old: u64, b: u64) -> u64 {
    let sx = |v: u64| {
        if wide {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let new = match op {
        Sop::Add => old.wrapping_add(b),
        Sop::Min if signed => std::cmp::min_by_key(old, b, |&v| sx(v)),
        Sop::Max if signed => std::cmp::max_by_key(b, old, |&v| sx(v)),
        Sop::Min => old.min(b),
        Sop::Max => old.max(b),
        Sop::And => old & b,
        Sop::Or => old | b,
    };
    if wide {
        new
    } else {
        new & 0xffff_ffff
    }
}

/// `sust.p`'s element: each channel's component in the format's encoding, little-endian,
/// channel 0 first; a channel past the `given` components the vector has is written as 0,
/// and bytes past the element's are 0.
pub fn pack(components: [u32; 4], given: u32, f: Format) -> [u8; MAX_STORE_BYTES] {
    let mut element = [0u8; MAX_STORE_BYTES];
    let components: [u32; 4] = std::array::from_fn(|ch| {
        if (ch as u32) < given {
            components[ch]
        } else {
            0
        }
    });
    let b = f.bytes as usize;
    for (slot, &v) in element
        .chunks_mut(b)
        .zip(&components[..f.channels as usize])
    {
        slot.copy_from_slice(&encode(v, f)[..b]);
    }
    element
}

/// A `sust.p` component in the format's channel encoding (little-endian bytes).
fn encode(v: u32, f: Format) -> [u8; 4] {
    let bits = f.bytes * 8;
    let x = f32::from_bits(v);
    let raw: u32 = match f.kind {
        // u32 data saturated to the channel width.
        Kind::Uint => {
            if bits == 32 {
                v
            } else {
                v.min((1u32 << bits) - 1)
            }
        }
        Kind::Sint => {
            if bits == 32 {
                v
            } else {
                let lim = 1i32 << (bits - 1);
                (v as i32).clamp(-lim, lim - 1) as u32 & ((1u32 << bits) - 1)
            }
        }
        // unorm: clamp to [0, 1], scale, round to nearest even.
        Kind::Unorm => {
            let c = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            (f64::from(c) * f64::from((1u32 << bits) - 1)).round_ties_even() as u32
        }
        // snorm: clamp to [-1, 1], scale by 127 or 32767, round to nearest even.
        Kind::Snorm => {
            let c = if x.is_nan() { 0.0 } else { x.clamp(-1.0, 1.0) };
            let scale = f64::from((1u32 << (bits - 1)) - 1);
            ((f64::from(c) * scale).round_ties_even() as i32) as u32 & ((1u32 << bits) - 1)
        }
        Kind::Float if bits == 16 => float::narrow(x, float::F16, Rnd::Rn),
        Kind::Float => v,
    };
    raw.to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Global;

    fn rgba8() -> Format {
        Format::parse("rgba8_unorm").unwrap()
    }

    #[test]
    fn a_packed_descriptor_round_trips_through_its_words() {
        let d = Descriptor::packed(0x1_2345_6700, Geom::A2d, [5, 3, 9, 4], rgba8()).unwrap();
        // a2d has no depth: it counts as 1.
        assert_eq!((d.pitch, d.slice, d.depth, d.layers), (20, 60, 1, 4));
        assert_eq!(d.bytes(), 240);
        let words = d.words().unwrap();
        assert_eq!(&words[..4], &[0x2345_6700, 1, 20, 60]);
        assert_eq!(words[4], 3 << 16 | 5);
        assert_eq!(Descriptor::decode(&words), Ok(Some(d)));
    }

    #[test]
    fn descriptors_that_name_nothing_sgpu_has_are_refused() {
        let good = Descriptor::packed(0, Geom::D2, [4, 4, 1, 1], rgba8())
            .unwrap()
            .words()
            .unwrap();
        assert_eq!(Descriptor::decode(&[0; abi::SURF_WORDS]), Ok(None));
        let with = |member: sgpu_isa::Member, value: u32| {
            let mut w = good;
            member.put(&mut w, value).unwrap();
            Descriptor::decode(&w).unwrap_err()
        };
        assert_eq!(with(abi::SURF_GEOM, 7), "no geometry");
        assert_eq!(with(abi::SURF_KIND, 5), "no channel kind");
        assert_eq!(with(abi::SURF_CHANNELS, 3), "no format sgpu has");
        // 32-bit unorm channels do not exist.
        assert_eq!(with(abi::SURF_BYTES, 2), "no format sgpu has");
        assert_eq!(with(abi::SURF_HEIGHT, 0), "a zero dimension");
        // A 2d surface has neither depth nor layers.
        assert_eq!(with(abi::SURF_DEPTH, 2), "a dimension its geometry has not");
        assert_eq!(
            with(abi::SURF_LAYERS, 3),
            "a dimension its geometry has not"
        );
    }

    #[test]
    fn the_unit_finds_surfaces_through_the_table_and_checks_handles() {
        let d = Descriptor::packed(0, Geom::D1, [4, 1, 1, 1], rgba8()).unwrap();
        let mut global = Global::default();
        let data = global.alloc("s", vec![], 16);
        let words = Descriptor { base: data, ..d }.words().unwrap();
        let mut table: Vec<u8> = vec![0; abi::SURF_WORDS * 4];
        table.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        let surfaces = Surfaces {
            table: global.alloc("table", table, 64),
            bound: vec![
                None,
                Some(Binding {
                    name: "s".into(),
                    data,
                }),
            ],
        };
        assert_eq!(surfaces.query(&mut global, 1, Query::Width), Ok(4));
        assert_eq!(
            surfaces.query(&mut global, 0, Query::Width),
            Err(Cause::Surface(Fault::Unbound { handle: 0 }))
        );
        assert_eq!(
            surfaces.query(&mut global, 2, Query::Width),
            Err(Cause::Surface(Fault::Unbound { handle: 2 }))
        );
        assert_eq!(
            surfaces.query(&mut global, u64::MAX, Query::Width),
            Err(Cause::Surface(Fault::Unbound { handle: u64::MAX }))
        );
    }
}
