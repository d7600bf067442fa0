//! Launch specs (TOML experiment descriptions), host-side buffers, `.npy` I/O and kernel
//! argument conversion. See `README.md` in this folder for the API summary.

mod args;
mod constants;
mod data;
mod files;
mod init;
mod npy;
mod spec;
mod template;
pub mod tomlpos;

pub use args::{
    build_params, ArgError, LaunchArg, ParamBlock, ParamDesc, StructField, STRUCT_FIELD_TYPES,
};
pub use data::{DType, HostData, ALL_DTYPES};
pub use files::{DirFiles, MemFiles, SpecFiles};
pub use init::{uniform_int, unit_f32, unit_f64, InitSpec, Num, SplitMix64};
pub use npy::{
    dump_dir, is_safe_name, npy_descr, read_npy, read_npy_file, write_npy, write_npy_file,
    write_npy_to, NpyError, NpyFileError, NPY_MAGIC,
};
pub use spec::{
    checks_to_toml, is_buffer_name, is_ptx_identifier, BufferSpec, CheckSpec, GivenRegisters,
    KernelLaunch, LaunchSpec, Location, SpecError, MAX_BLOCK_DIM, MAX_BLOCK_THREADS,
    MAX_BUFFER_BYTES, MAX_DYNAMIC_SHARED_BYTES, MAX_GIVEN_REGISTERS, MAX_GRID_DIM,
};
pub use template::{spec_template, TemplateError, TEMPLATE_BLOCK, TEMPLATE_LEN};
