//! Floating-point semantics: IEEE 754 rounding with the PTX rounding modifiers, flush-to-zero,
//! saturation, half-precision conversion and the `.approx` transcendental functions.
//!
//! Directed rounding (`.rz`, `.rm`, `.rp`; PTX ISA §9.7.3 "Floating-Point Instructions",
//! rounding modifiers) of an `f32` result is computed exactly: the operation is evaluated in
//! `f64` together with the sign of its error, using error-free transformations — `TwoSum`
//! (Knuth, TAOCP vol. 2 §4.2.2) for sums, the exact `f64` product of two `f32` values, and the
//! exact remainder of `f64` division and square root obtained with a fused multiply-add
//! (Markstein, "IA-64 and Elementary Functions", 2000). [`round_f32`] then picks the `f32`
//! neighbour the mode asks for. Round-to-nearest ties to even. `f64` results use the same
//! error terms and step to the neighbouring `f64` for directed modes (add/sub/mul/div/sqrt).
//!
//! `.approx` functions (PTX ISA §9.7.3.x `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`,
//! `tanh`) are evaluated in `f64` with Rust's libm and rounded to nearest `f32`. The error is at
//! most 0.5 ulp plus the f64 library's error (< 1e-15 relative), i.e. ≤ 0.51 ulp — well inside
//! the ISA's bounds (ex2: 2 ulp; lg2: 2^-22.6 absolute / 2^-22 relative; rsqrt: 2^-22.9
//! relative; sin/cos: 2^-20.9 absolute in [-π, π]; tanh: 2^-11 relative; rcp/sqrt.approx:
//! 1 ulp). Hardware results can differ from ours by up to those bounds.

use crate::ir::Round;

/// Canonical NaN PTX produces (`0x7fffffff`, PTX ISA §9.7.3 "min"/"max").
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;
/// Canonical `f64` NaN.
pub const CANONICAL_NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;

/// Flushes an `f32` subnormal to a zero of the same sign (`.ftz`, PTX ISA §9.7.3).
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::copysign(0.0, x)
    } else {
        x
    }
}

/// The next `f32` towards +∞.
#[inline]
pub fn next_up32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f32` towards −∞.
#[inline]
pub fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

/// The next `f64` towards +∞.
#[inline]
pub fn next_up64(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f64` towards −∞.
#[inline]
pub fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

/// Knuth's TwoSum: `s = fl(a + b)` and the exact error `e = (a + b) - s`.
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Rounds the exact value `s + e` (where `s` is an `f64` and `|e|` is below half an ulp of `s`,
/// or `e == 0`) to `f32` with mode `rnd` (`None`/`Rn`/`Rni`... nearest-even, `Rz`, `Rm`, `Rp`).
pub fn round_f32(s: f64, e: f64, rnd: Round) -> f32 {
    if s.is_nan() {
        return f32::from_bits(CANONICAL_NAN_F32);
    }
    let r = s as f32; // round to nearest even
    if s.is_infinite() {
        return r;
    }
    let dir = dir_of(rnd);
    if r.is_infinite() {
        // overflow: nearest → ∞; directed modes may stop at ±MAX
        let pos = s > 0.0;
        return match dir {
            Dir::Nearest => r,
            Dir::Zero => f32::copysign(f32::MAX, r),
            Dir::Down => {
                if pos {
                    f32::MAX
                } else {
                    f32::NEG_INFINITY
                }
            }
            Dir::Up => {
                if pos {
                    f32::INFINITY
                } else {
                    -f32::MAX
                }
            }
        };
    }
    let rd = r as f64;
    if rd == s {
        // s representable: only the error term moves a directed result
        return match dir {
            Dir::Nearest => r,
            Dir::Up if e > 0.0 => next_up32(r),
            Dir::Down if e < 0.0 => next_down32(r),
            Dir::Zero if (s > 0.0 && e < 0.0) => next_down32(r),
            Dir::Zero if (s < 0.0 && e > 0.0) => next_up32(r),
            _ => r,
        };
    }
    let (lo, hi) = if rd < s {
        (r, next_up32(r))
    } else {
        (next_down32(r), r)
    };
    match dir {
        Dir::Down => lo,
        Dir::Up => hi,
        Dir::Zero => {
            if s > 0.0 {
                lo
            } else {
                hi
            }
        }
        Dir::Nearest => {
            let mid = (lo as f64 + hi as f64) * 0.5;
            if s < mid || (s == mid && e < 0.0) {
                lo
            } else if s > mid || (s == mid && e > 0.0) {
                hi
            } else {
                r // exact tie: `as` already rounded to even
            }
        }
    }
}

/// Rounds the exact value `s + e` (`s = fl64(exact)`) to `f64` with mode `rnd`.
pub fn round_f64(s: f64, e: f64, rnd: Round) -> f64 {
    if !s.is_finite() || e == 0.0 {
        return s;
    }
    match dir_of(rnd) {
        Dir::Nearest => s,
        Dir::Up if e > 0.0 => next_up64(s),
        Dir::Down if e < 0.0 => next_down64(s),
        Dir::Zero if s > 0.0 && e < 0.0 => next_down64(s),
        Dir::Zero if s < 0.0 && e > 0.0 => next_up64(s),
        _ => s,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Nearest,
    Zero,
    Down,
    Up,
}

fn dir_of(r: Round) -> Dir {
    match r {
        Round::Rz | Round::Rzi => Dir::Zero,
        Round::Rm | Round::Rmi => Dir::Down,
        Round::Rp | Round::Rpi => Dir::Up,
        _ => Dir::Nearest,
    }
}

/// Sign of a zero sum `a + b` (IEEE 754 §6.3): −0 only under round-down when the operands'
/// signs differ, or when both are −0.
#[inline]
fn zero_sign(a: f64, b: f64, s: f64, rnd: Round) -> f64 {
    if s == 0.0 && (a.is_sign_negative() != b.is_sign_negative()) {
        if dir_of(rnd) == Dir::Down {
            -0.0
        } else {
            0.0
        }
    } else {
        s
    }
}

/// `add.rnd.f32` (PTX ISA §9.7.3.1).
pub fn add32(a: f32, b: f32, rnd: Round) -> f32 {
    let (a, b) = (a as f64, b as f64);
    let (s, e) = two_sum(a, b);
    let s = zero_sign(a, b, s, rnd);
    round_f32(s, e, rnd)
}

/// `mul.rnd.f32` (PTX ISA §9.7.3.3): the `f64` product of two `f32` values is exact.
pub fn mul32(a: f32, b: f32, rnd: Round) -> f32 {
    round_f32(a as f64 * b as f64, 0.0, rnd)
}

/// `fma.rnd.f32` (PTX ISA §9.7.3.4): `a*b+c` rounded once. Nearest uses `f32::mul_add`.
pub fn fma32(a: f32, b: f32, c: f32, rnd: Round) -> f32 {
    if dir_of(rnd) == Dir::Nearest {
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64; // exact
    let (s, e) = two_sum(p, c as f64);
    let s = zero_sign(p, c as f64, s, rnd);
    round_f32(s, e, rnd)
}

/// `fma.rn.f32` of 32 lanes, `out[l] = bits(RN(a[l] × b[l] + c[l]))` with NaN results
/// canonicalised ([`CANONICAL_NAN_F32`]): bit-identical to `f32::mul_add` lane by lane
/// (vectorisable `f64` passes instead of 32 calls of the library `fmaf`).
///
/// Why it is exact. The product of two `f32` values (24-bit significands, exponents in
/// [-149, 127]) is exact in `f64` (48 ≤ 53 bits, exponent ≥ -298 > -1022), so `s = p + c`
/// is the exact sum `v = a·b + c` rounded once to `f64` (`RN53`); the conversion `s as f32`
/// rounds again (`RN24`). Double rounding can only go wrong when the first rounding lands
/// exactly on a midpoint of the second precision: every `f32` value and every `f32`
/// midpoint of the normal range is representable in `f64`, and `RN53` is monotonic, so for
/// any such point `m`, `v < m ⇒ s ≤ m` and `v > m ⇒ s ≥ m`; if `s` is not a midpoint, `s`
/// and `v` lie strictly on the same side of every midpoint and `RN24(s) = RN24(v)` (Boldo &
/// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
/// to odd", IEEE Trans. Computers 57(4), 2008, on double rounding; the same test is the fast
/// path of musl's `fmaf`). A normal-range `f32` midpoint has its 25th significand bit set and
/// the rest zero, i.e. the low 29 bits of the `f64` significand equal `0x1000_0000` (this
/// also covers the overflow threshold `2^128 − 2^103`). Lanes whose `s` has that pattern, or
/// whose result is within the subnormal range, where the midpoint pattern differs, are
/// recomputed with `f32::mul_add` (see [`fma_redo`]). Infinities and NaNs propagate
/// identically (NaNs are canonicalised anyway). No rounding mode other than the default
/// nearest-even is ever set by this program.
#[inline(always)]
pub fn fma_rn_f32x32(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32], out: &mut [u32; 32]) {
    // one branch-free pass (an OR-reduction, no per-lane shifts, so it vectorises), then the
    // rare lanes to redo
    let sum = |l: usize| {
        let x = f64::from(f32::from_bits(a[l]));
        let y = f64::from(f32::from_bits(b[l]));
        let z = f64::from(f32::from_bits(c[l]));
        x * y + z
    };
    let mut redo = 0u32;
    for (l, o) in out.iter_mut().enumerate() {
        let s = sum(l);
        let r = s as f32;
        redo |= u32::from(fma_redo(r, s.to_bits() as u32));
        *o = if r.is_nan() {
            CANONICAL_NAN_F32
        } else {
            r.to_bits()
        };
    }
    if redo != 0 {
        for (l, o) in out.iter_mut().enumerate() {
            let s = sum(l);
            if fma_redo(s as f32, s.to_bits() as u32) {
                let v = f32::from_bits(a[l]).mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]));
                *o = if v.is_nan() {
                    CANONICAL_NAN_F32
                } else {
                    v.to_bits()
                };
            }
        }
    }
}

/// True when the `f64` sum `s` of [`fma_rn_f32x32`] (given as its `f32` rounding `r` and the
/// low word `low` of its bits) may round differently from the fused operation: an `f32`
/// midpoint of the normal range (low 29 significand bits `0x1000_0000`), or `|r| ≤ 2^-126`,
/// which covers every nonzero `|s| < 2^-126` (rounding is monotonic and `2^-126` is an
/// `f32`), plus zeros and `±2^-126` themselves, which are merely recomputed.
#[inline(always)]
fn fma_redo(r: f32, low: u32) -> bool {
    let tiny = r.abs() <= f32::MIN_POSITIVE;
    let mid = low & 0x1fff_ffff == 0x1000_0000;
    tiny | mid
}

/// `div.rnd.f32` (PTX ISA §9.7.3.8), IEEE-correct in every mode.
pub fn div32(a: f32, b: f32, rnd: Round) -> f32 {
    let (a, b) = (a as f64, b as f64);
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q as f32;
    }
    let r = (-q).mul_add(b, a); // exact remainder a - q*b
    let e = if r == 0.0 { 0.0 } else { r / b };
    round_f32(q, e, rnd)
}

/// `sqrt.rnd.f32` (PTX ISA §9.7.3.10), IEEE-correct.
pub fn sqrt32(a: f32, rnd: Round) -> f32 {
    let x = a as f64;
    let s = x.sqrt();
    if !s.is_finite() || s == 0.0 {
        return s as f32;
    }
    let r = (-s).mul_add(s, x);
    let e = if r == 0.0 { 0.0 } else { r / (2.0 * s) };
    round_f32(s, e, rnd)
}

/// `add.rnd.f64`.
pub fn add64(a: f64, b: f64, rnd: Round) -> f64 {
    let (s, e) = two_sum(a, b);
    round_f64(zero_sign(a, b, s, rnd), e, rnd)
}

/// `mul.rnd.f64`: error term by FMA (`a*b - fl(a*b)` is exact).
pub fn mul64(a: f64, b: f64, rnd: Round) -> f64 {
    let p = a * b;
    let e = if p.is_finite() { a.mul_add(b, -p) } else { 0.0 };
    round_f64(p, e, rnd)
}

/// `div.rnd.f64`.
pub fn div64(a: f64, b: f64, rnd: Round) -> f64 {
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    let r = (-q).mul_add(b, a);
    round_f64(q, if r == 0.0 { 0.0 } else { r / b }, rnd)
}

/// `sqrt.rnd.f64`.
pub fn sqrt64(a: f64, rnd: Round) -> f64 {
    let s = a.sqrt();
    if !s.is_finite() || s == 0.0 {
        return s;
    }
    let r = (-s).mul_add(s, a);
    round_f64(s, if r == 0.0 { 0.0 } else { r }, rnd)
}

/// `min.f32` (PTX ISA §9.7.3.11): a NaN operand is ignored (both NaN → canonical NaN);
/// `-0.0 < +0.0`. With `.NaN`, any NaN gives the canonical NaN.
pub fn min32(a: f32, b: f32, nan: bool) -> f32 {
    minmax32(a, b, nan, true)
}

/// `max.f32` (PTX ISA §9.7.3.12), NaN and zero rules as [`min32`].
pub fn max32(a: f32, b: f32, nan: bool) -> f32 {
    minmax32(a, b, nan, false)
}

fn minmax32(a: f32, b: f32, nan: bool, min: bool) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => return f32::from_bits(CANONICAL_NAN_F32),
        (true, false) | (false, true) if nan => return f32::from_bits(CANONICAL_NAN_F32),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    if a == 0.0 && b == 0.0 {
        let neg = if min {
            a.is_sign_negative() || b.is_sign_negative()
        } else {
            a.is_sign_negative() && b.is_sign_negative()
        };
        return if neg { -0.0 } else { 0.0 };
    }
    if (a < b) == min {
        a
    } else {
        b
    }
}

/// `min.f64` / `max.f64`, same rules.
pub fn minmax64(a: f64, b: f64, nan: bool, min: bool) -> f64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => return f64::from_bits(CANONICAL_NAN_F64),
        (true, false) | (false, true) if nan => return f64::from_bits(CANONICAL_NAN_F64),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    if a == 0.0 && b == 0.0 {
        let neg = if min {
            a.is_sign_negative() || b.is_sign_negative()
        } else {
            a.is_sign_negative() && b.is_sign_negative()
        };
        return if neg { -0.0 } else { 0.0 };
    }
    if (a < b) == min {
        a
    } else {
        b
    }
}

/// `.sat` for floats: clamp to `[0.0, 1.0]`, NaN → `+0.0` (PTX ISA §9.7.3, "Saturation").
#[inline]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// `.sat` for `f64`.
#[inline]
pub fn sat64(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// Rounds a float to an integral value (`.rni`, `.rzi`, `.rmi`, `.rpi`; PTX ISA §9.7.9.21).
/// `Round::None` truncates (the `cvt` default for float→integer is not defined; `.rzi` is what
/// C casts compile to).
#[inline]
pub fn round_integral(x: f64, rnd: Round) -> f64 {
    match rnd {
        Round::Rni | Round::Rn => x.round_ties_even(),
        Round::Rmi | Round::Rm => x.floor(),
        Round::Rpi | Round::Rp => x.ceil(),
        Round::Rna => x.round(),
        _ => x.trunc(),
    }
}

/// IEEE binary16 → `f64` (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = f64::from(h & 0x3ff);
    match exp {
        0 => sign * man * 2f64.powi(-24),
        0x1f => {
            if man == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(i32::from(e) - 15),
    }
}

/// `f64` → IEEE binary16 bits with rounding `rnd` (nearest-even by default). Exact for every
/// `f32` input (the scaled significand is an exact `f64`).
pub fn f64_to_f16(x: f64, rnd: Round) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let dir = dir_of(rnd);
    let rint = |v: f64| -> f64 {
        match dir {
            Dir::Nearest => v.round_ties_even(),
            Dir::Zero => v.trunc(),
            Dir::Up => {
                if sign == 0 {
                    v.ceil()
                } else {
                    v.floor()
                }
            }
            Dir::Down => {
                if sign == 0 {
                    v.floor()
                } else {
                    v.ceil()
                }
            }
        }
    };
    let overflow = || -> u16 {
        let to_inf = match dir {
            Dir::Nearest => true,
            Dir::Zero => false,
            Dir::Up => sign == 0,
            Dir::Down => sign != 0,
        };
        sign | if to_inf { 0x7c00 } else { 0x7bff }
    };
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        let q = rint(a * 2f64.powi(24)); // subnormal units of 2^-24 (may round up to 1024 = min normal)
        return sign | q as u16;
    }
    let e = a.log2().floor() as i32;
    // correct e for log2 rounding at powers of two
    let e = if 2f64.powi(e) > a {
        e - 1
    } else if 2f64.powi(e + 1) <= a {
        e + 1
    } else {
        e
    };
    if e > 15 {
        return overflow();
    }
    let m = rint(a * 2f64.powi(10 - e)); // 1024..=2048
    let (m, e) = if m >= 2048.0 { (1024.0, e + 1) } else { (m, e) };
    if e > 15 {
        return overflow();
    }
    sign | (((e + 15) as u16) << 10) | ((m as u16) & 0x3ff)
}

/// The `.approx` functions, evaluated in `f64` and rounded to nearest `f32` (see module docs
/// for the accuracy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approx {
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// Evaluates an approximate function on an `f32` input.
pub fn approx32(f: Approx, x: f32) -> f32 {
    let v = x as f64;
    let r = match f {
        Approx::Rcp => 1.0 / v,
        Approx::Sqrt => v.sqrt(),
        Approx::Rsqrt => 1.0 / v.sqrt(),
        Approx::Sin => v.sin(),
        Approx::Cos => v.cos(),
        Approx::Lg2 => v.log2(),
        Approx::Ex2 => v.exp2(),
        Approx::Tanh => v.tanh(),
    };
    r as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_of_sums() {
        // 1 + 2^-30 is not an f32: rn/rz/rm give 1, rp gives next_up(1)
        let t = f32::from_bits(0x3080_0000); // 2^-30
        assert_eq!(add32(1.0, t, Round::Rn), 1.0);
        assert_eq!(add32(1.0, t, Round::Rz), 1.0);
        assert_eq!(add32(1.0, t, Round::Rm), 1.0);
        assert_eq!(add32(1.0, t, Round::Rp), next_up32(1.0));
        assert_eq!(add32(-1.0, -t, Round::Rp), -1.0);
        assert_eq!(add32(-1.0, -t, Round::Rm), -next_up32(1.0));
        assert_eq!(add32(-1.0, -t, Round::Rz), -1.0);
        // 1 - 2^-30 rounds to 1 (nearest) but to the predecessor of 1 towards zero / down
        assert_eq!(add32(1.0, -t, Round::Rn), 1.0);
        assert_eq!(add32(1.0, -t, Round::Rz), next_down32(1.0));
        assert_eq!(add32(1.0, -t, Round::Rm), next_down32(1.0));
        assert_eq!(add32(1.0, -t, Round::Rp), 1.0);
        // exact zero: −0 only when rounding down
        assert!(add32(1.0, -1.0, Round::Rm).is_sign_negative());
        assert!(add32(1.0, -1.0, Round::Rn).is_sign_positive());
    }

    #[test]
    fn ties_to_even_and_overflow() {
        // 1 + 2^-24 is exactly halfway between 1 and 1+2^-23: ties to even → 1
        let h = f32::from_bits(0x3380_0000); // 2^-24
        assert_eq!(add32(1.0, h, Round::Rn), 1.0);
        // 1+2^-23 + 2^-24 halfway → even is 1+2^-22
        let one_up = next_up32(1.0);
        assert_eq!(add32(one_up, h, Round::Rn), next_up32(one_up));
        assert_eq!(mul32(f32::MAX, 2.0, Round::Rn), f32::INFINITY);
        assert_eq!(mul32(f32::MAX, 2.0, Round::Rz), f32::MAX);
        assert_eq!(mul32(f32::MAX, -2.0, Round::Rp), -f32::MAX);
        assert_eq!(mul32(f32::MAX, -2.0, Round::Rm), f32::NEG_INFINITY);
    }

    #[test]
    fn div_sqrt_fma_directed() {
        // 1/3 = 0.333... : rz/rm give the lower neighbour, rp the upper
        let rn = div32(1.0, 3.0, Round::Rn);
        assert_eq!(rn, 1.0f32 / 3.0);
        let lo = div32(1.0, 3.0, Round::Rz);
        let hi = div32(1.0, 3.0, Round::Rp);
        assert_eq!(next_up32(lo), hi);
        assert!((lo as f64) < 1.0 / 3.0 && (hi as f64) > 1.0 / 3.0);
        assert_eq!(div32(1.0, 3.0, Round::Rm), lo);
        assert_eq!(div32(6.0, 3.0, Round::Rp), 2.0); // exact stays exact
        let s2 = sqrt32(2.0, Round::Rn);
        assert_eq!(s2, 2f32.sqrt());
        assert_eq!(next_up32(sqrt32(2.0, Round::Rz)), sqrt32(2.0, Round::Rp));
        assert_eq!(sqrt32(4.0, Round::Rp), 2.0);
        // fma: 1 * 1 + 2^-30: rp goes up, rn stays, rz stays
        let t = f32::from_bits(0x3080_0000);
        assert_eq!(fma32(1.0, 1.0, t, Round::Rp), next_up32(1.0));
        assert_eq!(fma32(1.0, 1.0, t, Round::Rn), 1.0);
        assert_eq!(fma32(1.0, 1.0, -t, Round::Rm), next_down32(1.0));
        assert_eq!(div64(1.0, 3.0, Round::Rp), next_up64(1.0 / 3.0));
        assert_eq!(add64(1.0, 1e-30, Round::Rp), next_up64(1.0));
    }

    /// `f32::mul_add` with NaNs canonicalised: the reference of [`fma_rn_f32x32`].
    fn fma_ref(a: u32, b: u32, c: u32) -> u32 {
        let r = f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c));
        if r.is_nan() {
            CANONICAL_NAN_F32
        } else {
            r.to_bits()
        }
    }

    /// Checks 32-lane groups of `(a, b, c)` against [`fma_ref`].
    fn check_fma_lanes(t: &[(u32, u32, u32)]) {
        for g in t.chunks(32) {
            let (mut a, mut b, mut c) = ([0u32; 32], [0u32; 32], [0u32; 32]);
            for (l, &(x, y, z)) in g.iter().enumerate() {
                (a[l], b[l], c[l]) = (x, y, z);
            }
            let mut out = [0u32; 32];
            fma_rn_f32x32(&a, &b, &c, &mut out);
            for l in 0..32 {
                assert_eq!(
                    out[l],
                    fma_ref(a[l], b[l], c[l]),
                    "fma({:#x}, {:#x}, {:#x})",
                    a[l],
                    b[l],
                    c[l]
                );
            }
        }
    }

    #[test]
    fn fma_rn_f32x32_double_rounding_cases() {
        // 10610063 × 13264529 = 2^47 − 1: x·y = 1 − 2^-47 exactly
        let x = 10_610_063f32 * 2f32.powi(-24);
        let y = 13_264_529f32 * 2f32.powi(-23);
        assert_eq!(f64::from(x) * f64::from(y), 1.0 - 2f64.powi(-47));
        // normal range: z + 1 = 64 + 3·2^-18, an f32 midpoint; the f64 sum rounds onto it (a
        // tie to even) and the naive conversion then rounds up, the true result rounds down
        let z = 63.0 + 3.0 * 2f32.powi(-18);
        let naive = (f64::from(x) * f64::from(y) + f64::from(z)) as f32;
        assert_ne!(
            naive,
            x.mul_add(y, z),
            "the case must defeat plain double rounding"
        );
        // subnormal range: x·y = 2^-150 − 2^-197, z an odd multiple of 2^-149
        let xs = 10_610_063f32 * 2f32.powi(-99);
        let ys = 13_264_529f32 * 2f32.powi(-98);
        let zs = f32::from_bits((1 << 20) + 1);
        let naive_s = (f64::from(xs) * f64::from(ys) + f64::from(zs)) as f32;
        assert_ne!(naive_s, xs.mul_add(ys, zs));
        let mut t = vec![(x.to_bits(), y.to_bits(), z.to_bits())];
        t.push((xs.to_bits(), ys.to_bits(), zs.to_bits()));
        t.push(((-x).to_bits(), y.to_bits(), (-z).to_bits()));
        t.push(((-xs).to_bits(), ys.to_bits(), (-zs).to_bits()));
        // zeros and their signs, infinities, NaNs, overflow, the smallest subnormals
        let sp = [
            0u32,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x7f7f_ffff,
            0xff7f_ffff,
            1,
            0x8000_0001,
            0x0080_0000,
            0x007f_ffff,
            0x5f80_0000,
            0x2000_0000,
        ];
        for &p in &sp {
            for &q in &sp {
                for &r in &sp {
                    t.push((p, q, r));
                }
            }
        }
        check_fma_lanes(&t);
    }

    #[test]
    fn fma_rn_f32x32_matches_mul_add_on_random_operands() {
        // SplitMix64 (Steele, Lea & Flood, OOPSLA 2014), fixed seed
        let mut st = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            st = st.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = st;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut t = Vec::new();
        for i in 0..200_000u32 {
            let (r1, r2) = (next(), next());
            let (a, b) = (r1 as u32, (r1 >> 32) as u32);
            let c = match i % 4 {
                // any bit patterns
                0 => r2 as u32,
                // c close to -a·b: massive cancellation
                1 => {
                    let p = f32::from_bits(a) * f32::from_bits(b);
                    (-p).to_bits() ^ (r2 as u32 & 0xff)
                }
                // exponents within a few binades (sums that carry and round)
                2 => (a & 0xc07f_ffff) | (r2 as u32 & 0x3f80_0000),
                // tiny operands: subnormal and near-subnormal results
                _ => r2 as u32 & 0x80ff_ffff,
            };
            let (a, b) = if i % 8 == 7 {
                (a & 0x83ff_ffff | 0x1e00_0000, b & 0x83ff_ffff | 0x1e00_0000)
            } else {
                (a, b)
            };
            t.push((a, b, c));
        }
        check_fma_lanes(&t);
    }

    #[test]
    fn min_max_nan_and_zero_rules() {
        let nan = f32::NAN;
        assert_eq!(min32(nan, 2.0, false), 2.0);
        assert_eq!(max32(3.0, nan, false), 3.0);
        assert_eq!(min32(nan, nan, false).to_bits(), CANONICAL_NAN_F32);
        assert_eq!(min32(nan, 1.0, true).to_bits(), CANONICAL_NAN_F32);
        assert!(min32(0.0, -0.0, false).is_sign_negative());
        assert!(max32(-0.0, 0.0, false).is_sign_positive());
        assert_eq!(min32(-1.0, 2.0, false), -1.0);
        assert_eq!(max32(-1.0, 2.0, false), 2.0);
    }

    #[test]
    fn ftz_sat_and_half() {
        let sub = f32::from_bits(1);
        assert_eq!(ftz32(sub).to_bits(), 0);
        assert_eq!(ftz32(-sub).to_bits(), 0x8000_0000);
        assert_eq!(sat32(f32::NAN), 0.0);
        assert_eq!(sat32(1.5), 1.0);
        assert_eq!(sat32(-2.0), 0.0);
        assert_eq!(f64_to_f16(1.0, Round::Rn), 0x3c00);
        assert_eq!(f64_to_f16(-2.0, Round::Rn), 0xc000);
        assert_eq!(f64_to_f16(65504.0, Round::Rn), 0x7bff);
        assert_eq!(f64_to_f16(1e6, Round::Rn), 0x7c00);
        assert_eq!(f64_to_f16(1e6, Round::Rz), 0x7bff);
        assert_eq!(f64_to_f16(5.960464477539063e-8, Round::Rn), 0x0001);
        // 1 + 2^-11 is a tie between 1 and 1+2^-10 → even (1)
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11), Round::Rn), 0x3c00);
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11), Round::Rp), 0x3c01);
        for h in [0x3c00u16, 0xc000, 0x7bff, 0x0001, 0x0400, 0x3555] {
            assert_eq!(f64_to_f16(f16_to_f64(h), Round::Rn), h);
        }
        assert_eq!(round_integral(2.5, Round::Rni), 2.0);
        assert_eq!(round_integral(-2.5, Round::Rmi), -3.0);
        assert_eq!(round_integral(-2.5, Round::Rpi), -2.0);
        assert_eq!(round_integral(-2.7, Round::Rzi), -2.0);
    }

    #[test]
    fn approx_functions_within_isa_bounds() {
        assert_eq!(approx32(Approx::Ex2, 3.0), 8.0);
        assert_eq!(approx32(Approx::Lg2, 8.0), 3.0);
        assert_eq!(approx32(Approx::Rsqrt, 4.0), 0.5);
        assert_eq!(approx32(Approx::Rcp, 0.0), f32::INFINITY);
        assert_eq!(approx32(Approx::Lg2, 0.0), f32::NEG_INFINITY);
        assert!(approx32(Approx::Lg2, -1.0).is_nan());
        let s = approx32(Approx::Sin, 1.0);
        assert!((s as f64 - 1f64.sin()).abs() < 2f64.powi(-20));
        assert!((approx32(Approx::Tanh, 0.5) as f64 - 0.5f64.tanh()).abs() < 1e-7);
    }
}
