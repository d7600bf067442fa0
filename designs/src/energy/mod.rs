//! Hardware inventory and energy/area accounting.
//!
//! A design declares its hardware as a list of [`Component`]s, each built at the chosen node,
//! clock and temperature: how many instances the GPU has, the energy of each event kind, the
//! leakage power and the area of one instance, and where those numbers come from. A run's
//! activity is turned into [`EventCounts`] (component → event → count) by the design; then
//!
//! ```text
//! E_dynamic(c) = Σ_events  count(c, e) × E(c, e)
//! E_static(c)  = instances(c) × P_leak(c) × T_active,   T_active = cycles / f_core
//! A(c)         = instances(c) × A_instance(c)
//! ```
//!
//! (the event-count × per-access-energy accounting of GPUWattch, Leng et al., ISCA 2013, and
//! of the seeds: Jeon & Annavaram 2014 §8.2, Jing et al. 2016 §IV "statistics × power primitives"). Every SM
//! leaks for the whole run, unless `power.idle_sm_gating` gates the SMs that hold no CTA
//! ([`IdleSmGating`]). Later designs add gated/drowsy states with their own leakage
//! powers and residency times.

pub mod circuits;

use std::collections::BTreeMap;

use regwatt_tech::units::{Area, Energy, Power, Temperature, Time};
use serde::Serialize;

use crate::config::{Node, Scope};

/// One kind of hardware block of a design, at one operating point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Component {
    /// Name in reports (`rf_banks`, `operand_collectors`, `crossbar`, `arbiter`, ...).
    pub name: String,
    /// What one instance is.
    pub description: String,
    /// Instances in the whole GPU.
    pub instances: u64,
    /// Energy per event, by event name.
    #[serde(
        rename = "event_energy_pj",
        serialize_with = "regwatt_tech::units::report::map_pj"
    )]
    pub event_energy: BTreeMap<String, Energy>,
    /// Leakage (subthreshold + gate) of one instance while powered.
    #[serde(
        rename = "leakage_mw",
        serialize_with = "regwatt_tech::units::report::mw"
    )]
    pub leakage: Power,
    /// Area of one instance.
    #[serde(
        rename = "area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub area: Area,
    /// Model and source of the numbers.
    pub source: String,
}

/// The hardware of one design on one GPU at one node.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inventory {
    pub node: Node,
    #[serde(
        rename = "temperature_k",
        serialize_with = "regwatt_tech::units::report::k"
    )]
    pub temperature: Temperature,
    pub core_clock_mhz: f64,
    pub components: Vec<Component>,
}

/// Event counts of a run: component → event → count.
pub type EventCounts = BTreeMap<String, BTreeMap<String, u64>>;

/// Energy and area of one component over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComponentEnergy {
    pub name: String,
    pub instances: u64,
    pub events: BTreeMap<String, u64>,
    /// Energy of one event of each kind (the inventory's figure).
    #[serde(
        rename = "energy_per_event_pj",
        serialize_with = "regwatt_tech::units::report::map_pj"
    )]
    pub energy_per_event: BTreeMap<String, Energy>,
    #[serde(
        rename = "dynamic_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub dynamic: Energy,
    #[serde(rename = "static_j", serialize_with = "regwatt_tech::units::report::j")]
    pub static_energy: Energy,
    #[serde(rename = "total_j", serialize_with = "regwatt_tech::units::report::j")]
    pub total: Energy,
    #[serde(
        rename = "area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub area: Area,
}

/// Energy and area overhead of a design against the same GPU's baseline, as fractions
/// (`0.05` = 5 % more). 0 for the baseline itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Overhead {
    #[serde(rename = "energy_frac")]
    pub energy: f64,
    #[serde(rename = "dynamic_energy_frac")]
    pub dynamic_energy: f64,
    #[serde(rename = "static_energy_frac")]
    pub static_energy: f64,
    #[serde(rename = "area_frac")]
    pub area: f64,
}

/// Energy totals of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergySummary {
    pub node: Node,
    /// Where the node's technology data come from (`regwatt_tech::Technology::source`:
    /// CACTI 7 ITRS projection, interpolated between two CACTI nodes, or regwatt's FinFET
    /// derivation from published data).
    pub node_source: String,
    #[serde(
        rename = "temperature_k",
        serialize_with = "regwatt_tech::units::report::k"
    )]
    pub temperature: Temperature,
    /// Simulated time `cycles / f_core`.
    #[serde(rename = "time_s", serialize_with = "regwatt_tech::units::report::s")]
    pub time: Time,
    pub components: Vec<ComponentEnergy>,
    #[serde(
        rename = "dynamic_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub dynamic: Energy,
    #[serde(rename = "static_j", serialize_with = "regwatt_tech::units::report::j")]
    pub static_energy: Energy,
    #[serde(rename = "total_j", serialize_with = "regwatt_tech::units::report::j")]
    pub total: Energy,
    /// Average power `total / time`.
    #[serde(
        rename = "average_power_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub average_power: Power,
    pub overhead_vs_baseline: Overhead,
    /// At scope `sm` or `gpu`: which components the totals include, and the sum of each
    /// level. Absent at scope `rf` (the totals are the register file's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeSummary>,
    /// With idle-SM gating (`power.idle_sm_gating`): the busy share the per-SM static energy
    /// was charged for and the static energy that saved. Absent when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_sm_gating: Option<IdleSmGating>,
}

/// What idle-SM gating did to a run (`power.idle_sm_gating`): an SM without a CTA is
/// power-gated whole, so every per-SM component's static energy is charged for the
/// SM-cycles with a CTA resident only:
///
/// ```text
/// E_static,gated(c) = instances(c) × P_leak(c) × busy_frac × T_active      (per-SM c)
/// busy_frac = Σ_SMs busy cycles / (SMs × kernel cycles)   (activity.core.sm_busy_frac)
/// ```
///
/// AccelWattch (Kandiah et al., MICRO 2021; GPGPU-Sim 4.2 `src/accelwattch/
/// gpgpu_sim_wrapper.cc`, `calculate_static_power`: `per_active_core = (num_cores −
/// num_idle_cores) / num_cores` multiplies the static power; `src/gpgpu-sim/
/// power_interface.cc`: `num_idle_core = num_cores − active_sms`, the mean over the sample
/// of the SMs with a CTA, `shader.h` `isactive()`: `m_n_active_cta > 0`). The register
/// file's cells in a power mode are charged their states during the busy cycles only
/// (`PowerStateCycles::busy`). GPU-wide components (L2, interconnect, DRAM) are unchanged.
/// No gating circuit is modelled: a gated SM leaks nothing here.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IdleSmGating {
    /// The busy share used: SM-cycles with a CTA resident over SMs × the cycles of the
    /// energy window (`activity.core.sm_busy_frac` when the window is the kernels' cycles).
    pub sm_busy_frac: f64,
    /// Static energy of the totals without idle-SM gating minus with it (what `static_j`
    /// saved).
    #[serde(
        rename = "static_saved_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub static_saved: Energy,
    /// The same over the launch latencies (`launch_latency.static_j`), when no SM holds a
    /// CTA: every per-SM component's static energy there.
    #[serde(
        rename = "launch_latency_static_saved_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub launch_latency_static_saved: Energy,
}

/// Energy and area of the components of one scope level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LevelTotal {
    #[serde(
        rename = "dynamic_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub dynamic: Energy,
    #[serde(rename = "static_j", serialize_with = "regwatt_tech::units::report::j")]
    pub static_energy: Energy,
    #[serde(rename = "total_j", serialize_with = "regwatt_tech::units::report::j")]
    pub total: Energy,
    #[serde(
        rename = "area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub area: Area,
}

/// What the totals of a run at scope `sm` or `gpu` include ([`combine_levels`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScopeSummary {
    /// The scope of the totals.
    pub scope: Scope,
    /// Levels summed into the totals (energy `dynamic`, `static`, `total`, `average_power`;
    /// area `total`): `rf` up to the scope.
    pub levels_in_total: Vec<Scope>,
    /// Level of every component in the breakdown (`rf`: the design's register file; `sm`:
    /// L1D, shared memory, execution units; `gpu`: L2, interconnect, DRAM).
    pub component_levels: BTreeMap<String, Scope>,
    /// Components in the breakdown whose energy and area the totals leave out.
    pub not_in_total: Vec<String>,
    /// Sums of each level, whether in the totals or not.
    pub rf: LevelTotal,
    pub sm: LevelTotal,
    pub gpu: LevelTotal,
}

/// Area of the design's hardware.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AreaSummary {
    pub node: Node,
    /// Component → area of all instances.
    #[serde(
        rename = "components_mm2",
        serialize_with = "regwatt_tech::units::report::map_mm2"
    )]
    pub components: BTreeMap<String, Area>,
    #[serde(
        rename = "total_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub total: Area,
    #[serde(rename = "overhead_vs_baseline_frac")]
    pub overhead_vs_baseline: f64,
}

/// Why an inventory cannot be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum EnergyError {
    #[error("component `{component}`: no energy for event `{event}`")]
    UnknownEvent { component: String, event: String },
    #[error("events for unknown component `{0}`")]
    UnknownComponent(String),
    #[error("core clock {0} MHz is not a positive number")]
    Clock(f64),
    #[error("technology: {0}")]
    Tech(#[from] regwatt_tech::TechError),
    #[error("logic model, {component}: {source}")]
    Structure {
        component: String,
        #[source]
        source: regwatt_power::crossbar::StructureError,
    },
    #[error("{component}: {message}")]
    NoModel { component: String, message: String },
    #[error("the configuration has no `[beyond_rf]` table (kept only at scope `sm` or `gpu`), so nothing outside the register file can be evaluated")]
    MissingBeyondRf,
    #[error("SRAM model, {component}: {source}")]
    Sram {
        component: String,
        #[source]
        source: regwatt_power::sram::SramError,
    },
}

impl Inventory {
    /// Evaluates a run of `cycles` core cycles with `events` (overheads left at 0; see
    /// [`EnergySummary::with_baseline`]).
    pub fn evaluate(
        &self,
        cycles: u64,
        events: &EventCounts,
    ) -> Result<(EnergySummary, AreaSummary), EnergyError> {
        if !(self.core_clock_mhz.is_finite() && self.core_clock_mhz > 0.0) {
            return Err(EnergyError::Clock(self.core_clock_mhz));
        }
        for name in events.keys() {
            if !self.components.iter().any(|c| &c.name == name) {
                return Err(EnergyError::UnknownComponent(name.clone()));
            }
        }
        let time = Time::from_s(cycles as f64 / (self.core_clock_mhz * 1e6));
        let empty = BTreeMap::new();
        let mut comps = Vec::with_capacity(self.components.len());
        let mut areas = BTreeMap::new();
        for c in &self.components {
            let ev = events.get(&c.name).unwrap_or(&empty);
            let mut dynamic = Energy::ZERO;
            for (e, &n) in ev {
                let per = c
                    .event_energy
                    .get(e)
                    .ok_or_else(|| EnergyError::UnknownEvent {
                        component: c.name.clone(),
                        event: e.clone(),
                    })?;
                dynamic += *per * n as f64;
            }
            let static_energy = Energy::from_j(c.leakage.w() * c.instances as f64 * time.s());
            let area = c.area * c.instances as f64;
            areas.insert(c.name.clone(), area);
            comps.push(ComponentEnergy {
                name: c.name.clone(),
                instances: c.instances,
                events: ev.clone(),
                energy_per_event: c.event_energy.clone(),
                dynamic,
                static_energy,
                total: dynamic + static_energy,
                area,
            });
        }
        let dynamic: Energy = comps.iter().map(|c| c.dynamic).sum();
        let static_energy: Energy = comps.iter().map(|c| c.static_energy).sum();
        let total = dynamic + static_energy;
        let average_power = if time.s() > 0.0 {
            Power::from_w(total.j() / time.s())
        } else {
            Power::ZERO
        };
        let area_total: Area = areas.values().copied().sum();
        let node_source =
            regwatt_tech::Technology::for_node(self.node.nm(), self.temperature)?.source;
        Ok((
            EnergySummary {
                node: self.node,
                node_source,
                temperature: self.temperature,
                time,
                components: comps,
                dynamic,
                static_energy,
                total,
                average_power,
                overhead_vs_baseline: Overhead::default(),
                scope: None,
                idle_sm_gating: None,
            },
            AreaSummary {
                node: self.node,
                components: areas,
                total: area_total,
                overhead_vs_baseline: 0.0,
            },
        ))
    }
}

/// Combines the evaluations of the three levels of a run (same cycles and clock) into one
/// summary at `scope`: the breakdown lists every component of every level (register file
/// first, then `sm`, then `gpu`); the totals sum the levels `rf ..= scope`
/// ([`ScopeSummary`]).
pub fn combine_levels(
    scope: Scope,
    rf: (EnergySummary, AreaSummary),
    sm: (EnergySummary, AreaSummary),
    gpu: (EnergySummary, AreaSummary),
) -> (EnergySummary, AreaSummary) {
    let level_total = |e: &EnergySummary, a: &AreaSummary| LevelTotal {
        dynamic: e.dynamic,
        static_energy: e.static_energy,
        total: e.total,
        area: a.total,
    };
    let parts = [(Scope::Rf, rf), (Scope::Sm, sm), (Scope::Gpu, gpu)];
    let (time, node, temperature) = (
        parts[0].1 .0.time,
        parts[0].1 .0.node,
        parts[0].1 .0.temperature,
    );
    let node_source = parts[0].1 .0.node_source.clone();
    let mut components = Vec::new();
    let mut areas = BTreeMap::new();
    let mut component_levels = BTreeMap::new();
    let mut not_in_total = Vec::new();
    let mut totals = [LevelTotal::default(); 3];
    let (mut dynamic, mut static_energy, mut area_total) = (Energy::ZERO, Energy::ZERO, Area::ZERO);
    for (i, (level, (e, a))) in parts.into_iter().enumerate() {
        totals[i] = level_total(&e, &a);
        let included = level <= scope;
        if included {
            dynamic += e.dynamic;
            static_energy += e.static_energy;
            area_total += a.total;
        }
        for c in e.components {
            component_levels.insert(c.name.clone(), level);
            if !included {
                not_in_total.push(c.name.clone());
            }
            components.push(c);
        }
        areas.extend(a.components);
    }
    let total = dynamic + static_energy;
    let average_power = if time.s() > 0.0 {
        Power::from_w(total.j() / time.s())
    } else {
        Power::ZERO
    };
    (
        EnergySummary {
            node,
            node_source,
            temperature,
            time,
            components,
            dynamic,
            static_energy,
            total,
            average_power,
            overhead_vs_baseline: Overhead::default(),
            scope: Some(ScopeSummary {
                scope,
                levels_in_total: Scope::ALL.into_iter().filter(|l| *l <= scope).collect(),
                component_levels,
                not_in_total,
                rf: totals[0],
                sm: totals[1],
                gpu: totals[2],
            }),
            idle_sm_gating: None,
        },
        AreaSummary {
            node,
            components: areas,
            total: area_total,
            overhead_vs_baseline: 0.0,
        },
    )
}

fn frac(x: f64, base: f64) -> f64 {
    if base > 0.0 {
        (x - base) / base
    } else {
        0.0
    }
}

impl EnergySummary {
    /// Multiplies every component's static energy by `f` (idle-SM gating's busy share of a
    /// per-SM level, [`IdleSmGating`]) and recomputes the totals.
    pub fn scale_static(&mut self, f: f64) {
        for c in &mut self.components {
            c.static_energy = c.static_energy * f;
            c.total = c.dynamic + c.static_energy;
        }
        self.static_energy = self.components.iter().map(|c| c.static_energy).sum();
        self.total = self.dynamic + self.static_energy;
        self.average_power = if self.time.s() > 0.0 {
            Power::from_w(self.total.j() / self.time.s())
        } else {
            Power::ZERO
        };
    }

    /// Sets the overhead against a baseline run of the same workload and GPU at the same node.
    pub fn with_baseline(
        &mut self,
        base: &EnergySummary,
        area: &mut AreaSummary,
        base_area: &AreaSummary,
    ) {
        self.overhead_vs_baseline = Overhead {
            energy: frac(self.total.j(), base.total.j()),
            dynamic_energy: frac(self.dynamic.j(), base.dynamic.j()),
            static_energy: frac(self.static_energy.j(), base.static_energy.j()),
            area: frac(area.total.m2(), base_area.total.m2()),
        };
        area.overhead_vs_baseline = self.overhead_vs_baseline.area;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv() -> Inventory {
        Inventory {
            node: Node::N40,
            temperature: Temperature::from_k(360.0),
            core_clock_mhz: 1000.0,
            components: vec![Component {
                name: "x".into(),
                description: "test".into(),
                instances: 4,
                event_energy: [("read".to_string(), Energy::from_pj(2.0))].into(),
                leakage: Power::from_mw(1.0),
                area: Area::from_um2(10.0),
                source: "hand".into(),
            }],
        }
    }

    #[test]
    fn hand_computed_energy() {
        let ev: EventCounts = [("x".to_string(), [("read".to_string(), 1000u64)].into())].into();
        let (e, a) = inv().evaluate(1_000_000, &ev).expect("evaluates");
        // 1000 reads x 2 pJ = 2 nJ; 4 x 1 mW x 1 ms = 4 uJ
        assert!((e.dynamic.nj() - 2.0).abs() < 1e-9);
        assert!((e.static_energy.j() - 4e-6).abs() < 1e-15);
        assert!((e.time.s() - 1e-3).abs() < 1e-15);
        assert!((a.total.um2() - 40.0).abs() < 1e-9);
        // static energy proportional to cycles
        let (e2, _) = inv().evaluate(2_000_000, &ev).expect("evaluates");
        assert!((e2.static_energy / e.static_energy - 2.0).abs() < 1e-12);
        assert_eq!(e2.dynamic, e.dynamic);
    }

    #[test]
    fn unknown_events_and_components_are_errors() {
        let ev: EventCounts = [("x".to_string(), [("write".to_string(), 1u64)].into())].into();
        assert!(inv().evaluate(1, &ev).is_err());
        let ev: EventCounts = [("y".to_string(), BTreeMap::new())].into();
        assert!(inv().evaluate(1, &ev).is_err());
    }

    #[test]
    fn overhead_against_itself_is_zero() {
        let ev = EventCounts::new();
        let (mut e, mut a) = inv().evaluate(10, &ev).expect("evaluates");
        let (b, ba) = (e.clone(), a.clone());
        e.with_baseline(&b, &mut a, &ba);
        assert_eq!(e.overhead_vs_baseline, Overhead::default());
    }
}
