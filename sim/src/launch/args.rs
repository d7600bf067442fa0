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
}

impl std::fmt::Display for LaunchArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchArg::Buffer(b) => write!(f, "buffer {b:?}"),
            LaunchArg::Int(i) => write!(f, "{i}"),
            LaunchArg::Float(x) => write!(f, "{x:?}"),
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
        if p.size != natural {
            return Err(bad(format!(
                "aggregate parameter of {} bytes (element {natural} bytes) cannot take a scalar argument",
                p.size
            )));
        }
        let align = if p.align == 0 { natural } else { p.align };
        if !align.is_power_of_two() {
            return Err(bad(format!("alignment {align} is not a power of two")));
        }
        let addr = match a {
            LaunchArg::Buffer(n) => buffer_addr(n),
            _ => None,
        };
        let enc = encode(kind, natural, a, addr).map_err(bad)?;
        let off = out.bytes.len().next_multiple_of(align);
        out.bytes.resize(off, 0);
        out.bytes.extend_from_slice(&enc);
        out.offsets.push(off);
    }
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
        // issue 4: NVRTC declares C `int` parameters `.u32`; negative ints pass as two's complement.
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
