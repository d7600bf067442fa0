//! Modifier checks: rounding modifiers, comparison operators by type, `cvt` rounding,
//! vector widths, the state spaces each instruction accesses, and the modifiers the parser
//! accepts everywhere but ptxas only on some instructions.

use super::types::{is_bit, is_uint, tyname};
use super::{bad, Bad, Rule};
use crate::ir::{Cmp, Instr, Mode, Mods, Opcode, Round, Space, Ty};

/// The IEEE rounding modifiers `.rn .rz .rm .rp` (§9.7.3).
pub(super) fn ieee_rnd(r: Round) -> bool {
    matches!(r, Round::Rn | Round::Rz | Round::Rm | Round::Rp)
}

/// The integer rounding modifiers `.rni .rzi .rmi .rpi` (§6.5.2).
pub(super) fn int_rnd(r: Round) -> bool {
    matches!(r, Round::Rni | Round::Rzi | Round::Rmi | Round::Rpi)
}

/// Comparison operators by type (§9.7.6.1, Tables "Operators for Signed Integer, Unsigned
/// Integer, and Bit-Size Types" and "Floating-Point Comparison Operators").
pub(super) fn check_cmp(t: Ty, c: Cmp, name: &str) -> Result<(), Bad> {
    use Cmp::*;
    let ok = match c {
        None => false,
        Eq | Ne => true,
        Lt | Le | Gt | Ge => !is_bit(t),
        Lo | Ls | Hi | Hs => is_uint(t),
        Equ | Neu | Ltu | Leu | Gtu | Geu | Num | Nan => t.is_float(),
    };
    if ok {
        return Ok(());
    }
    if c == None {
        return Err(bad(
            Rule::Modifier,
            format!("`{name}` needs a comparison operator"),
        ));
    }
    Err(bad(
        Rule::Modifier,
        format!(
            "comparison `.{}` does not apply to {} in `{name}`",
            format!("{c:?}").to_lowercase(),
            tyname(t)
        ),
    ))
}

/// `cvt` rounding (§9.7.9.21, §6.5.2): integer → float and narrowing float → float need
/// `.rn .rz .rm .rp`; float → integer needs `.rni .rzi .rmi .rpi`; float → float of one size
/// takes only the integer roundings; integer → integer and widening float → float take none.
pub(super) fn check_cvt_rounding(ins: &Instr, name: &str) -> Result<(), Bad> {
    let (d, a, r) = (ins.ty, ins.ty2, ins.rnd);
    let (df, af) = (d.is_float(), a.is_float());
    let ok = match (df, af) {
        (false, false) => r == Round::None,
        (true, false) => ieee_rnd(r),
        (false, true) => int_rnd(r),
        (true, true) if d.size() < a.size() => ieee_rnd(r),
        (true, true) if d.size() > a.size() => r == Round::None,
        (true, true) => r == Round::None || int_rnd(r),
    };
    if ok {
        return Ok(());
    }
    let msg = if r == Round::None {
        format!(
            "`{name}` needs a rounding modifier for {} → {}",
            tyname(a),
            tyname(d)
        )
    } else {
        format!(
            "illegal rounding modifier for `{name}` ({} → {})",
            tyname(a),
            tyname(d)
        )
    };
    Err(bad(Rule::Modifier, msg))
}

/// `.v2`/`.v4`/`.v8` only on `ld`, `ldu`, `st` (§9.7.9.8): at most 128 bits, or 256 bits
/// (`.v8` of 32-bit types, `.v4` of 64-bit types) in `.global` or generic space from sm_100 on
/// (the target is checked in [`min_sm`]).
///
/// [`min_sm`]: super::target::min_sm
pub(super) fn check_vec(ins: &Instr, name: &str) -> Result<(), Bad> {
    if ins.vec == 1 {
        return Ok(());
    }
    if !matches!(ins.op, Opcode::Ld | Opcode::Ldu | Opcode::St) {
        return Err(bad(
            Rule::Vector,
            format!("`{name}`: vector widths apply to ld, ldu and st only"),
        ));
    }
    if ins.ty == Ty::B128 {
        return Err(bad(
            Rule::Vector,
            format!("`{name}`: `.b128` is not a vector element type"),
        ));
    }
    let bytes = u32::from(ins.vec) * ins.ty.size();
    if bytes > 32 {
        return Err(bad(
            Rule::Vector,
            format!("`{name}`: a vector of {bytes} bytes (at most 32)"),
        ));
    }
    if bytes == 32 && !matches!(ins.space, Space::Global | Space::Generic) {
        return Err(bad(
            Rule::Vector,
            format!("`{name}`: 256-bit vectors need the .global (or generic) state space"),
        ));
    }
    Ok(())
}

pub(super) fn spacename(s: Space) -> String {
    format!(".{:?}", s).to_lowercase()
}

/// State spaces per instruction (§9.7.9.9 `st`: not `.const`; §9.7.13.5 `atom` / §9.7.13.6
/// `red`: `.global`, `.shared` or generic; §9.7.9.15 `prefetch`: `.global`, `.local` or generic;
/// §9.7.9.8 `ld.global.nc`: `.global` only).
pub(super) fn check_space(ins: &Instr, name: &str) -> Result<(), Bad> {
    let sp = ins.space;
    let ok = match ins.op {
        Opcode::St => sp != Space::Const,
        Opcode::Atom | Opcode::Red => {
            matches!(
                sp,
                Space::Generic | Space::Global | Space::Shared | Space::SharedCluster
            )
        }
        Opcode::Prefetch | Opcode::Prefetchu => {
            matches!(sp, Space::Generic | Space::Global | Space::Local)
        }
        Opcode::Ld if ins.mods.has(Mods::NC) => sp == Space::Global,
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(bad(
            Rule::Address,
            format!("`{name}` does not access the {} state space", spacename(sp)),
        ))
    }
}

/// Modifiers that the parser accepts on any instruction but ptxas only on some (§9.7.3:
/// `.ftz` for `.f32` (and half) arithmetic, `.sat`, `.approx`/`.full`; §9.7.11 `.uni` on
/// `bra`/`ret`/`call`; §9.7.9.1 cache operators `.ca .cg .cs .lu .cv` for loads and
/// `.wb .cg .cs .wt` for stores; §9.7.13.1 `.aligned` on `barrier` only; `.noftz` on
/// half-precision forms).
pub(super) fn check_modifiers(ins: &Instr, name: &str) -> Result<(), Bad> {
    use Opcode::*;
    let (t, t2) = (ins.ty, ins.ty2);
    let half = |x: Ty| matches!(x, Ty::F16 | Ty::F16x2 | Ty::BF16 | Ty::BF16x2);
    let illegal = |m: &str| {
        Err(bad(
            Rule::Modifier,
            format!("illegal modifier `{m}` for `{name}`"),
        ))
    };
    let m = ins.mods;
    if m.has(Mods::FTZ) {
        let ok = match ins.op {
            Cvt => t == Ty::F32 || t2 == Ty::F32 || half(t) || half(t2),
            Set => t2 == Ty::F32 || half(t2),
            Rcp | Rsqrt if t == Ty::F64 => m.has(Mods::APPROX),
            _ => t == Ty::F32 || half(t),
        };
        if !ok {
            return illegal(".ftz");
        }
    }
    if m.has(Mods::SAT) {
        let ok = match ins.op {
            Add | Sub => t == Ty::S32 || t == Ty::F32 || half(t),
            Mad => (ins.mode == Mode::Hi && t == Ty::S32) || t == Ty::F32 || half(t),
            Mul | Fma => t == Ty::F32 || half(t),
            Cvt => true,
            op => op.is_simd_video(),
        };
        if !ok {
            return illegal(".sat");
        }
    }
    if m.has(Mods::APPROX) {
        let ok = matches!(
            ins.op,
            Div | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh
        ) && t.is_float();
        if !ok {
            return illegal(".approx");
        }
    }
    if m.has(Mods::FULL) && !(ins.op == Div && t == Ty::F32) {
        return illegal(".full");
    }
    if m.has(Mods::UNI) && !matches!(ins.op, Bra | Ret | Call) {
        return illegal(".uni");
    }
    if m.has(Mods::NOFTZ) && !half(t) {
        return illegal(".noftz");
    }
    // the modifiers the parser reads without a flag, from the opcode as written
    let parts: Vec<&str> = name.split('.').skip(1).collect();
    for p in &parts {
        let bad_cache = match ins.op {
            Ld | Ldu => matches!(*p, "wb" | "wt"),
            St => matches!(*p, "ca" | "lu" | "cv"),
            _ => false,
        };
        if bad_cache {
            return illegal(&format!(".{p}"));
        }
    }
    if ins.op == Bar && name.starts_with("bar.") && parts.contains(&"aligned") {
        return illegal(".aligned");
    }
    Ok(())
}
