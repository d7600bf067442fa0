//! Up-front estimate of the memory a simulation will use, checked against a budget before
//! anything large is allocated: a configuration or launch spec too large for the
//! machine is refused with a clean error instead of aborting on a failed allocation or
//! meeting the kernel's OOM killer.
//!
//! The estimate adds the structures whose size the inputs choose, each from the size of its
//! elements in the model (`timing/core/`, `timing/memory/`, the RF designs,
//! `mem/global.rs`, `exec/cta/`), rounded up:
//!
//! | part | bytes |
//! |---|---|
//! | fixed (program, PTX analyses, technology tables) | 48 MiB + 64 × PTX text |
//! | device buffers | Σ buffer bytes (once: built in place, read back in place), + Σ `npy` buffers (held by the spec) |
//! | per SM: register values and RF state | 6 × `registers` + 2 KiB per bank |
//! | per SM: warps, CTAs, collectors | 512 × `max_warps` + 128 × `max_ctas` + 2.75 KiB per collector unit |
//! | per SM: threads' local memory and shared memory | `max_threads` × (kernel's `.local` bytes + 64) + `shared_bytes` |
//! | per SM: L1D tags | lines × (48 + 8 × sectors per line) + 16 × MSHRs |
//! | per SM and per L2 slice: reservation rings | 64 × the longest latency + 64 KiB |
//! | per L2 slice | lines × (48 + 8 × sectors per line) + 16 × MSHRs |
//! | DRAM | 32 × channels × banks |
//!
//! `regwatt run` with a design other than the baseline also simulates the baseline after it
//! while the design's buffers are kept: its estimate counts the buffers twice. Measured peak
//! resident memory against the estimate is in the README ("Memory budget").

use crate::launch::LaunchSpec;
use crate::timing::config::GpuConfig;

/// The estimate, with its parts (for the error message).
#[derive(Clone, Debug, PartialEq)]
pub struct Footprint {
    /// Total bytes.
    pub bytes: u64,
    /// `(what, bytes)` of every part, largest first.
    pub parts: Vec<(String, u64)>,
}

impl Footprint {
    fn new(mut parts: Vec<(String, u64)>) -> Footprint {
        parts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let bytes = parts.iter().fold(0u64, |s, (_, b)| s.saturating_add(*b));
        Footprint { bytes, parts }
    }

    /// The estimate with one more part.
    pub fn with(mut self, what: impl Into<String>, bytes: u64) -> Footprint {
        self.parts.push((what.into(), bytes));
        Footprint::new(self.parts)
    }

    /// Checks the estimate against `budget`.
    pub fn check(&self, budget: &Budget) -> Result<(), FootprintError> {
        if self.bytes <= budget.bytes {
            return Ok(());
        }
        let parts: Vec<String> = self
            .parts
            .iter()
            .take(4)
            .map(|(w, b)| format!("{w} {}", human(*b)))
            .collect();
        Err(FootprintError::OverBudget {
            estimate: human(self.bytes),
            parts: parts.join(", "),
            budget: human(budget.bytes),
            origin: budget.source.clone(),
        })
    }
}

/// A memory budget in bytes and where it comes from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    /// `"--memory-budget 16GiB"`, `"half of physical memory (23.4 GiB)"`, ...
    pub source: String,
}

/// Errors of the estimate and the budget.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FootprintError {
    #[error("the simulation would need about {estimate} of memory ({parts}), above the memory budget of {budget} ({origin})")]
    OverBudget {
        estimate: String,
        parts: String,
        budget: String,
        origin: String,
    },
    #[error("memory size `{0}`: expected a number with a unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. 16GiB), at least 1 MiB")]
    BadSize(String),
}

/// `n` bytes as `1.50 GiB`.
pub fn human(n: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < U.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.2} {}", U[i])
    }
}

impl Budget {
    /// Parses `16GiB`, `512 MiB`, `8GB`, `1.5TiB`, `1073741824` (bytes; at least 1 MiB).
    pub fn parse(s: &str) -> Result<Budget, FootprintError> {
        let bad = || FootprintError::BadSize(s.to_string());
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let v: f64 = num.parse().map_err(|_| bad())?;
        let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1.0,
            "kb" | "k" => 1e3,
            "mb" | "m" => 1e6,
            "gb" | "g" => 1e9,
            "tb" | "t" => 1e12,
            "kib" => 1024.0,
            "mib" => 1024.0 * 1024.0,
            "gib" => 1024.0 * 1024.0 * 1024.0,
            "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
            _ => return Err(bad()),
        };
        let b = v * mult;
        if !(b.is_finite() && b >= (1u64 << 20) as f64 && b < u64::MAX as f64) {
            return Err(bad());
        }
        Ok(Budget {
            bytes: b as u64,
            source: format!("--memory-budget {t}"),
        })
    }

    /// The default budget: half of the physical memory (`/proc/meminfo` `MemTotal`), and at
    /// most 80 % of the process's address-space or data-segment limit when one is set
    /// (`ulimit -v`; `/proc/self/limits`), so that the estimate refuses what an allocation
    /// would fail on. Without `/proc` (not Linux): 4 GiB.
    pub fn default_for_machine() -> Budget {
        let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
                .map(|kb| kb * 1024)
        });
        let mut b = match total {
            Some(t) => Budget {
                bytes: t / 2,
                source: format!(
                    "half of the physical memory, {}; raise it with --memory-budget SIZE",
                    human(t)
                ),
            },
            None => Budget {
                bytes: 4 << 30,
                source: "default without /proc/meminfo; raise it with --memory-budget SIZE".into(),
            },
        };
        if let Some(lim) = address_space_limit() {
            let cap = lim / 10 * 8;
            if cap < b.bytes {
                b = Budget {
                    bytes: cap,
                    source: format!(
                        "80% of the process's address-space limit, {} (ulimit -v)",
                        human(lim)
                    ),
                };
            }
        }
        b
    }
}

/// The soft `Max address space` / `Max data size` limit of this process, if finite.
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    text.lines()
        .filter(|l| l.starts_with("Max address space") || l.starts_with("Max data size"))
        .filter_map(|l| {
            // "Max address space   6144000000   6144000000   bytes"
            let rest = l.split_once("  ")?.1;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
        .min()
}

/// Bytes of the spec's buffers, and of those initialised from `.npy` files (held twice: in
/// the spec and in device memory).
fn buffer_bytes(spec: &LaunchSpec) -> (u64, u64) {
    let mut all = 0u64;
    let mut npy = 0u64;
    for b in spec.buffers.values() {
        let n = b.byte_len() as u64;
        all = all.saturating_add(n);
        if matches!(b.init, crate::launch::InitSpec::Npy { .. }) {
            npy = npy.saturating_add(n);
        }
    }
    (all, npy)
}

/// Largest `.local` frame (bytes per thread) of the kernels the spec launches (0 when the
/// PTX does not parse: the run reports that error itself).
fn local_bytes(spec: &LaunchSpec) -> u64 {
    let Ok(m) = crate::ptx::parse(&spec.ptx_path, &spec.ptx_source) else {
        return 0;
    };
    spec.launches
        .iter()
        .filter_map(|l| m.functions.iter().find(|f| f.name == l.kernel))
        .map(|f| u64::from(f.local_bytes()))
        .max()
        .unwrap_or(0)
}

fn fixed(spec: &LaunchSpec) -> (String, u64) {
    (
        "program and PTX".into(),
        (48u64 << 20).saturating_add(64u64.saturating_mul(spec.ptx_source.len() as u64)),
    )
}

/// Estimate of `regwatt exec`: the functional executor runs one CTA at a time.
pub fn functional(spec: &LaunchSpec) -> Footprint {
    let (bufs, npy) = buffer_bytes(spec);
    let local = local_bytes(spec);
    let cta = spec
        .launches
        .iter()
        .map(|l| {
            u64::from(l.threads_per_block()) * (local + 256)
                + u64::from(l.dynamic_shared_bytes)
                + (64 << 10)
        })
        .max()
        .unwrap_or(0);
    Footprint::new(vec![
        fixed(spec),
        (
            format!("{} device buffers", spec.buffers.len()),
            bufs.saturating_add(npy),
        ),
        ("one CTA's threads and shared memory".into(), cta),
    ])
}

fn cache_bytes(c: &crate::timing::config::CacheConfig, mshrs: u32) -> u64 {
    let lines = u64::from(c.sets) * u64::from(c.ways);
    let spl = u64::from((c.line_bytes / c.sector_bytes.max(1)).max(1));
    lines * (48 + 8 * spl) + 16 * u64::from(mshrs)
}

/// Estimate of a timed run of `spec` on `cfg`. `buffer_copies`: how many copies of the
/// buffers are alive at once (2 for `regwatt run` with a design other than the baseline).
pub fn timed(cfg: &GpuConfig, spec: &LaunchSpec, buffer_copies: u64) -> Footprint {
    let (bufs, npy) = buffer_bytes(spec);
    let local = local_bytes(spec);
    let s = &cfg.sm;
    let l = &s.limits;
    let m = &cfg.memory;
    let u = &s.units;
    let sms = u64::from(cfg.sms);
    let banks = u64::from(s.sub_cores) * u64::from(s.register_file.banks_per_sub_core);
    let collectors = u64::from(s.sub_cores) * u64::from(s.collectors.units_per_sub_core);
    let ring = (u64::from(s.collectors.units_per_sub_core) * 16).next_power_of_two() * 4;
    let longest = [
        u.sp.timing.latency,
        u.int.timing.latency,
        u.sfu.timing.latency,
        u.dp.timing.latency,
        u.tensor.timing.latency,
        u.int_div.latency,
        u.fp_div.latency,
        u.dp_div.latency,
        u.branch.latency,
        u.const_latency,
        m.l1d_hit_latency,
        m.shared.latency,
        m.icnt_latency,
        m.l2_rop_latency,
        m.dram.latency,
    ]
    .into_iter()
    .map(u64::from)
    .max()
    .unwrap_or(0);
    let rings = 64 * longest + (64 << 10);
    let rf = 6 * u64::from(l.registers) + banks * (2048 + ring);
    let core = 512 * u64::from(l.max_warps)
        + 128 * u64::from(l.max_ctas)
        + collectors * 2816
        + 64 * u64::from(u.ldst_per_sm);
    let threads = u64::from(l.max_threads) * (local + 64) + u64::from(l.shared_bytes);
    let l1 = cache_bytes(&m.l1d, m.l1d_mshr_entries);
    let per_sm = rf + core + threads + l1 + rings;
    let slices = u64::from(m.l2_slices);
    let per_slice = cache_bytes(&m.l2_slice, m.l2_mshr_entries) + rings;
    let dram = 32 * u64::from(m.dram.channels) * u64::from(m.dram.banks);
    Footprint::new(vec![
        fixed(spec),
        (
            format!("{} device buffers", spec.buffers.len()),
            bufs.saturating_mul(buffer_copies.max(1))
                .saturating_add(npy),
        ),
        (
            format!("{sms} SMs x {} per SM", human(per_sm)),
            sms.saturating_mul(per_sm),
        ),
        (
            format!("{slices} L2 slices x {}", human(per_slice)),
            slices.saturating_mul(per_slice),
        ),
        ("DRAM banks".into(), dram),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_sizes_parse() {
        assert_eq!(Budget::parse("16GiB").map(|b| b.bytes), Ok(16 << 30));
        assert_eq!(Budget::parse("512 MiB").map(|b| b.bytes), Ok(512 << 20));
        assert_eq!(Budget::parse("8GB").map(|b| b.bytes), Ok(8_000_000_000));
        assert_eq!(Budget::parse("1.5gib").map(|b| b.bytes), Ok(3 << 29));
        assert_eq!(Budget::parse("2097152").map(|b| b.bytes), Ok(2 << 20));
        for bad in ["", "GiB", "-1GiB", "1e30GiB", "12 parsecs", "10", "nan"] {
            assert!(
                matches!(Budget::parse(bad), Err(FootprintError::BadSize(_))),
                "{bad}"
            );
        }
        let d = Budget::default_for_machine();
        assert!(d.bytes >= 1 << 20, "{d:?}");
        assert_eq!(human(3 << 29), "1.50 GiB");
        assert_eq!(human(10), "10 B");
    }

    #[test]
    fn over_budget_names_the_parts() {
        let f = Footprint::new(vec![("a".into(), 3 << 30), ("b".into(), 1 << 30)]);
        assert_eq!(f.bytes, 4 << 30);
        assert_eq!(f.parts[0].0, "a");
        let b = Budget {
            bytes: 2 << 30,
            source: "test".into(),
        };
        let e = f.check(&b).unwrap_err().to_string();
        assert!(
            e.contains("4.00 GiB") && e.contains("a 3.00 GiB") && e.contains("2.00 GiB (test)"),
            "{e}"
        );
        assert!(f
            .check(&Budget {
                bytes: 4 << 30,
                source: String::new()
            })
            .is_ok());
    }
}
