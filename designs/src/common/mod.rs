//! Pieces more than one design uses: the cross-SM store log, hardware-inventory helpers and
//! the pipeline check of the designs that merge the L1D into the register file.
//! (The banked register rows every design builds on are the baseline's [`crate::baseline`],
//! and row admission is [`crate::baseline::RowAdmission`].)

pub mod hardware;
pub mod store_log;

pub use store_log::StoreLog;

/// The check of a design that holds the SM's L1D in its one register file (cerf, unified:
/// Jing et al. 2016 Table I and §V-A, a GTX 480 SM): the GPU has one register file per SM, not
/// one per sub-core.
pub fn one_register_file_per_sm(
    cfg: &crate::config::ResolvedConfig,
    design: &str,
    what: &str,
    section: &str,
) -> Result<(), (&'static str, String)> {
    let s = &cfg.gpu.sm;
    if s.sub_cores != 1 {
        return Err((
            "design",
            format!(
                "`{design}` {what} (Jing et al. 2016 {section}, a GTX 480 SM); this GPU has {} sub-cores, each with its own register file (use gtx480)",
                s.sub_cores
            ),
        ));
    }
    Ok(())
}
