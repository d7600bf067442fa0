//! `regwatt ptx` (being written).

/// Arguments of `regwatt ptx`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `regwatt ptx`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("regwatt ptx is not implemented yet")
}
