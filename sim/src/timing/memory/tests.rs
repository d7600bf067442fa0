//! Tests of the whole memory hierarchy (hand-computed cycles through
//! [`MemoryTiming::access`]), and the fixtures the tests of every file share.

use super::*;
use crate::timing::config::{CacheConfig, DramConfig, GpuConfig, SetIndex, SharedMemConfig};

/// A small hand-computable system: core clock = DRAM clock (1 core cycle per command
/// cycle), one channel with two slices, one sector per cycle everywhere.
pub(super) fn small(l1_mshrs: u32) -> MemoryHierarchy {
    let cfg = MemoryConfig {
        l1d: CacheConfig {
            sets: 4,
            ways: 4,
            line_bytes: 128,
            sector_bytes: 32,
            set_index: SetIndex::Linear,
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
            set_index: SetIndex::Linear,
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
            set_index: SetIndex::Linear,
        },
        l1c: CacheConfig {
            sets: 2,
            ways: 2,
            line_bytes: 64,
            sector_bytes: 64,
            set_index: SetIndex::Linear,
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
pub(super) fn small_front() -> MemoryHierarchy {
    let mut cfg = small(64).cfg;
    cfg.perfect_inst_const_cache = false;
    MemoryHierarchy::new(&cfg, 2, 4, 1000.0)
}

pub(super) fn acc(space: MemSpaceKind, kind: MemOpKind, base: u64, stride: u64) -> WarpMemAccess {
    WarpMemAccess {
        space,
        kind,
        bytes_per_lane: 4,
        mask: u32::MAX,
        addrs: std::array::from_fn(|l| base + l as u64 * stride),
    }
}

pub(super) fn load(base: u64, stride: u64) -> WarpMemAccess {
    acc(MemSpaceKind::Global, MemOpKind::Load, base, stride)
}

/// A small deterministic generator for the randomised equivalence tests (64-bit LCG,
/// Knuth's MMIX constants; the high bits are used).
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 32
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

/// The L2 outlives a launch (GPGPU-Sim does not flush it between kernels): a line the first
/// launch read from DRAM is an L2 hit in the next, at the same hand-computed cycles as a line
/// the host wrote (`host_written_data_starts_in_the_l2`); with nothing carried (the first
/// launch) the caller places the host data instead.
#[test]
fn the_l2_outlives_a_launch() {
    let mut m = small(64);
    let mut act = MemActivity::default();
    m.access(0, 0, &load(0x1080, 4), false, &mut act);
    assert_eq!(act.dram_sector_reads, 4);
    let mut carry = CarriedCaches::default();
    m.save_front_end(&mut carry);
    let mut next = small(64);
    assert!(next.restore_front_end(&mut carry));
    let mut act = MemActivity::default();
    let t = next.access(0, 0, &load(0x1080, 4), false, &mut act);
    assert_eq!(
        (t.ready_at, act.l2_sector_read_hits, act.dram_sector_reads),
        (39, 4, 0)
    );
    // nothing carried: the first launch, which starts from the host data
    let mut first = small(64);
    assert!(!first.restore_front_end(&mut CarriedCaches::default()));
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

/// Syrk on rtx2060 (once at 0.54 of GPGPU-Sim's cycles): each sector is one access to the
/// bank (sector number mod 4); per cycle the accesses enter, highest address first,
/// until one finds its bank taken (`ldst_unit::process_memory_access_queue_l1cache`).
#[test]
fn l1d_banks_serialise_sectors_at_one_offset() {
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

/// The L1D's miss queue sends one request (sector) a cycle and holds
/// `l1d_miss_queue_entries`; a miss that finds it full holds the LD/ST unit.
#[test]
fn l1d_miss_queue_sends_a_sector_a_cycle_and_holds_the_ldst_unit() {
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

/// Stream_triad, vectorAdd, maxpool on rtx2060 (once at 0.73–0.75 of GPGPU-Sim's cycles): an
/// SM's requests leave in order, and the front one waits for the crossbar output to its
/// slice (`xbar_router::iSLIP_Advance` moves only the front packet of an input buffer).
#[test]
fn a_request_waiting_for_its_slice_holds_the_requests_behind_it() {
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
