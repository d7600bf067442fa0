//! Launch-spec loader: one TOML file per experiment (PTX file, device buffers and their
//! initialisers, and one or more kernel launches). See `README.md` beside this file for the
//! format; every error names the file, the `line:col` and the key.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::args::{build_params, LaunchArg, ParamBlock, ParamDesc};
use super::data::{DType, HostData};
use super::files::{DirFiles, SpecFiles};
use super::init::{InitSpec, Num};
use super::npy::read_npy;

/// Largest buffer accepted, in bytes (1 GiB): a sanity bound for a 24 GiB simulation host, far
/// above any workload's needs.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// Largest grid dimensions (x, y, z): CUDA C++ Programming Guide, "Compute Capabilities",
/// Table "Technical Specifications" (compute capability ≥ 3.0).
pub const MAX_GRID_DIM: [u32; 3] = [(1 << 31) - 1, 65535, 65535];
/// Largest block dimensions (x, y, z), same table.
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
/// Largest number of threads per block, same table.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Largest dynamic shared memory per block: 227 KiB, the opt-in maximum of compute capability
/// 9.0 (same table); smaller GPUs are checked by the timing model's own configuration.
pub const MAX_DYNAMIC_SHARED_BYTES: u32 = 227 * 1024;

/// A 1-based `line:col` position in a spec file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
}

/// A launch-spec error; every variant names the file, and all but `Read` the position.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The spec file itself could not be read.
    #[error(transparent)]
    Read(#[from] regwatt_inputs::ReadError),
    /// TOML syntax, unknown key, missing key or wrong value type (message from the `toml` crate,
    /// which names the key).
    #[error("{file}:{line}:{col}: {message}")]
    Syntax {
        file: String,
        line: usize,
        col: usize,
        message: String,
    },
    /// A value that parses but is invalid.
    #[error("{file}:{line}:{col}: {key}: {message}")]
    Invalid {
        file: String,
        line: usize,
        col: usize,
        key: String,
        message: String,
    },
}

/// One device buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// Element type.
    pub dtype: DType,
    /// Number of elements (≥ 1).
    pub len: usize,
    /// Initialiser.
    pub init: InitSpec,
    /// Where the buffer's table is in the spec.
    pub at: Location,
}

impl BufferSpec {
    /// Size in bytes.
    pub fn byte_len(&self) -> usize {
        self.len * self.dtype.size()
    }

    /// The initial contents.
    pub fn initial_data(&self) -> HostData {
        self.init.generate(self.dtype, self.len)
    }
}

/// One `[[launch]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelLaunch {
    /// Kernel (`.entry`) name.
    pub kernel: String,
    /// Grid dimensions in blocks.
    pub grid: [u32; 3],
    /// Block dimensions in threads.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes (`0` when the key is absent).
    pub dynamic_shared_bytes: u32,
    /// Arguments in parameter order.
    pub args: Vec<LaunchArg>,
    /// Position of each argument in the spec.
    pub arg_at: Vec<Location>,
    /// Position of the `kernel` key.
    pub at: Location,
}

impl KernelLaunch {
    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }
}

/// One `[check.<buffer>]` table: what a buffer must hold after the last launch.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// `npy` as written (relative to the spec, or absolute).
    pub npy: String,
    /// The file's contents: the buffer's dtype and length.
    pub expected: HostData,
    /// Absolute allowance (`0` when absent; always `0` for integer buffers).
    pub abs: f64,
    /// Allowance relative to `|expected|` (`0` when absent; always `0` for integer buffers).
    pub rel: f64,
    /// Where the table is in the spec.
    pub at: Location,
}

impl CheckSpec {
    /// True when the buffer must match bit for bit (`abs = rel = 0`; NaN equals NaN and
    /// `+0.0` equals `-0.0`).
    pub fn is_exact(&self) -> bool {
        self.abs == 0.0 && self.rel == 0.0
    }
}

/// A loaded and validated launch spec.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// The spec's name in messages (its path, or e.g. `builtin:conv3x3/spec.toml`).
    pub file: String,
    /// `ptx` as written.
    pub ptx_path: String,
    /// The PTX text it names.
    pub ptx_source: String,
    /// Device buffers by name.
    pub buffers: BTreeMap<String, BufferSpec>,
    /// Launches, run in order.
    pub launches: Vec<KernelLaunch>,
    /// `[check.<buffer>]` tables by buffer name (empty when the spec has none): the expected
    /// contents `regwatt exec` and `regwatt run` compare the buffers with after the last launch.
    pub checks: BTreeMap<String, CheckSpec>,
    /// `[constants.<symbol>]` tables by `.const` variable name (empty when the spec has none):
    /// host data written into the constant bank before the first launch, as
    /// `cudaMemcpyToSymbol` does ([`LaunchSpec::write_constants`]).
    pub constants: BTreeMap<String, BufferSpec>,
    /// The `[registers]` table (empty when the spec has none): registers per thread given
    /// for a kernel, e.g. from `ptxas -v`, used instead of regwatt's estimate
    /// ([`LaunchSpec::given_registers`]).
    pub registers: BTreeMap<String, GivenRegisters>,
}

/// A kernel's register count given by the spec's `[registers]` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GivenRegisters {
    /// Registers per thread.
    pub count: u32,
    /// Where the table gives it.
    pub at: Location,
}

/// Most registers per thread a `[registers]` entry may give: 255, the per-thread limit of
/// compute capabilities 3.5 to 9.0 (CUDA C++ Programming Guide, "Technical Specifications per
/// Compute Capability"), the most `ptxas -v` reports.
pub const MAX_GIVEN_REGISTERS: u32 = 255;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    ptx: Spanned<String>,
    #[serde(default)]
    buffers: BTreeMap<String, Spanned<RawBuffer>>,
    #[serde(default)]
    constants: BTreeMap<String, Spanned<RawBuffer>>,
    launch: Spanned<Vec<Spanned<RawLaunch>>>,
    #[serde(default)]
    check: BTreeMap<String, Spanned<RawCheck>>,
    #[serde(default)]
    registers: BTreeMap<String, Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    npy: Spanned<String>,
    abs: Option<Spanned<f64>>,
    rel: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    dtype: Spanned<String>,
    len: Spanned<i64>,
    init: Spanned<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: Spanned<String>,
    grid: Spanned<Vec<Spanned<i64>>>,
    block: Spanned<Vec<Spanned<i64>>>,
    dynamic_shared_bytes: Option<Spanned<i64>>,
    args: Spanned<Vec<Spanned<toml::Value>>>,
}

/// Error-building context: the file's name and text.
struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    /// Byte offset of the start of each line of `text` (the first is 0), so that
    /// [`Ctx::loc`] is a binary search instead of a count of the newlines before the offset
    /// (which made a spec with thousands of launches quadratic to load).
    line_starts: Vec<usize>,
}

impl<'a> Ctx<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Ctx {
            file,
            text,
            line_starts,
        }
    }

    fn loc(&self, span: &Range<usize>) -> Location {
        let start = span.start.min(self.text.len());
        // the last line starting at or before `start` (line_starts[0] = 0 <= start)
        let line = self.line_starts.partition_point(|&s| s <= start).max(1);
        let line_start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let col = self
            .text
            .get(line_start..start)
            .map_or(0, |s| s.chars().count())
            + 1;
        Location { line, col }
    }

    fn err(&self, span: &Range<usize>, key: &str, message: impl Into<String>) -> SpecError {
        let l = self.loc(span);
        SpecError::Invalid {
            file: self.file.to_string(),
            line: l.line,
            col: l.col,
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// Best-effort dotted key path (`buffers.img.len`, `launch[1].grid`) of the TOML text at byte
/// `offset`, for naming keys in the `toml` crate's type errors: the last table header before the
/// offset plus the key on the offset's line (when that line is `key = value`).
fn key_at(text: &str, offset: usize) -> String {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let mut table = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    // the lines before the offset and the offset's own line (a header there is its table)
    let line_end = text
        .get(offset.min(text.len())..)
        .and_then(|r| r.find('\n'))
        .map_or(text.len(), |i| offset.min(text.len()) + i);
    let upto = text.get(..line_end).unwrap_or(before);
    for line in upto.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let h = h.trim().to_string();
            let n = counts.entry(h.clone()).or_insert(0);
            table = format!("{h}[{n}]");
            *n += 1;
        } else if let Some(h) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            table = h.trim().to_string();
        }
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text
        .get(line_start..)
        .and_then(|r| r.lines().next())
        .unwrap_or("");
    let key = match line.split_once('=') {
        Some((k, _)) if !line.trim_start().starts_with('[') => k.trim().trim_matches('"'),
        _ => "",
    };
    match (table.is_empty(), key.is_empty()) {
        (true, _) => key.to_string(),
        (false, true) => table,
        (false, false) => format!("{table}.{key}"),
    }
}

/// True for a PTX identifier: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`
/// (PTX ISA, "Identifiers").
pub fn is_ptx_identifier(s: &str) -> bool {
    let mut c = s.chars();
    let rest_ok = |r: std::str::Chars<'_>| {
        r.clone()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    match c.next() {
        Some(f) if f.is_ascii_alphabetic() => rest_ok(c),
        Some('_' | '$' | '%') => c.clone().next().is_some() && rest_ok(c),
        _ => false,
    }
}

/// True for a buffer name: `[A-Za-z_][A-Za-z0-9_]*` (also a safe `.npy` file stem).
pub fn is_buffer_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn num_of(v: &toml::Value) -> Option<Num> {
    match v {
        toml::Value::Integer(i) => Some(Num::Int(*i)),
        toml::Value::Float(f) => Some(Num::Float(*f)),
        toml::Value::String(s) => num_of_str(s),
        _ => None,
    }
}

/// An integer written as a string, for values TOML integers (i64) cannot hold: decimal
/// (`"18446744073709551615"`, `"-5"`) or hexadecimal (`"0xFFFF_FFFF_FFFF_FFFF"`, two's
/// complement bits of a 64-bit value). `_` separators are allowed.
fn num_of_str(s: &str) -> Option<Num> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let u = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Ok(i) = t.parse::<i64>() {
        return Some(Num::Int(i));
    } else {
        t.parse::<u64>().ok()?
    };
    Some(i64::try_from(u).map_or(Num::UInt(u), Num::Int))
}

/// The integer value of an integer `Num` (`None` for floats).
fn int_value(n: Num) -> Option<i128> {
    match n {
        Num::Int(i) => Some(i128::from(i)),
        Num::UInt(u) => Some(i128::from(u)),
        Num::Float(_) => None,
    }
}

/// Checks that `n` is a value of `dtype`; returns the reason when it is not.
fn check_fits(dtype: DType, n: Num) -> Result<(), String> {
    match (dtype.int_range(), n) {
        (Some((lo, hi)), Num::UInt(u)) => {
            if i128::from(u) > hi || i128::from(u) < lo {
                Err(format!("{u} does not fit {dtype} (range [{lo}, {hi}])"))
            } else {
                Ok(())
            }
        }
        (None, Num::UInt(u)) => {
            let exact = if dtype == DType::F32 {
                (u as f32) as u128 == u128::from(u)
            } else {
                (u as f64) as u128 == u128::from(u)
            };
            if exact {
                Ok(())
            } else {
                Err(format!("{u} is not exactly representable as {dtype}"))
            }
        }
        (Some((lo, hi)), Num::Int(i)) => {
            if (i as i128) < lo || (i as i128) > hi {
                Err(format!("{i} does not fit {dtype} (range [{lo}, {hi}])"))
            } else {
                Ok(())
            }
        }
        (Some(_), Num::Float(f)) => Err(format!(
            "{f:?} is a float; {dtype} needs an integer literal"
        )),
        (None, Num::Int(i)) => {
            let exact = if dtype == DType::F32 {
                (i as f32) as i128 == i as i128
            } else {
                (i as f64) as i128 == i as i128
            };
            if exact {
                Ok(())
            } else {
                Err(format!("{i} is not exactly representable as {dtype}"))
            }
        }
        (None, Num::Float(f)) => {
            if !f.is_finite() {
                Err(format!("{f} is not finite"))
            } else if dtype == DType::F32 && f.abs() > f32::MAX as f64 {
                Err(format!("{f:e} is outside the f32 range"))
            } else {
                Ok(())
            }
        }
    }
}

impl LaunchSpec {
    /// Loads a spec file; `ptx` and `npy` paths resolve against the file's directory.
    pub fn load(path: &Path) -> Result<LaunchSpec, SpecError> {
        let file = path.display().to_string();
        let text = regwatt_inputs::read_text(path, regwatt_inputs::TEXT_LIMIT)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        LaunchSpec::parse(&file, &text, &DirFiles::new(dir))
    }

    /// Parses spec text named `file` (for messages), reading referenced files through `files`.
    pub fn parse(file: &str, text: &str, files: &dyn SpecFiles) -> Result<LaunchSpec, SpecError> {
        let ctx = Ctx::new(file, text);
        let raw: RawSpec = toml::from_str(text).map_err(|e| {
            let message = regwatt_inputs::excerpt_n(e.message().trim(), 320);
            // a key missing from the top level: its "span" is empty at offset 0 (or the whole
            // document), where nothing is wrong
            if e.span()
                .is_some_and(|s| s.start == 0 && (s.end == 0 || s.end >= text.trim_end().len()))
                && message.starts_with("missing field")
            {
                return SpecError::Syntax {
                    file: file.to_string(),
                    line: 1,
                    col: 1,
                    message: format!("top level: {message}"),
                };
            }
            let span = e.span();
            let l = span.as_ref().map(|s| ctx.loc(s)).unwrap_or_default();
            // The key path from the document's own spans (a missing field's span
            // is its table's header, which belongs to that table and not the one before);
            // the line scan only when the text is not TOML at all
            let key = span
                .map(|s| {
                    super::tomlpos::path_at(text, s.start).unwrap_or_else(|| key_at(text, s.start))
                })
                .unwrap_or_default();
            SpecError::Syntax {
                file: file.to_string(),
                line: l.line,
                col: l.col,
                message: if key.is_empty() {
                    message
                } else {
                    format!("{key}: {message}")
                },
            }
        })?;

        // ptx
        let ptx_path = raw.ptx.get_ref().clone();
        let ptx_bytes = files
            .read(&ptx_path, regwatt_inputs::TEXT_LIMIT)
            .map_err(|e| {
                ctx.err(
                    &raw.ptx.span(),
                    "ptx",
                    format!("cannot read {}: {e}", files.describe(&ptx_path)),
                )
            })?;
        let ptx_source = String::from_utf8(ptx_bytes).map_err(|_| {
            ctx.err(
                &raw.ptx.span(),
                "ptx",
                format!("{} is not UTF-8 text", files.describe(&ptx_path)),
            )
        })?;

        let buffers = data_tables(
            &ctx,
            "buffers",
            &raw.buffers,
            files,
            is_buffer_name,
            "buffer names must match [A-Za-z_][A-Za-z0-9_]*",
        )?;
        // constants: the same tables as buffers, keyed by the PTX symbol
        let constants = data_tables(
            &ctx,
            "constants",
            &raw.constants,
            files,
            is_ptx_identifier,
            "a constant is named by its PTX symbol ([A-Za-z_$%][A-Za-z0-9_$]*)",
        )?;

        // launches
        let mut launches = Vec::new();
        if raw.launch.get_ref().is_empty() {
            return Err(ctx.err(
                &raw.launch.span(),
                "launch",
                "at least one [[launch]] is required",
            ));
        }
        for (i, l) in raw.launch.get_ref().iter().enumerate() {
            launches.push(parse_launch(&ctx, i, l.get_ref(), &buffers)?);
        }

        // given register counts
        let mut registers = BTreeMap::new();
        for (name, n) in &raw.registers {
            let key = format!("registers.{name}");
            if !is_ptx_identifier(name) {
                return Err(ctx.err(
                    &n.span(),
                    &key,
                    "a kernel is named by its PTX entry name ([A-Za-z_$%][A-Za-z0-9_$]*)",
                ));
            }
            let count = u32::try_from(*n.get_ref())
                .ok()
                .filter(|c| (1..=MAX_GIVEN_REGISTERS).contains(c))
                .ok_or_else(|| {
                    ctx.err(
                        &n.span(),
                        &key,
                        format!(
                            "{} registers per thread: give 1..={MAX_GIVEN_REGISTERS} (what `ptxas -v` reports)",
                            n.get_ref()
                        ),
                    )
                })?;
            registers.insert(
                name.clone(),
                GivenRegisters {
                    count,
                    at: ctx.loc(&n.span()),
                },
            );
        }

        // checks
        let mut checks = BTreeMap::new();
        for (name, c) in &raw.check {
            let check = parse_check(&ctx, name, c, &buffers, files)?;
            checks.insert(name.clone(), check);
        }

        Ok(LaunchSpec {
            file: file.to_string(),
            ptx_path,
            ptx_source,
            buffers,
            launches,
            checks,
            constants,
            registers,
        })
    }

    /// The initial contents of every buffer.
    pub fn initial_buffers(&self) -> BTreeMap<String, HostData> {
        self.buffers
            .iter()
            .map(|(n, b)| (n.clone(), b.initial_data()))
            .collect()
    }

    /// Checks that every launch and every `[registers]` entry names one of `kernels` (the
    /// module's `.entry` names).
    pub fn check_kernels(&self, kernels: &[&str]) -> Result<(), SpecError> {
        if let Some((other, g)) = self
            .registers
            .iter()
            .find(|(k, _)| !kernels.contains(&k.as_str()))
        {
            return Err(self.invalid(
                g.at,
                &format!("registers.{other}"),
                format!(
                    "no kernel {other:?} in {} (entries: {})",
                    self.ptx_path,
                    kernels.join(", ")
                ),
            ));
        }
        for (i, l) in self.launches.iter().enumerate() {
            if kernels.is_empty() {
                return Err(self.invalid(
                    l.at,
                    &format!("launch[{i}].kernel"),
                    format!(
                        "no kernel {:?}: {} defines no kernels (no .entry function)",
                        l.kernel, self.ptx_path
                    ),
                ));
            }
            if !kernels.contains(&l.kernel.as_str()) {
                return Err(self.invalid(
                    l.at,
                    &format!("launch[{i}].kernel"),
                    format!(
                        "no kernel {:?} in {} (entries: {})",
                        l.kernel,
                        self.ptx_path,
                        kernels.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The register count the `[registers]` table gives for kernel `name` (`None`: regwatt's
    /// estimate stands), checked against `span`, the registers regwatt's own mapping of the
    /// kernel's values needs: every value must have a register, so a count below it is refused,
    /// naming the entry. Entries for kernels the PTX lacks are refused by
    /// [`Self::check_kernels`].
    pub fn given_registers(&self, name: &str, span: u32) -> Result<Option<u32>, SpecError> {
        let Some(g) = self.registers.get(name) else {
            return Ok(None);
        };
        if g.count < span {
            return Err(self.invalid(
                g.at,
                &format!("registers.{name}"),
                format!(
                    "{} registers per thread is fewer than regwatt's mapping of the kernel's \
                     values needs ({span}: they live in R0..R{}); give at least {span}",
                    g.count,
                    span - 1
                ),
            ));
        }
        Ok(Some(g.count))
    }

    /// Builds the param-space bytes for launch `index` of a kernel with `params`;
    /// `buffer_addr` maps buffer names to device addresses (e.g. `GlobalMemory::address_of`).
    pub fn param_block(
        &self,
        index: usize,
        params: &[ParamDesc<'_>],
        buffer_addr: &dyn Fn(&str) -> Option<u64>,
    ) -> Result<ParamBlock, SpecError> {
        let Some(l) = self.launches.get(index) else {
            return Err(self.invalid(
                Location::default(),
                &format!("launch[{index}]"),
                format!("no such launch ({} defined)", self.launches.len()),
            ));
        };
        build_params(params, &l.args, buffer_addr).map_err(|e| {
            let (at, key) = match &e {
                super::args::ArgError::Bad { index: a, .. } => (
                    l.arg_at.get(*a).copied().unwrap_or(l.at),
                    format!("launch[{index}].args[{a}]"),
                ),
                super::args::ArgError::Extra { index: a, .. } => (
                    l.arg_at.get(*a).copied().unwrap_or(l.at),
                    format!("launch[{index}].args[{a}]"),
                ),
                super::args::ArgError::Missing { .. } => (l.at, format!("launch[{index}].args")),
            };
            self.invalid(at, &key, format!("kernel {}: {e}", l.kernel))
        })
    }

    /// The spec with every default made explicit (`dynamic_shared_bytes`), as TOML text that
    /// parses back to an equal spec with the same files; write it next to results.
    pub fn to_resolved_toml(&self) -> String {
        use toml::Value;
        fn num(n: Num) -> Value {
            match n {
                Num::Int(i) => Value::Integer(i),
                Num::UInt(u) => Value::String(u.to_string()),
                Num::Float(f) => Value::Float(f),
            }
        }
        let mut root = toml::Table::new();
        root.insert("ptx".into(), Value::String(self.ptx_path.clone()));
        let data_table = |b: &BufferSpec| {
            let mut t = toml::Table::new();
            t.insert("dtype".into(), Value::String(b.dtype.name().into()));
            t.insert("len".into(), Value::Integer(b.len as i64));
            let mut init = toml::Table::new();
            match &b.init {
                InitSpec::Fill { value } => {
                    init.insert("kind".into(), Value::String("fill".into()));
                    init.insert("value".into(), num(*value));
                }
                InitSpec::Iota { start, step } => {
                    init.insert("kind".into(), Value::String("iota".into()));
                    init.insert("start".into(), num(*start));
                    init.insert("step".into(), num(*step));
                }
                InitSpec::Uniform { min, max, seed } => {
                    init.insert("kind".into(), Value::String("uniform".into()));
                    init.insert("min".into(), num(*min));
                    init.insert("max".into(), num(*max));
                    // Parsed from a non-negative i64, so it fits.
                    init.insert("seed".into(), Value::Integer(*seed as i64));
                }
                InitSpec::Npy { path, .. } => {
                    init.insert("kind".into(), Value::String("npy".into()));
                    init.insert("path".into(), Value::String(path.clone()));
                }
            }
            t.insert("init".into(), Value::Table(init));
            Value::Table(t)
        };
        let tables = |m: &BTreeMap<String, BufferSpec>| -> toml::Table {
            m.iter().map(|(n, b)| (n.clone(), data_table(b))).collect()
        };
        let bufs = tables(&self.buffers);
        root.insert("buffers".into(), Value::Table(bufs));
        if !self.constants.is_empty() {
            root.insert("constants".into(), Value::Table(tables(&self.constants)));
        }
        if !self.registers.is_empty() {
            let regs = self
                .registers
                .iter()
                .map(|(k, g)| (k.clone(), Value::Integer(i64::from(g.count))))
                .collect();
            root.insert("registers".into(), Value::Table(regs));
        }
        let launches = self
            .launches
            .iter()
            .map(|l| {
                let mut t = toml::Table::new();
                let dims = |d: [u32; 3]| {
                    Value::Array(d.iter().map(|&x| Value::Integer(x as i64)).collect())
                };
                t.insert("kernel".into(), Value::String(l.kernel.clone()));
                t.insert("grid".into(), dims(l.grid));
                t.insert("block".into(), dims(l.block));
                t.insert(
                    "dynamic_shared_bytes".into(),
                    Value::Integer(l.dynamic_shared_bytes as i64),
                );
                let args = l
                    .args
                    .iter()
                    .map(|a| match a {
                        LaunchArg::Buffer(b) => Value::String(b.clone()),
                        LaunchArg::Int(i) => Value::Integer(*i),
                        LaunchArg::Float(f) => Value::Float(*f),
                        LaunchArg::Struct(fields) => struct_value(fields),
                    })
                    .collect();
                t.insert("args".into(), Value::Array(args));
                Value::Table(t)
            })
            .collect();
        root.insert("launch".into(), Value::Array(launches));
        if !self.checks.is_empty() {
            root.insert("check".into(), Value::Table(check_table(&self.checks)));
        }
        toml::to_string(&root).unwrap_or_default()
    }

    fn invalid(&self, at: Location, key: &str, message: String) -> SpecError {
        SpecError::Invalid {
            file: self.file.clone(),
            line: at.line,
            col: at.col,
            key: key.to_string(),
            message,
        }
    }
}

/// The `[check]` tables of `checks` as TOML text (`abs` and `rel` always written), e.g. to
/// append to a spec whose `npy` files hold the expected buffers.
pub fn checks_to_toml(checks: &BTreeMap<String, CheckSpec>) -> String {
    use toml::Value;
    let mut out = String::new();
    for (name, c) in checks {
        let key = if is_buffer_name(name) {
            name.clone()
        } else {
            Value::String(name.clone()).to_string()
        };
        out.push_str(&format!(
            "[check.{key}]\nnpy = {}\nabs = {}\nrel = {}\n\n",
            Value::String(c.npy.clone()),
            Value::Float(c.abs),
            Value::Float(c.rel)
        ));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

fn check_table(checks: &BTreeMap<String, CheckSpec>) -> toml::Table {
    use toml::Value;
    let mut out = toml::Table::new();
    for (name, c) in checks {
        let mut t = toml::Table::new();
        t.insert("npy".into(), Value::String(c.npy.clone()));
        t.insert("abs".into(), Value::Float(c.abs));
        t.insert("rel".into(), Value::Float(c.rel));
        out.insert(name.clone(), Value::Table(t));
    }
    out
}

/// Reads an `.npy` file named in the spec and checks that it holds `len` elements of `dtype`;
/// `err` builds the error (key and position are the caller's).
fn read_npy_for(
    files: &dyn SpecFiles,
    path: &str,
    dtype: DType,
    len: usize,
    err: impl Fn(String) -> SpecError,
) -> Result<HostData, SpecError> {
    // the file holds exactly `len` elements after its header: a larger one is refused unread
    let limit = (len as u64)
        .saturating_mul(dtype.size() as u64)
        .saturating_add(super::npy::NPY_HEADER_LIMIT);
    let bytes = files
        .read(path, limit)
        .map_err(|e| err(format!("cannot read {}: {e}", files.describe(path))))?;
    let data = read_npy(&bytes).map_err(|e| err(format!("{}: {e}", files.describe(path))))?;
    if data.dtype() != dtype || data.len() != len {
        return Err(err(format!(
            "{} holds {} × {}, the buffer is {} × {}",
            files.describe(path),
            data.len(),
            data.dtype(),
            len,
            dtype
        )));
    }
    Ok(data)
}

/// The message for a name that is no buffer of the spec.
fn unknown_buffer(name: &str, buffers: &BTreeMap<String, BufferSpec>) -> String {
    format!(
        "unknown buffer {name:?} (buffers: {})",
        buffers.keys().cloned().collect::<Vec<_>>().join(", ")
    )
}

fn parse_check(
    ctx: &Ctx<'_>,
    name: &str,
    c: &Spanned<RawCheck>,
    buffers: &BTreeMap<String, BufferSpec>,
    files: &dyn SpecFiles,
) -> Result<CheckSpec, SpecError> {
    let key = format!("check.{name}");
    let Some(buf) = buffers.get(name) else {
        return Err(ctx.err(&c.span(), &key, unknown_buffer(name, buffers)));
    };
    let raw = c.get_ref();
    let npy = raw.npy.get_ref().clone();
    let expected = read_npy_for(files, &npy, buf.dtype, buf.len, |m| {
        ctx.err(&raw.npy.span(), &format!("{key}.npy"), m)
    })?;
    let allowance = |field: &str, v: &Option<Spanned<f64>>| -> Result<f64, SpecError> {
        let Some(v) = v else { return Ok(0.0) };
        let x = *v.get_ref();
        let fkey = format!("{key}.{field}");
        if !x.is_finite() || x < 0.0 {
            return Err(ctx.err(&v.span(), &fkey, format!("{x} must be finite and ≥ 0")));
        }
        if x != 0.0 && !buf.dtype.is_float() {
            return Err(ctx.err(
                &v.span(),
                &fkey,
                format!(
                    "buffer {name:?} is {}: integer buffers compare exactly (abs and rel apply to f32 and f64 buffers)",
                    buf.dtype
                ),
            ));
        }
        Ok(x)
    };
    Ok(CheckSpec {
        npy,
        expected,
        abs: allowance("abs", &raw.abs)?,
        rel: allowance("rel", &raw.rel)?,
        at: ctx.loc(&c.span()),
    })
}

/// The `[<section>.<name>]` tables of buffers or constants, each name checked with `valid`
/// (`rule` says what it must look like) and each table positioned at its header.
fn data_tables(
    ctx: &Ctx<'_>,
    section: &str,
    raw: &BTreeMap<String, Spanned<RawBuffer>>,
    files: &dyn SpecFiles,
    valid: fn(&str) -> bool,
    rule: &str,
) -> Result<BTreeMap<String, BufferSpec>, SpecError> {
    let mut out = BTreeMap::new();
    for (name, b) in raw {
        let key = format!("{section}.{name}");
        let span = b.span();
        if !valid(name) {
            return Err(ctx.err(&span, &key, rule));
        }
        let data = parse_buffer(ctx, &key, b.get_ref(), files)?;
        out.insert(
            name.clone(),
            BufferSpec {
                at: ctx.loc(&span),
                ..data
            },
        );
    }
    Ok(out)
}

fn parse_buffer(
    ctx: &Ctx<'_>,
    key: &str,
    b: &RawBuffer,
    files: &dyn SpecFiles,
) -> Result<BufferSpec, SpecError> {
    let dtype = DType::from_name(b.dtype.get_ref()).ok_or_else(|| {
        ctx.err(
            &b.dtype.span(),
            &format!("{key}.dtype"),
            format!(
                "unknown dtype {:?} (expected one of f32 f64 i8 u8 i16 u16 i32 u32 i64 u64)",
                b.dtype.get_ref()
            ),
        )
    })?;
    let len_key = format!("{key}.len");
    let len = *b.len.get_ref();
    let max_len = MAX_BUFFER_BYTES / dtype.size() as u64;
    if len <= 0 || len as u64 > max_len {
        return Err(ctx.err(
            &b.len.span(),
            &len_key,
            format!("len {len} must be in [1, {max_len}] ({MAX_BUFFER_BYTES} bytes of {dtype})"),
        ));
    }
    // Bounded by MAX_BUFFER_BYTES above, so it fits usize on 64-bit and 32-bit hosts.
    let len = len as usize;
    let init = parse_init(ctx, &format!("{key}.init"), &b.init, dtype, len, files)?;
    Ok(BufferSpec {
        dtype,
        len,
        init,
        at: Location::default(),
    })
}

fn parse_init(
    ctx: &Ctx<'_>,
    key: &str,
    t: &Spanned<toml::Table>,
    dtype: DType,
    len: usize,
    files: &dyn SpecFiles,
) -> Result<InitSpec, SpecError> {
    let span = t.span();
    let table = t.get_ref();
    let err = |k: &str, m: String| ctx.err(&span, &format!("{key}{k}"), m);
    let kind = match table.get("kind") {
        Some(toml::Value::String(s)) => s.as_str(),
        Some(_) => return Err(err(".kind", "must be a string".into())),
        None => {
            return Err(err(
                ".kind",
                "missing (one of \"fill\", \"iota\", \"uniform\", \"npy\")".into(),
            ))
        }
    };
    let allowed: &[&str] = match kind {
        "fill" => &["value"],
        "iota" => &["start", "step"],
        "uniform" => &["min", "max", "seed"],
        "npy" => &["path"],
        other => {
            return Err(err(
                ".kind",
                format!(
                    "unknown init kind {other:?} (one of \"fill\", \"iota\", \"uniform\", \"npy\")"
                ),
            ))
        }
    };
    for k in table.keys() {
        if k != "kind" && !allowed.contains(&k.as_str()) {
            return Err(err(
                &format!(".{k}"),
                format!(
                    "unknown key for kind {kind:?} (expected {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    for k in allowed {
        if !table.contains_key(*k) {
            return Err(err(
                &format!(".{k}"),
                format!("missing (kind {kind:?} needs {})", allowed.join(", ")),
            ));
        }
    }
    let num = |k: &str| -> Result<Num, SpecError> {
        let n = table.get(k).and_then(num_of).ok_or_else(|| {
            err(
                &format!(".{k}"),
                "must be a number (or, for integers beyond i64, a string such as \
                     \"18446744073709551615\" or \"0xFFFFFFFFFFFFFFFF\")"
                    .into(),
            )
        })?;
        check_fits(dtype, n).map_err(|m| err(&format!(".{k}"), m))?;
        Ok(n)
    };
    match kind {
        "fill" => Ok(InitSpec::Fill {
            value: num("value")?,
        }),
        "iota" => {
            let (start, step) = (num("start")?, num("step")?);
            let last_i = (len - 1) as i128;
            let last = if dtype.is_float() {
                check_fits(
                    dtype,
                    Num::Float(start.as_f64() + last_i as f64 * step.as_f64()),
                )
            } else {
                // Both are integers here (check_fits rejects floats for integer dtypes).
                let (a, d) = (int_value(start).unwrap_or(0), int_value(step).unwrap_or(0));
                let v = a + last_i * d;
                match dtype.int_range() {
                    Some((lo, hi)) if v < lo || v > hi => Err(format!(
                        "the last element {v} (index {last_i}) does not fit {dtype}"
                    )),
                    _ => Ok(()),
                }
            };
            last.map_err(|m| err(".step", m))?;
            Ok(InitSpec::Iota { start, step })
        }
        "uniform" => {
            let (min, max) = (num("min")?, num("max")?);
            let seed = match table.get("seed") {
                Some(toml::Value::Integer(s)) if *s >= 0 => *s as u64,
                _ => return Err(err(".seed", "must be an integer ≥ 0".into())),
            };
            if min.as_f64() > max.as_f64()
                || matches!((int_value(min), int_value(max)), (Some(a), Some(b)) if a > b)
            {
                return Err(err(".min", format!("min {min} exceeds max {max}")));
            }
            if dtype.is_float() && !(max.as_f64() - min.as_f64()).is_finite() {
                return Err(err(".max", "max - min overflows f64".into()));
            }
            Ok(InitSpec::Uniform { min, max, seed })
        }
        _ => {
            let path = match table.get("path") {
                Some(toml::Value::String(p)) => p.clone(),
                _ => return Err(err(".path", "must be a string".into())),
            };
            let data = read_npy_for(files, &path, dtype, len, |m| err(".path", m))?;
            Ok(InitSpec::Npy { path, data })
        }
    }
}

fn dims(
    ctx: &Ctx<'_>,
    key: &str,
    v: &Spanned<Vec<Spanned<i64>>>,
    max: [u32; 3],
) -> Result<[u32; 3], SpecError> {
    let list = v.get_ref();
    if list.len() != 3 {
        return Err(ctx.err(
            &v.span(),
            key,
            format!("needs exactly 3 dimensions [x, y, z], got {}", list.len()),
        ));
    }
    let mut out = [1u32; 3];
    for (i, d) in list.iter().enumerate() {
        let x = *d.get_ref();
        if x < 1 || x > max[i] as i64 {
            return Err(ctx.err(
                &d.span(),
                &format!("{key}[{i}]"),
                format!("{x} must be in [1, {}]", max[i]),
            ));
        }
        out[i] = x as u32;
    }
    Ok(out)
}

fn parse_launch(
    ctx: &Ctx<'_>,
    i: usize,
    l: &RawLaunch,
    buffers: &BTreeMap<String, BufferSpec>,
) -> Result<KernelLaunch, SpecError> {
    let key = format!("launch[{i}]");
    let kernel = l.kernel.get_ref().clone();
    if !is_ptx_identifier(&kernel) {
        return Err(ctx.err(
            &l.kernel.span(),
            &format!("{key}.kernel"),
            format!("{kernel:?} is not a PTX identifier"),
        ));
    }
    let grid = dims(ctx, &format!("{key}.grid"), &l.grid, MAX_GRID_DIM)?;
    let block = dims(ctx, &format!("{key}.block"), &l.block, MAX_BLOCK_DIM)?;
    let threads: u64 = block.iter().map(|&b| b as u64).product();
    if threads > MAX_BLOCK_THREADS {
        return Err(ctx.err(
            &l.block.span(),
            &format!("{key}.block"),
            format!("{threads} threads per block exceeds {MAX_BLOCK_THREADS}"),
        ));
    }
    let dynamic_shared_bytes = match &l.dynamic_shared_bytes {
        None => 0,
        Some(d) => {
            let v = *d.get_ref();
            if v < 0 || v > MAX_DYNAMIC_SHARED_BYTES as i64 {
                return Err(ctx.err(
                    &d.span(),
                    &format!("{key}.dynamic_shared_bytes"),
                    format!("{v} must be in [0, {MAX_DYNAMIC_SHARED_BYTES}]"),
                ));
            }
            v as u32
        }
    };
    let mut args = Vec::new();
    let mut arg_at = Vec::new();
    for (j, a) in l.args.get_ref().iter().enumerate() {
        let akey = format!("{key}.args[{j}]");
        let v = match a.get_ref() {
            toml::Value::String(s) => {
                if !buffers.contains_key(s) {
                    return Err(ctx.err(&a.span(), &akey, unknown_buffer(s, buffers)));
                }
                LaunchArg::Buffer(s.clone())
            }
            toml::Value::Integer(n) => LaunchArg::Int(*n),
            toml::Value::Float(f) => LaunchArg::Float(*f),
            toml::Value::Table(t) => {
                struct_arg(t, buffers).map_err(|m| ctx.err(&a.span(), &akey, m))?
            }
            other => {
                return Err(ctx.err(
                    &a.span(),
                    &akey,
                    format!(
                        "must be a buffer name, a number or {{ struct = [ {{ TYPE = VALUE }}, ... ] }}, got a {}",
                        other.type_str()
                    ),
                ))
            }
        };
        args.push(v);
        arg_at.push(ctx.loc(&a.span()));
    }
    Ok(KernelLaunch {
        kernel,
        grid,
        block,
        dynamic_shared_bytes,
        args,
        arg_at,
        at: ctx.loc(&l.kernel.span()),
    })
}

/// A struct argument `{ struct = [ { i32 = 5 }, { f32 = 0.5 }, { ptr = "buf" }, { pad = 4 } ] }`
/// (see `README.md`, "Struct arguments").
fn struct_arg(
    t: &toml::Table,
    buffers: &BTreeMap<String, BufferSpec>,
) -> Result<LaunchArg, String> {
    let syntax = "a struct argument is { struct = [ { TYPE = VALUE }, ... ] } with TYPE one of";
    let types = crate::launch::STRUCT_FIELD_TYPES.join(" ");
    let (Some(toml::Value::Array(items)), 1) = (t.get("struct"), t.len()) else {
        return Err(format!("{syntax} {types}"));
    };
    let mut fields = Vec::with_capacity(items.len());
    for (k, it) in items.iter().enumerate() {
        let one = it.as_table().filter(|f| f.len() == 1);
        let Some((ty, v)) = one.and_then(|f| f.iter().next()) else {
            return Err(format!("field {k}: {syntax} {types}"));
        };
        if !crate::launch::STRUCT_FIELD_TYPES.contains(&ty.as_str()) {
            return Err(format!("field {k}: unknown field type {ty:?} ({types})"));
        }
        let value = match v {
            toml::Value::String(b) if ty == "ptr" => {
                if !buffers.contains_key(b) {
                    return Err(format!("field {k}: unknown buffer {b:?}"));
                }
                LaunchArg::Buffer(b.clone())
            }
            toml::Value::Integer(n) if ty != "ptr" => {
                if ty == "pad" && !(0..=4096).contains(n) {
                    return Err(format!("field {k}: pad = {n} must be in [0, 4096]"));
                }
                LaunchArg::Int(*n)
            }
            toml::Value::Float(x) if ty.starts_with('f') => LaunchArg::Float(*x),
            other => {
                return Err(format!(
                    "field {k}: {ty} cannot take a {} ({})",
                    other.type_str(),
                    if ty == "ptr" {
                        "ptr takes a buffer name"
                    } else if ty == "pad" {
                        "pad takes a byte count"
                    } else {
                        "a number is expected"
                    }
                ))
            }
        };
        fields.push(crate::launch::StructField {
            ty: ty.clone(),
            value,
        });
    }
    Ok(LaunchArg::Struct(fields))
}

/// The TOML form of a struct argument (inverse of [`struct_arg`]).
fn struct_value(fields: &[crate::launch::StructField]) -> toml::Value {
    use toml::Value;
    let items = fields
        .iter()
        .map(|f| {
            let v = match &f.value {
                LaunchArg::Buffer(b) => Value::String(b.clone()),
                LaunchArg::Int(i) => Value::Integer(*i),
                LaunchArg::Float(x) => Value::Float(*x),
                LaunchArg::Struct(s) => struct_value(s),
            };
            let mut t = toml::Table::new();
            t.insert(f.ty.clone(), v);
            Value::Table(t)
        })
        .collect();
    let mut t = toml::Table::new();
    t.insert("struct".into(), Value::Array(items));
    Value::Table(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_from_the_line_index_match_a_count_of_newlines() {
        let text = "a = 1\n\n# é ü\nkey = \"ß\" # x\n\nlast";
        let ctx = Ctx::new("t.toml", text);
        for (start, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let col = before[line_start..].chars().count() + 1;
            assert_eq!(ctx.loc(&(start..start)), Location { line, col }, "{start}");
        }
    }

    /// U64 values above i64::MAX are written as strings (decimal or hex).
    #[test]
    fn u64_fill_string_forms() {
        assert_eq!(
            num_of_str("18446744073709551615"),
            Some(Num::UInt(u64::MAX))
        );
        assert_eq!(
            num_of_str("0xFFFF_FFFF_FFFF_FFFF"),
            Some(Num::UInt(u64::MAX))
        );
        assert_eq!(num_of_str("0x10"), Some(Num::Int(16)));
        assert_eq!(num_of_str("-5"), Some(Num::Int(-5)));
        assert_eq!(num_of_str("1.5"), None);
        assert_eq!(num_of_str("0x1_0000_0000_0000_0000"), None);
        assert!(check_fits(DType::U64, Num::UInt(u64::MAX)).is_ok());
        assert!(check_fits(DType::I64, Num::UInt(1 << 63)).is_err());
        // 2^64 - 1 is not an f64; 2^63 is
        assert!(check_fits(DType::F64, Num::UInt(u64::MAX)).is_err());
        assert!(check_fits(DType::F64, Num::UInt(1 << 63)).is_ok());
    }

    /// A spec with buffers `x` (f32 × 4) and `n` (u32 × 4) and `extra` appended.
    fn check_spec(extra: &str) -> Result<LaunchSpec, SpecError> {
        use crate::launch::{write_npy, MemFiles};
        let files = MemFiles::new("builtin:t")
            .with("k.ptx", &b".version 7.0\n"[..])
            .with("x.npy", write_npy(&HostData::F32(vec![1.0, 2.0, 3.0, 4.0])))
            .with("n.npy", write_npy(&HostData::U32(vec![1, 2, 3, 4])))
            .with("short.npy", write_npy(&HostData::F32(vec![1.0])))
            .with("bad.npy", &b"not npy"[..]);
        let text = format!(
            "ptx = \"k.ptx\"\n\
             [buffers.x]\ndtype = \"f32\"\nlen = 4\ninit = {{ kind = \"fill\", value = 0 }}\n\
             [buffers.n]\ndtype = \"u32\"\nlen = 4\ninit = {{ kind = \"fill\", value = 0 }}\n\
             [[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [4, 1, 1]\nargs = [\"x\"]\n\
             {extra}"
        );
        LaunchSpec::parse("t.toml", &text, &files)
    }

    /// The error text of a spec that must not load.
    fn check_err(extra: &str) -> String {
        match check_spec(extra) {
            Ok(_) => panic!("accepted:\n{extra}"),
            Err(e) => e.to_string(),
        }
    }

    /// A `[registers]` table gives a kernel's count with its position, round-trips through
    /// `to_resolved_toml`, and refuses counts outside 1..=255, non-integers and names that are
    /// not PTX identifiers, naming the key; `check_kernels` refuses an entry for a kernel the PTX
    /// lacks, and `given_registers` a count below the mapping's span.
    #[test]
    fn register_table_gives_counts_and_refuses_bad_ones() {
        assert!(check_spec("").unwrap().registers.is_empty());
        let spec = check_spec(
            "[registers]
k = 30
",
        )
        .unwrap();
        assert_eq!(
            spec.registers["k"],
            GivenRegisters {
                count: 30,
                at: Location { line: 16, col: 5 }
            }
        );
        let text = spec.to_resolved_toml();
        assert!(text.contains("[registers]\nk = 30"), "{text}");
        assert_eq!(spec.given_registers("k", 12).unwrap(), Some(30));
        assert_eq!(spec.given_registers("k", 30).unwrap(), Some(30));
        let low = spec.given_registers("k", 31).unwrap_err().to_string();
        assert!(
            low.contains("t.toml:16:5")
                && low.contains("registers.k")
                && low.contains("at least 31"),
            "{low}"
        );
        let other = spec.check_kernels(&["j"]).unwrap_err().to_string();
        assert!(
            other.contains("registers.k") && other.contains("no kernel \"k\""),
            "{other}"
        );
        assert_eq!(
            check_spec("[registers]\nk = 30\n")
                .unwrap()
                .given_registers("j", 4)
                .unwrap(),
            None
        );
        for (bad, needle) in [
            ("k = 0", "give 1..=255"),
            ("k = 256", "give 1..=255"),
            ("k = -3", "give 1..=255"),
            ("k = 2.5", "registers.k"),
            ("\"a b\" = 8", "PTX entry name"),
        ] {
            let e = check_err(&format!("[registers]\n{bad}\n"));
            assert!(e.contains("registers.") && e.contains(needle), "{bad}: {e}");
        }
    }

    /// `[check.<buffer>]` tables load with their expected data and allowances
    /// (absent = 0, integers written for floats accepted) and round-trip through
    /// `to_resolved_toml`; a spec without them has no checks.
    #[test]
    fn check_tables_load_and_round_trip() {
        assert!(check_spec("").unwrap().checks.is_empty());
        let spec = check_spec(
            "[check.x]\nnpy = \"x.npy\"\nabs = 1e-6\nrel = 0.5\n\
             [check.n]\nnpy = \"./n.npy\"\nabs = 0\n",
        )
        .unwrap();
        let x = &spec.checks["x"];
        assert_eq!(x.expected, HostData::F32(vec![1.0, 2.0, 3.0, 4.0]));
        assert_eq!((x.abs, x.rel, x.is_exact()), (1e-6, 0.5, false));
        assert_eq!(x.at, Location { line: 15, col: 1 });
        let n = &spec.checks["n"];
        assert_eq!(
            (n.npy.as_str(), n.abs, n.rel, n.is_exact()),
            ("./n.npy", 0.0, 0.0, true)
        );
        assert_eq!(n.expected, HostData::U32(vec![1, 2, 3, 4]));
        let text = spec.to_resolved_toml();
        assert!(
            text.contains("[check.n]") && text.contains("rel = 0.0"),
            "{text}"
        );
        let files = crate::launch::MemFiles::new("builtin:t")
            .with("k.ptx", &b".version 7.0\n"[..])
            .with("x.npy", crate::launch::write_npy(&x.expected))
            .with("n.npy", crate::launch::write_npy(&n.expected));
        let back = LaunchSpec::parse("t.toml", &text, &files).unwrap();
        for (name, c) in &spec.checks {
            let b = &back.checks[name];
            assert_eq!(
                (&b.expected, b.abs, b.rel),
                (&c.expected, c.abs, c.rel),
                "{name}"
            );
        }
        assert_eq!(
            checks_to_toml(&spec.checks),
            "[check.n]\nnpy = \"./n.npy\"\nabs = 0.0\nrel = 0.0\n\n\
             [check.x]\nnpy = \"x.npy\"\nabs = 0.000001\nrel = 0.5\n"
        );
    }

    /// Every invalid `[check]` is an error naming the line, column and key.
    #[test]
    fn check_errors_name_line_col_and_key() {
        let cases = [
            ("[check.y]\nnpy = \"x.npy\"\n", "t.toml:15:1: check.y: unknown buffer \"y\" (buffers: n, x)"),
            ("[check.x]\nnpy = \"missing.npy\"\n", "t.toml:16:7: check.x.npy: cannot read builtin:t/missing.npy"),
            ("[check.x]\nnpy = \"bad.npy\"\n", "t.toml:16:7: check.x.npy: builtin:t/bad.npy: "),
            ("[check.x]\nnpy = \"n.npy\"\n", "t.toml:16:7: check.x.npy: builtin:t/n.npy holds 4 × u32, the buffer is 4 × f32"),
            ("[check.x]\nnpy = \"short.npy\"\n", "t.toml:16:7: check.x.npy: builtin:t/short.npy holds 1 × f32, the buffer is 4 × f32"),
            ("[check.x]\nnpy = \"x.npy\"\nabs = -1.0\n", "t.toml:17:7: check.x.abs: -1 must be finite and ≥ 0"),
            ("[check.x]\nnpy = \"x.npy\"\nrel = nan\n", "t.toml:17:7: check.x.rel: NaN must be finite and ≥ 0"),
            ("[check.x]\nnpy = \"x.npy\"\nrel = inf\n", "t.toml:17:7: check.x.rel: inf must be finite and ≥ 0"),
            ("[check.n]\nnpy = \"n.npy\"\nabs = 0.5\n", "t.toml:17:7: check.n.abs: buffer \"n\" is u32: integer buffers compare exactly"),
            ("[check.x]\nnpy = \"x.npy\"\ntol = 1.0\n", "t.toml:17:1: check.x.tol: unknown field `tol`"),
            ("[check.x]\nabs = 1.0\n", "t.toml:15:1: check.x: missing field `npy`"),
            ("[check.x]\nnpy = \"x.npy\"\nabs = \"1\"\n", "t.toml:17:7: check.x.abs: invalid type"),
        ];
        for (extra, want) in cases {
            let e = check_err(extra);
            assert!(e.starts_with(want), "{extra}\ngot:  {e}\nwant: {want}");
        }
    }
}
