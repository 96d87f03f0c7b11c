//! C's printf over a record's argument bytes, as glibc formats (CUDA formats device printf
//! on the host, with the host's C library): flags, width, precision and length modifiers,
//! `%d %i %u %o %x %X %c %s %p %f %F %e %E %g %G %a %A %%`. What C leaves undefined is done
//! as glibc does it, but for what a record cannot carry:
//!
//! - a conversion whose argument is missing (a record holds at most 32, as CUDA's) is
//!   printed as written, as CUDA prints the conversions past its 32 arguments;
//! - an unknown conversion (`%k`, and `%n`, which CUDA does not take) is printed as written,
//!   taking no argument; a specification cut off by the format's end prints nothing;
//! - `%s` of an address where no global or constant memory is prints `(unreadable 0x...)`;
//! - `%#g` of a value that rounds up to a power of ten keeps its zeros, as C says
//!   (`1.00000e+06` for 999999.5; glibc 2.36 prints `1.e+06`).

use super::float;
use super::spec::{self, Count, Flags, Length, Spec};

/// Where strings are: the bytes at a generic address up to the end of the memory there
/// (the string is what comes before the first NUL), or `None` where there is no memory.
pub type Strings<'m> = dyn Fn(u64) -> Option<&'m [u8]> + 'm;

/// `format` (its bytes before the NUL) formatted with the arguments packed in `args` as the
/// printf runtime copies them (each at a multiple of its size); `%s` strings from
/// `strings`.
pub fn format(format: &[u8], args: &[u8], strings: &Strings<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(format.len());
    let mut args = Args { bytes: args, at: 0 };
    let mut rest = format;
    while let Some(percent) = rest.iter().position(|&c| c == b'%') {
        out.extend_from_slice(&rest[..percent]);
        let spec = spec::parse(&rest[percent..]);
        convert(&mut out, &spec, &mut args, strings);
        rest = &rest[percent + spec.text.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// The arguments not yet taken.
struct Args<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Args<'_> {
    /// The next argument of `size` bytes (4 or 8), at a multiple of its size.
    fn take(&mut self, size: usize) -> Option<u64> {
        let start = self.at.div_ceil(size) * size;
        let bytes = self.bytes.get(start..start + size)?;
        self.at = start + size;
        let mut le = [0; 8];
        le[..size].copy_from_slice(bytes);
        Some(u64::from_le_bytes(le))
    }
}

/// One conversion specification's output.
fn convert(out: &mut Vec<u8>, spec: &Spec<'_>, args: &mut Args<'_>, strings: &Strings<'_>) {
    let size = spec.size();
    let conversion = match spec.conversion {
        // Cut off by the format's end: nothing, as glibc prints.
        None => return,
        Some(b'%') if size == 0 => return out.push(b'%'),
        Some(_) if size == 0 => return out.extend_from_slice(spec.text),
        Some(c) => c,
    };
    // The `*` arguments come first, ints; a negative width is the `-` flag and its
    // magnitude, a negative precision none.
    let mut flags = spec.flags;
    let mut star = |count: Option<Count>| match count {
        Some(Count::Star) => args.take(4).map(|v| Some(v as u32 as i32)),
        Some(Count::Given(n)) => Some(Some(n as i32)),
        None => Some(None),
    };
    let (Some(width), Some(precision)) = (star(spec.width), star(spec.precision)) else {
        return out.extend_from_slice(spec.text);
    };
    let Some(value) = args.take(size) else {
        return out.extend_from_slice(spec.text);
    };
    let width = width.map_or(0, |w| {
        flags.left |= w < 0;
        (w.unsigned_abs() as usize).min(spec::MAX_FIELD)
    });
    let precision = precision
        .and_then(|p| usize::try_from(p).ok())
        .map(|p| p.min(spec::MAX_FIELD));
    let field = Field { flags, width };
    match conversion {
        b'd' | b'i' => {
            let v = match spec.length {
                Length::Char => i64::from(value as i8),
                Length::Short => i64::from(value as i16),
                Length::Int => i64::from(value as i32),
                Length::Long => value as i64,
            };
            let sign = field.sign(v < 0);
            integer(out, field, sign, conversion, v.unsigned_abs(), precision);
        }
        b'o' | b'u' | b'x' | b'X' => {
            let v = match spec.length {
                Length::Char => u64::from(value as u8),
                Length::Short => u64::from(value as u16),
                Length::Int => u64::from(value as u32),
                Length::Long => value,
            };
            integer(out, field, "", conversion, v, precision);
        }
        b'p' if value == 0 => field.pad(out, "", b"(nil)", false),
        b'p' => {
            let sign = field.sign(false);
            let prefix = format!("{sign}0x");
            let digits = zero_extended(format!("{value:x}"), precision);
            field.pad(out, &prefix, digits.as_bytes(), precision.is_none());
        }
        b'c' => field.pad(out, "", &[value as u8], false),
        b's' => string(out, field, value, precision, strings),
        _ => real(out, field, conversion, f64::from_bits(value), precision),
    }
}

/// A conversion's flags and width: how its text is padded.
#[derive(Clone, Copy)]
struct Field {
    flags: Flags,
    width: usize,
}

impl Field {
    /// The sign of a signed conversion's value: `-`, or for a positive one `+` or ` ` as the
    /// flags ask.
    fn sign(self, negative: bool) -> &'static str {
        match (negative, self.flags.plus, self.flags.space) {
            (true, ..) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        }
    }

    /// `prefix` (a sign, `0x`) and `body` padded to the width: with spaces on the left, on
    /// the right for `-`, or with zeros between the two where `zeros` allows the `0` flag.
    fn pad(self, out: &mut Vec<u8>, prefix: &str, body: &[u8], zeros: bool) {
        let fill = self.width.saturating_sub(prefix.len() + body.len());
        let spaces = std::iter::repeat_n(b' ', fill);
        if self.flags.left {
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(body);
            out.extend(spaces);
        } else if zeros && self.flags.zero {
            out.extend_from_slice(prefix.as_bytes());
            out.extend(std::iter::repeat_n(b'0', fill));
            out.extend_from_slice(body);
        } else {
            out.extend(spaces);
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(body);
        }
    }
}

/// `digits` with zeros before them up to `precision` digits.
fn zero_extended(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) if p > digits.len() => "0".repeat(p - digits.len()) + &digits,
        _ => digits,
    }
}

/// An integer conversion of `magnitude` after `sign`: at least `precision` digits (none for
/// a zero of precision 0), `#`'s leading `0` or `0x`, zeros from the `0` flag only without
/// a precision.
fn integer(
    out: &mut Vec<u8>,
    field: Field,
    sign: &str,
    conversion: u8,
    magnitude: u64,
    precision: Option<usize>,
) {
    let digits = match (precision, conversion) {
        (Some(0), _) if magnitude == 0 => String::new(),
        (_, b'o') => format!("{magnitude:o}"),
        (_, b'x') => format!("{magnitude:x}"),
        (_, b'X') => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    let mut digits = zero_extended(digits, precision);
    let alt = field.flags.alt;
    if alt && conversion == b'o' && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    let base = match conversion {
        b'x' if alt && magnitude != 0 => "0x",
        b'X' if alt && magnitude != 0 => "0X",
        _ => "",
    };
    let prefix = format!("{sign}{base}");
    field.pad(out, &prefix, digits.as_bytes(), precision.is_none());
}

/// `%s` of the string at `address`, at most `precision` bytes of it; a null pointer is
/// `(null)`, or nothing when the precision is below its six letters (glibc's rule).
fn string(
    out: &mut Vec<u8>,
    field: Field,
    address: u64,
    precision: Option<usize>,
    strings: &Strings<'_>,
) {
    let unreadable;
    let text: &[u8] = match strings(address) {
        _ if address == 0 => match precision {
            Some(p) if p < 6 => b"",
            _ => b"(null)",
        },
        Some(bytes) => {
            let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
            &bytes[..end]
        }
        None => {
            unreadable = format!("(unreadable {address:#x})");
            unreadable.as_bytes()
        }
    };
    let text = &text[..precision.map_or(text.len(), |p| p.min(text.len()))];
    field.pad(out, "", text, false);
}

/// A double: infinities and NaNs as `inf` and `nan` (capitals for `%F %E %G %A`), with
/// their sign and never zeros from the `0` flag; numbers as the conversion writes them.
fn real(out: &mut Vec<u8>, field: Field, conversion: u8, x: f64, precision: Option<usize>) {
    let sign = field.sign(x.is_sign_negative());
    let upper = conversion.is_ascii_uppercase();
    let case = |s: String| if upper { s.to_ascii_uppercase() } else { s };
    if !x.is_finite() {
        let text = if x.is_nan() { "nan" } else { "inf" };
        return field.pad(out, sign, case(text.to_string()).as_bytes(), false);
    }
    let (x, alt, p) = (x.abs(), field.flags.alt, precision.unwrap_or(6));
    let (base, digits) = match conversion.to_ascii_lowercase() {
        b'f' => ("", float::fixed(x, p, alt)),
        b'e' => ("", float::exponent(x, p, alt)),
        b'g' => ("", float::general(x, precision, alt)),
        _ => (
            if upper { "0X" } else { "0x" },
            float::hex(x, precision, alt),
        ),
    };
    let prefix = format!("{sign}{base}");
    field.pad(out, &prefix, case(digits).as_bytes(), true);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected string is what glibc 2.36's printf gives for the same format and
    // arguments, but where this module's header says otherwise.

    /// An argument as the printf runtime packs it.
    #[derive(Clone, Copy)]
    enum Arg<'s> {
        I(i32),
        L(i64),
        D(f64),
        S(&'s str),
        P(u64),
    }
    use Arg::*;

    /// Where `check` puts the strings of `S` arguments, as if in global memory.
    const STRINGS: u64 = 0x1_0000_0000;

    fn check(fmt: &str, args: &[Arg<'_>], expect: &str) {
        let mut bytes = Vec::new();
        let mut memory = Vec::new();
        for &a in args {
            let (value, size) = match a {
                I(v) => (u64::from(v as u32), 4),
                L(v) => (v as u64, 8),
                D(v) => (v.to_bits(), 8),
                P(v) => (v, 8),
                S(s) => {
                    let at = STRINGS + memory.len() as u64;
                    memory.extend_from_slice(s.as_bytes());
                    memory.push(0);
                    (at, 8)
                }
            };
            bytes.resize(bytes.len().div_ceil(size) * size, 0);
            bytes.extend_from_slice(&value.to_le_bytes()[..size]);
        }
        let strings = |address: u64| {
            let at = usize::try_from(address.checked_sub(STRINGS)?).ok()?;
            memory.get(at..)
        };
        let got = format(fmt.as_bytes(), &bytes, &strings);
        assert_eq!(String::from_utf8_lossy(&got), expect, "{fmt}");
    }

    #[test]
    fn signed_integers() {
        check("%d %i", &[I(42), I(-7)], "42 -7");
        check("%d", &[I(i32::MIN)], "-2147483648");
        check("%ld", &[L(i64::MIN)], "-9223372036854775808");
        check(
            "%lld %zd %jd %td",
            &[L(5), L(-1), L(-1), L(-1)],
            "5 -1 -1 -1",
        );
        check("%hhd %hd", &[I(300), I(70000)], "44 4464");
        check("%+d % d %+d", &[I(5), I(5), I(-5)], "+5  5 -5");
        check(
            "[%5d] [%-5d] [%05d]",
            &[I(42), I(42), I(-42)],
            "[   42] [42   ] [-0042]",
        );
        check(
            "[%+.3d] [% 05d] [%+05d]",
            &[I(5), I(7), I(-3)],
            "[+005] [ 0007] [-0003]",
        );
        check(
            "[%.0d] [%5.0d] [%08.3d]",
            &[I(0), I(0), I(7)],
            "[] [     ] [     007]",
        );
    }

    #[test]
    fn unsigned_integers() {
        check("%u %u", &[I(-1), I(7)], "4294967295 7");
        check(
            "%llu %lx %lX",
            &[L(-1), L(255), L(255)],
            "18446744073709551615 ff FF",
        );
        check("%hhu %hu %hhx", &[I(300), I(70000), I(-1)], "44 4464 ff");
        check("%o %x %X", &[I(8), I(0xbeef), I(0xbeef)], "10 beef BEEF");
        check(
            "[%#x] [%#o] [%#.0o] [%#5x]",
            &[I(16), I(8), I(0), I(0)],
            "[0x10] [010] [0] [    0]",
        );
        check("[%#05x] [%-#8o]", &[I(255), I(255)], "[0x0ff] [0377    ]");
        check("[%+u] [% u]", &[I(8), I(5)], "[8] [5]");
    }

    #[test]
    fn characters_and_strings() {
        check("%c%c%c", &[I(65), I(66), I(0x143)], "ABC");
        check(
            "[%-3c] [%05c] [%.0c]",
            &[I(68), I(97), I(67)],
            "[D  ] [    a] [C]",
        );
        check("%s, %s!", &[S("hello"), S("world")], "hello, world!");
        check("[%s]", &[S("")], "[]");
        check(
            "[%10s] [%-6s] [%.2s] [%05s]",
            &[S("abc"), S("ab"), S("xyz"), S("ab")],
            "[       abc] [ab    ] [xy] [   ab]",
        );
        check(
            "[%s] [%.3s] [%.6s] [%10.3s]",
            &[P(0), P(0), P(0), P(0)],
            "[(null)] [] [(null)] [          ]",
        );
        check("[%s]", &[P(0x1234)], "[(unreadable 0x1234)]");
    }

    #[test]
    fn pointers() {
        check("%p %p", &[P(0x1234), P(0)], "0x1234 (nil)");
        check(
            "[%+p] [% p] [%020p] [%.3p] [%10p]",
            &[P(0x1234), P(0x1234), P(0x1234), P(0x1234), P(0)],
            "[+0x1234] [ 0x1234] [0x000000000000001234] [0x1234] [     (nil)]",
        );
    }

    #[test]
    fn doubles() {
        check(
            "%f %e %g",
            &[D(1.5), D(1.5), D(1.5)],
            "1.500000 1.500000e+00 1.5",
        );
        check(
            "[%.0e] [%#.0e] [%E]",
            &[D(15.5), D(2.0), D(1e-300)],
            "[2e+01] [2.e+00] [1.000000E-300]",
        );
        check(
            "[%g] [%g] [%G] [%#g] [%.0g]",
            &[D(1e6), D(1e-5), D(1e-10), D(1.0), D(0.5)],
            "[1e+06] [1e-05] [1E-10] [1.00000] [0.5]",
        );
        check(
            "[%10.3g] [%-10.3e] [%+f] [% f]",
            &[D(5.14159), D(5.14159), D(1.0), D(1.0)],
            "[      5.14] [5.142e+00 ] [+1.000000] [ 1.000000]",
        );
        check(
            "[%010.2f] [%-010.2f] [%F]",
            &[D(-5.14159), D(5.14159), D(2.5)],
            "[-000005.14] [5.14      ] [2.500000]",
        );
        check("[%g] [%f]", &[D(-0.0), D(-0.0)], "[-0] [-0.000000]");
        check(
            "%.17g %.3f",
            &[D(0.1), D(2.0005)],
            "0.10000000000000001 2.001",
        );
        check(
            "%a %A %a",
            &[D(1.0), D(255.5), D(5e-324)],
            "0x1p+0 0X1.FFP+7 0x0.0000000000001p-1022",
        );
        check(
            "[%020a] [%.0a] [%#a]",
            &[D(-1.5), D(1.5), D(1.0)],
            "[-0x000000000001.8p+0] [0x2p+0] [0x1.p+0]",
        );
    }

    #[test]
    fn infinities_and_nans() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        check(
            "[%f] [%e] [%g] [%a]",
            &[D(inf), D(-inf), D(nan), D(-nan)],
            "[inf] [-inf] [nan] [-nan]",
        );
        check(
            "[%F] [%E] [%G] [%A]",
            &[D(inf), D(-inf), D(nan), D(-nan)],
            "[INF] [-INF] [NAN] [-NAN]",
        );
        check(
            "[%05f] [%-8f] [%+f] [% e] [%10f]",
            &[D(-inf), D(nan), D(inf), D(inf), D(inf)],
            "[ -inf] [nan     ] [+inf] [ inf] [       inf]",
        );
    }

    #[test]
    fn widths_and_precisions_from_arguments() {
        check(
            "[%*d] [%-*d] [%*d]",
            &[I(5), I(42), I(5), I(42), I(-5), I(42)],
            "[   42] [42   ] [42   ]",
        );
        check(
            "[%.*d] [%.*d] [%*.*f]",
            &[I(4), I(7), I(-1), I(7), I(8), I(2), D(5.14159)],
            "[0007] [7] [    5.14]",
        );
    }

    #[test]
    fn arguments_sit_at_multiples_of_their_size() {
        check(
            "%d %lld %d %f %d",
            &[I(1), L(2), I(3), D(4.0), I(5)],
            "1 2 3 4.000000 5",
        );
    }

    #[test]
    fn percent_unknown_conversions_and_missing_arguments() {
        check("100%% [%5%]", &[], "100% [%]");
        check("[%k] [%-5k] [%5.3k] %d", &[I(1)], "[%k] [%-5k] [%5.3k] 1");
        check("%n%d", &[I(3)], "%n3");
        check("%d %d %s %f", &[I(1)], "1 %d %s %f");
        check("%*d", &[I(5)], "%*d");
        check("cut %", &[], "cut ");
        check("cut %-5", &[], "cut ");
        check("no conversions\n", &[], "no conversions\n");
    }
}
