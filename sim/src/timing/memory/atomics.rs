//! Global atomics: a warp's atomic split into transactions by GPGPU-Sim's rule
//! and performed one by one at their L2 slice.

use super::{MemTiming, MemoryHierarchy, ATOMIC_SEGMENT_BYTES};
use crate::timing::activity::MemActivity;
use crate::timing::functional::{MemOpKind, WarpMemAccess};

impl MemoryHierarchy {
    /// Splits a warp's global atomic into its memory transactions, one `(line, L2 sectors)`
    /// pair per transaction in `self.lines`. The rule is GPGPU-Sim's
    /// (`abstract_hardware_model.cc`, `warp_inst_t::memory_coalescing_arch_atomic`, used for
    /// every atomic with `-gpgpu_coalesce_arch` 13 and above):
    /// * the warp is one part (`-gpgpu_shmem_warp_parts 1` in `SM75_RTX2060` and
    ///   `SM2_GTX480`, which is also the coalescer's `mem_warp_parts`);
    /// * lanes are grouped by 32 B segment ([`ATOMIC_SEGMENT_BYTES`]): an atomic carries the
    ///   `.cg` cache operator (`cuda-sim.cc` gives `atom` `CACHE_GLOBAL`), so even Fermi's
    ///   coalescer (arch 20..38) uses sector-sized segments for it, as arch 40+ always does;
    /// * inside a segment, lanes are taken in lane order and each joins the first transaction
    ///   none of whose lanes touches any of its bytes, else opens a new one. Lanes updating
    ///   distinct words of a segment share one transaction; `n` lanes updating the same word
    ///   make `n` transactions (a warp-wide atomic on one address makes 32).
    ///
    /// Segments are in address order (GPGPU-Sim's per-block map), the transactions of a
    /// segment in the order they were opened. The bytes of a lane past the end of its
    /// segment (a misaligned lane, which GPGPU-Sim rejects) are ignored.
    fn atomic_transactions(&mut self, acc: &WarpMemAccess) {
        let lb = u64::from(self.cfg.l2_slice.line_bytes.max(1));
        let sb = u64::from(self.cfg.l2_slice.sector_bytes.max(1));
        let seg = ATOMIC_SEGMENT_BYTES.min(lb);
        let size = u64::from(acc.bytes_per_lane.max(1));
        // (segment, the lane's bytes in it as a bit mask), in lane order
        let mut lanes = [(0u64, 0u32); 32];
        let mut n = 0;
        let mut m = acc.mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = acc.addrs[l];
            let off = a % seg;
            let len = size.min(seg - off);
            if let Some(e) = lanes.get_mut(n) {
                *e = (a / seg, (((1u64 << len) - 1) << off) as u32);
                n += 1;
            }
        }
        let lanes = lanes.get_mut(..n).unwrap_or_default();
        // stable: the lanes of a segment stay in lane order
        lanes.sort_by_key(|&(s, _)| s);
        self.lines.clear();
        let mut rest: &[(u64, u32)] = lanes;
        while let Some(&(s, _)) = rest.first() {
            let k = rest.iter().take_while(|&&(x, _)| x == s).count();
            let (group, tail) = rest.split_at(k);
            rest = tail;
            // byte masks of the segment's transactions
            let mut tx = [0u32; 32];
            let mut ntx = 0;
            for &(_, bytes) in group {
                match tx
                    .get_mut(..ntx)
                    .and_then(|t| t.iter_mut().find(|t| **t & bytes == 0))
                {
                    Some(t) => *t |= bytes,
                    None => {
                        if let Some(t) = tx.get_mut(ntx) {
                            *t = bytes;
                            ntx += 1;
                        }
                    }
                }
            }
            // the L2 sectors covering the segment
            let start = s * seg;
            let lo = (start % lb) / sb;
            let hi = ((start % lb) + seg - 1) / sb;
            let sectors = (lo..=hi).fold(0u32, |acc, b| acc | (1 << b));
            let line = start / lb;
            self.lines.extend(std::iter::repeat_n((line, sectors), ntx));
        }
    }

    /// Times a warp's global atomic: its transactions
    /// ([`Self::atomic_transactions`]) leave the LD/ST unit one per cycle and are performed
    /// one by one at their L2 slice, each a read and a write of its sector; the destination
    /// register is ready when the last reply is back. From GPGPU-Sim:
    /// * atomics bypass the L1D (`ldst_unit::memory_cycle`, `CACHE_GLOBAL`), which hands one
    ///   access of the warp's queue to the interconnect per call, one call per cycle
    ///   (`-gpgpu_mem_unit_ports` 1, `ldst_unit::clock_multiplier`); the unit holds the
    ///   instruction until its queue is empty, so it is busy one cycle per transaction;
    /// * each transaction is its own request in the sub-partition: the ROP delay
    ///   (`memory_sub_partition::push`, `-gpgpu_l2_rop_latency`), then one L2 access per
    ///   cycle (`memory_sub_partition::cache_cycle`), where an atomic is a read that marks its
    ///   sector modified (`data_cache::rd_hit_base`) and is executed when its reply leaves
    ///   (`memory_sub_partition::pop` → `mem_fetch::do_atomic`); same-address transactions
    ///   from every SM therefore queue at one slice's port;
    /// * every transaction has its own reply, and the register is written back only when all
    ///   of them are in (`ldst_unit::issue` counts one pending write per access,
    ///   `ldst_unit::writeback` counts them down).
    ///
    /// Real GPUs serialise same-address atomics too: NVIDIA's Nsight Visual Studio Edition
    /// guide ("Memory Statistics - Atomics") says the read-modify-writes of the lanes of a
    /// warp's global atomic that address one location are all performed, one after another.
    pub(super) fn atomic(
        &mut self,
        now: u64,
        sm: u32,
        acc: &WarpMemAccess,
        act: &mut MemActivity,
    ) -> MemTiming {
        self.atomic_transactions(acc);
        let smi = (sm as usize).min(self.l1.len().saturating_sub(1));
        let lines = std::mem::take(&mut self.lines);
        let mut ready = now + self.d.l1_lat;
        for (t_out, &(line, secs)) in (now..).zip(&lines) {
            let r = self.l2(
                now,
                t_out,
                smi,
                line,
                secs,
                MemOpKind::Atomic,
                act,
                |_| t_out,
                |_, _| {},
            );
            ready = ready.max(r);
        }
        let ldst = (lines.len() as u64).max(1);
        self.lines = lines;
        MemTiming {
            ready_at: ready,
            ldst_cycles: u32::try_from(ldst).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::functional::MemSpaceKind;
    use crate::timing::memory::tests::{acc, small};
    use crate::timing::memory::MemoryTiming;
    /// A global atomic of the lanes in `mask`, lane `l` at `addr(l)`.
    fn atomic(mask: u32, addr: impl Fn(u64) -> u64) -> WarpMemAccess {
        let mut a = acc(MemSpaceKind::Global, MemOpKind::Atomic, 0, 0);
        a.mask = mask;
        a.addrs = std::array::from_fn(|l| addr(l as u64));
        a
    }

    /// GPGPU-Sim's `memory_coalescing_arch_atomic` rule. Lanes on distinct words
    /// of a 32 B segment share a transaction, lanes on one word each get their own, segments
    /// in address order.
    #[test]
    fn atomic_transactions_split_same_word_lanes() {
        let mut m = small(64);
        // 32 lanes on one word: 32 transactions of sector 0 of line 0x20
        m.atomic_transactions(&atomic(u32::MAX, |_| 0x1000));
        assert_eq!(m.lines, vec![(0x20, 1); 32]);
        // 8 lanes on the 8 words of one sector: one
        m.atomic_transactions(&atomic(0xff, |l| 0x1000 + 4 * l));
        assert_eq!(m.lines, vec![(0x20, 1)]);
        // unit stride over a line: one per sector
        m.atomic_transactions(&atomic(u32::MAX, |l| 0x1000 + 4 * l));
        assert_eq!(m.lines, vec![(0x20, 1), (0x20, 2), (0x20, 4), (0x20, 8)]);
        // 8 words each hit by 4 lanes: 4 transactions
        m.atomic_transactions(&atomic(u32::MAX, |l| 0x1000 + 4 * (l % 8)));
        assert_eq!(m.lines, vec![(0x20, 1); 4]);
        // kmeans-like: the most popular word of each segment sets its count (word 0x1104: 3
        // lanes; word 0x1020: 2 lanes, 0x1024: 1), lower segment first
        let words = [0x1104, 0x1020, 0x1104, 0x1024, 0x1020, 0x1104];
        m.atomic_transactions(&atomic(0x3f, |l| words[l as usize % 6]));
        assert_eq!(
            m.lines,
            vec![(0x20, 2), (0x20, 2), (0x22, 1), (0x22, 1), (0x22, 1)]
        );
        // 8-byte lanes overlapping in their upper half conflict, disjoint ones do not
        let mut a = atomic(0b111, |l| [0x1000, 0x1004, 0x1008][l as usize % 3]);
        a.bytes_per_lane = 8;
        m.atomic_transactions(&a);
        assert_eq!(m.lines, vec![(0x20, 1), (0x20, 1)]);
    }

    /// Kmeans: a warp's atomic on one word makes 32 L2 operations, one per cycle
    /// at the slice, and the register is ready after the last reply; lanes on distinct words
    /// of a sector make one. Hand-computed with [`small`]: ROP 20 + crossbar 2 = 22 cycles
    /// to the slice, one access per cycle there, data 1 cycle later, 2 cycles back, +1.
    #[test]
    fn same_address_atomics_serialise_at_the_l2() {
        let mut m = small(64);
        m.preload_l2(&[(0x1000, 128)]);
        let mut act = MemActivity::default();
        // transactions leave at 0..31, slice 22..53, data 23..54, replies 25..56, +1
        let t = m.access(0, 0, &atomic(u32::MAX, |_| 0x1000), false, &mut act);
        assert_eq!((t.ready_at, t.ldst_cycles), (57, 32));
        assert_eq!((act.l2_sector_reads, act.l2_sector_writes), (32, 32));
        assert_eq!(act.l2_sector_read_hits, 32);
        assert_eq!(act.atomic_instructions, 1);
        // another SM's one-lane atomic on the word at 0 queues behind them: slice 54, data
        // 55, reply 57, +1
        let t = m.access(0, 1, &atomic(1, |_| 0x1000), false, &mut act);
        assert_eq!((t.ready_at, t.ldst_cycles), (58, 1));

        let mut m = small(64);
        m.preload_l2(&[(0x1000, 128)]);
        let mut act = MemActivity::default();
        // 8 lanes on distinct words of one sector: one transaction, slice 22, reply 25, +1
        let t = m.access(0, 0, &atomic(0xff, |l| 0x1000 + 4 * l), false, &mut act);
        assert_eq!((t.ready_at, t.ldst_cycles), (26, 1));
        assert_eq!((act.l2_sector_reads, act.l2_sector_writes), (1, 1));
        // unit stride over the line: 4 transactions leaving at 100..103, replies 125..128, +1
        let t = m.access(
            100,
            0,
            &atomic(u32::MAX, |l| 0x1000 + 4 * l),
            false,
            &mut act,
        );
        assert_eq!((t.ready_at, t.ldst_cycles), (129, 4));
        assert_eq!(act.l2_sector_writes, 5);
    }
}
