//! A conversion specification of a printf format, `%[flags][width][.precision][length]
//! conversion`, read as the printf runtime reads it on the device
//! (`encoder/runtime/printf.cu`, `argument_bytes`): the two must agree on which arguments a
//! format takes and their sizes, since the record holds only their bytes.

/// Widths and precisions above this are taken as this: a field of a mebibyte is more than
/// anyone prints, and a format from a kernel must not make the host allocate gigabytes.
pub const MAX_FIELD: usize = 1 << 20;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: a sign for positive values too.
    pub plus: bool,
    /// ` `: a space where a positive value has no sign.
    pub space: bool,
    /// `#`: the alternative form (`0x`, a leading `0`, a point that stays).
    pub alt: bool,
    /// `0`: pad numbers with zeros after the sign.
    pub zero: bool,
}

/// A width or a precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Given(usize),
    /// `*`: the next argument, an int.
    Star,
}

/// The length modifier, as far as it matters after C's default promotions: the size of an
/// integer argument and the width it is converted at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// `hh`: an int converted to char.
    Char,
    /// `h`: an int converted to short.
    Short,
    /// none: an int.
    Int,
    /// `l`, `ll`, `j`, `z`, `t` (and `L`): 64 bits.
    Long,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec<'f> {
    pub flags: Flags,
    pub width: Option<Count>,
    pub precision: Option<Count>,
    pub length: Length,
    /// The conversion character; `None` where the format ends first.
    pub conversion: Option<u8>,
    /// The specification as written, from `%` through the conversion.
    pub text: &'f [u8],
}

/// The specification at the start of `format`, which starts with `%`.
pub fn parse(format: &[u8]) -> Spec<'_> {
    let at = |i: usize| format.get(i).copied().unwrap_or(0);
    let mut i = 1;
    let mut flags = Flags::default();
    loop {
        match at(i) {
            b'-' => flags.left = true,
            b'+' => flags.plus = true,
            b' ' => flags.space = true,
            b'#' => flags.alt = true,
            b'0' => flags.zero = true,
            _ => break,
        }
        i += 1;
    }
    let width = count(format, &mut i);
    let precision = if at(i) == b'.' {
        i += 1;
        Some(count(format, &mut i).unwrap_or(Count::Given(0)))
    } else {
        None
    };
    let (length, skip) = match (at(i), at(i + 1)) {
        (b'h', b'h') => (Length::Char, 2),
        (b'h', _) => (Length::Short, 1),
        (b'l', b'l') => (Length::Long, 2),
        (b'l' | b'j' | b'z' | b't' | b'L', _) => (Length::Long, 1),
        _ => (Length::Int, 0),
    };
    i += skip;
    let conversion = (i < format.len()).then(|| format[i]);
    Spec {
        flags,
        width,
        precision,
        length,
        conversion,
        text: &format[..(i + 1).min(format.len())],
    }
}

/// `*` or decimal digits at `format[*i]`, moving `i` past them; `None` for neither.
fn count(format: &[u8], i: &mut usize) -> Option<Count> {
    if format.get(*i) == Some(&b'*') {
        *i += 1;
        return Some(Count::Star);
    }
    let digits = format[*i..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let value = format[*i..*i + digits].iter().fold(0usize, |n, &c| {
        (n * 10 + usize::from(c - b'0')).min(MAX_FIELD)
    });
    *i += digits;
    Some(Count::Given(value))
}

impl Spec<'_> {
    /// The bytes of the conversion's argument, 4 or 8; 0 for `%%`, an unknown conversion
    /// and a specification the format's end cuts off, which take none.
    pub fn size(&self) -> usize {
        match self.conversion {
            Some(b'd' | b'i' | b'o' | b'u' | b'x' | b'X') if self.length == Length::Long => 8,
            Some(b'd' | b'i' | b'o' | b'u' | b'x' | b'X' | b'c') => 4,
            Some(b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' | b's' | b'p') => 8,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_is_read() {
        let s = parse(b"%-+ #012.5lld rest");
        let flags = Flags {
            left: true,
            plus: true,
            space: true,
            alt: true,
            zero: true,
        };
        assert_eq!(s.flags, flags);
        assert_eq!(s.width, Some(Count::Given(12)));
        assert_eq!(s.precision, Some(Count::Given(5)));
        assert_eq!(s.length, Length::Long);
        assert_eq!(s.conversion, Some(b'd'));
        assert_eq!(s.text, b"%-+ #012.5lld");
        assert_eq!(s.size(), 8);
    }

    #[test]
    fn sizes_follow_the_default_promotions() {
        let size = |f: &str| parse(f.as_bytes()).size();
        for f in ["%d", "%hhd", "%hu", "%x", "%c", "%lc", "%o"] {
            assert_eq!(size(f), 4, "{f}");
        }
        for f in [
            "%ld", "%lld", "%zu", "%jd", "%td", "%lX", "%f", "%Lf", "%a", "%s", "%p",
        ] {
            assert_eq!(size(f), 8, "{f}");
        }
        for f in ["%%", "%k", "%n", "%", "%5", "%l"] {
            assert_eq!(size(f), 0, "{f}");
        }
    }

    #[test]
    fn stars_and_bare_points() {
        let s = parse(b"%*.*f");
        assert_eq!(
            (s.width, s.precision),
            (Some(Count::Star), Some(Count::Star))
        );
        assert_eq!(parse(b"%.f").precision, Some(Count::Given(0)));
        assert_eq!(parse(b"%99999999999d").width, Some(Count::Given(MAX_FIELD)));
    }

    #[test]
    fn a_cut_off_specification_keeps_its_text() {
        let s = parse(b"%-5");
        assert_eq!((s.conversion, s.text), (None, &b"%-5"[..]));
    }
}
