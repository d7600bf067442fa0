//! The parser (and the analyses on whatever it accepts) never panic: arbitrary bytes and
//! mutations of valid PTX either parse or give an error with a location.

use proptest::prelude::*;
use regwatt_sim::analysis::analyze;
use regwatt_sim::ptx::{parse, PtxError};

const SEEDS: &[&str] = &[
    include_str!("../../testdata/ptx/divergent_call.ptx"),
    include_str!("../../testdata/ptx/shared_tile.ptx"),
    include_str!("../../testdata/ptx/vec_load.ptx"),
    include_str!("../../testdata/ptx/atomics_shfl.ptx"),
];

const VOCAB: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ":",
    "@",
    "!",
    "+",
    "-",
    "<",
    ">",
    "|",
    "%r1",
    "%rd1",
    "%p1",
    "%tid.x",
    "$L__BB0_1",
    "0f3F800000",
    "0d3FF0000000000000",
    "0x7fffffffffffffff",
    "18446744073709551615",
    "99999999999999999999",
    ".reg",
    ".b32",
    ".param",
    ".shared",
    ".entry",
    ".func",
    "bra",
    "call",
    "ret",
    "ld.global.v4.f32",
    "_",
    "%r<4294967295>",
    "[]",
    ".align 0",
    "\n",
    "/*",
    "\"",
    ".extern",
    "= {1,2}",
    "mov.u32",
    "setp.lt.s32",
];

fn check(src: &str) {
    match parse("fuzz.ptx", src) {
        Ok(m) => {
            for f in m.functions.iter().filter(|f| f.defined) {
                let a = analyze(f);
                assert_eq!(a.release.pir.len(), f.instrs.len());
            }
        }
        Err(PtxError::Syntax { line, col, .. }) | Err(PtxError::Check { line, col, .. }) => {
            assert!(line >= 1 && col >= 1)
        }
        Err(PtxError::Eof { .. }) => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        // A fixed seed, so a run is repeatable; failures found are kept in the
        // .proptest-regressions file beside this one and replayed first
        rng_seed: proptest::test_runner::RngSeed::Fixed(25001),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_token_soup_never_panics(toks in prop::collection::vec(prop::sample::select(VOCAB), 0..80)) {
        check(&toks.join(" "));
    }

    #[test]
    fn mutated_valid_ptx_never_panics(
        which in 0..SEEDS.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, prop::sample::select(VOCAB), 1usize..40), 1..6),
    ) {
        let mut s: Vec<u8> = SEEDS[which].as_bytes().to_vec();
        for (at, kind, tok, len) in edits {
            if s.is_empty() { break; }
            let i = at.index(s.len());
            match kind {
                0 => { let end = (i + len).min(s.len()); s.drain(i..end); }
                1 => { s.splice(i..i, tok.bytes()); }
                2 => { s[i] = b"{}();,.%@!0x_[]"[len % 15]; }
                _ => { let end = (i + len).min(s.len()); let dup: Vec<u8> = s[i..end].to_vec(); s.splice(i..i, dup); }
            }
        }
        check(&String::from_utf8_lossy(&s));
    }
}

#[test]
fn errors_name_file_line_and_text() {
    let e = parse(
        "bad.ptx",
        ".version 7.0\n.target sm_75\n.entry k()\n{\n  frobnicate.u32 %r1;\n}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("bad.ptx:5:3:"), "{e}");
    assert!(e.contains("frobnicate"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "{".repeat(200_000);
    check(&format!(
        ".version 7.0\n.target sm_75\n.global .u32 g[4] = {deep};"
    ));
    check(&format!(
        ".version 7.0\n.target sm_75\n.entry k()\n{{\n.reg .b32 %r<2>;\nmov.b32 %r1, {deep};\n}}"
    ));
    check(&format!(".version 7.0\n.target sm_75\n.entry k(){deep}"));
}

/// A file that ends inside a construct names file, line and column of the end of the input,
/// and says "unexpected end of input" once (it used to print
/// `truncated.ptx: unexpected end of input: unexpected end of input`).
#[test]
fn truncated_input_names_the_end_position() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/heldout/repro/truncated.ptx"
    );
    let src = std::fs::read_to_string(p).unwrap();
    // the file ends without a newline after `fma.rn.f32 \t%f4, %f2, `
    let line = src.lines().count();
    let col = src.lines().last().unwrap().len() + 1;
    let e = parse("truncated.ptx", &src).unwrap_err();
    assert!(matches!(e, PtxError::Eof { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!("truncated.ptx:{line}:{col}: unexpected end of input")
    );

    // with what was expected, and counting a trailing newline as a new line
    let e = parse("e.ptx", ".version 7.0\n.entry k() {\n  ret;\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "e.ptx:4:1: unexpected end of input (unterminated function body)"
    );
    let e = parse(
        "e.ptx",
        ".version 7.0\n.entry k() {\n.reg .b32 %r<2>;\nmov.u32 %r1",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("e.ptx:4:12: unexpected end of input ("),
        "{e}"
    );
    assert_eq!(e.matches("end of input").count(), 1, "{e}");
}
