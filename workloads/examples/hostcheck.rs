//! Host cross-check helper for `workloads/hostcheck/run.py` (not used by the simulator).
//!
//! `hostcheck [--size ci|default|paper] dump DIR [NAME...]`: for each workload, writes the spec's initial buffers as raw
//! little-endian `DIR/<name>/in/<buffer>.bin`.
//! `hostcheck verify DIR [NAME...]`: reads `DIR/<name>/out/<buffer>.bin` (final buffers written
//! by the host-emulated CUDA kernels), runs the Rust reference on the initial buffers and
//! compares with `regwatt_workloads::check`. Exit status 1 if any workload mismatches.

use std::path::Path;
use std::process::ExitCode;

use regwatt_sim::launch::{DType, HostData};
use regwatt_workloads::{all, check, Buffers, Size, Workload};

fn to_bytes(d: &HostData) -> Vec<u8> {
    match d {
        HostData::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::U8(v) => v.clone(),
        HostData::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::U16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        HostData::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    }
}

fn from_bytes(dtype: DType, b: &[u8]) -> HostData {
    macro_rules! conv {
        ($t:ty, $n:expr, $v:ident) => {
            HostData::$v(
                b.chunks_exact($n)
                    .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $n])))
                    .collect(),
            )
        };
    }
    match dtype {
        DType::F32 => conv!(f32, 4, F32),
        DType::F64 => conv!(f64, 8, F64),
        DType::I8 => conv!(i8, 1, I8),
        DType::U8 => HostData::U8(b.to_vec()),
        DType::I16 => conv!(i16, 2, I16),
        DType::U16 => conv!(u16, 2, U16),
        DType::I32 => conv!(i32, 4, I32),
        DType::U32 => conv!(u32, 4, U32),
        DType::I64 => conv!(i64, 8, I64),
        DType::U64 => conv!(u64, 8, U64),
    }
}

fn dump(w: &Workload, dir: &Path, size: Size) -> Result<(), String> {
    let spec = w.load_spec(size).map_err(|e| e.to_string())?;
    let d = dir.join(w.name).join("in");
    std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
    for (name, data) in spec.initial_buffers() {
        std::fs::write(d.join(format!("{name}.bin")), to_bytes(&data))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn verify(w: &Workload, dir: &Path, size: Size) -> Result<(), String> {
    let spec = w.load_spec(size).map_err(|e| e.to_string())?;
    let expected = w
        .expected_final(&spec.initial_buffers(), &spec)
        .map_err(|e| e.to_string())?;
    let mut actual = Buffers::new();
    for (name, b) in &spec.buffers {
        let path = dir.join(w.name).join("out").join(format!("{name}.bin"));
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        actual.insert(name.clone(), from_bytes(b.dtype, &bytes));
    }
    check(w, &expected, &actual).map_err(|m| m.to_string())
}

/// Removes `--size NAME` from `args` and returns the size (`ci` without it).
fn take_size(args: &mut Vec<String>) -> Result<Size, String> {
    match args.iter().position(|a| a == "--size") {
        None => Ok(Size::Ci),
        Some(i) => {
            let v = args.get(i + 1).cloned().ok_or("--size needs a value")?;
            args.drain(i..=i + 1);
            v.parse()
                .map_err(|e: regwatt_workloads::WorkloadError| e.to_string())
        }
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let size = match take_size(&mut args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if args.len() < 2 || (args[0] != "dump" && args[0] != "verify") {
        eprintln!("usage: hostcheck dump|verify DIR [NAME...]");
        return ExitCode::from(2);
    }
    let dir = Path::new(&args[1]);
    let names = &args[2..];
    let mut failed = false;
    for w in all()
        .iter()
        .filter(|w| names.is_empty() || names.iter().any(|n| n == w.name))
    {
        let r = if args[0] == "dump" {
            dump(w, dir, size)
        } else {
            verify(w, dir, size)
        };
        match r {
            Ok(()) => println!("{:<16} ok", w.name),
            Err(e) => {
                failed = true;
                println!("{:<16} FAIL {e}", w.name);
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
