//! Subcommands. Each file owns one subcommand: its `Args` (clap derive) and `run`.

/// `print!` to stdout for subcommands returning `anyhow::Result<()>`: a closed pipe
/// (`regwatt run ... | head`) ends the command quietly with `Ok(())` instead of the panic
/// `print!` raises; any other write error is returned.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        if let Err(e) = write!(o, $($t)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(e.into());
        }
    }};
}

/// `println!` counterpart of [`out!`].
macro_rules! outln {
    ($($t:tt)*) => {
        out!("{}\n", format_args!($($t)*))
    };
}

/// The run options `run` and `report` share (flattened into each one's `Args`).
#[derive(clap::Args)]
pub struct RunLimits {
    /// Abort a launch after this many core cycles (at most 2^40).
    #[arg(long, default_value_t = regwatt_sim::timing::RunOptions::default().max_cycles,
          value_parser = clap::value_parser!(u64).range(1..=regwatt_sim::timing::MAX_CYCLES))]
    pub max_cycles: u64,
}

impl RunLimits {
    /// The timing core's options.
    pub fn options(&self) -> regwatt_sim::timing::RunOptions {
        regwatt_sim::timing::RunOptions {
            max_cycles: self.max_cycles,
            ..regwatt_sim::timing::RunOptions::default()
        }
    }
}

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sram;
pub mod sweep;
