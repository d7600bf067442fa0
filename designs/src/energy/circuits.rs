//! Adapters from `regwatt-power`'s logic estimators to inventory costs: operand buffers
//! (flip-flop arrays, [`regwatt_power::flipflop`]), the bank → collector crossbar
//! ([`regwatt_power::crossbar`], CACTI 7 `crossbar.cc`) and the per-bank arbiter
//! ([`regwatt_power::arbiter`], CACTI 7 `arbiter.cc`). No cost model lives here: each function
//! chooses the estimator's inputs from the design's structure and floorplan and folds the
//! result into a [`LogicCost`] (leakage = subthreshold + gate).
//!
//! All peripheral logic uses the technology's `itrs-hp` devices, as the RF arrays do.

use regwatt_power::arbiter::arbiter as power_arbiter;
use regwatt_power::crossbar::{
    crossbar as power_crossbar, CrossbarSpec, Geometry, LogicTech, StructureError, Topology,
};
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

/// The floorplan a bank → collector crossbar spans: the `banks` banks of one sub-core sit
/// side by side, so each bank's input bus runs along the whole bank row (`banks` × bank
/// width) and each collector's output bus runs along one bank's height (the collectors line
/// the bank row). Dimensions come from the SRAM model's bank (`SramResult::bank_width`,
/// `bank_height`).
pub fn bank_row_geometry(bank: &SramResult, banks: u32) -> Geometry {
    Geometry::Sides {
        input_side: bank.bank_width * f64::from(banks.max(1)),
        output_side: bank.bank_height,
    }
}

/// A `n_in` × `n_out` crossbar of `width_bits`-bit ports over `geometry`
/// ([`regwatt_power::crossbar::crossbar`], multiplexer-tree crosspoints: a register file's
/// bank → collector crossbar has few, very wide ports, where CACTI's wire-sized tristate per
/// crosspoint and bit would put `N·M·width` repeater-sized drivers on the die).
/// `op_energy` = one transfer.
pub fn crossbar(
    t: &LogicTech,
    n_in: u32,
    n_out: u32,
    width_bits: u32,
    geometry: Geometry,
) -> Result<LogicCost, EnergyError> {
    let r = power_crossbar(
        t,
        &CrossbarSpec {
            inputs: n_in,
            outputs: n_out,
            width_bits,
            geometry,
            topology: Topology::MuxTree,
        },
    )
    .map_err(structure("crossbar"))?;
    Ok(LogicCost {
        op_energy: r.energy_per_transfer,
        op2_energy: Energy::ZERO,
        leakage: r.leakage + r.gate_leakage,
        area: r.area,
        wire: r.width,
    })
}

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
    use regwatt_power::crossbar::repeated_wire;
    use regwatt_tech::units::Temperature;

    fn lt(nm: f64) -> LogicTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).expect("node");
        logic_tech(&t).expect("logic")
    }

    #[test]
    fn crossbar_hand_value_follows_the_floorplan() {
        // A 1 x 1, 1-bit crossbar over a 1 mm x 1 mm floorplan: both wires are 1 mm repeated
        // semi-global wires and a 1-input mux tree has no mux level, so a transfer costs
        // exactly 2 x E_wire(1 mm).
        let t = lt(40.0);
        let side = Length::from_mm(1.0);
        let g = Geometry::Sides {
            input_side: side,
            output_side: side,
        };
        let x = crossbar(&t, 1, 1, 1, g).expect("xbar");
        let w = repeated_wire(&t, side).energy.j();
        assert!(
            (x.op_energy.j() - 2.0 * w).abs() < 1e-9 * w,
            "{} vs {}",
            x.op_energy.j(),
            w
        );
        // area: the 1 x 1 pitch matrix plus the two wires' repeaters, not the 1 mm² they span
        let a = t.wire.pitch.um().powi(2) + 2.0 * repeated_wire(&t, side).area.um2();
        assert!((x.area.um2() - a).abs() < 1e-9 * a);
        assert!((x.wire.mm() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn costs_scale_with_size() {
        let t = lt(40.0);
        let a = operand_buffers(&t, 3, 1024).expect("ff");
        let b = operand_buffers(&t, 6, 1024).expect("ff");
        assert!(a.op_energy.j() > 0.0 && a.op2_energy.j() > 0.0);
        assert!((b.leakage / a.leakage - 2.0).abs() < 1e-9);
        assert!((b.area / a.area - 2.0).abs() < 1e-9);
        let small = Geometry::Pitch;
        let x2 = crossbar(&t, 2, 2, 128, small).expect("xbar");
        let x4 = crossbar(&t, 4, 4, 128, small).expect("xbar");
        assert!(x4.op_energy > x2.op_energy && x4.area > x2.area && x4.leakage > x2.leakage);
        let wide = crossbar(&t, 2, 2, 1024, small).expect("xbar");
        assert!(wide.op_energy > x2.op_energy);
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
        let x40 = crossbar(&t40, 2, 2, 1024, Geometry::Pitch).expect("xbar");
        let x12 = crossbar(&t12, 2, 2, 1024, Geometry::Pitch).expect("xbar");
        assert!(x12.op_energy < x40.op_energy && x12.area < x40.area);
        let a40 = arbiter(&t40, 4, Length::ZERO).expect("arb");
        let a12 = arbiter(&t12, 4, Length::ZERO).expect("arb");
        assert!(a12.op_energy < a40.op_energy);
    }

    #[test]
    fn bad_sizes_are_errors() {
        let t = lt(40.0);
        assert!(operand_buffers(&t, 0, 1024).is_err());
        assert!(crossbar(&t, 0, 2, 8, Geometry::Pitch).is_err());
        assert!(arbiter(&t, 0, Length::ZERO).is_err());
    }
}
