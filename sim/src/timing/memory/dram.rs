//! The DRAM: banks with open rows, the channels' data buses and the latency queue in front
//! of them ([`Dram`]).

use super::{bits, Derived, INVALID};
use crate::timing::activity::MemActivity;

/// One DRAM bank: open row and the cycle (core clock, fractional) it takes a new command.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bank {
    pub(super) open: u64,
    pub(super) ready: f64,
}

/// The DRAM of all channels: banks, data buses and the latency queue in front of them.
#[derive(Clone, Debug)]
pub(super) struct Dram {
    pub(super) banks: Vec<Bank>,
    /// Cycle (core clock, fractional) each channel's data bus is free.
    pub(super) bus: Vec<f64>,
    /// Core cycles between the L2 and the DRAM scheduler (`dram.latency`).
    pub(super) latency: u64,
}

impl Dram {
    /// A DRAM burst for sector `sector` of `line` arriving from the L2 at `t`; returns the
    /// cycle the data (read) is back at the L2 or the write has left the bus.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn access(
        &mut self,
        d: &Derived,
        t: u64,
        line: u64,
        sector: u32,
        write: bool,
        act: &mut MemActivity,
    ) -> u64 {
        let addr = line * d.l2_line_bytes + u64::from(sector) * d.l2_sector_bytes;
        let chunk = d.interleave.div(addr);
        let c = d.channels.rem(chunk) as usize;
        let local = d.interleave.d * d.channels.div(chunk) + d.interleave.rem(addr);
        let row_all = d.row.div(local);
        let bank = c * d.banks.d as usize + d.banks.rem(row_all) as usize;
        let row = d.banks.div(row_all);
        let cas = if write { d.t_cas_write } else { d.t_cas_read };
        let b = &mut self.banks[bank];
        let mut s = ((t + self.latency) as f64).max(b.ready);
        if b.open == row {
            act.dram_row_hits += 1;
        } else {
            s += if b.open == INVALID {
                d.t_act
            } else {
                d.t_pre_act
            };
            b.open = row;
        }
        let start = (s + cas).max(self.bus[c]);
        self.bus[c] = start + d.t_burst;
        b.ready = s + d.t_burst;
        if write {
            act.dram_sector_writes += 1;
        } else {
            act.dram_sector_reads += 1;
        }
        (start + d.t_burst).ceil() as u64
    }

    /// Writes the dirty sectors of an evicted L2 line back to DRAM.
    pub(super) fn write_back(
        &mut self,
        d: &Derived,
        t: u64,
        victim: Option<(u64, u32)>,
        act: &mut MemActivity,
    ) {
        if let Some((line, dirty)) = victim {
            for s in bits(dirty) {
                self.access(d, t, line, s, true, act);
            }
        }
    }
}
