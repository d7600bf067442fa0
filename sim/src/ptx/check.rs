//! PTX checker: the rules ptxas enforces, applied to the instruction forms regwatt accepts.
//!
//! The parser ([`super::parser`]) decodes what it can read; this module rejects what ptxas
//! would reject although it reads, so that invalid PTX never runs and gives numbers (issue 35).
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

use std::fmt;

use super::error::{Pos, PtxError};
use crate::ir::{
    AddrBase, AtomOp, BoolOp, Cmp, Function, Instr, Mode, Mods, Module, Opcode, Operand, Round,
    Space, Sreg, Sym, Ty,
};

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

// ---------------------------------------------------------------------------------------------
// module directives

/// The newest PTX ISA version whose rules regwatt checks (CUDA 12.9's ptxas).
pub const MAX_VERSION: (u32, u32) = (8, 8);

/// SM numbers PTX knows (§11.1.2 `.target`, PTX ISA 8.8), with the first PTX ISA version that
/// supports each ("PTX ISA Notes" of §11.1.2).
const TARGETS: &[(u32, (u32, u32))] = &[
    (10, (1, 0)),
    (11, (1, 0)),
    (12, (1, 2)),
    (13, (1, 2)),
    (20, (2, 0)),
    (21, (2, 0)),
    (30, (3, 0)),
    (32, (4, 0)),
    (35, (3, 1)),
    (37, (4, 1)),
    (50, (4, 0)),
    (52, (4, 1)),
    (53, (4, 2)),
    (60, (5, 0)),
    (61, (5, 0)),
    (62, (5, 0)),
    (70, (6, 0)),
    (72, (6, 1)),
    (75, (6, 3)),
    (80, (7, 0)),
    (86, (7, 1)),
    (87, (7, 4)),
    (88, (9, 0)),
    (89, (7, 8)),
    (90, (7, 8)),
    (100, (8, 6)),
    (101, (8, 6)),
    (103, (8, 8)),
    (110, (9, 0)),
    (120, (8, 7)),
    (121, (8, 8)),
];

/// `sm_NN` / `compute_NN` (with an optional `a`/`f` suffix) → (NN, the entry of [`TARGETS`]).
fn parse_target(t: &str) -> Option<(u32, (u32, u32))> {
    let n = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))?;
    let n = n.strip_suffix(['a', 'f']).unwrap_or(n);
    let n: u32 = n.parse().ok()?;
    TARGETS.iter().copied().find(|&(sm, _)| sm == n)
}

/// The module's SM number, if its `.target` is known.
fn target_sm(module: &Module) -> Option<u32> {
    module
        .target
        .first()
        .and_then(|t| parse_target(t))
        .map(|(sm, _)| sm)
}

fn check_header(module: &Module, map: &SourceMap) -> Vec<Violation> {
    let mut out = Vec::new();
    let first = map.directives.first();
    let start = Pos { line: 1, col: 1 };
    let v = |pos: Pos, instr: &str, rule: Rule, msg: String| Violation {
        pos,
        instr: instr.to_string(),
        rule,
        msg,
    };
    match first {
        None => {
            out.push(v(
                start,
                "<empty module>",
                Rule::Version,
                "missing `.version` directive: the module is empty".into(),
            ));
            return out;
        }
        Some((d, pos)) if d != ".version" => {
            out.push(v(
                *pos,
                d,
                Rule::Version,
                format!("missing `.version` directive at the start of the module (found `{d}`)"),
            ));
            return out;
        }
        _ => {}
    }
    let versions = map
        .directives
        .iter()
        .filter(|(d, _)| d == ".version")
        .count();
    let vpos = first.map(|d| d.1).unwrap_or(start);
    let vtext = format!(".version {}", map.version_text);
    if versions > 1 {
        if let Some((_, p)) = map
            .directives
            .iter()
            .filter(|(d, _)| d == ".version")
            .nth(1)
        {
            out.push(v(
                *p,
                ".version",
                Rule::Version,
                "a second `.version` directive (one per module)".into(),
            ));
        }
    }
    let (maj, min) = module.version;
    if maj == 0 || (maj, min) > MAX_VERSION {
        out.push(v(
            vpos,
            &vtext,
            Rule::Version,
            format!(
                "unsupported PTX ISA version {maj}.{min} (regwatt checks versions 1.0 to {}.{})",
                MAX_VERSION.0, MAX_VERSION.1
            ),
        ));
    }
    match map.directives.get(1) {
        Some((d, _)) if d == ".target" => {}
        Some((d, pos)) => {
            out.push(v(
                *pos,
                d,
                Rule::Target,
                format!("missing `.target` directive after `.version` (found `{d}`)"),
            ));
            return out;
        }
        None => {
            out.push(v(
                vpos,
                &vtext,
                Rule::Target,
                "missing `.target` directive after `.version`".into(),
            ));
            return out;
        }
    }
    let tpos = map.target_pos.first().copied().unwrap_or(vpos);
    let ttext = format!(".target {}", module.target.join(", "));
    match module.target.first().map(|t| (t, parse_target(t))) {
        Some((_, Some((sm, need)))) => {
            if module.version < need {
                out.push(v(
                    tpos,
                    &ttext,
                    Rule::Target,
                    format!(
                        "PTX ISA .version {maj}.{min} does not support .target sm_{sm} (needs {}.{})",
                        need.0, need.1
                    ),
                ));
            }
        }
        Some((t, None)) => out.push(v(
            tpos,
            &ttext,
            Rule::Target,
            format!("unknown target `{t}` (expected sm_NN or compute_NN of PTX ISA 8.8)"),
        )),
        None => out.push(v(tpos, &ttext, Rule::Target, "empty `.target`".into())),
    }
    // `.pragma "used_bytes_mask ..."` (§11.6.2): PTX ISA 8.3, sm_50
    if let Some((text, p)) = map
        .pragmas
        .iter()
        .find(|(t, _)| t.starts_with("used_bytes_mask"))
    {
        let sm = target_sm(module).unwrap_or(u32::MAX);
        if module.version < (8, 3) || sm < 50 {
            out.push(v(
                *p,
                &format!(".pragma \"{text}\""),
                Rule::TargetFeature,
                "`.pragma \"used_bytes_mask\"` requires PTX ISA .version 8.3 and .target sm_50 or later"
                    .into(),
            ));
        }
    }
    if let Some(p) = map.loc_inlined {
        if module.version < (7, 0) {
            out.push(v(
                p,
                ".loc ... inlined_at",
                Rule::TargetFeature,
                "`.loc` with `inlined_at` requires PTX ISA .version 7.0 or later".into(),
            ));
        }
    }
    for (t, p) in module.target.iter().zip(&map.target_pos).skip(1) {
        let known = matches!(
            t.as_str(),
            "texmode_unified" | "texmode_independent" | "map_f64_to_f32" | "debug"
        );
        if !known {
            out.push(v(
                *p,
                &ttext,
                Rule::Target,
                format!("unknown `.target` option `{t}`"),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// instructions

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

fn sig(dst: &[Slot], src: &[Slot]) -> Sig {
    Sig {
        dst: dst.to_vec(),
        src: src.to_vec(),
        pipe: false,
    }
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

// ---------- types ----------

fn is_bit(t: Ty) -> bool {
    matches!(t, Ty::B8 | Ty::B16 | Ty::B32 | Ty::B64 | Ty::B128)
}

fn is_int(t: Ty) -> bool {
    matches!(
        t,
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 | Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64
    )
}

fn is_uint(t: Ty) -> bool {
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
fn sreg_ty(s: Sreg) -> Ty {
    match s {
        Sreg::Clock64 | Sreg::GlobalTimer | Sreg::GridId => Ty::U64,
        _ => Ty::U32,
    }
}

fn tyname(t: Ty) -> String {
    match t {
        Ty::None => "untyped".into(),
        t => format!(".{}", format!("{t:?}").to_lowercase()),
    }
}

// ---------- forms ----------

use Slot::{Addr, Label, Mov, PredDst, PredSrc, Reg as R, Val as V, Wide as W};

const INTS: &[Ty] = &[Ty::U16, Ty::U32, Ty::U64, Ty::S16, Ty::S32, Ty::S64];
const FLOATS: &[Ty] = &[Ty::F16, Ty::F16x2, Ty::BF16, Ty::BF16x2, Ty::F32, Ty::F64];
const BITS: &[Ty] = &[Ty::B16, Ty::B32, Ty::B64];
/// Types of `ld`/`st` (§9.7.9.8-9: `.b8 .. .f64`; `.f16` is read with `.b16`).
const LDST: &[Ty] = &[
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
const DATA: &[Ty] = &[
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
const CVT: &[Ty] = &[
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

fn one_of(ty: Ty, set: &[&[Ty]], name: &str) -> Result<(), Bad> {
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

fn no_type(ins: &Instr, name: &str) -> Result<(), Bad> {
    if ins.ty != Ty::None {
        return Err(bad(
            Rule::InstrType,
            format!("`{name}` takes no type suffix ({} given)", tyname(ins.ty)),
        ));
    }
    Ok(())
}

/// The IEEE rounding modifiers `.rn .rz .rm .rp` (§9.7.3).
fn ieee_rnd(r: Round) -> bool {
    matches!(r, Round::Rn | Round::Rz | Round::Rm | Round::Rp)
}

/// The integer rounding modifiers `.rni .rzi .rmi .rpi` (§6.5.2).
fn int_rnd(r: Round) -> bool {
    matches!(r, Round::Rni | Round::Rzi | Round::Rmi | Round::Rpi)
}

fn need(cond: bool, rule: Rule, msg: impl FnOnce() -> String) -> Result<(), Bad> {
    if cond {
        Ok(())
    } else {
        Err(bad(rule, msg()))
    }
}

/// Integer instructions take no rounding modifier; floating-point ones only `.rn .rz .rm .rp`
/// (§9.7.1, §9.7.3).
fn arith_rnd(ins: &Instr, name: &str) -> Result<(), Bad> {
    let ok = match ins.rnd {
        Round::None => true,
        r => ins.ty.is_float() && ieee_rnd(r),
    };
    need(ok, Rule::Modifier, || {
        format!("illegal rounding modifier for `{name}`")
    })
}

/// The operand slots of `ins`, after checking its type suffixes and modifiers.
fn signature(ins: &Instr, name: &str, sm: Option<u32>) -> Result<Sig, Bad> {
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

/// Comparison operators by type (§9.7.6.1, Tables "Operators for Signed Integer, Unsigned
/// Integer, and Bit-Size Types" and "Floating-Point Comparison Operators").
fn check_cmp(t: Ty, c: Cmp, name: &str) -> Result<(), Bad> {
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
fn check_cvt_rounding(ins: &Instr, name: &str) -> Result<(), Bad> {
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
fn check_vec(ins: &Instr, name: &str) -> Result<(), Bad> {
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

/// `bar{.cta}.sync a{, b}`, `bar{.cta}.arrive a, b`, `bar{.cta}.red.popc.u32 d, a{, b}, {!}c`,
/// `bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c` (§9.7.13.1).
fn bar_signature(ins: &Instr, name: &str) -> Result<Sig, Bad> {
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

/// Barrier numbers 0..15 and thread counts that are multiples of the warp size (§9.7.13.1:
/// "Operand b specifies the number of threads participating in the barrier ... must be a
/// multiple of the warp size"; "a ... barrier resource number, 0..15"); `bar.arrive` needs a
/// non-zero count.
fn check_barrier(ins: &Instr, name: &str) -> Result<(), Bad> {
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

// ---------- operands ----------

fn check_operands(
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

fn spacename(s: Space) -> String {
    format!(".{:?}", s).to_lowercase()
}

/// State spaces per instruction (§9.7.9.9 `st`: not `.const`; §9.7.13.5 `atom` / §9.7.13.6
/// `red`: `.global`, `.shared` or generic; §9.7.9.15 `prefetch`: `.global`, `.local` or generic;
/// §9.7.9.8 `ld.global.nc`: `.global` only).
fn check_space(ins: &Instr, name: &str) -> Result<(), Bad> {
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
fn check_modifiers(ins: &Instr, name: &str) -> Result<(), Bad> {
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

// ---------- target features ----------

/// The oldest target that has what `ins` uses ("Target ISA notes" of each instruction in
/// §9.7, as ptxas 12.9 enforces them), with a name for the message.
fn min_sm(ins: &Instr) -> Option<(u32, String)> {
    use Opcode::*;
    let t = ins.ty;
    let half = (matches!(t, Ty::F16 | Ty::F16x2) || matches!(ins.ty2, Ty::F16 | Ty::F16x2))
        && !matches!(ins.op, Ld | St | Cvt | Mov);
    let bf = (matches!(t, Ty::BF16 | Ty::BF16x2) || matches!(ins.ty2, Ty::BF16 | Ty::BF16x2))
        && !matches!(ins.op, Ld | St | Cvt | Mov);
    let op = format!("{:?}", ins.op).to_lowercase();
    // half and bfloat16 arithmetic (§9.7.4, §9.7.5): sm_53 / sm_80 (sm_90 for the bf16
    // add/sub/mul and f16 min/max on sm_80), on top of what the instruction needs
    let types = if bf {
        Some(match ins.op {
            Add | Sub | Mul => (90, format!("{op}.bf16")),
            _ => (80, format!("{op}.bf16")),
        })
    } else if half {
        Some(match ins.op {
            Min | Max => (80, format!("{op}.f16")),
            _ => (53, format!("{op}.f16")),
        })
    } else {
        None
    };
    let r = match ins.op {
        Ld | Ldu | St if u32::from(ins.vec) * ins.ty.size() == 32 => {
            (100, "256-bit wide load/store".to_string())
        }
        Ld if ins.mods.has(Mods::NC) => (32, "ld.global.nc".into()),
        Cvta => (20, "cvta".into()),
        Atom | Red => {
            let m = match (ins.atom, t) {
                (AtomOp::Add, Ty::F64) => 60,
                (AtomOp::Cas, Ty::B16) => 70,
                (AtomOp::Add, Ty::F32) => 20,
                (AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor, _)
                    if t.size() == 8 =>
                {
                    32
                }
                _ if t.size() == 8 && ins.space == Space::Shared => 20,
                _ if t.size() == 8 => 12,
                _ if ins.space == Space::Shared => 12,
                _ => 11,
            };
            (
                m,
                format!("{op}.{:?}.{}", ins.atom, tyname(t)).to_lowercase(),
            )
        }
        Fma if t == Ty::F32 => (20, "fma.f32".into()),
        Div | Rcp | Sqrt if t == Ty::F32 && ieee_rnd(ins.rnd) => (20, format!("{op}.rnd.f32")),
        Shfl if ins.mods.has(Mods::SYNC) => (30, "shfl.sync".into()),
        Shfl => (30, "shfl".into()),
        Vote if ins.mods.has(Mods::SYNC) => (30, "vote.sync".into()),
        Vote if ins.mode == Mode::VoteBallot => (20, "vote.ballot".into()),
        Vote => (12, "vote".into()),
        BarWarp => (30, "bar.warp.sync".into()),
        Bar if matches!(ins.mode, Mode::BarRed | Mode::BarArrive) => {
            (20, format!("bar.{:?}", ins.mode).to_lowercase())
        }
        Match | Nanosleep => (70, op),
        Fns => (30, op),
        Rcp | Rsqrt if t == Ty::F64 && ins.mods.has(Mods::APPROX) => {
            (20, format!("{op}.approx.f64"))
        }
        Isspacep => (20, op),
        Add | Sub if t.size() == 8 && (ins.mods.has(Mods::CC) || ins.mods.has(Mods::CARRY_IN)) => {
            (20, ".cc with a 64-bit type".into())
        }
        Mov if ins
            .src
            .iter()
            .any(|o| matches!(o, Operand::Special(Sreg::AggrSmemSize))) =>
        {
            (90, "%aggr_smem_size".into())
        }
        Redux => (80, op),
        Activemask => (30, op),
        Tanh => (75, op),
        Ex2 if half => (75, "ex2.f16".into()),
        Dp4a | Dp2a => (61, op),
        Bfi | Bfe | Bfind | Brev | Clz | Popc | Prmt | Copysign | Testp => (20, op),
        Lop3 => (50, op),
        Shf => (32, op),
        Fence => (70, op),
        _ if ins.op.is_simd_video() => (30, op),
        _ => return types,
    };
    match types {
        Some(t) if t.0 > r.0 => Some(t),
        _ => Some(r),
    }
}

fn check_feature(ctx: &Ctx, ins: &Instr, name: &str) -> Result<(), Bad> {
    let Some(sm) = ctx.sm else { return Ok(()) };
    if let Some((need_sm, what)) = min_sm(ins) {
        if sm < need_sm {
            return Err(bad(
                Rule::TargetFeature,
                format!(
                    "`{what}` requires .target sm_{need_sm} or higher (the module targets sm_{sm})"
                ),
            ));
        }
    }
    // the `.sync` forms need PTX ISA 6.0; from 6.4 on, sm_70 and newer have only those
    // (§9.7.9.6 shfl, §9.7.13.9 vote)
    let sync_op = matches!(ins.op, Opcode::Shfl | Opcode::Vote);
    if sync_op && !ins.mods.has(Mods::SYNC) && sm >= 70 && ctx.version >= (6, 4) {
        return Err(bad(
            Rule::Modifier,
            format!(
                "`{name}` without `.sync` is not supported on sm_70 and newer from PTX ISA 6.4"
            ),
        ));
    }
    let needs_60 =
        matches!(ins.op, Opcode::Match | Opcode::BarWarp) || (sync_op && ins.mods.has(Mods::SYNC));
    if needs_60 && ctx.version < (6, 0) {
        return Err(bad(
            Rule::TargetFeature,
            format!("`{name}` requires PTX ISA .version 6.0 or later"),
        ));
    }
    if ins.op == Opcode::Redux && ctx.version < (7, 0) {
        return Err(bad(
            Rule::TargetFeature,
            format!("`{name}` requires PTX ISA .version 7.0 or later"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse;

    const REGS: &str = ".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<50>;\n\
        .reg .f32 %f<90>;\n.reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n.reg .u32 %u<4>;\n\
        .reg .s32 %s<4>;\n.reg .u8 %c<4>;\n";

    fn module(target: &str, body: &str) -> String {
        format!(
            ".version 8.8\n.target {target}\n.address_size 64\n.shared .align 4 .b8 tile[64];\n\
             .visible .entry k(.param .u64 k_p)\n{{\n{REGS}{body}\nret;\n}}\n"
        )
    }

    /// The checker's verdict on `body` in a kernel for `target`: `Ok` or the rule broken.
    fn on(target: &str, body: &str) -> Result<(), (Rule, String)> {
        match parse("t.ptx", &module(target, body)) {
            Ok(_) => Ok(()),
            Err(PtxError::Check { rule, .. }) => Err((rule, String::new())),
            Err(e) => Err((Rule::NoKernel, format!("not a check error: {e}"))),
        }
    }

    fn ok(body: &str) {
        assert_eq!(on("sm_75", body), Ok(()), "{body}");
    }

    fn rejects(rule: Rule, body: &str) {
        assert_eq!(on("sm_75", body).map_err(|e| e.0), Err(rule), "{body}");
    }

    #[test]
    fn operand_counts_per_form() {
        ok("add.s32 %r1, %r2, %r3;");
        rejects(Rule::OperandCount, "add.s32 %r1, %r2;");
        rejects(Rule::OperandCount, "add.s32 %r1, %r2, %r3, %r4;");
        ok("mad.lo.s32 %r1, %r2, %r3, %r4;");
        rejects(Rule::OperandCount, "mad.lo.s32 %r1, %r2, %r3;");
        ok("setp.eq.and.s32 %p1, %r1, 1, %p2;");
        rejects(Rule::OperandCount, "setp.eq.and.s32 %p1, %r1, 1;");
        rejects(Rule::OperandCount, "setp.eq.s32 %p1, %r1, 1, %p2;");
        ok("setp.eq.s32 %p1|%p2, %r1, 1;");
        rejects(Rule::OperandCount, "add.s32 %r1|%p1, %r2, %r3;");
        ok("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;");
        rejects(Rule::OperandCount, "atom.global.cas.b32 %r1, [%rd1], %r2;");
        rejects(Rule::OperandCount, "mov.u32 %r1, %r2, %r3;");
        rejects(Rule::OperandCount, "exit %r1;");
        ok("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;");
        rejects(Rule::OperandCount, "shfl.sync.bfly.b32 %r1, %r2, 1, 31;");
    }

    #[test]
    fn operand_type_compatibility() {
        // §6.1: bit-size types match any type of their size, integers of one size each other
        assert!(compatible(Ty::F32, Ty::B32) && compatible(Ty::U32, Ty::S32));
        assert!(!compatible(Ty::F32, Ty::U32) && !compatible(Ty::U32, Ty::U64));
        assert!(!compatible(Ty::U32, Ty::Pred) && compatible(Ty::Pred, Ty::Pred));
        ok("add.f32 %f3, %r1, %r2;");
        ok("add.s32 %r3, %u1, %s2;");
        rejects(Rule::OperandType, "add.f32 %f3, %u1, %u2;");
        rejects(Rule::OperandType, "add.u32 %r3, %rd1, %s2;");
        rejects(Rule::OperandType, "add.u64 %r1, %r2, %r3;");
        rejects(Rule::OperandType, "mov.b32 %r1, %rd1;");
        rejects(Rule::OperandType, "mul.wide.u32 %r1, %r2, %r3;");
        ok("mul.wide.u32 %rd1, %r2, %r3;");
        rejects(Rule::OperandType, "shl.b64 %rd1, %rd1, %rd2;");
        ok("shl.b64 %rd1, %rd1, %r2;");
        rejects(Rule::OperandType, "popc.b32 %rd1, %r1;");
    }

    #[test]
    fn relaxed_rules_for_ld_st_cvt() {
        // §9.4.1: registers wider than the instruction type in ld, st, cvt
        assert!(compatible_relaxed(Ty::U8, Ty::B32) && compatible_relaxed(Ty::B8, Ty::F32));
        assert!(compatible_relaxed(Ty::F32, Ty::B64) && !compatible_relaxed(Ty::F32, Ty::F64));
        assert!(!compatible_relaxed(Ty::U8, Ty::F32) && !compatible_relaxed(Ty::U32, Ty::B16));
        ok("ld.global.u8 %r1, [%rd1];");
        ok("ld.global.u8 %rd1, [%rd1];");
        ok("ld.global.f32 %rd2, [%rd1];");
        rejects(Rule::OperandType, "ld.global.f32 %fd1, [%rd1];");
        rejects(Rule::OperandType, "ld.global.u32 %f1, [%rd1];");
        rejects(Rule::OperandType, "ld.global.u64 %r1, [%rd1];");
        ok("st.global.u8 [%rd1], %r1;");
        rejects(Rule::OperandType, "st.global.u8 [%rd1], %f1;");
        ok("cvt.u32.u16 %r1, %r2;");
        ok("cvt.u16.u32 %r1, %r2;");
        rejects(Rule::OperandType, "cvt.rn.f32.s32 %fd1, %r1;");
        // not relaxed elsewhere
        rejects(Rule::OperandType, "mov.u32 %r1, %rs1;");
        rejects(Rule::OperandType, "add.u16 %rs1, %r1, %r1;");
    }

    #[test]
    fn instruction_types_and_modifiers() {
        rejects(Rule::InstrType, "and.s32 %r1, %r2, %r3;");
        rejects(Rule::InstrType, "add.pred %p1, %p2, %p3;");
        rejects(Rule::InstrType, "rem.f32 %f1, %f2, %f3;");
        rejects(Rule::InstrType, "mul.wide.u64 %rd1, %rd2, %rd3;");
        rejects(Rule::InstrType, "sin.approx.f64 %fd1, %fd2;");
        rejects(Rule::InstrType, "cvta.to.global.u32 %r1, %r2;");
        rejects(Rule::Modifier, "mul.u32 %r1, %r2, %r3;");
        rejects(Rule::Modifier, "div.f32 %f1, %f2, %f3;");
        ok("div.rn.f32 %f1, %f2, %f3;");
        ok("div.full.f32 %f1, %f2, %f3;");
        rejects(Rule::Modifier, "fma.f32 %f1, %f2, %f3, %f4;");
        rejects(Rule::Modifier, "cvt.f32.s32 %f1, %r1;");
        rejects(Rule::Modifier, "cvt.rn.s32.f32 %r1, %f1;");
        ok("cvt.rzi.s32.f32 %r1, %f1;");
        ok("cvt.f64.f32 %fd1, %f1;");
        rejects(Rule::Modifier, "cvt.f32.f64 %f1, %fd1;");
        rejects(Rule::Modifier, "setp.lt.b32 %p1, %r1, %r2;");
        rejects(Rule::Modifier, "setp.lo.s32 %p1, %r1, %r2;");
        ok("setp.lo.u32 %p1, %r1, %r2;");
        rejects(Rule::Modifier, "add.ftz.f64 %fd1, %fd1, %fd1;");
        rejects(Rule::Modifier, "add.sat.u32 %r1, %r1, %r1;");
        rejects(Rule::Modifier, "st.global.ca.u32 [%rd1], %r1;");
        rejects(Rule::Modifier, "shfl.bfly.b32 %r1, %r2, 1, 31;");
    }

    #[test]
    fn predicates_only_where_taken() {
        ok("setp.ge.s32 %p1, %r1, %r2;");
        rejects(Rule::Predicate, "setp.ge.s32 %r45, %r1, %r2;");
        rejects(Rule::Predicate, "add.f32 %p1, %f1, %f2;");
        rejects(Rule::Predicate, "add.s32 %r1, %p1, 1;");
        rejects(Rule::Predicate, "add.s32 %r1, !%p1, 1;");
        rejects(Rule::Predicate, "mov.pred %r5, %tid.x;");
        ok("selp.s32 %r1, 1, 2, !%p1;");
        rejects(Rule::Predicate, "selp.s32 %r1, 1, 2, %r2;");
        ok("not.pred %p1, %p2;");
        ok("mov.pred %p1, 1;");
        rejects(Rule::Predicate, "vote.sync.any.pred %r1, %p1, -1;");
        ok("@%p1 bra.uni $L; $L:");
    }

    #[test]
    fn constants_by_kind() {
        rejects(Rule::Immediate, "add.f32 %f1, %f1, 1;");
        ok("add.f32 %f1, %f1, 1.0;");
        ok("add.f32 %f1, %f1, 0f3F800000;");
        ok("add.f64 %fd1, %fd1, 0f3F800000;");
        rejects(Rule::Immediate, "add.s32 %r1, %r1, 1.0;");
        rejects(Rule::Immediate, "mov.u32 %r1, 0f3F800000;");
        ok("mov.b32 %r1, 0f3F800000;");
        rejects(Rule::Immediate, "mov.b32 %r1, 1.0;");
        ok("mov.b64 %rd1, 1.0;");
        ok("st.global.u32 [%rd1], 5;");
        rejects(Rule::Immediate, "st.global.f32 [%rd1], 1;");
    }

    #[test]
    fn special_registers() {
        ok("mov.u32 %r1, %tid.x;");
        ok("mov.u16 %rs1, %tid.x;");
        rejects(Rule::SpecialRegister, "mov.u64 %rd1, %tid.x;");
        rejects(Rule::SpecialRegister, "mov.u32 %r1, %clock64;");
        ok("mov.u64 %rd1, %clock64;");
        rejects(Rule::SpecialRegister, "add.u32 %r1, %tid.x, 1;");
        rejects(Rule::SpecialRegister, "st.global.u32 [%rd1], %tid.x;");
        ok("cvt.u64.u32 %rd1, %tid.x;");
    }

    #[test]
    fn addresses_only_where_taken() {
        rejects(Rule::Address, "ld.global.u32 %r1, %rd1;");
        rejects(Rule::Address, "st.global.u32 %rd1, %r1;");
        rejects(Rule::Address, "add.u64 %rd1, [%rd1], 1;");
        rejects(Rule::Address, "mul.wide.s32 %rd1, [k_p+8], 4;");
        rejects(Rule::Address, "ld.global.u32 %r1, [%fd1];");
        rejects(Rule::Address, "ld.global.u32 %r1, [%r1];");
        ok("ld.shared.u32 %r1, [%r1];");
        ok("ld.param.u64 %rd1, [k_p];");
        rejects(Rule::Address, "ld.global.u32 %r1, [k_p];");
        rejects(Rule::Address, "ld.global.u32 %r1, [4];");
        ok("mov.u64 %rd1, tile;");
        rejects(Rule::Address, "add.u64 %rd1, tile, 4;");
        rejects(Rule::Address, "atom.const.add.u32 %r1, [%rd1], 1;");
    }

    #[test]
    fn vector_widths() {
        ok("ld.global.v2.u32 {%r1, %r2}, [%rd1];");
        ok("ld.global.v4.u32 {%r1, %r2, _, %r4}, [%rd1];");
        rejects(Rule::Vector, "ld.global.v4.u32 {%r1, %r2}, [%rd1];");
        rejects(Rule::Vector, "ld.global.v2.u32 %rd1, [%rd1];");
        ok("ld.global.v2.u32 {%r1, %u1}, [%rd1];");
        rejects(Rule::Vector, "ld.global.v2.u32 {%r1, %rd1}, [%rd1];");
        rejects(Rule::OperandType, "st.global.v2.u32 [%rd1], {%r1, _};");
        rejects(Rule::Vector, "add.v2.u32 %r1, %r1, %r1;");
        let v8 = "ld.global.v8.u32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];";
        rejects(Rule::TargetFeature, v8);
        assert_eq!(on("sm_100", v8), Ok(()));
        assert_eq!(
            on("sm_100", &v8.replace("global", "shared")).map_err(|e| e.0),
            Err(Rule::Vector)
        );
        ok("mov.b64 %rd1, {%r1, %r2};");
        ok("mov.b64 {%r1, _}, %rd1;");
        rejects(Rule::OperandType, "mov.b64 %rd1, {%rs1, %rs2};");
        rejects(Rule::Vector, "mov.b64 %rd1, {%u1, %f1};");
        rejects(Rule::Vector, "mov.b64 %rd1, {%r1, %r2, %r3};");
    }

    #[test]
    fn barrier_numbers_and_counts() {
        ok("bar.sync 15;");
        rejects(Rule::Barrier, "bar.sync 16;");
        ok("bar.sync 0, 64;");
        rejects(Rule::Barrier, "bar.sync 0, 33;");
        ok("barrier.sync.aligned 1, 96;");
        rejects(Rule::Barrier, "bar.arrive 0, 0;");
        rejects(Rule::OperandCount, "bar.arrive 0;");
        ok("bar.red.popc.u32 %r1, 0, %p1;");
        rejects(Rule::Barrier, "bar.red.popc.u32 %r1, 0, 48, %p1;");
        rejects(Rule::Predicate, "bar.red.or.pred %r1, 0, %p1;");
        rejects(Rule::OperandType, "bar.sync %rd1;");
        ok("bar.sync %r1, %r2;");
    }

    #[test]
    fn targets_and_features() {
        assert_eq!(on("sm_10", "add.s32 %r1, %r2, %r3;"), Ok(()));
        assert_eq!(
            on("sm_10", "cvta.to.global.u64 %rd1, %rd2;").map_err(|e| e.0),
            Err(Rule::TargetFeature)
        );
        assert_eq!(on("sm_20", "cvta.to.global.u64 %rd1, %rd2;"), Ok(()));
        assert_eq!(
            on("sm_75", "redux.sync.add.s32 %r1, %r2, -1;").map_err(|e| e.0),
            Err(Rule::TargetFeature)
        );
        assert_eq!(on("sm_80", "redux.sync.add.s32 %r1, %r2, -1;"), Ok(()));
        assert_eq!(
            on("sm_30", "ld.global.nc.f32 %f1, [%rd1];").map_err(|e| e.0),
            Err(Rule::TargetFeature)
        );
    }

    fn header(src: &str) -> Result<(), Rule> {
        match parse("h.ptx", src) {
            Ok(_) => Ok(()),
            Err(PtxError::Check { rule, .. }) => Err(rule),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn version_and_target_directives() {
        let k = ".visible .entry k()\n{\nret;\n}\n";
        assert_eq!(header(&format!(".version 8.8\n.target sm_75\n{k}")), Ok(()));
        assert_eq!(header(""), Err(Rule::Version));
        assert_eq!(header(&format!(".target sm_75\n{k}")), Err(Rule::Version));
        assert_eq!(header(&format!(".version 8.8\n{k}")), Err(Rule::Target));
        assert_eq!(
            header(&format!(".target sm_75\n.version 8.8\n{k}")),
            Err(Rule::Version)
        );
        assert_eq!(
            header(&format!(".version 8.8\n.version 8.8\n.target sm_75\n{k}")),
            Err(Rule::Version)
        );
        assert_eq!(
            header(&format!(".version 9.9\n.target sm_75\n{k}")),
            Err(Rule::Version)
        );
        assert_eq!(
            header(&format!(".version 6.0\n.target sm_75\n{k}")),
            Err(Rule::Target)
        );
        assert_eq!(header(&format!(".version 6.3\n.target sm_75\n{k}")), Ok(()));
        assert_eq!(
            header(&format!(".version 8.8\n.target sm_99\n{k}")),
            Err(Rule::Target)
        );
        assert_eq!(
            header(&format!(".version 8.8\n.target compute_75\n{k}")),
            Ok(())
        );
        assert_eq!(
            header(&format!(
                ".version 8.8\n.target sm_75, texmode_independent\n{k}"
            )),
            Ok(())
        );
        assert_eq!(
            header(&format!(".version 8.8\n.target sm_75, bogus\n{k}")),
            Err(Rule::Target)
        );
    }

    #[test]
    fn no_kernel_where_one_is_asked_for() {
        let src = ".version 8.8\n.target sm_75\n.address_size 64\n.func f()\n{\nret;\n}\n";
        let m = parse("nk.ptx", src).expect("a module without a kernel is valid PTX");
        let e = require_kernel("nk.ptx", &m, src).unwrap_err();
        assert!(
            matches!(
                e,
                PtxError::Check {
                    rule: Rule::NoKernel,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with("nk.ptx:7:1: no-kernel"), "{e}");
        let k = parse("k.ptx", &module("sm_75", "")).unwrap();
        assert!(require_kernel("k.ptx", &k, "").is_ok());
    }

    #[test]
    fn errors_name_file_line_column_instruction_and_rule() {
        let e = parse("f.ptx", &module("sm_75", "add.f32 %f3, %rd2, %r1;")).unwrap_err();
        let line = 7 + REGS.lines().count() as u32;
        match &e {
            PtxError::Check {
                file,
                line: l,
                col,
                instr,
                rule,
                msg,
            } => {
                assert_eq!((file.as_str(), *l, *col), ("f.ptx", line, 14));
                assert_eq!(instr, "add.f32 %f3, %rd2, %r1;");
                assert_eq!(*rule, Rule::OperandType);
                assert!(msg.contains("%rd2"), "{msg}");
            }
            other => panic!("{other}"),
        }
        let s = e.to_string();
        assert!(
            s.starts_with(&format!("f.ptx:{line}:14: operand-type (PTX ISA §6.1")),
            "{s}"
        );
        for r in Rule::ALL {
            assert!(r.to_string().contains('§'), "{r}");
        }
    }

    #[test]
    fn check_all_reports_every_instruction() {
        let src = module(
            "sm_75",
            "add.f32 %f1, %f2;\nbar.sync 16;\nadd.s32 %r1, %r2, %r3;",
        );
        let (m, map) = crate::ptx::parser::parse_unchecked("a.ptx", &src).unwrap();
        let all = check_all("a.ptx", &m, &map);
        let rules: Vec<Rule> = all
            .iter()
            .filter_map(|e| match e {
                PtxError::Check { rule, .. } => Some(*rule),
                _ => None,
            })
            .collect();
        assert_eq!(rules, vec![Rule::OperandCount, Rule::Barrier]);
    }
}
