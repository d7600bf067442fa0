//! What the compiler and the launch tell the renaming hardware about a kernel (Jeon & Annavaram 2014 §5,
//! §6.2, §7.1), computed once per launch from the kernel's static analysis
//! ([`regwatt_sim::analysis::Analysis`]):
//!
//! * the **renaming-exempt registers** of the constrained table (§7.1, [`rank_exempt`]);
//! * the **release-flag groups**: the pir flag instruction that covers each PC (§5.1: one
//!   64-bit flag instruction per run of up to 18 instructions of a basic block) and the pbr
//!   instructions of each block (§5.2: up to 9 registers each);
//! * the **static code growth** those flag instructions cause (Fig. 12, left).

use regwatt_sim::analysis::regalloc::ArchReg;
use regwatt_sim::analysis::Analysis;
use serde::Serialize;

/// Instructions one pir flag instruction covers: 18 three-bit flags in a 64-bit instruction
/// with a 10-bit opcode (Jeon & Annavaram 2014 §5.1, Fig. 6a).
pub const PIR_GROUP: u32 = 18;
/// Registers one pbr instruction releases: 9 six-bit register numbers (Jeon & Annavaram 2014 §5.2, Fig. 6b).
pub const PBR_REGISTERS: u32 = 9;
/// Bits of one release-flag cache entry: the 54 flag bits of a pir (Jeon & Annavaram 2014 §6.2).
pub const FLAG_CACHE_ENTRY_BITS: u32 = 54;

/// Renaming-table entries of Eq. 1: `warps × registers` entries of `entry_bits` bits.
pub fn table_bits(warps: u32, registers: u32, entry_bits: u32) -> u64 {
    u64::from(warps) * u64::from(registers) * u64::from(entry_bits)
}

/// Bits that name one of `physical` registers: `⌈log2(physical)⌉` (at least 1).
pub fn entry_bits(physical: u32) -> u32 {
    physical.max(2).next_power_of_two().trailing_zeros()
}

/// The §7.1 ranking. Registers are sorted by static value lifetime (longest first; ties:
/// more static writes first, then the higher register number, so the order is total), and
/// removed from the top of the list until the table of the remaining ones,
/// `warps × remaining × entry_bits` bits (Eq. 1), fits in `cap_bits`. Returns `exempt[r]`.
/// `None` cap: unconstrained, nothing exempt.
pub fn rank_exempt(
    lifetime: &[u32],
    writes: &[u32],
    warps: u32,
    entry_bits: u32,
    cap_bits: Option<u64>,
) -> Vec<bool> {
    let n = lifetime.len();
    let mut exempt = vec![false; n];
    let Some(cap) = cap_bits else {
        return exempt;
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        lifetime[b]
            .cmp(&lifetime[a])
            .then(writes.get(b).cmp(&writes.get(a)))
            .then(b.cmp(&a))
    });
    let mut remaining = n as u32;
    for r in order {
        if table_bits(warps, remaining, entry_bits) <= cap {
            break;
        }
        exempt[r] = true;
        remaining -= 1;
    }
    exempt
}

/// Static value lifetime and write count of each general register `R0..R(regs-1)` of an
/// analysed function. The lifetime of a register is its longest value lifetime in the
/// static code: the longest run of consecutive instructions (PC order) after which it holds
/// a live value (Jeon & Annavaram 2014 §7.1: "the number of instructions in between the value write point
/// and the next release point"; a register holding several values gets its longest one, so
/// that a long-lived register ranks first whatever its other values).
pub fn lifetimes(a: &Analysis, regs: u32) -> (Vec<u32>, Vec<u32>) {
    let n = a.arch_live.live_out.len();
    let mut life = vec![0u32; regs as usize];
    let mut writes = vec![0u32; regs as usize];
    for r in 0..regs {
        let Ok(r16) = u16::try_from(r) else {
            break;
        };
        let u = a.alloc.unit(ArchReg::R(r16)) as usize;
        let (mut run, mut best) = (0u32, 0u32);
        for pc in 0..n {
            if a.arch_live.live_out[pc].contains(u) {
                run += 1;
                best = best.max(run);
            } else {
                run = 0;
            }
        }
        life[r as usize] = best;
        writes[r as usize] = a
            .arch_ud
            .defs
            .iter()
            .filter(|d| d.contains(&(u as u32)))
            .count() as u32;
    }
    (life, writes)
}

/// Release-flag groups of one function: for each PC the pir flag instruction that covers
/// it, and the static flag-instruction counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlagLayout {
    /// Per PC: index of the pir group (a run of ≤ 18 instructions of one basic block) that
    /// covers it, if that group has at least one release flag set (`None`: no pir needed).
    #[serde(skip)]
    pub pir_group: Vec<Option<u32>>,
    /// Per PC: pbr instructions executed when a warp enters the block starting here
    /// (`⌈registers / 9⌉`; 0 where no block starts or nothing is released).
    #[serde(skip)]
    pub pbr_instructions: Vec<u8>,
    /// Instructions of the function.
    pub instructions: u32,
    /// pir flag instructions in the code (groups with a flag set).
    pub pir_instructions: u32,
    /// pir groups with no flag set (no flag instruction emitted for them).
    pub empty_groups: u32,
    /// pbr instructions in the code.
    pub pbr_instructions_static: u32,
}

impl FlagLayout {
    /// The layout of a function of `n` instructions with per-PC pir lists `pir`, per-block
    /// pbr lists `pbr` and block starts `block_start(pc) -> Option<block>`.
    pub fn new(
        n: usize,
        pir: &[Vec<ArchReg>],
        pbr: &[Vec<ArchReg>],
        block_start: impl Fn(u32) -> Option<u32>,
    ) -> FlagLayout {
        let gpr = |v: &[ArchReg]| v.iter().filter(|a| matches!(a, ArchReg::R(_))).count();
        let mut out = FlagLayout {
            pir_group: vec![None; n],
            pbr_instructions: vec![0; n],
            instructions: n as u32,
            ..FlagLayout::default()
        };
        let mut group_start = 0usize;
        let mut groups = 0u32;
        let mut close = |out: &mut FlagLayout, from: usize, to: usize| {
            if from >= to {
                return;
            }
            let flagged = (from..to).any(|pc| pir.get(pc).is_some_and(|v| gpr(v) > 0));
            if flagged {
                for g in &mut out.pir_group[from..to] {
                    *g = Some(groups);
                }
                out.pir_instructions += 1;
                groups += 1;
            } else {
                out.empty_groups += 1;
            }
        };
        for pc in 0..n {
            let starts = block_start(pc as u32);
            let full = pc - group_start >= PIR_GROUP as usize;
            if (starts.is_some() && pc > group_start) || full {
                close(&mut out, group_start, pc);
                group_start = pc;
            }
            if let Some(b) = starts {
                let k = pbr.get(b as usize).map_or(0, |v| gpr(v)) as u32;
                let ins = k.div_ceil(PBR_REGISTERS);
                out.pbr_instructions[pc] = u8::try_from(ins).unwrap_or(u8::MAX);
                out.pbr_instructions_static += ins;
            }
        }
        close(&mut out, group_start, n);
        out
    }

    /// Static code growth: flag instructions over program instructions.
    pub fn code_growth(&self) -> f64 {
        if self.instructions == 0 {
            return 0.0;
        }
        f64::from(self.pir_instructions + self.pbr_instructions_static)
            / f64::from(self.instructions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jeon & Annavaram 2014 §8.4: a 1 KB table (Fermi: 1024 physical registers, 10-bit entries) leaves
    /// 16 of nbody's 41 registers exempt (32 warps), 4 of heartwall's 29 (32 warps) and 2 of
    /// lud's 19 (48 warps) (Table 3 shapes); a shape that fits exempts none.
    #[test]
    fn exempt_counts_of_the_table3_shapes() {
        let bits = entry_bits(1024);
        assert_eq!(bits, 10);
        let count = |regs: u32, warps: u32| {
            // synthetic lifetimes: register r lives r instructions, one write each
            let life: Vec<u32> = (0..regs).collect();
            let writes = vec![1; regs as usize];
            rank_exempt(&life, &writes, warps, bits, Some(1024 * 8))
                .iter()
                .filter(|e| **e)
                .count()
        };
        assert_eq!(count(41, 32), 16, "nbody");
        assert_eq!(count(29, 32), 4, "heartwall");
        assert_eq!(count(19, 48), 2, "lud");
        // fits: matrixMul 14 registers, 32 warps (4480 bits)
        assert_eq!(count(14, 32), 0);
        // unconstrained: nothing
        assert!(rank_exempt(&[5, 4], &[1, 1], 48, 10, None)
            .iter()
            .all(|e| !e));
        // the Fermi maximum of Eq. 1: 48 warps x 63 registers x 10 bits = 3.69 KB (§6.1)
        let kb = table_bits(48, 63, 10) as f64 / 8.0 / 1024.0;
        assert!((kb - 3.69).abs() < 0.005, "{kb}");
    }

    #[test]
    fn ranking_removes_long_lived_first_and_ties_by_writes() {
        // 4 registers, room for 2 (warps 1, 1-bit entries, cap 2 bits)
        let life = [10, 3, 10, 1];
        let writes = [1, 5, 4, 2];
        let ex = rank_exempt(&life, &writes, 1, 1, Some(2));
        // R0 and R2 tie at 10: both go (R2 first: more writes); then 2 remain: fits
        assert_eq!(ex, vec![true, false, true, false]);
        let ex = rank_exempt(&life, &writes, 1, 1, Some(1));
        // then R1 (lifetime 3)
        assert_eq!(ex, vec![true, true, true, false]);
    }

    #[test]
    fn flag_groups_split_blocks_every_18_instructions() {
        // blocks start at 0 and 20; a 40-instruction function; flags at 3, 19, 25
        let n = 40;
        let mut pir = vec![Vec::new(); n];
        pir[3] = vec![ArchReg::R(1)];
        pir[19] = vec![ArchReg::R(2), ArchReg::P(0)];
        pir[25] = vec![ArchReg::R(3)];
        let pbr = vec![Vec::new(), (0..10).map(ArchReg::R).collect::<Vec<_>>()];
        let l = FlagLayout::new(n, &pir, &pbr, |pc| match pc {
            0 => Some(0),
            20 => Some(1),
            _ => None,
        });
        // groups: [0,18) flagged, [18,20) flagged, [20,38) flagged, [38,40) empty
        assert_eq!(l.pir_instructions, 3);
        assert_eq!(l.empty_groups, 1);
        assert_eq!(l.pir_group[0], Some(0));
        assert_eq!(l.pir_group[17], Some(0));
        assert_eq!(l.pir_group[18], Some(1));
        assert_eq!(l.pir_group[20], Some(2));
        assert_eq!(l.pir_group[39], None);
        // 10 registers at block 1: two pbr instructions
        assert_eq!(l.pbr_instructions[20], 2);
        assert_eq!(l.pbr_instructions_static, 2);
        assert!((l.code_growth() - 5.0 / 40.0).abs() < 1e-12);
    }
}
