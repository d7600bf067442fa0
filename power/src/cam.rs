//! Small fully-associative tables (CAM tag + optional SRAM data per entry) and a convenience
//! constructor for set-associative tag arrays on the SRAM model.
//!
//! **CAM** (CACTI 7 `subarray.cc` / `mat.cc` CAM and fully-associative paths; Pagiamtzis &
//! Sheikholeslami, "Content-addressable memory (CAM) circuits and architectures: a tutorial
//! and survey", IEEE JSSC 41(3), 2006, for the NOR-matchline search):
//!
//! - geometry: one row per entry; `tag_bits` CAM cells (292 F², the technology's `cam_cell`)
//!   and `data_bits` SRAM cells padded to the CAM row height (CACTI: "height of subarray is
//!   decided by CAM array"), plus a dummy row;
//! - **search**: every tag bit drives a searchline pair down all entries (load per entry: the
//!   gate of one compare transistor + the cell height of local wire); one line of each pair
//!   switches per search: `E_SL = tag_bits · C_SL · V²`. Every matchline (load per bit: the
//!   drains of the two compare stacks + the cell width of local wire) is precharged and all
//!   but the matching entry discharge: `E_ML = (entries − 1) · C_ML · V²` (worst case all miss:
//!   `entries`; we count `entries`). The matching entry's data row is then read;
//! - **read / write** (by index, as CACTI's separate RAM wordline): wordline `C_WL = columns ·
//!   (2 C_g,access + cell width · c_local)`, bitlines `C_BL = (entries + 1) · (C_d,access/2 +
//!   cell height · c_local)` per column; read swing `ΔV = max(0.05 V_dd, 0.08 V)` (CACTI
//!   `DynamicParameter`: `V_b_sense`), write full swing: `E_rd = C_WL V² + cols · C_BL · V ·
//!   ΔV`, `E_wr = C_WL V² + cols · C_BL · V²`;
//! - **leakage** per cell: one off access device, one off pull-down, one off pull-up (the
//!   stored state's off devices, I_off of the cell flavour); CAM cells add two two-high compare
//!   stacks with at least one off device each (stack factor 0.43, CACTI `UNI_LEAK_STACK_FACTOR`);
//!   gate leakage: the two on devices of the latch;
//! - **delay**: searchline driver (`R_on` of a driver sized to the line, Horowitz step) +
//!   matchline discharge through one compare stack (`2 R_on / W_cmp` into `C_ML`).
//!
//! Periphery (searchline drivers, matchline sense inverters, priority encoder) is counted as
//! one minimum-size inverter per entry plus one driver per column, at the standard cell height.

use crate::crossbar::{horowitz_step, LogicTech, StructureError};
use crate::gating::circuit::{drain_c, gate_area, gate_c, Fold, STACK_FACTOR};
use crate::sram::{self, ArrayResult, SramSpec};
use regwatt_tech::units::{Area, Energy, Length, Power, Time};
use regwatt_tech::{Cell, Device, DeviceFlavor, Technology};
use serde::Serialize;

/// CAM table input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CamSpec {
    /// Entries.
    pub entries: u32,
    /// Tag (search) bits per entry.
    pub tag_bits: u32,
    /// Data bits per entry (0 for a pure CAM).
    pub data_bits: u32,
}

/// CAM table result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CamResult {
    /// Energy per search (searchlines + matchlines + reading the hit entry's data).
    pub search_energy: Energy,
    /// Searchline part of the search energy.
    pub searchline_energy: Energy,
    /// Matchline part of the search energy.
    pub matchline_energy: Energy,
    /// Energy per indexed read of one entry.
    pub read_energy: Energy,
    /// Energy per write of one entry.
    pub write_energy: Energy,
    /// Subthreshold leakage.
    pub leakage: Power,
    /// Gate leakage.
    pub gate_leakage: Power,
    /// Area.
    pub area: Area,
    /// Search delay (search to match).
    pub search_delay: Time,
}

/// Technology view of the CAM model.
#[derive(Debug, Clone)]
pub struct CamTech {
    /// Peripheral logic.
    pub logic: LogicTech,
    /// Cell device.
    pub cell_dev: Device,
    /// CAM cell.
    pub cam_cell: Cell,
    /// SRAM cell.
    pub sram_cell: Cell,
}

impl CamTech {
    /// From a technology and flavours.
    pub fn new(
        tech: &Technology,
        cell: DeviceFlavor,
        peri: DeviceFlavor,
    ) -> Result<CamTech, StructureError> {
        Ok(CamTech {
            logic: LogicTech::new(tech, peri)?,
            // the node's SRAM bitcell device where it has one (`Technology::cell_device`)
            cell_dev: tech
                .cell_device(cell)
                .map_err(|e| StructureError::Technology(e.to_string()))?
                .clone(),
            cam_cell: tech.cam_cell.clone(),
            sram_cell: tech.sram_cell.clone(),
        })
    }
}

/// Evaluates a fully-associative table (see module docs).
pub fn cam(t: &CamTech, s: &CamSpec) -> Result<CamResult, StructureError> {
    let bad = |field: &'static str, v: u32, msg: &'static str| StructureError::BadCount {
        field,
        value: v as u64,
        msg,
    };
    if s.entries == 0 || s.entries > 65536 {
        return Err(bad("entries", s.entries, "must be in 1..=65536"));
    }
    if s.tag_bits == 0 || s.tag_bits > 1024 {
        return Err(bad("tag_bits", s.tag_bits, "must be in 1..=1024"));
    }
    if s.data_bits > 65536 {
        return Err(bad("data_bits", s.data_bits, "must be <= 65536"));
    }
    let lg = &t.logic;
    let d = &t.cell_dev;
    let v = d.vdd.v();
    let c_local = lg.local_wire.c_per_length;
    let cc = &t.cam_cell;
    let sc = &t.sram_cell;
    let fold = Fold::CellHeight(cc.height);
    let cw = lg.local_wire.c_per_length.f_per_um();
    let cd_cell = |w: Length| drain_c(d, &lg.layout, w, true, 1, fold, cw);
    let rows = s.entries as f64 + 1.0; // + dummy row
    let entries = s.entries as f64;
    let tag = s.tag_bits as f64;
    let data = s.data_bits as f64;
    let w_cmp = cc.access_width;
    // searchline: per entry one compare gate + wire over the CAM cell height
    let c_sl = (gate_c(d, w_cmp) + c_local.times(cc.height)) * rows;
    let e_sl = tag * c_sl.f() * v * v;
    // matchline: per bit two compare-stack drains + wire over the CAM cell width
    let c_ml = (cd_cell(w_cmp) * 2.0 + c_local.times(cc.width)) * tag;
    let e_ml = entries * c_ml.f() * v * v;
    // indexed access: wordline over tag + data cells, bitlines per column
    let c_wl = (gate_c(d, cc.access_width) * 2.0 + c_local.times(cc.width)) * tag
        + (gate_c(d, sc.access_width) * 2.0 + c_local.times(sc.width)) * data;
    let c_bl_cam = (cd_cell(cc.access_width) * 0.5 + c_local.times(cc.height)) * rows;
    let c_bl_ram = (cd_cell(sc.access_width) * 0.5 + c_local.times(cc.height)) * rows;
    let dv = (0.05 * v).max(0.08).min(v);
    let e_wl = c_wl.f() * v * v;
    let bl_read = (tag * c_bl_cam.f() + data * c_bl_ram.f()) * v * dv;
    let bl_write = (tag * c_bl_cam.f() + data * c_bl_ram.f()) * v * v;
    let data_read = if s.data_bits > 0 {
        // the hit row's data columns only
        let c_wl_data = (gate_c(d, sc.access_width) * 2.0 + c_local.times(sc.width)) * data;
        c_wl_data.f() * v * v + data * c_bl_ram.f() * v * dv
    } else {
        0.0
    };
    // leakage per cell
    let ioff = |w: Length| d.i_off_n.times(w).a();
    let sram_leak = ioff(sc.access_width) + ioff(sc.pull_down_width) + ioff(sc.pull_up_width);
    let cam_leak = ioff(cc.access_width)
        + ioff(cc.pull_down_width)
        + ioff(cc.pull_up_width)
        + 2.0 * STACK_FACTOR * ioff(w_cmp);
    let ig = |c: &Cell| d.i_g_on_n.times(c.pull_down_width + c.pull_up_width).a();
    // periphery: one inverter per entry (ML sense / encoder), one driver per column
    let (wn, wp) = (lg.wn(), lg.wp());
    let per_gate_leak =
        crate::gating::circuit::isub(&lg.dev, wn, wp, 1, crate::gating::circuit::GateType::Inv).a();
    let per_gate_ig = crate::gating::circuit::igate(&lg.dev, wn, wp, 1).a();
    let n_periph = entries + tag + data;
    let leakage = entries * (tag * cam_leak + data * sram_leak) * v
        + n_periph * per_gate_leak * lg.dev.vdd.v();
    let gate_leakage =
        entries * (tag * ig(cc) + data * ig(sc)) * v + n_periph * per_gate_ig * lg.dev.vdd.v();
    let h = lg.layout.cell_h_def();
    let array = (cc.height * rows) * (cc.width * tag + sc.width * data);
    let periph = gate_area(&lg.layout, 1, wn, wp, h) * n_periph;
    // delay: searchline driver sized like a repeater for the line, then ML discharge
    let c_sl_total = c_sl;
    let r_drv = lg.dev.r_nch_on.over(wn * 8.0);
    let t_sl = horowitz_step(r_drv * c_sl_total, 0.5);
    let r_stack = d.r_nch_on.over(w_cmp) * 2.0;
    let t_ml = horowitz_step(r_stack * c_ml, 0.5);
    Ok(CamResult {
        search_energy: Energy::from_j(e_sl + e_ml + data_read),
        searchline_energy: Energy::from_j(e_sl),
        matchline_energy: Energy::from_j(e_ml),
        read_energy: Energy::from_j(e_wl + bl_read),
        write_energy: Energy::from_j(e_wl + bl_write),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        area: array + periph,
        search_delay: t_sl + t_ml,
    })
}

/// A set-associative tag array built on the SRAM model's cache mode: the tag side of a
/// `capacity_bytes`, `associativity`-way cache of `line_bytes` lines (`tag_bits = None` =
/// CACTI's default tag width). Returns the tag array's result (access time, energies,
/// leakage, area) and the tag width used.
pub fn tag_array(spec: &SramSpec, tech: &Technology) -> Result<(ArrayResult, u32), StructureError> {
    if spec.associativity < 2 {
        return Err(StructureError::BadCount {
            field: "associativity",
            value: spec.associativity as u64,
            msg: "a tag array needs a set-associative cache (associativity >= 2)",
        });
    }
    let r = sram::estimate(spec, tech).map_err(|e| StructureError::Sram(e.to_string()))?;
    match (r.tag, r.tag_bits) {
        (Some(t), Some(b)) => Ok((t, b)),
        _ => Err(StructureError::Sram(
            "the SRAM model returned no tag array for a cache spec".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    fn ct(nm: f64) -> CamTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).unwrap();
        CamTech::new(&t, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap()
    }

    #[test]
    fn cam_cell_is_292_f2_and_area_hand_value() {
        let t = ct(45.0);
        let f = 0.045;
        assert!((t.cam_cell.area.um2() - 292.0 * f * f).abs() < 1e-9);
        let r = cam(
            &t,
            &CamSpec {
                entries: 32,
                tag_bits: 20,
                data_bits: 0,
            },
        )
        .unwrap();
        // By hand (45 nm, tech/nodes/45nm.toml): cell 292 F^2 = 0.5913 um^2, aspect
        // 2.92: width sqrt(0.5913 / 2.92) = 0.45 um, height 1.314 um. Array: 33 rows (32 +
        // the dummy) x 20 bits x 0.5913 = 390.258 um^2. Periphery: 32 + 20 minimum inverters
        // (N 1.5 F = 0.0675 um, P 2.41 x that = 0.16268 um) in a 50 F = 2.25 um cell, unfolded:
        // diffusion width 2.5 F + 2 x 3 F = 0.3825 um, height 0.0675 + 0.16268 + 9 F
        // = 0.63518 um: 0.24295 um^2 each, 12.634 um^2. Total 402.892 um^2.
        let a = r.area.um2();
        assert!((a - 402.892).abs() < 1e-4 * 402.892, "{a} um^2");
    }

    /// By hand (45 nm itrs-hp, V = 1.0 V): gate C per um 6.78e-16 x 1.2 + 3 x 5e-17
    /// = 9.636e-16 F/um; compare gate 0.05895 um: 0.056804 fF; local wire 2.58017e-16 F/um
    /// over the 1.314 um CAM cell height: 0.339034 fF. Per row 0.395839 fF; 17 rows (16 + the
    /// dummy) x 10 search lines x V^2 = 67.2926 fJ.
    #[test]
    fn searchline_energy_hand_value() {
        let t = ct(45.0);
        let r = cam(
            &t,
            &CamSpec {
                entries: 16,
                tag_bits: 10,
                data_bits: 0,
            },
        )
        .unwrap();
        let e = r.searchline_energy.fj();
        assert!((e - 67.2926).abs() < 1e-4 * 67.2926, "{e} fJ");
        let parts = (r.searchline_energy + r.matchline_energy).j();
        assert!((r.search_energy.j() - parts).abs() < 1e-12 * parts);
        assert!(r.write_energy > r.read_energy);
    }

    #[test]
    fn data_bits_add_energy_and_area() {
        let t = ct(32.0);
        let a = cam(
            &t,
            &CamSpec {
                entries: 64,
                tag_bits: 16,
                data_bits: 0,
            },
        )
        .unwrap();
        let b = cam(
            &t,
            &CamSpec {
                entries: 64,
                tag_bits: 16,
                data_bits: 38,
            },
        )
        .unwrap();
        assert!(b.search_energy > a.search_energy && b.area > a.area && b.leakage > a.leakage);
        assert!(cam(
            &t,
            &CamSpec {
                entries: 0,
                tag_bits: 16,
                data_bits: 0
            }
        )
        .is_err());
    }

    #[test]
    fn tag_array_of_a_cache() {
        let t = Technology::for_node(32.0, Temperature::from_k(360.0)).unwrap();
        let mut s = SramSpec::ram(16384, 128, 32.0);
        s.associativity = 4;
        let (tag, bits) = tag_array(&s, &t).unwrap();
        assert!(bits > 10 && tag.access_time.s() > 0.0 && tag.area.total().m2() > 0.0);
        let ram = SramSpec::ram(16384, 128, 32.0);
        assert!(tag_array(&ram, &t).is_err());
    }
}
