//! regwatt-sim: PTX front-end, functional SIMT executor, cycle-level SM timing model.

pub mod launch;
