//! The PTX checker (`regwatt_sim::ptx::check`) on the cases of issue 35 and on every PTX file
//! of the repository.

use std::path::{Path, PathBuf};

use regwatt_sim::ptx::{check, parse, PtxError, Rule};

const REGS: &str = ".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<50>;\n\
    .reg .f32 %f<90>;\n.reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n";

fn kernel(body: &str) -> String {
    format!(
        ".version 8.8\n.target sm_75\n.address_size 64\n.global .align 4 .b8 sym[128];\n\
         .visible .entry k(.param .u64 k_p)\n{{\n{REGS}{body}\nret;\n}}\n"
    )
}

/// The rule `src` breaks (panics if it parses, or fails for another reason).
fn rule_of(src: &str) -> Rule {
    match parse("bad_operands.ptx", src) {
        Err(PtxError::Check { rule, .. }) => rule,
        Err(e) => panic!("not a checker error: {e}"),
        Ok(_) => panic!("accepted:\n{src}"),
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn workload(name: &str) -> String {
    let p = repo()
        .join("workloads")
        .join(name)
        .join(format!("{name}.ptx"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn add_f32_with_two_operands_is_rejected() {
    let src = kernel("add.f32 %f3, %f2;");
    assert_eq!(rule_of(&src), Rule::OperandCount);
    let e = parse("bad_operands.ptx", &src).unwrap_err().to_string();
    assert!(e.starts_with("bad_operands.ptx:13:1: operand-count"), "{e}");
    assert!(e.contains("add.f32 %f3, %f2;"), "{e}");
}

#[test]
fn add_f32_with_64_bit_and_32_bit_integer_registers_is_rejected() {
    assert_eq!(
        rule_of(&kernel("add.f32 %f3, %rd2, %r1;")),
        Rule::OperandType
    );
    // .b32 is compatible with .f32 (PTX ISA §6.1): only the 64-bit register is wrong
    assert!(parse("ok.ptx", &kernel("add.f32 %f3, %r2, %r1;")).is_ok());
}

#[test]
fn add_f32_into_a_predicate_is_rejected() {
    assert_eq!(rule_of(&kernel("add.f32 %p1, %f1, %f2;")), Rule::Predicate);
}

#[test]
fn mov_pred_from_tid_into_a_data_register_is_rejected() {
    assert_eq!(rule_of(&kernel("mov.pred %r5, %tid.x;")), Rule::Predicate);
    assert_eq!(rule_of(&kernel("mov.pred %p1, %tid.x;")), Rule::Predicate);
}

#[test]
fn setp_into_a_data_register_is_rejected() {
    assert_eq!(
        rule_of(&kernel("setp.ge.s32 %r45, %r1, %r2;")),
        Rule::Predicate
    );
}

#[test]
fn mul_wide_into_f32_from_an_address_is_rejected() {
    assert_eq!(
        rule_of(&kernel("mul.wide.s32 %f87, [sym+80];")),
        Rule::OperandCount
    );
    assert_eq!(
        rule_of(&kernel("mul.wide.s32 %f87, [sym+80], 4;")),
        Rule::OperandType
    );
    assert_eq!(
        rule_of(&kernel("mul.wide.s32 %rd1, [sym+80], 4;")),
        Rule::Address
    );
}

/// Type-suffix swaps (accepted 71 times out of 71): in every workload, the type
/// suffix of each instruction with a 32- or 64-bit register operand is replaced by a type of
/// the other size, which no register operand can match (§6.1; `ld`/`st`/`cvt`, whose relaxed
/// rules of §9.4.1 allow wider registers, are left out).
#[test]
fn type_suffix_swaps_are_rejected() {
    let swap = [
        (".u32", ".u64"),
        (".s32", ".s64"),
        (".b32", ".b64"),
        (".f32", ".f64"),
        (".u64", ".u32"),
        (".s64", ".s32"),
        (".b64", ".b32"),
        (".f64", ".f32"),
    ];
    let names = [
        "vectorAdd",
        "matrixMul_tiled",
        "reduction",
        "bfs",
        "histogram",
        "nbody",
    ];
    let mut tried = 0;
    for name in names {
        let src = workload(name);
        let lines: Vec<&str> = src.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim();
            let op = t.split_whitespace().next().unwrap_or("");
            let base = op.split('.').next().unwrap_or("");
            if t.starts_with('.')
                || t.starts_with("//")
                || matches!(base, "ld" | "st" | "cvt" | "call" | "bra" | "ret" | "")
                || !t.contains("%r")
            {
                continue;
            }
            let Some((from, to)) = swap.iter().find(|(f, _)| op.ends_with(f)) else {
                continue;
            };
            let new_op = format!("{}{}", &op[..op.len() - from.len()], to);
            let mut mutated = lines.clone();
            let new_line = line.replacen(op, &new_op, 1);
            mutated[i] = &new_line;
            let text = mutated.join("\n");
            match parse(name, &text) {
                Err(PtxError::Check { .. }) => tried += 1,
                Err(e) => panic!("{name}:{}: `{new_line}`: not a checker error: {e}", i + 1),
                Ok(_) => panic!("{name}:{}: `{}` -> `{new_line}` accepted", i + 1, t),
            }
        }
    }
    assert!(tried >= 71, "only {tried} swaps tried");
}

#[test]
fn empty_file_is_rejected() {
    assert_eq!(rule_of(""), Rule::Version);
    assert_eq!(rule_of("// nothing but a comment\n"), Rule::Version);
}

#[test]
fn missing_version_is_rejected() {
    let src = kernel("").replacen(".version 8.8\n", "", 1);
    assert_eq!(rule_of(&src), Rule::Version);
}

#[test]
fn missing_target_is_rejected() {
    let src = kernel("").replacen(".target sm_75\n", "", 1);
    assert_eq!(rule_of(&src), Rule::Target);
}

#[test]
fn target_sm_10_is_too_old_for_the_workloads() {
    for name in ["vectorAdd", "histogram", "reduction"] {
        let src = workload(name).replacen(".target sm_75", ".target sm_10", 1);
        assert_eq!(rule_of(&src), Rule::TargetFeature, "{name}");
    }
}

#[test]
fn ld_global_v8_is_rejected_on_sm_75() {
    let v8 = "ld.global.v8.u32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];";
    assert_eq!(rule_of(&kernel(v8)), Rule::TargetFeature);
    let on_sm100 = kernel(v8).replacen(".target sm_75", ".target sm_100", 1);
    assert!(parse("v8.ptx", &on_sm100).is_ok());
    // 64-bit elements: 512 bits, on no target
    let v8_64 = "ld.global.v8.u64 {%rd1, %rd2, %rd3, %rd1, %rd2, %rd3, %rd1, %rd2}, [%rd1];";
    assert_eq!(rule_of(&kernel(v8_64)), Rule::Vector);
}

#[test]
fn bar_sync_16_is_rejected() {
    assert_eq!(rule_of(&kernel("bar.sync 16;")), Rule::Barrier);
    assert!(parse("b.ptx", &kernel("bar.sync 15;")).is_ok());
}

#[test]
fn bar_sync_with_33_threads_is_rejected() {
    assert_eq!(rule_of(&kernel("bar.sync 0, 33;")), Rule::Barrier);
    assert!(parse("b.ptx", &kernel("bar.sync 0, 64;")).is_ok());
}

#[test]
fn a_file_without_kernel_is_rejected_where_a_kernel_is_asked_for() {
    let src = ".version 8.8\n.target sm_75\n.address_size 64\n";
    let m = parse("nk.ptx", src).expect("valid PTX without a kernel");
    let e = check::require_kernel("nk.ptx", &m, src).unwrap_err();
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
    let mut global = regwatt_sim::mem::GlobalMemory::new();
    let e = regwatt_sim::exec::Program::from_ptx("nk.ptx", src, &mut global).unwrap_err();
    assert!(e.to_string().contains("no-kernel"), "{e}");
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target" || n == ".git") {
                continue;
            }
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

/// Every PTX file in the repository passes the checker, except the two deliberately broken
/// ones, which fail in the parser (not the checker).
#[test]
fn every_repository_ptx_file_passes_the_checker() {
    let root = repo();
    let mut files = Vec::new();
    for dir in [
        "workloads",
        "sim",
        "tests",
        "designs",
        "examples",
        "benches",
    ] {
        ptx_files(&root.join(dir), &mut files);
    }
    assert!(files.len() >= 80, "only {} PTX files found", files.len());
    let not_parsed = ["truncated.ptx", "indirect_call.ptx"];
    let mut checked = 0;
    for p in &files {
        let src = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match parse(&p.display().to_string(), &src) {
            Ok(m) => {
                check::require_kernel(name, &m, &src).unwrap_or_else(|e| panic!("{e}"));
                checked += 1;
            }
            Err(e @ PtxError::Check { .. }) => panic!("{e}"),
            Err(e) => assert!(not_parsed.contains(&name), "{e}"),
        }
    }
    assert_eq!(checked, files.len() - not_parsed.len());
}
