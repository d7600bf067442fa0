//! The launch-spec fixture `testdata/launch/conv.toml` and its kernel's parameter list, shared
//! by `tests/suite/launch_spec.rs` and `tests/suite/mem_model.rs`.

use std::path::Path;

use regwatt_sim::launch::ParamDesc;

/// `sim/testdata/launch`: `conv.toml`, `conv.ptx`, `w.npy`.
pub fn testdata() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/launch"))
}

/// The parameters of `.entry conv3x3(.param .u64 img, .param .u64 w, .param .u64 out,
/// .param .u32 W, .param .u32 H)` in `conv.ptx`, each aligned to its size.
pub fn conv3x3_params() -> [ParamDesc<'static>; 5] {
    let p = |name, ty, size| ParamDesc {
        name,
        ty,
        size,
        align: size,
    };
    [
        p("img", ".u64", 8),
        p("w", ".u64", 8),
        p("out", ".u64", 8),
        p("W", ".u32", 4),
        p("H", ".u32", 4),
    ]
}
