//! Timing-model memory hierarchy: standalone, deterministic, cycle-level components.
//!
//! * [`coalesce`]: a warp's per-lane accesses → 32 B sectors within 128 B lines (sm_70+ rules).
//! * [`banks`]: shared-memory bank conflicts (32 banks × 4 B, same-word broadcast).
//! * [`cache`]: the sectored set-associative tag array and MSHR table both caches use.
//! * [`l1d`]: per-SM L1 data cache (write-through, no write-allocate for global stores).
//! * [`l2`]: sliced L2 (address-interleaved slices, write-back, per-slice port bandwidth).
//! * [`dram`]: DRAM channels with a fixed latency, a bandwidth limit and a bounded queue.
//! * [`system`]: L2 + DRAM wired together for the SM side to talk to.
//!
//! Every parameter comes from a configuration struct; each struct's `rtx2060()` (and, where
//! meaningful, `gtx480()`) preset documents which line of which GPGPU-Sim / Accel-Sim
//! `gpgpusim.config` the value comes from (`configs/tested-cfgs/SM75_RTX2060/` and
//! `configs/tested-cfgs/SM2_GTX480/` in `gpgpu-sim/gpgpu-sim_distribution`).
//! Nothing here depends on the functional executor: inputs are addresses, sizes and masks.

pub mod banks;
pub mod cache;
pub mod coalesce;
pub mod dram;
pub mod l1d;
pub mod l2;
pub mod system;

/// Cache line size in bytes (sm_70+ L1D and L2: 128 B lines).
pub const LINE_BYTES: u64 = 128;
/// Sector size in bytes (sm_70+ L1D and L2 are sectored in 32 B units).
pub const SECTOR_BYTES: u64 = 32;
/// Sectors per line.
pub const SECTORS_PER_LINE: u32 = (LINE_BYTES / SECTOR_BYTES) as u32;

/// What a memory request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    /// A read (global/local load, instruction or constant fetch).
    Load,
    /// A write (global/local store).
    Store,
    /// A write-back of dirty sectors from a write-back cache.
    Writeback,
}

/// One request to a line: the unit every component below exchanges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemRequest {
    /// Caller-chosen identifier, returned with the response.
    pub id: u64,
    /// 128 B-aligned line address.
    pub line_addr: u64,
    /// Bit `i` set = sector `i` (bytes `32i .. 32i+32` of the line) is accessed; never 0.
    pub sectors: u8,
    /// Load, store or write-back.
    pub kind: AccessKind,
}

impl MemRequest {
    /// A request for `sectors` of the line containing `addr`.
    pub fn new(id: u64, addr: u64, sectors: u8, kind: AccessKind) -> Self {
        MemRequest {
            id,
            line_addr: addr & !(LINE_BYTES - 1),
            sectors: sectors & 0xf,
            kind,
        }
    }

    /// Bytes moved: 32 per sector.
    pub fn bytes(&self) -> u64 {
        self.sectors.count_ones() as u64 * SECTOR_BYTES
    }
}

/// An invalid configuration value, naming the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{component} configuration: {field}: {message}")]
pub struct ConfigError {
    /// Which component (`l1d`, `l2`, `dram`, ...).
    pub component: &'static str,
    /// Field name.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

pub(crate) fn check(
    ok: bool,
    component: &'static str,
    field: &'static str,
    message: impl FnOnce() -> String,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            component,
            field,
            message: message(),
        })
    }
}
