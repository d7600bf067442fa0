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
//!   (`dramid@8`), → slice by the line's low bit inside the channel; the set is picked from
//!   the line's number inside its slice (GPGPU-Sim's partition address,
//!   `l2_cache_config::set_index`), linearly or by the IPOLY hash (`memory.l2_slice.set_index`,
//!   `-gpgpu_cache:dl2 ..:P`; `tags::ipoly_set`). A request waits
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
//! * **Atomics** (GPGPU-Sim `memory_coalescing_arch_atomic`): coalesced per 32 B
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
//!
//! Files: this one holds the seam ([`MemoryTiming`], [`MemTiming`]), [`MemoryHierarchy`]
//! with its construction and the configuration values derived from it, and the entry of an
//! access by state space (the [`MemoryTiming`] implementation); `resources.rs` the ports,
//! MSHR tables and request queue; `tags.rs` the sectored tag arrays; `l1d.rs` coalescing,
//! the L1D banks and the L1D load and store paths; `l2.rs` the crossbar, the address
//! mapping and the L2 slices; `dram.rs` the DRAM banks and buses; `atomics.rs` global
//! atomics; `shared.rs` shared-memory bank conflicts; `front.rs` the instruction and
//! constant caches.
//!
//! [`BankClock`]: l1d::BankClock

use super::activity::MemActivity;
use super::config::MemoryConfig;
use super::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};
use super::rf::MemFetch;

mod atomics;
mod dram;
mod front;
mod l1d;
mod l2;
mod resources;
mod shared;
mod tags;

use self::dram::{Bank, Dram};
use self::resources::{Mshrs, Port, RequestFifo};
pub use self::tags::set_of_line;
use self::tags::{Tags, INVALID};

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
    /// design replaces the L1D (Jing et al. 2016). Calls come in non-decreasing `now`.
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
    /// recency update, no allocation, no statistics). Jeon et al. 2019 §3: the LD/ST unit knows the
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

/// Bytes of the segment a warp's atomic is coalesced in: GPGPU-Sim's
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

/// What outlives a launch in GPGPU-Sim: the L2's contents, dirty lines included (GPGPU-Sim
/// flushes the L2 between kernels only with `-gpgpu_flush_l2_cache 1`, set in neither
/// preset's configuration), and each SM's instruction and constant caches (GPGPU-Sim
/// invalidates only the L1D between kernels, `gpu-sim.cc` `gpgpu_flush_l1_cache` →
/// `ldst_unit::invalidate`). Carried from one launch of a spec to the next by
/// [`MemoryHierarchy::save_front_end`] / [`MemoryHierarchy::restore_front_end`]; the
/// instruction and constant caches are empty with `perfect_inst_const_cache`.
#[derive(Clone, Debug, Default)]
pub struct CarriedCaches {
    l1i: Vec<Tags>,
    l1c: Vec<Tags>,
    /// (address, bytes) of every line the two caches read from the L2, first read first.
    l2_lines: Vec<(u64, u64)>,
    /// The L2 slices' tags as the last launch left them.
    l2: Vec<Tags>,
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

impl Derived {
    /// The L1D bank of sector `s` of `line` (see [`BankClock`]): sector-interleaved banks,
    /// a power of two of them, so the low bits of the sector's number. Wrapping: only those
    /// low bits matter.
    ///
    /// [`BankClock`]: l1d::BankClock
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

#[cfg(test)]
mod tests;
