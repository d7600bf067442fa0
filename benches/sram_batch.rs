//! Batch CACTI-style estimates: the mean time per configuration over the 487
//! CACTI 7 training cfgs (`calibrations/cacti7-train-cfg/`), each read and estimated in one
//! process with its technology parsed once (what `regwatt sram --cacti-cfg DIR` does). The
//! criterion figure is the time of the whole batch; divide by 487 for a configuration.
use std::collections::HashMap;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use regwatt_power::cacti_cfg;
use regwatt_power::sram::estimate;
use regwatt_tech::Technology;

fn bench(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("calibrations/cacti7-train-cfg");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("sram_batch: {} missing", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cfg"))
        .collect();
    files.sort();
    let n = files.len();
    let mut g = c.benchmark_group("sram_batch");
    g.sample_size(10);
    g.bench_function(format!("{n}_cacti7_cfgs"), |b| {
        b.iter(|| {
            let mut techs: HashMap<(u64, u64), Technology> = HashMap::new();
            let mut ok = 0usize;
            for f in &files {
                let Ok(cfg) = cacti_cfg::read_file(f) else {
                    continue;
                };
                let Ok(m) = cfg.to_sram_spec() else { continue };
                let s = &m.spec;
                let key = (s.node_nm.to_bits(), s.temperature.k().to_bits());
                let t = match techs.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let Ok(t) = Technology::for_node(s.node_nm, s.temperature) else {
                            continue;
                        };
                        v.insert(t)
                    }
                };
                ok += usize::from(estimate(s, t).is_ok());
            }
            ok
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
