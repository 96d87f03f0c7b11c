//! Single-precision arithmetic with every IEEE rounding mode, denormals kept unless `.ftz`.
//!
//! Rust's f32 operations round to nearest even. The other modes come from the exact error of
//! the nearest result (TwoSum for addition, a fused multiply-add for products, quotients and
//! square roots): when the error shows the exact value lies on the side the mode rounds away
//! from, the result steps one unit in the last place.

use sgpu_isa::Rnd;

/// Flushes a denormal to a zero of its sign.
pub fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        if x.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x
    }
}

fn next_up(x: f32) -> f32 {
    x.next_up()
}

fn next_down(x: f32) -> f32 {
    x.next_down()
}

/// Rounds `nearest` (the round-to-nearest result) by `mode`, given the sign of the exact
/// error `exact - nearest` (-1, 0 or 1).
fn directed(nearest: f32, error_sign: i32, mode: Rnd) -> f32 {
    if !nearest.is_finite() || error_sign == 0 {
        // Overflow in directed modes rounds to the largest finite value toward zero / down.
        if nearest.is_infinite() {
            return match mode {
                Rnd::Rz => f32::MAX.copysign(nearest),
                Rnd::Rm if nearest > 0.0 => f32::MAX,
                Rnd::Rp if nearest < 0.0 => -f32::MAX,
                _ => nearest,
            };
        }
        return nearest;
    }
    match mode {
        Rnd::Rn => nearest,
        Rnd::Rz => {
            if nearest > 0.0 && error_sign < 0 {
                next_down(nearest)
            } else if nearest < 0.0 && error_sign > 0 {
                next_up(nearest)
            } else {
                nearest
            }
        }
        Rnd::Rm if error_sign < 0 => next_down(nearest),
        Rnd::Rp if error_sign > 0 => next_up(nearest),
        _ => nearest,
    }
}

fn sign(x: f32) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Applies `.ftz` to inputs and output.
fn ftz_in(x: f32, ftz: bool) -> f32 {
    if ftz {
        flush(x)
    } else {
        x
    }
}

pub fn add(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let s = a + b;
    // TwoSum: the exact error of the rounded sum.
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    let mut r = directed(s, sign(err), mode);
    if r == 0.0 && s == 0.0 && mode == Rnd::Rm && (a != 0.0 || b != 0.0) {
        // x + (-x) is -0 when rounding down.
        r = -0.0;
    }
    ftz_in(r, ftz)
}

pub fn mul(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let p = a * b;
    let err = a.mul_add(b, -p);
    ftz_in(directed(p, sign(err), mode), ftz)
}

pub fn fma(a: f32, b: f32, c: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b, c) = (ftz_in(a, ftz), ftz_in(b, ftz), ftz_in(c, ftz));
    let r = a.mul_add(b, c);
    if mode == Rnd::Rn || !r.is_finite() {
        return ftz_in(directed(r, 0, mode), ftz);
    }
    // The exact a*b + c - r, in f64: a*b is exact there, and the sum of three terms is
    // representable closely enough to give the error's sign.
    let exact = f64::from(a) * f64::from(b);
    let err = (exact - f64::from(r)) + f64::from(c);
    let s = if err > 0.0 {
        1
    } else if err < 0.0 {
        -1
    } else {
        0
    };
    ftz_in(directed(r, s, mode), ftz)
}

pub fn div(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return ftz_in(q, ftz);
    }
    // a - q*b, exactly, decides on which side of q the true quotient lies.
    let rem = (-q).mul_add(b, a);
    let s = sign(rem) * sign(b);
    ftz_in(directed(q, s, mode), ftz)
}

pub fn sqrt(a: f32, mode: Rnd, ftz: bool) -> f32 {
    let a = ftz_in(a, ftz);
    let s = a.sqrt();
    if !s.is_finite() || s == 0.0 {
        return ftz_in(s, ftz);
    }
    let rem = (-s).mul_add(s, a);
    ftz_in(directed(s, sign(rem), mode), ftz)
}
