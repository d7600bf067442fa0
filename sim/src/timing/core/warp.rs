//! A resident warp's state and its issue gate: the scoreboard verdict kept per warp slot
//! ([`Gate`]) and the `ready`/`waiting` masks of its sub-core.

use super::{RegMask, Sm, StallKind};
use crate::timing::functional::WarpKey;
use crate::timing::rf::RegisterFileDesign;

/// A resident warp. What the scoreboard check ([`Sm::blocked`]) reads comes first, in two
/// cache lines (`repr(C)`, 64-byte aligned).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(super) struct Warp {
    pub(super) no_issue_until: u64,
    pub(super) pending_pred: u32,
    /// Predicates (sources and destinations) of `next`, for the scoreboard check.
    pub(super) next_preds: u32,
    pub(super) in_collector: bool,
    pub(super) at_barrier: bool,
    pub(super) exited: bool,
    /// `next.is_some()`.
    pub(super) has_next: bool,
    pub(super) pending: RegMask,
    /// Registers (sources and destinations) of `next`, for the scoreboard check.
    pub(super) next_mask: RegMask,
    pub(super) pending_mem: RegMask,
    pub(super) key: WarpKey,
    pub(super) cta: usize,
    pub(super) age: u64,
    pub(super) sub_core: u8,
    pub(super) inflight: u32,
    /// The next instruction ([`Shared::intern`] index), if known.
    ///
    /// [`Shared::intern`]: super::Shared::intern
    pub(super) next: Option<u32>,
    /// Uniform registers (bit `k` = `UR<k>`) with a write in flight: the scoreboard tracks
    /// the uniform file like the predicates (Turing's uniform datapath has its own register
    /// file, read and written by the warp's instructions in order, Jia et al. 2019). Zero on
    /// a GPU without a uniform file.
    pub(super) pending_ur: u64,
    /// Uniform registers (sources and destinations) of `next`.
    pub(super) next_ur: u64,
    /// Cycles the design's own instructions, decoded with the instruction in the collector,
    /// hold the warp's next issue after that instruction dispatches
    /// ([`RegisterFileDesign::issued`]).
    pub(super) decode_hold: u32,
}

impl Warp {
    /// The issue verdict from the flags and the scoreboard (the branch redirect wait
    /// `no_issue_until` aside): barrier, no instruction (exited, in a collector, none
    /// known), a pending register or predicate the next instruction needs (memory if a
    /// pending load writes it), or free to issue.
    pub(super) fn gate_of(&self) -> Option<StallKind> {
        if self.at_barrier {
            return Some(StallKind::Barrier);
        }
        if self.exited || self.in_collector || !self.has_next {
            return Some(StallKind::NoInstruction);
        }
        let mut hit = false;
        let mut mem = false;
        for k in 0..4 {
            let h = self.pending[k] & self.next_mask[k];
            hit |= h != 0;
            mem |= h & self.pending_mem[k] != 0;
        }
        if self.next_preds & self.pending_pred != 0 || self.next_ur & self.pending_ur != 0 {
            hit = true;
        }
        if hit {
            return Some(if mem {
                StallKind::Memory
            } else {
                StallKind::Scoreboard
            });
        }
        None
    }
}

/// A warp slot's issue verdict apart from the redirect wait, and the wait's end: what
/// [`Sm::blocked`] reads, kept in a dense per-slot array (one cache line holds four slots)
/// so that the scheduler's scan does not touch the warps themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Gate {
    pub(super) verdict: Option<StallKind>,
    pub(super) no_issue_until: u64,
}

impl Gate {
    /// The gate of an empty slot.
    pub(super) const EMPTY: Gate = Gate {
        verdict: Some(StallKind::Idle),
        no_issue_until: 0,
    };
}

impl<D: RegisterFileDesign> Sm<D> {
    /// Recomputes the [`Gate`] of warp slot `slot` from the warp.
    #[inline(always)]
    pub(super) fn refresh_gate(&mut self, slot: usize) {
        // a slot always belongs to sub-core `slot % sub_cores` (see `Sm::new`), which a
        // resident warp records (no division on the common path)
        let (g, sc) = match self.warps[slot].as_ref() {
            Some(w) => (
                Gate {
                    verdict: w.gate_of(),
                    no_issue_until: w.no_issue_until,
                },
                usize::from(w.sub_core),
            ),
            None => (Gate::EMPTY, slot % self.subs.len()),
        };
        self.set_gate(slot, sc, g);
    }

    /// Stores gate `g` of warp slot `slot` (of sub-core `sc`) and its `ready`/`waiting`
    /// bits: [`Sm::refresh_gate`]'s second half, for a caller that knows the verdict.
    #[inline(always)]
    pub(super) fn set_gate(&mut self, slot: usize, sc: usize, g: Gate) {
        debug_assert_eq!(sc, slot % self.subs.len());
        self.gates[slot] = g;
        if slot < 64 {
            let bit = 1u64 << slot;
            let s = &mut self.subs[sc];
            // set or clear without a data-dependent branch
            let free = 0u64.wrapping_sub(u64::from(g.verdict.is_none()));
            let wait = 0u64.wrapping_sub(u64::from(g.no_issue_until > 0));
            s.ready = (s.ready & !bit) | (bit & free);
            s.waiting = (s.waiting & !bit) | (bit & wait);
        }
    }

    /// Why warp `slot` cannot issue now (None = it can).
    #[inline]
    pub(super) fn blocked(&self, slot: u16, now: u64) -> Option<StallKind> {
        let g = self.gates[usize::from(slot)];
        debug_assert_eq!(
            g,
            self.warps[usize::from(slot)]
                .as_ref()
                .map_or(Gate::EMPTY, |w| Gate {
                    verdict: w.gate_of(),
                    no_issue_until: w.no_issue_until,
                })
        );
        match g.verdict {
            Some(StallKind::Idle) => Some(StallKind::Idle),
            Some(StallKind::Barrier) => Some(StallKind::Barrier),
            _ if g.no_issue_until > now => Some(StallKind::NoInstruction),
            v => v,
        }
    }
}
