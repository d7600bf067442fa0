//! Pieces more than one design uses: the cross-SM store log and hardware-inventory helpers.
//! (The banked register rows every design builds on are the baseline's [`crate::baseline`],
//! and row admission is [`crate::baseline::RowAdmission`].)

pub mod hardware;
pub mod store_log;

pub use store_log::StoreLog;
