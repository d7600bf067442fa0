//! Warp-uniform values: values equal in every thread of a warp, which ptxas (sm_75+) keeps in
//! the *uniform register file* (`UR0..UR62`) or reads straight from the constant bank, so that
//! they do not count against `ptxas -v`'s "Used N registers".
//!
//! Provenance: NVIDIA Turing introduced a scalar "uniform datapath" with its own 64-entry
//! register file and integer-only uniform instructions (`UMOV`, `UIADD3`, `ULDC`, `USHF`,
//! `ULOP3`, `UISETP`, ...), see Jia, Maggioni, Smith & Scarpazza, "Dissecting the NVIDIA Turing
//! T4 GPU via Microbenchmarking" (2019), §2 and the CUDA Binary Utilities instruction-set
//! tables for sm_75. Kernel parameters live in constant bank 0 (PTX ISA §5.1.6.1 note on
//! kernel parameter space; SASS operands `c[0x0][...]`).
//!
//! A virtual register is uniform when every definition is unguarded, is an integer/bit operation
//! the uniform datapath has (no floating point, no loads other than `ld.param` of a kernel
//! parameter or `ld.const`), reads only uniform operands (immediates, symbol addresses,
//! `%ctaid`, `%nctaid`, `%ntid`, `%gridid`, uniform registers), and lies outside the divergent
//! region of every branch whose predicate is not uniform (divergence analysis in the style of
//! Coutinho et al., "Divergence Analysis and Optimizations", PACT 2011).

use crate::ir::{AddrBase, Function, Opcode, Operand, Reg, Space, Sreg, Sym};

/// Per virtual register: true if warp-uniform.
pub fn uniform_regs(f: &Function) -> Vec<bool> {
    uniform_regs_impl(f, false)
}

/// Like [`uniform_regs`], but a register with a single definition counts as uniform even when
/// that definition lies in a divergent region: every thread that executes it computes the same
/// value from the same uniform operands (the divergence rule only matters where definitions
/// from different paths meet). This is what sm_75 SASS does: `ULDC`/`UIMAD.WIDE` in code after a
/// thread-dependent `@P0 EXIT` (`bfs_commit`; `sim/testdata/ptxas_sched.py`). Used by the
/// register-pressure estimate of [`super::schedule`] and, on a target with a uniform register
/// file, by the allocation ([`super::regalloc::uniform_candidates`];
/// [`super::regalloc::allocate_for`] adds the interference a warp-wide write inside a
/// divergent region needs).
pub fn uniform_values(f: &Function) -> Vec<bool> {
    uniform_regs_impl(f, true)
}

fn uniform_regs_impl(f: &Function, single_def_free: bool) -> Vec<bool> {
    let nv = f.regs.len();
    let mut ndefs = vec![0u32; nv];
    for ins in &f.instrs {
        ins.for_each_write(|r| {
            if let Some(x) = ndefs.get_mut(r.idx()) {
                *x += 1;
            }
        });
    }
    let mut uni = vec![f.is_kernel; nv];
    if !f.is_kernel {
        return uni;
    }
    let cfg = &f.cfg;
    let branches = guarded_branches(f);
    loop {
        let mut changed = false;
        // blocks controlled by a non-uniform branch (the union of their regions, without
        // listing each region: a chain of branches to one target makes those quadratic)
        let divergent = cfg.region_union(
            branches
                .iter()
                .filter(|(_, g)| !uni[g.idx()])
                .map(|&(b, _)| b as u32),
        );
        for (pc, ins) in f.instrs.iter().enumerate() {
            let mut defs = Vec::new();
            ins.for_each_write(|r| defs.push(r));
            if defs.is_empty() || defs.iter().all(|d| !uni[d.idx()]) {
                continue;
            }
            let single = single_def_free && defs.iter().all(|d| ndefs[d.idx()] == 1);
            let ok = ins.guard.is_none()
                && (single || !divergent[cfg.block_of[pc] as usize])
                && op_is_uniform_capable(ins)
                && ins.src.iter().all(|o| operand_uniform(o, &uni));
            if !ok {
                for d in defs {
                    if uni[d.idx()] {
                        uni[d.idx()] = false;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // registers never written are not uniform values
    let mut written = vec![false; nv];
    for ins in &f.instrs {
        ins.for_each_write(|r| written[r.idx()] = true);
    }
    for (u, w) in uni.iter_mut().zip(written) {
        *u &= w;
    }
    uni
}

/// Every conditional branch of `f`: its block and its guard predicate.
pub(crate) fn guarded_branches(f: &Function) -> Vec<(usize, Reg)> {
    f.cfg
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| {
            let last = f.instrs.get(blk.last() as usize)?;
            let g = last.guard.filter(|_| last.is_branch())?;
            Some((b, g.reg))
        })
        .collect()
}

/// Every conditional branch of `f`: its block, its guard predicate and the blocks of its
/// region (up to the branch block's immediate post-dominator, [`crate::ir::Cfg::region`]), the
/// region that diverges when the guard differs between the warp's threads. (The tests'
/// reference; the analyses avoid listing every region, [`crate::ir::Cfg::region_union`].)
#[cfg(test)]
pub(crate) fn branch_regions(f: &Function) -> Vec<(usize, Reg, Vec<u32>)> {
    let mut scratch = crate::ir::RegionScratch::default();
    f.cfg
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| {
            let last = f.instrs.get(blk.last() as usize)?;
            let g = last.guard.filter(|_| last.is_branch())?;
            let mut region = Vec::new();
            f.cfg.region_into(b as u32, &mut scratch, &mut region);
            Some((b, g.reg, region))
        })
        .collect()
}

/// True if the uniform datapath has `ins`'s operation (integer/bit operations, `ld.param` of a
/// kernel parameter, `ld.const`; module docs).
pub(crate) fn op_is_uniform_capable(ins: &crate::ir::Instr) -> bool {
    use Opcode::*;
    match ins.op {
        Ld => {
            matches!(ins.space, Space::Param | Space::Const)
                && ins.vec == 1
                && match ins.src.first() {
                    Some(Operand::Addr(a)) => {
                        ins.space == Space::Const || matches!(a.base, AddrBase::Sym(Sym::Param(_)))
                    }
                    _ => false,
                }
        }
        Add | Sub | Mul | Mad | Shl | Shr | And | Or | Xor | Not | Mov | Cvt | Cvta | Selp
        | Setp | Min | Max | Neg | Abs | Bfe | Bfi | Popc | Clz | Brev | Prmt | Mul24 | Mad24
        | Shf | Lop3 => !ins.ty.is_float() && !ins.ty2.is_float() && ins.vec == 1,
        _ => false,
    }
}

fn operand_uniform(o: &Operand, uni: &[bool]) -> bool {
    match o {
        Operand::Reg(r) | Operand::NegPred(r) => uni.get(r.idx()).copied().unwrap_or(false),
        Operand::Imm(_) | Operand::Sym(..) | Operand::Sink => true,
        Operand::Special(s) => matches!(
            s,
            Sreg::Ctaid(_)
                | Sreg::Nctaid(_)
                | Sreg::Ntid(_)
                | Sreg::GridId
                | Sreg::DynamicSmemSize
                | Sreg::TotalSmemSize
        ),
        Operand::Addr(a) => match a.base {
            AddrBase::Reg(r) => uni.get(r.idx()).copied().unwrap_or(false),
            _ => true,
        },
        Operand::Vec(v) => v.iter().all(|e| operand_uniform(e, uni)),
        Operand::Label(_) => true,
    }
}

/// Per virtual register: true if the value is a kernel parameter (`ld.param` of the kernel's own
/// parameter) or a `cvta`/`mov` of one. ptxas reads such values directly from constant bank 0
/// (`c[0x0][offset]` operands, PTX ISA §5.1.6.1: kernel parameters are in the constant-bank
/// backed `.param` space), so they need no general register.
pub fn param_regs(f: &Function) -> Vec<bool> {
    let nv = f.regs.len();
    let mut p = vec![f.is_kernel; nv];
    if !f.is_kernel {
        return p;
    }
    let mut written = vec![false; nv];
    loop {
        let mut changed = false;
        for ins in &f.instrs {
            let mut defs = Vec::new();
            ins.for_each_write(|r| defs.push(r));
            if defs.is_empty() {
                continue;
            }
            let ok = ins.guard.is_none()
                && match ins.op {
                    Opcode::Ld => {
                        ins.space == Space::Param
                            && matches!(
                                ins.src.first(),
                                Some(Operand::Addr(crate::ir::Addr {
                                    base: AddrBase::Sym(Sym::Param(_)),
                                    ..
                                }))
                            )
                    }
                    Opcode::Cvta | Opcode::Mov => ins.src.iter().all(|o| match o {
                        Operand::Reg(r) => p.get(r.idx()).copied().unwrap_or(false),
                        _ => false,
                    }),
                    _ => false,
                };
            for d in defs {
                written[d.idx()] = true;
                if !ok && p[d.idx()] {
                    p[d.idx()] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (x, w) in p.iter_mut().zip(written) {
        *x &= w;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parser::parse_unscheduled;

    #[test]
    fn params_and_block_ids_are_uniform_thread_ids_are_not() {
        let src = ".version 7.0\n.target sm_75\n.address_size 64\n.entry k(.param .u64 p, .param .u32 n)\n{\n\
            .reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<3>;\n.reg .f32 %f<2>;\n\
            ld.param.u64 %rd0, [p];\nld.param.u32 %r0, [n];\ncvta.to.global.u64 %rd1, %rd0;\n\
            mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.s32 %r3, %r1, %r0, %r2;\n\
            mul.lo.s32 %r4, %r1, %r0;\nsetp.ge.s32 %p0, %r3, %r0;\n@%p0 bra $E;\nadd.s32 %r5, %r4, 1;\n\
            ld.global.f32 %f0, [%rd1];\n$E:\nret;\n}\n";
        // source order (with `parse`, `analysis::sink` moves `ld.param %rd0` into the region)
        let m = parse_unscheduled("t", src).unwrap();
        let f = m.function("k").unwrap();
        let u = uniform_regs(f);
        let name = |i: usize| f.regs[i].name.as_str();
        let uni: Vec<&str> = (0..f.regs.len()).filter(|&i| u[i]).map(name).collect();
        // %r5 is defined inside the divergent region of `@%p0 bra` (%p0 depends on %tid)
        assert_eq!(uni, vec!["%r0", "%r1", "%r4", "%rd0", "%rd1"]);
    }

    /// [`uniform_regs_impl`] as it was written first: every branch's region listed, and the
    /// divergent blocks their union (the definition the union walk must reproduce).
    fn uniform_by_listed_regions(f: &Function, single_def_free: bool) -> Vec<bool> {
        let nv = f.regs.len();
        let mut ndefs = vec![0u32; nv];
        for ins in &f.instrs {
            ins.for_each_write(|r| ndefs[r.idx()] += 1);
        }
        let mut uni = vec![f.is_kernel; nv];
        let regions = branch_regions(f);
        loop {
            let mut changed = false;
            let mut divergent = vec![false; f.cfg.blocks.len()];
            for (_, guard, region) in &regions {
                if !uni[guard.idx()] {
                    for &x in region {
                        divergent[x as usize] = true;
                    }
                }
            }
            for (pc, ins) in f.instrs.iter().enumerate() {
                let mut defs = Vec::new();
                ins.for_each_write(|r| defs.push(r));
                if defs.is_empty() || defs.iter().all(|d| !uni[d.idx()]) {
                    continue;
                }
                let single = single_def_free && defs.iter().all(|d| ndefs[d.idx()] == 1);
                let ok = ins.guard.is_none()
                    && (single || !divergent[f.cfg.block_of[pc] as usize])
                    && op_is_uniform_capable(ins)
                    && ins.src.iter().all(|o| operand_uniform(o, &uni));
                if !ok {
                    for d in defs {
                        changed |= std::mem::replace(&mut uni[d.idx()], false);
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut written = vec![false; nv];
        for ins in &f.instrs {
            ins.for_each_write(|r| written[r.idx()] = true);
        }
        for (u, w) in uni.iter_mut().zip(written) {
            *u &= w;
        }
        uni
    }

    #[test]
    fn union_of_regions_gives_the_uniform_values_of_listed_regions() {
        let mut uniform = 0;
        for seed in 0..400 {
            let src = crate::analysis::testgen::random_kernel(seed, 12);
            let m = crate::ptx::parse("random.ptx", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
            let f = m.function("k").unwrap();
            for single in [false, true] {
                let want = uniform_by_listed_regions(f, single);
                assert_eq!(uniform_regs_impl(f, single), want, "seed {seed}\n{src}");
                uniform += want.iter().filter(|&&u| u).count();
            }
        }
        // the kernels have uniform values to lose
        assert!(uniform > 400, "{uniform}");
    }

    #[test]
    fn a_chain_of_early_exits_is_divergent_after_its_first_branch() {
        // `if (tid == i) goto end; r += ctaid` 3000 times: every branch's region is every
        // later block (the regions' sizes sum to 4.5 M); their union is walked once
        let mut body = String::new();
        for i in 0..3000 {
            body += &format!(
                "setp.eq.u32 %p1, %r2, {i};\n@%p1 bra END;\nmov.u32 %r5, %ctaid.x;\n\
                 add.u32 %r3, %r3, %r5;\n"
            );
        }
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<3>;\nmov.u32 %r2, %tid.x;\n\
             mov.u32 %r3, 0;\n{body}END:\nld.param.u64 %rd1, [p];\nst.global.u32 [%rd1], %r3;\n\
             ret;\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap();
        let f = m.function("k").unwrap();
        let u = uniform_regs(f);
        let name = |i: usize| f.regs[i].name.as_str();
        let uni: Vec<&str> = (0..f.regs.len()).filter(|&i| u[i]).map(name).collect();
        // %r5 (ctaid) is redefined in the divergent blocks: not uniform; the parameter is
        assert_eq!(uni, vec!["%rd1"]);
        assert_eq!(u, uniform_by_listed_regions(f, false));
    }
}
