//! The assembly text form: helpers for the generated printer and parser.
//!
//! `@!P0 IADD.CC R1, R2, 0x4`: an optional guard, the mnemonic and its modifiers joined by
//! dots, then the operands. Registers are `R0`..`R254` and `RZ`, predicates `P0`..`P6` and
//! `PT`, immediates hexadecimal, addresses `[R2+0x10]`, constants `c[0x0][RZ+0x160]`,
//! surfaces `S3` (a descriptor slot) or a register, special registers `SR_TID.X`.

use crate::{ParseError, Pred, PredSrc, Reg, RegOrImm, Surface};
use std::fmt;

pub fn modifier(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    if name.is_empty() {
        Ok(())
    } else {
        write!(f, ".{name}")
    }
}

pub fn signed(f: &mut fmt::Formatter<'_>, value: i32) -> fmt::Result {
    if value < 0 {
        write!(f, "-{:#x}", value.unsigned_abs())
    } else {
        write!(f, "{value:#x}")
    }
}

pub fn address(f: &mut fmt::Formatter<'_>, base: Reg, offset: i32) -> fmt::Result {
    write!(f, "[{base}")?;
    if offset > 0 {
        write!(f, "+{offset:#x}")?;
    } else if offset < 0 {
        write!(f, "-{:#x}", offset.unsigned_abs())?;
    }
    f.write_str("]")
}

/// A line split into guard, mnemonic, modifiers and operands.
type Parts<'s> = (PredSrc, &'s str, Vec<&'s str>, Vec<&'s str>);

/// Splits a line into guard, mnemonic, modifiers and operands.
pub fn split(source: &str) -> Result<Parts<'_>, ParseError> {
    let mut rest = source.trim();
    rest = rest.strip_suffix(';').unwrap_or(rest).trim_end();
    let mut guard = PredSrc::ALWAYS;
    if let Some(g) = rest.strip_prefix('@') {
        let (p, tail) = g
            .split_once(char::is_whitespace)
            .ok_or_else(|| ParseError::new("a guard needs an instruction after it"))?;
        guard = pred_src(p)?;
        rest = tail.trim_start();
    }
    let (head, operands) = match rest.split_once(char::is_whitespace) {
        Some((h, o)) => (h, o.trim()),
        None => (rest, ""),
    };
    let mut parts = head.split('.');
    let mnemonic = parts.next().unwrap_or("");
    if mnemonic.is_empty() {
        return Err(ParseError::new("expected an instruction"));
    }
    let operands = if operands.is_empty() {
        Vec::new()
    } else {
        operands.split(',').map(str::trim).collect()
    };
    Ok((guard, mnemonic, parts.collect(), operands))
}

/// The modifiers of one instruction, handed out to its fields in table order.
pub struct Modifiers<'s> {
    tokens: Vec<(&'s str, bool)>,
}

impl<'s> Modifiers<'s> {
    pub fn new(tokens: Vec<&'s str>) -> Modifiers<'s> {
        Modifiers {
            tokens: tokens.into_iter().map(|t| (t, false)).collect(),
        }
    }

    /// Whether the flag printed as `name` is present.
    pub fn flag(&mut self, name: &str) -> bool {
        self.take(|t| (t == name).then_some(())).is_some()
    }

    /// The first unused modifier that `parse` accepts.
    pub fn take<T>(&mut self, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
        for (token, used) in &mut self.tokens {
            if *used {
                continue;
            }
            if let Some(v) = parse(token) {
                *used = true;
                return Some(v);
            }
        }
        None
    }

    /// Fails on a modifier no field took.
    pub fn finish(&self, mnemonic: &str) -> Result<(), ParseError> {
        match self.tokens.iter().find(|(_, used)| !used) {
            Some((t, _)) => Err(ParseError::new(format!(
                "`.{t}` is not a modifier of `{mnemonic}` here"
            ))),
            None => Ok(()),
        }
    }
}

pub fn operands<'s, const N: usize>(
    mnemonic: &str,
    ops: &[&'s str],
) -> Result<[&'s str; N], ParseError> {
    <[&str; N]>::try_from(ops).map_err(|_| {
        ParseError::new(format!(
            "`{mnemonic}` takes {N} operands, found {}",
            ops.len()
        ))
    })
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

pub fn unsigned(s: &str, width: u32) -> Result<u64, ParseError> {
    match number(s) {
        Some(v) if width >= 64 || v >> width == 0 => Ok(v),
        Some(_) => Err(ParseError::new(format!(
            "`{s}` does not fit in {width} bits"
        ))),
        None => Err(ParseError::new(format!(
            "expected an immediate, found `{s}`"
        ))),
    }
}

pub fn signed_imm(s: &str, width: u32) -> Result<i32, ParseError> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let magnitude = number(digits)
        .ok_or_else(|| ParseError::new(format!("expected an immediate, found `{s}`")))?;
    let value = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    let limit = 1i128 << (width - 1);
    if value < -limit || value >= limit {
        return Err(ParseError::new(format!(
            "`{s}` does not fit in {width} signed bits"
        )));
    }
    Ok(value as i32)
}

pub fn reg(s: &str) -> Result<Reg, ParseError> {
    if s == "RZ" {
        return Ok(Reg::RZ);
    }
    match s.strip_prefix('R').and_then(|n| n.parse::<u8>().ok()) {
        Some(n) if n < 255 && s.len() == 1 + n.to_string().len() => Ok(Reg(n)),
        _ => Err(ParseError::new(format!("expected a register, found `{s}`"))),
    }
}

pub fn pred(s: &str) -> Result<Pred, ParseError> {
    if s == "PT" {
        return Ok(Pred::PT);
    }
    match s.strip_prefix('P').and_then(|n| n.parse::<u8>().ok()) {
        Some(n) if n < 7 && s.len() == 2 => Ok(Pred(n)),
        _ => Err(ParseError::new(format!(
            "expected a predicate, found `{s}`"
        ))),
    }
}

pub fn pred_src(s: &str) -> Result<PredSrc, ParseError> {
    Ok(match s.strip_prefix('!') {
        Some(p) => PredSrc {
            pred: pred(p)?,
            negated: true,
        },
        None => PredSrc {
            pred: pred(s)?,
            negated: false,
        },
    })
}

pub fn reg_or_imm(s: &str) -> Result<RegOrImm, ParseError> {
    if s.starts_with('R') {
        return reg(s).map(RegOrImm::Reg);
    }
    unsigned(s, 8).map(|v| RegOrImm::Imm(v as u8))
}

pub fn surface(s: &str) -> Result<Surface, ParseError> {
    match s.strip_prefix('S') {
        Some(n) => unsigned(n, 8).map(|v| Surface::Slot(v as u8)),
        None => reg(s).map(Surface::Handle),
    }
}

/// A special register: `SR_TID.X`.
pub fn special<T>(s: &str, from_name: impl Fn(&str) -> Option<T>) -> Result<T, ParseError> {
    s.strip_prefix("SR_")
        .and_then(from_name)
        .ok_or_else(|| ParseError::new(format!("expected a special register, found `{s}`")))
}

/// A register with an optional selector: `R2.B1`.
pub fn selected<T: Default>(
    s: &str,
    from_name: impl Fn(&str) -> Option<T>,
) -> Result<(Reg, T), ParseError> {
    match s.split_once('.') {
        Some((r, sel)) => Ok((
            reg(r)?,
            from_name(sel).ok_or_else(|| ParseError::new(format!("`.{sel}` is not a selector")))?,
        )),
        None => Ok((reg(s)?, T::default())),
    }
}

/// `[R2]`, `[R2+0x10]`, `[R2-0x10]`; `width` 0 takes no offset.
pub fn address_of(s: &str, width: u32) -> Result<(Reg, i32), ParseError> {
    let inner = s
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| ParseError::new(format!("expected an address `[...]`, found `{s}`")))?;
    let (base, offset) = match inner.find(['+', '-']) {
        Some(i) => {
            let sign = if &inner[i..=i] == "-" { "-" } else { "" };
            let offset = format!("{sign}{}", &inner[i + 1..]);
            (&inner[..i], Some(offset))
        }
        None => (inner, None),
    };
    let offset = match offset {
        None => 0,
        Some(_) if width == 0 => {
            return Err(ParseError::new(format!("`{s}` takes no offset")));
        }
        Some(o) => signed_imm(&o, width)?,
    };
    Ok((reg(base)?, offset))
}

/// `c[0x3][R2+0x10]`.
pub fn constant(s: &str, bank_width: u32, width: u32) -> Result<(u8, Reg, i32), ParseError> {
    let bad = || ParseError::new(format!("expected a constant `c[bank][...]`, found `{s}`"));
    let rest = s.strip_prefix("c[").ok_or_else(bad)?;
    let (bank, address) = rest.split_once(']').ok_or_else(bad)?;
    let bank = unsigned(bank, bank_width)? as u8;
    let (base, offset) = address_of(address, width)?;
    Ok((bank, base, offset))
}
