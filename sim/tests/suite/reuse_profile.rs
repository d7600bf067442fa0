//! The reuse-distance profile of a launch's first warps (Malekeh §III-A,
//! `FunctionalWarpModel::profile_reuse`, `timing::profile`).
//!
//! * Its tallies equal a brute-force reference computed from the executor's own per-warp
//!   streams (`CtaExec::step`, another stepping order), on workloads with barriers, loops,
//!   divergence and several launches.
//! * Profiling changes nothing a timed run sees: the final buffers and every launch's activity
//!   are identical with and without a profile before each launch.

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use regwatt_sim::exec::{
    run_launch, ArchReg, FlatRegisterFile, Kernel, LaunchConfig, Program, RunOptions as ExecOptions,
};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_sim::mem::{GlobalMemory, ParamSpace};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::memory::MemoryHierarchy;
use regwatt_sim::timing::profile::{NextUse, Tally};
use regwatt_sim::timing::{run_with_memory, ExecModel, GpuConfig, ReuseProfile, RunOptions};
use support::FlatRf;

fn spec(name: &str) -> LaunchSpec {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../workloads")
        .join(name)
        .join(format!("{name}.toml"));
    LaunchSpec::load(&p).expect("spec loads")
}

/// What a launch hands to [`each_launch`]'s `before` hook (before its model exists).
struct Launch<'a> {
    program: &'a Program,
    kernel: &'a Kernel,
    launch: &'a LaunchConfig,
    params: &'a ParamSpace,
    global: &'a GlobalMemory,
    gridid: u64,
}

/// Runs every launch of `spec` in order on one global memory: `before` sees the launch before
/// its model is built, `with_model` sees the model; then the launch runs, timed on `timed`
/// (returning its activity as TOML) or functionally. Returns the final buffers and the
/// activities.
fn each_launch(
    spec: &LaunchSpec,
    timed: Option<&GpuConfig>,
    mut before: impl FnMut(&Launch),
    mut with_model: impl FnMut(&ExecModel),
) -> (BTreeMap<String, HostData>, Vec<String>) {
    let mut global = GlobalMemory::new();
    global
        .alloc_buffers(&spec.initial_buffers())
        .expect("buffers");
    let module = regwatt_sim::ptx::parse(&spec.ptx_path, &spec.ptx_source).expect("ptx");
    let program = Program::load(&spec.ptx_path, &module, &mut global).expect("program");
    let mut acts = Vec::new();
    for (i, l) in spec.launches.iter().enumerate() {
        let kernel = program.kernel(&l.kernel).expect("kernel");
        let fi = module.function_index(&l.kernel).expect("function");
        let pb = spec
            .param_block(i, &kernel.param_descs(), &|n| global.address_of(n))
            .expect("params");
        let params = ParamSpace::new(pb.bytes);
        let launch = LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        before(&Launch {
            program: &program,
            kernel,
            launch: &launch,
            params: &params,
            global: &global,
            gridid: i as u64,
        });
        match timed {
            Some(cfg) => {
                let mut model = ExecModel::new(
                    &module.functions[fi as usize],
                    fi,
                    module.functions.len(),
                    kernel,
                    &launch,
                    &params,
                    &program.consts,
                    &mut global,
                    i as u64,
                )
                .expect("model");
                with_model(&model);
                let mut mem = MemoryHierarchy::new(
                    &cfg.memory,
                    cfg.sms,
                    cfg.sm.units.const_latency,
                    cfg.core_clock_mhz,
                );
                mem.preload_l2(&model.host_written());
                let a = run_with_memory(
                    cfg,
                    &mut model,
                    &mut |_| FlatRf::new(cfg),
                    &mut mem,
                    &RunOptions::default(),
                )
                .expect("timed run");
                acts.push(toml::to_string(&a).expect("serialise"));
            }
            None => {
                {
                    let model = ExecModel::new(
                        &module.functions[fi as usize],
                        fi,
                        module.functions.len(),
                        kernel,
                        &launch,
                        &params,
                        &program.consts,
                        &mut global,
                        i as u64,
                    )
                    .expect("model");
                    with_model(&model);
                }
                run_launch(
                    &program,
                    kernel,
                    &launch,
                    &params,
                    &mut global,
                    i as u64,
                    &ExecOptions::default(),
                )
                .expect("functional run");
            }
        }
    }
    (global.read_back_all(), acts)
}

/// (pc, general registers read, general registers written), deduplicated as the timing
/// core's `RegList`.
type Access = (u32, Vec<u16>, Vec<u16>);

fn general(list: &[ArchReg]) -> Vec<u16> {
    let mut v = Vec::new();
    for r in list {
        if let ArchReg::R(r) = *r {
            if !v.contains(&r) {
                v.push(r);
            }
        }
    }
    v
}

/// The per-warp streams of the first `warps` warps of a launch, recorded with
/// `CtaExec::step` (each CTA run to completion, a warp stepped until it blocks), on a copy of
/// memory.
fn reference_streams(l: &Launch, warps: u32) -> Vec<Vec<Access>> {
    let mut global = l.global.clone();
    let wpc = l.launch.threads_per_cta().div_ceil(32);
    let mut out = Vec::new();
    let mut cta = 0u64;
    while (out.len() as u32) < warps && cta < l.launch.ctas() {
        let mut exec = regwatt_sim::exec::CtaExec::new(
            l.kernel,
            l.launch,
            l.params,
            &l.program.consts,
            l.launch.ctaid(cta),
            0,
            l.gridid,
        );
        let mut regs = FlatRegisterFile::new(
            wpc as usize,
            l.kernel.gprs as usize,
            l.kernel.preds as usize,
        );
        let mut streams = vec![Vec::new(); wpc as usize];
        while !exec.done() {
            let mut progressed = false;
            for (w, s) in streams.iter_mut().enumerate() {
                while let Some((pc, ins)) = exec.next_instr(w) {
                    s.push((
                        pc,
                        general(ins.src_regs.as_slice()),
                        general(ins.dst_regs.as_slice()),
                    ));
                    exec.step(w, &mut regs, &mut global).expect("step");
                    progressed = true;
                }
            }
            assert!(progressed, "deadlock");
        }
        for s in streams {
            if (out.len() as u32) < warps {
                out.push(s);
            }
        }
        cta += 1;
    }
    out
}

/// Brute force: for every access, scan forward for the next use: under `Access`, the next
/// instruction of the warp that touches the register; under `Read`, the next instruction that
/// reads it, unless one writes it first (or the access is a source its own instruction
/// overwrites).
fn reference_tallies(
    streams: &[Vec<Access>],
    rthld: u32,
    next: NextUse,
) -> BTreeMap<(u32, u16, bool), (u64, u64)> {
    let mut t: BTreeMap<(u32, u16, bool), (u64, u64)> = BTreeMap::new();
    for s in streams {
        for (i, (pc, srcs, dsts)) in s.iter().enumerate() {
            for (r, dst) in srcs
                .iter()
                .map(|&r| (r, false))
                .chain(dsts.iter().map(|&r| (r, true)))
            {
                let d = match next {
                    NextUse::Access => s[i + 1..]
                        .iter()
                        .position(|(_, a, b)| a.contains(&r) || b.contains(&r)),
                    NextUse::Read if !dst && dsts.contains(&r) => None,
                    NextUse::Read => s[i + 1..]
                        .iter()
                        .position(|(_, a, b)| a.contains(&r) || b.contains(&r))
                        .filter(|&k| s[i + 1 + k].1.contains(&r)),
                };
                let near = d.is_some_and(|k| (k as u32 + 1) < rthld);
                let e = t.entry((*pc, r, dst)).or_default();
                if near {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
            }
        }
    }
    t
}

fn check_against_reference(name: &str, warps: u32, rthld: u32) {
    let s = spec(name);
    let mut refs = Vec::new();
    let mut profiles: Vec<ReuseProfile> = Vec::new();
    each_launch(
        &s,
        None,
        |l| {
            let streams = reference_streams(l, warps);
            let n = streams.iter().map(Vec::len).sum::<usize>() as u64;
            let t = [NextUse::Access, NextUse::Read].map(|x| reference_tallies(&streams, rthld, x));
            refs.push((streams.len() as u32, n, t));
        },
        |m| {
            let p = m.profile_reuse(warps, rthld).expect("ExecModel profiles");
            // deterministic
            assert_eq!(Some(&p), m.profile_reuse(warps, rthld).as_ref());
            profiles.push(p);
        },
    );
    assert_eq!(refs.len(), profiles.len());
    for (k, ((nw, ni, wants), p)) in refs.iter().zip(&profiles).enumerate() {
        assert!(!p.truncated(), "{name} launch {k}: truncated");
        assert_eq!(p.warps(), *nw, "{name} launch {k}: warps");
        assert_eq!(p.instructions(), *ni, "{name} launch {k}: instructions");
        for (next, want) in [NextUse::Access, NextUse::Read].into_iter().zip(wants) {
            assert_eq!(p.operands(), want.len(), "{name} launch {k}: operands");
            let mut sum = Tally::default();
            for (&(pc, r, dst), &(near, far)) in want {
                let get = |f: u32| {
                    if dst {
                        p.dst_tally(f, pc, r, next)
                    } else {
                        p.src_tally(f, pc, r, next)
                    }
                };
                let func = (0..64u32)
                    .find(|&f| get(f).is_some())
                    .unwrap_or_else(|| panic!("{name} launch {k}: pc {pc} R{r} not profiled"));
                assert_eq!(
                    get(func),
                    Some(Tally { near, far }),
                    "{name} launch {k}: pc {pc} R{r} dst {dst} {next:?}"
                );
                sum.near += near;
                sum.far += far;
            }
            assert_eq!(p.instances(next), sum, "{name} launch {k} {next:?}");
        }
    }
}

#[test]
fn profile_equals_a_brute_force_reference() {
    // barriers and loops; divergence and several launches; a grid of one-warp CTAs
    check_against_reference("reduction", 8, 12);
    check_against_reference("matrixMul_tiled", 4, 12);
    check_against_reference("bfs", 8, 12);
    check_against_reference("nw", 3, 5);
}

#[test]
fn profile_does_not_change_the_timed_run() {
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    for name in ["histogram", "bfs", "reduction", "kmeans"] {
        let s = spec(name);
        let plain = each_launch(&s, Some(&cfg), |_| {}, |_| {});
        let mut profiled_warps = 0;
        let profiled = each_launch(
            &s,
            Some(&cfg),
            |_| {},
            |m| {
                let p = m.profile_reuse(64, 12).expect("profile");
                profiled_warps += p.warps();
            },
        );
        assert!(profiled_warps > 0, "{name}: nothing profiled");
        assert_eq!(plain.0, profiled.0, "{name}: buffers differ");
        assert_eq!(plain.1, profiled.1, "{name}: activity differs");
    }
}
