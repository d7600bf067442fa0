//! Shared helpers of the integration tests. For the held-out corpus tests
//! (`tests/suite/heldout_kernels.rs`: functional runs through the `regwatt` binary;
//! `tests/suite/heldout_timed.rs`: the timing model on both presets): where the corpus lives, the
//! comparison tolerances and the buffer comparison. For the timing sweeps (`heldout_timed.rs`,
//! `tests/suite/designs_workloads.rs`): [`simulate_baseline`] and [`failures_on_two_threads`]. For
//! the CLI tests (`heldout_kernels.rs`, `run_cli.rs`, `exec_cli.rs`, `report_cli.rs`):
//! [`regwatt`], [`text`], [`no_panic`], [`assert_success`], [`assert_fails`], [`tmp_dir`].
//!
//! Tolerances: integers always exact; floats exact (bit-for-bit, NaN == NaN) unless listed in
//! [`tolerance`] with the reason.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use regwatt_designs::config::{resolve, GpuPreset, Node, Overrides, PowerMode, ResolvedConfig};
use regwatt_designs::exec_model::{simulate_spec, SpecSimulation};
use regwatt_designs::run::{at_node, inventory};
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::launch::{read_npy_file, HostData, LaunchSpec};
use regwatt_sim::timing::RunOptions;

/// Runs the `regwatt` binary with `args` and returns its exit status and output.
pub fn regwatt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args(args)
        .output()
        .expect("cannot start regwatt")
}

/// Exit status, stdout and stderr of a run, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Fails if the run panicked (a panic message on stderr, or Rust's panic exit status 101):
/// bad input must give an error, never a panic.
pub fn no_panic(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("panicked") && o.status.code() != Some(101),
        "regwatt panicked:\n{}",
        text(o)
    );
}

/// Fails unless the run succeeded; `what` names it in the message.
pub fn assert_success(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}:\n{}", text(o));
}

/// The arguments of `regwatt run --size ci --workload WORKLOAD --gpu GPU`, then `extra`.
pub fn ci_run_args<'a>(workload: &'a str, gpu: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["run", "--size", "ci", "--workload", workload, "--gpu", gpu];
    a.extend_from_slice(extra);
    a
}

/// `regwatt ARGS` (which must print JSON) run to success, its standard output parsed;
/// `what` names it in the message.
pub fn regwatt_json(args: &[&str], what: &str) -> serde_json::Value {
    let o = regwatt(args);
    assert_success(&o, what);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what}: JSON: {e}"))
}

/// Fails unless the run failed cleanly (an error, not a panic); `what` names it in the message.
/// Returns the error output.
pub fn assert_fails(o: &Output, what: &str) -> String {
    no_panic(o);
    assert!(!o.status.success(), "{what} accepted:\n{}", text(o));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `regwatt ARGS` in `dir` under `ulimit -v 6000000` (6 GB of address space) and a 60 s
/// `timeout` (a hang is a failure, not a stuck test), with the time it took.
pub fn limited(dir: &Path, args: &[&str]) -> (Output, std::time::Duration) {
    let t = std::time::Instant::now();
    let o = Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 6000000 && exec timeout 60 \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_regwatt"))
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("cannot start bash");
    (o, t.elapsed())
}

/// Fails unless `args` is refused cleanly (exit status 1, no panic, no abort, no timeout)
/// within 20 s with every one of `needles` in the error. Returns the error output.
pub fn refused(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let (o, took) = limited(dir, args);
    let what = args.join(" ");
    let err = assert_fails(&o, &what);
    assert!(
        !err.contains("memory allocation of") && o.status.code() == Some(1),
        "{what}: not a clean error:\n{}",
        text(&o)
    );
    for n in needles {
        assert!(err.contains(n), "{what}: `{n}` missing from:\n{err}");
    }
    assert!(
        took < std::time::Duration::from_secs(20),
        "{what}: took {took:?}"
    );
    err
}

/// An empty directory `group/name` under the target's test scratch directory.
pub fn tmp_dir(group: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("cannot create the test scratch directory");
    d
}

/// Runs every launch of `spec` under the timing model with the baseline design on `cfg` and
/// returns the final buffers; an error if the run fails or breaks the register-file bookkeeping
/// (an access to an unallocated register, an operand read the collector never gathered).
pub fn simulate_baseline(
    spec: &LaunchSpec,
    cfg: &ResolvedConfig,
) -> Result<BTreeMap<String, HostData>, String> {
    simulate_baseline_timed(spec, cfg).map(|(b, _)| b)
}

/// [`simulate_baseline`], also returning the simulated cycles of all launches.
pub fn simulate_baseline_timed(
    spec: &LaunchSpec,
    cfg: &ResolvedConfig,
) -> Result<(BTreeMap<String, HostData>, u64), String> {
    let sim = simulate_spec(spec, DesignSpec::Baseline, cfg, &RunOptions::default())
        .map_err(|e| e.to_string())?;
    if sim.activity.design_stats.unallocated_accesses() != 0 {
        return Err("accesses to unallocated registers".into());
    }
    if sim.activity.core.uncollected_reads != 0 {
        return Err("uncollected operand reads".into());
    }
    Ok((sim.buffers, sim.activity.cycles))
}

/// `sim/testdata/heldout`.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/testdata/heldout")
}

/// Every corpus kernel (`kNN_name` folders with a spec), sorted.
pub fn all_kernels() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root())
        .expect("heldout dir")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            let spec = root().join(&n).join(format!("{n}.toml"));
            (n.starts_with('k') && spec.is_file()).then_some(n)
        })
        .collect();
    v.sort();
    v
}

/// The expected final buffers of kernel `name` (`expected/<buffer>.npy`).
pub fn expected(name: &str) -> Vec<(String, HostData)> {
    let mut v: Vec<(String, HostData)> = std::fs::read_dir(root().join(name).join("expected"))
        .expect("expected dir")
        .map(|e| {
            let p = e.expect("dir entry").path();
            let buffer = p.file_stem().expect("stem").to_string_lossy().to_string();
            let data = read_npy_file(&p).expect("expected .npy");
            (buffer, data)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Compares every expected buffer of `name` with `actual`; `Err` lists each wrong buffer.
pub fn check_buffers(name: &str, actual: &BTreeMap<String, HostData>) -> Result<(), String> {
    let exp = expected(name);
    if exp.is_empty() {
        return Err(format!("{name}: no expected outputs"));
    }
    let errors: Vec<String> = exp
        .iter()
        .filter_map(|(buffer, e)| match actual.get(buffer) {
            Some(a) => compare(name, buffer, e, a).err(),
            None => Some(format!("{name}.{buffer}: not produced")),
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{name}: {} buffer(s) wrong:\n{}",
            errors.len(),
            errors.join("\n")
        ))
    }
}

/// (abs, rel) allowance for float buffers: |actual - expected| <= abs + rel * |expected|.
pub fn tolerance(kernel: &str, buffer: &str) -> (f64, f64) {
    match (kernel, buffer) {
        // `a * x + y` is contracted to fma.rn.f32 by NVRTC; the host emulation rounds twice.
        ("k01_gridstride", "y") => (1e-5, 1e-6),
        // stencil `l - 2 t + r` contracted to fma
        ("k02_tile2d", "sten") => (1e-6, 1e-6),
        // fast-math: ex2/lg2/sin/cos.approx (abs 2^-21.4), rsqrt.approx, tanh.approx.f32
        // (rel 2^-10.99), div.approx; the host computes exactly.
        ("k10_fastmath", "out") => (2e-5, 1e-3),
        // double `a * s + b` contracted to fma.rn.f64 on the device
        ("k11_double", "out") => (1e-12, 1e-14),
        // same fmaf order as the host; only the tile zero-padding differs (exact zeros)
        ("k23_matmul_rect", "C") => (1e-6, 1e-6),
        // CUDA sinf/cosf/expf/logf/powf/atan2f/erff: <= 2..4 ulp (CUDA C Programming Guide,
        // Mathematical Functions appendix); the host uses glibc (<= 1 ulp).
        ("k28_precise_math", "out") => (1e-6, 1e-6),
        // CUDA double exp/log/pow/sin/cos: <= 1..2 ulp
        ("k32_double_libm", "out") => (1e-15, 2e-15),
        // CUDA double tan (2 ulp), exp/log1p/sinh (1 ulp); sums of them: a few ulp of the
        // largest term
        ("k41_double_math", "out") => (1e-13, 1e-14),
        _ => (0.0, 0.0),
    }
}

pub fn close(a: f64, e: f64, tol: (f64, f64)) -> bool {
    if a.is_nan() || e.is_nan() {
        return a.is_nan() && e.is_nan();
    }
    if tol == (0.0, 0.0) {
        return a.to_bits() == e.to_bits() || a == e && a != 0.0;
    }
    a == e || (a - e).abs() <= tol.0 + tol.1 * e.abs()
}

pub fn compare(kernel: &str, buffer: &str, exp: &HostData, act: &HostData) -> Result<(), String> {
    macro_rules! ints {
        ($e:expr, $a:expr) => {{
            if $e.len() != $a.len() {
                return Err(format!("{kernel}.{buffer}: length {} != expected {}", $a.len(), $e.len()));
            }
            let bad: Vec<usize> = (0..$e.len()).filter(|&i| $e[i] != $a[i]).collect();
            if let Some(&i) = bad.first() {
                return Err(format!(
                    "{kernel}.{buffer}: {} of {} elements differ; first [{i}] expected {} got {}",
                    bad.len(),
                    $e.len(),
                    $e[i],
                    $a[i]
                ));
            }
            Ok(())
        }};
    }
    macro_rules! floats {
        ($e:expr, $a:expr) => {{
            if $e.len() != $a.len() {
                return Err(format!("{kernel}.{buffer}: length {} != expected {}", $a.len(), $e.len()));
            }
            let tol = tolerance(kernel, buffer);
            let bad: Vec<usize> = (0..$e.len())
                .filter(|&i| !close($a[i] as f64, $e[i] as f64, tol))
                .collect();
            if let Some(&i) = bad.first() {
                return Err(format!(
                    "{kernel}.{buffer}: {} of {} elements outside (abs {}, rel {}); first [{i}] expected {:e} got {:e}",
                    bad.len(),
                    $e.len(),
                    tol.0,
                    tol.1,
                    $e[i],
                    $a[i]
                ));
            }
            Ok(())
        }};
    }
    match (exp, act) {
        (HostData::F32(e), HostData::F32(a)) => floats!(e, a),
        (HostData::F64(e), HostData::F64(a)) => floats!(e, a),
        (HostData::I8(e), HostData::I8(a)) => ints!(e, a),
        (HostData::U8(e), HostData::U8(a)) => ints!(e, a),
        (HostData::I16(e), HostData::I16(a)) => ints!(e, a),
        (HostData::U16(e), HostData::U16(a)) => ints!(e, a),
        (HostData::I32(e), HostData::I32(a)) => ints!(e, a),
        (HostData::U32(e), HostData::U32(a)) => ints!(e, a),
        (HostData::I64(e), HostData::I64(a)) => ints!(e, a),
        (HostData::U64(e), HostData::U64(a)) => ints!(e, a),
        _ => Err(format!(
            "{kernel}.{buffer}: dtype {:?} != expected {:?}",
            act.dtype(),
            exp.dtype()
        )),
    }
}

/// Runs `check` on every item of `work` on two threads (CI has 2 cores) and returns the failure
/// messages, `label(item): error`, sorted.
pub fn failures_on_two_threads<T: Sync>(
    work: &[T],
    label: impl Fn(&T) -> String + Sync,
    check: impl Fn(&T) -> Result<(), String> + Sync,
) -> Vec<String> {
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = work.get(i) else { break };
                if let Err(e) = check(item) {
                    if let Ok(mut f) = failures.lock() {
                        f.push(format!("{}: {e}", label(item)));
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap_or_default();
    f.sort();
    f
}

/// (GPU preset, design) pairs `regwatt report` runs: every design on every preset it supports.
pub fn supported_pairs() -> usize {
    regwatt_designs::config::GpuPreset::ALL
        .iter()
        .map(|p| {
            regwatt_designs::DesignSpec::ALL
                .iter()
                .filter(|d| d.supports(*p))
                .count()
        })
        .sum()
}

/// The configuration of preset `p` with `design`, power mode `mode` and `--set` overrides.
pub fn mode_config(
    p: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
    sets: &[&str],
) -> Result<ResolvedConfig, String> {
    resolve(
        p,
        &Overrides {
            design: Some(design),
            sets: sets.iter().map(|s| s.to_string()).collect(),
            power_mode: Some(mode),
            ..Overrides::default()
        },
    )
    .map_err(|e| e.to_string())
}

/// A checked run of workload `w` at `ci` with `design` on preset `p` in power mode `mode`: the
/// outputs match the reference and no access found a register the warp does not own. Shared
/// through [`ci_run`].
pub fn simulate_checked(
    w: &regwatt_workloads::Workload,
    p: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
) -> Result<Arc<SpecSimulation>, String> {
    ci_run(w, p, design, mode, &[])
}

/// A checked run at `ci` (see [`simulate_checked`]) with `--set` overrides `sets`, simulated
/// once per test binary: every test that asks for the same (workload, preset, design, mode,
/// overrides) gets the same run. The design suites, the power modes and the baseline checks
/// each need the baseline's and the renaming design's runs of every workload; simulating
/// them once is CI's time budget. A second caller waits for the first one's run.
pub fn ci_run(
    w: &regwatt_workloads::Workload,
    p: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
    sets: &[&str],
) -> Result<Arc<SpecSimulation>, String> {
    type Cell = Arc<OnceLock<Result<Arc<SpecSimulation>, String>>>;
    static RUNS: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let key = format!("{}/{p}/{design:?}/{mode}/{}", w.name, sets.join(" "));
    let cell: Cell = {
        let mut runs = RUNS
            .get_or_init(Default::default)
            .lock()
            .map_err(|e| e.to_string())?;
        runs.entry(key).or_default().clone()
    };
    cell.get_or_init(|| {
        let cfg = mode_config(p, design, mode, sets)?;
        let spec = w
            .load_spec(regwatt_workloads::Size::Ci)
            .map_err(|e| e.to_string())?;
        let s = simulate_spec(&spec, design, &cfg, &RunOptions::default())
            .map_err(|e| e.to_string())?;
        regwatt_workloads::check(w, ci_expected(w)?.as_ref(), &s.buffers)
            .map_err(|e| e.to_string())?;
        if s.activity.design_stats.unallocated_accesses() != 0 {
            return Err("accesses to unowned registers".into());
        }
        Ok(Arc::new(s))
    })
    .clone()
}

/// The baseline's run of workload `w` at `default` on preset `p` (stock configuration),
/// simulated once per test binary and checked: outputs against the reference, every register
/// access owned, every operand read gathered. The default-size checks (cycles against
/// GPGPU-Sim, the GPU kept busy) share these runs, the slowest of the suite.
pub fn default_run(
    w: &regwatt_workloads::Workload,
    p: GpuPreset,
) -> Result<Arc<SpecSimulation>, String> {
    type Cell = Arc<OnceLock<Result<Arc<SpecSimulation>, String>>>;
    static RUNS: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let cell: Cell = {
        let mut runs = RUNS
            .get_or_init(Default::default)
            .lock()
            .map_err(|e| e.to_string())?;
        runs.entry(format!("{}/{p}", w.name)).or_default().clone()
    };
    cell.get_or_init(|| {
        let cfg = regwatt_designs::config::preset(p).map_err(|e| e.to_string())?;
        let spec = w
            .load_spec(regwatt_workloads::Size::Default)
            .map_err(|e| e.to_string())?;
        let s = simulate_spec(&spec, DesignSpec::Baseline, &cfg, &RunOptions::default())
            .map_err(|e| e.to_string())?;
        if s.activity.design_stats.unallocated_accesses() != 0 {
            return Err("accesses to unallocated registers".into());
        }
        if s.activity.core.uncollected_reads != 0 {
            return Err("uncollected operand reads".into());
        }
        let exp = w
            .expected_final(&spec.initial_buffers(), &spec)
            .map_err(|e| e.to_string())?;
        regwatt_workloads::check(w, &exp, &s.buffers).map_err(|e| e.to_string())?;
        Ok(Arc::new(s))
    })
    .clone()
}

/// The reference's final buffers of workload `w` at `ci`, computed once per test binary.
pub fn ci_expected(
    w: &regwatt_workloads::Workload,
) -> Result<Arc<BTreeMap<String, HostData>>, String> {
    type Cell = Arc<OnceLock<Result<Arc<BTreeMap<String, HostData>>, String>>>;
    static EXPECTED: OnceLock<Mutex<HashMap<&'static str, Cell>>> = OnceLock::new();
    let cell: Cell = {
        let mut m = EXPECTED
            .get_or_init(Default::default)
            .lock()
            .map_err(|e| e.to_string())?;
        m.entry(w.name).or_default().clone()
    };
    cell.get_or_init(|| {
        let spec = w
            .load_spec(regwatt_workloads::Size::Ci)
            .map_err(|e| e.to_string())?;
        w.expected_final(&spec.initial_buffers(), &spec)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    })
    .clone()
}

/// The report of a `design` run of workload `w` priced with `cfg` (node and power mode) from
/// one simulation.
pub fn mode_report(
    w: &str,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    sim: &SpecSimulation,
) -> Result<RunReport, String> {
    let inv = inventory(design, cfg).map_err(|e| e.to_string())?;
    RunReport::new(w, design, cfg, &inv, &sim.activity, sim.launch_cycles)
        .map_err(|e| e.to_string())
}

/// The power modes' ordering at 40 and 12 nm, from an always-on run `on` and a run `counted`
/// with power states counted (tri-modal: the tracker counts every mode's states at once, and a
/// hidden wake-up changes no cycle). The cells' static energy: always-on ≥ sub-array gating ≥
/// register gating, drowsy ≤ always-on, tri-modal ≤ drowsy, at both nodes. Each mode's static
/// energy is always-on's minus the cells' saving plus the state control's leakage. The totals
/// keep the cells' order at 40 nm; at 12 nm the SRAM cells leak so little that the control can
/// cost more than the gating saves.
pub fn static_energy_ordered(
    w: &str,
    p: GpuPreset,
    design: DesignSpec,
    on: &SpecSimulation,
    counted: &SpecSimulation,
) -> Result<(), String> {
    static_energy_ordered_at(w, p, design, on, counted, &[Node::N40, Node::N12])
}

/// [`static_energy_ordered`] at the listed nodes only.
pub fn static_energy_ordered_at(
    w: &str,
    p: GpuPreset,
    design: DesignSpec,
    on: &SpecSimulation,
    counted: &SpecSimulation,
    nodes: &[Node],
) -> Result<(), String> {
    for &node in nodes {
        // (static energy, cells' static energy, cells' always-on static energy, control)
        let at = |m: PowerMode| -> Result<(f64, f64, f64, f64), String> {
            let c = at_node(&mode_config(p, design, m, &[])?, node);
            let s = if m == PowerMode::AlwaysOn {
                on
            } else {
                counted
            };
            let r = mode_report(w, design, &c, s)?;
            let st = r.energy.static_energy.j();
            Ok(match &r.power_management {
                Some(pm) => (st, pm.cells.j(), pm.cells_always_on.j(), pm.control.j()),
                None => (st, f64::NAN, f64::NAN, 0.0),
            })
        };
        let on_e = at(PowerMode::AlwaysOn)?.0;
        let modes = [
            at(PowerMode::SubarrayGating)?,
            at(PowerMode::RegisterGating)?,
            at(PowerMode::Drowsy)?,
            at(PowerMode::TriModal)?,
        ];
        let [sub, reg, drowsy, tri] = modes;
        // the cells' leakage: always-on >= sub-array gating >= register gating, drowsy <=
        // always-on, tri-modal <= drowsy (every mode's always-on cells are the same)
        let cells_on = sub.2;
        let cells_ordered = cells_on >= sub.1
            && sub.1 >= reg.1
            && drowsy.1 <= cells_on
            && tri.1 <= drowsy.1
            && modes
                .iter()
                .all(|m| (m.2 - cells_on).abs() <= 1e-12 * cells_on);
        // a mode changes the static energy by its cells' saving and its control's leakage only
        let accounted = modes
            .iter()
            .all(|m| (m.0 - (on_e - m.2 + m.1 + m.3)).abs() <= 1e-9 * on_e);
        // where the cells dominate the leakage (40 nm: logic devices in the cells), the
        // totals keep the order too; at 12 nm the SRAM cells leak so little that the state
        // control can cost more than it saves (designs/README.md, "Power modes")
        let totals_ordered = node != Node::N40
            || (on_e >= sub.0 && sub.0 >= reg.0 && drowsy.0 <= on_e && tri.0 <= drowsy.0);
        if !(cells_ordered && accounted && totals_ordered) {
            return Err(format!(
                "{node}: static always-on {on_e:e}, sub-array {sub:?}, register {reg:?}, drowsy {drowsy:?}, tri-modal {tri:?} (static, cells, cells always on, control)"
            ));
        }
    }
    Ok(())
}

/// The workloads every design suite (`tests/suite/power_modes.rs`, `renaming.rs`, `malekeh.rs`,
/// `sharing.rs`, `cerf.rs`) runs in all its variants and modes: every built-in workload except
/// the mnist33 and cifar32g input sizes of Elango 2017's NN benchmark ([`nn_other_sizes`]). Those
/// eight run the same kernels as mnist29's four versions with other constants; their
/// single-thread fc loops would be two thirds of these suites' time (CI's budget, issue 27's
/// brief). Every design still runs them on every preset it supports, with their outputs
/// checked, once, in `tests/suite/designs_workloads.rs`
/// (`every_design_runs_the_nn_benchmark_at_every_input_size`), and `tests/suite/lreg.rs` runs all
/// twelve.
pub fn design_suite() -> Vec<&'static regwatt_workloads::Workload> {
    regwatt_workloads::all()
        .iter()
        .filter(|w| !nn_other_size(w.name))
        .collect()
}

/// One workload of each kind, for a design's secondary variants (its default configuration runs
/// the whole [`design_suite`]): streaming (vectorAdd), a chain of launches with barriers and
/// shuffles (reduction), shared-memory tiles (matrixMul_tiled), shared and global atomics
/// (histogram), an atomicCAS retry loop (kmeans), irregular launches (bfs), a divergent
/// data-dependent loop (mandelbrot), CNN layers (conv_mnist), a training step (backprop) and the
/// NN benchmark's annotated L-register version (mnist29_lreg).
pub fn design_sample() -> Vec<&'static regwatt_workloads::Workload> {
    [
        "vectorAdd",
        "reduction",
        "matrixMul_tiled",
        "histogram",
        "kmeans",
        "bfs",
        "mandelbrot",
        "conv_mnist",
        "backprop",
        "mnist29_lreg",
    ]
    .iter()
    .map(|n| regwatt_workloads::find(n).unwrap_or_else(|| panic!("no workload {n}")))
    .collect()
}

/// The NN benchmark's workloads that [`design_suite`] leaves out.
pub fn nn_other_sizes() -> Vec<&'static regwatt_workloads::Workload> {
    regwatt_workloads::all()
        .iter()
        .filter(|w| nn_other_size(w.name))
        .collect()
}

fn nn_other_size(name: &str) -> bool {
    regwatt_workloads::nn::is_workload(name) && !name.starts_with("mnist29")
}

/// A CSV file as rows of column → value.
pub fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    r.records()
        .map(|rec| {
            let rec = rec.expect("record");
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect()
}
