//! Register admission by rows (the baseline's rule, shared by designs that keep the
//! baseline's occupancy): a warp reserves `⌈regs × 32 / alloc_unit⌉ × alloc_unit / 32` warp
//! registers (CUDA allocation granularity), as the same `⌈reserved / banks⌉` consecutive rows
//! of every bank of its sub-core, first fit, until it exits.

use regwatt_sim::timing::rf::{RfError, WarpSlot};

/// Reserved rows per sub-core.
#[derive(Clone, Debug)]
pub struct RowAdmission {
    banks: usize,
    alloc_unit: u32,
    used: Vec<Vec<bool>>,
}

impl RowAdmission {
    /// `sub_cores` sub-cores of `banks` banks of `rows` rows; allocation unit `alloc_unit`
    /// thread-registers.
    pub fn new(sub_cores: usize, banks: usize, rows: usize, alloc_unit: u32) -> RowAdmission {
        RowAdmission {
            banks: banks.max(1),
            alloc_unit: alloc_unit.max(1),
            used: vec![vec![false; rows]; sub_cores],
        }
    }

    /// Warp registers reserved for `regs_per_thread` (allocation granularity applied).
    pub fn reserved_registers(&self, regs_per_thread: u32) -> u32 {
        let thread_regs = regs_per_thread.max(1) * 32;
        thread_regs.div_ceil(self.alloc_unit) * self.alloc_unit / 32
    }

    /// Rows per bank a warp of `regs_per_thread` reserves.
    pub fn rows_needed(&self, regs_per_thread: u32) -> usize {
        (self.reserved_registers(regs_per_thread) as usize).div_ceil(self.banks)
    }

    fn first_fit(used: &[bool], n: usize) -> Option<usize> {
        let mut run = 0;
        for (i, &u) in used.iter().enumerate() {
            if u {
                run = 0;
            } else {
                run += 1;
                if run == n {
                    return Some(i + 1 - n);
                }
            }
        }
        None
    }

    /// Whether warps in sub-cores `sub_cores` (one entry per warp) all fit.
    pub fn can_allocate(
        &self,
        sub_cores: impl Iterator<Item = usize>,
        regs_per_thread: u32,
    ) -> bool {
        let n = self.rows_needed(regs_per_thread);
        let mut used = self.used.clone();
        for sc in sub_cores {
            let Some(u) = used.get_mut(sc) else {
                return false;
            };
            match Self::first_fit(u, n) {
                Some(b) => u[b..b + n].iter_mut().for_each(|x| *x = true),
                None => return false,
            }
        }
        true
    }

    /// Whether `warps` all fit, each in its own sub-core ([`Self::can_allocate`]).
    pub fn can_allocate_warps(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.can_allocate(
            warps.iter().map(|w| usize::from(w.sub_core)),
            regs_per_thread,
        )
    }

    /// Reserves the rows of `warp` (`regs_per_thread` registers) in sub-core `sc`, for a
    /// design that keeps `slots` warp slots: `(first row, rows)`, or `RfError::Full` when the
    /// slot or the sub-core is out of range or the rows do not fit.
    pub fn reserve_warp(
        &mut self,
        warp: WarpSlot,
        sc: usize,
        slots: usize,
        regs_per_thread: u32,
    ) -> Result<(usize, usize), RfError> {
        let n = self.rows_needed(regs_per_thread);
        let full = RfError::Full {
            slot: warp.slot,
            regs: regs_per_thread,
        };
        if usize::from(warp.slot) >= slots {
            return Err(full);
        }
        let base = self.reserve(sc, n).ok_or(full)?;
        Ok((base, n))
    }

    /// Reserves `n` rows in sub-core `sc`: the first row, or `None` if they do not fit.
    pub fn reserve(&mut self, sc: usize, n: usize) -> Option<usize> {
        let u = self.used.get_mut(sc)?;
        let base = Self::first_fit(u, n)?;
        u[base..base + n].iter_mut().for_each(|x| *x = true);
        Some(base)
    }

    /// Reserves the highest free row of sub-core `sc` (a row kept apart from the warps'
    /// allocations, which fill from the bottom first-fit: Elango 2017's L-registers), or `None`.
    pub fn reserve_top(&mut self, sc: usize) -> Option<usize> {
        let u = self.used.get_mut(sc)?;
        let r = u.iter().rposition(|&x| !x)?;
        u[r] = true;
        Some(r)
    }

    /// Rows of sub-core `sc` no warp reserves.
    pub fn free_rows(&self, sc: usize) -> usize {
        self.used
            .get(sc)
            .map_or(0, |u| u.iter().filter(|&&x| !x).count())
    }

    /// Frees rows `base .. base + n` of sub-core `sc`.
    pub fn release(&mut self, sc: usize, base: usize, n: usize) {
        if let Some(r) = self
            .used
            .get_mut(sc)
            .and_then(|u| u.get_mut(base..base + n))
        {
            r.iter_mut().for_each(|x| *x = false);
        }
    }
}
