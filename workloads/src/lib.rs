//! regwatt-workloads
