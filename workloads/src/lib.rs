//! regwatt-workloads: the workload suite every regwatt measurement runs on.
//!
//! Each workload is one folder `workloads/<name>/` holding a CUDA source (`<name>.cu`), the PTX
//! NVRTC generated from it (`<name>.ptx`, see `workloads/gen_ptx.py`), a launch spec
//! (`<name>.toml`, the format read by [`regwatt_sim::launch::LaunchSpec`]) and any `.npy` inputs.
//! All of them are embedded in this crate, so `regwatt --workload NAME` needs no files on disk:
//! [`Workload::load_spec`] parses the embedded spec against an in-memory file set.
//!
//! Every workload also has a Rust reference implementation ([`Workload::reference`]) that
//! computes the final contents of each output buffer from the initial contents of all buffers,
//! and per-buffer tolerances ([`Workload::tolerance`]); [`check`] compares simulated buffers with
//! the reference and reports the first mismatch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regwatt_sim::launch::{
    checks_to_toml, write_npy, CheckSpec, HostData, LaunchArg, LaunchSpec, Location, MemFiles,
};

mod check;
mod error;
mod refs;

pub use check::{check, check_buffer, check_spec, Mismatch, Tolerance};
pub use error::WorkloadError;
/// The seed-001 NN workloads' network (`mnist29` .. `cifar32g_lskip`): layer references and
/// the `_lskip` versions' error against the full network ([`nn::skip_mse`]).
pub use refs::nn;

/// Buffers by name, as the launch loader produces and the simulator dumps them.
pub type Buffers = BTreeMap<String, HostData>;

/// A reference implementation: the launch spec (its launches give the problem size) and the
/// initial contents of every buffer in, expected final contents of every output buffer out.
pub type ReferenceFn = fn(&Buffers, &LaunchSpec) -> Result<Buffers, WorkloadError>;

/// Input size of a built-in workload (`--size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Size {
    /// Small inputs for tests and CI: seconds for the whole suite.
    Ci,
    /// The smallest inputs that keep every SM of both presets busy (at least two full waves
    /// of CTAs per SM and a million warp instructions, where the algorithm allows).
    Default,
    /// The inputs the benchmark suites ship as standard (cited in each spec's header).
    Paper,
}

impl Size {
    /// Every size, smallest first.
    pub const ALL: [Size; 3] = [Size::Ci, Size::Default, Size::Paper];

    /// The size's name (`ci`, `default`, `paper`).
    pub fn name(self) -> &'static str {
        match self {
            Size::Ci => "ci",
            Size::Default => "default",
            Size::Paper => "paper",
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Size {
    type Err = WorkloadError;
    fn from_str(s: &str) -> Result<Size, WorkloadError> {
        Size::ALL
            .into_iter()
            .find(|z| z.name() == s.trim())
            .ok_or_else(|| WorkloadError::UnknownSize(s.to_string()))
    }
}

/// The scalar launch arguments a reference reads its problem size from.
pub struct LaunchArgs<'a> {
    workload: &'static str,
    spec: &'a LaunchSpec,
}

impl<'a> LaunchArgs<'a> {
    /// The arguments of `spec`, for `workload`'s messages.
    pub fn new(workload: &'static str, spec: &'a LaunchSpec) -> LaunchArgs<'a> {
        LaunchArgs { workload, spec }
    }

    /// An error about launch `launch`'s argument `arg`.
    fn arg_error(&self, launch: usize, arg: usize, reason: String) -> WorkloadError {
        WorkloadError::LaunchArg {
            workload: self.workload,
            launch,
            arg,
            reason,
        }
    }

    /// Launch `launch`'s argument `arg`, or an error naming what the spec lacks.
    fn arg(&self, launch: usize, arg: usize) -> Result<&'a LaunchArg, WorkloadError> {
        let l = self.spec.launches.get(launch).ok_or_else(|| {
            self.arg_error(
                launch,
                arg,
                format!("the spec has {} launches", self.spec.launches.len()),
            )
        })?;
        l.args.get(arg).ok_or_else(|| {
            self.arg_error(
                launch,
                arg,
                format!("launch has {} arguments", l.args.len()),
            )
        })
    }

    /// Launch `launch`'s argument `arg` as a whole number of at least `min`.
    pub fn int(&self, launch: usize, arg: usize, min: i64) -> Result<usize, WorkloadError> {
        let err = |reason: String| self.arg_error(launch, arg, reason);
        match self.arg(launch, arg)? {
            LaunchArg::Int(v) if *v >= min => {
                usize::try_from(*v).map_err(|_| err(format!("{v} is out of range")))
            }
            LaunchArg::Int(v) => Err(err(format!("{v} is below {min}"))),
            _ => Err(err("not an integer".into())),
        }
    }

    /// Launch `launch`'s argument `arg` as a number.
    pub fn float(&self, launch: usize, arg: usize) -> Result<f64, WorkloadError> {
        match self.arg(launch, arg)? {
            LaunchArg::Int(v) => Ok(*v as f64),
            LaunchArg::Float(v) => Ok(*v),
            _ => Err(self.arg_error(launch, arg, "not a number".into())),
        }
    }

    /// Launch `launch`'s argument `arg` as a buffer name.
    pub fn buffer(&self, launch: usize, arg: usize) -> Result<&'a str, WorkloadError> {
        match self.arg(launch, arg)? {
            LaunchArg::Buffer(name) => Ok(name),
            _ => Err(self.arg_error(launch, arg, "not a buffer name".into())),
        }
    }

    /// Launch `launch`'s kernel, which must be `kernel`.
    pub fn expect_kernel(&self, launch: usize, kernel: &str) -> Result<(), WorkloadError> {
        match self.spec.launches.get(launch) {
            Some(l) if l.kernel == kernel => Ok(()),
            Some(l) => Err(self.launch_error(
                launch,
                format!("launches kernel {}, expected {kernel}", l.kernel),
            )),
            None => Err(self.launch_error(
                launch,
                format!(
                    "missing (the spec has {} launches; expected {kernel} here)",
                    self.spec.launches.len()
                ),
            )),
        }
    }

    /// A [`WorkloadError::Launch`] about launch `launch` (a spec whose launch sequence does not
    /// compute what the reference computes).
    pub fn launch_error(&self, launch: usize, reason: impl Into<String>) -> WorkloadError {
        WorkloadError::Launch {
            workload: self.workload,
            launch,
            reason: reason.into(),
        }
    }

    /// The number of launches.
    pub fn launches(&self) -> usize {
        self.spec.launches.len()
    }

    /// Launch `launch`'s grid and block.
    pub fn dims(&self, launch: usize) -> Option<([u32; 3], [u32; 3])> {
        self.spec.launches.get(launch).map(|l| (l.grid, l.block))
    }
}

/// A workload's launch spec at one size.
#[derive(Clone, Copy, Debug)]
pub struct SizedSpec {
    /// The size.
    pub size: Size,
    /// The spec's TOML text (`<name>.toml` at `ci`, `<name>.<size>.toml` otherwise).
    pub toml: &'static str,
}

/// One built-in workload.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// Name (also the folder and file stem), e.g. `"vectorAdd"`.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// True for workloads built around data-dependent control flow (heavy warp divergence).
    pub divergent: bool,
    /// The launch specs by size, `ci` first (`<name>.toml`, `<name>.default.toml`,
    /// `<name>.paper.toml`).
    pub specs: &'static [SizedSpec],
    /// The NVRTC-generated PTX (`<name>.ptx`).
    pub ptx: &'static str,
    /// The CUDA source the PTX was generated from (`<name>.cu`).
    pub cuda_source: &'static str,
    /// Further files the spec names (e.g. `.npy` inputs), as (path relative to the spec, bytes).
    pub data_files: &'static [(&'static str, &'static [u8])],
    /// Per-output-buffer tolerances; buffers not listed compare exactly.
    pub tolerances: &'static [(&'static str, Tolerance)],
    reference_fn: ReferenceFn,
}

impl Workload {
    /// File name of the spec at `size`: `<name>.toml` at `ci`, `<name>.<size>.toml` otherwise.
    pub fn spec_file_name(&self, size: Size) -> String {
        match size {
            Size::Ci => format!("{}.toml", self.name),
            s => format!("{}.{s}.toml", self.name),
        }
    }

    /// The sizes the workload has, smallest first.
    pub fn sizes(&self) -> Vec<Size> {
        self.specs.iter().map(|s| s.size).collect()
    }

    /// The spec text at `size`; an error naming the sizes the workload has.
    pub fn spec_toml(&self, size: Size) -> Result<&'static str, WorkloadError> {
        self.specs
            .iter()
            .find(|s| s.size == size)
            .map(|s| s.toml)
            .ok_or_else(|| WorkloadError::NoSize {
                workload: self.name,
                size: size.name(),
                available: self
                    .sizes()
                    .iter()
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// File name of the PTX, `<name>.ptx`.
    pub fn ptx_file_name(&self) -> String {
        format!("{}.ptx", self.name)
    }

    /// How the spec is named in messages: `builtin:<name>/<name>[.<size>].toml`.
    pub fn spec_display_name(&self, size: Size) -> String {
        format!("builtin:{}/{}", self.name, self.spec_file_name(size))
    }

    /// The embedded bytes of a file the spec names (PTX, `.npy`, the spec itself), by the path
    /// written in the spec (a leading `./` is ignored).
    pub fn file(&self, path: &str) -> Option<&'static [u8]> {
        let p = path.strip_prefix("./").unwrap_or(path);
        if p == self.ptx_file_name() {
            return Some(self.ptx.as_bytes());
        }
        if let Some(s) = self.specs.iter().find(|s| p == self.spec_file_name(s.size)) {
            return Some(s.toml.as_bytes());
        }
        if p == format!("{}.cu", self.name) {
            return Some(self.cuda_source.as_bytes());
        }
        self.data_files
            .iter()
            .find(|(n, _)| *n == p)
            .map(|(_, b)| *b)
    }

    /// The embedded files as an in-memory directory for [`LaunchSpec::parse`].
    pub fn spec_files(&self) -> MemFiles {
        let mut files = MemFiles::new(format!("builtin:{}", self.name))
            .with(&self.ptx_file_name(), self.ptx.as_bytes())
            .with(&format!("{}.cu", self.name), self.cuda_source.as_bytes());
        for (path, bytes) in self.data_files {
            files.insert(path, *bytes);
        }
        files
    }

    /// Parses the embedded launch spec at `size` (PTX and `.npy` files resolved from the
    /// embedded set).
    pub fn load_spec(&self, size: Size) -> Result<LaunchSpec, WorkloadError> {
        LaunchSpec::parse(
            &self.spec_display_name(size),
            self.spec_toml(size)?,
            &self.spec_files(),
        )
        .map_err(|source| WorkloadError::Spec {
            workload: self.name,
            source,
        })
    }

    /// Expected final contents of every output buffer, given the launch spec and the initial
    /// contents of all buffers (e.g. [`LaunchSpec::initial_buffers`]).
    pub fn reference(&self, inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
        (self.reference_fn)(inputs, spec)
    }

    /// Expected final contents of *every* buffer: the reference's outputs, and every other
    /// buffer unchanged from `initial` (a stray store into an input buffer is a
    /// wrong result too). Compare it with the simulated buffers with [`check`].
    pub fn expected_final(
        &self,
        initial: &Buffers,
        spec: &LaunchSpec,
    ) -> Result<Buffers, WorkloadError> {
        let mut out = initial.clone();
        out.extend(self.reference(initial, spec)?);
        Ok(out)
    }

    /// Loads the embedded spec at `size`, generates its initial buffers and runs the
    /// reference on them.
    pub fn expected_outputs(&self, size: Size) -> Result<Buffers, WorkloadError> {
        let spec = self.load_spec(size)?;
        self.reference(&spec.initial_buffers(), &spec)
    }

    /// The tolerance for an output buffer ([`Tolerance::Exact`] unless listed).
    pub fn tolerance(&self, buffer: &str) -> Tolerance {
        self.tolerances
            .iter()
            .find(|(n, _)| *n == buffer)
            .map(|(_, t)| *t)
            .unwrap_or(Tolerance::Exact)
    }

    /// The workload's files at `size` as (path relative to the spec's directory, bytes): the
    /// spec, the PTX, the CUDA source and the data files, in that order.
    pub fn files(&self, size: Size) -> Result<Vec<(String, &'static [u8])>, WorkloadError> {
        let mut v = vec![
            (self.spec_file_name(size), self.spec_toml(size)?.as_bytes()),
            (self.ptx_file_name(), self.ptx.as_bytes()),
            (format!("{}.cu", self.name), self.cuda_source.as_bytes()),
        ];
        v.extend(self.data_files.iter().map(|(p, b)| (p.to_string(), *b)));
        Ok(v)
    }

    /// Writes the spec at `size`, PTX, CUDA source and data files into `dir` (created if
    /// needed) and returns the path of the written spec.
    pub fn write_to(&self, dir: &Path, size: Size) -> Result<PathBuf, WorkloadError> {
        std::fs::create_dir_all(dir).map_err(|source| WorkloadError::Write {
            path: dir.display().to_string(),
            source,
        })?;
        for (path, bytes) in self.files(size)? {
            let path = dir.join(path);
            std::fs::write(&path, bytes).map_err(|source| WorkloadError::Write {
                path: path.display().to_string(),
                source,
            })?;
        }
        Ok(dir.join(self.spec_file_name(size)))
    }

    /// What `regwatt workload export` writes, as (path relative to the export directory,
    /// bytes): [`Workload::files`] with a `[check]` table appended to the spec, and
    /// `expected/<buffer>.npy` for every buffer: its final contents by the Rust reference
    /// ([`Workload::expected_final`]: outputs computed, inputs unchanged). The table gives each
    /// buffer the workload's tolerance ([`Workload::tolerance`]), so that running the exported
    /// spec checks it as `--workload NAME` does.
    pub fn export_files(&self, size: Size) -> Result<Vec<(String, Vec<u8>)>, WorkloadError> {
        let spec = self.load_spec(size)?;
        let expected = self.expected_final(&spec.initial_buffers(), &spec)?;
        let mut checks = BTreeMap::new();
        let mut out = Vec::new();
        for (name, data) in expected {
            let npy = format!("expected/{name}.npy");
            let (abs, rel) = match self.tolerance(&name) {
                Tolerance::Float { abs, rel } if data.dtype().is_float() => (abs, rel),
                _ => (0.0, 0.0),
            };
            out.push((npy.clone(), write_npy(&data)));
            let at = Location::default();
            let check = CheckSpec {
                npy,
                expected: data,
                abs,
                rel,
                at,
            };
            checks.insert(name, check);
        }
        let spec_text = format!(
            "{}\n\n# Written by `regwatt workload export {name} --size {size}`: every buffer's final\n\
             # contents by the workload's Rust reference (inputs unchanged), with the tolerances of\n\
             # `regwatt run --workload {name}` (abs = rel = 0: exact). `regwatt exec` and `regwatt run`\n\
             # fail when a buffer differs (sim/src/launch/README.md, \"Checks\").\n{}",
            self.spec_toml(size)?.trim_end(),
            checks_to_toml(&checks),
            name = self.name,
        );
        let mut files: Vec<(String, Vec<u8>)> = self
            .files(size)?
            .into_iter()
            .map(|(p, b)| (p, b.to_vec()))
            .collect();
        files[0].1 = spec_text.into_bytes();
        files.extend(out);
        Ok(files)
    }
}

/// The spec of a size other than `ci`: `<name>/<name>.<size>.toml`.
macro_rules! sized_spec {
    ($name:literal, default) => {
        SizedSpec {
            size: Size::Default,
            toml: include_str!(concat!("../", $name, "/", $name, ".default.toml")),
        }
    };
    ($name:literal, paper) => {
        SizedSpec {
            size: Size::Paper,
            toml: include_str!(concat!("../", $name, "/", $name, ".paper.toml")),
        }
    };
}

macro_rules! workload {
    (@build $name:literal, $module:ident, $reference:ident, $div:expr, $summary:literal, [$($f:literal),*], [$($size:ident),*]) => {
        Workload {
            name: $name,
            summary: $summary,
            divergent: $div,
            specs: &[
                SizedSpec {
                    size: Size::Ci,
                    toml: include_str!(concat!("../", $name, "/", $name, ".toml")),
                },
                $(sized_spec!($name, $size)),*
            ],
            ptx: include_str!(concat!("../", $name, "/", $name, ".ptx")),
            cuda_source: include_str!(concat!("../", $name, "/", $name, ".cu")),
            data_files: &[$(($f, include_bytes!(concat!("../", $name, "/", $f)))),*],
            tolerances: refs::$module::TOLERANCES,
            reference_fn: refs::$module::$reference,
        }
    };
    // a module with one reference per workload (`refs::nn`): `module::function`
    ($name:literal, $module:ident :: $reference:ident, divergent = $div:expr, $summary:literal $(, sizes = [$($size:ident),*])?) => {
        workload!(@build $name, $module, $reference, $div, $summary, [], [$($($size),*)?])
    };
    ($name:literal, $module:ident, divergent = $div:expr, $summary:literal $(, data = [$($f:literal),*])? $(, sizes = [$($size:ident),*])?) => {
        workload!(@build $name, $module, reference, $div, $summary, [$($($f),*)?], [$($($size),*)?])
    };
}

static ALL: &[Workload] = &[
    workload!(
        "vectorAdd",
        vector_add,
        divergent = false,
        "c = a + b, one thread per element",
        sizes = [default, paper]
    ),
    workload!(
        "matrixMul_naive",
        matmul_naive,
        divergent = false,
        "n x n SGEMM, one thread per output, global loads",
        sizes = [default, paper]
    ),
    workload!(
        "matrixMul_tiled",
        matmul_tiled,
        divergent = false,
        "n x n SGEMM with 16x16 shared-memory tiles",
        sizes = [default, paper]
    ),
    workload!(
        "reduction",
        reduction,
        divergent = false,
        "float sum: shared tree + warp shuffle, a chain of launches down to one value",
        sizes = [default, paper]
    ),
    workload!(
        "transpose",
        transpose,
        divergent = false,
        "matrix transpose through a padded 32x33 shared tile",
        sizes = [default, paper]
    ),
    workload!(
        "scan",
        scan,
        divergent = false,
        "block prefix sums (Hillis-Steele inclusive, Blelloch exclusive)",
        sizes = [default, paper]
    ),
    workload!(
        "histogram",
        histogram,
        divergent = false,
        "256-bin byte histogram, shared + global atomics",
        sizes = [default, paper]
    ),
    workload!(
        "BlackScholes",
        black_scholes,
        divergent = false,
        "Black-Scholes option pricing, one option per thread (expf/logf/sqrtf)",
        sizes = [default, paper]
    ),
    workload!(
        "nbody",
        nbody,
        divergent = false,
        "all-pairs n-body step, float4 bodies, rsqrtf",
        sizes = [default, paper]
    ),
    workload!(
        "conv_mnist",
        conv_mnist,
        divergent = false,
        "5x5 CNN conv layers on a 29x29 MNIST input (stride 2 and 1)",
        sizes = [default, paper]
    ),
    workload!(
        "conv_large",
        conv_large,
        divergent = false,
        "5x5 conv on a 73x73 input: shared-tiled stride 1, direct stride 2",
        sizes = [default, paper]
    ),
    workload!(
        "maxpool",
        maxpool,
        divergent = false,
        "2x2/2 max pooling with argmax, one thread per output",
        sizes = [default, paper]
    ),
    workload!(
        "fc",
        fc,
        divergent = false,
        "fully-connected 1250-100-10 layers, warp per output, shuffle reduce",
        sizes = [default, paper]
    ),
    workload!(
        "backprop",
        backprop,
        divergent = false,
        "one training step of a sigmoid layer: shared-tree forward, delta, momentum update",
        sizes = [default, paper]
    ),
    workload!(
        "bfs",
        bfs,
        divergent = true,
        "level-synchronous BFS on a CSR graph, one expand + commit launch pair per level",
        data = [
            "graph_row_ptr.npy",
            "graph_col.npy",
            "graph64k_row_ptr.npy",
            "graph64k_col.npy"
        ],
        sizes = [default, paper]
    ),
    workload!(
        "hotspot",
        hotspot,
        divergent = false,
        "thermal 5-point stencil, one step per launch, shared halo tiles",
        sizes = [default, paper]
    ),
    workload!(
        "pathfinder",
        pathfinder,
        divergent = false,
        "min-cost path DP, ghost-zone rows in shared memory",
        sizes = [default, paper]
    ),
    workload!(
        "kmeans",
        kmeans,
        divergent = false,
        "k-means assignment + update of 4-feature points, atomics",
        sizes = [default, paper]
    ),
    workload!(
        "gaussian",
        gaussian,
        divergent = false,
        "Gaussian elimination, fan1 + fan2 launches per pivot",
        data = ["matrix_s16.npy"],
        sizes = [default, paper]
    ),
    workload!(
        "srad",
        srad,
        divergent = false,
        "speckle-reducing anisotropic diffusion, two launches per iteration",
        sizes = [default, paper]
    ),
    workload!(
        "nw",
        nw,
        divergent = false,
        "Needleman-Wunsch, tiled anti-diagonal wavefront",
        sizes = [default, paper]
    ),
    workload!(
        "collatz",
        collatz,
        divergent = true,
        "Collatz step counts, data-dependent loop",
        sizes = [default, paper]
    ),
    workload!(
        "mandelbrot",
        mandelbrot,
        divergent = true,
        "Mandelbrot escape counts, data-dependent loop",
        sizes = [default, paper]
    ),
    workload!(
        "dct8x8",
        dct8x8,
        divergent = false,
        "forward + inverse 8x8-block DCT of an image, 64-thread CTAs",
        sizes = [default, paper]
    ),
    workload!(
        "lud",
        lud,
        divergent = false,
        "blocked LU decomposition, 16x16 blocks, three launches per block step",
        sizes = [default, paper]
    ),
    workload!(
        "cifarnet",
        cifarnet,
        divergent = false,
        "CifarNet-shaped CNN forward pass (Jeon et al. 2019): 5x5 convs, 3x3/2 pools, LRN, fc; 10 launches",
        sizes = [default, paper]
    ),
    workload!(
        "alexnet",
        alexnet,
        divergent = false,
        "AlexNet-shaped CNN forward pass (Jeon et al. 2019): 11x11/4, 5x5, 3x3 convs, pools, LRN, fc; 13 launches",
        sizes = [default, paper]
    ),
    workload!(
        "atax",
        atax,
        divergent = false,
        "PolyBench/GPU atax: tmp = A x, y = A^T tmp, thread per row / column; 2 launches",
        sizes = [default, paper]
    ),
    workload!(
        "bicg",
        bicg,
        divergent = false,
        "PolyBench/GPU bicg: s = A^T r, q = A p, thread per column / row; 2 launches",
        sizes = [default, paper]
    ),
    workload!(
        "mvt",
        mvt,
        divergent = false,
        "PolyBench/GPU mvt: x1 += A y1, x2 += A^T y2, thread per row / column; 2 launches",
        sizes = [default, paper]
    ),
    workload!(
        "gemm",
        gemm,
        divergent = false,
        "PolyBench/GPU gemm: C = alpha A B + beta C, thread per element, global loads",
        sizes = [default, paper]
    ),
    workload!(
        "syrk",
        syrk,
        divergent = false,
        "PolyBench/GPU syrk: C = alpha A A^T + beta C, thread per element, global loads",
        sizes = [default, paper]
    ),
    workload!(
        "stream_triad",
        stream_triad,
        divergent = false,
        "STREAM triad a = b + s c, grid-stride, 4 elements per thread",
        sizes = [default, paper]
    ),
    workload!(
        "mnist29",
        nn::mnist29,
        divergent = false,
        "seed-001 NN (4-layer CNN), 29x29 MNIST-sized input, baseline: direct global loads, one thread per neuron",
        sizes = [default, paper]
    ),
    workload!(
        "mnist29_smem",
        nn::mnist29_smem,
        divergent = false,
        "seed-001 NN (4-layer CNN), 29x29 MNIST-sized input, conv input maps staged in shared memory",
        sizes = [default, paper]
    ),
    workload!(
        "mnist29_lreg",
        nn::mnist29_lreg,
        divergent = false,
        "seed-001 NN (4-layer CNN), 29x29 MNIST-sized input, L-register version: annotated convs, worker threads for the corner cases",
        sizes = [default, paper]
    ),
    workload!(
        "mnist29_lskip",
        nn::mnist29_lskip,
        divergent = false,
        "seed-001 NN (4-layer CNN), 29x29 MNIST-sized input, L-register version: annotated convs, corner-case threads skipped",
        sizes = [default, paper]
    ),
    workload!(
        "mnist33",
        nn::mnist33,
        divergent = false,
        "seed-001 NN (4-layer CNN), 33x33 MNIST-sized input, baseline: direct global loads, one thread per neuron",
        sizes = [default, paper]
    ),
    workload!(
        "mnist33_smem",
        nn::mnist33_smem,
        divergent = false,
        "seed-001 NN (4-layer CNN), 33x33 MNIST-sized input, conv input maps staged in shared memory",
        sizes = [default, paper]
    ),
    workload!(
        "mnist33_lreg",
        nn::mnist33_lreg,
        divergent = false,
        "seed-001 NN (4-layer CNN), 33x33 MNIST-sized input, L-register version: annotated convs, worker threads for the corner cases",
        sizes = [default, paper]
    ),
    workload!(
        "mnist33_lskip",
        nn::mnist33_lskip,
        divergent = false,
        "seed-001 NN (4-layer CNN), 33x33 MNIST-sized input, L-register version: annotated convs, corner-case threads skipped",
        sizes = [default, paper]
    ),
    workload!(
        "cifar32g",
        nn::cifar32g,
        divergent = false,
        "seed-001 NN (4-layer CNN), 32x32 CIFAR-10-sized grey input, baseline: direct global loads, one thread per neuron",
        sizes = [default, paper]
    ),
    workload!(
        "cifar32g_smem",
        nn::cifar32g_smem,
        divergent = false,
        "seed-001 NN (4-layer CNN), 32x32 CIFAR-10-sized grey input, conv input maps staged in shared memory",
        sizes = [default, paper]
    ),
    workload!(
        "cifar32g_lreg",
        nn::cifar32g_lreg,
        divergent = false,
        "seed-001 NN (4-layer CNN), 32x32 CIFAR-10-sized grey input, L-register version: annotated convs, worker threads for the corner cases",
        sizes = [default, paper]
    ),
    workload!(
        "cifar32g_lskip",
        nn::cifar32g_lskip,
        divergent = false,
        "seed-001 NN (4-layer CNN), 32x32 CIFAR-10-sized grey input, L-register version: annotated convs, corner-case threads skipped",
        sizes = [default, paper]
    ),
];

/// Every built-in workload, in a fixed order.
pub fn all() -> &'static [Workload] {
    ALL
}

/// The workload called `name` (exact, case-sensitive match).
pub fn find(name: &str) -> Option<&'static Workload> {
    ALL.iter().find(|w| w.name == name)
}

/// Like [`find`], but an unknown name is an error listing the available workloads.
pub fn get(name: &str) -> Result<&'static Workload, WorkloadError> {
    find(name).ok_or_else(|| WorkloadError::Unknown {
        name: name.to_string(),
        available: ALL.iter().map(|w| w.name).collect::<Vec<_>>().join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.entry` names of a PTX module with their parameter counts.
    fn entries(ptx: &str) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        let mut rest = ptx;
        while let Some(pos) = rest.find(".entry ") {
            rest = &rest[pos + 7..];
            let name_end = rest.find('(').expect("entry without (");
            let name = rest[..name_end].trim().to_string();
            let close = rest.find(')').expect("entry without )");
            let params = rest[name_end..close].matches(".param").count();
            out.push((name, params));
        }
        out
    }

    #[test]
    fn names_are_unique_and_findable() {
        for (k, w) in all().iter().enumerate() {
            assert!(
                all()[k + 1..].iter().all(|o| o.name != w.name),
                "duplicate {}",
                w.name
            );
            assert_eq!(find(w.name).map(|f| f.name), Some(w.name));
        }
        assert!(find("no_such").is_none());
        assert!(matches!(get("no_such"), Err(WorkloadError::Unknown { .. })));
        assert!(all().len() >= 18);
        assert!(all().iter().filter(|w| w.divergent).count() >= 2);
    }

    #[test]
    fn specs_load_and_launch_existing_kernels_with_matching_arity() {
        for (w, size) in all()
            .iter()
            .flat_map(|w| w.sizes().into_iter().map(move |z| (w, z)))
        {
            let spec = w.load_spec(size).unwrap_or_else(|e| panic!("{e}"));
            let ents = entries(w.ptx);
            assert!(!ents.is_empty(), "{}: no entries", w.name);
            for l in &spec.launches {
                let Some((_, nparams)) = ents.iter().find(|(n, _)| *n == l.kernel) else {
                    panic!("{}: kernel {} not in PTX", w.name, l.kernel)
                };
                assert_eq!(l.args.len(), *nparams, "{}: {} arity", w.name, l.kernel);
            }
            // every kernel of the module is launched at least once
            for (name, _) in &ents {
                assert!(
                    spec.launches.iter().any(|l| &l.kernel == name),
                    "{}: {name} never launched",
                    w.name
                );
            }
        }
    }

    /// `d` with element `i` moved far outside any workload's tolerance (floats: +1 + 2|x|,
    /// or 0 for a NaN; integers: +1, wrapping).
    fn perturbed(d: &HostData, i: usize) -> HostData {
        let mut d = d.clone();
        match &mut d {
            HostData::F32(v) => {
                v[i] = if v[i].is_nan() {
                    0.0
                } else {
                    v[i] + 1.0 + 2.0 * v[i].abs()
                }
            }
            HostData::F64(v) => {
                v[i] = if v[i].is_nan() {
                    0.0
                } else {
                    v[i] + 1.0 + 2.0 * v[i].abs()
                }
            }
            HostData::I8(v) => v[i] = v[i].wrapping_add(1),
            HostData::U8(v) => v[i] = v[i].wrapping_add(1),
            HostData::I16(v) => v[i] = v[i].wrapping_add(1),
            HostData::U16(v) => v[i] = v[i].wrapping_add(1),
            HostData::I32(v) => v[i] = v[i].wrapping_add(1),
            HostData::U32(v) => v[i] = v[i].wrapping_add(1),
            HostData::I64(v) => v[i] = v[i].wrapping_add(1),
            HostData::U64(v) => v[i] = v[i].wrapping_add(1),
        }
        d
    }

    /// A store into a buffer the reference does not write is caught.
    #[test]
    fn check_catches_a_stray_store_into_an_input() {
        let w = find("vectorAdd").unwrap();
        let spec = w.load_spec(Size::Ci).unwrap();
        let init = spec.initial_buffers();
        let expected = w.expected_final(&init, &spec).unwrap();
        assert!(expected.contains_key("a") && expected.contains_key("c"));
        let mut actual = expected.clone();
        actual.insert("a".into(), perturbed(&actual["a"], 7));
        match check(w, &expected, &actual) {
            Err(Mismatch::Value { buffer, index, .. }) => {
                assert_eq!((buffer.as_str(), index), ("a", 7))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn references_cover_spec_buffers_with_matching_shapes() {
        for w in all() {
            let spec = w.load_spec(Size::Ci).unwrap();
            let init = spec.initial_buffers();
            let out = w.reference(&init, &spec).unwrap_or_else(|e| panic!("{e}"));
            assert!(!out.is_empty(), "{}", w.name);
            for (name, data) in &out {
                let b = spec
                    .buffers
                    .get(name)
                    .unwrap_or_else(|| panic!("{}: {name} not a spec buffer", w.name));
                assert_eq!(
                    (data.dtype(), data.len()),
                    (b.dtype, b.len),
                    "{}: {name}",
                    w.name
                );
            }
            for (name, _) in w.tolerances {
                assert!(
                    out.contains_key(*name),
                    "{}: tolerance for non-output {name}",
                    w.name
                );
            }
            // `check` finds a one-element change in every output buffer, in the changed
            // element, whatever the buffer's tolerance
            for (name, data) in &out {
                let i = data.len() / 2;
                let mut bad = out.clone();
                bad.insert(name.clone(), perturbed(data, i));
                match check(w, &out, &bad) {
                    Err(Mismatch::Value {
                        buffer,
                        index,
                        count,
                        ..
                    }) => {
                        assert_eq!((buffer.as_str(), index, count), (name.as_str(), i, 1))
                    }
                    other => panic!("{}: {name}[{i}] changed, check gave {other:?}", w.name),
                }
            }
            let changed = out.iter().any(|(n, d)| init.get(n) != Some(d));
            assert!(
                changed,
                "{}: reference output equals the initial buffers",
                w.name
            );
        }
    }

    #[test]
    fn reference_rejects_missing_inputs() {
        for w in all() {
            let spec = w.load_spec(Size::Ci).unwrap();
            assert!(w.reference(&Buffers::new(), &spec).is_err(), "{}", w.name);
        }
    }

    #[test]
    fn ptxas_table_lists_every_kernel() {
        let csv = include_str!("../ptxas_sm75.csv");
        for w in all() {
            for (name, _) in entries(w.ptx) {
                let row = format!("{},{},", w.name, name);
                assert!(
                    csv.lines().any(|l| l.starts_with(&row)),
                    "ptxas_sm75.csv lacks {row}"
                );
            }
        }
    }

    #[test]
    fn check_detects_a_perturbed_output() {
        let w = find("vectorAdd").unwrap();
        let expected = w.expected_outputs(Size::Ci).unwrap();
        let mut actual = expected.clone();
        if let Some(HostData::F32(c)) = actual.get_mut("c") {
            c[100] += 1e-3;
        }
        match check(w, &expected, &actual) {
            Err(Mismatch::Value {
                buffer,
                index,
                count,
                ..
            }) => assert_eq!((buffer.as_str(), index, count), ("c", 100, 1)),
            other => panic!("{other:?}"),
        }
        actual.remove("c");
        assert!(matches!(
            check(w, &expected, &actual),
            Err(Mismatch::MissingBuffer { .. })
        ));
    }

    #[test]
    fn embedded_files_resolve_and_write_out() {
        let w = find("bfs").unwrap();
        assert_eq!(w.file("bfs.ptx"), Some(w.ptx.as_bytes()));
        assert_eq!(
            w.file("./graph_col.npy").map(|b| &b[..6]),
            Some(&b"\x93NUMPY"[..])
        );
        assert!(w.file("missing.npy").is_none());
        let dir =
            std::env::temp_dir().join(format!("regwatt-workloads-test-{}", std::process::id()));
        let spec_path = w.write_to(&dir, Size::Ci).unwrap();
        let loaded = LaunchSpec::load(&spec_path).unwrap();
        assert_eq!(
            loaded.initial_buffers(),
            w.load_spec(Size::Ci).unwrap().initial_buffers()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every workload's export loads with a `[check]` on every buffer that the
    /// reference's final buffers pass, with the workload's tolerances, and a one-element change
    /// fails; files are listed once.
    #[test]
    fn exports_load_with_checks_that_match_the_builtin_check() {
        for w in all() {
            let files = w
                .export_files(Size::Ci)
                .unwrap_or_else(|e| panic!("{}: {e}", w.name));
            let mut mem = MemFiles::new(format!("export:{}", w.name));
            for (p, b) in &files {
                assert_eq!(files.iter().filter(|(q, _)| q == p).count(), 1, "{p}");
                mem.insert(p, b.clone());
            }
            let text = String::from_utf8(files[0].1.clone()).unwrap();
            let spec = LaunchSpec::parse(&w.spec_file_name(Size::Ci), &text, &mem)
                .unwrap_or_else(|e| panic!("{}: {e}", w.name));
            let expected = w.expected_final(&spec.initial_buffers(), &spec).unwrap();
            assert_eq!(
                spec.checks.keys().collect::<Vec<_>>(),
                spec.buffers.keys().collect::<Vec<_>>(),
                "{}",
                w.name
            );
            for (name, c) in &spec.checks {
                let t = match w.tolerance(name) {
                    Tolerance::Float { abs, rel } => (abs, rel),
                    Tolerance::Exact => (0.0, 0.0),
                };
                assert_eq!((c.abs, c.rel), t, "{}: {name}", w.name);
            }
            assert_eq!(check_spec(&spec, &expected), Ok(()), "{}", w.name);
            let out = w.reference(&spec.initial_buffers(), &spec).unwrap();
            let (name, data) = out.iter().next().unwrap();
            let mut bad = expected.clone();
            bad.insert(name.clone(), perturbed(data, 0));
            assert!(check_spec(&spec, &bad).is_err(), "{}: {name}", w.name);
        }
    }
}
