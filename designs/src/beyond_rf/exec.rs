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
//! Operations are counted per thread (active lanes summed) and per datapath operation, the
//! simulator's `OpKind` (`CoreActivity::thread_ops_by_kind`), so an integer multiply-add is
//! not charged as an add, nor an FP32 add as an FMA.
//!
//! | event (`OpKind`) | operation charged per thread | energy at 45 nm | source |
//! |---|---|---|---|
//! | `int_alu_op` (`IntAlu`) | 32-bit integer add (logic, shifts, compares, moves are no costlier) | 0.1 pJ | Horowitz, "Computing's energy problem", ISSCC 2014, Fig. 1.1.9 (45 nm, 0.9 V) |
//! | `int_mul_op` (`IntMul`) | 32-bit multiply + 32-bit add (IMAD) | 3.1 + 0.1 = 3.2 pJ | Horowitz 2014 |
//! | `fp16_op` (`Fp16`) | FP16 multiply + FP16 add (HFMA) | 1.1 + 0.4 = 1.5 pJ | Horowitz 2014 |
//! | `fp16x2_op` (`Fp16x2`) | two HFMAs | 3.0 pJ | Horowitz 2014 |
//! | `fp32_add_op` (`Fp32Add`) | FP32 add | 0.9 pJ | Horowitz 2014 |
//! | `fp32_mul_op` (`Fp32Mul`) | FP32 multiply | 3.7 pJ | Horowitz 2014 |
//! | `fp32_fma_op` (`Fp32Fma`) | FP32 multiply + FP32 add | 4.6 pJ | Horowitz 2014 |
//! | `fp64_add_op`, `fp64_mul_op`, `fp64_fma_op` | the FP32 figures widened from a 24-bit to a 53-bit significand: a multiplier's energy grows as the square of its width, an adder's linearly | 1.99, 18.04, 20.03 pJ | Horowitz 2014's own width scaling: 8 → 32-bit multiply 0.2 → 3.1 pJ (15.5× for 4× the width, ≈ 4²), 8 → 32-bit add 0.03 → 0.1 pJ (3.3×, ≈ 4) |
//! | `sfu_op`, `int_div_op`, `fp_div_op` | one SFU operation = FP32 FMA × McPAT's SFU / FPU energy ratio 84.04 / 40.97 = 2.051 | 9.44 pJ | McPAT as built in AccelWattch (accel-sim/gpgpu-sim_distribution @ 667834cf, `src/accelwattch/logic.cc`, `FunctionalUnit`), per-op energies at 40 nm: FPU 40.97 pJ, SFU ("MUL") 84.04 pJ |
//! | `dp_div_op` (`DpDiv`) | one FP64 FMA (the timing model runs FP64 division, reciprocal and square root as one DP operation) | 20.03 pJ | as `fp64_fma_op` |
//! | `Tensor` | — | no model: a run with tensor instructions is an error | (no PTX `mma` is executed by the simulator yet) |
//!
//! Approximations:
//! * Integer operations on 64-bit operands (address arithmetic `add.s64`, `mul.wide`,
//!   `mad.lo.s64`) are charged as their 32-bit forms; SASS splits them into two or three
//!   32-bit operations, so they are under-counted by up to that factor.
//! * Divisions run as one SFU (`IntDiv`, `FpDiv`) or DP (`DpDiv`) operation, as the timing
//!   model times them; their SASS expansions (reciprocal + Newton steps) are not counted.
//! * The SFU has no published per-op energy we could verify; its McPAT ratio to the FPU is
//!   the only sourced relation (McPAT models the SFU as its `MUL` unit).
//! * Comparison: Dally's SC09 keynote gives a 40 nm "64b FPU ... 50pJ/op" at 1.5 GHz; the
//!   width-scaled Horowitz FMA is 17 pJ at 40 nm. One source family (Horowitz's 45 nm
//!   datapaths) keeps the ratios between the classes consistent; the absolute FP64 figure is
//!   checked against Dally's 14 nm and 28 nm figures in `beyond_rf/tests.rs`
//!   (`mcpat_and_literature_comparison`).

use std::collections::BTreeMap;

use regwatt_tech::units::{Energy, Temperature};
use regwatt_tech::Technology;

use crate::energy::circuits;
use crate::energy::EnergyError;

/// Horowitz 2014 (ISSCC, Fig. 1.1.9, 45 nm): 32-bit integer add.
pub const INT_ADD_32_PJ_45NM: f64 = 0.1;
/// Horowitz 2014: 32-bit integer multiply.
pub const INT_MUL_32_PJ_45NM: f64 = 3.1;
/// Horowitz 2014: FP16 add.
pub const FP16_ADD_PJ_45NM: f64 = 0.4;
/// Horowitz 2014: FP16 multiply.
pub const FP16_MUL_PJ_45NM: f64 = 1.1;
/// Horowitz 2014: FP32 add.
pub const FP32_ADD_PJ_45NM: f64 = 0.9;
/// Horowitz 2014: FP32 multiply.
pub const FP32_MUL_PJ_45NM: f64 = 3.7;
/// McPAT per-op energies at 40 nm (AccelWattch build, `logic.cc`): SFU ("MUL" unit) and FPU.
pub const MCPAT_SFU_PJ_40NM: f64 = 84.04;
/// See [`MCPAT_SFU_PJ_40NM`].
pub const MCPAT_FPU_PJ_40NM: f64 = 40.97;
/// Significand width ratio FP64 / FP32 (IEEE 754: 53 and 24 bits, hidden bit included).
pub const FP64_WIDTH_RATIO: f64 = 53.0 / 24.0;

/// FP32 FMA at 45 nm: multiply + add (Horowitz 2014).
const FP32_FMA_PJ_45NM: f64 = FP32_MUL_PJ_45NM + FP32_ADD_PJ_45NM;
/// FP64 add: the FP32 adder widened linearly (see the module table).
const FP64_ADD_PJ_45NM: f64 = FP32_ADD_PJ_45NM * FP64_WIDTH_RATIO;
/// FP64 multiply: the FP32 multiplier widened quadratically (see the module table).
const FP64_MUL_PJ_45NM: f64 = FP32_MUL_PJ_45NM * FP64_WIDTH_RATIO * FP64_WIDTH_RATIO;
/// One SFU operation (see the module table).
const SFU_PJ_45NM: f64 = FP32_FMA_PJ_45NM * MCPAT_SFU_PJ_40NM / MCPAT_FPU_PJ_40NM;

/// One datapath operation: the event name, the simulator's `OpKind` (debug name) it charges
/// and its energy per thread at 45 nm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpClass {
    /// Event name in the inventory (`fp32_fma_op`, ...).
    pub event: &'static str,
    /// The simulator's `OpKind` (debug name) charged as this event.
    pub kind: &'static str,
    /// Energy per thread operation at 45 nm, pJ.
    pub pj_45nm: f64,
}

/// Node of the published figures (Horowitz 2014).
pub const REFERENCE_NM: f64 = 45.0;

/// The operations charged, with their energies (see the module table).
pub const OP_CLASSES: [OpClass; 14] = [
    OpClass {
        event: "int_alu_op",
        kind: "IntAlu",
        pj_45nm: INT_ADD_32_PJ_45NM,
    },
    OpClass {
        event: "int_mul_op",
        kind: "IntMul",
        pj_45nm: INT_MUL_32_PJ_45NM + INT_ADD_32_PJ_45NM,
    },
    OpClass {
        event: "fp16_op",
        kind: "Fp16",
        pj_45nm: FP16_MUL_PJ_45NM + FP16_ADD_PJ_45NM,
    },
    OpClass {
        event: "fp16x2_op",
        kind: "Fp16x2",
        pj_45nm: 2.0 * (FP16_MUL_PJ_45NM + FP16_ADD_PJ_45NM),
    },
    OpClass {
        event: "fp32_add_op",
        kind: "Fp32Add",
        pj_45nm: FP32_ADD_PJ_45NM,
    },
    OpClass {
        event: "fp32_mul_op",
        kind: "Fp32Mul",
        pj_45nm: FP32_MUL_PJ_45NM,
    },
    OpClass {
        event: "fp32_fma_op",
        kind: "Fp32Fma",
        pj_45nm: FP32_FMA_PJ_45NM,
    },
    OpClass {
        event: "fp64_add_op",
        kind: "Fp64Add",
        pj_45nm: FP64_ADD_PJ_45NM,
    },
    OpClass {
        event: "fp64_mul_op",
        kind: "Fp64Mul",
        pj_45nm: FP64_MUL_PJ_45NM,
    },
    OpClass {
        event: "fp64_fma_op",
        kind: "Fp64Fma",
        pj_45nm: FP64_MUL_PJ_45NM + FP64_ADD_PJ_45NM,
    },
    OpClass {
        event: "sfu_op",
        kind: "Sfu",
        pj_45nm: SFU_PJ_45NM,
    },
    OpClass {
        event: "int_div_op",
        kind: "IntDiv",
        pj_45nm: SFU_PJ_45NM,
    },
    OpClass {
        event: "fp_div_op",
        kind: "FpDiv",
        pj_45nm: SFU_PJ_45NM,
    },
    OpClass {
        event: "dp_div_op",
        kind: "DpDiv",
        pj_45nm: FP64_MUL_PJ_45NM + FP64_ADD_PJ_45NM,
    },
];

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

/// Energy per thread operation of each [`OP_CLASSES`] event at `tech`'s node: the 45 nm
/// energy × `switching_energy(tech) / switching_energy(45 nm)`. The 45 nm technology is
/// resolved at `tech`'s temperature (capacitance and supply do not depend on it).
pub fn op_energies(
    tech: &Technology,
    temperature: Temperature,
) -> Result<BTreeMap<String, Energy>, EnergyError> {
    let reference = Technology::for_node(REFERENCE_NM, temperature)?;
    let ratio = switching_energy(tech)? / switching_energy(&reference)?;
    Ok(OP_CLASSES
        .iter()
        .map(|op| (op.event.to_string(), Energy::from_pj(op.pj_45nm * ratio)))
        .collect())
}

/// Thread operations per [`OP_CLASSES`] event from the simulator's thread operations per
/// `OpKind`. `Tensor` operations (no model) or a kind the table does not know is an error
/// naming it.
pub fn op_counts(by_kind: &BTreeMap<String, u64>) -> Result<BTreeMap<String, u64>, EnergyError> {
    let mut out: BTreeMap<String, u64> = OP_CLASSES
        .iter()
        .map(|o| (o.event.to_string(), 0))
        .collect();
    for (kind, &n) in by_kind {
        let Some(op) = OP_CLASSES.iter().find(|o| o.kind == kind) else {
            if n == 0 {
                continue;
            }
            return Err(EnergyError::NoModel {
                component: "exec_units".into(),
                message: format!(
                    "{n} `{kind}` thread operations: no execution energy model for this operation"
                ),
            });
        };
        *out.entry(op.event.to_string()).or_insert(0) += n;
    }
    Ok(out)
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
    ///   = 0.473764 pJ; INT add 0.1 × 0.102992 = 0.0102992 pJ; IMAD 3.2 × 0.102992 =
    ///   0.329574 pJ.
    /// * FP64 at 45 nm: (53/24)² = 4.8767361; multiply 3.7 × 4.8767361 = 18.0439236 pJ; add
    ///   0.9 × 2.2083333 = 1.9875 pJ; FMA 20.0314236 pJ.
    #[test]
    fn per_kind_energies_by_hand() {
        let e45 = switching_energy(&tech(45.0)).expect("45");
        let e12 = switching_energy(&tech(12.0)).expect("12");
        assert!((e45.j() - 2.21797e-16).abs() < 1e-5 * 2.21797e-16, "{e45}");
        assert!((e12.j() - 2.28433e-17).abs() < 1e-5 * 2.28433e-17, "{e12}");
        let ops = op_energies(&tech(12.0), Temperature::from_k(360.0)).expect("ops");
        let close = |e: &str, v: f64| {
            assert!((ops[e].pj() - v).abs() < 1e-5 * v, "{e}: {} vs {v}", ops[e]);
        };
        close("fp32_fma_op", 0.473764);
        close("int_alu_op", 0.0102992);
        close("int_mul_op", 0.329574);
        // at the reference node a figure is the published one
        let ops45 = op_energies(&tech(45.0), Temperature::from_k(360.0)).expect("ops");
        let at45 = |e: &str, v: f64| {
            assert!((ops45[e].pj() - v).abs() < 1e-6, "{e}: {} vs {v}", ops45[e]);
        };
        at45("fp32_fma_op", 4.6);
        at45("fp32_add_op", 0.9);
        at45("fp32_mul_op", 3.7);
        at45("fp16_op", 1.5);
        at45("fp16x2_op", 3.0);
        at45("int_mul_op", 3.2);
        at45("sfu_op", 4.6 * 84.04 / 40.97);
        at45("fp64_mul_op", 18.0439236);
        at45("fp64_add_op", 1.9875);
        at45("fp64_fma_op", 20.0314236);
        at45("dp_div_op", 20.0314236);
        // the order of the classes: add < multiply < FMA, FP16 < FP32 < FP64, IADD < IMAD
        assert!(ops45["fp16_op"] < ops45["fp32_fma_op"]);
        assert!(ops45["fp32_fma_op"] < ops45["fp64_fma_op"]);
        assert!(ops45["int_alu_op"] < ops45["int_mul_op"]);
        // smaller node, cheaper operation
        let ops40 = op_energies(&tech(40.0), Temperature::from_k(360.0)).expect("ops");
        for k in ops.keys() {
            assert!(ops[k] < ops40[k], "{k}");
        }
    }

    /// Every datapath kind the simulator counts has an energy (a new `OpKind` without one
    /// fails here); `None` is never counted and `Tensor` has no model yet.
    #[test]
    fn every_simulator_kind_has_an_energy() {
        use regwatt_sim::timing::functional::{OpKind, OP_KINDS};
        for k in OP_KINDS {
            let name = format!("{k:?}");
            let known = OP_CLASSES.iter().any(|o| o.kind == name);
            assert_eq!(known, !matches!(k, OpKind::None | OpKind::Tensor), "{name}");
        }
    }

    #[test]
    fn counts_follow_the_kinds_and_refuse_unknown_ones() {
        let by: BTreeMap<String, u64> = [
            ("Fp32Fma".to_string(), 320u64),
            ("IntAlu".to_string(), 96),
            ("IntMul".to_string(), 64),
            ("IntDiv".to_string(), 5),
            ("DpDiv".to_string(), 7),
            ("Tensor".to_string(), 0),
        ]
        .into();
        let c = op_counts(&by).expect("counts");
        assert_eq!(c["fp32_fma_op"], 320);
        assert_eq!(c["int_alu_op"], 96);
        assert_eq!(c["int_mul_op"], 64);
        assert_eq!(c["int_div_op"], 5);
        assert_eq!(c["dp_div_op"], 7);
        assert_eq!(c["fp64_fma_op"], 0);
        assert_eq!(c.len(), OP_CLASSES.len());
        let mut t = by.clone();
        t.insert("Tensor".into(), 3);
        let e = op_counts(&t).unwrap_err().to_string();
        assert!(e.contains("Tensor") && e.contains("exec_units"), "{e}");
        assert!(op_counts(&BTreeMap::new())
            .expect("empty")
            .values()
            .all(|&n| n == 0));
    }
}
