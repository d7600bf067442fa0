//! Operand checks: each operand of an instruction against the slot its form gives it
//! (register types, predicates, constants, special registers, variables' addresses, address
//! operands, vectors), and the barrier numbers and thread counts of `bar`.

use super::modifiers::spacename;
use super::types::{compatible, compatible_relaxed, is_bit, is_int, literal_fits, sreg_ty, tyname};
use super::Slot::{Addr, Label, Mov, PredDst, PredSrc, Reg as R, Val as V, Wide as W};
use super::{bad_at, Bad, Ctx, InstrSrc, Lit, Rule, Sig, Slot};
use crate::ir::{AddrBase, Function, Instr, Mode, Opcode, Operand, Space, Sreg, Sym, Ty};

/// Barrier numbers 0..15 and thread counts that are multiples of the warp size (§9.7.13.1:
/// "Operand b specifies the number of threads participating in the barrier ... must be a
/// multiple of the warp size"; "a ... barrier resource number, 0..15"); `bar.arrive` needs a
/// non-zero count.
pub(super) fn check_barrier(ins: &Instr, name: &str) -> Result<(), Bad> {
    if ins.op != Opcode::Bar {
        return Ok(());
    }
    let k0 = ins.dst.len();
    if let Some(Operand::Imm(a)) = ins.src.first() {
        if *a >= 16 {
            return Err(bad_at(
                Rule::Barrier,
                k0,
                format!("barrier number {} out of range 0..15", *a as i64),
            ));
        }
    }
    let has_count = match ins.mode {
        Mode::BarRed => ins.src.len() == 3,
        _ => ins.src.len() == 2,
    };
    if has_count {
        if let Some(Operand::Imm(b)) = ins.src.get(1) {
            let b = *b as u32;
            if b & 31 != 0 {
                return Err(bad_at(
                    Rule::Barrier,
                    k0 + 1,
                    format!("thread count {b} is not a multiple of the warp size (32)"),
                ));
            }
            if b == 0 && ins.mode == Mode::BarArrive {
                return Err(bad_at(
                    Rule::Barrier,
                    k0 + 1,
                    format!("`{name}` needs a non-zero thread count"),
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn check_operands(
    ctx: &Ctx,
    f: &Function,
    ins: &Instr,
    src: Option<&InstrSrc>,
    s: &Sig,
    name: &str,
) -> Result<(), Bad> {
    // the `|` destination is optional
    let dst_ok = if s.pipe {
        ins.dst.len() == s.dst.len() || ins.dst.len() + 1 == s.dst.len()
    } else {
        ins.dst.len() == s.dst.len()
    };
    let want_dst = if s.pipe && ins.dst.len() < s.dst.len() {
        s.dst.len() - 1
    } else {
        s.dst.len()
    };
    if !dst_ok || ins.src.len() != s.src.len() {
        let want = want_dst + s.src.len();
        let have = ins.dst.len() + ins.src.len();
        let at = if have > want { Some(want) } else { None };
        return Err(Bad {
            rule: Rule::OperandCount,
            operand: at,
            msg: format!("wrong number of operands: `{name}` takes {want}, {have} given"),
        });
    }
    let lits = |k: usize| -> &[Lit] {
        src.and_then(|x| x.operands.get(k))
            .map(|o| o.lits.as_slice())
            .unwrap_or(&[])
    };
    for (k, (o, slot)) in ins.dst.iter().zip(&s.dst).enumerate() {
        check_operand(ctx, f, ins, o, *slot, true, lits(k), name).map_err(|m| at(k, m))?;
    }
    let k0 = ins.dst.len();
    for (j, (o, slot)) in ins.src.iter().zip(&s.src).enumerate() {
        let k = k0 + j;
        check_operand(ctx, f, ins, o, *slot, false, lits(k), name).map_err(|m| at(k, m))?;
    }
    Ok(())
}

fn at(k: usize, (rule, msg): (Rule, String)) -> Bad {
    bad_at(rule, k, msg)
}

type OpResult = Result<(), (Rule, String)>;

fn reg_desc(f: &Function, r: crate::ir::Reg) -> (String, Ty) {
    match f.regs.get(r.idx()) {
        Some(d) => (d.name.clone(), d.ty),
        None => (format!("%?{}", r.0), Ty::None),
    }
}

/// Checks one operand against its slot. `lits`: the operand's constants as written.
#[allow(clippy::too_many_arguments)]
fn check_operand(
    ctx: &Ctx,
    f: &Function,
    ins: &Instr,
    o: &Operand,
    slot: Slot,
    is_dst: bool,
    lits: &[Lit],
    name: &str,
) -> OpResult {
    let lit0 = lits.first().copied().unwrap_or(Lit::Int);
    match slot {
        PredDst => match o {
            Operand::Reg(r) => pred_reg(f, *r, name),
            Operand::Sink => Ok(()),
            other => Err((
                Rule::Predicate,
                format!(
                    "`{name}` writes a predicate register here, not {}",
                    what(f, other)
                ),
            )),
        },
        PredSrc => match o {
            Operand::Reg(r) | Operand::NegPred(r) => pred_reg(f, *r, name),
            Operand::Imm(_) if lit0 == Lit::Int => Ok(()),
            Operand::Imm(_) => Err((
                Rule::Immediate,
                format!("a floating-point constant is not a predicate (`{name}`)"),
            )),
            other => Err((
                Rule::Predicate,
                format!("`{name}` takes a predicate here, not {}", what(f, other)),
            )),
        },
        Addr => match o {
            Operand::Addr(a) => check_addr(ctx, f, ins, a, name),
            other => Err((
                Rule::Address,
                format!(
                    "`{name}` takes an address `[...]` here, not {}",
                    what(f, other)
                ),
            )),
        },
        Slot::AddrReg => match o {
            Operand::Reg(r) => {
                let (n, t) = reg_desc(f, *r);
                if (is_int(t) || is_bit(t)) && (t.size() == 4 || t.size() == 8) {
                    Ok(())
                } else {
                    Err((
                        Rule::OperandType,
                        format!("{n} ({}) is not an address register in `{name}`", tyname(t)),
                    ))
                }
            }
            other => Err((
                Rule::OperandType,
                format!(
                    "`{name}` takes an address register here, not {}",
                    what(f, other)
                ),
            )),
        },
        Label => match o {
            Operand::Label(_) => Ok(()),
            other => Err((
                Rule::OperandType,
                format!("`{name}` takes a label, not {}", what(f, other)),
            )),
        },
        V(ty) | R(ty) | Slot::Imm(ty) | W(ty) | Mov(ty) | Slot::CvtaSrc(ty) => {
            let relaxed = matches!(slot, W(_));
            match o {
                Operand::Reg(r) => {
                    if matches!(slot, Slot::Imm(_)) {
                        return Err((
                            Rule::OperandType,
                            format!(
                                "`{name}` takes a constant here, not register {}",
                                reg_desc(f, *r).0
                            ),
                        ));
                    }
                    if matches!(slot, W(_)) && ins.vec > 1 && ins.op != Opcode::Cvt {
                        return Err((
                            Rule::Vector,
                            format!(
                                "`{name}` moves a vector of {}: the operand must be `{{...}}`",
                                ins.vec
                            ),
                        ));
                    }
                    data_reg(f, *r, ty, relaxed, name)
                }
                Operand::Imm(_) => {
                    if is_dst {
                        return Err((Rule::OperandType, "a destination must be a register".into()));
                    }
                    if matches!(slot, R(_)) {
                        return Err((
                            Rule::OperandType,
                            format!("`{name}` takes a register here, not a constant"),
                        ));
                    }
                    if matches!(slot, W(_)) && ins.vec > 1 {
                        return Err((
                            Rule::Vector,
                            format!(
                                "`{name}` moves a vector of {}: the operand must be `{{...}}`",
                                ins.vec
                            ),
                        ));
                    }
                    imm(ty, lit0, name)
                }
                Operand::Special(_) if is_dst => Err((
                    Rule::SpecialRegister,
                    "special registers are read-only".into(),
                )),
                Operand::Sym(..) if is_dst => {
                    Err((Rule::OperandType, "a destination must be a register".into()))
                }
                Operand::Special(s) => {
                    let st = sreg_ty(*s);
                    let ok = match slot {
                        Mov(t) => {
                            compatible(t, st)
                                || (*s == Sreg::GridId && compatible(t, Ty::U32))
                                || (st == Ty::U32
                                    && t.size() == 2
                                    && (is_int(t) || is_bit(t))
                                    && matches!(
                                        s,
                                        Sreg::Tid(_)
                                            | Sreg::Ntid(_)
                                            | Sreg::Ctaid(_)
                                            | Sreg::Nctaid(_)
                                    ))
                        }
                        W(t) if ins.op == Opcode::Cvt && !is_dst => compatible_relaxed(t, st),
                        _ => {
                            return Err((
                                Rule::SpecialRegister,
                                format!(
                                "special registers are read by mov and cvt only, not by `{name}`"
                            ),
                            ))
                        }
                    };
                    if ok {
                        Ok(())
                    } else {
                        Err((
                            Rule::SpecialRegister,
                            format!(
                                "special register of type {} where `{name}` takes {}",
                                tyname(st),
                                tyname(ty)
                            ),
                        ))
                    }
                }
                Operand::Sym(sym, _) => {
                    let symbol_ok = match slot {
                        Mov(t) => (is_int(t) || is_bit(t)) && (t.size() == 4 || t.size() == 8),
                        Slot::CvtaSrc(_) => !matches!(sym, Sym::Func(_)),
                        _ => false,
                    };
                    if symbol_ok {
                        Ok(())
                    } else {
                        Err((
                            Rule::Address,
                            format!("`{name}` does not take a variable's address here (only mov and cvta do)"),
                        ))
                    }
                }
                Operand::Vec(elems) => check_vector(f, ins, elems, slot, ty, is_dst, lits, name),
                Operand::Sink => {
                    if is_dst {
                        Ok(())
                    } else {
                        Err((Rule::OperandType, "`_` is not a source operand".into()))
                    }
                }
                Operand::NegPred(r) => Err((
                    Rule::Predicate,
                    format!(
                        "`!{}`: a negated predicate is not a {} operand of `{name}`",
                        reg_desc(f, *r).0,
                        tyname(ty)
                    ),
                )),
                Operand::Addr(_) => Err((
                    Rule::Address,
                    format!("`{name}` does not take an address operand `[...]` here"),
                )),
                Operand::Label(_) => {
                    Err((Rule::OperandType, format!("`{name}` does not take a label")))
                }
            }
        }
    }
}

/// A short description of an operand for messages.
fn what(f: &Function, o: &Operand) -> String {
    match o {
        Operand::Reg(r) => {
            let (n, t) = reg_desc(f, *r);
            format!("{} register {n}", tyname(t))
        }
        Operand::NegPred(r) => format!("!{}", reg_desc(f, *r).0),
        Operand::Imm(_) => "a constant".into(),
        Operand::Special(_) => "a special register".into(),
        Operand::Vec(_) => "a vector".into(),
        Operand::Addr(_) => "an address".into(),
        Operand::Sym(..) => "a variable".into(),
        Operand::Label(_) => "a label".into(),
        Operand::Sink => "`_`".into(),
    }
}

fn pred_reg(f: &Function, r: crate::ir::Reg, name: &str) -> OpResult {
    let (n, t) = reg_desc(f, r);
    if t == Ty::Pred {
        Ok(())
    } else {
        Err((
            Rule::Predicate,
            format!("`{name}` takes a .pred register here, {n} is {}", tyname(t)),
        ))
    }
}

fn data_reg(f: &Function, r: crate::ir::Reg, ty: Ty, relaxed: bool, name: &str) -> OpResult {
    let (n, t) = reg_desc(f, r);
    if t == Ty::Pred && ty != Ty::Pred {
        return Err((
            Rule::Predicate,
            format!(
                "predicate {n} used as a {} data operand of `{name}`",
                tyname(ty)
            ),
        ));
    }
    let ok = if relaxed {
        compatible_relaxed(ty, t)
    } else {
        compatible(ty, t)
    };
    if ok {
        Ok(())
    } else {
        Err((
            Rule::OperandType,
            format!(
                "{n} is {}, not compatible with {} in `{name}`",
                tyname(t),
                tyname(ty)
            ),
        ))
    }
}

fn imm(ty: Ty, lit: Lit, name: &str) -> OpResult {
    if literal_fits(ty, lit) {
        return Ok(());
    }
    let kind = match lit {
        Lit::Int => "an integer constant",
        Lit::F32 => "a single-precision constant",
        Lit::F64 => "a double-precision constant",
    };
    Err((
        Rule::Immediate,
        format!("{kind} is not a {} operand of `{name}`", tyname(ty)),
    ))
}

/// Vector operands: `ld`/`st` (`.vN`: N elements of the relaxed instruction type, of mutually
/// compatible register types; `_` only in `ld` destinations) and `mov` packing (`mov.bN d, {a, b}`) or
/// unpacking (`mov.bN {a, b}, d`) 2 or 4 parts of a bit-size value (§6.4.3, §9.7.9.1).
#[allow(clippy::too_many_arguments)]
fn check_vector(
    f: &Function,
    ins: &Instr,
    elems: &[Operand],
    slot: Slot,
    ty: Ty,
    is_dst: bool,
    lits: &[Lit],
    name: &str,
) -> OpResult {
    let elem_ty = match slot {
        W(_) if ins.op != Opcode::Cvt => {
            if elems.len() != usize::from(ins.vec) {
                return Err((
                    Rule::Vector,
                    format!(
                        "`{name}` moves {} element(s), the vector has {}",
                        ins.vec,
                        elems.len()
                    ),
                ));
            }
            ty
        }
        Mov(t) => {
            let n = elems.len() as u32;
            if !is_bit(t) || !(n == 2 || n == 4) || t.size() % n != 0 || t.size() < n {
                return Err((
                    Rule::Vector,
                    format!(
                        "`{name}`: a vector of {n} does not pack into {} (mov packs 2 or 4 parts of a bit-size type)",
                        tyname(t)
                    ),
                ));
            }
            match t.size() / n {
                1 => Ty::B8,
                2 => Ty::B16,
                4 => Ty::B32,
                _ => Ty::B64,
            }
        }
        _ => {
            return Err((
                Rule::Vector,
                format!("`{name}` does not take a vector operand here"),
            ))
        }
    };
    let relaxed = matches!(slot, W(_));
    let same_type = relaxed || matches!(slot, Mov(_));
    let mut first: Option<Ty> = None;
    let mut li = lits.iter();
    for e in elems {
        match e {
            Operand::Reg(r) => {
                data_reg(f, *r, elem_ty, relaxed, name)?;
                let t = reg_desc(f, *r).1;
                if same_type {
                    if let Some(p) = first {
                        if !compatible(p, t) {
                            return Err((
                                Rule::Vector,
                                format!(
                                    "vector elements of incompatible types ({} and {}) in `{name}`",
                                    tyname(p),
                                    tyname(t)
                                ),
                            ));
                        }
                    }
                    first = Some(t);
                }
            }
            Operand::Imm(_) => {
                let lit = li.next().copied().unwrap_or(Lit::Int);
                if is_dst {
                    return Err((Rule::OperandType, "a destination must be a register".into()));
                }
                imm(elem_ty, lit, name)?;
            }
            Operand::Sink => {
                if !is_dst {
                    return Err((Rule::OperandType, "`_` is not a source operand".into()));
                }
            }
            other => {
                return Err((
                    Rule::Vector,
                    format!("vector element {} in `{name}`", what(f, other)),
                ))
            }
        }
    }
    Ok(())
}

/// Address operands (§6.4.1): the base register is an integer or bit-size register as wide as
/// a generic address (`.address_size`) for generic and `.global` accesses (32- or 64-bit for
/// `.shared`, `.local`, `.const`, `.param`); `[imm]` only in `.local`.
fn check_addr(ctx: &Ctx, f: &Function, ins: &Instr, a: &crate::ir::Addr, name: &str) -> OpResult {
    match a.base {
        AddrBase::Reg(r) => {
            let (n, t) = reg_desc(f, r);
            if !(is_int(t) || is_bit(t)) {
                return Err((
                    Rule::Address,
                    format!(
                        "{n} ({}) is not an address register: addresses are integer or bit-size",
                        tyname(t)
                    ),
                ));
            }
            let wide = ctx.address_size / 8;
            let ok = match ins.space {
                Space::Generic | Space::Global => t.size() == wide,
                _ => t.size() == 4 || t.size() == 8,
            };
            if !ok {
                return Err((
                    Rule::Address,
                    format!(
                        "{n} ({}) is not a {}-bit address for `{name}` (.address_size {})",
                        tyname(t),
                        ctx.address_size,
                        ctx.address_size
                    ),
                ));
            }
            Ok(())
        }
        AddrBase::Abs => {
            if ins.space == Space::Local {
                Ok(())
            } else {
                Err((
                    Rule::Address,
                    format!("`{name}`: immediate addresses are allowed in .local only"),
                ))
            }
        }
        AddrBase::Sym(Sym::Func(_)) => Err((
            Rule::Address,
            format!("`{name}`: a function is not an address operand"),
        )),
        AddrBase::Sym(sym) => {
            let space = match sym {
                Sym::Param(_) | Sym::Ret(_) => Some(Space::Param),
                Sym::Local(i) => f.vars.get(i as usize).map(|v| v.space),
                Sym::Global(g) => ctx.globals.get(g as usize).copied(),
                Sym::Func(_) => None,
            };
            let same = |a: Space, b: Space| {
                a == b
                    || matches!(
                        (a, b),
                        (Space::Shared, Space::SharedCluster)
                            | (Space::SharedCluster, Space::Shared)
                    )
            };
            match space {
                Some(sp) if ins.space != Space::Generic && !same(sp, ins.space) => Err((
                    Rule::Address,
                    format!(
                        "`{name}`: the variable is in {}, the instruction accesses {}",
                        spacename(sp),
                        spacename(ins.space)
                    ),
                )),
                _ => Ok(()),
            }
        }
    }
}
