//! Kernel argument conversion: a launch's `args` list → the bytes of the kernel's `.param` space.
//!
//! Layout follows the PTX ISA ("Kernel Function Parameters", PTX ISA 8.x §5.1.6.1): parameters
//! are laid out in declaration order, each at an offset rounded up to its alignment (its natural
//! size unless `.align` says otherwise). A buffer name passes the buffer's 64-bit device address;
//! a number is converted to the parameter's type with a range check.

/// One kernel parameter as declared in PTX, independent of the IR's own types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamDesc<'a> {
    /// Parameter name (for messages).
    pub name: &'a str,
    /// PTX type with or without the dot: `.u32`, `s64`, `.f32`, `.b8`, ...
    pub ty: &'a str,
    /// Total size in bytes (`> natural size` for arrays such as `.b8 p[16]`).
    pub size: usize,
    /// Alignment in bytes (`0` = the type's natural size).
    pub align: usize,
}

/// A value from a launch's `args` list.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchArg {
    /// A buffer name: passes the buffer's device address.
    Buffer(String),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A struct passed by value (`{ struct = [ { i32 = 5 }, { f32 = 0.5 }, { ptr = "buf" } ] }`):
    /// typed fields laid out with C alignment, for an aggregate parameter such as
    /// `.param .align 8 .b8 p[24]` (see [`build_params`]).
    Struct(Vec<StructField>),
}

/// One field of a [`LaunchArg::Struct`].
#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    /// `i8 u8 i16 u16 i32 u32 i64 u64 f32 f64` (the value converts as for a scalar parameter of
    /// that type), `ptr` (a buffer name: its 64-bit device address) or `pad` (that many zero
    /// bytes, alignment 1).
    pub ty: String,
    pub value: LaunchArg,
}

/// The field types a struct argument accepts.
pub const STRUCT_FIELD_TYPES: [&str; 12] = [
    "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "ptr", "pad",
];

impl StructField {
    /// `(kind, size, align)` of the field.
    fn layout(&self) -> Option<(Kind, usize, usize)> {
        match self.ty.as_str() {
            "ptr" => Some((Kind::Bits, 8, 8)),
            "pad" => match self.value {
                LaunchArg::Int(n) if n >= 0 => Some((Kind::Bits, n as usize, 1)),
                _ => None,
            },
            t => {
                let t = t.replacen('i', "s", 1);
                parse_ty(&t).map(|(k, b)| (k, b, b))
            }
        }
    }
}

impl std::fmt::Display for LaunchArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchArg::Buffer(b) => write!(f, "buffer {b:?}"),
            LaunchArg::Int(i) => write!(f, "{i}"),
            LaunchArg::Float(x) => write!(f, "{x:?}"),
            LaunchArg::Struct(fields) => {
                write!(f, "{{ struct = [")?;
                for (i, fl) in fields.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    match &fl.value {
                        LaunchArg::Buffer(b) => write!(f, "{sep}{{ {} = {b:?} }}", fl.ty)?,
                        v => write!(f, "{sep}{{ {} = {v} }}", fl.ty)?,
                    }
                }
                write!(f, "] }}")
            }
        }
    }
}

/// The param-space image of one launch.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ParamBlock {
    /// Little-endian bytes of all parameters, padding zeroed.
    pub bytes: Vec<u8>,
    /// Byte offset of each parameter, in declaration order.
    pub offsets: Vec<usize>,
}

/// Why `args` do not fit the kernel's parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArgError {
    #[error(
        "missing argument for parameter {index} ({name}: {ty}); {given} given, {expected} expected"
    )]
    Missing {
        index: usize,
        name: String,
        ty: String,
        given: usize,
        expected: usize,
    },
    #[error("extra argument {index} ({value}); the kernel has {expected} parameters")]
    Extra {
        index: usize,
        value: String,
        expected: usize,
    },
    #[error("parameter {index} ({name}: {ty}): {message}")]
    Bad {
        index: usize,
        name: String,
        ty: String,
        message: String,
    },
}

/// Scalar PTX parameter kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unsigned,
    Signed,
    Bits,
    Float,
}

fn parse_ty(ty: &str) -> Option<(Kind, usize)> {
    let t = ty.strip_prefix('.').unwrap_or(ty);
    let (k, bits) = t.split_at(1.min(t.len()));
    let kind = match k {
        "u" => Kind::Unsigned,
        "s" => Kind::Signed,
        "b" => Kind::Bits,
        "f" => Kind::Float,
        _ => return None,
    };
    let bytes = match bits {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => return None,
    };
    if kind == Kind::Float && bytes < 4 {
        return None; // .f16 parameters are not supported
    }
    Some((kind, bytes))
}

fn encode(kind: Kind, bytes: usize, arg: &LaunchArg, addr: Option<u64>) -> Result<Vec<u8>, String> {
    let bits = 8 * bytes as u32;
    match (arg, kind) {
        (LaunchArg::Buffer(name), Kind::Float) => Err(format!(
            "buffer {name:?} passes a 64-bit pointer; a float parameter cannot take it"
        )),
        (LaunchArg::Buffer(name), _) => {
            let a = addr.ok_or_else(|| format!("unknown buffer {name:?}"))?;
            if bytes != 8 {
                return Err(format!(
                    "buffer {name:?} passes a 64-bit pointer; the parameter is {bits}-bit"
                ));
            }
            Ok(a.to_le_bytes().to_vec())
        }
        (LaunchArg::Int(i), Kind::Float) => {
            let v = *i as i128;
            if bytes == 4 {
                let f = *i as f32;
                if f as i128 != v {
                    return Err(format!("{i} is not exactly representable as f32"));
                }
                Ok(f.to_le_bytes().to_vec())
            } else {
                let f = *i as f64;
                if f as i128 != v {
                    return Err(format!("{i} is not exactly representable as f64"));
                }
                Ok(f.to_le_bytes().to_vec())
            }
        }
        (LaunchArg::Float(x), Kind::Float) => {
            if !x.is_finite() {
                return Err(format!("{x} is not finite"));
            }
            if bytes == 4 {
                if x.abs() > f32::MAX as f64 {
                    return Err(format!("{x:e} is outside the f32 range"));
                }
                Ok((*x as f32).to_le_bytes().to_vec())
            } else {
                Ok(x.to_le_bytes().to_vec())
            }
        }
        (LaunchArg::Struct(_), _) => Err(format!(
            "a struct argument needs an aggregate parameter (.b8 p[N]); this one is a {bits}-bit scalar"
        )),
        (LaunchArg::Float(x), _) => Err(format!(
            "{x:?} is a float; the parameter is an integer (write an integer literal)"
        )),
        (LaunchArg::Int(i), _) => {
            let v = *i as i128;
            // PTX parameter types do not carry the C signedness: NVRTC and nvcc declare a C
            // `int` parameter `.u32` (PTX ISA §5.1: .u and .b parameters are interchangeable
            // bit containers), so unsigned and untyped parameters accept a value that either a
            // signed or an unsigned reading holds (two's complement). Signed parameters keep
            // the signed range.
            let (lo, hi) = match kind {
                Kind::Signed => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
                _ => (-(1i128 << (bits - 1)), (1i128 << bits) - 1),
            };
            if v < lo || v > hi {
                return Err(format!("{i} is outside [{lo}, {hi}]"));
            }
            Ok((v as u64).to_le_bytes()[..bytes].to_vec())
        }
    }
}

/// Converts `args` to the param-space bytes of a kernel whose parameters are `params`.
/// `buffer_addr` maps a buffer name to its device address.
pub fn build_params(
    params: &[ParamDesc<'_>],
    args: &[LaunchArg],
    buffer_addr: &dyn Fn(&str) -> Option<u64>,
) -> Result<ParamBlock, ArgError> {
    if args.len() < params.len() {
        let p = &params[args.len()];
        return Err(ArgError::Missing {
            index: args.len(),
            name: p.name.to_string(),
            ty: p.ty.to_string(),
            given: args.len(),
            expected: params.len(),
        });
    }
    if args.len() > params.len() {
        return Err(ArgError::Extra {
            index: params.len(),
            value: args[params.len()].to_string(),
            expected: params.len(),
        });
    }
    let mut out = ParamBlock::default();
    for (index, (p, a)) in params.iter().zip(args).enumerate() {
        let bad = |message: String| ArgError::Bad {
            index,
            name: p.name.to_string(),
            ty: p.ty.to_string(),
            message,
        };
        let (kind, natural) =
            parse_ty(p.ty).ok_or_else(|| bad(format!("unsupported parameter type {:?}", p.ty)))?;
        let align = if p.align == 0 { natural } else { p.align };
        if !align.is_power_of_two() {
            return Err(bad(format!("alignment {align} is not a power of two")));
        }
        let enc = match a {
            LaunchArg::Struct(fields) => encode_struct(fields, p.size, align, buffer_addr)
                .map_err(|m| bad(format!("struct argument: {m}")))?,
            _ if p.size != natural => {
                return Err(bad(format!(
                    "aggregate parameter of {} bytes (align {align}; a struct passed by value) \
                     cannot take a scalar argument: pass {{ struct = [ {{ i32 = 1 }}, {{ f32 = 0.5 }}, \
                     {{ ptr = \"buf\" }}, ... ] }} with fields filling exactly {} bytes",
                    p.size, p.size
                )));
            }
            _ => {
                let addr = match a {
                    LaunchArg::Buffer(n) => buffer_addr(n),
                    _ => None,
                };
                encode(kind, natural, a, addr).map_err(bad)?
            }
        };
        let off = out.bytes.len().next_multiple_of(align);
        out.bytes.resize(off, 0);
        out.bytes.extend_from_slice(&enc);
        out.offsets.push(off);
    }
    Ok(out)
}

/// The bytes of a struct argument: fields in order, each at the next multiple of its size
/// (natural alignment, the C/CUDA layout rule of the CUDA C++ Programming Guide, "Alignment
/// Requirements" / Itanium C++ ABI), the total rounded up to the largest field alignment. The
/// result must fill the parameter's `size` exactly and need no more than its `align`.
fn encode_struct(
    fields: &[StructField],
    size: usize,
    align: usize,
    buffer_addr: &dyn Fn(&str) -> Option<u64>,
) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut max_align = 1;
    for (k, f) in fields.iter().enumerate() {
        let (kind, bytes, fa) = f.layout().ok_or_else(|| {
            format!(
                "field {k}: unknown field type {:?} (or pad without a byte count); types: {}",
                f.ty,
                STRUCT_FIELD_TYPES.join(" ")
            )
        })?;
        if fa > align {
            return Err(format!(
                "field {k} ({}) needs {fa}-byte alignment; the parameter is only {align}-byte aligned",
                f.ty
            ));
        }
        max_align = max_align.max(fa);
        let off = out.len().next_multiple_of(fa);
        if off + bytes > size {
            return Err(format!(
                "field {k} ({}) at offset {off} overflows the parameter's {size} bytes",
                f.ty
            ));
        }
        out.resize(off, 0);
        let enc = match (f.ty.as_str(), &f.value) {
            ("pad", _) => vec![0; bytes],
            ("ptr", LaunchArg::Buffer(n)) => buffer_addr(n)
                .ok_or_else(|| format!("field {k}: unknown buffer {n:?}"))?
                .to_le_bytes()
                .to_vec(),
            ("ptr", v) => return Err(format!("field {k}: ptr takes a buffer name, got {v}")),
            (_, LaunchArg::Buffer(n)) => {
                return Err(format!(
                    "field {k}: buffer {n:?} can only be passed as {{ ptr = {n:?} }}"
                ))
            }
            (_, LaunchArg::Struct(_)) => {
                return Err(format!(
                    "field {k}: nested structs are written flat (list their fields in order)"
                ))
            }
            (_, v) => {
                encode(kind, bytes, v, None).map_err(|m| format!("field {k} ({}): {m}", f.ty))?
            }
        };
        out.extend_from_slice(&enc);
    }
    let total = out.len().next_multiple_of(max_align);
    if total != size {
        return Err(format!(
            "the fields fill {total} bytes (C layout, padded to {max_align}-byte alignment); \
             the parameter is {size} bytes: add the missing fields or {{ pad = N }}"
        ));
    }
    out.resize(total, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p<'a>(name: &'a str, ty: &'a str, size: usize) -> ParamDesc<'a> {
        ParamDesc {
            name,
            ty,
            size,
            align: 0,
        }
    }

    fn addr(n: &str) -> Option<u64> {
        (n == "img").then_some(0x7f00_0000_0100)
    }

    #[test]
    fn lays_out_with_alignment() {
        let params = [
            p("a", ".u32", 4),
            p("img", ".u64", 8),
            p("h", ".s16", 2),
            p("x", ".f32", 4),
        ];
        let args = [
            LaunchArg::Int(64),
            LaunchArg::Buffer("img".into()),
            LaunchArg::Int(-2),
            LaunchArg::Float(1.0),
        ];
        let b = build_params(&params, &args, &addr).unwrap();
        assert_eq!(b.offsets, vec![0, 8, 16, 20]);
        let mut exp = vec![64, 0, 0, 0, 0, 0, 0, 0];
        exp.extend_from_slice(&0x7f00_0000_0100u64.to_le_bytes());
        exp.extend_from_slice(&[0xfe, 0xff, 0, 0]);
        exp.extend_from_slice(&[0, 0, 0x80, 0x3f]);
        assert_eq!(b.bytes, exp);
    }

    #[test]
    fn range_checks_name_the_parameter() {
        let e = build_params(&[p("n", "u8", 1)], &[LaunchArg::Int(256)], &addr).unwrap_err();
        assert!(e.to_string().contains("parameter 0 (n: u8)"), "{e}");
        // NVRTC declares C `int` parameters `.u32`; negative ints pass as two's complement.
        let b = build_params(&[p("n", "u32", 4)], &[LaunchArg::Int(-3)], &addr).unwrap();
        assert_eq!(b.bytes, (-3i32).to_le_bytes().to_vec());
        assert!(build_params(&[p("n", "u8", 1)], &[LaunchArg::Int(-129)], &addr).is_err());
        assert!(build_params(&[p("n", "u32", 4)], &[LaunchArg::Int(1 << 32)], &addr).is_err());
        assert!(build_params(&[p("n", "s8", 1)], &[LaunchArg::Int(-128)], &addr).is_ok());
        assert!(build_params(&[p("n", "s8", 1)], &[LaunchArg::Int(128)], &addr).is_err());
        assert!(build_params(&[p("n", "b8", 1)], &[LaunchArg::Int(255)], &addr).is_ok());
        assert!(build_params(&[p("n", "b8", 1)], &[LaunchArg::Int(-128)], &addr).is_ok());
        assert!(build_params(&[p("n", ".u32", 4)], &[LaunchArg::Float(1.0)], &addr).is_err());
        assert!(build_params(&[p("x", ".f32", 4)], &[LaunchArg::Float(1e39)], &addr).is_err());
        assert!(build_params(&[p("x", ".f32", 4)], &[LaunchArg::Int(16_777_217)], &addr).is_err());
        assert!(build_params(&[p("x", ".f64", 8)], &[LaunchArg::Int(16_777_217)], &addr).is_ok());
        let e = build_params(
            &[p("q", ".u32", 4)],
            &[LaunchArg::Buffer("img".into())],
            &addr,
        )
        .unwrap_err();
        assert!(e.to_string().contains("64-bit pointer"), "{e}");
        let e = build_params(
            &[p("q", ".u64", 8)],
            &[LaunchArg::Buffer("nope".into())],
            &addr,
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown buffer \"nope\""), "{e}");
        let e = build_params(&[p("s", ".b8", 16)], &[LaunchArg::Int(0)], &addr).unwrap_err();
        assert!(e.to_string().contains("aggregate"), "{e}");
        assert!(build_params(&[p("h", ".f16", 2)], &[LaunchArg::Float(0.0)], &addr).is_err());
    }

    #[test]
    fn count_mismatch_names_parameter() {
        let params = [p("a", ".u32", 4), p("b", ".u32", 4)];
        let e = build_params(&params, &[LaunchArg::Int(1)], &addr).unwrap_err();
        assert!(
            matches!(&e, ArgError::Missing { index: 1, name, .. } if name == "b"),
            "{e}"
        );
        let e =
            build_params(&params[..1], &[LaunchArg::Int(1), LaunchArg::Int(2)], &addr).unwrap_err();
        assert!(matches!(
            e,
            ArgError::Extra {
                index: 1,
                expected: 1,
                ..
            }
        ));
    }

    #[test]
    fn explicit_alignment_and_u64_values() {
        let params = [
            ParamDesc {
                name: "a",
                ty: ".u8",
                size: 1,
                align: 0,
            },
            ParamDesc {
                name: "b",
                ty: ".u64",
                size: 8,
                align: 16,
            },
        ];
        let b = build_params(
            &params,
            &[LaunchArg::Int(1), LaunchArg::Int(i64::MAX)],
            &addr,
        )
        .unwrap();
        assert_eq!(b.offsets, vec![0, 16]);
        assert_eq!(b.bytes.len(), 24);
    }
}

#[cfg(test)]
mod struct_tests {
    use super::*;

    fn f(ty: &str, value: LaunchArg) -> StructField {
        StructField {
            ty: ty.into(),
            value,
        }
    }

    fn agg(size: usize, align: usize) -> ParamDesc<'static> {
        ParamDesc {
            name: "p_param_0",
            ty: ".b8",
            size,
            align,
        }
    }

    /// `struct { int n; float s; double off; short k; char c; }` = 24 bytes, align 8.
    #[test]
    fn struct_param_layout() {
        let s = LaunchArg::Struct(vec![
            f("i32", LaunchArg::Int(60)),
            f("f32", LaunchArg::Float(0.5)),
            f("f64", LaunchArg::Float(0.25)),
            f("i16", LaunchArg::Int(3)),
            f("i8", LaunchArg::Int(-2)),
        ]);
        let b = build_params(&[agg(24, 8)], &[s], &|_| None).unwrap();
        let mut want = 60i32.to_le_bytes().to_vec();
        want.extend_from_slice(&0.5f32.to_le_bytes());
        want.extend_from_slice(&0.25f64.to_le_bytes());
        want.extend_from_slice(&3i16.to_le_bytes());
        want.push(0xfe);
        want.resize(24, 0);
        assert_eq!(b.bytes, want);
    }

    #[test]
    fn struct_param_ptr_pad_and_errors() {
        let addr = |n: &str| (n == "buf").then_some(0x7f00_0000_0000u64);
        // { char c; pad 3; ptr p } = 16 bytes: explicit pad or implicit alignment agree
        let a = LaunchArg::Struct(vec![
            f("u8", LaunchArg::Int(7)),
            f("ptr", LaunchArg::Buffer("buf".into())),
        ]);
        let b = LaunchArg::Struct(vec![
            f("u8", LaunchArg::Int(7)),
            f("pad", LaunchArg::Int(7)),
            f("ptr", LaunchArg::Buffer("buf".into())),
        ]);
        let pa = build_params(&[agg(16, 8)], &[a], &addr).unwrap();
        let pb = build_params(&[agg(16, 8)], &[b], &addr).unwrap();
        assert_eq!(pa, pb);
        assert_eq!(&pa.bytes[8..], &0x7f00_0000_0000u64.to_le_bytes());
        // too few bytes / too many / over-aligned / out of range: errors name the parameter
        let short = LaunchArg::Struct(vec![f("i32", LaunchArg::Int(1))]);
        let e = build_params(&[agg(8, 4)], &[short], &addr)
            .unwrap_err()
            .to_string();
        assert!(e.contains("p_param_0") && e.contains("fill 4 bytes"), "{e}");
        let wide = LaunchArg::Struct(vec![f("f64", LaunchArg::Float(1.0))]);
        let e = build_params(&[agg(8, 4)], &[wide], &addr)
            .unwrap_err()
            .to_string();
        assert!(e.contains("8-byte alignment"), "{e}");
        let big = LaunchArg::Struct(vec![f("u8", LaunchArg::Int(256))]);
        let e = build_params(&[agg(1, 1)], &[big], &addr)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 0 (u8)") && e.contains("256"), "{e}");
        // a scalar for an aggregate points at the struct syntax
        let e = build_params(&[agg(8, 4)], &[LaunchArg::Int(1)], &addr)
            .unwrap_err()
            .to_string();
        assert!(e.contains("struct = ["), "{e}");
    }
}
