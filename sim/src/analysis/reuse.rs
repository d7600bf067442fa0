//! Static reuse distances (Malekeh, Malekeh, §III-A).
//!
//! The reuse distance of a register operand is the number of instructions until the same
//! architectural register is read again. The seed measures it dynamically by profiling; the
//! static version here takes, over all CFG paths, the *minimum* instruction count to the next
//! read (min-plus backward dataflow), and `None` when the register is overwritten or the
//! thread exits first. Malekeh classifies a reuse as *near* below the threshold
//! `RTHLD` = 12, found best empirically (§III-A), see [`RTHLD`].

use super::liveness::UseDef;
use crate::ir::Cfg;

/// Malekeh §III-A: "we used only one RTHLD ... and empirically found 12 provides the best
/// results".
pub const RTHLD: u32 = 12;

const INF: u32 = u32::MAX;

/// Reuse distances per operand, indexable by PC.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reuse {
    /// Per PC, per entry of `UseDef::uses[pc]` (architectural units): distance to the next read.
    pub src: Vec<Vec<Option<u32>>>,
    /// Per PC, per entry of `UseDef::defs[pc]`: distance from the write to the first read.
    pub dst: Vec<Vec<Option<u32>>>,
}

impl Reuse {
    /// True if the distance is *near* (`< RTHLD`).
    pub fn is_near(d: Option<u32>) -> bool {
        d.is_some_and(|d| d < RTHLD)
    }
}

/// Computes reuse distances over `units` architectural units.
pub fn compute(cfg: &Cfg, ud: &UseDef, units: usize) -> Reuse {
    let nb = cfg.blocks.len();
    // first access of each unit in each block: Some(k, is_read)
    let mut first: Vec<Vec<(u32, u32, bool)>> = vec![Vec::new(); nb];
    for (b, blk) in cfg.blocks.iter().enumerate() {
        let mut seen = vec![false; units];
        for pc in blk.range() {
            let k = pc as u32 - blk.start;
            for &u in &ud.uses[pc] {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    first[b].push((u, k, true));
                }
            }
            if ud.kills[pc] {
                for &u in &ud.defs[pc] {
                    if !seen[u as usize] {
                        seen[u as usize] = true;
                        first[b].push((u, k, false));
                    }
                }
            }
        }
    }
    let mut din = vec![vec![INF; units]; nb];
    let mut dout = vec![vec![INF; units]; nb];
    let mut changed = true;
    let order: Vec<u32> = cfg.rpo.iter().rev().copied().collect();
    while changed {
        changed = false;
        for &b in &order {
            let b = b as usize;
            let mut out = vec![INF; units];
            for &s in &cfg.succs[b] {
                for (o, &i) in out.iter_mut().zip(&din[s as usize]) {
                    *o = (*o).min(i);
                }
            }
            let len = cfg.blocks[b].end - cfg.blocks[b].start;
            let mut inn: Vec<u32> = out.iter().map(|&o| o.saturating_add(len)).collect();
            for &(u, k, is_read) in &first[b] {
                inn[u as usize] = if is_read { k } else { INF };
            }
            if inn != din[b] {
                din[b] = inn;
                changed = true;
            }
            dout[b] = out;
        }
    }
    let n = cfg.block_of.len();
    let mut r = Reuse {
        src: vec![Vec::new(); n],
        dst: vec![Vec::new(); n],
    };
    let next_read = |pc: usize, u: u32| -> Option<u32> {
        let b = cfg.block_of[pc] as usize;
        let blk = cfg.blocks[b];
        for j in pc + 1..blk.end as usize {
            if ud.uses[j].contains(&u) {
                return Some((j - pc) as u32);
            }
            if ud.kills[j] && ud.defs[j].contains(&u) {
                return None;
            }
        }
        let d = dout[b][u as usize];
        (d != INF).then(|| d.saturating_add(blk.end - pc as u32))
    };
    for pc in 0..n {
        let killed_here = ud.kills[pc];
        r.src[pc] = ud.uses[pc]
            .iter()
            .map(|&u| {
                if killed_here && ud.defs[pc].contains(&u) {
                    None
                } else {
                    next_read(pc, u)
                }
            })
            .collect();
        r.dst[pc] = ud.defs[pc].iter().map(|&u| next_read(pc, u)).collect();
    }
    r
}
