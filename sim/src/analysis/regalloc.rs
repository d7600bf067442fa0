//! Register allocation: PTX virtual registers → architectural 32-bit registers, the way ptxas
//! lays them out.
//!
//! * 32-bit values take one register; 8/16-bit values take a whole 32-bit register (SASS has
//!   no sub-word registers); 64-bit values take an aligned even/odd pair `R2k:R2k+1`; 128-bit
//!   values an aligned quad (NVIDIA, "CUDA Binary Utilities", SASS instruction set reference:
//!   64-bit operands name the even register of a pair).
//! * Predicates live in a separate predicate file (`P0..P6` on sm_70+) and are coloured
//!   separately.
//! * Two values interfere when one is defined while the other is live (Chaitin et al.,
//!   "Register allocation via coloring", 1981). Colouring is greedy, visiting values in order
//!   of definition along the reverse post-order of the CFG, which for programs in (near) SSA
//!   form is a perfect elimination order of the chordal interference graph (Hack, Grund &
//!   Goos, "Register allocation for programs in SSA form", CC 2006) — i.e. it uses
//!   max-live registers. The register count is the highest register used + 1, as `ptxas -v`
//!   reports it.
//! * Warp-uniform values (see [`super::uniform`]) are identified but stay in the general file:
//!   moving them (or only the kernel-parameter values) out of the count was measured against
//!   `ptxas -v` on the workload suite and made the error worse (37–42 % vs 27 %), i.e. ptxas on
//!   sm_75 keeps most of them in general registers.
//! * ptxas schedules long-latency loads early to cover memory latency (Volkov, "Better
//!   performance at lower occupancy", GTC 2010, on ILP from independent loads; NVIDIA CUDA C++
//!   Best Practices Guide, "Instruction-level parallelism"). The interference graph therefore
//!   also includes the interferences of a per-block *hoisted* order in which every load moves up
//!   to just after the last instruction it depends on (data dependences, and any store, atomic,
//!   barrier, call or warp-synchronous instruction before it). The union of both graphs keeps
//!   the mapping valid for the program order the executor runs.

use super::liveness::{Liveness, UseDef};
use crate::ir::{Function, Instr, Opcode, RegClass, Space};

/// An architectural register: `R0..R254` or `P0..` (predicates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchReg {
    R(u16),
    P(u16),
}

impl std::fmt::Display for ArchReg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchReg::R(r) => write!(f, "R{r}"),
            ArchReg::P(p) => write!(f, "P{p}"),
        }
    }
}

/// Result of register allocation for one function.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// Base architectural register of each virtual register (`None` if never used).
    /// A 64-bit value at `R(2k)` also occupies `R(2k+1)`.
    pub map: Vec<Option<ArchReg>>,
    /// Number of 32-bit registers slots per virtual register (0 for predicates).
    pub slots: Vec<u8>,
    /// General registers used (highest index + 1), as `ptxas -v` reports.
    pub registers: u32,
    /// Predicate registers used.
    pub predicates: u32,
}

/// The ptxas-model register count (see the module docs): program-order interference plus
/// load-hoisted interference. This is the number to compare with `ptxas -v`;
/// [`Allocation::registers`] is the size of the program-order mapping the executor uses.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxasEstimate {
    /// General registers (what `ptxas -v` calls "Used N registers").
    pub registers: u32,
    /// Number of warp-uniform virtual registers (informational, see [`super::uniform`]).
    pub uniform_values: u32,
    /// Per virtual register: warp-uniform.
    pub uniform: Vec<bool>,
}

impl Allocation {
    /// The architectural registers (all slots) of virtual register `v`.
    pub fn arch_regs(&self, v: usize) -> impl Iterator<Item = ArchReg> + '_ {
        let base = self.map.get(v).copied().flatten();
        let n = self.slots.get(v).copied().unwrap_or(0);
        let count = match base {
            Some(ArchReg::P(_)) => 1,
            Some(ArchReg::R(_)) => n,
            None => 0,
        };
        (0..count).filter_map(move |k| match base {
            Some(ArchReg::R(r)) => r.checked_add(u16::from(k)).map(ArchReg::R),
            Some(ArchReg::P(p)) => Some(ArchReg::P(p)),
            None => None,
        })
    }

    /// Dense unit index of an architectural register: GPRs `0..registers`, then predicates.
    pub fn unit(&self, a: ArchReg) -> u32 {
        match a {
            ArchReg::R(r) => u32::from(r),
            ArchReg::P(p) => self.registers + u32::from(p),
        }
    }

    /// Inverse of [`Allocation::unit`].
    pub fn arch_of_unit(&self, u: u32) -> ArchReg {
        if u < self.registers {
            ArchReg::R(u as u16)
        } else {
            ArchReg::P((u - self.registers) as u16)
        }
    }

    /// Number of units (`registers + predicates`).
    pub fn units(&self) -> usize {
        (self.registers + self.predicates) as usize
    }
}

/// Allocates `f`'s virtual registers given their liveness, in program order: every value in
/// the general (`R`) or predicate (`P`) file. This is the mapping the executor runs.
pub fn allocate(f: &Function, ud: &UseDef, live: &Liveness) -> Allocation {
    let none = vec![false; f.regs.len()];
    colour(f, ud, live, &none, false).0
}

/// The ptxas-model count: program-order plus load-hoisted interference (module docs).
pub fn ptxas_estimate(f: &Function, ud: &UseDef, live: &Liveness) -> PtxasEstimate {
    let uniform = super::uniform::uniform_regs(f);
    let none = vec![false; f.regs.len()];
    let (a, _) = colour(f, ud, live, &none, true);
    let uniform_values = uniform.iter().filter(|&&u| u).count() as u32;
    PtxasEstimate {
        registers: a.registers,
        uniform_values,
        uniform,
    }
}

/// Greedy colouring; values flagged in `uniform` go to a third file whose size is returned
/// separately (and whose values are left unmapped in the returned allocation).
fn colour(
    f: &Function,
    ud: &UseDef,
    live: &Liveness,
    uniform: &[bool],
    hoist: bool,
) -> (Allocation, u32) {
    let nv = f.regs.len();
    let class: Vec<RegClass> = f.regs.iter().map(|r| r.class()).collect();
    let is_pred = |v: usize| class.get(v) == Some(&RegClass::Pred);
    // register file of each value: 0 = R, 1 = P, 2 = UR
    let file = |v: usize| -> u8 {
        if is_pred(v) {
            1
        } else if uniform.get(v).copied().unwrap_or(false) {
            2
        } else {
            0
        }
    };
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let add = |a: u32, b: u32, adj: &mut Vec<Vec<u32>>| {
        if a != b && file(a as usize) == file(b as usize) {
            if let Some(x) = adj.get_mut(a as usize) {
                x.push(b);
            }
            if let Some(x) = adj.get_mut(b as usize) {
                x.push(a);
            }
        }
    };
    let covered = f.cfg.block_of.len() == ud.defs.len()
        && live.block_out.len() == f.cfg.blocks.len()
        && ud.uses.len() == ud.defs.len()
        && ud.kills.len() == ud.defs.len();
    if covered {
        // Walk each block backwards from its live-out set, keeping the live units in a sparse
        // set: the set after `pc` is exactly `live.live_out[pc]` (same transfer function), but
        // a definition costs O(live) instead of a scan of the whole bit set (issue 3).
        let mut cur = SparseSet::new(nv);
        for (b, blk) in f.cfg.blocks.iter().enumerate() {
            cur.clear();
            for u in live.block_out[b].iter() {
                cur.insert(u);
            }
            for pc in blk.range().rev() {
                let defs = &ud.defs[pc];
                for &d in defs {
                    for &l in cur.members() {
                        add(d, l, &mut adj);
                    }
                }
                for (i, &a) in defs.iter().enumerate() {
                    for &b in &defs[i + 1..] {
                        add(a, b, &mut adj);
                    }
                }
                if ud.kills[pc] {
                    for &d in defs {
                        cur.remove(d as usize);
                    }
                }
                for &u in &ud.uses[pc] {
                    cur.insert(u as usize);
                }
            }
        }
    } else {
        for pc in 0..ud.defs.len() {
            let defs = &ud.defs[pc];
            if defs.is_empty() {
                continue;
            }
            if let Some(lo) = live.live_out.get(pc) {
                for &d in defs {
                    for l in lo.iter() {
                        add(d, l as u32, &mut adj);
                    }
                }
            }
            for (i, &a) in defs.iter().enumerate() {
                for &b in &defs[i + 1..] {
                    add(a, b, &mut adj);
                }
            }
        }
    }
    if hoist {
        hoisted_interference(f, ud, live, &mut |a, b| add(a, b, &mut adj));
    }
    // values live on entry (read before written) are all live together at the entry
    if let Some(entry) = live.block_in.first() {
        let ins: Vec<u32> = entry.iter().map(|x| x as u32).collect();
        for (i, &a) in ins.iter().enumerate() {
            for &b in &ins[i + 1..] {
                add(a, b, &mut adj);
            }
        }
    }
    for a in adj.iter_mut() {
        a.sort_unstable();
        a.dedup();
    }
    // colouring order: first definition along RPO, then values only ever read
    let mut order = Vec::with_capacity(nv);
    let mut placed = vec![false; nv];
    let mut used = vec![false; nv];
    for pc in 0..ud.defs.len() {
        for &u in ud.uses[pc].iter().chain(&ud.defs[pc]) {
            if let Some(x) = used.get_mut(u as usize) {
                *x = true;
            }
        }
    }
    for &b in &f.cfg.rpo {
        if let Some(blk) = f.cfg.blocks.get(b as usize) {
            for pc in blk.range() {
                for &d in &ud.defs[pc] {
                    if !placed[d as usize] {
                        placed[d as usize] = true;
                        order.push(d as usize);
                    }
                }
            }
        }
    }
    for v in 0..nv {
        if used[v] && !placed[v] {
            order.push(v);
        }
    }
    let slots: Vec<u8> = class.iter().map(|c| c.slots() as u8).collect();
    let mut map: Vec<Option<ArchReg>> = vec![None; nv];
    let mut umap: Vec<Option<u16>> = vec![None; nv];
    let (mut registers, mut predicates, mut uniform_registers) = (0u32, 0u32, 0u32);
    let mut busy: Vec<bool> = Vec::new();
    for v in order {
        busy.clear();
        let pred = is_pred(v);
        let uni = file(v) == 2;
        for &n in &adj[v] {
            let other = if uni {
                umap[n as usize].map(ArchReg::R)
            } else {
                map[n as usize]
            };
            match other {
                Some(ArchReg::R(r)) if !pred => {
                    let end = usize::from(r) + usize::from(slots[n as usize]);
                    if busy.len() < end {
                        busy.resize(end, false);
                    }
                    for s in busy.iter_mut().take(end).skip(usize::from(r)) {
                        *s = true;
                    }
                }
                Some(ArchReg::P(p)) if pred => {
                    let p = usize::from(p);
                    if busy.len() <= p {
                        busy.resize(p + 1, false);
                    }
                    busy[p] = true;
                }
                _ => {}
            }
        }
        let width = if pred {
            1
        } else {
            usize::from(slots[v]).max(1)
        };
        let mut base = 0usize;
        while (base..base + width).any(|s| busy.get(s).copied().unwrap_or(false)) {
            base += width;
        }
        let Ok(b16) = u16::try_from(base) else {
            continue;
        };
        if pred {
            map[v] = Some(ArchReg::P(b16));
            predicates = predicates.max(base as u32 + 1);
        } else if uni {
            umap[v] = Some(b16);
            uniform_registers = uniform_registers.max((base + width) as u32);
        } else {
            map[v] = Some(ArchReg::R(b16));
            registers = registers.max((base + width) as u32);
        }
    }
    (
        Allocation {
            map,
            slots,
            registers,
            predicates,
        },
        uniform_registers,
    )
}

/// True for instructions a load may not be hoisted above.
fn is_load_fence(ins: &Instr) -> bool {
    use Opcode::*;
    matches!(
        ins.op,
        St | Atom
            | Red
            | Bar
            | BarWarp
            | Membar
            | Fence
            | Call
            | Ret
            | Exit
            | Trap
            | Bra
            | Vote
            | Shfl
            | Match
            | Redux
            | Activemask
            | Nanosleep
    )
}

fn is_hoistable_load(ins: &Instr) -> bool {
    matches!(ins.op, Opcode::Ld | Opcode::Ldu) && ins.space != Space::Param
}

/// Adds the interferences of each block executed in load-hoisted order (module docs).
fn hoisted_interference(
    f: &Function,
    ud: &UseDef,
    live: &Liveness,
    add: &mut impl FnMut(u32, u32),
) {
    for (b, blk) in f.cfg.blocks.iter().enumerate() {
        let pcs: Vec<usize> = blk.range().collect();
        if !pcs.iter().any(|&pc| is_hoistable_load(&f.instrs[pc])) {
            continue;
        }
        let mut order: Vec<usize> = Vec::with_capacity(pcs.len());
        for &pc in &pcs {
            let ins = &f.instrs[pc];
            if !is_hoistable_load(ins) {
                order.push(pc);
                continue;
            }
            let (r, w) = (&ud.uses[pc], &ud.defs[pc]);
            let mut at = 0;
            for (k, &x) in order.iter().enumerate().rev() {
                let (rx, wx) = (&ud.uses[x], &ud.defs[x]);
                let conflict = is_load_fence(&f.instrs[x])
                    || wx.iter().any(|d| r.contains(d) || w.contains(d))
                    || rx.iter().any(|u| w.contains(u));
                if conflict {
                    at = k + 1;
                    break;
                }
            }
            order.insert(at, pc);
        }
        if order == pcs {
            continue;
        }
        let mut cur = SparseSet::new(live.units);
        for u in live.block_out[b].iter() {
            cur.insert(u);
        }
        for &pc in order.iter().rev() {
            for &d in &ud.defs[pc] {
                for &l in cur.members() {
                    add(d, l);
                }
            }
            if ud.kills[pc] {
                for &d in &ud.defs[pc] {
                    cur.remove(d as usize);
                }
            }
            for &u in &ud.uses[pc] {
                cur.insert(u as usize);
            }
        }
    }
}

/// A set of dense indices `0..n` with O(1) insert/remove and iteration over its members only
/// (Briggs & Torczon, "An efficient representation for sparse sets", LOPLAS 1993).
struct SparseSet {
    members: Vec<u32>,
    /// Position of each index in `members`, `u32::MAX` if absent.
    pos: Vec<u32>,
}

impl SparseSet {
    fn new(n: usize) -> SparseSet {
        SparseSet {
            members: Vec::new(),
            pos: vec![u32::MAX; n],
        }
    }

    fn members(&self) -> &[u32] {
        &self.members
    }

    fn clear(&mut self) {
        for &m in &self.members {
            self.pos[m as usize] = u32::MAX;
        }
        self.members.clear();
    }

    /// Inserts `i` (ignored when out of range).
    fn insert(&mut self, i: usize) {
        if let Some(p) = self.pos.get_mut(i) {
            if *p == u32::MAX {
                *p = self.members.len() as u32;
                self.members.push(i as u32);
            }
        }
    }

    fn remove(&mut self, i: usize) {
        let Some(&p) = self.pos.get(i) else {
            return;
        };
        if p == u32::MAX {
            return;
        }
        self.members.swap_remove(p as usize);
        if let Some(&moved) = self.members.get(p as usize) {
            self.pos[moved as usize] = p;
        }
        self.pos[i] = u32::MAX;
    }
}
