//! Decoded instructions.
//!
//! One [`Instr`] per PTX instruction (PTX ISA §9.7). The opcode is a closed enum; its type
//! suffixes and modifiers are pre-decoded into small enums and a bit-set so that an interpreter
//! never looks at strings. Register operands are dense per-function indices ([`Reg`]), branch
//! targets are instruction indices, immediates are raw bits already converted to the
//! instruction's operand type.

use super::types::{AtomOp, BoolOp, Cmp, Mode, Round, Space, Sreg, Ty};

/// A virtual register: dense index into [`super::Function::regs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

impl Reg {
    /// The index as `usize`.
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// The closed set of PTX opcodes regwatt decodes (PTX ISA §9.7). Anything else is a parse error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    // §9.7.1 integer / §9.7.3 floating-point arithmetic
    Add,
    Sub,
    Mul,
    Mad,
    Mul24,
    Mad24,
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    Popc,
    Clz,
    Bfind,
    Fns,
    Brev,
    Bfe,
    Bfi,
    Dp4a,
    Dp2a,
    Fma,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Copysign,
    Testp,
    // §9.7.6 comparison and selection
    Set,
    Setp,
    Selp,
    Slct,
    // §9.7.7 logic and shift
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Lop3,
    Shf,
    Shl,
    Shr,
    // §9.7.8 data movement and conversion
    Mov,
    Shfl,
    Prmt,
    Ld,
    Ldu,
    St,
    Prefetch,
    Prefetchu,
    Isspacep,
    Cvta,
    Cvt,
    Cvtpack,
    // §9.7.12 parallel synchronization and communication
    Bar,
    BarWarp,
    Membar,
    Fence,
    Atom,
    Red,
    Vote,
    Match,
    Activemask,
    Redux,
    // §9.7.11 control flow
    Bra,
    Call,
    Ret,
    Exit,
    // §9.7.19 miscellaneous
    Trap,
    Brkpt,
    Nanosleep,
    Pmevent,
    // §9.7.16.2 SIMD video instructions (half-word `…2` and byte `…4` lanes). Decoded so that
    // NVRTC output using the CUDA SIMD intrinsics (`__vabsdiffu4`, `__vadd4`, …) parses; types
    // are `ty` = dtype, `ty2` = atype, `ty3` = btype (`vset*`: `ty` = atype, `ty2` = btype),
    // `.add` is [`super::Mode::VideoAdd`] (secondary accumulate; otherwise merge with `c`).
    Vadd2,
    Vsub2,
    Vavrg2,
    Vabsdiff2,
    Vmin2,
    Vmax2,
    Vset2,
    Vadd4,
    Vsub4,
    Vavrg4,
    Vabsdiff4,
    Vmin4,
    Vmax4,
    Vset4,
}

impl Opcode {
    /// Parses the base opcode (the part before the first dot).
    pub fn from_name(s: &str) -> Option<Opcode> {
        use Opcode::*;
        Some(match s {
            "add" => Add,
            "sub" => Sub,
            "mul" => Mul,
            "mad" => Mad,
            "mul24" => Mul24,
            "mad24" => Mad24,
            "sad" => Sad,
            "div" => Div,
            "rem" => Rem,
            "abs" => Abs,
            "neg" => Neg,
            "min" => Min,
            "max" => Max,
            "popc" => Popc,
            "clz" => Clz,
            "bfind" => Bfind,
            "fns" => Fns,
            "brev" => Brev,
            "bfe" => Bfe,
            "bfi" => Bfi,
            "dp4a" => Dp4a,
            "dp2a" => Dp2a,
            "fma" => Fma,
            "rcp" => Rcp,
            "sqrt" => Sqrt,
            "rsqrt" => Rsqrt,
            "sin" => Sin,
            "cos" => Cos,
            "lg2" => Lg2,
            "ex2" => Ex2,
            "tanh" => Tanh,
            "copysign" => Copysign,
            "testp" => Testp,
            "set" => Set,
            "setp" => Setp,
            "selp" => Selp,
            "slct" => Slct,
            "and" => And,
            "or" => Or,
            "xor" => Xor,
            "not" => Not,
            "cnot" => Cnot,
            "lop3" => Lop3,
            "shf" => Shf,
            "shl" => Shl,
            "shr" => Shr,
            "mov" => Mov,
            "shfl" => Shfl,
            "prmt" => Prmt,
            "ld" => Ld,
            "ldu" => Ldu,
            "st" => St,
            "prefetch" => Prefetch,
            "prefetchu" => Prefetchu,
            "isspacep" => Isspacep,
            "cvta" => Cvta,
            "cvt" => Cvt,
            "cvt.pack" => Cvtpack,
            "bar" | "barrier" => Bar,
            "membar" => Membar,
            "fence" => Fence,
            "atom" => Atom,
            "red" => Red,
            "vote" => Vote,
            "match" => Match,
            "activemask" => Activemask,
            "redux" => Redux,
            "bra" => Bra,
            "call" => Call,
            "ret" => Ret,
            "exit" => Exit,
            "trap" => Trap,
            "brkpt" => Brkpt,
            "nanosleep" => Nanosleep,
            "pmevent" => Pmevent,
            "vadd2" => Vadd2,
            "vsub2" => Vsub2,
            "vavrg2" => Vavrg2,
            "vabsdiff2" => Vabsdiff2,
            "vmin2" => Vmin2,
            "vmax2" => Vmax2,
            "vset2" => Vset2,
            "vadd4" => Vadd4,
            "vsub4" => Vsub4,
            "vavrg4" => Vavrg4,
            "vabsdiff4" => Vabsdiff4,
            "vmin4" => Vmin4,
            "vmax4" => Vmax4,
            "vset4" => Vset4,
            _ => return None,
        })
    }

    /// True if the first operand is a destination written by the instruction. False for
    /// stores, reductions, barriers, branches and other instructions without a result.
    pub fn has_dst(self) -> bool {
        use Opcode::*;
        !matches!(
            self,
            St | Red
                | Prefetch
                | Prefetchu
                | Bar
                | BarWarp
                | Membar
                | Fence
                | Bra
                | Call
                | Ret
                | Exit
                | Trap
                | Brkpt
                | Nanosleep
                | Pmevent
        )
    }

    /// True for the SIMD video instructions (PTX ISA §9.7.16.2: `vadd2` … `vset4`).
    pub fn is_simd_video(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Vadd2
                | Vsub2
                | Vavrg2
                | Vabsdiff2
                | Vmin2
                | Vmax2
                | Vset2
                | Vadd4
                | Vsub4
                | Vavrg4
                | Vabsdiff4
                | Vmin4
                | Vmax4
                | Vset4
        )
    }

    /// True if control never falls through an unpredicated instance (`bra`, `ret`, `exit`,
    /// `trap`).
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Bra | Opcode::Ret | Opcode::Exit | Opcode::Trap
        )
    }
}

/// Modifier flags of an instruction (a compact bit-set; see the associated constants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods(pub u32);

impl Mods {
    /// `.sat` clamp (§9.7.1, §9.7.3).
    pub const SAT: u32 = 1 << 0;
    /// `.ftz` flush subnormals to zero (§9.7.3).
    pub const FTZ: u32 = 1 << 1;
    /// `.approx` (§9.7.3).
    pub const APPROX: u32 = 1 << 2;
    /// `.full` (`div.full.f32`).
    pub const FULL: u32 = 1 << 3;
    /// `.uni`: branch/call/ret known non-divergent (§9.7.11).
    pub const UNI: u32 = 1 << 4;
    /// `.cc` carry-out (§9.7.2).
    pub const CC: u32 = 1 << 5;
    /// `.sync` (shfl/vote/bar.warp/match/redux).
    pub const SYNC: u32 = 1 << 6;
    /// `.aligned` (bar).
    pub const ALIGNED: u32 = 1 << 7;
    /// `.volatile` memory operation (§8).
    pub const VOLATILE: u32 = 1 << 8;
    /// `.relaxed` / `.acquire` / `.release` / `.acq_rel` / `.sc` memory order present.
    pub const ORDERED: u32 = 1 << 9;
    /// `.nc` non-coherent load (`ld.global.nc`).
    pub const NC: u32 = 1 << 10;
    /// `.wrap` (shf) — otherwise `.clamp`.
    pub const WRAP: u32 = 1 << 11;
    /// `.clamp` (shf).
    pub const CLAMP: u32 = 1 << 12;
    /// `.shiftamt` (bfind).
    pub const SHIFTAMT: u32 = 1 << 13;
    /// `.noftz` (f16 arithmetic).
    pub const NOFTZ: u32 = 1 << 14;
    /// `.relu` (f16/bf16 min/max, cvt).
    pub const RELU: u32 = 1 << 15;
    /// `.nan` (min/max propagate NaN).
    pub const NAN: u32 = 1 << 16;
    /// `.abs` (`min.abs`, `setp` on f16 variants never use it; reserved).
    pub const ABS: u32 = 1 << 17;
    /// `.satfinite` (cvt).
    pub const SATFINITE: u32 = 1 << 18;
    /// `.ci`/`.cc` carry-in of `addc`/`subc` (decoded from `addc`).
    pub const CARRY_IN: u32 = 1 << 19;
    /// `.unified` (ld/st).
    pub const UNIFIED: u32 = 1 << 20;
    /// Preceded by `.pragma "nounroll";` (PTX ISA §11.6.1): the loop whose body starts here
    /// must not be unrolled by ptxas (`analysis::schedule`).
    pub const NOUNROLL: u32 = 1 << 21;
    /// `.cv` cache operator (`ld.cv`, PTX ISA §9.7.9.1): "don't cache and fetch again",
    /// the load must see the latest value in memory.
    pub const CV: u32 = 1 << 22;

    /// True if `flag` is set.
    #[inline]
    pub fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }
}

/// An instruction's guard predicate `@p` / `@!p` (PTX ISA §9.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub reg: Reg,
    /// True for `@!p`.
    pub neg: bool,
}

/// What a memory address or a symbol operand refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// Module-scope variable: index into [`super::Module::globals`].
    Global(u32),
    /// Function-scope variable (`.local`, `.shared`, call-sequence `.param`):
    /// index into [`super::Function::vars`].
    Local(u32),
    /// The function's own parameter: index into [`super::Function::params`].
    Param(u32),
    /// The function's return parameter: index into [`super::Function::rets`].
    Ret(u32),
    /// Address of a function (`mov.u64 %rd, func;`): index into [`super::Module::functions`].
    Func(u32),
}

/// Base of a memory address `[base+offset]` (PTX ISA §6.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    Reg(Reg),
    Sym(Sym),
    /// `[imm]`: an absolute address, the offset is the address.
    Abs,
}

/// A memory address operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub base: AddrBase,
    pub offset: i64,
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// Immediate, raw bits of the operand's type (integers sign- or zero-extended to 64 bits;
    /// `f32` values as `f32::to_bits` in the low 32 bits; `f64` as `f64::to_bits`).
    Imm(u64),
    Special(Sreg),
    /// `{a, b, c, d}`; elements are `Reg`, `Imm` or `Sink`.
    Vec(Vec<Operand>),
    Addr(Addr),
    /// Address of a symbol used as a value (`mov.u64 %rd, sym;` or `sym+8`), byte offset added.
    Sym(Sym, i64),
    /// Branch target: instruction index.
    Label(u32),
    /// `_`: result discarded.
    Sink,
    /// `!p`: a negated predicate source (`setp.eq.and.s32 p, a, b, !q`, PTX ISA §9.7.6.1).
    NegPred(Reg),
}

impl Operand {
    /// The symbol the operand names: `sym` or `sym+8` used as a value, or the base of an
    /// address (`[sym+4]`). None for every other operand, register-based addresses included.
    pub fn symbol(&self) -> Option<Sym> {
        match self {
            Operand::Sym(s, _) => Some(*s),
            Operand::Addr(a) => match a.base {
                AddrBase::Sym(s) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Target of a `call` (PTX ISA §9.7.11.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// Index into [`super::Module::functions`].
    Direct(u32),
    /// Function pointer in a register (indirect call through a `.callprototype`).
    Indirect(Reg),
}

/// The operand lists of a `call`.
#[derive(Clone, Debug, PartialEq)]
pub struct CallInfo {
    pub target: CallTarget,
    /// Where the callee's return parameters are copied to (usually `.param` variables of the
    /// call sequence: `Operand::Sym(Sym::Local(..), 0)`).
    pub rets: Vec<Operand>,
    /// Arguments, in callee parameter order (usually call-sequence `.param` variables).
    pub args: Vec<Operand>,
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub op: Opcode,
    /// Main type suffix (the *destination* type of `cvt`, `set`, the data type of `ld`/`st`).
    pub ty: Ty,
    /// Second type suffix: source type of `cvt`/`set`/`slct`/`cvt.pack`, source type of
    /// `mul.wide` is `ty` itself (the destination is twice as wide).
    pub ty2: Ty,
    /// Third type suffix: `btype` of the SIMD video instructions (`vabsdiff4.u32.u32.u32`);
    /// `Ty::None` for every other instruction.
    pub ty3: Ty,
    pub rnd: Round,
    pub cmp: Cmp,
    pub bool_op: BoolOp,
    pub atom: AtomOp,
    pub mode: Mode,
    pub space: Space,
    /// Vector width of `ld`/`st`/`mov` (`.v2`/`.v4`): 1, 2, 4 or 8.
    pub vec: u8,
    pub mods: Mods,
    pub guard: Option<Guard>,
    /// Destination operands (`setp p|q`, `shfl d|p` have two). Empty if `!op.has_dst()`.
    pub dst: Vec<Operand>,
    /// Source operands in PTX order (for `st`: the address first, then the value).
    pub src: Vec<Operand>,
    /// Present for `call` only.
    pub call: Option<Box<CallInfo>>,
    /// 1-based source line, for diagnostics.
    pub line: u32,
}

impl Instr {
    /// A blank instruction of opcode `op` (all modifiers absent).
    pub fn new(op: Opcode) -> Instr {
        Instr {
            op,
            ty: Ty::None,
            ty2: Ty::None,
            ty3: Ty::None,
            rnd: Round::None,
            cmp: Cmp::None,
            bool_op: BoolOp::None,
            atom: AtomOp::None,
            mode: Mode::None,
            space: Space::Generic,
            vec: 1,
            mods: Mods(0),
            guard: None,
            dst: Vec::new(),
            src: Vec::new(),
            call: None,
            line: 0,
        }
    }

    /// Registers read (guard, sources, address bases, vector elements, indirect call target),
    /// in operand order. Duplicates are kept.
    pub fn reads(&self) -> Vec<Reg> {
        let mut v = Vec::with_capacity(4);
        self.for_each_read(|r| v.push(r));
        v
    }

    /// Calls `f` for every register read, in the order of [`Instr::reads`].
    pub fn for_each_read(&self, mut f: impl FnMut(Reg)) {
        if let Some(g) = self.guard {
            f(g.reg);
        }
        for o in &self.src {
            operand_regs(o, &mut f);
        }
        // a vector destination of `ld` is written, but an address in a dst never occurs
        if let Some(c) = &self.call {
            if let CallTarget::Indirect(r) = c.target {
                f(r);
            }
            for o in c.args.iter() {
                operand_regs(o, &mut f);
            }
        }
    }

    /// Registers written (destination registers and vector destination elements).
    pub fn writes(&self) -> Vec<Reg> {
        let mut v = Vec::with_capacity(2);
        self.for_each_write(|r| v.push(r));
        v
    }

    /// Calls `f` for every register written.
    pub fn for_each_write(&self, mut f: impl FnMut(Reg)) {
        for o in &self.dst {
            operand_regs(o, &mut f);
        }
        if let Some(c) = &self.call {
            for o in &c.rets {
                if let Operand::Reg(r) = o {
                    f(*r);
                }
            }
        }
    }

    /// True if the instruction is a (possibly predicated) branch.
    #[inline]
    pub fn is_branch(&self) -> bool {
        self.op == Opcode::Bra
    }

    /// Branch target (instruction index) of a `bra`.
    pub fn branch_target(&self) -> Option<u32> {
        if self.op != Opcode::Bra {
            return None;
        }
        match self.src.first() {
            Some(Operand::Label(t)) => Some(*t),
            _ => None,
        }
    }

    /// True if this instruction may split a warp: a guarded branch or exit without `.uni`.
    pub fn may_diverge(&self) -> bool {
        self.guard.is_some()
            && matches!(self.op, Opcode::Bra | Opcode::Ret | Opcode::Exit)
            && !self.mods.has(Mods::UNI)
    }
}

fn operand_regs(o: &Operand, f: &mut impl FnMut(Reg)) {
    match o {
        Operand::Reg(r) | Operand::NegPred(r) => f(*r),
        Operand::Vec(v) => {
            for e in v {
                operand_regs(e, f);
            }
        }
        Operand::Addr(Addr {
            base: AddrBase::Reg(r),
            ..
        }) => f(*r),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes() {
        let mut i = Instr::new(Opcode::St);
        i.guard = Some(Guard {
            reg: Reg(9),
            neg: true,
        });
        i.src = vec![
            Operand::Addr(Addr {
                base: AddrBase::Reg(Reg(1)),
                offset: 4,
            }),
            Operand::Vec(vec![Operand::Reg(Reg(2)), Operand::Sink, Operand::Imm(0)]),
        ];
        assert_eq!(i.reads(), vec![Reg(9), Reg(1), Reg(2)]);
        assert!(i.writes().is_empty());
        assert!(!Opcode::St.has_dst() && Opcode::Ld.has_dst());
        assert_eq!(Opcode::from_name("mad"), Some(Opcode::Mad));
        assert_eq!(Opcode::from_name("madd"), None);
    }
}
