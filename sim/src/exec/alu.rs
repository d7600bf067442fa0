//! Per-lane semantics of the arithmetic, logic, comparison and conversion instructions.
//! Values are raw bits in a `u64` (the low `ty.bits()` bits are significant); each function
//! cites the PTX ISA section (PTX ISA 8.5, chapter 9.7) whose semantics it implements.

use super::fp::{self, Approx};
use super::lower::ExecInstr;
use crate::ir::{AtomOp, Cmp, Mode, Mods, Opcode, Round, Ty};
use crate::mem;

/// Why a lane could not be evaluated (converted to an `ExecError` naming file and line).
pub type AluResult = Result<u64, String>;

/// Low `bits` bits of `v`.
#[inline]
pub fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// `v`'s low `bits` bits, sign-extended.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

#[inline]
fn f32_of(v: u64, ftz: bool) -> f32 {
    let x = f32::from_bits(v as u32);
    if ftz {
        fp::ftz32(x)
    } else {
        x
    }
}

#[inline]
fn out32(x: f32, ftz: bool, sat: bool) -> u64 {
    if x.is_nan() && !sat {
        return u64::from(fp::CANONICAL_NAN_F32);
    }
    let x = if sat { fp::sat32(x) } else { x };
    let x = if ftz { fp::ftz32(x) } else { x };
    u64::from(x.to_bits())
}

#[inline]
fn out64(x: f64, sat: bool) -> u64 {
    (if sat { fp::sat64(x) } else { x }).to_bits()
}

/// Default rounding of a float arithmetic instruction without a modifier: nearest even.
#[inline]
fn rn(r: Round) -> Round {
    if r == Round::None {
        Round::Rn
    } else {
        r
    }
}

/// Integer value of `v` of type `ty` as `i128` (signed types sign-extended).
#[inline]
pub fn int_value(v: u64, ty: Ty) -> i128 {
    let bits = ty.bits();
    if ty.is_signed() {
        i128::from(sext(v, bits))
    } else {
        i128::from(mask(v, bits))
    }
}

/// Range of integer type `ty`.
#[inline]
fn int_range(ty: Ty) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Saturates `v` to `ty`'s range and returns its bits.
#[inline]
fn sat_int(v: i128, ty: Ty) -> u64 {
    let (lo, hi) = int_range(ty);
    mask(v.clamp(lo, hi) as u64, ty.bits())
}

/// Evaluates one lane of instruction `ins` (everything except setp/set, memory, control and
/// warp-level instructions). `s` are the source values in PTX order; `cc` is the lane's carry
/// flag (PTX ISA §9.7.2, extended-precision arithmetic), read by `addc/subc/madc` and written by
/// `.cc` variants.
pub fn eval(ins: &ExecInstr, s: &[u64; 4], cc: &mut bool) -> AluResult {
    let ty = ins.ty;
    let bits = ty.bits();
    let (a, b, c) = (s[0], s[1], s[2]);
    let ftz = ins.mods.has(Mods::FTZ);
    let sat = ins.mods.has(Mods::SAT);
    let float = ty.is_float();
    if float && !matches!(ty, Ty::F32 | Ty::F64) && !matches!(ins.op, Opcode::Mov | Opcode::Cvt) {
        return Err(format!("{:?} arithmetic on {ty:?}", ins.op));
    }
    let is64 = ty == Ty::F64;
    use Opcode::*;
    Ok(match ins.op {
        // §9.7.1.1 add, §9.7.2.1 add.cc / addc; §9.7.3.1 add (float)
        Add | Sub if !float => {
            let sub = ins.op == Sub;
            if ins.mods.has(Mods::CC) || ins.mods.has(Mods::CARRY_IN) {
                let cin = u128::from(ins.mods.has(Mods::CARRY_IN) && *cc);
                let (x, y) = (u128::from(mask(a, bits)), u128::from(mask(b, bits)));
                let full = if sub {
                    // d = a - (b + CC.CF); CC.CF = borrow out
                    x.wrapping_sub(y + cin)
                } else {
                    x + y + cin
                };
                if ins.mods.has(Mods::CC) {
                    *cc = if sub { x < y + cin } else { full >> bits != 0 };
                }
                mask(full as u64, bits)
            } else if sat && ty == Ty::S32 {
                let (x, y) = (i64::from(a as i32), i64::from(b as i32));
                let r = if sub { x - y } else { x + y };
                sat_int(i128::from(r), Ty::S32)
            } else if sub {
                mask(a.wrapping_sub(b), bits)
            } else {
                mask(a.wrapping_add(b), bits)
            }
        }
        Add | Sub => {
            let r = rn(ins.rnd);
            if is64 {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let y = if ins.op == Sub { -y } else { y };
                out64(fp::add64(x, y, r), sat)
            } else {
                let (x, y) = (f32_of(a, ftz), f32_of(b, ftz));
                let y = if ins.op == Sub { -y } else { y };
                out32(fp::add32(x, y, r), ftz, sat)
            }
        }
        // §9.7.1.3 mul, §9.7.3.3 mul (float)
        Mul if !float => mul_int(ins.mode, ty, a, b),
        Mul => {
            let r = rn(ins.rnd);
            if is64 {
                out64(fp::mul64(f64::from_bits(a), f64::from_bits(b), r), sat)
            } else {
                out32(fp::mul32(f32_of(a, ftz), f32_of(b, ftz), r), ftz, sat)
            }
        }
        // §9.7.1.4 mad, §9.7.2.3 mad.cc / madc; §9.7.3.5 mad (float) = fma
        Mad if !float => {
            let p = mul_int(ins.mode, ty, a, b);
            let wbits = if ins.mode == Mode::Wide {
                bits * 2
            } else {
                bits
            };
            if ins.mods.has(Mods::CC) || ins.mods.has(Mods::CARRY_IN) {
                let cin = u128::from(ins.mods.has(Mods::CARRY_IN) && *cc);
                let full = u128::from(p) + u128::from(mask(c, wbits)) + cin;
                if ins.mods.has(Mods::CC) {
                    *cc = full >> wbits != 0;
                }
                mask(full as u64, wbits)
            } else if sat && ty == Ty::S32 && ins.mode == Mode::Hi {
                let r = i128::from(p as i32) + i128::from(c as i32);
                sat_int(r, Ty::S32)
            } else {
                mask(p.wrapping_add(c), wbits)
            }
        }
        Mad | Fma => {
            let r = rn(ins.rnd);
            if is64 {
                if !matches!(r, Round::Rn) {
                    return Err("directed rounding of fma.f64".into());
                }
                out64(
                    f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)),
                    sat,
                )
            } else {
                out32(
                    fp::fma32(f32_of(a, ftz), f32_of(b, ftz), f32_of(c, ftz), r),
                    ftz,
                    sat,
                )
            }
        }
        // §9.7.1.5 mul24 / §9.7.1.6 mad24
        Mul24 | Mad24 => {
            let (x, y) = if ty.is_signed() {
                (sext(a, 24) as i128, sext(b, 24) as i128)
            } else {
                (mask(a, 24) as i128, mask(b, 24) as i128)
            };
            let p = (x * y) as u64;
            let r = if ins.mode == Mode::Hi { p >> 16 } else { p };
            let r = if ins.op == Mad24 {
                r.wrapping_add(c)
            } else {
                r
            };
            mask(r, 32)
        }
        // §9.7.1.7 sad
        Sad => {
            let (x, y) = (int_value(a, ty), int_value(b, ty));
            mask(((x - y).unsigned_abs() as u64).wrapping_add(c), bits)
        }
        // §9.7.1.8 div: division by zero has no PTX-defined value; we return all ones for
        // unsigned and -1 for signed (what NVIDIA GPUs produce); MIN / -1 wraps to MIN.
        Div if !float => {
            let (x, y) = (int_value(a, ty), int_value(b, ty));
            if y == 0 {
                mask(u64::MAX, bits)
            } else {
                mask((x / y) as u64, bits) // i128: MIN/-1 does not overflow, wraps on mask
            }
        }
        // §9.7.3.8 div (float): .rn/.rz/.rm/.rp IEEE; .full ≤ 2 ulp (we give IEEE rn);
        // .approx = a * rcp.approx(b)
        Div => {
            if is64 {
                out64(
                    fp::div64(f64::from_bits(a), f64::from_bits(b), rn(ins.rnd)),
                    false,
                )
            } else {
                let (x, y) = (f32_of(a, ftz), f32_of(b, ftz));
                let q = if ins.mods.has(Mods::APPROX) {
                    x * fp::approx32(Approx::Rcp, y)
                } else {
                    fp::div32(x, y, rn(ins.rnd))
                };
                out32(q, ftz, sat)
            }
        }
        // §9.7.1.9 rem: remainder by zero returns the dividend (no PTX-defined value)
        Rem => {
            let (x, y) = (int_value(a, ty), int_value(b, ty));
            if y == 0 {
                mask(a, bits)
            } else {
                mask((x % y) as u64, bits)
            }
        }
        // §9.7.1.10 abs, §9.7.3.6 abs (float: clears the sign bit, NaN included)
        Abs if !float => mask(sext(a, bits).wrapping_abs() as u64, bits),
        Abs => {
            if is64 {
                a & !(1u64 << 63)
            } else {
                out32(f32_of(a, ftz).abs(), ftz, false)
            }
        }
        // §9.7.1.11 neg, §9.7.3.7 neg
        Neg if !float => mask(a.wrapping_neg(), bits),
        Neg => {
            if is64 {
                a ^ (1u64 << 63)
            } else {
                out32(-f32_of(a, ftz), ftz, false)
            }
        }
        // §9.7.1.12 min, §9.7.1.13 max; §9.7.3.11/12 float min/max (NaN rules in fp)
        Min | Max if !float => {
            let (x, y) = (int_value(a, ty), int_value(b, ty));
            let r = if ins.op == Min { x.min(y) } else { x.max(y) };
            mask(r as u64, bits)
        }
        Min | Max => {
            let nan = ins.mods.has(Mods::NAN);
            if is64 {
                fp::minmax64(f64::from_bits(a), f64::from_bits(b), nan, ins.op == Min).to_bits()
            } else {
                let (x, y) = (f32_of(a, ftz), f32_of(b, ftz));
                let r = if ins.op == Min {
                    fp::min32(x, y, nan)
                } else {
                    fp::max32(x, y, nan)
                };
                out32(r, ftz, false)
            }
        }
        // §9.7.1.14 popc, §9.7.1.15 clz (result .u32)
        Popc => u64::from(mask(a, bits).count_ones()),
        Clz => u64::from(mask(a, bits).leading_zeros() - (64 - bits)),
        // §9.7.1.16 bfind: position of the most significant non-sign bit; 0xffffffff if none
        Bfind => {
            let v = if ty.is_signed() && sext(a, bits) < 0 {
                mask(!a, bits)
            } else {
                mask(a, bits)
            };
            if v == 0 {
                0xffff_ffff
            } else {
                let pos = 63 - v.leading_zeros();
                if ins.mods.has(Mods::SHIFTAMT) {
                    u64::from(bits - 1 - pos)
                } else {
                    u64::from(pos)
                }
            }
        }
        // §9.7.1.18 brev
        Brev => mask(a.reverse_bits() >> (64 - bits), bits),
        // §9.7.1.19 bfe
        Bfe => bfe(ty, a, b, c),
        // §9.7.1.20 bfi: insert the low `len` bits of a into b at `pos`
        Bfi => {
            let (pos, len) = (c & 0xff, s[3] & 0xff);
            let mut f = mask(b, bits);
            for i in 0..len {
                let p = pos + i;
                if p >= u64::from(bits) {
                    break;
                }
                f = (f & !(1 << p)) | (((a >> i) & 1) << p);
            }
            f
        }
        // §9.7.1.23 dp4a, §9.7.1.24 dp2a (ty = type of a, ty2 = type of b)
        Dp4a | Dp2a => {
            let byte = |v: u64, i: u32, signed: bool, w: u32| -> i64 {
                let x = (v >> (i * w)) & ((1 << w) - 1);
                if signed {
                    sext(x, w)
                } else {
                    x as i64
                }
            };
            let (sa, sb) = (ty.is_signed(), ins.ty2.is_signed());
            let mut acc = c as u32 as i64;
            if ins.op == Dp4a {
                for i in 0..4 {
                    acc = acc.wrapping_add(byte(a, i, sa, 8) * byte(b, i, sb, 8));
                }
            } else {
                let hi = ins.mode == Mode::Hi;
                for i in 0..2 {
                    let bi = if hi { i + 2 } else { i };
                    acc = acc.wrapping_add(byte(a, i, sa, 16) * byte(b, bi, sb, 8));
                }
            }
            mask(acc as u64, 32)
        }
        // §9.7.3.10 sqrt, §9.7.3.9 rcp (rounded variants IEEE, .approx in f64 then rounded)
        Rcp | Sqrt if ins.mods.has(Mods::APPROX) || ins.rnd == Round::None => {
            let f = if ins.op == Rcp {
                Approx::Rcp
            } else {
                Approx::Sqrt
            };
            if is64 {
                let x = f64::from_bits(a);
                (if ins.op == Rcp { 1.0 / x } else { x.sqrt() }).to_bits()
            } else {
                out32(fp::approx32(f, f32_of(a, ftz)), ftz, false)
            }
        }
        Rcp => {
            if is64 {
                fp::div64(1.0, f64::from_bits(a), ins.rnd).to_bits()
            } else {
                out32(fp::div32(1.0, f32_of(a, ftz), ins.rnd), ftz, false)
            }
        }
        Sqrt => {
            if is64 {
                fp::sqrt64(f64::from_bits(a), ins.rnd).to_bits()
            } else {
                out32(fp::sqrt32(f32_of(a, ftz), ins.rnd), ftz, false)
            }
        }
        // §9.7.3.11-18 rsqrt, sin, cos, lg2, ex2, tanh (.approx)
        Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
            let f = match ins.op {
                Rsqrt => Approx::Rsqrt,
                Sin => Approx::Sin,
                Cos => Approx::Cos,
                Lg2 => Approx::Lg2,
                Ex2 => Approx::Ex2,
                _ => Approx::Tanh,
            };
            if is64 {
                let x = f64::from_bits(a);
                match f {
                    Approx::Rsqrt => (1.0 / x.sqrt()).to_bits(),
                    _ => return Err(format!("{:?}.f64", ins.op)),
                }
            } else {
                out32(fp::approx32(f, f32_of(a, ftz)), ftz, false)
            }
        }
        // §9.7.3.x copysign: d = |b| with the sign of a
        Copysign => {
            if is64 {
                (b & !(1 << 63)) | (a & (1 << 63))
            } else {
                (b & 0x7fff_ffff) | (a & 0x8000_0000)
            }
        }
        // §9.7.6.3 selp: d = c ? a : b (c a predicate, 0/1)
        Selp => {
            if c & 1 != 0 {
                a
            } else {
                b
            }
        }
        // §9.7.6.4 slct: d = (c >= 0) ? a : b, c of type ty2 (s32 or f32; NaN → b)
        Slct => {
            let take_a = if ins.ty2 == Ty::F32 {
                f32_of(c, ftz) >= 0.0
            } else {
                (c as u32 as i32) >= 0
            };
            if take_a {
                a
            } else {
                b
            }
        }
        // §9.7.7.1-5 and, or, xor, not, cnot (predicates are 0/1)
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Not if ty == Ty::Pred => (!a) & 1,
        Not => mask(!a, bits),
        Cnot => u64::from(mask(a, bits) == 0),
        // §9.7.7.6 lop3: bit i of d = immLut[{a_i, b_i, c_i}] (F0 = a, CC = b, AA = c)
        Lop3 => {
            let lut = s[3] & 0xff;
            let mut d = 0u64;
            for i in 0..32 {
                let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
                d |= ((lut >> idx) & 1) << i;
            }
            d
        }
        // §9.7.7.7 shf: funnel shift of b:a; .clamp limits n to 32, .wrap takes n mod 32
        Shf => {
            let n = if ins.mods.has(Mods::WRAP) {
                c & 31
            } else {
                (c as u32).min(32) as u64
            };
            let v = (mask(b, 32) << 32) | mask(a, 32);
            if ins.mode == Mode::ShfL {
                mask((v << n) >> 32, 32)
            } else {
                mask(v >> n, 32)
            }
        }
        // §9.7.7.8 shl, §9.7.7.9 shr: amounts ≥ width give 0 (shr.s: sign fill)
        Shl => {
            let n = b as u32;
            if n >= bits {
                0
            } else {
                mask(a << n, bits)
            }
        }
        Shr => {
            let n = (b as u32).min(bits - 1 + u32::from(!ty.is_signed()));
            if ty.is_signed() {
                mask((sext(a, bits) >> n.min(63)) as u64, bits)
            } else if n >= bits {
                0
            } else {
                mask(a, bits) >> n
            }
        }
        // §9.7.8.1 mov
        Mov => a,
        // §9.7.8.7 prmt
        Prmt => prmt(ins.mode, a, b, c),
        // §9.7.9.21 cvt
        Cvt => cvt(ins, a)?,
        // §9.7.8.20 cvta: generic ↔ state-space addresses (windows of `mem`)
        Cvta => {
            let sp = super::lower::to_mem_space(ins.space).unwrap_or(mem::Space::Global);
            let r = if ins.mode == Mode::CvtaTo {
                let (gs, off) = mem::classify_generic(a);
                if gs == sp {
                    off
                } else if sp == mem::Space::Global {
                    a
                } else {
                    // not in the window: no defined result; keep the value
                    a
                }
            } else {
                mem::to_generic(sp, a)
            };
            mask(r, bits.max(32))
        }
        op => return Err(format!("{op:?}")),
    })
}

/// Integer multiply: `.lo`, `.hi`, `.wide` (PTX ISA §9.7.1.3).
#[inline]
fn mul_int(mode: Mode, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let p = int_value(a, ty).wrapping_mul(int_value(b, ty));
    match mode {
        Mode::Hi => mask((p >> bits) as u64, bits),
        Mode::Wide => mask(p as u64, bits * 2),
        _ => mask(p as u64, bits),
    }
}

/// `bfe` (PTX ISA §9.7.1.19): extract `len = c & 0xff` bits at `pos = b & 0xff`; signed types
/// replicate the field's top bit (or, past the msb, the operand's sign); `len == 0` gives 0.
pub fn bfe(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let msb = ty.bits() - 1;
    let pos = (b & 0xff) as u32;
    let len = (c & 0xff) as u32;
    if len == 0 {
        return 0;
    }
    let sbit = if ty.is_signed() {
        let i = (pos + len - 1).min(msb);
        (a >> i) & 1
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `prmt` (PTX ISA §9.7.8.7): byte permute of `{b, a}` (bytes 0-3 from a, 4-7 from b).
pub fn prmt(mode: Mode, a: u64, b: u64, c: u64) -> u64 {
    let bytes = (mask(b, 32) << 32) | mask(a, 32);
    let byte = |i: u64| (bytes >> ((i & 7) * 8)) & 0xff;
    let sel = [c & 0xf, (c >> 4) & 0xf, (c >> 8) & 0xf, (c >> 12) & 0xf];
    let idx: [u64; 4] = match mode {
        Mode::PrmtF4e => {
            let s = c & 3;
            [s, s + 1, s + 2, s + 3]
        }
        Mode::PrmtB4e => {
            let s = c & 3;
            [s, (8 + s - 1) & 7, (8 + s - 2) & 7, (8 + s - 3) & 7]
        }
        Mode::PrmtRc8 => {
            let s = c & 3;
            [s, s, s, s]
        }
        Mode::PrmtEcl => {
            let s = c & 3;
            [0u64, 1, 2, 3].map(|x| x.max(s))
        }
        Mode::PrmtEcr => {
            let s = c & 3;
            [0u64, 1, 2, 3].map(|x| if x > s { s } else { x })
        }
        Mode::PrmtRc16 => {
            let s = c & 1;
            [2 * s, 2 * s + 1, 2 * s, 2 * s + 1]
        }
        _ => {
            let mut d = 0u64;
            for (k, &sv) in sel.iter().enumerate() {
                let v = byte(sv & 7);
                let v = if sv & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                };
                d |= v << (8 * k);
            }
            return d;
        }
    };
    let mut d = 0u64;
    for (k, i) in idx.iter().enumerate() {
        d |= byte(*i) << (8 * k);
    }
    d
}

/// Comparison of `setp`/`set` (PTX ISA §9.7.6.1, operator tables): integer, bit-size and float
/// (ordered and unordered) comparisons.
pub fn compare(ty: Ty, cmp: Cmp, a: u64, b: u64, ftz: bool) -> Result<bool, String> {
    if ty == Ty::F32 || ty == Ty::F64 {
        let (x, y) = if ty == Ty::F32 {
            (f32_of(a, ftz) as f64, f32_of(b, ftz) as f64)
        } else {
            (f64::from_bits(a), f64::from_bits(b))
        };
        let nan = x.is_nan() || y.is_nan();
        return Ok(match cmp {
            Cmp::Eq => !nan && x == y,
            Cmp::Ne => !nan && x != y,
            Cmp::Lt => !nan && x < y,
            Cmp::Le => !nan && x <= y,
            Cmp::Gt => !nan && x > y,
            Cmp::Ge => !nan && x >= y,
            Cmp::Equ => nan || x == y,
            Cmp::Neu => nan || x != y,
            Cmp::Ltu => nan || x < y,
            Cmp::Leu => nan || x <= y,
            Cmp::Gtu => nan || x > y,
            Cmp::Geu => nan || x >= y,
            Cmp::Num => !nan,
            Cmp::Nan => nan,
            c => return Err(format!("comparison {c:?} on {ty:?}")),
        });
    }
    if ty.is_float() {
        return Err(format!("comparison of {ty:?}"));
    }
    let (x, y) = (int_value(a, ty), int_value(b, ty));
    let (ux, uy) = (mask(a, ty.bits()), mask(b, ty.bits()));
    Ok(match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Lo => ux < uy,
        Cmp::Ls => ux <= uy,
        Cmp::Hi => ux > uy,
        Cmp::Hs => ux >= uy,
        c => return Err(format!("comparison {c:?} on {ty:?}")),
    })
}

/// `cvt` (PTX ISA §9.7.9.21): `ty2` → `ty` with rounding, saturation and flush-to-zero.
/// Float → integer always saturates (NaN → 0); integer → integer saturates with `.sat`.
pub fn cvt(ins: &ExecInstr, a: u64) -> AluResult {
    let (dt, st) = (ins.ty, ins.ty2);
    let ftz = ins.mods.has(Mods::FTZ);
    let sat = ins.mods.has(Mods::SAT);
    let src_f = |a: u64| -> Result<f64, String> {
        Ok(match st {
            Ty::F32 => f32_of(a, ftz) as f64,
            Ty::F64 => f64::from_bits(a),
            Ty::F16 => fp::f16_to_f64(a as u16),
            Ty::BF16 => f32::from_bits((a as u32 & 0xffff) << 16) as f64,
            t => return Err(format!("cvt from {t:?}")),
        })
    };
    let int_rnd = matches!(ins.rnd, Round::Rni | Round::Rzi | Round::Rmi | Round::Rpi);
    match (dt.is_float(), st.is_float()) {
        (false, false) => {
            if dt == Ty::Pred || st == Ty::Pred || dt == Ty::None || st == Ty::None {
                return Err(format!("cvt.{dt:?}.{st:?}"));
            }
            let v = int_value(a, st);
            Ok(if sat {
                sat_int(v, dt)
            } else {
                mask(v as u64, dt.bits())
            })
        }
        (false, true) => {
            let v = src_f(a)?;
            if v.is_nan() {
                return Ok(0);
            }
            let r = fp::round_integral(v, ins.rnd);
            let (lo, hi) = int_range(dt);
            let x = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            Ok(mask(x as u64, dt.bits()))
        }
        (true, false) => {
            let v = int_value(a, st);
            let s = v as f64;
            let diff = v - s as i128;
            let e = diff.signum() as f64;
            let r = rn(ins.rnd);
            Ok(match dt {
                Ty::F32 => out32(fp::round_f32(s, e, r), ftz, sat),
                Ty::F64 => out64(fp::round_f64(s, e, r), sat),
                Ty::F16 => u64::from(fp::f64_to_f16(s, r)),
                t => return Err(format!("cvt to {t:?}")),
            })
        }
        (true, true) => {
            let mut v = src_f(a)?;
            if int_rnd {
                v = fp::round_integral(v, ins.rnd);
            }
            let r = if int_rnd { Round::Rn } else { rn(ins.rnd) };
            if sat {
                v = fp::sat64(v);
            }
            Ok(match dt {
                Ty::F32 => out32(fp::round_f32(v, 0.0, r), ftz, sat),
                Ty::F64 => v.to_bits(),
                Ty::F16 => u64::from(fp::f64_to_f16(v, r)),
                Ty::BF16 => {
                    let x = fp::round_f32(v, 0.0, Round::Rn);
                    if x.is_nan() {
                        0x7fc0
                    } else {
                        let b = x.to_bits();
                        u64::from((b + 0x7fff + ((b >> 16) & 1)) >> 16)
                    }
                }
                t => return Err(format!("cvt to {t:?}")),
            })
        }
    }
}

/// Atomic operation on a 32- or 64-bit value (PTX ISA §9.7.13.5 `atom`): returns the new value
/// stored for old value `old`, operand `b` and (`cas`) `c`.
pub fn atomic_op(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> Result<u64, String> {
    let bits = ty.bits();
    Ok(match op {
        AtomOp::Add => match ty {
            Ty::F32 => u64::from((f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits()),
            Ty::F64 => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
            _ => mask(old.wrapping_add(b), bits),
        },
        AtomOp::Min | AtomOp::Max => {
            if ty.is_float() {
                return Err(format!("atom.{op:?} on {ty:?}"));
            }
            let (x, y) = (int_value(old, ty), int_value(b, ty));
            let r = if op == AtomOp::Min {
                x.min(y)
            } else {
                x.max(y)
            };
            mask(r as u64, bits)
        }
        // inc: (old >= b) ? 0 : old+1; dec: (old == 0 || old > b) ? b : old-1 (unsigned)
        AtomOp::Inc => {
            let (o, bb) = (mask(old, bits), mask(b, bits));
            if o >= bb {
                0
            } else {
                o + 1
            }
        }
        AtomOp::Dec => {
            let (o, bb) = (mask(old, bits), mask(b, bits));
            if o == 0 || o > bb {
                bb
            } else {
                o - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if mask(old, bits) == mask(b, bits) {
                c
            } else {
                old
            }
        }
        o => return Err(format!("atom.{o:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_sign_extends_and_clamps() {
        // field 0xF at bit 4 of 0xF0: unsigned 15, signed -1
        assert_eq!(bfe(Ty::U32, 0xf0, 4, 4), 0xf);
        assert_eq!(bfe(Ty::S32, 0xf0, 4, 4), 0xffff_ffff);
        assert_eq!(bfe(Ty::S32, 0x70, 4, 4), 0x7);
        // len 0 → 0; pos past the msb → replicated sign bit
        assert_eq!(bfe(Ty::S32, 0x8000_0000, 4, 0), 0);
        assert_eq!(bfe(Ty::S32, 0x8000_0000, 40, 8), 0xffff_ffff);
        assert_eq!(bfe(Ty::U32, 0x8000_0000, 40, 8), 0);
        // field running past the msb: bits beyond come from the sign (field top) bit
        assert_eq!(bfe(Ty::S32, 0x8000_0000, 28, 8), 0xffff_fff8);
        assert_eq!(bfe(Ty::U64, 0xff00_0000_0000, 40, 8), 0xff);
    }

    #[test]
    fn prmt_modes() {
        let (a, b) = (0x3322_1100u64, 0x7766_5544u64);
        // default: selector nibbles pick bytes of {b,a}
        assert_eq!(prmt(Mode::None, a, b, 0x3210), 0x3322_1100);
        assert_eq!(prmt(Mode::None, a, b, 0x7654), 0x7766_5544);
        assert_eq!(prmt(Mode::None, a, b, 0x0123), 0x0011_2233);
        // bit 3 of a selector replicates the sign of the byte: 0x80 → 0xff, 0x11 → 0x00
        assert_eq!(prmt(Mode::None, 0x80, 0, 0x8880), 0xffff_ff80);
        assert_eq!(prmt(Mode::None, 0x7f, 0, 0x0008), 0x7f7f_7f00);
        assert_eq!(prmt(Mode::PrmtF4e, a, b, 1), 0x4433_2211);
        assert_eq!(prmt(Mode::PrmtB4e, a, b, 0), 0x5566_7700);
        assert_eq!(prmt(Mode::PrmtRc8, a, b, 2), 0x2222_2222);
        assert_eq!(prmt(Mode::PrmtEcl, a, b, 1), 0x3322_1111);
        assert_eq!(prmt(Mode::PrmtEcr, a, b, 1), 0x1111_1100);
        assert_eq!(prmt(Mode::PrmtRc16, a, b, 1), 0x3322_3322);
    }

    #[test]
    fn comparisons_ordered_and_unordered() {
        let nan = u64::from(f32::NAN.to_bits());
        let one = u64::from(1f32.to_bits());
        assert_eq!(compare(Ty::F32, Cmp::Lt, nan, one, false), Ok(false));
        assert_eq!(compare(Ty::F32, Cmp::Ltu, nan, one, false), Ok(true));
        assert_eq!(compare(Ty::F32, Cmp::Ne, nan, one, false), Ok(false));
        assert_eq!(compare(Ty::F32, Cmp::Neu, nan, one, false), Ok(true));
        assert_eq!(compare(Ty::F32, Cmp::Nan, nan, one, false), Ok(true));
        assert_eq!(compare(Ty::F32, Cmp::Num, one, one, false), Ok(true));
        // signed vs unsigned
        assert_eq!(compare(Ty::S32, Cmp::Lt, 0xffff_ffff, 0, false), Ok(true));
        assert_eq!(compare(Ty::U32, Cmp::Lt, 0xffff_ffff, 0, false), Ok(false));
        assert_eq!(compare(Ty::B32, Cmp::Lo, 1, 0xffff_ffff, false), Ok(true));
        assert_eq!(compare(Ty::S16, Cmp::Gt, 0x8000, 0, false), Ok(false));
    }

    #[test]
    fn atomics() {
        assert_eq!(atomic_op(AtomOp::Inc, Ty::U32, 5, 5, 0), Ok(0));
        assert_eq!(atomic_op(AtomOp::Inc, Ty::U32, 4, 5, 0), Ok(5));
        assert_eq!(atomic_op(AtomOp::Dec, Ty::U32, 0, 5, 0), Ok(5));
        assert_eq!(atomic_op(AtomOp::Dec, Ty::U32, 9, 5, 0), Ok(5));
        assert_eq!(atomic_op(AtomOp::Dec, Ty::U32, 3, 5, 0), Ok(2));
        assert_eq!(atomic_op(AtomOp::Cas, Ty::B32, 7, 7, 9), Ok(9));
        assert_eq!(atomic_op(AtomOp::Cas, Ty::B32, 7, 8, 9), Ok(7));
        assert_eq!(
            atomic_op(AtomOp::Min, Ty::S32, 0xffff_ffff, 1, 0),
            Ok(0xffff_ffff)
        );
        assert_eq!(atomic_op(AtomOp::Min, Ty::U32, 0xffff_ffff, 1, 0), Ok(1));
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(
            atomic_op(AtomOp::Add, Ty::F32, f(1.5), f(2.0), 0),
            Ok(f(3.5))
        );
        assert_eq!(
            atomic_op(AtomOp::Add, Ty::F64, 1.5f64.to_bits(), 2f64.to_bits(), 0),
            Ok(3.5f64.to_bits())
        );
        assert_eq!(atomic_op(AtomOp::Add, Ty::U64, u64::MAX, 2, 0), Ok(1));
    }

    #[test]
    fn sign_helpers() {
        assert_eq!(sext(0x80, 8), -128);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(mask(u64::MAX, 16), 0xffff);
        assert_eq!(int_value(0xffff_ffff, Ty::S32), -1);
        assert_eq!(int_value(0xffff_ffff, Ty::U32), 0xffff_ffff);
    }
}
