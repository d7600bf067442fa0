//! Flat (single-region, 0-based) spaces: per-CTA shared memory, per-thread local memory, the
//! kernel parameter space and the constant bank.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use super::{MemError, MemSpace, Space};

/// Constant bank size: 64 KiB of `__constant__` memory (CUDA C++ Programming Guide, "Technical
/// Specifications": constant memory size 64 KB for all compute capabilities).
pub const CONST_BANK_BYTES: usize = 64 * 1024;

#[inline]
fn range(
    space: Space,
    region: &str,
    len_total: usize,
    addr: u64,
    len: usize,
) -> Result<std::ops::Range<usize>, MemError> {
    let end = addr.checked_add(len as u64);
    match end {
        Some(e) if e <= len_total as u64 => Ok(addr as usize..e as usize),
        _ if addr < len_total as u64 => Err(MemError::OutOfBounds {
            space,
            addr,
            size: len,
            region: region.to_string(),
            base: 0,
            end: len_total as u64,
        }),
        _ => Err(MemError::Unmapped {
            space,
            addr,
            size: len,
            near: String::new(),
        }),
    }
}

/// The error of every store to a read-only space (param, const).
fn read_only(space: Space, addr: u64, len: usize) -> MemError {
    MemError::ReadOnly {
        space,
        addr,
        size: len,
    }
}

/// Layout of a kernel's shared variables: static variables in declaration order, each at its
/// alignment, then the dynamic (`extern .shared`) area aligned to `dynamic_align`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SharedLayout {
    /// Offset of each static variable, by name.
    pub offsets: BTreeMap<String, u64>,
    /// Bytes used by static variables.
    pub static_bytes: usize,
    /// Offset of the dynamic area (where every `extern .shared` symbol points).
    pub dynamic_offset: u64,
}

impl SharedLayout {
    /// Lays out `(name, size, align)` variables; `align` 0 means 1. The dynamic area starts at the
    /// end of the static variables rounded up to `dynamic_align` (the largest `.align` among the
    /// `extern .shared` declarations; 0 means 16).
    pub fn new(vars: &[(&str, usize, usize)], dynamic_align: usize) -> SharedLayout {
        let mut out = SharedLayout::default();
        let mut at = 0usize;
        for &(name, size, align) in vars {
            at = at.next_multiple_of(align.max(1));
            out.offsets.insert(name.to_string(), at as u64);
            at = at.saturating_add(size);
        }
        out.static_bytes = at;
        let dal = if dynamic_align == 0 {
            16
        } else {
            dynamic_align
        };
        out.dynamic_offset = at.next_multiple_of(dal) as u64;
        out
    }

    /// Total shared bytes a CTA needs with `dynamic_bytes` of dynamic shared memory.
    pub fn total_bytes(&self, dynamic_bytes: usize) -> usize {
        (self.dynamic_offset as usize).saturating_add(dynamic_bytes)
    }
}

/// Which flat scratch space a [`FlatMemory`] models: its PTX state space and the region name
/// that out-of-bounds errors report.
pub trait FlatKind {
    /// The PTX state space (`.shared` or `.local`).
    const SPACE: Space;
    /// Region name for error messages.
    const REGION: &'static str;
}

/// Marker for per-CTA shared memory (`.shared`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedKind;

impl FlatKind for SharedKind {
    const SPACE: Space = Space::Shared;
    const REGION: &'static str = "CTA shared memory";
}

/// Marker for per-thread local memory (`.local` variables and spills).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalKind;

impl FlatKind for LocalKind {
    const SPACE: Space = Space::Local;
    const REGION: &'static str = "thread local memory";
}

/// A writable flat space `[0, size)`, zero-initialised (the hardware leaves shared and local
/// memory undefined; zero makes runs deterministic). Shared and local memory differ only in
/// their [`FlatKind`]: see [`SharedMemory`] and [`LocalMemory`].
#[derive(Clone, Debug)]
pub struct FlatMemory<K> {
    data: Vec<u8>,
    kind: PhantomData<K>,
}

/// One CTA's shared memory.
pub type SharedMemory = FlatMemory<SharedKind>;

/// One thread's local memory (`.local` variables and spills).
pub type LocalMemory = FlatMemory<LocalKind>;

impl<K: FlatKind> FlatMemory<K> {
    /// `bytes` of zeroed memory (for shared memory use [`SharedLayout::total_bytes`]).
    pub fn new(bytes: usize) -> Self {
        FlatMemory {
            data: vec![0; bytes],
            kind: PhantomData,
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Zeroes the contents for reuse (by the next CTA, or thread).
    pub fn clear(&mut self) {
        self.data.fill(0);
    }

    /// The whole contents.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }
}

impl<K: FlatKind> MemSpace for FlatMemory<K> {
    fn space(&self) -> Space {
        K::SPACE
    }

    #[inline]
    fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let r = range(K::SPACE, K::REGION, self.data.len(), addr, len)?;
        Ok(&self.data[r])
    }

    #[inline]
    fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        let r = range(K::SPACE, K::REGION, self.data.len(), addr, len)?;
        Ok(&mut self.data[r])
    }
}

/// The kernel parameter space (read-only): the bytes of a `ParamBlock`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSpace {
    data: Vec<u8>,
}

impl ParamSpace {
    /// Wraps param-space bytes (e.g. `ParamBlock::bytes`).
    pub fn new(bytes: Vec<u8>) -> Self {
        ParamSpace { data: bytes }
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.data.len()
    }
}

impl MemSpace for ParamSpace {
    fn space(&self) -> Space {
        Space::Param
    }

    #[inline]
    fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let r = range(
            Space::Param,
            "kernel parameters",
            self.data.len(),
            addr,
            len,
        )?;
        Ok(&self.data[r])
    }

    fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        Err(read_only(Space::Param, addr, len))
    }
}

/// The constant bank: module `.const` variables with their initial bytes, read-only to kernels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstSpace {
    data: Vec<u8>,
    /// Offset and size of each variable, by name.
    offsets: BTreeMap<String, (u64, usize)>,
}

impl ConstSpace {
    /// An empty bank.
    pub fn new() -> Self {
        Self::default()
    }

    /// Places variable `name` with initial bytes `init` (zero-padded to `size`) at the next offset
    /// aligned to `align` (0 means 1); returns its offset. Fails on duplicate names, `init` longer
    /// than `size`, or overflowing the 64 KiB bank.
    pub fn add(
        &mut self,
        name: &str,
        size: usize,
        align: usize,
        init: &[u8],
    ) -> Result<u64, MemError> {
        let fail = |reason: String| MemError::Alloc {
            space: Space::Const,
            name: name.to_string(),
            size,
            reason,
        };
        if self.offsets.contains_key(name) {
            return Err(fail("a constant of that name exists".into()));
        }
        if init.len() > size {
            return Err(fail(format!(
                "{} initial bytes exceed the size",
                init.len()
            )));
        }
        let off = self.data.len().next_multiple_of(align.max(1));
        if off.saturating_add(size) > CONST_BANK_BYTES {
            return Err(fail(format!(
                "the constant bank holds {CONST_BANK_BYTES} bytes"
            )));
        }
        self.data.resize(off, 0);
        self.data.extend_from_slice(init);
        self.data.resize(off + size, 0);
        self.offsets.insert(name.to_string(), (off as u64, size));
        Ok(off as u64)
    }

    /// Offset of constant `name`.
    pub fn address_of(&self, name: &str) -> Option<u64> {
        self.offsets.get(name).map(|&(off, _)| off)
    }

    /// Every constant's name, in name order.
    pub fn names(&self) -> Vec<&str> {
        self.offsets.keys().map(String::as_str).collect()
    }

    /// Size in bytes of constant `name`.
    pub fn size_of(&self, name: &str) -> Option<usize> {
        self.offsets.get(name).map(|&(_, size)| size)
    }

    /// Overwrites the first `bytes.len()` bytes of constant `name` from the host, as
    /// `cudaMemcpyToSymbol(name, bytes, bytes.len())` does (CUDA Runtime API §6.9, offset 0);
    /// the rest keeps its initial value. Fails when there is no such constant or `bytes` is
    /// longer than it.
    pub fn write_symbol(&mut self, name: &str, bytes: &[u8]) -> Result<(), MemError> {
        let fail = |reason: String| MemError::Alloc {
            space: Space::Const,
            name: name.to_string(),
            size: bytes.len(),
            reason,
        };
        let &(off, size) = self
            .offsets
            .get(name)
            .ok_or_else(|| fail("the module declares no .const variable of that name".into()))?;
        if bytes.len() > size {
            return Err(fail(format!("the .const variable holds {size} bytes")));
        }
        let off = off as usize;
        self.data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Bytes in use.
    pub fn size(&self) -> usize {
        self.data.len()
    }
}

impl MemSpace for ConstSpace {
    fn space(&self) -> Space {
        Space::Const
    }

    #[inline]
    fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let r = range(Space::Const, "constant bank", self.data.len(), addr, len)?;
        Ok(&self.data[r])
    }

    fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        Err(read_only(Space::Const, addr, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_layout_and_bounds() {
        let l = SharedLayout::new(&[("a", 3, 1), ("b", 8, 8), ("c", 4, 4)], 0);
        assert_eq!(l.offsets["a"], 0);
        assert_eq!(l.offsets["b"], 8);
        assert_eq!(l.offsets["c"], 16);
        assert_eq!(l.static_bytes, 20);
        assert_eq!(l.dynamic_offset, 32);
        assert_eq!(l.total_bytes(100), 132);
        let mut s = SharedMemory::new(l.total_bytes(100));
        s.write_u32(128, 5).unwrap();
        assert_eq!(s.read_u32(128).unwrap(), 5);
        assert!(matches!(s.read_u64(128), Err(MemError::OutOfBounds { .. })));
        assert!(matches!(s.read_u32(132), Err(MemError::Unmapped { .. })));
        assert_eq!(s.atomic_u32(128, |x| x * 3).unwrap(), 5);
        assert_eq!(s.read_u32(128).unwrap(), 15);
        s.clear();
        assert_eq!(s.read_u32(128).unwrap(), 0);
    }

    #[test]
    fn shared_and_local_errors_name_their_space_and_region() {
        let s = SharedMemory::new(8);
        let l = LocalMemory::new(8);
        assert_eq!((s.space(), l.space()), (Space::Shared, Space::Local));
        let region = |e| match e {
            Err(MemError::OutOfBounds { space, region, .. }) => (space, region),
            other => panic!("expected out of bounds, got {other:?}"),
        };
        assert_eq!(
            region(s.bytes(4, 8)),
            (Space::Shared, "CTA shared memory".to_string())
        );
        assert_eq!(
            region(l.bytes(4, 8)),
            (Space::Local, "thread local memory".to_string())
        );
        assert!(matches!(
            l.bytes(8, 1),
            Err(MemError::Unmapped {
                space: Space::Local,
                ..
            })
        ));
    }

    #[test]
    fn local_param_const() {
        let mut l = LocalMemory::new(16);
        l.write_f64(8, 2.5).unwrap();
        assert_eq!(l.read_f64(8).unwrap(), 2.5);
        assert!(l.read_f64(16).is_err());
        let mut p = ParamSpace::new(vec![1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(p.read_u32(4).unwrap(), 2);
        assert!(matches!(p.write_u32(0, 1), Err(MemError::ReadOnly { .. })));
        let mut c = ConstSpace::new();
        assert_eq!(c.add("k", 3, 1, &[7, 8]).unwrap(), 0);
        assert_eq!(c.add("m", 4, 4, &1u32.to_le_bytes()).unwrap(), 4);
        assert_eq!(c.read_u8(1).unwrap(), 8);
        assert_eq!(c.read_u8(2).unwrap(), 0);
        assert_eq!(c.read_u32(c.address_of("m").unwrap()).unwrap(), 1);
        assert!(c.add("m", 4, 4, &[]).is_err());
        assert!(c.add("big", CONST_BANK_BYTES, 4, &[]).is_err());
        assert!(c.add("x", 1, 1, &[1, 2]).is_err());
        assert!(matches!(c.write_u8(0, 1), Err(MemError::ReadOnly { .. })));
    }

    #[test]
    fn a_host_write_to_a_constant_symbol_overwrites_its_prefix_only() {
        let mut c = ConstSpace::new();
        c.add("k", 3, 1, &[7, 8, 9]).unwrap();
        c.add("m", 8, 4, &[1; 8]).unwrap();
        c.write_symbol("m", &[5, 6]).unwrap();
        assert_eq!(c.bytes(4, 8).unwrap(), &[5, 6, 1, 1, 1, 1, 1, 1]);
        assert_eq!(
            c.bytes(0, 3).unwrap(),
            &[7, 8, 9],
            "the neighbour is untouched"
        );
        assert_eq!(c.size_of("m"), Some(8));
        let e = c.write_symbol("m", &[0; 9]).unwrap_err().to_string();
        assert!(e.contains("holds 8 bytes"), "{e}");
        let e = c.write_symbol("nope", &[0]).unwrap_err().to_string();
        assert!(e.contains("no .const variable"), "{e}");
    }
}
