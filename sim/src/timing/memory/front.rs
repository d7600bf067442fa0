//! The front-end caches of an SM when they are not perfect: the instruction cache's and
//! constant cache's misses through the L2, param/const loads, and what the caches carry
//! from one launch to the next ([`CarriedCaches`]).

use super::{bits, CarriedCaches, MemTiming, MemoryHierarchy, CONST_SPACE_BASE};
use crate::timing::activity::MemActivity;
use crate::timing::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};

impl MemoryHierarchy {
    /// Starts a launch with what an earlier launch of the same spec left: the L2's lines
    /// (dirty ones still to be written back) and the instruction and constant caches, every
    /// line present from cycle 0. Returns whether an L2 was carried (`false` on the first
    /// launch, which starts from the host data instead, [`Self::preload_l2`]). The caches are
    /// not carried with `perfect_inst_const_cache`.
    pub fn restore_front_end(&mut self, c: &mut CarriedCaches) -> bool {
        let l2 = !c.l2.is_empty() && c.l2.len() == self.l2.len();
        if l2 {
            self.l2 = std::mem::take(&mut c.l2);
            for t in &mut self.l2 {
                t.settle();
            }
        }
        if self.l1i.is_empty() || c.l1i.len() != self.l1i.len() || c.l1c.len() != self.l1c.len() {
            return l2;
        }
        self.l1i = std::mem::take(&mut c.l1i);
        self.l1c = std::mem::take(&mut c.l1c);
        for t in self.l1i.iter_mut().chain(self.l1c.iter_mut()) {
            t.settle();
        }
        let lines = std::mem::take(&mut c.l2_lines);
        if !l2 {
            self.place_l2(&lines);
        }
        for &(a, _) in &lines {
            self.front_seen.insert(a);
        }
        self.front_lines = lines;
        l2
    }

    /// Hands the L2, the instruction and constant caches and the L2 lines they read to the
    /// next launch ([`Self::restore_front_end`]).
    pub fn save_front_end(&mut self, c: &mut CarriedCaches) {
        c.l1i = std::mem::take(&mut self.l1i);
        c.l1c = std::mem::take(&mut self.l1c);
        c.l2_lines = std::mem::take(&mut self.front_lines);
        c.l2 = std::mem::take(&mut self.l2);
        self.front_seen.clear();
    }

    /// Reads the bytes `addr .. addr + bytes` (inside one L2 line) for SM `sm`'s instruction
    /// or constant cache from the L2, the request leaving at `t`; returns the cycle the data
    /// is back.
    pub(super) fn front_miss(
        &mut self,
        now: u64,
        t: u64,
        sm: usize,
        addr: u64,
        bytes: u64,
        act: &mut MemActivity,
    ) -> u64 {
        let lb = self.d.l2_line_bytes;
        let sb = self.d.l2_sector_bytes;
        let line = addr / lb;
        let (first, last) = ((addr % lb) / sb, ((addr + bytes - 1) % lb) / sb);
        let sectors = (first..=last).fold(0u32, |m, s| m | 1 << s);
        if self.front_seen.insert(addr) {
            self.front_lines.push((addr, bytes));
        }
        self.l2(
            now,
            t,
            sm,
            line,
            sectors,
            MemOpKind::Load,
            act,
            |_| t,
            |_, _| {},
        )
    }

    /// A param/const load through SM `smi`'s constant cache: one line per cycle
    /// (`ldst_unit::process_memory_access_queue`), a hit ready after `const_latency`, a miss
    /// read from the L2.
    pub(super) fn constant(
        &mut self,
        now: u64,
        smi: usize,
        acc: &WarpMemAccess,
        act: &mut MemActivity,
    ) -> MemTiming {
        let lb = u64::from(self.cfg.l1c.line_bytes.max(1));
        let base = if acc.space == MemSpaceKind::Const {
            CONST_SPACE_BASE
        } else {
            0
        };
        let size = u64::from(acc.bytes_per_lane.max(1));
        let mut lines = std::mem::take(&mut self.lines);
        lines.clear();
        for l in bits(acc.mask) {
            let a = base.saturating_add(acc.addrs[l as usize]);
            lines.push((a / lb, 0));
            lines.push((a.saturating_add(size - 1) / lb, 0));
        }
        lines.sort_unstable();
        lines.dedup();
        let cl = u64::from(self.const_latency);
        let mut ready = now + cl;
        for (i, &(line, _)) in lines.iter().enumerate() {
            let t = now + i as u64;
            let Some(tags) = self.l1c.get_mut(smi) else {
                break;
            };
            let look = tags.lookup(line, 1, t, true);
            let r = if look.present != 0 {
                t + cl
            } else if look.inflight != 0 {
                look.inflight_until.max(t + cl)
            } else {
                act.const_cache_misses += 1;
                let f = self.front_miss(now, t, smi, line * lb, lb, act);
                if let Some(tags) = self.l1c.get_mut(smi) {
                    tags.fill(look.way, 1, f);
                }
                f.max(t + cl)
            };
            ready = ready.max(r);
        }
        let n = lines.len().max(1) as u64;
        self.lines = lines;
        MemTiming {
            ready_at: ready,
            ldst_cycles: u32::try_from(n).unwrap_or(u32::MAX),
        }
    }
}
