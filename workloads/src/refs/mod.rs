//! Reference implementations, one module per workload.
//!
//! Each module has `reference(&Buffers, &LaunchSpec) -> Result<Buffers, WorkloadError>` and `TOLERANCES`.
//! References implement the algorithm with plain loops; where the kernel's floating-point
//! evaluation order is fixed by its source (explicit `fmaf`, a reduction tree, a warp-shuffle
//! butterfly) the reference evaluates in the same order so the tolerance can stay tight.

use std::collections::BTreeMap;

use regwatt_sim::launch::{DType, HostData, LaunchSpec};

use crate::{Buffers, WorkloadError};

pub mod alexnet;
pub mod atax;
pub mod backprop;
pub mod bfs;
pub mod bicg;
pub mod black_scholes;
pub mod cifarnet;
pub mod cnn;
pub mod collatz;
pub mod conv;
pub mod conv_large;
pub mod conv_mnist;
pub mod dct8x8;
pub mod fc;
pub mod gaussian;
pub mod gemm;
pub mod histogram;
pub mod hotspot;
pub mod kmeans;
pub mod lud;
pub mod mandelbrot;
pub mod matmul;
pub mod matmul_naive;
pub mod matmul_tiled;
pub mod maxpool;
pub mod mvt;
pub mod nbody;
pub mod nn;
pub mod nw;
pub mod pathfinder;
pub mod polybench;
pub mod reduction;
pub mod scan;
pub mod srad;
pub mod stream_triad;
pub mod syrk;
pub mod transpose;
pub mod vector_add;

/// Typed, length-checked access to a workload's input buffers.
pub(crate) struct Inputs<'a> {
    workload: &'static str,
    map: &'a Buffers,
}

macro_rules! getter {
    ($fn:ident, $variant:ident, $t:ty) => {
        /// The buffer `name`, which must hold exactly `len` elements of this type.
        pub(crate) fn $fn(&self, name: &str, len: usize) -> Result<&'a [$t], WorkloadError> {
            match self.get(name)? {
                HostData::$variant(v) if v.len() == len => Ok(v),
                HostData::$variant(v) => Err(WorkloadError::InputLength {
                    workload: self.workload,
                    buffer: name.to_string(),
                    expected: len,
                    actual: v.len(),
                }),
                other => Err(WorkloadError::InputType {
                    workload: self.workload,
                    buffer: name.to_string(),
                    expected: DType::$variant,
                    actual: other.dtype(),
                }),
            }
        }
    };
}

impl<'a> Inputs<'a> {
    pub(crate) fn new(workload: &'static str, map: &'a Buffers) -> Self {
        Inputs { workload, map }
    }

    fn get(&self, name: &str) -> Result<&'a HostData, WorkloadError> {
        self.map
            .get(name)
            .ok_or_else(|| WorkloadError::MissingInput {
                workload: self.workload,
                buffer: name.to_string(),
            })
    }

    /// The length of buffer `name`, whatever its type.
    pub(crate) fn len_of(&self, name: &str) -> Result<usize, WorkloadError> {
        Ok(self.get(name)?.len())
    }

    /// An `InvalidInput` error for this workload.
    pub(crate) fn invalid(
        &self,
        buffer: &str,
        index: usize,
        reason: impl Into<String>,
    ) -> WorkloadError {
        WorkloadError::InvalidInput {
            workload: self.workload,
            buffer: buffer.to_string(),
            index,
            reason: reason.into(),
        }
    }

    getter!(f32, F32, f32);
    getter!(i32, I32, i32);
    getter!(u8, U8, u8);
    getter!(u32, U32, u32);
    getter!(u64, U64, u64);
}

/// A [`WorkloadError::Launch`] of `workload`'s launch `launch`.
pub(crate) fn shape_error(
    workload: &'static str,
    launch: usize,
    reason: impl Into<String>,
) -> WorkloadError {
    WorkloadError::Launch {
        workload,
        launch,
        reason: reason.into(),
    }
}

/// Checks that `spec` launches exactly `kernels`, in that order (the structure a reference
/// that reads its sizes launch by launch follows).
pub(crate) fn expect_kernels(
    workload: &'static str,
    spec: &LaunchSpec,
    kernels: &[&str],
) -> Result<(), WorkloadError> {
    for (k, want) in kernels.iter().enumerate() {
        match spec.launches.get(k) {
            Some(l) if l.kernel == *want => {}
            Some(l) => {
                return Err(shape_error(
                    workload,
                    k,
                    format!("launches kernel {}, expected {want}", l.kernel),
                ))
            }
            None => {
                return Err(shape_error(
                    workload,
                    k,
                    format!(
                        "missing: the spec has {} launches, the workload {} ({})",
                        spec.launches.len(),
                        kernels.len(),
                        kernels.join(", ")
                    ),
                ))
            }
        }
    }
    if spec.launches.len() > kernels.len() {
        return Err(shape_error(
            workload,
            kernels.len(),
            format!(
                "extra: the spec has {} launches, the workload {} ({})",
                spec.launches.len(),
                kernels.len(),
                kernels.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Builds an output map.
pub(crate) fn outputs<const N: usize>(items: [(&str, HostData); N]) -> Buffers {
    items
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect::<BTreeMap<_, _>>()
}

/// Test helper: a buffer map from (name, data) pairs.
#[cfg(test)]
pub(crate) fn buffers<const N: usize>(items: [(&str, HostData); N]) -> Buffers {
    outputs(items)
}

/// The `ci` launch spec of workload `name` (tests: the spec a reference reads its sizes from).
#[cfg(test)]
pub(crate) fn ci_spec(name: &str) -> regwatt_sim::launch::LaunchSpec {
    crate::get(name)
        .and_then(|w| w.load_spec(crate::Size::Ci))
        .unwrap_or_else(|e| panic!("{e}"))
}
