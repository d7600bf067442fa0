//! Parses every PTX file of the test data and of the workload suite.

use std::path::{Path, PathBuf};

use regwatt_sim::ir::Operand;
use regwatt_sim::ptx::parse;

fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("testdata/ptx"), root.join("../workloads")] {
        collect(&dir, &mut out);
    }
    out.sort();
    // the 45 workloads' PTX and the test data's
    assert_eq!(out.len(), 52, "PTX files found: {out:?}");
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    // a folder the test names must exist (never a silent skip)
    let rd = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in rd {
        let e = e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn every_ptx_file_parses() {
    let files = ptx_files();
    assert!(
        files.len() >= 6,
        "expected test PTX files, found {}",
        files.len()
    );
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let m = parse(&f.display().to_string(), &src).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.kernels().count() >= 1, "{}: no kernel", f.display());
        for func in m.functions.iter().filter(|f| f.defined) {
            // every branch target resolved to an instruction inside the function
            for i in &func.instrs {
                for o in &i.src {
                    if let Operand::Label(t) = o {
                        assert!((*t as usize) < func.instrs.len());
                    }
                }
            }
            assert_eq!(func.cfg.block_of.len(), func.instrs.len());
        }
    }
}

/// `dp2a.lo`/`dp2a.hi` and the SIMD video instructions (`vabsdiff4.u32.u32.u32`, …) are valid
/// PTX that NVRTC emits (CUDA `__dp2a_lo`, `__vabsdiffu4`); they used to be rejected with
/// "unsupported modifier .lo" / "unsupported opcode".
#[test]
fn dp2a_lo_hi_and_simd_video_parse() {
    use regwatt_sim::ir::{Cmp, Mode, Mods, Opcode, Ty};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = root.join("testdata/heldout/repro/dp2a_vabsdiff4.ptx");
    let src = std::fs::read_to_string(&p).unwrap();
    let m = parse("dp2a_vabsdiff4.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("simd").unwrap();
    let dp2a = f.instrs.iter().find(|i| i.op == Opcode::Dp2a).unwrap();
    assert_eq!(
        (dp2a.mode, dp2a.ty, dp2a.ty2, dp2a.line),
        (Mode::Lo, Ty::S32, Ty::S32, 78)
    );
    let v = f.instrs.iter().find(|i| i.op == Opcode::Vabsdiff4).unwrap();
    assert_eq!(
        (v.ty, v.ty2, v.ty3, v.mode, v.line),
        (Ty::U32, Ty::U32, Ty::U32, Mode::None, 107)
    );
    assert_eq!((v.dst.len(), v.src.len()), (1, 3));

    let body = "dp2a.hi.u32.s32 %r1, %r2, %r3, %r4;\n\
                vadd4.s32.s32.u32.sat %r1, %r2, %r3, %r4;\n\
                vmax2.u32.u32.u32.add %r1, %r2, %r3, 0;\n\
                vset4.u32.s32.lt.add %r1, %r2, %r3, %r4;\n\
                vsub2.s32.s32.s32 %r1, %r2, %r3, %r4;\n\
                vabsdiff2.u32.u32.u32 %r1, %r2, %r3, %r4;\n\
                vavrg4.u32.u32.u32 %r1, %r2, %r3, %r4;\n\
                vmin4.s32.s32.s32 %r1, %r2, %r3, %r4;\n\
                ret;";
    let src = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{{\n.reg .b32 %r<5>;\n{body}\n}}\n"
    );
    let m = parse("v.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let i = &m.function("k").unwrap().instrs;
    assert_eq!(
        (i[0].op, i[0].mode, i[0].ty, i[0].ty2),
        (Opcode::Dp2a, Mode::Hi, Ty::U32, Ty::S32)
    );
    assert_eq!((i[1].op, i[1].ty3), (Opcode::Vadd4, Ty::U32));
    assert!(i[1].mods.has(Mods::SAT));
    assert_eq!((i[2].op, i[2].mode), (Opcode::Vmax2, Mode::VideoAdd));
    assert_eq!(
        (i[3].op, i[3].ty, i[3].ty2, i[3].cmp, i[3].mode),
        (Opcode::Vset4, Ty::U32, Ty::S32, Cmp::Lt, Mode::VideoAdd)
    );
    let ops: Vec<Opcode> = i[4..8].iter().map(|x| x.op).collect();
    assert_eq!(
        ops,
        [
            Opcode::Vsub2,
            Opcode::Vabsdiff2,
            Opcode::Vavrg4,
            Opcode::Vmin4
        ]
    );
    assert!(i
        .iter()
        .all(|x| x.op == Opcode::Dp2a || !x.op.is_simd_video() || x.src.len() == 3));

    // what stays unsupported is a clear error at the right place
    for (body, msg) in [
        ("vadd4.u32.u32.u32 %r1, %r2.b3210, %r3, %r4;", "selector"),
        (
            "vadd4.u32.u32.u32 %r1, %r2, %r3;",
            "wrong number of operands",
        ),
        (
            "mul.lo.u32.u32.u32 %r1, %r2, %r3;",
            "too many type suffixes",
        ),
    ] {
        let src =
            format!(".version 8.0\n.target sm_80\n.entry k()\n{{\n.reg .b32 %r<5>;\n{body}\n}}\n");
        let e = parse("e.ptx", &src).unwrap_err().to_string();
        assert!(e.starts_with("e.ptx:6:") && e.contains(msg), "{body}: {e}");
    }
}
