//! `regwatt sram` (being written).

/// Arguments of `regwatt sram`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `regwatt sram`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("regwatt sram is not implemented yet")
}
