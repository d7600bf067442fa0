//! One CTA in execution: warps with SIMT reconvergence stacks, shared and local memory, the
//! CTA barrier, and [`CtaExec::step`], which executes one warp instruction.
//!
//! SIMT reconvergence follows the immediate-post-dominator stack of Fung et al. (MICRO 2007):
//! each warp keeps a stack of `(pc, reconvergence pc, lane mask)` entries; the top entry
//! executes; a divergent branch turns the top entry into the reconvergence entry and pushes the
//! not-taken and taken paths; an entry is popped when its PC reaches its reconvergence PC.

use super::alu::{self, mask, sext};
use super::error::{ExecError, ThreadId};
use super::lower::{ExecInstr, FastOp, OpClass, RegList, XBase, XOp, NO_RECONV};
use super::program::{Kernel, LaunchConfig};
use super::regs::{ArchReg, RegisterAccess, WarpId};
use crate::barrier::{Arrival, CtaBarriers, BARRIERS};
use crate::ir::{AtomOp, BoolOp, Cmp, Dim, Mode, Mods, Opcode, Sreg, Ty};
use crate::mem::{
    self, ConstSpace, GlobalMemory, LocalMemory, MemError, MemSpace, ParamSpace, SharedMemory,
};

/// One SIMT stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimtEntry {
    /// Next PC of this path.
    pub pc: u32,
    /// Where the path reconverges ([`NO_RECONV`]: at exit).
    pub rpc: u32,
    /// Lanes on this path.
    pub mask: u32,
}

/// Per-warp execution state.
#[derive(Clone, Debug, Default)]
pub struct WarpState {
    /// SIMT reconvergence stack (top = last).
    pub stack: Vec<SimtEntry>,
    /// Carry flag per lane (`CC.CF` of `add.cc`/`addc`, PTX ISA §9.7.2); a condition code, not
    /// a general register.
    pub cc: u32,
    /// Waiting at a CTA barrier.
    pub at_barrier: bool,
    /// PTX line of the barrier instruction the warp waits at (for deadlock messages).
    pub barrier_line: u32,
    /// Lanes that exist (threads of the CTA in this warp).
    pub valid: u32,
    /// Warp instructions executed (also `%clock`).
    pub instructions: u64,
    /// Thread instructions executed (active lanes summed).
    pub thread_instructions: u64,
    /// Waiting at a `bar.red` barrier (its contribution is in the CTA's accumulator).
    pub red_waiting: bool,
    /// Result of a completed `bar.red`, written to the destination when the warp issues the
    /// instruction a second time (see [`CtaExec::step`]).
    pub red_result: Option<BarRedAcc>,
}

/// Running reduction of a `bar.red` (PTX ISA §9.7.12.1 `barrier.red`): over every thread of the
/// CTA that executes it, the number of true predicates (`.popc`), whether all were true
/// (`.and`) and whether any was (`.or`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarRedAcc {
    pub count: u32,
    pub all: bool,
    pub any: bool,
}

impl Default for BarRedAcc {
    fn default() -> Self {
        BarRedAcc {
            count: 0,
            all: true,
            any: false,
        }
    }
}

impl WarpState {
    /// True when every lane has exited.
    pub fn done(&self) -> bool {
        self.stack.is_empty()
    }

    /// The lanes that would execute the next instruction (before its guard).
    pub fn active_mask(&self) -> u32 {
        self.stack.last().map_or(0, |e| e.mask)
    }
}

/// Load, store or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MemKind {
    Load,
    Store,
    Atomic,
}

/// The memory side of one warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    pub kind: MemKind,
    /// State space as written (`Generic`: classify each address with [`mem::classify_generic`]).
    pub space: crate::ir::Space,
    /// Bytes per lane (element size × vector width).
    pub size: u32,
    /// Address of each lane in `mask` (first byte).
    pub addrs: [u64; 32],
    /// Lanes that accessed memory.
    pub mask: u32,
}

/// Barrier outcome of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BarrierEvent {
    #[default]
    None,
    /// The warp arrived and waits.
    Arrived,
    /// The warp's arrival (or exit) completed a barrier: its waiting warps are released.
    Released,
}

/// What the timing model needs to know about one executed warp instruction.
#[derive(Clone, Copy, Debug)]
pub struct StepInfo {
    /// PC of the instruction.
    pub pc: u32,
    /// PTX source line.
    pub line: u32,
    pub op: Opcode,
    pub class: OpClass,
    /// Lanes active on the SIMT stack when it issued.
    pub active_mask: u32,
    /// Active lanes whose guard predicate was true (the lanes that had an effect).
    pub exec_mask: u32,
    /// Architectural registers read (guard first).
    pub src_regs: RegList,
    /// Architectural registers written.
    pub dst_regs: RegList,
    /// Memory access, for ld/st/atom/red.
    pub mem: Option<MemAccess>,
    /// A branch split the warp.
    pub diverged: bool,
    /// After this step one or more paths reconverged (stack entries popped at their
    /// reconvergence PC).
    pub reconverged: bool,
    pub barrier: BarrierEvent,
    /// The warp's arrival at a barrier (`bar.sync`, `bar.arrive`, the first issue of
    /// `bar.red`), with the barrier's number and expected warps.
    pub arrival: Option<Arrival>,
    /// Lanes that exited at this instruction.
    pub exited_lanes: u32,
    /// The warp has finished (every lane exited).
    pub warp_done: bool,
}

/// The memory side of a [`TimedStep`]: [`MemAccess`] without the addresses, which
/// [`CtaExec::step_timed`] writes into the caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemMeta {
    pub kind: MemKind,
    /// State space as written (`Generic`: classify each address with [`mem::classify_generic`]).
    pub space: crate::ir::Space,
    /// Bytes per lane (element size × vector width).
    pub size: u32,
    /// Lanes that accessed memory.
    pub mask: u32,
}

/// What [`CtaExec::step_timed`] reports: the part of [`StepInfo`] the timing model uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedStep {
    /// Lanes active on the SIMT stack when it issued.
    pub active_mask: u32,
    /// Memory access of a ld/st/atom/red (lane addresses in the caller's buffer).
    pub mem: Option<MemMeta>,
    pub barrier: BarrierEvent,
    /// The warp's arrival at a barrier ([`StepInfo::arrival`]).
    pub arrival: Option<Arrival>,
    /// The warp has finished (every lane exited).
    pub warp_done: bool,
}

/// Outcome of one step apart from its register and memory effects (the fields of
/// [`StepInfo`] that depend on execution).
#[derive(Clone, Copy, Debug, Default)]
struct Outcome {
    active: u32,
    exec: u32,
    mem: Option<MemMeta>,
    diverged: bool,
    reconverged: bool,
    barrier: BarrierEvent,
    arrival: Option<Arrival>,
    exited_lanes: u32,
    warp_done: bool,
    /// The step read no register (second issue of `bar.red`).
    no_src: bool,
    /// The step wrote no register (first issue of `bar.red`).
    no_dst: bool,
}

/// Where a step puts the lane addresses of a memory instruction.
trait AddrBuf {
    fn buf(&mut self) -> &mut [u64; 32];
}

impl AddrBuf for [u64; 32] {
    #[inline(always)]
    fn buf(&mut self) -> &mut [u64; 32] {
        self
    }
}

/// The [`StepInfo::mem`] record, created (zeroed) when a memory instruction needs it.
impl AddrBuf for Option<MemAccess> {
    #[inline]
    fn buf(&mut self) -> &mut [u64; 32] {
        &mut self
            .get_or_insert(MemAccess {
                kind: MemKind::Load,
                space: crate::ir::Space::Generic,
                size: 0,
                addrs: [0; 32],
                mask: 0,
            })
            .addrs
    }
}

/// Lane buffers reused by every step (issue 5): the whole-warp kernels read their operands
/// into these instead of into freshly zeroed arrays. Every use writes a buffer completely
/// before reading it, so no value passes from one step to the next. A caller that steps in a
/// loop ([`CtaExec::step_timed`]) keeps one.
#[derive(Clone, Debug)]
pub struct Scratch {
    v: [[u32; 32]; 5],
}

impl Scratch {
    /// Fresh (zeroed) buffers.
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch { v: [[0; 32]; 5] })
    }
}

/// One CTA of a launch in execution.
pub struct CtaExec<'a> {
    kernel: &'a Kernel,
    launch: &'a LaunchConfig,
    params: &'a ParamSpace,
    consts: &'a ConstSpace,
    /// `%ctaid`.
    pub ctaid: [u32; 3],
    /// Register-file warp index of warp 0 of this CTA.
    pub warp_base: WarpId,
    warps: Vec<WarpState>,
    shared: SharedMemory,
    local: Vec<LocalMemory>,
    gridid: u64,
    /// Reduction of the `bar.red` collecting arrivals at each barrier.
    red_acc: [BarRedAcc; BARRIERS],
    /// Which warps wait at which of the CTA's 16 barriers.
    barriers: CtaBarriers,
    /// Operand buffers of the whole-warp kernels for [`CtaExec::step_into`] (taken for a step,
    /// then put back).
    scratch: Option<Box<Scratch>>,
    /// The uniform register file: [`Kernel::uregs`] 32-bit values per warp (warp `w`'s `URk`
    /// at `w * uregs + k`), one value for all the warp's lanes. Turing's uniform datapath has
    /// its own register file beside the vector register file (Jia et al., "Dissecting the
    /// NVIDIA Turing T4 GPU via Microbenchmarking", 2019), so these values never pass through
    /// [`RegisterAccess`] (the register-file designs). Interior mutability: operand reads and
    /// writes take `&self`.
    uniform: Vec<std::cell::Cell<u32>>,
}

impl<'a> CtaExec<'a> {
    /// A fresh CTA `ctaid` of `kernel` launched with `launch`; its warps use register-file warp
    /// ids `warp_base..warp_base + warps`.
    pub fn new(
        kernel: &'a Kernel,
        launch: &'a LaunchConfig,
        params: &'a ParamSpace,
        consts: &'a ConstSpace,
        ctaid: [u32; 3],
        warp_base: WarpId,
        gridid: u64,
    ) -> Self {
        let threads = launch.threads_per_cta() as usize;
        let nw = threads.div_ceil(32);
        let warps = (0..nw)
            .map(|w| {
                let n = (threads - w * 32).min(32);
                let valid = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
                WarpState {
                    stack: vec![SimtEntry {
                        pc: 0,
                        rpc: NO_RECONV,
                        mask: valid,
                    }],
                    valid,
                    ..WarpState::default()
                }
            })
            .collect();
        let shared = SharedMemory::new(kernel.shared_bytes(launch.dynamic_shared_bytes));
        let local = (0..threads)
            .map(|_| LocalMemory::new(kernel.local_bytes))
            .collect();
        CtaExec {
            kernel,
            launch,
            params,
            consts,
            ctaid,
            warp_base,
            warps,
            shared,
            local,
            gridid,
            red_acc: [BarRedAcc::default(); BARRIERS],
            barriers: CtaBarriers::new(nw),
            scratch: Some(Scratch::new()),
            uniform: vec![std::cell::Cell::new(0); nw * kernel.uregs as usize],
        }
    }

    /// Uniform register `UR<k>` of warp `w` (`None` outside the file).
    pub fn uniform_reg(&self, w: usize, k: u16) -> Option<u32> {
        self.ur_cell(w, k).map(std::cell::Cell::get)
    }

    #[inline]
    fn ur_cell(&self, w: usize, k: u16) -> Option<&std::cell::Cell<u32>> {
        let n = self.kernel.uregs as usize;
        if usize::from(k) >= n {
            return None;
        }
        self.uniform.get(w * n + usize::from(k))
    }

    /// The value of uniform register (pair) `reg`, `slots` registers, of warp `w`.
    fn read_ur(&self, w: usize, reg: u16, slots: u8) -> Result<u64, String> {
        let get = |k: u16| {
            self.ur_cell(w, k)
                .map(std::cell::Cell::get)
                .ok_or_else(|| format!("uniform register UR{k} outside the kernel's file"))
        };
        let lo = get(reg)?;
        let hi = if slots >= 2 {
            get(reg.saturating_add(1))?
        } else {
            0
        };
        Ok(u64::from(lo) | u64::from(hi) << 32)
    }

    /// Writes uniform register (pair) `reg` of warp `w` for the whole warp: the value of the
    /// lowest lane of `m` (every lane that runs a uniform definition computes the same value
    /// from uniform operands, `analysis::uniform`); nothing when `m` is empty.
    fn write_ur(
        &self,
        w: usize,
        reg: u16,
        slots: u8,
        vals: &[u64; 32],
        m: u32,
    ) -> Result<(), String> {
        if m == 0 {
            return Ok(());
        }
        self.write_ur_value(w, reg, slots, vals[m.trailing_zeros() as usize])
    }

    /// Writes `v` to uniform register (pair) `reg` of warp `w` ([`Self::write_ur`] of one
    /// lane's value).
    fn write_ur_value(&self, w: usize, reg: u16, slots: u8, v: u64) -> Result<(), String> {
        let set = |k: u16, x: u32| {
            self.ur_cell(w, k)
                .map(|c| c.set(x))
                .ok_or_else(|| format!("uniform register UR{k} outside the kernel's file"))
        };
        set(reg, v as u32)?;
        if slots >= 2 {
            set(reg.saturating_add(1), (v >> 32) as u32)?;
        }
        Ok(())
    }

    /// Number of warps.
    pub fn num_warps(&self) -> usize {
        self.warps.len()
    }

    /// State of warp `w`.
    pub fn warp(&self, w: usize) -> Option<&WarpState> {
        self.warps.get(w)
    }

    /// True when every warp has exited.
    pub fn done(&self) -> bool {
        self.warps.iter().all(WarpState::done)
    }

    /// The CTA's shared memory.
    pub fn shared(&self) -> &SharedMemory {
        &self.shared
    }

    /// What warp `w` would issue next: its PC and instruction, or `None` if it has exited or
    /// waits at a barrier.
    pub fn next_instr(&self, w: usize) -> Option<(u32, &'a ExecInstr)> {
        let ws = self.warps.get(w)?;
        if ws.at_barrier {
            return None;
        }
        let e = ws.stack.last()?;
        self.kernel.instrs.get(e.pc as usize).map(|i| (e.pc, i))
    }

    fn thread(&self, w: usize, lane: u32) -> ThreadId {
        let lin = w as u32 * 32 + lane;
        let [bx, by, _] = self.launch.block;
        ThreadId {
            ctaid: self.ctaid,
            tid: [lin % bx, (lin / bx) % by, lin / (bx * by)],
            warp: w as u32,
        }
    }

    fn rt_err(&self, w: usize, lane: u32, pc: u32, ins: &ExecInstr, message: String) -> ExecError {
        ExecError::Runtime {
            file: self.kernel.file.clone(),
            line: ins.line,
            kernel: self.kernel.name.clone(),
            pc,
            thread: self.thread(w, lane),
            message,
        }
    }

    /// The memory error of lane `lane` of warp `w` at address `addr`.
    #[cold]
    fn mem_err(
        &self,
        w: usize,
        lane: u32,
        pc: u32,
        ins: &ExecInstr,
        addr: u64,
        source: MemError,
    ) -> ExecError {
        ExecError::Memory {
            file: self.kernel.file.clone(),
            line: ins.line,
            kernel: self.kernel.name.clone(),
            pc,
            thread: self.thread(w, lane),
            addr,
            source,
        }
    }

    /// The memory the first active lane's address `first` hits, to be read directly by a
    /// load: shared memory, or the global allocation containing it (one search); `None`
    /// for other spaces (every lane then takes the checked path).
    #[inline(always)]
    fn direct_region<'g>(
        &'g self,
        global: &'g GlobalMemory,
        space: Option<mem::Space>,
        first: u64,
    ) -> Option<(u64, &'g [u8])> {
        match space {
            Some(mem::Space::Shared) => Some((0, self.shared.as_bytes())),
            Some(mem::Space::Global) | None
                if mem::classify_generic(first).0 == mem::Space::Global =>
            {
                global.region_at(first)
            }
            _ => None,
        }
    }

    /// The error of a failed lane operation of warp `w` (message `msg`; an `unsupported:`
    /// prefix makes it [`ExecError::Unsupported`]), reported for the first lane of `exec`.
    #[cold]
    fn lane_err(&self, w: usize, pc: u32, ins: &ExecInstr, exec: u32, msg: String) -> ExecError {
        let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
        if msg.starts_with("unsupported:") {
            self.unsupported(
                ins,
                msg.trim_start_matches("unsupported:").trim().to_string(),
            )
        } else {
            self.rt_err(w, lane, pc, ins, msg)
        }
    }

    fn unsupported(&self, ins: &ExecInstr, what: String) -> ExecError {
        ExecError::Unsupported {
            file: self.kernel.file.clone(),
            line: ins.line,
            function: self.kernel.name.clone(),
            what,
        }
    }

    fn special(&self, w: usize, s: Sreg) -> Result<[u64; 32], String> {
        let ws = &self.warps[w];
        let [bx, by, bz] = self.launch.block;
        let [gx, gy, gz] = self.launch.grid;
        let d = |d: Dim, v: [u32; 3]| u64::from(v[d as usize]);
        let uni = |v: u64| [v; 32];
        Ok(match s {
            Sreg::Tid(dim) => std::array::from_fn(|l| {
                let lin = w as u32 * 32 + l as u32;
                u64::from(match dim {
                    Dim::X => lin % bx,
                    Dim::Y => (lin / bx) % by,
                    Dim::Z => lin / (bx * by),
                })
            }),
            Sreg::Ntid(dim) => uni(d(dim, [bx, by, bz])),
            Sreg::Ctaid(dim) => uni(d(dim, self.ctaid)),
            Sreg::Nctaid(dim) => uni(d(dim, [gx, gy, gz])),
            Sreg::LaneId => std::array::from_fn(|l| l as u64),
            Sreg::WarpId => uni(w as u64),
            Sreg::NWarpId => uni(self.warps.len() as u64),
            Sreg::SmId => uni(0),
            Sreg::NSmId => uni(1),
            Sreg::GridId => uni(self.gridid),
            Sreg::LanemaskEq => std::array::from_fn(|l| 1u64 << l),
            Sreg::LanemaskLe => std::array::from_fn(|l| mask((2u64 << l) - 1, 32)),
            Sreg::LanemaskLt => std::array::from_fn(|l| (1u64 << l) - 1),
            Sreg::LanemaskGe => std::array::from_fn(|l| mask(!((1u64 << l) - 1), 32)),
            Sreg::LanemaskGt => std::array::from_fn(|l| mask(!((2u64 << l) - 1), 32)),
            // deterministic clocks: the warp's instruction count
            Sreg::Clock => uni(mask(ws.instructions, 32)),
            Sreg::ClockHi => uni(ws.instructions >> 32),
            Sreg::Clock64 | Sreg::GlobalTimer => uni(ws.instructions),
            Sreg::GlobalTimerLo => uni(mask(ws.instructions, 32)),
            Sreg::GlobalTimerHi => uni(ws.instructions >> 32),
            Sreg::DynamicSmemSize => uni(u64::from(self.launch.dynamic_shared_bytes)),
            Sreg::TotalSmemSize | Sreg::AggrSmemSize => uni(self.shared.size() as u64),
            Sreg::EnvReg(_) | Sreg::Pm(_) => uni(0),
        })
    }

    /// All lanes of source operand `o` (the same register reads as [`Self::fetch_into`]; the
    /// common register and immediate cases build the result without zeroing a buffer first).
    #[inline]
    fn fetch<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
    ) -> Result<[u64; 32], String> {
        match o {
            XOp::Gpr { .. } => {
                let (mut lo, mut hi) = ([0u32; 32], [0u32; 32]);
                self.fetch_pair_into(regs, w, o, &mut lo, &mut hi)?;
                Ok(widen(&lo, &hi))
            }
            XOp::Imm(v) => Ok([*v; 32]),
            _ => {
                let mut out = [0u64; 32];
                self.fetch_into(regs, w, o, &mut out)?;
                Ok(out)
            }
        }
    }

    /// Writes lanes `m` of the 32-bit values `vals`, zero-extended, to destination `o`: the
    /// same register writes, in the same order, as [`Self::store`] of the widened values.
    #[inline(always)]
    fn store32<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        vals: &[u32; 32],
        m: u32,
    ) -> Result<(), String> {
        self.store_pair(regs, w, o, vals, &[0; 32], m)
    }

    /// Every lane of source operand `o` as 32-bit halves into `lo` and `hi`, for 64-bit
    /// operations done on halves (issue 5: no assembling and splitting of 64-bit lanes). The
    /// same register reads as [`Self::fetch`]; a single register leaves `hi` zero.
    #[inline(always)]
    fn fetch_pair_into<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        lo: &mut [u32; 32],
        hi: &mut [u32; 32],
    ) -> Result<(), String> {
        let wid = self.warp_base + w as u32;
        match o {
            XOp::Gpr { reg, slots } => {
                regs.read_into(wid, ArchReg::R(*reg), lo);
                if *slots >= 2 {
                    regs.read_into(wid, ArchReg::R(reg + 1), hi);
                } else {
                    *hi = [0; 32];
                }
            }
            XOp::Imm(v) => {
                *lo = [*v as u32; 32];
                *hi = [(*v >> 32) as u32; 32];
            }
            XOp::Ur { reg, slots } => {
                let v = self.read_ur(w, *reg, *slots)?;
                *lo = [v as u32; 32];
                *hi = [(v >> 32) as u32; 32];
            }
            _ => (*lo, *hi) = split(&self.fetch(regs, w, o)?),
        }
        Ok(())
    }

    /// The low 32 bits of every lane of source operand `o` into `out`, for 32-bit operations
    /// (issue 5: no widening to `u64` and back; the register file's array lands in the
    /// caller's buffer). Reads exactly the registers [`Self::fetch`] reads (register-file
    /// designs count reads), so a 64-bit pair still reads both halves.
    #[inline(always)]
    fn fetch32_into<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        out: &mut [u32; 32],
    ) -> Result<(), String> {
        match o {
            XOp::Gpr { reg, slots } if *slots < 2 => {
                regs.read_into(self.warp_base + w as u32, ArchReg::R(*reg), out);
            }
            XOp::Imm(v) => *out = [*v as u32; 32],
            XOp::Ur { reg, slots } => *out = [self.read_ur(w, *reg, *slots)? as u32; 32],
            _ => *out = self.fetch(regs, w, o)?.map(|x| x as u32),
        }
        Ok(())
    }

    /// Writes lanes `m` of the 64-bit values given as halves `lo`, `hi` to destination `o`: the
    /// same register writes, in the same order, as [`Self::store`] of the assembled values.
    #[inline(always)]
    fn store_pair<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        lo: &[u32; 32],
        hi: &[u32; 32],
        m: u32,
    ) -> Result<(), String> {
        match o {
            XOp::Gpr { reg, slots } => {
                let wid = self.warp_base + w as u32;
                regs.write(wid, ArchReg::R(*reg), lo, m);
                if *slots >= 2 {
                    regs.write(wid, ArchReg::R(reg + 1), hi, m);
                }
                Ok(())
            }
            // the whole warp's value: the lowest lane of `m`'s, as `write_ur`
            XOp::Ur { reg, slots } => {
                if m == 0 {
                    return Ok(());
                }
                let l = m.trailing_zeros() as usize;
                self.write_ur_value(w, *reg, *slots, u64::from(lo[l]) | u64::from(hi[l]) << 32)
            }
            _ => self.store(regs, w, o, &widen(lo, hi), m),
        }
    }

    /// All lanes of source operand `o`, into `out`.
    #[inline]
    fn fetch_into<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        out: &mut [u64; 32],
    ) -> Result<(), String> {
        let wid = self.warp_base + w as u32;
        match o {
            XOp::Gpr { reg, slots } => {
                let mut lo = [0u32; 32];
                regs.read_into(wid, ArchReg::R(*reg), &mut lo);
                if *slots >= 2 {
                    let mut hi = [0u32; 32];
                    regs.read_into(wid, ArchReg::R(reg + 1), &mut hi);
                    for l in 0..32 {
                        out[l] = u64::from(lo[l]) | u64::from(hi[l]) << 32;
                    }
                } else {
                    for l in 0..32 {
                        out[l] = u64::from(lo[l]);
                    }
                }
            }
            XOp::Pred { reg, neg } => {
                let b = regs.read_pred(wid, ArchReg::P(*reg)) ^ if *neg { u32::MAX } else { 0 };
                for (l, x) in out.iter_mut().enumerate() {
                    *x = u64::from(b >> l & 1);
                }
            }
            XOp::Ur { reg, slots } => *out = [self.read_ur(w, *reg, *slots)?; 32],
            XOp::Imm(v) => *out = [*v; 32],
            XOp::Special(s) => *out = self.special(w, *s)?,
            XOp::Sink => *out = [0; 32],
            XOp::Vec(_) => return Err("vector operand where a scalar is expected".into()),
            XOp::Addr { .. } => return Err("address operand where a value is expected".into()),
        }
        Ok(())
    }

    /// Writes lanes `m` of `vals` to destination `o`.
    #[inline]
    fn store<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        vals: &[u64; 32],
        m: u32,
    ) -> Result<(), String> {
        let wid = self.warp_base + w as u32;
        match o {
            XOp::Gpr { .. } => {
                let (lo, hi) = split(vals);
                self.store_pair(regs, w, o, &lo, &hi, m)
            }
            XOp::Pred { reg, .. } => {
                let mut bits = 0u32;
                for (l, v) in vals.iter().enumerate() {
                    bits |= ((*v & 1) as u32) << l;
                }
                regs.write_pred(wid, ArchReg::P(*reg), bits, m);
                Ok(())
            }
            XOp::Ur { reg, slots } => self.write_ur(w, *reg, *slots, vals, m),
            XOp::Sink => Ok(()),
            _ => Err("destination is not a register".into()),
        }
    }

    fn mem_space(&self, space: crate::ir::Space) -> Option<mem::Space> {
        super::lower::to_mem_space(space)
    }

    /// Loads element offset `koff` of lanes `miss` of warp `w` one by one through the checked
    /// path, in ascending lane order, handing each value to `put(lane, value)`. The first
    /// failing lane stops it: `(lane, address, error)`.
    #[allow(clippy::too_many_arguments)]
    fn load_lanes(
        &self,
        global: &GlobalMemory,
        space: Option<mem::Space>,
        w: usize,
        addrs: &[u64; 32],
        koff: u64,
        esize: usize,
        miss: u32,
        mut put: impl FnMut(usize, u64),
    ) -> Result<(), (u32, u64, MemError)> {
        let mut m = miss;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let a = addrs[l as usize].wrapping_add(koff);
            let v = self
                .load(global, space, w * 32 + l as usize, a, esize)
                .map_err(|e| (l, a, e))?;
            put(l as usize, v);
        }
        Ok(())
    }

    #[inline]
    fn load(
        &self,
        global: &GlobalMemory,
        space: Option<mem::Space>,
        tidx: usize,
        addr: u64,
        size: usize,
    ) -> Result<u64, MemError> {
        let (sp, a) = match space {
            Some(s) => (s, addr),
            None => mem::classify_generic(addr),
        };
        match sp {
            mem::Space::Global => global.load(a, size),
            mem::Space::Shared => self.shared.load(a, size),
            mem::Space::Local => match self.local.get(tidx) {
                Some(l) => l.load(a, size),
                None => Err(MemError::Unmapped {
                    space: sp,
                    addr: a,
                    size,
                }),
            },
            mem::Space::Param => self.params.load(a, size),
            mem::Space::Const => self.consts.load(a, size),
        }
    }

    #[inline]
    fn store_mem(
        &mut self,
        global: &mut GlobalMemory,
        space: Option<mem::Space>,
        tidx: usize,
        addr: u64,
        size: usize,
        v: u64,
    ) -> Result<(), MemError> {
        let (sp, a) = match space {
            Some(s) => (s, addr),
            None => mem::classify_generic(addr),
        };
        match sp {
            mem::Space::Global => global.store(a, size, v),
            mem::Space::Shared => self.shared.store(a, size, v),
            mem::Space::Local => match self.local.get_mut(tidx) {
                Some(l) => l.store(a, size, v),
                None => Err(MemError::Unmapped {
                    space: sp,
                    addr: a,
                    size,
                }),
            },
            // param and const are read-only for kernels
            mem::Space::Param => {
                let mut p = self.params.clone();
                p.store(a, size, v)
            }
            mem::Space::Const => {
                let mut c = self.consts.clone();
                c.store(a, size, v)
            }
        }
    }

    /// Lane addresses of address operand `o`, into `out`; for a register base, also the
    /// half-warp patterns of the addresses ([`half_pats`], issue 5), else `[Other; 2]`.
    /// `lo` and `hi` are work buffers (the base register's halves).
    fn addresses_into<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        out: &mut [u64; 32],
        lo: &mut [u32; 32],
        hi: &mut [u32; 32],
    ) -> Result<[HalfPat; 2], String> {
        match o {
            XOp::Addr {
                base: XBase::Gpr { reg, slots },
                offset,
            } => {
                // the reads of `fetch_into` on the base register(s), then one pass
                let wid = self.warp_base + w as u32;
                let off = *offset as u64;
                regs.read_into(wid, ArchReg::R(*reg), lo);
                if *slots >= 2 {
                    regs.read_into(wid, ArchReg::R(reg + 1), hi);
                    for l in 0..32 {
                        out[l] = (u64::from(lo[l]) | u64::from(hi[l]) << 32).wrapping_add(off);
                    }
                    Ok(half_pats(lo, Some(hi)))
                } else {
                    for l in 0..32 {
                        out[l] = u64::from(lo[l]).wrapping_add(off);
                    }
                    Ok(half_pats(lo, None))
                }
            }
            o => {
                *out = self.addresses(regs, w, o)?;
                Ok([HalfPat::Other; 2])
            }
        }
    }

    /// Lane addresses of address operand `o`.
    fn addresses<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
    ) -> Result<[u64; 32], String> {
        match o {
            XOp::Addr { base, offset } => Ok(match base {
                XBase::Abs => [*offset as u64; 32],
                XBase::Ur { reg, slots } => {
                    [self.read_ur(w, *reg, *slots)?.wrapping_add(*offset as u64); 32]
                }
                XBase::Gpr { reg, slots } => {
                    let b = self.fetch(
                        regs,
                        w,
                        &XOp::Gpr {
                            reg: *reg,
                            slots: *slots,
                        },
                    )?;
                    b.map(|x| x.wrapping_add(*offset as u64))
                }
            }),
            // `ld [reg]` written without brackets never happens; immediates are absolute
            XOp::Imm(v) => Ok([*v; 32]),
            _ => Err("memory operand is not an address".into()),
        }
    }

    /// Executes one instruction of warp `w`. Errors leave the CTA in an unspecified state.
    pub fn step<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
    ) -> Result<StepInfo, ExecError> {
        let mut slot = None;
        self.step_into(w, regs, global, &mut slot)?;
        slot.ok_or_else(|| ExecError::Setup(format!("warp {w}: step produced no result")))
    }

    /// [`CtaExec::step`] writing its [`StepInfo`] into `slot`, so a caller that steps in a
    /// loop reuses one buffer instead of moving the ~0.4 KB record out of every step
    /// (issue 5). On error `slot` holds nothing meaningful.
    pub fn step_into<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        slot: &mut Option<StepInfo>,
    ) -> Result<(), ExecError> {
        let kernel = self.kernel;
        let info = slot.get_or_insert_with(|| StepInfo {
            pc: 0,
            line: 0,
            op: Opcode::Exit,
            class: OpClass::Control,
            active_mask: 0,
            exec_mask: 0,
            src_regs: RegList::default(),
            dst_regs: RegList::default(),
            mem: None,
            diverged: false,
            reconverged: false,
            barrier: BarrierEvent::None,
            arrival: None,
            exited_lanes: 0,
            warp_done: false,
        });
        info.mem = None;
        let mut o = Outcome::default();
        let mut sc = self.scratch.take().unwrap_or_else(Scratch::new);
        let r = self.step_impl(w, regs, global, &mut info.mem, &mut sc, &mut o);
        self.scratch = Some(sc);
        let pc = r?;
        let Some(ins) = kernel.instrs.get(pc as usize) else {
            return Err(ExecError::Setup(format!("pc {pc} out of range")));
        };
        info.pc = pc;
        info.line = ins.line;
        info.op = ins.op;
        info.class = ins.class;
        info.active_mask = o.active;
        info.exec_mask = o.exec;
        info.src_regs = if o.no_src {
            RegList::default()
        } else {
            ins.src_regs
        };
        info.dst_regs = if o.no_dst {
            RegList::default()
        } else {
            ins.dst_regs
        };
        match (o.mem, info.mem.as_mut()) {
            (Some(m), Some(a)) => {
                a.kind = m.kind;
                a.space = m.space;
                a.size = m.size;
                a.mask = m.mask;
            }
            _ => info.mem = None,
        }
        info.diverged = o.diverged;
        info.reconverged = o.reconverged;
        info.barrier = o.barrier;
        info.arrival = o.arrival;
        info.exited_lanes = o.exited_lanes;
        info.warp_done = o.warp_done;
        Ok(())
    }

    /// [`CtaExec::step`] for the timing model: returns only what the timing model uses
    /// ([`TimedStep`]; it takes the register lists from [`ExecInstr::src_regs`]/
    /// [`ExecInstr::dst_regs`] itself) and writes the lane addresses of a memory instruction
    /// straight into `addrs` (issue 5: no ~0.4 KB record, no zeroing and copying of an
    /// address array per step). `addrs` is left untouched by other instructions. `scratch`
    /// holds work buffers only (any [`Scratch`] will do).
    #[inline]
    pub fn step_timed<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        addrs: &mut [u64; 32],
        scratch: &mut Scratch,
    ) -> Result<TimedStep, ExecError> {
        let mut o = Outcome::default();
        self.step_impl(w, regs, global, addrs, scratch, &mut o)?;
        Ok(TimedStep {
            active_mask: o.active,
            mem: o.mem,
            barrier: o.barrier,
            arrival: o.arrival,
            warp_done: o.warp_done,
        })
    }

    /// The step of [`CtaExec::step_into`] and [`CtaExec::step_timed`]: executes the next
    /// instruction of warp `w`, recording its outcome in `out` and the lane addresses of a
    /// memory instruction in `abuf`. Returns the instruction's PC. A step after which every
    /// live warp of the CTA waits at a barrier that cannot complete (its arrival, or its
    /// exit) fails with [`ExecError::Deadlock`]: a GPU would hang there.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step_impl<R: RegisterAccess, B: AddrBuf>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        abuf: &mut B,
        sc: &mut Scratch,
        out: &mut Outcome,
    ) -> Result<u32, ExecError> {
        let pc = self.step_body(w, regs, global, abuf, sc, out)?;
        if (out.barrier == BarrierEvent::Arrived || out.warp_done) && self.barriers.deadlocked() {
            return Err(self.deadlock_error(w, pc, out.warp_done));
        }
        Ok(pc)
    }

    /// The deadlock error after warp `w`'s step at `pc` (its arrival at a barrier, or its exit
    /// when `exited`): names the instruction, the CTA, the warp and what each barrier waits
    /// for.
    #[cold]
    fn deadlock_error(&self, w: usize, pc: u32, exited: bool) -> ExecError {
        let ins = self.kernel.instrs.get(pc as usize);
        let line = ins.map_or(0, |i| i.line);
        let what = if exited {
            format!("warp {w} exited, and every other live warp waits at a barrier")
        } else {
            "every live warp waits at a barrier".to_string()
        };
        ExecError::Deadlock {
            file: self.kernel.file.clone(),
            line,
            kernel: self.kernel.name.clone(),
            ctaid: self.ctaid,
            warp: w as u32,
            message: format!(
                "{what} that cannot complete: {}",
                self.barriers
                    .describe(|x| self.warps.get(x).map_or(0, |ws| ws.barrier_line))
            ),
        }
    }

    /// The error of a CTA in which no warp can issue although some have not exited (every
    /// waiting warp's arrival was checked for a deadlock, so this is a safety net).
    #[cold]
    pub fn stall_error(&self) -> ExecError {
        let w = (0..self.warps.len())
            .find(|&x| self.warps[x].at_barrier)
            .unwrap_or(0);
        ExecError::Deadlock {
            file: self.kernel.file.clone(),
            line: self.warps.get(w).map_or(0, |ws| ws.barrier_line),
            kernel: self.kernel.name.clone(),
            ctaid: self.ctaid,
            warp: w as u32,
            message: format!(
                "no warp can issue: {}",
                self.barriers
                    .describe(|x| self.warps.get(x).map_or(0, |ws| ws.barrier_line))
            ),
        }
    }

    /// Records warp `w`'s arrival `a` at a barrier (`out.arrival`), releasing the barrier's
    /// warps if it completes (`out.barrier = Released`); a waiting arrival parks the warp
    /// (`out.barrier = Arrived`).
    fn arrive(&mut self, w: usize, a: Arrival, line: u32, out: &mut Outcome) {
        out.arrival = Some(a);
        if a.wait {
            let ws = &mut self.warps[w];
            ws.at_barrier = true;
            ws.barrier_line = line;
            out.barrier = BarrierEvent::Arrived;
        }
        if let Some(m) = self.barriers.arrive(w, a) {
            self.release(usize::from(a.id), m);
            out.barrier = BarrierEvent::Released;
        }
    }

    /// Releases the warps `m` waiting at barrier `id`, handing a `bar.red`'s waiters its
    /// reduction.
    fn release(&mut self, id: usize, m: u64) {
        let acc = self
            .red_acc
            .get_mut(id)
            .map(std::mem::take)
            .unwrap_or_default();
        for (x, ws) in self.warps.iter_mut().enumerate() {
            if x < 64 && m & (1u64 << x) != 0 {
                ws.at_barrier = false;
                if std::mem::take(&mut ws.red_waiting) {
                    ws.red_result = Some(acc);
                }
            }
        }
    }

    /// The barrier arrival of `bar` instruction `ins` for warp `w` (lanes `exec`): the barrier
    /// number `a` and, when `counted`, the thread count `b` (PTX ISA §9.7.13.1). Both must be
    /// the same in every executing thread; `a` must be in 0..15 ("sixteen barriers numbered
    /// 0..15"); `b` a non-zero multiple of the warp size ("must be a multiple of the warp
    /// size") no larger than the CTA's warps can supply (a barrier waiting for more threads
    /// than the CTA has never completes). Immediates are checked by the PTX checker already;
    /// register operands only here, at run time.
    #[allow(clippy::too_many_arguments)]
    fn bar_arrival<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        pc: u32,
        ins: &ExecInstr,
        exec: u32,
        counted: bool,
        wait: bool,
    ) -> Result<Arrival, ExecError> {
        let lane0 = exec.trailing_zeros();
        let mut uniform = |o: &XOp, what: &str| -> Result<u64, ExecError> {
            let v = match o {
                XOp::Imm(v) => return Ok(*v),
                o => self
                    .fetch(regs, w, o)
                    .map_err(|m| self.rt_err(w, lane0, pc, ins, m))?,
            };
            let first = v[lane0 as usize] & 0xffff_ffff;
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                let x = v[l as usize] & 0xffff_ffff;
                if x != first {
                    return Err(self.rt_err(
                        w,
                        l,
                        pc,
                        ins,
                        format!(
                            "the barrier's {what} differs between the warp's threads                              ({first} in lane {lane0}, {x} in lane {l}; PTX ISA §9.7.13.1)"
                        ),
                    ));
                }
            }
            Ok(first)
        };
        let Some(a) = ins.src.first() else {
            return Err(self.unsupported(ins, "bar without a barrier number".into()));
        };
        let id = uniform(a, "number")?;
        if id >= BARRIERS as u64 {
            return Err(self.rt_err(
                w,
                lane0,
                pc,
                ins,
                format!(
                    "barrier number {id} out of range 0..15 (PTX ISA §9.7.13.1: sixteen \
                     barriers per CTA)"
                ),
            ));
        }
        let mut warps = 0u8;
        if counted {
            let Some(b) = ins.src.get(1) else {
                return Err(self.unsupported(ins, "bar without a thread count".into()));
            };
            let b = uniform(b, "thread count")?;
            let nw = self.warps.len() as u64;
            let threads = self.launch.threads_per_cta();
            let why = if b == 0 {
                Some("a thread count of 0: no thread could take part".to_string())
            } else if b % 32 != 0 {
                Some(format!(
                    "thread count {b} is not a multiple of the warp size (32)"
                ))
            } else if b > nw * 32 {
                Some(format!(
                    "thread count {b} exceeds the CTA's {threads} threads ({nw} warp{} of 32): \
                     the barrier can never complete",
                    if nw == 1 { "" } else { "s" }
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(self.rt_err(
                    w,
                    lane0,
                    pc,
                    ins,
                    format!("barrier {id}: {why} (PTX ISA §9.7.13.1)"),
                ));
            }
            warps = u8::try_from(b / 32).unwrap_or(u8::MAX);
        }
        Ok(Arrival {
            id: id as u8,
            warps,
            wait,
        })
    }

    /// [`Self::step_impl`] without the deadlock check.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step_body<R: RegisterAccess, B: AddrBuf>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        abuf: &mut B,
        sc: &mut Scratch,
        out: &mut Outcome,
    ) -> Result<u32, ExecError> {
        let kernel = self.kernel;
        let Some(ws) = self.warps.get_mut(w) else {
            return Err(ExecError::Setup(format!("no warp {w} in this CTA")));
        };
        let Some(&top) = ws.stack.last() else {
            return Err(ExecError::Setup(format!("warp {w} has exited")));
        };
        if ws.at_barrier {
            return Err(ExecError::Setup(format!("warp {w} waits at a barrier")));
        }
        let pc = top.pc;
        let Some(ins) = kernel.instrs.get(pc as usize) else {
            return Err(ExecError::Setup(format!(
                "kernel {}: pc {pc} out of range",
                kernel.name
            )));
        };
        let active = top.mask;
        ws.instructions += 1;
        // a full warp needs no population count (no `popcnt` in the baseline x86-64 target)
        ws.thread_instructions += if active == u32::MAX {
            32
        } else {
            u64::from(active.count_ones())
        };
        let wid = self.warp_base + w as u32;
        let exec = match ins.guard {
            Some((p, neg)) => {
                let b = regs.read_pred(wid, ArchReg::P(p));
                active & if neg { !b } else { b }
            }
            None => active,
        };
        out.active = active;
        out.exec = exec;
        // the whole-warp kernels first (issue 5): no opcode dispatch for the commonest
        // instructions (`fast` is only set on plain ALU instructions of the right arity)
        if ins.fast != FastOp::None {
            if exec != 0 {
                self.exec_fast(w, regs, ins, exec, sc)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            self.advance(w, pc + 1, out);
            return Ok(pc);
        }
        let mut next_pc = pc + 1;
        match ins.op {
            // §9.7.11.1 bra
            Opcode::Bra => {
                let taken = exec;
                let not_taken = active & !exec;
                let ws = &mut self.warps[w];
                if not_taken == 0 {
                    next_pc = ins.target;
                } else if taken != 0 {
                    // divergence: the top entry waits at the reconvergence point
                    out.diverged = true;
                    let rpc = ins.reconv;
                    let t = ws.stack.len() - 1;
                    ws.stack[t].pc = rpc;
                    ws.stack.push(SimtEntry {
                        pc: pc + 1,
                        rpc,
                        mask: not_taken,
                    });
                    ws.stack.push(SimtEntry {
                        pc: ins.target,
                        rpc,
                        mask: taken,
                    });
                    self.normalize(w, out);
                    return Ok(pc);
                }
            }
            // §9.7.11.3 ret / §9.7.11.4 exit (kernels only: ret of the entry ends the thread)
            Opcode::Ret | Opcode::Exit => {
                if exec != 0 {
                    out.exited_lanes = exec;
                    let ws = &mut self.warps[w];
                    for e in ws.stack.iter_mut() {
                        e.mask &= !exec;
                    }
                }
            }
            Opcode::Trap | Opcode::Brkpt => {
                if exec != 0 {
                    return Err(self.lane_err(w, pc, ins, exec, format!("{:?} executed", ins.op)));
                }
            }
            // §9.7.13.1 bar.sync / barrier.sync a{, b} waits at barrier a (for every warp of
            // the CTA, or b threads); bar.arrive a, b counts towards it without waiting
            Opcode::Bar => match ins.mode {
                Mode::BarSync | Mode::None if exec != 0 => {
                    let counted = ins.src.len() >= 2;
                    let a = self.bar_arrival(regs, w, pc, ins, exec, counted, true)?;
                    if let Some(e) = self.warps[w].stack.last_mut() {
                        e.pc = next_pc;
                    }
                    self.arrive(w, a, ins.line, out);
                    self.normalize(w, out);
                    return Ok(pc);
                }
                Mode::BarArrive if exec != 0 => {
                    let a = self.bar_arrival(regs, w, pc, ins, exec, true, false)?;
                    self.arrive(w, a, ins.line, out);
                }
                Mode::BarArrive | Mode::BarSync | Mode::None => {}
                // §9.7.13.1 barrier.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c: the
                // barrier of bar.sync plus a reduction of `c` over the CTA's threads. Issued in
                // two steps, as the SASS does (BAR.RED, then B2R.RESULT reading the barrier's
                // result): the first step contributes and waits; after the release the second
                // step writes `d`.
                Mode::BarRed => {
                    if let Some(res) = self.warps[w].red_result.take() {
                        out.no_src = true;
                        let d = ins.dst.first().ok_or_else(|| {
                            self.unsupported(ins, "bar.red without a destination".into())
                        })?;
                        let v: u64 = match ins.atom {
                            AtomOp::Popc => u64::from(res.count),
                            AtomOp::And => u64::from(res.all),
                            _ => u64::from(res.any),
                        };
                        self.store(regs, w, d, &[v; 32], exec)
                            .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                    } else if exec != 0 {
                        out.no_dst = true;
                        let c = ins.src.last().ok_or_else(|| {
                            self.unsupported(ins, "bar.red without a predicate".into())
                        })?;
                        let counted = ins.src.len() >= 3;
                        let a = self.bar_arrival(regs, w, pc, ins, exec, counted, true)?;
                        let mut vals = [0u64; 32];
                        self.fetch_into(regs, w, c, &mut vals)
                            .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                        let bits = (0..32).fold(0u32, |b, l| b | (((vals[l] & 1) as u32) << l));
                        let t = bits & exec;
                        if let Some(acc) = self.red_acc.get_mut(usize::from(a.id)) {
                            acc.count += t.count_ones();
                            acc.all &= t == exec;
                            acc.any |= t != 0;
                        }
                        self.warps[w].red_waiting = true;
                        // the pc stays here: the warp issues the instruction again for the result
                        self.arrive(w, a, ins.line, out);
                        self.normalize(w, out);
                        return Ok(pc);
                    }
                }
                _ => return Err(self.unsupported(ins, format!("bar mode {:?}", ins.mode))),
            },
            Opcode::BarWarp
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Prefetch
            | Opcode::Prefetchu
            | Opcode::Nanosleep
            | Opcode::Pmevent => {}
            Opcode::Ld | Opcode::Ldu | Opcode::St => {
                out.mem = Some(if ins.ld32 {
                    self.exec_ld32(w, regs, global, ins, pc, exec, abuf.buf(), sc)?
                } else {
                    self.exec_ld_st(w, regs, global, ins, pc, exec, abuf.buf())?
                });
            }
            Opcode::Atom | Opcode::Red => {
                out.mem = Some(self.exec_atom(w, regs, global, ins, pc, exec, abuf.buf())?);
            }
            Opcode::Shfl | Opcode::Vote | Opcode::Activemask | Opcode::Match | Opcode::Redux => {
                self.exec_warp_op(w, regs, ins, exec)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Setp | Opcode::Set => {
                self.exec_setp(w, regs, ins, exec, sc)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Mov
                if matches!(ins.dst.first(), Some(XOp::Vec(_)))
                    || matches!(ins.src.first(), Some(XOp::Vec(_))) =>
            {
                self.exec_mov_vec(w, regs, ins, exec)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Call => return Err(self.unsupported(ins, "call".into())),
            _ => {
                if exec != 0 {
                    self.exec_alu(w, regs, ins, exec)
                        .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                }
            }
        }
        self.advance(w, next_pc, out);
        Ok(pc)
    }

    /// Moves the top SIMT entry of warp `w` to `next_pc`, then pops what finished
    /// ([`Self::normalize`], only called when the top entry reconverged or emptied).
    #[inline(always)]
    fn advance(&mut self, w: usize, next_pc: u32, out: &mut Outcome) {
        if let Some(e) = self.warps[w].stack.last_mut() {
            e.pc = next_pc;
            if e.mask != 0 && e.pc != e.rpc {
                return;
            }
        }
        self.normalize(w, out);
    }

    /// Pops finished and reconverged entries; a warp that finished no longer counts towards
    /// the barriers that wait for every live warp, which may complete them.
    fn normalize(&mut self, w: usize, info: &mut Outcome) {
        let ws = &mut self.warps[w];
        while let Some(e) = ws.stack.last() {
            if e.mask == 0 {
                ws.stack.pop();
            } else if e.pc == e.rpc {
                ws.stack.pop();
                info.reconverged = true;
            } else {
                break;
            }
        }
        if ws.stack.is_empty() {
            info.warp_done = true;
            ws.at_barrier = false;
            for (id, m) in self.barriers.exit(w) {
                self.release(usize::from(id), m);
                info.barrier = BarrierEvent::Released;
            }
        }
    }

    fn exec_alu<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
    ) -> Result<(), String> {
        let n = ins.src.len().min(4);
        let mut src = [[0u64; 32]; 4];
        for (k, o) in ins.src.iter().enumerate().take(n) {
            self.fetch_into(regs, w, o, &mut src[k])?;
        }
        let mut out = [0u64; 32];
        {
            let mut cc = self.warps[w].cc;
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let mut c = cc >> l & 1 != 0;
                out[l] = alu::eval(ins, &[src[0][l], src[1][l], src[2][l], src[3][l]], &mut c)
                    .map_err(|e| format!("unsupported: {e}"))?;
                cc = (cc & !(1 << l)) | (u32::from(c) << l);
            }
            self.warps[w].cc = cc;
        }
        if let Some(d) = ins.dst.first() {
            self.store(regs, w, d, &out, exec)?;
        }
        Ok(())
    }

    /// The whole-warp kernels of [`FastOp`] (issue 5): each is a monomorphised loop over the
    /// 32 lanes on 32-bit values where the operation is 32-bit, so it vectorises and needs no
    /// per-lane indirect call. The results equal [`alu::eval`]'s, NaN results included (the
    /// canonical NaN, `fp::CANONICAL_NAN_F32`). Operands are read in order, then the
    /// destination is written, as in the general path. `ins.src.len()` is the op's arity.
    fn exec_fast<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
        sc: &mut Scratch,
    ) -> Result<(), String> {
        let Some(d) = ins.dst.first() else {
            return Ok(());
        };
        let canon = |x: f32| {
            if x.is_nan() {
                super::fp::CANONICAL_NAN_F32
            } else {
                x.to_bits()
            }
        };
        let f = f32::from_bits;
        match ins.fast {
            FastOp::Mov => {
                let a = ins.src.first().ok_or("missing operand")?;
                if matches!(d, XOp::Gpr { slots, .. } if *slots < 2) {
                    // one destination register holds only the low 32 bits
                    let [v, ..] = &mut sc.v;
                    self.fetch32_into(regs, w, a, v)?;
                    self.store32(regs, w, d, v, exec)
                } else {
                    let v = self.fetch(regs, w, a)?;
                    self.store(regs, w, d, &v, exec)
                }
            }
            FastOp::AddI32 => self.map32(regs, w, ins, exec, sc, |[x, y]| x.wrapping_add(y)),
            FastOp::SubI32 => self.map32(regs, w, ins, exec, sc, |[x, y]| x.wrapping_sub(y)),
            FastOp::MulLoI32 => self.map32(regs, w, ins, exec, sc, |[x, y]| x.wrapping_mul(y)),
            // §9.7.8.6 shl: amounts ≥ the width give 0
            FastOp::ShlB32 => self.map32(regs, w, ins, exec, sc, |[x, y]| {
                x.checked_shl(y).unwrap_or(0)
            }),
            FastOp::AndB32 => self.map32(regs, w, ins, exec, sc, |[x, y]| x & y),
            FastOp::OrB32 => self.map32(regs, w, ins, exec, sc, |[x, y]| x | y),
            FastOp::AddRnF32 => self.map32(regs, w, ins, exec, sc, |[x, y]| canon(f(x) + f(y))),
            FastOp::MulRnF32 => self.map32(regs, w, ins, exec, sc, |[x, y]| canon(f(x) * f(y))),
            FastOp::MadLoI32 => self.map32(regs, w, ins, exec, sc, |[x, y, z]| {
                x.wrapping_mul(y).wrapping_add(z)
            }),
            FastOp::FmaRnF32 => {
                let Some([a, b, c]) = ins.src.first_chunk::<3>() else {
                    return Err("missing operand".into());
                };
                let [x, y, z, out, _] = &mut sc.v;
                self.fetch32_into(regs, w, a, x)?;
                self.fetch32_into(regs, w, b, y)?;
                self.fetch32_into(regs, w, c, z)?;
                super::fp::fma_rn_f32x32(x, y, z, out);
                self.store32(regs, w, d, out, exec)
            }
            FastOp::MulWideS32 | FastOp::MulWideU32 => {
                let (sa, sb) = self.two_srcs(ins)?;
                let [a, b, lo, hi, _] = &mut sc.v;
                self.fetch32_into(regs, w, sa, a)?;
                self.fetch32_into(regs, w, sb, b)?;
                if ins.fast == FastOp::MulWideS32 {
                    for l in 0..32 {
                        let p = i64::from(a[l] as i32) * i64::from(b[l] as i32);
                        lo[l] = p as u32;
                        hi[l] = (p >> 32) as u32;
                    }
                } else {
                    for l in 0..32 {
                        let p = u64::from(a[l]) * u64::from(b[l]);
                        lo[l] = p as u32;
                        hi[l] = (p >> 32) as u32;
                    }
                }
                self.store_pair(regs, w, d, lo, hi, exec)
            }
            // 64-bit add/sub on 32-bit halves with carry/borrow: (a + b) mod 2^64
            // (the halves are joined per lane, which compiles to 64-bit vector adds; the result
            // overwrites the first operand's buffers)
            FastOp::AddI64 | FastOp::SubI64 => {
                let (a, b) = self.two_srcs(ins)?;
                // the halves are read into the scratch buffers (no zeroing), in operand order
                let [al, ah, bl, bh, _] = &mut sc.v;
                self.fetch_pair_into(regs, w, a, al, ah)?;
                self.fetch_pair_into(regs, w, b, bl, bh)?;
                // (a ± b) mod 2^64 on 32-bit halves: the low words' carry (borrow) moves into
                // the high words; 32-bit lanes vectorise four to an SSE2 register
                if ins.fast == FastOp::SubI64 {
                    for l in 0..32 {
                        let (lo, borrow) = al[l].overflowing_sub(bl[l]);
                        al[l] = lo;
                        ah[l] = ah[l].wrapping_sub(bh[l]).wrapping_sub(u32::from(borrow));
                    }
                } else {
                    for l in 0..32 {
                        let (lo, carry) = al[l].overflowing_add(bl[l]);
                        al[l] = lo;
                        ah[l] = ah[l].wrapping_add(bh[l]).wrapping_add(u32::from(carry));
                    }
                }
                self.store_pair(regs, w, d, al, ah, exec)
            }
            FastOp::ShlB64 => self.bin64(regs, w, ins, exec, |x, y| {
                x.checked_shl(y as u32).unwrap_or(0)
            }),
            FastOp::None => Err("not a fast operation".into()),
        }
    }

    /// The first two source operands.
    fn two_srcs<'i>(&self, ins: &'i ExecInstr) -> Result<(&'i XOp, &'i XOp), String> {
        match ins.src.as_slice() {
            [a, b, ..] => Ok((a, b)),
            _ => Err("missing operand".into()),
        }
    }

    /// `d = f([a, b, ..])` on the low 32 bits of every lane, over the first `N` sources.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn map32<R: RegisterAccess, const N: usize>(
        &self,
        regs: &mut R,
        w: usize,
        ins: &ExecInstr,
        exec: u32,
        sc: &mut Scratch,
        f: impl Fn([u32; N]) -> u32,
    ) -> Result<(), String> {
        let Some(srcs) = ins.src.as_slice().get(..N) else {
            return Err("missing operand".into());
        };
        // sources in the first `N` scratch buffers, the result in the last
        let [v @ .., out] = &mut sc.v;
        let Some(v) = v.get_mut(..N) else {
            return Err("too many operands".into());
        };
        for (k, o) in srcs.iter().enumerate() {
            self.fetch32_into(regs, w, o, &mut v[k])?;
        }
        for (l, o) in out.iter_mut().enumerate() {
            *o = f(std::array::from_fn(|k| v[k][l]));
        }
        match ins.dst.first() {
            Some(d) => self.store32(regs, w, d, out, exec),
            None => Ok(()),
        }
    }

    /// `d = f(a, b)` on the 64-bit values of every lane.
    #[inline(always)]
    fn bin64<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        ins: &ExecInstr,
        exec: u32,
        f: impl Fn(u64, u64) -> u64,
    ) -> Result<(), String> {
        let (a, b) = self.two_srcs(ins)?;
        let a = self.fetch(regs, w, a)?;
        let b = self.fetch(regs, w, b)?;
        let mut out = [0u64; 32];
        for l in 0..32 {
            out[l] = f(a[l], b[l]);
        }
        match ins.dst.first() {
            Some(d) => self.store(regs, w, d, &out, exec),
            None => Ok(()),
        }
    }

    /// `setp` (§9.7.6.2) and `set` (§9.7.6.1).
    fn exec_setp<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
        sc: &mut Scratch,
    ) -> Result<(), String> {
        if self.setp_fast(w, regs, ins, exec, sc)? {
            return Ok(());
        }
        let a = self.fetch(regs, w, ins.src.first().ok_or("missing operand")?)?;
        let b = self.fetch(regs, w, ins.src.get(1).ok_or("missing operand")?)?;
        let c = match ins.src.get(2) {
            Some(o) => Some(self.fetch(regs, w, o)?),
            None => None,
        };
        let cmp_ty = if ins.op == Opcode::Set {
            ins.ty2
        } else {
            ins.ty
        };
        let ftz = ins.mods.has(Mods::FTZ);
        let mut p = [0u64; 32];
        let mut q = [0u64; 32];
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let r = alu::compare(cmp_ty, ins.cmp, a[l], b[l], ftz)
                .map_err(|e| format!("unsupported: {e}"))?;
            let comb = |x: bool| -> bool {
                let cv = c.map(|c| c[l] & 1 != 0).unwrap_or(false);
                match ins.bool_op {
                    BoolOp::None => x,
                    BoolOp::And => x && cv,
                    BoolOp::Or => x || cv,
                    BoolOp::Xor => x ^ cv,
                }
            };
            let (pr, qr) = (comb(r), comb(!r));
            if ins.op == Opcode::Set {
                p[l] = if !pr {
                    0
                } else if ins.ty == Ty::F32 {
                    u64::from(1f32.to_bits())
                } else {
                    0xffff_ffff
                };
            } else {
                p[l] = u64::from(pr);
                q[l] = u64::from(qr);
            }
        }
        if let Some(d) = ins.dst.first() {
            self.store(regs, w, d, &p, exec)?;
        }
        if let Some(d) = ins.dst.get(1) {
            self.store(regs, w, d, &q, exec)?;
        }
        Ok(())
    }

    /// Whole-warp `setp.cmp.ty p[|q], a, b` without a boolean combination (issue 5): the
    /// comparison of [`alu::compare`] as one loop producing the lane mask, for the integer types
    /// and `.f32` without `.ftz` and the comparisons defined on them (others, which
    /// `alu::compare` rejects or which need `.ftz`, take the general path). Returns `false`,
    /// having read nothing, when the instruction is not of that form. Same reads and writes as
    /// the general path: `a`, `b`, then `p` and `q` masked with `exec`.
    fn setp_fast<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
        sc: &mut Scratch,
    ) -> Result<bool, String> {
        let [sa, sb] = ins.src.as_slice() else {
            return Ok(false);
        };
        let preds_only = ins.dst.len() <= 2
            && ins
                .dst
                .iter()
                .all(|d| matches!(d, XOp::Pred { .. } | XOp::Sink));
        if ins.op != Opcode::Setp || ins.bool_op != BoolOp::None || !preds_only {
            return Ok(false);
        }
        let int_cmp = matches!(
            ins.cmp,
            Cmp::Eq
                | Cmp::Ne
                | Cmp::Lt
                | Cmp::Le
                | Cmp::Gt
                | Cmp::Ge
                | Cmp::Lo
                | Cmp::Ls
                | Cmp::Hi
                | Cmp::Hs
        );
        let unsigned_cmp = matches!(ins.cmp, Cmp::Lo | Cmp::Ls | Cmp::Hi | Cmp::Hs);
        let bits = match ins.ty {
            Ty::S32 | Ty::U32 | Ty::B32 if int_cmp => {
                let [a, b, ..] = &mut sc.v;
                self.fetch32_into(regs, w, sa, a)?;
                self.fetch32_into(regs, w, sb, b)?;
                if ins.ty == Ty::S32 && !unsigned_cmp {
                    // flipping the sign bit maps the signed order onto the unsigned one
                    for l in 0..32 {
                        a[l] ^= 0x8000_0000;
                        b[l] ^= 0x8000_0000;
                    }
                }
                int_mask(a, b, ins.cmp)
            }
            Ty::S64 | Ty::U64 | Ty::B64 if int_cmp => {
                let a = self.fetch(regs, w, sa)?;
                let b = self.fetch(regs, w, sb)?;
                if ins.ty == Ty::S64 && !unsigned_cmp {
                    int_mask(&a.map(|x| x as i64), &b.map(|x| x as i64), ins.cmp)
                } else {
                    int_mask(&a, &b, ins.cmp)
                }
            }
            Ty::F32 if !ins.mods.has(Mods::FTZ) && ins.cmp != Cmp::None && !unsigned_cmp => {
                let [a, b, ..] = &mut sc.v;
                self.fetch32_into(regs, w, sa, a)?;
                self.fetch32_into(regs, w, sb, b)?;
                f32_mask(a, b, ins.cmp)
            }
            _ => return Ok(false),
        };
        let wid = self.warp_base + w as u32;
        for (d, v) in ins.dst.iter().zip([bits, !bits]) {
            if let XOp::Pred { reg, .. } = d {
                regs.write_pred(wid, ArchReg::P(*reg), v & exec, exec);
            }
        }
        Ok(true)
    }

    /// `mov` packing `{a, b}` into one wider register or unpacking it (§9.7.8.1).
    fn exec_mov_vec<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
    ) -> Result<(), String> {
        let total = ins.ty.bits();
        match (ins.dst.first(), ins.src.first()) {
            (Some(XOp::Vec(ds)), Some(s)) => {
                let v = self.fetch(regs, w, s)?;
                let eb = total / ds.len().max(1) as u32;
                for (k, d) in ds.iter().enumerate() {
                    let part = v.map(|x| mask(x >> (eb * k as u32), eb));
                    self.store(regs, w, d, &part, exec)?;
                }
            }
            (Some(d), Some(XOp::Vec(ss))) => {
                let eb = total / ss.len().max(1) as u32;
                let mut acc = [0u64; 32];
                for (k, s) in ss.iter().enumerate() {
                    let part = self.fetch(regs, w, s)?;
                    for l in 0..32 {
                        acc[l] |= mask(part[l], eb) << (eb * k as u32);
                    }
                }
                self.store(regs, w, d, &acc, exec)?;
            }
            _ => return Err("malformed vector mov".into()),
        }
        Ok(())
    }

    /// `ld`, `ldu`, `st` with `.v2/.v4` (§9.7.9.8, §9.7.9.9, §9.7.9.10).
    #[allow(clippy::too_many_arguments)]
    fn exec_ld_st<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
    ) -> Result<MemMeta, ExecError> {
        let store = ins.op == Opcode::St;
        let (addr_op, val_op) = if store {
            (ins.src.first(), ins.src.get(1))
        } else {
            (ins.src.first(), ins.dst.first())
        };
        let (Some(addr_op), Some(val_op)) = (addr_op, val_op) else {
            return Err(self.unsupported(ins, "malformed ld/st operands".into()));
        };
        let pats = self
            .addresses_into(regs, w, addr_op, abuf, &mut [0; 32], &mut [0; 32])
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        let addrs: &[u64; 32] = abuf;
        let esize = ins.ty.size() as usize;
        if !matches!(esize, 1 | 2 | 4 | 8) {
            return Err(self.unsupported(ins, format!("ld/st of {:?}", ins.ty)));
        }
        let elems: &[XOp] = match val_op {
            XOp::Vec(v) => v,
            o => std::slice::from_ref(o),
        };
        let space = self.mem_space(ins.space);
        let meta = MemMeta {
            kind: if store { MemKind::Store } else { MemKind::Load },
            space: ins.space,
            size: (esize * elems.len()) as u32,
            mask: exec,
        };
        if exec == 0 {
            return Ok(meta);
        }
        let memerr = |s: &Self, l: u32, a: u64, e: MemError| s.mem_err(w, l, pc, ins, a, e);
        // a vector is accessed as a whole and must be aligned to its whole size, not only to
        // its elements' (PTX ISA §9.7.9.8 ld, §9.7.9.10 st: the address must be naturally
        // aligned to a multiple of the access size; a GPU raises a misaligned-address error),
        // in every state space; the first misaligned lane is reported
        if elems.len() > 1 {
            let vsize = (esize * elems.len()) as u64;
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                let a = addrs[l as usize];
                if !a.is_multiple_of(vsize) {
                    let (sp, at) = match space {
                        Some(sp) => (sp, a),
                        None => mem::classify_generic(a),
                    };
                    let e = MemError::Misaligned {
                        space: sp,
                        addr: at,
                        size: vsize as usize,
                    };
                    return Err(memerr(self, l, a, e));
                }
            }
        }
        let bits = ins.ty.bits();
        if store {
            let mut vals = Vec::with_capacity(elems.len());
            for e in elems {
                vals.push(
                    self.fetch(regs, w, e)
                        .map_err(|m| self.rt_err(w, 0, pc, ins, m))?,
                );
            }
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                let tidx = w * 32 + l as usize;
                for (k, v) in vals.iter().enumerate() {
                    let a = addrs[l as usize].wrapping_add((k * esize) as u64);
                    self.store_mem(global, space, tidx, a, esize, v[l as usize])
                        .map_err(|e| memerr(self, l, a, e))?;
                }
            }
        } else {
            // fast path: the allocation (or shared memory) the first active lane hits, read
            // directly; any lane outside it takes the checked path (which reports errors)
            let direct = self.direct_region(global, space, addrs[exec.trailing_zeros() as usize]);
            let signed = ins.ty.is_signed() && bits < 64;
            for (k, e) in elems.iter().enumerate() {
                let koff = (k * esize) as u64;
                if esize == 4 && matches!(e, XOp::Gpr { slots, .. } if *slots < 2) {
                    // a 32-bit element into one register: the low 32 bits are the whole value
                    // (sign extension only changes the upper half, which is not stored)
                    let mut out = [0u32; 32];
                    let miss = direct32(direct, addrs, koff, exec, pats, &mut out);
                    self.load_lanes(global, space, w, addrs, koff, esize, miss, |l, v| {
                        out[l] = v as u32
                    })
                    .map_err(|(l, a, e)| memerr(self, l, a, e))?;
                    self.store32(regs, w, e, &out, exec)
                        .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
                    continue;
                }
                let mut out = [0u64; 32];
                let miss = match direct {
                    Some((base, bytes)) => match esize {
                        4 => gather::<4>(bytes, base, addrs, koff, exec, &mut out),
                        8 => gather::<8>(bytes, base, addrs, koff, exec, &mut out),
                        2 => gather::<2>(bytes, base, addrs, koff, exec, &mut out),
                        _ => gather::<1>(bytes, base, addrs, koff, exec, &mut out),
                    },
                    None => exec,
                };
                // lanes the direct read did not serve, in ascending order (the first failing
                // lane is reported, as before)
                self.load_lanes(global, space, w, addrs, koff, esize, miss, |l, v| {
                    out[l] = v
                })
                .map_err(|(l, a, e)| memerr(self, l, a, e))?;
                // sub-word loads sign- or zero-extend into the register (§9.7.9.8); lanes
                // outside `exec` are 0 and stay 0
                if signed {
                    for x in out.iter_mut() {
                        *x = sext(*x, bits) as u64;
                    }
                }
                self.store(regs, w, e, &out, exec)
                    .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
            }
        }
        Ok(meta)
    }

    /// [`Self::exec_ld_st`] for the instructions of [`ExecInstr::ld32`] (issue 5): one 32-bit
    /// element into one register from the global (or generic) space, without the general
    /// operand decoding. The same register reads and write, addresses, values, errors and
    /// [`MemMeta`] as `exec_ld_st` gives for that form (checked by
    /// `issue5_ld32_matches_general_load`).
    #[allow(clippy::too_many_arguments)]
    fn exec_ld32<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
        sc: &mut Scratch,
    ) -> Result<MemMeta, ExecError> {
        let (Some(addr_op), Some(dst)) = (ins.src.first(), ins.dst.first()) else {
            return Err(self.unsupported(ins, "malformed ld/st operands".into()));
        };
        let [lo, hi, out, ..] = &mut sc.v;
        let pats = self
            .addresses_into(regs, w, addr_op, abuf, lo, hi)
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        let meta = MemMeta {
            kind: MemKind::Load,
            space: ins.space,
            size: 4,
            mask: exec,
        };
        if exec == 0 {
            return Ok(meta);
        }
        let addrs: &[u64; 32] = abuf;
        let space = self.mem_space(ins.space);
        // the allocation the first active lane hits, read directly (as `exec_ld_st`)
        let direct = self.direct_region(global, space, addrs[exec.trailing_zeros() as usize]);
        let miss = direct32(direct, addrs, 0, exec, pats, out);
        if miss != 0 {
            self.load_lanes(global, space, w, addrs, 0, 4, miss, |l, v| {
                out[l] = v as u32
            })
            .map_err(|(l, a, e)| self.mem_err(w, l, pc, ins, a, e))?;
        }
        self.store32(regs, w, dst, out, exec)
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        Ok(meta)
    }

    /// `atom` / `red` (§9.7.13.5, §9.7.13.6): lanes in ascending lane order.
    #[allow(clippy::too_many_arguments)]
    fn exec_atom<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
    ) -> Result<MemMeta, ExecError> {
        let re = |s: &Self, m: String| s.rt_err(w, 0, pc, ins, m);
        let Some(addr_op) = ins.src.first() else {
            return Err(self.unsupported(ins, "atom without address".into()));
        };
        *abuf = self.addresses(regs, w, addr_op).map_err(|m| re(self, m))?;
        let addrs: &[u64; 32] = abuf;
        let b = match ins.src.get(1) {
            Some(o) => self.fetch(regs, w, o).map_err(|m| re(self, m))?,
            None => [0; 32],
        };
        let c = match ins.src.get(2) {
            Some(o) => self.fetch(regs, w, o).map_err(|m| re(self, m))?,
            None => [0; 32],
        };
        let size = ins.ty.size() as usize;
        if !matches!(size, 4 | 8) {
            return Err(self.unsupported(ins, format!("atom on {:?}", ins.ty)));
        }
        if ins.atom == AtomOp::None || ins.atom == AtomOp::Popc {
            return Err(self.unsupported(ins, format!("atom operation {:?}", ins.atom)));
        }
        let space = self.mem_space(ins.space);
        let mut out = [0u64; 32];
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let li = l as usize;
            let tidx = w * 32 + li;
            let a = addrs[li];
            let old = self
                .load(global, space, tidx, a, size)
                .map_err(|e| self.mem_err(w, l, pc, ins, a, e))?;
            let new = alu::atomic_op(ins.atom, ins.ty, old, b[li], c[li])
                .map_err(|e| self.unsupported(ins, e))?;
            self.store_mem(global, space, tidx, a, size, new)
                .map_err(|e| self.mem_err(w, l, pc, ins, a, e))?;
            out[li] = old;
        }
        if ins.op == Opcode::Atom {
            if let Some(d) = ins.dst.first() {
                self.store(regs, w, d, &out, exec)
                    .map_err(|m| re(self, m))?;
            }
        }
        Ok(MemMeta {
            kind: MemKind::Atomic,
            space: ins.space,
            size: size as u32,
            mask: exec,
        })
    }

    /// `shfl.sync` (§9.7.9.6), `vote.sync` (§9.7.13.10), `activemask` (§9.7.13.13),
    /// `match.sync` (§9.7.13.11), `redux.sync` (§9.7.13.12).
    fn exec_warp_op<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        ins: &ExecInstr,
        exec: u32,
    ) -> Result<(), String> {
        let src = |k: usize| ins.src.get(k).ok_or_else(|| "missing operand".to_string());
        match ins.op {
            Opcode::Activemask => {
                if let Some(d) = ins.dst.first() {
                    self.store(regs, w, d, &[u64::from(exec); 32], exec)?;
                }
            }
            Opcode::Shfl => {
                let a = self.fetch(regs, w, src(0)?)?;
                let b = self.fetch(regs, w, src(1)?)?;
                let c = self.fetch(regs, w, src(2)?)?;
                let mut d = [0u64; 32];
                let mut p = [0u64; 32];
                for lane in 0..32i64 {
                    if exec >> lane & 1 == 0 {
                        continue;
                    }
                    let li = lane as usize;
                    let bval = (b[li] & 31) as i64;
                    let cval = (c[li] & 31) as i64;
                    let segmask = ((c[li] >> 8) & 31) as i64;
                    let max_lane = (lane & segmask) | (cval & !segmask);
                    let min_lane = lane & segmask;
                    let (j, pval) = match ins.mode {
                        Mode::ShflUp => {
                            let j = lane - bval;
                            (j, j >= max_lane)
                        }
                        Mode::ShflDown => {
                            let j = lane + bval;
                            (j, j <= max_lane)
                        }
                        Mode::ShflBfly => {
                            let j = lane ^ bval;
                            (j, j <= max_lane)
                        }
                        Mode::ShflIdx => {
                            let j = min_lane | (bval & !segmask);
                            (j, j <= max_lane)
                        }
                        m => return Err(format!("unsupported: shfl mode {m:?}")),
                    };
                    let j = if pval { j } else { lane };
                    d[li] = a[(j & 31) as usize];
                    p[li] = u64::from(pval);
                }
                if let Some(o) = ins.dst.first() {
                    self.store(regs, w, o, &d, exec)?;
                }
                if let Some(o) = ins.dst.get(1) {
                    self.store(regs, w, o, &p, exec)?;
                }
            }
            Opcode::Vote => {
                let q = self.fetch(regs, w, src(0)?)?;
                let members = match ins.src.get(1) {
                    Some(o) => {
                        self.fetch(regs, w, o)?[exec.trailing_zeros().min(31) as usize] as u32
                    }
                    None => u32::MAX,
                };
                let part = exec & members;
                let mut ballot = 0u32;
                for (l, v) in q.iter().enumerate() {
                    if part >> l & 1 != 0 && v & 1 != 0 {
                        ballot |= 1 << l;
                    }
                }
                let r: u64 = match ins.mode {
                    Mode::VoteAll => u64::from(ballot == part),
                    Mode::VoteAny => u64::from(ballot != 0),
                    Mode::VoteUni => u64::from(ballot == part || ballot == 0),
                    Mode::VoteBallot => u64::from(ballot),
                    m => return Err(format!("unsupported: vote mode {m:?}")),
                };
                if let Some(o) = ins.dst.first() {
                    self.store(regs, w, o, &[r; 32], exec)?;
                }
            }
            Opcode::Match => {
                let a = self.fetch(regs, w, src(0)?)?;
                let members = match ins.src.get(1) {
                    Some(o) => {
                        self.fetch(regs, w, o)?[exec.trailing_zeros().min(31) as usize] as u32
                    }
                    None => u32::MAX,
                };
                let part = exec & members;
                let bits = ins.ty.bits();
                let mut d = [0u64; 32];
                let mut p = [0u64; 32];
                let first = a[part.trailing_zeros().min(31) as usize];
                let all_same =
                    (0..32).all(|l| part >> l & 1 == 0 || mask(a[l], bits) == mask(first, bits));
                for l in 0..32 {
                    if part >> l & 1 == 0 {
                        continue;
                    }
                    match ins.mode {
                        Mode::MatchAny => {
                            let mut mm = 0u32;
                            for k in 0..32 {
                                if part >> k & 1 != 0 && mask(a[k], bits) == mask(a[l], bits) {
                                    mm |= 1 << k;
                                }
                            }
                            d[l] = u64::from(mm);
                        }
                        _ => {
                            d[l] = if all_same { u64::from(part) } else { 0 };
                            p[l] = u64::from(all_same);
                        }
                    }
                }
                if let Some(o) = ins.dst.first() {
                    self.store(regs, w, o, &d, exec)?;
                }
                if let Some(o) = ins.dst.get(1) {
                    self.store(regs, w, o, &p, exec)?;
                }
            }
            Opcode::Redux => {
                let a = self.fetch(regs, w, src(0)?)?;
                let signed = ins.ty.is_signed();
                let mut acc: Option<i64> = None;
                for (l, &al) in a.iter().enumerate() {
                    if exec >> l & 1 == 0 {
                        continue;
                    }
                    let v = if signed {
                        i64::from(al as u32 as i32)
                    } else {
                        i64::from(al as u32)
                    };
                    acc = Some(match (acc, ins.atom) {
                        (None, _) => v,
                        (Some(x), AtomOp::Add) => x.wrapping_add(v),
                        (Some(x), AtomOp::Min) => x.min(v),
                        (Some(x), AtomOp::Max) => x.max(v),
                        (Some(x), AtomOp::And) => x & v,
                        (Some(x), AtomOp::Or) => x | v,
                        (Some(x), AtomOp::Xor) => x ^ v,
                        (_, o) => return Err(format!("unsupported: redux.{o:?}")),
                    });
                }
                let r = mask(acc.unwrap_or(0) as u64, 32);
                if let Some(o) = ins.dst.first() {
                    self.store(regs, w, o, &[r; 32], exec)?;
                }
            }
            _ => return Err("not a warp operation".into()),
        }
        Ok(())
    }
}

/// Lane mask of `a[l] cmp b[l]` for an integer comparison (`Lo/Ls/Hi/Hs` as `Lt/Le/Gt/Ge`;
/// the caller passes unsigned lanes for them), as [`alu::compare`].
#[inline(always)]
fn int_mask<T: Ord + Copy>(a: &[T; 32], b: &[T; 32], cmp: Cmp) -> u32 {
    match cmp {
        Cmp::Eq => lane_mask(a, b, |x, y| x == y),
        Cmp::Ne => lane_mask(a, b, |x, y| x != y),
        Cmp::Lt | Cmp::Lo => lane_mask(a, b, |x, y| x < y),
        Cmp::Le | Cmp::Ls => lane_mask(a, b, |x, y| x <= y),
        Cmp::Gt | Cmp::Hi => lane_mask(a, b, |x, y| x > y),
        _ => lane_mask(a, b, |x, y| x >= y),
    }
}

/// Lane mask of an `f32` comparison, ordered (false if either is NaN) or unordered (`..u`: true
/// if either is NaN), as [`alu::compare`] (PTX ISA §9.7.6.2, Table "Floating-point comparison
/// operators"). Comparing in `f32` equals comparing the exactly widened `f64` values.
#[inline(always)]
fn f32_mask(a: &[u32; 32], b: &[u32; 32], cmp: Cmp) -> u32 {
    let (a, b) = (a.map(f32::from_bits), b.map(f32::from_bits));
    let (a, b) = (&a, &b);
    let nan = |x: f32, y: f32| x.is_nan() || y.is_nan();
    match cmp {
        Cmp::Eq => lane_mask(a, b, |x, y| !nan(x, y) && x == y),
        Cmp::Ne => lane_mask(a, b, |x, y| !nan(x, y) && x != y),
        Cmp::Lt => lane_mask(a, b, |x, y| !nan(x, y) && x < y),
        Cmp::Le => lane_mask(a, b, |x, y| !nan(x, y) && x <= y),
        Cmp::Gt => lane_mask(a, b, |x, y| !nan(x, y) && x > y),
        Cmp::Ge => lane_mask(a, b, |x, y| !nan(x, y) && x >= y),
        Cmp::Equ => lane_mask(a, b, |x, y| nan(x, y) || x == y),
        Cmp::Neu => lane_mask(a, b, |x, y| nan(x, y) || x != y),
        Cmp::Ltu => lane_mask(a, b, |x, y| nan(x, y) || x < y),
        Cmp::Leu => lane_mask(a, b, |x, y| nan(x, y) || x <= y),
        Cmp::Gtu => lane_mask(a, b, |x, y| nan(x, y) || x > y),
        Cmp::Geu => lane_mask(a, b, |x, y| nan(x, y) || x >= y),
        Cmp::Num => lane_mask(a, b, |x, y| !nan(x, y)),
        _ => lane_mask(a, b, nan),
    }
}

/// `1 << l` for every lane `l`.
const LANE_BIT: [u32; 32] = {
    let mut b = [0u32; 32];
    let mut l = 0;
    while l < 32 {
        b[l] = 1 << l;
        l += 1;
    }
    b
};

/// Bit `l` set where `f(a[l], b[l])`. Built as an OR of `LANE_BIT[l]` under an all-ones
/// mask rather than with per-lane shifts (SSE2 has no per-lane variable shift, so this form
/// vectorises, issue 5).
#[inline(always)]
fn lane_mask<T: Copy>(a: &[T; 32], b: &[T; 32], f: impl Fn(T, T) -> bool) -> u32 {
    let mut m = 0u32;
    for l in 0..32 {
        m |= LANE_BIT[l] & 0u32.wrapping_sub(u32::from(f(a[l], b[l])));
    }
    m
}

/// Reads the `N`-byte little-endian element at `addrs[l] + koff` of every lane `l` of `exec`
/// from `bytes` (the memory starting at address `base`) into `out[l]`, when it is naturally
/// aligned and lies wholly inside `bytes` (issue 5: one tight loop per warp instead of a
/// checked access per lane). Returns the lanes not served, for the checked path.
#[inline(always)]
fn gather<const N: usize>(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    out: &mut [u64; 32],
) -> u32 {
    // last offset an N-byte element may start at (none if the memory is shorter)
    let Some(last) = bytes.len().checked_sub(N) else {
        return exec;
    };
    let mut miss = 0u32;
    for l in 0..32 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addrs[l].wrapping_add(koff);
        let off = a.wrapping_sub(base) as usize;
        let b = if a.is_multiple_of(N as u64) && off <= last {
            bytes.get(off..off + N)
        } else {
            None
        };
        match b {
            Some(b) => {
                let mut x = [0u8; 8];
                x[..N].copy_from_slice(b);
                out[l] = u64::from_le_bytes(x);
            }
            None => miss |= 1 << l,
        }
    }
    miss
}

/// `lo[l] | hi[l] << 32` for every lane.
#[inline]
fn widen(lo: &[u32; 32], hi: &[u32; 32]) -> [u64; 32] {
    let mut out = [0u64; 32];
    for l in 0..32 {
        out[l] = u64::from(lo[l]) | u64::from(hi[l]) << 32;
    }
    out
}

/// The low and high 32-bit halves of every lane.
#[inline]
fn split(v: &[u64; 32]) -> ([u32; 32], [u32; 32]) {
    let (mut lo, mut hi) = ([0u32; 32], [0u32; 32]);
    for l in 0..32 {
        lo[l] = v[l] as u32;
        hi[l] = (v[l] >> 32) as u32;
    }
    (lo, hi)
}

/// [`gather`] of 4-byte elements into 32-bit lanes. Every lane is read (inactive lanes
/// speculatively: the read has no side effect) and inactive lanes are zeroed afterwards, which
/// keeps the loop free of per-lane activity tests. Not inlined: inlined into the element loop
/// of `exec_ld_st`, the compiler hoisted the 32 lane tests of the zeroing loop out of it and
/// paid for them (spilled to the stack) on every load (issue 5).
#[inline(never)]
fn gather32(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    out: &mut [u32; 32],
) -> u32 {
    let Some(last) = bytes.len().checked_sub(4) else {
        // every lane of `exec` takes the checked path; the others are 0
        *out = [0; 32];
        return exec;
    };
    let mut miss = 0u32;
    for l in 0..32 {
        let a = addrs[l].wrapping_add(koff);
        let off = a.wrapping_sub(base) as usize;
        let hit = if a.is_multiple_of(4) && off <= last {
            bytes.get(off..off + 4)
        } else {
            None
        };
        match hit {
            Some(&[b0, b1, b2, b3]) => out[l] = u32::from_le_bytes([b0, b1, b2, b3]),
            _ => miss |= 1 << l,
        }
    }
    // lanes outside `exec`: zero them and drop their misses
    if exec != u32::MAX {
        for (l, x) in out.iter_mut().enumerate() {
            if exec >> l & 1 == 0 {
                *x = 0;
            }
        }
    }
    miss & exec
}

/// Address pattern of a half-warp (16 lanes, the segment of 16-wide thread blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HalfPat {
    /// Not recognised (the lane loop of [`gather32`] serves the lanes).
    Other,
    /// Every lane has the same address (a broadcast).
    Same,
    /// Lane `l` has the segment's first address plus `4 l` (a coalesced run of words).
    Seq,
}

/// The patterns of the two half-warps of the addresses `base + off` with 64-bit lane bases
/// `hi:lo` (`hi` `None`: 32-bit bases, zero-extended), found on the 32-bit halves (issue 5:
/// four lanes to an SSE2 register, where the 64-bit comparisons did not vectorise). Adding
/// the offset does not change the differences between lanes, so: all `hi` equal and all `lo`
/// equal is a broadcast; all `hi` equal and `lo[l] = lo[0] + 4 l` without wrapping (first low
/// word at most `2^32 − 61`) is a coalesced run. These are sufficient conditions; anything
/// else is `Other`, which only means the lane loop reads the values.
#[inline(always)]
fn half_pats(lo: &[u32; 32], hi: Option<&[u32; 32]>) -> [HalfPat; 2] {
    [half_pat(lo, hi, 0), half_pat(lo, hi, 16)]
}

/// [`half_pats`] of the half-warp starting at lane `h0` (0 or 16).
#[inline(always)]
fn half_pat(lo: &[u32; 32], hi: Option<&[u32; 32]>, h0: usize) -> HalfPat {
    let (Some(lo), Some(l0)) = (lo.get(h0..h0 + 16), lo.get(h0)) else {
        return HalfPat::Other;
    };
    if let Some(hi) = hi.and_then(|h| h.get(h0..h0 + 16)) {
        let mut dh = 0u32;
        for &x in hi {
            dh |= x ^ hi[0];
        }
        if dh != 0 {
            return HalfPat::Other;
        }
    }
    let mut same = 0u32;
    for &x in lo {
        same |= x ^ l0;
    }
    if same == 0 {
        return HalfPat::Same;
    }
    let mut seq = 0u32;
    for (&x, &d) in lo.iter().zip(SEQ_STEP32.iter()) {
        seq |= x ^ l0.wrapping_add(d);
    }
    if seq == 0 && *l0 <= u32::MAX - 60 {
        HalfPat::Seq
    } else {
        HalfPat::Other
    }
}

/// Lane offsets `4 l` of a contiguous 16-lane segment.
const SEQ_STEP32: [u32; 16] = [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60];

/// A 32-bit load element at offset `koff` from each lane's address, served from `direct`
/// ([`CtaExec::direct_region`]) where it can be: a full warp with half-warp patterns
/// ([`warp_words`]), else lane by lane ([`gather32`]). Returns the lanes of `exec` left for
/// the checked path (all of them without `direct`, `out` then zeroed so that lanes outside
/// `exec` are 0).
#[inline(always)]
fn direct32(
    direct: Option<(u64, &[u8])>,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    pats: [HalfPat; 2],
    out: &mut [u32; 32],
) -> u32 {
    match direct {
        Some((base, bytes))
            if exec == u32::MAX && warp_words(bytes, base, addrs, koff, pats, out) =>
        {
            0
        }
        Some((base, bytes)) => gather32(bytes, base, addrs, koff, exec, out),
        None => {
            *out = [0; 32];
            exec
        }
    }
}

/// Serves a whole-warp 32-bit load whose half-warps have the patterns `pats` ([`half_pats`]
/// of `addrs`) without a per-lane bounds check. Each word must be aligned and lie wholly
/// inside `bytes` (the memory starting at address `base`), exactly the condition under which
/// [`gather32`] serves a lane, so the values written to `out` are the ones its lane loop would
/// read. Returns `false` (`out` possibly partly written, to be overwritten by the lane loop)
/// when a half-warp has no pattern or its words are not all inside `bytes`.
#[inline(always)]
fn warp_words(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    pats: [HalfPat; 2],
    out: &mut [u32; 32],
) -> bool {
    for (h, pat) in pats.into_iter().enumerate() {
        let first = addrs[16 * h].wrapping_add(koff);
        if pat == HalfPat::Other || !first.is_multiple_of(4) {
            return false;
        }
        // the memory from the segment's first word on (`None` below `base` or past the end)
        let Some(from) = bytes.get(first.wrapping_sub(base) as usize..) else {
            return false;
        };
        let Some(o) = out.get_mut(16 * h..16 * h + 16) else {
            return false;
        };
        if pat == HalfPat::Same {
            let Some(word) = from.first_chunk::<4>() else {
                return false;
            };
            o.fill(u32::from_le_bytes(*word));
        } else {
            let Some(words) = from.first_chunk::<64>() else {
                return false;
            };
            for (x, c) in o.iter_mut().zip(words.as_chunks::<4>().0) {
                *x = u32::from_le_bytes(*c);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::Program;
    use crate::exec::regs::FlatRegisterFile;
    use crate::launch::HostData;

    /// A register file that also records every write with all 32 lanes of its value array
    /// (register-file designs see whole arrays, so lanes outside the mask must match too).
    #[derive(Clone)]
    struct Recording(FlatRegisterFile, Vec<(ArchReg, [u32; 32], u32)>);

    impl RegisterAccess for Recording {
        fn read(&mut self, w: WarpId, r: ArchReg) -> [u32; 32] {
            self.0.read(w, r)
        }
        fn write(&mut self, w: WarpId, r: ArchReg, v: &[u32; 32], m: u32) {
            self.1.push((r, *v, m));
            self.0.write(w, r, v, m)
        }
        fn read_pred(&mut self, w: WarpId, p: ArchReg) -> u32 {
            self.0.read_pred(w, p)
        }
        fn write_pred(&mut self, w: WarpId, p: ArchReg, b: u32, m: u32) {
            self.0.write_pred(w, p, b, m)
        }
    }

    /// Issue 36: a kernel whose address arithmetic is warp-uniform (parameters, `%ctaid`,
    /// `%ntid`, a uniform loop bound), with a per-thread part, a uniform 64-bit pointer and a
    /// uniform loop counter; 2 CTAs of 64 threads.
    const UR_KERNEL: &str = ".version 7.5\n.target sm_75\n.address_size 64\n\
.visible .entry k(.param .u64 out, .param .u32 n)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<12>;\n\
.reg .b64 %rd<6>;\n\
ld.param.u64 %rd0, [out];\ncvta.to.global.u64 %rd1, %rd0;\nld.param.u32 %r1, [n];\n\
mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmul.lo.s32 %r4, %r2, %r3;\n\
mov.u32 %r5, %tid.x;\nadd.s32 %r6, %r4, %r5;\nmul.wide.u32 %rd2, %r4, 4;\n\
add.s64 %rd3, %rd1, %rd2;\nmov.u32 %r7, 0;\nmov.u32 %r8, 0;\n$LOOP:\n\
add.s32 %r7, %r7, %r6;\nadd.s32 %r8, %r8, 1;\nsetp.lt.u32 %p1, %r8, %r1;\n@%p1 bra.uni $LOOP;\n\
mul.wide.u32 %rd4, %r5, 4;\nadd.s64 %rd5, %rd3, %rd4;\nadd.s32 %r9, %r7, %r8;\n\
st.global.u32 [%rd5], %r9;\nret;\n}\n";

    fn run_ur_kernel(target: crate::analysis::AllocTarget) -> (Vec<u32>, u32, usize) {
        let mut g = GlobalMemory::new();
        let out = g
            .alloc_host("out", &HostData::U32(vec![0; 128]))
            .unwrap_or(0);
        let module = crate::ptx::parse("t.ptx", UR_KERNEL).unwrap_or_else(|e| panic!("{e}"));
        let p =
            Program::load_for("t.ptx", &module, &mut g, target).unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let ur_instrs = k
            .instrs
            .iter()
            .filter(|i| i.src_ur != 0 || i.dst_ur != 0)
            .count();
        // session 27: uniform operands take the whole-warp kernels too (the loop counter's
        // `add.s32` and the address `add.s64` read and write uniform registers), and the
        // outputs the callers check come through them
        if ur_instrs > 0 {
            assert!(k
                .instrs
                .iter()
                .any(|i| i.fast != FastOp::None && i.src_ur != 0 && i.dst_ur != 0));
        }
        // UR operands never appear in the register-file lists the designs see
        assert!(k.instrs.iter().all(|i| i
            .src_regs
            .as_slice()
            .iter()
            .chain(i.dst_regs.as_slice())
            .all(|r| !matches!(r, ArchReg::U(_)))));
        let mut pb = out.to_le_bytes().to_vec();
        pb.extend_from_slice(&3u32.to_le_bytes());
        let launch = LaunchConfig {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            dynamic_shared_bytes: 0,
        };
        crate::exec::program::run_launch(
            &p,
            k,
            &launch,
            &ParamSpace::new(pb),
            &mut g,
            0,
            &crate::exec::program::RunOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let Some(HostData::U32(v)) = g.read_back("out") else {
            panic!("no output");
        };
        (v, k.uregs, ur_instrs)
    }

    #[test]
    fn issue36_uniform_registers_hold_the_values_and_give_the_same_outputs() {
        let (no_ur, n0, i0) = run_ur_kernel(crate::analysis::AllocTarget::NO_UNIFORM);
        let (ur, n1, i1) = run_ur_kernel(crate::analysis::AllocTarget::SM75);
        // thread t of CTA c: 3 * (64c + t) + 3
        let want: Vec<u32> = (0..128).map(|g| 3 * g + 3).collect();
        assert_eq!(no_ur, want);
        assert_eq!(ur, want);
        assert_eq!((n0, i0), (0, 0));
        assert!(
            n1 >= 2 && i1 >= 5,
            "uniform registers {n1}, instructions using them {i1}"
        );
    }

    #[test]
    fn issue36_uniform_registers_are_per_warp() {
        let mut g = GlobalMemory::new();
        let module = crate::ptx::parse("t.ptx", UR_KERNEL).unwrap_or_else(|e| panic!("{e}"));
        let p = Program::load_for("t.ptx", &module, &mut g, crate::analysis::AllocTarget::SM75)
            .unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let launch = LaunchConfig {
            grid: [1, 1, 1],
            block: [64, 1, 1],
            dynamic_shared_bytes: 0,
        };
        let params = ParamSpace::new(vec![0; 16]);
        let consts = ConstSpace::new();
        let cta = CtaExec::new(k, &launch, &params, &consts, [0, 0, 0], 0, 0);
        assert!(k.uregs >= 1);
        // a whole-warp write of warp 0 (the lowest lane of the mask gives the value)
        let vals: [u64; 32] = std::array::from_fn(|l| 0x1_0000_0000 * 7 + 40 + l as u64);
        cta.write_ur(0, 0, 1, &vals, 0b1100)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cta.uniform_reg(0, 0), Some(42));
        assert_eq!(cta.uniform_reg(1, 0), Some(0), "warp 1 keeps its own UR0");
        cta.write_ur(1, 0, 1, &[9; 32], u32::MAX)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (cta.uniform_reg(0, 0), cta.uniform_reg(1, 0)),
            (Some(42), Some(9))
        );
        // an empty mask writes nothing; a register outside the file is an error, not a panic
        cta.write_ur(0, 0, 1, &[5; 32], 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cta.uniform_reg(0, 0), Some(42));
        let outside = u16::try_from(k.uregs).unwrap_or(u16::MAX);
        assert!(cta.write_ur(0, outside, 1, &[5; 32], 1).is_err());
        assert!(cta.read_ur(0, outside, 1).is_err());
        assert_eq!(cta.uniform_reg(2, 0), None);
    }

    /// Issue 5: the dedicated 32-bit load ([`CtaExec::exec_ld32`]) and the general `ld`
    /// ([`CtaExec::exec_ld_st`]) give the same register file, addresses, [`MemMeta`] and
    /// errors, on broadcast, coalesced, misaligned, scattered, out-of-bounds, unmapped and
    /// generic addresses under full and partial lane masks.
    #[test]
    fn issue5_ld32_matches_general_load() {
        let src = ".version 7.5\n.target sm_75\n.address_size 64\n\
.visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<8>;\n\
ld.global.u32 %r1, [%rd1];\nld.global.f32 %f1, [%rd2+8];\nld.u32 %r2, [%rd3+4];\n\
ld.global.s32 %r3, [%rd1+-4];\nadd.s32 %r4, %r1, %r2;\nadd.s32 %r4, %r4, %r3;\n\
add.f32 %f2, %f1, %f1;\nst.global.u32 [%rd1], %r4;\nst.global.f32 [%rd2], %f2;\n\
st.global.u32 [%rd3], %r4;\nret;\n}\n";
        let mut g = GlobalMemory::new();
        let words: Vec<u32> = (0..64).map(|i| i * 7 + 3).collect();
        let a = g
            .alloc_host("a", &HostData::U32(words.clone()))
            .unwrap_or(0);
        let b = g.alloc_host("b", &HostData::U32(words)).unwrap_or(0);
        let p = match Program::from_ptx("t.ptx", src, &mut g) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let k = &p.kernels[0];
        let loads: Vec<(u32, &ExecInstr)> = k
            .instrs
            .iter()
            .enumerate()
            .filter(|(_, i)| i.op == Opcode::Ld)
            .map(|(pc, i)| (pc as u32, i))
            .collect();
        assert_eq!(loads.len(), 4);
        assert!(
            loads.iter().all(|(_, i)| i.ld32),
            "every load has the ld32 form"
        );
        let launch = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared_bytes: 0,
        };
        let params = ParamSpace::new(a.to_le_bytes().to_vec());
        // lane address patterns (before the instruction's offset)
        let mut st = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st
        };
        let mut cases: Vec<[u64; 32]> = vec![
            [a + 8; 32],
            std::array::from_fn(|l| a + 4 * l as u64),
            std::array::from_fn(|l| a + 16 + 4 * l as u64),
            std::array::from_fn(|l| b + 4 * (l as u64 % 16)),
            std::array::from_fn(|l| if l < 16 { a } else { b + 4 * l as u64 }),
            std::array::from_fn(|l| a + 2 + 4 * l as u64),
            std::array::from_fn(|l| a + 200 + 4 * l as u64),
            std::array::from_fn(|l| a + 4 * (31 - l as u64)),
            std::array::from_fn(|l| if l == 5 { 0x10 } else { a + 4 * l as u64 }),
            std::array::from_fn(|l| b + 4 * (l as u64 % 3)),
        ];
        for _ in 0..20 {
            cases.push(std::array::from_fn(|_| a + 4 * (rnd() % 130)));
        }
        let masks = [
            u32::MAX,
            0,
            1,
            0x8000_0001,
            0x0000_ffff,
            0xffff_0000,
            0x5555_5555,
        ];
        for (pc, ins) in &loads {
            let XOp::Addr {
                base: XBase::Gpr { reg, slots },
                ..
            } = ins.src[0]
            else {
                panic!("register address expected")
            };
            for (c, lanes) in cases.iter().enumerate() {
                for &m in &masks {
                    let mut rf = FlatRegisterFile::new(1, k.gprs as usize, k.preds as usize);
                    // a generic address for the generic load
                    let lanes = if ins.space == crate::ir::Space::Generic {
                        lanes.map(|x| mem::to_generic(mem::Space::Global, x))
                    } else {
                        *lanes
                    };
                    let lo = lanes.map(|x| x as u32);
                    let hi = lanes.map(|x| (x >> 32) as u32);
                    rf.write(0, ArchReg::R(reg), &lo, u32::MAX);
                    if slots >= 2 {
                        rf.write(0, ArchReg::R(reg + 1), &hi, u32::MAX);
                    }
                    let mut rf = Recording(rf, Vec::new());
                    let mut rf2 = rf.clone();
                    let mut g2 = g.clone();
                    let mut c1 = CtaExec::new(k, &launch, &params, &p.consts, [0; 3], 0, 0);
                    let mut c2 = CtaExec::new(k, &launch, &params, &p.consts, [0; 3], 0, 0);
                    let (mut a1, mut a2) = ([0u64; 32], [0u64; 32]);
                    // scratch buffers full of stale values from an earlier step
                    let mut sc = Scratch::new();
                    sc.v = [[0xdead_beef; 32]; 5];
                    let r1 = c1.exec_ld32(0, &mut rf, &g, ins, *pc, m, &mut a1, &mut sc);
                    let r2 = c2.exec_ld_st(0, &mut rf2, &mut g2, ins, *pc, m, &mut a2);
                    let what = format!("pc {pc} case {c} mask {m:#x}");
                    match (r1, r2) {
                        (Ok(x), Ok(y)) => {
                            assert_eq!(x, y, "{what}");
                            assert_eq!(a1, a2, "{what}");
                            assert_eq!(rf.1, rf2.1, "{what}: register writes");
                            assert!(!rf.1.is_empty() || m == 0, "{what}: a write");
                        }
                        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{what}"),
                        (x, y) => panic!("{what}: {x:?} vs {y:?}"),
                    }
                }
            }
        }
    }
}
