//! Control flow and synchronisation: the SIMT reconvergence stack (advancing and popping
//! entries), the CTA barriers (arrivals, releases, run-time checks of barrier operands) and
//! the deadlock errors.

use super::{BarrierEvent, CtaExec, Outcome};
use crate::barrier::{Arrival, BARRIERS};
use crate::exec::error::ExecError;
use crate::exec::lower::{ExecInstr, XOp};
use crate::exec::regs::RegisterAccess;

impl CtaExec<'_> {
    /// The deadlock error after warp `w`'s step at `pc` (its arrival at a barrier, or its exit
    /// when `exited`): names the instruction, the CTA, the warp and what each barrier waits
    /// for.
    #[cold]
    pub(super) fn deadlock_error(&self, w: usize, pc: u32, exited: bool) -> ExecError {
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
    pub(super) fn arrive(&mut self, w: usize, a: Arrival, line: u32, out: &mut Outcome) {
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
    pub(super) fn bar_arrival<R: RegisterAccess>(
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

    /// Moves the top SIMT entry of warp `w` to `next_pc`, then pops what finished
    /// ([`Self::normalize`], only called when the top entry reconverged or emptied).
    #[inline(always)]
    pub(super) fn advance(&mut self, w: usize, next_pc: u32, out: &mut Outcome) {
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
    pub(super) fn normalize(&mut self, w: usize, info: &mut Outcome) {
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
}
