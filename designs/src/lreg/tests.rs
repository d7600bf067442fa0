//! Unit tests of the lreg design on a hand-driven convolution layer (the acceptance:
//! interior threads of a stride-2 5×5 layer load 4 of 25 inputs; a shuffle never reads a lane
//! of another warp; a misplaced value is caught).

use std::collections::HashMap;

use super::*;
use crate::config::{resolve, GpuPreset, Overrides};
use crate::registry::DesignParams;
use crate::registry::DesignSpec;
use crate::test_support::{ctx, mem_instr as info};
use regwatt_sim::timing::activity::RfActivity;
use regwatt_sim::timing::functional::WarpMemAccess;
use regwatt_sim::timing::rf::GlobalRead;

const IMG: u64 = 0x1000;
const WGT: u64 = 0x10_0000;
const LAYER1: &str = "regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=1 inputs=0";
const LANE: &str = "design.load_removal=lane";

/// Memory: pixel `i` of the image holds `1000 + i`, weight `j` holds `7 + j`.
#[derive(Debug, Default)]
struct Mem(HashMap<u64, u32>);

impl GlobalRead for Mem {
    fn read_global(&self, addr: u64, out: &mut [u8]) {
        let v = self.0.get(&addr).copied().unwrap_or(0).to_le_bytes();
        out.copy_from_slice(&v[..out.len()]);
    }
}

fn cfg(gpu: GpuPreset, sets: &[&str]) -> ResolvedConfig {
    let ov = Overrides {
        design: Some(DesignSpec::Lreg),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Overrides::default()
    };
    resolve(gpu, &ov).expect("config")
}

/// One CTA of a stride-2 5×5 layer over a `width`-pixel-wide image, block `bx × by`, driven
/// in lockstep (instruction `i` of every warp, then `i + 1`): 1 bias load, then per window
/// position the input and the weight (the seed's layer 1).
struct Layer {
    d: LregRf,
    act: RfActivity,
    mem: Mem,
    bx: u32,
    by: u32,
    width: u32,
    /// Per thread: inputs it loaded from memory.
    own_loads: Vec<u32>,
}

impl Layer {
    fn new(gpu: GpuPreset, sets: &[&str], pragma: Option<&str>, bx: u32, by: u32) -> Layer {
        let c = cfg(gpu, sets);
        let Some(DesignParams::Lreg(p)) = &c.design else {
            panic!("no [design] of lreg");
        };
        let threads = bx * by;
        let plan = LregPlan {
            annotation: pragma.map(|t| {
                Annotation::from_pragmas(&[t.to_string()])
                    .expect("pragma")
                    .expect("annotation")
            }),
            block: [bx, by, 1],
            threads_per_cta: threads,
        };
        let mut d = LregRf::new(&c, p, &plan);
        let mut act = RfActivity::default();
        let nsub = c.gpu.sm.sub_cores.max(1) as u16;
        for k in 0..threads.div_ceil(32) {
            let slot = WarpSlot {
                slot: k as u16,
                sub_core: (k as u16 % nsub) as u8,
            };
            d.allocate_warp(&mut ctx(&mut act, 0), slot, 32)
                .expect("allocate");
            d.warp_started(slot, k);
        }
        let width = 2 * (bx + 2) + 5;
        let mut mem = Mem::default();
        for i in 0..width * (2 * (by + 2) + 5) {
            mem.0.insert(IMG + 4 * u64::from(i), 1000 + i);
        }
        for j in 0..26 {
            mem.0.insert(WGT + 4 * u64::from(j), 7 + j);
        }
        Layer {
            d,
            act,
            mem,
            bx,
            by,
            width,
            own_loads: vec![0; threads as usize],
        }
    }

    fn threads(&self) -> u32 {
        self.bx * self.by
    }

    /// Load `i` of every thread's sequence, warp by warp.
    fn step(&mut self, i: u32) {
        let threads = self.threads();
        let nsub = self.d.sub_cores as u16;
        for k in 0..threads.div_ceil(32) {
            let mut addrs = [0u64; 32];
            let mut mask = 0u32;
            for lane in 0..32 {
                let tid = k * 32 + lane;
                if tid >= threads {
                    continue;
                }
                mask |= 1 << lane;
                let (x, y) = (tid % self.bx, tid / self.bx);
                addrs[lane as usize] = match i {
                    0 => WGT,
                    _ if i % 2 == 1 => {
                        let pos = (i - 1) / 2;
                        let (r, c) = (pos / 5, pos % 5);
                        IMG + 4 * u64::from((2 * y + r) * self.width + 2 * x + c)
                    }
                    _ => WGT + 4 * u64::from(i / 2),
                };
            }
            let acc = WarpMemAccess {
                space: MemSpaceKind::Global,
                kind: MemOpKind::Load,
                bytes_per_lane: 4,
                mask,
                addrs,
            };
            let inf = info();
            let slot = WarpSlot {
                slot: k as u16,
                sub_core: (k as u16 % nsub) as u8,
            };
            let g = GlobalAccess {
                warp: slot,
                access: &acc,
                info: &inf,
                l1_hit: None,
                design_reads_free: true,
                memory: Some(&self.mem),
            };
            let r = self
                .d
                .global_access(&mut ctx(&mut self.act, u64::from(i)), &g);
            let loading = match r {
                MemRoute::Hierarchy => mask,
                MemRoute::Banks(BankAccesses { miss_lanes, .. }) => miss_lanes & mask,
                other => panic!("unexpected route {other:?}"),
            };
            if i % 2 == 1 {
                for lane in 0..32 {
                    if loading >> lane & 1 != 0 {
                        self.own_loads[(k * 32 + lane) as usize] += 1;
                    }
                }
            }
        }
    }

    fn run(mut self) -> (LregStats, Vec<u32>) {
        for i in 0..51 {
            self.step(i);
        }
        (self.d.stats(), self.own_loads)
    }

    /// Every live L-register of every warp: (sub-core, row, bank, tracker index).
    fn placed(&self) -> Vec<(usize, usize, usize, usize)> {
        let nsub = self.d.sub_cores;
        let base = &self.d.base;
        self.d
            .warps
            .iter()
            .enumerate()
            .flat_map(|(slot, w)| {
                w.live.iter().map(move |e| {
                    let sc = slot % nsub;
                    (sc, e.row, e.bank, base.side_index(sc, e.bank, e.row))
                })
            })
            .collect()
    }
}

/// Fig. 12: a thread whose right neighbour and the one after it, and whose lower neighbour,
/// are in its warp loads 4 of its 25 inputs (the 2 × 2 corner); its weights and bias load.
#[test]
fn interior_threads_of_a_stride2_5x5_layer_load_4_of_25_inputs() {
    // one warp = two rows of 16 threads: row 0 has every neighbour it needs up to x = 13;
    // every lane no neighbour serves loads (`lane`)
    let l = Layer::new(GpuPreset::Gtx480, &[LANE], Some(LAYER1), 16, 2);
    let (s, own) = l.run();
    s.integrity().expect("values");
    // row 0: the right neighbour holds columns 2..4 (by a shuffle from the next thread, or
    // loaded itself at the row's end), the thread below rows 2..4
    assert_eq!(&own[..15], &[4; 15]);
    // the row's last thread has no right neighbour: it loads columns 2..4 of rows 0..1 too
    assert_eq!(own[15], 10);
    // row 1 has no row below in the warp: it loads its rows 2..4 (columns 0..1 of each, the
    // rest from the right neighbour), the last thread everything
    assert_eq!(&own[16..31], &[10; 15]);
    assert_eq!(own[31], 25);
    assert_eq!(s.input_lanes, 32 * 25);
    assert_eq!(s.private_lanes, 32 * 26);
    assert_eq!(
        s.shuffled_horizontal
            + s.shuffled_vertical
            + own.iter().map(|&n| u64::from(n)).sum::<u64>(),
        s.input_lanes
    );
    // every kept L-register was released by the end of the window
    assert_eq!(s.retained, s.released);
    assert!(s.live_peak > 0 && s.live_peak <= 64, "{}", s.live_peak);
}

/// Rows of 13 threads cut by warp boundaries (the seed's 13 × 13 layer-1 block, Fig. 15–17):
/// a lane whose neighbour is in another warp loads; no value is ever taken from a lane of
/// another warp (every shuffled value equals memory's, and the neighbour lanes stay below 32).
#[test]
fn a_shuffle_never_reads_a_lane_of_another_warp() {
    let plan = LregPlan {
        annotation: None,
        block: [13, 13, 1],
        threads_per_cta: 169,
    };
    for k in 0..6 {
        for lane in 0..32 {
            for vertical in [false, true] {
                if let Neighbour::Lane(n) = neighbour(&plan, k, lane, vertical) {
                    assert!(n < 32 && n > lane, "warp {k} lane {lane}");
                    let (t, u) = (k * 32 + lane, k * 32 + n);
                    assert_eq!(u - t, if vertical { 13 } else { 1 });
                    assert!(u < 169);
                }
            }
        }
    }
    // lane 31 of warp 0 is thread (5, 2); its right neighbour (6, 2) is lane 0 of warp 1
    assert_eq!(neighbour(&plan, 0, 31, false), Neighbour::OtherWarp);
    // thread (0, 2) = lane 26: the thread below is lane 39, in warp 1
    assert_eq!(neighbour(&plan, 0, 26, true), Neighbour::OtherWarp);
    // thread (12, 0) = lane 12 ends its row; thread (0, 12) = lane 28 of warp 4 is in the
    // block's last row
    assert_eq!(neighbour(&plan, 0, 12, false), Neighbour::Boundary);
    assert_eq!(neighbour(&plan, 4, 28, true), Neighbour::Boundary);
    let l = Layer::new(GpuPreset::Gtx480, &[LANE], Some(LAYER1), 13, 13);
    let (s, own) = l.run();
    s.integrity().expect("values");
    assert!(s.fallback_lanes > 0 && s.shuffled_vertical > 0 && s.shuffled_horizontal > 0);
    // thread 168 (12, 12): no neighbour at all, loads all 25
    assert_eq!(own[168], 25);
    // loads per thread fall well short of the ideal 4 with 13-wide rows in 32-lane warps
    let total: u32 = own.iter().sum();
    assert!(total > 169 * 4 && total < 169 * 25, "{total}");
}

/// An annotation that calls the weights inputs puts weight values where pixels belong: the
/// design's value check catches it (the run would fail).
#[test]
fn a_misplaced_value_is_caught() {
    let wrong = "regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=0 inputs=0";
    let l = Layer::new(GpuPreset::Gtx480, &[], Some(wrong), 16, 2);
    let (s, _) = l.run();
    assert!(s.value_mismatches > 0);
    let e = s.integrity().expect_err("caught");
    assert!(
        e.contains("differ from memory") && e.contains("lane"),
        "{e}"
    );
}

/// Without the annotation (or with `directions = "off"`) every load goes to memory.
#[test]
fn unannotated_kernels_load_everything() {
    for (pragma, sets) in [
        (None, &[][..]),
        (Some(LAYER1), &["design.directions=off"][..]),
    ] {
        let l = Layer::new(GpuPreset::Rtx2060, sets, pragma, 16, 2);
        let (s, own) = l.run();
        assert!(own.iter().all(|&n| n == 25));
        assert_eq!(s.lreg_instructions, 0);
        assert_eq!(s.memory_load_lanes, s.global_load_lanes);
        assert_eq!(s.global_load_lanes, 51 * 32);
    }
}

/// Horizontal-only and vertical-only sharing each load more than both together; a map of one
/// entry keeps almost nothing.
#[test]
fn directions_and_map_size() {
    let loads = |sets: &[&str]| {
        let sets: Vec<&str> = sets.iter().copied().chain([LANE]).collect();
        let (s, own) = Layer::new(GpuPreset::Gtx480, &sets, Some(LAYER1), 16, 2).run();
        s.integrity().expect("values");
        (own.iter().sum::<u32>(), s)
    };
    let (both, _) = loads(&[]);
    let (h, sh) = loads(&["design.directions=horizontal"]);
    let (v, sv) = loads(&["design.directions=vertical"]);
    assert!(both < h && both < v, "{both} {h} {v}");
    assert_eq!(sh.shuffled_vertical, 0);
    assert_eq!(sv.shuffled_horizontal, 0);
    let (one, s1) = loads(&["design.map_entries=1"]);
    assert!(one > both && s1.refused_map_full > 0, "{one} {both}");
}

/// Thesis §7.4 (`load_removal = "warp"`): in a block whose rows are whole half-warps
/// (16 × 4, two warps of two rows), every load of the horizontal overlap is removed for the
/// whole warp: the lanes shuffle, and the row's last thread, with no right neighbour, takes no
/// value (§6.5.1). The vertical overlap's loads stay where the row below is in the other warp
/// (§6.5.2), and go where it is the block's last row (§6.5.1).
#[test]
fn warp_removal_nullifies_the_overlap_for_whole_warps() {
    let run = |sets: &[&str]| {
        let (s, own) = Layer::new(GpuPreset::Gtx480, sets, Some(LAYER1), 16, 4).run();
        s.integrity().expect("values");
        (s, own)
    };
    let (w, own) = run(&[]);
    // 15 of the 25 inputs are in the horizontal overlap (columns 2..4), in both warps; warp
    // 1's 6 vertical-only inputs too (row 2 shuffles from row 3, the block's last row skips)
    assert_eq!(w.removed_instructions, 2 * 15 + 6);
    // rows 0 and 2 load the 2 × 2 corner; row 1 also its vertical overlap, whose row below
    // is in warp 1; row 3, the block's last, only the corner
    for (y, n) in [(0, 4), (1, 10), (2, 4), (3, 4)] {
        assert_eq!(&own[16 * y..16 * y + 16], &[n; 16], "row {y}");
    }
    // the lanes that took no value: the last column's horizontal overlap (15 inputs in rows
    // 0..2, where no neighbour below holds them either) and row 3's overlaps
    assert!(w.skipped_lanes > 0);
    assert_eq!(
        w.shuffled_horizontal + w.shuffled_vertical + w.skipped_lanes + w.fallback_lanes,
        w.input_lanes - 64 * 4
    );
    // per lane: the same shuffles, but every lane without a neighbour loads
    let (l, own_l) = run(&[LANE]);
    assert_eq!(l.skipped_lanes, 0);
    assert!(l.removed_instructions < w.removed_instructions);
    assert!(own_l.iter().sum::<u32>() > own.iter().sum::<u32>());
    assert!(w.memory_load_lanes < l.memory_load_lanes);
}

/// A load's lanes that took no value are not written: the destination keeps what it held,
/// and a load none of whose lanes took a value needs no bank port.
#[test]
fn skipped_lanes_keep_their_destination() {
    let mut l = Layer::new(GpuPreset::Gtx480, &[], Some(LAYER1), 16, 2);
    let slot = WarpSlot {
        slot: 0,
        sub_core: 0,
    };
    let reg: RegId = 5;
    let old = [0x0bad_u32; 32];
    let wr = WriteRef {
        warp: slot,
        reg,
        collector: 0,
        func: 0,
        pc: 0,
        reuse: None,
        from_load: true,
    };
    let mut c = ctx(&mut l.act, 0);
    l.d.write(
        &mut c,
        &WriteRef {
            from_load: false,
            ..wr
        },
        &old,
        u32::MAX,
    );
    // the window's last load (row 4, column 4): the row's last lanes have no right neighbour
    l.d.skipped_writes
        .push((0, reg, 1 << 15 | 1 << 31, u32::MAX));
    assert!(matches!(l.d.route_write(&mut c, &wr), Route::Bank(_)));
    l.d.write(&mut c, &wr, &[7; 32], u32::MAX);
    let v = l.d.peek(slot, reg);
    for (lane, x) in v.iter().enumerate() {
        let want = if lane == 15 || lane == 31 { 0x0bad } else { 7 };
        assert_eq!(*x, want, "lane {lane}");
    }
    assert!(l.d.skipped_writes.is_empty());
    l.d.skipped_writes.push((0, reg, 0xff, 0xff));
    assert_eq!(l.d.route_write(&mut c, &wr), Route::Bypass);
    l.d.write(&mut c, &wr, &[9; 32], 0xff);
    assert_eq!(l.d.peek(slot, reg), v);
}

#[test]
fn bad_parameters_are_rejected() {
    let ov = Overrides {
        design: Some(DesignSpec::Lreg),
        sets: vec!["design.map_entries=0".into()],
        ..Overrides::default()
    };
    let e = resolve(GpuPreset::Gtx480, &ov).expect_err("0 entries");
    assert!(e.to_string().contains("design.map_entries"), "{e}");
    let ov = Overrides {
        sets: vec!["design.load_removal=thread".into()],
        ..ov
    };
    let e = resolve(GpuPreset::Gtx480, &ov).expect_err("bad removal");
    assert!(e.to_string().contains("load_removal"), "{e}");
}

/// L-registers live in concrete rows of the register file, reserved from
/// the top of their sub-core and never inside a warp's allocation; the power-state tracker sees
/// those rows allocated while an L-register is held (a register-gated row holding one is on)
/// and free again once the last neighbour read it; a freed row goes back to admission.
#[test]
fn lregisters_hold_rows_the_power_modes_see() {
    use regwatt_sim::timing::activity::SleepRule;
    let mut l = Layer::new(
        GpuPreset::Gtx480,
        &["power.mode=register-gating"],
        Some(LAYER1),
        16,
        8,
    );
    let nsub = l.d.sub_cores;
    let free0: Vec<usize> = (0..nsub).map(|sc| l.d.base.free_rows(sc)).collect();
    // rows the warps hold: [base, base + rows) of their sub-core, in every bank
    let warp_rows: Vec<(usize, usize, usize)> = (0..l.threads().div_ceil(32) as usize)
        .map(|k| {
            let (base, rows) = l.d.base.warp_rows(k as u16);
            (k % nsub, base, base + rows)
        })
        .collect();
    let mut most = 0;
    for i in 0..51 {
        l.step(i);
        let placed = l.placed();
        most = most.max(placed.len());
        let mut ts: Vec<usize> = placed.iter().map(|p| p.3).collect();
        ts.sort_unstable();
        ts.dedup();
        assert_eq!(ts.len(), placed.len(), "two L-registers share a bank row");
        for &(sc, row, _, t) in &placed {
            assert!(
                warp_rows
                    .iter()
                    .all(|&(wsc, lo, hi)| wsc != sc || row < lo || row >= hi),
                "L-register in row {row} of sub-core {sc} lies in a warp's rows"
            );
            assert!(
                !l.d.base
                    .tracker()
                    .asleep(t, u64::from(i), SleepRule::Register),
                "a register-gated row holding an L-register is off"
            );
        }
        // a reserved row holds at least one L-register, and admission lost exactly those rows
        for (sc, free) in free0.iter().enumerate() {
            for r in &l.d.rows[sc] {
                let held = placed.iter().filter(|p| p.0 == sc && p.1 == r.row).count();
                assert!(held > 0 && held == r.n, "row {} of sub-core {sc}", r.row);
            }
            assert_eq!(l.d.base.free_rows(sc), free - l.d.rows[sc].len());
        }
    }
    assert!(most > 0, "no L-register was kept");
    let s = l.d.stats();
    assert_eq!(s.retained, s.released, "every L-register is released");
    assert!(l.placed().is_empty());
    for (sc, free) in free0.iter().enumerate() {
        assert_eq!(l.d.base.free_rows(sc), *free, "rows back to admission");
    }
}
