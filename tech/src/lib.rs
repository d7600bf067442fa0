//! regwatt-tech: typed physical units, technology files, node resolution.
//!
//! - [`units`]: SI newtypes (`Energy`, `Power`, `Area`, ...) and a unit-string parser.
//! - [`tech`]: CACTI-7-style technology parameters per node (`Technology::for_node`).

pub mod tech;
pub mod units;

#[cfg(test)]
mod fin12;

pub use tech::{
    Cell, Device, DeviceFlavor, DramCell, Fin, SenseAmp, TechError, Technology, Wire, WireLayer,
    Wires,
};
