//! NumPy `.npy` reading (format versions 1.0, 2.0, 3.0) and writing (version 1.0).
//!
//! Format reference: NumPy Enhancement Proposal 1, "A Simple File Format for NumPy Arrays"
//! (`numpy/lib/format.py`). A file is the magic string `\x93NUMPY`, a major and a minor version
//! byte, a little-endian header length (`u16` for 1.0, `u32` for 2.0 and 3.0), an ASCII
//! (UTF-8 for 3.0) Python dict literal with the keys `descr`, `fortran_order` and `shape`, padded
//! with spaces and ended by `\n`, then the raw array data.
//!
//! regwatt only exchanges 1-D little-endian arrays of the ten [`DType`]s: descriptors `<f4 <f8 |i1
//! |u1 <i2 <u2 <i4 <u4 <i8 <u8` (`<i1`/`<u1` and `=`-prefixed forms are accepted too).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::data::{DType, HostData};

/// The magic bytes that open every `.npy` file.
pub const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Why a `.npy` image could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    #[error("not a .npy file (bad magic bytes)")]
    BadMagic,
    #[error("unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are read)")]
    UnsupportedVersion { major: u8, minor: u8 },
    #[error("truncated .npy file: {what} needs {needed} bytes, {available} available")]
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    #[error("malformed .npy header: {0}")]
    BadHeader(String),
    #[error("big-endian .npy data (descr {0:?}) is not supported; save with '<' byte order")]
    BigEndian(String),
    #[error(
        "unsupported .npy dtype descr {0:?} (supported: <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8)"
    )]
    UnsupportedDescr(String),
    #[error("Fortran-ordered .npy arrays are not supported")]
    FortranOrder,
    #[error(".npy array has shape {0:?}; only 1-D arrays are supported")]
    NotOneDimensional(Vec<u64>),
    #[error(".npy data has {actual} bytes after the header, the shape needs {expected}")]
    TrailingData { expected: usize, actual: usize },
}

/// `.npy` file I/O failures, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum NpyFileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Format { path: PathBuf, source: NpyError },
    #[error(transparent)]
    Read(#[from] regwatt_inputs::ReadError),
    #[error("{dir}: buffer name {name:?} is not a safe file name")]
    BadName { dir: PathBuf, name: String },
}

/// The `.npy` descriptor written for a dtype.
pub fn npy_descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::U16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
    }
}

fn parse_descr(descr: &str) -> Result<DType, NpyError> {
    let (order, code) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => return Err(NpyError::UnsupportedDescr(descr.to_string())),
    };
    let dtype = match code {
        "f4" => DType::F32,
        "f8" => DType::F64,
        "i1" | "b" => DType::I8,
        "u1" | "B" => DType::U8,
        "i2" => DType::I16,
        "u2" => DType::U16,
        "i4" => DType::I32,
        "u4" => DType::U32,
        "i8" => DType::I64,
        "u8" => DType::U64,
        _ => return Err(NpyError::UnsupportedDescr(descr.to_string())),
    };
    match order {
        '>' if dtype.size() > 1 => Err(NpyError::BigEndian(descr.to_string())),
        '|' if dtype.size() > 1 => Err(NpyError::UnsupportedDescr(descr.to_string())),
        _ => Ok(dtype),
    }
}

/// A value of the header dict (the subset of Python literals `.npy` headers use).
#[derive(Debug, Clone, PartialEq)]
enum PyLit {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// Minimal parser for the header's Python dict literal.
struct HeaderParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> HeaderParser<'a> {
    fn err(&self, what: &str) -> NpyError {
        NpyError::BadHeader(format!("{what} at byte {} of the header", self.pos))
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), NpyError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected '{}'", c as char)))
        }
    }

    fn string(&mut self) -> Result<String, NpyError> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.err("expected a string")),
        };
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != q {
            if self.s[self.pos] == b'\\' {
                return Err(self.err("escape sequences are not supported"));
            }
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return Err(self.err("unterminated string"));
        }
        let out = String::from_utf8(self.s[start..self.pos].to_vec())
            .map_err(|_| self.err("string is not UTF-8"))?;
        self.pos += 1;
        Ok(out)
    }

    fn value(&mut self) -> Result<PyLit, NpyError> {
        match self.peek() {
            Some(b'\'' | b'"') => Ok(PyLit::Str(self.string()?)),
            Some(b'(') => {
                self.pos += 1;
                let mut dims = Vec::new();
                loop {
                    match self.peek() {
                        Some(b')') => {
                            self.pos += 1;
                            break;
                        }
                        Some(c) if c.is_ascii_digit() => {
                            let start = self.pos;
                            while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                                self.pos += 1;
                            }
                            // Digits only, so from_utf8 cannot fail; the number may overflow.
                            let txt = std::str::from_utf8(&self.s[start..self.pos])
                                .map_err(|_| self.err("bad number"))?;
                            let n = txt
                                .parse::<u64>()
                                .map_err(|_| self.err("shape dimension out of range"))?;
                            dims.push(n);
                            // Python may write `5L` for longs (NumPy < 1.x on Python 2).
                            if self.s.get(self.pos) == Some(&b'L') {
                                self.pos += 1;
                            }
                            match self.peek() {
                                Some(b',') => self.pos += 1,
                                Some(b')') => {}
                                _ => return Err(self.err("expected ',' or ')' in shape")),
                            }
                        }
                        _ => return Err(self.err("expected a dimension or ')'")),
                    }
                }
                Ok(PyLit::Tuple(dims))
            }
            Some(b'T') if self.s[self.pos..].starts_with(b"True") => {
                self.pos += 4;
                Ok(PyLit::Bool(true))
            }
            Some(b'F') if self.s[self.pos..].starts_with(b"False") => {
                self.pos += 5;
                Ok(PyLit::Bool(false))
            }
            _ => Err(self.err("unsupported value")),
        }
    }

    fn dict(&mut self) -> Result<BTreeMap<String, PyLit>, NpyError> {
        let mut out = BTreeMap::new();
        self.expect(b'{')?;
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let k = self.string()?;
            self.expect(b':')?;
            let v = self.value()?;
            if out.insert(k.clone(), v).is_some() {
                return Err(self.err(&format!("duplicate key {k:?}")));
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
        if self.peek().is_some() {
            return Err(self.err("unexpected text after the dict"));
        }
        Ok(out)
    }
}

fn take<'a>(
    bytes: &'a [u8],
    at: usize,
    n: usize,
    what: &'static str,
) -> Result<&'a [u8], NpyError> {
    let end = at.checked_add(n).ok_or(NpyError::Truncated {
        what,
        needed: usize::MAX,
        available: bytes.len(),
    })?;
    bytes.get(at..end).ok_or(NpyError::Truncated {
        what,
        needed: end,
        available: bytes.len(),
    })
}

/// Decodes a `.npy` image into a typed buffer.
pub fn read_npy(bytes: &[u8]) -> Result<HostData, NpyError> {
    if take(bytes, 0, 6, "magic").map_err(|_| NpyError::BadMagic)? != NPY_MAGIC {
        return Err(NpyError::BadMagic);
    }
    let ver = take(bytes, 6, 2, "version")?;
    let (major, minor) = (ver[0], ver[1]);
    let (hlen, hstart) = match (major, minor) {
        (1, 0) => {
            let b = take(bytes, 8, 2, "header length")?;
            (u16::from_le_bytes([b[0], b[1]]) as usize, 10)
        }
        (2, 0) | (3, 0) => {
            let b = take(bytes, 8, 4, "header length")?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
        _ => return Err(NpyError::UnsupportedVersion { major, minor }),
    };
    let header = take(bytes, hstart, hlen, "header")?;
    if major < 3 && !header.is_ascii() {
        return Err(NpyError::BadHeader("header is not ASCII".into()));
    }
    let dict = HeaderParser { s: header, pos: 0 }.dict()?;
    for k in dict.keys() {
        if !matches!(k.as_str(), "descr" | "fortran_order" | "shape") {
            return Err(NpyError::BadHeader(format!("unexpected key {k:?}")));
        }
    }
    let dtype = match dict.get("descr") {
        Some(PyLit::Str(s)) => parse_descr(s)?,
        Some(_) => return Err(NpyError::BadHeader("'descr' is not a string".into())),
        None => return Err(NpyError::BadHeader("missing key 'descr'".into())),
    };
    match dict.get("fortran_order") {
        Some(PyLit::Bool(false)) => {}
        Some(PyLit::Bool(true)) => return Err(NpyError::FortranOrder),
        Some(_) => return Err(NpyError::BadHeader("'fortran_order' is not a bool".into())),
        None => return Err(NpyError::BadHeader("missing key 'fortran_order'".into())),
    }
    let len = match dict.get("shape") {
        Some(PyLit::Tuple(dims)) if dims.len() == 1 => dims[0],
        Some(PyLit::Tuple(dims)) => return Err(NpyError::NotOneDimensional(dims.clone())),
        Some(_) => return Err(NpyError::BadHeader("'shape' is not a tuple".into())),
        None => return Err(NpyError::BadHeader("missing key 'shape'".into())),
    };
    let data_start = hstart + hlen;
    let available = bytes.len() - data_start;
    let needed = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_mul(dtype.size()))
        .unwrap_or(usize::MAX);
    if available < needed {
        return Err(NpyError::Truncated {
            what: "array data",
            needed,
            available,
        });
    }
    if available > needed {
        return Err(NpyError::TrailingData {
            expected: needed,
            actual: available,
        });
    }
    HostData::from_le_bytes(dtype, &bytes[data_start..]).ok_or(NpyError::Truncated {
        what: "array data",
        needed,
        available,
    })
}

/// Encodes a buffer as a version 1.0 `.npy` image (header padded so the data starts at a multiple
/// of 64 bytes, as NumPy does).
pub fn write_npy(data: &HostData) -> Vec<u8> {
    let mut out = npy_preamble(data);
    out.reserve_exact(data.byte_len());
    out.extend_from_slice(&data.to_le_bytes());
    out
}

/// The magic, version, header length and header of [`write_npy`]'s image.
fn npy_preamble(data: &HostData) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}",
        npy_descr(data.dtype()),
        data.len()
    );
    // 10 bytes of preamble + header + '\n' must be a multiple of 64.
    let total = 10 + header.len() + 1;
    let pad = (64 - total % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len());
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[1, 0]);
    // A 1-D header is < 100 bytes, far below u16::MAX.
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out
}

/// Bound on an `.npy` file's preamble and header beyond its data: format 1.0 headers are at
/// most 65,545 bytes (a `u16` length after the 10-byte preamble), and the 2.0/3.0 headers numpy
/// writes for a 1-D array are under 200 bytes; 1 MiB covers both with room.
pub const NPY_HEADER_LIMIT: u64 = 1 << 20;

/// Reads a `.npy` file of at most [`MAX_BUFFER_BYTES`](super::spec::MAX_BUFFER_BYTES) of data
/// (regular files only, [`regwatt_inputs::read`]).
pub fn read_npy_file(path: &Path) -> Result<HostData, NpyFileError> {
    let bytes = regwatt_inputs::read(path, super::spec::MAX_BUFFER_BYTES + NPY_HEADER_LIMIT)?;
    read_npy(&bytes).map_err(|source| NpyFileError::Format {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a `.npy` file (format 1.0).
pub fn write_npy_file(path: &Path, data: &HostData) -> Result<(), NpyFileError> {
    use std::io::Write as _;
    let io = |source| NpyFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = std::fs::File::create(path).map_err(io)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    write_npy_to(&mut w, data).map_err(io)?;
    w.flush().map_err(io)
}

/// Writes `data` as `.npy` (format 1.0) to `w`, streamed in 1 MiB pieces: dumping a buffer
/// costs no second copy of it.
pub fn write_npy_to(w: &mut dyn std::io::Write, data: &HostData) -> std::io::Result<()> {
    w.write_all(&npy_preamble(data))?;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    macro_rules! put {
        ($v:expr, $t:ty) => {
            for chunk in $v.chunks((1 << 20) / std::mem::size_of::<$t>()) {
                buf.clear();
                for x in chunk {
                    buf.extend_from_slice(&x.to_le_bytes());
                }
                w.write_all(&buf)?;
            }
        };
    }
    match data {
        HostData::F32(v) => put!(v, f32),
        HostData::F64(v) => put!(v, f64),
        HostData::I8(v) => put!(v, i8),
        HostData::U8(v) => put!(v, u8),
        HostData::I16(v) => put!(v, i16),
        HostData::U16(v) => put!(v, u16),
        HostData::I32(v) => put!(v, i32),
        HostData::U32(v) => put!(v, u32),
        HostData::I64(v) => put!(v, i64),
        HostData::U64(v) => put!(v, u64),
    }
    Ok(())
}

/// True when `name` is usable as a buffer name and a file stem: `[A-Za-z_][A-Za-z0-9_.-]*`
/// without `..`.
pub fn is_safe_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !name.contains("..")
}

/// Writes every buffer to `DIR/<name>.npy`, creating `dir` if needed.
pub fn dump_dir(dir: &Path, buffers: &BTreeMap<String, HostData>) -> Result<(), NpyFileError> {
    for name in buffers.keys() {
        if !is_safe_name(name) {
            return Err(NpyFileError::BadName {
                dir: dir.to_path_buf(),
                name: name.clone(),
            });
        }
    }
    std::fs::create_dir_all(dir).map_err(|source| NpyFileError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for (name, data) in buffers {
        write_npy_file(&dir.join(format!("{name}.npy")), data)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::data::ALL_DTYPES;

    /// `numpy.save(f, numpy.array([1, -2, 3], dtype='<i2'))` with NumPy 2.x, byte for byte.
    fn numpy_fixture_i16() -> Vec<u8> {
        let mut v = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        let mut h = b"{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }".to_vec();
        h.resize(117, b' ');
        h.push(b'\n');
        v.extend_from_slice(&h);
        v.extend_from_slice(&[0x01, 0x00, 0xfe, 0xff, 0x03, 0x00]);
        v
    }

    #[test]
    fn reads_hand_written_fixture() {
        let f = numpy_fixture_i16();
        assert_eq!(f.len(), 128 + 6);
        assert_eq!(read_npy(&f), Ok(HostData::I16(vec![1, -2, 3])));
        // And we write exactly what NumPy writes.
        assert_eq!(write_npy(&HostData::I16(vec![1, -2, 3])), f);
    }

    #[test]
    fn round_trips_every_dtype() {
        for dt in ALL_DTYPES {
            for n in [0usize, 1, 7, 1000] {
                let mut d = HostData::zeros(dt, n);
                // Non-zero content: bytes 0..n*size as a pattern.
                let pat: Vec<u8> = (0..d.byte_len()).map(|i| (i * 37 + 11) as u8).collect();
                d = HostData::from_le_bytes(dt, &pat).unwrap();
                let img = write_npy(&d);
                assert_eq!((img.len() - d.byte_len()) % 64, 0);
                let back = read_npy(&img).unwrap();
                // Compare bytes (NaN patterns compare unequal as floats).
                assert_eq!(back.to_le_bytes(), d.to_le_bytes());
                assert_eq!(back.dtype(), dt);
            }
        }
    }

    fn with_header(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = NPY_MAGIC.to_vec();
        v.extend_from_slice(&[major, 0]);
        if major == 1 {
            v.extend_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            v.extend_from_slice(&(header.len() as u32).to_le_bytes());
        }
        v.extend_from_slice(header.as_bytes());
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn reads_versions_2_and_3() {
        let h = "{'descr': '<u4', 'fortran_order': False, 'shape': (2,)}\n";
        for major in [2, 3] {
            let f = with_header(major, h, &[1, 0, 0, 0, 2, 0, 0, 0]);
            assert_eq!(read_npy(&f), Ok(HostData::U32(vec![1, 2])));
        }
        let f = with_header(4, h, &[]);
        assert_eq!(
            read_npy(&f),
            Err(NpyError::UnsupportedVersion { major: 4, minor: 0 })
        );
    }

    #[test]
    fn rejects_bad_files() {
        let ok = |d: &str| format!("{{'descr': '{d}', 'fortran_order': False, 'shape': (1,), }}");
        assert_eq!(read_npy(b"PK\x03\x04"), Err(NpyError::BadMagic));
        assert!(matches!(
            read_npy(&with_header(1, &ok(">f4"), &[0; 4])),
            Err(NpyError::BigEndian(_))
        ));
        assert!(matches!(
            read_npy(&with_header(1, &ok("<c8"), &[0; 8])),
            Err(NpyError::UnsupportedDescr(_))
        ));
        assert_eq!(
            read_npy(&with_header(1, &ok("|u1"), &[9])),
            Ok(HostData::U8(vec![9]))
        );
        let fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }";
        assert_eq!(
            read_npy(&with_header(1, fortran, &[0; 4])),
            Err(NpyError::FortranOrder)
        );
        let two_d = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
        assert_eq!(
            read_npy(&with_header(1, two_d, &[0; 16])),
            Err(NpyError::NotOneDimensional(vec![2, 2]))
        );
        let scalar = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";
        assert_eq!(
            read_npy(&with_header(1, scalar, &[0; 4])),
            Err(NpyError::NotOneDimensional(vec![]))
        );
        // Truncated data, header and length field.
        assert!(matches!(
            read_npy(&with_header(1, &ok("<f8"), &[0; 7])),
            Err(NpyError::Truncated {
                needed: 8,
                available: 7,
                ..
            })
        ));
        let full = numpy_fixture_i16();
        assert!(matches!(
            read_npy(&full[..50]),
            Err(NpyError::Truncated { .. })
        ));
        assert!(matches!(
            read_npy(&full[..9]),
            Err(NpyError::Truncated { .. })
        ));
        assert!(matches!(
            read_npy(&with_header(1, &ok("<i4"), &[0; 5])),
            Err(NpyError::TrailingData {
                expected: 4,
                actual: 5
            })
        ));
        assert!(matches!(
            read_npy(&with_header(1, "{'descr': '<i4', 'shape': (1,)}", &[0; 4])),
            Err(NpyError::BadHeader(_))
        ));
        assert!(matches!(
            read_npy(&with_header(
                1,
                "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': True}",
                &[0; 4]
            )),
            Err(NpyError::BadHeader(_))
        ));
        assert!(matches!(
            read_npy(&with_header(1, "{'descr': '<i4' 'shape'", &[])),
            Err(NpyError::BadHeader(_))
        ));
        let huge = "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }";
        assert!(matches!(
            read_npy(&with_header(1, huge, &[])),
            Err(NpyError::BadHeader(_))
        ));
    }

    #[test]
    fn dump_dir_writes_named_files() {
        let dir = std::env::temp_dir().join(format!("regwatt-npy-test-{}", std::process::id()));
        let mut m = BTreeMap::new();
        m.insert("out".to_string(), HostData::F64(vec![0.5, -1.0]));
        m.insert("idx".to_string(), HostData::I8(vec![-1]));
        dump_dir(&dir, &m).unwrap();
        assert_eq!(read_npy_file(&dir.join("out.npy")).unwrap(), m["out"]);
        assert_eq!(read_npy_file(&dir.join("idx.npy")).unwrap(), m["idx"]);
        // The streamed file is the in-memory image, also across 1 MiB pieces
        // and for an empty buffer
        for d in [
            HostData::U32((0..700_000).collect()),
            HostData::F32(vec![]),
            HostData::I16(vec![-3, 4]),
        ] {
            let p = dir.join("stream.npy");
            write_npy_file(&p, &d).unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), write_npy(&d));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let mut bad = BTreeMap::new();
        bad.insert("../x".to_string(), HostData::U8(vec![]));
        assert!(matches!(
            dump_dir(&dir, &bad),
            Err(NpyFileError::BadName { .. })
        ));
    }
}
