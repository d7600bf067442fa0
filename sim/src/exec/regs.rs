//! The register-access seam: every register value the executor reads or writes goes through
//! [`RegisterAccess`]. Register-file designs (the timing issue) implement the trait and hold the
//! values in their own modelled structures; [`FlatRegisterFile`] is the plain implementation for
//! functional runs.
//!
//! Registers are *architectural*: 32-bit general registers `R0..` (a 64-bit PTX value occupies
//! an aligned pair `R2k:R2k+1`, low word in `R2k`, except shared-memory address arithmetic, which
//! is narrowed to one register (`analysis::narrow`); 8/16-bit values occupy a whole register) and
//! one-bit predicates `P0..` in a separate file, as chosen by
//! [`crate::analysis::analyze`]'s allocation (NVIDIA "CUDA Binary Utilities", SASS register
//! conventions).

pub use crate::analysis::ArchReg;

/// Index of a warp in the register file (the executor uses `CtaExec::warp_base + warp`).
pub type WarpId = u32;

/// All register reads and writes of the executor. Implementations must be deterministic.
///
/// `read`/`write` are only called with [`ArchReg::R`]; `read_pred`/`write_pred` only with
/// [`ArchReg::P`]. Values of all 32 lanes move together; `mask` selects the lanes written
/// (lane `i` ↔ bit `i`), lanes outside it keep their value (PTX ISA §9.3 predicated execution,
/// and inactive lanes of a divergent warp).
pub trait RegisterAccess {
    /// All 32 lanes of 32-bit register `reg` of `warp`.
    fn read(&mut self, warp: WarpId, reg: ArchReg) -> [u32; 32];
    /// [`Self::read`] into `out` (the same read; issue 5: an implementation can copy the
    /// register straight into the caller's buffer instead of returning 128 bytes by value).
    #[inline]
    fn read_into(&mut self, warp: WarpId, reg: ArchReg, out: &mut [u32; 32]) {
        *out = self.read(warp, reg);
    }
    /// Writes the lanes of `values` selected by `mask`.
    fn write(&mut self, warp: WarpId, reg: ArchReg, values: &[u32; 32], mask: u32);
    /// Predicate register `p` of `warp` as a lane bit-mask.
    fn read_pred(&mut self, warp: WarpId, p: ArchReg) -> u32;
    /// Writes the lanes of `bits` selected by `mask`.
    fn write_pred(&mut self, warp: WarpId, p: ArchReg, bits: u32, mask: u32);
}

/// A plain register file: `warps × gprs` 32-lane registers and `warps × preds` predicate masks,
/// zero-initialised. Out-of-range registers read as zero and ignore writes (the lowering checks
/// every register against the file size, so this never happens for a checked kernel).
#[derive(Clone, Debug)]
pub struct FlatRegisterFile {
    gprs: usize,
    preds: usize,
    data: Vec<[u32; 32]>,
    pred_data: Vec<u32>,
}

impl FlatRegisterFile {
    /// A file for `warps` warps of `gprs` general and `preds` predicate registers each.
    pub fn new(warps: usize, gprs: usize, preds: usize) -> Self {
        FlatRegisterFile {
            gprs,
            preds,
            data: vec![[0; 32]; warps * gprs],
            pred_data: vec![0; warps * preds],
        }
    }

    /// Zeroes every register (reuse for the next CTA).
    pub fn clear(&mut self) {
        self.data.fill([0; 32]);
        self.pred_data.fill(0);
    }

    /// General registers per warp.
    pub fn gprs(&self) -> usize {
        self.gprs
    }

    /// Predicate registers per warp.
    pub fn preds(&self) -> usize {
        self.preds
    }

    #[inline]
    fn gpr_index(&self, warp: WarpId, reg: ArchReg) -> Option<usize> {
        match reg {
            ArchReg::R(r) if usize::from(r) < self.gprs => {
                Some(warp as usize * self.gprs + usize::from(r))
            }
            _ => None,
        }
    }

    #[inline]
    fn pred_index(&self, warp: WarpId, p: ArchReg) -> Option<usize> {
        match p {
            ArchReg::P(r) if usize::from(r) < self.preds => {
                Some(warp as usize * self.preds + usize::from(r))
            }
            _ => None,
        }
    }
}

impl RegisterAccess for FlatRegisterFile {
    #[inline]
    fn read(&mut self, warp: WarpId, reg: ArchReg) -> [u32; 32] {
        self.gpr_index(warp, reg)
            .and_then(|i| self.data.get(i).copied())
            .unwrap_or([0; 32])
    }

    #[inline]
    fn write(&mut self, warp: WarpId, reg: ArchReg, values: &[u32; 32], mask: u32) {
        let Some(slot) = self.gpr_index(warp, reg).and_then(|i| self.data.get_mut(i)) else {
            return;
        };
        if mask == u32::MAX {
            *slot = *values;
            return;
        }
        for (lane, (s, v)) in slot.iter_mut().zip(values).enumerate() {
            if mask >> lane & 1 != 0 {
                *s = *v;
            }
        }
    }

    #[inline]
    fn read_pred(&mut self, warp: WarpId, p: ArchReg) -> u32 {
        self.pred_index(warp, p)
            .and_then(|i| self.pred_data.get(i).copied())
            .unwrap_or(0)
    }

    #[inline]
    fn write_pred(&mut self, warp: WarpId, p: ArchReg, bits: u32, mask: u32) {
        if let Some(s) = self
            .pred_index(warp, p)
            .and_then(|i| self.pred_data.get_mut(i))
        {
            *s = (*s & !mask) | (bits & mask);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_writes_keep_other_lanes() {
        let mut rf = FlatRegisterFile::new(2, 4, 2);
        let v: [u32; 32] = std::array::from_fn(|i| i as u32 + 100);
        rf.write(1, ArchReg::R(3), &v, 0b1010);
        let r = rf.read(1, ArchReg::R(3));
        assert_eq!((r[0], r[1], r[2], r[3]), (0, 101, 0, 103));
        assert_eq!(rf.read(0, ArchReg::R(3)), [0; 32]);
        rf.write_pred(0, ArchReg::P(1), 0xffff_ffff, 0xf0);
        rf.write_pred(0, ArchReg::P(1), 0, 0x10);
        assert_eq!(rf.read_pred(0, ArchReg::P(1)), 0xe0);
        // out of range: ignored / zero, never a panic
        rf.write(5, ArchReg::R(9), &v, u32::MAX);
        assert_eq!(rf.read(0, ArchReg::R(99)), [0; 32]);
        assert_eq!(rf.read_pred(9, ArchReg::P(0)), 0);
    }
}
