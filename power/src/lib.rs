//! regwatt-power: CACTI-style analytic estimators (SRAM arrays with organisation search,
//! calibration against CACTI 7 runs).

pub mod arbiter;
pub mod bus;
pub mod cacti_cfg;
pub mod calibrate;
pub mod cam;
pub mod crossbar;
pub mod drowsy;
pub mod flipflop;
pub mod gating;
pub mod sram;
