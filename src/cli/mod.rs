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

/// The configuration overrides `run` and `report` share (flattened into each one's `Args`).
#[derive(clap::Args)]
pub struct OverrideArgs {
    /// Override file(s) with the preset's structure (`[gpu]`, `[rf]`, `[power]`,
    /// `[beyond_rf]`, `[design]`); `report` applies them to every run.
    #[arg(long)]
    pub config: Vec<std::path::PathBuf>,
    /// Override one value: `--set gpu.sms=10` (or `--set sms=10`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Take the overheads against the baseline resolved with this override file (instead of
    /// the runs' own `--set`/`--config`), on the same workload, GPU, node, scope and power
    /// mode.
    #[arg(long, value_name = "FILE")]
    pub baseline_config: Option<std::path::PathBuf>,
}

/// The input size of built-in workloads when `--size` is not given: the inputs that fill both
/// GPUs (`ci` is for tests, `paper` for the benchmark suites' standard inputs).
pub const DEFAULT_SIZE: regwatt_workloads::Size = regwatt_workloads::Size::Default;

/// `--size`: `ci`, `default` or `paper`.
pub fn parse_size(s: &str) -> Result<regwatt_workloads::Size, String> {
    s.parse()
        .map_err(|e: regwatt_workloads::WorkloadError| e.to_string())
}

/// The launch spec `run` and `exec` run: the spec file, or the built-in workload at `size`
/// (default [`DEFAULT_SIZE`]). `--size` with a spec file is an error: a spec sets its own
/// sizes.
pub fn spec_or_workload(
    spec: Option<&std::path::Path>,
    workload: Option<&str>,
    size: Option<regwatt_workloads::Size>,
) -> anyhow::Result<(
    regwatt_sim::launch::LaunchSpec,
    Option<(
        &'static regwatt_workloads::Workload,
        regwatt_workloads::Size,
    )>,
)> {
    use anyhow::Context as _;
    match (spec, workload) {
        (Some(p), None) => {
            if let Some(s) = size {
                anyhow::bail!(
                    "--size {s} chooses a built-in workload's inputs (--workload NAME); the spec file {} sets its own",
                    p.display()
                );
            }
            Ok((
                regwatt_sim::launch::LaunchSpec::load(p)
                    .with_context(|| format!("loading {}", p.display()))?,
                None,
            ))
        }
        (None, Some(name)) => {
            let w = regwatt_workloads::get(name)?;
            let size = size.unwrap_or(DEFAULT_SIZE);
            Ok((w.load_spec(size)?, Some((w, size))))
        }
        _ => anyhow::bail!("give a launch spec or --workload NAME"),
    }
}

/// Warns (an error with `strict`) when the kernels of `spec` read a `__constant__` array that
/// neither the PTX nor the spec's `[constants]` initialises: a CUDA program that never calls
/// `cudaMemcpyToSymbol` for it reads zeros, and so would the run.
pub fn unset_constants(spec: &regwatt_sim::launch::LaunchSpec, strict: bool) -> anyhow::Result<()> {
    // the run parses the PTX again and reports its errors in place
    let Ok(module) = regwatt_sim::ptx::parse(&spec.ptx_path, &spec.ptx_source) else {
        return Ok(());
    };
    let unset = spec.unset_constants(&module);
    if unset.is_empty() {
        return Ok(());
    }
    let tables: Vec<String> = unset.iter().map(|n| format!("[constants.{n}]")).collect();
    let message = format!(
        "{}: the kernels read __constant__ {} of {}, which the PTX does not initialise and the spec does not set ({}): they read zeros",
        spec.file,
        unset.join(", "),
        spec.ptx_path,
        tables.join(", ")
    );
    if strict {
        anyhow::bail!("{message} (--strict)");
    }
    eprintln!("warning: {message}");
    Ok(())
}

/// Writes every buffer as `<name>.npy` into `out` (`run --dump`, `exec --dump`).
pub fn dump_buffers(
    out: &crate::outdir::OutDir,
    buffers: &std::collections::BTreeMap<String, regwatt_sim::launch::HostData>,
) -> anyhow::Result<()> {
    for (name, data) in buffers {
        if !regwatt_sim::launch::is_safe_name(name) {
            anyhow::bail!(
                "buffer name {:?} is not a safe file name",
                regwatt_inputs::excerpt(name)
            );
        }
        out.write_with(format!("{name}.npy"), |w| {
            regwatt_sim::launch::write_npy_to(w, data)
        })?;
    }
    Ok(())
}

/// An output folder `--out` and `--dump` may share.
pub type SharedOut = std::sync::Arc<crate::outdir::OutDir>;

/// The output folders of `--out` and `--dump`, checked before any work; one folder when
/// both name the same (so the second does not take the first's files for foreign ones).
pub fn out_and_dump(
    out: Option<&std::path::Path>,
    dump: Option<&std::path::Path>,
    force: bool,
) -> anyhow::Result<(Option<SharedOut>, Option<SharedOut>)> {
    use std::sync::Arc;
    let same = |a: &std::path::Path, b: &std::path::Path| {
        a == b
            || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    };
    let o = out
        .map(|p| crate::outdir::OutDir::prepare(p, "--out", force).map(Arc::new))
        .transpose()?;
    let d = match (dump, &o, out) {
        (Some(dp), Some(o), Some(op)) if same(dp, op) => Some(Arc::clone(o)),
        (Some(dp), _, _) => Some(Arc::new(crate::outdir::OutDir::prepare(
            dp, "--dump", force,
        )?)),
        (None, _, _) => None,
    };
    Ok((o, d))
}

/// The run options `run`, `report` and `sweep` share (flattened into each one's `Args`).
#[derive(clap::Args)]
pub struct RunLimits {
    /// Stop a launch after this many core cycles (1..=2^40). The default, 10^7 (10^10 for a
    /// built-in workload at `--size paper`), stops a runaway kernel with few warps within
    /// about 15 s (docs/configuration.md, "Limits").
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=regwatt_sim::timing::MAX_CYCLES))]
    pub max_cycles: Option<u64>,
    /// Stop a launch after this many warp instructions (at least 1). The default, 3x10^7
    /// (10^10 for a built-in workload at `--size paper`), stops a runaway kernel that fills
    /// the GPU within about 15 s.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_warp_instructions: Option<u64>,
    /// Refuse a simulation whose estimated memory exceeds SIZE (e.g. 16GiB; default: half
    /// of the physical memory, at most 80% of `ulimit -v`).
    #[arg(long, value_name = "SIZE")]
    pub memory_budget: Option<String>,
}

impl RunLimits {
    /// The cycle limit of a launch: `--max-cycles`, else the default of the input size
    /// (`None`: a launch spec of the user's).
    pub fn max_cycles(&self, size: Option<regwatt_workloads::Size>) -> u64 {
        use regwatt_designs::exec_model::{DEFAULT_MAX_CYCLES, PAPER_MAX_CYCLES};
        self.max_cycles.unwrap_or(match size {
            Some(regwatt_workloads::Size::Paper) => PAPER_MAX_CYCLES,
            _ => DEFAULT_MAX_CYCLES,
        })
    }

    /// The warp-instruction limit of a launch: `--max-warp-instructions`, else the default
    /// of the input size.
    pub fn max_warp_instructions(&self, size: Option<regwatt_workloads::Size>) -> u64 {
        use regwatt_designs::exec_model::{
            DEFAULT_MAX_WARP_INSTRUCTIONS, PAPER_MAX_WARP_INSTRUCTIONS,
        };
        self.max_warp_instructions.unwrap_or(match size {
            Some(regwatt_workloads::Size::Paper) => PAPER_MAX_WARP_INSTRUCTIONS,
            _ => DEFAULT_MAX_WARP_INSTRUCTIONS,
        })
    }

    /// The timing core's options for a run at `size`.
    pub fn options(
        &self,
        size: Option<regwatt_workloads::Size>,
    ) -> regwatt_sim::timing::RunOptions {
        regwatt_sim::timing::RunOptions {
            max_cycles: self.max_cycles(size),
            ..regwatt_sim::timing::RunOptions::default()
        }
    }

    /// The warp-instruction limit of a run at `size`, with a progress callback.
    pub fn watch<'a>(
        &self,
        size: Option<regwatt_workloads::Size>,
        progress: regwatt_designs::exec_model::ProgressFn<'a>,
    ) -> regwatt_designs::exec_model::Watch<'a> {
        regwatt_designs::exec_model::Watch {
            max_warp_instructions: self.max_warp_instructions(size),
            progress,
        }
    }

    /// The memory budget: `--memory-budget`, else the machine's default.
    pub fn budget(&self) -> anyhow::Result<regwatt_sim::footprint::Budget> {
        budget(self.memory_budget.as_deref())
    }
}

/// `--memory-budget` parsed, or the machine's default budget.
pub fn budget(arg: Option<&str>) -> anyhow::Result<regwatt_sim::footprint::Budget> {
    Ok(match arg {
        Some(s) => regwatt_sim::footprint::Budget::parse(s)?,
        None => regwatt_sim::footprint::Budget::default_for_machine(),
    })
}

/// Adds to a run's error how to raise the limit it met: the cycle and
/// warp-instruction limits, the memory budget.
pub fn explain_limits(e: anyhow::Error) -> anyhow::Error {
    use regwatt_designs::exec_model::SimError;
    use regwatt_sim::exec::ExecError;
    use regwatt_sim::footprint::FootprintError;
    use regwatt_sim::timing::TimingError;
    let mut hint = None;
    for c in e.chain() {
        let timing = c
            .downcast_ref::<TimingError>()
            .or_else(|| c.downcast_ref::<Box<TimingError>>().map(|b| &**b));
        if let Some(TimingError::CycleLimit { limit }) = timing {
            hint = Some(format!(
                "the launch did not finish within {limit} cycles; if it is not a runaway kernel, raise the limit with --max-cycles N (at most 2^40; the default, {} ({} at --size paper), stops a runaway kernel within about 15 s)",
                regwatt_designs::exec_model::DEFAULT_MAX_CYCLES,
                regwatt_designs::exec_model::PAPER_MAX_CYCLES
            ));
        }
        if let Some(SimError::InstructionLimit { limit, .. }) = c.downcast_ref::<SimError>() {
            hint = Some(format!(
                "the launch did not finish within {limit} warp instructions; if it is not a runaway kernel, raise the limit with --max-warp-instructions N (the default, {} ({} at --size paper), stops a runaway kernel within about 15 s)",
                regwatt_designs::exec_model::DEFAULT_MAX_WARP_INSTRUCTIONS,
                regwatt_designs::exec_model::PAPER_MAX_WARP_INSTRUCTIONS
            ));
        }
        if let Some(ExecError::InstructionLimit { limit, .. }) = c.downcast_ref::<ExecError>() {
            hint = Some(format!(
                "the launch did not finish within {limit} warp instructions; if it is not a runaway kernel, raise the limit with --max-warp-instructions N (the default, {} ({} at --size paper), stops a runaway kernel within about 10 s)",
                regwatt_sim::exec::DEFAULT_MAX_WARP_INSTRUCTIONS,
                regwatt_designs::exec_model::PAPER_MAX_WARP_INSTRUCTIONS
            ));
        }
        if let Some(FootprintError::OverBudget { .. }) = c.downcast_ref::<FootprintError>() {
            hint = Some(
                "refused before allocating: reduce the configuration or buffers, or, if the machine has the memory, raise the budget with --memory-budget SIZE"
                    .to_string(),
            );
        }
    }
    match hint {
        Some(h) => e.context(h),
        None => e,
    }
}

/// Progress of one long simulation on stderr: nothing for its first 2 seconds,
/// nothing at all when stderr is not a terminal (pipes, tests), then a spinner with the
/// launch, kernel and warp instructions so far against the limit.
pub struct LaunchProgress {
    start: std::time::Instant,
    enabled: bool,
    limit: u64,
    bar: std::cell::OnceCell<indicatif::ProgressBar>,
}

impl LaunchProgress {
    /// A progress display for launches limited to `limit` warp instructions.
    pub fn new(limit: u64) -> LaunchProgress {
        use std::io::IsTerminal as _;
        LaunchProgress {
            start: std::time::Instant::now(),
            enabled: std::io::stderr().is_terminal(),
            limit,
            bar: std::cell::OnceCell::new(),
        }
    }

    /// Reports `warp_instructions` of launch `launch` (`kernel`).
    pub fn update(&self, launch: usize, kernel: &str, warp_instructions: u64) {
        if !self.enabled || self.start.elapsed() < std::time::Duration::from_secs(2) {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(self.limit),
                indicatif::ProgressDrawTarget::stderr(),
            )
            .with_elapsed(self.start.elapsed());
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} warp instr. {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        bar.set_position(warp_instructions.min(self.limit));
        bar.set_message(format!("launch {launch} ({kernel})"));
    }

    /// Removes the display.
    pub fn finish(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
        }
    }
}

impl Drop for LaunchProgress {
    /// An error ends the run with the display removed, not left above the message.
    fn drop(&mut self) {
        self.finish();
    }
}

/// The worker threads of `--jobs` (default: available parallelism), at most one per item.
pub fn worker_threads(jobs: Option<usize>, items: usize) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, items.max(1))
}

/// `--design`'s short help: the designs' names from the registry.
pub fn design_help() -> String {
    format!(
        "Register-file design: {} (parameters: `--set design.KEY=VALUE`)",
        regwatt_designs::DesignSpec::names().join(" | ")
    )
}

/// `--node`'s help: the named nodes, and each preset's default read from the preset.
pub fn node_help() -> String {
    use regwatt_designs::config::{preset, GpuPreset};
    let defaults: Vec<String> = GpuPreset::ALL
        .iter()
        .filter_map(|&p| {
            preset(p)
                .ok()
                .map(|c| format!("{} {}", p.name(), c.power.node.name()))
        })
        .collect();
    format!(
        "Technology node: 90nm, 65nm, 45nm, 40nm, 32nm, 22nm or 12nm, or any whole nm between 22 and 90 (interpolated) [default: the preset's power.node: {}]",
        defaults.join(", ")
    )
}

/// `--design`'s and `--designs`' long help: each design's name, summary and `[design]` keys
/// from the registry.
pub fn design_long_help(first: &str) -> String {
    let mut s = format!("{first}\n");
    for d in regwatt_designs::DesignSpec::ALL {
        s.push_str(&format!("\n  {:<9} {}", d.name(), d.summary()));
        // its `--set design.KEY=VALUE` keys, from its defaults
        let keys: Vec<String> = d
            .defaults()
            .and_then(|(_, text)| text.parse::<toml::Table>().ok())
            .map(|t| t.keys().filter(|k| *k != "name").cloned().collect())
            .unwrap_or_default();
        if !keys.is_empty() {
            s.push_str(&format!(
                "\n  {:<9}   keys: design.{}",
                "",
                keys.join(", design.")
            ));
        }
    }
    s
}

/// The `--jobs` value parser: a whole number of threads, at least 1.
pub fn jobs_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096)
}

/// Runs `work(item)` for every item on `threads` threads, each taking the next item not yet
/// taken; `done(i, outcome)` is called on the worker thread as item `i` finishes.
fn run_workers<T: Sync, O>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> O + Sync,
    done: impl Fn(usize, &T, O) + Sync,
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                done(i, item, work(item));
            });
        }
    });
}

/// The outcomes `run` hands to its `put(i, outcome)` (from any thread), in the order of `i`
/// (0..n); `None` where none was put (only if a worker panicked).
fn in_order<O: Send>(n: usize, run: impl FnOnce(&(dyn Fn(usize, O) + Sync))) -> Vec<Option<O>> {
    let slots: Vec<std::sync::Mutex<Option<O>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    run(&|i, o| {
        if let Some(Ok(mut slot)) = slots.get(i).map(|m| m.lock()) {
            *slot = Some(o);
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// `work(item)` for every item on `jobs` threads (default: available parallelism), the
/// outcomes in the items' order, so they do not depend on the thread count. A worker that
/// panics takes the process down with it (`std::thread::scope` re-raises it), so every item
/// has its outcome.
pub fn parallel_ordered<T: Sync, O: Send>(
    items: &[T],
    jobs: Option<usize>,
    work: impl Fn(&T) -> O + Sync,
) -> Vec<O> {
    let threads = worker_threads(jobs, items.len());
    in_order(items.len(), |put| {
        run_workers(items, threads, work, |i, _, o| put(i, o))
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Runs `work(item)` for every item on `jobs` threads with a progress bar on stderr (elapsed
/// time, the estimated time left, `label(item)` of the last finished item); `done(i, outcome)`
/// is called on the worker thread as each item `i` finishes, in completion order (the caller
/// orders what it keeps).
pub fn parallel_each<T: Sync, O>(
    items: &[T],
    jobs: Option<usize>,
    label: impl Fn(&T) -> String + Sync,
    work: impl Fn(&T) -> O + Sync,
    done: impl Fn(usize, O) + Sync,
) {
    let threads = worker_threads(jobs, items.len());
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(items.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} (about {eta} left) {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    run_workers(items, threads, work, |i, item, o| {
        bar.set_message(label(item));
        bar.inc(1);
        done(i, o);
    });
    bar.finish_and_clear();
}

/// [`parallel_each`], the outcomes collected in the items' order (`None` only if a worker
/// panicked), so output does not depend on the thread count.
pub fn parallel_with_progress<T: Sync, O: Send>(
    items: &[T],
    jobs: Option<usize>,
    label: impl Fn(&T) -> String + Sync,
    work: impl Fn(&T) -> O + Sync,
) -> Vec<Option<O>> {
    in_order(items.len(), |put| {
        parallel_each(items, jobs, label, work, put)
    })
}

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod spec;
pub mod sram;
pub mod study_workload;
pub mod sweep;
pub mod workload;

#[cfg(test)]
mod tests {
    /// The help texts print each preset's default node, every design with its summary, and
    /// each design's `[design]` keys, read from the presets and the registry.
    #[test]
    fn help_texts_name_defaults_designs_and_keys() {
        let node = super::node_help();
        assert!(
            node.contains("rtx2060 12nm") && node.contains("gtx480 40nm"),
            "{node}"
        );
        let designs = super::design_long_help("x");
        for d in regwatt_designs::DesignSpec::ALL {
            assert!(designs.contains(d.summary()), "{designs}");
        }
        assert!(designs.contains("design.table_bytes"), "{designs}");
        assert!(!designs.contains("design.name"), "{designs}");
    }

    use super::RunLimits;
    use regwatt_designs::exec_model::{
        DEFAULT_MAX_CYCLES, DEFAULT_MAX_WARP_INSTRUCTIONS, PAPER_MAX_CYCLES,
        PAPER_MAX_WARP_INSTRUCTIONS,
    };
    use regwatt_workloads::Size;

    fn limits(cycles: Option<u64>, warps: Option<u64>) -> RunLimits {
        RunLimits {
            max_cycles: cycles,
            max_warp_instructions: warps,
            memory_budget: None,
        }
    }

    /// A built-in workload at `paper` gets the long limits, every other run (a user's spec:
    /// no size) the runaway guard; a flag given wins at every size.
    #[test]
    fn run_limits_follow_the_input_size_unless_given() {
        let d = limits(None, None);
        for s in [None, Some(Size::Ci), Some(Size::Default)] {
            assert_eq!(d.max_cycles(s), DEFAULT_MAX_CYCLES);
            assert_eq!(d.max_warp_instructions(s), DEFAULT_MAX_WARP_INSTRUCTIONS);
            assert_eq!(d.options(s).max_cycles, DEFAULT_MAX_CYCLES);
        }
        assert_eq!(d.max_cycles(Some(Size::Paper)), PAPER_MAX_CYCLES);
        assert_eq!(
            d.watch(Some(Size::Paper), &|_, _, _| {})
                .max_warp_instructions,
            PAPER_MAX_WARP_INSTRUCTIONS
        );
        // syrk's paper launch (228 M warp instructions) fits; the runaway guard would stop it
        const {
            assert!(PAPER_MAX_WARP_INSTRUCTIONS > 228_000_000);
            assert!(DEFAULT_MAX_WARP_INSTRUCTIONS < 228_000_000);
        }
        let given = limits(Some(7), Some(9));
        for s in [None, Some(Size::Paper)] {
            assert_eq!(given.max_cycles(s), 7);
            assert_eq!(given.max_warp_instructions(s), 9);
        }
    }
}
