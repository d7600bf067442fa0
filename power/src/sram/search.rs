//! Organisation search (CACTI 7 `Ucache.cc` solve / filter / find_optimal): enumerate Ndwl,
//! Ndbl, Nspd, Ndcm, Ndsam1, Ndsam2 over powers of two, keep the organisations CACTI's rules
//! accept, drop those outside the deviation limits from the best value of each metric, and
//! pick the best by the objective (ED², ED or weighted sum of normalised metrics).

use regwatt_tech::units::{Area, Energy, Length, Power, Time};
use regwatt_tech::Technology;

use super::model::{ArrayKind, Coefficients, Metrics, Prep, Raw, MIN_SUBARRAY_ROWS};
use super::result::{
    AreaBreakdown, ArrayResult, DelayBreakdown, EnergyBreakdown, LeakageBreakdown, SramResult,
    SubarrayGeometry,
};
use super::spec::{Objective, Optimisation, Organisation, SramSpec};
use super::SramError;

/// Upper bound of Ndwl and Ndbl (CACTI `MAXDATAN`).
const MAX_N: u32 = 512;
/// Range of Nspd exponents (2^-6 .. 2^8; CACTI `MAXDATASPD` = 256).
const NSPD_EXP: std::ops::RangeInclusive<i32> = -6..=8;
/// Upper bound of the column mux degree (CACTI `MAX_COL_MUX`).
const MAX_COL_MUX: u32 = 256;
/// Upper bound of each sense-amp mux level.
const MAX_SA_MUX: u32 = 8;

#[derive(Clone, Copy)]
struct Cand {
    org: Organisation,
    m: Metrics,
}

fn p2s(max: u32) -> impl Iterator<Item = u32> {
    (0..=31).map(|e| 1u32 << e).take_while(move |&v| v <= max)
}

/// Enumerates and evaluates every valid organisation of one array. The mux-independent part
/// of each (Ndwl, Ndbl, Nspd) is computed once ([`Prep::row_stage`]).
fn candidates(prep: &Prep, k: &Coefficients, out: &mut Vec<Cand>) {
    out.clear();
    let max_sa1 = MAX_SA_MUX.max(prep.assoc);
    for ndwl in p2s(MAX_N).skip(1) {
        for ndbl in p2s(MAX_N).skip(1) {
            if prep.sets_per_bank / (ndbl as f64 * 256.0) > MAX_SUBARRAY_ROWS_F {
                continue;
            }
            for e in NSPD_EXP {
                let nspd = (e as f64).exp2();
                // CACTI Ucache.cc solve(): Nspd starts at out_w / (8 x block bytes).
                if nspd < prep.nspd_min {
                    continue;
                }
                let rows = (prep.sets_per_bank / (ndbl as f64 * nspd)).ceil();
                if rows < MIN_SUBARRAY_ROWS {
                    break; // rows only shrink as Nspd grows
                }
                let cols = prep.bits_per_set * nspd / ndwl as f64;
                if cols < 2.0 || cols.fract() != 0.0 {
                    continue;
                }
                let Some(st) = prep.row_stage(ndwl, ndbl, nspd) else {
                    continue;
                };
                let mats_h = (ndwl / 2).max(1) as f64;
                // Data arrays: 1 <= floor(out / floor(4 cols / mux)) <= mats_h; more muxing
                // only raises the active-mat count, so each loop breaks once it overshoots.
                let too_many = |mux: f64| {
                    let do_b_mat = (4.0 * cols / mux).floor();
                    do_b_mat < 4.0
                        || (prep.kind == ArrayKind::Data
                            && (prep.out_bits as f64 / do_b_mat).floor() > mats_h)
                };
                for ndcm in p2s(MAX_COL_MUX) {
                    if ndcm as f64 > cols || too_many(ndcm as f64) {
                        break;
                    }
                    for ndsam1 in p2s(max_sa1) {
                        if too_many((ndcm * ndsam1) as f64) {
                            break;
                        }
                        for ndsam2 in p2s(MAX_SA_MUX) {
                            let mux = (ndcm * ndsam1 * ndsam2) as f64;
                            if too_many(mux) {
                                break;
                            }
                            if prep.kind == ArrayKind::Data {
                                let do_b_mat = (4.0 * cols / mux).floor();
                                if prep.out_bits as f64 / do_b_mat < 1.0 {
                                    continue;
                                }
                            }
                            let org = Organisation {
                                ndwl,
                                ndbl,
                                nspd,
                                ndcm,
                                ndsam1,
                                ndsam2,
                            };
                            if let Some(raw) = prep.eval_with(&st, &org) {
                                out.push(Cand {
                                    org,
                                    m: raw.metrics(k),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

const MAX_SUBARRAY_ROWS_F: f64 = super::model::MAX_SUBARRAY_ROWS;

/// CACTI's filter and objective; returns the index of the chosen candidate.
fn choose(c: &[Cand], opt: &Optimisation) -> Option<usize> {
    if c.is_empty() {
        return None;
    }
    let leak = |m: &Metrics| m.leak + m.gate_leak;
    let mut mins = [f64::INFINITY; 5];
    for x in c {
        let v = [x.m.access, x.m.read, leak(&x.m), x.m.cycle, x.m.area_bank];
        for i in 0..5 {
            mins[i] = mins[i].min(v[i]);
        }
    }
    let d = &opt.max_deviation;
    let lim = [d.delay, d.dynamic, d.leakage, d.cycle, d.area];
    let ok = |x: &Cand| {
        let v = [x.m.access, x.m.read, leak(&x.m), x.m.cycle, x.m.area_bank];
        (0..5).all(|i| v[i] <= mins[i] * (1.0 + lim[i] / 100.0) * (1.0 + 1e-12))
    };
    // minima of the survivors for the weighted objective
    let mut smin = [f64::INFINITY; 5];
    for x in c.iter().filter(|x| ok(x)) {
        let v = [x.m.access, x.m.read, leak(&x.m), x.m.cycle, x.m.area_bank];
        for i in 0..5 {
            smin[i] = smin[i].min(v[i]);
        }
    }
    let w = &opt.weights;
    let cost = |x: &Cand| match opt.objective {
        Objective::Ed2 => x.m.read * x.m.access * x.m.access,
        Objective::Ed => x.m.read * x.m.access,
        Objective::None => {
            let v = [x.m.access, x.m.read, leak(&x.m), x.m.cycle, x.m.area_bank];
            let ws = [w.delay, w.dynamic, w.leakage, w.cycle, w.area];
            (0..5)
                .map(|i| {
                    if smin[i] > 0.0 {
                        ws[i] * v[i] / smin[i]
                    } else {
                        0.0
                    }
                })
                .sum()
        }
    };
    let mut best: Option<(usize, f64)> = None;
    for (i, x) in c.iter().enumerate() {
        if !ok(x) {
            continue;
        }
        let cst = cost(x);
        if best.is_none_or(|(_, b)| cst < b) {
            best = Some((i, cst));
        }
    }
    best.map(|(i, _)| i)
}

fn array_result(raw: &Raw, k: &Coefficients, banks: u32) -> ArrayResult {
    let m = raw.metrics(k);
    let e = Energy;
    let pw = Power;
    let t = Time;
    let read = EnergyBreakdown {
        decoder: e(k.decoder_energy * raw.e_dec),
        wordline: e(k.decoder_energy * raw.e_wl),
        bitline: e(k.bitline_read_energy * raw.e_bl_read + k.column_energy * raw.e_pre),
        senseamp: e(k.column_energy * raw.e_sa),
        mat_output: e(k.column_energy * raw.e_matout),
        htree: e(k.htree_energy * raw.e_ht_read),
        comparator: e(k.column_energy * raw.e_comp),
    };
    let write = EnergyBreakdown {
        decoder: e(k.decoder_energy * raw.e_dec),
        wordline: e(k.decoder_energy * raw.e_wl),
        bitline: e(k.bitline_write_energy * raw.e_bl_write + k.column_energy * raw.e_pre),
        senseamp: Energy::ZERO,
        mat_output: Energy::ZERO,
        htree: e(k.htree_energy * raw.e_ht_write),
        comparator: e(k.column_energy * raw.e_comp),
    };
    let leakage = LeakageBreakdown {
        cells: pw(k.cell_leakage * raw.l_cell),
        decoder: pw(k.periphery_leakage * raw.l_dec),
        column_periphery: pw(k.periphery_leakage * raw.l_col),
        htree: pw(k.periphery_leakage * raw.l_ht),
    };
    let gate_leakage = LeakageBreakdown {
        cells: pw(k.cell_gate_leakage * raw.g_cell),
        decoder: pw(k.periphery_gate_leakage * raw.g_dec),
        column_periphery: pw(k.periphery_gate_leakage * raw.g_col),
        htree: pw(k.periphery_gate_leakage * raw.g_ht),
    };
    let b = banks as f64;
    let area = AreaBreakdown {
        cells: Area(raw.a_cell * b),
        decoder: Area(k.periphery_area * raw.a_dec * b),
        column_periphery: Area(k.periphery_area * raw.a_col * b),
        htree: Area(k.htree_area * raw.a_ht * b),
    };
    let delay = DelayBreakdown {
        htree_in: t(k.wire_delay * raw.t_ht_in),
        decoder_wordline: t(k.logic_delay * raw.t_dec),
        bitline: t(k.bitline_delay * raw.t_bl),
        senseamp: t(k.logic_delay * raw.t_sa),
        output: t(k.logic_delay * raw.t_out_logic + k.wire_delay * raw.t_out_wire),
        compare: t(k.logic_delay * raw.t_comp),
    };
    let [ndwl, ndbl, nspd, ndcm, ndsam1, ndsam2] = raw.org;
    ArrayResult {
        organisation: Organisation {
            ndwl: ndwl as u32,
            ndbl: ndbl as u32,
            nspd,
            ndcm: ndcm as u32,
            ndsam1: ndsam1 as u32,
            ndsam2: ndsam2 as u32,
        },
        subarray: SubarrayGeometry {
            rows: raw.rows as u32,
            cols: raw.cols as u32,
            cols_with_ecc: raw.cols_ecc as u32,
            height: Length(raw.sub_h),
            width: Length(raw.sub_w),
        },
        num_subarrays: raw.num_sub as u32,
        num_mats: raw.num_mats as u32,
        active_mats: raw.n_act as u32,
        access_time: t(m.access),
        cycle_time: t(m.cycle),
        delay,
        read,
        write,
        leakage,
        gate_leakage,
        area,
        bank_height: Length(raw.bank_h),
        bank_width: Length(if raw.bank_h > 0.0 {
            m.area_bank / raw.bank_h
        } else {
            0.0
        }),
    }
}

/// Searches one array; `forced` evaluates exactly that organisation.
pub(crate) fn solve_array(
    prep: &Prep,
    k: &Coefficients,
    opt: &Optimisation,
    forced: Option<&Organisation>,
    name: &'static str,
) -> Result<Raw, SramError> {
    if let Some(o) = forced {
        return prep.eval(o).ok_or_else(|| {
            SramError::InvalidOrganisation(format!(
                "{name} array: Ndwl {} Ndbl {} Nspd {} Ndcm {} Ndsam {} {} violates CACTI's rules (subarray 16..=262144 rows x 2..=262144 columns, output bits per mat >= subarrays per mat, active mats <= Ndwl/2)",
                o.ndwl, o.ndbl, o.nspd, o.ndcm, o.ndsam1, o.ndsam2
            ))
        });
    }
    let mut v = Vec::with_capacity(1024);
    candidates(prep, k, &mut v);
    match choose(&v, opt) {
        Some(i) => prep
            .eval(&v[i].org)
            .ok_or(SramError::NoValidOrganisation { array: name }),
        None => {
            if prep.sets_per_bank < 2.0 * MIN_SUBARRAY_ROWS {
                Err(SramError::TooFewRows {
                    rows: prep.sets_per_bank as u64,
                })
            } else {
                Err(SramError::NoValidOrganisation { array: name })
            }
        }
    }
}

/// Full estimate: data array (+ tag array for caches).
pub(crate) fn run(
    spec: &SramSpec,
    tech: &Technology,
    k: &Coefficients,
) -> Result<SramResult, SramError> {
    spec.validate()?;
    if (spec.temperature.k() - tech.temperature.k()).abs() > 1e-9 {
        return Err(SramError::TemperatureMismatch {
            spec: spec.temperature.k(),
            tech: tech.temperature.k(),
        });
    }
    let data_prep = Prep::new(spec, tech, ArrayKind::Data)?;
    let data_raw = solve_array(
        &data_prep,
        k,
        &spec.optimisation,
        spec.force_organisation.as_ref(),
        "data",
    )?;
    let data = array_result(&data_raw, k, spec.banks);
    let (tag, tag_bits) = if spec.associativity > 1 {
        let tp = Prep::new(spec, tech, ArrayKind::Tag)?;
        let traw = solve_array(&tp, k, &spec.optimisation, None, "tag")?;
        (Some(array_result(&traw, k, spec.banks)), Some(tp.tag_bits))
    } else {
        (None, None)
    };
    let mut r = SramResult {
        access_time: data.access_time,
        cycle_time: data.cycle_time,
        read_energy: data.read.total(),
        write_energy: data.write.total(),
        leakage_per_bank: data.leakage.total(),
        gate_leakage_per_bank: data.gate_leakage.total(),
        area: data.area.total(),
        bank_height: data.bank_height,
        bank_width: data.bank_width,
        organisation: data.organisation,
        subarray: data.subarray,
        num_subarrays: data.num_subarrays,
        num_mats: data.num_mats,
        data: data.clone(),
        tag: None,
        tag_bits,
    };
    if let Some(t) = tag {
        // CACTI "normal" mode: tag and data accessed in parallel; the way select waits for
        // the tag compare.
        r.access_time = r.access_time.max(t.access_time);
        r.cycle_time = r.cycle_time.max(t.cycle_time);
        r.read_energy += t.read.total();
        r.write_energy += t.write.total();
        r.leakage_per_bank += t.leakage.total();
        r.gate_leakage_per_bank += t.gate_leakage.total();
        r.area += t.area.total();
        r.bank_width += t.bank_width;
        r.tag = Some(t);
    }
    Ok(r)
}

/// Evaluates the raw model at a given organisation (calibration helper).
pub(crate) fn raw_at(
    spec: &SramSpec,
    tech: &Technology,
    kind: ArrayKind,
    org: &Organisation,
) -> Result<Raw, SramError> {
    let p = Prep::new(spec, tech, kind)?;
    p.eval(org)
        .ok_or_else(|| SramError::InvalidOrganisation(format!("{org:?}")))
}
