//! Launch specs (TOML experiment descriptions) and host-side buffers.

mod data;

pub use data::{DType, HostData};
