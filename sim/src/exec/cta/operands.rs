//! Operand access of a warp instruction: source operands (registers, register pairs,
//! predicates, immediates, uniform and special registers) read for all 32 lanes, as 64-bit
//! values or as 32-bit halves, and destinations written under a lane mask.

use super::CtaExec;
use crate::exec::alu::mask;
use crate::exec::lower::XOp;
use crate::exec::regs::{ArchReg, RegisterAccess};
use crate::ir::{Dim, Sreg};

impl CtaExec<'_> {
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
    pub(super) fn fetch<R: RegisterAccess>(
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
    pub(super) fn store32<R: RegisterAccess>(
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
    /// operations done on halves (no assembling and splitting of 64-bit lanes). The
    /// same register reads as [`Self::fetch`]; a single register leaves `hi` zero.
    #[inline(always)]
    pub(super) fn fetch_pair_into<R: RegisterAccess>(
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
    /// (no widening to `u64` and back; the register file's array lands in the
    /// caller's buffer). Reads exactly the registers [`Self::fetch`] reads (register-file
    /// designs count reads), so a 64-bit pair still reads both halves.
    #[inline(always)]
    pub(super) fn fetch32_into<R: RegisterAccess>(
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
    pub(super) fn store_pair<R: RegisterAccess>(
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
    pub(super) fn fetch_into<R: RegisterAccess>(
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
    pub(super) fn store<R: RegisterAccess>(
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
