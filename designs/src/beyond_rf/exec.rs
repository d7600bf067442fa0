//! Execution-unit energy per thread operation, per unit class.
//!
//! A published energy per operation at a reference node is scaled to the evaluated node by the
//! ratio of the switching energy `C·V²` of a minimum inverter of the two technology files
//! ([`switching_energy`]): dynamic energy is `α·C·V²` summed over the switched nodes, and a
//! datapath keeps its gate count and activity across nodes, so its energy follows `C·V²` of
//! its gates. McPAT scales its functional-unit energies the same way, with `C ∝` feature size
//! (`logic.cc`, `FunctionalUnit`: `… · Vdd² · (F / 90 nm)`); here `C` comes from the
//! technology files themselves, so 40, 22 and 12 nm all follow their own device parameters.
//!
//! | unit class (sim `UnitClass`) | operation charged per thread | energy at the reference node | source |
//! |---|---|---|---|
//! | `Sp` | FP32 fused multiply-add = FP32 multiply + FP32 add | 3.7 + 0.9 = 4.6 pJ at 45 nm | Horowitz, "Computing's energy problem", ISSCC 2014, Fig. 1.1.9 (FP32 add 0.9 pJ, mult 3.7 pJ, 45 nm, 0.9 V) |
//! | `Int` | 32-bit integer add | 0.1 pJ at 45 nm | Horowitz 2014, same figure |
//! | `Sfu`, `IntDiv`, `FpDiv` | one SFU operation = FP32 FMA × McPAT's SFU / FPU energy ratio 84.04 / 40.97 = 2.051 | 9.44 pJ at 45 nm | McPAT as built in AccelWattch (accel-sim/gpgpu-sim_distribution @ 667834cf, `src/accelwattch/logic.cc`, `FunctionalUnit`), per-op energies at 40 nm: FPU 40.97 pJ, SFU ("MUL") 84.04 pJ |
//! | `Dp`, `DpDiv` | 64-bit floating-point operation | 50 pJ at 40 nm | Dally, SC09 keynote, slide 14: "64b FPU 0.1mm2 50pJ/op 1.5GHz" (40 nm); consistent with Keckler et al., IEEE Micro 31(5) 2011, p. 9: moving its 256 operand bits 10 mm (310 pJ, random data) is "six times greater" than the 40 nm DFMA (≈ 52 pJ) |
//! | `Tensor` | — | no model: a run with tensor instructions is an error | (no PTX `mma` is executed by the simulator yet) |
//! | `Mem`, `Branch`, `Barrier`, `Exit`, `Nop` | nothing here: loads and stores are charged as L1D / shared / L2 / DRAM events, and branch, barrier and exit logic has no per-op source | — | — |
//!
//! Approximations (all from the counts the timing model keeps, which are per unit class, not
//! per opcode):
//! * Thread operations of a class = warp instructions of the class × the run's mean active
//!   lanes per warp instruction (`thread_instructions / warp_instructions`); the timing
//!   model does not count active lanes per class.
//! * Every `Sp` operation is charged as an FMA: NVIDIA's FP32 pipelines execute FADD and FMUL
//!   on the FMA datapath, so an FMA is the unit's operation (an upper bound for FADD/FMUL).
//! * Every `Int` operation is charged as a 32-bit add (moves, logic, compares and shifts are
//!   no costlier; integer multiplies, 3.1 pJ at 45 nm in Horowitz 2014, are under-counted).
//! * Divisions run as one SFU (`IntDiv`, `FpDiv`) or DP (`DpDiv`) operation, as the timing
//!   model times them; their SASS expansions (reciprocal + Newton steps) are not counted.
//! * The SFU has no published per-op energy we could verify; its McPAT ratio to the FPU is
//!   the only sourced relation (McPAT models the SFU as its `MUL` unit).

use std::collections::BTreeMap;

use regwatt_tech::units::{Energy, Temperature};
use regwatt_tech::Technology;

use crate::energy::circuits;
use crate::energy::EnergyError;

/// Horowitz 2014 (ISSCC, Fig. 1.1.9, 45 nm): 32-bit integer add.
pub const INT_ADD_32_PJ_45NM: f64 = 0.1;
/// Horowitz 2014: FP32 add.
pub const FP32_ADD_PJ_45NM: f64 = 0.9;
/// Horowitz 2014: FP32 multiply.
pub const FP32_MUL_PJ_45NM: f64 = 3.7;
/// McPAT per-op energies at 40 nm (AccelWattch build, `logic.cc`): SFU ("MUL" unit) and FPU.
pub const MCPAT_SFU_PJ_40NM: f64 = 84.04;
/// See [`MCPAT_SFU_PJ_40NM`].
pub const MCPAT_FPU_PJ_40NM: f64 = 40.97;
/// Dally, SC09 keynote slide 14 ("64b FPU ... 50pJ/op"): a 64-bit FP operation at 40 nm
/// (Keckler et al. 2011 put a 40 nm DFMA at one sixth of 310 pJ, ≈ 52 pJ).
pub const FP64_OP_PJ_40NM: f64 = 50.0;

/// One class of execution-unit operation: the event name, the unit classes it covers and its
/// energy at a reference node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpClass {
    /// Event name in the inventory (`sp_op`, ...).
    pub event: &'static str,
    /// Timing-model unit classes (`UnitClass` debug names) charged as this operation.
    pub classes: &'static [&'static str],
    /// Energy per thread operation at `reference_nm`, pJ.
    pub reference_pj: f64,
    /// Node of the published figure.
    pub reference_nm: f64,
}

/// The operations charged, with their published energies (see the module table).
pub const OP_CLASSES: [OpClass; 4] = [
    OpClass {
        event: "sp_op",
        classes: &["Sp"],
        reference_pj: FP32_MUL_PJ_45NM + FP32_ADD_PJ_45NM,
        reference_nm: 45.0,
    },
    OpClass {
        event: "int_op",
        classes: &["Int"],
        reference_pj: INT_ADD_32_PJ_45NM,
        reference_nm: 45.0,
    },
    OpClass {
        event: "sfu_op",
        classes: &["Sfu", "IntDiv", "FpDiv"],
        reference_pj: (FP32_MUL_PJ_45NM + FP32_ADD_PJ_45NM) * MCPAT_SFU_PJ_40NM / MCPAT_FPU_PJ_40NM,
        reference_nm: 45.0,
    },
    OpClass {
        event: "dp_op",
        classes: &["Dp", "DpDiv"],
        reference_pj: FP64_OP_PJ_40NM,
        reference_nm: 40.0,
    },
];

/// Unit classes that cost nothing here (their work is charged elsewhere or has no source).
pub const UNCHARGED_CLASSES: [&str; 5] = ["Mem", "Branch", "Barrier", "Exit", "Nop"];

/// Switching energy `C·V²` of a minimum inverter of the technology's peripheral logic
/// (`itrs-hp`) as CACTI draws it: the gate capacitance of its N and P devices,
/// `C_g(W_n + W_p)` with `W_n = 1.5 F` and `W_p = n/p drive ratio × 1.5 F` drawn (CACTI 7
/// `gate_C`: `(C_g,ideal + C_overlap + 3 C_fringe)·W`), times `V_dd²`.
///
/// The drawn widths, not whole fins, even at the FinFET node (regwatt sizes the circuit
/// models — SRAM periphery, flip-flops, buses — in whole fins): this is a scaling proxy for a
/// synthesized datapath's switched capacitance, checked against the published 14 nm anchor.
/// With drawn widths the 12 nm 64-bit FP operation comes out at 6.8 pJ against Dally et al.'s
/// 5 pJ DP multiply at 14 nm (CACM 2020); with a one-fin inverter (4.7× the capacitance) it
/// would be 32 pJ, 6.4× above it (`tests::mcpat_and_literature_comparison`).
pub fn switching_energy(tech: &Technology) -> Result<Energy, EnergyError> {
    let t = circuits::logic_tech(tech)?;
    let drawn_n = t.layout.f * 1.5;
    let c = t.cg(drawn_n * (1.0 + t.dev.n_to_p_drive_ratio));
    let v = t.dev.vdd.v();
    Ok(Energy::from_j(c.f() * v * v))
}

/// Energy per thread operation of each [`OP_CLASSES`] event at `tech`'s node: the reference
/// energy × `switching_energy(tech) / switching_energy(reference node)`. The reference nodes'
/// technologies are resolved at `tech`'s temperature (capacitance and supply do not depend on
/// it).
pub fn op_energies(
    tech: &Technology,
    temperature: Temperature,
) -> Result<BTreeMap<String, Energy>, EnergyError> {
    let here = switching_energy(tech)?;
    let mut out = BTreeMap::new();
    for op in OP_CLASSES {
        let reference = Technology::for_node(op.reference_nm, temperature)?;
        let ratio = here / switching_energy(&reference)?;
        out.insert(
            op.event.to_string(),
            Energy::from_pj(op.reference_pj * ratio),
        );
    }
    Ok(out)
}

/// Thread operations per [`OP_CLASSES`] event from the warp instructions per unit class and
/// the run's mean active lanes (`thread_instructions / warp_instructions`), rounded to the
/// nearest integer. A class the table does not know, or `Tensor` instructions (no model), is
/// an error naming it.
pub fn op_counts(
    by_class: &BTreeMap<String, u64>,
    warp_instructions: u64,
    thread_instructions: u64,
) -> Result<BTreeMap<String, u64>, EnergyError> {
    let lanes = if warp_instructions > 0 {
        thread_instructions as f64 / warp_instructions as f64
    } else {
        0.0
    };
    let mut warps: BTreeMap<&str, u64> = OP_CLASSES.iter().map(|o| (o.event, 0)).collect();
    for (class, &n) in by_class {
        if UNCHARGED_CLASSES.contains(&class.as_str()) {
            continue;
        }
        let Some(op) = OP_CLASSES
            .iter()
            .find(|o| o.classes.contains(&class.as_str()))
        else {
            if n == 0 {
                continue;
            }
            return Err(EnergyError::NoModel {
                component: "exec_units".into(),
                message: format!(
                    "{n} `{class}` warp instructions: no execution energy model for this unit class"
                ),
            });
        };
        *warps.entry(op.event).or_insert(0) += n;
    }
    Ok(warps
        .into_iter()
        .map(|(e, w)| (e.to_string(), (w as f64 * lanes).round() as u64))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tech(nm: f64) -> Technology {
        Technology::for_node(nm, Temperature::from_k(360.0)).expect("node")
    }

    /// By hand from the technology files (itrs-hp): gate capacitance per µm
    /// `1.2·c_g_ideal + 3·c_fringe` (C_overlap = 0.2·C_g,ideal), minimum inverter width
    /// `1.5 F·(1 + n/p ratio)`.
    /// * 45 nm (`tech/nodes/45nm.toml`): 1.2 × 6.78e-16 + 3 × 5e-17 = 9.636e-16 F/µm;
    ///   W = 0.0675 × 3.41 = 0.230175 µm; C = 2.21797e-16 F; V = 1.0 V: 2.21797e-16 J.
    /// * 12 nm (`tech/nodes/12nm.toml`): 1.2 × 6.08e-16 + 3 × 6e-17 = 9.096e-16 F/µm;
    ///   drawn widths (not whole fins, see [`switching_energy`]) W = 0.018 × 2.18 =
    ///   0.03924 µm; C = 3.56927e-17 F; V = 0.8 V: 2.28433e-17 J.
    /// * FP32 FMA at 12 nm: (3.7 + 0.9) pJ × 2.28433e-17 / 2.21797e-16 = 4.6 × 0.102992
    ///   = 0.473764 pJ; INT add 0.1 × 0.102992 = 0.0102992 pJ.
    #[test]
    fn fma_and_int_add_at_12nm_by_hand() {
        let e45 = switching_energy(&tech(45.0)).expect("45");
        let e12 = switching_energy(&tech(12.0)).expect("12");
        assert!((e45.j() - 2.21797e-16).abs() < 1e-5 * 2.21797e-16, "{e45}");
        assert!((e12.j() - 2.28433e-17).abs() < 1e-5 * 2.28433e-17, "{e12}");
        let ops = op_energies(&tech(12.0), Temperature::from_k(360.0)).expect("ops");
        assert!(
            (ops["sp_op"].pj() - 0.473764).abs() < 1e-5,
            "{}",
            ops["sp_op"]
        );
        assert!((ops["int_op"].pj() - 0.0102992).abs() < 1e-6);
        // at its reference node a figure is the published one
        let ops45 = op_energies(&tech(45.0), Temperature::from_k(360.0)).expect("ops");
        assert!((ops45["sp_op"].pj() - 4.6).abs() < 1e-12);
        assert!((ops45["sfu_op"].pj() - 4.6 * 84.04 / 40.97).abs() < 1e-12);
        let ops40 = op_energies(&tech(40.0), Temperature::from_k(360.0)).expect("ops");
        assert!((ops40["dp_op"].pj() - 50.0).abs() < 1e-12);
        // smaller node, cheaper operation
        for k in ops.keys() {
            assert!(ops[k] < ops40[k], "{k}");
        }
    }

    #[test]
    fn counts_use_the_mean_active_lanes_and_refuse_unknown_classes() {
        let by: BTreeMap<String, u64> = [
            ("Sp".to_string(), 10u64),
            ("Int".to_string(), 4),
            ("IntDiv".to_string(), 1),
            ("Sfu".to_string(), 1),
            ("DpDiv".to_string(), 2),
            ("Mem".to_string(), 7),
            ("Tensor".to_string(), 0),
        ]
        .into();
        // 25 warp instructions, 600 thread instructions: 24 lanes on average
        let c = op_counts(&by, 25, 600).expect("counts");
        assert_eq!(c["sp_op"], 240);
        assert_eq!(c["int_op"], 96);
        assert_eq!(c["sfu_op"], 48);
        assert_eq!(c["dp_op"], 48);
        let mut t = by.clone();
        t.insert("Tensor".into(), 3);
        let e = op_counts(&t, 28, 600).unwrap_err().to_string();
        assert!(e.contains("Tensor") && e.contains("exec_units"), "{e}");
        assert!(op_counts(&BTreeMap::new(), 0, 0)
            .expect("empty")
            .values()
            .all(|&n| n == 0));
    }
}
