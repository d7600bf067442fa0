//! Shared-memory bank conflicts.
//!
//! Model: `num_banks` banks (32 on every reference config: `-gpgpu_shmem_num_banks 32`), each
//! `bank_bytes` wide (4 B), word `w = addr / 4` lives in bank `w mod 32`. Lanes reading the same
//! word are served together (broadcast, `-gpgpu_shmem_limited_broadcast 0`: unlimited). An access
//! takes as many cycles ("wavefronts") as the largest number of *distinct* words any one bank must
//! deliver; `replays = cycles − 1`. This is GPGPU-Sim's `generate_mem_accesses` shared-space rule,
//! extended to count every 4 B word of 8 B and 16 B accesses (GPGPU-Sim looks only at each lane's
//! first word), so a conflict-free 64-bit warp access takes 2 cycles and a 128-bit one 4, as on
//! hardware (NVIDIA CUDA C++ Programming Guide, "Shared Memory", compute capability 5.x+).

use super::coalesce::LaneAccess;

/// Shared-memory bank geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankConfig {
    /// Number of banks (`-gpgpu_shmem_num_banks`, 32).
    pub num_banks: u32,
    /// Bytes per bank word (4 on compute capability ≥ 5.0).
    pub bank_bytes: u32,
}

impl Default for BankConfig {
    /// 32 banks × 4 B (SM75_RTX2060 and SM2_GTX480 `gpgpusim.config`: `-gpgpu_shmem_num_banks 32`).
    fn default() -> Self {
        BankConfig {
            num_banks: 32,
            bank_bytes: 4,
        }
    }
}

/// Cost of one warp's shared-memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BankConflicts {
    /// Cycles (wavefronts) needed: max distinct words in any bank; 0 when no lane is active.
    pub cycles: u32,
    /// Extra cycles caused by conflicts (`cycles − 1`, or 0).
    pub replays: u32,
    /// Distinct words accessed.
    pub distinct_words: u32,
}

/// Computes the bank-conflict cost of a warp's shared access (lane `l` = `lanes[l]`).
/// A zero-sized config (no banks) is treated as one bank.
pub fn bank_conflicts(cfg: &BankConfig, lanes: &[LaneAccess]) -> BankConflicts {
    let nb = cfg.num_banks.max(1) as u64;
    let wb = cfg.bank_bytes.max(1) as u64;
    // A lane's access spans at most 17 words (16 B, misaligned, 1 B banks); longer spans are
    // clamped to 17 words. 32 × 17 words fit on the stack.
    let mut words = [0u64; 32 * 17];
    let mut n = 0usize;
    for a in lanes.iter().take(32).filter(|a| a.active && a.size > 0) {
        let first = a.addr / wb;
        let last = (a.addr.saturating_add(a.size as u64) - 1) / wb;
        for w in first..=last.min(first + 16) {
            words[n] = w;
            n += 1;
        }
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = vec![0u32; nb as usize];
    let mut distinct = 0u32;
    let mut prev = None;
    for &w in words.iter() {
        if prev != Some(w) {
            prev = Some(w);
            distinct += 1;
            per_bank[(w % nb) as usize] += 1;
        }
    }
    let cycles = per_bank.iter().copied().max().unwrap_or(0);
    BankConflicts {
        cycles,
        replays: cycles.saturating_sub(1),
        distinct_words: distinct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::mem::coalesce::strided;

    fn cost(stride: u64, size: u8, mask: u32) -> BankConflicts {
        bank_conflicts(&BankConfig::default(), &strided(0x100, stride, size, mask))
    }

    #[test]
    fn stride_one_word_is_conflict_free() {
        assert_eq!(
            cost(4, 4, u32::MAX),
            BankConflicts {
                cycles: 1,
                replays: 0,
                distinct_words: 32
            }
        );
    }

    #[test]
    fn stride_two_words_is_two_way() {
        assert_eq!(cost(8, 4, u32::MAX).cycles, 2);
    }

    #[test]
    fn stride_thirty_two_words_is_thirty_two_way() {
        let c = cost(128, 4, u32::MAX);
        assert_eq!((c.cycles, c.replays), (32, 31));
    }

    #[test]
    fn odd_stride_is_conflict_free() {
        assert_eq!(cost(12, 4, u32::MAX).cycles, 1);
    }

    #[test]
    fn broadcast_same_word() {
        let c = cost(0, 4, u32::MAX);
        assert_eq!((c.cycles, c.distinct_words), (1, 1));
        // Two groups reading two words of the same bank: 2 cycles.
        let mut v = strided(0, 0, 4, u32::MAX);
        for a in v.iter_mut().skip(16) {
            a.addr = 128;
        }
        assert_eq!(bank_conflicts(&BankConfig::default(), &v).cycles, 2);
    }

    #[test]
    fn wide_accesses_and_inactive_lanes() {
        assert_eq!(cost(8, 8, u32::MAX).cycles, 2);
        assert_eq!(cost(16, 16, u32::MAX).cycles, 4);
        assert_eq!(cost(128, 4, 0b11).cycles, 2);
        assert_eq!(cost(4, 4, 0), BankConflicts::default());
    }
}
