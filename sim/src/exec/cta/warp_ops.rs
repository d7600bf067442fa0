//! Warp-level instructions: `shfl.sync`, `vote.sync`, `activemask`, `match.sync` and
//! `redux.sync`.

use super::CtaExec;
use crate::exec::alu::mask;
use crate::exec::lower::ExecInstr;
use crate::exec::regs::RegisterAccess;
use crate::ir::{AtomOp, Mode, Opcode};

impl CtaExec<'_> {
    /// `shfl.sync` (§9.7.9.6), `vote.sync` (§9.7.13.10), `activemask` (§9.7.13.13),
    /// `match.sync` (§9.7.13.11), `redux.sync` (§9.7.13.12).
    pub(super) fn exec_warp_op<R: RegisterAccess>(
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
