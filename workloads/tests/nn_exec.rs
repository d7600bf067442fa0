//! The seed-001 NN workloads in regwatt-sim's functional executor.
//!
//! * The `_lreg` versions' real threads (and the `_smem` versions) produce the baseline's
//!   outputs bit for bit: the worker threads and the shared-memory copy change where operands
//!   come from, never the arithmetic. The `_lskip` versions leave the inverted L of each conv
//!   layer at 0 and the rest of the conv outputs equal to the baseline's.
//! * A batch of two images (the specs run one) indexes images by `blockIdx.y`: image 0's
//!   outputs equal the one-image run's, and the whole batch matches the reference.

use regwatt_sim::exec::{run_spec, RunOptions};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_workloads::nn::{INPUTS, VERSIONS};
use regwatt_workloads::{check, Buffers, Workload};

const OUTPUTS: [&str; 4] = ["c1", "c2", "f3", "out"];

fn run(spec: &LaunchSpec) -> Buffers {
    run_spec(spec, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", spec.file))
        .buffers
}

fn f32s<'a>(b: &'a Buffers, name: &str) -> &'a [f32] {
    match &b[name] {
        HostData::F32(v) => v,
        other => panic!("{name}: {:?}", other.dtype()),
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Index `k` of a buffer of `side` x `side` maps lies in the last row or column of its map.
fn in_last_row_or_column(k: usize, side: usize) -> bool {
    k % side == side - 1 || (k / side) % side == side - 1
}

#[test]
fn lreg_and_smem_outputs_equal_the_baseline_bit_for_bit() {
    for (prefix, input) in INPUTS {
        let workload = |v: &str| regwatt_workloads::get(&format!("{prefix}{v}")).unwrap();
        let base = run(&workload("").load_spec(regwatt_workloads::Size::Ci).unwrap());
        for v in VERSIONS.into_iter().filter(|v| !v.is_empty()) {
            let w = workload(v);
            let got = run(&w.load_spec(regwatt_workloads::Size::Ci).unwrap());
            for name in OUTPUTS {
                let (b, g) = (f32s(&base, name), f32s(&got, name));
                match (v, name) {
                    ("_lskip", "c1" | "c2") => {
                        let side = if name == "c1" { input.c1() } else { input.c2() };
                        for (k, (x, y)) in b.iter().zip(g).enumerate() {
                            let want = if in_last_row_or_column(k, side) {
                                0.0
                            } else {
                                *x
                            };
                            assert_eq!(y.to_bits(), want.to_bits(), "{}: {name}[{k}]", w.name);
                        }
                    }
                    ("_lskip", _) => assert_ne!(bits(b), bits(g), "{}: {name}", w.name),
                    _ => assert_eq!(bits(b), bits(g), "{}: {name}", w.name),
                }
            }
        }
    }
}

/// `w`'s spec with a batch of `batch` images: the per-image buffers `batch` times as long (the
/// `uniform` initialiser draws element i the same way whatever the length, so image 0 keeps
/// its pixels) and every launch's `gridDim.y` = `batch`.
fn batched(w: &Workload, batch: usize) -> LaunchSpec {
    let mut section = String::new();
    let text: Vec<String> = w
        .spec_toml(regwatt_workloads::Size::Ci)
        .expect("ci spec")
        .lines()
        .map(|l| {
            if let Some(s) = l.strip_prefix("[buffers.") {
                section = s.trim_end_matches(']').to_string();
            }
            let per_image = ["img", "c1", "c2", "f3", "out"].contains(&section.as_str());
            if let (true, Some(n)) = (per_image, l.strip_prefix("len = ")) {
                format!("len = {}", n.parse::<usize>().unwrap() * batch)
            } else if let Some(g) = l.strip_prefix("grid = [") {
                let (x, rest) = g.split_once(", 1, ").expect("grid = [x, 1, 1]");
                format!("grid = [{x}, {batch}, {rest}")
            } else {
                l.to_string()
            }
        })
        .collect();
    LaunchSpec::parse(
        &format!("{}-batch{batch}", w.name),
        &text.join("\n"),
        &w.spec_files(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_batch_of_two_images_is_indexed_by_block_y() {
    for (prefix, input) in INPUTS {
        for v in VERSIONS {
            let w = regwatt_workloads::get(&format!("{prefix}{v}")).unwrap();
            let one = run(&w.load_spec(regwatt_workloads::Size::Ci).unwrap());
            let spec = batched(w, 2);
            assert!(spec.launches.iter().all(|l| l.grid[1] == 2));
            let init = spec.initial_buffers();
            assert_eq!(f32s(&init, "img").len(), 2 * input.side * input.side);
            let two = run(&spec);
            let expected = w.expected_final(&init, &spec).unwrap();
            check(w, &expected, &two).unwrap_or_else(|m| panic!("{} batch 2: {m}", w.name));
            for name in OUTPUTS {
                let (a, b) = (f32s(&one, name), f32s(&two, name));
                assert_eq!(b.len(), 2 * a.len());
                assert_eq!(bits(&b[..a.len()]), bits(a), "{}: {name}, image 0", w.name);
                assert_ne!(bits(&b[a.len()..]), bits(a), "{}: {name}, image 1", w.name);
            }
        }
    }
}
