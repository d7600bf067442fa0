//! 32-bit narrowing of shared-memory address arithmetic.
//!
//! PTX computes shared-memory addresses in 64 bits (`mov.u64 %rd, smem_sym`,
//! `mul.wide.s32`, `cvt.u64.u32`, `add.s64`, `shl.b64`), but a `.shared` address is an offset
//! in the CTA's shared window, which is far below 2^32 (PTX ISA §5.1.5 / §6.4: the shared
//! window; sm_75 has at most 64 KiB of shared memory per CTA), and the SASS shared-memory
//! instructions `LDS`/`STS`/`ATOMS` take a single 32-bit register as their address (NVIDIA,
//! "CUDA Binary Utilities", Turing instruction set: `LDS R4, [R3]`). ptxas therefore keeps such
//! values in one 32-bit register: on `workloads/scan/scan.ptx` (`scan_inclusive`) the SASS
//! printed by `sim/testdata/ptxas_sched.py --sass` computes every shared address with
//! `SHF.L.U32`/`LEA`/`IMAD.SHL.U32` into one register (`LDS.U R4, [R3]`, `STS [R5], R4`) while
//! the global addresses use `IMAD.WIDE` register pairs.
//!
//! [`narrowable`] finds the 64-bit virtual registers that can be held in 32 bits exactly:
//!
//! * every **definition** produces a shared-window value: a `mov` of an immediate, of a
//!   `.shared` symbol's address (module-scope symbols are checked by the lowering, which knows
//!   their space) or of another narrowable value; `cvt.u64/s64` of an 8/16/32-bit value; `mul.wide`
//!   of 32-bit values; `add`/`sub`/`mul.lo`/`and`/`or`/`xor`/`shl` whose 64-bit operands are
//!   narrowable values or immediates; `cvta.to.shared`;
//! * every **use** is the address of a `.shared` `ld`/`st`/`atom`/`red`, a 64-bit operand of a
//!   narrowable definition, or the source of a truncating `cvt.u32/s32/b32` from 64 bits.
//!
//! Exactness: the low 32 bits of the result of `+`, `-`, `×`, `<<` and the bitwise operations
//! depend only on the low 32 bits of their operands (arithmetic modulo 2^32 is a ring
//! homomorphism of arithmetic modulo 2^64), and sign or zero extension does not change the low
//! 32 bits. So the narrowed chain computes exactly the low 32 bits of the 64-bit PTX value, and
//! the shared access uses the same address whenever the PTX address is a valid shared-window
//! address (< 2^32). Anything else (a store of the pointer, `cvta` to generic, a compare, a
//! right shift, a call argument, a vector operand, a non-shared access) keeps the value 64-bit.
use crate::ir::{AddrBase, Function, Instr, Mode, Opcode, Operand, RegClass, Space, Sym, Ty};

/// Calls `f` for every register named by `o` (value, vector element or address base).
fn operand_regs(o: &Operand, f: &mut impl FnMut(crate::ir::Reg)) {
    match o {
        Operand::Reg(r) | Operand::NegPred(r) => f(*r),
        Operand::Vec(v) => v.iter().for_each(|e| operand_regs(e, f)),
        Operand::Addr(a) => {
            if let AddrBase::Reg(r) = a.base {
                f(r)
            }
        }
        _ => {}
    }
}

/// `true` for the 64-bit integer types.
fn is_int64(t: Ty) -> bool {
    matches!(t, Ty::U64 | Ty::S64 | Ty::B64)
}

/// `true` for the 32-bit integer types.
fn is_int32(t: Ty) -> bool {
    matches!(t, Ty::U32 | Ty::S32 | Ty::B32)
}

/// `true` for the integer types of at most 32 bits (sources of a narrowable extension).
fn is_int_narrow(t: Ty) -> bool {
    is_int32(t) || matches!(t, Ty::U8 | Ty::S8 | Ty::B8 | Ty::U16 | Ty::S16 | Ty::B16)
}

/// The role a narrowable definition gives its register operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    /// `mov` of an immediate, a symbol or a narrowable register.
    Mov,
    /// `cvt.u64/s64` of an 8/16/32-bit value (zero/sign extension).
    Extend,
    /// `mul.wide.u32/s32`.
    MulWide,
    /// `add`/`sub`/`mul.lo`/`and`/`or`/`xor` on 64-bit values.
    Binary,
    /// `shl.b64`: first operand 64-bit, shift amount 32-bit.
    Shl,
    /// `cvta.to.shared.u64`: the generic source stays 64-bit.
    CvtaToShared,
}

/// The narrowable-definition form of `ins` (operand registers not checked), or `None`.
pub fn def_kind(ins: &Instr) -> Option<DefKind> {
    let plain = ins.mods.0 == 0;
    let one_dst = ins.dst.len() == 1 && matches!(ins.dst[0], Operand::Reg(_));
    if !plain || !one_dst || ins.call.is_some() {
        return None;
    }
    Some(match ins.op {
        Opcode::Mov if is_int64(ins.ty) => DefKind::Mov,
        Opcode::Cvt if matches!(ins.ty, Ty::U64 | Ty::S64) && is_int_narrow(ins.ty2) => {
            DefKind::Extend
        }
        Opcode::Mul if ins.mode == Mode::Wide && matches!(ins.ty, Ty::U32 | Ty::S32) => {
            DefKind::MulWide
        }
        Opcode::Mul if ins.mode == Mode::Lo && is_int64(ins.ty) => DefKind::Binary,
        Opcode::Add | Opcode::Sub | Opcode::And | Opcode::Or | Opcode::Xor
            if is_int64(ins.ty) && ins.mode == Mode::None =>
        {
            DefKind::Binary
        }
        Opcode::Shl if ins.ty == Ty::B64 => DefKind::Shl,
        Opcode::Cvta
            if ins.mode == Mode::CvtaTo && ins.space == Space::Shared && is_int64(ins.ty) =>
        {
            DefKind::CvtaToShared
        }
        _ => return None,
    })
}

/// `true` if `ins` is `cvt.{u32,s32,b32}.{u64,s64,b64} d, s` (keeps the low 32 bits of `s`).
pub fn is_truncation(ins: &Instr) -> bool {
    ins.op == Opcode::Cvt
        && ins.mods.0 == 0
        && is_int32(ins.ty)
        && is_int64(ins.ty2)
        && ins.dst.len() == 1
        && ins.src.len() == 1
        && matches!(ins.src[0], Operand::Reg(_))
}

/// `true` if `ins` accesses the shared space through an address in `src[0]`.
fn is_shared_access(ins: &Instr) -> bool {
    matches!(ins.op, Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red)
        && ins.space == Space::Shared
}

/// The 64-bit virtual registers of `f` that hold shared-window values only and can live in one
/// 32-bit register (module docs). Indexed by register; `false` for every other register.
pub fn narrowable(f: &Function) -> Vec<bool> {
    let nv = f.regs.len();
    let mut ok: Vec<bool> = f.regs.iter().map(|r| r.class() == RegClass::B64).collect();
    let mut defined = vec![false; nv];
    for ins in &f.instrs {
        ins.for_each_write(|r| {
            if let Some(d) = defined.get_mut(r.idx()) {
                *d = true;
            }
        });
    }
    for (o, d) in ok.iter_mut().zip(&defined) {
        *o &= *d;
    }
    let get = |ok: &[bool], r: crate::ir::Reg| ok.get(r.idx()).copied().unwrap_or(false);
    loop {
        let mut changed = false;
        let mut kill = |ok: &mut Vec<bool>, r: crate::ir::Reg| {
            if let Some(x) = ok.get_mut(r.idx()) {
                if *x {
                    *x = false;
                    changed = true;
                }
            }
        };
        for ins in &f.instrs {
            let dst = match ins.dst.first() {
                Some(Operand::Reg(r)) if ins.dst.len() == 1 => Some(*r),
                _ => None,
            };
            let kind = def_kind(ins);
            let dst_ok = dst.is_some_and(|d| get(&ok, d)) && kind.is_some();
            // definitions: the destination stays narrowable only for a narrowable form whose
            // 64-bit operands are narrowable values or immediates
            if let Some(d) = dst.filter(|&d| get(&ok, d)) {
                let good = match kind {
                    None => false,
                    Some(DefKind::Mov) => match ins.src.first() {
                        Some(Operand::Imm(_)) => true,
                        Some(Operand::Reg(s)) => get(&ok, *s),
                        Some(Operand::Sym(Sym::Local(i), _)) => f
                            .vars
                            .get(*i as usize)
                            .is_some_and(|v| v.space == Space::Shared),
                        // module scope: the lowering checks the symbol is `.shared`
                        Some(Operand::Sym(Sym::Global(_), _)) => true,
                        _ => false,
                    },
                    Some(DefKind::Extend | DefKind::MulWide) => ins
                        .src
                        .iter()
                        .all(|o| matches!(o, Operand::Reg(_) | Operand::Imm(_))),
                    Some(DefKind::Binary) => {
                        ins.src.len() == 2
                            && ins.src.iter().all(|o| match o {
                                Operand::Imm(_) => true,
                                Operand::Reg(s) => get(&ok, *s),
                                _ => false,
                            })
                    }
                    Some(DefKind::Shl) => {
                        ins.src.len() == 2
                            && match &ins.src[0] {
                                Operand::Imm(_) => true,
                                Operand::Reg(s) => get(&ok, *s),
                                _ => false,
                            }
                            && matches!(ins.src[1], Operand::Reg(_) | Operand::Imm(_))
                    }
                    Some(DefKind::CvtaToShared) => true,
                };
                if !good {
                    kill(&mut ok, d);
                }
            }
            // any other destination occurrence (vector element, second destination)
            if dst.is_none() || ins.dst.len() > 1 {
                ins.for_each_write(|r| kill(&mut ok, r));
            }
            // uses
            if let Some(g) = ins.guard {
                kill(&mut ok, g.reg);
            }
            if let Some(c) = &ins.call {
                for o in &c.args {
                    operand_regs(o, &mut |r| kill(&mut ok, r));
                }
                if let crate::ir::CallTarget::Indirect(r) = c.target {
                    kill(&mut ok, r);
                }
            }
            for (k, o) in ins.src.iter().enumerate() {
                let allowed = match o {
                    Operand::Addr(a) => {
                        k == 0 && is_shared_access(ins) && { matches!(a.base, AddrBase::Reg(_)) }
                    }
                    Operand::Reg(_) if is_truncation(ins) => true,
                    Operand::Reg(_) if dst_ok => match kind {
                        Some(DefKind::Mov | DefKind::Binary) => true,
                        Some(DefKind::Shl) => k == 0,
                        _ => false,
                    },
                    _ => false,
                };
                if !allowed {
                    operand_regs(o, &mut |r| kill(&mut ok, r));
                }
            }
        }
        if !changed {
            break;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parser::parse_unscheduled;

    fn kernel(body: &str) -> Function {
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.entry k(.param .u64 k_p)\n{{\n\
             .reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n\
             .shared .align 4 .b8 buf[1024];\n{body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    fn narrowed(f: &Function) -> Vec<&str> {
        narrowable(f)
            .iter()
            .enumerate()
            .filter(|(_, &n)| n)
            .map(|(v, _)| f.regs[v].name.as_str())
            .collect()
    }

    #[test]
    fn shared_address_chain_is_narrowed() {
        // the scan pattern: symbol base + mul.wide index + shl of a sign extension
        let f = kernel(
            "mov.u32 %r1, %tid.x;\nmul.wide.s32 %rd1, %r1, 4;\nmov.u64 %rd2, buf;\n\
             add.s64 %rd3, %rd2, %rd1;\ncvt.s64.s32 %rd4, %r1;\nshl.b64 %rd5, %rd4, 2;\n\
             add.s64 %rd6, %rd3, %rd5;\nld.shared.u32 %r2, [%rd6+4];\nst.shared.u32 [%rd3], %r2;\n\
             cvt.u32.u64 %r3, %rd4;\nadd.s32 %r4, %r3, %r2;\nst.shared.u32 [%rd2], %r4;\nret;",
        );
        assert_eq!(
            narrowed(&f),
            vec!["%rd1", "%rd2", "%rd3", "%rd4", "%rd5", "%rd6"]
        );
    }

    #[test]
    fn global_and_generic_addresses_stay_64_bit() {
        let f = kernel(
            "ld.param.u64 %rd1, [k_p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
             mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r2, [%rd4];\n\
             mov.u64 %rd5, buf;\ncvta.shared.u64 %rd6, %rd5;\nld.u32 %r3, [%rd6];\n\
             add.s32 %r4, %r2, %r3;\nst.global.u32 [%rd4], %r4;\nret;",
        );
        assert!(narrowed(&f).is_empty(), "{:?}", narrowed(&f));
    }

    #[test]
    fn a_stored_compared_or_shifted_right_pointer_is_not_narrowed() {
        // %rd2 is stored as data, %rd3 compared, %rd5 shifted right: none narrowable, nor the
        // shared offsets that feed them
        let f = kernel(
            "mov.u64 %rd1, buf;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 8;\n\
             add.s64 %rd3, %rd1, %rd2;\nst.shared.u64 [%rd1], %rd2;\n\
             setp.lt.u64 %p1, %rd3, 100;\n@%p1 ld.shared.u32 %r2, [%rd3];\n\
             mul.wide.u32 %rd4, %r1, 4;\nshr.u64 %rd5, %rd4, 1;\nadd.s64 %rd6, %rd1, %rd5;\n\
             ld.shared.u32 %r3, [%rd6];\nst.shared.u32 [%rd6], %r2;\nret;",
        );
        // %rd1 (the base) feeds %rd3 and %rd6, which are not narrowable, so it stays 64-bit too
        assert!(narrowed(&f).is_empty(), "{:?}", narrowed(&f));
    }

    #[test]
    fn every_definition_must_be_narrowable() {
        // %rd2 is sometimes a shared address, sometimes a parameter (64-bit)
        let f = kernel(
            "mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\nmov.u64 %rd2, buf;\n\
             @%p1 ld.param.u64 %rd2, [k_p];\nld.shared.u32 %r2, [%rd2];\n\
             st.shared.u32 [%rd2], %r2;\nret;",
        );
        assert!(narrowed(&f).is_empty());
    }
}
