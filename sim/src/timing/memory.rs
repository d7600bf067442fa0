//! The memory side of the timing core: the [`MemoryTiming`] seam and [`MemoryHierarchy`], a
//! reservation-style model of the GPGPU-Sim / Accel-Sim memory system.
//!
//! The core asks for the timing of a whole warp instruction at dispatch
//! ([`MemoryTiming::access`] → [`MemTiming`]). `MemoryHierarchy` answers at once: every shared
//! resource keeps its future reservations (ports with a per-cycle capacity, MSHR tables with
//! the release cycle of every entry, DRAM banks and buses with the cycle they are free), and
//! every cached sector keeps the cycle its data arrives. A later access that finds a sector
//! still in flight merges with it and gets the data at the fill cycle (an MSHR hit), exactly
//! what a cycle-by-cycle message model computes for requests processed in dispatch order,
//! without simulating idle cycles (the timing core skips those).
//!
//! Path of a global load (all parameters from [`MemoryConfig`]; GPGPU-Sim names in brackets):
//! * **Coalescing** (sm_70+ rules, CUDA C++ Programming Guide "Device Memory Accesses";
//!   GPGPU-Sim `memory_coalescing_arch`): the lanes' bytes are grouped into 128 B lines and
//!   32 B sectors. Each sector of an L1D (a whole line where the L1D is not sectored) is one
//!   access to one of `l1d_banks` sector-interleaved banks; the accesses enter in descending
//!   address order, as many per cycle as find their bank free, up to the first conflict
//!   ([`BankClock`]).
//! * **L1D** (`ldst_unit::L1_latency_queue_cycle`, `-gpgpu_l1_latency`): the tag check
//!   happens `l1d_hit_latency` cycles after entry; present sectors are ready then, sectors in
//!   flight at their fill cycle (merged, `HIT_RESERVED`), missing sectors need an MSHR entry
//!   (`l1d_mshr_entries`; when all are busy the line waits for the earliest release and the
//!   LD/ST unit stalls with it, GPGPU-Sim's `RESERVATION_FAIL`). Each missing sector (and
//!   each written one) is a request; the L1D's miss queue sends `l1d_requests_per_cycle`
//!   a cycle and holds `l1d_miss_queue_entries` ([`MemoryHierarchy::send`]). Sectored tags, LRU,
//!   allocate on load miss, write-through without allocation for stores
//!   (`-gpgpu_cache:dl1 S:..,L:T:m:L:L`).
//! * **Crossbar** (`local_interconnect.cc`): `icnt_latency` cycles each way; the reply port of
//!   an SM delivers `icnt_reply_sectors_per_cycle` sectors per cycle. Requests leave an SM in
//!   order; the output to an L2 slice passes `icnt_request_packets_per_cycle` a cycle, and a
//!   request waiting for its output holds the SM's later requests (head-of-line blocking,
//!   `xbar_router::iSLIP_Advance`).
//! * **L2 slice** (`memory_sub_partition`): address → DRAM channel by `interleave_bytes` chunks
//!   (`dramid@8`), → slice by the line's low bit inside the channel. A request waits
//!   `l2_rop_latency` (`m_rop` queue), then takes a lookup slot of its slice
//!   (`l2_sectors_per_cycle_per_slice` per cycle). Hit: data leaves in the next cycle;
//!   in flight: at the fill; miss: an L2 MSHR entry (`l2_mshr_entries`) and a DRAM read.
//!   Write-back, allocate on miss, stores allocate without fetching
//!   (`-gpgpu_cache:dl2 S:..,L:B:m:L:..`); dirty victims are written to DRAM.
//! * **DRAM** (`dram_t`, `-gpgpu_dram_timing_opt`): a request waits `dram.latency` core
//!   cycles (`m_dram_latency_queue`, `-dram_latency`), then its bank: a row-buffer miss costs
//!   `t_rp` (if another row is open) + `t_rcd`, then `t_cl` (`t_wl` for writes) and the burst on
//!   the channel's data bus (`burst_cycles` per `burst_bytes`), all in DRAM command cycles of
//!   `dram.clock_mhz` converted to core cycles. Row = `row_bytes` of the channel-local address,
//!   rows interleaved over the banks. The bus time per sector sets the bandwidth
//!   (RTX 2060: 32 B / (4 × 1/3500.5 MHz) × 12 channels = 336 GB/s).
//! * Stores take the same path to the L2 and complete when the L2's acknowledgement is back
//!   (GPGPU-Sim `shd_warp_t::stores_done` holds the warp's exit until then).
//! * **Atomics** (issue 36; GPGPU-Sim `memory_coalescing_arch_atomic`): coalesced per 32 B
//!   segment, but lanes whose bytes overlap go to separate transactions, so lanes updating
//!   one word are serialised: 32 lanes on one address make 32 transactions. The
//!   transactions bypass the L1D, leave the LD/ST unit one per cycle and are performed one by
//!   one at their L2 slice, each as a read plus a write of its sector
//!   ([`MemoryHierarchy::atomic`]).
//! * **Shared memory**: `banks` banks of `bank_bytes`; lanes reading the same word broadcast;
//!   the access takes `latency + degree − 1` cycles, `degree` = the largest number of distinct
//!   words in one bank (GPGPU-Sim `shared_cycle`). Param/const loads take `const_latency`
//!   (Accel-Sim `-gpgpu_perfect_inst_const_cache 1`).
//!
//! Simplifications (documented in `README.md`): the per-entry merge limit of the MSHRs, the
//! crossbar's request-side arbitration, FR-FCFS reordering in the DRAM scheduler (requests
//! are served in arrival order), bank groups, refresh and write-to-read turnarounds are not
//! modelled; the L1D/shared split is the preset's, not chosen per kernel.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::activity::MemActivity;
use super::config::{CacheConfig, MemoryConfig};
use super::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};
use super::rf::MemFetch;

/// Timing of one warp memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemTiming {
    /// Cycle the data is back (loads) or the store has been acknowledged.
    pub ready_at: u64,
    /// Cycles the LD/ST unit is busy with the instruction (its initiation interval).
    pub ldst_cycles: u32,
}

/// The memory hierarchy as the SM pipeline sees it.
pub trait MemoryTiming {
    /// Times a warp memory instruction of SM `sm` dispatched at `now`. `skip_l1`: the RF
    /// design replaces the L1D (seed 004). Calls come in non-decreasing `now`.
    fn access(
        &mut self,
        now: u64,
        sm: u32,
        acc: &WarpMemAccess,
        skip_l1: bool,
        act: &mut MemActivity,
    ) -> MemTiming;
    /// Times a transfer requested by an RF design (fill or spill below the L1D).
    fn fetch(&mut self, now: u64, sm: u32, f: &MemFetch, act: &mut MemActivity) -> u64;
    /// Whether a global load `acc` of SM `sm` dispatched at `now` would find every sector
    /// it reads in the L1D when it gets there, present or already requested by an earlier
    /// miss (GPGPU-Sim's `HIT_RESERVED`), without changing any state (no
    /// recency update, no allocation, no statistics). Seed 000 §3: the LD/ST unit knows the
    /// L1D outcome before it decides on partial sharing. Default: a miss.
    fn l1_probe(&mut self, _now: u64, _sm: u32, _acc: &WarpMemAccess) -> bool {
        false
    }
    /// The cycle the instruction at code offset `code` (bytes from the start of the module's
    /// code, [`super::FunctionalWarpModel::code_offset`]) can be issued by a warp of SM `sm`
    /// that needs it at `now`: `now` with a perfect instruction cache (the default),
    /// else the instruction cache's fill cycle on a miss.
    fn inst_fetch(&mut self, now: u64, sm: u32, code: u64, act: &mut MemActivity) -> u64 {
        let _ = (sm, code, act);
        now
    }
}

/// Bytes of the segment a warp's atomic is coalesced in (issue 36): GPGPU-Sim's
/// `memory_coalescing_arch_atomic` uses 32 B segments for 1..16-byte lanes whenever the
/// access is sector-sized, which an atomic always is (see
/// [`MemoryHierarchy::atomic_transactions`]).
pub const ATOMIC_SEGMENT_BYTES: u64 = 32;

/// Base address of the code in the memory system: GPGPU-Sim's `PROGRAM_MEM_START`
/// (`shader.cc`, 0xF0000000), added to the code offset of an instruction fetch.
pub const PROGRAM_MEM_START: u64 = 0xF000_0000;

/// Where `ld.const` addresses (offsets in the constant space, which starts at 0 in regwatt)
/// go in the memory system, apart from the kernel parameters (GPGPU-Sim keeps `ld.param`
/// at the parameters' offsets from 0 and the constant space in global memory).
pub const CONST_SPACE_BASE: u64 = 1 << 40;

/// What outlives a launch in GPGPU-Sim apart from the host data in the L2 (which every
/// launch here starts with again): each SM's instruction and constant caches (GPGPU-Sim
/// invalidates only the L1D between kernels, `gpu-sim.cc` `gpgpu_flush_l1_cache` →
/// `ldst_unit::invalidate`) and the L2 lines they fetched. Carried from one launch of a
/// spec to the next by [`MemoryHierarchy::save_front_end`] /
/// [`MemoryHierarchy::restore_front_end`]; empty with `perfect_inst_const_cache`.
#[derive(Clone, Debug, Default)]
pub struct CarriedCaches {
    l1i: Vec<Tags>,
    l1c: Vec<Tags>,
    /// (address, bytes) of every line the two caches read from the L2, first read first.
    l2_lines: Vec<(u64, u64)>,
}

/// A port serving `cap` items per cycle; items reserve the first cycle with room left.
///
/// The per-cycle counts live in a ring of slots (power-of-two length, grown on demand)
/// indexed by cycle: slot `c & mask` counts cycle `c` while it is tagged with `c`; a slot
/// tagged with another cycle counts zero for `c`. Only cycles in `base .. base + len` are
/// ever reserved (`base` = the latest `now`), and distinct cycles of that window have
/// distinct slots, so a slot holding another cycle holds a forgotten one: nothing has to be
/// cleared when time advances. A full cycle also records a later cycle up to which every
/// cycle is known to be full, so a burst of requests for one cycle does not step through
/// the cycles the earlier ones filled.
#[derive(Clone, Debug)]
struct Port {
    /// The current cycle; reservations before it are forgotten.
    base: u64,
    slots: Vec<PortSlot>,
    cap: u32,
}

/// One cycle's reservations in a [`Port`] ring.
#[derive(Clone, Copy, Debug)]
struct PortSlot {
    cycle: u64,
    used: u32,
    /// When the cycle is full: every cycle in `cycle .. skip` is full (cycles only fill up
    /// until they are forgotten, so this stays true).
    skip: u64,
}

impl PortSlot {
    /// A slot tagged `u64::MAX` with no reservation: free for every cycle.
    const FREE: PortSlot = PortSlot {
        cycle: u64::MAX,
        used: 0,
        skip: u64::MAX,
    };
}

impl Port {
    /// Initial ring length (cycles of reservations ahead of `base`); grows as needed.
    const INITIAL_SLOTS: usize = 256;

    fn new(cap: u32) -> Port {
        Port {
            base: 0,
            slots: vec![PortSlot::FREE; Self::INITIAL_SLOTS],
            cap: cap.clamp(1, u32::from(u8::MAX)),
        }
    }

    /// Reserves the first cycle `>= t` with capacity left. `now` (≤ `t`) is the current cycle:
    /// reservations before it are forgotten.
    #[inline]
    fn reserve(&mut self, now: u64, t: u64) -> u64 {
        self.base = self.base.max(now);
        let first = t.max(self.base);
        let mut c = first;
        loop {
            let mask = self.slots.len() - 1;
            if c - self.base > mask as u64 {
                self.grow(c - self.base);
                continue;
            }
            let slot = &mut self.slots[(c as usize) & mask];
            if slot.cycle != c {
                *slot = PortSlot {
                    cycle: c,
                    used: 1,
                    skip: c.saturating_add(1),
                };
                break;
            }
            if slot.used < self.cap {
                slot.used += 1;
                break;
            }
            // full: every cycle up to `skip` is full too
            c = slot.skip;
        }
        // `first .. c` is full: point every full cycle passed on the way at `c` (path
        // compression), so the next request for any of them starts there
        let mask = self.slots.len() - 1;
        let mut x = first;
        while x != c {
            let slot = &mut self.slots[(x as usize) & mask];
            x = std::mem::replace(&mut slot.skip, c);
        }
        c
    }

    /// Enlarges the ring so that offset `off` from `base` fits, keeping every count of a
    /// cycle not yet forgotten.
    #[cold]
    fn grow(&mut self, off: u64) {
        let need = usize::try_from(off)
            .ok()
            .and_then(|o| o.checked_add(1))
            .and_then(usize::checked_next_power_of_two)
            .unwrap_or(usize::MAX);
        let len = need.max(2 * self.slots.len());
        let mut v = vec![PortSlot::FREE; len];
        for s in &self.slots {
            if s.cycle >= self.base && s.cycle != u64::MAX {
                v[(s.cycle as usize) & (len - 1)] = *s;
            }
        }
        self.slots = v;
    }
}

/// An MSHR table: the release cycle of every busy entry (one entry per missed line request).
#[derive(Clone, Debug)]
struct Mshrs {
    cap: usize,
    busy: BinaryHeap<Reverse<u64>>,
}

impl Mshrs {
    fn new(entries: u32) -> Mshrs {
        Mshrs {
            cap: entries.max(1) as usize,
            busy: BinaryHeap::new(),
        }
    }

    /// Cycle (`>= t`) an entry becomes available to a miss at `t`; the caller then
    /// [`hold`](Self::hold)s it until its fill.
    fn alloc(&mut self, t: u64) -> u64 {
        while let Some(&Reverse(r)) = self.busy.peek() {
            if r > t {
                break;
            }
            self.busy.pop();
        }
        if self.busy.len() < self.cap {
            return t;
        }
        self.busy.pop().map_or(t, |Reverse(r)| r.max(t))
    }

    fn hold(&mut self, until: u64) {
        self.busy.push(Reverse(until));
    }
}

const INVALID: u64 = u64::MAX;
/// No way / empty slot in the 32-bit way links and the line index.
const NIL: u32 = u32::MAX;

/// Sectored set-associative tags with LRU; every valid sector knows the cycle its data
/// arrives (in the future while its fill is in flight).
///
/// Ways are never invalidated, so a set fills its ways in index order (`used` counts them)
/// and the victim of a full set is its least recently used way. Recency is kept as a
/// doubly-linked list per set (most recent at `mru`), and lines are found through a hash
/// index, so neither a lookup nor a replacement scans the ways: the same way is chosen as by
/// a scan for the first invalid way, else the oldest access stamp. Everything a hit reads
/// or writes of a way (tag, valid and dirty sectors, recency links, latest fill) shares one
/// 32-byte [`Way`] record.
#[derive(Clone, Debug)]
struct Tags {
    sets: u64,
    /// `sets − 1` when `sets` is a power of two (set = line & mask), else `u64::MAX`.
    set_mask: u64,
    ways: usize,
    spl: usize,
    way: Vec<Way>,
    /// Fill cycle of every sector (`spl` per way).
    fill: Vec<u64>,
    set: Vec<SetState>,
    index: LineIndex,
}

/// One way of a [`Tags`] set.
#[derive(Clone, Copy, Debug)]
struct Way {
    /// Line held (`INVALID`: none).
    tag: u64,
    /// At least the latest fill cycle of the valid sectors (0 after allocation): at any
    /// cycle `>= ready` every valid sector is present, without reading `fill`.
    ready: u64,
    valid: u32,
    dirty: u32,
    /// Recency links between the ways of a set (global way numbers, `NIL` at the ends).
    newer: u32,
    older: u32,
}

/// Per-set state of a [`Tags`].
#[derive(Clone, Copy, Debug)]
struct SetState {
    /// Valid ways.
    used: u32,
    /// Most and least recently used way (`NIL`: empty set).
    mru: u32,
    lru: u32,
}

/// Line → way index of a [`Tags`]: open addressing with linear probing over way numbers
/// (the key is the way's tag), Fibonacci hashing, at most half full, backward-shift
/// deletion. Only answers "which way holds this line", so iteration order never reaches any
/// output.
#[derive(Clone, Debug)]
struct LineIndex {
    slots: Vec<u32>,
    shift: u32,
}

impl LineIndex {
    fn new(lines: usize) -> LineIndex {
        let n = lines.saturating_mul(2).max(2).next_power_of_two();
        LineIndex {
            slots: vec![NIL; n],
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// Home slot of `line` (Knuth's multiplicative hashing, 2^64 / golden ratio).
    #[inline(always)]
    fn home(&self, line: u64) -> usize {
        (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    fn find(&self, ways: &[Way], line: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(line);
        loop {
            let w = *self.slots.get(i)?;
            if w == NIL {
                return None;
            }
            if ways.get(w as usize)?.tag == line {
                return Some(w as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `way` (holding `ways[way].tag`, not yet indexed).
    fn insert(&mut self, ways: &[Way], way: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(ways[way].tag);
        while self.slots[i] != NIL {
            i = (i + 1) & mask;
        }
        self.slots[i] = way as u32;
    }

    /// Removes `way` (still holding its indexed line in `ways[way].tag`).
    fn remove(&mut self, ways: &[Way], way: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(ways[way].tag);
        while self.slots[i] != way as u32 {
            if self.slots[i] == NIL {
                return;
            }
            i = (i + 1) & mask;
        }
        // backward-shift deletion: move later entries of the probe run into the hole when
        // their home slot does not lie cyclically in (hole, their slot]
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let w = self.slots[j];
            if w == NIL {
                break;
            }
            let k = self.home(ways[w as usize].tag);
            let stays = if i <= j {
                i < k && k <= j
            } else {
                i < k || k <= j
            };
            if !stays {
                self.slots[i] = w;
                i = j;
            }
        }
        self.slots[i] = NIL;
    }
}

/// State of the sectors of one line at a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lookup {
    way: usize,
    /// Sectors whose data is present at the lookup cycle.
    present: u32,
    /// Latest fill cycle among the requested sectors still in flight (0: none).
    inflight_until: u64,
    inflight: u32,
    /// Requested sectors not in the cache.
    missing: u32,
    /// A line evicted to make room: (line, dirty sectors).
    victim: Option<(u64, u32)>,
}

impl Tags {
    fn new(cfg: CacheConfig) -> Tags {
        let sets = cfg.sets.max(1) as usize;
        let ways = cfg.ways.max(1) as usize;
        let n = sets * ways;
        let spl = (cfg.line_bytes / cfg.sector_bytes.max(1)).max(1) as usize;
        Tags {
            sets: sets as u64,
            set_mask: if sets.is_power_of_two() {
                sets as u64 - 1
            } else {
                u64::MAX
            },
            ways,
            spl,
            way: vec![
                Way {
                    tag: INVALID,
                    ready: 0,
                    valid: 0,
                    dirty: 0,
                    newer: NIL,
                    older: NIL,
                };
                n
            ],
            fill: vec![0; n * spl],
            set: vec![
                SetState {
                    used: 0,
                    mru: NIL,
                    lru: NIL,
                };
                sets
            ],
            index: LineIndex::new(n),
        }
    }

    /// Set of `line`: `line mod sets`.
    #[inline(always)]
    fn set_of(&self, line: u64) -> usize {
        if self.set_mask != u64::MAX {
            (line & self.set_mask) as usize
        } else {
            (line % self.sets) as usize
        }
    }

    /// Makes `way` (of `set`) the most recently used way; `linked`: it is in the list already.
    #[inline(always)]
    fn touch(&mut self, set: usize, way: usize, linked: bool) {
        let w = way as u32;
        let m = self.set[set].mru;
        if m == w {
            return;
        }
        if linked {
            // unlink (not the MRU, so it has a newer neighbour)
            let (n, o) = (self.way[way].newer, self.way[way].older);
            self.way[n as usize].older = o;
            if o == NIL {
                self.set[set].lru = n;
            } else {
                self.way[o as usize].newer = n;
            }
        }
        self.way[way].older = m;
        self.way[way].newer = NIL;
        if m == NIL {
            self.set[set].lru = w;
        } else {
            self.way[m as usize].newer = w;
        }
        self.set[set].mru = w;
    }

    /// Looks `sectors` of `line` up at cycle `t`. With `allocate` a missing line takes the LRU
    /// way (its sectors invalid) and a dirty victim is reported; without, `way` is
    /// `usize::MAX` when the line is absent.
    #[inline(always)]
    fn lookup(&mut self, line: u64, sectors: u32, t: u64, allocate: bool) -> Lookup {
        let (way, victim) = match self.index.find(&self.way, line) {
            Some(w) => {
                self.touch(self.set_of(line), w, true);
                (w, None)
            }
            None if allocate => self.allocate(line),
            None => {
                return Lookup {
                    way: usize::MAX,
                    present: 0,
                    inflight_until: 0,
                    inflight: 0,
                    missing: sectors,
                    victim: None,
                }
            }
        };
        let mut r = self.sectors(way, sectors, t);
        r.victim = victim;
        r
    }

    /// State of `sectors` of the line in `way` at cycle `t` (no recency update, no victim).
    #[inline(always)]
    fn sectors(&self, way: usize, sectors: u32, t: u64) -> Lookup {
        let w = &self.way[way];
        let valid = w.valid & sectors;
        let mut r = Lookup {
            way,
            present: valid,
            inflight_until: 0,
            inflight: 0,
            missing: sectors & !valid,
            victim: None,
        };
        if w.ready > t {
            // some valid sector may still be in flight: check them one by one
            r.present = 0;
            let fills = &self.fill[way * self.spl..];
            let mut v = valid;
            while v != 0 {
                let s = v.trailing_zeros() as usize;
                v &= v - 1;
                let f = fills[s];
                if f > t {
                    r.inflight |= 1 << s;
                    r.inflight_until = r.inflight_until.max(f);
                } else {
                    r.present |= 1 << s;
                }
            }
        }
        r
    }

    /// Places absent `line` in the first unused way of its set, else in the LRU way, with
    /// no valid sectors; returns the way and the evicted line with its dirty sectors, if any.
    #[inline(never)]
    fn allocate(&mut self, line: u64) -> (usize, Option<(u64, u32)>) {
        let set = self.set_of(line);
        let n = self.set[set].used as usize;
        let mut victim = None;
        let w = if n < self.ways {
            self.set[set].used += 1;
            set * self.ways + n
        } else {
            let w = self.set[set].lru as usize;
            if self.way[w].dirty != 0 {
                victim = Some((self.way[w].tag, self.way[w].dirty));
            }
            self.index.remove(&self.way, w);
            w
        };
        let way = &mut self.way[w];
        way.tag = line;
        way.valid = 0;
        way.dirty = 0;
        way.ready = 0;
        self.index.insert(&self.way, w);
        self.touch(set, w, n >= self.ways);
        (w, victim)
    }

    /// Makes every valid sector present from cycle 0 (a new launch's time base).
    fn settle(&mut self) {
        for w in &mut self.way {
            w.ready = 0;
        }
        self.fill.fill(0);
    }

    /// Marks `sectors` of the line in `way` valid with data from cycle `at`.
    #[inline]
    fn fill(&mut self, way: usize, sectors: u32, at: u64) {
        let w = &mut self.way[way];
        w.valid |= sectors;
        // the largest cycle filled since the allocation bounds every valid sector's
        w.ready = w.ready.max(at);
        let mut v = sectors;
        while v != 0 {
            let s = v.trailing_zeros() as usize;
            v &= v - 1;
            self.fill[way * self.spl + s] = at;
        }
    }
}

/// One DRAM bank: open row and the cycle (core clock, fractional) it takes a new command.
#[derive(Clone, Copy, Debug)]
struct Bank {
    open: u64,
    ready: f64,
}

/// The DRAM of all channels: banks, data buses and the latency queue in front of them.
#[derive(Clone, Debug)]
struct Dram {
    banks: Vec<Bank>,
    /// Cycle (core clock, fractional) each channel's data bus is free.
    bus: Vec<f64>,
    /// Core cycles between the L2 and the DRAM scheduler (`dram.latency`).
    latency: u64,
}

impl Dram {
    /// A DRAM burst for sector `sector` of `line` arriving from the L2 at `t`; returns the
    /// cycle the data (read) is back at the L2 or the write has left the bus.
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        d: &Derived,
        t: u64,
        line: u64,
        sector: u32,
        write: bool,
        act: &mut MemActivity,
    ) -> u64 {
        let addr = line * d.l2_line_bytes + u64::from(sector) * d.l2_sector_bytes;
        let chunk = d.interleave.div(addr);
        let c = d.channels.rem(chunk) as usize;
        let local = d.interleave.d * d.channels.div(chunk) + d.interleave.rem(addr);
        let row_all = d.row.div(local);
        let bank = c * d.banks.d as usize + d.banks.rem(row_all) as usize;
        let row = d.banks.div(row_all);
        let cas = if write { d.t_cas_write } else { d.t_cas_read };
        let b = &mut self.banks[bank];
        let mut s = ((t + self.latency) as f64).max(b.ready);
        if b.open == row {
            act.dram_row_hits += 1;
        } else {
            s += if b.open == INVALID {
                d.t_act
            } else {
                d.t_pre_act
            };
            b.open = row;
        }
        let start = (s + cas).max(self.bus[c]);
        self.bus[c] = start + d.t_burst;
        b.ready = s + d.t_burst;
        if write {
            act.dram_sector_writes += 1;
        } else {
            act.dram_sector_reads += 1;
        }
        (start + d.t_burst).ceil() as u64
    }

    /// Writes the dirty sectors of an evicted L2 line back to DRAM.
    fn write_back(
        &mut self,
        d: &Derived,
        t: u64,
        victim: Option<(u64, u32)>,
        act: &mut MemActivity,
    ) {
        if let Some((line, dirty)) = victim {
            for s in bits(dirty) {
                self.access(d, t, line, s, true, act);
            }
        }
    }
}

/// The memory system of a whole GPU (see the module documentation).
#[derive(Clone, Debug)]
pub struct MemoryHierarchy {
    cfg: MemoryConfig,
    const_latency: u32,
    l1: Vec<Tags>,
    l1_mshr: Vec<Mshrs>,
    /// Per SM: the head of the L1D's request queue into the crossbar ([`Self::send`]).
    request: Vec<RequestFifo>,
    /// Per L2 slice: the crossbar output towards it, `icnt_request_packets_per_cycle` packets a
    /// cycle ([`Self::send`]).
    xbar: Vec<Port>,
    reply: Vec<Port>,
    l2: Vec<Tags>,
    l2_port: Vec<Port>,
    l2_mshr: Vec<Mshrs>,
    dram: Dram,
    /// (line, sector mask) of the access being timed, sorted by line.
    lines: Vec<(u64, u32)>,
    /// (bank, word) pairs of a shared-memory access.
    words: Vec<(u64, u64)>,
    /// Values derived from `cfg` once instead of on every access.
    d: Derived,
    /// Scratch of [`Self::shared_conflict_free`]: the first word seen in each bank.
    bank_word: [u64; 64],
    /// Instruction and constant cache per SM (empty with `perfect_inst_const_cache`).
    l1i: Vec<Tags>,
    l1c: Vec<Tags>,
    /// (address, bytes) of the lines `l1i` / `l1c` read from the L2, in order (their first
    /// read; `front_seen` holds the addresses).
    front_lines: Vec<(u64, u64)>,
    front_seen: std::collections::HashSet<u64>,
}

/// A divisor fixed at construction: powers of two divide by a shift.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    /// `log2 d` when `d` is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    /// `d` (at least 1).
    fn new(d: u64) -> Divisor {
        let d = d.max(1);
        Divisor {
            d,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }

    #[inline(always)]
    fn div(self, x: u64) -> u64 {
        match self.shift {
            Some(k) => x >> k,
            None => x / self.d,
        }
    }

    #[inline(always)]
    fn rem(self, x: u64) -> u64 {
        match self.shift {
            Some(_) => x & (self.d - 1),
            None => x % self.d,
        }
    }
}

/// Configuration values of [`MemoryHierarchy`] derived once, each computed by the same
/// expression the per-access code used before (so every cycle, including the fractional
/// DRAM times, is bit-identical).
#[derive(Clone, Copy, Debug)]
struct Derived {
    /// L1D coalescing by shifts (see [`MemoryHierarchy::coalesce_pow2`]): (log2 sector bytes,
    /// log2 sectors per line) when line and sector sizes are powers of two, sectors no larger
    /// than lines.
    l1_pow2: Option<(u32, u32)>,
    /// L1D and L2 sectors have the same size: an L1D sector mask is its L2 sector mask.
    same_sectors: bool,
    /// [`Derived::l1_bank`]: L1D sectors per line and banks − 1 (banks are a power of two),
    /// and the hit latency.
    l1_spl: u64,
    l1_bank_mask: u64,
    l1_lat: u64,
    /// Cycles the L1D miss queue takes to send a full queue ([`MemoryHierarchy::send`]).
    miss_queue_cycles: u64,
    /// Cycles from leaving the SM to the L2 lookup (crossbar + ROP), and back (crossbar).
    to_l2: u64,
    from_l2: u64,
    /// [`MemoryHierarchy::place`]: line → channel chunk, channels, slices per channel
    /// (raw and at least 1), channels × slices per channel (line → line in the slice).
    chunk: Divisor,
    channels: Divisor,
    spc: u64,
    spc1: Divisor,
    slice_lines: Divisor,
    /// [`MemoryHierarchy::dram`]: L2 line and sector bytes, interleave bytes, row bytes,
    /// banks per channel.
    l2_line_bytes: u64,
    l2_sector_bytes: u64,
    interleave: Divisor,
    row: Divisor,
    banks: Divisor,
    /// DRAM times in core cycles: activate (closed bank), precharge + activate, read and
    /// write CAS latency, burst of one sector on the bus.
    t_act: f64,
    t_pre_act: f64,
    t_cas_read: f64,
    t_cas_write: f64,
    t_burst: f64,
    /// Shared-memory banks and bank width.
    shared_banks: Divisor,
    shared_bank_bytes: Divisor,
}

/// The head of an SM's request queue (GPGPU-Sim: the L1D miss queue feeding the SM's input
/// buffer of the crossbar, both first-in first-out): requests leave in the order they are
/// sent, at most `cap` a cycle, and one whose crossbar output is taken waits there with the
/// requests behind it (head-of-line blocking, `xbar_router::iSLIP_Advance` moves only the
/// front packet of each input buffer).
#[derive(Clone, Copy, Debug, Default)]
struct RequestFifo {
    /// Cycle the last request left, and how many left in it.
    cycle: u64,
    used: u32,
}

impl RequestFifo {
    /// The earliest cycle a request ready at `t` can leave.
    #[inline]
    fn next(&self, t: u64, cap: u32) -> u64 {
        if t > self.cycle {
            t
        } else if self.used < cap {
            self.cycle
        } else {
            self.cycle + 1
        }
    }

    /// Records a request leaving at `g` (≥ [`Self::next`]).
    #[inline]
    fn take(&mut self, g: u64) {
        if g == self.cycle {
            self.used += 1;
        } else {
            self.cycle = g;
            self.used = 1;
        }
    }
}

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
struct BankClock {
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

impl Derived {
    /// The L1D bank of sector `s` of `line` (see [`BankClock`]): sector-interleaved banks,
    /// a power of two of them, so the low bits of the sector's number. Wrapping: only those
    /// low bits matter.
    #[inline(always)]
    fn l1_bank(&self, line: u64, s: u32) -> u64 {
        line.wrapping_mul(self.l1_spl).wrapping_add(u64::from(s)) & self.l1_bank_mask
    }

    /// `dram_k`: core cycles per DRAM command cycle.
    fn new(cfg: &MemoryConfig, dram_k: f64) -> Derived {
        let lb = u64::from(cfg.l1d.line_bytes.max(1));
        let sb = u64::from(cfg.l1d.sector_bytes.max(1));
        let l1_pow2 = (lb.is_power_of_two() && sb.is_power_of_two() && sb <= lb).then(|| {
            let sk = sb.trailing_zeros();
            (sk, lb.trailing_zeros() - sk)
        });
        let d = &cfg.dram;
        let l2_lb = u64::from(cfg.l2_slice.line_bytes.max(1));
        let l2_sb = u64::from(cfg.l2_slice.sector_bytes.max(1));
        let ch = u64::from(d.channels.max(1));
        let spc = u64::from(cfg.l2_slices.max(1)) / ch;
        let k = dram_k;
        let bursts = l2_sb.div_ceil(u64::from(d.burst_bytes.max(1))) as f64;
        Derived {
            l1_pow2,
            same_sectors: cfg.l1d.sector_bytes.max(1) == cfg.l2_slice.sector_bytes.max(1),
            l1_spl: (lb / sb).max(1),
            l1_bank_mask: u64::from(cfg.l1d_banks.max(1).next_power_of_two()) - 1,
            miss_queue_cycles: u64::from(cfg.l1d_miss_queue_entries)
                .div_ceil(u64::from(cfg.l1d_requests_per_cycle.max(1))),
            l1_lat: u64::from(cfg.l1d_hit_latency),
            to_l2: u64::from(cfg.icnt_latency) + u64::from(cfg.l2_rop_latency),
            from_l2: u64::from(cfg.icnt_latency),
            chunk: Divisor::new(u64::from(d.interleave_bytes.max(1)) / l2_lb),
            channels: Divisor::new(ch),
            spc,
            spc1: Divisor::new(spc),
            slice_lines: Divisor::new(ch * spc.max(1)),
            l2_line_bytes: l2_lb,
            l2_sector_bytes: l2_sb,
            interleave: Divisor::new(u64::from(d.interleave_bytes.max(1))),
            row: Divisor::new(u64::from(d.row_bytes.max(1))),
            banks: Divisor::new(u64::from(d.banks.max(1))),
            t_act: f64::from(d.t_rcd) * k,
            t_pre_act: (u64::from(d.t_rp) + u64::from(d.t_rcd)) as f64 * k,
            t_cas_read: f64::from(d.t_cl) * k,
            t_cas_write: f64::from(d.t_wl) * k,
            t_burst: bursts * f64::from(d.burst_cycles) * k,
            shared_banks: Divisor::new(u64::from(cfg.shared.banks)),
            shared_bank_bytes: Divisor::new(u64::from(cfg.shared.bank_bytes)),
        }
    }
}

/// Set bits of a sector mask. Masks of at most 4 sectors (every preset's lines) come from a
/// table; wider ones use `count_ones`, which is a bit-twiddling sequence on the baseline
/// x86-64 target (no `popcnt`).
fn popcount(m: u32) -> u32 {
    const SMALL: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
    match SMALL.get(m as usize) {
        Some(&n) => u32::from(n),
        None => m.count_ones(),
    }
}

/// Sorts the (line, sectors) list of a warp by line (lines are distinct); two lines, the
/// most common case after one, by a compare-and-swap.
fn sort_lines(lines: &mut [(u64, u32)]) {
    match lines {
        [] | [_] => {}
        [a, b] => {
            if b.0 < a.0 {
                std::mem::swap(a, b);
            }
        }
        _ => lines.sort_unstable(),
    }
}

/// Iterates the set bits of a mask, lowest first.
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let b = m.trailing_zeros();
        m &= m - 1;
        Some(b)
    })
}

/// State of [`MemoryHierarchy::coalesce_pow2`]: the (line, sector mask) list being built and
/// the sector added last.
struct Coalescer<'a> {
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
    /// The memory system of a GPU with `sms` SMs. `const_latency` times param/const loads;
    /// `core_clock_mhz` converts DRAM command cycles to core cycles.
    pub fn new(
        cfg: &MemoryConfig,
        sms: u32,
        const_latency: u32,
        core_clock_mhz: f64,
    ) -> MemoryHierarchy {
        let d = &cfg.dram;
        let nbanks = (d.channels.max(1) * d.banks.max(1)) as usize;
        MemoryHierarchy {
            cfg: cfg.clone(),
            const_latency,
            l1: (0..sms).map(|_| Tags::new(cfg.l1d)).collect(),
            l1_mshr: (0..sms).map(|_| Mshrs::new(cfg.l1d_mshr_entries)).collect(),
            request: vec![RequestFifo::default(); sms as usize],
            xbar: (0..cfg.l2_slices)
                .map(|_| Port::new(cfg.icnt_request_packets_per_cycle))
                .collect(),
            reply: (0..sms)
                .map(|_| Port::new(cfg.icnt_reply_sectors_per_cycle))
                .collect(),
            l2: (0..cfg.l2_slices)
                .map(|_| Tags::new(cfg.l2_slice))
                .collect(),
            l2_port: (0..cfg.l2_slices)
                .map(|_| Port::new(cfg.l2_sectors_per_cycle_per_slice))
                .collect(),
            l2_mshr: (0..cfg.l2_slices)
                .map(|_| Mshrs::new(cfg.l2_mshr_entries))
                .collect(),
            dram: Dram {
                banks: vec![
                    Bank {
                        open: INVALID,
                        ready: 0.0
                    };
                    nbanks
                ],
                bus: vec![0.0; d.channels.max(1) as usize],
                latency: u64::from(d.latency),
            },
            lines: Vec::with_capacity(64),
            words: Vec::with_capacity(128),
            d: Derived::new(cfg, core_clock_mhz / d.clock_mhz),
            bank_word: [0; 64],
            l1i: (0..sms)
                .filter(|_| !cfg.perfect_inst_const_cache)
                .map(|_| Tags::new(cfg.l1i))
                .collect(),
            l1c: (0..sms)
                .filter(|_| !cfg.perfect_inst_const_cache)
                .map(|_| Tags::new(cfg.l1c))
                .collect(),
            front_lines: Vec::new(),
            front_seen: std::collections::HashSet::new(),
        }
    }

    /// Starts a launch with what an earlier launch of the same spec left in the instruction
    /// and constant caches (every line present from cycle 0) and the L2 lines they read
    /// (present from cycle 0, after the host data). Nothing with `perfect_inst_const_cache`
    /// or when `c` is empty (the first launch).
    pub fn restore_front_end(&mut self, c: &mut CarriedCaches) {
        if self.l1i.is_empty() || c.l1i.len() != self.l1i.len() || c.l1c.len() != self.l1c.len() {
            return;
        }
        self.l1i = std::mem::take(&mut c.l1i);
        self.l1c = std::mem::take(&mut c.l1c);
        for t in self.l1i.iter_mut().chain(self.l1c.iter_mut()) {
            t.settle();
        }
        let lines = std::mem::take(&mut c.l2_lines);
        self.place_l2(&lines);
        for &(a, _) in &lines {
            self.front_seen.insert(a);
        }
        self.front_lines = lines;
    }

    /// Hands the instruction and constant caches and the L2 lines they read to the next
    /// launch ([`Self::restore_front_end`]).
    pub fn save_front_end(&mut self, c: &mut CarriedCaches) {
        c.l1i = std::mem::take(&mut self.l1i);
        c.l1c = std::mem::take(&mut self.l1c);
        c.l2_lines = std::mem::take(&mut self.front_lines);
        self.front_seen.clear();
    }

    /// Reads the bytes `addr .. addr + bytes` (inside one L2 line) for SM `sm`'s instruction
    /// or constant cache from the L2, the request leaving at `t`; returns the cycle the data
    /// is back.
    fn front_miss(
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
    fn constant(
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
    fn place_l2(&mut self, ranges: &[(u64, u64)]) {
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

    /// Groups the lanes into (line, L1D sector mask) pairs, sorted by line.
    fn coalesce(&mut self, acc: &WarpMemAccess) {
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
    fn uniform_sectors(&self, acc: &WarpMemAccess) -> Option<[u64; 4]> {
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
    fn uniform_lines(&self, sec: [u64; 4], out: &mut [(u64, u32); 4]) -> usize {
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
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn send(
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
    fn l2(
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

    /// Splits a warp's global atomic into its memory transactions, one `(line, L2 sectors)`
    /// pair per transaction in `self.lines` (issue 36). The rule is GPGPU-Sim's
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

    /// Times a warp's global atomic (issue 36): its transactions
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
    fn atomic(
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

    /// Times the coalesced `lines` of a warp memory instruction (see [`MemoryTiming::access`]).
    #[allow(clippy::too_many_arguments)]
    fn time_lines(
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
    fn load_lines(
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

impl MemoryTiming for MemoryHierarchy {
    fn l1_probe(&mut self, now: u64, sm: u32, acc: &WarpMemAccess) -> bool {
        if acc.space != MemSpaceKind::Global || acc.kind != MemOpKind::Load || acc.mask == 0 {
            return false;
        }
        let smi = (sm as usize).min(self.l1.len().saturating_sub(1));
        let t = now + self.d.l1_lat;
        self.coalesce(acc);
        let Some(l1) = self.l1.get(smi) else {
            return false;
        };
        self.lines
            .iter()
            .all(|&(line, secs)| match l1.index.find(&l1.way, line) {
                // present or already requested (GPGPU-Sim's HIT_RESERVED: an MSHR merge,
                // not a miss)
                Some(w) => l1.sectors(w, secs, t).missing == 0,
                None => false,
            })
    }

    fn access(
        &mut self,
        now: u64,
        sm: u32,
        acc: &WarpMemAccess,
        skip_l1: bool,
        act: &mut MemActivity,
    ) -> MemTiming {
        match acc.space {
            MemSpaceKind::Param | MemSpaceKind::Const => {
                act.param_const_instructions += 1;
                if !self.l1c.is_empty() {
                    let smi = (sm as usize).min(self.l1c.len() - 1);
                    return self.constant(now, smi, acc, act);
                }
                return MemTiming {
                    ready_at: now + u64::from(self.const_latency),
                    ldst_cycles: 1,
                };
            }
            MemSpaceKind::Shared => return self.shared(now, acc, act),
            MemSpaceKind::Local => act.local_instructions += 1,
            MemSpaceKind::Global => act.global_instructions += 1,
        }
        match acc.kind {
            MemOpKind::Load if !skip_l1 => {
                // the common case: a load through the L1D of a warp whose groups of lanes
                // each read one sector
                if let Some(sec) = self.uniform_sectors(acc) {
                    let smi = (sm as usize).min(self.l1.len().saturating_sub(1));
                    let mut out = [(0u64, 0u32); 4];
                    let n = self.uniform_lines(sec, &mut out);
                    let lines = out.get(..n).unwrap_or_default();
                    return self.load_lines(now, smi, lines, act);
                }
            }
            MemOpKind::Atomic => {
                act.atomic_instructions += 1;
                return self.atomic(now, sm, acc, act);
            }
            _ => {}
        }
        self.coalesce(acc);
        let lines = std::mem::take(&mut self.lines);
        let t = self.time_lines(now, sm, acc.kind, skip_l1, &lines, act);
        self.lines = lines;
        t
    }

    fn fetch(&mut self, now: u64, sm: u32, f: &MemFetch, act: &mut MemActivity) -> u64 {
        act.rf_design_fetches += 1;
        let lb = u64::from(self.cfg.l2_slice.line_bytes.max(1));
        let sb = u64::from(self.cfg.l2_slice.sector_bytes.max(1));
        let kind = if f.write {
            MemOpKind::Store
        } else {
            MemOpKind::Load
        };
        let smi = (sm as usize).min(self.reply.len().saturating_sub(1));
        let mut ready = now;
        let mut b = f.addr;
        let end = f.addr.saturating_add(u64::from(f.bytes.max(1)));
        while b < end {
            let line = b / lb;
            let sec = 1u32 << ((b % lb) / sb);
            ready = ready.max(self.l2(now, now, smi, line, sec, kind, act, |_| now, |_, _| {}));
            b = (b / sb + 1) * sb;
        }
        ready
    }

    /// GPGPU-Sim `shader_core_ctx::fetch`: the warp's fetch looks its line up in the SM's
    /// instruction cache; a miss (or a line in flight) holds the warp until the fill.
    fn inst_fetch(&mut self, now: u64, sm: u32, code: u64, act: &mut MemActivity) -> u64 {
        if self.l1i.is_empty() {
            return now;
        }
        let smi = (sm as usize).min(self.l1i.len() - 1);
        let lb = u64::from(self.cfg.l1i.line_bytes.max(1));
        let line = (PROGRAM_MEM_START + code) / lb;
        let look = self.l1i[smi].lookup(line, 1, now, true);
        if look.present != 0 {
            return now;
        }
        if look.inflight != 0 {
            return look.inflight_until;
        }
        act.inst_fetch_misses += 1;
        let f = self.front_miss(now, now, smi, line * lb, lb, act);
        self.l1i[smi].fill(look.way, 1, f);
        f
    }
}

impl MemoryHierarchy {
    /// Shared memory: bank conflicts serialise the distinct words of the busiest bank.
    fn shared(&mut self, now: u64, acc: &WarpMemAccess, act: &mut MemActivity) -> MemTiming {
        act.shared_instructions += 1;
        act.shared_accesses += 1;
        let degree = if self.shared_conflict_free(acc) {
            1
        } else {
            self.shared_degree(acc)
        };
        act.shared_bank_conflict_cycles += u64::from(degree - 1);
        MemTiming {
            ready_at: now + u64::from(self.cfg.shared.latency) + u64::from(degree - 1),
            ldst_cycles: degree,
        }
    }

    /// Whether every bank the access touches holds a single distinct word (degree 1, the
    /// common case: unit stride, broadcasts), found without sorting: each bank remembers the
    /// first word seen in it. Only for at most 64 banks (a bit mask of the banks seen);
    /// `false` also means "not checked". Same answer as [`Self::shared_degree`] `== 1`
    /// (tested).
    fn shared_conflict_free(&mut self, acc: &WarpMemAccess) -> bool {
        let banks = self.d.shared_banks;
        if banks.d > 64 {
            return false;
        }
        let mut seen = 0u64;
        let bank_word = &mut self.bank_word;
        shared_words(acc, self.d.shared_bank_bytes, |w| {
            let b = banks.rem(w) as usize;
            let bit = 1u64 << b;
            if seen & bit == 0 {
                seen |= bit;
                bank_word[b] = w;
                true
            } else {
                bank_word[b] == w
            }
        })
    }

    /// Bank-conflict degree of a shared-memory access: the largest number of distinct
    /// words in one bank (at least 1). Up to 64 banks, the distinct words of each bank are
    /// chained in `words` as (word, previous entry + 1) and counted; more banks sort
    /// (see [`Self::shared_degree_sorted`]). Same degree either way (tested).
    fn shared_degree(&mut self, acc: &WarpMemAccess) -> u32 {
        let banks = self.d.shared_banks;
        if banks.d > 64 {
            return self.shared_degree_sorted(acc);
        }
        let mut seen = 0u64;
        // last entry + 1 of each bank's chain, and its length
        let mut head = [0u64; 64];
        let mut count = [0u32; 64];
        let mut degree = 1u32;
        let words = &mut self.words;
        words.clear();
        shared_words(acc, self.d.shared_bank_bytes, |w| {
            let b = banks.rem(w) as usize;
            let bit = 1u64 << b;
            let mut known = false;
            if seen & bit == 0 {
                seen |= bit;
                head[b] = 0;
                count[b] = 0;
            } else {
                let mut i = head[b];
                while let Some(&(x, prev)) = words.get((i as usize).wrapping_sub(1)) {
                    if x == w {
                        known = true;
                        break;
                    }
                    i = prev;
                }
            }
            if !known {
                words.push((w, head[b]));
                head[b] = words.len() as u64;
                count[b] += 1;
                degree = degree.max(count[b]);
            }
            true
        });
        degree
    }

    /// [`Self::shared_degree`] for any number of banks: sorts the (bank, word) pairs and
    /// takes the longest run of one bank.
    fn shared_degree_sorted(&mut self, acc: &WarpMemAccess) -> u32 {
        let banks = u64::from(self.cfg.shared.banks.max(1));
        let bb = u64::from(self.cfg.shared.bank_bytes.max(1));
        let size = u64::from(acc.bytes_per_lane.max(1));
        self.words.clear();
        let mut m = acc.mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut w = acc.addrs[l] / bb;
            let end = acc.addrs[l].saturating_add(size).div_ceil(bb);
            while w < end {
                self.words.push((w % banks, w));
                w += 1;
            }
        }
        self.words.sort_unstable();
        self.words.dedup();
        let mut degree = 1u32;
        let mut run = 0u32;
        let mut prev = u64::MAX;
        for &(b, _) in &self.words {
            run = if b == prev { run + 1 } else { 1 };
            prev = b;
            degree = degree.max(run);
        }
        degree
    }
}

/// Calls `f(w)` for every shared-memory word `w` (address / `bank_bytes`) the active lanes of
/// `acc` touch, lanes in order and each lane's words `a / bb ..= ⌈(a + size) / bb⌉ − 1` in
/// order, until `f` returns `false`; whether it ran to the end.
#[inline(always)]
fn shared_words(acc: &WarpMemAccess, bb: Divisor, mut f: impl FnMut(u64) -> bool) -> bool {
    let size = u64::from(acc.bytes_per_lane.max(1));
    let mut m = acc.mask;
    while m != 0 {
        let a = acc.addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        let end = a.saturating_add(size);
        let last = bb.div(end) + u64::from(bb.rem(end) != 0);
        let mut w = bb.div(a);
        while w < last {
            if !f(w) {
                return false;
            }
            w += 1;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::config::{DramConfig, GpuConfig, SharedMemConfig};

    /// A small hand-computable system: core clock = DRAM clock (1 core cycle per command
    /// cycle), one channel with two slices, one sector per cycle everywhere.
    fn small(l1_mshrs: u32) -> MemoryHierarchy {
        let cfg = MemoryConfig {
            l1d: CacheConfig {
                sets: 4,
                ways: 4,
                line_bytes: 128,
                sector_bytes: 32,
            },
            l1d_hit_latency: 10,
            // one bank per sector of a line: a fully used line enters in one cycle
            l1d_banks: 4,
            l1d_mshr_entries: l1_mshrs,
            l1d_requests_per_cycle: 1,
            l1d_miss_queue_entries: 1 << 20,
            shared: SharedMemConfig {
                banks: 32,
                bank_bytes: 4,
                latency: 5,
            },
            icnt_latency: 2,
            icnt_reply_sectors_per_cycle: 1,
            icnt_request_packets_per_cycle: 1,
            l2_slice: CacheConfig {
                sets: 16,
                ways: 4,
                line_bytes: 128,
                sector_bytes: 32,
            },
            l2_slices: 2,
            l2_rop_latency: 20,
            l2_sectors_per_cycle_per_slice: 1,
            l2_mshr_entries: 8,
            l2_preload_host_data: true,
            perfect_inst_const_cache: true,
            l1i: CacheConfig {
                sets: 2,
                ways: 2,
                line_bytes: 128,
                sector_bytes: 128,
            },
            l1c: CacheConfig {
                sets: 2,
                ways: 2,
                line_bytes: 64,
                sector_bytes: 64,
            },
            dram: DramConfig {
                channels: 1,
                interleave_bytes: 256,
                latency: 30,
                clock_mhz: 1000.0,
                banks: 2,
                row_bytes: 2048,
                burst_bytes: 32,
                burst_cycles: 4,
                t_rcd: 5,
                t_rp: 5,
                t_cl: 5,
                t_wl: 2,
            },
        };
        MemoryHierarchy::new(&cfg, 2, 4, 1000.0)
    }

    /// [`small`] with instruction and constant caches (`perfect_inst_const_cache` off).
    fn small_front() -> MemoryHierarchy {
        let mut cfg = small(64).cfg;
        cfg.perfect_inst_const_cache = false;
        MemoryHierarchy::new(&cfg, 2, 4, 1000.0)
    }

    fn acc(space: MemSpaceKind, kind: MemOpKind, base: u64, stride: u64) -> WarpMemAccess {
        WarpMemAccess {
            space,
            kind,
            bytes_per_lane: 4,
            mask: u32::MAX,
            addrs: std::array::from_fn(|l| base + l as u64 * stride),
        }
    }

    fn load(base: u64, stride: u64) -> WarpMemAccess {
        acc(MemSpaceKind::Global, MemOpKind::Load, base, stride)
    }

    /// Issue 5: the shift-based coalescer groups lanes exactly as the general one
    /// (unit-stride, strided, broadcast, unaligned, wide lanes, lanes straddling sectors and
    /// lines, sparse masks).
    #[test]
    fn issue5_general_coalescing_ends_at_the_top_of_the_address_space() {
        let mut m = small(4);
        let mut a = load(u64::MAX - 7, 0);
        a.bytes_per_lane = 8;
        a.mask = 1;
        m.coalesce_general(&a);
        let line = (u64::MAX - 7) / 128;
        assert_eq!(m.lines, vec![(line, 1 << 3)]);
    }

    #[test]
    fn issue5_pow2_coalescing_matches_the_general_path() {
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

    /// A small deterministic generator for the randomised equivalence tests (64-bit LCG,
    /// Knuth's MMIX constants; the high bits are used).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 32
        }
    }

    /// Issue 5: the group fast path of the coalescer (8 active lanes in one sector) agrees
    /// with the general path on warps built from uniform, unit-stride, broadcast, strided and
    /// random groups, partial masks and wide lanes. (Lanes at the top of the address space
    /// are not compared: the general path's sector step wraps around there.)
    #[test]
    fn issue5_group_coalescing_matches_the_general_path() {
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

    /// The tag model of the original implementation (scan for the line; allocate the first
    /// invalid way, else the way with the oldest stamp): the reference for [`Tags`].
    struct ScanTags {
        sets: u64,
        ways: usize,
        tags: Vec<u64>,
        stamp: Vec<u64>,
        dirty: Vec<u32>,
        clock: u64,
    }

    impl ScanTags {
        /// (way or `usize::MAX`, victim) of a lookup.
        fn lookup(&mut self, line: u64, allocate: bool) -> (usize, Option<(u64, u32)>) {
            self.clock += 1;
            let base = (line % self.sets) as usize * self.ways;
            let mut victim = None;
            let way = match (base..base + self.ways).find(|&i| self.tags[i] == line) {
                Some(w) => w,
                None if allocate => {
                    let w = (base..base + self.ways)
                        .find(|&i| self.tags[i] == INVALID)
                        .or_else(|| (base..base + self.ways).min_by_key(|&i| self.stamp[i]))
                        .unwrap_or(base);
                    if self.tags[w] != INVALID && self.dirty[w] != 0 {
                        victim = Some((self.tags[w], self.dirty[w]));
                    }
                    self.tags[w] = line;
                    self.dirty[w] = 0;
                    w
                }
                None => return (usize::MAX, None),
            };
            self.stamp[way] = self.clock;
            (way, victim)
        }
    }

    /// Issue 5: the hashed, linked-LRU tags choose the same ways and victims as a scan of the
    /// set with access stamps (power-of-two and other set counts, one and many ways, hits,
    /// non-allocating probes, dirty victims).
    #[test]
    fn issue5_tags_match_the_scanning_lru() {
        for (sets, ways) in [(4u32, 4u32), (3, 5), (1, 1), (2, 16), (4, 128), (1, 3)] {
            let cfg = CacheConfig {
                sets,
                ways,
                line_bytes: 128,
                sector_bytes: 32,
            };
            let mut t = Tags::new(cfg);
            let n = (sets * ways) as usize;
            let mut r = ScanTags {
                sets: u64::from(sets),
                ways: ways as usize,
                tags: vec![INVALID; n],
                stamp: vec![0; n],
                dirty: vec![0; n],
                clock: 0,
            };
            let mut rng = Lcg(u64::from(sets * 1000 + ways));
            let span = u64::from(sets * ways) * 3;
            for step in 0..20_000u64 {
                let line = rng.next() % span;
                let sectors = (rng.next() % 15 + 1) as u32;
                let allocate = !rng.next().is_multiple_of(4);
                let now = step;
                let look = t.lookup(line, sectors, now, allocate);
                let (way, victim) = r.lookup(line, allocate);
                assert_eq!(
                    (look.way, look.victim),
                    (way, victim),
                    "{sets}x{ways} {step}"
                );
                if way != usize::MAX {
                    t.fill(look.way, look.missing, now + rng.next() % 8);
                    if rng.next().is_multiple_of(3) {
                        let d = (rng.next() % 15 + 1) as u32;
                        t.way[way].dirty |= d;
                        r.dirty[way] |= d;
                    }
                }
            }
        }
    }

    /// The port model of the original implementation (a deque of per-cycle counts popped
    /// one cycle at a time): the reference for [`Port`].
    struct DequePort {
        base: u64,
        used: std::collections::VecDeque<u8>,
        cap: u8,
    }

    impl DequePort {
        fn reserve(&mut self, now: u64, t: u64) -> u64 {
            while self.base < now {
                if self.used.pop_front().is_none() {
                    self.base = now;
                    break;
                }
                self.base += 1;
            }
            let mut i = t.saturating_sub(self.base) as usize;
            loop {
                if i >= self.used.len() {
                    self.used.resize(i + 1, 0);
                }
                if self.used[i] < self.cap {
                    self.used[i] += 1;
                    return self.base + i as u64;
                }
                i += 1;
            }
        }
    }

    /// Drives a [`Port`] and the [`DequePort`] it replaced with the same 50,000 requests:
    /// `next(rng, now)` advances `now` and returns the requested cycle. Both must reserve the
    /// same cycles.
    fn port_matches_deque(cap: u32, seed: u64, mut next: impl FnMut(&mut Lcg, &mut u64) -> u64) {
        let mut p = Port::new(cap);
        let mut r = DequePort {
            base: 0,
            used: Default::default(),
            cap: cap as u8,
        };
        let mut rng = Lcg(seed);
        let mut now = 0u64;
        for step in 0..50_000 {
            let t = next(&mut rng, &mut now);
            assert_eq!(
                p.reserve(now, t),
                r.reserve(now, t),
                "cap {cap} step {step}"
            );
        }
    }

    /// Issue 5: the ring-buffer port reserves the same cycles as the deque it replaced
    /// (bursts beyond the ring, time jumps longer than the ring, `t` before `base`).
    #[test]
    fn issue5_ring_port_matches_the_deque() {
        for cap in [1u32, 2, 4] {
            port_matches_deque(cap, u64::from(cap), |rng, now| {
                *now += match rng.next() % 10 {
                    0 => rng.next() % 2000,
                    1..=4 => rng.next() % 4,
                    _ => 0,
                };
                match rng.next() % 8 {
                    0 => now.saturating_sub(3),
                    1 => *now + 300 + rng.next() % 900,
                    _ => *now + rng.next() % 40,
                }
            });
        }
    }

    /// Issue 5: the skip links of full port cycles (bursts of requests for the same few
    /// cycles, the L2 slice and reply ports' common load) reserve the same cycles as the
    /// deque.
    #[test]
    fn issue5_port_skip_links_match_the_deque_in_bursts() {
        for cap in [1u32, 2, 3] {
            port_matches_deque(cap, u64::from(cap) + 77, |rng, now| {
                if rng.next().is_multiple_of(16) {
                    *now += rng.next() % 300;
                }
                *now + [0, 1, 2, 5, 200][(rng.next() % 5) as usize]
            });
        }
    }

    /// Issue 5: the per-way `ready` bound only skips the per-sector scan when it cannot
    /// change the answer: `sectors` agrees with a scan of every sector's fill cycle.
    #[test]
    fn issue5_way_ready_bound_keeps_sector_states() {
        let cfg = CacheConfig {
            sets: 2,
            ways: 4,
            line_bytes: 128,
            sector_bytes: 32,
        };
        let mut t = Tags::new(cfg);
        let mut rng = Lcg(9);
        for step in 0..20_000u64 {
            let line = rng.next() % 24;
            let req = (rng.next() % 15 + 1) as u32;
            let at = step + rng.next() % 50;
            let look = t.lookup(line, req, at, true);
            // the reference: every valid requested sector by its fill cycle
            let w = look.way;
            let (mut present, mut inflight, mut until) = (0u32, 0u32, 0u64);
            for s in bits(t.way[w].valid & req) {
                let f = t.fill[w * t.spl + s as usize];
                if f > at {
                    inflight |= 1 << s;
                    until = until.max(f);
                } else {
                    present |= 1 << s;
                }
            }
            assert_eq!(
                (look.present, look.inflight, look.inflight_until),
                (present, inflight, until),
                "step {step}"
            );
            assert_eq!(look.missing, req & !t.way[w].valid, "step {step}");
            let fill = (rng.next() % 16) as u32;
            t.fill(w, fill, at + rng.next() % 100);
        }
    }

    /// Issue 5: the fast coalescing of fully active warps whose groups of 8 lanes each lie
    /// in one sector (and its refusal of all other warps) agrees with the general path:
    /// broadcasts, unit strides, halves in different lines, groups sharing sectors, lanes
    /// crossing a sector, unaligned lanes, wide lanes, partial masks.
    #[test]
    fn issue5_uniform_coalescing_matches_the_general_path() {
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

    /// Issue 5: the conflict-free check and the chained per-bank count give the bank
    /// conflict degree of sorting the (bank, word) pairs, for 32 banks of 4 B and 16 banks
    /// of 8 B, narrow and wide lanes, broadcasts, strides and random addresses.
    #[test]
    fn issue5_shared_fast_paths_match_the_sorted_degree() {
        for (banks, bank_bytes) in [(32u32, 4u32), (16, 8), (3, 4)] {
            let mut m = small(4);
            m.cfg.shared = SharedMemConfig {
                banks,
                bank_bytes,
                latency: 5,
            };
            m.d = Derived::new(&m.cfg, 1.0);
            let mut rng = Lcg(u64::from(banks));
            for case in 0..4000 {
                let mut a = acc(MemSpaceKind::Shared, MemOpKind::Load, 0, 0);
                a.bytes_per_lane = [1, 2, 4, 4, 8, 16][(rng.next() % 6) as usize];
                a.mask = if case % 3 == 0 {
                    rng.next() as u32
                } else {
                    u32::MAX
                };
                let base = rng.next() % 512;
                let stride = [0u64, 1, 4, 8, 12, 128, 132][(rng.next() % 7) as usize];
                for (l, x) in a.addrs.iter_mut().enumerate() {
                    *x = if case % 5 == 4 {
                        rng.next() % 1024
                    } else {
                        base + l as u64 * stride
                    };
                }
                let sorted = m.shared_degree_sorted(&a);
                assert_eq!(
                    m.shared_degree(&a),
                    sorted,
                    "{banks}x{bank_bytes} {case}: {a:?}"
                );
                if m.shared_conflict_free(&a) {
                    assert_eq!(sorted, 1, "{banks}x{bank_bytes} {case}: {a:?}");
                } else {
                    assert!(sorted > 1, "{banks}x{bank_bytes} {case}: {a:?}");
                }
            }
        }
    }

    #[test]
    fn l1_miss_then_merge_then_hit_hand_computed() {
        let mut m = small(64);
        let mut act = MemActivity::default();
        // line 32 (0x1000), 4 sectors. Tag check at 10, leaves at 10, reaches the L2 slice
        // at 10 + 2 + 20 = 32; sectors take slice cycles 32..35. DRAM: sector 0 at 32 + 30 =
        // 62, closed bank: +RCD 5 = 67, +CL 5 = 72, burst 72..76; sectors 1-3 are row hits
        // queued on the bus: 76..80, 80..84, 84..88. Replies (+2, one per cycle, +1):
        // 79, 83, 87, 91.
        let miss = m.access(0, 0, &load(0x1000, 4), false, &mut act);
        assert_eq!(miss.ready_at, 91);
        assert_eq!(miss.ldst_cycles, 1);
        assert_eq!(act.l1d_sector_reads, 4);
        assert_eq!(act.l2_sector_reads, 4);
        assert_eq!(act.dram_sector_reads, 4);
        assert_eq!(act.dram_row_hits, 3);
        // another warp one cycle later: the sectors are in flight, it merges and gets the
        // data with the fill, not at the L1 hit latency
        let merged = m.access(1, 0, &load(0x1000, 4), false, &mut act);
        assert_eq!(merged.ready_at, 91);
        assert_eq!(act.l1d_sector_read_merges, 4);
        assert_eq!(act.l2_sector_reads, 4, "a merge sends nothing to the L2");
        // after the fill: an L1 hit, hit latency only
        let hit = m.access(200, 0, &load(0x1000, 4), false, &mut act);
        assert_eq!(hit.ready_at, 210);
        assert_eq!(act.l1d_sector_read_hits, 4);
        // the other SM misses in its L1 but hits in the L2: slice cycle 200 + 10 + 22 = 232
        // (+1 per sector), replies at 232 + 1 + 2 + 1 = 236 .. 239
        let l2hit = m.access(200, 1, &load(0x1000, 4), false, &mut act);
        assert_eq!(l2hit.ready_at, 239);
        assert_eq!(act.l2_sector_read_hits, 4);
    }

    #[test]
    fn host_written_data_starts_in_the_l2() {
        let mut m = small(64);
        m.preload_l2(&[(0x1000, 128)]);
        let mut act = MemActivity::default();
        // L1 miss at 10, slice 32..35, L2 hits leave at 33..36, replies 35..38, +1
        let t = m.access(0, 0, &load(0x1000, 4), false, &mut act);
        assert_eq!(t.ready_at, 39);
        assert_eq!(act.l2_sector_read_hits, 4);
        assert_eq!(act.dram_sector_reads, 0);
        // the next line was not written by the host: DRAM
        m.access(0, 0, &load(0x1080, 4), false, &mut act);
        assert_eq!(act.dram_sector_reads, 4);
    }

    #[test]
    fn perfect_front_end_fetches_and_param_loads_take_no_memory_time() {
        let mut m = small(64);
        let mut act = MemActivity::default();
        assert_eq!(m.inst_fetch(7, 0, 0, &mut act), 7);
        let mut p = acc(MemSpaceKind::Param, MemOpKind::Load, 0, 0);
        p.bytes_per_lane = 8;
        assert_eq!(m.access(7, 0, &p, false, &mut act).ready_at, 11);
        assert_eq!(act.l2_sector_reads, 0);
    }

    #[test]
    fn instruction_fetch_misses_go_to_the_l2_hand_computed() {
        let mut m = small_front();
        let mut act = MemActivity::default();
        // cold line (not host data): slice 22..25 (no L1 latency on a fetch), four DRAM
        // reads; the line is back when its last sector is
        let f = m.inst_fetch(0, 0, 0, &mut act);
        assert_eq!(act.inst_fetch_misses, 1);
        assert_eq!(act.dram_sector_reads, 4);
        assert!(f > 52, "{f}");
        // a second warp needing the line meanwhile waits for the same fill; after it the
        // line hits (the next instruction on the line too)
        assert_eq!(m.inst_fetch(5, 0, 8, &mut act), f);
        assert_eq!(m.inst_fetch(f, 0, 120, &mut act), f);
        assert_eq!(act.inst_fetch_misses, 1);
        // another SM misses its own L1I but hits the L2: slice 122..125, data 123..126,
        // replies 125..128, +1
        assert_eq!(m.inst_fetch(100, 1, 16, &mut act), 129);
        assert_eq!(act.dram_sector_reads, 4);
        assert_eq!(act.inst_fetch_misses, 2);
    }

    #[test]
    fn param_loads_miss_the_constant_cache_once_hand_computed() {
        let mut m = small_front();
        let mut act = MemActivity::default();
        // all lanes read the 8-byte parameter at offset 8: one 64 B line, two L2 sectors
        let mut p = acc(MemSpaceKind::Param, MemOpKind::Load, 8, 0);
        p.bytes_per_lane = 8;
        let t = m.access(0, 0, &p, false, &mut act);
        assert_eq!(act.const_cache_misses, 1);
        assert_eq!(act.dram_sector_reads, 2);
        assert_eq!(t.ldst_cycles, 1);
        // later: a constant-cache hit takes const_latency (4)
        let t2 = m.access(t.ready_at, 0, &p, false, &mut act);
        assert_eq!(t2.ready_at, t.ready_at + 4);
        // ld.const at the same offset is another line (CONST_SPACE_BASE)
        let c = acc(MemSpaceKind::Const, MemOpKind::Load, 8, 0);
        m.access(t.ready_at, 0, &c, false, &mut act);
        assert_eq!(act.const_cache_misses, 2);
    }

    #[test]
    fn front_end_caches_and_their_l2_lines_outlive_a_launch() {
        let mut m = small_front();
        let mut act = MemActivity::default();
        let f = m.inst_fetch(0, 0, 0, &mut act);
        let mut carry = CarriedCaches::default();
        m.save_front_end(&mut carry);
        let mut next = small_front();
        next.restore_front_end(&mut carry);
        // SM 0 still holds the line; SM 1 finds it in the L2 (hand-computed as above)
        assert_eq!(next.inst_fetch(0, 0, 0, &mut act), 0);
        assert_eq!(next.inst_fetch(100, 1, 0, &mut act), 129);
        assert!(f > 129 - 100);
        // a perfect front end carries nothing
        let mut p = small(64);
        p.restore_front_end(&mut carry);
        assert!(p.l1i.is_empty());
    }

    #[test]
    fn mshr_limit_stalls_the_second_miss_hand_computed() {
        // one sector each (all lanes read one word): line 32 and line 64, both at cycle 0
        let a = load(0x1000, 0);
        let b = load(0x2000, 0);
        let mut free = small(64);
        let mut act = MemActivity::default();
        // A: slice 32, DRAM 62 + 5 + 5 = 72..76, reply 79
        assert_eq!(free.access(0, 0, &a, false, &mut act).ready_at, 79);
        // B: slice 33, DRAM 63 -> bank busy until 71 -> row 2 != open row 1: +RP +RCD = 81,
        // +CL = 86..90, reply 93
        let t = free.access(0, 0, &b, false, &mut act);
        assert_eq!((t.ready_at, t.ldst_cycles), (93, 1));
        assert_eq!(act.l1d_mshr_stall_cycles, 0);

        let mut one = small(1);
        let mut act = MemActivity::default();
        assert_eq!(one.access(0, 0, &a, false, &mut act).ready_at, 79);
        // B waits for A's MSHR entry (released at 79): leaves at 79, slice 101, DRAM 131 +
        // RP + RCD = 141, +CL = 146..150, reply 153; the LD/ST unit is held 69 cycles
        let t = one.access(0, 0, &b, false, &mut act);
        assert_eq!((t.ready_at, t.ldst_cycles), (153, 70));
        assert_eq!(act.l1d_mshr_stall_cycles, 69);
    }

    #[test]
    fn dram_bandwidth_bounds_a_streaming_burst() {
        // 64 warps stream 64 distinct lines (256 sectors) through one channel whose bus moves
        // one 32 B sector per 4 cycles: the last data cannot be back before 256 x 4 cycles
        // of bus time, and the other resources (1 sector/cycle) must not add much more.
        let mut m = small(256);
        let mut act = MemActivity::default();
        let mut last = 0;
        for w in 0..64u64 {
            let t = m.access(w, 0, &load(0x10000 + w * 128, 4), false, &mut act);
            last = last.max(t.ready_at);
        }
        assert_eq!(act.dram_sector_reads, 256);
        let bus = 256 * 4;
        // first burst starts at 72 (see the hand-computed miss), the last reply needs +3
        assert!(last >= 72 + bus, "{last}");
        assert!(last <= 72 + bus + 40, "{last}");
    }

    #[test]
    fn stores_are_acknowledged_by_the_l2_and_update_present_l1_lines() {
        let mut m = small(64);
        let mut act = MemActivity::default();
        let st = acc(MemSpaceKind::Global, MemOpKind::Store, 0x1000, 4);
        // write-through: tag check 10, slice 32..35, acks 32+1+2 = 35 .. 38, +1
        let t = m.access(0, 0, &st, false, &mut act);
        assert_eq!(t.ready_at, 39);
        assert_eq!(act.l2_sector_writes, 4);
        assert_eq!(
            act.dram_sector_reads, 0,
            "the L2 allocates written sectors without a fetch"
        );
        // no write-allocate in the L1: a load misses there and hits the written L2 sectors
        let t = m.access(100, 0, &load(0x1000, 4), false, &mut act);
        assert_eq!(act.l1d_sector_read_hits, 0);
        assert_eq!(act.l2_sector_read_hits, 4);
        assert_eq!(t.ready_at, 100 + 10 + 22 + 3 + 1 + 2 + 1);
    }

    /// A global atomic of the lanes in `mask`, lane `l` at `addr(l)`.
    fn atomic(mask: u32, addr: impl Fn(u64) -> u64) -> WarpMemAccess {
        let mut a = acc(MemSpaceKind::Global, MemOpKind::Atomic, 0, 0);
        a.mask = mask;
        a.addrs = std::array::from_fn(|l| addr(l as u64));
        a
    }

    /// Issue 36: GPGPU-Sim's `memory_coalescing_arch_atomic` rule. Lanes on distinct words
    /// of a 32 B segment share a transaction, lanes on one word each get their own, segments
    /// in address order.
    #[test]
    fn issue36_atomic_transactions_split_same_word_lanes() {
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

    /// Issue 36 (kmeans): a warp's atomic on one word makes 32 L2 operations, one per cycle
    /// at the slice, and the register is ready after the last reply; lanes on distinct words
    /// of a sector make one. Hand-computed with [`small`]: ROP 20 + crossbar 2 = 22 cycles
    /// to the slice, one access per cycle there, data 1 cycle later, 2 cycles back, +1.
    #[test]
    fn issue36_same_address_atomics_serialise_at_the_l2() {
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

    #[test]
    fn strided_load_takes_more_ldst_cycles() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        let mut m = MemoryHierarchy::new(&c.memory, 1, 4, c.core_clock_mhz);
        let mut act = MemActivity::default();
        let t = m.access(0, 0, &load(0x1000, 128), false, &mut act);
        // 32 lines, each lane's word at the same offset: every sector in one bank
        assert_eq!(t.ldst_cycles, 32);
        assert_eq!(act.l1d_sector_reads, 32);
    }

    /// Issue 36 (syrk on rtx2060 at 0.54 of GPGPU-Sim): each sector is one access to the
    /// bank (sector number mod 4); per cycle the accesses enter, highest address first,
    /// until one finds its bank taken (`ldst_unit::process_memory_access_queue_l1cache`).
    #[test]
    fn issue36_l1d_banks_serialise_sectors_at_one_offset() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        assert_eq!(c.memory.l1d_banks, 4);
        // L1D hits (the second access), so that no miss waits for the miss queue
        let cycles = |a: &WarpMemAccess| {
            let mut m = MemoryHierarchy::new(&c.memory, 1, 4, c.core_clock_mhz);
            let mut act = MemActivity::default();
            m.access(0, 0, a, false, &mut act);
            let t = m.access(100_000, 0, a, false, &mut act);
            assert_eq!(act.l1d_sector_read_hits, act.l1d_sector_reads / 2);
            t.ldst_cycles
        };
        // one line, sectors 3, 2, 1, 0 in banks 3, 2, 1, 0: one cycle
        assert_eq!(cycles(&load(0x1000, 4)), 1);
        // 8 B lanes: two lines, the second line's sector 3 finds bank 3 taken
        let mut wide = load(0x1000, 8);
        wide.bytes_per_lane = 8;
        assert_eq!(cycles(&wide), 2);
        // a 32 B stride: 8 lines of 4 sectors, four sectors a cycle
        assert_eq!(cycles(&load(0x1000, 32)), 8);
        // a 160 B stride: 32 lines, one sector each, sector numbers 5l: banks l mod 4, so
        // four lanes a cycle
        assert_eq!(cycles(&load(0x1000, 160)), 8);
        // a 512 B stride (syrk's column walk): every sector in bank 0, one a cycle
        assert_eq!(cycles(&load(0x1000, 512)), 32);
        // Fermi has one bank and unsectored lines: one line a cycle, as before
        let f = GpuConfig::gtx480_like().expect("preset");
        let mut m = MemoryHierarchy::new(&f.memory, 1, 4, f.core_clock_mhz);
        let mut act = MemActivity::default();
        m.access(0, 0, &load(0x1000, 32), false, &mut act);
        let t = m.access(100_000, 0, &load(0x1000, 32), false, &mut act);
        assert_eq!((t.ldst_cycles, act.l1d_sector_read_hits), (8, 8));
    }

    /// Issue 36: the L1D's miss queue sends one request (sector) a cycle and holds
    /// `l1d_miss_queue_entries`; a miss that finds it full holds the LD/ST unit.
    #[test]
    fn issue36_l1d_miss_queue_sends_a_sector_a_cycle_and_holds_the_ldst_unit() {
        // 8 B lanes over lines 32 and 33, both in the L2. Line 33 enters at 0 (tag check 10),
        // line 32 at 1 (tag check 11). Requests leave at 10..13 (line 33) and 14..17 (line
        // 32), reach their slices at 32..35 and 36..39, hit, and the replies are back at
        // 35..38 and 39..42, +1 = 43.
        let mut wide = load(0x1000, 8);
        wide.bytes_per_lane = 8;
        let run = |entries: u32| {
            let mut m = small(64);
            m.cfg.l1d_miss_queue_entries = entries;
            m.d = Derived::new(&m.cfg, 1.0);
            m.preload_l2(&[(0x1000, 256)]);
            let mut act = MemActivity::default();
            let t = m.access(0, 0, &wide, false, &mut act);
            (t.ready_at, t.ldst_cycles, act.l1d_miss_queue_stall_cycles)
        };
        assert_eq!(run(64), (43, 2, 0));
        // a queue of 2: line 32's last request leaves at 17, 6 cycles after its tag check;
        // it could enter only when 2 were left ahead: the LD/ST unit is held 4 cycles
        assert_eq!(run(2), (43, 6, 4));
    }

    /// Issue 36 (stream_triad, vectorAdd, maxpool at 0.73–0.75 of GPGPU-Sim on rtx2060): an
    /// SM's requests leave in order, and the front one waits for the crossbar output to its
    /// slice (`xbar_router::iSLIP_Advance` moves only the front packet of an input buffer).
    #[test]
    fn issue36_a_request_waiting_for_its_slice_holds_the_requests_behind_it() {
        let mut m = small(64);
        m.preload_l2(&[(0x1000, 256)]);
        let mut act = MemActivity::default();
        let load = MemOpKind::Load;
        // SM 0, line 32 sector 0, ready at 10: its slice's output is free, it leaves at 10,
        // slot 32, data 33, reply 35, +1
        let (r, held) = m.send(0, 10, 0, 32, 1, load, &mut act, |_, _, _| {});
        assert_eq!((r, held, m.request[0].cycle), (36, 0, 10));
        // SM 1, line 32 sector 1, also at 10: the output took SM 0's packet, so 11; slot 33,
        // data 34, reply 36, +1
        let (r, _) = m.send(0, 10, 1, 32, 2, load, &mut act, |_, _, _| {});
        assert_eq!((r, m.request[1].cycle), (37, 11));
        // SM 1, line 33 (the other slice, idle) at 10: behind SM 1's front packet, 12; slot
        // 34, data 35, reply 37 (SM 1's reply port is taken at 36), +1
        let (r, _) = m.send(0, 10, 1, 33, 1, load, &mut act, |_, _, _| {});
        assert_eq!((r, m.request[1].cycle), (38, 12));
        // SM 0 again at 10, line 33: its queue's last packet left at 10, so 11 (the output to
        // line 33's slice is free then); slot 33, data 34, reply 36, +1
        let (r, _) = m.send(0, 10, 0, 33, 2, load, &mut act, |_, _, _| {});
        assert_eq!((r, m.request[0].cycle), (37, 11));
    }

    #[test]
    fn non_sectored_l1_fetches_whole_lines() {
        let c = GpuConfig::gtx480_like().expect("preset");
        let mut m = MemoryHierarchy::new(&c.memory, 1, 4, c.core_clock_mhz);
        let mut act = MemActivity::default();
        // one word of a line: the Fermi L1 (128 B sectors) asks the L2 for all 4 sectors
        m.access(0, 0, &load(0x1000, 0), false, &mut act);
        assert_eq!(act.l1d_sector_reads, 1);
        assert_eq!(act.l2_sector_reads, 4);
    }

    #[test]
    fn shared_bank_conflicts_add_cycles() {
        let mut m = small(64);
        let mut act = MemActivity::default();
        let sh = |stride| acc(MemSpaceKind::Shared, MemOpKind::Load, 0, stride);
        let free = m.access(0, 0, &sh(4), false, &mut act);
        let conf = m.access(0, 0, &sh(128), false, &mut act);
        let bcast = m.access(0, 0, &sh(0), false, &mut act);
        assert_eq!(free.ready_at, 5);
        assert_eq!((conf.ready_at, conf.ldst_cycles), (5 + 31, 32));
        assert_eq!(bcast.ready_at, 5);
        assert_eq!(act.shared_bank_conflict_cycles, 31);
    }
}
