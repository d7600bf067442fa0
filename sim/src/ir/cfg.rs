//! Basic blocks, control-flow graph, dominators, immediate post-dominators and natural loops.
//!
//! Block boundaries follow the usual leader rule: the first instruction, every branch target and
//! every instruction after a `bra`/`ret`/`exit`/`trap` start a block. A guarded terminator
//! (`@p bra L`, `@p ret`) also falls through (PTX ISA §9.7.11).
//!
//! Dominators and post-dominators use the iterative algorithm of Cooper, Harvey & Kennedy,
//! "A Simple, Fast Dominance Algorithm" (2001). Post-dominators are computed on the reversed
//! graph with a virtual exit node that every exiting block flows to; a block's immediate
//! post-dominator is the SIMT reconvergence point of a branch ending it (the standard
//! immediate-post-dominator reconvergence of Fung et al., MICRO 2007, used by Jeon & Annavaram 2014 §4.3).
//! Natural loops: an edge t→h where h dominates t is a back edge; the loop body is h plus every
//! block that reaches t without passing through h.

use super::instr::{Instr, Opcode};

/// A basic block: instructions `start..end` of the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub end: u32,
}

impl Block {
    /// Instruction index range.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Index of the last instruction.
    pub fn last(&self) -> u32 {
        self.end.saturating_sub(1)
    }
}

/// A natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Header block.
    pub header: u32,
    /// Blocks of the loop body including the header, sorted.
    pub blocks: Vec<u32>,
    /// Sources of back edges to the header.
    pub latches: Vec<u32>,
}

/// Control-flow graph of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    /// Successor blocks (deduplicated; branch target first, then fall-through).
    pub succs: Vec<Vec<u32>>,
    pub preds: Vec<Vec<u32>>,
    /// Block of each instruction.
    pub block_of: Vec<u32>,
    /// Reverse post-order of the blocks reachable from block 0.
    pub rpo: Vec<u32>,
    /// Immediate dominator (`None` for the entry and unreachable blocks).
    pub idom: Vec<Option<u32>>,
    /// Immediate post-dominator. `None`: the virtual exit (the block's paths end at different
    /// exits, or it can never reach an exit).
    pub ipdom: Vec<Option<u32>>,
    /// Natural loops, one per header, ordered by header.
    pub loops: Vec<Loop>,
    /// Loop nesting depth of each block (0 = not in a loop).
    pub loop_depth: Vec<u32>,
    /// Pre-order index of each block in a depth-first walk of the dominator tree
    /// (`u32::MAX`: unreachable); with [`Cfg::dom_last`] it answers [`Cfg::dominates`] in
    /// constant time instead of a walk up the dominator tree, which is as deep as the
    /// function is long for a chain of branches.
    pub dom_pre: Vec<u32>,
    /// The block reaches an exit (it is in the post-dominator tree; `ipdom` is `None` both for
    /// blocks whose immediate post-dominator is the virtual exit and for those that never
    /// exit).
    pub reaches_exit: Vec<bool>,
    /// The largest pre-order index in each block's dominator subtree: `a` dominates `b` iff
    /// `dom_pre[a] <= dom_pre[b] <= dom_last[a]` (the ancestor test of a depth-first
    /// numbering; Tarjan, "Finding Dominators in Directed Graphs", 1974, uses the same
    /// numbering).
    pub dom_last: Vec<u32>,
}

impl Cfg {
    /// Builds the CFG of `instrs`. Branch targets must be valid instruction indices
    /// (the parser guarantees it); an out-of-range target is ignored.
    pub fn build(instrs: &[Instr]) -> Cfg {
        let n = instrs.len();
        if n == 0 {
            return Cfg::default();
        }
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for (i, ins) in instrs.iter().enumerate() {
            if let Some(t) = ins.branch_target() {
                if (t as usize) < n {
                    leader[t as usize] = true;
                }
            }
            if ins.op.is_terminator() {
                leader[i + 1] = true;
            }
        }
        let mut blocks = Vec::new();
        let mut block_of = vec![0u32; n];
        let mut start = 0usize;
        for i in 1..=n {
            if leader[i] {
                let b = blocks.len() as u32;
                for slot in &mut block_of[start..i] {
                    *slot = b;
                }
                blocks.push(Block {
                    start: start as u32,
                    end: i as u32,
                });
                start = i;
            }
        }
        let nb = blocks.len();
        let mut succs = vec![Vec::new(); nb];
        for (b, blk) in blocks.iter().enumerate() {
            let last = &instrs[blk.last() as usize];
            let mut s = Vec::with_capacity(2);
            if let Some(t) = last.branch_target() {
                if (t as usize) < n {
                    s.push(block_of[t as usize]);
                }
            }
            let falls = !last.op.is_terminator() || last.guard.is_some();
            if falls && (blk.end as usize) < n {
                let f = block_of[blk.end as usize];
                if !s.contains(&f) {
                    s.push(f);
                }
            }
            succs[b] = s;
        }
        let mut preds = vec![Vec::new(); nb];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s as usize].push(b as u32);
            }
        }
        let rpo = reverse_postorder(nb, &[0], |b| &succs[b]);
        let idom = dominators(nb, &rpo, |b| &preds[b], 0);
        // post-dominators: reversed graph plus a virtual exit node `nb`
        let exits: Vec<u32> = (0..nb as u32)
            .filter(|&b| {
                let last = &instrs[blocks[b as usize].last() as usize];
                succs[b as usize].is_empty()
                    || (matches!(last.op, Opcode::Ret | Opcode::Exit | Opcode::Trap)
                        && last.guard.is_some())
            })
            .collect();
        let mut rsuccs: Vec<Vec<u32>> = preds.clone();
        rsuccs.push(exits.clone());
        let mut rpreds: Vec<Vec<u32>> = succs.clone();
        for &e in &exits {
            rpreds[e as usize].push(nb as u32);
        }
        rpreds.push(Vec::new());
        let rrpo = reverse_postorder(nb + 1, &[nb as u32], |b| &rsuccs[b]);
        let ipd = dominators(nb + 1, &rrpo, |b| &rpreds[b], nb as u32);
        let ipdom = (0..nb)
            .map(|b| ipd[b].filter(|&p| (p as usize) < nb))
            .collect();
        let mut reaches_exit = vec![false; nb];
        for &b in &rrpo {
            if let Some(r) = reaches_exit.get_mut(b as usize) {
                *r = true;
            }
        }
        let (dom_pre, dom_last) = dominator_intervals(nb, &idom);
        let (loops, loop_depth) = natural_loops(nb, &succs, &preds, &dom_pre, &dom_last, &rpo);
        Cfg {
            blocks,
            succs,
            preds,
            block_of,
            rpo,
            idom,
            ipdom,
            loops,
            loop_depth,
            dom_pre,
            dom_last,
            reaches_exit,
        }
    }

    /// True if block `a` dominates block `b` (every block dominates itself; an unreachable
    /// block is dominated by itself only). Constant time ([`Cfg::dom_pre`]).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        a == b || dom_ancestor(&self.dom_pre, &self.dom_last, a, b)
    }

    /// The reconvergence PC of a branch ending block `b`: the first instruction of its immediate
    /// post-dominator, or `None` when threads only meet again at exit.
    pub fn reconv_pc(&self, b: u32) -> Option<u32> {
        let p = self.ipdom.get(b as usize).copied().flatten()?;
        self.blocks.get(p as usize).map(|blk| blk.start)
    }

    /// The reconvergence PC of the branch at instruction `pc` (see [`Cfg::reconv_pc`]).
    pub fn reconv_pc_of_instr(&self, pc: u32) -> Option<u32> {
        let b = *self.block_of.get(pc as usize)?;
        self.reconv_pc(b)
    }

    /// Blocks of the divergent region of a branch ending block `b`: every block reachable from
    /// `b`'s successors without passing through `ipdom(b)` (sorted).
    pub fn region(&self, b: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.region_into(b, &mut RegionScratch::default(), &mut out);
        out
    }

    /// [`Cfg::region`] into `out` (cleared first), with work space `s` reused across calls:
    /// a walk costs the region's size, not the function's (a fresh `seen` array per branch made
    /// a chain of branches quadratic).
    pub fn region_into(&self, b: u32, s: &mut RegionScratch, out: &mut Vec<u32>) {
        out.clear();
        let nb = self.blocks.len();
        if s.seen.len() != nb || s.stamp == u32::MAX {
            s.seen.clear();
            s.seen.resize(nb, 0);
            s.stamp = 0;
        }
        s.stamp += 1;
        let stamp = s.stamp;
        let stop = self.ipdom.get(b as usize).copied().flatten();
        s.stack.clear();
        s.stack
            .extend(self.succs.get(b as usize).into_iter().flatten().copied());
        while let Some(x) = s.stack.pop() {
            if Some(x) == stop || s.seen[x as usize] == stamp {
                continue;
            }
            s.seen[x as usize] = stamp;
            out.push(x);
            s.stack.extend(self.succs[x as usize].iter().copied());
        }
        out.sort_unstable();
    }
    /// The union of the regions ([`Cfg::region`]) of the branches ending blocks `branches`:
    /// `true` for every block in at least one. Listing the regions costs the sum of their
    /// sizes, quadratic in the length of a chain of branches to one target or of nested
    /// branches; this walk visits each block's successors once, so it is linear:
    ///
    /// * The regions of branches with the same immediate post-dominator `p` are together the
    ///   blocks reachable from their successors without passing `p`: one walk per `p`.
    /// * The walks run in order of decreasing post-dominator-tree depth of `p` (the virtual
    ///   exit last), and a block is expanded only by the first walk that reaches it. When the
    ///   walk for `p` reaches a block `y` that the walk for an earlier `q` expanded, what `y`
    ///   reaches without `p` is what it reaches without `q` (already in the union) plus what
    ///   `q` reaches without `p`; and when `y` reaches an exit, `q` is in the union: both `p`
    ///   and `q` strictly post-dominate `y` (a block of a region that reaches an exit is
    ///   strictly post-dominated by the region's `ipdom`), so they lie on one path of the
    ///   post-dominator tree, `p` above `q`, and a simple path from `y` to an exit meets `q`
    ///   before `p`. The walk for `p` therefore continues at `q`. A `y` that reaches no exit
    ///   reaches no post-dominator either: nothing to add.
    pub fn region_union(&self, branches: impl IntoIterator<Item = u32>) -> Vec<bool> {
        let nb = self.blocks.len();
        let mut out = vec![false; nb];
        // post-dominator-tree depth of each block (the virtual exit is 0)
        let mut depth = vec![0u32; nb];
        for b in 0..nb {
            if depth[b] != 0 || !self.reaches_exit[b] {
                continue;
            }
            let mut chain = vec![b];
            let mut x = b;
            let base = loop {
                match self.ipdom[x] {
                    Some(p) if depth[p as usize] == 0 => {
                        x = p as usize;
                        chain.push(x);
                    }
                    Some(p) => break depth[p as usize],
                    None => break 0,
                }
            };
            for (i, &c) in chain.iter().rev().enumerate() {
                depth[c] = base + 1 + i as u32;
            }
        }
        // (depth of the stop, descending; stop; branch): deepest stops first, the virtual exit
        // (`None`, depth 0) last
        let mut by_stop: Vec<(std::cmp::Reverse<u32>, Option<u32>, u32)> = branches
            .into_iter()
            .filter(|&b| (b as usize) < nb)
            .map(|b| {
                let stop = self.ipdom[b as usize];
                let d = stop.map_or(0, |p| depth[p as usize]);
                (std::cmp::Reverse(d), stop, b)
            })
            .collect();
        by_stop.sort_unstable();
        // the stop of the walk that expanded each block
        let mut first: Vec<Option<Option<u32>>> = vec![None; nb];
        let mut seen = vec![usize::MAX; nb];
        let mut stack = Vec::new();
        for (g, group) in by_stop.chunk_by(|a, b| a.1 == b.1).enumerate() {
            let stop = group[0].1;
            for &(_, _, b) in group {
                stack.extend(self.succs[b as usize].iter().copied());
            }
            while let Some(x) = stack.pop() {
                let xi = x as usize;
                if Some(x) == stop || seen[xi] == g {
                    continue;
                }
                seen[xi] = g;
                match first[xi] {
                    None => {
                        first[xi] = Some(stop);
                        out[xi] = true;
                        stack.extend(self.succs[xi].iter().copied());
                    }
                    Some(q) => {
                        if let (true, Some(q)) = (self.reaches_exit[xi], q) {
                            stack.push(q);
                        }
                    }
                }
            }
        }
        out
    }

    /// A topological index of each block's strongly connected component (Tarjan, "Depth-first
    /// search and linear graph algorithms", 1972: components complete in reverse topological
    /// order): if block `a` reaches block `b`, then `topo[a] <= topo[b]`, so a larger index
    /// proves that `a` does not reach `b` in constant time.
    pub fn scc_topo(&self) -> Vec<u32> {
        let nb = self.blocks.len();
        const NONE: u32 = u32::MAX;
        let mut index = vec![NONE; nb];
        let mut low = vec![0u32; nb];
        let mut on_stack = vec![false; nb];
        let mut comp = vec![NONE; nb];
        let mut stack: Vec<u32> = Vec::new();
        let mut next = 0u32;
        let mut ncomp = 0u32;
        for root in 0..nb as u32 {
            if index[root as usize] != NONE {
                continue;
            }
            let mut walk: Vec<(u32, usize)> = vec![(root, 0)];
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut k)) = walk.last_mut() {
                let vi = v as usize;
                if let Some(&w) = self.succs[vi].get(*k) {
                    *k += 1;
                    let wi = w as usize;
                    if index[wi] == NONE {
                        index[wi] = next;
                        low[wi] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[wi] = true;
                        walk.push((w, 0));
                    } else if on_stack[wi] {
                        low[vi] = low[vi].min(index[wi]);
                    }
                    continue;
                }
                walk.pop();
                if let Some(&(u, _)) = walk.last() {
                    low[u as usize] = low[u as usize].min(low[vi]);
                }
                if low[vi] == index[vi] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
        // components complete sinks first: reverse the numbering
        comp.iter().map(|&c| ncomp - 1 - c).collect()
    }
}

/// Work space of [`Cfg::region_into`]: a visit stamp per block and a stack.
#[derive(Clone, Debug, Default)]
pub struct RegionScratch {
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

/// Reverse post-order from `roots` (iterative DFS).
fn reverse_postorder<'a>(
    n: usize,
    roots: &[u32],
    succ: impl Fn(usize) -> &'a Vec<u32>,
) -> Vec<u32> {
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    for &r in roots {
        if seen[r as usize] {
            continue;
        }
        seen[r as usize] = true;
        let mut stack: Vec<(u32, usize)> = vec![(r, 0)];
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            let ss = succ(b as usize);
            if *k < ss.len() {
                let s = ss[*k];
                *k += 1;
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

/// Cooper–Harvey–Kennedy iterative dominators. Returns the immediate dominator of each node
/// (`None` for the root and for nodes not reachable from it).
fn dominators<'a>(
    n: usize,
    rpo: &[u32],
    pred: impl Fn(usize) -> &'a Vec<u32>,
    root: u32,
) -> Vec<Option<u32>> {
    const UNDEF: usize = usize::MAX;
    let mut order = vec![UNDEF; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b as usize] = i;
    }
    let mut idom = vec![UNDEF; n];
    idom[root as usize] = root as usize;
    let intersect = |idom: &Vec<usize>, mut a: usize, mut b: usize| {
        while a != b {
            while order[a] > order[b] {
                a = idom[a];
            }
            while order[b] > order[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let b = b as usize;
            let mut new = UNDEF;
            for &p in pred(b) {
                let p = p as usize;
                if idom[p] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(&idom, p, new)
                };
                // the root dominates everything: no other predecessor can change it (without
                // this, a block that every branch of a long chain jumps to walks the chain
                // once per predecessor)
                if new == root as usize {
                    break;
                }
            }
            if new != UNDEF && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|b| {
            if b == root as usize || idom[b] == UNDEF {
                None
            } else {
                Some(idom[b] as u32)
            }
        })
        .collect()
}

/// Pre-order index and last pre-order index of each block's subtree in a depth-first walk of
/// the dominator tree given by `idom` (root: block 0); `u32::MAX` for unreachable blocks.
fn dominator_intervals(nb: usize, idom: &[Option<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut pre = vec![u32::MAX; nb];
    let mut last = vec![u32::MAX; nb];
    if nb == 0 {
        return (pre, last);
    }
    // children lists in one array (counting sort by parent)
    let mut start = vec![0u32; nb + 1];
    for p in idom.iter().flatten() {
        start[*p as usize + 1] += 1;
    }
    for i in 0..nb {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut kids = vec![0u32; start[nb] as usize];
    for (b, p) in idom.iter().enumerate() {
        if let Some(p) = p {
            kids[fill[*p as usize] as usize] = b as u32;
            fill[*p as usize] += 1;
        }
    }
    let mut next = 0u32;
    let mut stack: Vec<(u32, u32)> = vec![(0, start[0])];
    pre[0] = next;
    next += 1;
    while let Some(&mut (b, ref mut k)) = stack.last_mut() {
        if *k < start[b as usize + 1] {
            let c = kids[*k as usize];
            *k += 1;
            pre[c as usize] = next;
            next += 1;
            stack.push((c, start[c as usize]));
        } else {
            last[b as usize] = next - 1;
            stack.pop();
        }
    }
    (pre, last)
}

/// `a` is a proper or improper ancestor of `b` in the dominator tree numbered by
/// [`dominator_intervals`] (false when either is unreachable).
fn dom_ancestor(pre: &[u32], last: &[u32], a: u32, b: u32) -> bool {
    match (
        pre.get(a as usize),
        last.get(a as usize),
        pre.get(b as usize),
    ) {
        (Some(&pa), Some(&la), Some(&pb)) => {
            pa != u32::MAX && pb != u32::MAX && pa <= pb && pb <= la
        }
        _ => false,
    }
}

fn natural_loops(
    nb: usize,
    succs: &[Vec<u32>],
    preds: &[Vec<u32>],
    dom_pre: &[u32],
    dom_last: &[u32],
    rpo: &[u32],
) -> (Vec<Loop>, Vec<u32>) {
    // A block's dominators precede it in reverse post-order, so an edge t→h with h after t
    // cannot be a back edge; the others take the constant-time interval test.
    let mut rpo_index = vec![usize::MAX; nb];
    for (i, &b) in rpo.iter().enumerate() {
        if let Some(x) = rpo_index.get_mut(b as usize) {
            *x = i;
        }
    }
    let dominates = |a: u32, b: u32| a == b || dom_ancestor(dom_pre, dom_last, a, b);
    // back edges by header, latches in block order
    let mut by_header: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for t in 0..nb as u32 {
        for &h in &succs[t as usize] {
            let (ih, it) = (rpo_index[h as usize], rpo_index[t as usize]);
            if ih != usize::MAX && it != usize::MAX && ih > it {
                continue;
            }
            if !dominates(h, t) {
                continue;
            }
            by_header.entry(h).or_default().push(t);
        }
    }
    // one body walk per loop over a shared mark array (a fresh `nb`-sized array per loop
    // made a chain of loops quadratic in time and memory)
    let mut mark = vec![u32::MAX; nb];
    let mut depth = vec![0u32; nb];
    let mut stack = Vec::new();
    let loops = by_header
        .into_iter()
        .map(|(header, latches)| {
            let mut blocks = vec![header];
            mark[header as usize] = header;
            for &t in &latches {
                stack.push(t);
                while let Some(x) = stack.pop() {
                    if mark[x as usize] == header {
                        continue;
                    }
                    mark[x as usize] = header;
                    blocks.push(x);
                    stack.extend(preds[x as usize].iter().copied());
                }
            }
            blocks.sort_unstable();
            for &b in &blocks {
                depth[b as usize] += 1;
            }
            Loop {
                header,
                blocks,
                latches,
            }
        })
        .collect();
    (loops, depth)
}

#[cfg(test)]
mod tests {
    use super::super::instr::{Guard, Operand, Reg};
    use super::*;

    fn op(o: Opcode) -> Instr {
        Instr::new(o)
    }
    fn bra(t: u32, guarded: bool) -> Instr {
        let mut i = Instr::new(Opcode::Bra);
        i.src = vec![Operand::Label(t)];
        if guarded {
            i.guard = Some(Guard {
                reg: Reg(0),
                neg: false,
            });
        }
        i
    }

    #[test]
    fn diamond_reconverges_at_join() {
        // 0: @p bra 3 | 1: add | 2: bra 4 | 3: add | 4: ret
        let instrs = vec![
            bra(3, true),
            op(Opcode::Add),
            bra(4, false),
            op(Opcode::Add),
            op(Opcode::Ret),
        ];
        let c = Cfg::build(&instrs);
        assert_eq!(c.blocks.len(), 4);
        assert_eq!(c.succs[0], vec![2, 1]);
        assert_eq!(c.ipdom[0], Some(3));
        assert_eq!(c.reconv_pc(0), Some(4));
        assert_eq!(c.ipdom[3], None);
        assert_eq!(c.idom[3], Some(0));
        assert_eq!(c.region(0), vec![1, 2]);
        assert!(c.loops.is_empty());
    }

    #[test]
    fn loop_detected() {
        // 0: add | 1: add | 2: @p bra 1 | 3: ret
        let instrs = vec![
            op(Opcode::Add),
            op(Opcode::Add),
            bra(1, true),
            op(Opcode::Ret),
        ];
        let c = Cfg::build(&instrs);
        assert_eq!(c.blocks.len(), 3);
        assert_eq!(c.loops.len(), 1);
        assert_eq!(c.loops[0].header, 1);
        assert_eq!(c.loops[0].blocks, vec![1]);
        assert_eq!(c.loop_depth, vec![0, 1, 0]);
        assert_eq!(c.ipdom[1], Some(2));
    }

    #[test]
    fn infinite_loop_has_no_ipdom() {
        let instrs = vec![op(Opcode::Add), bra(0, false)];
        let c = Cfg::build(&instrs);
        assert_eq!(c.ipdom[0], None);
        assert_eq!(c.loops.len(), 1);
    }

    /// Instructions of a random control-flow graph: adds, guarded and unguarded branches to
    /// any instruction (back edges, irreducible loops, unreachable code) and returns.
    fn random_instrs(seed: u64, n: usize) -> Vec<Instr> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let mut v: Vec<Instr> = (0..n)
            .map(|_| match next() % 8 {
                0..=2 => op(Opcode::Add),
                3..=5 => bra((next() % n as u64) as u32, true),
                6 => bra((next() % n as u64) as u32, false),
                _ => op(Opcode::Ret),
            })
            .collect();
        v.push(op(Opcode::Ret));
        v
    }

    /// `a` dominates `b` by walking `b`'s immediate dominators (the definition).
    fn dominates_by_walk(c: &Cfg, a: u32, b: u32) -> bool {
        let mut x = Some(b);
        while let Some(y) = x {
            if y == a {
                return true;
            }
            x = c.idom[y as usize];
        }
        false
    }

    #[test]
    fn dominance_intervals_agree_with_the_dominator_tree_walk() {
        for seed in 0..300 {
            let c = Cfg::build(&random_instrs(seed, 30));
            let nb = c.blocks.len() as u32;
            for a in 0..nb {
                for b in 0..nb {
                    assert_eq!(
                        c.dominates(a, b),
                        dominates_by_walk(&c, a, b),
                        "seed {seed}: dominates({a}, {b})"
                    );
                }
            }
        }
    }

    #[test]
    fn region_with_reused_scratch_equals_a_fresh_walk() {
        let mut s = RegionScratch::default();
        let mut out = Vec::new();
        for seed in 0..100 {
            let c = Cfg::build(&random_instrs(seed, 30));
            for b in 0..c.blocks.len() as u32 {
                // the definition: reachable from the successors without passing ipdom(b)
                let stop = c.ipdom[b as usize];
                let mut seen = vec![false; c.blocks.len()];
                let mut stack = c.succs[b as usize].clone();
                let mut want = Vec::new();
                while let Some(x) = stack.pop() {
                    if Some(x) == stop || seen[x as usize] {
                        continue;
                    }
                    seen[x as usize] = true;
                    want.push(x);
                    stack.extend(c.succs[x as usize].iter().copied());
                }
                want.sort_unstable();
                c.region_into(b, &mut s, &mut out);
                assert_eq!(out, want, "seed {seed}, block {b}");
            }
        }
    }

    #[test]
    fn chain_of_loops_has_one_loop_per_header_and_depth_one() {
        // per loop: add | @p bra (the add); 4000 loops, then ret: a walk per loop over a fresh
        // array of every block would be 4000 x 8000 steps
        let n = 4000u32;
        let mut instrs = Vec::new();
        for i in 0..n {
            instrs.push(op(Opcode::Add));
            instrs.push(bra(2 * i, true));
        }
        instrs.push(op(Opcode::Ret));
        let c = Cfg::build(&instrs);
        assert_eq!(c.loops.len(), n as usize);
        assert!(c.loops.iter().all(|l| l.blocks == vec![l.header]));
        assert_eq!(c.loop_depth.iter().filter(|&&d| d == 1).count(), n as usize);
        // a chain: block k dominates every later block
        assert!(c.dominates(0, n - 1) && !c.dominates(n - 1, 0));
    }

    #[test]
    fn natural_loops_agree_with_a_fresh_walk_per_back_edge() {
        for seed in 0..300 {
            let c = Cfg::build(&random_instrs(seed, 30));
            let nb = c.blocks.len();
            let mut want: std::collections::BTreeMap<u32, (Vec<bool>, Vec<u32>)> =
                Default::default();
            for t in 0..nb as u32 {
                for &h in &c.succs[t as usize] {
                    if dominates_by_walk(&c, h, t) {
                        let e = want
                            .entry(h)
                            .or_insert_with(|| (vec![false; nb], Vec::new()));
                        e.1.push(t);
                        e.0[h as usize] = true;
                        let mut stack = vec![t];
                        while let Some(x) = stack.pop() {
                            if !e.0[x as usize] {
                                e.0[x as usize] = true;
                                stack.extend(c.preds[x as usize].iter().copied());
                            }
                        }
                    }
                }
            }
            let want: Vec<Loop> = want
                .into_iter()
                .map(|(header, (body, latches))| Loop {
                    header,
                    blocks: (0..nb as u32).filter(|&b| body[b as usize]).collect(),
                    latches,
                })
                .collect();
            assert_eq!(c.loops, want, "seed {seed}");
        }
    }

    #[test]
    fn component_order_respects_reachability() {
        for seed in 0..200 {
            let c = Cfg::build(&random_instrs(seed, 30));
            let topo = c.scc_topo();
            let nb = c.blocks.len();
            let reach: Vec<Vec<bool>> = (0..nb)
                .map(|a| {
                    let mut seen = vec![false; nb];
                    let mut stack = c.succs[a].clone();
                    while let Some(x) = stack.pop() {
                        if !std::mem::replace(&mut seen[x as usize], true) {
                            stack.extend(c.succs[x as usize].iter().copied());
                        }
                    }
                    seen
                })
                .collect();
            for a in 0..nb {
                for b in 0..nb {
                    if reach[a][b] {
                        assert!(topo[a] <= topo[b], "seed {seed}: {a} -> {b}");
                        // a cycle is one component
                        assert_eq!(reach[b][a], topo[a] == topo[b], "seed {seed}: {a} <-> {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn region_union_equals_the_union_of_the_regions() {
        for seed in 0..400 {
            let c = Cfg::build(&random_instrs(seed, 40));
            let nb = c.blocks.len() as u32;
            // every block as a branch, and every other one
            for step in [1, 2, 3] {
                let bs: Vec<u32> = (0..nb).step_by(step).collect();
                let mut want = vec![false; nb as usize];
                for &b in &bs {
                    for x in c.region(b) {
                        want[x as usize] = true;
                    }
                }
                assert_eq!(
                    c.region_union(bs.iter().copied()),
                    want,
                    "seed {seed}, step {step}"
                );
            }
        }
    }
}
