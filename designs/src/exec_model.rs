//! **Interim** bridge from the functional executor (`regwatt_sim::exec`) to the timing core's
//! [`FunctionalWarpModel`] seam, and [`simulate_spec`]: every launch of a launch spec through
//! the timing model with a design, real values and real addresses.
//!
//! `regwatt-sim` documents that this coupling belongs in `sim/src/timing/functional.rs`; it
//! did not exist yet when the designs crate needed it, so it lives here until the sim crate
//! provides one, and is then deleted in favour of it.
//!
//! * Warp keys are `cta × warps_per_cta + warp` as the seam requires; one [`CtaExec`] per
//!   started CTA, dropped at `finish_cta`.
//! * [`InstrInfo`]: registers from the lowered instruction's `src_regs` / `dst_regs` (the same
//!   architectural allocation the analysis made; lowering is one executor instruction per IR
//!   instruction, so PCs agree with the analysis), unit class from
//!   [`regwatt_sim::timing::functional::classify`].
//! * A warp waiting at a barrier still reports its `bar` instruction's successor through
//!   `next_instr` (the core holds it until the CTA's barrier completes, the executor releases
//!   all warps when the last one arrives).

use std::collections::BTreeMap;

use regwatt_sim::analysis::{analyze, Analysis, ArchReg};
use regwatt_sim::exec::{
    CtaExec, ExecError, Kernel, LaunchConfig, MemKind, Program, RegisterAccess, WarpId,
};
use regwatt_sim::ir::{Function, Module, Space};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_sim::mem::{ConstSpace, GlobalMemory, ParamSpace};
use regwatt_sim::timing::functional::{
    classify, FunctionalWarpModel, GridShape, InstrInfo, MemOpKind, MemSpaceKind, ModelError,
    RegList, StepInfo, WarpKey, WarpMemAccess, WarpRegisters,
};
use regwatt_sim::timing::{RunOptions, TimingError};

use crate::config::ResolvedConfig;
use crate::run::{merge_activity, simulate, DesignActivity};
use crate::spec::DesignSpec;

/// One launch of one kernel as a [`FunctionalWarpModel`].
pub struct ExecModel<'a> {
    kernel: &'a Kernel,
    func: &'a Function,
    func_index: u32,
    launch: &'a LaunchConfig,
    params: &'a ParamSpace,
    consts: &'a ConstSpace,
    global: &'a mut GlobalMemory,
    gridid: u64,
    grid: GridShape,
    analyses: Vec<Option<Analysis>>,
    infos: Vec<InstrInfo>,
    ctas: BTreeMap<u32, CtaExec<'a>>,
}

struct Bridge<'r> {
    regs: &'r mut dyn WarpRegisters,
}

impl RegisterAccess for Bridge<'_> {
    fn read(&mut self, _warp: WarpId, reg: ArchReg) -> [u32; 32] {
        match reg {
            ArchReg::R(r) => self.regs.read(r),
            ArchReg::P(_) => [0; 32],
        }
    }
    fn write(&mut self, _warp: WarpId, reg: ArchReg, values: &[u32; 32], mask: u32) {
        if let ArchReg::R(r) = reg {
            self.regs.write(r, values, mask);
        }
    }
    fn read_pred(&mut self, _warp: WarpId, p: ArchReg) -> u32 {
        match p {
            ArchReg::P(p) => self.regs.read_pred(p),
            ArchReg::R(_) => 0,
        }
    }
    fn write_pred(&mut self, _warp: WarpId, p: ArchReg, bits: u32, mask: u32) {
        if let ArchReg::P(p) = p {
            self.regs.write_pred(p, bits, mask);
        }
    }
}

fn lists(regs: &[ArchReg]) -> Result<(RegList, u32), ModelError> {
    let mut l = RegList::default();
    let mut preds = 0u32;
    for r in regs {
        match *r {
            ArchReg::R(r) => {
                if !l.push(r) {
                    return Err(ModelError(
                        "more than 16 registers in one instruction".into(),
                    ));
                }
            }
            ArchReg::P(p) if p < 32 => preds |= 1 << p,
            ArchReg::P(p) => {
                return Err(ModelError(format!("predicate P{p} out of range (max P31)")))
            }
        }
    }
    Ok((l, preds))
}

impl<'a> ExecModel<'a> {
    /// The model of launching `kernel` (function `func_index` of `module`) with `launch`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        module: &'a Module,
        func_index: u32,
        kernel: &'a Kernel,
        launch: &'a LaunchConfig,
        params: &'a ParamSpace,
        consts: &'a ConstSpace,
        global: &'a mut GlobalMemory,
        gridid: u64,
    ) -> Result<ExecModel<'a>, ModelError> {
        let func = module
            .functions
            .get(func_index as usize)
            .ok_or_else(|| ModelError(format!("no function {func_index}")))?;
        let a = analyze(func);
        let mut infos = Vec::with_capacity(kernel.instrs.len());
        for (pc, ins) in kernel.instrs.iter().enumerate() {
            let (srcs, src_preds) = lists(ins.src_regs.as_slice())?;
            let (dsts, dst_preds) = lists(ins.dst_regs.as_slice())?;
            infos.push(InstrInfo {
                func: func_index,
                pc: pc as u32,
                class: classify(ins.op, ins.ty),
                srcs,
                dsts,
                src_preds,
                dst_preds,
                active_mask: 0,
            });
        }
        let threads = launch.threads_per_cta();
        let ctas = u32::try_from(launch.ctas())
            .map_err(|_| ModelError(format!("{} CTAs are too many", launch.ctas())))?;
        let grid = GridShape {
            ctas,
            threads_per_cta: threads,
            warps_per_cta: threads.div_ceil(32),
            regs_per_thread: kernel.gprs,
            preds_per_thread: kernel.preds,
            shared_bytes_per_cta: u32::try_from(kernel.shared_bytes(launch.dynamic_shared_bytes))
                .unwrap_or(u32::MAX),
        };
        let mut analyses = vec![None; module.functions.len()];
        if let Some(s) = analyses.get_mut(func_index as usize) {
            *s = Some(a);
        }
        Ok(ExecModel {
            kernel,
            func,
            func_index,
            launch,
            params,
            consts,
            global,
            gridid,
            grid,
            analyses,
            infos,
            ctas: BTreeMap::new(),
        })
    }

    fn split(&self, warp: WarpKey) -> (u32, usize) {
        let wpc = self.grid.warps_per_cta.max(1);
        (warp / wpc, (warp % wpc) as usize)
    }
}

impl FunctionalWarpModel for ExecModel<'_> {
    fn grid(&self) -> GridShape {
        self.grid
    }

    fn start_cta(&mut self, cta: u32) -> Result<(), ModelError> {
        let ctaid = self.launch.ctaid(u64::from(cta));
        let c = CtaExec::new(
            self.kernel,
            self.launch,
            self.params,
            self.consts,
            ctaid,
            cta * self.grid.warps_per_cta,
            self.gridid,
        );
        self.ctas.insert(cta, c);
        Ok(())
    }

    fn finish_cta(&mut self, cta: u32) {
        self.ctas.remove(&cta);
    }

    fn next_instr(&self, warp: WarpKey) -> Option<InstrInfo> {
        let (cta, w) = self.split(warp);
        let ws = self.ctas.get(&cta)?.warp(w)?;
        let top = ws.stack.last()?;
        let mut info = *self.infos.get(top.pc as usize)?;
        info.active_mask = top.mask;
        Some(info)
    }

    fn step(
        &mut self,
        warp: WarpKey,
        regs: &mut dyn WarpRegisters,
    ) -> Result<StepInfo, ModelError> {
        let (cta, w) = self.split(warp);
        let c = self
            .ctas
            .get_mut(&cta)
            .ok_or_else(|| ModelError(format!("CTA {cta} not started")))?;
        let mut bridge = Bridge { regs };
        let s = c
            .step(w, &mut bridge, self.global)
            .map_err(|e: ExecError| ModelError(e.to_string()))?;
        let mem = s.mem.map(|m| WarpMemAccess {
            space: match m.space {
                Space::Shared | Space::SharedCluster => MemSpaceKind::Shared,
                Space::Local => MemSpaceKind::Local,
                Space::Param => MemSpaceKind::Param,
                Space::Const => MemSpaceKind::Const,
                _ => MemSpaceKind::Global,
            },
            kind: match m.kind {
                MemKind::Load => MemOpKind::Load,
                MemKind::Store => MemOpKind::Store,
                MemKind::Atomic => MemOpKind::Atomic,
            },
            bytes_per_lane: m.size,
            mask: m.mask,
            addrs: m.addrs,
        });
        Ok(StepInfo {
            active_mask: s.active_mask,
            mem,
            barrier: s.barrier != regwatt_sim::exec::BarrierEvent::None,
            exited: s.warp_done,
        })
    }

    fn analyses(&self) -> &[Option<Analysis>] {
        &self.analyses
    }

    fn block_start(&self, func: u32, pc: u32) -> Option<u32> {
        if func != self.func_index {
            return None;
        }
        let cfg = &self.func.cfg;
        let b = *cfg.block_of.get(pc as usize)?;
        (cfg.blocks.get(b as usize)?.start == pc).then_some(b)
    }
}

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

/// Result of [`simulate_spec`].
#[derive(Clone, Debug)]
pub struct SpecSimulation {
    /// Activity of all launches, back to back.
    pub activity: DesignActivity,
    /// Final contents of every spec buffer.
    pub buffers: BTreeMap<String, HostData>,
}

/// Runs every launch of `spec` in order through the timing model with `design` on `cfg`
/// (buffers persist across launches, as `regwatt exec`).
pub fn simulate_spec(
    spec: &LaunchSpec,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    opts: &RunOptions,
) -> Result<SpecSimulation, SimError> {
    let mut global = GlobalMemory::new();
    global
        .alloc_buffers(&spec.initial_buffers())
        .map_err(ExecError::from)?;
    let module =
        regwatt_sim::ptx::parse(&spec.ptx_path, &spec.ptx_source).map_err(ExecError::from)?;
    let program = Program::load(&spec.ptx_path, &module, &mut global)?;
    let names: Vec<&str> = program.kernels.iter().map(|k| k.name.as_str()).collect();
    spec.check_kernels(&names).map_err(ExecError::from)?;
    let mut total: Option<DesignActivity> = None;
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
        let mut model = ExecModel::new(
            &module,
            func_index,
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
        })?;
        let a = simulate(design, cfg, &mut model, opts).map_err(|source| SimError::Timing {
            index: i,
            kernel: l.kernel.clone(),
            source: Box::new(source),
        })?;
        match &mut total {
            None => total = Some(a),
            Some(t) => merge_activity(t, &a),
        }
    }
    let activity = total.ok_or_else(|| SimError::Setup {
        file: spec.file.clone(),
        message: "the spec has no launches".into(),
    })?;
    let buffers = spec
        .buffers
        .keys()
        .filter_map(|n| Some((n.clone(), global.read_back(n)?)))
        .collect();
    Ok(SpecSimulation { activity, buffers })
}
