//! From the SM to the L2 and back: the L1D miss queue and the crossbar ([`MemoryHierarchy::send`]),
//! the address mapping to DRAM channels and L2 slices, and the L2 slices themselves
//! ([`MemoryHierarchy::l2`]), including the host data placed in the L2 before a launch.

use super::{bits, MemoryHierarchy};
use crate::timing::activity::MemActivity;
use crate::timing::functional::MemOpKind;

impl MemoryHierarchy {
    /// Places the sectors of `ranges` (`(address, bytes)`, in order) in the L2 as clean data
    /// present from cycle 0, LRU-allocating like any fill, if `l2_preload_host_data` is set:
    /// Accel-Sim's `-gpgpu_perf_sim_memcpy 1` routes every host-to-device `cudaMemcpy`
    /// through `memory_sub_partition::force_l2_tag_update` (`l2cache.h`), so a kernel finds
    /// its inputs in the L2 when they fit.
    pub fn preload_l2(&mut self, ranges: &[(u64, u64)]) {
        if !self.cfg.l2_preload_host_data {
            return;
        }
        self.place_l2(ranges);
    }

    /// Places the sectors of `ranges` in the L2 as clean data present from cycle 0.
    pub(super) fn place_l2(&mut self, ranges: &[(u64, u64)]) {
        let lb = u64::from(self.cfg.l2_slice.line_bytes.max(1));
        let sb = u64::from(self.cfg.l2_slice.sector_bytes.max(1));
        for &(addr, bytes) in ranges {
            let mut b = addr / sb * sb;
            let end = addr.saturating_add(bytes);
            while b < end {
                let line = b / lb;
                let (_, slice, key) = self.place(line);
                let bit = 1u32 << ((b % lb) / sb);
                if let Some(l2) = self.l2.get_mut(slice) {
                    let look = l2.lookup(key, bit, 0, true);
                    l2.fill(look.way, bit, 0);
                }
                b += sb;
            }
        }
    }

    /// L2 sectors covering the L1D sectors `l1` of a line.
    #[inline]
    fn l2_sectors(&self, l1: u32) -> u32 {
        if self.d.same_sectors {
            return l1;
        }
        let s1 = self.cfg.l1d.sector_bytes.max(1);
        let s2 = self.cfg.l2_slice.sector_bytes.max(1);
        let mut out = 0u32;
        for s in bits(l1) {
            let (lo, hi) = (s * s1, (s + 1) * s1);
            let mut b = lo;
            while b < hi {
                out |= 1 << (b / s2);
                b += s2;
            }
        }
        out
    }

    /// (DRAM channel, L2 slice, line number inside the slice) of a line: channel = chunk of
    /// `interleave_bytes` mod channels, slice = the line's position among the channel's
    /// slices.
    #[inline]
    fn place(&self, line: u64) -> (usize, usize, u64) {
        let d = &self.d;
        let c = d.channels.rem(d.chunk.div(line));
        let slice = c * d.spc + d.spc1.rem(line);
        (c as usize, slice as usize, d.slice_lines.div(line))
    }

    /// Sends the L1D sectors `secs` of `line` from the L1D of SM `smi` towards the L2, ready
    /// to leave at `t`: one request per L1D sector (a GPGPU-Sim `mem_fetch`: 32 B on
    /// rtx2060, the whole unsectored line on gtx480), and the L1D's miss queue sends
    /// `l1d_requests_per_cycle` of them per cycle (`baseline_cache::cycle` moves one
    /// `m_miss_queue` entry per cycle into the SM's interconnect port; write-through stores
    /// take the same queue, `data_cache::send_write_request`). The queue holds
    /// `l1d_miss_queue_entries`. The queue feeds the SM's input buffer of the crossbar, also
    /// first in, first out, whose front packet leaves only when the crossbar output to its L2
    /// slice is free (`icnt_request_packets_per_cycle`; `xbar_router::iSLIP_Advance`), so a
    /// request waiting for a busy slice holds the requests behind it ([`RequestFifo`]). A
    /// request that would find the miss queue full waits at the head of the
    /// L1D pipeline (GPGPU-Sim `MISS_QUEUE_FULL`, a `RESERVATION_FAIL` that leaves the access
    /// in `l1_latency_queue` and stalls the LD/ST unit behind it) until the entries ahead of
    /// it have drained to fewer than a full queue. Returns the cycle the last reply is back
    /// and the cycles the L1D pipeline was held; calls `each(sector mask, its reply cycle)`
    /// per request.
    ///
    /// [`RequestFifo`]: super::resources::RequestFifo
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn send(
        &mut self,
        now: u64,
        t: u64,
        smi: usize,
        line: u64,
        secs: u32,
        kind: MemOpKind,
        act: &mut MemActivity,
        mut each: impl FnMut(&mut Self, u32, u64),
    ) -> (u64, u64) {
        let mut held = 0;
        let cap = self.cfg.l1d_requests_per_cycle.max(1);
        let (_, slice, _) = self.place(line);
        // the cycle each L2 sector leaves the SM (that of the last L1D sector holding it)
        let mut leave = [t; 32];
        let mut l2s = 0u32;
        for s in bits(secs) {
            let tq = match (self.request.get_mut(smi), self.xbar.get_mut(slice)) {
                (Some(q), Some(x)) => {
                    let g = x.reserve(now, q.next(t, cap));
                    q.take(g);
                    g
                }
                _ => t,
            };
            // the requests ahead of this one leave over `tq - t` cycles; the queue empties
            // a full load in `miss_queue_cycles`
            held = held.max((tq - t).saturating_sub(self.d.miss_queue_cycles));
            let b = self.l2_sectors(1 << s);
            for x in bits(b) {
                if let Some(l) = leave.get_mut(x as usize) {
                    *l = (*l).max(tq);
                }
            }
            l2s |= b;
        }
        act.l1d_miss_queue_stall_cycles += held;
        // one pass through the slice (one tag lookup for the line), each L2 sector at its own
        // cycle; the reply of each
        let mut back = [0u64; 32];
        let done = self.l2(
            now,
            t,
            smi,
            line,
            l2s,
            kind,
            act,
            |x| leave.get(x as usize).copied().unwrap_or(t),
            |x, r| {
                if let Some(b) = back.get_mut(x as usize) {
                    *b = r;
                }
            },
        );
        for s in bits(secs) {
            let r = bits(self.l2_sectors(1 << s))
                .filter_map(|x| back.get(x as usize).copied())
                .max()
                .unwrap_or(t);
            each(self, 1 << s, r);
        }
        (done, held)
    }

    /// Sends `sectors` (L2 sectors) of `line` from SM `sm` into the L2: sector `s` leaves the
    /// SM at `leave(s)` (≥ `t`) and its reply is back at the cycle given to `reply_at(s, ..)`.
    /// Returns the cycle the last reply is back at the SM (`t` if none).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn l2(
        &mut self,
        now: u64,
        t: u64,
        sm: usize,
        line: u64,
        sectors: u32,
        kind: MemOpKind,
        act: &mut MemActivity,
        leave: impl Fn(u32) -> u64,
        mut reply_at: impl FnMut(u32, u64),
    ) -> u64 {
        let (_, slice, key) = self.place(line);
        let Self {
            l2,
            l2_port,
            l2_mshr,
            reply,
            dram,
            d,
            ..
        } = self;
        // `slice` < `l2_slices` (the configuration check makes the channels divide the slices)
        let (Some(tags), Some(port), Some(mshr)) = (
            l2.get_mut(slice),
            l2_port.get_mut(slice),
            l2_mshr.get_mut(slice),
        ) else {
            return t;
        };
        let mut reply = reply.get_mut(sm);
        let back = d.from_l2;
        let read = kind != MemOpKind::Store;
        let mut done = t;
        // the line's way once its first sector is looked up: nothing else touches this
        // slice's tags meanwhile, so the line stays there as the most recently used way and
        // a full lookup of the next sectors would change nothing but read their state
        let mut way = usize::MAX;
        for s in bits(sectors) {
            let ts = port.reserve(now, leave(s) + d.to_l2);
            let bit = 1u32 << s;
            let look = if way == usize::MAX {
                let look = tags.lookup(key, bit, ts, true);
                way = look.way;
                dram.write_back(d, ts, look.victim, act);
                look
            } else {
                tags.sectors(way, bit, ts)
            };
            let data = if !read {
                act.l2_sector_writes += 1;
                if look.inflight == 0 {
                    tags.fill(way, bit, ts);
                }
                ts + 1
            } else {
                act.l2_sector_reads += 1;
                if look.present != 0 {
                    act.l2_sector_read_hits += 1;
                    ts + 1
                } else if look.inflight != 0 {
                    act.l2_sector_read_merges += 1;
                    look.inflight_until.max(ts + 1)
                } else {
                    let tm = mshr.alloc(ts);
                    act.l2_mshr_stall_cycles += tm - ts;
                    let r = dram.access(d, tm, line, s, false, act);
                    mshr.hold(r);
                    tags.fill(way, bit, r);
                    r
                }
            };
            if kind != MemOpKind::Load {
                act.l2_sector_writes += u64::from(kind == MemOpKind::Atomic);
                tags.way[way].dirty |= bit;
            }
            let r = match reply.as_deref_mut() {
                Some(p) => p.reserve(now, data + back) + 1,
                None => data + back + 1,
            };
            reply_at(s, r);
            done = done.max(r);
        }
        done
    }
}
