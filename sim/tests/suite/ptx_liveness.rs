//! Soundness of liveness-derived release flags (Jeon & Annavaram 2014 pir/pbr), checked independently of the
//! dataflow analysis: a warp of several lanes is *executed* abstractly on the CFG with a SIMT
//! reconvergence stack (divergent branches reconverge at the immediate post-dominator), with
//! random per-lane branch and guard outcomes. Every lane tracks, per architectural register,
//! whether its value is still present; releases (pir after an instruction, pbr at a block's start,
//! dead destinations) are warp-wide, as in Jeon & Annavaram 2014. A read of a released register by any lane
//! is a violation: a value was released before its last use on some path.
//!
//! Run over randomly generated CFGs (proptest) and over every kernel of the test data and the
//! workload suite.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use regwatt_sim::analysis::{analyze, analyze_for, AllocTarget, Analysis};
use regwatt_sim::ir::{Function, Opcode};
use regwatt_sim::ptx::parse;

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Unwritten,
    Valid,
    Released,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

struct Entry {
    pc: u32,
    mask: u32,
    /// reconvergence PC; u32::MAX = exit
    rpc: u32,
}

/// Executes `f` abstractly; returns a description of the first violation.
fn simt_check(
    f: &Function,
    a: &Analysis,
    lanes: u32,
    seed: u64,
    max_steps: usize,
) -> Result<(), String> {
    let units = a.alloc.units();
    let mut rng = Rng(seed | 1);
    let mut state = vec![vec![St::Unwritten; units]; lanes as usize];
    let full = if lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let mut stack = vec![Entry {
        pc: 0,
        mask: full,
        rpc: u32::MAX,
    }];
    let cfg = &f.cfg;
    let n = f.instrs.len() as u32;
    let release_all = |state: &mut Vec<Vec<St>>, u: u32| {
        for l in state.iter_mut() {
            if let Some(s) = l.get_mut(u as usize) {
                *s = St::Released;
            }
        }
    };
    let mut steps = 0;
    while let Some(top) = stack.last_mut() {
        steps += 1;
        if steps > max_steps {
            return Ok(());
        }
        if top.mask == 0 || top.pc == top.rpc || top.pc >= n {
            let done = stack.pop();
            // lanes that reached exit leave every entry
            if let Some(e) = done {
                if e.pc >= n && e.mask != 0 {
                    for s in stack.iter_mut() {
                        s.mask &= !e.mask;
                    }
                }
            }
            continue;
        }
        let pc = top.pc;
        let mask = top.mask;
        let b = cfg.block_of[pc as usize];
        if cfg.blocks[b as usize].start == pc {
            for r in a.release.pbr_at(b) {
                release_all(&mut state, a.alloc.unit(*r));
            }
        }
        let ins = &f.instrs[pc as usize];
        // guard outcome per lane
        let mut exec = mask;
        if ins.guard.is_some() {
            let mut g = 0;
            for l in 0..lanes {
                if mask & (1 << l) != 0 && rng.coin() {
                    g |= 1 << l;
                }
            }
            exec = g;
        }
        // reads: all active lanes read the guard; executing lanes read the sources
        let guard_units: Vec<u32> = ins
            .guard
            .map(|g| {
                a.alloc
                    .arch_regs(g.reg.idx())
                    .map(|r| a.alloc.unit(r))
                    .collect()
            })
            .unwrap_or_default();
        for &u in &a.arch_ud.uses[pc as usize] {
            let lanes_reading = if guard_units.contains(&u) { mask } else { exec };
            for l in 0..lanes {
                if lanes_reading & (1 << l) != 0 && state[l as usize][u as usize] == St::Released {
                    return Err(format!(
                        "{}: lane {l} reads released {} at pc {pc} (line {})",
                        f.name,
                        a.alloc.arch_of_unit(u),
                        ins.line
                    ));
                }
            }
        }
        for &u in &a.arch_ud.defs[pc as usize] {
            for l in 0..lanes {
                if exec & (1 << l) != 0 {
                    state[l as usize][u as usize] = St::Valid;
                }
            }
        }
        for r in a
            .release
            .pir_at(pc)
            .iter()
            .chain(&a.release.dead_dst[pc as usize])
        {
            release_all(&mut state, a.alloc.unit(*r));
        }
        // control flow
        let top = stack.last_mut().unwrap();
        match ins.op {
            Opcode::Ret | Opcode::Exit | Opcode::Trap => {
                let stay = mask & !exec;
                if stay == 0 {
                    top.mask = 0;
                    // all lanes of this entry exit
                    let m = mask;
                    stack.pop();
                    for s in stack.iter_mut() {
                        s.mask &= !m;
                    }
                } else {
                    top.mask = stay;
                    top.pc = pc + 1;
                    for s in stack.iter_mut().rev().skip(1) {
                        s.mask &= !exec;
                    }
                }
            }
            Opcode::Bra => {
                let t = ins.branch_target().unwrap();
                let taken = exec;
                let not = mask & !exec;
                if not == 0 {
                    top.pc = t;
                } else if taken == 0 {
                    top.pc = pc + 1;
                } else {
                    let rpc = cfg.reconv_pc(b).unwrap_or(u32::MAX);
                    top.pc = rpc;
                    if rpc == u32::MAX {
                        top.pc = n; // lanes meet at exit
                    }
                    stack.push(Entry {
                        pc: pc + 1,
                        mask: not,
                        rpc,
                    });
                    stack.push(Entry {
                        pc: t,
                        mask: taken,
                        rpc,
                    });
                }
            }
            _ => top.pc = pc + 1,
        }
    }
    Ok(())
}

fn check_function(f: &Function, runs: u64) -> Result<(), String> {
    // both allocations the timing presets use: without a uniform file (gtx480) and with
    // sm_75's (rtx2060, issue 36: uniform values leave the register-file units)
    for target in [AllocTarget::NO_UNIFORM, AllocTarget::SM75] {
        let a = analyze_for(f, target);
        for seed in 0..runs {
            for lanes in [1u32, 2, 4] {
                simt_check(
                    f,
                    &a,
                    lanes,
                    seed.wrapping_mul(0x9E37_79B9) + u64::from(lanes),
                    4000,
                )
                .map_err(|e| format!("{target:?}: {e}"))?;
            }
        }
    }
    Ok(())
}

// ---------- random CFGs ----------

#[derive(Clone, Debug)]
enum RInstr {
    Add32(u8, u8, u8),
    Add64(u8, u8, u8),
    Cvt(u8, u8),
    Setp(u8, u8, u8),
    GuardedAdd(u8, u8, u8, u8),
    Store(u8, u8),
    Ld(u8, u8),
}

#[derive(Clone, Debug)]
enum RTerm {
    Fall,
    Bra(u8),
    CondBra(u8, u8),
    Ret,
    CondRet(u8),
}

fn instr_strategy() -> impl Strategy<Value = RInstr> {
    prop_oneof![
        (0u8..6, 0u8..6, 0u8..6).prop_map(|(a, b, c)| RInstr::Add32(a, b, c)),
        (0u8..3, 0u8..3, 0u8..3).prop_map(|(a, b, c)| RInstr::Add64(a, b, c)),
        (0u8..3, 0u8..6).prop_map(|(a, b)| RInstr::Cvt(a, b)),
        (0u8..3, 0u8..6, 0u8..6).prop_map(|(a, b, c)| RInstr::Setp(a, b, c)),
        (0u8..3, 0u8..6, 0u8..6, 0u8..6).prop_map(|(p, a, b, c)| RInstr::GuardedAdd(p, a, b, c)),
        (0u8..3, 0u8..6).prop_map(|(a, b)| RInstr::Store(a, b)),
        (0u8..6, 0u8..3).prop_map(|(a, b)| RInstr::Ld(a, b)),
    ]
}

fn term_strategy() -> impl Strategy<Value = RTerm> {
    prop_oneof![
        3 => Just(RTerm::Fall),
        2 => (0u8..16).prop_map(RTerm::Bra),
        4 => (0u8..3, 0u8..16).prop_map(|(p, t)| RTerm::CondBra(p, t)),
        1 => Just(RTerm::Ret),
        1 => (0u8..3).prop_map(RTerm::CondRet),
    ]
}

fn program_text(blocks: &[(Vec<RInstr>, RTerm)]) -> String {
    let nb = blocks.len();
    let mut s = String::from(
        ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n\
         .reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd0, [k_p];\nmov.u32 %r0, %tid.x;\n",
    );
    for (i, (ins, term)) in blocks.iter().enumerate() {
        s += &format!("$B{i}:\n");
        for x in ins {
            s += &match x {
                RInstr::Add32(d, a, b) => format!("add.s32 %r{d}, %r{a}, %r{b};\n"),
                RInstr::Add64(d, a, b) => format!("add.s64 %rd{d}, %rd{a}, %rd{b};\n"),
                RInstr::Cvt(d, a) => format!("cvt.u64.u32 %rd{d}, %r{a};\n"),
                RInstr::Setp(p, a, b) => format!("setp.lt.s32 %p{p}, %r{a}, %r{b};\n"),
                RInstr::GuardedAdd(p, d, a, b) => format!("@%p{p} add.s32 %r{d}, %r{a}, %r{b};\n"),
                RInstr::Store(a, b) => format!("st.global.u32 [%rd{a}+4], %r{b};\n"),
                RInstr::Ld(d, a) => format!("ld.global.u32 %r{d}, [%rd{a}];\n"),
            };
        }
        s += &match term {
            RTerm::Fall => String::new(),
            RTerm::Bra(t) => format!("bra.uni $B{};\n", *t as usize % nb),
            RTerm::CondBra(p, t) => format!("@%p{p} bra $B{};\n", *t as usize % nb),
            RTerm::Ret => "ret;\n".into(),
            RTerm::CondRet(p) => format!("@!%p{p} ret;\n"),
        };
    }
    s += "ret;\n}\n";
    s
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        // A fixed seed, so a run is repeatable; failures found are kept in the
        // .proptest-regressions file beside this one and replayed first
        rng_seed: proptest::test_runner::RngSeed::Fixed(25002),
        ..ProptestConfig::default()
    })]

    #[test]
    fn releases_never_precede_a_use_on_random_cfgs(
        blocks in prop::collection::vec(
            (prop::collection::vec(instr_strategy(), 0..6), term_strategy()), 1..10),
        seed in any::<u64>(),
    ) {
        let text = program_text(&blocks);
        let m = parse("random.ptx", &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let f = m.function("k").unwrap();
        let a = analyze(f);
        for lanes in [1u32, 2, 3, 4] {
            if let Err(e) = simt_check(f, &a, lanes, seed ^ u64::from(lanes), 3000) {
                return Err(TestCaseError::fail(format!("{e}\n{text}")));
            }
        }
    }
}

// ---------- the suite ----------

fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("testdata/ptx"), root.join("../workloads")] {
        collect(&dir, &mut out);
    }
    out.sort();
    // the 45 workloads' PTX and the test data's
    assert_eq!(out.len(), 51, "PTX files found: {out:?}");
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
        } else if p.extension().is_some_and(|x| x == "ptx") && !p.ends_with("unrolled_10k.ptx") {
            out.push(p);
        }
    }
}

#[test]
fn releases_never_precede_a_use_on_the_suite() {
    let mut checked = 0;
    for p in ptx_files() {
        let src = std::fs::read_to_string(&p).unwrap();
        let m = parse(&p.display().to_string(), &src).unwrap();
        for f in m.functions.iter().filter(|f| f.defined) {
            if let Err(e) = check_function(f, 12) {
                panic!("{}: {e}", p.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} functions checked");
}

/// The checker itself must be able to fail: a hand-made wrong release is caught.
#[test]
fn checker_catches_a_premature_release() {
    let text = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .pred %p<1>;\n.reg .b32 %r<4>;\n\
        mov.u32 %r0, %tid.x;\nsetp.lt.s32 %p0, %r0, 3;\n@%p0 bra $A;\n\
        add.s32 %r1, %r0, 1;\nbra.uni $J;\n$A:\nadd.s32 %r1, %r0, 2;\n$J:\nadd.s32 %r2, %r1, %r0;\nret;\n}\n";
    let m = parse("t.ptx", text).unwrap();
    let f = m.function("k").unwrap();
    let mut a = analyze(f);
    assert!(check_function(f, 8).is_ok());
    // %r0 is read on both sides and after the join: releasing it on one side is wrong
    let r0 = a.alloc.arch_regs(1).next().unwrap(); // reg index 1 = %r0 (after %p0)
    let side_pc = 3; // `add.s32 %r1, %r0, 1`
    a.release.pir[side_pc].push(r0);
    let mut caught = false;
    for seed in 0..16 {
        if simt_check(f, &a, 2, seed, 1000).is_err() {
            caught = true;
        }
    }
    assert!(caught, "checker missed a premature release");
}

/// A 20k-instruction kernel (5000 if-diamonds inside one loop, like the unrolled kernels of
/// `testdata/ptx/unrolled_10k.ptx`) parses and analyses with the expected CFG shape and sound
/// release flags. Issue 3 made the front-end linear (it was quadratic in places); its speed is
/// measured by `benches/ptx_frontend.rs`, this checks the results at that scale.
#[test]
fn large_unrolled_kernel_analyses() {
    let n = 5000usize;
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry big(.param .u32 big_n)\n{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<2>;\nld.param.u32 %r0, [big_n];\nmov.u32 %r1, 0;\n$L_top:\n",
    );
    for k in 0..n {
        s += &format!(
            "setp.lt.u32 %p1, %r0, {k};\n@%p1 bra $L_{k};\nadd.u32 %r0, %r0, 1;\n$L_{k}:\nxor.b32 %r0, %r0, {k};\n"
        );
    }
    s += "add.u32 %r1, %r1, 1;\nsetp.lt.u32 %p0, %r1, 4;\n@%p0 bra $L_top;\nret;\n}\n";
    let m = parse("big.ptx", &s).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("big").unwrap();
    assert_eq!(f.instrs.len(), 4 * n + 6);
    let nb = 2 * n + 3;
    assert_eq!(f.cfg.blocks.len(), nb);
    assert_eq!(f.cfg.loops.len(), 1);
    assert_eq!(f.cfg.loops[0].header, 1);
    assert_eq!(
        f.cfg.loops[0].blocks,
        (1..nb as u32 - 1).collect::<Vec<_>>()
    );
    assert_eq!(f.cfg.loops[0].latches, vec![nb as u32 - 2]);
    let a = analyze(f);
    // %r0 and %r1 are live together everywhere in the loop (R0 and R2: R1 is the stack
    // pointer, then 2 reserved registers, as ptxas counts them); %p1 and %p0 never are
    assert_eq!((a.alloc.registers, a.alloc.predicates), (3 + 2, 1));
    assert_eq!(a.reuse.src.len(), f.instrs.len());
    check_function(f, 2).unwrap_or_else(|e| panic!("{e}"));
}
