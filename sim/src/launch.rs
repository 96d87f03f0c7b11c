//! The launch manifest of `ptxas-rs run` (docs/launch.md): what to run, on what buffers and
//! surfaces, with what parameters. Anything else in the file is an error naming the key.

use crate::memory::{Global, MAX_ALLOCATION};
use crate::program::Program;
use crate::surface::{Binding, Descriptor, Format, Surfaces};
use crate::Launch;
use sgpu_isa::Geom;
use std::path::Path;
use toml::{Table, Value};

/// A manifest made ready to run: the launch, global memory with every buffer, surface and
/// the surface descriptor table placed, and what is bound at each surface handle.
pub struct Prepared {
    pub launch: Launch,
    pub global: Global,
    pub surfaces: Surfaces,
    /// Each buffer's and surface's element type as the manifest gives it (a buffer's array
    /// key, a surface format's channel type), for showing its contents; none for a buffer
    /// given only by `size` or `file`.
    pub elements: Vec<(String, &'static str)>,
}

type Result<T> = std::result::Result<T, String>;

fn expect_keys(t: &Table, allowed: &[&str], at: &str) -> Result<()> {
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!(
                "{at}unknown key `{k}` (expected one of: {})",
                allowed.join(", ")
            ));
        }
    }
    Ok(())
}

fn dims(v: Option<&Value>, key: &str) -> Result<[u32; 3]> {
    let Some(v) = v else { return Ok([1, 1, 1]) };
    let a = v
        .as_array()
        .ok_or_else(|| format!("`{key}` must be an array of up to three positive integers"))?;
    if a.is_empty() || a.len() > 3 {
        return Err(format!("`{key}` must have one to three dimensions"));
    }
    let mut out = [1u32; 3];
    for (i, x) in a.iter().enumerate() {
        out[i] = x
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("`{key}[{i}]` must be a positive integer"))?;
    }
    Ok(out)
}

/// The array kinds data may be given in, and their element sizes.
const ARRAYS: [(&str, usize); 10] = [
    ("u8", 1),
    ("u16", 2),
    ("u32", 4),
    ("u64", 8),
    ("s8", 1),
    ("s16", 2),
    ("s32", 4),
    ("s64", 8),
    ("f32", 4),
    ("f64", 8),
];

/// Initial contents from an array key or `file`, padded to `size` if given.
fn contents(t: &Table, at: &str, dir: &Path) -> Result<Option<Vec<u8>>> {
    let mut found: Option<Vec<u8>> = None;
    for (kind, width) in ARRAYS {
        let Some(v) = t.get(kind) else { continue };
        if found.is_some() {
            return Err(format!(
                "{at}give one of the array keys or `file`, not several"
            ));
        }
        let items = v
            .as_array()
            .ok_or_else(|| format!("{at}`{kind}` must be an array"))?;
        let mut bytes = Vec::with_capacity(items.len() * width);
        for (i, x) in items.iter().enumerate() {
            let bad = || format!("{at}`{kind}[{i}]` does not fit `{kind}`");
            let le: Vec<u8> = if kind.starts_with('f') {
                let f = x
                    .as_float()
                    .or_else(|| x.as_integer().map(|n| n as f64))
                    .ok_or_else(bad)?;
                if kind == "f32" {
                    (f as f32).to_le_bytes().to_vec()
                } else {
                    f.to_le_bytes().to_vec()
                }
            } else {
                let n = x.as_integer().ok_or_else(bad)?;
                let signed = kind.starts_with('s');
                let bits = width as u32 * 8;
                // TOML integers are signed 64-bit: a u64 above 2^63 - 1 is written as its
                // two's complement (docs/launch.md).
                let ok = if signed || bits == 64 {
                    bits == 64 || (n >= -(1i64 << (bits - 1)) && n < (1i64 << (bits - 1)))
                } else {
                    n >= 0 && n < (1i64 << bits)
                };
                if !ok {
                    return Err(bad());
                }
                n.to_le_bytes()[..width].to_vec()
            };
            bytes.extend(le);
        }
        found = Some(bytes);
    }
    if let Some(f) = t.get("file") {
        if found.is_some() {
            return Err(format!(
                "{at}give one of the array keys or `file`, not several"
            ));
        }
        let name = f
            .as_str()
            .ok_or_else(|| format!("{at}`file` must be a path"))?;
        let path = dir.join(name);
        found =
            Some(std::fs::read(&path).map_err(|e| format!("{at}`file`: {}: {e}", path.display()))?);
    }
    Ok(found)
}

fn size(t: &Table, at: &str) -> Result<Option<usize>> {
    match t.get("size") {
        None => Ok(None),
        Some(v) => v
            .as_integer()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| format!("{at}`size` must be a non-negative integer")),
    }
}

/// A TOML syntax error with the line and column (from 1) where it starts.
fn syntax_error(text: &str, e: &toml::de::Error) -> String {
    let at = e.span().map_or(0, |s| s.start).min(text.len());
    let before = &text.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    // toml puts what it expected on a second line; one line reads better after a path.
    let message = e.message().trim_end().replace('\n', ": ");
    format!("line {line}, column {column}: {message}")
}

/// The warp instructions a launch may retire before it traps, unless its manifest says
/// `max_instructions`: 2^32, a minute or more of the model, far beyond the tests' kernels.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 1 << 32;

/// A kernel that is not there, with the kernels that are: a C++ kernel's name is mangled
/// (`_Z5scalePfi` for `scale`) unless it is `extern "C"`.
fn no_kernel(program: &Program, kernel: &str) -> String {
    let names: Vec<String> = program.kernels().map(|k| format!("`{}`", k.name)).collect();
    let mut why = format!("`kernel`: the program has no kernel `{kernel}`");
    if names.is_empty() {
        why.push_str(", nor any other");
    } else {
        why.push_str(&format!("; it has {}", names.join(", ")));
    }
    let mangled = program
        .kernels()
        .any(|k| k.name.starts_with("_Z") && k.name.contains(kernel));
    if mangled {
        why.push_str(" (C++ mangles a kernel's name unless it is declared `extern \"C\"`)");
    }
    why
}

/// Reads a manifest (`dir` is its folder, for `file` keys) for `program`.
pub fn prepare(text: &str, dir: &Path, program: &Program) -> Result<Prepared> {
    let root: Table = text.parse().map_err(|e| syntax_error(text, &e))?;
    expect_keys(
        &root,
        &[
            "kernel",
            "grid",
            "block",
            "shared",
            "params",
            "buffers",
            "surfaces",
            "printf_buffer",
            "max_instructions",
        ],
        "",
    )?;
    let kernel = match root.get("kernel") {
        Some(v) => v.as_str().ok_or("`kernel` must be a string")?.to_string(),
        None => {
            let kernels: Vec<_> = program.kernels().collect();
            match kernels.as_slice() {
                [k] => k.name.clone(),
                [] => return Err("the program has no kernel".into()),
                _ => {
                    let names: Vec<String> =
                        kernels.iter().map(|k| format!("`{}`", k.name)).collect();
                    return Err(format!(
                        "the program has several kernels ({}): say which with `kernel`",
                        names.join(", ")
                    ));
                }
            }
        }
    };
    let function = program
        .function(&kernel)
        .filter(|f| f.info.entry)
        .ok_or_else(|| no_kernel(program, &kernel))?;
    let grid = dims(root.get("grid"), "grid")?;
    let block = dims(root.get("block"), "block")?;
    let shared = match root.get("shared") {
        None => 0,
        Some(v) => v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("`shared` must be a non-negative integer")?,
    };
    let max_instructions = match root.get("max_instructions") {
        None => DEFAULT_MAX_INSTRUCTIONS,
        Some(v) => v
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or("`max_instructions` must be a positive integer")?,
    };

    let mut global = Global::default();
    // The module's own global variables first, where the program was loaded for.
    let data_base = global.alloc(
        "(module data)",
        program.data.clone(),
        program.data.len().max(1),
    );
    if data_base != program.data_base {
        return Err("internal: module data placed elsewhere than loaded for".into());
    }
    let empty = Table::new();
    let mut elements = Vec::new();
    let buffers = match root.get("buffers") {
        Some(v) => v.as_table().ok_or("`buffers` must be a table")?,
        None => &empty,
    };
    for (name, v) in buffers {
        let at = format!("buffers.{name}: ");
        let t = v.as_table().ok_or_else(|| format!("{at}must be a table"))?;
        let mut allowed = vec!["size", "file"];
        allowed.extend(ARRAYS.iter().map(|a| a.0));
        expect_keys(t, &allowed, &at)?;
        let data = contents(t, &at, dir)?.unwrap_or_default();
        if let Some((kind, _)) = ARRAYS.iter().find(|(kind, _)| t.contains_key(*kind)) {
            elements.push((name.clone(), *kind));
        }
        let size = size(t, &at)?.unwrap_or(data.len());
        if size as u64 > MAX_ALLOCATION {
            return Err(format!(
                "{at}`size` {size} is more than the {MAX_ALLOCATION} bytes the model gives a buffer"
            ));
        }
        if size < data.len() {
            return Err(format!(
                "{at}`size` {size} is smaller than its {} bytes of data",
                data.len()
            ));
        }
        global.alloc(name, data, size.max(1));
    }

    // Surfaces: those named like a `.surfref` take its slot; the others follow. Each one's
    // data is a global allocation its descriptor points to (docs/hw.md).
    let max_slot = program
        .surfaces
        .iter()
        .map(|s| usize::from(s.1) + 1)
        .max()
        .unwrap_or(0);
    let mut bound: Vec<Option<(Binding, Descriptor)>> = vec![None; max_slot];
    let declared = match root.get("surfaces") {
        Some(v) => v.as_table().ok_or("`surfaces` must be a table")?,
        None => &empty,
    };
    let mut slot_of = std::collections::HashMap::new();
    for (name, v) in declared {
        let at = format!("surfaces.{name}: ");
        let (mut d, data) = surface(v, &at, dir)?;
        d.base = global.alloc(&format!("surfaces.{name}"), data, d.bytes() as usize);
        elements.push((name.clone(), d.format.channel_type()));
        let slot = match program.surfaces.iter().find(|s| s.0 == *name) {
            Some(&(_, slot)) => usize::from(slot),
            None => {
                bound.push(None);
                bound.len() - 1
            }
        };
        slot_of.insert(name.clone(), slot);
        let binding = Binding {
            name: name.clone(),
            data: d.base,
        };
        bound[slot] = Some((binding, d));
    }
    let surfaces = descriptor_table(&mut global, bound)?;
    let printf_bytes = match root.get("printf_buffer") {
        None => crate::printf::abi::DEFAULT_BYTES,
        Some(v) => v
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or("`printf_buffer` must be a non-negative integer")?,
    };
    crate::printf::reserve(&mut global, program, printf_bytes)?;

    // Parameters, at the kernel's offsets.
    let mut params = vec![0u8; function.info.param_bytes as usize];
    let given = match root.get("params") {
        Some(v) => v.as_array().ok_or("`params` must be an array")?.clone(),
        None => Vec::new(),
    };
    if given.len() != function.info.params.len() {
        return Err(format!(
            "`params`: kernel `{kernel}` takes {} parameters, the manifest gives {}",
            function.info.params.len(),
            given.len()
        ));
    }
    for (i, (p, &(offset, psize))) in given.iter().zip(&function.info.params).enumerate() {
        let at = format!("params[{i}]: ");
        let t = p
            .as_table()
            .ok_or_else(|| format!("{at}must be a table such as {{ u32 = 7 }}"))?;
        let [(kind, value)] = t.iter().collect::<Vec<_>>()[..] else {
            return Err(format!("{at}must have exactly one key"));
        };
        let bytes: Vec<u8> = match kind.as_str() {
            "buffer" => {
                let name = value.as_str().ok_or_else(|| format!("{at}`buffer` must name a buffer"))?;
                let r = global
                    .by_name(name)
                    .filter(|_| buffers.contains_key(name))
                    .ok_or_else(|| format!("{at}no buffer `{name}`"))?;
                r.base.to_le_bytes().to_vec()
            }
            "surface" => {
                let name = value.as_str().ok_or_else(|| format!("{at}`surface` must name a surface"))?;
                let slot = slot_of.get(name).ok_or_else(|| format!("{at}no surface `{name}`"))?;
                (*slot as u64).to_le_bytes().to_vec()
            }
            "f32" | "f64" => {
                let f = value
                    .as_float()
                    .or_else(|| value.as_integer().map(|n| n as f64))
                    .ok_or_else(|| format!("{at}`{kind}` must be a number"))?;
                if kind == "f32" {
                    (f as f32).to_le_bytes().to_vec()
                } else {
                    f.to_le_bytes().to_vec()
                }
            }
            k @ ("u8" | "u16" | "u32" | "u64" | "s32" | "s64") => {
                let n = value.as_integer().ok_or_else(|| format!("{at}`{k}` must be an integer"))?;
                let width = match k {
                    "u8" => 1,
                    "u16" => 2,
                    "u32" | "s32" => 4,
                    _ => 8,
                };
                n.to_le_bytes()[..width].to_vec()
            }
            other => {
                return Err(format!(
                    "{at}unknown kind `{other}` (expected buffer, surface, u8, u16, u32, u64, s32, s64, f32 or f64)"
                ))
            }
        };
        if bytes.len() != psize as usize {
            return Err(format!(
                "{at}a {}-byte `{kind}` for a {psize}-byte parameter",
                bytes.len()
            ));
        }
        let slot = params
            .get_mut(offset as usize..offset as usize + bytes.len())
            .ok_or_else(|| {
                format!("{at}the ELF places this parameter outside its parameter bytes")
            })?;
        slot.copy_from_slice(&bytes);
    }
    let launch = Launch {
        kernel,
        grid,
        block,
        shared,
        params,
        max_instructions,
        interrupt: None,
    };
    launch.check(function)?;
    Ok(Prepared {
        launch,
        global,
        surfaces,
        elements,
    })
}

/// A surface's descriptor (its base still to place) and initial data, from its table.
fn surface(v: &Value, at: &str, dir: &Path) -> Result<(Descriptor, Vec<u8>)> {
    let t = v.as_table().ok_or_else(|| format!("{at}must be a table"))?;
    let mut allowed = vec![
        "geometry", "width", "height", "depth", "layers", "format", "file",
    ];
    allowed.extend(ARRAYS.iter().map(|a| a.0));
    expect_keys(t, &allowed, at)?;
    let geom = match t.get("geometry").and_then(Value::as_str) {
        Some("1d") => Geom::D1,
        Some("2d") => Geom::D2,
        Some("3d") => Geom::D3,
        Some("a1d") => Geom::A1d,
        Some("a2d") => Geom::A2d,
        _ => {
            return Err(format!(
                "{at}`geometry` must be one of 1d, 2d, 3d, a1d, a2d"
            ))
        }
    };
    let dim = |key: &str, needed: bool| -> Result<u32> {
        match t.get(key) {
            Some(v) => v
                .as_integer()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{at}`{key}` must be a positive integer")),
            None if needed => Err(format!("{at}`{key}` is needed for this geometry")),
            None => Ok(1),
        }
    };
    let dims = [
        dim("width", true)?,
        dim("height", matches!(geom, Geom::D2 | Geom::D3 | Geom::A2d))?,
        dim("depth", geom == Geom::D3)?,
        dim("layers", matches!(geom, Geom::A1d | Geom::A2d))?,
    ];
    let format = t
        .get("format")
        .and_then(Value::as_str)
        .and_then(Format::parse)
        .ok_or_else(|| {
            format!("{at}`format` must name a format such as rgba8_unorm, r32_uint, rg16_float")
        })?;
    let d = Descriptor::packed(0, geom, dims, format).map_err(|e| format!("{at}{e}"))?;
    let bytes = d.bytes();
    if bytes > MAX_ALLOCATION {
        return Err(format!(
            "{at}{bytes} bytes (width x height x depth x layers x element size) is more than the {MAX_ALLOCATION} the model gives a surface"
        ));
    }
    let data = contents(t, at, dir)?.unwrap_or_default();
    if data.len() as u64 > bytes {
        return Err(format!(
            "{at}{} bytes of data for a surface of {bytes}",
            data.len()
        ));
    }
    Ok((d, data))
}

/// Writes the descriptor table into global memory, a descriptor per handle (zero words where
/// nothing is bound), and returns where it is and what is bound.
fn descriptor_table(
    global: &mut Global,
    bound: Vec<Option<(Binding, Descriptor)>>,
) -> Result<Surfaces> {
    let mut bytes = Vec::with_capacity(bound.len() * sgpu_isa::abi::SURF_WORDS * 4);
    let mut bindings = Vec::with_capacity(bound.len());
    for entry in bound {
        let words = match &entry {
            Some((b, d)) => d.words().map_err(|e| format!("surfaces.{}: {e}", b.name))?,
            None => [0; sgpu_isa::abi::SURF_WORDS],
        };
        bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        bindings.push(entry.map(|(b, _)| b));
    }
    let table = if bytes.is_empty() {
        0
    } else {
        let len = bytes.len();
        global.alloc("(surface descriptors)", bytes, len)
    };
    Ok(Surfaces {
        table,
        bound: bindings,
    })
}

/// The bytes of a buffer or surface: a surface's are packed, row after row, as the manifest
/// gives them.
pub fn bytes_of<'p>(p: &'p Prepared, name: &str) -> Option<&'p [u8]> {
    let regions = &p.global.regions;
    let region = match p.surfaces.bound.iter().flatten().find(|b| b.name == name) {
        Some(b) => regions.iter().find(|r| r.base == b.data),
        None => regions.iter().find(|r| r.name == name),
    };
    region.map(|r| r.bytes.as_slice())
}

/// A copy of [`bytes_of`], for `--dump`.
pub fn dump(p: &Prepared, name: &str) -> Option<Vec<u8>> {
    bytes_of(p, name).map(<[u8]>::to_vec)
}
