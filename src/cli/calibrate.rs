//! `regwatt calibrate` (being written).

/// Arguments of `regwatt calibrate`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `regwatt calibrate`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("regwatt calibrate is not implemented yet")
}
