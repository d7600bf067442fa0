//! `histogram`: 256-bin histogram of n bytes (launch argument 4; ci: 65536) added onto the
//! initial `bins`, and the byte minimum / maximum folded into the initial `vmin` / `vmax`.
//! Integer atomics: exact, whatever the grid (the kernel's loop is grid-stride).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// Adds the byte counts of `data` to `bins`.
pub fn histogram(data: &[u8], bins: &mut [u32]) {
    for &v in data {
        bins[v as usize] = bins[v as usize].wrapping_add(1);
    }
}

/// Reference for every size: `data` holds n bytes, n the launch's argument 4.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let n = LaunchArgs::new("histogram", spec).int(0, 4, 1)?;
    let i = Inputs::new("histogram", inputs);
    let data = i.u8("data", n)?;
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

    #[test]
    fn length_comes_from_the_spec() {
        let mut spec = crate::refs::ci_spec("histogram");
        spec.launches[0].args[4] = regwatt_sim::launch::LaunchArg::Int(3);
        let b = |data: Vec<u8>| {
            crate::refs::buffers([
                ("data", HostData::U8(data)),
                ("bins", HostData::U32(vec![0; 256])),
                ("vmin", HostData::U32(vec![255])),
                ("vmax", HostData::U32(vec![0])),
            ])
        };
        let out = reference(&b(vec![7, 9, 7]), &spec).unwrap();
        let HostData::U32(bins) = &out["bins"] else {
            panic!("bins is u32")
        };
        assert_eq!((bins[7], bins[9], bins.iter().sum::<u32>()), (2, 1, 3));
        assert_eq!(
            (&out["vmin"], &out["vmax"]),
            (&HostData::U32(vec![7]), &HostData::U32(vec![9]))
        );
        assert!(matches!(
            reference(&b(vec![7; 4]), &spec),
            Err(WorkloadError::InputLength {
                expected: 3,
                actual: 4,
                ..
            })
        ));
    }
}
