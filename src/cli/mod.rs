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

/// Runs `work(item)` for every item on `jobs` threads (default: available parallelism) with a
/// progress bar on stderr labelled by `label(item)`; the outcomes in the items' order (`None`
/// only if a worker panicked), so output does not depend on the thread count.
pub fn parallel_with_progress<T: Sync, O: Send>(
    items: &[T],
    jobs: Option<usize>,
    label: impl Fn(&T) -> String + Sync,
    work: impl Fn(&T) -> O + Sync,
) -> Vec<Option<O>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, items.len().max(1));
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(items.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<O>>> =
        std::sync::Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let o = work(item);
                bar.set_message(label(item));
                bar.inc(1);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(o);
                }
            });
        }
    });
    bar.finish_and_clear();
    results
        .into_inner()
        .unwrap_or_else(|_| (0..items.len()).map(|_| None).collect())
}

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sram;
pub mod sweep;
