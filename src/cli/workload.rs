//! `regwatt workload export NAME DIR [--force]`: a built-in workload as the starting point of a
//! kernel of one's own: its launch spec with a `[check]` table appended, PTX, CUDA
//! source and input files, and `expected/<buffer>.npy`, the final buffers by its Rust
//! reference ([`regwatt_workloads::Workload::export_files`]). `regwatt run DIR/NAME.toml` then
//! checks the output as `regwatt run --workload NAME` does. `regwatt workload list` lists the
//! built-in workloads (as `regwatt exec --list`).

use std::path::PathBuf;

use anyhow::bail;

/// `regwatt workload` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Write a built-in workload's spec (with a [check] table), PTX, CUDA source, inputs and
    /// expected outputs (expected/<buffer>.npy) into DIR.
    Export(ExportArgs),
    /// List the built-in workloads.
    List,
}

/// Arguments of `regwatt workload export`.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// Built-in workload (`regwatt workload list`).
    pub name: String,
    /// Directory to write into (created if needed).
    pub dir: PathBuf,
    /// Overwrite files that exist.
    #[arg(long)]
    pub force: bool,
    /// The input size to export: ci, default or paper [default: default].
    #[arg(long, value_parser = super::parse_size)]
    pub size: Option<regwatt_workloads::Size>,
}

/// Runs `regwatt workload`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Export(a) => export(a),
        Command::List => list(),
    }
}

/// Prints the built-in workloads, one per line: name and summary.
pub(crate) fn list() -> anyhow::Result<()> {
    for w in regwatt_workloads::all() {
        let sizes: Vec<&str> = w.sizes().iter().map(|s| s.name()).collect();
        outln!("{:<18} {:<18} {}", w.name, sizes.join(","), w.summary);
    }
    Ok(())
}

fn export(args: ExportArgs) -> anyhow::Result<()> {
    let w = regwatt_workloads::get(&args.name)?;
    let size = args.size.unwrap_or(super::DEFAULT_SIZE);
    let files = w.export_files(size)?;
    if !args.force {
        let existing: Vec<String> = files
            .iter()
            .map(|(p, _)| args.dir.join(p))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .map(|p| p.display().to_string())
            .collect();
        if let Some(first) = existing.first() {
            let more = match existing.len() {
                1 => String::new(),
                n => format!(" (and {} more of the export's files)", n - 1),
            };
            bail!("{first} exists{more}; pass --force to overwrite");
        }
    }
    for (path, bytes) in &files {
        let p = args.dir.join(path);
        crate::outdir::write_file(&p, bytes, args.force)?;
        outln!("wrote {}", p.display());
    }
    let spec = args.dir.join(w.spec_file_name(size));
    outln!(
        "check it: regwatt exec {0}   or   regwatt run {0} --gpu rtx2060",
        spec.display()
    );
    Ok(())
}
