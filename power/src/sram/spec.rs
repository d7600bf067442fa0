//! SRAM array specification (CACTI's input parameters for a UCA SRAM).

use regwatt_tech::units::Temperature;
use regwatt_tech::DeviceFlavor;
use serde::{Deserialize, Serialize};

use super::SramError;

/// Optimisation objective (CACTI "Optimize ED or ED^2 (ED, ED^2, NONE)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Objective {
    /// Minimise read energy x access time² (CACTI's default).
    Ed2,
    /// Minimise read energy x access time.
    Ed,
    /// Minimise the weighted sum of normalised metrics (CACTI's "design objective" weights).
    None,
}

/// CACTI weights (delay : dynamic energy : leakage : cycle time : area).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Access-time weight.
    pub delay: f64,
    /// Dynamic (read) energy weight.
    pub dynamic: f64,
    /// Leakage weight.
    pub leakage: f64,
    /// Cycle-time weight.
    pub cycle: f64,
    /// Area weight.
    pub area: f64,
}

/// Maximum deviation from the best value of each metric, in percent (CACTI "deviate").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Deviation {
    /// Access time, %.
    pub delay: f64,
    /// Dynamic energy, %.
    pub dynamic: f64,
    /// Leakage, %.
    pub leakage: f64,
    /// Cycle time, %.
    pub cycle: f64,
    /// Area, %.
    pub area: f64,
}

/// Objective + weights + deviation limits, as CACTI takes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Optimisation {
    /// Objective.
    pub objective: Objective,
    /// Weights (used by [`Objective::None`]).
    pub weights: Weights,
    /// Deviation limits (filter before the objective is applied).
    pub max_deviation: Deviation,
}

impl Default for Optimisation {
    /// CACTI's defaults in the reference runs: ED², weights 0:0:0:100:0, deviation
    /// 20:100000:100000:100000:100000.
    fn default() -> Self {
        Optimisation {
            objective: Objective::Ed2,
            weights: Weights {
                delay: 0.0,
                dynamic: 0.0,
                leakage: 0.0,
                cycle: 100.0,
                area: 0.0,
            },
            max_deviation: Deviation {
                delay: 20.0,
                dynamic: 100000.0,
                leakage: 100000.0,
                cycle: 100000.0,
                area: 100000.0,
            },
        }
    }
}

impl Optimisation {
    /// CACTI's "balanced" setting used by the `_bal` reference rows: objective NONE,
    /// weights 100:100:0:0:100, no deviation limits.
    pub fn balanced() -> Self {
        Optimisation {
            objective: Objective::None,
            weights: Weights {
                delay: 100.0,
                dynamic: 100.0,
                leakage: 0.0,
                cycle: 0.0,
                area: 100.0,
            },
            max_deviation: Deviation {
                delay: 100000.0,
                dynamic: 100000.0,
                leakage: 100000.0,
                cycle: 100000.0,
                area: 100000.0,
            },
        }
    }
}

/// CACTI access mode. Only "normal" (tag and data accessed in parallel, way select after
/// the sense amps) is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AccessMode {
    /// CACTI "normal".
    #[default]
    Normal,
}

/// A CACTI array organisation (Ndwl, Ndbl, Nspd, Ndcm, Ndsam1, Ndsam2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Organisation {
    /// Wordline divisions (subarrays along a row).
    pub ndwl: u32,
    /// Bitline divisions (subarrays along a column).
    pub ndbl: u32,
    /// Sets (rows of blocks) per wordline; a power of two, may be < 1.
    pub nspd: f64,
    /// Bitline (column) mux degree.
    pub ndcm: u32,
    /// Sense-amp mux degree, level 1.
    pub ndsam1: u32,
    /// Sense-amp mux degree, level 2.
    pub ndsam2: u32,
}

/// Input of [`super::estimate`]: one UCA SRAM (RAM or cache) of `banks` identical banks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SramSpec {
    /// Capacity of all banks together, bytes.
    pub capacity_bytes: u64,
    /// Block size: RAM row width, or cache line, bytes.
    pub block_bytes: u32,
    /// Output/input bus width, bits (CACTI default 8 x block bytes for our use).
    pub output_width_bits: u32,
    /// Associativity; 1 = RAM mode (no tag array), >1 = cache (data + tag arrays).
    pub associativity: u32,
    /// UCA bank count.
    pub banks: u32,
    /// Read-write ports.
    pub rw_ports: u32,
    /// Exclusive read ports.
    pub rd_ports: u32,
    /// Exclusive write ports.
    pub wr_ports: u32,
    /// Memory-cell device flavour.
    pub cell_flavor: DeviceFlavor,
    /// Peripheral device flavour.
    pub peri_flavor: DeviceFlavor,
    /// Node (nm); informational: the [`regwatt_tech::Technology`] passed to `estimate` decides.
    pub node_nm: f64,
    /// Operating temperature (the technology must be resolved at the same temperature).
    pub temperature: Temperature,
    /// CACTI "Add ECC": 1 check bit per 8 data bits in columns and H-trees.
    pub ecc: bool,
    /// Tag width for caches; `None` = CACTI's "default" tag size.
    pub tag_bits: Option<u32>,
    /// Optimisation objective.
    pub optimisation: Optimisation,
    /// Access mode.
    pub access_mode: AccessMode,
    /// Force this organisation of the data array instead of searching (CACTI "Force cache
    /// config"). It must still pass CACTI's validity rules.
    pub force_organisation: Option<Organisation>,
}

impl SramSpec {
    /// A RAM with CACTI's defaults as in the reference runs (1 RW port, itrs-hp, 360 K, ECC,
    /// ED², output width = 8 x block bytes).
    pub fn ram(capacity_bytes: u64, block_bytes: u32, node_nm: f64) -> SramSpec {
        SramSpec {
            capacity_bytes,
            block_bytes,
            output_width_bits: block_bytes.saturating_mul(8),
            associativity: 1,
            banks: 1,
            rw_ports: 1,
            rd_ports: 0,
            wr_ports: 0,
            cell_flavor: DeviceFlavor::ItrsHp,
            peri_flavor: DeviceFlavor::ItrsHp,
            node_nm,
            temperature: Temperature::from_k(360.0),
            ecc: true,
            tag_bits: None,
            optimisation: Optimisation::default(),
            access_mode: AccessMode::Normal,
            force_organisation: None,
        }
    }

    /// Checks the spec; errors name the field and the rule.
    pub fn validate(&self) -> Result<(), SramError> {
        let bad = |field: &'static str, msg: String| Err(SramError::InvalidSpec { field, msg });
        if self.capacity_bytes == 0 {
            return bad("capacity_bytes", "must be > 0".into());
        }
        if self.block_bytes == 0 {
            return bad("block_bytes", "must be > 0".into());
        }
        if self.banks == 0 || !self.banks.is_power_of_two() {
            return bad(
                "banks",
                format!("{} is not a power of two >= 1", self.banks),
            );
        }
        if self.associativity == 0 || !self.associativity.is_power_of_two() {
            return bad(
                "associativity",
                format!("{} is not a power of two >= 1", self.associativity),
            );
        }
        if self.output_width_bits == 0 {
            return bad("output_width_bits", "must be > 0".into());
        }
        if self.rw_ports + self.rd_ports + self.wr_ports == 0 {
            return bad("ports", "at least one port is needed".into());
        }
        if self.rw_ports + self.rd_ports == 0 {
            return bad(
                "ports",
                "at least one read or read-write port is needed".into(),
            );
        }
        if self.rw_ports + self.wr_ports == 0 {
            return bad(
                "ports",
                "at least one write or read-write port is needed".into(),
            );
        }
        if self.rw_ports + self.rd_ports + self.wr_ports > 32 {
            return bad("ports", "more than 32 ports".into());
        }
        let per_bank = self.capacity_bytes / self.banks as u64;
        if per_bank * self.banks as u64 != self.capacity_bytes {
            return bad(
                "capacity_bytes",
                format!(
                    "{} bytes is not divisible into {} banks",
                    self.capacity_bytes, self.banks
                ),
            );
        }
        let set_bytes = self.block_bytes as u64 * self.associativity as u64;
        if per_bank < set_bytes || !per_bank.is_multiple_of(set_bytes) {
            return bad(
                "capacity_bytes",
                format!(
                    "{} bytes per bank is not a multiple of block x associativity = {} bytes",
                    per_bank, set_bytes
                ),
            );
        }
        if per_bank > (1u64 << 34) {
            return bad("capacity_bytes", "more than 16 GiB per bank".into());
        }
        if !(self.node_nm.is_finite() && self.node_nm > 0.0) {
            return bad("node_nm", format!("{} is not a valid node", self.node_nm));
        }
        let k = self.temperature.k();
        if !(300.0..=400.0).contains(&k) {
            return bad(
                "temperature",
                format!("{k} K is outside CACTI's 300-400 K range"),
            );
        }
        if let Some(t) = self.tag_bits {
            if t == 0 || t > 64 {
                return bad("tag_bits", format!("{t} is outside 1..=64"));
            }
        }
        let w = &self.optimisation.weights;
        let d = &self.optimisation.max_deviation;
        for (n, v) in [
            ("weights", w.delay),
            ("weights", w.dynamic),
            ("weights", w.leakage),
            ("weights", w.cycle),
            ("weights", w.area),
            ("max_deviation", d.delay),
            ("max_deviation", d.dynamic),
            ("max_deviation", d.leakage),
            ("max_deviation", d.cycle),
            ("max_deviation", d.area),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(n, format!("{v} must be a finite number >= 0"));
            }
        }
        if let Some(o) = &self.force_organisation {
            let p2 = |x: u32| x >= 1 && x.is_power_of_two();
            if !(p2(o.ndwl) && p2(o.ndbl) && p2(o.ndcm) && p2(o.ndsam1) && p2(o.ndsam2)) {
                return bad(
                    "force_organisation",
                    "Ndwl, Ndbl, Ndcm, Ndsam1, Ndsam2 must be powers of two".into(),
                );
            }
            let l = o.nspd.log2();
            if !(o.nspd > 0.0 && (l - l.round()).abs() < 1e-9) {
                return bad(
                    "force_organisation",
                    format!("Nspd {} is not a power of two", o.nspd),
                );
            }
        }
        Ok(())
    }
}
