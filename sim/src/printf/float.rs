//! The digits of `%f`, `%e`, `%g` and `%a` for a finite, non-negative double, as glibc's
//! printf gives them (the sign, padding and case are `format.rs`'s). The decimal forms take
//! Rust's formatting of the exact binary value, correctly rounded with ties to even as
//! glibc's, integer arithmetic throughout, so the host's floating point never rounds.

/// `%.Nf`: `precision` digits after the point; with `alt` the point stays when there are
/// none.
pub fn fixed(x: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{x:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// `%.Ne`: one digit, the point, `precision` digits, then `e`, the exponent's sign and at
/// least two of its digits.
pub fn exponent(x: f64, precision: usize, alt: bool) -> String {
    let (mantissa, exp) = scientific(x, precision);
    let mut s = mantissa;
    if alt && precision == 0 {
        s.push('.');
    }
    let sign = if exp < 0 { '-' } else { '+' };
    s.push_str(&format!("e{sign}{:02}", exp.unsigned_abs()));
    s
}

/// `%.Ng`: `%e` or `%f` by the exponent, with `precision` significant digits (6 when not
/// given, 1 for 0), trailing zeros and a bare point removed unless `alt`.
pub fn general(x: f64, precision: Option<usize>, alt: bool) -> String {
    let p = match precision {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    };
    // The exponent %e would show, after its rounding (9.9999995 is 1e+01 at six digits).
    let exp = if x == 0.0 { 0 } else { scientific(x, p - 1).1 };
    let mut s = if exp >= -4 && (exp as i64) < p as i64 {
        fixed(x, (p as i64 - 1 - exp as i64) as usize, alt)
    } else {
        exponent(x, p - 1, alt)
    };
    if !alt {
        let end = s.find('e').unwrap_or(s.len());
        let (digits, tail) = s.split_at(end);
        if digits.contains('.') {
            let kept = digits.trim_end_matches('0').trim_end_matches('.');
            s = format!("{kept}{tail}");
        }
    }
    s
}

/// The mantissa (`d.ddd`, `precision` digits after the point) and the decimal exponent of
/// `x` in scientific notation, rounded.
fn scientific(x: f64, precision: usize) -> (String, i32) {
    let s = format!("{x:.precision$e}");
    let (mantissa, exp) = s.split_once('e').expect("Rust's {:e} has an exponent");
    (
        mantissa.to_string(),
        exp.parse().expect("a decimal exponent"),
    )
}

/// Bits of a double's fraction, and the hexadecimal digits they make.
const FRACTION_BITS: u32 = 52;
const FRACTION_DIGITS: usize = 13;

/// `%a` without the `0x`: the leading digit (1 for normal values, 0 for zero and
/// subnormals, which are not normalised, as glibc prints them), the fraction in hexadecimal
/// (all its digits but trailing zeros when no precision is given, else rounded to
/// `precision` digits, ties to even, a carry going into the leading digit), then `p` and the
/// binary exponent in decimal.
pub fn hex(x: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = x.to_bits();
    let biased = (bits >> FRACTION_BITS) as i32 & 0x7ff;
    let mut fraction = bits & ((1 << FRACTION_BITS) - 1);
    let (mut lead, exp) = match (biased, fraction) {
        (0, 0) => (0, 0),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let digits = match precision {
        None => {
            let zeros = (fraction.trailing_zeros() / 4) as usize;
            FRACTION_DIGITS - zeros.min(FRACTION_DIGITS)
        }
        Some(p) => p,
    };
    if digits < FRACTION_DIGITS {
        let cut = 4 * (FRACTION_DIGITS - digits) as u32;
        let (kept, rest, half) = (fraction >> cut, fraction & ((1 << cut) - 1), 1 << (cut - 1));
        // Ties go to an even last digit: the leading one when no fraction digit is kept.
        let last = if digits == 0 { u64::from(lead) } else { kept };
        let up = rest > half || (rest == half && (last & 1) == 1);
        fraction = kept + u64::from(up);
        lead += (fraction >> (4 * digits)) as u32;
        fraction &= (1 << (4 * digits)) - 1;
    }
    let mut s = format!("{lead}");
    if digits > 0 || alt {
        s.push('.');
    }
    if digits > 0 {
        let shown = digits.min(FRACTION_DIGITS);
        s.push_str(&format!("{fraction:0shown$x}"));
        s.extend(std::iter::repeat_n('0', digits - shown));
    }
    let sign = if exp < 0 { '-' } else { '+' };
    s.push_str(&format!("p{sign}{}", exp.unsigned_abs()));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected string is what glibc 2.36's printf gives.

    #[test]
    fn fixed_rounds_the_exact_value_ties_to_even() {
        assert_eq!(fixed(0.5, 0, false), "0");
        assert_eq!(fixed(1.5, 0, false), "2");
        assert_eq!(fixed(2.5, 0, false), "2");
        assert_eq!(fixed(2.0005, 3, false), "2.001");
        assert_eq!(fixed(1.0, 0, true), "1.");
        assert_eq!(fixed(0.1, 30, false), "0.100000000000000005551115123126");
        assert_eq!(fixed(1e300, 0, false).len(), 301);
    }

    #[test]
    fn exponent_has_two_digits_at_least() {
        assert_eq!(exponent(1234.5678, 6, false), "1.234568e+03");
        assert_eq!(exponent(15.5, 0, false), "2e+01");
        assert_eq!(exponent(2.0, 0, true), "2.e+00");
        assert_eq!(exponent(1e-300, 6, false), "1.000000e-300");
        assert_eq!(exponent(5e-324, 6, false), "4.940656e-324");
        assert_eq!(exponent(0.0, 2, false), "0.00e+00");
    }

    #[test]
    fn general_picks_the_shorter_form() {
        let g = |x| general(x, None, false);
        assert_eq!(g(100000.0), "100000");
        assert_eq!(g(1000000.0), "1e+06");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(123456789.0), "1.23457e+08");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(1e15), "1e+15");
        assert_eq!(g(9.9999995), "10");
        assert_eq!(general(0.5, Some(0), false), "0.5");
        assert_eq!(general(5.14159, Some(3), false), "5.14");
        assert_eq!(general(1.0, None, true), "1.00000");
        assert_eq!(general(1.0, Some(3), true), "1.00");
        assert_eq!(general(100.0, None, true), "100.000");
        // C's rule, where glibc 2.36 prints 1.e+06.
        assert_eq!(general(999999.5, None, true), "1.00000e+06");
        assert_eq!(general(0.1, Some(20), false), "0.10000000000000000555");
        assert_eq!(general(0.1, Some(17), false), "0.10000000000000001");
    }

    #[test]
    fn hex_keeps_glibcs_leading_digit() {
        assert_eq!(hex(1.0, None, false), "1p+0");
        assert_eq!(hex(1.0, None, true), "1.p+0");
        assert_eq!(hex(0.0, None, false), "0p+0");
        assert_eq!(hex(0.0, Some(3), false), "0.000p+0");
        assert_eq!(hex(1.5, None, false), "1.8p+0");
        assert_eq!(hex(255.5, None, false), "1.ffp+7");
        assert_eq!(hex(5e-324, None, false), "0.0000000000001p-1022");
        assert_eq!(hex(f64::MIN_POSITIVE, None, false), "1p-1022");
        // Rounded to nearest, ties to even, a carry kept in the leading digit.
        assert_eq!(hex(1.5, Some(0), false), "2p+0");
        assert_eq!(hex(2.5, Some(0), false), "1p+1");
        assert_eq!(hex(3.5, Some(0), false), "2p+1");
        assert_eq!(hex(1.09375, Some(1), false), "1.2p+0"); // 0x1.18p+0
        assert_eq!(hex(1.15625, Some(1), false), "1.2p+0"); // 0x1.28p+0
        assert_eq!(hex(1.0234375, Some(1), false), "1.0p+0"); // 0x1.06p+0
        assert_eq!(hex(1.0 + 4095.0 / 4096.0, Some(2), false), "2.00p+0"); // 0x1.fffp+0
        assert_eq!(hex(f64::MAX, Some(0), false), "2p+1023");
        assert_eq!(hex(1.0, Some(15), false), "1.000000000000000p+0");
    }
}
