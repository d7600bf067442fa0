//! Tests of the checker as a whole: PTX text parsed and checked, one test per rule.

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
