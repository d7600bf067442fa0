//! Helpers of the designs' unit tests: warp slots, operand and write references, contexts.

use regwatt_sim::timing::activity::RfActivity;
use regwatt_sim::timing::functional::{InstrInfo, RegList, UnitClass};
use regwatt_sim::timing::rf::{OperandRef, RegId, RfCtx, WarpSlot, WriteRef};

/// Warp slot `slot` of sub-core 0.
pub fn w(slot: u16) -> WarpSlot {
    WarpSlot { slot, sub_core: 0 }
}

/// A context at cycle `now` of SM 0 recording into `act`.
pub fn ctx(act: &mut RfActivity, now: u64) -> RfCtx<'_> {
    RfCtx { now, sm: 0, act }
}

/// A write of `reg` of `warp` (collector 0, function 0, pc 0, no reuse hint).
pub fn wref(warp: WarpSlot, reg: RegId, from_load: bool) -> WriteRef {
    WriteRef {
        warp,
        reg,
        collector: 0,
        func: 0,
        pc: 0,
        reuse: None,
        from_load,
    }
}

/// A read of `reg` of `warp` (collector 0, function 0, pc 0, no hints).
pub fn op(warp: WarpSlot, reg: RegId) -> OperandRef {
    OperandRef {
        warp,
        reg,
        collector: 0,
        func: 0,
        pc: 0,
        reuse: None,
        last_use: false,
    }
}

/// A memory instruction without registers (function 0, pc 0, all lanes active).
pub fn mem_instr() -> InstrInfo {
    InstrInfo {
        func: 0,
        pc: 0,
        class: UnitClass::Mem,
        kind: regwatt_sim::timing::functional::OpKind::None,
        srcs: RegList::default(),
        dsts: RegList::default(),
        src_preds: 0,
        dst_preds: 0,
        src_uniform: 0,
        dst_uniform: 0,
        uniform_reads: 0,
        uniform_writes: 0,
        active_mask: u32::MAX,
        coherent: false,
    }
}
