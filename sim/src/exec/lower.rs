//! Lowering of an IR function to the executor form: every register operand becomes the
//! architectural register(s) chosen by [`crate::analysis::analyze`], every symbol a resolved
//! address, every branch carries its reconvergence PC. Done once per kernel; the interpreter
//! then never looks at virtual registers, names or strings.

use super::error::ExecError;
use super::regs::ArchReg;
use crate::analysis::Allocation;
use crate::ir::{
    AddrBase, AtomOp, BoolOp, Cmp, Function, Mode, Mods, Opcode, Operand, Reg, Round, Space, Sreg,
    Sym, Ty,
};
use crate::mem;

/// No reconvergence point: the paths of a divergent branch only meet at exit.
pub const NO_RECONV: u32 = u32::MAX;

/// Coarse functional-unit class of an instruction, for the timing model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum OpClass {
    /// Integer arithmetic, logic, shifts, moves, comparisons, integer conversions.
    Int,
    /// Single-precision (and half) floating-point arithmetic.
    Fp32,
    /// Double-precision arithmetic.
    Fp64,
    /// Special-function unit: `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`, `div`.
    Sfu,
    /// Loads and stores.
    Mem,
    /// `atom` / `red`.
    Atomic,
    /// Warp-wide data exchange: `shfl`, `vote`, `match`, `activemask`, `redux`.
    Warp,
    /// `bra`.
    Branch,
    /// `bar` / `barrier`.
    Barrier,
    /// `ret`, `exit`, `call`, `trap`.
    Control,
    /// No functional effect: `membar`, `fence`, `prefetch`, `nanosleep`, `pmevent`.
    Nop,
}

/// Up to 16 architectural registers, inline (no allocation on the hot path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegList {
    regs: [ArchReg; 16],
    len: u8,
}

impl Default for RegList {
    fn default() -> Self {
        RegList {
            regs: [ArchReg::R(0); 16],
            len: 0,
        }
    }
}

impl RegList {
    /// The registers, in operand order (duplicates kept).
    pub fn as_slice(&self) -> &[ArchReg] {
        &self.regs[..self.len as usize]
    }

    /// Number of registers.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push(&mut self, r: ArchReg) -> bool {
        match self.regs.get_mut(self.len as usize) {
            Some(s) => {
                *s = r;
                self.len += 1;
                true
            }
            None => false,
        }
    }
}

/// Base of a lowered address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XBase {
    /// A register (32- or 64-bit address): `[reg+offset]`.
    Gpr { reg: u16, slots: u8 },
    /// A uniform register (pair): `[URk+offset]`, one value for the whole warp.
    Ur { reg: u16, slots: u8 },
    /// Absolute: the address is the offset (symbols are resolved into it).
    Abs,
}

/// A lowered operand.
#[derive(Clone, Debug, PartialEq)]
pub enum XOp {
    /// Architectural general register(s): base `R(reg)`, `slots` 32-bit registers (1, 2 or 4).
    Gpr { reg: u16, slots: u8 },
    /// Predicate register `P(reg)`, `neg` for `!p`.
    Pred { reg: u16, neg: bool },
    /// Uniform register(s) `U(reg)..` (sm_75's uniform file, [`crate::analysis::AllocTarget`]):
    /// one 32-bit value per warp and register, `slots` of them (1 or 2). Held by the executor
    /// ([`super::cta::CtaExec`]), not by the register file (a separate datapath on Turing).
    Ur { reg: u16, slots: u8 },
    /// Immediate raw bits (symbol addresses resolved to immediates).
    Imm(u64),
    /// Special register.
    Special(Sreg),
    /// `{a, b, ...}`.
    Vec(Vec<XOp>),
    /// Memory address `[base+offset]`; the space of a resolved symbol is kept in `sym_space`.
    Addr { base: XBase, offset: i64 },
    /// `_`.
    Sink,
}

/// One instruction in executor form.
#[derive(Clone, Debug)]
pub struct ExecInstr {
    pub op: Opcode,
    pub ty: Ty,
    pub ty2: Ty,
    pub rnd: Round,
    pub cmp: Cmp,
    pub bool_op: BoolOp,
    pub atom: AtomOp,
    pub mode: Mode,
    /// State space (after symbol resolution; `ld [shared_sym]` stays `Generic` with a generic
    /// address).
    pub space: Space,
    pub vec: u8,
    pub mods: Mods,
    /// Guard predicate `(P index, negated)`.
    pub guard: Option<(u16, bool)>,
    pub dst: Vec<XOp>,
    pub src: Vec<XOp>,
    /// Functional-unit class.
    pub class: OpClass,
    /// Architectural registers read (guard first, then sources in operand order).
    pub src_regs: RegList,
    /// Architectural registers written.
    pub dst_regs: RegList,
    /// Uniform registers read (bit `k` = `UR<k>`; not in `src_regs`: the register-file
    /// designs never see them).
    pub src_ur: u64,
    /// Uniform registers written.
    pub dst_ur: u64,
    /// 32-bit uniform-register reads of one execution (operand order, duplicates counted as
    /// `src_regs` counts them).
    pub ur_reads: u8,
    /// 32-bit uniform-register writes of one execution.
    pub ur_writes: u8,
    /// Branch target PC (`bra` only).
    pub target: u32,
    /// Reconvergence PC of a `bra` ([`NO_RECONV`]: at exit).
    pub reconv: u32,
    /// 1-based PTX source line.
    pub line: u32,
    /// Pre-selected whole-warp kernel for the commonest simple instructions (speed only; the
    /// semantics equal [`super::alu::eval`]'s).
    pub fast: FastOp,
    /// `ld`/`ldu` of one 32-bit element into one register from an address operand in the
    /// global or generic space: executed by the executor's dedicated 32-bit load (speed only,
    /// issue 5; the semantics are those of the general `ld`).
    pub ld32: bool,
}

/// Common instructions executed by a tight lane loop instead of per-lane [`super::alu::eval`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastOp {
    None,
    /// `mov` of any 32/64-bit value (also `cvta{.to}.global`, an identity).
    Mov,
    AddI32,
    AddI64,
    SubI32,
    SubI64,
    MulLoI32,
    MulWideS32,
    MulWideU32,
    MadLoI32,
    ShlB32,
    ShlB64,
    AndB32,
    OrB32,
    /// `fma.rn.f32` / `mad.rn.f32` without `.ftz`/`.sat`.
    FmaRnF32,
    AddRnF32,
    MulRnF32,
}

impl FastOp {
    /// Number of source operands the kernel reads (`mov` 1, `mad`/`fma` 3, the rest 2); an
    /// instruction with another operand count takes the general per-lane path.
    pub fn arity(self) -> usize {
        match self {
            FastOp::None => 0,
            FastOp::Mov => 1,
            FastOp::MadLoI32 | FastOp::FmaRnF32 => 3,
            _ => 2,
        }
    }
}

/// The [`FastOp`] of `ins`: [`FastOp::None`] unless the instruction is one of the plain forms
/// and has exactly the kernel's [`FastOp::arity`] sources (the executor dispatches on `fast`
/// before looking at the opcode).
fn fast_op(ins: &crate::ir::Instr) -> FastOp {
    let f = fast_form(ins);
    if ins.src.len() == f.arity() {
        f
    } else {
        FastOp::None
    }
}

fn fast_form(ins: &crate::ir::Instr) -> FastOp {
    use Opcode::*;
    let plain = ins.mods.0 == 0;
    let int32 = matches!(ins.ty, Ty::U32 | Ty::S32 | Ty::B32);
    let int64 = matches!(ins.ty, Ty::U64 | Ty::S64 | Ty::B64);
    let rn = matches!(ins.rnd, Round::Rn | Round::None);
    if !plain || ins.dst.len() != 1 || ins.src.iter().any(|o| matches!(o, Operand::Vec(_))) {
        return FastOp::None;
    }
    if matches!(ins.dst[0], Operand::Vec(_)) {
        return FastOp::None;
    }
    match (ins.op, ins.mode) {
        (Mov, _) if int32 || int64 || matches!(ins.ty, Ty::F32 | Ty::F64) => FastOp::Mov,
        // `cvta.global` / `cvta.to.global` return the address unchanged (the global space is
        // the generic space outside the shared and local windows; `alu::eval`, `mem`)
        (Cvta, _) if ins.space == Space::Global && int64 => FastOp::Mov,
        (Add, _) if int32 => FastOp::AddI32,
        (Add, _) if int64 => FastOp::AddI64,
        (Sub, _) if int32 => FastOp::SubI32,
        (Sub, _) if int64 => FastOp::SubI64,
        (Mul, Mode::Lo) if int32 => FastOp::MulLoI32,
        (Mul, Mode::Wide) if ins.ty == Ty::S32 => FastOp::MulWideS32,
        (Mul, Mode::Wide) if ins.ty == Ty::U32 => FastOp::MulWideU32,
        (Mad, Mode::Lo) if int32 => FastOp::MadLoI32,
        (Shl, _) if ins.ty == Ty::B32 => FastOp::ShlB32,
        (Shl, _) if ins.ty == Ty::B64 => FastOp::ShlB64,
        (And, _) if int32 => FastOp::AndB32,
        (Or, _) if int32 => FastOp::OrB32,
        (Fma | Mad, _) if ins.ty == Ty::F32 && rn && ins.rnd == Round::Rn => FastOp::FmaRnF32,
        (Add, _) if ins.ty == Ty::F32 && rn => FastOp::AddRnF32,
        (Mul, _) if ins.ty == Ty::F32 && rn => FastOp::MulRnF32,
        _ => FastOp::None,
    }
}

/// The form of [`ExecInstr::ld32`]: `ld`/`ldu` (no vector) of a 4-byte type into one 32-bit
/// register, from an address operand, in the global or generic space.
fn is_ld32(x: &ExecInstr) -> bool {
    matches!(x.op, Opcode::Ld | Opcode::Ldu)
        && x.ty.size() == 4
        && matches!(x.space, Space::Global | Space::Generic)
        && matches!(x.dst.as_slice(), [XOp::Gpr { slots, .. }] if *slots < 2)
        && matches!(x.src.first(), Some(XOp::Addr { .. }))
}

/// Where each kind of symbol lives, fixed before lowering.
#[derive(Clone, Debug, Default)]
pub struct SymbolMap {
    /// `(space, address)` of each module-scope variable (`None`: unsupported space).
    pub globals: Vec<Option<(mem::Space, u64)>>,
    /// `(space, address)` of each function-scope variable of the function being lowered.
    pub locals: Vec<Option<(mem::Space, u64)>>,
}

/// The class of an opcode.
pub fn op_class(op: Opcode, ty: Ty) -> OpClass {
    use Opcode::*;
    let fp = |t: Ty| match t {
        Ty::F64 => OpClass::Fp64,
        t if t.is_float() => OpClass::Fp32,
        _ => OpClass::Int,
    };
    match op {
        Add | Sub | Mul | Mad | Fma | Abs | Neg | Min | Max | Setp | Set | Copysign | Testp => {
            fp(ty)
        }
        Div => match ty {
            Ty::F64 => OpClass::Fp64,
            t if t.is_float() => OpClass::Sfu,
            _ => OpClass::Int,
        },
        Rcp | Sqrt | Rsqrt => match ty {
            Ty::F64 => OpClass::Fp64,
            _ => OpClass::Sfu,
        },
        Sin | Cos | Lg2 | Ex2 | Tanh => OpClass::Sfu,
        Ld | Ldu | St => OpClass::Mem,
        Atom | Red => OpClass::Atomic,
        Shfl | Vote | Match | Activemask | Redux => OpClass::Warp,
        Bra => OpClass::Branch,
        Bar | BarWarp => OpClass::Barrier,
        Ret | Exit | Call | Trap | Brkpt => OpClass::Control,
        Membar | Fence | Prefetch | Prefetchu | Nanosleep | Pmevent => OpClass::Nop,
        _ => OpClass::Int,
    }
}

struct Lowerer<'a> {
    f: &'a Function,
    alloc: &'a Allocation,
    syms: &'a SymbolMap,
    file: &'a str,
    line: u32,
}

impl Lowerer<'_> {
    fn err(&self, what: String) -> ExecError {
        ExecError::Unsupported {
            file: self.file.to_string(),
            line: self.line,
            function: self.f.name.clone(),
            what,
        }
    }

    fn reg(&self, r: Reg) -> Result<XOp, ExecError> {
        match self.alloc.map.get(r.idx()).copied().flatten() {
            Some(ArchReg::R(b)) => {
                let slots = self.alloc.slots.get(r.idx()).copied().unwrap_or(1).max(1);
                Ok(XOp::Gpr { reg: b, slots })
            }
            Some(ArchReg::P(p)) => Ok(XOp::Pred { reg: p, neg: false }),
            Some(ArchReg::U(b)) => {
                let slots = self.alloc.slots.get(r.idx()).copied().unwrap_or(1).max(1);
                Ok(XOp::Ur { reg: b, slots })
            }
            None => Err(self.err(format!(
                "register {} has no architectural register in the allocation",
                self.f
                    .regs
                    .get(r.idx())
                    .map(|d| d.name.as_str())
                    .unwrap_or("?")
            ))),
        }
    }

    /// `(space, address)` of a symbol.
    fn sym(&self, s: Sym) -> Result<(mem::Space, u64), ExecError> {
        let found = match s {
            Sym::Global(i) => self.syms.globals.get(i as usize).copied().flatten(),
            Sym::Local(i) => self.syms.locals.get(i as usize).copied().flatten(),
            Sym::Param(i) if self.f.is_kernel => self
                .f
                .params
                .get(i as usize)
                .map(|p| (mem::Space::Param, u64::from(p.offset))),
            Sym::Param(_) | Sym::Ret(_) => {
                return Err(self.err(".func parameters (call) are not supported".into()))
            }
            Sym::Func(_) => return Err(self.err("function pointers are not supported".into())),
        };
        found.ok_or_else(|| {
            let what = match s {
                Sym::Local(i) => self
                    .f
                    .vars
                    .get(i as usize)
                    .map(|v| format!("variable `{}` in state space {:?}", v.name, v.space)),
                _ => None,
            };
            self.err(format!(
                "{} is not addressable by the executor",
                what.unwrap_or_else(|| "symbol".to_string())
            ))
        })
    }

    fn operand(&self, o: &Operand, space: Space) -> Result<XOp, ExecError> {
        Ok(match o {
            Operand::Reg(r) => self.reg(*r)?,
            Operand::NegPred(r) => match self.reg(*r)? {
                XOp::Pred { reg, .. } => XOp::Pred { reg, neg: true },
                _ => return Err(self.err("`!` applied to a non-predicate register".into())),
            },
            Operand::Imm(v) => XOp::Imm(*v),
            Operand::Special(s) => XOp::Special(*s),
            Operand::Vec(v) => XOp::Vec(
                v.iter()
                    .map(|e| self.operand(e, space))
                    .collect::<Result<_, _>>()?,
            ),
            Operand::Sink => XOp::Sink,
            Operand::Label(pc) => XOp::Imm(u64::from(*pc)),
            Operand::Sym(s, off) => {
                let (_, a) = self.sym(*s)?;
                XOp::Imm(a.wrapping_add(*off as u64))
            }
            Operand::Addr(a) => match a.base {
                AddrBase::Reg(r) => match self.reg(r)? {
                    XOp::Gpr { reg, slots } => XOp::Addr {
                        base: XBase::Gpr { reg, slots },
                        offset: a.offset,
                    },
                    XOp::Ur { reg, slots } => XOp::Addr {
                        base: XBase::Ur { reg, slots },
                        offset: a.offset,
                    },
                    _ => return Err(self.err("predicate used as an address".into())),
                },
                AddrBase::Abs => XOp::Addr {
                    base: XBase::Abs,
                    offset: a.offset,
                },
                AddrBase::Sym(s) => {
                    let (sp, addr) = self.sym(s)?;
                    let addr = addr.wrapping_add(a.offset as u64);
                    let addr = match space {
                        Space::Generic => mem::to_generic(sp, addr),
                        _ => {
                            if to_mem_space(space) != Some(sp) {
                                return Err(self.err(format!(
                                    "symbol in the {sp} space addressed as {space:?}"
                                )));
                            }
                            addr
                        }
                    };
                    XOp::Addr {
                        base: XBase::Abs,
                        offset: addr as i64,
                    }
                }
            },
        })
    }
}

/// The memory space of an IR state space (`None` for generic and unsupported ones).
pub fn to_mem_space(s: Space) -> Option<mem::Space> {
    match s {
        Space::Global => Some(mem::Space::Global),
        Space::Shared => Some(mem::Space::Shared),
        Space::Local => Some(mem::Space::Local),
        Space::Param => Some(mem::Space::Param),
        Space::Const => Some(mem::Space::Const),
        Space::Generic | Space::SharedCluster | Space::Tex => None,
    }
}

/// Adds the uniform registers of operand `o` to mask `mask`, counting each 32-bit read or
/// write in `n`.
fn collect_ur(o: &XOp, mask: &mut u64, n: &mut u8) {
    match o {
        XOp::Ur { reg, slots }
        | XOp::Addr {
            base: XBase::Ur { reg, slots },
            ..
        } => {
            for k in 0..u16::from(*slots) {
                let r = reg.saturating_add(k);
                if r < 64 {
                    *mask |= 1 << r;
                }
                *n = n.saturating_add(1);
            }
        }
        XOp::Vec(v) => v.iter().for_each(|e| collect_ur(e, mask, n)),
        _ => {}
    }
}

/// Adds the register-file registers of operand `o` (general and predicate; uniform registers
/// are not register-file operands, [`collect_ur`]) to `out`; false if more than 16.
fn collect_regs(o: &XOp, out: &mut RegList) -> bool {
    match o {
        XOp::Gpr { reg, slots }
        | XOp::Addr {
            base: XBase::Gpr { reg, slots },
            ..
        } => (0..u16::from(*slots)).all(|k| out.push(ArchReg::R(reg.saturating_add(k)))),
        XOp::Pred { reg, .. } => out.push(ArchReg::P(*reg)),
        XOp::Vec(v) => v.iter().all(|e| collect_regs(e, out)),
        _ => true,
    }
}

/// `true` if `o` is a register the allocation narrowed to 32 bits ([`crate::analysis::narrow`]).
fn is_narrowed(alloc: &Allocation, o: Option<&Operand>) -> bool {
    match o {
        Some(Operand::Reg(r)) => alloc.narrowed.get(r.idx()).copied().unwrap_or(false),
        _ => false,
    }
}

/// The 32-bit type of the same signedness as 64-bit integer type `t`.
fn narrow_ty(t: Ty) -> Ty {
    match t {
        Ty::S64 => Ty::S32,
        Ty::U64 => Ty::U32,
        Ty::B64 => Ty::B32,
        t => t,
    }
}

/// The 32-bit form of an instruction that defines a narrowed value or truncates one
/// ([`crate::analysis::narrow`]; `None`: unchanged). The low 32 bits of `+ - × <<` and the
/// bitwise operations depend only on the operands' low 32 bits, so the 32-bit operation gives
/// exactly the low word of the 64-bit PTX result: `cvt.u64.u32`/`cvt.s64.s32` and
/// `cvt.u32.u64` become 32-bit moves, `cvt.u64.u16` becomes `cvt.u32.u16` (same for the other
/// 8/16-bit sources), `mul.wide.{u,s}32` becomes `mul.lo`, `add/sub/mul.lo/
/// and/or/xor/shl` on 64 bits become their 32-bit forms (`shl.b32` clamps shifts >= 32 to a
/// zero result, the low word of the clamped 64-bit shift; PTX ISA §9.7.1.8/§9.7.8.8) and
/// immediates keep their low word. A `mov` of a symbol's address must name a `.shared`
/// variable whose window address fits in 32 bits, else the kernel is rejected with an error
/// (checked conversion). `cvta.to.shared` keeps its operation; its result is a window offset.
fn narrow_instr(
    ins: &crate::ir::Instr,
    lw: &Lowerer<'_>,
) -> Result<Option<crate::ir::Instr>, ExecError> {
    use crate::analysis::narrow::{def_kind, is_truncation, DefKind};
    let alloc = lw.alloc;
    let low = |o: &Operand| match o {
        Operand::Imm(v) => Operand::Imm(v & 0xffff_ffff),
        o => o.clone(),
    };
    if is_truncation(ins) && is_narrowed(alloc, ins.src.first()) {
        let mut n = ins.clone();
        n.op = Opcode::Mov;
        n.ty = Ty::B32;
        n.ty2 = Ty::None;
        return Ok(Some(n));
    }
    if !is_narrowed(alloc, ins.dst.first()) {
        return Ok(None);
    }
    let Some(kind) = def_kind(ins) else {
        return Err(lw.err("narrowed 64-bit register defined by an unexpected instruction".into()));
    };
    let mut n = ins.clone();
    match kind {
        DefKind::Mov => {
            if let Some(Operand::Sym(s, off)) = ins.src.first() {
                let (sp, a) = lw.sym(*s)?;
                let a = a.wrapping_add(*off as u64);
                if sp != mem::Space::Shared || a > u64::from(u32::MAX) {
                    return Err(lw.err(format!(
                        "a 64-bit shared address narrowed to 32 bits holds address {a:#x} in                          the {sp} space (not a 32-bit shared-window offset)"
                    )));
                }
            }
            n.ty = Ty::B32;
            n.src = ins.src.iter().map(low).collect();
        }
        DefKind::Extend if matches!(ins.ty2, Ty::U32 | Ty::S32 | Ty::B32) => {
            n.op = Opcode::Mov;
            n.ty = Ty::B32;
            n.ty2 = Ty::None;
            n.src = ins.src.iter().map(low).collect();
        }
        // 8/16-bit sources: the same extension to 32 bits
        DefKind::Extend => n.ty = narrow_ty(ins.ty),
        DefKind::MulWide => n.mode = Mode::Lo,
        DefKind::Binary | DefKind::Shl => {
            n.ty = narrow_ty(ins.ty);
            n.src = ins.src.iter().map(low).collect();
        }
        DefKind::CvtaToShared => return Ok(None),
    }
    Ok(Some(n))
}

/// Lowers every instruction of `f` with register allocation `alloc` and symbol map `syms`.
/// `file` names the PTX file in errors.
pub fn lower_function(
    f: &Function,
    alloc: &Allocation,
    syms: &SymbolMap,
    file: &str,
) -> Result<Vec<ExecInstr>, ExecError> {
    let mut out = Vec::with_capacity(f.instrs.len());
    for (pc, orig) in f.instrs.iter().enumerate() {
        let lw = Lowerer {
            f,
            alloc,
            syms,
            file,
            line: orig.line,
        };
        let narrowed = narrow_instr(orig, &lw)?;
        let ins: &crate::ir::Instr = narrowed.as_ref().unwrap_or(orig);
        let guard = match ins.guard {
            Some(g) => match lw.reg(g.reg)? {
                XOp::Pred { reg, .. } => Some((reg, g.neg)),
                _ => return Err(lw.err("guard is not a predicate".into())),
            },
            None => None,
        };
        let dst = ins
            .dst
            .iter()
            .map(|o| lw.operand(o, ins.space))
            .collect::<Result<Vec<_>, _>>()?;
        let src = ins
            .src
            .iter()
            .map(|o| lw.operand(o, ins.space))
            .collect::<Result<Vec<_>, _>>()?;
        if ins.call.is_some() || ins.op == Opcode::Call {
            return Err(lw.err(
                "call that was not inlined (regwatt executes .func calls by inlining them)".into(),
            ));
        }
        let mut src_regs = RegList::default();
        let mut dst_regs = RegList::default();
        let mut ok = true;
        if let Some((p, _)) = guard {
            ok &= src_regs.push(ArchReg::P(p));
        }
        for o in &src {
            ok &= collect_regs(o, &mut src_regs);
        }
        for o in &dst {
            ok &= collect_regs(o, &mut dst_regs);
        }
        if !ok {
            return Err(lw.err("more than 16 register operands".into()));
        }
        let (mut src_ur, mut dst_ur, mut ur_reads, mut ur_writes) = (0u64, 0u64, 0u8, 0u8);
        for o in &src {
            collect_ur(o, &mut src_ur, &mut ur_reads);
        }
        for o in &dst {
            collect_ur(o, &mut dst_ur, &mut ur_writes);
        }
        let (target, reconv) = if ins.op == Opcode::Bra {
            let t = ins
                .branch_target()
                .ok_or_else(|| lw.err("indirect branch (brx.idx) is not supported".into()))?;
            let r = f.cfg.reconv_pc_of_instr(pc as u32).unwrap_or(NO_RECONV);
            (t, r)
        } else {
            (0, NO_RECONV)
        };
        out.push(ExecInstr {
            op: ins.op,
            ty: ins.ty,
            ty2: ins.ty2,
            rnd: ins.rnd,
            cmp: ins.cmp,
            bool_op: ins.bool_op,
            atom: ins.atom,
            mode: ins.mode,
            space: ins.space,
            vec: ins.vec,
            mods: ins.mods,
            guard,
            dst,
            src,
            class: op_class(ins.op, ins.ty),
            src_regs,
            dst_regs,
            src_ur,
            dst_ur,
            ur_reads,
            ur_writes,
            target,
            reconv,
            line: ins.line,
            // the whole-warp kernels read a uniform operand once and write a uniform result
            // from the lowest active lane, as the general path does (`CtaExec::write_ur`)
            fast: fast_op(ins),
            ld32: false,
        });
        if let Some(x) = out.last_mut() {
            x.ld32 = is_ld32(x);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::Program;
    use crate::mem::GlobalMemory;

    const HEAD: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
        .global .align 4 .b8 gbuf[64];\n.entry k(.param .u64 k_p)\n{\n.reg .pred %p<3>;\n\
        .reg .b16 %rs<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.shared .align 4 .b8 buf[1024];\n";

    fn load(body: &str) -> Result<Program, ExecError> {
        let src = format!("{HEAD}{body}\n}}\n");
        Program::from_ptx("t.ptx", &src, &mut GlobalMemory::new())
    }

    #[test]
    fn narrowed_shared_addresses_run_as_32_bit_operations() {
        let p = load(
            "mov.u32 %r1, %tid.x;\nmul.wide.s32 %rd1, %r1, 4;\nmov.u64 %rd2, buf;\n\
             add.s64 %rd3, %rd2, %rd1;\ncvt.u16.u32 %rs1, %r1;\ncvt.u64.u16 %rd4, %rs1;\n\
             shl.b64 %rd5, %rd4, 2;\nadd.s64 %rd6, %rd2, %rd5;\nld.shared.u32 %r2, [%rd6];\n\
             st.shared.u32 [%rd3], %r2;\nret;",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let find = |op: Opcode, ty: Ty| k.instrs.iter().find(|i| i.op == op && i.ty == ty);
        // mul.wide -> mul.lo.s32, add.s64 -> add.s32, shl.b64 -> shl.b32, cvt.u64.u16 ->
        // cvt.u32.u16, mov.u64 buf -> mov.b32 (shared offset 0)
        assert!(k
            .instrs
            .iter()
            .any(|i| i.op == Opcode::Mul && i.mode == Mode::Lo));
        assert_eq!(
            find(Opcode::Add, Ty::S32).map(|i| i.fast),
            Some(FastOp::AddI32)
        );
        assert!(find(Opcode::Add, Ty::S64).is_none());
        assert!(find(Opcode::Shl, Ty::B32).is_some());
        assert!(find(Opcode::Cvt, Ty::U32).is_some_and(|i| i.ty2 == Ty::U16));
        assert_eq!(
            find(Opcode::Mov, Ty::B32).map(|i| i.src.clone()),
            Some(vec![XOp::Imm(0)])
        );
        // every shared address is one 32-bit register
        for i in k.instrs.iter().filter(|i| i.space == Space::Shared) {
            assert!(matches!(
                i.src[0],
                XOp::Addr {
                    base: XBase::Gpr { slots: 1, .. },
                    ..
                }
            ));
        }
    }

    #[test]
    fn narrowed_address_of_a_non_shared_symbol_is_an_error() {
        // a .global symbol's address used as a shared address: not a 32-bit window offset
        let e = load(
            "mov.u64 %rd1, gbuf;\nld.shared.u32 %r1, [%rd1];\nst.shared.u32 [%rd1], %r1;\nret;",
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(e.contains("narrowed to 32 bits"), "{e}");
    }
}
