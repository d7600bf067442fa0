//! Global memory: named allocations at realistic, 256-byte-aligned device addresses.

use std::collections::BTreeMap;

use super::{MemError, MemSpace, Space};
use crate::launch::{DType, HostData};

/// Address of the first allocation (see the module docs for the address map).
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Alignment of every allocation's base address.
pub const ALLOC_ALIGN: u64 = 256;
/// Minimum unmapped gap between consecutive allocations.
pub const GUARD_BYTES: u64 = 256;
/// Total global memory the model will allocate (16 GiB of address space; actual host memory is
/// what is allocated).
const GLOBAL_LIMIT: u64 = 16 << 30;

/// One allocation's public description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocInfo {
    /// Allocation name (a launch-spec buffer name).
    pub name: String,
    /// Device address of the first byte.
    pub base: u64,
    /// Size in bytes.
    pub size: usize,
    /// Element type when allocated from a typed buffer.
    pub dtype: Option<DType>,
}

/// Device global memory. Lookup is a binary search over allocation bases (allocations are
/// handed out at increasing addresses, so the tables stay sorted).
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    bases: Vec<u64>,
    ends: Vec<u64>,
    data: Vec<Vec<u8>>,
    info: Vec<AllocInfo>,
    by_name: BTreeMap<String, usize>,
    next: u64,
}

impl Default for GlobalMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl GlobalMemory {
    /// An empty memory whose first allocation will be at [`GLOBAL_BASE`].
    pub fn new() -> Self {
        GlobalMemory {
            bases: Vec::new(),
            ends: Vec::new(),
            data: Vec::new(),
            info: Vec::new(),
            by_name: BTreeMap::new(),
            next: GLOBAL_BASE,
        }
    }

    fn alloc_bytes(
        &mut self,
        name: &str,
        bytes: Vec<u8>,
        dtype: Option<DType>,
    ) -> Result<u64, MemError> {
        let size = bytes.len();
        let fail = |reason: String| MemError::Alloc {
            space: Space::Global,
            name: name.to_string(),
            size,
            reason,
        };
        if self.by_name.contains_key(name) {
            return Err(fail("an allocation of that name exists".into()));
        }
        let base = self.next;
        let end = base + size as u64;
        if end - GLOBAL_BASE > GLOBAL_LIMIT {
            return Err(fail(format!(
                "exceeds the {GLOBAL_LIMIT}-byte global memory limit"
            )));
        }
        self.next = (end + GUARD_BYTES).next_multiple_of(ALLOC_ALIGN);
        self.by_name.insert(name.to_string(), self.bases.len());
        self.bases.push(base);
        self.ends.push(end);
        self.data.push(bytes);
        self.info.push(AllocInfo {
            name: name.to_string(),
            base,
            size,
            dtype,
        });
        Ok(base)
    }

    /// Allocates `bytes` zeroed bytes named `name`; returns the device address.
    pub fn alloc(&mut self, name: &str, bytes: usize) -> Result<u64, MemError> {
        if bytes as u64 > GLOBAL_LIMIT {
            return Err(MemError::Alloc {
                space: Space::Global,
                name: name.to_string(),
                size: bytes,
                reason: format!("exceeds the {GLOBAL_LIMIT}-byte global memory limit"),
            });
        }
        self.alloc_bytes(name, vec![0; bytes], None)
    }

    /// Allocates a buffer initialised from `data` (remembering its dtype for read-back).
    pub fn alloc_host(&mut self, name: &str, data: &HostData) -> Result<u64, MemError> {
        self.alloc_bytes(name, data.to_le_bytes(), Some(data.dtype()))
    }

    /// Allocates every buffer, in name order (so addresses are deterministic); returns the
    /// addresses by name.
    pub fn alloc_buffers(
        &mut self,
        buffers: &BTreeMap<String, HostData>,
    ) -> Result<BTreeMap<String, u64>, MemError> {
        buffers
            .iter()
            .map(|(n, d)| Ok((n.clone(), self.alloc_host(n, d)?)))
            .collect()
    }

    /// Allocates every buffer of a launch spec, in name order (as [`Self::alloc_buffers`] of
    /// `spec.initial_buffers()`, same addresses and bytes), building each device image
    /// directly: a buffer costs its bytes once.
    pub fn alloc_spec_buffers(
        &mut self,
        spec: &crate::launch::LaunchSpec,
    ) -> Result<BTreeMap<String, u64>, MemError> {
        spec.buffers
            .iter()
            .map(|(n, b)| {
                let bytes = b.init.generate_le_bytes(b.dtype, b.len);
                Ok((n.clone(), self.alloc_bytes(n, bytes, Some(b.dtype))?))
            })
            .collect()
    }

    /// Moves allocation `name` out, typed by its dtype, leaving it empty (the final read-back
    /// of a run: [`HostData::from_le_bytes_owned`] frees the device image as the typed copy
    /// grows, so the read-back costs the buffer's bytes once, not twice).
    pub fn take_back(&mut self, name: &str) -> Option<HostData> {
        let &i = self.by_name.get(name)?;
        let dtype = self.info[i].dtype.unwrap_or(DType::U8);
        HostData::from_le_bytes_owned(dtype, std::mem::take(&mut self.data[i]))
    }

    /// Device address of allocation `name`.
    pub fn address_of(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).map(|&i| self.bases[i])
    }

    /// All allocations in address order.
    pub fn allocations(&self) -> &[AllocInfo] {
        &self.info
    }

    /// The allocation containing `addr`, if any.
    pub fn allocation_at(&self, addr: u64) -> Option<&AllocInfo> {
        self.find(addr).map(|i| &self.info[i])
    }

    /// The allocation containing `addr` as `(base address, bytes)`, found with one search
    /// (the executor's whole-warp loads).
    pub fn region_at(&self, addr: u64) -> Option<(u64, &[u8])> {
        let i = self.find(addr)?;
        Some((self.bases[i], self.data[i].as_slice()))
    }

    /// The raw bytes of allocation `name`.
    pub fn allocation_bytes(&self, name: &str) -> Option<&[u8]> {
        self.by_name.get(name).map(|&i| self.data[i].as_slice())
    }

    /// Copies allocation `name` back out, typed by its dtype (`u8` for untyped allocations).
    pub fn read_back(&self, name: &str) -> Option<HostData> {
        let &i = self.by_name.get(name)?;
        let dtype = self.info[i].dtype.unwrap_or(DType::U8);
        HostData::from_le_bytes(dtype, &self.data[i])
    }

    /// Copies every allocation back out, by name.
    pub fn read_back_all(&self) -> BTreeMap<String, HostData> {
        self.by_name
            .keys()
            .filter_map(|n| Some((n.clone(), self.read_back(n)?)))
            .collect()
    }

    /// Index of the allocation whose range contains `addr`.
    #[inline]
    fn find(&self, addr: u64) -> Option<usize> {
        let i = self.bases.partition_point(|&b| b <= addr).checked_sub(1)?;
        (addr < self.ends[i]).then_some(i)
    }

    /// The error of an access at `addr` that no allocation contains, naming the nearest
    /// allocation (the buffer an index ran past, or ran short of) with its length and type,
    /// when the address lies among the allocations' address range.
    #[cold]
    fn unmapped(&self, addr: u64, size: usize) -> MemError {
        let describe = |i: usize| {
            let a = &self.info[i];
            match a.dtype {
                Some(t) => format!(
                    "buffer {} ({} x {t}, [{:#x}, {:#x}))",
                    a.name,
                    a.size / t.size(),
                    self.bases[i],
                    self.ends[i]
                ),
                None => format!(
                    "allocation {} ({} bytes, [{:#x}, {:#x}))",
                    a.name, a.size, self.bases[i], self.ends[i]
                ),
            }
        };
        let after = self.bases.partition_point(|&b| b <= addr);
        // the allocation below the address (it ends at or before it) and the one above
        let below = after
            .checked_sub(1)
            .map(|i| (addr.saturating_sub(self.ends[i]), i));
        let above = (after < self.bases.len()).then(|| (self.bases[after] - addr, after));
        let near = match (below, above) {
            (Some((d, i)), Some((u, _))) if d <= u => {
                format!(": {d} bytes past the end of {}", describe(i))
            }
            (Some((d, i)), None) if addr >= GLOBAL_BASE && d <= GLOBAL_LIMIT => {
                format!(": {d} bytes past the end of {}", describe(i))
            }
            (_, Some((u, j))) if addr >= GLOBAL_BASE => {
                format!(": {u} bytes before {}", describe(j))
            }
            _ => String::new(),
        };
        MemError::Unmapped {
            space: Space::Global,
            addr,
            size,
            near,
        }
    }

    #[inline]
    fn locate(&self, addr: u64, len: usize) -> Result<(usize, usize), MemError> {
        let i = match self.find(addr) {
            Some(i) => i,
            None => return Err(self.unmapped(addr, len)),
        };
        let off = (addr - self.bases[i]) as usize;
        let past_end = match addr.checked_add(len as u64) {
            Some(e) => e > self.ends[i],
            None => true,
        };
        if past_end {
            return Err(MemError::OutOfBounds {
                space: Space::Global,
                addr,
                size: len,
                region: self.info[i].name.clone(),
                base: self.bases[i],
                end: self.ends[i],
            });
        }
        Ok((i, off))
    }
}

impl MemSpace for GlobalMemory {
    fn space(&self) -> Space {
        Space::Global
    }

    /// As the default, but an address outside every allocation is reported as
    /// [`MemError::Unmapped`] before its alignment is checked (an integer passed for a
    /// pointer parameter showed up as a "misaligned" access).
    #[inline]
    fn check_aligned(&self, addr: u64, size: usize) -> Result<(), MemError> {
        if self.find(addr).is_none() {
            return Err(self.unmapped(addr, size));
        }
        if !matches!(size, 1 | 2 | 4 | 8 | 16) {
            return Err(MemError::BadSize {
                space: Space::Global,
                addr,
                size,
            });
        }
        if addr & (size as u64 - 1) != 0 {
            return Err(MemError::Misaligned {
                space: Space::Global,
                addr,
                size,
            });
        }
        Ok(())
    }

    #[inline]
    fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let (i, off) = self.locate(addr, len)?;
        Ok(&self.data[i][off..off + len])
    }

    #[inline]
    fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        let (i, off) = self.locate(addr, len)?;
        Ok(&mut self.data[i][off..off + len])
    }
}

/// Jing et al. 2016's tagged array reads the lines it caches from here
/// ([`crate::timing::rf::GlobalAccess::memory`]).
impl crate::timing::rf::GlobalRead for GlobalMemory {
    fn read_global(&self, addr: u64, out: &mut [u8]) {
        let mut i = 0;
        while i < out.len() {
            let a = addr.wrapping_add(i as u64);
            match self.region_at(a) {
                Some((base, data)) if data.len() > (a - base) as usize => {
                    let off = (a - base) as usize;
                    let n = (data.len() - off).min(out.len() - i);
                    out[i..i + n].copy_from_slice(&data[off..off + n]);
                    i += n;
                }
                _ => {
                    out[i] = 0;
                    i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_global_copies_allocations_and_reads_gaps_as_zero() {
        use crate::timing::rf::GlobalRead;
        let mut g = GlobalMemory::new();
        let a = g.alloc("a", 8).expect("alloc");
        g.bytes_mut(a, 8)
            .expect("bytes")
            .copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut out = [9u8; 12];
        g.read_global(a + 4, &mut out);
        // 4 bytes of `a`, then whatever lies past its end reads 0 unless another allocation
        // starts there
        assert_eq!(&out[..4], &[5, 6, 7, 8]);
        let mut gap = [9u8; 4];
        g.read_global(u64::MAX - 8, &mut gap);
        assert_eq!(gap, [0; 4]);
    }

    #[test]
    fn allocations_are_aligned_guarded_and_named() {
        let mut m = GlobalMemory::new();
        let a = m.alloc("a", 10).unwrap();
        let b = m.alloc("b", 256).unwrap();
        let c = m.alloc("c", 1).unwrap();
        assert_eq!(a, GLOBAL_BASE);
        // a ends at +10; +256 guard = +266 → next 256 multiple = +512.
        assert_eq!(b, GLOBAL_BASE + 512);
        // b ends at +768; +256 = +1024 (already aligned).
        assert_eq!(c, GLOBAL_BASE + 1024);
        assert_eq!(m.address_of("b"), Some(b));
        assert_eq!(m.address_of("z"), None);
        assert!(matches!(m.alloc("a", 4), Err(MemError::Alloc { .. })));
        assert!(matches!(
            m.alloc("huge", 1 << 40),
            Err(MemError::Alloc { .. })
        ));
    }

    #[test]
    fn an_access_between_buffers_names_the_nearest_one() {
        let mut m = GlobalMemory::new();
        let a = m.alloc_host("a", &HostData::F32(vec![0.0; 4])).unwrap();
        let b = m.alloc("b", 8).unwrap();
        // a is [base, base + 16); b starts at base + 512
        let e = m.read_u32(a + 20).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!(
                "hits no allocation: 4 bytes past the end of buffer a (4 x f32, [{a:#x}, {:#x}))",
                a + 16
            )),
            "{e}"
        );
        let e = m.read_u32(b - 8).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                ": 8 bytes before allocation b (8 bytes, [{b:#x}, {:#x}))",
                b + 8
            )),
            "{e}"
        );
        let e = m.read_u32(b + 8 + 4096).unwrap_err().to_string();
        assert!(e.contains("4096 bytes past the end of allocation b"), "{e}");
        // an integer passed for a pointer keeps its own hint and names no buffer
        let e = m.read_u32(64).unwrap_err().to_string();
        assert!(!e.contains("buffer a"), "{e}");
        assert!(e.contains("must be given a buffer name"), "{e}");
    }

    #[test]
    fn loads_stores_and_bounds() {
        let mut m = GlobalMemory::new();
        let a = m
            .alloc_host("x", &HostData::U32(vec![1, 2, 3, 0xdead_beef]))
            .unwrap();
        assert_eq!(m.read_u32(a + 12).unwrap(), 0xdead_beef);
        assert_eq!(m.read_u16(a + 12).unwrap(), 0xbeef);
        assert_eq!(m.read_u8(a + 15).unwrap(), 0xde);
        assert_eq!(m.read_u64(a).unwrap(), 1 | (2 << 32));
        m.write_u32(a + 4, 7).unwrap();
        m.write_u8(a + 1, 1).unwrap();
        assert_eq!(
            m.read_back("x"),
            Some(HostData::U32(vec![0x101, 7, 3, 0xdead_beef]))
        );
        let mut v = [0u8; 16];
        m.load_into(a, &mut v).unwrap();
        assert_eq!(&v[4..8], &[7, 0, 0, 0]);
        // Overrun of the last element: out of bounds, naming the allocation.
        let e = m
            .read_u64(a + 8)
            .map(|_| ())
            .and_then(|_| m.read_u64(a + 16))
            .unwrap_err();
        assert_eq!(
            e,
            MemError::Unmapped {
                space: Space::Global,
                addr: a + 16,
                size: 8,
                near: format!(
                    ": 0 bytes past the end of buffer x (4 x u32, [{a:#x}, {:#x}))",
                    a + 16
                ),
            }
        );
        let e = m.load_into(a + 8, &mut [0u8; 16]).unwrap_err();
        assert!(matches!(e, MemError::Misaligned { .. }), "{e}");
        let e = m.bytes(a + 12, 8).unwrap_err();
        assert!(
            matches!(&e, MemError::OutOfBounds { region, .. } if region == "x"),
            "{e}"
        );
        assert!(e.to_string().contains("0x7f000000000c"), "{e}");
        assert!(matches!(
            m.read_u32(a + 2),
            Err(MemError::Misaligned { .. })
        ));
        assert!(matches!(m.read_u32(0), Err(MemError::Unmapped { .. })));
        assert!(matches!(
            m.read_u32(GLOBAL_BASE - 4),
            Err(MemError::Unmapped { .. })
        ));
        assert!(matches!(m.load(a, 3), Err(MemError::BadSize { .. })));
        assert!(matches!(
            m.bytes(u64::MAX, 2),
            Err(MemError::Unmapped { .. })
        ));
    }

    #[test]
    fn atomics_return_old_value() {
        let mut m = GlobalMemory::new();
        let a = m.alloc_host("c", &HostData::F32(vec![1.5, 0.0])).unwrap();
        assert_eq!(m.atomic_f32(a, |x| x + 2.0).unwrap(), 1.5);
        assert_eq!(m.read_f32(a).unwrap(), 3.5);
        let b = m.alloc("n", 8).unwrap();
        assert_eq!(m.atomic_u64(b, |x| x + 5).unwrap(), 0);
        assert_eq!(m.atomic_u32(b, |x| if x == 5 { 9 } else { x }).unwrap(), 5);
        assert_eq!(m.read_u64(b).unwrap(), 9);
        assert!(m.atomic_u32(b + 8, |x| x).is_err());
    }

    #[test]
    fn buffers_round_trip_in_name_order() {
        let mut bufs = BTreeMap::new();
        bufs.insert("b".to_string(), HostData::I8(vec![-1, 2]));
        bufs.insert("a".to_string(), HostData::F64(vec![0.25]));
        let mut m = GlobalMemory::new();
        let addrs = m.alloc_buffers(&bufs).unwrap();
        assert_eq!(addrs["a"], GLOBAL_BASE);
        assert!(addrs["b"] > addrs["a"] && addrs["b"].is_multiple_of(ALLOC_ALIGN));
        assert_eq!(m.read_back_all(), bufs);
        assert_eq!(
            m.allocation_at(addrs["b"] + 1).map(|i| i.name.as_str()),
            Some("b")
        );
        assert_eq!(m.allocation_at(addrs["b"] + 2), None);
    }
}
