//! Buffer initialisers (`init = { kind = ... }`) and the seeded uniform generator.
//!
//! # The `uniform` generator contract
//!
//! Reference implementations and held-out tests regenerate inputs from a spec, so this is a
//! fixed contract; changing it changes every workload's data.
//!
//! * Generator: SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
//!   OOPSLA 2014; constants as in Vigna's reference `splitmix64.c`). The state starts at `seed`;
//!   each draw does `state += 0x9E3779B97F4A7C15; z = state; z = (z ^ (z >> 30)) *
//!   0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)` (all
//!   wrapping `u64` arithmetic).
//! * Exactly one draw per element, element `i` (0-based) takes draw `i + 1`; each buffer has its
//!   own generator seeded by its own `seed`.
//! * `f32`: `u = (x >> 40) / 2^24` (top 24 bits); `f64`: `u = (x >> 11) / 2^53` (top 53 bits); so
//!   `u` is in `[0, 1)`. The value is `min + (max - min) * u` evaluated in `f64` (the spec's
//!   numbers are `f64`), then rounded to nearest for `f32`. (Rounding to `f32` can produce `max`
//!   itself when `max - min` is not a power of two multiple of `u`'s step.)
//! * Integer dtypes: uniform on `[min, max]` inclusive by the multiply-shift map
//!   `min + ((x as u128 * (max - min + 1)) >> 64)` (Lemire 2019, without the rejection step, so
//!   the bias is below `(max - min + 1) / 2^64`).
//!
//! Python equivalent (NumPy for the f32 rounding):
//! ```text
//! M = 2**64 - 1
//! def draws(seed, n):
//!     s = seed
//!     for _ in range(n):
//!         s = (s + 0x9E3779B97F4A7C15) & M
//!         z = s
//!         z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
//!         z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
//!         yield z ^ (z >> 31)
//! f32: np.float32(lo + (hi - lo) * ((x >> 40) * 2.0**-24))
//! f64: lo + (hi - lo) * ((x >> 11) * 2.0**-53)
//! int: lo + ((x * (hi - lo + 1)) >> 64)
//! ```
//!
//! `fill` sets every element to `value`. `iota` sets element `i` to `start + i * step`, exactly in
//! integer arithmetic for integer dtypes, in `f64` then rounded for float dtypes. `npy` copies a
//! `.npy` file whose dtype and length must equal the buffer's.

use super::data::{DType, HostData};

/// A number as written in the spec (TOML integer or float).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A TOML integer.
    Int(i64),
    /// A TOML float.
    Float(f64),
    /// An unsigned integer above `i64::MAX` (TOML integers are 64-bit signed), written as a
    /// string: `"18446744073709551615"` or `"0xFFFFFFFFFFFFFFFF"`.
    UInt(u64),
}

impl Num {
    /// The value as `f64` (integers round to nearest).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
            Num::UInt(u) => u as f64,
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x:?}"),
            Num::UInt(u) => write!(f, "{u}"),
        }
    }
}

/// How a buffer is initialised (validated against its dtype by the spec loader).
#[derive(Clone, Debug, PartialEq)]
pub enum InitSpec {
    /// Every element equals `value`.
    Fill { value: Num },
    /// Element `i` is `start + i * step`.
    Iota { start: Num, step: Num },
    /// Seeded uniform values; see the module docs for the exact contract.
    Uniform { min: Num, max: Num, seed: u64 },
    /// Contents of a `.npy` file (already loaded and checked).
    Npy { path: String, data: HostData },
}

/// SplitMix64, the `uniform` initialiser's generator (see the module docs).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `u` in `[0, 1)` from the top 24 bits of a draw (the `f32` contract).
#[inline]
pub fn unit_f32(x: u64) -> f64 {
    (x >> 40) as f64 * (1.0 / (1u64 << 24) as f64)
}

/// `u` in `[0, 1)` from the top 53 bits of a draw (the `f64` contract).
#[inline]
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Integer in `[min, max]` (requires `min <= max`, both within `i128` from `i64`/`u64`) from a
/// draw by multiply-shift.
#[inline]
pub fn uniform_int(x: u64, min: i128, max: i128) -> i128 {
    let range = (max - min + 1) as u128; // <= 2^64
    min + ((x as u128 * range) >> 64) as i128
}

macro_rules! collect_as {
    ($dtype:expr, $iter:expr) => {
        match $dtype {
            DType::F32 => HostData::F32($iter.map(|v| v as f32).collect()),
            DType::F64 => HostData::F64($iter.map(|v| v as f64).collect()),
            DType::I8 => HostData::I8($iter.map(|v| v as i8).collect()),
            DType::U8 => HostData::U8($iter.map(|v| v as u8).collect()),
            DType::I16 => HostData::I16($iter.map(|v| v as i16).collect()),
            DType::U16 => HostData::U16($iter.map(|v| v as u16).collect()),
            DType::I32 => HostData::I32($iter.map(|v| v as i32).collect()),
            DType::U32 => HostData::U32($iter.map(|v| v as u32).collect()),
            DType::I64 => HostData::I64($iter.map(|v| v as i64).collect()),
            DType::U64 => HostData::U64($iter.map(|v| v as u64).collect()),
        }
    };
}

/// Integer value of a validated spec number (floats are truncated; the loader rejects
/// non-integral floats for integer dtypes before this is reached).
fn int_of(n: Num) -> i128 {
    match n {
        Num::Int(i) => i as i128,
        Num::Float(f) => f as i128,
        Num::UInt(u) => u as i128,
    }
}

macro_rules! le_bytes_as {
    ($dtype:expr, $iter:expr) => {{
        let mut out: Vec<u8> = Vec::new();
        macro_rules! put {
            ($t:ty) => {{
                let it = $iter;
                out.reserve_exact(it.size_hint().0 * std::mem::size_of::<$t>());
                it.for_each(|v| out.extend_from_slice(&(v as $t).to_le_bytes()));
            }};
        }
        match $dtype {
            DType::F32 => put!(f32),
            DType::F64 => put!(f64),
            DType::I8 => put!(i8),
            DType::U8 => put!(u8),
            DType::I16 => put!(i16),
            DType::U16 => put!(u16),
            DType::I32 => put!(i32),
            DType::U32 => put!(u32),
            DType::I64 => put!(i64),
            DType::U64 => put!(u64),
        }
        out
    }};
}

/// The initialiser's values for `$dtype` x `$len`, gathered by `$collect` (`collect_as!`
/// for a typed vector, `le_bytes_as!` for the device image): one definition of the
/// values for both.
macro_rules! generate_with {
    ($self:expr, $dtype:expr, $len:expr, $collect:ident, $npy:expr) => {{
        let (dtype, len) = ($dtype, $len);
        match $self {
            InitSpec::Npy { data, .. } => $npy(data),
            InitSpec::Fill { value } => {
                if dtype.is_float() {
                    let v = value.as_f64();
                    $collect!(dtype, (0..len).map(|_| v))
                } else {
                    let v = int_of(*value);
                    $collect!(dtype, (0..len).map(|_| v))
                }
            }
            InitSpec::Iota { start, step } => {
                if dtype.is_float() {
                    let (a, d) = (start.as_f64(), step.as_f64());
                    $collect!(dtype, (0..len).map(|i| a + i as f64 * d))
                } else {
                    let (a, d) = (int_of(*start), int_of(*step));
                    $collect!(dtype, (0..len).map(|i| a + i as i128 * d))
                }
            }
            InitSpec::Uniform { min, max, seed } => {
                let mut g = SplitMix64::new(*seed);
                match dtype {
                    DType::F32 => {
                        let (lo, hi) = (min.as_f64(), max.as_f64());
                        $collect!(
                            dtype,
                            (0..len).map(|_| lo + (hi - lo) * unit_f32(g.next_u64()))
                        )
                    }
                    DType::F64 => {
                        let (lo, hi) = (min.as_f64(), max.as_f64());
                        $collect!(
                            dtype,
                            (0..len).map(|_| lo + (hi - lo) * unit_f64(g.next_u64()))
                        )
                    }
                    _ => {
                        let (lo, hi) = (int_of(*min), int_of(*max));
                        $collect!(dtype, (0..len).map(|_| uniform_int(g.next_u64(), lo, hi)))
                    }
                }
            }
        }
    }};
}

impl InitSpec {
    /// Produces the buffer contents. Infallible: the spec loader has checked that every value fits
    /// `dtype` (out-of-range values would saturate, never panic).
    pub fn generate(&self, dtype: DType, len: usize) -> HostData {
        generate_with!(self, dtype, len, collect_as, |d: &HostData| d.clone())
    }

    /// The initial contents as the little-endian device image, built directly (a
    /// buffer costs its bytes once, not a typed copy and then a byte copy). Byte for byte
    /// `self.generate(dtype, len).to_le_bytes()`.
    pub fn generate_le_bytes(&self, dtype: DType, len: usize) -> Vec<u8> {
        generate_with!(self, dtype, len, le_bytes_as, |d: &HostData| d
            .to_le_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device image built directly is the typed contents' bytes, for every
    /// initialiser kind and dtype.
    #[test]
    fn le_bytes_equal_the_typed_contents() {
        use super::super::data::ALL_DTYPES;
        for dt in ALL_DTYPES {
            let (lo, hi) = if dt.is_float() {
                (Num::Float(-1.5), Num::Float(2.0))
            } else {
                (Num::Int(0), Num::Int(100))
            };
            for init in [
                InitSpec::Fill { value: Num::Int(7) },
                InitSpec::Iota {
                    start: Num::Int(3),
                    step: Num::Int(2),
                },
                InitSpec::Uniform {
                    min: lo,
                    max: hi,
                    seed: 9,
                },
            ] {
                for len in [0, 1, 37] {
                    let bytes = init.generate_le_bytes(dt, len);
                    assert_eq!(bytes, init.generate(dt, len).to_le_bytes(), "{dt} {init:?}");
                    assert_eq!(bytes.capacity(), len * dt.size());
                }
            }
        }
    }

    #[test]
    fn splitmix64_reference_vectors() {
        // Published outputs of splitmix64.c for seed 0 and seed 1234567.
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(g.next_u64(), 0x06c4_5d18_8009_454f);
        let mut g = SplitMix64::new(1234567);
        assert_eq!(g.next_u64(), 6457827717110365317);
        assert_eq!(g.next_u64(), 3203168211198807973);
        assert_eq!(g.next_u64(), 9817491932198370423);
    }

    #[test]
    fn uniform_f32_hand_values() {
        // seed 7 draws: 0x63cbe1e459320dd7, 0x044c3cd7f43c661c, 0xe6984080bab12a02.
        // top 24 bits: 0x63cbe1 = 6540257, 0x044c3c = 281660, 0xe69840 = 15112256.
        let d = InitSpec::Uniform {
            min: Num::Float(-1.0),
            max: Num::Float(1.0),
            seed: 7,
        }
        .generate(DType::F32, 3);
        let exp = |k: u32| (-1.0 + 2.0 * (k as f64 / 16777216.0)) as f32;
        assert_eq!(
            d,
            HostData::F32(vec![exp(6540257), exp(281660), exp(15112256)])
        );
        assert_eq!(exp(6540257), -0.220_340_61_f32);
    }

    #[test]
    fn uniform_f64_hand_values() {
        let d = InitSpec::Uniform {
            min: Num::Int(-1),
            max: Num::Int(1),
            seed: 7,
        }
        .generate(DType::F64, 2);
        let e0 = -1.0 + 2.0 * ((0x63cb_e1e4_5932_0dd7u64 >> 11) as f64 / 9007199254740992.0);
        let e1 = -1.0 + 2.0 * ((0x044c_3cd7_f43c_661cu64 >> 11) as f64 / 9007199254740992.0);
        assert_eq!(d, HostData::F64(vec![e0, e1]));
        assert!((e0 - -0.220_340_503_217_457_02).abs() < 1e-15);
    }

    #[test]
    fn uniform_int_hand_values() {
        // (x * 11) >> 64 for the seed-7 draws: 4, 0, 9, 6 → -1, -5, 4, 1.
        let d = InitSpec::Uniform {
            min: Num::Int(-5),
            max: Num::Int(5),
            seed: 7,
        }
        .generate(DType::I32, 4);
        assert_eq!(d, HostData::I32(vec![-1, -5, 4, 1]));
        // Full u8 range: the top byte of each draw.
        let d = InitSpec::Uniform {
            min: Num::Int(0),
            max: Num::Int(255),
            seed: 7,
        }
        .generate(DType::U8, 4);
        assert_eq!(d, HostData::U8(vec![0x63, 0x04, 0xe6, 0x95]));
        // Full u64 range: the draws themselves.
        assert_eq!(uniform_int(u64::MAX, 0, u64::MAX as i128), u64::MAX as i128);
        assert_eq!(
            uniform_int(0, i64::MIN as i128, i64::MAX as i128),
            i64::MIN as i128
        );
        // Degenerate range.
        assert_eq!(uniform_int(0xdead_beef, 3, 3), 3);
    }

    #[test]
    fn fill_and_iota() {
        let f = InitSpec::Fill {
            value: Num::Int(-3),
        }
        .generate(DType::I16, 3);
        assert_eq!(f, HostData::I16(vec![-3, -3, -3]));
        let f = InitSpec::Fill {
            value: Num::Float(0.5),
        }
        .generate(DType::F32, 2);
        assert_eq!(f, HostData::F32(vec![0.5, 0.5]));
        let i = InitSpec::Iota {
            start: Num::Int(10),
            step: Num::Int(-3),
        }
        .generate(DType::I64, 4);
        assert_eq!(i, HostData::I64(vec![10, 7, 4, 1]));
        let i = InitSpec::Iota {
            start: Num::Float(0.0),
            step: Num::Float(0.25),
        }
        .generate(DType::F64, 3);
        assert_eq!(i, HostData::F64(vec![0.0, 0.25, 0.5]));
        let i = InitSpec::Iota {
            start: Num::Int(250),
            step: Num::Int(2),
        }
        .generate(DType::U8, 3);
        assert_eq!(i, HostData::U8(vec![250, 252, 254]));
    }
}
