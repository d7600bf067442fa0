//! Subcommands. Each file owns one subcommand: its `Args` (clap derive) and `run`.

/// `println!` to stdout for subcommands returning `anyhow::Result<()>`: a closed pipe
/// (`regwatt run ... | head`) ends the command quietly with `Ok(())` instead of the panic
/// `println!` raises; any other write error is returned.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        if let Err(e) = writeln!(o, $($t)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(e.into());
        }
    }};
}

/// `print!` counterpart of [`outln!`].
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

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sram;
