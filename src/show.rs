//! What `run` and `sgpu-cosim` show of a finished run: `--dump NAME=PATH` and `--print
//! NAME[:TYPE]` requests, checked against the manifest before the run so that a typo costs
//! no run, and a buffer's values printed as a PTX type.

use sgpu_sim::launch::Prepared;
use std::path::PathBuf;

/// `--dump` and `--print` requests, checked against the manifest's names and the types.
pub type Requests = (Vec<(String, PathBuf)>, Vec<(String, Type)>);

pub fn requests(p: &Prepared, dump: &[String], print: &[String]) -> Result<Requests, String> {
    let known = |option: &str, name: &str| {
        if sgpu_sim::launch::bytes_of(p, name).is_some() {
            Ok(name.to_string())
        } else {
            Err(format!("{option}: no buffer or surface `{name}`"))
        }
    };
    let mut dumps = Vec::new();
    for d in dump {
        let (name, path) = d
            .split_once('=')
            .ok_or_else(|| format!("--dump takes NAME=PATH, not `{d}`"))?;
        dumps.push((known("--dump", name)?, PathBuf::from(path)));
    }
    let mut prints = Vec::new();
    for spec in print {
        let (name, ty) = match spec.rsplit_once(':') {
            Some((name, ty)) => (name, Type::parse(ty)?),
            None => (spec.as_str(), Type::default_for(p, spec)),
        };
        prints.push((known("--print", name)?, ty));
    }
    Ok((dumps, prints))
}

/// Shows the values asked for with `--print` in `out` and writes the files of `--dump`, from
/// the memory as the run left it.
pub fn deliver(out: &mut String, p: &Prepared, (dumps, prints): &Requests) -> anyhow::Result<()> {
    // The names were checked in `requests`.
    for (name, ty) in prints {
        let bytes = sgpu_sim::launch::bytes_of(p, name).unwrap_or_default();
        show(out, name, *ty, bytes);
    }
    for (name, path) in dumps {
        let bytes = sgpu_sim::launch::bytes_of(p, name).unwrap_or_default();
        crate::output::write(path, bytes)?;
    }
    Ok(())
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
