//! `regwatt sram`: CACTI-style SRAM / cache estimate from flags or from a CACTI 7 cfg file.
//!
//! The output always carries the fully resolved input configuration (`config`), the list of
//! settings that took a default (`defaults_used`), and — when power gating is on — the gating
//! figures of `regwatt_power::gating`.

use anyhow::{anyhow, bail, Context, Result};
use regwatt_power::cacti_cfg::{self, PowerGatingCfg};
use regwatt_power::drowsy;
use regwatt_power::gating::cacti_p::{self, ArrayShape, PgSwitches};
use regwatt_power::gating::{self, CellLeakage, GatingTech, Retention};
use regwatt_power::sram::{
    self, Deviation, Objective, Optimisation, SramResult, SramSpec, Weights,
};
use regwatt_tech::units::{Power, Temperature};
use regwatt_tech::{DeviceFlavor, Technology};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Arguments of `regwatt sram`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read CACTI 7 cfg file(s) instead of the flags below. Several files, or a directory (its
    /// `*.cfg` files, sorted), are estimated in one process: `--json` prints one JSON object
    /// per line in input order, `--csv` a table; a file that fails gives an error record in
    /// its place and the rest go on.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = [
        "capacity", "block_bytes", "rw_ports", "rd_ports", "wr_ports", "banks", "assoc", "node",
        "temp", "cell", "peri", "ecc", "no_ecc", "objective", "weights", "deviate", "out_bits",
        "tag_bits", "pg_array", "pg_wl", "pg_cl", "pg_bl_float", "pg_interconnect",
        "pg_perf_loss"
    ])]
    pub cacti_cfg: Vec<PathBuf>,
    /// Capacity of all banks: bytes, or with K/KB/KiB, M/MB/MiB (binary multiples), e.g. 4KB.
    #[arg(long)]
    pub capacity: Option<String>,
    /// Block size in bytes (RAM row width or cache line).
    #[arg(long)]
    pub block_bytes: Option<u32>,
    /// Read-write ports [default: 1 if no port flag is given, else 0].
    #[arg(long)]
    pub rw_ports: Option<u32>,
    /// Exclusive read ports [default: 0].
    #[arg(long)]
    pub rd_ports: Option<u32>,
    /// Exclusive write ports [default: 0].
    #[arg(long)]
    pub wr_ports: Option<u32>,
    /// UCA banks [default: 1].
    #[arg(long)]
    pub banks: Option<u32>,
    /// Associativity; > 1 = cache (data + tag arrays) [default: 1 = RAM].
    #[arg(long)]
    pub assoc: Option<u32>,
    /// Technology node, written 40nm, 40, 0.040um or 0.040 (µm when < 1): 90, 65, 45, 40, 32,
    /// 22 or 12 nm, or any whole nm between 22 and 90 (interpolated) [default: 40nm].
    #[arg(long)]
    pub node: Option<String>,
    /// Temperature in K [default: 360].
    #[arg(long)]
    pub temp: Option<f64>,
    /// Cell flavour: itrs-hp, itrs-lstp, itrs-lop, lp-dram, comm-dram [default: itrs-hp].
    #[arg(long)]
    pub cell: Option<String>,
    /// Peripheral flavour: itrs-hp, itrs-lstp, itrs-lop [default: itrs-hp].
    #[arg(long)]
    pub peri: Option<String>,
    /// ECC on (CACTI's default) [default].
    #[arg(long, conflicts_with = "no_ecc")]
    pub ecc: bool,
    /// ECC off.
    #[arg(long)]
    pub no_ecc: bool,
    /// Objective: ed2, ed or none [default: ed2].
    #[arg(long)]
    pub objective: Option<String>,
    /// Weights delay:dynamic:leakage:cycle:area [default: 0:0:0:100:0].
    #[arg(long)]
    pub weights: Option<String>,
    /// Maximum deviation (%) delay:dynamic:leakage:cycle:area
    /// [default: 20:100000:100000:100000:100000].
    #[arg(long)]
    pub deviate: Option<String>,
    /// Output bus width in bits [default: 8 x block bytes].
    #[arg(long)]
    pub out_bits: Option<u32>,
    /// Tag bits of a cache [default: CACTI's "default" from size, banks, associativity].
    #[arg(long)]
    pub tag_bits: Option<u32>,
    /// Sub-array (array) power gating.
    #[arg(long)]
    pub pg_array: bool,
    /// Wordline (decoder) power gating.
    #[arg(long)]
    pub pg_wl: bool,
    /// Column-circuit power gating.
    #[arg(long)]
    pub pg_cl: bool,
    /// Bitline floating (CACTI-P): idle bitlines float to 0.7 x the precharge level.
    #[arg(long)]
    pub pg_bl_float: bool,
    /// Interconnect (H-tree repeater) power gating.
    #[arg(long)]
    pub pg_interconnect: bool,
    /// Power-gating performance-loss target [default: 0.01 when gating is on].
    #[arg(long)]
    pub pg_perf_loss: Option<f64>,
    /// What gated cells keep: vccmin (state kept at V_ccmin, CACTI-P) or off (state lost).
    #[arg(long, default_value = "vccmin")]
    pub pg_retention: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// With several cfg files: a CSV table (one row per file) instead of JSON lines.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// With several cfg files: worker threads, at least 1 (default: available parallelism).
    /// The output does not depend on it.
    #[arg(long, value_parser = super::jobs_parser())]
    pub jobs: Option<usize>,
}

/// Parses "4KB", "4096", "4 KiB", "1MB".
fn parse_capacity(s: &str) -> Result<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| anyhow!("--capacity {s:?}: expected a number of bytes, e.g. 4096 or 4KB"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        u => bail!("--capacity {s:?}: unknown unit {u:?} (use B, KB, MB, GB; binary multiples)"),
    };
    let bytes = v * mult;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes.fract() == 0.0) {
        bail!("--capacity {s:?}: must be a whole number of bytes >= 1");
    }
    Ok(bytes as u64)
}

/// Parses "40nm", "40", "0.040um", "0.040" (µm when < 1).
fn parse_node(s: &str) -> Result<f64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, scale) = if let Some(n) = t.strip_suffix("nm") {
        (n.trim().to_string(), 1.0)
    } else if let Some(n) = t.strip_suffix("um").or_else(|| t.strip_suffix("µm")) {
        (n.trim().to_string(), 1000.0)
    } else {
        (t.clone(), 0.0)
    };
    let v: f64 = num
        .parse()
        .map_err(|_| anyhow!("--node {s:?}: expected e.g. 40nm, 40, 0.040um"))?;
    if !(v.is_finite() && v > 0.0) {
        bail!("--node {s:?}: must be positive");
    }
    Ok(if scale == 0.0 {
        if v < 1.0 {
            v * 1000.0
        } else {
            v
        }
    } else {
        v * scale
    })
}

fn parse5(flag: &str, s: &str) -> Result<[f64; 5]> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 5 {
        bail!(
            "{flag} {s:?}: expected five colon-separated numbers delay:dynamic:leakage:cycle:area"
        );
    }
    let mut v = [0.0f64; 5];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .trim()
            .parse()
            .map_err(|_| anyhow!("{flag} {s:?}: {p:?} is not a number"))?;
        if !(v[i].is_finite() && v[i] >= 0.0) {
            bail!("{flag} {s:?}: {p:?} must be >= 0");
        }
    }
    Ok(v)
}

struct Resolved {
    spec: SramSpec,
    pg: Option<PowerGatingCfg>,
    retention: Retention,
    source: String,
    defaults_used: Vec<(String, String)>,
    not_applicable: Vec<(String, String)>,
    /// The CACTI cfg it was read from: the model's errors name its file, line and key.
    cfg: Option<Box<cacti_cfg::CactiConfig>>,
}

fn from_flags(a: &Args) -> Result<Resolved> {
    let mut defaults = Vec::new();
    let mut def = |k: &str, v: String| defaults.push((k.to_string(), v));
    let capacity = parse_capacity(
        a.capacity
            .as_deref()
            .ok_or_else(|| anyhow!("--capacity is required (or give --cacti-cfg FILE)"))?,
    )?;
    let block_bytes = a
        .block_bytes
        .ok_or_else(|| anyhow!("--block-bytes is required (or give --cacti-cfg FILE)"))?;
    if block_bytes == 0 {
        bail!("--block-bytes must be >= 1");
    }
    let node_nm = parse_node(
        a.node
            .as_deref()
            .ok_or_else(|| anyhow!("--node is required, e.g. --node 40nm"))?,
    )?;
    let any_port = a.rw_ports.is_some() || a.rd_ports.is_some() || a.wr_ports.is_some();
    let rw_ports = a.rw_ports.unwrap_or_else(|| {
        let v = if any_port { 0 } else { 1 };
        def("rw_ports", v.to_string());
        v
    });
    let rd_ports = a.rd_ports.unwrap_or_else(|| {
        def("rd_ports", "0".into());
        0
    });
    let wr_ports = a.wr_ports.unwrap_or_else(|| {
        def("wr_ports", "0".into());
        0
    });
    let banks = a.banks.unwrap_or_else(|| {
        def("banks", "1".into());
        1
    });
    let assoc = a.assoc.unwrap_or_else(|| {
        def("assoc", "1 (RAM)".into());
        1
    });
    let temp = a.temp.unwrap_or_else(|| {
        def("temperature_k", "360".into());
        360.0
    });
    if !temp.is_finite() {
        bail!("--temp must be a number of kelvin");
    }
    let flavour = |flag: &str,
                   v: &Option<String>,
                   def: &mut dyn FnMut(&str, String)|
     -> Result<DeviceFlavor> {
        match v {
            Some(s) => s
                .parse::<DeviceFlavor>()
                .map_err(|e| anyhow!("{flag}: {e}")),
            None => {
                def(flag.trim_start_matches("--"), "itrs-hp".into());
                Ok(DeviceFlavor::ItrsHp)
            }
        }
    };
    let cell = flavour("--cell", &a.cell, &mut def)?;
    let peri = flavour("--peri", &a.peri, &mut def)?;
    if peri.is_dram() {
        bail!(
            "--peri {}: a DRAM flavour is a cell type, not a peripheral type",
            peri
        );
    }
    let ecc = if a.no_ecc {
        false
    } else {
        if !a.ecc {
            def("ecc", "true (CACTI default)".into());
        }
        true
    };
    let objective = match a.objective.as_deref().map(|s| s.to_ascii_lowercase()) {
        None => {
            def("objective", "ed2 (CACTI default)".into());
            Objective::Ed2
        }
        Some(s) => match s.as_str() {
            "ed2" | "ed^2" => Objective::Ed2,
            "ed" => Objective::Ed,
            "none" => Objective::None,
            _ => bail!("--objective {s:?}: expected ed2, ed or none"),
        },
    };
    let dflt = Optimisation::default();
    let weights = match &a.weights {
        Some(s) => {
            let v = parse5("--weights", s)?;
            Weights {
                delay: v[0],
                dynamic: v[1],
                leakage: v[2],
                cycle: v[3],
                area: v[4],
            }
        }
        None => {
            def("weights", "0:0:0:100:0 (CACTI default)".into());
            dflt.weights
        }
    };
    let max_deviation = match &a.deviate {
        Some(s) => {
            let v = parse5("--deviate", s)?;
            Deviation {
                delay: v[0],
                dynamic: v[1],
                leakage: v[2],
                cycle: v[3],
                area: v[4],
            }
        }
        None => {
            def(
                "deviate",
                "20:100000:100000:100000:100000 (CACTI default)".into(),
            );
            dflt.max_deviation
        }
    };
    let out_bits = match a.out_bits {
        Some(v) => v,
        None => {
            let v = block_bytes.saturating_mul(8);
            def("out_bits", format!("{v} (8 x block bytes)"));
            v
        }
    };
    if a.tag_bits.is_some() && assoc <= 1 {
        bail!("--tag-bits applies to caches only (--assoc > 1)");
    }
    let mut spec = SramSpec::ram(capacity, block_bytes, node_nm);
    spec.output_width_bits = out_bits;
    spec.associativity = assoc;
    spec.banks = banks;
    spec.rw_ports = rw_ports;
    spec.rd_ports = rd_ports;
    spec.wr_ports = wr_ports;
    spec.cell_flavor = cell;
    spec.peri_flavor = peri;
    spec.temperature = Temperature::from_k(temp);
    spec.ecc = ecc;
    spec.tag_bits = a.tag_bits;
    spec.optimisation = Optimisation {
        objective,
        weights,
        max_deviation,
    };
    let any_pg = a.pg_array || a.pg_wl || a.pg_cl || a.pg_bl_float || a.pg_interconnect;
    if a.pg_perf_loss.is_some() && !any_pg {
        bail!(
            "--pg-perf-loss needs --pg-array, --pg-wl, --pg-cl, --pg-bl-float or --pg-interconnect"
        );
    }
    let pg = if any_pg {
        let perf_loss = a.pg_perf_loss.unwrap_or_else(|| {
            def("pg_perf_loss", "0.01 (CACTI default)".into());
            0.01
        });
        if !(perf_loss > 0.0 && perf_loss < 1.0) {
            bail!("--pg-perf-loss {perf_loss}: must be a fraction strictly between 0 and 1");
        }
        Some(PowerGatingCfg {
            array: a.pg_array,
            wordline: a.pg_wl,
            column: a.pg_cl,
            bitline_floating: a.pg_bl_float,
            interconnect: a.pg_interconnect,
            perf_loss,
        })
    } else {
        None
    };
    Ok(Resolved {
        spec,
        pg,
        retention: parse_retention(&a.pg_retention)?,
        source: "command-line flags".into(),
        defaults_used: defaults,
        not_applicable: Vec::new(),
        cfg: None,
    })
}

fn parse_retention(s: &str) -> Result<Retention> {
    match s {
        "vccmin" => Ok(Retention::Vccmin),
        "off" => Ok(Retention::Off),
        _ => bail!("--pg-retention {s:?}: expected vccmin or off"),
    }
}

fn from_cfg(path: &std::path::Path, a: &Args) -> Result<Resolved> {
    let c = cacti_cfg::read_file(path)?;
    let m = c.to_sram_spec()?;
    let mut not_applicable: Vec<(String, String)> = c
        .not_applicable
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                format!("{v} (not applicable to an SRAM UCA estimate)"),
            )
        })
        .collect();
    for (k, why) in &m.ignored_for_this_array {
        not_applicable.push((k.to_string(), why.clone()));
    }
    Ok(Resolved {
        spec: m.spec,
        pg: m.power_gating,
        retention: parse_retention(&a.pg_retention)?,
        source: format!("CACTI cfg {}", path.display()),
        defaults_used: m
            .defaults_used
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        not_applicable,
        cfg: Some(Box::new(c)),
    })
}

fn num(v: f64) -> Value {
    serde_json::Number::from_f64(v)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Gating figures for the data array of a result.
fn gating_json(
    tech: &Technology,
    spec: &SramSpec,
    r: &SramResult,
    pg: &PowerGatingCfg,
    retention: Retention,
) -> Result<Value> {
    let gt = GatingTech::new(tech, spec.cell_flavor, spec.peri_flavor)?;
    let d = &r.data;
    let sub = d.subarray;
    let cells_per_bank = sub.rows as f64 * sub.cols_with_ecc as f64 * d.num_subarrays as f64;
    if cells_per_bank <= 0.0 {
        bail!("SRAM result has no cells");
    }
    let leak = CellLeakage {
        subthreshold_per_cell: d.leakage.cells / cells_per_bank,
        gate_per_cell: d.gate_leakage.cells / cells_per_bank,
    };
    let per_mat = d.num_subarrays as f64 / d.num_mats.max(1) as f64;
    let sa = gating::subarray_gating(
        &gt,
        sub.rows,
        sub.cols_with_ecc,
        &leak,
        retention,
        pg.perf_loss,
    )?;
    let cacti = gating::cacti_array_gating(
        &gt,
        sub.rows,
        sub.cols_with_ecc,
        d.num_subarrays,
        d.num_mats.max(1),
        d.active_mats,
        pg.perf_loss,
    )?;
    let row_bits = spec.block_bytes * 8 + if spec.ecc { spec.block_bytes } else { 0 };
    let reg = gating::register_gating(&gt, row_bits, &leak, retention, pg.perf_loss)?;
    // CACTI-P figures (gating::cacti_p): wordline sleep transistors, bitline floating,
    // interconnect gating, and the bank leakage as CACTI 7 prints it with gating on.
    let o = d.organisation;
    let shape = ArrayShape {
        rows: sub.rows,
        cols: sub.cols_with_ecc,
        num_subarrays: d.num_subarrays,
        num_mats: d.num_mats.max(1),
        active_mats: d.active_mats.max(1),
        bitline_mux: o.ndcm.max(1),
        rw_ports: spec.rw_ports,
        rd_ports: spec.rd_ports,
        wr_ports: spec.wr_ports,
    };
    let sw = PgSwitches {
        array: pg.array,
        wordline: pg.wordline,
        column: pg.column,
        bitline_floating: pg.bitline_floating,
        interconnect: pg.interconnect,
    };
    let access = cacti_p::access_leakage_fraction(&gt, spec.rw_ports, spec.rd_ports, spec.wr_ports);
    let mut tag_sub = Power::ZERO;
    let mut tag_gate = Power::ZERO;
    if let Some(t) = &r.tag {
        tag_sub = t.leakage.total();
        tag_gate = t.gate_leakage.total();
    }
    let cacti_leak = cacti_p::sleep_leakage(&d.leakage, tag_sub, access, &sw);
    let wl = cacti_p::wordline_gating(&gt, &shape, pg.perf_loss)?;
    let bl = cacti_p::bitline_floating(&gt, &shape)?;
    let ic = cacti_p::interconnect_gating(d.leakage.htree);
    // Bank leakage with every gated component held at V_ccmin (physical model of
    // regwatt_power::drowsy), the access transistors of floating bitlines at
    // V_bitfloating (CACTI-P, linear), ungated components unchanged.
    let p = drowsy::leakage_params(tech.node_nm)?;
    let vdd = gt.cell_dev.vdd;
    let scale = |sub_: Power, gate_: Power, on: bool| -> (Power, Power) {
        if !on {
            return (sub_, gate_);
        }
        let s = drowsy::leakage_at(&p, tech.temperature, vdd, gt.vccmin, sub_, gate_);
        (s.subthreshold, s.gate)
    };
    let (l, g) = (&d.leakage, &d.gate_leakage);
    let inv = scale(l.cells * (1.0 - access), g.cells, pg.array);
    let acc = l.cells
        * access
        * if pg.bitline_floating {
            cacti_p::BITLINE_FLOAT_FRACTION
        } else {
            1.0
        };
    let cells = (inv.0 + acc, inv.1);
    let dec = scale(l.decoder, g.decoder, pg.wordline);
    let col = scale(l.column_periphery, g.column_periphery, pg.column);
    let ht = scale(l.htree, g.htree, pg.interconnect);
    let sleep_sub = cells.0 + dec.0 + col.0 + ht.0 + tag_sub;
    let sleep_gate = cells.1 + dec.1 + col.1 + ht.1 + tag_gate;
    let dom = |x: &gating::GatedDomain| {
        json!({
            "cells": x.cells,
            "sleep_transistors": x.sleep_transistors,
            "sleep_tx_width_um": num(x.sleep_tx.width.um()),
            "sleep_area_mm2": num(x.sleep_area.mm2()),
            "area_overhead_fraction": num(x.area_overhead),
            "wakeup_ns": num(x.wakeup_latency.ns()),
            "wakeup_energy_pj": num(x.wakeup_energy.pj()),
            "active_leakage_mw": num(x.active_leakage.mw()),
            "gated_leakage_mw": num(x.gated_leakage.mw()),
        })
    };
    Ok(json!({
        "array": pg.array,
        "wordline": pg.wordline,
        "column": pg.column,
        "bitline_floating": pg.bitline_floating,
        "interconnect": pg.interconnect,
        "perf_loss": num(pg.perf_loss),
        "retention": match retention { Retention::Vccmin => "vccmin", Retention::Off => "off" },
        "vccmin_v": num(gt.vccmin.v()),
        "subarray": dom(&sa),
        "register": dom(&reg),
        "cacti_style": {
            "sleep_tx_width_um": num(cacti.sleep_tx_width.um()),
            "sleep_area_mm2": num(cacti.sleep_area.mm2()),
            "wakeup_ns": num(cacti.wakeup_latency.ns()),
            "wakeup_nj": num(cacti.wakeup_energy.nj()),
            "wl_sleep_tx_width_um": num(wl.sleep_tx_width.um()),
            "wl_sleep_area_mm2": num(wl.sleep_area.mm2()),
            "wl_wakeup_ns": num(wl.wakeup_latency.ns()),
            "wl_wakeup_nj": num(wl.wakeup_energy.nj()),
            "bl_float_wakeup_ns": num(bl.wakeup_latency.ns()),
            "bl_float_wakeup_nj": num(bl.wakeup_energy.nj()),
            "active_mats": shape.active_mats,
            "active_subarrays_per_mat": num(shape.subarrays_per_mat()),
            "sleep_area_total_mm2": num((cacti.sleep_area + wl.sleep_area).mm2()),
            "leakage_mw": num(cacti_leak.cacti_printed.mw()),
        },
        "wordline_driver": {
            "driver_stages": wl.driver.nmos.len(),
            "driver_nmos_total_um": num(wl.driver.total_nmos().um()),
            "driver_pmos_total_um": num(wl.driver.total_pmos().um()),
            "wordline_capacitance_ff": num(wl.driver.load.ff()),
            "sleep_tx_area_um2": num(wl.sleep_tx_area.um2()),
        },
        "bitline_floating_detail": {
            "float_v": num(bl.float_voltage.v()),
            "pair_capacitance_ff": num(bl.pair_capacitance.ff()),
            "access_leakage_fraction": num(access),
        },
        "interconnect_gating": {
            "htree_active_mw": num(ic.active.mw()),
            "htree_gated_mw": num(ic.gated.mw()),
            "htree_saved_mw": num(ic.saved.mw()),
        },
        "cacti_sleep_leakage_mw": num(cacti_leak.cacti_printed.mw()),
        "cacti_sleep_leakage_with_interconnect_mw": num(cacti_leak.sleep.mw()),
        "sleep_leakage_mw": num(sleep_sub.mw()),
        "sleep_gate_leakage_mw": num(sleep_gate.mw()),
        "subarrays_per_mat": num(per_mat),
    }))
}

/// Which transistors the cells are built from: the node's dedicated SRAM bitcell device
/// (`Technology::cell_device`, the 12 nm FinFET node) or the cell flavour's device.
fn cell_device(tech: &Technology, spec: &SramSpec) -> String {
    if tech.sram_cell_device.is_some() && !spec.cell_flavor.is_dram() {
        format!(
            "{} nm SRAM bitcell device (cell flavour {} not used for cells)",
            tech.node_nm, spec.cell_flavor
        )
    } else {
        format!("{} (cell flavour)", spec.cell_flavor)
    }
}

/// Technologies by (node, temperature), each parsed once per process (batch estimates), or
/// the error loading it gave.
#[derive(Default)]
struct TechCache(Vec<((u64, u64), Result<Technology, String>)>);

fn tech_key(spec: &SramSpec) -> (u64, u64) {
    (spec.node_nm.to_bits(), spec.temperature.k().to_bits())
}

fn load_tech(spec: &SramSpec) -> Result<Technology, String> {
    Technology::for_node(spec.node_nm, spec.temperature)
        .with_context(|| {
            format!(
                "technology for {} nm at {} K",
                spec.node_nm,
                spec.temperature.k()
            )
        })
        .map_err(|e| format!("{e:#}"))
}

impl TechCache {
    /// Loads the technology of `spec` if it is not loaded yet.
    fn load(&mut self, spec: &SramSpec) {
        let key = tech_key(spec);
        if !self.0.iter().any(|(k, _)| *k == key) {
            self.0.push((key, load_tech(spec)));
        }
    }

    /// The technology of `spec`, which [`TechCache::load`] (or the batch) loaded, or the
    /// error loading it gave.
    fn get(&self, spec: &SramSpec) -> Result<&Technology> {
        match self.0.iter().find(|(k, _)| *k == tech_key(spec)) {
            Some((_, Ok(t))) => Ok(t),
            Some((_, Err(e))) => bail!("{e}"),
            None => bail!(
                "technology for {} nm at {} K not loaded",
                spec.node_nm,
                spec.temperature.k()
            ),
        }
    }
}

/// Runs `regwatt sram`.
pub fn run(args: Args) -> Result<()> {
    let mut techs = TechCache::default();
    match args.cacti_cfg.as_slice() {
        [] => {
            let res = from_flags(&args)?;
            techs.load(&res.spec);
            let (out, text) = estimate_one(&res, &techs)?;
            single_output(&args, out, text)
        }
        [one] if !one.is_dir() && !args.csv => {
            let res = from_cfg(one, &args)?;
            techs.load(&res.spec);
            let (out, text) = estimate_one(&res, &techs)?;
            single_output(&args, out, text)
        }
        many => batch(many, &args),
    }
}

fn single_output(args: &Args, out: Map<String, Value>, text: String) -> Result<()> {
    if args.json {
        let text = serde_json::to_string_pretty(&Value::Object(out))?;
        return emit(&format!("{text}\n"));
    }
    emit(&text)
}

/// The cfg files of `paths`: files as given, directories' `*.cfg` files sorted by name.
fn cfg_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("reading directory {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "cfg"))
                .collect();
            v.sort();
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Batch estimates: one record per file in input order. The files are read, their
/// technologies loaded (once per node and temperature) and the estimates made on `--jobs`
/// threads; the records are joined in input order, so the output does not depend on the
/// thread count.
fn batch(paths: &[PathBuf], args: &Args) -> Result<()> {
    let files = cfg_files(paths)?;
    let resolved = super::parallel_ordered(&files, args.jobs, |f| {
        from_cfg(f, args).and_then(|r| {
            r.spec.validate()?;
            Ok(r)
        })
    });
    // each distinct technology once, on the worker threads
    let mut specs: Vec<&SramSpec> = Vec::new();
    for r in resolved.iter().flatten() {
        if !specs.iter().any(|s| tech_key(s) == tech_key(&r.spec)) {
            specs.push(&r.spec);
        }
    }
    let loaded = super::parallel_ordered(&specs, args.jobs, |s| load_tech(s));
    let techs = TechCache(specs.iter().map(|s| tech_key(s)).zip(loaded).collect());
    let items: Vec<(&PathBuf, &Result<Resolved>)> = files.iter().zip(&resolved).collect();
    let records = super::parallel_ordered(&items, args.jobs, |&(f, res)| -> Result<String> {
        let res = res.as_ref().map_err(|e| anyhow::anyhow!("{e:#}"))?;
        if args.csv {
            let tech = techs.get(&res.spec)?;
            let r = estimate_result(res, tech)?;
            let mut rec = vec![f.display().to_string()];
            rec.extend(headline(&r).iter().map(|&v| num(v).to_string()));
            rec.push(String::new());
            csv_record(&rec)
        } else {
            let (mut out, _) = estimate_one(res, &techs)?;
            out.insert("file".into(), Value::String(f.display().to_string()));
            Ok(serde_json::to_string(&Value::Object(out))? + "\n")
        }
    });
    let mut text = String::new();
    if args.csv {
        let mut h = vec!["file".to_string()];
        h.extend(HEADLINE.iter().map(|c| c.to_string()));
        h.push("error".into());
        text.push_str(&csv_record(&h)?);
    }
    let mut failed = 0;
    for (f, rec) in files.iter().zip(records) {
        match rec {
            Ok(line) => text.push_str(&line),
            Err(e) => {
                failed += 1;
                if args.csv {
                    let mut rec = vec![f.display().to_string()];
                    rec.extend(HEADLINE.iter().map(|_| String::new()));
                    rec.push(format!("{e:#}").replace('\n', " "));
                    text.push_str(&csv_record(&rec)?);
                } else {
                    text.push_str(&serde_json::to_string(&json!({
                        "file": f.display().to_string(),
                        "error": format!("{e:#}"),
                    }))?);
                    text.push('\n');
                }
            }
        }
    }
    emit(&text)?;
    if failed > 0 {
        bail!(
            "{failed} of {} cfg file(s) failed (error records above)",
            files.len()
        );
    }
    Ok(())
}

/// The headline figures of an estimate, by their JSON key: the batch CSV's columns, in order,
/// and the first keys of the JSON object.
const HEADLINE: [&str; 9] = [
    "access_ns",
    "cycle_ns",
    "read_energy_pj",
    "write_energy_pj",
    "leakage_mw",
    "gate_leakage_mw",
    "area_mm2",
    "height_mm",
    "width_mm",
];

/// The values of [`HEADLINE`] for `r`.
fn headline(r: &sram::SramResult) -> [f64; 9] {
    [
        r.access_time.ns(),
        r.cycle_time.ns(),
        r.read_energy.pj(),
        r.write_energy.pj(),
        r.leakage_per_bank.mw(),
        r.gate_leakage_per_bank.mw(),
        r.area.mm2(),
        r.bank_height.mm(),
        r.bank_width.mm(),
    ]
}

/// One CSV record (cells made safe for spreadsheets), with its line end.
fn csv_record(cells: &[String]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(
        cells
            .iter()
            .map(|c| crate::csvout::safe_cell(c).into_owned()),
    )?;
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The estimate of a resolved configuration, its error naming the cfg file's line.
fn estimate_result(res: &Resolved, tech: &Technology) -> Result<sram::SramResult> {
    sram::estimate(&res.spec, tech).map_err(|e| match &res.cfg {
        Some(c) => anyhow::Error::from(c.spec_error(e)),
        None => e.into(),
    })
}

/// One estimate: the JSON object and the text table of `regwatt sram`.
fn estimate_one(res: &Resolved, techs: &TechCache) -> Result<(Map<String, Value>, String)> {
    let spec = &res.spec;
    spec.validate()?;
    let tech = techs.get(spec)?;
    let r = estimate_result(res, tech)?;
    let o = r.organisation;
    let mut out = Map::new();
    for (k, v) in HEADLINE.iter().zip(headline(&r)) {
        out.insert((*k).into(), num(v));
    }
    out.insert("node_source".into(), Value::String(tech.source.clone()));
    out.insert("cell_device".into(), Value::String(cell_device(tech, spec)));
    out.insert(
        "organisation".into(),
        json!({
            "ndwl": o.ndwl, "ndbl": o.ndbl, "nspd": num(o.nspd), "ndcm": o.ndcm,
            "ndsam1": o.ndsam1, "ndsam2": o.ndsam2,
            "subarray_rows": r.subarray.rows, "subarray_cols": r.subarray.cols_with_ecc,
            "subarray_height_mm": num(r.subarray.height.mm()),
            "subarray_width_mm": num(r.subarray.width.mm()),
            "subarrays_per_bank": r.num_subarrays, "mats_per_bank": r.num_mats,
        }),
    );
    if let Some(t) = &r.tag {
        out.insert(
            "tag".into(),
            json!({
                "tag_bits": r.tag_bits,
                "access_ns": num(t.access_time.ns()),
                "read_energy_pj": num(t.read.total().pj()),
                "leakage_mw": num(t.leakage.total().mw()),
                "area_mm2": num(t.area.total().mm2()),
                "organisation": {"ndwl": t.organisation.ndwl, "ndbl": t.organisation.ndbl, "nspd": num(t.organisation.nspd)},
            }),
        );
    }
    if let Some(pg) = &res.pg {
        out.insert(
            "power_gating".into(),
            gating_json(tech, spec, &r, pg, res.retention)?,
        );
    }
    let mut config = serde_json::to_value(spec)?;
    if let Value::Object(m) = &mut config {
        m.insert("source".into(), Value::String(res.source.clone()));
        // the spec's own `temperature` is a unit string (its TOML form): a number here
        m.remove("temperature");
        m.insert("temperature_k".into(), num(spec.temperature.k()));
        m.insert("technology".into(), Value::String(tech.provenance.clone()));
        m.insert(
            "power_gating".into(),
            match &res.pg {
                Some(pg) => serde_json::to_value(pg)?,
                None => json!(null),
            },
        );
        let kv = |v: &[(String, String)]| {
            Value::Object(
                v.iter()
                    .map(|(k, x)| (k.clone(), Value::String(x.clone())))
                    .collect(),
            )
        };
        m.insert("defaults_used".into(), kv(&res.defaults_used));
        m.insert("not_applicable".into(), kv(&res.not_applicable));
    }
    out.insert("config".into(), config);
    let mut text = String::new();
    let mut row = |k: &str, v: String| text.push_str(&format!("{k:<28} {v}\n"));
    row("regwatt sram", res.source.clone());
    row(
        "array",
        format!(
            "{} B, {} B blocks, assoc {}, {} bank(s), ports rw/rd/wr {}/{}/{}, {} nm, {} K",
            spec.capacity_bytes,
            spec.block_bytes,
            spec.associativity,
            spec.banks,
            spec.rw_ports,
            spec.rd_ports,
            spec.wr_ports,
            spec.node_nm,
            spec.temperature.k()
        ),
    );
    row("node source", tech.source.clone());
    row("cell devices", cell_device(tech, spec));
    row("access time (ns)", format!("{:.4}", r.access_time.ns()));
    row("cycle time (ns)", format!("{:.4}", r.cycle_time.ns()));
    row("read energy (pJ)", format!("{:.4}", r.read_energy.pj()));
    row("write energy (pJ)", format!("{:.4}", r.write_energy.pj()));
    row(
        "leakage / bank (mW)",
        format!("{:.4}", r.leakage_per_bank.mw()),
    );
    row(
        "gate leakage / bank (mW)",
        format!("{:.4}", r.gate_leakage_per_bank.mw()),
    );
    row("area, all banks (mm2)", format!("{:.5}", r.area.mm2()));
    row(
        "bank height x width (mm)",
        format!("{:.4} x {:.4}", r.bank_height.mm(), r.bank_width.mm()),
    );
    row(
        "organisation",
        format!(
            "Ndwl {} Ndbl {} Nspd {} Ndcm {} Ndsam {} {}; subarray {} x {}",
            o.ndwl,
            o.ndbl,
            o.nspd,
            o.ndcm,
            o.ndsam1,
            o.ndsam2,
            r.subarray.rows,
            r.subarray.cols_with_ecc
        ),
    );
    if let Some(t) = &r.tag {
        // a cache's tag array, as the JSON's `tag`
        row(
            "tag array",
            format!(
                "{} bits; access {:.4} ns, read {:.4} pJ, leakage {:.4} mW, area {:.5} mm2; Ndwl {} Ndbl {} Nspd {}",
                r.tag_bits.map_or("-".to_string(), |b| b.to_string()),
                t.access_time.ns(),
                t.read.total().pj(),
                t.leakage.total().mw(),
                t.area.total().mm2(),
                t.organisation.ndwl,
                t.organisation.ndbl,
                t.organisation.nspd
            ),
        );
    }
    if let Some(Value::Object(pg)) = out.get("power_gating") {
        for (k, v) in pg {
            row(&format!("power gating: {k}"), v.to_string());
        }
    }
    for (k, v) in &res.defaults_used {
        row(&format!("default: {k}"), v.clone());
    }
    Ok((out, text))
}

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error.
fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_forms() {
        assert_eq!(parse_capacity("4096").unwrap(), 4096);
        assert_eq!(parse_capacity("4KB").unwrap(), 4096);
        assert_eq!(parse_capacity("4 KiB").unwrap(), 4096);
        assert_eq!(parse_capacity("1MB").unwrap(), 1 << 20);
        assert!(parse_capacity("4XB").is_err());
        assert!(parse_capacity("").is_err());
        assert!(parse_capacity("0.5").is_err());
    }

    #[test]
    fn node_forms() {
        assert_eq!(parse_node("40nm").unwrap(), 40.0);
        assert_eq!(parse_node("40").unwrap(), 40.0);
        assert!((parse_node("0.040um").unwrap() - 40.0).abs() < 1e-9);
        assert!((parse_node("0.040").unwrap() - 40.0).abs() < 1e-9);
        assert!(parse_node("fast").is_err());
    }
}
