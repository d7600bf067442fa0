//! [`simulate_spec`]: every launch of a launch spec through the timing model with a design,
//! real values and real addresses. The executor-to-timing coupling itself is the sim crate's
//! [`regwatt_sim::timing::ExecModel`]; this module only adds the design choice and the energy
//! side's activity merging.

use std::collections::BTreeMap;

use regwatt_sim::analysis::{AllocTarget, Analysis};
use regwatt_sim::exec::{ExecError, LaunchConfig, Program};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_sim::mem::{GlobalMemory, ParamSpace};
use regwatt_sim::timing::functional::{
    FunctionalWarpModel, GridShape, InstrInfo, ModelError, StepInfo, WarpKey, WarpMemAccess,
    WarpRegisters,
};
use regwatt_sim::timing::memory::CarriedCaches;
use regwatt_sim::timing::{ExecModel, ReuseProfile, RunOptions, TimingError};

use crate::config::ResolvedConfig;
use crate::registry::{simulate_in_run, DesignSpec, LaunchCarry};
use crate::run::{merge_activity, DesignActivity};

/// Why a launch spec could not be simulated.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Exec(Box<ExecError>),
    #[error("{file}: {message}")]
    Setup { file: String, message: String },
    #[error("launch {index} ({kernel}): {source}")]
    Model {
        index: usize,
        kernel: String,
        #[source]
        source: ModelError,
    },
    #[error(
        "launch {index} ({kernel}): warp-instruction limit of {limit} reached (a runaway kernel?)"
    )]
    InstructionLimit {
        index: usize,
        kernel: String,
        limit: u64,
    },
    #[error("launch {index} ({kernel}): {source}")]
    Timing {
        index: usize,
        kernel: String,
        #[source]
        source: Box<TimingError>,
    },
}

impl From<ExecError> for SimError {
    fn from(e: ExecError) -> Self {
        SimError::Exec(Box::new(e))
    }
}

/// One launch of a [`SpecSimulation`].
#[derive(Clone, Debug)]
pub struct LaunchRecord {
    /// Kernel (`.entry`) name.
    pub kernel: String,
    /// Grid dimensions in blocks.
    pub grid: [u32; 3],
    /// Block dimensions in threads.
    pub block: [u32; 3],
    /// The launch's own activity (its cycles start at 0).
    pub activity: DesignActivity,
    /// Of `activity.cycles`, the cycles of this launch's launch latency.
    pub launch_cycles: u64,
}

/// Result of [`simulate_spec`].
#[derive(Clone, Debug)]
pub struct SpecSimulation {
    /// Activity of all launches, back to back.
    pub activity: DesignActivity,
    /// Every launch on its own, in order (their activities merge into `activity`).
    pub launches: Vec<LaunchRecord>,
    /// Final contents of every spec buffer.
    pub buffers: BTreeMap<String, HostData>,
    /// Of `activity.cycles`, the cycles of the launch latencies ([`launch_cycles`]).
    pub launch_cycles: u64,
    /// Registers per thread of every launched kernel and where the count comes from.
    pub kernel_registers: BTreeMap<String, KernelRegisters>,
}

/// A kernel's registers per thread, as occupancy and the RF used them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KernelRegisters {
    pub registers: u32,
    /// `estimated` (regwatt's ptxas-style count) or `given` (the spec's `[registers]` table).
    pub source: regwatt_sim::exec::RegisterSource,
}

/// Cycles of `spec`'s launches spent in the preset's launch latencies before any CTA runs:
/// per launch `kernel_launch_latency + cta_launch_latency × CTAs` (GPGPU-Sim
/// `-gpgpu_kernel_launch_latency`, `-gpgpu_TB_launch_latency`; the timing model counts them
/// in `cycles`, as GPGPU-Sim's `gpu_sim_cycle` does).
pub fn launch_cycles(spec: &LaunchSpec, cfg: &ResolvedConfig) -> u64 {
    spec.launches.iter().map(|l| launch_latency(l, cfg)).sum()
}

/// The launch latency of one launch ([`launch_cycles`]).
pub fn launch_latency(l: &regwatt_sim::launch::KernelLaunch, cfg: &ResolvedConfig) -> u64 {
    let ctas: u64 = l.grid.iter().map(|&d| u64::from(d)).product();
    u64::from(cfg.gpu.kernel_launch_latency) + u64::from(cfg.gpu.cta_launch_latency) * ctas
}

/// Default limit of a timed run's warp instructions per launch (`regwatt run
/// --max-warp-instructions`). Measured on the 2-core development machine (release
/// build, load ~1.5): a kernel that loops forever in every thread of a full GPU runs 3.4 M
/// warp instructions/s on rtx2060 (30 CTAs of 1024 threads), 3.8 M/s on gtx480, 2.4 M/s
/// when each iteration also loads from memory, so it stops after 8–13 s; the largest
/// built-in workload at `--size default` executes 4.6 M (collatz) per launch; `--size paper`
/// has its own default ([`PAPER_MAX_WARP_INSTRUCTIONS`]).
pub const DEFAULT_MAX_WARP_INSTRUCTIONS: u64 = 30_000_000;

/// Default cycle limit of a timed launch (`regwatt run --max-cycles`). A runaway kernel with
/// few warps issues few instructions, but the model steps 0.8–4.8 M cycles/s (one warp
/// spinning: rtx2060 1.5 M/s, gtx480 4.8 M/s; one loading warp per SM on all 30 rtx2060 SMs:
/// 0.8 M/s), so it stops after 2–13 s; with many warps the warp-instruction limit comes first.
/// The longest built-in workload at `--size default` takes 7.8 M cycles (bicg on gtx480, all
/// launches); `--size paper` has its own default ([`PAPER_MAX_CYCLES`]).
pub const DEFAULT_MAX_CYCLES: u64 = 10_000_000;

/// Default warp-instruction limit of a timed launch of a built-in workload at `--size paper`.
/// The suites' standard inputs are long by design: the largest, alexnet, executes 160 M warp
/// instructions and nbody 100 M+ (`regwatt exec --size paper`, 2026-11-28), past
/// [`DEFAULT_MAX_WARP_INSTRUCTIONS`]; 10^10 leaves a 60x margin while still ending a runaway
/// launch (at ~2 M warp instructions/s, within about 1.5 h).
pub const PAPER_MAX_WARP_INSTRUCTIONS: u64 = 10_000_000_000;

/// Default cycle limit of a timed launch of a built-in workload at `--size paper`: the
/// warp-instruction limit's counterpart for the few-warp launches of the paper inputs (nw's
/// and lud's chains of small launches), 10^10 cycles.
pub const PAPER_MAX_CYCLES: u64 = 10_000_000_000;

/// A launch's progress: launch index, kernel, warp instructions executed so far.
pub type ProgressFn<'a> = &'a dyn Fn(usize, &str, u64);

/// Limits and progress reporting of a timed simulation beyond the timing core's cycle
/// limit.
#[derive(Clone, Copy)]
pub struct Watch<'a> {
    /// A launch stops with [`SimError::InstructionLimit`] after this many warp instructions.
    pub max_warp_instructions: u64,
    /// Called about every [`regwatt_sim::exec::PROGRESS_EVERY`] warp instructions.
    pub progress: ProgressFn<'a>,
}

impl Default for Watch<'_> {
    fn default() -> Self {
        Watch {
            max_warp_instructions: DEFAULT_MAX_WARP_INSTRUCTIONS,
            progress: &|_, _, _| {},
        }
    }
}

/// The functional model of one launch, counting the warp instructions the timing core
/// steps: it stops the launch at the limit and reports progress. Timing is unchanged (every
/// call is passed through).
struct Counted<'m, 'w, M> {
    inner: &'m mut M,
    count: u64,
    next_report: u64,
    hit: bool,
    launch: usize,
    kernel: &'w str,
    watch: Watch<'w>,
}

impl<M: FunctionalWarpModel> FunctionalWarpModel for Counted<'_, '_, M> {
    fn grid(&self) -> GridShape {
        self.inner.grid()
    }
    fn start_cta(&mut self, cta: u32) -> Result<(), ModelError> {
        self.inner.start_cta(cta)
    }
    fn finish_cta(&mut self, cta: u32) {
        self.inner.finish_cta(cta)
    }
    fn next_instr(&self, warp: WarpKey) -> Option<InstrInfo> {
        self.inner.next_instr(warp)
    }
    fn next_pc(&self, warp: WarpKey) -> Option<(u32, u32)> {
        self.inner.next_pc(warp)
    }
    #[inline]
    fn step(
        &mut self,
        warp: WarpKey,
        regs: &mut dyn WarpRegisters,
        mem: &mut WarpMemAccess,
    ) -> Result<StepInfo, ModelError> {
        self.count += 1;
        if self.count >= self.next_report {
            if self.count > self.watch.max_warp_instructions {
                self.hit = true;
                return Err(ModelError(format!(
                    "warp-instruction limit of {} reached",
                    self.watch.max_warp_instructions
                )));
            }
            (self.watch.progress)(self.launch, self.kernel, self.count);
            self.next_report = (self.count + regwatt_sim::exec::PROGRESS_EVERY)
                .min(self.watch.max_warp_instructions.saturating_add(1));
        }
        self.inner.step(warp, regs, mem)
    }
    fn analyses(&self) -> &[Option<Analysis>] {
        self.inner.analyses()
    }
    fn kernel_pragmas(&self) -> &[String] {
        self.inner.kernel_pragmas()
    }
    fn block_start(&self, func: u32, pc: u32) -> Option<u32> {
        self.inner.block_start(func, pc)
    }
    fn host_written(&self) -> Vec<(u64, u64)> {
        self.inner.host_written()
    }
    fn profile_reuse(&self, warps: u32, rthld: u32) -> Option<ReuseProfile> {
        self.inner.profile_reuse(warps, rthld)
    }
    fn code_offset(&self, func: u32, pc: u32) -> u64 {
        self.inner.code_offset(func, pc)
    }
    fn carried_caches(&mut self) -> Option<&mut CarriedCaches> {
        self.inner.carried_caches()
    }
    fn global_reader(&self) -> Option<&dyn regwatt_sim::timing::rf::GlobalRead> {
        self.inner.global_reader()
    }
}

/// Runs every launch of `spec` in order through the timing model with `design` on `cfg`
/// (buffers persist across launches, as `regwatt exec`), with the default [`Watch`].
pub fn simulate_spec(
    spec: &LaunchSpec,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    opts: &RunOptions,
) -> Result<SpecSimulation, SimError> {
    simulate_spec_watched(spec, design, cfg, opts, Watch::default())
}

/// [`simulate_spec`] with a warp-instruction limit and a progress callback.
pub fn simulate_spec_watched(
    spec: &LaunchSpec,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    opts: &RunOptions,
    watch: Watch<'_>,
) -> Result<SpecSimulation, SimError> {
    let mut index = 0usize;
    let mut hit: Option<(usize, String)> = None;
    let mut kernel_registers = BTreeMap::new();
    let mut carry = LaunchCarry::default();
    let res = for_each_launch(spec, cfg.gpu.alloc_target(), |model| {
        let k = model.kernel();
        kernel_registers.insert(
            k.name.clone(),
            KernelRegisters {
                registers: k.gprs,
                source: k.registers_source,
            },
        );
        let kernel = spec
            .launches
            .get(index)
            .map_or(String::new(), |l| l.kernel.clone());
        let mut counted = Counted {
            inner: model,
            count: 0,
            next_report: regwatt_sim::exec::PROGRESS_EVERY
                .min(watch.max_warp_instructions.saturating_add(1)),
            hit: false,
            launch: index,
            kernel: &kernel,
            watch,
        };
        let r = simulate_in_run(design, cfg, &mut counted, opts, &mut carry);
        if counted.hit {
            hit = Some((index, kernel.clone()));
        }
        index += 1;
        r
    });
    let (launches, buffers) = match (res, hit) {
        (Err(_), Some((index, kernel))) => {
            return Err(SimError::InstructionLimit {
                index,
                kernel,
                limit: watch.max_warp_instructions,
            })
        }
        (r, _) => r?,
    };
    let mut total: Option<DesignActivity> = None;
    for a in &launches {
        match &mut total {
            None => total = Some(a.clone()),
            Some(t) => merge_activity(t, a),
        }
    }
    let activity = total.ok_or_else(|| SimError::Setup {
        file: spec.file.clone(),
        message: "the spec has no launches".into(),
    })?;
    let launches = spec
        .launches
        .iter()
        .zip(launches)
        .map(|(l, activity)| LaunchRecord {
            kernel: l.kernel.clone(),
            grid: l.grid,
            block: l.block,
            launch_cycles: launch_latency(l, cfg).min(activity.cycles),
            activity,
        })
        .collect();
    Ok(SpecSimulation {
        activity,
        launches,
        buffers,
        launch_cycles: launch_cycles(spec, cfg),
        kernel_registers,
    })
}

/// Builds the functional model of every launch of `spec` in order (buffers persist across
/// launches, as `regwatt exec`) and hands it to `run_launch`, which times it (any design,
/// any [`regwatt_sim::timing::memory::MemoryTiming`]). Returns the per-launch results and the
/// final contents of every spec buffer.
pub fn for_each_launch<A>(
    spec: &LaunchSpec,
    target: AllocTarget,
    mut run_launch: impl FnMut(&mut ExecModel<'_>) -> Result<A, TimingError>,
) -> Result<(Vec<A>, BTreeMap<String, HostData>), SimError> {
    let mut global = GlobalMemory::new();
    global.alloc_spec_buffers(spec).map_err(ExecError::from)?;
    let module =
        regwatt_sim::ptx::parse(&spec.ptx_path, &spec.ptx_source).map_err(ExecError::from)?;
    let program = Program::for_spec(spec, &module, &mut global, target)?;
    let mut out = Vec::with_capacity(spec.launches.len());
    // what one launch leaves in the instruction and constant caches for the next
    let bases = regwatt_sim::timing::code_bases(&module);
    let mut carry = CarriedCaches::default();
    for (i, l) in spec.launches.iter().enumerate() {
        let setup = |message: String| SimError::Setup {
            file: spec.file.clone(),
            message,
        };
        let kernel = program
            .kernel(&l.kernel)
            .ok_or_else(|| setup(format!("launch {i}: no kernel {}", l.kernel)))?;
        let func_index = module
            .function_index(&l.kernel)
            .ok_or_else(|| setup(format!("launch {i}: no function {}", l.kernel)))?;
        let descs = kernel.param_descs();
        let pb = spec
            .param_block(i, &descs, &|n| global.address_of(n))
            .map_err(ExecError::from)?;
        let params = ParamSpace::new(pb.bytes);
        let launch = LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        let func = module
            .functions
            .get(func_index as usize)
            .ok_or_else(|| setup(format!("launch {i}: no function {}", l.kernel)))?;
        let mut model = ExecModel::new(
            func,
            func_index,
            module.functions.len(),
            kernel,
            &launch,
            &params,
            &program.consts,
            &mut global,
            i as u64,
        )
        .map_err(|source| SimError::Model {
            index: i,
            kernel: l.kernel.clone(),
            source,
        })?
        .with_code_bases(bases.clone())
        .with_carried_caches(&mut carry);
        let a = run_launch(&mut model).map_err(|source| SimError::Timing {
            index: i,
            kernel: l.kernel.clone(),
            source: Box::new(source),
        })?;
        out.push(a);
    }
    let buffers = spec
        .buffers
        .keys()
        .filter_map(|n| Some((n.clone(), global.take_back(n)?)))
        .collect();
    Ok((out, buffers))
}
