//! `histogram`: 256-bin histogram of 65536 bytes added onto the initial `bins`, and the byte
//! minimum / maximum folded into the initial `vmin` / `vmax`. Integer atomics: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Input bytes.
pub const N: usize = 65536;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// Adds the byte counts of `data` to `bins`.
pub fn histogram(data: &[u8], bins: &mut [u32]) {
    for &v in data {
        bins[v as usize] = bins[v as usize].wrapping_add(1);
    }
}

/// Reference for the spec in `histogram.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("histogram", inputs);
    let data = i.u8("data", N)?;
    let mut bins = i.u32("bins", 256)?.to_vec();
    histogram(data, &mut bins);
    let mut vmin = i.u32("vmin", 1)?[0];
    let mut vmax = i.u32("vmax", 1)?[0];
    // Each block folds min(255, its bytes) / max(0, its bytes) into the globals.
    vmin = vmin.min(data.iter().map(|&b| b as u32).min().unwrap_or(255).min(255));
    vmax = vmax.max(data.iter().map(|&b| b as u32).max().unwrap_or(0));
    Ok(outputs([
        ("bins", HostData::U32(bins)),
        ("vmin", HostData::U32(vec![vmin])),
        ("vmax", HostData::U32(vec![vmax])),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_to_existing_bins() {
        let mut bins = vec![0u32; 256];
        bins[3] = 10;
        histogram(&[3, 3, 0, 255], &mut bins);
        assert_eq!((bins[0], bins[3], bins[255], bins[1]), (1, 12, 1, 0));
    }
}
