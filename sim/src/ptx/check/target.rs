//! Target checks: the module header (`.version` and `.target` first, known and compatible,
//! `.target` options, header-level features) and the oldest target each instruction's
//! features need.

use super::modifiers::ieee_rnd;
use super::types::tyname;
use super::{bad, Bad, Ctx, Rule, SourceMap, Violation};
use crate::ir::{AtomOp, Instr, Mode, Mods, Module, Opcode, Operand, Space, Sreg, Ty};
use crate::ptx::error::Pos;

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
pub(super) fn parse_target(t: &str) -> Option<(u32, (u32, u32))> {
    let n = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))?;
    let n = n.strip_suffix(['a', 'f']).unwrap_or(n);
    let n: u32 = n.parse().ok()?;
    TARGETS.iter().copied().find(|&(sm, _)| sm == n)
}

/// The module's SM number, if its `.target` is known.
pub(super) fn target_sm(module: &Module) -> Option<u32> {
    module
        .target
        .first()
        .and_then(|t| parse_target(t))
        .map(|(sm, _)| sm)
}

pub(super) fn check_header(module: &Module, map: &SourceMap) -> Vec<Violation> {
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

// ---------- target features ----------

/// The oldest target that has what `ins` uses ("Target ISA notes" of each instruction in
/// §9.7, as ptxas 12.9 enforces them), with a name for the message.
pub(super) fn min_sm(ins: &Instr) -> Option<(u32, String)> {
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

pub(super) fn check_feature(ctx: &Ctx, ins: &Instr, name: &str) -> Result<(), Bad> {
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
