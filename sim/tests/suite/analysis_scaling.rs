//! The analyses take time linear (or n log n) in the size of the program: hostile PTX with tens
//! of thousands of branches or loops is analysed in about a second in the test profile, where
//! quadratic passes (a dominator-tree walk per query, a fresh array of every block per branch
//! region or per loop) took minutes and gigabytes. No timing is asserted (CI machines are
//! loaded); the tests finish, or time out, and check what the analyses found.

use regwatt_sim::analysis::{analyze_for, kernel_report, AllocTarget};
use regwatt_sim::ptx::parse;

const HEAD: &str = ".version 8.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry chain(\n\t.param .u64 chain_param_0,\n\t.param .u32 chain_param_1\n)\n{\n\
    \t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\n\
    \tld.param.u64 %rd1, [chain_param_0];\n\tld.param.u32 %r1, [chain_param_1];\n\
    \tmov.u32 %r2, %tid.x;\n\tmov.u32 %r3, 0;\n";

const TAIL: &str = "\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r2, 4;\n\
    \tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r3;\n\tret;\n}\n";

/// A kernel whose body is `n` repetitions of `body(i)`.
fn kernel(n: usize, body: impl Fn(usize) -> String) -> String {
    let mut s = String::from(HEAD);
    for i in 0..n {
        s += &body(i);
    }
    s + TAIL
}

#[test]
fn long_branch_chain_is_analysed_in_linear_time() {
    // `if (tid < i % 97) r3 += n;` 20 000 times: every branch divergent, every region one block
    let n = 20_000;
    let src = kernel(n, |i| {
        format!(
            "\tsetp.lt.u32 %p1, %r2, {};\n\t@%p1 bra $L__BB0_{i};\n\tadd.s32 %r3, %r3, %r1;\n\
             $L__BB0_{i}:\n",
            i % 97
        )
    });
    let m = parse("chain.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("chain").expect("kernel");
    for target in [AllocTarget::SM75, AllocTarget::NO_UNIFORM] {
        let r = kernel_report(&m, f, &analyze_for(f, target));
        assert_eq!(r.divergent_branches, n as u32);
        assert_eq!(r.basic_blocks, 2 * n as u32 + 1);
        assert_eq!(r.loops, 0);
        // tid, the sum, the parameter pointer (a pair) and a predicate's worth of room: the
        // chain needs no more registers than one link of it
        assert!(r.registers < 16, "{r:?}");
    }
}

#[test]
fn long_chain_of_loops_is_analysed_in_linear_time() {
    // `for (j = 0; j < n; j++) r3 += tid;` 20 000 times, one after the other
    let n = 20_000;
    let src = kernel(n, |i| {
        format!(
            "\tmov.u32 %r4, 0;\n$L__BB0_{i}:\n\tadd.s32 %r3, %r3, %r2;\n\tadd.s32 %r4, %r4, 1;\n\
             \tsetp.lt.u32 %p1, %r4, %r1;\n\t@%p1 bra $L__BB0_{i};\n"
        )
    });
    let m = parse("loops.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("chain").expect("kernel");
    assert_eq!(f.cfg.loops.len(), n);
    let r = kernel_report(&m, f, &analyze_for(f, AllocTarget::SM75));
    assert_eq!(r.loops, n as u32);
    assert!(r.registers < 16, "{r:?}");
}

#[test]
fn long_chain_of_early_exits_is_analysed_in_linear_time() {
    // `if (tid == i) goto end; r3 += n;` 20 000 times: every branch's divergent region is
    // every later block, so listing the regions (uniform values, release flags) cost the
    // square of the chain's length in time and memory (25 s and 1.2 GB)
    let n = 20_000;
    let mut src = kernel(n, |i| {
        format!("\tsetp.eq.u32 %p1, %r2, {i};\n\t@%p1 bra $L__END;\n\tadd.s32 %r3, %r3, %r1;\n")
    });
    src = src.replace("\tcvta.to.global", "$L__END:\n\tcvta.to.global");
    let m = parse("exits.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("chain").expect("kernel");
    for target in [AllocTarget::SM75, AllocTarget::NO_UNIFORM] {
        let r = kernel_report(&m, f, &analyze_for(f, target));
        assert_eq!(r.divergent_branches, n as u32);
        assert!(r.registers < 16, "{r:?}");
    }
}

#[test]
fn deeply_nested_branches_are_analysed_in_linear_time() {
    // `if (tid >= 0) { r3 += n; if (tid >= 1) { r3 += n; ... } r3 += 1; } r3 += 0;` nested
    // 10 000 deep: the regions are nested, their sizes sum to 10^8 blocks; the parameter `n`
    // dies on every taken branch's edge, inside every enclosing region
    let n = 10_000;
    let mut src = kernel(n, |i| {
        format!("\tsetp.lt.u32 %p1, %r2, {i};\n\t@%p1 bra $L__N{i};\n\tadd.s32 %r3, %r3, %r1;\n")
    });
    let joins: String = (0..n)
        .rev()
        .map(|i| format!("$L__N{i}:\n\tadd.s32 %r3, %r3, {i};\n"))
        .collect();
    src = src.replace("\tcvta.to.global", &format!("{joins}\tcvta.to.global"));
    let m = parse("nested.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
    let f = m.function("chain").expect("kernel");
    for target in [AllocTarget::SM75, AllocTarget::NO_UNIFORM] {
        let a = analyze_for(f, target);
        let r = kernel_report(&m, f, &a);
        assert_eq!(r.divergent_branches, n as u32);
        // without a uniform file, the parameter's deaths on the taken edges of every branch
        // but the outermost (which no region encloses) are deferred to the outermost join
        if target == AllocTarget::NO_UNIFORM {
            assert_eq!(a.release.deferred, n as u32 - 1);
        }
    }
}
