//! The only file coupling the timing core to the functional executor of [`crate::exec`]:
//! [`ExecModel`] implements [`FunctionalWarpModel`] over `exec::CtaExec`, and
//! [`run_spec_timed`] runs a whole launch spec through the timing model (the timed twin of
//! `exec::run_spec`), returning the final buffers and one [`Activity`] per launch.

use std::collections::BTreeMap;

use super::activity::Activity;
use super::config::GpuConfig;
use super::core::{run_with_memory, RunOptions, TimingError};
use super::functional::{
    classify, op_kind, FunctionalWarpModel, GridShape, InstrInfo, MemOpKind, MemSpaceKind,
    ModelError, RegList, StepInfo, WarpKey, WarpMemAccess, WarpRegisters,
};
use super::memory::{CarriedCaches, MemoryHierarchy};
use super::profile::{ReuseProfile, WarpReuse};
use super::rf::RegisterFileDesign;
use crate::analysis::{analyze_for, Analysis, ArchReg};
use crate::exec::{
    CtaExec, FlatRegisterFile, Kernel, LaunchConfig, MemKind, MemMeta, Program, RegisterAccess,
    Scratch, WarpId,
};
use crate::ir::{Function, Mods, Module, Space};
use crate::launch::{HostData, LaunchSpec};
use crate::mem::{self, ConstSpace, GlobalMemory, ParamSpace};

/// Adapts the timing core's per-warp register view to the executor's `RegisterAccess`.
struct Regs<'r> {
    inner: &'r mut dyn WarpRegisters,
}

impl RegisterAccess for Regs<'_> {
    fn read(&mut self, _warp: WarpId, reg: ArchReg) -> [u32; 32] {
        match reg {
            ArchReg::R(r) => self.inner.read(r),
            ArchReg::P(_) | ArchReg::U(_) => [0; 32],
        }
    }
    #[inline]
    fn read_into(&mut self, _warp: WarpId, reg: ArchReg, out: &mut [u32; 32]) {
        match reg {
            ArchReg::R(r) => self.inner.read_into(r, out),
            ArchReg::P(_) | ArchReg::U(_) => *out = [0; 32],
        }
    }
    fn write(&mut self, _warp: WarpId, reg: ArchReg, values: &[u32; 32], mask: u32) {
        if let ArchReg::R(r) = reg {
            self.inner.write(r, values, mask);
        }
    }
    fn read_pred(&mut self, _warp: WarpId, p: ArchReg) -> u32 {
        match p {
            ArchReg::P(p) => self.inner.read_pred(p),
            ArchReg::R(_) | ArchReg::U(_) => 0,
        }
    }
    fn write_pred(&mut self, _warp: WarpId, p: ArchReg, bits: u32, mask: u32) {
        if let ArchReg::P(p) = p {
            self.inner.write_pred(p, bits, mask);
        }
    }
}

/// One kernel launch of the functional executor, driven warp by warp by the timing core.
pub struct ExecModel<'a> {
    kernel: &'a Kernel,
    launch: &'a LaunchConfig,
    params: &'a ParamSpace,
    consts: &'a ConstSpace,
    global: &'a mut GlobalMemory,
    gridid: u64,
    func: Function,
    func_index: u32,
    analyses: Vec<Option<Analysis>>,
    infos: Vec<Result<InstrInfo, String>>,
    /// Some entry of `infos` is an error (checked before stepping such an instruction).
    info_errors: bool,
    ctas: Vec<Option<CtaExec<'a>>>,
    grid: GridShape,
    /// log2 of the warps per CTA when that is a power of two (a shift and a mask split a
    /// warp key in [`ExecModel::split`] instead of a division).
    wpc_shift: Option<u32>,
    /// Work buffers of [`CtaExec::step_timed`].
    scratch: Box<Scratch>,
    /// Byte offset of each function's code in the module ([`code_bases`]; empty: 0).
    code_bases: Vec<u64>,
    /// Instruction and constant caches carried between the launches of a spec.
    carry: Option<&'a mut CarriedCaches>,
}

/// Byte offset of each function's first instruction in the code of `module`: the functions
/// one after the other in module order, 8 bytes per instruction (GPGPU-Sim
/// `function_info::ptx_assemble` with `MAX_INST_SIZE` 8; declarations take no room).
pub fn code_bases(module: &Module) -> Vec<u64> {
    let mut next = 0u64;
    module
        .functions
        .iter()
        .map(|f| {
            let b = next;
            if f.defined {
                next += f.instrs.len() as u64 * 8;
            }
            b
        })
        .collect()
}

fn info_of(func: u32, pc: u32, ins: &crate::exec::ExecInstr) -> Result<InstrInfo, String> {
    let mut srcs = RegList::default();
    let mut dsts = RegList::default();
    let (mut sp, mut dp) = (0u32, 0u32);
    for (list, regs, preds) in [
        (ins.src_regs.as_slice(), &mut srcs, &mut sp),
        (ins.dst_regs.as_slice(), &mut dsts, &mut dp),
    ] {
        for a in list {
            match *a {
                ArchReg::R(r) => {
                    if !regs.push(r) {
                        return Err(format!("line {}: more than 16 registers", ins.line));
                    }
                }
                ArchReg::P(p) if p < 32 => *preds |= 1 << p,
                ArchReg::P(p) => return Err(format!("line {}: predicate P{p} > P31", ins.line)),
                ArchReg::U(u) => {
                    return Err(format!("line {}: UR{u} in a register-file list", ins.line))
                }
            }
        }
    }
    Ok(InstrInfo {
        func,
        pc,
        class: classify(ins.op, ins.ty),
        kind: op_kind(ins.op, ins.ty),
        srcs,
        dsts,
        src_preds: sp,
        dst_preds: dp,
        src_uniform: ins.src_ur,
        dst_uniform: ins.dst_ur,
        uniform_reads: ins.ur_reads,
        uniform_writes: ins.ur_writes,
        active_mask: 0,
        coherent: ins.mods.has(Mods::VOLATILE | Mods::ORDERED | Mods::CV),
    })
}

impl<'a> ExecModel<'a> {
    /// The kernel this launch runs.
    pub fn kernel(&self) -> &'a Kernel {
        self.kernel
    }

    /// A model of `kernel` (lowered from `func`, function `func_index` of its module).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        func: &Function,
        func_index: u32,
        functions: usize,
        kernel: &'a Kernel,
        launch: &'a LaunchConfig,
        params: &'a ParamSpace,
        consts: &'a ConstSpace,
        global: &'a mut GlobalMemory,
        gridid: u64,
    ) -> Result<ExecModel<'a>, ModelError> {
        let threads = launch.threads_per_cta();
        let ctas = u32::try_from(launch.ctas())
            .map_err(|_| ModelError(format!("{} CTAs: too many", launch.ctas())))?;
        if threads == 0 || threads > 1024 || ctas == 0 {
            return Err(ModelError(format!(
                "kernel {}: bad launch shape grid {:?} block {:?}",
                kernel.name, launch.grid, launch.block
            )));
        }
        kernel
            .check_block(launch.block)
            .map_err(|e| ModelError(e.to_string()))?;
        // the allocation the kernel was lowered with (its target's uniform file)
        let a = analyze_for(func, kernel.target);
        let mut analyses = vec![None; functions.max(func_index as usize + 1)];
        analyses[func_index as usize] = Some(a);
        let infos: Vec<_> = kernel
            .instrs
            .iter()
            .enumerate()
            .map(|(pc, i)| info_of(func_index, pc as u32, i))
            .collect();
        let info_errors = infos.iter().any(Result::is_err);
        let grid = GridShape {
            ctas,
            threads_per_cta: threads,
            block: launch.block,
            warps_per_cta: threads.div_ceil(32),
            regs_per_thread: kernel.gprs,
            preds_per_thread: kernel.preds,
            shared_bytes_per_cta: u32::try_from(kernel.shared_bytes(launch.dynamic_shared_bytes))
                .unwrap_or(u32::MAX),
        };
        Ok(ExecModel {
            kernel,
            launch,
            params,
            consts,
            global,
            gridid,
            func: func.clone(),
            func_index,
            analyses,
            infos,
            info_errors,
            ctas: (0..ctas).map(|_| None).collect(),
            grid,
            wpc_shift: grid
                .warps_per_cta
                .is_power_of_two()
                .then(|| grid.warps_per_cta.trailing_zeros()),
            scratch: Scratch::new(),
            code_bases: Vec::new(),
            carry: None,
        })
    }

    /// Places the module's functions at `bases` ([`code_bases`]) for instruction fetches.
    pub fn with_code_bases(mut self, bases: Vec<u64>) -> Self {
        self.code_bases = bases;
        self
    }

    /// Starts the launch from the instruction and constant caches in `carry` and leaves
    /// them there for the next launch ([`FunctionalWarpModel::carried_caches`]).
    pub fn with_carried_caches(mut self, carry: &'a mut CarriedCaches) -> Self {
        self.carry = Some(carry);
        self
    }

    fn split(&self, key: WarpKey) -> (usize, usize) {
        if let Some(sh) = self.wpc_shift {
            return ((key >> sh) as usize, (key & ((1 << sh) - 1)) as usize);
        }
        let wpc = self.grid.warps_per_cta.max(1);
        ((key / wpc) as usize, (key % wpc) as usize)
    }
}

/// Writes the timing view of the executor's access `a` into `out`, whose `addrs` already
/// hold the executor's lane addresses ([`CtaExec::step_timed`] writes them in place).
fn mem_access(a: &MemMeta, out: &mut WarpMemAccess) {
    let addrs = &mut out.addrs;
    let space = match a.space {
        Space::Shared | Space::SharedCluster => MemSpaceKind::Shared,
        Space::Local => MemSpaceKind::Local,
        Space::Param => MemSpaceKind::Param,
        Space::Const => MemSpaceKind::Const,
        Space::Global | Space::Tex => MemSpaceKind::Global,
        Space::Generic => {
            let first = if a.mask == 0 {
                0
            } else {
                a.mask.trailing_zeros() as usize
            };
            let (s, _) = mem::classify_generic(addrs[first]);
            for (l, x) in addrs.iter_mut().enumerate() {
                if a.mask >> l & 1 != 0 {
                    *x = mem::classify_generic(*x).1;
                }
            }
            match s {
                mem::Space::Shared => MemSpaceKind::Shared,
                mem::Space::Local => MemSpaceKind::Local,
                mem::Space::Param => MemSpaceKind::Param,
                mem::Space::Const => MemSpaceKind::Const,
                mem::Space::Global => MemSpaceKind::Global,
            }
        }
    };
    out.space = space;
    out.kind = match a.kind {
        MemKind::Load => MemOpKind::Load,
        MemKind::Store => MemOpKind::Store,
        MemKind::Atomic => MemOpKind::Atomic,
    };
    out.bytes_per_lane = a.size;
    out.mask = a.mask;
}

impl FunctionalWarpModel for ExecModel<'_> {
    fn grid(&self) -> GridShape {
        self.grid
    }

    fn code_offset(&self, func: u32, pc: u32) -> u64 {
        self.code_bases.get(func as usize).copied().unwrap_or(0) + u64::from(pc) * 8
    }

    fn carried_caches(&mut self) -> Option<&mut CarriedCaches> {
        self.carry.as_deref_mut()
    }

    fn global_reader(&self) -> Option<&dyn super::rf::GlobalRead> {
        Some(&*self.global)
    }

    fn host_written(&self) -> Vec<(u64, u64)> {
        self.global
            .allocations()
            .iter()
            .map(|a| (a.base, a.size as u64))
            .collect()
    }

    fn start_cta(&mut self, cta: u32) -> Result<(), ModelError> {
        let slot = self
            .ctas
            .get_mut(cta as usize)
            .ok_or_else(|| ModelError(format!("CTA {cta} out of range")))?;
        *slot = Some(CtaExec::new(
            self.kernel,
            self.launch,
            self.params,
            self.consts,
            self.launch.ctaid(u64::from(cta)),
            0,
            self.gridid,
        ));
        Ok(())
    }

    fn finish_cta(&mut self, cta: u32) {
        if let Some(s) = self.ctas.get_mut(cta as usize) {
            *s = None;
        }
    }

    fn next_instr(&self, warp: WarpKey) -> Option<InstrInfo> {
        let (c, w) = self.split(warp);
        let ws = self.ctas.get(c)?.as_ref()?.warp(w)?;
        let top = ws.stack.last()?;
        let mut i = self.infos.get(top.pc as usize)?.as_ref().ok().copied()?;
        i.active_mask = top.mask;
        Some(i)
    }

    fn next_pc(&self, warp: WarpKey) -> Option<(u32, u32)> {
        let (c, w) = self.split(warp);
        let top = self.ctas.get(c)?.as_ref()?.warp(w)?.stack.last()?;
        let i = self.infos.get(top.pc as usize)?.as_ref().ok()?;
        Some((i.func, i.pc))
    }

    fn step(
        &mut self,
        warp: WarpKey,
        regs: &mut dyn WarpRegisters,
        mem: &mut WarpMemAccess,
    ) -> Result<StepInfo, ModelError> {
        let (c, w) = self.split(warp);
        let Some(cta) = self.ctas.get_mut(c).and_then(|x| x.as_mut()) else {
            return Err(ModelError(format!("warp {warp}: CTA not started")));
        };
        // only a kernel with an unrepresentable instruction pays for the look-up
        if self.info_errors {
            let pc = cta.warp(w).and_then(|ws| ws.stack.last()).map(|t| t.pc);
            if let Some(Some(Err(e))) = pc.map(|pc| self.infos.get(pc as usize)) {
                return Err(ModelError(e.clone()));
            }
        }
        let mut r = Regs { inner: regs };
        let s = match cta.step_timed(w, &mut r, self.global, &mut mem.addrs, &mut self.scratch) {
            Ok(s) => s,
            Err(e) => return Err(ModelError(e.to_string())),
        };
        if let Some(a) = s.mem.as_ref() {
            mem_access(a, mem);
        }
        Ok(StepInfo {
            active_mask: s.active_mask,
            mem: s.mem.is_some(),
            barrier: s.arrival,
            exited: s.warp_done,
        })
    }

    fn analyses(&self) -> &[Option<Analysis>] {
        &self.analyses
    }

    fn kernel_pragmas(&self) -> &[String] {
        &self.func.pragmas
    }

    fn block_start(&self, func: u32, pc: u32) -> Option<u32> {
        if func != self.func_index {
            return None;
        }
        let cfg = &self.func.cfg;
        let b = *cfg.block_of.get(pc as usize)?;
        (cfg.blocks.get(b as usize)?.start == pc).then_some(b)
    }

    /// Runs CTAs 0, 1, ... one after another, each on fresh CTA state and a plain register
    /// file, on a **copy** of global memory (so the launch's own memory, CTAs and warps are
    /// untouched), stepping the live warps of a CTA round-robin one instruction at a time
    /// (a warp at a barrier waits for the others, as in `exec::run_launch`), until warps
    /// `0..warps` have exited. Their streams of general-register accesses (the same
    /// [`InstrInfo`] the timing core sees) feed [`WarpReuse`]; the other warps of the last CTA
    /// run only as far as the profiled ones need. Deterministic. If the executor fails or
    /// [`PROFILE_STEP_LIMIT`] warp instructions run, the profile stops there
    /// ([`ReuseProfile::truncated`]) with the warps completed so far.
    fn profile_reuse(&self, warps: u32, rthld: u32) -> Option<ReuseProfile> {
        let mut profile = ReuseProfile::new(rthld);
        let wpc = self.grid.warps_per_cta.max(1);
        let target = u64::from(warps).min(u64::from(self.grid.ctas) * u64::from(wpc));
        let mut global: GlobalMemory = (*self.global).clone();
        let mut scratch = Scratch::new();
        let mut addrs = [0u64; 32];
        let mut regs = FlatRegisterFile::new(
            wpc as usize,
            self.kernel.gprs as usize,
            self.kernel.preds as usize,
        );
        let mut steps = 0u64;
        let mut cta = 0u32;
        while u64::from(cta) * u64::from(wpc) < target {
            let first = u64::from(cta) * u64::from(wpc);
            let profiled = (target - first).min(u64::from(wpc)) as usize;
            regs.clear();
            let mut exec = CtaExec::new(
                self.kernel,
                self.launch,
                self.params,
                self.consts,
                self.launch.ctaid(u64::from(cta)),
                0,
                self.gridid,
            );
            let nw = exec.num_warps();
            let mut tracks: Vec<Option<WarpReuse>> =
                (0..profiled).map(|_| Some(WarpReuse::new())).collect();
            while tracks.iter().any(Option::is_some) {
                let mut progressed = false;
                for w in 0..nw {
                    let Some((pc, _)) = exec.next_instr(w) else {
                        continue;
                    };
                    if steps >= PROFILE_STEP_LIMIT {
                        profile.set_truncated();
                        return Some(profile);
                    }
                    steps += 1;
                    if let Some(t) = tracks.get_mut(w).and_then(Option::as_mut) {
                        match self.infos.get(pc as usize) {
                            Some(Ok(i)) => t.instruction(
                                &mut profile,
                                i.func,
                                i.pc,
                                i.srcs.as_slice(),
                                i.dsts.as_slice(),
                            ),
                            _ => {
                                profile.set_truncated();
                                return Some(profile);
                            }
                        }
                    }
                    let r = exec.step_timed(w, &mut regs, &mut global, &mut addrs, &mut scratch);
                    if r.is_err() {
                        profile.set_truncated();
                        return Some(profile);
                    }
                    progressed = true;
                    if exec.warp(w).is_some_and(|ws| ws.done()) {
                        if let Some(t) = tracks.get_mut(w).and_then(Option::take) {
                            t.finish(&mut profile);
                        }
                    }
                }
                if !progressed {
                    // deadlock (a barrier never completes): the real run fails too
                    profile.set_truncated();
                    return Some(profile);
                }
            }
            cta += 1;
        }
        Some(profile)
    }
}

/// Warp instructions [`ExecModel::profile_reuse`] executes at most (all warps stepped,
/// profiled or not): a bound for kernels whose profiled warps would wait for CTAs that the
/// profile does not run (a grid-wide spin on an atomic).
pub const PROFILE_STEP_LIMIT: u64 = 1 << 24;

/// Result of [`run_spec_timed`].
#[derive(Debug)]
pub struct TimedSpecRun<S: serde::Serialize> {
    /// Final contents of every spec buffer.
    pub buffers: BTreeMap<String, HostData>,
    /// One activity record per launch, in launch order.
    pub launches: Vec<Activity<S>>,
}

/// Runs every launch of `spec` through the timing model of `cfg` with RF designs from
/// `make_design` (called once per SM per launch) and the stub memory model.
pub fn run_spec_timed<D: RegisterFileDesign>(
    spec: &LaunchSpec,
    cfg: &GpuConfig,
    mut make_design: impl FnMut(u32) -> D,
    opts: &RunOptions,
) -> Result<TimedSpecRun<D::Stats>, TimingError> {
    let model_err = |e: String| TimingError::Model {
        warp: 0,
        source: ModelError(e),
    };
    cfg.validate()?;
    let mut global = GlobalMemory::new();
    global
        .alloc_buffers(&spec.initial_buffers())
        .map_err(|e| model_err(e.to_string()))?;
    let module = crate::ptx::parse(&spec.ptx_path, &spec.ptx_source)
        .map_err(|e| model_err(e.to_string()))?;
    let program = Program::for_spec(spec, &module, &mut global, cfg.alloc_target())
        .map_err(|e| model_err(e.to_string()))?;
    let mut launches = Vec::new();
    let bases = code_bases(&module);
    let mut carry = CarriedCaches::default();
    for (i, l) in spec.launches.iter().enumerate() {
        // each launch counts cycles from 0: a fresh memory system, which starts from what the
        // previous launch left in the L2 and the front-end caches
        let mut mem = MemoryHierarchy::new(
            &cfg.memory,
            cfg.sms,
            cfg.sm.units.const_latency,
            cfg.core_clock_mhz,
        );
        let kernel = program
            .kernel(&l.kernel)
            .ok_or_else(|| model_err(format!("no kernel {}", l.kernel)))?;
        let fi = module
            .function_index(&l.kernel)
            .ok_or_else(|| model_err(format!("no kernel {}", l.kernel)))?;
        let func = &module.functions[fi as usize];
        let descs = kernel.param_descs();
        let pb = spec
            .param_block(i, &descs, &|n| global.address_of(n))
            .map_err(|e| model_err(e.to_string()))?;
        let params = ParamSpace::new(pb.bytes);
        let launch = LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        let mut model = ExecModel::new(
            func,
            fi,
            module.functions.len(),
            kernel,
            &launch,
            &params,
            &program.consts,
            &mut global,
            i as u64,
        )
        .map_err(|source| TimingError::Model { warp: 0, source })?
        .with_code_bases(bases.clone());
        if !mem.restore_front_end(&mut carry) {
            mem.preload_l2(&model.host_written());
        }
        launches.push(run_with_memory(
            cfg,
            &mut model,
            &mut make_design,
            &mut mem,
            opts,
        )?);
        mem.save_front_end(&mut carry);
    }
    let buffers = spec
        .buffers
        .keys()
        .filter_map(|n| Some((n.clone(), global.read_back(n)?)))
        .collect();
    Ok(TimedSpecRun { buffers, launches })
}
