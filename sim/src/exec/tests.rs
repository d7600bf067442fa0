//! Executor tests on small hand-written PTX kernels with hand-computed results.

use super::*;
use crate::launch::HostData;
use crate::mem::{GlobalMemory, ParamSpace};

/// Wraps `body` in a kernel `k(.param .u64 out, .param .u64 aux)` whose prologue computes
/// `%rd4 = &out[tid]` (u32 elements), `%r1 = tid.x`, `%rd6 = aux`; the body leaves its result
/// in `%r2`, which is stored to `out[tid]`.
fn kernel(body: &str) -> String {
    format!(
        ".version 7.5\n.target sm_75\n.address_size 64\n\n\
.visible .entry k(.param .u64 out, .param .u64 aux)\n{{\n\
.reg .pred %p<8>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<40>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n.reg .f64 %fd<8>;\n\
ld.param.u64 %rd1, [out];\nld.param.u64 %rd5, [aux];\ncvta.to.global.u64 %rd2, %rd1;\n\
cvta.to.global.u64 %rd6, %rd5;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n\
add.s64 %rd4, %rd2, %rd3;\nmov.u32 %r2, 0;\n{body}\nst.global.u32 [%rd4], %r2;\nret;\n}}\n"
    )
}

/// Runs `src` with `threads` threads in one CTA; `aux` is a second u32 buffer.
fn run_full(src: &str, threads: u32, aux: Vec<u32>) -> Result<(Vec<u32>, Vec<u32>), ExecError> {
    let mut g = GlobalMemory::new();
    let out = g.alloc_host("out", &HostData::U32(vec![0; threads as usize]))?;
    let aux_a = g.alloc_host("aux", &HostData::U32(aux))?;
    let p = Program::from_ptx("test.ptx", src, &mut g)?;
    let k = p.kernel("k").ok_or(ExecError::Setup("no k".into()))?;
    let mut pb = out.to_le_bytes().to_vec();
    pb.extend_from_slice(&aux_a.to_le_bytes());
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run_launch(
        &p,
        k,
        &cfg,
        &ParamSpace::new(pb),
        &mut g,
        0,
        &RunOptions::default(),
    )?;
    let get = |n: &str| match g.read_back(n) {
        Some(HostData::U32(v)) => v,
        _ => vec![],
    };
    Ok((get("out"), get("aux")))
}

fn run(body: &str, threads: u32) -> Vec<u32> {
    match run_full(&kernel(body), threads, vec![0; 64]) {
        Ok((o, _)) => o,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn divergent_if_else_reconverges() {
    let body = "and.b32 %r3, %r1, 1;\nsetp.eq.s32 %p1, %r3, 0;\n@%p1 bra EVEN;\n\
mul.lo.s32 %r2, %r1, 3;\nbra.uni DONE;\nEVEN:\nadd.s32 %r2, %r1, 100;\nDONE:\nadd.s32 %r2, %r2, 1;";
    let o = run(body, 32);
    for (t, v) in o.iter().enumerate() {
        let t = t as u32;
        let e = if t.is_multiple_of(2) { t + 100 } else { t * 3 } + 1;
        assert_eq!(*v, e, "lane {t}");
    }
}

#[test]
fn data_dependent_loop_per_lane_trip_counts() {
    // r2 = sum_{i<tid} i with a loop whose trip count differs per lane
    let body = "mov.u32 %r3, 0;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra END;\nLOOP:\n\
add.s32 %r2, %r2, %r3;\nadd.s32 %r3, %r3, 1;\nsetp.lt.u32 %p2, %r3, %r1;\n@%p2 bra LOOP;\nEND:";
    let o = run(body, 40); // 2 warps, the second partial
    for (t, v) in o.iter().enumerate() {
        let t = t as u32;
        assert_eq!(*v, t * t.saturating_sub(1) / 2, "thread {t}");
    }
}

#[test]
fn guarded_exit_of_some_lanes() {
    let body = "setp.gt.u32 %p1, %r1, 7;\n@%p1 bra SKIP;\nmov.u32 %r2, 77;\nst.global.u32 [%rd4], %r2;\nret;\nSKIP:\nmov.u32 %r2, 5;";
    let o = run(body, 16);
    for (t, v) in o.iter().enumerate() {
        assert_eq!(*v, if t > 7 { 5 } else { 77 });
    }
}

#[test]
fn integer_division_by_zero_and_overflow() {
    let body = "div.u32 %r3, %r1, 0;\ndiv.s32 %r4, %r1, 0;\nrem.u32 %r5, %r1, 0;\n\
div.s32 %r6, -2147483648, -1;\nrem.s32 %r7, -7, 2;\ndiv.s32 %r8, -7, 2;\n\
setp.eq.s32 %p1, %r3, -1;\nsetp.eq.s32 %p2, %r4, -1;\nsetp.eq.s32 %p3, %r5, %r1;\n\
setp.eq.s32 %p4, %r6, -2147483648;\nsetp.eq.s32 %p5, %r7, -1;\nsetp.eq.s32 %p6, %r8, -3;\n\
and.pred %p1, %p1, %p2;\nand.pred %p1, %p1, %p3;\nand.pred %p1, %p1, %p4;\nand.pred %p1, %p1, %p5;\nand.pred %p1, %p1, %p6;\n\
selp.u32 %r2, 1, 0, %p1;";
    assert!(run(body, 32).iter().all(|&v| v == 1));
}

#[test]
fn carry_chain_64_bit_add_from_32_bit_halves() {
    // (0xffffffff_ffffffff + tid) via add.cc/addc, and a 3-word madc chain
    let body = "add.cc.u32 %r3, -1, %r1;\naddc.u32 %r4, -1, 0;\naddc.u32 %r5, 0, 0;\n\
sub.cc.u32 %r6, 0, 1;\nsubc.u32 %r7, 5, 0;\n\
mad.lo.cc.u32 %r8, -1, 2, 3;\nmadc.hi.u32 %r9, -1, 2, 0;\n\
shl.b32 %r2, %r5, 16;\nadd.s32 %r2, %r2, %r7;\nxor.b32 %r2, %r2, %r3;\n\
add.s32 %r2, %r2, %r9;\nadd.s32 %r2, %r2, %r8;";
    let o = run(body, 32);
    for (t, v) in o.iter().enumerate() {
        let t = t as u32;
        // lane 0: -1 + 0 = 0xffffffff no carry → r4 = 0xffffffff, r5 = 0
        // lane t>0: wraps with carry → r3 = t-1, r4 = 0, r5 = 1
        let (r3, r5): (u32, u32) = if t == 0 { (u32::MAX, 0) } else { (t - 1, 1) };
        let r7 = 4u32; // 5 - 0 - borrow(1)
                       // (-1)*2 + 3 = 0x1_00000001 low word 1 with carry; hi(0xffffffff*2) = 1, +carry = 2
        let (r8, r9) = (1u32, 2u32);
        let e = ((r5 << 16).wrapping_add(r7) ^ r3)
            .wrapping_add(r9)
            .wrapping_add(r8);
        assert_eq!(*v, e, "lane {t}");
    }
}

#[test]
fn shfl_modes_and_predicate() {
    // value = tid*10; up by 1, down by 3, bfly 5, idx 7 over 32 lanes; segments of 8 for idx2
    let body = "mul.lo.s32 %r3, %r1, 10;\n\
shfl.sync.up.b32 %r4|%p1, %r3, 1, 0, -1;\n\
shfl.sync.down.b32 %r5|%p2, %r3, 3, 31, -1;\n\
shfl.sync.bfly.b32 %r6, %r3, 5, 31, -1;\n\
shfl.sync.idx.b32 %r7, %r3, 7, 31, -1;\n\
shfl.sync.idx.b32 %r8, %r3, 2, 6175, -1;\n\
selp.u32 %r9, 1, 0, %p1;\nselp.u32 %r10, 2, 0, %p2;\n\
mul.wide.u32 %rd7, %r1, 32;\nadd.s64 %rd8, %rd6, %rd7;\n\
st.global.v4.u32 [%rd8], {%r4, %r5, %r6, %r7};\nst.global.v4.u32 [%rd8+16], {%r8, %r9, %r10, %r3};";
    let src = kernel(body);
    let (_, aux) = run_full(&src, 32, vec![0; 32 * 8]).unwrap_or_else(|e| panic!("{e}"));
    for l in 0..32u32 {
        let r = &aux[(l * 8) as usize..(l * 8 + 8) as usize];
        let up = if l >= 1 { (l - 1) * 10 } else { l * 10 };
        let down = if l + 3 <= 31 { (l + 3) * 10 } else { l * 10 };
        assert_eq!(r[0], up, "up lane {l}");
        assert_eq!(r[1], down, "down lane {l}");
        assert_eq!(r[2], (l ^ 5) * 10, "bfly lane {l}");
        assert_eq!(r[3], 70, "idx lane {l}");
        // c = 0x181f: segmask 0x18 (segments of 8), clamp 31 → lane (l & 0x18) | 2
        assert_eq!(r[4], ((l & 0x18) | 2) * 10, "idx seg lane {l}");
        assert_eq!(r[5], u32::from(l >= 1), "up pred lane {l}");
        assert_eq!(r[6], if l + 3 <= 31 { 2 } else { 0 }, "down pred lane {l}");
    }
}

#[test]
fn vote_ballot_and_activemask() {
    let body = "setp.lt.u32 %p1, %r1, 20;\n@%p1 bra LOW;\nbra.uni END;\nLOW:\n\
and.b32 %r3, %r1, 1;\nsetp.eq.s32 %p2, %r3, 1;\nvote.sync.ballot.b32 %r4, %p2, -1;\n\
vote.sync.any.pred %p3, %p2, -1;\nvote.sync.all.pred %p4, %p1, -1;\nactivemask.b32 %r5;\n\
selp.u32 %r6, 1, 0, %p3;\nselp.u32 %r7, 2, 0, %p4;\nxor.b32 %r2, %r4, %r5;\nadd.s32 %r2, %r2, %r6;\nadd.s32 %r2, %r2, %r7;\nEND:";
    let o = run(body, 32);
    let active = (1u32 << 20) - 1;
    let odd = 0xaaaa_aaaa & active;
    for (t, v) in o.iter().enumerate() {
        let e = if t < 20 { (odd ^ active) + 3 } else { 0 };
        assert_eq!(*v, e, "lane {t}");
    }
}

#[test]
fn cvt_rounding_and_saturation() {
    // f = tid-dependent values; check cvt.rni/rzi/rmi/rpi and saturation, NaN → 0
    let body = "mov.f32 %f1, 0f40200000;\n\
cvt.rni.s32.f32 %r3, %f1;\ncvt.rmi.s32.f32 %r4, %f1;\ncvt.rpi.s32.f32 %r5, %f1;\n\
neg.f32 %f2, %f1;\ncvt.rzi.s32.f32 %r6, %f2;\n\
mov.f32 %f3, 0f4F800000;\ncvt.rzi.s32.f32 %r7, %f3;\ncvt.rzi.u32.f32 %r8, %f2;\n\
mov.f32 %f4, 0f7FC00000;\ncvt.rzi.s32.f32 %r9, %f4;\n\
cvt.sat.u8.s32 %r10, -5;\ncvt.u8.u32 %r11, 300;\ncvt.s8.s32 %r12, 200;\ncvt.sat.s8.s32 %r13, 200;\n\
cvt.rn.f32.s32 %f5, 16777217;\ncvt.rz.f32.u32 %f6, -1;\ncvt.rp.f32.s32 %f7, 16777217;\n\
mov.b32 %r14, %f5;\nmov.b32 %r15, %f6;\nmov.b32 %r16, %f7;\n\
mul.wide.u32 %rd7, %r1, 64;\nadd.s64 %rd8, %rd6, %rd7;\n\
st.global.v4.u32 [%rd8], {%r3, %r4, %r5, %r6};\nst.global.v4.u32 [%rd8+16], {%r7, %r8, %r9, %r10};\n\
st.global.v4.u32 [%rd8+32], {%r11, %r12, %r13, %r14};\nst.global.v2.u32 [%rd8+48], {%r15, %r16};";
    let (_, aux) = run_full(&kernel(body), 1, vec![0; 16]).unwrap_or_else(|e| panic!("{e}"));
    // 2.5: rni → 2 (even), rmi → 2, rpi → 3; -2.5 rzi → -2
    assert_eq!(&aux[0..4], &[2, 2, 3, (-2i32) as u32]);
    // 2^32 → s32 saturates to INT_MAX; -2.5 → u32 saturates to 0; NaN → 0; sat u8 of -5 → 0
    assert_eq!(&aux[4..8], &[i32::MAX as u32, 0, 0, 0]);
    // 300 → u8 truncates to 44; 200 → s8 truncates to -56 (stored as 0xc8); .sat → 127
    assert_eq!(aux[8], 44);
    assert_eq!(aux[9] & 0xff, 0xc8);
    assert_eq!(aux[10], 127);
    // 16777217 = 2^24+1: rn → 2^24 (tie to even), rp → 2^24+2; u32::MAX rz → 0x4f7fffff
    assert_eq!(aux[11], 16777216f32.to_bits());
    assert_eq!(aux[12], 0x4f7f_ffff);
    assert_eq!(aux[13], 16777218f32.to_bits());
}

#[test]
fn float_min_max_nan_and_directed_arith() {
    let body = "mov.f32 %f1, 0f7FC00000;\nmov.f32 %f2, 0f3F800000;\nmin.f32 %f3, %f1, %f2;\n\
max.f32 %f4, %f1, %f1;\nmov.f32 %f5, 0f30800000;\nadd.rp.f32 %f6, %f2, %f5;\nadd.rz.f32 %f7, %f2, %f5;\n\
div.rn.f32 %f8, %f2, 0f40400000;\nsqrt.rn.f32 %f9, 0f40000000;\nex2.approx.f32 %f10, 0f40400000;\n\
mov.b32 %r3, %f3;\nmov.b32 %r4, %f4;\nmov.b32 %r5, %f6;\nmov.b32 %r6, %f7;\nmov.b32 %r7, %f8;\nmov.b32 %r8, %f9;\nmov.b32 %r9, %f10;\n\
mul.wide.u32 %rd7, %r1, 32;\nadd.s64 %rd8, %rd6, %rd7;\n\
st.global.v4.u32 [%rd8], {%r3, %r4, %r5, %r6};\nst.global.v4.u32 [%rd8+16], {%r7, %r8, %r9, %r9};";
    let (_, aux) = run_full(&kernel(body), 1, vec![0; 8]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(aux[0], 1f32.to_bits());
    assert_eq!(aux[1], 0x7fff_ffff);
    assert_eq!(aux[2], 1f32.to_bits() + 1);
    assert_eq!(aux[3], 1f32.to_bits());
    assert_eq!(aux[4], (1f32 / 3.0).to_bits());
    assert_eq!(aux[5], 2f32.sqrt().to_bits());
    assert_eq!(aux[6], 8f32.to_bits());
}

#[test]
fn shared_memory_barrier_and_atomics() {
    // 64 threads: each writes tid to smem, barrier, reads smem[63-tid]; plus a shared atomic
    // counter and a global CAS
    let src = ".version 7.5\n.target sm_75\n.address_size 64\n\
.visible .entry k(.param .u64 out, .param .u64 aux)\n{\n\
.reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<16>;\n\
.shared .align 4 .b8 buf[256];\n.shared .align 4 .u32 cnt;\n\
ld.param.u64 %rd1, [out];\nld.param.u64 %rd5, [aux];\ncvta.to.global.u64 %rd2, %rd1;\ncvta.to.global.u64 %rd6, %rd5;\n\
mov.u32 %r1, %tid.x;\nshl.b32 %r3, %r1, 2;\nmov.u32 %r4, buf;\nadd.s32 %r5, %r4, %r3;\n\
st.shared.u32 [%r5], %r1;\natom.shared.add.u32 %r9, [cnt], 1;\nbar.sync 0;\n\
sub.s32 %r6, 63, %r1;\nshl.b32 %r7, %r6, 2;\nadd.s32 %r8, %r4, %r7;\nld.shared.u32 %r2, [%r8];\n\
ld.shared.u32 %r10, [cnt];\nmul.lo.s32 %r10, %r10, 1000;\nadd.s32 %r2, %r2, %r10;\n\
atom.global.cas.b32 %r11, [%rd6], %r1, 999;\n\
mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r2;\nret;\n}\n";
    let (o, aux) = run_full(src, 64, vec![0; 1]).unwrap_or_else(|e| panic!("{e}"));
    for (t, v) in o.iter().enumerate() {
        assert_eq!(*v, 63 - t as u32 + 64_000, "thread {t}");
    }
    // only thread 0 matches the initial 0; after that the value is 999
    assert_eq!(aux[0], 999);
}

#[test]
fn out_of_bounds_store_names_kernel_pc_thread_and_address() {
    // thread 5 writes one element past the end of a 4-element aux buffer
    let body = "setp.eq.s32 %p1, %r1, 5;\n@!%p1 bra END;\nadd.s64 %rd7, %rd6, 16;\nst.global.u32 [%rd7], %r1;\nEND:";
    let err = run_full(&kernel(body), 32, vec![0; 4])
        .err()
        .map(|e| e.to_string());
    let msg = err.unwrap_or_default();
    assert!(msg.contains("test.ptx:"), "{msg}");
    assert!(msg.contains("kernel k"), "{msg}");
    assert!(msg.contains("pc "), "{msg}");
    assert!(msg.contains("tid (5, 0, 0)"), "{msg}");
    assert!(msg.contains("ctaid (0, 0, 0)"), "{msg}");
    assert!(msg.contains("0x7f00"), "{msg}");
}

#[test]
fn unsupported_call_errors_with_file_and_line() {
    // Calls to defined .funcs are inlined and run; a call to a function without a body
    // is an error naming it with file:line
    let ok = ".version 7.5\n.target sm_75\n.address_size 64\n\
.func f()\n{\nret;\n}\n\
.visible .entry k(.param .u64 out, .param .u64 aux)\n{\ncall.uni f, ();\nret;\n}\n";
    assert!(run_full(ok, 32, vec![0; 1]).is_ok());
    let src = ".version 7.5\n.target sm_75\n.address_size 64\n\
.extern .func f();\n\n\n\n\
.visible .entry k(.param .u64 out, .param .u64 aux)\n{\ncall.uni f, ();\nret;\n}\n";
    let err = run_full(src, 32, vec![0; 1]).err().map(|e| e.to_string());
    let msg = err.unwrap_or_default();
    assert!(msg.contains("test.ptx:10"), "{msg}");
    assert!(msg.contains("call to `f`, which has no body"), "{msg}");
}

#[test]
fn unsupported_type_errors_with_file_and_line() {
    let body = "mov.b16 %rs1, 0x3c00;\nadd.f16 %rs2, %rs1, %rs1;";
    let err = run_full(&kernel(body), 32, vec![0; 1])
        .err()
        .map(|e| e.to_string());
    let msg = err.unwrap_or_default();
    assert!(msg.contains("test.ptx:"), "{msg}");
    assert!(msg.contains("F16"), "{msg}");
}

#[test]
fn registers_live_behind_the_seam() {
    // A register file that counts accesses proves every value goes through RegisterAccess.
    struct Counting(FlatRegisterFile, u64, u64);
    impl RegisterAccess for Counting {
        fn read(&mut self, w: WarpId, r: ArchReg) -> [u32; 32] {
            self.1 += 1;
            self.0.read(w, r)
        }
        fn write(&mut self, w: WarpId, r: ArchReg, v: &[u32; 32], m: u32) {
            self.2 += 1;
            self.0.write(w, r, v, m)
        }
        fn read_pred(&mut self, w: WarpId, p: ArchReg) -> u32 {
            self.0.read_pred(w, p)
        }
        fn write_pred(&mut self, w: WarpId, p: ArchReg, b: u32, m: u32) {
            self.0.write_pred(w, p, b, m)
        }
    }
    let src = kernel("add.s32 %r2, %r1, 7;");
    let mut g = GlobalMemory::new();
    let out = g.alloc("out", 128).unwrap_or_default();
    let p = match Program::from_ptx("t.ptx", &src, &mut g) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let k = &p.kernels[0];
    let mut pb = out.to_le_bytes().to_vec();
    pb.extend_from_slice(&out.to_le_bytes());
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
    };
    let mut rf = Counting(
        FlatRegisterFile::new(1, k.gprs as usize, k.preds as usize + 1),
        0,
        0,
    );
    let params = ParamSpace::new(pb);
    let st = run_launch_with(
        &p,
        k,
        &cfg,
        &params,
        &mut g,
        0,
        &RunOptions::default(),
        &mut rf,
    );
    assert!(st.is_ok());
    assert!(rf.1 > 0 && rf.2 > 0);
    // the allocator's register count bounds the file: no register index beyond it
    assert!(k.gprs >= 2 && k.gprs < 16, "{}", k.gprs);
    let vals = g
        .allocation_bytes("out")
        .map(|b| b.to_vec())
        .unwrap_or_default();
    assert_eq!(&vals[4..8], &8u32.to_le_bytes());
}

/// `kernel(body)` with `.func` definitions placed before the entry.
fn kernel_with_funcs(funcs: &str, body: &str) -> String {
    kernel(body).replacen(
        ".address_size 64\n\n",
        &format!(".address_size 64\n\n{funcs}\n"),
        1,
    )
}

const PAIR_AND_TWICE: &str = "\
.func (.param .align 8 .b8 ret0[8]) pair(.param .b32 a)\n{\n.reg .b32 %q<4>;\n\
ld.param.b32 %q1, [a];\nadd.s32 %q2, %q1, 1;\nmul.lo.s32 %q3, %q1, 3;\n\
st.param.b32 [ret0+0], %q2;\nst.param.b32 [ret0+4], %q3;\nret;\n}\n\
.func (.param .b32 r) twice(.param .b32 a)\n{\n.reg .b32 %t<3>;\n.reg .pred %tp;\n\
ld.param.b32 %t1, [a];\nsetp.gt.s32 %tp, %t1, 100;\n@%tp bra BIG;\nshl.b32 %t2, %t1, 1;\n\
st.param.b32 [r], %t2;\nret;\nBIG:\nst.param.b32 [r], 0;\nret;\n}\n";

/// Calls are inlined: a struct-like two-field return (kept in a per-call param area), a guarded
/// call to a function with two `ret`s and a divergent branch inside.
#[test]
fn call_func_inlined_guarded_and_aggregate_return() {
    let body = "{\n.param .b32 param0;\nst.param.b32 [param0], %r1;\n.param .align 8 .b8 rv[8];\n\
call.uni (rv), pair, (param0);\nld.param.b32 %r3, [rv+0];\nld.param.b32 %r4, [rv+4];\n}\n\
add.s32 %r2, %r3, %r4;\nsetp.lt.u32 %p1, %r1, 16;\n\
{\n.param .b32 p1;\nst.param.b32 [p1], %r2;\n.param .b32 r1;\n@%p1 call (r1), twice, (p1);\n\
@%p1 ld.param.b32 %r2, [r1];\n}\n";
    let src = kernel_with_funcs(PAIR_AND_TWICE, body);
    let m = crate::ptx::parse("test.ptx", &src).unwrap();
    let k = m.function("k").unwrap();
    assert!(k.instrs.iter().all(|i| i.op != crate::ir::Opcode::Call));
    let out = run_full(&src, 40, vec![0; 64]).unwrap().0;
    let want: Vec<u32> = (0..40)
        .map(|t| if t < 16 { 8 * t + 2 } else { 4 * t + 1 })
        .collect();
    assert_eq!(out, want);
}

/// Recursion cannot be inlined: the error names the function and file:line, no internal names.
#[test]
fn recursive_call_error_names_function() {
    let f = ".func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %x;\nld.param.b32 %x, [a];\n\
{\n.param .b32 p;\nst.param.b32 [p], %x;\n.param .b32 q;\ncall.uni (q), f, (p);\n\
ld.param.b32 %x, [q];\n}\nst.param.b32 [r], %x;\nret;\n}\n";
    let body = "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 q0;\n\
call.uni (q0), f, (p0);\nld.param.b32 %r2, [q0];\n}\n";
    let src = kernel_with_funcs(f, body);
    let e = run_full(&src, 32, vec![0; 64]).unwrap_err().to_string();
    assert!(e.contains("recursive call to `f`"), "{e}");
    let line = src
        .lines()
        .position(|l| l.contains("call.uni (q), f"))
        .unwrap()
        + 1;
    assert!(e.contains(&format!("test.ptx:{line}")), "{e}");
    assert!(!e.contains("Local("), "{e}");
}

/// `bar.red.popc.u32`, `bar.red.and.pred`, `bar.red.or.pred` over a 2-warp CTA (PTX ISA
/// §9.7.12.1): 64 threads, 32 even tids; not all tids < 40; some are.
#[test]
fn bar_red_popc() {
    let body = "and.b32 %r3, %r1, 1;\nsetp.eq.s32 %p1, %r3, 0;\nbar.red.popc.u32 %r4, 0, %p1;\n\
setp.lt.u32 %p2, %r1, 40;\nbar.red.and.pred %p3, 0, %p2;\nbar.red.or.pred %p4, 0, %p2;\n\
bar.red.and.pred %p5, 0, !%p4;\n\
selp.u32 %r5, 10, 0, %p3;\nselp.u32 %r6, 1, 0, %p4;\nselp.u32 %r7, 1000, 0, %p5;\n\
mul.lo.u32 %r2, %r4, 100;\nadd.u32 %r2, %r2, %r5;\nadd.u32 %r2, %r2, %r6;\nadd.u32 %r2, %r2, %r7;\n";
    assert_eq!(run(body, 64), vec![3201; 64]);
    // a partial warp: 40 threads, 20 even, all < 40
    assert_eq!(run(body, 40), vec![2011; 40]);
}

/// Issue 5 (speed): the whole-warp kernels (`FastOp` 64-bit add/sub on 32-bit halves with
/// carry/borrow, `mul.wide`, `setp` lane masks, direct 32-bit loads) give the results of the
/// per-lane definitions, on a partial second warp and under divergence.
#[test]
fn fast_paths_match_lane_semantics() {
    let body = "cvt.u64.u32 %rd7, %r1;\n\
add.s64 %rd8, %rd7, 4294967295;\nshr.u64 %rd9, %rd8, 32;\ncvt.u32.u64 %r3, %rd9;\n\
sub.s64 %rd10, %rd7, 1;\nshr.u64 %rd11, %rd10, 32;\ncvt.u32.u64 %r4, %rd11;\n\
mul.wide.s32 %rd12, %r1, -3;\nshr.s64 %rd13, %rd12, 32;\ncvt.u32.u64 %r5, %rd13;\n\
and.b32 %r4, %r4, 2;\nand.b32 %r5, %r5, 4;\nadd.s32 %r2, %r3, %r4;\nadd.s32 %r2, %r2, %r5;\n\
setp.lt.s32 %p1, %r1, 20;\nselp.u32 %r6, 8, 0, %p1;\nadd.s32 %r2, %r2, %r6;\n\
mov.f32 %f1, 0f7FC00000;\ncvt.rn.f32.u32 %f2, %r1;\n\
setp.gtu.f32 %p2, %f1, %f2;\nselp.u32 %r6, 16, 0, %p2;\nadd.s32 %r2, %r2, %r6;\n\
setp.ge.f32 %p3, %f2, 0f41200000;\nselp.u32 %r6, 32, 0, %p3;\nadd.s32 %r2, %r2, %r6;\n\
setp.lt.s64 %p4, %rd12, 0;\nselp.u32 %r6, 64, 0, %p4;\nadd.s32 %r2, %r2, %r6;\n\
setp.lt.s32 %p5|%p6, %r1, 5;\nselp.u32 %r6, 128, 0, %p6;\nadd.s32 %r2, %r2, %r6;\n\
setp.hi.u32 %p7, %r1, 4294967294;\nselp.u32 %r6, 1024, 0, %p7;\nadd.s32 %r2, %r2, %r6;\n\
and.b32 %r7, %r1, 1;\nsetp.eq.s32 %p1, %r7, 0;\n@%p1 bra SKIP;\n\
add.s64 %rd14, %rd6, %rd3;\nld.global.u32 %r8, [%rd14];\nshl.b32 %r8, %r8, 16;\nadd.s32 %r2, %r2, %r8;\n\
SKIP:";
    let aux: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let o = match run_full(&kernel(body), 40, aux.clone()) {
        Ok((o, _)) => o,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(o.len(), 40);
    for (t, v) in o.iter().enumerate() {
        // carry out of the low half for tid >= 1; borrow for tid 0; -3*tid negative for tid > 0
        let mut e = if t == 0 { 2 } else { 1 + 4 };
        e += if t < 20 { 8 } else { 0 };
        e += 16; // NaN compares unordered-greater
        e += if t >= 10 { 32 } else { 0 };
        e += if t > 0 { 64 } else { 0 };
        e += if t >= 5 { 128 } else { 0 };
        e += if t % 2 == 1 { aux[t] << 16 } else { 0 };
        assert_eq!(*v, e, "thread {t}");
    }
}

/// A lane outside the allocation the direct-load path serves still takes the checked
/// path, which reports that lane.
#[test]
fn direct_load_outside_allocation_names_the_lane() {
    // aux has 8 elements; lanes 0..8 load aux[tid], lane 8 one past its end
    let body = "setp.gt.u32 %p1, %r1, 8;\n@%p1 bra END;\nadd.s64 %rd7, %rd6, %rd3;\n\
ld.global.u32 %r2, [%rd7];\nEND:";
    let msg = run_full(&kernel(body), 32, vec![7; 8])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("tid (8, 0, 0)"), "{msg}");
}

/// Whole-warp loads served by the half-warp patterns (a broadcast per half, a
/// coalesced run per half at an offset, a coalesced warp) give the per-lane values, on two
/// full warps.
#[test]
fn warp_pattern_loads_match_lane_semantics() {
    let body = "shr.u32 %r3, %r1, 4;\nmul.wide.u32 %rd7, %r3, 4;\nadd.s64 %rd8, %rd6, %rd7;\n\
ld.global.u32 %r4, [%rd8];\nand.b32 %r5, %r1, 15;\nmul.wide.u32 %rd9, %r5, 4;\n\
add.s64 %rd10, %rd6, %rd9;\nld.global.u32 %r6, [%rd10+4];\nadd.s64 %rd11, %rd6, %rd3;\n\
ld.global.u32 %r7, [%rd11];\nshl.b32 %r6, %r6, 8;\nshl.b32 %r7, %r7, 16;\n\
add.s32 %r2, %r4, %r6;\nadd.s32 %r2, %r2, %r7;";
    let aux: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let o = match run_full(&kernel(body), 64, aux.clone()) {
        Ok((o, _)) => o,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(o.len(), 64);
    for (t, v) in o.iter().enumerate() {
        let e = aux[t / 16] + (aux[t % 16 + 1] << 8) + (aux[t] << 16);
        assert_eq!(*v, e, "thread {t}");
    }
}

/// A coalesced whole-warp load running past the end of its allocation is not served
/// by the pattern path; the checked path reports the first lane outside it.
#[test]
fn coalesced_load_past_allocation_names_the_lane() {
    let body = "add.s64 %rd7, %rd6, %rd3;\nld.global.u32 %r2, [%rd7];";
    let msg = run_full(&kernel(body), 32, vec![7; 8])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("tid (8, 0, 0)"), "{msg}");
}
