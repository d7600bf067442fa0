//! Organisation search (CACTI 7 `Ucache.cc` solve / filter / find_optimal): enumerate Ndwl,
//! Ndbl, Nspd, Ndcm, Ndsam1, Ndsam2 over powers of two, keep the organisations CACTI's rules
//! accept, drop those outside the deviation limits from the best value of each metric, and
//! pick the best by the objective (ED², ED or weighted sum of normalised metrics).

use regwatt_tech::units::{Area, Capacitance, Energy, Length, Power, Time};
use regwatt_tech::Technology;

use super::model::{fceil, ArrayKind, Coefficients, Metrics, Prep, Raw, MIN_SUBARRAY_ROWS};
use super::result::{
    AreaBreakdown, ArrayResult, CircuitDetails, DelayBreakdown, EnergyBreakdown, LeakageBreakdown,
    SramResult, SubarrayGeometry,
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
/// `full = false`: lean evaluation for an ED / ED² choice of a RAM's data array, which also
/// lets the search skip dominated organisations (see [`candidates_mode`]).
fn candidates(prep: &Prep, k: &Coefficients, out: &mut Vec<Cand>, full: bool) {
    if full {
        candidates_mode::<true>(prep, k, out)
    } else {
        candidates_mode::<false>(prep, k, out)
    }
}

/// Relative safety margin of the dominance test: far above the rounding error of the
/// ~30-term sums behind a metric or its bound (~1e-14), far below any real difference.
const DOMINANCE_MARGIN: f64 = 1e-9;

/// Evaluated organisations that may dominate later ones: the lowest access time, the lowest
/// read energy and the lowest access² x read seen so far, as (access, read).
#[derive(Default)]
struct Front {
    pts: [(f64, f64); 3],
    n: usize,
}

impl Front {
    fn add(&mut self, t: f64, r: f64) {
        if self.n == 0 {
            self.pts = [(t, r); 3];
            self.n = 3;
            return;
        }
        if t < self.pts[0].0 {
            self.pts[0] = (t, r);
        }
        if r < self.pts[1].1 {
            self.pts[1] = (t, r);
        }
        let (bt, br) = self.pts[2];
        if t * t * r < bt * bt * br {
            self.pts[2] = (t, r);
        }
    }

    /// True when an organisation whose access time and read energy are at least
    /// (`t_lb`, `r_lb`) is strictly beaten on both by a point of the front.
    fn dominates(&self, t_lb: f64, r_lb: f64) -> bool {
        let (t, r) = (
            t_lb * (1.0 - DOMINANCE_MARGIN),
            r_lb * (1.0 - DOMINANCE_MARGIN),
        );
        self.pts[..self.n]
            .iter()
            .any(|&(pt, pr)| t > pt * (1.0 + DOMINANCE_MARGIN) && r > pr * (1.0 + DOMINANCE_MARGIN))
    }
}

/// [`candidates`] with the evaluation mode as a constant (see [`Prep::eval_mode`]).
///
/// Lean mode (`FULL = false`, an ED / ED² choice) skips every organisation of a row stage
/// when an organisation already evaluated has a strictly lower access time *and* read energy
/// than the stage's lower bounds ([`Prep::lower_bounds`]), with a relative margin. Such an
/// organisation cannot hold the minimum of either metric (the normalisation of ED / ED²),
/// survives `filter_data_arr` only if its dominator does, and costs strictly more than it
/// (the cost is monotone in both metrics), so the choice is unchanged bit for bit. Callers
/// pass lean mode only for RAMs: a cache's data metrics are combined with the tag's first,
/// which can turn a strict win into a tie.
fn candidates_mode<const FULL: bool>(prep: &Prep, k: &Coefficients, out: &mut Vec<Cand>) {
    out.clear();
    let mut front = Front::default();
    let max_sa1 = MAX_SA_MUX.max(prep.assoc);
    for ndwl in p2s(MAX_N).skip(1) {
        for ndbl in p2s(MAX_N).skip(1) {
            if prep.sets_per_bank / (ndbl as f64 * 256.0) > MAX_SUBARRAY_ROWS_F {
                continue;
            }
            for e in NSPD_EXP {
                let nspd = if e >= 0 {
                    (1u32 << e) as f64
                } else {
                    1.0 / (1u32 << -e) as f64
                };
                // CACTI Ucache.cc solve(): Nspd starts at out_w / (8 x block bytes).
                if nspd < prep.nspd_min {
                    continue;
                }
                let rows = fceil(prep.sets_per_bank / (ndbl as f64 * nspd));
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
                if !FULL && front.n > 0 {
                    if let Some((t_lb, r_lb)) = prep.lower_bounds(&st, k) {
                        if front.dominates(t_lb, r_lb) {
                            continue;
                        }
                    }
                }
                // Data arrays: 1 <= floor(out / floor(4 cols / mux)) <= mats_h; more muxing
                // only raises the active-mat count, so each loop breaks once it overshoots.
                // All integers (mux = 2^lg): floor(4 cols / mux) = 4 cols >> lg, and
                // floor(out / d) > mats_h <=> out >= (mats_h + 1) d.
                let cols_u = cols as u64;
                let mats_h = (ndwl / 2).max(1) as u64;
                let data = prep.kind == ArrayKind::Data;
                let out_b = prep.out_bits as u64;
                let too_many = |lg: u32| {
                    let d = (4 * cols_u) >> lg;
                    d < 4 || (data && out_b >= (mats_h + 1) * d)
                };
                for ndcm in p2s(MAX_COL_MUX) {
                    let l1 = ndcm.trailing_zeros();
                    if ndcm as u64 > cols_u || too_many(l1) {
                        break;
                    }
                    for ndsam1 in p2s(max_sa1) {
                        let l2 = l1 + ndsam1.trailing_zeros();
                        if too_many(l2) {
                            break;
                        }
                        for ndsam2 in p2s(MAX_SA_MUX) {
                            let l3 = l2 + ndsam2.trailing_zeros();
                            if too_many(l3) {
                                break;
                            }
                            if data && out_b < (4 * cols_u) >> l3 {
                                continue;
                            }
                            let org = Organisation {
                                ndwl,
                                ndbl,
                                nspd,
                                ndcm,
                                ndsam1,
                                ndsam2,
                            };
                            if let Some(raw) = prep.eval_mode::<FULL>(&st, &org) {
                                let m = raw.metrics(k);
                                if !FULL {
                                    front.add(m.access, m.read);
                                }
                                out.push(Cand { org, m });
                            }
                        }
                    }
                }
            }
        }
    }
}

const MAX_SUBARRAY_ROWS_F: f64 = super::model::MAX_SUBARRAY_ROWS;

/// The five metrics CACTI compares, in its order (access time, read energy, leakage, cycle
/// time, area). Leakage is subthreshold only, as CACTI's `power.readOp.leakage`.
#[inline]
fn five(m: &Metrics) -> [f64; 5] {
    [m.access, m.read, m.leak, m.cycle, m.area_bank]
}

/// Minimum of each metric (CACTI `min_values_t::update_min_values`).
fn minima<'a>(it: impl Iterator<Item = &'a Metrics>) -> [f64; 5] {
    let mut mins = [f64::INFINITY; 5];
    for m in it {
        for (lo, v) in mins.iter_mut().zip(five(m)) {
            *lo = lo.min(v);
        }
    }
    mins
}

/// CACTI `check_uca_org` / `check_mem_org`: every metric within its deviation limit (percent
/// above the minimum).
fn within_deviation(m: &Metrics, mins: &[f64; 5], opt: &Optimisation) -> bool {
    let d = &opt.max_deviation;
    let lim = [d.delay, d.dynamic, d.leakage, d.cycle, d.area];
    five(m)
        .iter()
        .zip(mins)
        .zip(lim)
        .all(|((v, lo), l)| (v - lo) * 100.0 / lo <= l)
}

/// CACTI's weighted objective: sum of weight x metric / minimum.
fn weighted_cost(m: &Metrics, mins: &[f64; 5], opt: &Optimisation) -> f64 {
    let w = &opt.weights;
    let ws = [w.delay, w.dynamic, w.leakage, w.cycle, w.area];
    five(m)
        .iter()
        .zip(mins)
        .zip(ws)
        .map(|((v, lo), wt)| if wt == 0.0 { 0.0 } else { wt * v / lo })
        .sum()
}

/// CACTI's candidate order (`mem_array::lt`: Nspd, Ndwl, Ndbl, Ndcm, Ndsam1, Ndsam2); it
/// decides ties.
fn cacti_lt(a: &Organisation, b: &Organisation) -> std::cmp::Ordering {
    a.nspd
        .total_cmp(&b.nspd)
        .then(a.ndwl.cmp(&b.ndwl))
        .then(a.ndbl.cmp(&b.ndbl))
        .then(a.ndcm.cmp(&b.ndcm))
        .then(a.ndsam1.cmp(&b.ndsam1))
        .then(a.ndsam2.cmp(&b.ndsam2))
}

/// CACTI `Ucache.cc` `filter_data_arr`: drops the data-array organisations whose access time
/// AND read energy are both more than 50% above the minima over all valid organisations.
fn filter_data_arr(c: &mut Vec<Cand>) {
    let mins = minima(c.iter().map(|x| &x.m));
    c.retain(|x| !((x.m.access - mins[0]) / mins[0] > 0.5 && (x.m.read - mins[1]) / mins[1] > 0.5));
}

/// CACTI `Ucache.cc` `filter_tag_arr`: the tag organisation with the lowest weighted cost
/// among those within the deviation limits, minima over all valid tag organisations. The
/// weights apply whatever the objective (CACTI uses them for the tag array even under ED²).
/// CACTI walks the list from its end and keeps a strictly better cost, so among ties the
/// last organisation in its order wins.
fn filter_tag_arr(c: &[Cand], opt: &Optimisation) -> Option<usize> {
    let mins = minima(c.iter().map(|x| &x.m));
    let mut best: Option<(usize, f64)> = None;
    for (i, x) in c.iter().enumerate() {
        if !within_deviation(&x.m, &mins, opt) {
            continue;
        }
        let cost = weighted_cost(&x.m, &mins, opt);
        let better = match best {
            None => true,
            Some((j, b)) => cost < b || (cost == b && cacti_lt(&x.org, &c[j].org).is_gt()),
        };
        if better {
            best = Some((i, cost));
        }
    }
    best.map(|(i, _)| i)
}

/// Metrics of a whole cache from its tag and data arrays (CACTI `uca_org_t` find_delay /
/// find_energy / find_area / find_cyc, normal access mode: tag and data in parallel).
fn combine(tag: Option<&Metrics>, d: &Metrics) -> Metrics {
    match tag {
        None => *d,
        Some(t) => Metrics {
            access: t.access.max(d.access),
            cycle: t.cycle.max(d.cycle),
            read: t.read + d.read,
            write: t.write + d.write,
            leak: t.leak + d.leak,
            gate_leak: t.gate_leak + d.gate_leak,
            area_bank: t.area_bank + d.area_bank,
        },
    }
}

/// CACTI `Ucache.cc` solve() after the enumeration, for the data array: `filter_data_arr`,
/// then the minima of the whole-cache metrics over the survivors, then `find_optimal_uca`
/// (ED / ED² over all survivors; objective NONE: deviation check, then the weighted sum of
/// metrics normalised to those minima). Returns the index of the chosen candidate in `c`
/// (which this filters in place).
fn choose_data(c: &mut Vec<Cand>, tag: Option<&Metrics>, opt: &Optimisation) -> Option<usize> {
    if c.is_empty() {
        return None;
    }
    filter_data_arr(c);
    // whole-cache metrics (a RAM's are its data array's)
    if let Some(t) = tag {
        for x in c.iter_mut() {
            x.m = combine(Some(t), &x.m);
        }
    }
    let c: &[Cand] = c;
    let mins = minima(c.iter().map(|x| &x.m));
    match opt.objective {
        Objective::Ed | Objective::Ed2 => {
            let p = if opt.objective == Objective::Ed2 {
                2
            } else {
                1
            };
            let mut best: Option<(usize, f64)> = None;
            for (i, m) in c.iter().map(|x| &x.m).enumerate() {
                let t = m.access / mins[0];
                let cost = t.powi(p) * (m.read / mins[1]);
                // CACTI keeps the first strict minimum in its candidate order.
                let better = match best {
                    None => true,
                    Some((j, b)) => {
                        cost < b || (cost == b && cacti_lt(&c[i].org, &c[j].org).is_lt())
                    }
                };
                if better {
                    best = Some((i, cost));
                }
            }
            best.map(|(i, _)| i)
        }
        Objective::None => {
            // CACTI's loop erases every candidate it rejects or takes as the new best from
            // its std::list; after erasing the list's first element the iterator skips the
            // element that becomes first. Reproduced here over the candidates in CACTI order.
            let mut order: Vec<usize> = (0..c.len()).collect();
            order.sort_by(|&a, &b| cacti_lt(&c[a].org, &c[b].org));
            let mut best: Option<(usize, f64)> = None;
            let mut alive_before = false;
            let mut skip = false;
            for &i in &order {
                if skip {
                    skip = false;
                    alive_before = true;
                    continue;
                }
                let m = &c[i].m;
                let erased = if within_deviation(m, &mins, opt) {
                    let cost = weighted_cost(m, &mins, opt);
                    if best.is_none_or(|(_, b)| cost < b) {
                        best = Some((i, cost));
                        true
                    } else {
                        false
                    }
                } else {
                    true
                };
                if erased {
                    if !alive_before {
                        skip = true;
                    }
                } else {
                    alive_before = true;
                }
            }
            best.map(|(i, _)| i)
        }
    }
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
        output: t(
            k.logic_delay * (raw.t_out_logic + raw.t_ht_nodes) + k.wire_delay * raw.t_out_wire
        ),
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
        circuit: CircuitDetails {
            wordline_driver_nmos_width: Length(raw.w_wl_drv_n),
            wordline_driver_pmos_width: Length(raw.w_wl_drv_n * raw.p2n),
            bitline_capacitance: Capacitance(raw.c_bitline),
            cell_leakage_inverters: pw(k.cell_leakage * raw.l_cell_inv),
            cell_leakage_access: pw(k.cell_leakage * (raw.l_cell - raw.l_cell_inv)),
        },
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

fn forced_error(name: &str, o: &Organisation) -> SramError {
    SramError::InvalidOrganisation(format!(
        "{name} array: Ndwl {} Ndbl {} Nspd {} Ndcm {} Ndsam {} {} violates CACTI's rules (subarray 16..=262144 rows x 2..=262144 columns, output bits per mat >= subarrays per mat, active mats <= Ndwl/2)",
        o.ndwl, o.ndbl, o.nspd, o.ndcm, o.ndsam1, o.ndsam2
    ))
}

fn none_found(prep: &Prep, name: &'static str) -> SramError {
    if prep.sets_per_bank < 2.0 * MIN_SUBARRAY_ROWS {
        SramError::TooFewRows {
            rows: prep.sets_per_bank as u64,
        }
    } else {
        SramError::NoValidOrganisation { array: name }
    }
}

/// Searches the tag array of a cache (CACTI `filter_tag_arr`).
fn solve_tag(prep: &Prep, k: &Coefficients, opt: &Optimisation) -> Result<Raw, SramError> {
    let mut v = Vec::with_capacity(1024);
    candidates(prep, k, &mut v, true);
    match filter_tag_arr(&v, opt) {
        Some(i) => prep
            .eval(&v[i].org)
            .ok_or(SramError::NoValidOrganisation { array: "tag" }),
        None => Err(none_found(prep, "tag")),
    }
}

/// Searches the data array (RAM, or a cache's data array given its chosen tag array's
/// metrics); `forced` evaluates exactly that organisation.
pub(crate) fn solve_data(
    prep: &Prep,
    k: &Coefficients,
    opt: &Optimisation,
    forced: Option<&Organisation>,
    tag: Option<&Metrics>,
) -> Result<Raw, SramError> {
    if let Some(o) = forced {
        return prep.eval(o).ok_or_else(|| forced_error("data", o));
    }
    let mut v = Vec::with_capacity(1024);
    // ED / ED² compare only access time and read energy (the other metrics' minima are
    // never used), so the search evaluates the lean model (and, for a RAM, skips dominated
    // organisations).
    candidates(
        prep,
        k,
        &mut v,
        opt.objective == Objective::None || tag.is_some(),
    );
    match choose_data(&mut v, tag, opt) {
        Some(i) => prep
            .eval(&v[i].org)
            .ok_or(SramError::NoValidOrganisation { array: "data" }),
        None => Err(none_found(prep, "data")),
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
    // CACTI solve(): the tag array is chosen first, on its own; the data array is then
    // chosen on the whole cache's metrics.
    let tag_part = if spec.associativity > 1 {
        let tp = Prep::new(spec, tech, ArrayKind::Tag)?;
        let traw = solve_tag(&tp, k, &spec.optimisation)?;
        Some((traw, tp.tag_bits))
    } else {
        None
    };
    let tag_metrics = tag_part.as_ref().map(|(t, _)| t.metrics(k));
    let data_prep = Prep::new(spec, tech, ArrayKind::Data)?;
    let data_raw = solve_data(
        &data_prep,
        k,
        &spec.optimisation,
        spec.force_organisation.as_ref(),
        tag_metrics.as_ref(),
    )?;
    let data = array_result(&data_raw, k, spec.banks);
    let (tag, tag_bits) = match tag_part {
        Some((traw, bits)) => (Some(array_result(&traw, k, spec.banks)), Some(bits)),
        None => (None, None),
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

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    /// The lean ED / ED² search, which skips dominated row stages, chooses the same
    /// organisation as the exhaustive full evaluation, and really skips some.
    #[test]
    fn dominance_pruning_keeps_the_choice() {
        let k = Coefficients::fitted().expect("fitted.toml");
        let mut skipped = 0;
        for nm in [40.0, 12.0] {
            let tech = Technology::for_node(nm, Temperature::from_k(360.0)).expect("node");
            for (cap, block, ports) in [
                (4096u64, 16u32, (0u32, 1u32, 1u32)),
                (32768, 128, (1, 0, 0)),
                (65536, 64, (1, 1, 0)),
                (1 << 20, 64, (1, 0, 0)),
            ] {
                for obj in [Objective::Ed2, Objective::Ed] {
                    let mut s = SramSpec::ram(cap, block, nm);
                    (s.rw_ports, s.rd_ports, s.wr_ports) = ports;
                    s.optimisation.objective = obj;
                    let prep = Prep::new(&s, &tech, ArrayKind::Data).expect("prep");
                    let (mut all, mut lean) = (Vec::new(), Vec::new());
                    candidates(&prep, k, &mut all, true);
                    candidates(&prep, k, &mut lean, false);
                    assert!(lean.len() <= all.len());
                    skipped += all.len() - lean.len();
                    let a = choose_data(&mut all, None, &s.optimisation).expect("some");
                    let b = choose_data(&mut lean, None, &s.optimisation).expect("some");
                    assert_eq!(all[a].org, lean[b].org, "{nm} nm {cap} B {obj:?}");
                }
            }
        }
        assert!(skipped > 0);
    }

    /// The lean search chooses the exhaustive search's organisation on every CACTI 7
    /// reference configuration of the repository (`calibrations/cacti7-train-cfg/`) where it
    /// applies (a RAM's data array under ED or ED², not forced), and skips organisations on
    /// most of them.
    #[test]
    fn dominance_pruning_keeps_the_choice_on_every_reference_cfg() {
        let k = Coefficients::fitted().expect("fitted.toml");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../calibrations/cacti7-train-cfg");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("reference cfgs")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "cfg"))
            .collect();
        files.sort();
        assert!(files.len() >= 400, "{} cfgs", files.len());
        let mut techs: Vec<((u64, u64), Technology)> = Vec::new();
        let (mut compared, mut pruned) = (0, 0);
        for f in &files {
            let cfg = crate::cacti_cfg::read_file(f).expect("cfg");
            let Ok(m) = cfg.to_sram_spec() else { continue };
            let s = m.spec;
            if s.associativity > 1
                || s.force_organisation.is_some()
                || s.optimisation.objective == Objective::None
            {
                continue;
            }
            let key = (s.node_nm.to_bits(), s.temperature.k().to_bits());
            if !techs.iter().any(|(k, _)| *k == key) {
                let t = Technology::for_node(s.node_nm, s.temperature).expect("node");
                techs.push((key, t));
            }
            let tech = &techs.iter().find(|(k, _)| *k == key).expect("loaded").1;
            let Ok(prep) = Prep::new(&s, tech, ArrayKind::Data) else {
                continue;
            };
            let (mut all, mut lean) = (Vec::new(), Vec::new());
            candidates(&prep, k, &mut all, true);
            candidates(&prep, k, &mut lean, false);
            pruned += usize::from(lean.len() < all.len());
            let a = choose_data(&mut all, None, &s.optimisation);
            let b = choose_data(&mut lean, None, &s.optimisation);
            assert_eq!(
                a.map(|i| all[i].org),
                b.map(|i| lean[i].org),
                "{}",
                f.display()
            );
            compared += 1;
        }
        assert!(compared >= 400, "{compared} compared");
        assert!(pruned * 2 > compared, "pruned {pruned} of {compared}");
    }
}
