//! Adapters from `regwatt-power`'s logic estimators to inventory costs: operand buffers
//! (flip-flop arrays, [`regwatt_power::flipflop`]), the lane-sliced operand and write-back
//! buses ([`regwatt_power::bus`]) placed by [`ColumnPlacement`], and the per-bank arbiter
//! ([`regwatt_power::arbiter`], CACTI 7 `arbiter.cc`). No cost model lives here: each function
//! chooses the estimator's inputs from the design's structure and floorplan and folds the
//! result into a [`LogicCost`] (leakage = subthreshold + gate).
//!
//! All peripheral logic uses the technology's `itrs-hp` devices, as the RF arrays do.

use regwatt_power::arbiter::arbiter as power_arbiter;
use regwatt_power::bus::{bus, BusResult, BusSpec, Tap, RANDOM_DATA_ACTIVITY};
use regwatt_power::crossbar::{LogicTech, StructureError};
use regwatt_power::flipflop::{flipflop_array, FlipFlopSpec};
use regwatt_power::sram::SramResult;
use regwatt_tech::units::{Area, Energy, Length, Power};
use regwatt_tech::{DeviceFlavor, Technology};
use serde::Serialize;

use super::EnergyError;

/// Per-operation energies, leakage and area of one instance of a structure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogicCost {
    /// Energy of the structure's main operation (see the constructor).
    pub op_energy: Energy,
    /// Energy of the secondary operation (reads of a flip-flop array; 0 where none).
    pub op2_energy: Energy,
    /// Subthreshold + gate leakage power.
    pub leakage: Power,
    /// Layout area.
    pub area: Area,
    /// Length of the wire the structure drives (crossbar: its input-wire length, which an
    /// arbiter's grant line follows; 0 where none).
    pub wire: Length,
}

fn structure(component: &str) -> impl FnOnce(StructureError) -> EnergyError + '_ {
    move |source| EnergyError::Structure {
        component: component.to_string(),
        source,
    }
}

/// The peripheral-logic view of a technology (`itrs-hp`).
pub fn logic_tech(tech: &Technology) -> Result<LogicTech, EnergyError> {
    LogicTech::new(tech, DeviceFlavor::ItrsHp).map_err(structure("logic"))
}

/// Operand buffers of one collector unit: `entries` operands of `width_bits` bits in a
/// flip-flop array ([`regwatt_power::flipflop::flipflop_array`]). Each read-out bit drives
/// one minimum N+P gate pair (the execution lane's input latch).
///
/// `op_energy` = write of one operand, `op2_energy` = read of one operand.
pub fn operand_buffers(
    t: &LogicTech,
    entries: u32,
    width_bits: u32,
) -> Result<LogicCost, EnergyError> {
    let r = flipflop_array(
        t,
        &FlipFlopSpec {
            entries,
            width_bits,
            output_load: t.cg(t.wn() + t.wp()),
        },
    )
    .map_err(structure("operand_collectors"))?;
    Ok(LogicCost {
        op_energy: r.write_energy,
        op2_energy: r.read_energy,
        leakage: r.leakage + r.gate_leakage,
        area: r.area,
        wire: Length::ZERO,
    })
}

/// Where the parts of one lane-slice column of a sub-core sit, from the models'
/// own dimensions. Gebhart et al., ISCA 2011, Fig. 2 and §2 (Jeon & Annavaram 2014 §2.1): a SIMT cluster's
/// lanes have their own slice of every register bank, their operand buffering and their
/// execution lanes in one column. Here the `banks` bank slices are stacked above the
/// collectors' operand slices, which sit above the lanes:
///
/// * column width: one bank slice's width ([`SramResult::bank_width`]);
/// * bank stack: `banks` × [`SramResult::bank_height`];
/// * collector stack: the `collectors` collector units' flip-flops of this slice
///   (`collector area / slices` each) spread over the column width;
/// * the sub-core's `slices` columns side by side (its width: the select lines' length).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ColumnPlacement {
    /// Width of a column.
    pub width: Length,
    /// Height of one bank slice.
    pub bank_height: Length,
    /// Height of the collector stack.
    pub collector_height: Length,
    /// Bank slices stacked in a column.
    pub banks: u32,
    /// Columns of the sub-core.
    pub slices: u32,
}

impl ColumnPlacement {
    /// From the bank slice's SRAM result and one collector unit's area.
    pub fn new(
        bank: &SramResult,
        banks: u32,
        collector_area: Area,
        collectors: u32,
        slices: u32,
    ) -> ColumnPlacement {
        let width = bank.bank_width;
        let per_column = collector_area * (f64::from(collectors) / f64::from(slices.max(1)));
        ColumnPlacement {
            width,
            bank_height: bank.bank_height,
            collector_height: Length::from_m(per_column.m2() / width.m().max(1e-12)),
            banks,
            slices,
        }
    }

    /// Mean length of a bank's operand line: from bank `b`'s outputs (bank 0 next to the
    /// collectors) over the banks between and the whole collector stack,
    /// `b · h_bank + h_collectors`, averaged over the banks (registers are spread evenly
    /// over the banks).
    pub fn operand_line(&self) -> Length {
        self.bank_height * (f64::from(self.banks.saturating_sub(1)) / 2.0) + self.collector_height
    }

    /// Length of the write-back line: from the lanes below the collectors up to the
    /// farthest bank's write drivers, `h_collectors + (banks − 1) · h_bank` (one line taps
    /// every bank).
    pub fn writeback_line(&self) -> Length {
        self.collector_height + self.bank_height * f64::from(self.banks.saturating_sub(1))
    }

    /// Width of the sub-core (its columns side by side): a collector's select lines and an
    /// arbiter's grant run across it.
    pub fn sub_core_width(&self) -> Length {
        self.width * f64::from(self.slices)
    }
}

/// One bus column through [`regwatt_power::bus`], folded into a [`LogicCost`] whose `wire`
/// is `wire` (the line a driver of the component follows).
fn column_bus(
    t: &LogicTech,
    component: &str,
    spec: &BusSpec,
    wire: Length,
) -> Result<(LogicCost, BusResult), EnergyError> {
    let r = bus(t, spec).map_err(structure(component))?;
    Ok((
        LogicCost {
            op_energy: r.energy_per_transfer,
            op2_energy: Energy::ZERO,
            leakage: r.leakage + r.gate_leakage,
            area: r.area,
            wire,
        },
        r,
    ))
}

/// The operand bus of one column: one line per bank and bit, a `banks`:1 multiplexer per bit
/// in each collector ([`regwatt_power::bus`]). `op_energy` = one transfer of `bits` bits.
pub fn operand_bus(
    t: &LogicTech,
    bits: u32,
    place: &ColumnPlacement,
    collectors: u32,
) -> Result<(LogicCost, BusResult), EnergyError> {
    let spec = BusSpec {
        bits,
        lines: place.banks,
        receivers: collectors,
        tap: Tap::Mux,
        line_length: place.operand_line(),
        select_length: place.sub_core_width(),
        over_array_width: place.width,
        track_layers: BUS_TRACK_LAYERS,
        activity: RANDOM_DATA_ACTIVITY,
    };
    column_bus(t, "operand_bus", &spec, place.sub_core_width())
}

/// The write-back bus of one column: one line per bit from the lanes to every bank's write
/// drivers ([`regwatt_power::bus`], [`Tap::Driver`]). `op_energy` = one write of `bits` bits.
pub fn writeback_bus(
    t: &LogicTech,
    bits: u32,
    place: &ColumnPlacement,
) -> Result<(LogicCost, BusResult), EnergyError> {
    let spec = BusSpec {
        bits,
        lines: 1,
        receivers: place.banks,
        tap: Tap::Driver,
        line_length: place.writeback_line(),
        select_length: Length::ZERO,
        over_array_width: place.width,
        track_layers: BUS_TRACK_LAYERS,
        activity: RANDOM_DATA_ACTIVITY,
    };
    column_bus(t, "writeback_bus", &spec, Length::ZERO)
}

/// Metal layers the vertical bus lines of a column may use over the arrays: one (the
/// semi-global layer running along the bitlines; the layer across carries the wordline
/// straps and select lines). A choice: every further layer only lowers the routing area
/// (`regwatt_power::bus`), and the presets' buses fit over their arrays on one.
pub const BUS_TRACK_LAYERS: u32 = 1;

/// A matrix arbiter among `requesters` whose grant drives a control line of `grant_wire`
/// (the crossbar input wire it enables; [`regwatt_power::arbiter::arbiter`]).
/// `op_energy` = one arbitration.
pub fn arbiter(
    t: &LogicTech,
    requesters: u32,
    grant_wire: Length,
) -> Result<LogicCost, EnergyError> {
    let r = power_arbiter(t, requesters, grant_wire).map_err(structure("arbiter"))?;
    Ok(LogicCost {
        op_energy: r.energy_per_arbitration,
        op2_energy: Energy::ZERO,
        leakage: r.leakage + r.gate_leakage,
        area: r.area,
        wire: Length::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    fn lt(nm: f64) -> LogicTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).expect("node");
        logic_tech(&t).expect("logic")
    }

    fn place(banks: u32) -> ColumnPlacement {
        ColumnPlacement {
            width: Length::from_um(60.0),
            bank_height: Length::from_um(100.0),
            collector_height: Length::from_um(40.0),
            banks,
            slices: 8,
        }
    }

    /// The placement's lengths by hand: 4 banks of 100 um over 40 um of collectors; the
    /// banks' operand lines are 40, 140, 240 and 340 um long (mean 190 um); the write-back
    /// line reaches the farthest bank, 40 + 300 = 340 um; 8 columns of 60 um.
    #[test]
    fn placement_lengths_by_hand() {
        let p = place(4);
        assert!((p.operand_line().um() - 190.0).abs() < 1e-9);
        assert!((p.writeback_line().um() - 340.0).abs() < 1e-9);
        assert!((p.sub_core_width().um() - 480.0).abs() < 1e-9);
        let one = place(1);
        assert!((one.operand_line().um() - 40.0).abs() < 1e-9);
    }

    #[test]
    fn costs_scale_with_size() {
        let t = lt(40.0);
        let a = operand_buffers(&t, 3, 1024).expect("ff");
        let b = operand_buffers(&t, 6, 1024).expect("ff");
        assert!(a.op_energy.j() > 0.0 && a.op2_energy.j() > 0.0);
        assert!((b.leakage / a.leakage - 2.0).abs() < 1e-9);
        assert!((b.area / a.area - 2.0).abs() < 1e-9);
        let (x2, _) = operand_bus(&t, 128, &place(2), 2).expect("bus");
        let (x4, _) = operand_bus(&t, 128, &place(4), 16).expect("bus");
        assert!(x4.op_energy > x2.op_energy && x4.area > x2.area && x4.leakage > x2.leakage);
        let (w2, _) = writeback_bus(&t, 128, &place(2)).expect("bus");
        let (w4, _) = writeback_bus(&t, 128, &place(4)).expect("bus");
        assert!(w4.op_energy > w2.op_energy);
        let a2 = arbiter(&t, 2, Length::ZERO).expect("arb");
        let a16 = arbiter(&t, 16, Length::ZERO).expect("arb");
        assert!(a16.op_energy > a2.op_energy && a16.leakage > a2.leakage);
        // a longer grant line costs more
        let a2w = arbiter(&t, 2, Length::from_mm(1.0)).expect("arb");
        assert!(a2w.op_energy > a2.op_energy);
    }

    #[test]
    fn smaller_node_costs_less_per_operation() {
        let (t40, t12) = (lt(40.0), lt(12.0));
        let l40 = operand_buffers(&t40, 3, 1024).expect("ff");
        let l12 = operand_buffers(&t12, 3, 1024).expect("ff");
        assert!(l12.op_energy < l40.op_energy && l12.op2_energy < l40.op2_energy);
        assert!(l12.area < l40.area && l12.leakage < l40.leakage);
        let (x40, _) = operand_bus(&t40, 128, &place(2), 2).expect("bus");
        let (x12, _) = operand_bus(&t12, 128, &place(2), 2).expect("bus");
        assert!(x12.op_energy < x40.op_energy);
        let a40 = arbiter(&t40, 4, Length::ZERO).expect("arb");
        let a12 = arbiter(&t12, 4, Length::ZERO).expect("arb");
        assert!(a12.op_energy < a40.op_energy);
    }

    #[test]
    fn bad_sizes_are_errors() {
        let t = lt(40.0);
        assert!(operand_buffers(&t, 0, 1024).is_err());
        assert!(operand_bus(&t, 0, &place(2), 2).is_err());
        assert!(operand_bus(&t, 128, &place(2), 0).is_err());
        assert!(arbiter(&t, 0, Length::ZERO).is_err());
    }
}
