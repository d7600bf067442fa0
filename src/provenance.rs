//! The provenance record every output directory carries: `provenance.json` with
//! the regwatt version, the git commit the binary was built from (when built in a checkout),
//! the command line, the resolved configurations and the resolved launch specs.

use std::collections::BTreeMap;
use std::path::Path;

use regwatt_designs::config::ResolvedConfig;
use regwatt_sim::launch::LaunchSpec;
use serde::Serialize;

/// One launch of a spec.
#[derive(Clone, Debug, Serialize)]
pub struct LaunchEntry {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
}

/// A resolved launch spec: where it came from, its text, its launches and buffers.
#[derive(Clone, Debug, Serialize)]
pub struct SpecEntry {
    /// The spec's name (`builtin:vectorAdd/vectorAdd.toml` or its path).
    pub file: String,
    /// The PTX file it names.
    pub ptx: String,
    /// Buffers: name → (dtype, elements).
    pub buffers: BTreeMap<String, (String, usize)>,
    pub launches: Vec<LaunchEntry>,
    /// The spec's TOML text as read.
    pub spec_toml: String,
}

impl SpecEntry {
    /// From a parsed spec and its text.
    pub fn new(spec: &LaunchSpec, text: &str) -> SpecEntry {
        SpecEntry {
            file: spec.file.clone(),
            ptx: spec.ptx_path.clone(),
            buffers: spec
                .buffers
                .iter()
                .map(|(n, b)| (n.clone(), (format!("{:?}", b.dtype).to_lowercase(), b.len)))
                .collect(),
            launches: spec
                .launches
                .iter()
                .map(|l| LaunchEntry {
                    kernel: l.kernel.clone(),
                    grid: l.grid,
                    block: l.block,
                    dynamic_shared_bytes: l.dynamic_shared_bytes,
                })
                .collect(),
            spec_toml: text.to_string(),
        }
    }
}

/// `provenance.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    pub regwatt_version: &'static str,
    /// `git rev-parse HEAD` at build time (absent when not built from a checkout).
    pub git_commit: Option<&'static str>,
    /// The command line (`regwatt` and its arguments).
    pub command_line: Vec<String>,
    /// Notes on how to read the results (e.g. what overheads are against).
    pub notes: BTreeMap<String, String>,
    /// Resolved configurations by the file name they are written under (quantities as
    /// numbers, unit in the key).
    pub configurations: BTreeMap<String, serde_json::Value>,
    /// Resolved launch specs by workload (or spec) name.
    pub launch_specs: BTreeMap<String, SpecEntry>,
}

impl Provenance {
    /// The record of this process with `configs` (name, configuration) and `specs`.
    pub fn new(
        configs: Vec<(String, &ResolvedConfig)>,
        specs: BTreeMap<String, SpecEntry>,
    ) -> Provenance {
        let mut args = std::env::args();
        let mut command_line = vec![args
            .next()
            .and_then(|p| {
                Path::new(&p)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "regwatt".into())];
        command_line.extend(args);
        Provenance {
            regwatt_version: env!("CARGO_PKG_VERSION"),
            git_commit: option_env!("REGWATT_GIT_COMMIT"),
            command_line,
            notes: BTreeMap::new(),
            configurations: configs.into_iter().map(|(n, c)| (n, c.to_json())).collect(),
            launch_specs: specs,
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, key: &str, text: &str) -> Provenance {
        self.notes.insert(key.to_string(), text.to_string());
        self
    }

    /// Writes `DIR/provenance.json`.
    pub fn write(&self, dir: &crate::outdir::OutDir) -> anyhow::Result<()> {
        dir.write(
            "provenance.json",
            serde_json::to_string_pretty(self)? + "\n",
        )
    }
}
