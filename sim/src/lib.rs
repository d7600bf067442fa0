//! regwatt-sim: PTX front-end, functional SIMT executor, cycle-level SM timing model.

pub mod analysis;
pub mod barrier;
pub mod exec;
pub mod footprint;
pub mod ir;
pub mod launch;
pub mod mem;
pub mod ptx;
pub mod timing;
