//! Host-side typed buffers: what a launch spec initialises and what `--dump` writes.

use serde::{Deserialize, Serialize};

/// Element type of a device buffer (the `dtype` key of a launch spec).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    F32,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

/// The contents of one buffer, typed.
#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
}

impl HostData {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            HostData::F32(_) => DType::F32,
            HostData::F64(_) => DType::F64,
            HostData::I8(_) => DType::I8,
            HostData::U8(_) => DType::U8,
            HostData::I16(_) => DType::I16,
            HostData::U16(_) => DType::U16,
            HostData::I32(_) => DType::I32,
            HostData::U32(_) => DType::U32,
            HostData::I64(_) => DType::I64,
            HostData::U64(_) => DType::U64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::F64(v) => v.len(),
            HostData::I8(v) => v.len(),
            HostData::U8(v) => v.len(),
            HostData::I16(v) => v.len(),
            HostData::U16(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::U32(v) => v.len(),
            HostData::I64(v) => v.len(),
            HostData::U64(v) => v.len(),
        }
    }

    /// True when the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// All element types, in the order of the `dtype` key's documentation.
pub const ALL_DTYPES: [DType; 10] = [
    DType::F32,
    DType::F64,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::I32,
    DType::U32,
    DType::I64,
    DType::U64,
];

impl DType {
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The launch-spec spelling (`"f32"`, `"u8"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
        }
    }

    /// Parses the launch-spec spelling; `None` for anything else.
    pub fn from_name(s: &str) -> Option<DType> {
        ALL_DTYPES.iter().copied().find(|d| d.name() == s)
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Inclusive integer range of an integer dtype (`None` for floats).
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::F32 | DType::F64 => return None,
        })
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Applies `$body` to the vector inside any `HostData` variant, bound as `$v`.
macro_rules! with_vec {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::F32($v) => $body,
            HostData::F64($v) => $body,
            HostData::I8($v) => $body,
            HostData::U8($v) => $body,
            HostData::I16($v) => $body,
            HostData::U16($v) => $body,
            HostData::I32($v) => $body,
            HostData::U32($v) => $body,
            HostData::I64($v) => $body,
            HostData::U64($v) => $body,
        }
    };
}

/// Builds a `HostData` of `$dtype` whose vector is produced by `$mk` (a generic closure-like
/// expression over the element type `$t`).
macro_rules! build_typed {
    ($dtype:expr, $t:ident => $mk:expr) => {
        match $dtype {
            DType::F32 => {
                type $t = f32;
                HostData::F32($mk)
            }
            DType::F64 => {
                type $t = f64;
                HostData::F64($mk)
            }
            DType::I8 => {
                type $t = i8;
                HostData::I8($mk)
            }
            DType::U8 => {
                type $t = u8;
                HostData::U8($mk)
            }
            DType::I16 => {
                type $t = i16;
                HostData::I16($mk)
            }
            DType::U16 => {
                type $t = u16;
                HostData::U16($mk)
            }
            DType::I32 => {
                type $t = i32;
                HostData::I32($mk)
            }
            DType::U32 => {
                type $t = u32;
                HostData::U32($mk)
            }
            DType::I64 => {
                type $t = i64;
                HostData::I64($mk)
            }
            DType::U64 => {
                type $t = u64;
                HostData::U64($mk)
            }
        }
    };
}

impl HostData {
    /// A buffer of `len` zero elements.
    pub fn zeros(dtype: DType, len: usize) -> HostData {
        build_typed!(dtype, T => vec![T::default(); len])
    }

    /// Size of the buffer in bytes (`len × dtype.size()`).
    pub fn byte_len(&self) -> usize {
        self.len() * self.dtype().size()
    }

    /// The elements as little-endian bytes (the device memory image).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.byte_len());
        with_vec!(self, v => {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        });
        out
    }

    /// [`Self::from_le_bytes`] of an owned image, freeing it while the typed copy is built
    /// (from the end, one chunk at a time, so the two never both hold the whole buffer: the
    /// typed vector starts as untouched zero pages). `u8` images are moved, not copied.
    pub fn from_le_bytes_owned(dtype: DType, mut bytes: Vec<u8>) -> Option<HostData> {
        let sz = dtype.size();
        if !bytes.len().is_multiple_of(sz) {
            return None;
        }
        if dtype == DType::U8 {
            return Some(HostData::U8(bytes));
        }
        const CHUNK: usize = 1 << 20;
        let n = bytes.len() / sz;
        Some(build_typed!(dtype, T => {
            let mut out: Vec<T> = vec![T::default(); n];
            let mut end = n;
            while end > 0 {
                let start = end.saturating_sub(CHUNK);
                for (o, c) in out[start..end]
                    .iter_mut()
                    .zip(bytes[start * sz..end * sz].chunks_exact(sz))
                {
                    let mut a = [0u8; std::mem::size_of::<T>()];
                    a.copy_from_slice(c);
                    *o = T::from_le_bytes(a);
                }
                bytes.truncate(start * sz);
                if bytes.capacity() - bytes.len() >= 4 * CHUNK {
                    bytes.shrink_to_fit();
                }
                end = start;
            }
            out
        }))
    }

    /// Rebuilds a buffer from little-endian bytes. Returns `None` when `bytes.len()` is not a
    /// multiple of the element size.
    pub fn from_le_bytes(dtype: DType, bytes: &[u8]) -> Option<HostData> {
        let sz = dtype.size();
        if !bytes.len().is_multiple_of(sz) {
            return None;
        }
        Some(build_typed!(dtype, T => bytes
            .chunks_exact(sz)
            .map(|c| {
                let mut a = [0u8; std::mem::size_of::<T>()];
                a.copy_from_slice(c);
                T::from_le_bytes(a)
            })
            .collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_names_round_trip() {
        for d in ALL_DTYPES {
            assert_eq!(DType::from_name(d.name()), Some(d));
        }
        assert_eq!(DType::from_name("f16"), None);
        assert_eq!(DType::U16.size(), 2);
        assert_eq!(DType::F64.size(), 8);
    }

    #[test]
    fn le_bytes_round_trip_and_layout() {
        let d = HostData::I16(vec![1, -2]);
        assert_eq!(d.to_le_bytes(), vec![0x01, 0x00, 0xfe, 0xff]);
        assert_eq!(
            HostData::from_le_bytes(DType::I16, &d.to_le_bytes()),
            Some(d)
        );
        let f = HostData::F32(vec![1.0]);
        assert_eq!(f.to_le_bytes(), vec![0x00, 0x00, 0x80, 0x3f]);
        assert_eq!(HostData::from_le_bytes(DType::U32, &[1, 2, 3]), None);
        for dt in ALL_DTYPES {
            let z = HostData::zeros(dt, 3);
            assert_eq!(z.dtype(), dt);
            assert_eq!(z.byte_len(), 3 * dt.size());
            assert!(z.to_le_bytes().iter().all(|&b| b == 0));
        }
        // The owned read-back gives the same buffer
        for dt in ALL_DTYPES {
            let bytes: Vec<u8> = (0..(dt.size() * 3_000_000))
                .map(|i| (i * 7 % 251) as u8)
                .collect();
            assert_eq!(
                HostData::from_le_bytes_owned(dt, bytes.clone()),
                HostData::from_le_bytes(dt, &bytes)
            );
        }
        assert_eq!(
            HostData::from_le_bytes_owned(DType::U32, vec![1, 2, 3]),
            None
        );
    }
}
