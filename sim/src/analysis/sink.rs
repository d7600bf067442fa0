//! Sinking of free definitions: kernel-parameter loads, invariant special registers,
//! immediates and symbol addresses move down to just before their first use (or the nearest
//! point that dominates all uses, outside any loop the definition was not already in);
//! such definitions that are never used are deleted.
//!
//! Why: ptxas never holds these values in a register from the top of the kernel. Kernel
//! parameters live in constant bank 0 and SASS reads them as `c[0x0][0x160+...]` operands
//! wherever they are needed (PTX ISA 8.x §5.1.6.1, "Kernel function parameters" are in the
//! `.param` state space, located in constant memory on current GPUs; CUDA Binary Utilities,
//! instruction-set reference: constant-bank operands). `%tid`/`%ctaid` are read by `S2R` where
//! first used, and immediates are instruction operands. `sim/testdata/ptxas_sass_regs.py`
//! measures it on the suite: every kernel's SASS reads its parameters as `c[0x0][0x160+...]`
//! operands (`ULDC`, `IMAD.WIDE ... c[0x0][...]`, `ISETP ... c[0x0][...]`) at the point of use
//! (CSV column `cbank_param_ops` vs `ld_param`).
//!
//! NVRTC emits every `ld.param` in the entry block, so without this pass every parameter
//! occupies a register (a pair for a pointer) across the whole kernel. Moving the definition
//! (not duplicating it) keeps the dynamic instruction count: a definition never moves into a
//! loop it was not in, so it executes at most as often as before.
//!
//! The pass is semantics-preserving: a candidate is an unguarded instruction without side
//! effects whose result depends only on values that cannot change during the thread's life
//! (its own register sources are themselves candidates), whose destination is written exactly
//! once in the function, and whose every use is dominated by its new position.

use crate::ir::{Cfg, Function, Instr, Module, Opcode, Operand, Space, Sreg, Sym};

/// Runs [`sink_function`] on every defined function of `m`.
pub fn sink_module(m: &mut Module) {
    for f in m.functions.iter_mut() {
        if f.defined && !f.instrs.is_empty() {
            sink_function(f);
        }
    }
}

/// True for special registers whose value is fixed for the thread's life (PTX ISA §10).
fn invariant_sreg(s: Sreg) -> bool {
    matches!(
        s,
        Sreg::Tid(_)
            | Sreg::Ntid(_)
            | Sreg::Ctaid(_)
            | Sreg::Nctaid(_)
            | Sreg::LaneId
            | Sreg::GridId
            | Sreg::LanemaskEq
            | Sreg::LanemaskLe
            | Sreg::LanemaskLt
            | Sreg::LanemaskGe
            | Sreg::LanemaskGt
    )
}

/// The shape of a candidate: `Some(sources)` with its register sources (which must be
/// candidates too), `None` if `ins` is not free.
fn free_def(f: &Function, ins: &Instr) -> Option<Vec<u32>> {
    if ins.guard.is_some() || ins.call.is_some() || ins.dst.len() != 1 || ins.vec != 1 {
        return None;
    }
    if !matches!(ins.dst.first(), Some(Operand::Reg(_))) {
        return None;
    }
    match ins.op {
        Opcode::Ld if ins.space == Space::Param && f.is_kernel => match ins.src.as_slice() {
            [Operand::Addr(a)] if matches!(a.base, crate::ir::AddrBase::Sym(Sym::Param(_))) => {
                Some(Vec::new())
            }
            _ => None,
        },
        Opcode::Mov => match ins.src.as_slice() {
            [Operand::Imm(_)] | [Operand::Sym(Sym::Global(_) | Sym::Local(_), _)] => {
                Some(Vec::new())
            }
            [Operand::Special(s)] if invariant_sreg(*s) => Some(Vec::new()),
            _ => None,
        },
        // generic <-> global address conversion of a free value (PTX ISA §9.7.8.20); ptxas folds
        // it away (the SASS has no instruction for it)
        Opcode::Cvta if ins.space == Space::Global => match ins.src.as_slice() {
            [Operand::Reg(r)] => Some(vec![r.0]),
            _ => None,
        },
        _ => None,
    }
}

/// Nearest common dominators by binary lifting over the dominator tree: `up[k][b]` is the
/// `2^k`-th dominator above `b` (the root maps to itself), so with the constant-time
/// [`Cfg::dominates`] a query takes O(log depth) steps instead of a walk up the tree, which
/// for a chain of branches is as long as the function (Bender & Farach-Colton, "The LCA
/// Problem Revisited", 2000, the jump-pointer method).
struct Ncd {
    up: Vec<Vec<u32>>,
}

impl Ncd {
    fn new(cfg: &Cfg) -> Ncd {
        let nb = cfg.blocks.len();
        let first: Vec<u32> = (0..nb)
            .map(|b| cfg.idom.get(b).copied().flatten().unwrap_or(b as u32))
            .collect();
        let mut up = vec![first];
        let levels = usize::BITS - nb.leading_zeros();
        for _ in 1..levels.max(1) {
            let prev = &up[up.len() - 1];
            let next: Vec<u32> = prev.iter().map(|&p| prev[p as usize]).collect();
            up.push(next);
        }
        Ncd { up }
    }

    /// Nearest common dominator of blocks `a` and `b` (`None` if they have none: an
    /// unreachable block).
    fn ncd(&self, cfg: &Cfg, a: u32, b: u32) -> Option<u32> {
        if cfg.dominates(a, b) {
            return Some(a);
        }
        let mut x = a;
        for level in self.up.iter().rev() {
            let y = level[x as usize];
            if !cfg.dominates(y, b) {
                x = y;
            }
        }
        let y = self.up[0][x as usize];
        cfg.dominates(y, b).then_some(y)
    }
}

/// Sinks the free definitions of `f` (module docs) and rebuilds its CFG and labels.
pub fn sink_function(f: &mut Function) {
    let n = f.instrs.len();
    let nv = f.regs.len();
    if f.cfg.block_of.len() != n || n == 0 {
        return;
    }
    let mut ndefs = vec![0u32; nv];
    let mut def_at = vec![usize::MAX; nv];
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (pc, ins) in f.instrs.iter().enumerate() {
        ins.for_each_write(|r| {
            if let Some(c) = ndefs.get_mut(r.idx()) {
                *c += 1;
                def_at[r.idx()] = pc;
            }
        });
        ins.for_each_read(|r| {
            if let Some(u) = uses.get_mut(r.idx()) {
                if u.last() != Some(&pc) {
                    u.push(pc);
                }
            }
        });
    }
    // candidates
    let mut cand: Vec<Option<Vec<u32>>> = f.instrs.iter().map(|i| free_def(f, i)).collect();
    for pc in 0..n {
        let ok = match &cand[pc] {
            None => continue,
            Some(srcs) => {
                let d = f.instrs[pc].writes();
                d.len() == 1
                    && ndefs.get(d[0].idx()) == Some(&1)
                    && srcs.iter().all(|&s| {
                        let at = def_at.get(s as usize).copied().unwrap_or(usize::MAX);
                        ndefs.get(s as usize) == Some(&1) && at < pc && cand[at].is_some()
                    })
            }
        };
        if !ok {
            cand[pc] = None;
        }
    }
    if cand.iter().all(|c| c.is_none()) {
        return;
    }
    let cfg = &f.cfg;
    let ncd = Ncd::new(cfg);
    // per-block instruction lists (old PCs), edited in place
    let mut lists: Vec<Vec<usize>> = cfg.blocks.iter().map(|b| b.range().collect()).collect();
    let mut blk: Vec<u32> = cfg.block_of.clone();
    let mut deleted = vec![false; n];
    let reachable: Vec<bool> = {
        let mut r = vec![false; cfg.blocks.len()];
        for &b in &cfg.rpo {
            r[b as usize] = true;
        }
        r
    };
    // later candidates first, so a chain (ld.param -> cvta) moves as a unit
    for pc in (0..n).rev() {
        if cand[pc].is_none() {
            continue;
        }
        let d = f.instrs[pc].writes()[0].idx();
        let home = blk[pc];
        if !reachable[home as usize] {
            continue;
        }
        let us: Vec<usize> = uses[d].iter().copied().filter(|&u| !deleted[u]).collect();
        if us.is_empty() {
            // dead: no side effects, delete
            lists[home as usize].retain(|&x| x != pc);
            deleted[pc] = true;
            continue;
        }
        let mut target = Some(blk[us[0]]);
        for &u in &us[1..] {
            target = target.and_then(|t| ncd.ncd(cfg, t, blk[u]));
        }
        let Some(mut t) = target else { continue };
        if !reachable[t as usize] || !cfg.dominates(home, t) {
            continue;
        }
        let depth = |b: u32| cfg.loop_depth.get(b as usize).copied().unwrap_or(0);
        while depth(t) > depth(home) {
            match cfg.idom.get(t as usize).copied().flatten() {
                Some(p) => t = p,
                None => break,
            }
        }
        if !cfg.dominates(home, t) {
            continue;
        }
        // position in `t`: before the first use there, else before the terminator
        let list = &lists[t as usize];
        // (`us` is in ascending PC order)
        let first_use = list.iter().position(|x| us.binary_search(x).is_ok());
        let pos = match first_use {
            Some(p) => p,
            None => {
                let last = list.last().copied();
                match last {
                    Some(l) if f.instrs[l].op.is_terminator() => list.len() - 1,
                    _ => list.len(),
                }
            }
        };
        // in the home block, only move down (never above its current place)
        if t == home {
            let cur = list.iter().position(|&x| x == pc).unwrap_or(0);
            if pos <= cur + 1 {
                continue;
            }
            let l = &mut lists[t as usize];
            l.insert(pos, pc);
            l.remove(cur);
        } else {
            lists[home as usize].retain(|&x| x != pc);
            lists[t as usize].insert(pos, pc);
            blk[pc] = t;
        }
    }
    rebuild(f, &lists);
}

/// Lays the instructions out block by block in the order of `lists`, remaps branch targets
/// and labels, and rebuilds the CFG.
fn rebuild(f: &mut Function, lists: &[Vec<usize>]) {
    let old_block_of = f.cfg.block_of.clone();
    let old_start: Vec<u32> = f.cfg.blocks.iter().map(|b| b.start).collect();
    let mut start = Vec::with_capacity(lists.len());
    let mut order = Vec::with_capacity(f.instrs.len());
    let mut new_index = vec![u32::MAX; f.instrs.len()];
    for l in lists {
        start.push(order.len() as u32);
        for &pc in l {
            if let Some(x) = new_index.get_mut(pc) {
                *x = order.len() as u32;
            }
            order.push(pc);
        }
    }
    let end = order.len() as u32;
    let remap = |old: u32| -> u32 {
        old_block_of
            .get(old as usize)
            .and_then(|&b| start.get(b as usize).copied())
            .unwrap_or(end)
    };
    let fix = |o: &mut Operand| {
        if let Operand::Label(t) = o {
            *t = remap(*t);
        }
    };
    let mut old: Vec<Option<Instr>> = std::mem::take(&mut f.instrs)
        .into_iter()
        .map(Some)
        .collect();
    let mut instrs = Vec::with_capacity(order.len());
    for pc in order {
        if let Some(mut ins) = old.get_mut(pc).and_then(Option::take) {
            ins.src.iter_mut().for_each(fix);
            ins.dst.iter_mut().for_each(fix);
            instrs.push(ins);
        }
    }
    // a label that starts a block follows the block; one in the middle of a block (never a
    // branch target) follows its instruction
    for v in f.labels.values_mut() {
        let b = old_block_of.get(*v as usize).copied();
        let at_start = b.and_then(|b| old_start.get(b as usize)) == Some(v);
        *v = match new_index.get(*v as usize) {
            Some(&i) if !at_start && i != u32::MAX => i,
            _ => remap(*v),
        };
    }
    f.instrs = instrs;
    f.cfg = Cfg::build(&f.instrs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parser::parse_unscheduled;

    const HDR: &str = ".version 7.0\n.target sm_75\n.address_size 64\n";

    fn kernel(body: &str) -> Function {
        let src = format!(
            "{HDR}.entry k(.param .u64 p, .param .u32 n)\n{{\n.reg .pred %p<3>;\n.reg .b32 %r<9>;\n\
             .reg .b64 %rd<5>;\n{body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    fn ops(f: &Function) -> Vec<String> {
        f.instrs
            .iter()
            .map(|i| format!("{:?}{}", i.op, i.line))
            .collect()
    }

    #[test]
    fn param_load_moves_to_its_use_block() {
        let mut f = kernel(
            "ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
             setp.ge.u32 %p1, %r2, %r1;\n@%p1 bra $E;\ncvta.to.global.u64 %rd2, %rd1;\n\
             st.global.u32 [%rd2], %r2;\n$E:\nret;",
        );
        let before = f.instrs.len();
        sink_function(&mut f);
        assert_eq!(f.instrs.len(), before);
        // ld.param %rd1 now sits in the guarded block, right before the cvta
        let o = ops(&f);
        let ld = o
            .iter()
            .position(|s| s.starts_with("Ld") && f.instrs[0].op != Opcode::Ld);
        assert!(ld.is_some(), "{o:?}");
        let bra = f.instrs.iter().position(|i| i.op == Opcode::Bra).unwrap();
        let ld_p = f
            .instrs
            .iter()
            .position(|i| i.op == Opcode::Ld && i.dst == vec![Operand::Reg(crate::ir::Reg(4))]);
        let cvta = f.instrs.iter().position(|i| i.op == Opcode::Cvta).unwrap();
        let ld_any: Vec<usize> = (0..f.instrs.len())
            .filter(|&i| f.instrs[i].op == Opcode::Ld)
            .collect();
        // the u64 load (first source line) is after the branch, just before the cvta
        let first_line = f.instrs.iter().map(|i| i.line).min().unwrap();
        let p_load = ld_any
            .iter()
            .copied()
            .find(|&i| f.instrs[i].line == first_line)
            .unwrap();
        assert!(p_load > bra && p_load + 1 == cvta, "{o:?} {ld_p:?}");
        // the branch target still is the `ret`
        let t = f.instrs[bra].branch_target().unwrap() as usize;
        assert_eq!(f.instrs[t].op, Opcode::Ret);
        assert_eq!(f.labels.get("$E").copied(), Some(t as u32));
        assert_eq!(f.cfg.blocks.len(), 3);
    }

    #[test]
    fn no_move_into_a_loop_and_dead_defs_go() {
        let mut f = kernel(
            "ld.param.u32 %r1, [n];\nmov.u32 %r7, 5;\nmov.u32 %r2, 0;\n$L:\nadd.u32 %r2, %r2, %r1;\n\
             setp.lt.u32 %p1, %r2, 100;\n@%p1 bra $L;\nret;",
        );
        sink_function(&mut f);
        // %r7 is dead and deleted; ld.param stays outside the loop (before its header)
        assert_eq!(f.instrs.len(), 6);
        let header = f.cfg.loops[0].header as usize;
        let start = f.cfg.blocks[header].start as usize;
        let ld = f.instrs.iter().position(|i| i.op == Opcode::Ld).unwrap();
        assert!(ld < start);
        assert_eq!(
            f.instrs[f.instrs.len() - 2].branch_target(),
            Some(start as u32)
        );
    }

    #[test]
    fn redefined_values_do_not_move() {
        let mut f = kernel(
            "mov.u32 %r1, 1;\nmov.u32 %r2, %tid.x;\nadd.u32 %r1, %r1, %r2;\n\
             st.global.u32 [%rd1], %r1;\nret;",
        );
        let before: Vec<String> = ops(&f);
        sink_function(&mut f);
        // %r1 has two definitions: stays; %tid is already right before its use
        assert_eq!(ops(&f), before);
    }

    /// The nearest common dominator by walking up from `a` (the definition).
    fn ncd_by_walk(cfg: &Cfg, a: u32, b: u32) -> Option<u32> {
        let mut x = Some(a);
        while let Some(y) = x {
            if cfg.dominates(y, b) {
                return Some(y);
            }
            x = cfg.idom[y as usize];
        }
        None
    }

    #[test]
    fn nearest_common_dominator_by_jumps_equals_the_walk() {
        // a chain of diamonds and loops with an unreachable tail
        let mut body = String::new();
        for i in 0..40 {
            body += &format!(
                "setp.lt.u32 %p1, %r1, {i};\n@%p1 bra $A{i};\nadd.u32 %r2, %r2, 1;\n$A{i}:\n"
            );
            if i % 7 == 3 {
                body += &format!("$B{i}:\nadd.u32 %r2, %r2, 1;\n@%p1 bra $B{i};\n");
            }
        }
        body += "ret;\nadd.u32 %r2, %r2, 1;\nret;";
        let f = kernel(&format!("mov.u32 %r1, %tid.x;\nmov.u32 %r2, 0;\n{body}"));
        let cfg = &f.cfg;
        let ncd = Ncd::new(cfg);
        let nb = cfg.blocks.len() as u32;
        for a in 0..nb {
            for b in 0..nb {
                assert_eq!(ncd.ncd(cfg, a, b), ncd_by_walk(cfg, a, b), "ncd({a}, {b})");
            }
        }
    }
}
