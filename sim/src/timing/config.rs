//! GPU configuration of the timing model.
//!
//! Every field is required (`deny_unknown_fields`, no `#[serde(default)]`): a preset (TOML) must
//! set everything, and [`GpuConfig::validate`] rejects out-of-range values with the field's
//! path. The presets `rtx2060.toml` (Accel-Sim SM75_RTX2060) and `gtx480.toml` (GPGPU-Sim
//! SM2_GTX480) next to this file document the source of every value;
//! [`GpuConfig::rtx2060_like`] / [`GpuConfig::gtx480_like`] load them. They are the only copy
//! of the timing values: `regwatt-designs` presets take their `[gpu]` table from here.
//!
//! The structure mirrors the object tree of the model (Ramulator-2 style): `GpuConfig` →
//! `SmConfig` (schedulers, collectors, register file, execution units) and `MemoryConfig`.

use serde::{Deserialize, Serialize};

/// A whole GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Preset name, copied into results.
    pub name: String,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Core clock in MHz (only used to convert cycles to time in reports).
    pub core_clock_mhz: f64,
    /// CTAs the global block scheduler may start per SM per cycle
    /// (GPGPU-Sim `issue_block2core`: one CTA per SM per cycle).
    pub cta_launches_per_cycle: u32,
    /// Cycles between the kernel launch and the first CTA dispatch, counted in the kernel's
    /// cycles (GPGPU-Sim `kernel_info_t::m_kernel_TB_latency`, i.e.
    /// `-gpgpu_kernel_launch_latency` plus CTAs × `-gpgpu_TB_launch_latency`, decremented
    /// once per core cycle in `gpgpu_sim::cycle()` while `gpu_sim_cycle` counts).
    pub kernel_launch_latency: u32,
    /// Extra launch-latency cycles per CTA of the grid (`-gpgpu_TB_launch_latency`).
    pub cta_launch_latency: u32,
    pub sm: SmConfig,
    pub memory: MemoryConfig,
}

/// One SM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmConfig {
    pub limits: SmLimits,
    /// Sub-cores (processing blocks). Each has its own scheduler, register-file banks,
    /// collector units and execution units; warp slot `w` belongs to sub-core `w % sub_cores`
    /// (GPGPU-Sim `-gpgpu_sub_core_model 1`, `shader.cc` `scheduler_unit` warp assignment).
    pub sub_cores: u32,
    /// Uniform registers per warp (`UR0..`) the register allocation may hold warp-uniform
    /// values in, beside the general file: 63 on Turing (sm_75; NVIDIA "CUDA Binary
    /// Utilities", Turing instruction set: `UR0..UR62` + `URZ`; Jia et al. 2019), 0 on GPUs
    /// without a uniform datapath (Fermi). Sets [`crate::analysis::AllocTarget`]
    /// ([`GpuConfig::alloc_target`]); the values never reach the register-file banks.
    pub uniform_registers: u32,
    pub scheduler: SchedulerConfig,
    pub collectors: CollectorConfig,
    pub register_file: RegisterFileConfig,
    pub units: UnitsConfig,
}

/// Occupancy limits of one SM and allocation granularities (CUDA occupancy rules).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmLimits {
    pub max_warps: u32,
    pub max_threads: u32,
    pub max_ctas: u32,
    /// 32-bit registers per SM (all sub-cores together).
    pub registers: u32,
    /// Registers are allocated per warp in units of this many registers
    /// (CUDA Occupancy Calculator, "Register allocation unit size": 256 on cc 7.x).
    pub register_alloc_unit: u32,
    /// Maximum registers per thread (255 on cc 3.5+).
    pub max_registers_per_thread: u32,
    /// Shared memory per SM available to CTAs, bytes.
    pub shared_bytes: u32,
    /// Shared memory allocation unit in bytes (CUDA Occupancy Calculator: 256 on cc 7.x).
    pub shared_alloc_unit: u32,
}

impl SmLimits {
    /// Registers a warp of `regs` registers per thread reserves: `regs × 32` rounded up to
    /// `register_alloc_unit` (CUDA Occupancy Calculator, "Register allocation unit size").
    pub fn warp_registers(&self, regs: u32) -> u32 {
        let alloc = self.register_alloc_unit.max(1);
        (regs.max(1) * 32).div_ceil(alloc) * alloc
    }

    /// Shared memory a CTA of `bytes` reserves: rounded up to `shared_alloc_unit`.
    pub fn cta_shared_bytes(&self, bytes: u32) -> u32 {
        let unit = self.shared_alloc_unit.max(1);
        bytes.div_ceil(unit) * unit
    }

    /// CTAs of `threads` threads, `regs` registers per thread and `shared` bytes of shared
    /// memory that one SM holds at once: the smallest of the per-SM limits on CTAs, threads,
    /// warps, registers ([`Self::warp_registers`] per warp) and shared memory
    /// ([`Self::cta_shared_bytes`]), the checks `Sm::try_launch`
    /// makes CTA by CTA (CUDA Occupancy Calculator). 0 when one CTA does not fit, or `regs`
    /// exceeds `max_registers_per_thread`. The RF design may hold fewer (a design's own
    /// allocation can refuse a warp); the baseline holds this many.
    pub fn ctas_per_sm(&self, threads: u32, regs: u32, shared: u32) -> u32 {
        if regs > self.max_registers_per_thread {
            return 0;
        }
        let warps = threads.max(1).div_ceil(32);
        let regs_per_cta = self.warp_registers(regs) * warps;
        let shared = self.cta_shared_bytes(shared);
        [
            self.max_ctas,
            self.max_threads / (warps * 32),
            self.max_warps / warps,
            self.registers / regs_per_cta,
            self.shared_bytes.checked_div(shared).unwrap_or(u32::MAX),
        ]
        .into_iter()
        .min()
        .unwrap_or(0)
    }
}

/// Warp scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerPolicy {
    /// Loose round robin: start after the warp issued last (GPGPU-Sim `lrr`).
    Lrr,
    /// Greedy-then-oldest: keep issuing from the last warp, else the oldest ready one
    /// (Rogers et al., MICRO 2012; GPGPU-Sim `gto`).
    Gto,
    /// Two-level: only an active set of `active_warps` warps may issue; a warp waiting on a
    /// long-latency (memory) result leaves the set and the oldest pending warp enters
    /// (Gebhart et al., ISCA 2011; Narasiman et al., MICRO 2011; Jeon & Annavaram 2014 §8 uses 6 active).
    TwoLevel { active_warps: u32 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    pub policy: SchedulerPolicy,
    /// Instructions each scheduler may issue per cycle (one per warp).
    pub issue_width: u32,
}

/// Operand collector units (Gebhart et al. / NVIDIA US patent 7,834,881; GPGPU-Sim
/// `opndcoll_rfu_t`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectorConfig {
    /// Collector units per sub-core (at most 64).
    pub units_per_sub_core: u32,
    /// Operands a collector unit can receive per cycle (its crossbar input ports).
    pub read_ports_per_unit: u32,
    /// Collector units that may dispatch to execution units per cycle per sub-core.
    pub dispatch_per_cycle: u32,
}

/// Register-file banking of the reference design and the arbiter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterFileConfig {
    /// Banks per sub-core.
    pub banks_per_sub_core: u32,
    /// Accesses (read or write) each bank serves per cycle.
    pub ports_per_bank: u32,
    /// Which bank holds register `r` of warp `w`.
    pub bank_mapping: BankMapping,
    /// Register rows (one 32-lane × 32-bit warp register each) per sub-array, for sub-array
    /// occupancy statistics (the unit sub-array power gating switches, Jeon & Annavaram 2014 §4.4).
    pub rows_per_subarray: u32,
    /// Bank→collector operand transfers the crossbar carries per cycle per sub-core.
    pub crossbar_width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BankMapping {
    /// `bank = (reg + warp) % banks` (GPGPU-Sim `register_bank()` with `bank_warp_shift`).
    WarpInterleaved,
    /// `bank = reg % banks`.
    RegisterModulo,
}

/// Latency (cycles from dispatch to result) and initiation interval (cycles before the unit
/// accepts the next warp instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpTiming {
    pub latency: u32,
    pub initiation: u32,
}

/// A pipelined execution unit type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitConfig {
    /// Units of this type per sub-core.
    pub per_sub_core: u32,
    /// Timing of ordinary instructions on this unit.
    pub timing: OpTiming,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitsConfig {
    /// FP32 (and FP16) pipeline.
    pub sp: UnitConfig,
    /// Integer pipeline.
    pub int: UnitConfig,
    /// Special functions (transcendentals; divisions run here too, GPGPU-Sim).
    pub sfu: UnitConfig,
    /// FP64 pipeline.
    pub dp: UnitConfig,
    /// Tensor cores (no PTX `mma` is executed yet; kept for presets).
    pub tensor: UnitConfig,
    /// Integer division / remainder (on the SFU).
    pub int_div: OpTiming,
    /// FP32 division (on the SFU).
    pub fp_div: OpTiming,
    /// FP64 division (on the DP unit).
    pub dp_div: OpTiming,
    /// Branch / control instructions: cycles until the warp may issue again.
    pub branch: OpTiming,
    /// Load/store units per SM (shared by the sub-cores).
    pub ldst_per_sm: u32,
    /// Cycles an `ld.param` / `ld.const` takes: kernel parameters and constants are
    /// constant-bank operands in SASS (`c[0x0][..]`) served by a constant cache that Accel-Sim
    /// treats as perfect (`-gpgpu_perfect_inst_const_cache 1`).
    pub const_latency: u32,
}

/// Memory hierarchy parameters of [`crate::timing::memory::MemoryHierarchy`] (the model is
/// described there; the presets cite the GPGPU-Sim / Accel-Sim option of every value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryConfig {
    pub l1d: CacheConfig,
    /// Cycles from LD/ST dispatch to data for an L1D hit; an L1D miss leaves for the L2 after
    /// the same pipeline (GPGPU-Sim `l1_latency_queue`, `-gpgpu_l1_latency`).
    pub l1d_hit_latency: u32,
    /// L1D banks, interleaved by sector (`-gpgpu_l1_banks`, `-gpgpu_l1_banks_byte_interleaving`
    /// 32): a power of two; each sector access of a warp instruction takes one bank for one
    /// cycle (`memory::BankClock`).
    pub l1d_banks: u32,
    /// Outstanding missed sectors per L1D (MSHR entries, `-gpgpu_cache:dl1` `<mshr>:<N>`).
    pub l1d_mshr_entries: u32,
    /// Requests (one per missing or written L1D sector) the L1D of an SM sends towards the
    /// L2 per cycle (GPGPU-Sim `baseline_cache::cycle`: one miss-queue entry per cycle).
    pub l1d_requests_per_cycle: u32,
    /// Entries of the L1D miss queue (`-gpgpu_cache:dl1` `..,<mq>:<fifo>`): a miss or
    /// write-through that finds it full holds the L1D pipeline and the LD/ST unit.
    pub l1d_miss_queue_entries: u32,
    pub shared: SharedMemConfig,
    /// Cycles a packet spends in the SM↔L2 crossbar, each direction.
    pub icnt_latency: u32,
    /// Reply packets (one 32 B sector each) the crossbar delivers to one SM per cycle.
    pub icnt_reply_sectors_per_cycle: u32,
    /// Request packets the crossbar passes to one L2 slice per cycle; an SM's requests queue
    /// in order, so one waiting for its slice holds those behind it (`memory::RequestFifo`).
    pub icnt_request_packets_per_cycle: u32,
    /// L2 per slice (memory sub-partition).
    pub l2_slice: CacheConfig,
    pub l2_slices: u32,
    /// Cycles a request waits in a sub-partition before its L2 lookup (`-gpgpu_l2_rop_latency`).
    pub l2_rop_latency: u32,
    /// 32 B sectors each L2 slice looks up per cycle.
    pub l2_sectors_per_cycle_per_slice: u32,
    /// Outstanding missed sectors per L2 slice (`-gpgpu_cache:dl2` `<mshr>:<N>`).
    pub l2_mshr_entries: u32,
    /// Start every launch with the host-written buffers in the L2 (`-gpgpu_perf_sim_memcpy`).
    pub l2_preload_host_data: bool,
    /// Instruction fetches and param/const loads always hit
    /// (`-gpgpu_perfect_inst_const_cache`). When false, each SM has an instruction cache
    /// (`l1i`) and a constant cache (`l1c`) whose misses are read from the L2 (and the DRAM);
    /// both keep their contents from one launch of a spec to the next (GPGPU-Sim invalidates
    /// only the L1D between kernels), and so does the L2 for the lines they fetched.
    pub perfect_inst_const_cache: bool,
    /// Instruction cache per SM (`-gpgpu_cache:il1`); PTX instructions are 8 bytes each,
    /// the functions of a module laid out one after the other (GPGPU-Sim
    /// `function_info::ptx_assemble`). Unused with `perfect_inst_const_cache`.
    pub l1i: CacheConfig,
    /// Constant cache per SM (`-gpgpu_const_cache:l1`), read by `ld.param` and `ld.const`
    /// (GPGPU-Sim `ldst_unit::constant_cycle`); a hit takes `sm.units.const_latency`. Unused
    /// with `perfect_inst_const_cache`.
    pub l1c: CacheConfig,
    pub dram: DramConfig,
}

/// DRAM channels (memory partitions) with banks, row buffers and a data bus
/// (GPGPU-Sim `dram_t`, `-gpgpu_dram_timing_opt`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Channels (`-gpgpu_n_mem`); `l2_slices / channels` slices share a channel.
    pub channels: u32,
    /// Consecutive bytes mapped to one channel before the next (`-gpgpu_mem_addr_mapping dramid@N`: 2^N).
    pub interleave_bytes: u32,
    /// Cycles (core clock) a request waits between the L2 and the DRAM scheduler (`-dram_latency`).
    pub latency: u32,
    /// DRAM command clock, MHz (last field of `-gpgpu_clock_domains`).
    pub clock_mhz: f64,
    /// Banks per channel (`nbk`).
    pub banks: u32,
    /// Bytes of one DRAM row per bank per channel (column bits of `-gpgpu_mem_addr_mapping`).
    pub row_bytes: u32,
    /// Bytes one burst moves on a channel (`-gpgpu_dram_buswidth` × `-gpgpu_n_mem_per_ctrlr` ×
    /// `-gpgpu_dram_burst_length`).
    pub burst_bytes: u32,
    /// Command cycles one burst occupies the data bus
    /// (`-gpgpu_dram_burst_length` / `-dram_data_command_freq_ratio`).
    pub burst_cycles: u32,
    /// Activate-to-read (`RCD`), precharge (`RP`), read (`CL`) and write (`WL`) latencies,
    /// command cycles.
    pub t_rcd: u32,
    pub t_rp: u32,
    pub t_cl: u32,
    pub t_wl: u32,
}

/// A set-associative cache (tags only: data lives in the functional memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    pub sets: u32,
    pub ways: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
    /// How a line number picks its set (the last field of GPGPU-Sim's `-gpgpu_cache:<name>`
    /// `<rep>:<wr>:<alloc>:<wr_alloc>:<set_index_fn>`, `cache_config::init` in `gpu-cache.h`).
    pub set_index: SetIndex,
}

/// Set-index function of a cache (GPGPU-Sim `enum set_index_function`, `gpu-cache.h`;
/// `cache_config::hash_function`, `gpu-cache.cc`). The number hashed is the line number the
/// tags see: the address over the line size for the L1D and the per-SM caches, the line
/// number inside its L2 slice for the L2 (GPGPU-Sim `l2_cache_config::set_index` hashes the
/// partition address, `linear_to_raw_address_translation::partition_address` in `addrdec.cc`,
/// the address with the channel and sub-partition bits taken out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SetIndex {
    /// `line mod sets` (`L`, `LINEAR_SET_FUNCTION`).
    Linear,
    /// The IPOLY hash of Rau (ISCA 1991) as GPGPU-Sim implements it (`P`,
    /// `HASH_IPOLY_FUNCTION`; `ipoly_hash_function` in `hashing.cc`): the low `log2(sets)`
    /// bits of the line number XORed with fixed parities of the bits above them, for 16,
    /// 32 or 64 sets only.
    Ipoly,
    /// The Fermi L1D hash of Nugteren et al. ("A detailed GPU cache model based on reuse
    /// distance theory", HPCA 2014) as GPGPU-Sim implements it (`H`,
    /// `FERMI_HASH_SET_FUNCTION` in `cache_config::hash_function`, `gpu-cache.cc`): address
    /// bits 7-11 XOR bits 13, 14, 15, 17 and 19, and bit 12 on top with 64 sets; 32 or 64 sets
    /// of 128-byte lines only.
    Fermi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedMemConfig {
    pub banks: u32,
    pub bank_bytes: u32,
    /// Cycles from LD/ST dispatch to data without bank conflicts.
    pub latency: u32,
}

/// A configuration value out of range (names the field path).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("GPU config `{preset}`: {field}: {message}")]
pub struct ConfigError {
    pub preset: String,
    pub field: String,
    pub message: String,
}

/// Error loading a preset file.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    #[error("{file}: {source}")]
    Toml {
        file: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{file}: {source}")]
    Invalid {
        file: String,
        #[source]
        source: ConfigError,
    },
}

/// The RTX 2060-like timing preset (TOML text).
pub const RTX2060_TOML: &str = include_str!("rtx2060.toml");
/// The GTX 480-like timing preset (TOML text).
pub const GTX480_TOML: &str = include_str!("gtx480.toml");

impl GpuConfig {
    /// Parses a TOML preset and validates it. `file` names the source in errors.
    pub fn from_toml(file: &str, text: &str) -> Result<GpuConfig, PresetError> {
        let cfg: GpuConfig = toml::from_str(text).map_err(|source| PresetError::Toml {
            file: file.to_string(),
            source,
        })?;
        cfg.validate().map_err(|source| PresetError::Invalid {
            file: file.to_string(),
            source,
        })?;
        Ok(cfg)
    }

    /// The register-allocation target of this GPU: its uniform register file.
    pub fn alloc_target(&self) -> crate::analysis::AllocTarget {
        crate::analysis::AllocTarget {
            uniform_registers: self.sm.uniform_registers,
        }
    }

    /// The RTX 2060-like preset (`sim/src/timing/rtx2060.toml`; sources in its comments).
    pub fn rtx2060_like() -> Result<GpuConfig, PresetError> {
        Self::from_toml("rtx2060.toml", RTX2060_TOML)
    }

    /// The GTX 480-like preset (`sim/src/timing/gtx480.toml`; sources in its comments).
    pub fn gtx480_like() -> Result<GpuConfig, PresetError> {
        Self::from_toml("gtx480.toml", GTX480_TOML)
    }

    /// Checks every value's range. Errors name the field path, the value and the range.
    ///
    /// Every key has an upper bound too: generous against real GPUs (the largest
    /// shipping ones have ~150 SMs, 64 K registers and 256 KB of L1 per SM, latencies of a few
    /// hundred cycles), but small enough that no single value can make the model allocate
    /// without bound or overflow its cycle arithmetic. Structures whose memory grows with
    /// several keys together (SMs x caches) are bounded by the memory estimate of the
    /// configuration (`regwatt_designs::footprint`), not here. The ranges are listed in the
    /// README ("Configuration ranges").
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |field: &str, message: String| ConfigError {
            preset: self.name.clone(),
            field: field.to_string(),
            message,
        };
        let range = |field: &str, v: u32, lo: u32, hi: u32| -> Result<(), ConfigError> {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(err(
                    field,
                    format!("{v} is outside the valid range {lo}..={hi}"),
                ))
            }
        };
        let pos = |field: &str, v: u32| -> Result<(), ConfigError> {
            if v == 0 {
                Err(err(field, "must be at least 1".into()))
            } else {
                Ok(())
            }
        };
        let pow2 = |field: &str, v: u32, lo: u32, hi: u32| -> Result<(), ConfigError> {
            if !v.is_power_of_two() {
                Err(err(
                    field,
                    format!("{v} is not a power of two (valid: powers of two in {lo}..={hi})"),
                ))
            } else {
                range(field, v, lo, hi)
            }
        };
        let mhz = |field: &str, v: f64, hi: f64| -> Result<(), ConfigError> {
            if v.is_finite() && (1.0..=hi).contains(&v) {
                Ok(())
            } else {
                Err(err(
                    field,
                    if v.abs() < 1e9 {
                        format!("{v} MHz is outside the valid range 1..={hi} MHz")
                    } else {
                        format!("{v:e} MHz is outside the valid range 1..={hi} MHz")
                    },
                ))
            }
        };
        // cycles: a few hundred in every published configuration
        const LAT: u32 = 100_000;
        if self.name.is_empty()
            || self.name.len() > 64
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(err(
                "name",
                format!(
                    "`{}`: 1 to 64 characters of [A-Za-z0-9_-]",
                    self.name.escape_debug()
                ),
            ));
        }
        range("sms", self.sms, 1, 1024)?;
        mhz("core_clock_mhz", self.core_clock_mhz, 10_000.0)?;
        range("cta_launches_per_cycle", self.cta_launches_per_cycle, 1, 64)?;
        range(
            "kernel_launch_latency",
            self.kernel_launch_latency,
            0,
            1_000_000,
        )?;
        range("cta_launch_latency", self.cta_launch_latency, 0, LAT)?;
        let s = &self.sm;
        let l = &s.limits;
        pos("sm.limits.max_warps", l.max_warps)?;
        if l.max_warps > 1024 {
            return Err(err("sm.limits.max_warps", "at most 1024".into()));
        }
        range("sm.limits.max_threads", l.max_threads, 1, 32 * 1024)?;
        range("sm.limits.max_ctas", l.max_ctas, 1, 1024)?;
        range("sm.limits.registers", l.registers, 1, 1 << 20)?;
        // registers are reserved per warp in power-of-two units of whole 32-lane registers
        // (CUDA Occupancy Calculator: 64 on cc 2.x, 256 on cc 3.0+)
        pow2(
            "sm.limits.register_alloc_unit",
            l.register_alloc_unit,
            32,
            8192,
        )?;
        pow2("sm.limits.shared_alloc_unit", l.shared_alloc_unit, 1, 65536)?;
        if l.max_registers_per_thread == 0 || l.max_registers_per_thread > 255 {
            return Err(err(
                "sm.limits.max_registers_per_thread",
                "must be in 1..=255".into(),
            ));
        }
        range("sm.limits.shared_bytes", l.shared_bytes, 0, 4 << 20)?;
        pos("sm.sub_cores", s.sub_cores)?;
        if s.sub_cores > l.max_warps {
            return Err(err("sm.sub_cores", "more sub-cores than warps".into()));
        }
        range("sm.sub_cores", s.sub_cores, 1, 64)?;
        range(
            "sm.uniform_registers",
            s.uniform_registers,
            0,
            crate::analysis::regalloc::SM75_UNIFORM_REGISTERS,
        )?;
        if !l.registers.is_multiple_of(s.sub_cores * 32) {
            return Err(err(
                "sm.limits.registers",
                "must divide into 32-lane warp registers evenly among the sub-cores".into(),
            ));
        }
        range("sm.scheduler.issue_width", s.scheduler.issue_width, 1, 32)?;
        if let SchedulerPolicy::TwoLevel { active_warps } = s.scheduler.policy {
            range(
                "sm.scheduler.policy.two_level.active_warps",
                active_warps,
                1,
                l.max_warps,
            )?;
        }
        pos(
            "sm.collectors.units_per_sub_core",
            s.collectors.units_per_sub_core,
        )?;
        if s.collectors.units_per_sub_core > 64 {
            return Err(err("sm.collectors.units_per_sub_core", "at most 64".into()));
        }
        range(
            "sm.collectors.read_ports_per_unit",
            s.collectors.read_ports_per_unit,
            1,
            32,
        )?;
        range(
            "sm.collectors.dispatch_per_cycle",
            s.collectors.dispatch_per_cycle,
            1,
            64,
        )?;
        let r = &s.register_file;
        pos("sm.register_file.banks_per_sub_core", r.banks_per_sub_core)?;
        if r.banks_per_sub_core > 64 {
            return Err(err(
                "sm.register_file.banks_per_sub_core",
                "at most 64".into(),
            ));
        }
        // the SRAM model prices at most 32 ports per array (and the cores count ports in a
        // byte): one bound, so timing and power see the same ports
        range("sm.register_file.ports_per_bank", r.ports_per_bank, 1, 32)?;
        range(
            "sm.register_file.rows_per_subarray",
            r.rows_per_subarray,
            1,
            1 << 16,
        )?;
        range("sm.register_file.crossbar_width", r.crossbar_width, 1, 1024)?;
        // warp registers (32 lanes x 32 bit) per sub-core, spread over its banks
        let per_sub = l.registers / s.sub_cores / 32;
        if !per_sub.is_multiple_of(r.banks_per_sub_core) {
            return Err(err(
                "sm.register_file.banks_per_sub_core",
                "warp registers per sub-core must divide evenly among the banks".into(),
            ));
        }
        let u = &s.units;
        for (name, c) in [
            ("sp", u.sp),
            ("int", u.int),
            ("sfu", u.sfu),
            ("dp", u.dp),
            ("tensor", u.tensor),
        ] {
            range(
                &format!("sm.units.{name}.per_sub_core"),
                c.per_sub_core,
                1,
                64,
            )?;
            range(
                &format!("sm.units.{name}.timing.latency"),
                c.timing.latency,
                1,
                LAT,
            )?;
            range(
                &format!("sm.units.{name}.timing.initiation"),
                c.timing.initiation,
                1,
                LAT,
            )?;
        }
        for (name, t) in [
            ("int_div", u.int_div),
            ("fp_div", u.fp_div),
            ("dp_div", u.dp_div),
            ("branch", u.branch),
        ] {
            range(&format!("sm.units.{name}.latency"), t.latency, 1, LAT)?;
            range(&format!("sm.units.{name}.initiation"), t.initiation, 1, LAT)?;
        }
        range("sm.units.ldst_per_sm", u.ldst_per_sm, 1, 64)?;
        range("sm.units.const_latency", u.const_latency, 1, LAT)?;
        let m = &self.memory;
        for (name, c, max_bytes) in [
            ("memory.l1d", m.l1d, 64u64 << 20),
            ("memory.l2_slice", m.l2_slice, 256u64 << 20),
            ("memory.l1i", m.l1i, 64u64 << 20),
            ("memory.l1c", m.l1c, 64u64 << 20),
        ] {
            range(&format!("{name}.sets"), c.sets, 1, 1 << 20)?;
            range(&format!("{name}.ways"), c.ways, 1, 1024)?;
            pow2(&format!("{name}.line_bytes"), c.line_bytes, 16, 4096)?;
            pow2(&format!("{name}.sector_bytes"), c.sector_bytes, 4, 4096)?;
            if c.sector_bytes > c.line_bytes || c.line_bytes / c.sector_bytes > 32 {
                return Err(err(
                    &format!("{name}.sector_bytes"),
                    "1..=32 sectors per line required".into(),
                ));
            }
            if c.set_index == SetIndex::Ipoly && !matches!(c.sets, 16 | 32 | 64) {
                return Err(err(
                    &format!("{name}.set_index"),
                    format!(
                        "\"ipoly\" needs 16, 32 or 64 sets (GPGPU-Sim's IPOLY polynomials), \
                         not {}; use \"linear\" for other set counts",
                        c.sets
                    ),
                ));
            }
            if c.set_index == SetIndex::Fermi && (!matches!(c.sets, 32 | 64) || c.line_bytes != 128)
            {
                return Err(err(
                    &format!("{name}.set_index"),
                    format!(
                        "\"fermi\" needs 32 or 64 sets of 128-byte lines (the Fermi hash's fixed \
                         address bits), not {} sets of {} B; use \"linear\"",
                        c.sets, c.line_bytes
                    ),
                ));
            }
            let bytes = u64::from(c.sets) * u64::from(c.ways) * u64::from(c.line_bytes);
            if bytes > max_bytes {
                return Err(err(
                    &format!("{name}.sets"),
                    format!(
                        "{} sets x {} ways x {} B = {bytes} B: at most {} MiB per cache",
                        c.sets,
                        c.ways,
                        c.line_bytes,
                        max_bytes >> 20
                    ),
                ));
            }
        }
        for (name, c) in [("memory.l1i", m.l1i), ("memory.l1c", m.l1c)] {
            if c.sector_bytes != c.line_bytes {
                return Err(err(
                    &format!("{name}.sector_bytes"),
                    "must equal line_bytes (the instruction and constant caches are not sectored)"
                        .into(),
                ));
            }
            if c.line_bytes > m.l2_slice.line_bytes {
                return Err(err(
                    &format!("{name}.line_bytes"),
                    "must be at most memory.l2_slice.line_bytes".into(),
                ));
            }
        }
        if m.l1d.line_bytes != m.l2_slice.line_bytes {
            return Err(err(
                "memory.l2_slice.line_bytes",
                "must equal memory.l1d.line_bytes".into(),
            ));
        }
        range("memory.l1d_hit_latency", m.l1d_hit_latency, 1, LAT)?;
        pow2("memory.l1d_banks", m.l1d_banks, 1, 64)?;
        range("memory.l1d_mshr_entries", m.l1d_mshr_entries, 1, 65536)?;
        range(
            "memory.l1d_requests_per_cycle",
            m.l1d_requests_per_cycle,
            1,
            255,
        )?;
        range(
            "memory.l1d_miss_queue_entries",
            m.l1d_miss_queue_entries,
            1,
            1 << 20,
        )?;
        range("memory.shared.banks", m.shared.banks, 1, 1024)?;
        pow2("memory.shared.bank_bytes", m.shared.bank_bytes, 1, 1024)?;
        range("memory.shared.latency", m.shared.latency, 1, LAT)?;
        range("memory.icnt_latency", m.icnt_latency, 0, LAT)?;
        pos(
            "memory.icnt_reply_sectors_per_cycle",
            m.icnt_reply_sectors_per_cycle,
        )?;
        if m.icnt_reply_sectors_per_cycle > 255 || m.l2_sectors_per_cycle_per_slice > 255 {
            return Err(err(
                "memory.icnt_reply_sectors_per_cycle",
                "per-cycle port widths must be at most 255".into(),
            ));
        }
        range(
            "memory.icnt_request_packets_per_cycle",
            m.icnt_request_packets_per_cycle,
            1,
            255,
        )?;
        range("memory.l2_slices", m.l2_slices, 1, 1024)?;
        range("memory.l2_rop_latency", m.l2_rop_latency, 0, LAT)?;
        range(
            "memory.l2_sectors_per_cycle_per_slice",
            m.l2_sectors_per_cycle_per_slice,
            1,
            255,
        )?;
        range("memory.l2_mshr_entries", m.l2_mshr_entries, 1, 65536)?;
        let d = &m.dram;
        range("memory.dram.channels", d.channels, 1, 1024)?;
        if !m.l2_slices.is_multiple_of(d.channels) {
            return Err(err(
                "memory.dram.channels",
                "must divide memory.l2_slices".into(),
            ));
        }
        pow2(
            "memory.dram.interleave_bytes",
            d.interleave_bytes,
            1,
            1 << 30,
        )?;
        if d.interleave_bytes < m.l2_slice.line_bytes {
            return Err(err(
                "memory.dram.interleave_bytes",
                "must be at least one cache line".into(),
            ));
        }
        range("memory.dram.latency", d.latency, 0, LAT)?;
        mhz("memory.dram.clock_mhz", d.clock_mhz, 100_000.0)?;
        range("memory.dram.banks", d.banks, 1, 1024)?;
        pow2("memory.dram.row_bytes", d.row_bytes, 1, 1 << 20)?;
        range("memory.dram.burst_bytes", d.burst_bytes, 1, 4096)?;
        range("memory.dram.burst_cycles", d.burst_cycles, 1, 1024)?;
        for (name, v) in [
            ("memory.dram.t_rcd", d.t_rcd),
            ("memory.dram.t_rp", d.t_rp),
            ("memory.dram.t_cl", d.t_cl),
            ("memory.dram.t_wl", d.t_wl),
        ] {
            range(name, v, 0, LAT)?;
        }
        Ok(())
    }

    /// Registers per sub-core.
    pub fn registers_per_sub_core(&self) -> u32 {
        self.sm.limits.registers / self.sm.sub_cores.max(1)
    }
}

impl SmConfig {
    /// Warp instructions the SM can issue per cycle: one scheduler per sub-core, each issuing
    /// up to `scheduler.issue_width` (the denominator of `issue_utilisation_frac`).
    pub fn issue_slots(&self) -> u32 {
        self.sub_cores * self.scheduler.issue_width
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_preset_parses_and_validates() {
        let c = GpuConfig::from_toml("rtx2060.toml", RTX2060_TOML).expect("preset");
        assert_eq!(c.sms, 30);
        assert_eq!(c.sm.sub_cores, 4);
        assert_eq!(c.sm.issue_slots(), 4);
        assert_eq!(c.sm.register_file.banks_per_sub_core, 2);
        assert_eq!(c.sm.collectors.units_per_sub_core, 2);
        assert_eq!(GpuConfig::rtx2060_like().expect("preset"), c);
        assert_eq!(c.kernel_launch_latency, 5000);
        let g = GpuConfig::gtx480_like().expect("gtx480");
        assert_eq!(g.sms, 15);
        assert_eq!(g.kernel_launch_latency, 0);
        assert_eq!(g.sm.issue_slots(), 2);
        // 768 KB of L2: 12 slices x 64 sets x 8 ways x 128 B
        let l2 = g.memory.l2_slices * g.memory.l2_slice.sets * g.memory.l2_slice.ways * 128;
        assert_eq!(l2, 768 * 1024);
        // 3 MB of L2: 24 slices x 64 sets x 16 ways x 128 B
        let l2 = c.memory.l2_slices * c.memory.l2_slice.sets * c.memory.l2_slice.ways * 128;
        assert_eq!(l2, 3 * 1024 * 1024);
    }

    #[test]
    fn unknown_and_missing_keys_are_rejected() {
        let extra = format!("{RTX2060_TOML}\nbogus = 1\n");
        assert!(GpuConfig::from_toml("x.toml", &extra).is_err());
        let missing = RTX2060_TOML.replace("sms = 30", "");
        let e = GpuConfig::from_toml("x.toml", &missing).unwrap_err();
        assert!(e.to_string().contains("sms"), "{e}");
    }

    #[test]
    fn uniform_registers_is_required_and_bounded() {
        // the key is never defaulted: a preset without it names the file and the key
        let line = RTX2060_TOML
            .lines()
            .find(|l| l.starts_with("uniform_registers"))
            .expect("rtx2060 sets uniform_registers");
        let missing = RTX2060_TOML.replace(line, "");
        let e = GpuConfig::from_toml("my.toml", &missing).unwrap_err();
        let msg = format!("{e}");
        assert!(
            msg.contains("my.toml") && msg.contains("uniform_registers"),
            "{msg}"
        );
        let c = GpuConfig::rtx2060_like().expect("preset");
        assert_eq!(c.alloc_target(), crate::analysis::AllocTarget::SM75);
        let g = GpuConfig::gtx480_like().expect("preset");
        assert_eq!(g.alloc_target(), crate::analysis::AllocTarget::NO_UNIFORM);
        let mut c = c;
        c.sm.uniform_registers = 64;
        assert_eq!(c.validate().unwrap_err().field, "sm.uniform_registers");
    }

    /// The set-index function is a required key with two values: rtx2060's L2 hashes
    /// (`-gpgpu_cache:dl2 ..,L:B:m:L:P`), every other cache of both presets is linear; an
    /// unknown value names the key and the valid ones, and IPOLY takes 16, 32 or 64 sets.
    #[test]
    fn set_index_is_required_and_checked() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        assert_eq!(c.memory.l2_slice.set_index, SetIndex::Ipoly);
        let g = GpuConfig::gtx480_like().expect("preset");
        assert_eq!(c.memory.l1d.set_index, SetIndex::Linear);
        assert_eq!(g.memory.l1d.set_index, SetIndex::Fermi);
        for m in [&c.memory, &g.memory] {
            assert_eq!(m.l1i.set_index, SetIndex::Linear);
            assert_eq!(m.l1c.set_index, SetIndex::Linear);
        }
        assert_eq!(g.memory.l2_slice.set_index, SetIndex::Linear);
        let bad = RTX2060_TOML.replace("set_index = \"ipoly\"", "set_index = \"xor\"");
        assert_ne!(bad, RTX2060_TOML);
        let msg = GpuConfig::from_toml("my.toml", &bad)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("my.toml") && msg.contains("xor") && msg.contains("ipoly"),
            "{msg}"
        );
        let missing = RTX2060_TOML.replace(", set_index = \"ipoly\"", "");
        let msg = GpuConfig::from_toml("my.toml", &missing)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("set_index"), "{msg}");
        let mut c = c;
        c.memory.l2_slice.sets = 128;
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "memory.l2_slice.set_index");
        assert!(e.message.contains("16, 32 or 64"), "{}", e.message);
        c.memory.l2_slice.set_index = SetIndex::Linear;
        c.validate().expect("linear takes any set count");
        c.memory.l1d.set_index = SetIndex::Fermi;
        c.memory.l1d.sets = 16;
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "memory.l1d.set_index");
        assert!(
            e.message.contains("32 or 64 sets of 128-byte"),
            "{}",
            e.message
        );
    }

    /// CTAs per SM by hand from the presets' limits (rtx2060: 1024 threads, 32 warps, 16 CTAs,
    /// 65536 registers in units of 256, 64 KB shared in units of 256; gtx480: 1536, 48, 8,
    /// 32768 in units of 64, 48 KB in units of 128).
    #[test]
    fn ctas_per_sm_takes_the_tightest_limit() {
        let t = GpuConfig::rtx2060_like().expect("preset").sm.limits;
        let f = GpuConfig::gtx480_like().expect("preset").sm.limits;
        // gemm's 256-thread blocks: rtx2060 by warps (32 / 8); gtx480 by registers at 30
        // (8 warps x 960 = 7680: 4 CTAs) and at 60 (8 x 1920 = 15360: 2)
        assert_eq!(t.ctas_per_sm(256, 30, 0), 4);
        assert_eq!(f.ctas_per_sm(256, 30, 0), 4);
        assert_eq!(f.ctas_per_sm(256, 60, 0), 2);
        // rtx2060 at 65 registers: 65 x 32 = 2080 -> 2304 per warp, x 8 = 18432: 3 CTAs
        assert_eq!(t.ctas_per_sm(256, 65, 0), 3);
        // small blocks: the CTA limit; shared memory: 20 000 B -> 20 224 (x 256): 3 in 64 KB
        assert_eq!(t.ctas_per_sm(32, 8, 0), t.max_ctas);
        assert_eq!(t.ctas_per_sm(32, 8, 20_000), 3);
        // nothing fits: registers above the per-thread limit, a block above the SM's threads
        assert_eq!(t.ctas_per_sm(32, 256, 0), 0);
        assert_eq!(f.ctas_per_sm(2048, 8, 0), 0);
    }

    #[test]
    fn out_of_range_values_name_the_field() {
        let mut c = GpuConfig::rtx2060_like().expect("preset");
        c.sm.register_file.banks_per_sub_core = 0;
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "sm.register_file.banks_per_sub_core");
        let mut c = GpuConfig::rtx2060_like().expect("preset");
        c.memory.l1d.line_bytes = 100;
        assert_eq!(c.validate().unwrap_err().field, "memory.l1d.line_bytes");
        let mut c = GpuConfig::gtx480_like().expect("preset");
        c.memory.l1i.sector_bytes = 32;
        assert_eq!(c.validate().unwrap_err().field, "memory.l1i.sector_bytes");
        let mut c = GpuConfig::gtx480_like().expect("preset");
        c.memory.l1c = CacheConfig {
            sets: 8,
            ways: 2,
            line_bytes: 256,
            sector_bytes: 256,
            set_index: SetIndex::Linear,
        };
        assert_eq!(c.validate().unwrap_err().field, "memory.l1c.line_bytes");
        let mut c = GpuConfig::gtx480_like().expect("preset");
        c.memory.l1c.ways = 0;
        assert_eq!(c.validate().unwrap_err().field, "memory.l1c.ways");
    }
}
