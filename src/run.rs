//! `ptxas-rs run`: runs a kernel on the golden model and tells a person what happened: what
//! the kernel printed (device printf), the kernel and grid, the instructions retired, what it
//! wrote, and the values asked for with `--print`.

use crate::cli::{BAD_INPUT, TRAPPED};
use anyhow::{Context, Result};
use sgpu_sim::launch::Prepared;
use sgpu_sim::memory::Region;
use sgpu_sim::record::{Retired, Space};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `run` was asked to do besides running.
pub struct Options<'a> {
    /// `--dump NAME=PATH`
    pub dumps: &'a [String],
    /// `--print NAME[:TYPE]`
    pub prints: &'a [String],
    /// `--trace`
    pub trace: bool,
}

/// Loads the ELF and the manifest, runs, reports, prints and dumps what was asked for.
pub fn run_kernel(input: &Path, manifest: &Path, options: &Options<'_>) -> Result<u8> {
    let bytes = std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    let program = match sgpu_sim::program::Program::load(&bytes, sgpu_sim::memory::GLOBAL_BASE) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ptxas-rs: error: {}: {e}", input.display());
            return Ok(BAD_INPUT);
        }
    };
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut prepared = match sgpu_sim::launch::prepare(&text, dir, &program) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ptxas-rs: error: {}: {e}", manifest.display());
            return Ok(BAD_INPUT);
        }
    };
    // Every request is checked before the run, so that a typo costs no run.
    let (dumps, prints) = match requests(&prepared, options) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("ptxas-rs: error: {why}");
            return Ok(BAD_INPUT);
        }
    };
    let mut written = Written::new(&prepared.global.regions);
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let result = sgpu_sim::run(
        &program,
        &mut prepared.global,
        &prepared.surfaces,
        &prepared.launch,
        |cta, warp, r| {
            written.note(r);
            if options.trace {
                trace(&mut err, cta, warp, r);
            }
        },
    );
    drop(err);
    // What the kernel printed comes first, as a CUDA program's device output comes when the
    // kernel ends; also when it trapped, since it may tell why.
    crate::device_printf::print("ptxas-rs", &program, &prepared)?;
    let stats = match result {
        Ok(stats) => stats,
        Err(mut trap) => {
            trap.location = from_here(&trap.location);
            eprintln!("{trap}");
            return Ok(TRAPPED);
        }
    };
    let mut out = String::new();
    summary(&mut out, &prepared, &stats, &written);
    // The names were checked in `requests`.
    for (name, ty) in prints {
        let bytes = sgpu_sim::launch::bytes_of(&prepared, &name).unwrap_or_default();
        show(&mut out, &name, ty, bytes);
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .context("writing standard output")?;
    for (name, path) in dumps {
        let bytes = sgpu_sim::launch::bytes_of(&prepared, &name).unwrap_or_default();
        crate::output::write(&path, bytes)?;
    }
    Ok(0)
}

/// A `PATH:LINE` location with the path relative to the working directory when the file is
/// below it (the assembler records absolute paths), so that it is short and opens from here.
fn from_here(location: &str) -> String {
    let Some((path, line)) = location.rsplit_once(':') else {
        return location.to_string();
    };
    let here = std::env::current_dir().ok();
    match here
        .as_deref()
        .and_then(|d| Path::new(path).strip_prefix(d).ok())
    {
        Some(relative) => format!("{}:{line}", relative.display()),
        None => location.to_string(),
    }
}

/// `--dump` and `--print` requests, checked against the manifest's names and the types.
type Requests = (Vec<(String, PathBuf)>, Vec<(String, Type)>);

fn requests(p: &Prepared, options: &Options<'_>) -> Result<Requests, String> {
    let known = |option: &str, name: &str| {
        if sgpu_sim::launch::bytes_of(p, name).is_some() {
            Ok(name.to_string())
        } else {
            Err(format!("{option}: no buffer or surface `{name}`"))
        }
    };
    let mut dumps = Vec::new();
    for d in options.dumps {
        let (name, path) = d
            .split_once('=')
            .ok_or_else(|| format!("--dump takes NAME=PATH, not `{d}`"))?;
        dumps.push((known("--dump", name)?, PathBuf::from(path)));
    }
    let mut prints = Vec::new();
    for spec in options.prints {
        let (name, ty) = match spec.rsplit_once(':') {
            Some((name, ty)) => (name, Type::parse(ty)?),
            None => (spec.as_str(), Type::default_for(p, spec)),
        };
        prints.push((known("--print", name)?, ty));
    }
    Ok((dumps, prints))
}

fn trace(err: &mut impl Write, cta: u32, warp: u32, r: &Retired) {
    let text = sgpu_isa::decode(r.word)
        .map(|i| i.to_string())
        .unwrap_or_default();
    let _ = writeln!(
        err,
        "cta {cta} warp {warp} /*{:04x}*/ {:08x} {text}",
        r.pc * 8,
        r.mask
    );
}

/// Which bytes of each global allocation the kernel stored to, one bit a byte, each
/// allocation's bits made on its first store.
struct Written {
    /// (base, length) of each allocation, in address order as [`Region`]s are.
    bounds: Vec<(u64, u64)>,
    bits: Vec<Vec<u64>>,
}

impl Written {
    fn new(regions: &[Region]) -> Written {
        Written {
            bounds: regions
                .iter()
                .map(|r| (r.base, r.bytes.len() as u64))
                .collect(),
            bits: vec![Vec::new(); regions.len()],
        }
    }

    fn note(&mut self, r: &Retired) {
        for s in r.stores().iter().filter(|s| s.space == Space::Global) {
            // A store the model took lies inside one allocation; the check costs little.
            let Some(i) = self
                .bounds
                .partition_point(|&(base, _)| base <= s.address)
                .checked_sub(1)
            else {
                continue;
            };
            let (base, len) = self.bounds[i];
            if s.address.saturating_add(u64::from(s.len)) > base + len {
                continue;
            }
            let bits = &mut self.bits[i];
            if bits.is_empty() {
                bits.resize(len.div_ceil(64) as usize, 0);
            }
            for at in s.address - base..s.address - base + u64::from(s.len) {
                bits[(at / 64) as usize] |= 1 << (at % 64);
            }
        }
    }

    /// Bytes stored to in allocation `i`.
    fn bytes(&self, i: usize) -> u64 {
        self.bits[i].iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// What ran and what it did, in a few lines.
fn summary(out: &mut String, p: &Prepared, stats: &sgpu_sim::Stats, written: &Written) {
    use std::fmt::Write;
    let l = &p.launch;
    let [gx, gy, gz] = l.grid;
    let [bx, by, bz] = l.block;
    let _ = writeln!(
        out,
        "ran {}: grid {gx} x {gy} x {gz}, block {bx} x {by} x {bz}",
        l.kernel
    );
    let _ = writeln!(
        out,
        "retired {} warp instructions, {} thread instructions",
        stats.warp_instructions, stats.thread_instructions
    );
    let wrote: Vec<String> = p
        .global
        .regions
        .iter()
        .enumerate()
        .filter(|&(i, _)| written.bytes(i) > 0)
        .map(|(i, r)| {
            let (n, len) = (written.bytes(i), r.bytes.len());
            format!("{} ({n} of {len} bytes)", allocation(&r.name))
        })
        .collect();
    if wrote.is_empty() {
        let _ = writeln!(out, "wrote nothing to global memory");
    } else {
        let _ = writeln!(out, "wrote {}", wrote.join(", "));
    }
}

/// An allocation as the manifest names it: `launch` calls a surface's data
/// `surfaces.NAME`, and its own allocations `(module data)` and such.
fn allocation(region: &str) -> String {
    match region.strip_prefix("surfaces.") {
        Some(name) => format!("surface {name}"),
        None if region.starts_with('(') => region.to_string(),
        None => format!("buffer {region}"),
    }
}

/// How many values `--print` shows, and how many a line.
const SHOWN: usize = 64;
const PER_LINE: usize = 16;

/// `name`'s first values as `ty`, a line of [`PER_LINE`] at a time after the index of the
/// first.
fn show(out: &mut String, name: &str, ty: Type, bytes: &[u8]) {
    use std::fmt::Write;
    let count = bytes.len() / ty.size;
    let shown = count.min(SHOWN);
    let _ = writeln!(
        out,
        "{name} as {}: {}",
        ty.name,
        if shown < count {
            format!("the first {shown} of {count} values")
        } else {
            format!("{count} values")
        }
    );
    let values: Vec<String> = bytes
        .chunks_exact(ty.size)
        .take(shown)
        .map(|v| ty.format(v))
        .collect();
    let width = values.iter().map(String::len).max().unwrap_or(0);
    for (line, chunk) in values.chunks(PER_LINE).enumerate() {
        let row: Vec<String> = chunk.iter().map(|v| format!("{v:>width$}")).collect();
        let _ = writeln!(out, "  [{:>2}] {}", line * PER_LINE, row.join(" "));
    }
}

/// A PTX type values are shown as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Type {
    name: &'static str,
    size: usize,
}

/// The types `--print` takes, PTX's fundamental ones but predicates, with their sizes.
const TYPES: [(&str, usize); 16] = [
    ("u8", 1),
    ("u16", 2),
    ("u32", 4),
    ("u64", 8),
    ("s8", 1),
    ("s16", 2),
    ("s32", 4),
    ("s64", 8),
    ("b8", 1),
    ("b16", 2),
    ("b32", 4),
    ("b64", 8),
    ("f16", 2),
    ("bf16", 2),
    ("f32", 4),
    ("f64", 8),
];

/// What a buffer given without an element type is shown as: 32-bit words.
const U32: Type = Type {
    name: "u32",
    size: 4,
};

impl Type {
    fn parse(text: &str) -> Result<Type, String> {
        let &(name, size) = TYPES.iter().find(|t| t.0 == text).ok_or_else(|| {
            let names: Vec<&str> = TYPES.iter().map(|t| t.0).collect();
            format!(
                "--print: unknown type `{text}` (one of {})",
                names.join(", ")
            )
        })?;
        Ok(Type { name, size })
    }

    /// The type the manifest gave `name`'s contents or format in, else u32.
    fn default_for(p: &Prepared, name: &str) -> Type {
        p.elements
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, ty)| Type::parse(ty).ok())
            .unwrap_or(U32)
    }

    /// One value, of `self.size` little-endian bytes.
    fn format(self, v: &[u8]) -> String {
        let mut le = [0u8; 8];
        le[..v.len()].copy_from_slice(v);
        let bits = u64::from_le_bytes(le);
        // Sign-extends from the value's width.
        let signed = || (bits << (64 - 8 * self.size)) as i64 >> (64 - 8 * self.size);
        use sgpu_sim::float::{widen, BF16, F16};
        match self.name {
            "f16" => float_text(widen(bits as u32, F16)),
            "bf16" => float_text(widen(bits as u32, BF16)),
            "f32" => float_text(f32::from_bits(bits as u32)),
            "f64" => float_text(f64::from_bits(bits)),
            n if n.starts_with('s') => signed().to_string(),
            n if n.starts_with('b') => format!("{bits:#0w$x}", w = 2 + 2 * self.size),
            _ => bits.to_string(),
        }
    }
}

/// A float in its shortest form that reads back exactly: in decimal, or with an exponent
/// when decimal would take more than 16 digits before or 5 zeros after the point.
fn float_text<F>(x: F) -> String
where
    F: std::fmt::Display + std::fmt::LowerExp + Into<f64> + Copy,
{
    let magnitude = x.into().abs();
    if magnitude == 0.0 || !magnitude.is_finite() || (1e-5..1e16).contains(&magnitude) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(ty: &str, bytes: &[u8]) -> String {
        Type::parse(ty).unwrap().format(bytes)
    }

    #[test]
    fn values_are_shown_as_their_type() {
        assert_eq!(shown("u8", &[0xff]), "255");
        assert_eq!(shown("s8", &[0xff]), "-1");
        assert_eq!(shown("s64", &[0xfe; 8]), "-72340172838076674");
        assert_eq!(shown("b16", &[0xff, 0x00]), "0x00ff");
        assert_eq!(shown("f16", &[0x00, 0x3c]), "1");
        assert_eq!(shown("f16", &[0x00, 0xfc]), "-inf");
        assert_eq!(shown("bf16", &[0xc0, 0x3f]), "1.5");
        assert_eq!(shown("f32", &0.1f32.to_le_bytes()), "0.1");
        assert_eq!(shown("f64", &(-2.5f64).to_le_bytes()), "-2.5");
        assert_eq!(shown("f64", &1e300f64.to_le_bytes()), "1e300");
        assert_eq!(shown("f64", &(-5e-324f64).to_le_bytes()), "-5e-324");
        assert_eq!(shown("f32", &3e-6f32.to_le_bytes()), "3e-6");
        assert_eq!(shown("f64", &f64::NAN.to_le_bytes()), "NaN");
    }
}
