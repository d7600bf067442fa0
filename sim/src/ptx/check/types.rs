//! Operand types: the compatibility rules of PTX ISA §6.1 and §9.4.1, which constants fit
//! which types (§4.5), the types of special registers, and type names for messages.

use super::Lit;
use crate::ir::{Sreg, Ty};

pub(super) fn is_bit(t: Ty) -> bool {
    matches!(t, Ty::B8 | Ty::B16 | Ty::B32 | Ty::B64 | Ty::B128)
}

pub(super) fn is_int(t: Ty) -> bool {
    matches!(
        t,
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 | Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64
    )
}

pub(super) fn is_uint(t: Ty) -> bool {
    matches!(t, Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64)
}

/// PTX ISA §6.1: "The bit-size type is compatible with every type having the same size.
/// Integer types of a common size are compatible with each other." Nothing else converts.
pub fn compatible(inst: Ty, reg: Ty) -> bool {
    if inst == reg {
        return true;
    }
    if inst == Ty::Pred || reg == Ty::Pred || inst.size() != reg.size() {
        return false;
    }
    is_bit(inst) || is_bit(reg) || (is_int(inst) && is_int(reg))
}

/// PTX ISA §9.4.1 "Operand Size Exceeding Instruction-Type Size" (Tables "Relaxed Type-checking
/// Rules" for source and destination operands), for `ld`, `st` and `cvt`: a register at least
/// as wide as the instruction type is allowed if the instruction type is a bit-size type (any
/// register type), an integer type (integer or bit-size registers), or a floating-point type
/// (bit-size registers only: floating-point registers must match exactly).
pub fn compatible_relaxed(inst: Ty, reg: Ty) -> bool {
    if compatible(inst, reg) {
        return true;
    }
    if inst == Ty::Pred || reg == Ty::Pred || reg.size() < inst.size() {
        return false;
    }
    if is_bit(inst) {
        true
    } else if is_int(inst) {
        is_int(reg) || is_bit(reg)
    } else {
        is_bit(reg)
    }
}

/// PTX ISA §4.5 / §6.1: an integer constant is an operand of integer, bit-size and predicate
/// types only; a floating-point constant (`0f`: 32-bit, `0d` or decimal: 64-bit) of
/// floating-point types, and of a bit-size type of its own size.
pub fn literal_fits(ty: Ty, lit: Lit) -> bool {
    match lit {
        Lit::Int => !ty.is_float(),
        Lit::F32 => ty.is_float() || (is_bit(ty) && ty.size() == 4),
        Lit::F64 => ty.is_float() || (is_bit(ty) && ty.size() == 8),
    }
}

/// The declared type of a special register (PTX ISA §10).
pub(super) fn sreg_ty(s: Sreg) -> Ty {
    match s {
        Sreg::Clock64 | Sreg::GlobalTimer | Sreg::GridId => Ty::U64,
        _ => Ty::U32,
    }
}

pub(super) fn tyname(t: Ty) -> String {
    match t {
        Ty::None => "untyped".into(),
        t => format!(".{}", format!("{t:?}").to_lowercase()),
    }
}
