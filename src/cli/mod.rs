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

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sram;
