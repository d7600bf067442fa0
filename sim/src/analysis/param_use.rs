//! Which kernel parameters are pointers, and to what (`regwatt spec new`).
//!
//! PTX does not tell a pointer from a 64-bit integer: both are `.param .u64`. A parameter is
//! taken as a pointer when its value reaches the address of a global (or generic) load, store
//! or atomic. The analysis is flow-insensitive: a register is *derived* from a parameter when
//! it is written by `ld.param` of that parameter, or by `mov`, `cvta`, `cvt`, `add`, `sub`,
//! `and`, `or`, `selp` (64-bit results) from a derived register, or by `mad` with a derived
//! addend (`mad.wide.s32 %rd, %r, 4, %rd_base`). Multiplications and shifts do not propagate,
//! so an index or a size scaled into a byte offset stays an integer. When one address derives
//! from several parameters (`p + n` for a `char *p` and a `size_t n`), those that also went
//! through `cvta` (NVRTC converts every pointer parameter it dereferences with
//! `cvta.to.global`) are the pointers; if none did, all of them are.
//!
//! The element type of a pointer is the type of the first float-typed plain `ld`/`st` through
//! it in program order, else of the first plain `ld`/`st`; atomics only when there is none
//! (`atom.cas.b32` often stands for a float). Float accesses win because NVRTC moves float
//! data with integer-typed accesses (`st.global.u32` of `0.0f`, a `float4` copied with
//! `ld.global.v4.u32`) but never integer data with float-typed ones.

use std::collections::BTreeSet;

use crate::ir::{AddrBase, Function, Mode, Opcode, Operand, RegClass, Space, Sym, Ty};

/// The kind of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `ld` / `ldu`.
    Load,
    /// `st`.
    Store,
    /// `atom` / `red`.
    Atomic,
}

impl AccessKind {
    /// The PTX opcode name (`ld`, `st`, `atom`).
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Load => "ld",
            AccessKind::Store => "st",
            AccessKind::Atomic => "atom",
        }
    }
}

/// One access through a pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Load, store or atomic.
    pub kind: AccessKind,
    /// Its state space (`Global` or `Generic`).
    pub space: Space,
    /// Its data type (`ld.global.v4.f32`: `F32`).
    pub ty: Ty,
    /// 1-based PTX source line.
    pub line: u32,
}

/// How a kernel uses one pointer parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerUse {
    /// The access the element type comes from: the first float-typed plain load or store in
    /// program order, else the first plain one, else the first (float-typed) atomic.
    pub typed_by: Access,
    /// Some access loads through it.
    pub loaded: bool,
    /// Some access stores through it.
    pub stored: bool,
    /// Some atomic goes through it.
    pub atomic: bool,
}

/// Per parameter of `f` (in order): `Some` when it is a 64-bit parameter whose value reaches
/// a global or generic address (see the module documentation), `None` otherwise.
pub fn pointer_params(f: &Function) -> Vec<Option<PointerUse>> {
    let n = f.params.len();
    let wide = |r: &crate::ir::Reg| {
        f.regs
            .get(r.idx())
            .is_some_and(|d| d.class() == RegClass::B64)
    };
    let mut derived: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); f.regs.len()];
    // seeds: ld.param of an 8-byte scalar parameter
    for ins in &f.instrs {
        if ins.op != Opcode::Ld || ins.space != Space::Param {
            continue;
        }
        if let Some(Operand::Addr(a)) = ins.src.first() {
            if let AddrBase::Sym(Sym::Param(p)) = a.base {
                let p = p as usize;
                if f.params
                    .get(p)
                    .is_some_and(|q| q.size == 8 && a.offset == 0)
                {
                    if let Some(Operand::Reg(d)) = ins.dst.first() {
                        derived[d.idx()].insert(p);
                    }
                }
            }
        }
    }
    // propagation to a fixed point (each pass only adds; at most regs × params additions)
    loop {
        let mut changed = false;
        for ins in &f.instrs {
            let from: &[Operand] = match ins.op {
                Opcode::Mov | Opcode::Cvta | Opcode::Cvt => ins.src.get(..1).unwrap_or(&[]),
                Opcode::Add | Opcode::Sub | Opcode::And | Opcode::Or => &ins.src,
                Opcode::Selp => ins.src.get(..2).unwrap_or(&[]),
                Opcode::Mad if matches!(ins.mode, Mode::Wide | Mode::Lo) => {
                    ins.src.get(2..3).unwrap_or(&[])
                }
                _ => continue,
            };
            let Some(Operand::Reg(d)) = ins.dst.first() else {
                continue;
            };
            if !wide(d) {
                continue;
            }
            let mut add = BTreeSet::new();
            for o in from {
                if let Operand::Reg(r) = o {
                    add.extend(derived[r.idx()].iter().copied());
                }
            }
            let before = derived[d.idx()].len();
            derived[d.idx()].extend(add);
            changed |= derived[d.idx()].len() != before;
        }
        if !changed {
            break;
        }
    }
    // parameters converted by cvta
    let mut converted = vec![false; n];
    for ins in f.instrs.iter().filter(|i| i.op == Opcode::Cvta) {
        if let Some(Operand::Reg(r)) = ins.src.first() {
            for &p in &derived[r.idx()] {
                converted[p] = true;
            }
        }
    }
    // the first plain access, the first float-typed plain access, the same for atomics
    let mut typed: Vec<[Option<Access>; 4]> = vec![[None; 4]; n];
    let mut uses: Vec<(bool, bool, bool)> = vec![(false, false, false); n];
    for ins in &f.instrs {
        let kind = match ins.op {
            Opcode::Ld | Opcode::Ldu => AccessKind::Load,
            Opcode::St => AccessKind::Store,
            Opcode::Atom | Opcode::Red => AccessKind::Atomic,
            _ => continue,
        };
        if !matches!(ins.space, Space::Global | Space::Generic) {
            continue;
        }
        let Some(Operand::Addr(a)) = ins.src.first() else {
            continue;
        };
        let AddrBase::Reg(r) = a.base else { continue };
        let from = &derived[r.idx()];
        let any_converted = from.iter().any(|&p| converted[p]);
        let access = Access {
            kind,
            space: ins.space,
            ty: ins.ty,
            line: ins.line,
        };
        for &p in from.iter().filter(|&&p| converted[p] || !any_converted) {
            let u = &mut uses[p];
            match kind {
                AccessKind::Load => u.0 = true,
                AccessKind::Store => u.1 = true,
                AccessKind::Atomic => u.2 = true,
            }
            let base = if kind == AccessKind::Atomic { 2 } else { 0 };
            typed[p][base].get_or_insert(access);
            if access.ty.is_float() {
                typed[p][base + 1].get_or_insert(access);
            }
        }
    }
    (0..n)
        .map(|p| {
            let [plain, plain_float, atomic, atomic_float] = typed[p];
            let typed_by = plain_float.or(plain).or(atomic_float).or(atomic)?;
            let (loaded, stored, atomic) = uses[p];
            Some(PointerUse {
                typed_by,
                loaded,
                stored,
                atomic,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: &str, params: &str) -> Function {
        let src = format!(
            ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k({params})\n{{\n{body}\nret;\n}}\n"
        );
        let m = crate::ptx::parse("t.ptx", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let f = m.kernels().next().unwrap().clone();
        f
    }

    /// A `char *p` indexed by a `size_t n`: `p` is the pointer (u8, stored), `n` a scalar;
    /// an unused pointer-sized parameter is a scalar too.
    #[test]
    fn size_t_beside_a_pointer_is_a_scalar() {
        let f = kernel(
            ".reg .b64 %rd<6>;\n.reg .b16 %rs<2>;\n\
             ld.param.u64 %rd1, [k_param_0];\nld.param.u64 %rd2, [k_param_1];\n\
             cvta.to.global.u64 %rd3, %rd1;\nadd.s64 %rd4, %rd3, %rd2;\n\
             mov.u16 %rs1, 7;\nst.global.u8 [%rd4], %rs1;",
            ".param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2",
        );
        let u = pointer_params(&f);
        let p = u[0].as_ref().expect("k_param_0 is a pointer");
        assert_eq!(
            (p.typed_by.ty, p.typed_by.kind),
            (Ty::U8, AccessKind::Store)
        );
        assert_eq!((p.loaded, p.stored, p.atomic), (false, true, false));
        assert_eq!((&u[1], &u[2]), (&None, &None));
    }

    /// Through `mad.wide` and generic addressing (no cvta): the addend is the pointer, the
    /// multiplied index is not; a load after an atomic types the buffer.
    #[test]
    fn mad_wide_addend_and_generic_access() {
        let f = kernel(
            ".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .f32 %f<2>;\n\
             ld.param.u64 %rd1, [k_param_0];\nld.param.u32 %r1, [k_param_1];\n\
             mad.wide.s32 %rd2, %r1, 4, %rd1;\natom.add.u32 %r2, [%rd2], 1;\n\
             ld.f32 %f1, [%rd2];",
            ".param .u64 k_param_0, .param .u32 k_param_1",
        );
        let u = pointer_params(&f);
        let p = u[0].as_ref().expect("pointer");
        assert_eq!(
            (p.typed_by.ty, p.typed_by.kind, p.typed_by.space),
            (Ty::F32, AccessKind::Load, Space::Generic)
        );
        assert_eq!((p.loaded, p.stored, p.atomic), (true, false, true));
        assert_eq!(u[1], None);
    }
}
