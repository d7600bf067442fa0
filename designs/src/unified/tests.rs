//! Unit tests of the unified design: the split by hand, the rows it reserves, the route of a
//! launch without L1D ways, and its events.

use super::*;
use crate::config::{resolve, GpuPreset, Overrides};
use crate::registry::DesignSpec;
use crate::test_support::{ctx, mem_instr, w, wref};
use regwatt_sim::timing::activity::{CoreActivity, MemActivity, RfActivity};

fn cfg() -> ResolvedConfig {
    let ov = Overrides {
        design: Some(DesignSpec::Unified),
        ..Overrides::default()
    };
    resolve(GpuPreset::Gtx480, &ov).expect("config")
}

fn grid(ctas: u32, threads: u32, regs: u32, shared: u32) -> GridShape {
    GridShape {
        ctas,
        threads_per_cta: threads,
        block: [threads, 1, 1],
        warps_per_cta: threads.div_ceil(32),
        regs_per_thread: regs,
        preds_per_thread: 0,
        shared_bytes_per_cta: shared,
    }
}

/// gtx480: 4 banks of 256 rows (128 KB); a way of the L1D is 32 sets × 128 B = 4 KB, 8 rows.
#[test]
fn split_by_hand_on_gtx480() {
    let c = cfg();
    assert_eq!(rows_per_way(&c), Some(8));
    // 256 threads x 16 registers, a full grid: 6 CTAs (1536 threads); a warp reserves 16
    // registers (512 lane registers, a multiple of 64), 4 rows; 6 x 8 x 4 = 192 rows,
    // 64 left: 8 ways (32 KB)
    let p = partition(&c, &grid(1000, 256, 16, 0));
    assert_eq!(
        p,
        Partition {
            ctas: 6,
            register_rows: 192,
            ways: 8,
            cache_rows: 64
        }
    );
    // the same kernel with 15 CTAs: one per SM, 32 rows, 224 left: 28 ways
    let p = partition(&c, &grid(15, 256, 16, 0));
    assert_eq!((p.ctas, p.register_rows, p.ways), (1, 32, 28));
    // 63 registers: 2016 lane registers round to 2048, 64 per warp, 16 rows; 2 CTAs of 8
    // warps take all 256 rows: no L1D (the seed's register-limited case)
    let p = partition(&c, &grid(1000, 256, 63, 0));
    assert_eq!(
        (p.ctas, p.register_rows, p.ways, p.cache_rows),
        (2, 256, 0, 0)
    );
    // 21 registers: 672 lane registers round to 704, 22 per warp, 6 rows (not 5.5): 5 CTAs
    // of 8 warps (32768 / (704 x 8) = 5) take 240 rows, 16 left: 2 ways
    let p = partition(&c, &grid(1000, 256, 21, 0));
    assert_eq!((p.ctas, p.register_rows, p.ways), (5, 240, 2));
    // shared memory limits the CTAs: 20 KB each, 2 CTAs, 64 rows, 192 left: 24 ways
    let p = partition(&c, &grid(1000, 256, 16, 20 * 1024));
    assert_eq!((p.ctas, p.register_rows, p.ways), (2, 64, 24));
}

/// The split's CTAs are admitted and no warp more: the cache rows are reserved from the top,
/// and register values survive beside them.
#[test]
fn cache_rows_leave_exactly_the_split_registers() {
    let c = cfg();
    let p = partition(&c, &grid(1000, 256, 16, 0));
    let mut d = UnifiedRf::new(&c, &p);
    assert_eq!(d.rows.len(), 64);
    assert_eq!(d.rows[0], 255, "reserved from the top of the bank");
    assert_eq!(d.rows[63], 192);
    let mut act = RfActivity::default();
    let mut cx = ctx(&mut act, 0);
    // 192 rows per bank are left: 24 warps of 32 registers (8 rows each) fit, 25 do not
    let warps: Vec<WarpSlot> = (0..25).map(w).collect();
    assert!(d.can_allocate(&warps[..24], 32));
    assert!(!d.can_allocate(&warps, 32));
    for &x in &warps[..24] {
        d.allocate_warp(&mut cx, x, 32).expect("fits");
    }
    assert!(d.allocate_warp(&mut cx, warps[24], 32).is_err());
    let v: [u32; 32] = std::array::from_fn(|i| 7 + i as u32);
    d.write(&mut cx, &wref(w(23), 31, false), &v, u32::MAX);
    assert_eq!(d.peek(w(23), 31), v);
    // a line's set: every way's row of the set, in the set's bank
    let rows: Vec<usize> = (0..8).filter_map(|w| d.set_row(5, w)).collect();
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|&t| t / 256 == 5 % 4), "bank of set 5");
}

/// A launch that leaves no way sends global and local accesses past the L1D; with ways, they
/// go through it and touch their lines' sets.
#[test]
fn no_ways_skip_the_l1d() {
    let c = cfg();
    let full = partition(&c, &grid(1000, 256, 63, 0));
    let some = partition(&c, &grid(1000, 256, 16, 0));
    let inf = mem_instr();
    let acc = |space| WarpMemAccess {
        space,
        kind: MemOpKind::Load,
        bytes_per_lane: 4,
        mask: u32::MAX,
        addrs: std::array::from_fn(|i| 4096 + 4 * i as u64),
    };
    for (p, space, want) in [
        (full, MemSpaceKind::Global, MemRoute::SkipL1 { extra: 0 }),
        (full, MemSpaceKind::Local, MemRoute::SkipL1 { extra: 0 }),
        (full, MemSpaceKind::Shared, MemRoute::Hierarchy),
        (some, MemSpaceKind::Global, MemRoute::Hierarchy),
    ] {
        let mut d = UnifiedRf::new(&c, &p);
        let mut act = RfActivity::default();
        let a = acc(space);
        let g = GlobalAccess {
            warp: w(0),
            access: &a,
            info: &inf,
            l1_hit: None,
            design_reads_free: true,
            memory: None,
        };
        assert_eq!(
            d.global_access(&mut ctx(&mut act, 3), &g),
            want,
            "{space:?}"
        );
        let touched = u64::from(p.ways > 0 && space == MemSpaceKind::Global);
        assert_eq!(d.stats().line_touches, touched, "one line");
    }
}

/// L1D hits read a row of every slice, fills and stores write one; the tags are looked up
/// once per line.
#[test]
fn l1d_traffic_is_charged_to_the_banks() {
    let c = cfg();
    let slices = u64::from(c.rf.slices_per_bank);
    assert_eq!(slices, 8);
    let mem = MemActivity {
        l1d_sector_reads: 100,
        l1d_sector_read_hits: 60,
        l1d_sector_read_merges: 10,
        l1d_sector_writes: 5,
        l1d_line_lookups: 90,
        ..MemActivity::default()
    };
    let s = UnifiedStats {
        registers: BaselineStats {
            reads: 1000,
            writes: 400,
            slice_reads: 8000,
            slice_writes: 3000,
            unallocated_accesses: 0,
        },
        ..UnifiedStats::default()
    };
    let core = CoreActivity::default();
    let e = hardware::events(&c, &core, &mem, &s);
    let ev = |a: &str, b: &str| e[a][b];
    assert_eq!(ev("rf_banks", "read"), 8000 + 60 * 8);
    // 30 fills (100 - 60 hits - 10 merges) and 5 stores
    assert_eq!(ev("rf_banks", "write"), 3000 + 35 * 8);
    assert_eq!(ev("writeback_bus", "write"), 3000 + 35 * 8);
    assert_eq!(ev("operand_bus", "transfer"), 60 * 8);
    assert_eq!(ev("tag_array", "lookup"), 90);
    // the tags cover the whole array: 32 sets x 32 ways
    let geo = hardware::tag_geometry(&c);
    assert_eq!((geo.sets, geo.ways), (32, 32));
}

/// A GPU whose register file or L1D cannot hold the split is refused with the key that does
/// not suit: sub-cores with their own register files, sectored L1D lines, a way that is not a
/// whole number of rows.
#[test]
fn unsuitable_pipelines_are_refused_by_key() {
    let with = |p: GpuPreset, sets: &[&str]| {
        resolve(
            p,
            &Overrides {
                design: Some(DesignSpec::Unified),
                sets: sets.iter().map(|s| s.to_string()).collect(),
                ..Overrides::default()
            },
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let e = with(GpuPreset::Rtx2060, &[]).unwrap_err();
    assert!(e.contains("sub-cores") && e.contains("unified"), "{e}");
    let e = with(GpuPreset::Gtx480, &["gpu.memory.l1d.sector_bytes=32"]).unwrap_err();
    assert!(e.contains("memory.l1d.sector_bytes"), "{e}");
    let e = with(
        GpuPreset::Gtx480,
        &["gpu.memory.l1d.sets=2", "gpu.memory.l1d.set_index=linear"],
    )
    .unwrap_err();
    assert!(e.contains("memory.l1d.sets"), "{e}");
    assert!(with(GpuPreset::Gtx480, &[]).is_ok());
}
