//! Backward liveness dataflow over abstract "units" (virtual registers, or architectural
//! registers after allocation).
//!
//! Classic iterative live-variable analysis (Aho, Lam, Sethi & Ullman, *Compilers*, 2nd ed.,
//! §9.2.5): `in[B] = use[B] ∪ (out[B] − def[B])`, `out[B] = ∪ in[S]` over successors.
//! A guarded write (`@p mov r, …`) does not kill `r`: lanes whose guard is false keep the old
//! value (PTX ISA §9.3), so it counts as a use as well as a definition.

use super::bitset::BitSet;
use crate::ir::Cfg;

/// Per-instruction unit reads and writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UseDef {
    /// Units read at each PC (deduplicated).
    pub uses: Vec<Vec<u32>>,
    /// Units written at each PC.
    pub defs: Vec<Vec<u32>>,
    /// True if the writes of this PC are unconditional (kill the old value).
    pub kills: Vec<bool>,
}

/// Liveness result.
#[derive(Clone, Debug, PartialEq)]
pub struct Liveness {
    /// Number of units.
    pub units: usize,
    /// Live-out set after each instruction.
    pub live_out: Vec<BitSet>,
    /// Live-in set of each block.
    pub block_in: Vec<BitSet>,
    /// Live-out set of each block.
    pub block_out: Vec<BitSet>,
}

impl Liveness {
    /// Solves liveness for `ud` over `cfg`.
    pub fn compute(cfg: &Cfg, ud: &UseDef, units: usize) -> Liveness {
        let nb = cfg.blocks.len();
        // per-block gen/kill
        let mut gen = vec![BitSet::new(units); nb];
        let mut kill = vec![BitSet::new(units); nb];
        for (b, blk) in cfg.blocks.iter().enumerate() {
            for pc in blk.range().rev() {
                if ud.kills.get(pc).copied().unwrap_or(false) {
                    for &d in ud.defs.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
                        kill[b].insert(d as usize);
                        gen[b].remove(d as usize);
                    }
                }
                for &u in ud.uses.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
                    gen[b].insert(u as usize);
                }
            }
        }
        let mut bin = gen.clone();
        let mut bout = vec![BitSet::new(units); nb];
        // iterate in post-order (reverse RPO) first, then any unreachable blocks
        let mut order: Vec<u32> = cfg.rpo.iter().rev().copied().collect();
        let mut seen = vec![false; nb];
        for &b in &order {
            seen[b as usize] = true;
        }
        order.extend((0..nb as u32).rev().filter(|&b| !seen[b as usize]));
        let mut changed = true;
        // scratch sets reused across iterations (no allocation per block visit)
        let mut out = BitSet::new(units);
        let mut inn = BitSet::new(units);
        while changed {
            changed = false;
            for &b in &order {
                let b = b as usize;
                out.clear();
                for &s in &cfg.succs[b] {
                    out.union_with(&bin[s as usize]);
                }
                // in = gen ∪ (out − kill)
                inn.assign_transfer(&out, &kill[b], &gen[b]);
                if inn != bin[b] {
                    bin[b].copy_from(&inn);
                    changed = true;
                }
                bout[b].copy_from(&out);
            }
        }
        let n = cfg.block_of.len();
        let mut live_out = vec![BitSet::new(units); n];
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let mut cur = bout[b].clone();
            for pc in blk.range().rev() {
                live_out[pc].copy_from(&cur);
                if ud.kills.get(pc).copied().unwrap_or(false) {
                    for &d in ud.defs.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
                        cur.remove(d as usize);
                    }
                }
                for &u in ud.uses.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
                    cur.insert(u as usize);
                }
            }
        }
        Liveness {
            units,
            live_out,
            block_in: bin,
            block_out: bout,
        }
    }

    /// Live-in set of instruction `pc` (recomputed from its live-out set).
    pub fn live_in(&self, pc: usize, ud: &UseDef) -> BitSet {
        let mut cur = self.live_out.get(pc).cloned().unwrap_or_default();
        if ud.kills.get(pc).copied().unwrap_or(false) {
            for &d in ud.defs.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
                cur.remove(d as usize);
            }
        }
        for &u in ud.uses.get(pc).map(|v| v.as_slice()).unwrap_or(&[]) {
            cur.insert(u as usize);
        }
        cur
    }

    /// Maximum number of simultaneously live units over all program points.
    pub fn max_live(&self) -> usize {
        self.live_out
            .iter()
            .chain(self.block_in.iter())
            .map(|s| s.count())
            .max()
            .unwrap_or(0)
    }
}
