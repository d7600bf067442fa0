//! The L1D side of a warp's global access: coalescing the lanes into lines and sectors,
//! the L1D banks ([`BankClock`]), and the load and store paths through the L1D, its MSHRs
//! and its miss queue.

use super::tags::Lookup;
use super::{popcount, sort_lines, Derived, MemTiming, MemoryHierarchy};
use crate::timing::activity::MemActivity;
use crate::timing::functional::{MemOpKind, WarpMemAccess};

/// When the sector accesses of one warp instruction enter the L1D (GPGPU-Sim
/// `ldst_unit::process_memory_access_queue_l1cache`, `-gpgpu_l1_banks`,
/// `-gpgpu_l1_banks_byte_interleaving 32`): the coalescer makes one access per 32 B segment
/// (`memory_coalescing_arch` with `-gpgpu_coalesce_arch` ≥ 40; Fermi's 20 makes one per
/// 128 B line, which is its L1D's unsectored line), kept in a map ordered by address and
/// taken from the back, i.e. highest address first. Each cycle the LD/ST unit moves accesses
/// into the per-bank latency queues, bank = (address / 32) mod banks (`l1d_cache_config::
/// set_bank`, the linear hash), until one finds its bank's queue slot already taken that
/// cycle (`BK_CONF`); the rest wait for the next cycle. In regwatt's terms an access is an
/// L1D sector (both presets' sector equals GPGPU-Sim's segment: 32 B on rtx2060, the 128 B
/// line on gtx480), so its bank is (line × sectors per line + sector) mod banks. A warp
/// whose 32 lanes read one word in 32 lines (a column walk) thus takes 32 cycles on the four
/// banks of rtx2060 when the words share their offset in the line, and one fully used
/// line takes one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BankClock {
    /// Cycle (from the instruction's first) the latest access entered.
    cycle: u64,
    /// Banks already taken in `cycle`.
    used: u64,
}

impl BankClock {
    /// Enters the sectors `secs` of `line`, highest first; returns the cycle the last (the
    /// lowest) of them entered.
    #[inline(always)]
    fn enter(&mut self, d: &Derived, line: u64, secs: u32) -> u64 {
        let mut m = secs;
        while m != 0 {
            let s = 31 - m.leading_zeros();
            m ^= 1 << s;
            let b = 1u64 << d.l1_bank(line, s);
            if self.used & b != 0 {
                self.cycle += 1;
                self.used = 0;
            }
            self.used |= b;
        }
        self.cycle
    }

    /// Cycles the LD/ST unit spent moving the accesses in (at least one).
    fn cycles(&self) -> u64 {
        self.cycle + 1
    }
}

/// State of [`MemoryHierarchy::coalesce_pow2`]: the (line, sector mask) list being built and
/// the sector added last.
pub(super) struct Coalescer<'a> {
    lines: &'a mut Vec<(u64, u32)>,
    /// Bytes per lane (≥ 1).
    size: u64,
    /// log2 of the sector size; sector number → line: `>> ck`, → sector bit: `& cm`.
    sk: u32,
    ck: u32,
    cm: u64,
    /// `sector_bytes − size` when a lane fits in a sector: a lane with
    /// `a − last ≤ fit` lies inside the sector starting at `last`.
    fit: Option<u64>,
    /// Start address of the sector added last.
    last: Option<u64>,
}

impl Coalescer<'_> {
    /// ORs sector `s` (a sector number) into its line's mask, comparing the line with the
    /// last one first.
    fn add(&mut self, s: u64) {
        let line = s >> self.ck;
        let bit = 1u32 << (s & self.cm);
        match self.lines.last_mut() {
            Some(e) if e.0 == line => e.1 |= bit,
            _ => match self.lines.iter_mut().rev().find(|(x, _)| *x == line) {
                Some(e) => e.1 |= bit,
                None => self.lines.push((line, bit)),
            },
        }
    }

    /// Adds sector `s`, every byte of a whole group of lanes, unless it was added last.
    fn sector_of_group(&mut self, s: u64) {
        let start = s << self.sk;
        if self.last != Some(start) {
            self.add(s);
            self.last = Some(start);
        }
    }

    /// Adds the sectors of the lane at address `a`: the bytes `a .. a + size`, the end
    /// saturating at the top of the address space like the general path. A lane inside the
    /// sector added last adds nothing new.
    fn lane(&mut self, a: u64) {
        if let (Some(l), Some(fit)) = (self.last, self.fit) {
            if a.wrapping_sub(l) <= fit {
                return;
            }
        }
        let end = a.saturating_add(self.size);
        if end <= a {
            return;
        }
        let last = (end - 1) >> self.sk;
        for s in a >> self.sk..=last {
            self.add(s);
        }
        self.last = Some(last << self.sk);
    }
}

impl MemoryHierarchy {
    /// Groups the lanes into (line, L1D sector mask) pairs, sorted by line.
    pub(super) fn coalesce(&mut self, acc: &WarpMemAccess) {
        if self.d.l1_pow2.is_some() {
            self.coalesce_pow2(acc);
        } else {
            self.coalesce_general(acc);
        }
    }

    /// The most common case of [`Self::coalesce`], without building the list: all 32 lanes
    /// active and the bytes of every group of 8 lanes inside one sector (unit-stride 4 B
    /// lanes, broadcasts), power-of-two geometry. Returns the sector number of each group,
    /// or `None` for any other warp; [`Self::uniform_lines`] makes the lines. Same lines as
    /// [`Self::coalesce_general`] (tested).
    #[inline(always)]
    pub(super) fn uniform_sectors(&self, acc: &WarpMemAccess) -> Option<[u64; 4]> {
        let (sk, _) = self.d.l1_pow2?;
        let sb = 1u64 << sk;
        let size = u64::from(acc.bytes_per_lane.max(1));
        if acc.mask != u32::MAX || size > sb {
            return None;
        }
        // a group lies in one sector when its addresses agree above the sector offset (their
        // OR and AND do) and the lane with the largest offset ends inside it. The OR of all
        // addresses bounds every lane's offset, so one check covers all groups (aligned
        // lanes always pass it); the top sector of the address space, where the general
        // path saturates, is left to it.
        let mut or = [0u64; 4];
        let mut differ = 0u64;
        for (group, o) in acc.addrs.chunks_exact(8).zip(&mut or) {
            let go = group.iter().fold(0, |o, &a| o | a);
            let ga = group.iter().fold(u64::MAX, |n, &a| n & a);
            differ |= go ^ ga;
            *o = go;
        }
        let all = or[0] | or[1] | or[2] | or[3];
        if differ >> sk != 0 || (all & (sb - 1)) + size > sb || all >> sk == u64::MAX >> sk {
            return None;
        }
        Some(or.map(|o| o >> sk))
    }

    /// The (line, sector mask) list, sorted by line, of the group sectors `sec` found by
    /// [`Self::uniform_sectors`]: the lines in `out[..n]`, `n` returned.
    #[inline(always)]
    pub(super) fn uniform_lines(&self, sec: [u64; 4], out: &mut [(u64, u32); 4]) -> usize {
        let ck = self.d.l1_pow2.map_or(0, |(_, ck)| ck);
        let cm = (1u64 << ck) - 1;
        let l = sec.map(|u| u >> ck);
        let b = sec.map(|u| 1u32 << (u & cm));
        if l[0] == l[1] && l[2] == l[3] {
            // halves of the warp in one line each (unit stride, broadcasts per half)
            let (x, y) = ((l[0], b[0] | b[1]), (l[2], b[2] | b[3]));
            if x.0 == y.0 {
                out[0] = (x.0, x.1 | y.1);
                return 1;
            }
            (out[0], out[1]) = if x.0 < y.0 { (x, y) } else { (y, x) };
            return 2;
        }
        let mut n = 0;
        for u in sec {
            let (line, bit) = (u >> ck, 1u32 << (u & cm));
            match out[..n].iter_mut().find(|e| e.0 == line) {
                Some(e) => e.1 |= bit,
                None => {
                    out[n] = (line, bit);
                    n += 1;
                }
            }
        }
        sort_lines(&mut out[..n]);
        n
    }

    /// [`Self::coalesce`] for power-of-two line and sector sizes, sectors no larger than
    /// lines (every preset): shifts and masks instead of divisions, and whole groups of lanes
    /// in one sector added at once (see [`Coalescer`]). Same result as
    /// [`Self::coalesce_general`].
    fn coalesce_pow2(&mut self, acc: &WarpMemAccess) {
        let lb = u64::from(self.cfg.l1d.line_bytes.max(1));
        let sb = u64::from(self.cfg.l1d.sector_bytes.max(1));
        let size = u64::from(acc.bytes_per_lane.max(1));
        let sk = sb.trailing_zeros();
        let mut c = Coalescer {
            lines: &mut self.lines,
            size,
            sk,
            ck: lb.trailing_zeros() - sk,
            cm: (lb >> sk) - 1,
            fit: sb.checked_sub(size),
            last: None,
        };
        c.lines.clear();
        // Groups of 8 lanes, all active, whose bytes all lie in one sector (a unit-stride
        // group of 4 B lanes, a broadcast) add that sector once. The lanes' addresses agree
        // above the sector offset when their OR and AND do; the OR of their offsets is at
        // least the largest offset, so a lane's last byte stays in the sector when that OR
        // plus `size` does not pass the sector's end. The top sector of the address space,
        // where the general path saturates, is left to the lanes.
        let top = u64::MAX >> sk;
        let off_mask = sb - 1;
        // sector of each such group (`u64::MAX`, never a passing sector: the lanes decide)
        let mut uniform = [u64::MAX; 4];
        for (g, (group, u)) in acc.addrs.chunks_exact(8).zip(&mut uniform).enumerate() {
            if (acc.mask >> (8 * g)) & 0xff == 0xff {
                let (or, and) = group
                    .iter()
                    .fold((0u64, u64::MAX), |(o, n), &a| (o | a, n & a));
                if (or ^ and) >> sk == 0 && (or & off_mask) + size <= sb && or >> sk != top {
                    *u = or >> sk;
                }
            }
        }
        if uniform.iter().all(|&u| u != u64::MAX) {
            // every group in one sector (the common fully active warp): at most 4 lines
            for &u in &uniform {
                let (line, bit) = (u >> c.ck, 1u32 << (u & c.cm));
                match c.lines.iter_mut().find(|(x, _)| *x == line) {
                    Some(e) => e.1 |= bit,
                    None => c.lines.push((line, bit)),
                }
            }
            sort_lines(&mut self.lines);
            return;
        }
        for (g, (group, &u)) in acc.addrs.chunks_exact(8).zip(&uniform).enumerate() {
            if u != u64::MAX {
                c.sector_of_group(u);
                continue;
            }
            let mut m = (acc.mask >> (8 * g)) & 0xff;
            while m != 0 {
                c.lane(group[m.trailing_zeros() as usize]);
                m &= m - 1;
            }
        }
        sort_lines(&mut self.lines);
    }

    /// [`Self::coalesce`] for any line and sector sizes.
    fn coalesce_general(&mut self, acc: &WarpMemAccess) {
        let lb = u64::from(self.cfg.l1d.line_bytes.max(1));
        let sb = u64::from(self.cfg.l1d.sector_bytes.max(1));
        self.lines.clear();
        let size = u64::from(acc.bytes_per_lane.max(1));
        let mut m = acc.mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = acc.addrs[l];
            let end = a.saturating_add(size);
            let mut b = a;
            while b < end {
                let line = b / lb;
                let sec = 1u32 << ((b % lb) / sb);
                match self.lines.iter_mut().rev().find(|(x, _)| *x == line) {
                    Some(e) => e.1 |= sec,
                    None => self.lines.push((line, sec)),
                }
                // the next sector; the last sector of the address space ends the lane
                match (b / sb + 1).checked_mul(sb) {
                    Some(n) => b = n,
                    None => break,
                }
            }
        }
        self.lines.sort_unstable();
    }

    /// Times the coalesced `lines` of a warp memory instruction (see [`MemoryTiming::access`]).
    ///
    /// [`MemoryTiming::access`]: super::MemoryTiming::access
    #[allow(clippy::too_many_arguments)]
    pub(super) fn time_lines(
        &mut self,
        now: u64,
        sm: u32,
        kind: MemOpKind,
        skip_l1: bool,
        lines: &[(u64, u32)],
        act: &mut MemActivity,
    ) -> MemTiming {
        let smi = (sm as usize).min(self.l1.len().saturating_sub(1));
        if kind == MemOpKind::Load && !skip_l1 {
            return self.load_lines(now, smi, lines, act);
        }
        let l1_lat = self.d.l1_lat;
        let mut ready = now + l1_lat;
        // cycles the LD/ST unit was held by a full L1D miss queue
        let mut stall = 0u64;
        // highest address first, each sector into its bank ([`BankClock`])
        let mut clk = BankClock::default();
        for &(line, secs) in lines.iter().rev() {
            let t_in = now + clk.enter(&self.d, line, secs) + stall;
            let (r, held) = match kind {
                MemOpKind::Store => {
                    let t_out = if skip_l1 {
                        t_in
                    } else {
                        act.l1d_line_lookups += 1;
                        act.l1d_sector_writes += u64::from(popcount(secs));
                        let t_chk = t_in + l1_lat;
                        if let Some(l1) = self.l1.get_mut(smi) {
                            let look = l1.lookup(line, secs, t_chk, false);
                            if look.way != usize::MAX {
                                l1.fill(look.way, look.present | look.missing, t_chk);
                            }
                        }
                        t_chk
                    };
                    self.send(
                        now,
                        t_out,
                        smi,
                        line,
                        secs,
                        MemOpKind::Store,
                        act,
                        |_, _, _| {},
                    )
                }
                // loads of a design that replaces the L1D (atomics: `Self::atomic`)
                _ => self.send(now, t_in, smi, line, secs, kind, act, |_, _, _| {}),
            };
            stall += held;
            ready = ready.max(r);
        }
        let ldst = clk.cycles() + stall;
        MemTiming {
            ready_at: ready,
            ldst_cycles: u32::try_from(ldst).unwrap_or(u32::MAX),
        }
    }

    /// The part of an L1D load of `line` (tag check at `t_chk`) for sectors in flight or
    /// missing (`look`): merges, an MSHR entry and the L2 request. Returns the cycle the data
    /// is back and the cycles the LD/ST unit was held waiting for the MSHR entry.
    #[inline(always)]
    fn load_not_present(
        &mut self,
        now: u64,
        smi: usize,
        line: u64,
        t_chk: u64,
        look: &Lookup,
        act: &mut MemActivity,
    ) -> (u64, u64) {
        if look.inflight != 0 {
            act.l1d_sector_read_merges += u64::from(popcount(look.inflight));
        }
        let mut r = t_chk.max(look.inflight_until);
        let mut stall = 0;
        if look.missing != 0 {
            let tm = self.l1_mshr[smi].alloc(t_chk);
            act.l1d_mshr_stall_cycles += tm - t_chk;
            stall = tm - t_chk;
            let way = look.way;
            let (f, held) = self.send(
                now,
                tm,
                smi,
                line,
                look.missing,
                MemOpKind::Load,
                act,
                |m, bit, f| {
                    if let Some(l1) = m.l1.get_mut(smi) {
                        l1.fill(way, bit, f);
                    }
                },
            );
            stall += held;
            self.l1_mshr[smi].hold(f);
            r = r.max(f);
        }
        (r, stall)
    }

    /// Times a load of the coalesced `lines` through the L1D of SM `smi`.
    #[inline(always)]
    pub(super) fn load_lines(
        &mut self,
        now: u64,
        smi: usize,
        lines: &[(u64, u32)],
        act: &mut MemActivity,
    ) -> MemTiming {
        let l1_lat = self.d.l1_lat;
        let mut ready = now + l1_lat;
        // cycles the LD/ST unit was held by MSHR reservation failures
        let mut stall = 0u64;
        // sectors requested and found present (counted once at the end)
        let (mut sectors, mut hits) = (0u64, 0u64);
        // highest address first, each sector into its bank ([`BankClock`]); a line's tag
        // check follows the entry of its last (lowest) sector
        let mut clk = BankClock::default();
        for &(line, secs) in lines.iter().rev() {
            let t_chk = now + clk.enter(&self.d, line, secs) + stall + l1_lat;
            let n = u64::from(popcount(secs));
            sectors += n;
            let Some(l1) = self.l1.get_mut(smi) else {
                continue;
            };
            let look = l1.lookup(line, secs, t_chk, true);
            if look.present == secs {
                // every sector present (nothing in flight, nothing missing)
                hits += n;
                ready = ready.max(t_chk);
                continue;
            }
            hits += u64::from(popcount(look.present));
            let (r, st) = self.load_not_present(now, smi, line, t_chk, &look, act);
            stall += st;
            ready = ready.max(r);
        }
        act.l1d_line_lookups += lines.len() as u64;
        act.l1d_sector_reads += sectors;
        act.l1d_sector_read_hits += hits;
        let ldst = clk.cycles() + stall;
        MemTiming {
            ready_at: ready,
            ldst_cycles: u32::try_from(ldst).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::timing::memory::tests::{load, small, Lcg};
    /// The shift-based coalescer groups lanes exactly as the general one
    /// (unit-stride, strided, broadcast, unaligned, wide lanes, lanes straddling sectors and
    /// lines, sparse masks).
    #[test]
    fn general_coalescing_ends_at_the_top_of_the_address_space() {
        let mut m = small(4);
        let mut a = load(u64::MAX - 7, 0);
        a.bytes_per_lane = 8;
        a.mask = 1;
        m.coalesce_general(&a);
        let line = (u64::MAX - 7) / 128;
        assert_eq!(m.lines, vec![(line, 1 << 3)]);
    }

    #[test]
    fn pow2_coalescing_matches_the_general_path() {
        let mut m = small(4);
        let mut cases = Vec::new();
        for (base, stride, bytes, mask) in [
            (0x1000u64, 4u64, 4u32, u32::MAX),
            (0x1000, 8, 8, u32::MAX),
            (0x1004, 4, 4, 0xf0f0_f0f0),
            (0x2000, 0, 4, u32::MAX),
            (0x1ffe, 4, 4, 0x8000_0001),
            (0x3000, 132, 4, u32::MAX),
            (0x301c, 16, 16, 0x0000_ffff),
            (0x4000, 4096, 4, 0x5555_5555),
            (0x5001, 1, 1, u32::MAX),
            (0x6000, 36, 8, 0xdead_beef),
        ] {
            let mut a = load(base, stride);
            a.bytes_per_lane = bytes;
            a.mask = mask;
            cases.push(a);
        }
        // lanes in descending address order
        let mut rev = load(0x7000, 4);
        for (l, x) in rev.addrs.iter_mut().enumerate() {
            *x = 0x7000 + 4 * (31 - l as u64) * 9;
        }
        cases.push(rev);
        for a in &cases {
            m.coalesce_general(a);
            let general = m.lines.clone();
            m.coalesce_pow2(a);
            assert_eq!(m.lines, general, "{a:?}");
            assert!(!general.is_empty());
        }
    }

    /// The group fast path of the coalescer (8 active lanes in one sector) agrees
    /// with the general path on warps built from uniform, unit-stride, broadcast, strided and
    /// random groups, partial masks and wide lanes. (Lanes at the top of the address space
    /// are not compared: the general path's sector step wraps around there.)
    #[test]
    fn group_coalescing_matches_the_general_path() {
        let mut m = small(4);
        let mut rng = Lcg(5);
        for case in 0..4000 {
            let mut a = load(0, 4);
            a.bytes_per_lane = [1, 2, 4, 8, 16, 32, 64][(rng.next() % 7) as usize];
            a.mask = match case % 4 {
                0 => u32::MAX,
                1 => u32::MAX ^ (1 << (rng.next() % 32)),
                2 => rng.next() as u32,
                _ => 0xff00_ff00,
            };
            // every 8th warp: sector-aligned broadcast / unit-stride groups only, so that
            // whole warps take the all-groups-uniform path
            let easy = case % 8 == 0;
            let base = 0x1000 + (rng.next() % 64) * if easy { 32 } else { 4 };
            for g in 0..4 {
                let gb = base.wrapping_add((rng.next() % 8) * 32);
                let kind = rng.next() % if easy { 2 } else { 5 };
                for l in 0..8 {
                    let x = match kind {
                        0 => gb,                                   // broadcast
                        1 => gb + l * u64::from(a.bytes_per_lane), // unit stride
                        2 => gb + (7 - l) * 4,                     // descending
                        3 => gb + l * 36,                          // strided
                        _ => gb + rng.next() % 256,                // random
                    };
                    a.addrs[g * 8 + l as usize] = x;
                }
            }
            m.coalesce_general(&a);
            let general = m.lines.clone();
            m.coalesce_pow2(&a);
            assert_eq!(m.lines, general, "case {case}: {a:?}");
        }
    }

    /// The fast coalescing of fully active warps whose groups of 8 lanes each lie
    /// in one sector (and its refusal of all other warps) agrees with the general path:
    /// broadcasts, unit strides, halves in different lines, groups sharing sectors, lanes
    /// crossing a sector, unaligned lanes, wide lanes, partial masks.
    #[test]
    fn uniform_coalescing_matches_the_general_path() {
        let mut m = small(4);
        let mut rng = Lcg(55);
        let mut taken = 0;
        for case in 0..6000 {
            let mut a = load(0, 4);
            a.bytes_per_lane = [1, 2, 4, 4, 4, 8, 16, 32, 64][(rng.next() % 9) as usize];
            if case % 7 == 0 {
                a.mask = u32::MAX >> (rng.next() % 4);
            }
            let base = 0x4000 + (rng.next() % 16) * 32 + [0, 0, 0, 4, 1][(rng.next() % 5) as usize];
            for g in 0..4 {
                let gb = base + (rng.next() % 6) * [32u64, 128, 4096][(rng.next() % 3) as usize];
                let kind = rng.next() % 4;
                for l in 0..8u64 {
                    a.addrs[g * 8 + l as usize] = match kind {
                        0 => gb,
                        1 => gb + l * u64::from(a.bytes_per_lane),
                        2 => gb + (7 - l) * 4,
                        _ => gb + rng.next() % 40,
                    };
                }
            }
            m.coalesce_general(&a);
            let general = m.lines.clone();
            if let Some(sec) = m.uniform_sectors(&a) {
                taken += 1;
                let mut out = [(0u64, 0u32); 4];
                let n = m.uniform_lines(sec, &mut out);
                assert_eq!(out[..n].to_vec(), general, "case {case}: {a:?}");
            } else {
                // refused warps: a partial mask, a group not inside one sector, or lanes
                // not aligned to their size (the offset check is conservative for those)
                let one_sector = |g: usize| {
                    let s = a.addrs[g * 8] >> 5;
                    a.addrs[g * 8..g * 8 + 8]
                        .iter()
                        .all(|&x| x >> 5 == s && (x + u64::from(a.bytes_per_lane) - 1) >> 5 == s)
                };
                let aligned = a
                    .addrs
                    .iter()
                    .all(|&x| x.is_multiple_of(u64::from(a.bytes_per_lane)));
                assert!(
                    a.mask != u32::MAX || !(0..4).all(one_sector) || !aligned,
                    "case {case}: a uniform warp was refused: {a:?}"
                );
            }
        }
        assert!(taken > 500, "{taken}");
    }
}
