//! `regwatt exec` (being written).

/// Arguments of `regwatt exec`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `regwatt exec`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("regwatt exec is not implemented yet")
}
