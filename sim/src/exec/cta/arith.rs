//! ALU instructions: the general per-lane path through [`alu::eval`], the whole-warp kernels
//! of [`FastOp`], `setp`/`set` (with a whole-warp comparison), and vector `mov`
//! packing and unpacking.

use super::{CtaExec, Scratch};
use crate::exec::alu::{self, mask};
use crate::exec::lower::{ExecInstr, FastOp, XOp};
use crate::exec::regs::{ArchReg, RegisterAccess};
use crate::ir::{BoolOp, Cmp, Mods, Opcode, Ty};

impl CtaExec<'_> {
    pub(super) fn exec_alu<R: RegisterAccess>(
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

    /// The whole-warp kernels of [`FastOp`]: each is a monomorphised loop over the
    /// 32 lanes on 32-bit values where the operation is 32-bit, so it vectorises and needs no
    /// per-lane indirect call. The results equal [`alu::eval`]'s, NaN results included (the
    /// canonical NaN, `fp::CANONICAL_NAN_F32`). Operands are read in order, then the
    /// destination is written, as in the general path. `ins.src.len()` is the op's arity.
    pub(super) fn exec_fast<R: RegisterAccess>(
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
                crate::exec::fp::CANONICAL_NAN_F32
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
                crate::exec::fp::fma_rn_f32x32(x, y, z, out);
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
    pub(super) fn exec_setp<R: RegisterAccess>(
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

    /// Whole-warp `setp.cmp.ty p[|q], a, b` without a boolean combination: the
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
    pub(super) fn exec_mov_vec<R: RegisterAccess>(
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
/// vectorises).
#[inline(always)]
fn lane_mask<T: Copy>(a: &[T; 32], b: &[T; 32], f: impl Fn(T, T) -> bool) -> u32 {
    let mut m = 0u32;
    for l in 0..32 {
        m |= LANE_BIT[l] & 0u32.wrapping_sub(u32::from(f(a[l], b[l])));
    }
    m
}
