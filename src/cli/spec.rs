//! `regwatt spec new FILE.ptx [--out SPEC.toml] [--kernel NAME]... [--force]`: a
//! commented launch-spec template for a PTX file's kernels
//! ([`regwatt_sim::launch::spec_template`]): one buffer per pointer parameter with the element
//! type inferred from the kernel's global accesses, one `[[launch]]` per kernel, placeholders
//! that load and run as is, and a commented-out `[check]` example. Printed, or written to
//! `--out` with `ptx` relative to that file's directory.

use std::path::{Component, Path, PathBuf};

use anyhow::Context;
use regwatt_sim::launch::{spec_template, DirFiles, LaunchSpec};

/// `regwatt spec` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Write a commented launch-spec template for a PTX file's kernels.
    New(NewArgs),
}

/// Arguments of `regwatt spec new`.
#[derive(clap::Args)]
pub struct NewArgs {
    /// PTX file (e.g. from scripts/cu2ptx.py).
    pub ptx: PathBuf,
    /// Write the template to this file instead of printing it (`ptx` is then relative to its
    /// directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only these kernels, in this order (repeatable; default: every kernel of the file).
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernels: Vec<String>,
    /// Overwrite `--out` if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Runs `regwatt spec`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::New(a) => new(a),
    }
}

/// `target` relative to the directory `base` (both made absolute first); the absolute path
/// when they share nothing but the root.
fn relative_to(target: &Path, base: &Path) -> anyhow::Result<String> {
    let t =
        std::fs::canonicalize(target).with_context(|| format!("resolving {}", target.display()))?;
    let b = std::fs::canonicalize(base).with_context(|| format!("resolving {}", base.display()))?;
    let (tc, bc): (Vec<Component>, Vec<Component>) =
        (t.components().collect(), b.components().collect());
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        return Ok(t.display().to_string());
    }
    let mut rel = PathBuf::new();
    for _ in common..bc.len() {
        rel.push("..");
    }
    for c in &tc[common..] {
        rel.push(c);
    }
    Ok(rel.display().to_string())
}

fn new(args: NewArgs) -> anyhow::Result<()> {
    let file = args.ptx.display().to_string();
    let src = regwatt_inputs::read_text(&args.ptx, regwatt_inputs::TEXT_LIMIT)?;
    let module = regwatt_sim::ptx::parse(&file, &src)?;
    let spec_dir = match &args.out {
        Some(out) => {
            crate::outdir::check_new_file(out, args.force)?;
            let dir = out
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            dir
        }
        None => PathBuf::from("."),
    };
    let ptx_path = relative_to(&args.ptx, &spec_dir)?;
    let text = spec_template(&file, &ptx_path, &module, &args.kernels)?;
    // the template must load as written (a failure here is a bug of the template)
    let name = args
        .out
        .as_ref()
        .map_or_else(|| "template".to_string(), |o| o.display().to_string());
    LaunchSpec::parse(&name, &text, &DirFiles::new(&spec_dir))
        .context("the generated template does not load (please report this)")?;
    match &args.out {
        Some(out) => {
            crate::outdir::write_file(out, text.as_bytes(), args.force)?;
            outln!(
                "wrote {} (every value is a placeholder: edit it, then `regwatt exec {} --dump DIR`)",
                out.display(),
                out.display()
            );
        }
        None => out!("{text}"),
    }
    Ok(())
}
