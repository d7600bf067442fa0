//! Hardware helpers shared by the designs' inventories.

use regwatt_power::sram::SramSpec;
use regwatt_tech::DeviceFlavor;

use crate::config::ResolvedConfig;

/// An itrs-hp SRAM of `bytes` in rows of `block` bytes at the configuration's node,
/// temperature and ECC choice (the tables of the designs beside the register file).
pub(crate) fn sram(cfg: &ResolvedConfig, bytes: u64, block: u32) -> SramSpec {
    let mut s = SramSpec::ram(bytes, block, cfg.power.node.nm());
    s.ecc = cfg.rf.ecc;
    s.temperature = cfg.power.temperature;
    s.cell_flavor = DeviceFlavor::ItrsHp;
    s.peri_flavor = DeviceFlavor::ItrsHp;
    s
}

/// Bits of a physical register id on an SM of `rows` warp registers.
pub fn row_id_bits(rows: u32) -> u32 {
    (32 - rows.max(2).saturating_sub(1).leading_zeros()).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ceil(log2(rows)) bits name one of `rows` registers; at least one bit.
    #[test]
    fn row_id_bits_are_the_ceiling_log2() {
        assert_eq!(row_id_bits(1024), 10);
        assert_eq!(row_id_bits(1025), 11);
        assert_eq!(row_id_bits(2), 1);
        assert_eq!(row_id_bits(1), 1);
    }
}
