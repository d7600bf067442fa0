//! `cargo run -p regwatt-sim --example ptx_check -- FILE.ptx...`: checks PTX files with the
//! front end's checker (`regwatt_sim::ptx::check`) and prints one line per file: `ok` or
//! `error <rule> <message>` for the first violation (all violations with `--all`). Used by
//! `scripts/ptx_check_vs_ptxas.py`, which compares the verdicts with ptxas. Exit status 0.

use regwatt_sim::ptx::{check, parser, PtxError};

fn main() {
    let mut all = false;
    for arg in std::env::args().skip(1) {
        if arg == "--all" {
            all = true;
            continue;
        }
        let src = match std::fs::read_to_string(&arg) {
            Ok(s) => s,
            Err(e) => {
                println!("{arg}\tio\t{e}");
                continue;
            }
        };
        let errors: Vec<PtxError> = match parser::parse_unchecked(&arg, &src) {
            Ok((m, map)) => check::check_all(&arg, &m, &map),
            Err(e) => vec![e],
        };
        if errors.is_empty() {
            println!("{arg}\tok\t");
            continue;
        }
        for e in errors.iter().take(if all { usize::MAX } else { 1 }) {
            let kind = match e {
                PtxError::Check { rule, .. } => rule.name().to_string(),
                _ => "syntax".to_string(),
            };
            println!(
                "{arg}\t{kind}\t{}",
                e.to_string().replace(['\t', '\n'], " ")
            );
        }
    }
}
