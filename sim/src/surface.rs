//! The surface unit: surfaces of every geometry and format, and what suld, sust, sured and
//! suq do to them, made exact (issue 4; shared/spec/ptx/surface-instructions.txt).
//!
//! A surface is tightly packed: element (x, y, z, layer) is at byte
//! `((layer * depth + z) * height + y) * width * esize + x * esize`, esize being channels times
//! channel bytes. `.b` forms address x in bytes, `.p` forms in elements.

use crate::float;
use crate::warp::Warp;
use sgpu_isa::{Dsize, Geom, Query, Reg, Rnd, Sclamp, Sop, Sty, Surface as Operand, Vwidth};

/// How a channel is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Uint,
    Sint,
    Unorm,
    Snorm,
    Float,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub channels: u32,
    /// Bytes per channel: 1, 2 or 4.
    pub bytes: u32,
    pub kind: Kind,
}

impl Format {
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
        let valid = match kind {
            Kind::Uint | Kind::Sint => matches!(bits, 8 | 16 | 32),
            Kind::Unorm | Kind::Snorm => matches!(bits, 8 | 16),
            Kind::Float => matches!(bits, 16 | 32),
        };
        valid.then_some(Format {
            channels,
            bytes: bits / 8,
            kind,
        })
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

/// One surface.
#[derive(Clone, Debug)]
pub struct Surface {
    pub name: String,
    pub geom: Geom,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub layers: u32,
    pub format: Format,
    pub data: Vec<u8>,
}

impl Surface {
    pub fn bytes_for(
        geom: Geom,
        width: u32,
        height: u32,
        depth: u32,
        layers: u32,
        format: Format,
    ) -> usize {
        let (h, d, l) = dims(geom, height, depth, layers);
        (width * h * d * l * format.esize()) as usize
    }
}

/// Height, depth and layers as the geometry uses them (1 where it has none).
fn dims(geom: Geom, height: u32, depth: u32, layers: u32) -> (u32, u32, u32) {
    match geom {
        Geom::D1 => (1, 1, 1),
        Geom::D2 => (height, 1, 1),
        Geom::D3 => (height, depth, 1),
        Geom::A1d => (1, 1, layers),
        Geom::A2d => (height, 1, layers),
    }
}

/// The surfaces of a launch, by descriptor slot; a 64-bit handle is a slot number.
#[derive(Clone, Debug, Default)]
pub struct Surfaces {
    pub slots: Vec<Option<Surface>>,
}

/// The slot an instruction names.
pub fn target(w: &Warp, s: Operand, lane: usize) -> Result<usize, String> {
    Ok(match s {
        Operand::Slot(n) => usize::from(n),
        Operand::Handle(r) => w.r64(r, lane) as usize,
    })
}

/// Registers a load of `vec` elements of `dsize` writes.
pub fn data_registers(vec: Vwidth, dsize: Dsize) -> u8 {
    elements(vec) as u8 * if dsize == Dsize::B64 { 2 } else { 1 }
}

fn elements(vec: Vwidth) -> u32 {
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

/// Where an access lands, or that `.zero` drops it.
enum Place {
    At(usize),
    Dropped,
}

impl Surfaces {
    fn get(&mut self, slot: usize) -> Result<&mut Surface, String> {
        self.slots
            .get_mut(slot)
            .and_then(Option::as_mut)
            .ok_or_else(|| format!("surface {slot} is not bound"))
    }

    /// The byte offset of an access of `size` bytes at the coordinates in registers from
    /// `ra`, in PTX's order: 1d {x}, 2d {x, y}, 3d {x, y, z, w}, a1d {layer, x},
    /// a2d {layer, x, y, z}.
    #[allow(clippy::too_many_arguments)]
    fn place(
        s: &Surface,
        w: &Warp,
        lane: usize,
        ra: Reg,
        geom: Geom,
        bytes_x: bool,
        size: u32,
        clamp: Sclamp,
    ) -> Result<Place, String> {
        if geom != s.geom {
            return Err(format!(
                "a {:?} access to surface `{}`, which is {:?}",
                geom, s.name, s.geom
            ));
        }
        let c = |i: u8| w.r(crate::warp::reg_at(ra, i), lane) as i32 as i64;
        let (layer, x, y, z) = match geom {
            Geom::D1 => (0, c(0), 0, 0),
            Geom::D2 => (0, c(0), c(1), 0),
            Geom::D3 => (0, c(0), c(1), c(2)),
            Geom::A1d => (c(0), c(1), 0, 0),
            Geom::A2d => (c(0), c(1), c(2), 0),
        };
        let (h, d, l) = dims(geom, s.height, s.depth, s.layers);
        let esize = i64::from(s.format.esize());
        // x's range: bytes 0..=width*esize-size for .b, elements 0..width for .p.
        let x_max = if bytes_x {
            i64::from(s.width) * esize - i64::from(size)
        } else {
            i64::from(s.width) - 1
        };
        let coords = [
            (x, x_max, "x"),
            (y, i64::from(h) - 1, "y"),
            (z, i64::from(d) - 1, "z"),
            (layer, i64::from(l) - 1, "layer"),
        ];
        let mut fixed = [0i64; 4];
        for (k, (v, max, name)) in coords.into_iter().enumerate() {
            if v < 0 || v > max {
                match clamp {
                    Sclamp::Trap => {
                        return Err(format!(
                            "surface `{}`: {name} = {v} is out of bounds (0..={max})",
                            s.name
                        ))
                    }
                    Sclamp::Zero => return Ok(Place::Dropped),
                    Sclamp::Clamp => fixed[k] = v.clamp(0, max.max(0)),
                }
            } else {
                fixed[k] = v;
            }
        }
        let [x, y, z, layer] = fixed;
        let row = ((layer * i64::from(d) + z) * i64::from(h) + y) * i64::from(s.width) * esize;
        let x_bytes = if bytes_x { x } else { x * esize };
        Ok(Place::At((row + x_bytes) as usize))
    }

    /// suld: `.b` reads raw bytes into one register per element (a pair for `.b64`).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &mut self,
        w: &mut Warp,
        lane: usize,
        slot: usize,
        rd: Reg,
        ra: Reg,
        p: bool,
        geom: Geom,
        vec: Vwidth,
        dsize: Dsize,
        clamp: Sclamp,
    ) -> Result<(), String> {
        if p {
            return Err("suld.p does not exist in PTX".into());
        }
        let n = elements(vec);
        let eb = dsize_bytes(dsize);
        let s = self.get(slot)?;
        let place = Self::place(s, w, lane, ra, geom, true, n * eb, clamp)?;
        for i in 0..n {
            let value: u64 = match place {
                Place::Dropped => 0,
                Place::At(at) => {
                    let at = at + (i * eb) as usize;
                    let mut buf = [0u8; 8];
                    buf[..eb as usize].copy_from_slice(&s.data[at..at + eb as usize]);
                    u64::from_le_bytes(buf)
                }
            };
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
        &mut self,
        w: &mut Warp,
        lane: usize,
        slot: usize,
        rc: Reg,
        ra: Reg,
        p: bool,
        geom: Geom,
        vec: Vwidth,
        dsize: Dsize,
        clamp: Sclamp,
    ) -> Result<(), String> {
        let n = elements(vec);
        let s = self.get(slot)?;
        if p {
            let place = Self::place(s, w, lane, ra, geom, false, 0, clamp)?;
            let Place::At(at) = place else { return Ok(()) };
            let f = s.format;
            for ch in 0..f.channels {
                // Components the vector lacks are written as 0.
                let v = if ch < n {
                    w.r(crate::warp::reg_at(rc, ch as u8), lane)
                } else {
                    0
                };
                let bytes = encode(v, f);
                let o = at + (ch * f.bytes) as usize;
                s.data[o..o + f.bytes as usize].copy_from_slice(&bytes[..f.bytes as usize]);
            }
            return Ok(());
        }
        let eb = dsize_bytes(dsize);
        let place = Self::place(s, w, lane, ra, geom, true, n * eb, clamp)?;
        let Place::At(at) = place else { return Ok(()) };
        for i in 0..n {
            let r = crate::warp::reg_at(rc, (i * if eb == 8 { 2 } else { 1 }) as u8);
            let v = if eb == 8 {
                w.r64(r, lane)
            } else {
                u64::from(w.r(r, lane))
            };
            let o = at + (i * eb) as usize;
            s.data[o..o + eb as usize].copy_from_slice(&v.to_le_bytes()[..eb as usize]);
        }
        Ok(())
    }

    /// sured: an atomic reduction (the model runs one lane at a time, so each is atomic).
    #[allow(clippy::too_many_arguments)]
    pub fn reduce(
        &mut self,
        w: &mut Warp,
        lane: usize,
        slot: usize,
        rc: Reg,
        ra: Reg,
        p: bool,
        op: Sop,
        geom: Geom,
        ty: Sty,
        clamp: Sclamp,
    ) -> Result<(), String> {
        let s = self.get(slot)?;
        let wide = matches!(ty, Sty::U64 | Sty::S64 | Sty::B64);
        let n = if wide { 8 } else { 4 };
        // .b32/.b64 take their signedness from the format.
        let signed = match ty {
            Sty::S32 | Sty::S64 => true,
            Sty::B32 | Sty::B64 => s.format.kind == crate::surface::Kind::Sint,
            _ => false,
        };
        let place = if p {
            Self::place(s, w, lane, ra, geom, false, 0, clamp)?
        } else {
            Self::place(s, w, lane, ra, geom, true, n, clamp)?
        };
        let Place::At(at) = place else { return Ok(()) };
        if at + n as usize > s.data.len() {
            return Err(format!("surface `{}`: reduction past its end", s.name));
        }
        let mut buf = [0u8; 8];
        buf[..n as usize].copy_from_slice(&s.data[at..at + n as usize]);
        let old = u64::from_le_bytes(buf);
        let b = if wide {
            w.r64(rc, lane)
        } else {
            u64::from(w.r(rc, lane))
        };
        let sx = |v: u64| {
            if wide {
                v as i64
            } else {
                v as u32 as i32 as i64
            }
        };
        let new = match op {
            Sop::Add => old.wrapping_add(b),
            Sop::Min if signed => {
                if sx(b) < sx(old) {
                    b
                } else {
                    old
                }
            }
            Sop::Max if signed => {
                if sx(b) > sx(old) {
                    b
                } else {
                    old
                }
            }
            Sop::Min => old.min(b),
            Sop::Max => old.max(b),
            Sop::And => old & b,
            Sop::Or => old | b,
        };
        s.data[at..at + n as usize].copy_from_slice(&new.to_le_bytes()[..n as usize]);
        Ok(())
    }

    pub fn query(&mut self, slot: usize, q: Query) -> Result<u32, String> {
        let s = self.get(slot)?;
        let arrayed = matches!(s.geom, Geom::A1d | Geom::A2d);
        Ok(match q {
            Query::Width => s.width,
            Query::Height => dims(s.geom, s.height, s.depth, s.layers).0,
            Query::Depth => dims(s.geom, s.height, s.depth, s.layers).1,
            Query::ChannelDataType => s.format.cl_data_type(),
            Query::ChannelOrder => s.format.cl_order(),
            Query::ArraySize => {
                if arrayed {
                    s.layers
                } else {
                    0
                }
            }
            Query::MemoryLayout => 1,
        })
    }
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
