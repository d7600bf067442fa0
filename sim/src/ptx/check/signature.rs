//! The table of instruction forms: per opcode, the operand slots ([`Sig`]) after the type
//! suffixes and the modifiers the form requires are checked ([`signature`], and
//! [`bar_signature`] for `bar`/`barrier`).

use super::modifiers::{check_cmp, check_cvt_rounding, check_vec, ieee_rnd};
use super::types::tyname;
use super::Slot::{Addr, Label, PredDst, PredSrc, Reg as R, Val as V, Wide as W};
use super::{bad, Bad, Rule, Sig, Slot};
use crate::ir::{AtomOp, BoolOp, Instr, Mode, Mods, Opcode, Round, Ty};

pub(super) const INTS: &[Ty] = &[Ty::U16, Ty::U32, Ty::U64, Ty::S16, Ty::S32, Ty::S64];
pub(super) const FLOATS: &[Ty] = &[Ty::F16, Ty::F16x2, Ty::BF16, Ty::BF16x2, Ty::F32, Ty::F64];
pub(super) const BITS: &[Ty] = &[Ty::B16, Ty::B32, Ty::B64];
/// Types of `ld`/`st` (§9.7.9.8-9: `.b8 .. .f64`; `.f16` is read with `.b16`).
pub(super) const LDST: &[Ty] = &[
    Ty::B8,
    Ty::B16,
    Ty::B32,
    Ty::B64,
    Ty::B128,
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::S8,
    Ty::S16,
    Ty::S32,
    Ty::S64,
    Ty::F32,
    Ty::F64,
];
/// Types of `setp`/`selp`/`mov` data (§9.7.6, §9.7.9.1).
pub(super) const DATA: &[Ty] = &[
    Ty::B16,
    Ty::B32,
    Ty::B64,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::S16,
    Ty::S32,
    Ty::S64,
    Ty::F32,
    Ty::F64,
];
/// Types of `cvt` (§9.7.9.21).
pub(super) const CVT: &[Ty] = &[
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::S8,
    Ty::S16,
    Ty::S32,
    Ty::S64,
    Ty::F16,
    Ty::BF16,
    Ty::F32,
    Ty::F64,
];

pub(super) fn one_of(ty: Ty, set: &[&[Ty]], name: &str) -> Result<(), Bad> {
    if set.iter().any(|s| s.contains(&ty)) {
        return Ok(());
    }
    let mut list: Vec<String> = set
        .iter()
        .flat_map(|s| s.iter())
        .map(|&t| tyname(t))
        .collect();
    list.dedup();
    let what = if ty == Ty::None {
        "no type suffix".to_string()
    } else {
        format!("type {}", tyname(ty))
    };
    Err(bad(
        Rule::InstrType,
        format!("`{name}` does not take {what} (types: {})", list.join(" ")),
    ))
}

pub(super) fn no_type(ins: &Instr, name: &str) -> Result<(), Bad> {
    if ins.ty != Ty::None {
        return Err(bad(
            Rule::InstrType,
            format!("`{name}` takes no type suffix ({} given)", tyname(ins.ty)),
        ));
    }
    Ok(())
}

pub(super) fn need(cond: bool, rule: Rule, msg: impl FnOnce() -> String) -> Result<(), Bad> {
    if cond {
        Ok(())
    } else {
        Err(bad(rule, msg()))
    }
}

/// Integer instructions take no rounding modifier; floating-point ones only `.rn .rz .rm .rp`
/// (§9.7.1, §9.7.3).
pub(super) fn arith_rnd(ins: &Instr, name: &str) -> Result<(), Bad> {
    let ok = match ins.rnd {
        Round::None => true,
        r => ins.ty.is_float() && ieee_rnd(r),
    };
    need(ok, Rule::Modifier, || {
        format!("illegal rounding modifier for `{name}`")
    })
}

pub(super) fn sig(dst: &[Slot], src: &[Slot]) -> Sig {
    Sig {
        dst: dst.to_vec(),
        src: src.to_vec(),
        pipe: false,
    }
}

/// The operand slots of `ins`, after checking its type suffixes and modifiers.
pub(super) fn signature(ins: &Instr, name: &str, sm: Option<u32>) -> Result<Sig, Bad> {
    use Opcode::*;
    let t = ins.ty;
    let n = ins.src.len();
    let v3 = |t: Ty| sig(&[V(t)], &[V(t), V(t)]);
    if ins.op != Opcode::Mov {
        check_vec(ins, name)?;
    }
    Ok(match ins.op {
        Add | Sub => {
            if ins.mods.has(Mods::CC) || ins.mods.has(Mods::CARRY_IN) {
                one_of(t, &[&[Ty::U32, Ty::S32, Ty::U64, Ty::S64]], name)?;
            } else {
                one_of(t, &[INTS, FLOATS], name)?;
            }
            arith_rnd(ins, name)?;
            need(
                !ins.mods.has(Mods::SAT) || t == Ty::S32 || t.is_float(),
                Rule::Modifier,
                || format!("`.sat` does not apply to `{name}`"),
            )?;
            v3(t)
        }
        Mul | Mad => {
            let wide = |t: Ty| match t {
                Ty::U16 => Ty::U32,
                Ty::S16 => Ty::S32,
                Ty::U32 => Ty::U64,
                _ => Ty::S64,
            };
            let (d, c) = match ins.mode {
                Mode::Lo | Mode::Hi => {
                    one_of(t, &[INTS], name)?;
                    (t, t)
                }
                Mode::Wide => {
                    one_of(t, &[&[Ty::U16, Ty::U32, Ty::S16, Ty::S32]], name)?;
                    (wide(t), wide(t))
                }
                _ if ins.op == Mul => {
                    if INTS.contains(&t) {
                        return Err(bad(
                            Rule::Modifier,
                            format!("integer `{name}` needs `.lo`, `.hi` or `.wide`"),
                        ));
                    }
                    one_of(t, &[FLOATS], name)?;
                    (t, t)
                }
                _ => {
                    if INTS.contains(&t) {
                        return Err(bad(
                            Rule::Modifier,
                            format!("integer `{name}` needs `.lo`, `.hi` or `.wide`"),
                        ));
                    }
                    one_of(t, &[&[Ty::F32, Ty::F64]], name)?;
                    // `mad.f32` takes a rounding modifier from sm_20 on and none before
                    // (§9.7.3.6 "Target ISA notes")
                    if t == Ty::F32 && sm.is_some_and(|sm| sm < 20) {
                        need(ins.rnd == Round::None, Rule::Modifier, || {
                            format!("illegal rounding modifier for `{name}` before sm_20")
                        })?;
                    } else {
                        need(ieee_rnd(ins.rnd), Rule::Modifier, || {
                            format!("`{name}` needs a rounding modifier (.rn .rz .rm .rp)")
                        })?;
                    }
                    (t, t)
                }
            };
            arith_rnd(ins, name)?;
            if ins.op == Mul {
                sig(&[V(d)], &[V(t), V(t)])
            } else {
                sig(&[V(d)], &[V(t), V(t), V(c)])
            }
        }
        Mul24 | Mad24 => {
            one_of(t, &[&[Ty::U32, Ty::S32]], name)?;
            need(
                matches!(ins.mode, Mode::Lo | Mode::Hi),
                Rule::Modifier,
                || format!("`{name}` needs `.lo` or `.hi`"),
            )?;
            if ins.op == Mul24 {
                v3(t)
            } else {
                sig(&[V(t)], &[V(t), V(t), V(t)])
            }
        }
        Sad => {
            one_of(t, &[INTS], name)?;
            sig(&[V(t)], &[V(t), V(t), V(t)])
        }
        Div => {
            one_of(t, &[INTS, &[Ty::F32, Ty::F64]], name)?;
            match t {
                Ty::F32 => need(
                    ins.mods.has(Mods::APPROX) || ins.mods.has(Mods::FULL) || ieee_rnd(ins.rnd),
                    Rule::Modifier,
                    || format!("`{name}` needs `.approx`, `.full` or a rounding modifier"),
                )?,
                Ty::F64 => need(ieee_rnd(ins.rnd), Rule::Modifier, || {
                    format!("`{name}` needs a rounding modifier (.rn .rz .rm .rp)")
                })?,
                _ => arith_rnd(ins, name)?,
            }
            v3(t)
        }
        Rem => {
            one_of(t, &[INTS], name)?;
            arith_rnd(ins, name)?;
            v3(t)
        }
        Abs | Neg => {
            one_of(t, &[&[Ty::S16, Ty::S32, Ty::S64], FLOATS], name)?;
            sig(&[V(t)], &[V(t)])
        }
        Min | Max => {
            one_of(t, &[INTS, FLOATS], name)?;
            v3(t)
        }
        Popc | Clz => {
            one_of(t, &[&[Ty::B32, Ty::B64]], name)?;
            sig(&[V(Ty::U32)], &[V(t)])
        }
        Bfind => {
            one_of(t, &[&[Ty::U32, Ty::U64, Ty::S32, Ty::S64]], name)?;
            sig(&[V(Ty::U32)], &[V(t)])
        }
        Brev => {
            one_of(t, &[&[Ty::B32, Ty::B64]], name)?;
            sig(&[V(t)], &[V(t)])
        }
        Bfe => {
            one_of(t, &[&[Ty::U32, Ty::U64, Ty::S32, Ty::S64]], name)?;
            sig(&[V(t)], &[V(t), V(Ty::U32), V(Ty::U32)])
        }
        Bfi => {
            one_of(t, &[&[Ty::B32, Ty::B64]], name)?;
            sig(&[V(t)], &[V(t), V(t), V(Ty::U32), V(Ty::U32)])
        }
        Fns => {
            one_of(t, &[&[Ty::B32]], name)?;
            sig(&[V(Ty::U32)], &[V(Ty::B32), V(Ty::U32), V(Ty::S32)])
        }
        Dp4a | Dp2a => {
            one_of(t, &[&[Ty::U32, Ty::S32]], name)?;
            one_of(ins.ty2, &[&[Ty::U32, Ty::S32]], name)?;
            if ins.op == Dp2a {
                need(
                    matches!(ins.mode, Mode::Lo | Mode::Hi),
                    Rule::Modifier,
                    || format!("`{name}` needs `.lo` or `.hi`"),
                )?;
            }
            let d = if t == Ty::U32 && ins.ty2 == Ty::U32 {
                Ty::U32
            } else {
                Ty::S32
            };
            sig(&[V(d)], &[V(t), V(ins.ty2), V(d)])
        }
        Fma => {
            one_of(t, &[FLOATS], name)?;
            need(ieee_rnd(ins.rnd), Rule::Modifier, || {
                format!("`{name}` needs a rounding modifier (.rn .rz .rm .rp)")
            })?;
            sig(&[V(t)], &[V(t), V(t), V(t)])
        }
        Rcp | Sqrt => {
            one_of(t, &[&[Ty::F32, Ty::F64]], name)?;
            let approx = ins.mods.has(Mods::APPROX);
            let ok = match t {
                Ty::F32 => approx || ieee_rnd(ins.rnd),
                _ => ieee_rnd(ins.rnd) || (ins.op == Rcp && approx && ins.mods.has(Mods::FTZ)),
            };
            need(ok, Rule::Modifier, || {
                format!("`{name}` needs `.approx` or a rounding modifier")
            })?;
            sig(&[V(t)], &[V(t)])
        }
        Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
            let types: &[Ty] = match ins.op {
                Rsqrt => &[Ty::F32, Ty::F64],
                Ex2 => &[Ty::F32, Ty::F16, Ty::F16x2],
                Tanh => &[Ty::F32, Ty::F16, Ty::F16x2, Ty::BF16, Ty::BF16x2],
                _ => &[Ty::F32],
            };
            one_of(t, &[types], name)?;
            need(ins.mods.has(Mods::APPROX), Rule::Modifier, || {
                format!("`{name}` needs `.approx`")
            })?;
            sig(&[V(t)], &[V(t)])
        }
        Copysign => {
            one_of(t, &[&[Ty::F32, Ty::F64]], name)?;
            v3(t)
        }
        Testp => {
            one_of(t, &[&[Ty::F32, Ty::F64]], name)?;
            sig(&[PredDst], &[V(t)])
        }
        Setp => {
            one_of(t, &[DATA, FLOATS], name)?;
            check_cmp(t, ins.cmp, name)?;
            let mut s = if ins.bool_op == BoolOp::None {
                if n == 3 {
                    return Err(bad(
                        Rule::OperandCount,
                        format!("`{name}` with a predicate `c` needs a boolean operation (.and .or .xor)"),
                    ));
                }
                sig(&[PredDst, PredDst], &[V(t), V(t)])
            } else {
                sig(&[PredDst, PredDst], &[V(t), V(t), PredSrc])
            };
            s.pipe = true;
            s
        }
        Set => {
            one_of(t, &[&[Ty::U32, Ty::S32, Ty::F32, Ty::F16, Ty::BF16]], name)?;
            one_of(ins.ty2, &[DATA, FLOATS], name)?;
            check_cmp(ins.ty2, ins.cmp, name)?;
            if ins.bool_op == BoolOp::None {
                if n == 3 {
                    return Err(bad(
                        Rule::OperandCount,
                        format!("`{name}` with a predicate `c` needs a boolean operation (.and .or .xor)"),
                    ));
                }
                sig(&[V(t)], &[V(ins.ty2), V(ins.ty2)])
            } else {
                sig(&[V(t)], &[V(ins.ty2), V(ins.ty2), PredSrc])
            }
        }
        Selp => {
            one_of(t, &[DATA], name)?;
            sig(&[V(t)], &[V(t), V(t), PredSrc])
        }
        Slct => {
            one_of(t, &[DATA], name)?;
            one_of(ins.ty2, &[&[Ty::S32, Ty::F32]], name)?;
            sig(&[V(t)], &[V(t), V(t), V(ins.ty2)])
        }
        And | Or | Xor => {
            one_of(t, &[&[Ty::Pred], BITS], name)?;
            if t == Ty::Pred {
                sig(&[PredDst], &[PredSrc, PredSrc])
            } else {
                v3(t)
            }
        }
        Not => {
            one_of(t, &[&[Ty::Pred], BITS], name)?;
            if t == Ty::Pred {
                sig(&[PredDst], &[PredSrc])
            } else {
                sig(&[V(t)], &[V(t)])
            }
        }
        Cnot => {
            one_of(t, &[BITS], name)?;
            sig(&[V(t)], &[V(t)])
        }
        Lop3 => {
            one_of(t, &[&[Ty::B32]], name)?;
            sig(&[V(t)], &[V(t), V(t), V(t), Slot::Imm(Ty::B32)])
        }
        Shf => {
            one_of(t, &[&[Ty::B32]], name)?;
            need(
                matches!(ins.mode, Mode::ShfL | Mode::ShfR),
                Rule::Modifier,
                || format!("`{name}` needs `.l` or `.r`"),
            )?;
            need(
                ins.mods.has(Mods::WRAP) || ins.mods.has(Mods::CLAMP),
                Rule::Modifier,
                || format!("`{name}` needs `.wrap` or `.clamp`"),
            )?;
            sig(&[V(t)], &[V(t), V(t), V(Ty::U32)])
        }
        Shl | Shr => {
            if ins.op == Shl {
                one_of(t, &[BITS], name)?;
            } else {
                one_of(t, &[BITS, INTS], name)?;
            }
            sig(&[V(t)], &[V(t), V(Ty::U32)])
        }
        Mov => {
            one_of(t, &[&[Ty::Pred], DATA], name)?;
            if ins.vec > 1 {
                return Err(bad(
                    Rule::Vector,
                    format!("`{name}`: vector moves (`mov.vN`) are not supported by regwatt"),
                ));
            }
            if t == Ty::Pred {
                sig(&[PredDst], &[PredSrc])
            } else {
                sig(&[Slot::Mov(t)], &[Slot::Mov(t)])
            }
        }
        Shfl => {
            one_of(t, &[&[Ty::B32]], name)?;
            need(ins.mode != Mode::None, Rule::Modifier, || {
                format!("`{name}` needs `.up`, `.down`, `.bfly` or `.idx`")
            })?;
            let mut s = if ins.mods.has(Mods::SYNC) {
                sig(
                    &[V(t), PredDst],
                    &[V(t), V(Ty::B32), V(Ty::B32), V(Ty::B32)],
                )
            } else {
                sig(&[V(t), PredDst], &[V(t), V(Ty::B32), V(Ty::B32)])
            };
            s.pipe = true;
            s
        }
        Prmt => {
            one_of(t, &[&[Ty::B32]], name)?;
            sig(&[V(t)], &[V(t), V(t), V(t)])
        }
        Ld | Ldu => {
            one_of(t, &[LDST], name)?;
            check_vec(ins, name)?;
            sig(&[W(t)], &[Addr])
        }
        St => {
            one_of(t, &[LDST], name)?;
            check_vec(ins, name)?;
            need(!ins.mods.has(Mods::NC), Rule::Modifier, || {
                format!("`.nc` does not apply to `{name}`")
            })?;
            sig(&[], &[Addr, W(t)])
        }
        Prefetch | Prefetchu => {
            no_type(ins, name)?;
            sig(&[], &[Addr])
        }
        Isspacep => {
            no_type(ins, name)?;
            sig(&[PredDst], &[Slot::AddrReg])
        }
        Cvta => {
            one_of(t, &[&[Ty::U32, Ty::U64]], name)?;
            // the size is that of a generic address (§9.7.9.20); ptxas 12 has 64-bit only
            need(t == Ty::U64, Rule::InstrType, || {
                format!("`{name}`: generic addresses are 64-bit (.u64)")
            })?;
            if ins.mode == Mode::CvtaTo {
                sig(&[R(t)], &[V(t)])
            } else {
                sig(&[R(t)], &[Slot::CvtaSrc(t)])
            }
        }
        Cvt => {
            one_of(t, &[CVT], name)?;
            one_of(ins.ty2, &[CVT], name)?;
            check_cvt_rounding(ins, name)?;
            sig(&[W(t)], &[W(ins.ty2)])
        }
        Cvtpack => return Err(bad(Rule::InstrType, "`cvt.pack` is not supported")),
        Bar => return bar_signature(ins, name),
        BarWarp => {
            no_type(ins, name)?;
            need(ins.mods.has(Mods::SYNC), Rule::Modifier, || {
                format!("`{name}` needs `.sync`")
            })?;
            sig(&[], &[V(Ty::B32)])
        }
        Membar | Fence | Ret | Exit | Trap | Brkpt => sig(&[], &[]),
        Atom | Red => {
            let types: &[Ty] = match ins.atom {
                AtomOp::Add => &[Ty::U32, Ty::U64, Ty::S32, Ty::F32, Ty::F64],
                AtomOp::Min | AtomOp::Max => &[Ty::U32, Ty::U64, Ty::S32, Ty::S64],
                AtomOp::Inc | AtomOp::Dec => &[Ty::U32],
                AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch => &[Ty::B32, Ty::B64],
                AtomOp::Cas if ins.op == Atom => &[Ty::B16, Ty::B32, Ty::B64],
                _ => {
                    return Err(bad(
                        Rule::Modifier,
                        format!("`{name}` needs an operation (.add .min .max .inc .dec .and .or .xor .exch{})", if ins.op == Atom { " .cas" } else { "" }),
                    ))
                }
            };
            one_of(t, &[types], name)?;
            check_vec(ins, name)?;
            match (ins.op, ins.atom) {
                (Atom, AtomOp::Cas) => sig(&[V(t)], &[Addr, V(t), V(t)]),
                (Atom, _) => sig(&[V(t)], &[Addr, V(t)]),
                _ => sig(&[], &[Addr, V(t)]),
            }
        }
        Vote => {
            let sync = ins.mods.has(Mods::SYNC);
            let (d, ty) = match ins.mode {
                Mode::VoteBallot => (V(Ty::B32), Ty::B32),
                Mode::VoteAll | Mode::VoteAny | Mode::VoteUni => (PredDst, Ty::Pred),
                _ => {
                    return Err(bad(
                        Rule::Modifier,
                        format!("`{name}` needs `.all`, `.any`, `.uni` or `.ballot`"),
                    ))
                }
            };
            one_of(t, &[&[ty]], name)?;
            if sync {
                sig(&[d], &[PredSrc, V(Ty::B32)])
            } else {
                sig(&[d], &[PredSrc])
            }
        }
        Match => {
            one_of(t, &[&[Ty::B32, Ty::B64]], name)?;
            need(ins.mods.has(Mods::SYNC), Rule::Modifier, || {
                format!("`{name}` needs `.sync`")
            })?;
            need(ins.mode != Mode::None, Rule::Modifier, || {
                format!("`{name}` needs `.any` or `.all`")
            })?;
            if ins.mode == Mode::MatchAll {
                let mut s = sig(&[V(Ty::B32), PredDst], &[V(t), V(Ty::B32)]);
                s.pipe = true;
                s
            } else {
                sig(&[V(Ty::B32)], &[V(t), V(Ty::B32)])
            }
        }
        Activemask => {
            one_of(t, &[&[Ty::B32]], name)?;
            sig(&[V(Ty::B32)], &[])
        }
        Redux => {
            let types: &[Ty] = match ins.atom {
                AtomOp::Add | AtomOp::Min | AtomOp::Max => &[Ty::U32, Ty::S32],
                AtomOp::And | AtomOp::Or | AtomOp::Xor => &[Ty::B32],
                _ => {
                    return Err(bad(
                        Rule::Modifier,
                        format!("`{name}` needs an operation (.add .min .max .and .or .xor)"),
                    ))
                }
            };
            one_of(t, &[types], name)?;
            need(ins.mods.has(Mods::SYNC), Rule::Modifier, || {
                format!("`{name}` needs `.sync`")
            })?;
            sig(&[V(t)], &[V(t), V(Ty::B32)])
        }
        Bra => sig(&[], &[Label]),
        Call => sig(&[], &[]),
        Nanosleep => {
            one_of(t, &[&[Ty::U32]], name)?;
            sig(&[], &[V(Ty::U32)])
        }
        Pmevent => sig(&[], &[Slot::Imm(Ty::U32)]),
        op if op.is_simd_video() => {
            let vset = matches!(op, Vset2 | Vset4);
            if vset {
                one_of(t, &[&[Ty::U32, Ty::S32]], name)?;
                one_of(ins.ty2, &[&[Ty::U32, Ty::S32]], name)?;
                sig(&[V(Ty::U32)], &[V(t), V(ins.ty2), V(Ty::U32)])
            } else {
                for x in [t, ins.ty2, ins.ty3] {
                    one_of(x, &[&[Ty::U32, Ty::S32]], name)?;
                }
                sig(&[V(t)], &[V(ins.ty2), V(ins.ty3), V(t)])
            }
        }
        _ => sig(&[], &[]),
    })
}

/// `bar{.cta}.sync a{, b}`, `bar{.cta}.arrive a, b`, `bar{.cta}.red.popc.u32 d, a{, b}, {!}c`,
/// `bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c` (§9.7.13.1).
pub(super) fn bar_signature(ins: &Instr, name: &str) -> Result<Sig, Bad> {
    let n = ins.src.len();
    let ab = |k: usize| -> Vec<Slot> { vec![V(Ty::U32); k] };
    match ins.mode {
        Mode::BarSync | Mode::BarArrive => {
            no_type(ins, name)?;
            if ins.atom != AtomOp::None {
                return Err(bad(
                    Rule::Modifier,
                    format!("`{name}`: a reduction needs `.red`"),
                ));
            }
            let counts: &[usize] = if ins.mode == Mode::BarSync {
                &[1, 2]
            } else {
                &[2]
            };
            if !counts.contains(&n) {
                return Err(bad(
                    Rule::OperandCount,
                    format!(
                        "`{name}` takes {} operands, {n} given",
                        if counts.len() == 2 { "1 or 2" } else { "2" }
                    ),
                ));
            }
            Ok(Sig {
                dst: vec![],
                src: ab(n),
                pipe: false,
            })
        }
        Mode::BarRed => {
            let d = match ins.atom {
                AtomOp::Popc => {
                    one_of(ins.ty, &[&[Ty::U32]], name)?;
                    V(Ty::U32)
                }
                AtomOp::And | AtomOp::Or => {
                    one_of(ins.ty, &[&[Ty::Pred]], name)?;
                    PredDst
                }
                _ => {
                    return Err(bad(
                        Rule::Modifier,
                        format!("`{name}` needs `.popc`, `.and` or `.or`"),
                    ))
                }
            };
            if !(2..=3).contains(&n) {
                return Err(bad(
                    Rule::OperandCount,
                    format!(
                        "`{name}` takes 3 or 4 operands (d, a{{, b}}, c), {} given",
                        n + ins.dst.len()
                    ),
                ));
            }
            let mut src = ab(n - 1);
            src.push(PredSrc);
            Ok(Sig {
                dst: vec![d],
                src,
                pipe: false,
            })
        }
        _ => Err(bad(
            Rule::Modifier,
            format!("`{name}` needs `.sync`, `.arrive` or `.red`"),
        )),
    }
}
