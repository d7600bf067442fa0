//! Typed results of the SRAM model. Breakdown structs add (`+`) and have a `total()`.

use regwatt_tech::units::{Area, Capacitance, Energy, Length, Power, Time};
use serde::{Deserialize, Serialize};
use std::ops::Add;

use super::spec::Organisation;

/// Dynamic energy per access, by component (CACTI's decomposition).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct EnergyBreakdown {
    /// Row predecoders and decoders, bit-line / sense-amp mux decoders.
    pub decoder: Energy,
    /// Wordline drivers and wordlines.
    pub wordline: Energy,
    /// Bitlines (read swing or write full swing) and bit-line precharge/equalise drivers.
    pub bitline: Energy,
    /// Sense amplifiers.
    pub senseamp: Energy,
    /// Sub-array output drivers, sense-amp muxes and wires inside the mat.
    pub mat_output: Energy,
    /// Address / data H-trees inside the bank and between banks.
    pub htree: Energy,
    /// Tag comparators (caches).
    pub comparator: Energy,
}

impl EnergyBreakdown {
    /// Sum of all components.
    pub fn total(&self) -> Energy {
        self.decoder
            + self.wordline
            + self.bitline
            + self.senseamp
            + self.mat_output
            + self.htree
            + self.comparator
    }
}

impl Add for EnergyBreakdown {
    type Output = EnergyBreakdown;
    fn add(self, o: Self) -> Self {
        EnergyBreakdown {
            decoder: self.decoder + o.decoder,
            wordline: self.wordline + o.wordline,
            bitline: self.bitline + o.bitline,
            senseamp: self.senseamp + o.senseamp,
            mat_output: self.mat_output + o.mat_output,
            htree: self.htree + o.htree,
            comparator: self.comparator + o.comparator,
        }
    }
}

/// Leakage power of one bank, by component.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LeakageBreakdown {
    /// Memory cells (cross-coupled inverters and port access transistors).
    pub cells: Power,
    /// Row decoders, wordline drivers, predecoders, mux decoders.
    pub decoder: Power,
    /// Sense amps, precharge drivers, sub-array output drivers, comparators.
    pub column_periphery: Power,
    /// H-tree repeaters.
    pub htree: Power,
}

impl LeakageBreakdown {
    /// Sum of all components.
    pub fn total(&self) -> Power {
        self.cells + self.decoder + self.column_periphery + self.htree
    }
}

impl Add for LeakageBreakdown {
    type Output = LeakageBreakdown;
    fn add(self, o: Self) -> Self {
        LeakageBreakdown {
            cells: self.cells + o.cells,
            decoder: self.decoder + o.decoder,
            column_periphery: self.column_periphery + o.column_periphery,
            htree: self.htree + o.htree,
        }
    }
}

/// Access-time components (critical path of a read).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct DelayBreakdown {
    /// Address H-tree to the mats.
    pub htree_in: Time,
    /// Predecoder + row decoder + wordline.
    pub decoder_wordline: Time,
    /// Bitline development.
    pub bitline: Time,
    /// Sense amplifier.
    pub senseamp: Time,
    /// Sub-array output drivers and data H-tree out of the bank.
    pub output: Time,
    /// Tag compare + way select (caches).
    pub compare: Time,
}

impl DelayBreakdown {
    /// Sum of all components.
    pub fn total(&self) -> Time {
        self.htree_in
            + self.decoder_wordline
            + self.bitline
            + self.senseamp
            + self.output
            + self.compare
    }
}

impl Add for DelayBreakdown {
    type Output = DelayBreakdown;
    fn add(self, o: Self) -> Self {
        DelayBreakdown {
            htree_in: self.htree_in + o.htree_in,
            decoder_wordline: self.decoder_wordline + o.decoder_wordline,
            bitline: self.bitline + o.bitline,
            senseamp: self.senseamp + o.senseamp,
            output: self.output + o.output,
            compare: self.compare + o.compare,
        }
    }
}

/// Area components of all banks.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AreaBreakdown {
    /// Memory cells (incl. ECC columns and wordline stitching).
    pub cells: Area,
    /// Row decoders / wordline drivers / predecode wiring.
    pub decoder: Area,
    /// Precharge, column mux, sense amps, write drivers, sub-array output drivers.
    pub column_periphery: Area,
    /// H-tree wiring and bank-level routing.
    pub htree: Area,
}

impl AreaBreakdown {
    /// Sum of all components.
    pub fn total(&self) -> Area {
        self.cells + self.decoder + self.column_periphery + self.htree
    }
}

impl Add for AreaBreakdown {
    type Output = AreaBreakdown;
    fn add(self, o: Self) -> Self {
        AreaBreakdown {
            cells: self.cells + o.cells,
            decoder: self.decoder + o.decoder,
            column_periphery: self.column_periphery + o.column_periphery,
            htree: self.htree + o.htree,
        }
    }
}

/// Circuit-level figures of the chosen organisation, for models built on top of the array
/// (power gating, drowsy retention).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CircuitDetails {
    /// n-transistor width of one final wordline driver (CACTI decoder.cc driver chain).
    pub wordline_driver_nmos_width: Length,
    /// p-transistor width of one final wordline driver.
    pub wordline_driver_pmos_width: Length,
    /// Capacitance of one bitline (access-transistor drains + local wire of all rows).
    pub bitline_capacitance: Capacitance,
    /// Cell subthreshold leakage of one bank through the cross-coupled inverters
    /// (calibrated; with `cell_leakage_access` it sums to `LeakageBreakdown::cells`).
    pub cell_leakage_inverters: Power,
    /// Cell subthreshold leakage of one bank through the access (port) transistors.
    pub cell_leakage_access: Power,
}

/// Sub-array geometry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SubarrayGeometry {
    /// Rows.
    pub rows: u32,
    /// Columns without ECC.
    pub cols: u32,
    /// Columns including ECC check columns.
    pub cols_with_ecc: u32,
    /// Height.
    pub height: Length,
    /// Width.
    pub width: Length,
}

/// Result for one array (data or tag) of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArrayResult {
    /// Chosen organisation.
    pub organisation: Organisation,
    /// Sub-array geometry.
    pub subarray: SubarrayGeometry,
    /// Sub-arrays per bank.
    pub num_subarrays: u32,
    /// Mats per bank.
    pub num_mats: u32,
    /// Mats activated per access (CACTI `num_act_mats_hor_dir`).
    pub active_mats: u32,
    /// Driver widths, bitline capacitance, cell-leakage split.
    pub circuit: CircuitDetails,
    /// Access time.
    pub access_time: Time,
    /// Cycle time.
    pub cycle_time: Time,
    /// Access-time components.
    pub delay: DelayBreakdown,
    /// Read energy per access.
    pub read: EnergyBreakdown,
    /// Write energy per access.
    pub write: EnergyBreakdown,
    /// Subthreshold leakage of one bank.
    pub leakage: LeakageBreakdown,
    /// Gate leakage of one bank.
    pub gate_leakage: LeakageBreakdown,
    /// Area of all banks.
    pub area: AreaBreakdown,
    /// Height of one bank.
    pub bank_height: Length,
    /// Width of one bank.
    pub bank_width: Length,
}

/// Result of [`super::estimate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SramResult {
    /// Access time (caches: max of data path and tag path + compare).
    pub access_time: Time,
    /// Cycle time.
    pub cycle_time: Time,
    /// Read dynamic energy per access (data + tag).
    pub read_energy: Energy,
    /// Write dynamic energy per access (data + tag).
    pub write_energy: Energy,
    /// Subthreshold leakage per bank (data + tag).
    pub leakage_per_bank: Power,
    /// Gate leakage per bank (data + tag).
    pub gate_leakage_per_bank: Power,
    /// Area of all banks (data + tag).
    pub area: Area,
    /// Height of one bank (data array).
    pub bank_height: Length,
    /// Width of one bank (data array; caches: data + tag side by side).
    pub bank_width: Length,
    /// Data array organisation.
    pub organisation: Organisation,
    /// Data sub-array geometry.
    pub subarray: SubarrayGeometry,
    /// Data sub-arrays per bank.
    pub num_subarrays: u32,
    /// Data mats per bank.
    pub num_mats: u32,
    /// Data array details.
    pub data: ArrayResult,
    /// Tag array details (caches).
    pub tag: Option<ArrayResult>,
    /// Tag width used (caches).
    pub tag_bits: Option<u32>,
}

impl SramResult {
    /// Total leakage (subthreshold + gate) per bank.
    pub fn total_leakage_per_bank(&self) -> Power {
        self.leakage_per_bank + self.gate_leakage_per_bank
    }
}
