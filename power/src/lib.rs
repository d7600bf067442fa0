//! regwatt-power
