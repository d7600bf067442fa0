//! Design `lreg` (Elango 2017, Elango, "Convolutional Neural Network Acceleration on GPU by
//! Exploiting Data Reuse", MS thesis 2017): L-registers. In a kernel the compiler marks
//! ([`geometry::Annotation`], a `.pragma` in its body), every thread's global loads get
//! L-register ids in dynamic order (§7.1); a load of an input pixel that a horizontal or
//! vertical neighbour in the same warp already holds becomes a shuffle from that lane's
//! L-register (§6.2, §7.3) instead of a memory access (§7.4). See `README.md` beside this
//! file for the mechanism, every parameter and every decision the seed leaves open.
//!
//! * The register file is the baseline's ([`BaselineRf`]); L-registers are warp registers
//!   taken from the rows no resident warp reserves (§2.1.2, §6.4: "exploiting the
//!   underutilized register file space"), one per retained L-register id of a warp, until the
//!   last neighbour that reads it has (§7.2). They are packed into rows the design reserves
//!   from the top of the sub-core down (one register per bank of a row; the bank is the
//!   L-register's interleaved bank), so warps are admitted around them, and the power-state
//!   tracker sees those rows allocated, written, read and freed like a warp's (every
//!   `--power-mode` charges them).
//! * Per L-load instruction, each active lane with an input id takes its pixel from the
//!   horizontal neighbour's L-register `id − CS·S` if that lane (thread `x + 1`, same row,
//!   same warp) holds it, else from the vertical neighbour's `id − K·RS·S` (thread `y + 1`,
//!   same warp), else loads it (row, warp and block boundaries, §6.5). The lanes that load go
//!   through the L1D in the same instruction; the shuffled lanes' source rows are read through
//!   the bank arbitration ([`MemRoute::Banks`]) and the shuffle network; an instruction with
//!   no loading lane accesses no memory.
//! * Values: the design keeps every retained L-register's 32 lanes. A shuffled lane's value
//!   is compared with what memory holds at its address; a difference (a lost or misplaced
//!   L-register, or an annotation that does not describe the kernel) fails the run
//!   ([`LregStats::integrity`]).
//! * Kernels without the annotation run exactly as on the baseline.

mod design;
pub mod geometry;
pub use design::Lreg;
pub mod hardware;
pub mod seed_figures;
#[cfg(test)]
mod tests;

use regwatt_sim::timing::functional::{FunctionalWarpModel, MemOpKind, MemSpaceKind};
use regwatt_sim::timing::rf::{
    BankAccessKind, BankAccesses, Delay, GlobalAccess, MemRoute, OperandRef, ReadOutcome, RegId,
    RegisterFileDesign, ReleaseCause, RfCtx, RfError, RfLayout, RfStats, Route, WarpSlot,
    WriteOutcome, WriteRef,
};
use serde::{Deserialize, Serialize};

use crate::baseline::{BaselineRf, BaselineStats};
use crate::config::ResolvedConfig;
pub use geometry::{Annotation, AnnotationError, Slot};

/// Which neighbours a lane may take a pixel from (`design.directions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Directions {
    /// Horizontal, then vertical (§6.2, Fig. 12).
    Both,
    /// Horizontal sharing only (§7.3.1).
    Horizontal,
    /// Vertical sharing only (§7.3.2).
    Vertical,
    /// No sharing: the annotation is ignored (an ablation; cycles equal the baseline's).
    Off,
}

/// What happens to an L-register load's lanes that no neighbour can serve
/// (`design.load_removal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadRemoval {
    /// Thesis §7.4 and §6.5: the load is nullified for the lanes in the overlapped region.
    /// A lane whose neighbour holds the pixel takes it by a shuffle; a lane at the block's
    /// boundary (no neighbouring thread in its row or column of the block, §6.5.1), or whose
    /// neighbour itself took no value there, takes none: its destination keeps its old value
    /// (the corner-handled kernels' worker threads never use it; any other kernel's output
    /// check fails). A lane whose neighbour is in another warp (§6.5.2), inactive, or whose
    /// L-register the map could not keep still loads. An instruction all of whose lanes
    /// shuffle or skip makes no memory request.
    Warp,
    /// Every lane no neighbour serves loads itself, boundary lanes included (no lane ever
    /// goes without its value).
    Lane,
}

/// `[design]` parameters of `lreg` (defaults and sources: `defaults.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LregParams {
    /// L-registers a warp may hold at once (the entries of its L-register map).
    pub map_entries: u32,
    /// Which neighbours lanes shuffle from.
    pub directions: Directions,
    /// What the lanes no neighbour serves do.
    pub load_removal: LoadRemoval,
}

impl LregParams {
    /// Range checks (`key`, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=1024).contains(&self.map_entries) {
            return Err((
                "design.map_entries",
                format!("{}: must be in 1..=1024", self.map_entries),
            ));
        }
        Ok(())
    }
}

/// What a launch tells the design: the kernel's annotation and its CTA shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LregPlan {
    pub annotation: Option<Annotation>,
    pub block: [u32; 3],
    pub threads_per_cta: u32,
}

impl LregPlan {
    /// The plan of the model's launch; a malformed annotation is an error naming the pragma.
    pub fn for_launch<F: FunctionalWarpModel>(model: &F) -> Result<LregPlan, AnnotationError> {
        let g = model.grid();
        Ok(LregPlan {
            annotation: Annotation::from_pragmas(model.kernel_pragmas())?,
            block: g.block,
            threads_per_cta: g.threads_per_cta,
        })
    }
}

/// Event counts of the L-register design (summed over SMs; `live_peak` is the maximum).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LregStats {
    /// The baseline register file's counts (architectural registers).
    pub banks: BaselineStats,
    /// Every `ld.global` warp instruction and its active lanes (thread loads), any kernel.
    pub global_load_instructions: u64,
    pub global_load_lanes: u64,
    /// Of those, the instructions with at least one lane that accessed memory, and those
    /// lanes: the loads that remain.
    pub memory_load_instructions: u64,
    pub memory_load_lanes: u64,
    /// `ld.global` instructions of annotated kernels (L-register loads), and their lanes:
    /// inputs and private ones (weights, loads before the window).
    pub lreg_instructions: u64,
    pub input_lanes: u64,
    pub private_lanes: u64,
    /// Input lanes served by a shuffle from the horizontal / vertical neighbour.
    pub shuffled_horizontal: u64,
    pub shuffled_vertical: u64,
    /// Input lanes in an overlap with no neighbour holding the pixel (row, warp or block
    /// boundary, an inactive or exited neighbour, a full map): they loaded (§6.5).
    pub fallback_lanes: u64,
    /// Input lanes at a block boundary, or whose neighbour took no value there, that took
    /// none either (`load_removal = "warp"`, §6.5): no load, no register write.
    pub skipped_lanes: u64,
    /// `ld.global` instructions with no lane that accessed memory (any kernel; an
    /// instruction with no active lane included).
    pub served_instructions: u64,
    /// L-register loads with an active lane, all of whose lanes shuffled or skipped: the
    /// loads removed for the whole warp (§7.4).
    pub removed_instructions: u64,
    /// L-register rows written (a retained L-register's lanes stored in its side row).
    pub side_row_writes: u64,
    /// Source L-register rows read for shuffles (one per distinct source per instruction).
    pub shuffle_row_reads: u64,
    /// L-registers kept for a neighbour (allocated), lanes whose value was refused because
    /// the warp's map or the sub-core's free rows were full, and L-registers released.
    pub retained: u64,
    pub refused_map_full: u64,
    pub refused_no_row: u64,
    pub released: u64,
    /// Most L-registers live at once on one SM, and the live count summed at every L-load
    /// instruction (mean occupancy = `live_sum / lreg_instructions`).
    pub live_peak: u64,
    pub live_sum: u64,
    /// L-register map reads (a lookup per L-load and per shuffle source) and writes
    /// (allocations and releases).
    pub map_reads: u64,
    pub map_writes: u64,
    /// Shuffled values that differ from memory (must stay 0), and the first one described.
    pub value_mismatches: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<String>,
}

impl LregStats {
    /// `Err` when a shuffled value differed from memory: the run computed with a value the
    /// design did not hold (a lost L-register or an annotation that does not match the
    /// kernel's loads), as wrong as a failed output check.
    pub fn integrity(&self) -> Result<(), String> {
        match self.value_mismatches {
            0 => Ok(()),
            n => Err(format!(
                "design `lreg`: {n} shuffled values differ from memory; first: {}",
                self.first_mismatch.as_deref().unwrap_or("?")
            )),
        }
    }
}

impl RfStats for LregStats {
    fn merge(&mut self, o: &Self) {
        self.banks.merge(&o.banks);
        self.global_load_instructions += o.global_load_instructions;
        self.global_load_lanes += o.global_load_lanes;
        self.memory_load_instructions += o.memory_load_instructions;
        self.memory_load_lanes += o.memory_load_lanes;
        self.lreg_instructions += o.lreg_instructions;
        self.input_lanes += o.input_lanes;
        self.private_lanes += o.private_lanes;
        self.shuffled_horizontal += o.shuffled_horizontal;
        self.shuffled_vertical += o.shuffled_vertical;
        self.fallback_lanes += o.fallback_lanes;
        self.skipped_lanes += o.skipped_lanes;
        self.served_instructions += o.served_instructions;
        self.removed_instructions += o.removed_instructions;
        self.side_row_writes += o.side_row_writes;
        self.shuffle_row_reads += o.shuffle_row_reads;
        self.retained += o.retained;
        self.refused_map_full += o.refused_map_full;
        self.refused_no_row += o.refused_no_row;
        self.released += o.released;
        self.live_peak = self.live_peak.max(o.live_peak);
        self.live_sum += o.live_sum;
        self.map_reads += o.map_reads;
        self.map_writes += o.map_writes;
        self.value_mismatches += o.value_mismatches;
        if self.first_mismatch.is_none() {
            self.first_mismatch.clone_from(&o.first_mismatch);
        }
    }
}

/// One retained L-register of a warp.
#[derive(Clone, Debug)]
struct LEntry {
    id: u32,
    values: [u32; 32],
    /// Lanes whose value is held.
    valid: u32,
    /// Lanes that took no value (skipped, `load_removal = "warp"`).
    skipped: u32,
    /// The last id at which a neighbour reads it.
    last_reader: u32,
    /// Where it lives: the reserved row of its warp's sub-core, and its bank.
    row: usize,
    bank: usize,
}

/// A row of a sub-core reserved for L-registers, and which of its banks hold one.
#[derive(Clone, Debug)]
struct LRow {
    row: usize,
    used: Vec<bool>,
    n: usize,
}

/// A warp slot's L-register state.
#[derive(Clone, Debug, Default)]
struct LWarp {
    /// Warp index within its CTA (`None`: no warp).
    cta_warp: Option<u32>,
    /// Next L-register id: one counter per warp, advanced by every L-register load the warp
    /// executes (a lane inactive in a load skips that id, so neighbours' ids stay aligned).
    next_id: u32,
    live: Vec<LEntry>,
}

/// The L-register design of one SM.
#[derive(Debug)]
pub struct LregRf {
    base: BaselineRf,
    p: LregParams,
    plan: LregPlan,
    banks: usize,
    sub_cores: usize,
    /// Cycles of a shuffle (the preset's INT pipeline, where the core times `shfl.sync`).
    shuffle_latency: u32,
    warps: Vec<LWarp>,
    /// The rows reserved for L-registers, per sub-core.
    rows: Vec<Vec<LRow>>,
    live: u64,
    stats: LregStats,
    /// Load destinations with lanes that took no value: (warp slot, register, those lanes,
    /// the load's active lanes). Their write-back leaves those lanes as they were.
    skipped_writes: Vec<(u16, RegId, u32, u32)>,
}

/// Where lane `lane`'s horizontal or vertical neighbour thread is (§6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Neighbour {
    /// Lane `n` of the same warp.
    Lane(u32),
    /// No such thread in the block: the lane is at the block's boundary (§6.5.1).
    Boundary,
    /// The thread is in another warp (§6.5.2).
    OtherWarp,
}

/// Lane `lane`'s horizontal or vertical neighbour.
fn neighbour(plan: &LregPlan, cta_warp: u32, lane: u32, vertical: bool) -> Neighbour {
    let [bx, by, _] = plan.block;
    let tid = cta_warp * 32 + lane;
    let (x, y) = (tid % bx, (tid / bx) % by);
    let (ok, step) = if vertical {
        (y + 1 < by, bx)
    } else {
        (x + 1 < bx, 1)
    };
    let n = lane + step;
    if !ok || tid + step >= plan.threads_per_cta {
        Neighbour::Boundary
    } else if n >= 32 {
        Neighbour::OtherWarp
    } else {
        Neighbour::Lane(n)
    }
}

/// What one direction offers a lane for an overlapped pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Offer {
    /// The neighbour lane `lane` holds it in L-register `source`: `value`.
    Holds { source: u32, value: u32, lane: u32 },
    /// No neighbour thread (block boundary), or the neighbour took no value there either.
    Nothing,
    /// The neighbour is in another warp, was inactive, or its L-register was not kept.
    Elsewhere,
}

impl LregRf {
    /// The design of one SM of `cfg` for a launch planned as `plan`.
    pub fn new(cfg: &ResolvedConfig, p: &LregParams, plan: &LregPlan) -> LregRf {
        let s = &cfg.gpu.sm;
        let sub_cores = s.sub_cores.max(1) as usize;
        let mut plan = *plan;
        if p.directions == Directions::Off {
            plan.annotation = None;
        }
        LregRf {
            base: BaselineRf::new(cfg),
            p: p.clone(),
            plan,
            banks: s.register_file.banks_per_sub_core.max(1) as usize,
            sub_cores,
            shuffle_latency: s.units.int.timing.latency.max(1),
            warps: vec![LWarp::default(); s.limits.max_warps as usize],
            rows: vec![Vec::new(); sub_cores],
            live: 0,
            stats: LregStats::default(),
            skipped_writes: Vec::new(),
        }
    }

    /// Logical bank of L-register `id` of warp slot `slot` (interleaved like architectural
    /// registers, GPGPU-Sim `register_bank()`).
    fn bank(&self, slot: u16, id: u32) -> usize {
        (usize::from(slot) + id as usize) % self.banks
    }

    /// The row of sub-core `sc` for a new L-register in bank `bank`: a free bank of a row
    /// already reserved, else a newly reserved row; `None` if no row is free.
    fn place(&mut self, sc: usize, bank: usize) -> Option<usize> {
        let rows = self.rows.get_mut(sc)?;
        let i = match rows.iter().position(|r| !r.used[bank]) {
            Some(i) => i,
            None => {
                let row = self.base.reserve_side_row(sc)?;
                rows.push(LRow {
                    row,
                    used: vec![false; self.banks],
                    n: 0,
                });
                rows.len() - 1
            }
        };
        let r = &mut rows[i];
        r.used[bank] = true;
        r.n += 1;
        Some(r.row)
    }

    /// L-register `e` of sub-core `sc` is released: its bank row is freed, and its row too
    /// when it holds no other.
    fn release_entry(&mut self, ctx: &mut RfCtx, sc: usize, e: &LEntry) {
        self.base
            .side_free(ctx, self.base.side_index(sc, e.bank, e.row));
        if let Some(rows) = self.rows.get_mut(sc) {
            if let Some(i) = rows.iter().position(|r| r.row == e.row) {
                let r = &mut rows[i];
                r.used[e.bank] = false;
                r.n -= 1;
                if r.n == 0 {
                    rows.swap_remove(i);
                    self.base.release_side_row(sc, e.row);
                }
            }
        }
        self.live = self.live.saturating_sub(1);
        self.stats.released += 1;
        self.stats.map_writes += 1;
    }

    /// An L-register load of `warp` (annotation `a`): shuffles where a neighbour holds the
    /// pixel, loads elsewhere. Every active lane has the same id (one counter per warp), so
    /// the window position, the two candidate sources and the retained entry are looked up
    /// once per instruction.
    fn lreg_load(&mut self, ctx: &mut RfCtx, a: Annotation, g: &GlobalAccess) -> MemRoute {
        let slot = usize::from(g.warp.slot);
        let sc = usize::from(g.warp.sub_core) % self.sub_cores;
        let Some(cta_warp) = self.warps.get(slot).and_then(|w| w.cta_warp) else {
            return MemRoute::Hierarchy;
        };
        let acc = g.access;
        let id = self.warps[slot].next_id;
        self.warps[slot].next_id = id.saturating_add(1);
        self.stats.lreg_instructions += 1;
        self.stats.map_reads += 1;
        let values: [u32; 32] = std::array::from_fn(|lane| {
            let mut word = [0u8; 4];
            if let (true, Some(m)) = (acc.mask >> lane & 1 != 0, g.memory) {
                m.read_global(acc.addrs[lane], &mut word);
            }
            u32::from_le_bytes(word)
        });
        let lanes = u64::from(acc.mask.count_ones());
        if !matches!(a.slot(id), Slot::Input { .. }) {
            self.stats.private_lanes += lanes;
        } else {
            self.stats.input_lanes += lanes;
        }
        let (use_h, use_v) = match self.p.directions {
            Directions::Both => (true, true),
            Directions::Horizontal => (true, false),
            Directions::Vertical => (false, true),
            Directions::Off => (false, false),
        };
        let (hs, vs) = (a.horizontal_source(id), a.vertical_source(id));
        let overlapped = hs.is_some() || vs.is_some();
        // the candidate source entries: (source id, index into the warp's live entries)
        let live = &self.warps[slot].live;
        let entry = |s: Option<u32>, on: bool| {
            s.filter(|_| on)
                .and_then(|s| Some((s, live.iter().position(|e| e.id == s)?)))
        };
        let (he, ve) = (entry(hs, use_h), entry(vs, use_v));
        // the direction whose overlap the pixel is in (§7.3: horizontal first)
        let primary_vertical = !(hs.is_some() && use_h);
        let warp_removal = self.p.load_removal == LoadRemoval::Warp;
        let plan = &self.plan;
        let offer = |e: Option<(u32, usize)>, lane: u32, vertical: bool| {
            let n = match neighbour(plan, cta_warp, lane, vertical) {
                Neighbour::Lane(n) => n,
                Neighbour::Boundary => return Offer::Nothing,
                Neighbour::OtherWarp => return Offer::Elsewhere,
            };
            let Some((source, i)) = e else {
                return Offer::Elsewhere;
            };
            let x = &live[i];
            if x.valid >> n & 1 != 0 {
                Offer::Holds {
                    source,
                    value: x.values[n as usize],
                    lane: n,
                }
            } else if x.skipped >> n & 1 != 0 {
                Offer::Nothing
            } else {
                Offer::Elsewhere
            }
        };
        let mut shuffled = 0u32;
        let mut skipped = 0u32;
        let mut used = [false; 2];
        for lane in 0..32u32 {
            if acc.mask >> lane & 1 == 0 || !overlapped {
                continue;
            }
            let v = values[lane as usize];
            let h = if hs.is_some() && use_h {
                offer(he, lane, false)
            } else {
                Offer::Elsewhere
            };
            let (got, vertical) = match h {
                Offer::Holds { .. } => (h, false),
                _ if vs.is_some() && use_v => (offer(ve, lane, true), true),
                _ => (Offer::Elsewhere, true),
            };
            let Offer::Holds {
                source: s,
                value: sv,
                lane: n,
            } = got
            else {
                // no neighbour holds it: skip where the overlap's own direction has nothing
                // to give (§6.5.1, §7.4), else load (§6.5.2)
                let nothing = if primary_vertical { got } else { h };
                if warp_removal && nothing == Offer::Nothing {
                    skipped |= 1 << lane;
                    self.stats.skipped_lanes += 1;
                } else {
                    self.stats.fallback_lanes += 1;
                }
                continue;
            };
            shuffled |= 1 << lane;
            used[usize::from(vertical)] = true;
            if vertical {
                self.stats.shuffled_vertical += 1;
            } else {
                self.stats.shuffled_horizontal += 1;
            }
            if sv != v {
                self.stats.value_mismatches += 1;
                if self.stats.first_mismatch.is_none() {
                    self.stats.first_mismatch = Some(format!(
                        "warp slot {slot} (warp {cta_warp} of its CTA) lane {lane}: L-register {id} at 0x{:x} took {sv:#x} from L-register {s} of lane {n}, memory holds {v:#x}",
                        acc.addrs[lane as usize]
                    ));
                }
            }
        }
        // the shuffles' source rows are read (before this instruction's releases)
        let mut reads = BankAccesses::none(BankAccessKind::LineAccesses);
        let mut wake = 0u32;
        for (e, u) in [(he, used[0]), (ve, used[1])] {
            let Some((s, i)) = e.filter(|_| u) else {
                continue;
            };
            reads.add(self.bank(g.warp.slot, s));
            self.stats.shuffle_row_reads += 1;
            self.stats.map_reads += 1;
            let e = &self.warps[slot].live[i];
            let t = self.base.side_index(sc, e.bank, e.row);
            if let Delay::Cycles(c) = self.base.side_read(ctx, t) {
                wake = wake.max(c);
            }
        }
        // keep the input if a neighbour will read it (§7.2); a refusal is counted per lane
        let held = acc.mask & !skipped;
        if let Some(last) = a.last_reader(id).filter(|_| acc.mask != 0) {
            let w = &mut self.warps[slot];
            if let Some(e) = w.live.iter_mut().find(|e| e.id == id) {
                e.valid |= held;
                e.skipped |= skipped;
                for (lane, (d, v)) in e.values.iter_mut().zip(values).enumerate() {
                    if held >> lane & 1 != 0 {
                        *d = v;
                    }
                }
                let t = self.base.side_index(sc, e.bank, e.row);
                self.base.side_write(ctx, t);
                self.stats.side_row_writes += 1;
            } else if w.live.len() >= self.p.map_entries as usize {
                self.stats.refused_map_full += lanes;
            } else {
                let bank = self.bank(g.warp.slot, id);
                match self.place(sc, bank) {
                    None => self.stats.refused_no_row += lanes,
                    Some(row) => {
                        self.warps[slot].live.push(LEntry {
                            id,
                            values,
                            valid: held,
                            skipped,
                            last_reader: last,
                            row,
                            bank,
                        });
                        self.base
                            .side_write(ctx, self.base.side_index(sc, bank, row));
                        self.stats.side_row_writes += 1;
                        self.live += 1;
                        self.stats.retained += 1;
                        self.stats.map_writes += 1;
                    }
                }
            }
        }
        self.stats.live_sum += self.live;
        self.stats.live_peak = self.stats.live_peak.max(self.live);
        // release what no lane of the warp reads any more (the last reader was this
        // instruction or earlier)
        while let Some(i) = self.warps[slot]
            .live
            .iter()
            .position(|e| e.last_reader <= id)
        {
            let e = self.warps[slot].live.remove(i);
            self.release_entry(ctx, sc, &e);
        }
        if shuffled | skipped == 0 {
            return MemRoute::Hierarchy;
        }
        if skipped != 0 {
            // the lanes that took no value keep their destination as it was
            for &reg in g.info.dsts.as_slice() {
                self.skipped_writes
                    .push((g.warp.slot, reg, skipped, acc.mask));
            }
        }
        if acc.mask & !(shuffled | skipped) == 0 {
            self.stats.removed_instructions += 1;
        }
        // the lanes without a neighbour to shuffle from load through the L1D like any load
        MemRoute::Banks(BankAccesses {
            miss_lanes: acc.mask & !(shuffled | skipped),
            latency: self.shuffle_latency + wake,
            via_l1: true,
            ..reads
        })
    }
}

impl LregRf {
    /// The entry of [`LregRf::skipped_writes`] for load write-back `w`, if some of its lanes
    /// took no value.
    fn skipped_write(&self, w: &WriteRef) -> Option<usize> {
        if !w.from_load || self.skipped_writes.is_empty() {
            return None;
        }
        self.skipped_writes
            .iter()
            .position(|&(slot, reg, ..)| slot == w.warp.slot && reg == w.reg)
    }
}

impl RegisterFileDesign for LregRf {
    type Stats = LregStats;

    fn name(&self) -> String {
        "lreg".into()
    }

    fn layout(&self) -> RfLayout {
        self.base.layout()
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        // the rows holding L-registers are reserved in the baseline's admission
        self.base.can_allocate(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        self.base.allocate_warp(ctx, warp, regs_per_thread)
    }

    fn warp_started(&mut self, warp: WarpSlot, cta_warp: u32) {
        if let Some(w) = self.warps.get_mut(usize::from(warp.slot)) {
            *w = LWarp {
                cta_warp: Some(cta_warp),
                ..LWarp::default()
            };
        }
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let sc = usize::from(warp.sub_core) % self.sub_cores;
        self.skipped_writes.retain(|p| p.0 != warp.slot);
        if let Some(w) = self.warps.get_mut(usize::from(warp.slot)) {
            let live = std::mem::take(&mut w.live);
            *w = LWarp::default();
            for e in &live {
                self.release_entry(ctx, sc, e);
            }
        }
        self.base.free_warp(ctx, warp);
    }

    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route {
        self.base.route_read(ctx, op)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        self.base.read(ctx, op)
    }

    fn route_write(&mut self, ctx: &mut RfCtx, w: &WriteRef) -> Route {
        // a load none of whose lanes took a value writes nothing
        let nothing = self
            .skipped_write(w)
            .is_some_and(|i| self.skipped_writes[i].2 == self.skipped_writes[i].3);
        if nothing {
            return Route::Bypass;
        }
        self.base.route_write(ctx, w)
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let mut mask = mask;
        if let Some(i) = self.skipped_write(w) {
            mask &= !self.skipped_writes.swap_remove(i).2;
            if mask == 0 {
                return WriteOutcome::DONE;
            }
        }
        self.base.write(ctx, w, values, mask)
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause) {
        self.base.release(ctx, warp, reg, cause)
    }

    fn global_access(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let acc = g.access;
        if acc.space != MemSpaceKind::Global || acc.kind != MemOpKind::Load {
            return MemRoute::Hierarchy;
        }
        let lanes = u64::from(acc.mask.count_ones());
        self.stats.global_load_instructions += 1;
        self.stats.global_load_lanes += lanes;
        let route = match self.plan.annotation {
            // L-registers are 32-bit (§7.1); a memory reader is needed to hold values
            Some(a) if acc.bytes_per_lane == 4 && g.memory.is_some() => self.lreg_load(ctx, a, g),
            _ => MemRoute::Hierarchy,
        };
        let loading = match route {
            MemRoute::Banks(a) => a.miss_lanes & acc.mask,
            _ => acc.mask,
        };
        if loading == 0 {
            self.stats.served_instructions += 1;
        } else {
            self.stats.memory_load_instructions += 1;
            self.stats.memory_load_lanes += u64::from(loading.count_ones());
        }
        route
    }

    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        self.base.prefetch(warp, reg)
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.base.peek(warp, reg)
    }

    fn record_series(&mut self, window: u64) {
        self.base.record_series(window)
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.base.sm_occupied(ctx, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.base.finish(ctx)
    }

    fn stats(&self) -> LregStats {
        LregStats {
            banks: self.base.stats(),
            ..self.stats.clone()
        }
    }
}
