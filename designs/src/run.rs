//! Simulating a launch with a design and turning its activity into energy and area.
//!
//! * [`simulate`]: one kernel launch through the timing model with one design instance per SM.
//! * [`merge_activity`]: launches of a workload run one after another (cycles add).
//! * [`inventory`] / [`events`]: the design's hardware at a node, and its activity as events.
//! * [`RunReport`]: the typed record `regwatt run --json` prints and `regwatt report` writes.
//!
//! The simulation is node- and scope-independent: a workload is simulated once per (GPU,
//! design) and evaluated at every node and scope from the same activity. At scope `sm` or
//! `gpu` ([`crate::config::Scope`]) the report adds the structures beyond the register file
//! ([`crate::beyond_rf`]) to the breakdown and the scope's levels to the totals.

use serde::Serialize;
use std::collections::BTreeMap;

use crate::beyond_rf::{self, BeyondRfInventory};
use crate::config::{Node, PowerMode, ResolvedConfig, Scope};
use crate::energy::{
    combine_levels, AreaSummary, EnergyError, EnergySummary, EventCounts, IdleSmGating, Inventory,
};
use crate::power_modes::{self, PowerManagement};
use crate::registry::DesignSpec;
pub use crate::registry::{inventory, power_domains, simulate, DesignActivity, DesignStats};
use regwatt_tech::units::Energy;

/// Adds the activity of a later launch: launches run back to back, so cycles add.
pub fn merge_activity(into: &mut DesignActivity, o: &DesignActivity) {
    let offset = into.cycles;
    into.cycles += o.cycles;
    into.simulated_cycles += o.simulated_cycles;
    into.core.merge(&o.core);
    // a later launch's occupancy windows follow the earlier launches' cycles
    let mut orf = o.rf.clone();
    let series = std::mem::take(&mut orf.register_series);
    into.rf.merge_launch(&orf);
    into.rf
        .register_series
        .extend(series.into_iter().map(|mut w| {
            w.start_cycle += offset;
            w
        }));
    into.memory.merge(&o.memory);
    into.design_stats.merge(&o.design_stats);
}

/// `cfg` evaluated at another node (everything else unchanged).
pub fn at_node(cfg: &ResolvedConfig, node: Node) -> ResolvedConfig {
    let mut c = cfg.clone();
    c.power.node = node;
    c
}

/// The run's activity as events of the design's inventory.
pub fn events(cfg: &ResolvedConfig, act: &DesignActivity) -> EventCounts {
    act.design_stats.events(cfg, &act.core, &act.memory)
}

/// Register demand of a run, in warp registers (32 lanes × 32 bits), maximum over SMs and
/// time (Jeon & Annavaram 2014 Fig. 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterDemand {
    /// Registers the architected allocation held at once: resident warps × registers
    /// reserved per warp.
    pub architected_peak: u64,
    /// Physical registers allocated at once (holding a mapping or reserved).
    pub allocated_peak: u64,
}

/// Everything one (workload, GPU, design, node) evaluation reports.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub workload: String,
    /// The built-in workload's input size (`ci`, `default`, `paper`); absent for a spec file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_size: Option<String>,
    pub gpu: String,
    pub design: DesignSpec,
    pub node: Node,
    /// Core cycles, all launches back to back.
    pub cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Warp instructions per core cycle (whole GPU).
    pub ipc: f64,
    /// Energy over the kernels' own cycles: `cycles − launch_latency.cycles` (the accounting
    /// window designs are compared on; see [`LaunchLatency`]).
    pub energy: EnergySummary,
    /// The launch latencies, reported apart from `energy`.
    pub launch_latency: LaunchLatency,
    pub area: AreaSummary,
    /// Register demand (Jeon & Annavaram 2014 Fig. 9).
    pub registers: RegisterDemand,
    /// Registers per thread of each launched kernel, estimated by regwatt or given by the
    /// spec's `[registers]` table (empty when the caller did not set it).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel_registers: BTreeMap<String, crate::exec_model::KernelRegisters>,
    /// The power mode's states, wake-ups and energies (absent when always on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_management: Option<PowerManagement>,
    /// The functional result matched the workload's reference (`None`: no reference).
    pub output_check: Option<bool>,
    pub activity: DesignActivity,
    /// The fully resolved configuration (node included; quantities as numbers,
    /// [`ResolvedConfig::to_json`]).
    #[serde(serialize_with = "crate::config::config_as_json")]
    pub config: ResolvedConfig,
}

/// The cycles a run spends in the preset's kernel- and CTA-launch latencies (rtx2060: 5000
/// cycles per launch, Accel-Sim's `-gpgpu_kernel_launch_latency`; gtx480: none), and what the
/// hardware leaks meanwhile. No instruction runs then and every design leaks the same, so
/// this static energy is reported here and left out of [`RunReport::energy`]: the totals
/// designs are compared on cover the kernels' own cycles (on rtx2060 the latency
/// was 64 % of vectorAdd's RF energy). `cycles` and `ipc` keep GPGPU-Sim's definitions, which
/// include the latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LaunchLatency {
    /// Cycles of the launch latencies, all launches.
    pub cycles: u64,
    /// Static energy of the inventory over those cycles.
    #[serde(rename = "static_j", serialize_with = "regwatt_tech::units::report::j")]
    pub static_energy: Energy,
}

/// The hardware beyond the RF of `cfg` when its scope needs it (`None` at scope `rf`), without
/// what `design`'s own inventory replaces.
pub fn beyond_rf_inventory(
    design: DesignSpec,
    cfg: &ResolvedConfig,
) -> Result<Option<BeyondRfInventory>, EnergyError> {
    match cfg.scope() {
        Scope::Rf => Ok(None),
        _ => beyond_rf::inventory(cfg).map(|b| Some(b.without(design.replaces()))),
    }
}

/// One run's activity and hardware, evaluated with or without idle-SM gating
/// ([`RunReport::with_beyond_rf`]).
struct Evaluation<'a> {
    design: DesignSpec,
    cfg: &'a ResolvedConfig,
    inv: &'a Inventory,
    beyond: Option<&'a BeyondRfInventory>,
    act: &'a DesignActivity,
    launch_cycles: u64,
}

impl Evaluation<'_> {
    /// The busy share idle-SM gating charges the per-SM static energy for: SM-cycles with a
    /// CTA resident over SMs × the energy window's cycles (`activity.core.sm_busy_frac`, whose
    /// denominator is the kernels' cycles × SMs, when the window is the kernels' cycles), at
    /// most 1; 0 for an empty window.
    fn busy_frac(&self) -> f64 {
        let window = self.act.cycles - self.launch_cycles;
        let sm_cycles = u64::from(self.cfg.gpu.sms) * window;
        if sm_cycles == 0 {
            return 0.0;
        }
        (self.act.core.sm_busy_frac.num as f64 / sm_cycles as f64).min(1.0)
    }

    /// The energy and area of the run's window, the static energy of its launch latencies
    /// and the power mode's record. `gate`: idle-SM gating with this busy share
    /// ([`IdleSmGating`]): the static energy of the register file and of the `sm` level is
    /// charged for the busy share of the window and not at all over the launch latencies
    /// (no SM holds a CTA there); the RF cells of a power mode for their states' busy
    /// cycles (`PowerStateCycles::busy`). `None`: every SM leaks for the whole run.
    fn evaluate(
        &self,
        gate: Option<f64>,
    ) -> Result<(EnergySummary, AreaSummary, Energy, Option<PowerManagement>), EnergyError> {
        let (cfg, inv, act, launch_cycles) = (self.cfg, self.inv, self.act, self.launch_cycles);
        let window = act.cycles - launch_cycles;
        let none = EventCounts::new();
        let mut rf = inv.evaluate(window, &events(cfg, act))?;
        if let Some(busy) = gate {
            rf.0.scale_static(busy);
        }
        let power_management = match cfg.power.mode {
            PowerMode::AlwaysOn => None,
            mode => {
                let counts = act.rf.power_states.as_ref().ok_or_else(|| EnergyError::NoModel {
                    component: "rf_banks".into(),
                    message: format!(
                        "power mode {mode}: the design counted no power states (regwatt_designs::power_modes::tracker)"
                    ),
                })?;
                let domains = power_domains(self.design, cfg)?;
                let mut pm = match gate {
                    None => power_modes::evaluate(mode, &domains, counts, inv.core_clock_mhz),
                    Some(_) => {
                        if counts.sm_idle.is_none() {
                            return Err(EnergyError::NoModel {
                                component: "rf_banks".into(),
                                message: format!(
                                    "power mode {mode} with power.idle_sm_gating: the design counted no idle-SM power states (regwatt_designs::power_modes::tracker)"
                                ),
                            });
                        }
                        let mut pm = power_modes::evaluate(
                            mode,
                            &domains,
                            &counts.busy(),
                            inv.core_clock_mhz,
                        );
                        pm.counts = counts.clone();
                        pm
                    }
                };
                // an idle SM's cells are off whatever the mode: nothing over the launch
                // latencies with idle-SM gating
                if gate.is_none() {
                    (pm.launch_cells, pm.launch_cells_always_on) = power_modes::launch_window(
                        mode,
                        &domains,
                        counts,
                        power_modes::LaunchWindow {
                            cycles: launch_cycles,
                            per_launch: u64::from(cfg.gpu.kernel_launch_latency),
                        },
                        inv.core_clock_mhz,
                    );
                }
                power_modes::apply(&pm, &mut rf.0, &mut rf.1);
                Some(pm)
            }
        };
        let mut rf_idle = inv.evaluate(launch_cycles, &none)?;
        match (&power_management, gate) {
            (_, Some(_)) => rf_idle.0.scale_static(0.0),
            (Some(pm), None) => power_modes::apply_launch_window(pm, &mut rf_idle.0),
            (None, None) => {}
        }
        let ((energy, area), idle) = match cfg.scope() {
            Scope::Rf => (rf, rf_idle.0),
            scope => {
                let built;
                let b = match self.beyond {
                    Some(b) => b,
                    None => {
                        built = beyond_rf::inventory(cfg)?.without(self.design.replaces());
                        &built
                    }
                };
                let (mut sm_events, gpu_events) = beyond_rf::events(cfg, &act.core, &act.memory)?;
                beyond_rf::drop_replaced(&mut sm_events, self.design.replaces());
                let mut sm = b.sm.evaluate(window, &sm_events)?;
                let gpu = b.gpu.evaluate(window, &gpu_events)?;
                let mut sm_idle = b.sm.evaluate(launch_cycles, &none)?;
                if let Some(busy) = gate {
                    sm.0.scale_static(busy);
                    sm_idle.0.scale_static(0.0);
                }
                let idle = combine_levels(
                    scope,
                    rf_idle,
                    sm_idle,
                    b.gpu.evaluate(launch_cycles, &none)?,
                )
                .0;
                (combine_levels(scope, rf, sm, gpu), idle)
            }
        };
        Ok((energy, area, idle.static_energy, power_management))
    }
}

impl RunReport {
    /// Evaluates `act` with the inventory `inv` (built from `cfg`, which carries the node and
    /// the scope; the hardware beyond the RF is built here when the scope needs it);
    /// `launch_cycles` of `act.cycles` are launch latency ([`LaunchLatency`],
    /// [`crate::exec_model::launch_cycles`]).
    pub fn new(
        workload: &str,
        design: DesignSpec,
        cfg: &ResolvedConfig,
        inv: &Inventory,
        act: &DesignActivity,
        launch_cycles: u64,
    ) -> Result<RunReport, EnergyError> {
        Self::with_beyond_rf(workload, design, cfg, inv, None, act, launch_cycles)
    }

    /// [`Self::new`] with the hardware beyond the RF built beforehand
    /// ([`beyond_rf_inventory`]; `None`: built here if the scope needs it).
    pub fn with_beyond_rf(
        workload: &str,
        design: DesignSpec,
        cfg: &ResolvedConfig,
        inv: &Inventory,
        beyond: Option<&BeyondRfInventory>,
        act: &DesignActivity,
        launch_cycles: u64,
    ) -> Result<RunReport, EnergyError> {
        let launch_cycles = launch_cycles.min(act.cycles);
        let run = Evaluation {
            design,
            cfg,
            inv,
            beyond,
            act,
            launch_cycles,
        };
        let (energy, area, idle, power_management) = if cfg.power.idle_sm_gating {
            let busy = run.busy_frac();
            let off = run.evaluate(None)?;
            let mut on = run.evaluate(Some(busy))?;
            on.0.idle_sm_gating = Some(IdleSmGating {
                sm_busy_frac: busy,
                static_saved: off.0.static_energy - on.0.static_energy,
                launch_latency_static_saved: off.2 - on.2,
            });
            on
        } else {
            run.evaluate(None)?
        };
        let ipc = if act.cycles > 0 {
            act.core.warp_instructions as f64 / act.cycles as f64
        } else {
            0.0
        };
        Ok(RunReport {
            workload: workload.to_string(),
            gpu: cfg.gpu.name.clone(),
            design,
            node: cfg.power.node,
            cycles: act.cycles,
            warp_instructions: act.core.warp_instructions,
            thread_instructions: act.core.thread_instructions,
            ipc,
            energy,
            launch_latency: LaunchLatency {
                cycles: launch_cycles,
                static_energy: idle,
            },
            registers: RegisterDemand {
                architected_peak: act.rf.architected_peak,
                allocated_peak: act.rf.allocated_peak,
            },
            area,
            power_management,
            output_check: None,
            input_size: None,
            kernel_registers: BTreeMap::new(),
            activity: act.clone(),
            config: cfg.clone(),
        })
    }

    /// Sets the overheads against the same workload's baseline report (same GPU and node).
    pub fn set_baseline(&mut self, base: &RunReport) {
        self.energy
            .with_baseline(&base.energy, &mut self.area, &base.area);
    }

    /// The row of `summary.csv`.
    pub fn summary_row(&self) -> SummaryRow {
        let e = &self.energy;
        let o = &e.overhead_vs_baseline;
        SummaryRow {
            workload: self.workload.clone(),
            size: self.input_size.clone().unwrap_or_else(|| "-".into()),
            gpu: self.gpu.clone(),
            design: self.design.name().to_string(),
            node: self.node.name(),
            node_nm: self.node.nm(),
            power_mode: self.config.power.mode.name().to_string(),
            scope: self.config.scope().name().to_string(),
            cycles: self.cycles,
            kernel_cycles: self.cycles - self.launch_latency.cycles.min(self.cycles),
            warp_instructions: self.warp_instructions,
            ipc: self.ipc,
            sm_busy_frac: self.activity.core.sm_busy_frac.value(),
            issue_utilisation_frac: self.activity.core.issue_utilisation_frac.value(),
            time_s: e.time.s(),
            dynamic_j: e.dynamic.j(),
            static_j: e.static_energy.j(),
            total_j: e.total.j(),
            static_share_frac: if e.total.j() > 0.0 {
                e.static_energy.j() / e.total.j()
            } else {
                0.0
            },
            average_power_w: e.average_power.w(),
            area_mm2: self.area.total.mm2(),
            energy_overhead_frac: o.energy,
            dynamic_energy_overhead_frac: o.dynamic_energy,
            static_energy_overhead_frac: o.static_energy,
            area_overhead_frac: o.area,
            launch_latency_cycles: self.launch_latency.cycles,
            launch_latency_static_j: self.launch_latency.static_energy.j(),
            output_check: match self.output_check {
                Some(true) => "ok",
                Some(false) => "MISMATCH",
                None => "-",
            }
            .to_string(),
        }
    }

    /// The rows of `components.csv` for this run ([`ComponentRow`]).
    pub fn component_rows(&self) -> Vec<ComponentRow> {
        let scope = self.energy.scope.as_ref();
        let pm = self.power_management.as_ref();
        let mut rows = Vec::new();
        for c in &self.energy.components {
            let level = scope
                .and_then(|s| s.component_levels.get(&c.name).copied())
                .unwrap_or(Scope::Rf);
            let in_total = level <= self.config.scope();
            let row = |record: &'static str, name: &str| ComponentRow {
                component: c.name.clone(),
                level: level.name(),
                in_total,
                record,
                name: name.to_string(),
                count: None,
                energy_per_event_pj: None,
                dynamic_j: 0.0,
                static_j: 0.0,
                area_mm2: 0.0,
            };
            for (ev, &n) in &c.events {
                let per = c.energy_per_event.get(ev).copied().unwrap_or(Energy::ZERO);
                rows.push(ComponentRow {
                    count: Some(n),
                    energy_per_event_pj: Some(per.pj()),
                    dynamic_j: (per * n as f64).j(),
                    ..row("event", ev)
                });
            }
            // the power mode's states and wake-ups are the cells of `rf_banks`; the rest of
            // its static energy (periphery) and every other component's stays always on
            match pm.filter(|_| c.name == "rf_banks") {
                Some(pm) => {
                    let cells: Energy = pm.states.iter().map(|s| s.energy).sum::<Energy>()
                        + pm.wakeups.iter().map(|w| w.energy).sum::<Energy>();
                    rows.push(ComponentRow {
                        static_j: (c.static_energy - cells).j(),
                        ..row("state", "periphery_on")
                    });
                    for st in &pm.states {
                        rows.push(ComponentRow {
                            count: Some(st.cycles),
                            static_j: st.energy.j(),
                            ..row("state", st.state)
                        });
                    }
                    for w in &pm.wakeups {
                        rows.push(ComponentRow {
                            count: Some(w.count),
                            energy_per_event_pj: Some(if w.count > 0 {
                                w.energy.pj() / w.count as f64
                            } else {
                                0.0
                            }),
                            static_j: w.energy.j(),
                            ..row("wakeup", w.kind)
                        });
                    }
                }
                None => rows.push(ComponentRow {
                    static_j: c.static_energy.j(),
                    ..row("state", "on")
                }),
            }
            rows.push(ComponentRow {
                count: Some(c.instances),
                area_mm2: c.area.mm2(),
                ..row("area", "instances")
            });
        }
        rows
    }
}

/// A number as reports' CSV files write it: the shortest text that reads back as the same
/// `f64`, positional between 10^-3 and 10^7 and in exponent notation outside (`1.2e-9`), both
/// of which every CSV reader parses.
pub fn csv_number(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || (1e-3..1e7).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// One row of a report's `summary.csv` / `summary.json` and of a sweep's `sweep.csv`: plain
/// numbers, the unit in the column name (`_j`, `_s`, `_w`, `_mm2`; overheads `_frac`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    pub workload: String,
    /// The built-in workload's input size (`ci`, `default`, `paper`), `-` for a spec file.
    pub size: String,
    pub gpu: String,
    pub design: String,
    /// Node name (`40nm`); `node_nm` is the number.
    pub node: String,
    pub node_nm: f64,
    pub power_mode: String,
    /// What the totals include (`rf`, `sm`, `gpu`).
    pub scope: String,
    /// Core cycles, launch latencies included (GPGPU-Sim's `gpu_sim_cycle`).
    pub cycles: u64,
    /// Cycles of the kernels themselves: the window the energies cover.
    pub kernel_cycles: u64,
    pub warp_instructions: u64,
    pub ipc: f64,
    /// Share of the kernels' SM-cycles with a CTA resident (`activity.core.sm_busy_frac`).
    pub sm_busy_frac: f64,
    /// Warp instructions per issue slot (`activity.core.issue_utilisation_frac`).
    pub issue_utilisation_frac: f64,
    /// `kernel_cycles / f_core`.
    pub time_s: f64,
    pub dynamic_j: f64,
    pub static_j: f64,
    pub total_j: f64,
    /// `static_j / total_j`.
    pub static_share_frac: f64,
    pub average_power_w: f64,
    pub area_mm2: f64,
    pub energy_overhead_frac: f64,
    pub dynamic_energy_overhead_frac: f64,
    pub static_energy_overhead_frac: f64,
    pub area_overhead_frac: f64,
    pub launch_latency_cycles: u64,
    /// Static energy of the launch latencies (not in `static_j`).
    pub launch_latency_static_j: f64,
    /// `ok`, `MISMATCH` or `-` (no reference).
    pub output_check: String,
}

impl SummaryRow {
    /// The column names, in order ([`Self::fields`]).
    pub const COLUMNS: [&'static str; 28] = [
        "workload",
        "size",
        "gpu",
        "design",
        "node",
        "node_nm",
        "power_mode",
        "scope",
        "cycles",
        "kernel_cycles",
        "warp_instructions",
        "ipc",
        "sm_busy_frac",
        "issue_utilisation_frac",
        "time_s",
        "dynamic_j",
        "static_j",
        "total_j",
        "static_share_frac",
        "average_power_w",
        "area_mm2",
        "energy_overhead_frac",
        "dynamic_energy_overhead_frac",
        "static_energy_overhead_frac",
        "area_overhead_frac",
        "launch_latency_cycles",
        "launch_latency_static_j",
        "output_check",
    ];

    /// The columns' values as CSV text ([`csv_number`]).
    pub fn fields(&self) -> Vec<String> {
        let n = csv_number;
        vec![
            self.workload.clone(),
            self.size.clone(),
            self.gpu.clone(),
            self.design.clone(),
            self.node.clone(),
            n(self.node_nm),
            self.power_mode.clone(),
            self.scope.clone(),
            self.cycles.to_string(),
            self.kernel_cycles.to_string(),
            self.warp_instructions.to_string(),
            n(self.ipc),
            n(self.sm_busy_frac),
            n(self.issue_utilisation_frac),
            n(self.time_s),
            n(self.dynamic_j),
            n(self.static_j),
            n(self.total_j),
            n(self.static_share_frac),
            n(self.average_power_w),
            n(self.area_mm2),
            n(self.energy_overhead_frac),
            n(self.dynamic_energy_overhead_frac),
            n(self.static_energy_overhead_frac),
            n(self.area_overhead_frac),
            self.launch_latency_cycles.to_string(),
            n(self.launch_latency_static_j),
            self.output_check.clone(),
        ]
    }
}

/// One row of `components.csv` (and of `regwatt run --out`'s `energy.csv`): a component's
/// energy and area broken down by what it was spent on. `record` is
///
/// * `event`: `count` events named `name` at `energy_per_event_pj` each, their `dynamic_j`;
/// * `state`: static energy in a power state (`on` always on; in a power mode `rf_banks`'
///   cells in each state, `count` = row- or sub-array-cycles, and its `periphery_on`);
/// * `wakeup`: `count` wake-ups of kind `name` and their energy (counted as static);
/// * `area`: the component's `count` instances and their `area_mm2`.
///
/// Summing `dynamic_j + static_j` (and `area_mm2`) over a run's rows with `in_total` gives its
/// totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComponentRow {
    pub component: String,
    /// `rf`, `sm` or `gpu`.
    pub level: &'static str,
    /// The run's totals include the component (its level is within the scope).
    pub in_total: bool,
    pub record: &'static str,
    pub name: String,
    pub count: Option<u64>,
    pub energy_per_event_pj: Option<f64>,
    pub dynamic_j: f64,
    pub static_j: f64,
    pub area_mm2: f64,
}

impl ComponentRow {
    /// The column names, in order ([`Self::fields`]).
    pub const COLUMNS: [&'static str; 10] = [
        "component",
        "level",
        "in_total",
        "record",
        "name",
        "count",
        "energy_per_event_pj",
        "dynamic_j",
        "static_j",
        "area_mm2",
    ];

    /// The columns' values as CSV text (empty where not applicable).
    pub fn fields(&self) -> Vec<String> {
        vec![
            self.component.clone(),
            self.level.to_string(),
            self.in_total.to_string(),
            self.record.to_string(),
            self.name.clone(),
            self.count.map_or_else(String::new, |c| c.to_string()),
            self.energy_per_event_pj
                .map_or_else(String::new, csv_number),
            csv_number(self.dynamic_j),
            csv_number(self.static_j),
            csv_number(self.area_mm2),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset, GpuPreset};
    use regwatt_sim::timing::functional::SyntheticModel;
    use regwatt_sim::timing::RunOptions;

    /// A straight-line FMA kernel for the synthetic value-checking model.
    fn kernel() -> String {
        let mut s = String::from(
            ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<40>;\n",
        );
        for i in 0..8 {
            s.push_str(&format!("mov.f32 %f{i}, 0f3F800000;\n"));
        }
        for r in 0..6 {
            for i in 0..8 {
                let d = 8 + (r * 8 + i) % 32;
                s.push_str(&format!(
                    "fma.rn.f32 %f{d}, %f{}, %f{}, %f{};\n",
                    i,
                    (i + 1) % 8,
                    (i + 2) % 8
                ));
            }
        }
        s.push_str("ret;\n}\n");
        s
    }

    fn synthetic(ctas: u32, threads: u32) -> Option<SyntheticModel> {
        let m = regwatt_sim::ptx::parse("k.ptx", &kernel()).ok()?;
        SyntheticModel::new(&m, "k", ctas, threads).ok()
    }

    #[test]
    fn synthetic_run_matches_the_untimed_checksum_and_is_deterministic() {
        for p in GpuPreset::ALL {
            let cfg = preset(p).expect("preset");
            let Some(mut m) = synthetic(40, 128) else {
                panic!("synthetic model did not build");
            };
            let untimed = {
                let Some(mut u) = synthetic(40, 128) else {
                    panic!("synthetic model did not build");
                };
                u.run_untimed().expect("untimed")
            };
            let a = simulate(DesignSpec::Baseline, &cfg, &mut m, &RunOptions::default())
                .expect("simulates");
            assert_eq!(m.checksums, untimed, "{p}: register values lost");
            assert!(a.cycles > 0 && a.core.warp_instructions > 0);
            assert_eq!(a.design_stats.unallocated_accesses(), 0);
            let inv = inventory(DesignSpec::Baseline, &cfg).expect("inventory");
            let r = RunReport::new("k", DesignSpec::Baseline, &cfg, &inv, &a, 0).expect("report");
            assert!(r.energy.dynamic.j() > 0.0 && r.energy.static_energy.j() > 0.0);
            let j1 = serde_json::to_string(&r).expect("json");
            let Some(mut m2) = synthetic(40, 128) else {
                panic!("synthetic model did not build");
            };
            let a2 = simulate(DesignSpec::Baseline, &cfg, &mut m2, &RunOptions::default())
                .expect("simulates");
            let r2 = RunReport::new("k", DesignSpec::Baseline, &cfg, &inv, &a2, 0).expect("report");
            assert_eq!(j1, serde_json::to_string(&r2).expect("json"));
        }
    }

    /// One simulation evaluated at every scope. The `rf` report is the plain one
    /// (no `scope` field, RF components only); `sm` and `gpu` list every component of the
    /// three levels and total the scope's levels; the RF components are the same at every
    /// scope.
    #[test]
    fn scopes_share_one_simulation_and_nest() {
        use crate::config::{resolve, Overrides, Scope};
        for p in GpuPreset::ALL {
            let rf_cfg = preset(p).expect("preset");
            let Some(mut m) = synthetic(20, 128) else {
                panic!("synthetic model did not build");
            };
            let a = simulate(
                DesignSpec::Baseline,
                &rf_cfg,
                &mut m,
                &RunOptions::default(),
            )
            .expect("simulates");
            let inv = inventory(DesignSpec::Baseline, &rf_cfg).expect("inventory");
            let rf = RunReport::new("k", DesignSpec::Baseline, &rf_cfg, &inv, &a, 0).expect("rf");
            let json = serde_json::to_value(&rf).expect("json");
            assert!(json["energy"].get("scope").is_none());
            assert!(json["config"].get("beyond_rf").is_none());
            let at = |sc: Scope| {
                let cfg = resolve(
                    p,
                    &Overrides {
                        scope: Some(sc),
                        ..Overrides::default()
                    },
                )
                .expect("resolves");
                RunReport::new("k", DesignSpec::Baseline, &cfg, &inv, &a, 0).expect("report")
            };
            let (sm, gpu) = (at(Scope::Sm), at(Scope::Gpu));
            for r in [&sm, &gpu] {
                let s = r.energy.scope.as_ref().expect("scope summary");
                // the RF components are the rf report's, first, unchanged
                assert_eq!(
                    r.energy.components[..rf.energy.components.len()],
                    rf.energy.components[..]
                );
                assert_eq!(s.rf.total, rf.energy.total);
                assert_eq!(s.rf.area, rf.area.total);
                for c in [
                    "l1d_data",
                    "l1d_tag",
                    "shared_memory",
                    "exec_units",
                    "l2_data",
                    "l2_tag",
                    "interconnect",
                    "dram",
                ] {
                    assert!(r.energy.components.iter().any(|x| x.name == c), "{c}");
                }
                let exec = r
                    .energy
                    .components
                    .iter()
                    .find(|c| c.name == "exec_units")
                    .expect("exec");
                assert!(
                    exec.dynamic.j() > 0.0,
                    "{p}: FMA kernel without execution energy"
                );
            }
            let s = sm.energy.scope.as_ref().expect("sm");
            assert_eq!(s.levels_in_total, vec![Scope::Rf, Scope::Sm]);
            assert_eq!(
                s.not_in_total,
                ["l2_data", "l2_tag", "interconnect", "dram"]
            );
            assert_eq!(s.component_levels["l1d_data"], Scope::Sm);
            assert_eq!(s.component_levels["rf_banks"], Scope::Rf);
            let rel = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs();
            assert!(rel(sm.energy.total.j(), s.rf.total.j() + s.sm.total.j()));
            assert!(rel(sm.area.total.m2(), s.rf.area.m2() + s.sm.area.m2()));
            let g = gpu.energy.scope.as_ref().expect("gpu");
            assert!(g.not_in_total.is_empty());
            assert!(rel(
                gpu.energy.total.j(),
                g.rf.total.j() + g.sm.total.j() + g.gpu.total.j()
            ));
            assert!(rel(
                gpu.energy.dynamic.j() + gpu.energy.static_energy.j(),
                gpu.energy.total.j()
            ));
            // the levels are the same whichever scope totals them
            assert_eq!((s.rf, s.sm, s.gpu), (g.rf, g.sm, g.gpu));
            assert!(rf.energy.total < sm.energy.total && sm.energy.total < gpu.energy.total);
        }
    }

    /// Idle-SM gating by hand: a 2-SM rtx2060 (launch latency 5000 cycles) whose record says
    /// one SM held a CTA for half the kernel and the other none, busy share 1/4. Every
    /// per-SM component's static energy (the RF's and the `sm` level's) is a quarter of the
    /// ungated one, exactly (a power of two), and `rf_banks`' is instances × leakage ×
    /// (kernel cycles / 4) / f_core; the GPU level and every dynamic energy are unchanged;
    /// over the launch latency (no SM busy) only the GPU level leaks. With both SMs busy the
    /// whole kernel the report is the ungated one.
    #[test]
    fn idle_sm_gating_charges_per_sm_static_for_busy_sm_cycles_only() {
        use crate::config::{resolve, Overrides, Scope};
        use regwatt_sim::timing::activity::Ratio;
        let cfg = |gating: bool| {
            resolve(
                GpuPreset::Rtx2060,
                &Overrides {
                    sets: vec!["sms=2".into(), format!("power.idle_sm_gating={gating}")],
                    scope: Some(Scope::Gpu),
                    ..Overrides::default()
                },
            )
            .expect("resolves")
        };
        let (off_cfg, on_cfg) = (cfg(false), cfg(true));
        assert!(!off_cfg.to_toml().contains("idle_sm_gating"));
        assert!(on_cfg.to_toml().contains("idle_sm_gating = true"));
        let Some(mut m) = synthetic(4, 128) else {
            panic!("synthetic model did not build");
        };
        let mut a = simulate(
            DesignSpec::Baseline,
            &on_cfg,
            &mut m,
            &RunOptions::default(),
        )
        .expect("simulates");
        let launch = u64::from(on_cfg.gpu.kernel_launch_latency);
        assert_eq!(launch, 5000);
        // an even kernel window, so that half of it is whole
        a.cycles += (a.cycles - launch) % 2;
        let window = a.cycles - launch;
        a.core.sm_busy_frac = Ratio {
            num: window / 2,
            den: 2 * window,
        };
        let inv = inventory(DesignSpec::Baseline, &on_cfg).expect("inventory");
        let report = |c: &ResolvedConfig, act: &DesignActivity| {
            RunReport::new("k", DesignSpec::Baseline, c, &inv, act, launch).expect("report")
        };
        let (off, on) = (report(&off_cfg, &a), report(&on_cfg, &a));
        let levels = &on.energy.scope.as_ref().expect("scope").component_levels;
        for (x, y) in off.energy.components.iter().zip(&on.energy.components) {
            assert_eq!(x.name, y.name);
            assert_eq!(x.dynamic, y.dynamic, "{}", x.name);
            match levels[&x.name] {
                Scope::Rf | Scope::Sm => {
                    assert_eq!(y.static_energy, x.static_energy * 0.25, "{}", x.name)
                }
                Scope::Gpu => assert_eq!(y.static_energy, x.static_energy, "{}", x.name),
            }
        }
        let banks = inv
            .components
            .iter()
            .find(|c| c.name == "rf_banks")
            .expect("rf_banks");
        let by_hand = banks.leakage.w() * banks.instances as f64 * (window as f64 / 4.0)
            / (inv.core_clock_mhz * 1e6);
        let got = on
            .energy
            .components
            .iter()
            .find(|c| c.name == "rf_banks")
            .expect("rf_banks")
            .static_energy
            .j();
        assert!(
            (got - by_hand).abs() <= 1e-12 * by_hand,
            "{got} vs {by_hand}"
        );
        let g = on.energy.idle_sm_gating.expect("gating record");
        assert_eq!(g.sm_busy_frac, 0.25);
        assert_eq!(
            g.static_saved,
            off.energy.static_energy - on.energy.static_energy
        );
        let s = off.energy.scope.as_ref().expect("scope");
        let per_sm = s.rf.static_energy + s.sm.static_energy;
        assert!((g.static_saved.j() - 0.75 * per_sm.j()).abs() <= 1e-12 * per_sm.j());
        // the launch latency: the GPU level only
        let gpu_idle = on_cfg.clone();
        let b = crate::beyond_rf::inventory(&gpu_idle).expect("beyond");
        let gpu_launch = b
            .gpu
            .evaluate(launch, &EventCounts::new())
            .expect("evaluates")
            .0
            .static_energy;
        assert_eq!(on.launch_latency.static_energy, gpu_launch);
        assert_eq!(
            g.launch_latency_static_saved,
            off.launch_latency.static_energy - gpu_launch
        );
        assert!(off.energy.idle_sm_gating.is_none());
        let json = serde_json::to_value(&on).expect("json");
        assert_eq!(json["energy"]["idle_sm_gating"]["sm_busy_frac"], 0.25);
        // both SMs busy the whole kernel: nothing to gate in the window
        a.core.sm_busy_frac = Ratio {
            num: 2 * window,
            den: 2 * window,
        };
        let (off, on) = (report(&off_cfg, &a), report(&on_cfg, &a));
        assert_eq!(on.energy.components, off.energy.components);
        assert_eq!(on.energy.total, off.energy.total);
        assert_eq!(
            on.energy.idle_sm_gating.expect("record").static_saved,
            Energy::ZERO
        );
    }
}
