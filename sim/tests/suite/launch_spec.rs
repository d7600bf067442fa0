//! Integration tests of the launch-spec loader (part 2).

use std::collections::BTreeMap;
use std::path::Path;

use regwatt_sim::launch::{HostData, LaunchArg, LaunchSpec, MemFiles, SpecError, SplitMix64};

use crate::support::conv;
use conv::{conv3x3_params, testdata};

fn mem() -> MemFiles {
    MemFiles::new("builtin:t")
        .with("k.ptx", &b".version 7.0\n"[..])
        .with(
            "w.npy",
            include_bytes!("../../testdata/launch/w.npy").to_vec(),
        )
}

const HEAD: &str = "ptx = \"k.ptx\"\n";
const LAUNCH: &str =
    "[[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\nargs = []\n";

fn parse(text: &str) -> Result<LaunchSpec, SpecError> {
    LaunchSpec::parse("t.toml", text, &mem())
}

/// Parses and returns the error's text, failing the test if it parsed.
fn err_of(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("spec unexpectedly accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn loads_fixture_from_disk() {
    let spec = LaunchSpec::load(&testdata().join("conv.toml")).unwrap();
    assert!(spec.ptx_source.contains(".entry conv3x3"));
    assert_eq!(spec.buffers.len(), 4);
    assert_eq!(spec.launches.len(), 2);
    let l = &spec.launches[0];
    assert_eq!(l.kernel, "conv3x3");
    assert_eq!(
        (l.grid, l.block, l.dynamic_shared_bytes),
        ([4, 4, 1], [16, 16, 1], 0)
    );
    assert_eq!(l.threads_per_block(), 256);
    assert_eq!(l.num_blocks(), 16);
    assert_eq!(
        l.args,
        vec![
            LaunchArg::Buffer("img".into()),
            LaunchArg::Buffer("w".into()),
            LaunchArg::Buffer("out".into()),
            LaunchArg::Int(64),
            LaunchArg::Int(64),
        ]
    );
    assert_eq!(spec.launches[1].dynamic_shared_bytes, 0);
    let init = spec.initial_buffers();
    assert_eq!(
        init["w"],
        HostData::F32(vec![0.5, -1.0, 2.0, 0.25, 0.0, 1.0, 1.0, 0.0, -0.5])
    );
    assert_eq!(init["out"], HostData::F32(vec![0.0; 4096]));
    assert_eq!(
        init["idx"],
        HostData::I32((0..16).map(|i| 100 - 2 * i).collect())
    );
    // img follows the uniform contract: SplitMix64(7), top 24 bits, -1 + 2u, rounded to f32.
    let mut g = SplitMix64::new(7);
    let exp: Vec<f32> = (0..4096)
        .map(|_| (-1.0 + 2.0 * ((g.next_u64() >> 40) as f64 / 16777216.0)) as f32)
        .collect();
    assert_eq!(init["img"], HostData::F32(exp));
}

#[test]
fn same_spec_from_memory_equals_disk() {
    let text = std::fs::read_to_string(testdata().join("conv.toml")).unwrap();
    let files = MemFiles::new("builtin:conv")
        .with(
            "conv.ptx",
            include_bytes!("../../testdata/launch/conv.ptx").to_vec(),
        )
        .with(
            "w.npy",
            include_bytes!("../../testdata/launch/w.npy").to_vec(),
        );
    let a = LaunchSpec::parse("builtin:conv/conv.toml", &text, &files).unwrap();
    let b = LaunchSpec::load(&testdata().join("conv.toml")).unwrap();
    assert_eq!(a.buffers, b.buffers);
    assert_eq!(a.launches, b.launches);
    assert_eq!(a.ptx_source, b.ptx_source);
}

#[test]
fn param_block_for_fixture() {
    let spec = LaunchSpec::load(&testdata().join("conv.toml")).unwrap();
    spec.check_kernels(&["conv3x3"]).unwrap();
    let params = conv3x3_params();
    let addrs: BTreeMap<&str, u64> = [("img", 0x1000), ("w", 0x2000), ("out", 0x3000)].into();
    let pb = spec
        .param_block(0, &params, &|n| addrs.get(n).copied())
        .unwrap();
    assert_eq!(pb.offsets, vec![0, 8, 16, 24, 28]);
    assert_eq!(&pb.bytes[16..24], &0x3000u64.to_le_bytes());
    assert_eq!(&pb.bytes[24..], &[64, 0, 0, 0, 64, 0, 0, 0]);
    // Too few parameters: the extra argument is named with its position.
    let e = spec
        .param_block(0, &params[..4], &|n| addrs.get(n).copied())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("conv.toml:29:32:") && e.contains("launch[0].args[4]"),
        "{e}"
    );
    let e = spec.check_kernels(&["other"]).unwrap_err().to_string();
    assert!(
        e.contains("launch[0].kernel") && e.contains("conv3x3"),
        "{e}"
    );
}

#[test]
fn minimal_spec_from_memory() {
    let s = parse(&format!("{HEAD}{LAUNCH}")).unwrap();
    assert!(s.buffers.is_empty());
    assert_eq!(s.launches[0].block, [32, 1, 1]);
}

#[test]
fn unknown_keys_are_rejected_with_position() {
    let e = err_of(&format!("{HEAD}colour = 3\n{LAUNCH}"));
    assert!(e.starts_with("t.toml:2:1:") && e.contains("colour"), "{e}");
    let e = err_of(&format!("{HEAD}{LAUNCH}gird = [1, 1, 1]\n"));
    assert!(e.contains("gird"), "{e}");
    let e = err_of(&format!(
        "{HEAD}[buffers.a]\ndtype = \"f32\"\nlen = 4\nsize = 3\ninit = {{ kind = \"fill\", value = 0 }}\n{LAUNCH}"
    ));
    assert!(e.contains("size"), "{e}");
    let e = err_of(&format!(
        "{HEAD}[buffers.a]\ndtype = \"f32\"\nlen = 4\ninit = {{ kind = \"fill\", value = 0, seed = 1 }}\n{LAUNCH}"
    ));
    assert!(
        e.contains("buffers.a.init.seed") && e.contains("t.toml:5:"),
        "{e}"
    );
}

#[test]
fn missing_keys_are_rejected() {
    let e = err_of(LAUNCH);
    assert!(e.contains("ptx"), "{e}");
    let e = err_of(HEAD);
    assert!(e.contains("launch"), "{e}");
    let e = err_of(&format!("{HEAD}launch = []\n"));
    assert!(e.contains("at least one"), "{e}");
    let e = err_of(&format!(
        "{HEAD}[buffers.a]\ndtype = \"f32\"\nlen = 4\ninit = {{ kind = \"iota\", start = 0 }}\n{LAUNCH}"
    ));
    assert!(
        e.contains("buffers.a.init.step") && e.contains("missing"),
        "{e}"
    );
}

fn buf(dtype: &str, len: &str, init: &str) -> String {
    format!("{HEAD}[buffers.b]\ndtype = \"{dtype}\"\nlen = {len}\ninit = {init}\n{LAUNCH}")
}

#[test]
fn buffer_validation() {
    let e = err_of(&buf("f16", "4", "{ kind = \"fill\", value = 0 }"));
    assert!(
        e.contains("t.toml:3:9: buffers.b.dtype") && e.contains("f16"),
        "{e}"
    );
    let e = err_of(&buf("f32", "0", "{ kind = \"fill\", value = 0 }"));
    assert!(e.contains("t.toml:4:7: buffers.b.len"), "{e}");
    assert!(err_of(&buf("f32", "-3", "{ kind = \"fill\", value = 0 }")).contains("buffers.b.len"));
    assert!(err_of(&buf("u8", "2000000000", "{ kind = \"fill\", value = 0 }")).contains("len"));
    let e = err_of(&buf("f32", "\"4\"", "{ kind = \"fill\", value = 0 }"));
    assert!(e.contains("t.toml:4:7: buffers.b.len"), "{e}");
    let e = err_of(&buf("u8", "4", "{ kind = \"fill\", value = 256 }"));
    assert!(
        e.contains("buffers.b.init.value") && e.contains("256"),
        "{e}"
    );
    let e = err_of(&buf("i32", "4", "{ kind = \"fill\", value = 1.5 }"));
    assert!(e.contains("integer"), "{e}");
    assert!(err_of(&buf("f32", "4", "{ kind = \"fill\", value = 1e39 }")).contains("f32"));
    assert!(err_of(&buf("f32", "4", "{ kind = \"fill\", value = nan }")).contains("finite"));
    assert!(err_of(&buf("f32", "4", "{ kind = \"fill\", value = 16777217 }")).contains("exactly"));
    let e = err_of(&buf(
        "u8",
        "10",
        "{ kind = \"iota\", start = 250, step = 1 }",
    ));
    assert!(
        e.contains("buffers.b.init.step") && e.contains("259"),
        "{e}"
    );
    assert!(parse(&buf(
        "u8",
        "6",
        "{ kind = \"iota\", start = 250, step = 1 }"
    ))
    .is_ok());
    let e = err_of(&buf(
        "i8",
        "4",
        "{ kind = \"uniform\", min = 5, max = 1, seed = 1 }",
    ));
    assert!(e.contains("exceeds"), "{e}");
    let e = err_of(&buf(
        "i8",
        "4",
        "{ kind = \"uniform\", min = -200, max = 1, seed = 1 }",
    ));
    assert!(e.contains("init.min"), "{e}");
    let e = err_of(&buf(
        "f32",
        "4",
        "{ kind = \"uniform\", min = 0.0, max = 1.0, seed = -1 }",
    ));
    assert!(e.contains("init.seed"), "{e}");
    let e = err_of(&buf("f32", "4", "{ kind = \"gauss\" }"));
    assert!(e.contains("init.kind") && e.contains("gauss"), "{e}");
    let e = err_of(&buf("f32", "4", "{ value = 0 }"));
    assert!(e.contains("init.kind"), "{e}");
    let e = err_of(&format!(
        "{HEAD}[buffers.\"a b\"]\ndtype = \"f32\"\nlen = 4\ninit = {{ kind = \"fill\", value = 0 }}\n{LAUNCH}"
    ));
    assert!(e.contains("buffers.a b"), "{e}");
}

#[test]
fn npy_init_checks_dtype_len_and_file() {
    assert!(parse(&buf("f32", "9", "{ kind = \"npy\", path = \"w.npy\" }")).is_ok());
    assert!(parse(&buf("f32", "9", "{ kind = \"npy\", path = \"./w.npy\" }")).is_ok());
    let e = err_of(&buf("f32", "8", "{ kind = \"npy\", path = \"w.npy\" }"));
    assert!(
        e.contains("buffers.b.init.path") && e.contains("9 × f32"),
        "{e}"
    );
    let e = err_of(&buf("f64", "9", "{ kind = \"npy\", path = \"w.npy\" }"));
    assert!(e.contains("f64"), "{e}");
    let e = err_of(&buf("f32", "9", "{ kind = \"npy\", path = \"none.npy\" }"));
    assert!(e.contains("builtin:t/none.npy"), "{e}");
    let e = err_of(&buf("f32", "9", "{ kind = \"npy\", path = \"k.ptx\" }"));
    assert!(e.contains("magic"), "{e}");
}

fn launch(fields: &str) -> String {
    format!("{HEAD}[buffers.a]\ndtype = \"u32\"\nlen = 4\ninit = {{ kind = \"fill\", value = 0 }}\n[[launch]]\n{fields}\n")
}

#[test]
fn launch_validation() {
    let ok = "kernel = \"k\"\ngrid = [2, 1, 1]\nblock = [32, 32, 1]\nargs = [\"a\", 1, -2.5]";
    let s = parse(&launch(ok)).unwrap();
    assert_eq!(s.launches[0].args[2], LaunchArg::Float(-2.5));
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [2, 1, 1]\nblock = [32, 33, 1]\nargs = []",
    ));
    assert!(e.contains("launch[0].block") && e.contains("1056"), "{e}");
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [0, 1, 1]\nblock = [32, 1, 1]\nargs = []",
    ));
    assert!(e.contains("t.toml:8:9: launch[0].grid[0]"), "{e}");
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [2, 1]\nblock = [32, 1, 1]\nargs = []",
    ));
    assert!(
        e.contains("launch[0].grid") && e.contains("exactly 3"),
        "{e}"
    );
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 65]\nargs = []",
    ));
    assert!(e.contains("launch[0].block[2]"), "{e}");
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = [\"b\"]",
    ));
    assert!(
        e.contains("t.toml:10:9: launch[0].args[0]") && e.contains("unknown buffer \"b\""),
        "{e}"
    );
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = [true]",
    ));
    assert!(e.contains("launch[0].args[0]"), "{e}");
    let e = err_of(&launch(
        "kernel = \"9k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = []",
    ));
    assert!(e.contains("launch[0].kernel"), "{e}");
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\ndynamic_shared_bytes = -1\nargs = []",
    ));
    assert!(e.contains("launch[0].dynamic_shared_bytes"), "{e}");
    let e = err_of(&launch(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]",
    ));
    assert!(e.contains("args"), "{e}");
}

#[test]
fn missing_ptx_and_syntax_errors_name_the_file() {
    let e = err_of(&format!("ptx = \"nope.ptx\"\n{LAUNCH}"));
    assert!(
        e.contains("t.toml:1:7: ptx") && e.contains("builtin:t/nope.ptx"),
        "{e}"
    );
    let e = err_of("ptx = \"k.ptx\n");
    assert!(e.starts_with("t.toml:1:"), "{e}");
    let e = LaunchSpec::load(Path::new("/nonexistent/x.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/x.toml"), "{e}");
}

#[test]
#[ignore = "prints sample messages for the README"]
fn show_messages() {
    for t in [
        buf("f32", "\"4\"", "{ kind = \"fill\", value = 0 }"),
        format!("{HEAD}colour = 3\n{LAUNCH}"),
        buf("u8", "4", "{ kind = \"fill\", value = 256 }"),
        launch("kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = [\"b\"]"),
    ] {
        println!("{}", err_of(&t));
    }
}

#[test]
fn resolved_toml_round_trips_with_explicit_defaults() {
    let spec = LaunchSpec::load(&testdata().join("conv.toml")).unwrap();
    let text = spec.to_resolved_toml();
    assert!(
        text.matches("dynamic_shared_bytes = 0").count() == 2,
        "{text}"
    );
    let files = regwatt_sim::launch::DirFiles::new(testdata());
    let back = LaunchSpec::parse("resolved.toml", &text, &files).unwrap();
    assert_eq!(back.buffers.len(), spec.buffers.len());
    for (name, b) in &spec.buffers {
        let a = &back.buffers[name];
        assert_eq!(
            (a.dtype, a.len, &a.init),
            (b.dtype, b.len, &b.init),
            "{name}"
        );
    }
    assert_eq!(back.launches.len(), spec.launches.len());
    for (a, b) in back.launches.iter().zip(&spec.launches) {
        assert_eq!(
            (&a.kernel, a.grid, a.block, &a.args),
            (&b.kernel, b.grid, b.block, &b.args)
        );
        assert_eq!(a.dynamic_shared_bytes, b.dynamic_shared_bytes);
    }
}

#[test]
fn spec_with_twenty_thousand_launches_loads_in_linear_time() {
    // every launch's position is looked up (for its messages): a count of the newlines before
    // each one made this quadratic (68 s for 20 000 launches); no timing is asserted
    let n = 20_000;
    let mut text = String::from(HEAD);
    for _ in 0..n {
        text += LAUNCH;
    }
    let spec = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spec.launches.len(), n);
    // a bad value in the last launch is still placed on its own line
    let bad = text + "[[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [0, 1, 1]\nargs = []\n";
    let msg = err_of(&bad);
    let line = 1 + 5 * n + 4;
    assert!(msg.contains(&format!("t.toml:{line}:")), "{msg}");
    assert!(msg.contains(&format!("launch[{n}].block")), "{msg}");
}
