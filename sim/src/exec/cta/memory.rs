//! Memory instructions: `ld`/`ldu`/`st` (vectors, sub-word extension, alignment), the
//! dedicated 32-bit load, `atom`/`red`, lane addresses, loads and stores by state space, and
//! the fast paths that read a warp's words straight from the memory it hits.

use super::{CtaExec, MemKind, MemMeta, Scratch};
use crate::exec::alu::{self, sext};
use crate::exec::error::ExecError;
use crate::exec::lower::{ExecInstr, XBase, XOp};
use crate::exec::regs::{ArchReg, RegisterAccess};
use crate::ir::{AtomOp, Opcode};
use crate::mem::{self, GlobalMemory, MemError, MemSpace};

impl CtaExec<'_> {
    /// The memory the first active lane's address `first` hits, to be read directly by a
    /// load: shared memory, or the global allocation containing it (one search); `None`
    /// for other spaces (every lane then takes the checked path).
    #[inline(always)]
    fn direct_region<'g>(
        &'g self,
        global: &'g GlobalMemory,
        space: Option<mem::Space>,
        first: u64,
    ) -> Option<(u64, &'g [u8])> {
        match space {
            Some(mem::Space::Shared) => Some((0, self.shared.as_bytes())),
            Some(mem::Space::Global) | None
                if mem::classify_generic(first).0 == mem::Space::Global =>
            {
                global.region_at(first)
            }
            _ => None,
        }
    }

    fn mem_space(&self, space: crate::ir::Space) -> Option<mem::Space> {
        crate::exec::lower::to_mem_space(space)
    }

    /// Loads element offset `koff` of lanes `miss` of warp `w` one by one through the checked
    /// path, in ascending lane order, handing each value to `put(lane, value)`. The first
    /// failing lane stops it: `(lane, address, error)`.
    #[allow(clippy::too_many_arguments)]
    fn load_lanes(
        &self,
        global: &GlobalMemory,
        space: Option<mem::Space>,
        w: usize,
        addrs: &[u64; 32],
        koff: u64,
        esize: usize,
        miss: u32,
        mut put: impl FnMut(usize, u64),
    ) -> Result<(), (u32, u64, MemError)> {
        let mut m = miss;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let a = addrs[l as usize].wrapping_add(koff);
            let v = self
                .load(global, space, w * 32 + l as usize, a, esize)
                .map_err(|e| (l, a, e))?;
            put(l as usize, v);
        }
        Ok(())
    }

    #[inline]
    fn load(
        &self,
        global: &GlobalMemory,
        space: Option<mem::Space>,
        tidx: usize,
        addr: u64,
        size: usize,
    ) -> Result<u64, MemError> {
        let (sp, a) = match space {
            Some(s) => (s, addr),
            None => mem::classify_generic(addr),
        };
        match sp {
            mem::Space::Global => global.load(a, size),
            mem::Space::Shared => self.shared.load(a, size),
            mem::Space::Local => match self.local.get(tidx) {
                Some(l) => l.load(a, size),
                None => Err(MemError::Unmapped {
                    space: sp,
                    addr: a,
                    size,
                    near: String::new(),
                }),
            },
            mem::Space::Param => self.params.load(a, size),
            mem::Space::Const => self.consts.load(a, size),
        }
    }

    #[inline]
    fn store_mem(
        &mut self,
        global: &mut GlobalMemory,
        space: Option<mem::Space>,
        tidx: usize,
        addr: u64,
        size: usize,
        v: u64,
    ) -> Result<(), MemError> {
        let (sp, a) = match space {
            Some(s) => (s, addr),
            None => mem::classify_generic(addr),
        };
        match sp {
            mem::Space::Global => global.store(a, size, v),
            mem::Space::Shared => self.shared.store(a, size, v),
            mem::Space::Local => match self.local.get_mut(tidx) {
                Some(l) => l.store(a, size, v),
                None => Err(MemError::Unmapped {
                    space: sp,
                    addr: a,
                    size,
                    near: String::new(),
                }),
            },
            // param and const are read-only for kernels
            mem::Space::Param => {
                let mut p = self.params.clone();
                p.store(a, size, v)
            }
            mem::Space::Const => {
                let mut c = self.consts.clone();
                c.store(a, size, v)
            }
        }
    }

    /// Lane addresses of address operand `o`, into `out`; for a register base, also the
    /// half-warp patterns of the addresses ([`half_pats`]), else `[Other; 2]`.
    /// `lo` and `hi` are work buffers (the base register's halves).
    fn addresses_into<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
        out: &mut [u64; 32],
        lo: &mut [u32; 32],
        hi: &mut [u32; 32],
    ) -> Result<[HalfPat; 2], String> {
        match o {
            XOp::Addr {
                base: XBase::Gpr { reg, slots },
                offset,
            } => {
                // the reads of `fetch_into` on the base register(s), then one pass
                let wid = self.warp_base + w as u32;
                let off = *offset as u64;
                regs.read_into(wid, ArchReg::R(*reg), lo);
                if *slots >= 2 {
                    regs.read_into(wid, ArchReg::R(reg + 1), hi);
                    for l in 0..32 {
                        out[l] = (u64::from(lo[l]) | u64::from(hi[l]) << 32).wrapping_add(off);
                    }
                    Ok(half_pats(lo, Some(hi)))
                } else {
                    for l in 0..32 {
                        out[l] = u64::from(lo[l]).wrapping_add(off);
                    }
                    Ok(half_pats(lo, None))
                }
            }
            o => {
                *out = self.addresses(regs, w, o)?;
                Ok([HalfPat::Other; 2])
            }
        }
    }

    /// Lane addresses of address operand `o`.
    fn addresses<R: RegisterAccess>(
        &self,
        regs: &mut R,
        w: usize,
        o: &XOp,
    ) -> Result<[u64; 32], String> {
        match o {
            XOp::Addr { base, offset } => Ok(match base {
                XBase::Abs => [*offset as u64; 32],
                XBase::Ur { reg, slots } => {
                    [self.read_ur(w, *reg, *slots)?.wrapping_add(*offset as u64); 32]
                }
                XBase::Gpr { reg, slots } => {
                    let b = self.fetch(
                        regs,
                        w,
                        &XOp::Gpr {
                            reg: *reg,
                            slots: *slots,
                        },
                    )?;
                    b.map(|x| x.wrapping_add(*offset as u64))
                }
            }),
            // `ld [reg]` written without brackets never happens; immediates are absolute
            XOp::Imm(v) => Ok([*v; 32]),
            _ => Err("memory operand is not an address".into()),
        }
    }

    /// `ld`, `ldu`, `st` with `.v2/.v4` (§9.7.9.8, §9.7.9.9, §9.7.9.10).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_ld_st<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
    ) -> Result<MemMeta, ExecError> {
        let store = ins.op == Opcode::St;
        let (addr_op, val_op) = if store {
            (ins.src.first(), ins.src.get(1))
        } else {
            (ins.src.first(), ins.dst.first())
        };
        let (Some(addr_op), Some(val_op)) = (addr_op, val_op) else {
            return Err(self.unsupported(ins, "malformed ld/st operands".into()));
        };
        let pats = self
            .addresses_into(regs, w, addr_op, abuf, &mut [0; 32], &mut [0; 32])
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        let addrs: &[u64; 32] = abuf;
        let esize = ins.ty.size() as usize;
        if !matches!(esize, 1 | 2 | 4 | 8) {
            return Err(self.unsupported(ins, format!("ld/st of {:?}", ins.ty)));
        }
        let elems: &[XOp] = match val_op {
            XOp::Vec(v) => v,
            o => std::slice::from_ref(o),
        };
        let space = self.mem_space(ins.space);
        let meta = MemMeta {
            kind: if store { MemKind::Store } else { MemKind::Load },
            space: ins.space,
            size: (esize * elems.len()) as u32,
            mask: exec,
        };
        if exec == 0 {
            return Ok(meta);
        }
        let memerr = |s: &Self, l: u32, a: u64, e: MemError| s.mem_err(w, l, pc, ins, a, e);
        // a vector is accessed as a whole and must be aligned to its whole size, not only to
        // its elements' (PTX ISA §9.7.9.8 ld, §9.7.9.10 st: the address must be naturally
        // aligned to a multiple of the access size; a GPU raises a misaligned-address error),
        // in every state space; the first misaligned lane is reported
        if elems.len() > 1 {
            let vsize = (esize * elems.len()) as u64;
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                let a = addrs[l as usize];
                if !a.is_multiple_of(vsize) {
                    let (sp, at) = match space {
                        Some(sp) => (sp, a),
                        None => mem::classify_generic(a),
                    };
                    let e = MemError::Misaligned {
                        space: sp,
                        addr: at,
                        size: vsize as usize,
                    };
                    return Err(memerr(self, l, a, e));
                }
            }
        }
        let bits = ins.ty.bits();
        if store {
            let mut vals = Vec::with_capacity(elems.len());
            for e in elems {
                vals.push(
                    self.fetch(regs, w, e)
                        .map_err(|m| self.rt_err(w, 0, pc, ins, m))?,
                );
            }
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                let tidx = w * 32 + l as usize;
                for (k, v) in vals.iter().enumerate() {
                    let a = addrs[l as usize].wrapping_add((k * esize) as u64);
                    self.store_mem(global, space, tidx, a, esize, v[l as usize])
                        .map_err(|e| memerr(self, l, a, e))?;
                }
            }
        } else {
            // fast path: the allocation (or shared memory) the first active lane hits, read
            // directly; any lane outside it takes the checked path (which reports errors)
            let direct = self.direct_region(global, space, addrs[exec.trailing_zeros() as usize]);
            let signed = ins.ty.is_signed() && bits < 64;
            for (k, e) in elems.iter().enumerate() {
                let koff = (k * esize) as u64;
                if esize == 4 && matches!(e, XOp::Gpr { slots, .. } if *slots < 2) {
                    // a 32-bit element into one register: the low 32 bits are the whole value
                    // (sign extension only changes the upper half, which is not stored)
                    let mut out = [0u32; 32];
                    let miss = direct32(direct, addrs, koff, exec, pats, &mut out);
                    self.load_lanes(global, space, w, addrs, koff, esize, miss, |l, v| {
                        out[l] = v as u32
                    })
                    .map_err(|(l, a, e)| memerr(self, l, a, e))?;
                    self.store32(regs, w, e, &out, exec)
                        .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
                    continue;
                }
                let mut out = [0u64; 32];
                let miss = match direct {
                    Some((base, bytes)) => match esize {
                        4 => gather::<4>(bytes, base, addrs, koff, exec, &mut out),
                        8 => gather::<8>(bytes, base, addrs, koff, exec, &mut out),
                        2 => gather::<2>(bytes, base, addrs, koff, exec, &mut out),
                        _ => gather::<1>(bytes, base, addrs, koff, exec, &mut out),
                    },
                    None => exec,
                };
                // lanes the direct read did not serve, in ascending order (the first failing
                // lane is reported, as before)
                self.load_lanes(global, space, w, addrs, koff, esize, miss, |l, v| {
                    out[l] = v
                })
                .map_err(|(l, a, e)| memerr(self, l, a, e))?;
                // sub-word loads sign- or zero-extend into the register (§9.7.9.8); lanes
                // outside `exec` are 0 and stay 0
                if signed {
                    for x in out.iter_mut() {
                        *x = sext(*x, bits) as u64;
                    }
                }
                self.store(regs, w, e, &out, exec)
                    .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
            }
        }
        Ok(meta)
    }

    /// [`Self::exec_ld_st`] for the instructions of [`ExecInstr::ld32`]: one 32-bit
    /// element into one register from the global (or generic) space, without the general
    /// operand decoding. The same register reads and write, addresses, values, errors and
    /// [`MemMeta`] as `exec_ld_st` gives for that form (checked by
    /// `ld32_matches_general_load`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_ld32<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
        sc: &mut Scratch,
    ) -> Result<MemMeta, ExecError> {
        let (Some(addr_op), Some(dst)) = (ins.src.first(), ins.dst.first()) else {
            return Err(self.unsupported(ins, "malformed ld/st operands".into()));
        };
        let [lo, hi, out, ..] = &mut sc.v;
        let pats = self
            .addresses_into(regs, w, addr_op, abuf, lo, hi)
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        let meta = MemMeta {
            kind: MemKind::Load,
            space: ins.space,
            size: 4,
            mask: exec,
        };
        if exec == 0 {
            return Ok(meta);
        }
        let addrs: &[u64; 32] = abuf;
        let space = self.mem_space(ins.space);
        // the allocation the first active lane hits, read directly (as `exec_ld_st`)
        let direct = self.direct_region(global, space, addrs[exec.trailing_zeros() as usize]);
        let miss = direct32(direct, addrs, 0, exec, pats, out);
        if miss != 0 {
            self.load_lanes(global, space, w, addrs, 0, 4, miss, |l, v| {
                out[l] = v as u32
            })
            .map_err(|(l, a, e)| self.mem_err(w, l, pc, ins, a, e))?;
        }
        self.store32(regs, w, dst, out, exec)
            .map_err(|m| self.rt_err(w, 0, pc, ins, m))?;
        Ok(meta)
    }

    /// `atom` / `red` (§9.7.13.5, §9.7.13.6): lanes in ascending lane order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_atom<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        ins: &ExecInstr,
        pc: u32,
        exec: u32,
        abuf: &mut [u64; 32],
    ) -> Result<MemMeta, ExecError> {
        let re = |s: &Self, m: String| s.rt_err(w, 0, pc, ins, m);
        let Some(addr_op) = ins.src.first() else {
            return Err(self.unsupported(ins, "atom without address".into()));
        };
        *abuf = self.addresses(regs, w, addr_op).map_err(|m| re(self, m))?;
        let addrs: &[u64; 32] = abuf;
        let b = match ins.src.get(1) {
            Some(o) => self.fetch(regs, w, o).map_err(|m| re(self, m))?,
            None => [0; 32],
        };
        let c = match ins.src.get(2) {
            Some(o) => self.fetch(regs, w, o).map_err(|m| re(self, m))?,
            None => [0; 32],
        };
        let size = ins.ty.size() as usize;
        if !matches!(size, 4 | 8) {
            return Err(self.unsupported(ins, format!("atom on {:?}", ins.ty)));
        }
        if ins.atom == AtomOp::None || ins.atom == AtomOp::Popc {
            return Err(self.unsupported(ins, format!("atom operation {:?}", ins.atom)));
        }
        let space = self.mem_space(ins.space);
        let mut out = [0u64; 32];
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let li = l as usize;
            let tidx = w * 32 + li;
            let a = addrs[li];
            let old = self
                .load(global, space, tidx, a, size)
                .map_err(|e| self.mem_err(w, l, pc, ins, a, e))?;
            let new = alu::atomic_op(ins.atom, ins.ty, old, b[li], c[li])
                .map_err(|e| self.unsupported(ins, e))?;
            self.store_mem(global, space, tidx, a, size, new)
                .map_err(|e| self.mem_err(w, l, pc, ins, a, e))?;
            out[li] = old;
        }
        if ins.op == Opcode::Atom {
            if let Some(d) = ins.dst.first() {
                self.store(regs, w, d, &out, exec)
                    .map_err(|m| re(self, m))?;
            }
        }
        Ok(MemMeta {
            kind: MemKind::Atomic,
            space: ins.space,
            size: size as u32,
            mask: exec,
        })
    }
}

/// Reads the `N`-byte little-endian element at `addrs[l] + koff` of every lane `l` of `exec`
/// from `bytes` (the memory starting at address `base`) into `out[l]`, when it is naturally
/// aligned and lies wholly inside `bytes` (one tight loop per warp instead of a
/// checked access per lane). Returns the lanes not served, for the checked path.
#[inline(always)]
fn gather<const N: usize>(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    out: &mut [u64; 32],
) -> u32 {
    // last offset an N-byte element may start at (none if the memory is shorter)
    let Some(last) = bytes.len().checked_sub(N) else {
        return exec;
    };
    let mut miss = 0u32;
    for l in 0..32 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addrs[l].wrapping_add(koff);
        let off = a.wrapping_sub(base) as usize;
        let b = if a.is_multiple_of(N as u64) && off <= last {
            bytes.get(off..off + N)
        } else {
            None
        };
        match b {
            Some(b) => {
                let mut x = [0u8; 8];
                x[..N].copy_from_slice(b);
                out[l] = u64::from_le_bytes(x);
            }
            None => miss |= 1 << l,
        }
    }
    miss
}

/// [`gather`] of 4-byte elements into 32-bit lanes. Every lane is read (inactive lanes
/// speculatively: the read has no side effect) and inactive lanes are zeroed afterwards, which
/// keeps the loop free of per-lane activity tests. Not inlined: inlined into the element loop
/// of `exec_ld_st`, the compiler hoisted the 32 lane tests of the zeroing loop out of it and
/// paid for them (spilled to the stack) on every load.
#[inline(never)]
fn gather32(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    out: &mut [u32; 32],
) -> u32 {
    let Some(last) = bytes.len().checked_sub(4) else {
        // every lane of `exec` takes the checked path; the others are 0
        *out = [0; 32];
        return exec;
    };
    let mut miss = 0u32;
    for l in 0..32 {
        let a = addrs[l].wrapping_add(koff);
        let off = a.wrapping_sub(base) as usize;
        let hit = if a.is_multiple_of(4) && off <= last {
            bytes.get(off..off + 4)
        } else {
            None
        };
        match hit {
            Some(&[b0, b1, b2, b3]) => out[l] = u32::from_le_bytes([b0, b1, b2, b3]),
            _ => miss |= 1 << l,
        }
    }
    // lanes outside `exec`: zero them and drop their misses
    if exec != u32::MAX {
        for (l, x) in out.iter_mut().enumerate() {
            if exec >> l & 1 == 0 {
                *x = 0;
            }
        }
    }
    miss & exec
}

/// Address pattern of a half-warp (16 lanes, the segment of 16-wide thread blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HalfPat {
    /// Not recognised (the lane loop of [`gather32`] serves the lanes).
    Other,
    /// Every lane has the same address (a broadcast).
    Same,
    /// Lane `l` has the segment's first address plus `4 l` (a coalesced run of words).
    Seq,
}

/// The patterns of the two half-warps of the addresses `base + off` with 64-bit lane bases
/// `hi:lo` (`hi` `None`: 32-bit bases, zero-extended), found on the 32-bit halves (issue 5:
/// four lanes to an SSE2 register, where the 64-bit comparisons did not vectorise). Adding
/// the offset does not change the differences between lanes, so: all `hi` equal and all `lo`
/// equal is a broadcast; all `hi` equal and `lo[l] = lo[0] + 4 l` without wrapping (first low
/// word at most `2^32 − 61`) is a coalesced run. These are sufficient conditions; anything
/// else is `Other`, which only means the lane loop reads the values.
#[inline(always)]
fn half_pats(lo: &[u32; 32], hi: Option<&[u32; 32]>) -> [HalfPat; 2] {
    [half_pat(lo, hi, 0), half_pat(lo, hi, 16)]
}

/// [`half_pats`] of the half-warp starting at lane `h0` (0 or 16).
#[inline(always)]
fn half_pat(lo: &[u32; 32], hi: Option<&[u32; 32]>, h0: usize) -> HalfPat {
    let (Some(lo), Some(l0)) = (lo.get(h0..h0 + 16), lo.get(h0)) else {
        return HalfPat::Other;
    };
    if let Some(hi) = hi.and_then(|h| h.get(h0..h0 + 16)) {
        let mut dh = 0u32;
        for &x in hi {
            dh |= x ^ hi[0];
        }
        if dh != 0 {
            return HalfPat::Other;
        }
    }
    let mut same = 0u32;
    for &x in lo {
        same |= x ^ l0;
    }
    if same == 0 {
        return HalfPat::Same;
    }
    let mut seq = 0u32;
    for (&x, &d) in lo.iter().zip(SEQ_STEP32.iter()) {
        seq |= x ^ l0.wrapping_add(d);
    }
    if seq == 0 && *l0 <= u32::MAX - 60 {
        HalfPat::Seq
    } else {
        HalfPat::Other
    }
}

/// Lane offsets `4 l` of a contiguous 16-lane segment.
const SEQ_STEP32: [u32; 16] = [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60];

/// A 32-bit load element at offset `koff` from each lane's address, served from `direct`
/// ([`CtaExec::direct_region`]) where it can be: a full warp with half-warp patterns
/// ([`warp_words`]), else lane by lane ([`gather32`]). Returns the lanes of `exec` left for
/// the checked path (all of them without `direct`, `out` then zeroed so that lanes outside
/// `exec` are 0).
#[inline(always)]
fn direct32(
    direct: Option<(u64, &[u8])>,
    addrs: &[u64; 32],
    koff: u64,
    exec: u32,
    pats: [HalfPat; 2],
    out: &mut [u32; 32],
) -> u32 {
    match direct {
        Some((base, bytes))
            if exec == u32::MAX && warp_words(bytes, base, addrs, koff, pats, out) =>
        {
            0
        }
        Some((base, bytes)) => gather32(bytes, base, addrs, koff, exec, out),
        None => {
            *out = [0; 32];
            exec
        }
    }
}

/// Serves a whole-warp 32-bit load whose half-warps have the patterns `pats` ([`half_pats`]
/// of `addrs`) without a per-lane bounds check. Each word must be aligned and lie wholly
/// inside `bytes` (the memory starting at address `base`), exactly the condition under which
/// [`gather32`] serves a lane, so the values written to `out` are the ones its lane loop would
/// read. Returns `false` (`out` possibly partly written, to be overwritten by the lane loop)
/// when a half-warp has no pattern or its words are not all inside `bytes`.
#[inline(always)]
fn warp_words(
    bytes: &[u8],
    base: u64,
    addrs: &[u64; 32],
    koff: u64,
    pats: [HalfPat; 2],
    out: &mut [u32; 32],
) -> bool {
    for (h, pat) in pats.into_iter().enumerate() {
        let first = addrs[16 * h].wrapping_add(koff);
        if pat == HalfPat::Other || !first.is_multiple_of(4) {
            return false;
        }
        // the memory from the segment's first word on (`None` below `base` or past the end)
        let Some(from) = bytes.get(first.wrapping_sub(base) as usize..) else {
            return false;
        };
        let Some(o) = out.get_mut(16 * h..16 * h + 16) else {
            return false;
        };
        if pat == HalfPat::Same {
            let Some(word) = from.first_chunk::<4>() else {
                return false;
            };
            o.fill(u32::from_le_bytes(*word));
        } else {
            let Some(words) = from.first_chunk::<64>() else {
                return false;
            };
            for (x, c) in o.iter_mut().zip(words.as_chunks::<4>().0) {
                *x = u32::from_le_bytes(*c);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::{LaunchConfig, Program};
    use crate::exec::regs::{FlatRegisterFile, WarpId};
    use crate::launch::HostData;
    use crate::mem::ParamSpace;
    /// A register file that also records every write with all 32 lanes of its value array
    /// (register-file designs see whole arrays, so lanes outside the mask must match too).
    #[derive(Clone)]
    struct Recording(FlatRegisterFile, Vec<(ArchReg, [u32; 32], u32)>);

    impl RegisterAccess for Recording {
        fn read(&mut self, w: WarpId, r: ArchReg) -> [u32; 32] {
            self.0.read(w, r)
        }
        fn write(&mut self, w: WarpId, r: ArchReg, v: &[u32; 32], m: u32) {
            self.1.push((r, *v, m));
            self.0.write(w, r, v, m)
        }
        fn read_pred(&mut self, w: WarpId, p: ArchReg) -> u32 {
            self.0.read_pred(w, p)
        }
        fn write_pred(&mut self, w: WarpId, p: ArchReg, b: u32, m: u32) {
            self.0.write_pred(w, p, b, m)
        }
    }

    /// The dedicated 32-bit load ([`CtaExec::exec_ld32`]) and the general `ld`
    /// ([`CtaExec::exec_ld_st`]) give the same register file, addresses, [`MemMeta`] and
    /// errors, on broadcast, coalesced, misaligned, scattered, out-of-bounds, unmapped and
    /// generic addresses under full and partial lane masks.
    #[test]
    fn ld32_matches_general_load() {
        let src = ".version 7.5\n.target sm_75\n.address_size 64\n\
.visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<8>;\n\
ld.global.u32 %r1, [%rd1];\nld.global.f32 %f1, [%rd2+8];\nld.u32 %r2, [%rd3+4];\n\
ld.global.s32 %r3, [%rd1+-4];\nadd.s32 %r4, %r1, %r2;\nadd.s32 %r4, %r4, %r3;\n\
add.f32 %f2, %f1, %f1;\nst.global.u32 [%rd1], %r4;\nst.global.f32 [%rd2], %f2;\n\
st.global.u32 [%rd3], %r4;\nret;\n}\n";
        let mut g = GlobalMemory::new();
        let words: Vec<u32> = (0..64).map(|i| i * 7 + 3).collect();
        let a = g
            .alloc_host("a", &HostData::U32(words.clone()))
            .unwrap_or(0);
        let b = g.alloc_host("b", &HostData::U32(words)).unwrap_or(0);
        let p = match Program::from_ptx("t.ptx", src, &mut g) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let k = &p.kernels[0];
        let loads: Vec<(u32, &ExecInstr)> = k
            .instrs
            .iter()
            .enumerate()
            .filter(|(_, i)| i.op == Opcode::Ld)
            .map(|(pc, i)| (pc as u32, i))
            .collect();
        assert_eq!(loads.len(), 4);
        assert!(
            loads.iter().all(|(_, i)| i.ld32),
            "every load has the ld32 form"
        );
        let launch = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared_bytes: 0,
        };
        let params = ParamSpace::new(a.to_le_bytes().to_vec());
        // lane address patterns (before the instruction's offset)
        let mut st = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st
        };
        let mut cases: Vec<[u64; 32]> = vec![
            [a + 8; 32],
            std::array::from_fn(|l| a + 4 * l as u64),
            std::array::from_fn(|l| a + 16 + 4 * l as u64),
            std::array::from_fn(|l| b + 4 * (l as u64 % 16)),
            std::array::from_fn(|l| if l < 16 { a } else { b + 4 * l as u64 }),
            std::array::from_fn(|l| a + 2 + 4 * l as u64),
            std::array::from_fn(|l| a + 200 + 4 * l as u64),
            std::array::from_fn(|l| a + 4 * (31 - l as u64)),
            std::array::from_fn(|l| if l == 5 { 0x10 } else { a + 4 * l as u64 }),
            std::array::from_fn(|l| b + 4 * (l as u64 % 3)),
        ];
        for _ in 0..20 {
            cases.push(std::array::from_fn(|_| a + 4 * (rnd() % 130)));
        }
        let masks = [
            u32::MAX,
            0,
            1,
            0x8000_0001,
            0x0000_ffff,
            0xffff_0000,
            0x5555_5555,
        ];
        for (pc, ins) in &loads {
            let XOp::Addr {
                base: XBase::Gpr { reg, slots },
                ..
            } = ins.src[0]
            else {
                panic!("register address expected")
            };
            for (c, lanes) in cases.iter().enumerate() {
                for &m in &masks {
                    let mut rf = FlatRegisterFile::new(1, k.gprs as usize, k.preds as usize);
                    // a generic address for the generic load
                    let lanes = if ins.space == crate::ir::Space::Generic {
                        lanes.map(|x| mem::to_generic(mem::Space::Global, x))
                    } else {
                        *lanes
                    };
                    let lo = lanes.map(|x| x as u32);
                    let hi = lanes.map(|x| (x >> 32) as u32);
                    rf.write(0, ArchReg::R(reg), &lo, u32::MAX);
                    if slots >= 2 {
                        rf.write(0, ArchReg::R(reg + 1), &hi, u32::MAX);
                    }
                    let mut rf = Recording(rf, Vec::new());
                    let mut rf2 = rf.clone();
                    let mut g2 = g.clone();
                    let mut c1 = CtaExec::new(k, &launch, &params, &p.consts, [0; 3], 0, 0);
                    let mut c2 = CtaExec::new(k, &launch, &params, &p.consts, [0; 3], 0, 0);
                    let (mut a1, mut a2) = ([0u64; 32], [0u64; 32]);
                    // scratch buffers full of stale values from an earlier step
                    let mut sc = Scratch::new();
                    sc.v = [[0xdead_beef; 32]; 5];
                    let r1 = c1.exec_ld32(0, &mut rf, &g, ins, *pc, m, &mut a1, &mut sc);
                    let r2 = c2.exec_ld_st(0, &mut rf2, &mut g2, ins, *pc, m, &mut a2);
                    let what = format!("pc {pc} case {c} mask {m:#x}");
                    match (r1, r2) {
                        (Ok(x), Ok(y)) => {
                            assert_eq!(x, y, "{what}");
                            assert_eq!(a1, a2, "{what}");
                            assert_eq!(rf.1, rf2.1, "{what}: register writes");
                            assert!(!rf.1.is_empty() || m == 0, "{what}: a write");
                        }
                        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{what}"),
                        (x, y) => panic!("{what}: {x:?} vs {y:?}"),
                    }
                }
            }
        }
    }
}
