//! PTX checker: the rules ptxas enforces, applied to the instruction forms regwatt accepts.
//!
//! The parser ([`super::parser`]) decodes what it can read; this module rejects what ptxas
//! would reject although it reads, so that invalid PTX never runs and gives numbers.
//! It runs on the module as written (before `.func` calls are inlined and before anything is
//! lowered), from [`super::parse`], so every path that loads PTX (`regwatt ptx`, `exec`, `run`,
//! `report`, the workloads) is checked. Each violation is a [`PtxError::Check`] naming the
//! file, line, column, the instruction as written and the [`Rule`] broken.
//!
//! The rules, with their sections in the PTX ISA (version 8.x numbering):
//! * [`Rule::Version`], [`Rule::Target`]: §11.1.1 `.version` and §11.1.2 `.target` must open
//!   the module, in that order; the version must be one regwatt knows (≤ 8.8, the ISA of CUDA
//!   12.9's ptxas) and new enough for the target (the "PTX ISA Notes" of §11.1.2).
//! * [`Rule::TargetFeature`]: an instruction needs a minimum target ("Target ISA Notes" of each
//!   instruction in §9.7): `.target sm_10` is too old for `cvta.to`, `fma.f32`, atomics, ...;
//!   `ld.global.v8` and 256-bit vectors need sm_100.
//! * [`Rule::OperandCount`]: the operand list of each instruction form (the "Syntax" of each
//!   instruction in §9.7).
//! * [`Rule::InstrType`], [`Rule::Modifier`]: the type suffixes and required modifiers of each
//!   form (`.type = { ... }` lists of §9.7; e.g. `mul.lo` for integers, a rounding modifier or
//!   `.approx` for `div.f32`, `cvt` rounding per §9.7.9.21 / §6.5.2).
//! * [`Rule::OperandType`]: each operand's declared type must be compatible with the type the
//!   instruction gives it: §6.1 "Operand Type Information" (a bit-size type is compatible with
//!   every type of the same size; integer types of one size are compatible with each other;
//!   nothing else converts), relaxed for `ld`, `st` and `cvt` by §9.4.1 "Operand Size Exceeding
//!   Instruction-Type Size" (registers wider than the instruction type; floating-point
//!   instruction types still need a same-size float or a bit-size register).
//! * [`Rule::Predicate`]: `.pred` registers only where the form takes a predicate (§9.3
//!   "Predicated Execution": `setp` destinations, `selp`/`setp`/`set` `c`, `vote`, `bar.red`,
//!   logic on `.pred`), and never as data; `!p` only for predicate sources.
//! * [`Rule::Immediate`]: §4.5 constants: integer constants are not floating-point operands
//!   and floating-point constants are not integer operands (a bit-size operand takes a
//!   floating-point constant of its own size).
//! * [`Rule::SpecialRegister`]: §10 special registers are read by `mov` and `cvt` only, with
//!   their declared types (`%tid.x` is `.u32`, `%clock64` `.u64`).
//! * [`Rule::Address`]: §6.4.1 "Addresses as Operands": `[...]` only where the form takes an
//!   address (`ld`, `st`, `atom`, `red`, `prefetch`), with an integer or bit-size base register
//!   as wide as a generic/global address; immediate addresses only in `.local`.
//! * [`Rule::Vector`]: §6.4.3 "Vectors as Operands" and §9.7.9.8 `ld`: `.v2`/`.v4` (`.v8` only
//!   for 32-bit types) on `ld`/`ldu`/`st` only, with as many elements as the width.
//! * [`Rule::Barrier`]: §9.7.13.1 `bar`/`barrier`: barrier numbers 0..15, thread counts that
//!   are multiples of the warp size (32), `bar.arrive` with a non-zero count.
//! * [`Rule::NoKernel`]: a module with no `.entry` where a kernel is asked for
//!   ([`require_kernel`]).
//!
//! How closely this follows ptxas is measured by `scripts/ptx_check_vs_ptxas.py` (see the
//! "PTX checker" section of `sim/README.md`).
//!
//! Files: this one holds the public API (the source map types, [`Rule`], [`check_module`],
//! [`check_all`], [`require_kernel`]) and the per-instruction driver with the vocabulary of
//! instruction forms (operand slots, signatures, violations); `signature.rs` the table of
//! instruction forms (operand slots, type suffixes and required modifiers per opcode);
//! `operands.rs` the checks of each operand against its slot (types, predicates, constants,
//! special registers, addresses, vectors, barrier operands); `modifiers.rs` comparison
//! operators, rounding, vector widths, state spaces and modifiers; `target.rs` the module
//! header (`.version`, `.target`) and the targets instructions need; `types.rs` operand type
//! compatibility.

use std::fmt;

use super::error::{Pos, PtxError};
use crate::ir::{Function, Instr, Module, Opcode, Space, Ty};

mod modifiers;
mod operands;
mod signature;
mod target;
mod types;

pub use self::target::MAX_VERSION;
pub use self::types::{compatible, compatible_relaxed, literal_fits};

use self::modifiers::{check_modifiers, check_space};
use self::operands::{check_barrier, check_operands};
use self::signature::signature;
use self::target::{check_feature, check_header, target_sm};

/// Where the module directives and each instruction are in the source, recorded by the parser
/// for the checker's messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceMap {
    /// Module-level directives and keywords in order (`.version`, `.target`, `.entry`, ...).
    pub directives: Vec<(String, Pos)>,
    /// The `.version` operand as written (`8.8`).
    pub version_text: String,
    /// Position of each `.target` entry.
    pub target_pos: Vec<Pos>,
    /// Per function (index of [`Module::functions`]): one entry per instruction.
    pub functions: Vec<Vec<InstrSrc>>,
    /// `.pragma "..."` strings with their positions.
    pub pragmas: Vec<(String, Pos)>,
    /// The first `.loc` with `inlined_at` (§11.5.2: PTX ISA 7.0).
    pub loc_inlined: Option<Pos>,
}

/// Where one instruction is in the source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstrSrc {
    /// Start of the statement (the guard, or the opcode).
    pub pos: Pos,
    /// The opcode.
    pub op_pos: Pos,
    /// The statement as written, whitespace collapsed.
    pub text: String,
    /// The operands in source order (destinations, the `|` operand, sources).
    pub operands: Vec<OperandSrc>,
    /// The first destination was followed by `| q`.
    pub pipe: bool,
    /// Not in the source (the `ret` appended at the end of a body).
    pub synthetic: bool,
}

/// Where one operand is in the source and what kinds of constants it contains.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OperandSrc {
    pub pos: Pos,
    /// The numeric constants in the operand, in order (one for a scalar, one per constant
    /// element of a vector).
    pub lits: Vec<Lit>,
}

/// How a constant was written (PTX ISA §4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lit {
    /// An integer constant (§4.5.1).
    Int,
    /// `0f` + 8 hex digits: single precision (§4.5.2).
    F32,
    /// `0d` + 16 hex digits, or a decimal floating-point constant: double precision (§4.5.2).
    F64,
}

/// The rules of the checker (see the module documentation for each rule's section).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    Version,
    Target,
    TargetFeature,
    OperandCount,
    InstrType,
    Modifier,
    OperandType,
    Predicate,
    Immediate,
    SpecialRegister,
    Address,
    Vector,
    Barrier,
    NoKernel,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 14] = [
        Rule::Version,
        Rule::Target,
        Rule::TargetFeature,
        Rule::OperandCount,
        Rule::InstrType,
        Rule::Modifier,
        Rule::OperandType,
        Rule::Predicate,
        Rule::Immediate,
        Rule::SpecialRegister,
        Rule::Address,
        Rule::Vector,
        Rule::Barrier,
        Rule::NoKernel,
    ];

    /// A short kebab-case name (stable: scripts and tests match on it).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Version => "version",
            Rule::Target => "target",
            Rule::TargetFeature => "target-feature",
            Rule::OperandCount => "operand-count",
            Rule::InstrType => "instruction-type",
            Rule::Modifier => "modifier",
            Rule::OperandType => "operand-type",
            Rule::Predicate => "predicate",
            Rule::Immediate => "immediate",
            Rule::SpecialRegister => "special-register",
            Rule::Address => "address",
            Rule::Vector => "vector",
            Rule::Barrier => "barrier",
            Rule::NoKernel => "no-kernel",
        }
    }

    /// The PTX ISA section(s) the rule comes from.
    pub fn section(self) -> &'static str {
        match self {
            Rule::Version => "§11.1.1",
            Rule::Target => "§11.1.2",
            Rule::TargetFeature => "§11.1.2, Target ISA notes of §9.7",
            Rule::OperandCount => "§9.7 instruction syntax",
            Rule::InstrType => "§9.7 instruction types",
            Rule::Modifier => "§9.7, §6.5.2",
            Rule::OperandType => "§6.1, §9.4.1",
            Rule::Predicate => "§9.3",
            Rule::Immediate => "§4.5, §6.1",
            Rule::SpecialRegister => "§10",
            Rule::Address => "§6.4.1",
            Rule::Vector => "§6.4.3, §9.7.9.8",
            Rule::Barrier => "§9.7.13.1",
            Rule::NoKernel => "§11.2.1",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (PTX ISA {})", self.name(), self.section())
    }
}

/// Checks `module` (parsed from `file`, positions in `map`); the first violation, if any.
pub fn check_module(file: &str, module: &Module, map: &SourceMap) -> Result<(), PtxError> {
    match check_all(file, module, map).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Every violation in `module`: the module directives' first, then at most one per instruction
/// in source order.
pub fn check_all(file: &str, module: &Module, map: &SourceMap) -> Vec<PtxError> {
    let mut out = Vec::new();
    let header = check_header(module, map);
    let header_ok = header.is_empty();
    for v in header {
        out.push(v.into_error(file));
    }
    let target = if header_ok { target_sm(module) } else { None };
    let ctx = Ctx {
        sm: target,
        version: module.version,
        address_size: module.address_size,
        globals: module.globals.iter().map(|g| g.space).collect(),
    };
    for (fi, f) in module.functions.iter().enumerate() {
        let srcs = map.functions.get(fi).map(Vec::as_slice).unwrap_or(&[]);
        for (ii, ins) in f.instrs.iter().enumerate() {
            let src = srcs.get(ii);
            if src.is_some_and(|s| s.synthetic) {
                continue;
            }
            if let Err(v) = check_instr(&ctx, f, ins, src) {
                out.push(v.into_error(file));
            }
        }
    }
    out
}

/// A module in which a kernel is asked for (`regwatt ptx`, `exec`, `run`) must define one
/// (PTX ISA §11.2.1 `.entry`); the error points at the end of the file.
pub fn require_kernel(file: &str, module: &Module, src: &str) -> Result<(), PtxError> {
    if module.functions.iter().any(|f| f.is_kernel && f.defined) {
        return Ok(());
    }
    let line = src.lines().count().max(1);
    Err(PtxError::Check {
        file: file.to_string(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        col: 1,
        instr: "<end of file>".into(),
        rule: Rule::NoKernel,
        msg: "the file defines no kernel (no `.entry` function with a body)".into(),
    })
}

/// A violation before it gets its file name.
struct Violation {
    pos: Pos,
    instr: String,
    rule: Rule,
    msg: String,
}

impl Violation {
    fn into_error(self, file: &str) -> PtxError {
        PtxError::Check {
            file: file.to_string(),
            line: self.pos.line,
            col: self.pos.col,
            instr: self.instr,
            rule: self.rule,
            msg: self.msg,
        }
    }
}

/// What the checker knows of the module around an instruction.
struct Ctx {
    /// The `.target` SM number (None when the header is invalid: no feature checks then).
    sm: Option<u32>,
    version: (u32, u32),
    address_size: u32,
    /// State space of each module-scope variable (for `[var]` addresses).
    globals: Vec<Space>,
}

/// What an operand position takes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// A register or constant of a type compatible with `ty` (§6.1).
    Val(Ty),
    /// A register (no constant) of a type compatible with `ty` (§6.1).
    Reg(Ty),
    /// A constant only (`lop3`'s `immLut`, `pmevent`).
    Imm(Ty),
    /// A data operand of `ld`/`st`/`cvt` under the relaxed rules of §9.4.1; for `ld`/`st` a
    /// vector of `Instr::vec` elements when `vec > 1`.
    Wide(Ty),
    /// A predicate destination (§9.3).
    PredDst,
    /// A predicate source: a `.pred` register, `!p`, or an integer constant (§9.3, §9.7.6.1).
    PredSrc,
    /// A memory address `[...]` (§6.4.1).
    Addr,
    /// A branch target (§6.4.4).
    Label,
    /// `mov`'s operands (§9.7.9.1): as `Val`, or a special register, a symbol's address, or a
    /// vector packing/unpacking a bit-size value.
    Mov(Ty),
    /// `cvta`'s source (§9.7.9.20): a register or constant of `ty`, or (the `cvta.SPACE` form)
    /// a variable.
    CvtaSrc(Ty),
    /// An integer or bit-size register of 32 or 64 bits holding an address (`isspacep`).
    AddrReg,
}

/// The operand slots of one instruction form.
struct Sig {
    dst: Vec<Slot>,
    src: Vec<Slot>,
    /// The form allows `d|p` (a second, predicate destination after `|`).
    pipe: bool,
}

/// A violation of one instruction before its position is known: the operand index (in
/// destination-then-source order) it is about, if any.
struct Bad {
    rule: Rule,
    operand: Option<usize>,
    msg: String,
}

fn bad(rule: Rule, msg: impl Into<String>) -> Bad {
    Bad {
        rule,
        operand: None,
        msg: msg.into(),
    }
}

fn bad_at(rule: Rule, operand: usize, msg: impl Into<String>) -> Bad {
    Bad {
        rule,
        operand: Some(operand),
        msg: msg.into(),
    }
}

/// The instruction's opcode as written (without operands), for messages.
fn opname(src: Option<&InstrSrc>, ins: &Instr) -> String {
    src.and_then(|s| {
        let t = s.text.trim_start();
        let t = if t.starts_with('@') {
            t.split_whitespace().nth(1)
        } else {
            t.split_whitespace().next()
        };
        t.map(str::to_string)
    })
    .unwrap_or_else(|| format!("{:?}", ins.op).to_lowercase())
}

fn check_instr(
    ctx: &Ctx,
    f: &Function,
    ins: &Instr,
    src: Option<&InstrSrc>,
) -> Result<(), Violation> {
    let name = opname(src, ins);
    let run = || -> Result<(), Bad> {
        if ins.op == Opcode::Call {
            return Ok(());
        }
        let s = signature(ins, &name, ctx.sm)?;
        check_modifiers(ins, &name)?;
        check_space(ins, &name)?;
        check_pipe(ins, src, &s, &name)?;
        check_operands(ctx, f, ins, src, &s, &name)?;
        check_barrier(ins, &name)?;
        check_feature(ctx, ins, &name)
    };
    run().map_err(|b| {
        let pos = match (src, b.operand) {
            (Some(s), Some(k)) => s.operands.get(k).map(|o| o.pos).unwrap_or(s.op_pos),
            (Some(s), None) => s.op_pos,
            (None, _) => Pos {
                line: ins.line,
                col: 1,
            },
        };
        Violation {
            pos,
            instr: src.map(|s| s.text.clone()).unwrap_or(name.clone()),
            rule: b.rule,
            msg: b.msg,
        }
    })
}

/// `d|p`: the parser puts the `|` operand second among the destinations; only `setp`, `shfl`
/// and `match.all` have that form.
fn check_pipe(ins: &Instr, src: Option<&InstrSrc>, s: &Sig, name: &str) -> Result<(), Bad> {
    let used = src.is_some_and(|x| x.pipe);
    if used && !s.pipe {
        return Err(bad_at(
            Rule::OperandCount,
            1,
            format!("`{name}` has no `d|p` form (a second destination after `|`)"),
        ));
    }
    let _ = ins;
    Ok(())
}

#[cfg(test)]
mod tests;
