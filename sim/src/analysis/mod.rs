//! Static analyses over the IR: liveness, register allocation, release flags, reuse distances.
//!
//! [`analyze`] runs all of them on one function and returns an [`Analysis`] that the executor
//! and timing model index by PC (instruction index) or by block index.

pub mod bitset;
pub mod liveness;
pub mod narrow;
pub mod param_use;
pub mod regalloc;
pub mod release;
pub mod reuse;
pub mod schedule;
pub mod sink;
pub mod uniform;

use serde::Serialize;

pub use bitset::BitSet;
pub use liveness::{Liveness, UseDef};
pub use regalloc::{AllocTarget, Allocation, ArchReg};
pub use release::Release;
pub use reuse::{Reuse, RTHLD};

use crate::ir::{Function, Module, Operand, Space, Sym};

/// All per-function analysis results.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Reads/writes of virtual registers per PC (units = `Reg` indices).
    pub vreg_ud: UseDef,
    /// Liveness of virtual registers.
    pub vreg_live: Liveness,
    /// Virtual → architectural register mapping and the register count (the count `ptxas -v`
    /// is compared with; see [`regalloc`]).
    pub alloc: Allocation,
    /// Reads/writes of architectural registers per PC (units = [`Allocation::unit`]).
    pub arch_ud: UseDef,
    /// Liveness of architectural registers.
    pub arch_live: Liveness,
    /// Release flags (pir per PC, pbr per block), keyed by architectural register.
    pub release: Release,
    /// Reuse distance of every architectural operand (aligned with `arch_ud`).
    pub reuse: Reuse,
}

/// Virtual-register reads and writes of every instruction of `f`.
pub fn vreg_usedef(f: &Function) -> UseDef {
    let n = f.instrs.len();
    let mut ud = UseDef {
        uses: Vec::with_capacity(n),
        defs: Vec::with_capacity(n),
        kills: Vec::with_capacity(n),
    };
    for ins in &f.instrs {
        let mut u: Vec<u32> = Vec::with_capacity(4);
        ins.for_each_read(|r| u.push(r.0));
        u.sort_unstable();
        u.dedup();
        let mut d: Vec<u32> = Vec::with_capacity(2);
        ins.for_each_write(|r| d.push(r.0));
        d.sort_unstable();
        d.dedup();
        ud.uses.push(u);
        ud.defs.push(d);
        ud.kills.push(ins.guard.is_none());
    }
    ud
}

/// Runs every analysis on `f` for a GPU without a uniform register file
/// ([`AllocTarget::NO_UNIFORM`], e.g. the Fermi `gtx480` preset): [`analyze_for`].
pub fn analyze(f: &Function) -> Analysis {
    analyze_for(f, AllocTarget::NO_UNIFORM)
}

/// Runs every analysis on `f`, allocating registers for `target` (its uniform register file,
/// [`regalloc::allocate_for`]). Uniform registers are not register-file units: `arch_ud`,
/// `arch_live`, `release` and `reuse` cover the general and predicate registers only.
pub fn analyze_for(f: &Function, target: AllocTarget) -> Analysis {
    let vreg_ud = vreg_usedef(f);
    let vreg_live = Liveness::compute(&f.cfg, &vreg_ud, f.regs.len());
    let mut alloc = regalloc::allocate_for(f, &vreg_ud, &vreg_live, target);
    // the count ptxas reports also covers the registers its scheduler keeps busy
    // (`schedule`), within the budget; never below what the mapping itself needs
    let budget = f
        .tuning
        .maxnreg
        .map_or(schedule::BUDGET, |m| m.min(schedule::BUDGET));
    let sched = schedule::scheduled_registers(f, &vreg_ud, &vreg_live, budget);
    alloc.registers = alloc.span.max(sched);
    let map = |v: &Vec<u32>| -> Vec<u32> {
        let mut out: Vec<u32> = v
            .iter()
            .flat_map(|&r| alloc.arch_regs(r as usize).map(|a| alloc.unit(a)))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let arch_ud = UseDef {
        uses: vreg_ud.uses.iter().map(map).collect(),
        defs: vreg_ud.defs.iter().map(map).collect(),
        kills: vreg_ud.kills.clone(),
    };
    let units = alloc.units();
    let arch_live = Liveness::compute(&f.cfg, &arch_ud, units);
    let release = release::compute(f, &alloc, &arch_ud, &arch_live);
    let reuse = reuse::compute(&f.cfg, &arch_ud, units);
    Analysis {
        vreg_ud,
        vreg_live,
        alloc,
        arch_ud,
        arch_live,
        release,
        reuse,
    }
}

/// Summary of one kernel, as `regwatt ptx` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelReport {
    pub name: String,
    /// General registers per thread, as `ptxas -v` would report them ([`Allocation::registers`]:
    /// the executor's mapping or ptxas's scheduling pressure, whichever is larger).
    pub registers: u32,
    /// Registers the executor's own mapping needs ([`Allocation::span`], <= `registers`; the
    /// difference is ptxas's scheduling pressure, [`schedule`]).
    pub allocated_registers: u32,
    /// Predicate registers.
    pub predicates: u32,
    /// Uniform registers (`UR0..`) the allocation holds warp-uniform values in
    /// ([`Allocation::uniform`]; 0 on a target without a uniform file). `ptxas -v` for sm_75
    /// does not report uniform-register usage, so this count has no ptxas reference.
    pub uniform_registers: u32,
    /// Warp-uniform virtual registers (informational; see `analysis::uniform`).
    pub uniform_values: u32,
    /// Static shared memory: module-scope `.shared` variables the kernel (or a callee)
    /// references plus its function-scope `.shared` variables.
    pub shared_bytes: u32,
    /// Function-scope `.local` bytes of the kernel.
    pub local_bytes: u32,
    pub instructions: u32,
    pub basic_blocks: u32,
    /// Maximum simultaneously live 32-bit units after allocation.
    pub max_live: u32,
    pub loops: u32,
    pub divergent_branches: u32,
    /// Source operands flagged for release at their last use (Jeon & Annavaram 2014 pir).
    pub pir_flags: u32,
    /// Registers released at block starts / reconvergence points (Jeon & Annavaram 2014 pbr).
    pub pbr_entries: u32,
    /// Blocks carrying a pbr.
    pub pbr_blocks: u32,
    /// Deaths deferred out of divergent regions.
    pub deferred_releases: u32,
    /// Source operands whose static reuse distance is near (< RTHLD = 12, Malekeh).
    pub near_reuse_operands: u32,
    /// Source operands with any later reuse.
    pub reused_operands: u32,
    /// Functions the kernel calls (directly).
    pub calls: Vec<String>,
}

/// Builds the report of kernel `f` of module `m` from its analysis.
pub fn kernel_report(m: &Module, f: &Function, a: &Analysis) -> KernelReport {
    let reuse_all = a.reuse.src.iter().flatten();
    let (mut near, mut reused) = (0u32, 0u32);
    for d in reuse_all {
        if d.is_some() {
            reused += 1;
        }
        if Reuse::is_near(*d) {
            near += 1;
        }
    }
    let divergent = f
        .instrs
        .iter()
        .filter(|i| i.is_branch() && i.may_diverge())
        .count();
    KernelReport {
        name: f.name.clone(),
        registers: a.alloc.registers,
        allocated_registers: a.alloc.span,
        predicates: a.alloc.predicates,
        uniform_registers: a.alloc.uniform,
        uniform_values: uniform::uniform_regs(f).iter().filter(|&&u| u).count() as u32,
        shared_bytes: shared_bytes(m, f),
        local_bytes: f.local_bytes(),
        instructions: f.instrs.len() as u32,
        basic_blocks: f.cfg.blocks.len() as u32,
        max_live: a.arch_live.max_live() as u32,
        loops: f.cfg.loops.len() as u32,
        divergent_branches: divergent as u32,
        pir_flags: a.release.pir_count() as u32,
        pbr_entries: a.release.pbr_count() as u32,
        pbr_blocks: a.release.pbr_blocks() as u32,
        deferred_releases: a.release.deferred,
        near_reuse_operands: near,
        reused_operands: reused,
        calls: called_functions(m, f),
    }
}

/// Names of the functions `f` calls directly (sorted, deduplicated).
pub fn called_functions(m: &Module, f: &Function) -> Vec<String> {
    let mut v: Vec<String> = f
        .instrs
        .iter()
        .filter_map(|i| i.call.as_ref())
        .filter_map(|c| match c.target {
            crate::ir::CallTarget::Direct(j) => m.functions.get(j as usize).map(|g| g.name.clone()),
            crate::ir::CallTarget::Indirect(_) => None,
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Static shared bytes of kernel `f`: module-scope `.shared` variables referenced by `f` or any
/// function it calls (transitively), plus function-scope `.shared` variables, each aligned.
pub fn shared_bytes(m: &Module, f: &Function) -> u32 {
    let mut used = vec![false; m.globals.len()];
    let mut seen_f = vec![false; m.functions.len()];
    let mut stack: Vec<&Function> = vec![f];
    let mut local_shared: u64 = u64::from(f.shared_bytes());
    let mut first = true;
    while let Some(g) = stack.pop() {
        if !first {
            local_shared += u64::from(g.shared_bytes());
        }
        first = false;
        for ins in &g.instrs {
            let mut visit = |o: &Operand| {
                if let Some(Sym::Global(i)) = o.symbol() {
                    if let Some(u) = used.get_mut(i as usize) {
                        *u = true;
                    }
                }
            };
            ins.src.iter().for_each(&mut visit);
            ins.dst.iter().for_each(&mut visit);
            if let Some(c) = &ins.call {
                if let crate::ir::CallTarget::Direct(j) = c.target {
                    if let (Some(s), Some(h)) =
                        (seen_f.get_mut(j as usize), m.functions.get(j as usize))
                    {
                        if !*s {
                            *s = true;
                            stack.push(h);
                        }
                    }
                }
            }
        }
    }
    let globals = crate::ir::layout_bytes(
        m.globals
            .iter()
            .zip(&used)
            .filter(|(g, &u)| u && g.space == Space::Shared)
            .map(|(g, _)| g),
    );
    u32::try_from(local_shared + u64::from(globals)).unwrap_or(u32::MAX)
}

/// Random kernels for tests that compare an analysis with a reference implementation: blocks
/// of integer adds (some guarded), comparisons of thread-dependent and warp-uniform values,
/// loads and stores, ended by falls, unconditional and conditional branches to any block
/// (loops, irreducible flow, unreachable code) and (conditional) returns.
#[cfg(test)]
pub(crate) mod testgen {
    /// The PTX text of random kernel `k` number `seed` with up to `max_blocks` blocks.
    pub(crate) fn random_kernel(seed: u64, max_blocks: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66_D1CE_4E5B;
        let mut next = move |n: u64| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
        };
        let nb = 1 + next(max_blocks);
        let mut s = String::from(
            ".version 7.0\n.target sm_75\n.address_size 64\n\
             .visible .entry k(.param .u64 k_p, .param .u32 k_n)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<3>;\n\
             ld.param.u64 %rd0, [k_p];\nmov.u32 %r0, %tid.x;\nld.param.u32 %r6, [k_n];\n\
             mov.u32 %r7, %ctaid.x;\n",
        );
        for i in 0..nb {
            s += &format!("$B{i}:\n");
            for _ in 0..next(5) {
                let (a, b, c) = (next(8), next(8), next(6));
                s += &match next(7) {
                    0 | 1 => format!("add.s32 %r{c}, %r{a}, %r{b};\n"),
                    2 => format!("setp.lt.s32 %p{}, %r{a}, %r{b};\n", next(4)),
                    3 => format!("@%p{} add.s32 %r{c}, %r{a}, %r{b};\n", next(4)),
                    4 => format!("st.global.u32 [%rd0+4], %r{a};\n"),
                    5 => format!("ld.global.u32 %r{c}, [%rd0];\n"),
                    _ => format!("mul.lo.s32 %r{c}, %r{a}, %r7;\n"),
                };
            }
            s += &match next(11) {
                0..=2 => String::new(),
                3 | 4 => format!("bra.uni $B{};\n", next(nb)),
                5..=8 => format!("@%p{} bra $B{};\n", next(4), next(nb)),
                9 => "ret;\n".into(),
                _ => format!("@!%p{} ret;\n", next(4)),
            };
        }
        s += "ret;\n}\n";
        s
    }
}
