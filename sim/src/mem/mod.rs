//! Device memory model for the functional executor: global memory with named allocations,
//! per-CTA shared memory, per-thread local memory, the kernel parameter space and the constant
//! bank, all behind one [`MemSpace`] trait of bounds-checked little-endian loads and stores.
//!
//! # Address map (regwatt conventions)
//! * **Global**: allocations start at [`GLOBAL_BASE`] (`0x7f00_0000_0000`, the shape of CUDA
//!   unified-virtual-address device pointers on x86-64 Linux), each 256-byte aligned
//!   ([`ALLOC_ALIGN`], the minimum alignment `cudaMalloc` guarantees per the CUDA C++
//!   Programming Guide, "Device Memory Accesses"), with at least [`GUARD_BYTES`] unmapped bytes
//!   between allocations so small overruns fault instead of silently reading a neighbour.
//! * **Shared**, **local**, **param**, **const**: separate address spaces starting at 0 (the
//!   offsets `ld.shared`, `ld.local`, `ld.param` and `ld.const` take).
//! * **Generic** addresses (PTX `cvta`, plain `ld`/`st`): shared offsets appear at
//!   [`SHARED_WINDOW_BASE`] and local offsets at [`LOCAL_WINDOW_BASE`], each window
//!   [`WINDOW_SIZE`] bytes; everything else is global. See [`classify_generic`].
//!
//! Typed accesses (`read_u32`, `write_u64`, `load`, `store`, atomics) require natural
//! alignment, as the hardware does (PTX ISA, "Addresses as Operands": accesses must be aligned to
//! their size); the raw [`MemSpace::bytes`] accessors do not.

mod flat;
mod global;

pub use flat::{
    ConstSpace, FlatKind, FlatMemory, LocalKind, LocalMemory, ParamSpace, SharedKind, SharedLayout,
    SharedMemory, CONST_BANK_BYTES,
};
pub use global::{AllocInfo, GlobalMemory, ALLOC_ALIGN, GLOBAL_BASE, GUARD_BYTES};

/// A PTX state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
    Const,
}

impl std::fmt::Display for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Param => "param",
            Space::Const => "const",
        })
    }
}

/// A hint for global addresses below every allocation: most likely an integer launch argument
/// given for a pointer parameter.
fn unmapped_hint(space: Space, addr: u64) -> &'static str {
    if space == Space::Global && addr < global::GLOBAL_BASE {
        " (device buffers start at 0x7f0000000000: a pointer parameter must be given a buffer \
         name in the launch spec; integer arguments are passed as plain values, not addresses)"
    } else {
        ""
    }
}

/// A failed memory operation. The executor adds kernel, PC and thread.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemError {
    /// No allocation contains the address.
    #[error("{space} access of {size} bytes at {addr:#x} hits no allocation{near}{}", unmapped_hint(*space, *addr))]
    Unmapped {
        space: Space,
        addr: u64,
        size: usize,
        /// Where the address lies relative to the nearest allocation (`": 16 bytes past the
        /// end of buffer a ..."`), or empty.
        near: String,
    },
    /// The access starts inside an allocation (or space) but runs past its end.
    #[error("{space} access of {size} bytes at {addr:#x} is out of bounds of {region} [{base:#x}, {end:#x})")]
    OutOfBounds {
        space: Space,
        addr: u64,
        size: usize,
        region: String,
        base: u64,
        end: u64,
    },
    /// A typed access not aligned to its size.
    #[error("misaligned {space} access of {size} bytes at {addr:#x}")]
    Misaligned {
        space: Space,
        addr: u64,
        size: usize,
    },
    /// A store to a read-only space.
    #[error("store of {size} bytes at {addr:#x} to read-only {space} space")]
    ReadOnly {
        space: Space,
        addr: u64,
        size: usize,
    },
    /// An access size other than 1, 2, 4, 8 or 16 bytes.
    #[error("unsupported {space} access size {size} at {addr:#x}")]
    BadSize {
        space: Space,
        addr: u64,
        size: usize,
    },
    /// An allocation request that cannot be satisfied.
    #[error("cannot allocate {size} bytes of {space} memory for {name:?}: {reason}")]
    Alloc {
        space: Space,
        name: String,
        size: usize,
        reason: String,
    },
}

/// Bounds-checked byte-addressed memory. Implemented by every space; the typed helpers are
/// provided on top of [`bytes`](MemSpace::bytes) and [`bytes_mut`](MemSpace::bytes_mut).
pub trait MemSpace {
    /// Which state space this is (for error messages).
    fn space(&self) -> Space;

    /// The `len` bytes at `addr`, or an error naming the address and size.
    fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError>;

    /// The `len` bytes at `addr`, writable, or an error (also for read-only spaces).
    fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError>;

    /// Checks `size ∈ {1, 2, 4, 8, 16}` and natural alignment.
    #[inline]
    fn check_aligned(&self, addr: u64, size: usize) -> Result<(), MemError> {
        if !matches!(size, 1 | 2 | 4 | 8 | 16) {
            return Err(MemError::BadSize {
                space: self.space(),
                addr,
                size,
            });
        }
        if addr & (size as u64 - 1) != 0 {
            return Err(MemError::Misaligned {
                space: self.space(),
                addr,
                size,
            });
        }
        Ok(())
    }

    /// Loads `size` ∈ {1, 2, 4, 8} bytes, zero-extended to `u64`.
    #[inline]
    fn load(&self, addr: u64, size: usize) -> Result<u64, MemError> {
        self.check_aligned(addr, size)?;
        if size > 8 {
            return Err(MemError::BadSize {
                space: self.space(),
                addr,
                size,
            });
        }
        let b = self.bytes(addr, size)?;
        let mut a = [0u8; 8];
        a[..size].copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// Stores the low `size` ∈ {1, 2, 4, 8} bytes of `value`.
    #[inline]
    fn store(&mut self, addr: u64, size: usize, value: u64) -> Result<(), MemError> {
        self.check_aligned(addr, size)?;
        if size > 8 {
            return Err(MemError::BadSize {
                space: self.space(),
                addr,
                size,
            });
        }
        self.bytes_mut(addr, size)?
            .copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(())
    }

    /// Loads `out.len()` ∈ {1, 2, 4, 8, 16} bytes, naturally aligned (vector loads).
    #[inline]
    fn load_into(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        self.check_aligned(addr, out.len())?;
        out.copy_from_slice(self.bytes(addr, out.len())?);
        Ok(())
    }

    /// Stores `data.len()` ∈ {1, 2, 4, 8, 16} bytes, naturally aligned.
    #[inline]
    fn store_from(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        self.check_aligned(addr, data.len())?;
        self.bytes_mut(addr, data.len())?.copy_from_slice(data);
        Ok(())
    }

    /// Aligned little-endian `u8` load.
    #[inline]
    fn read_u8(&self, addr: u64) -> Result<u8, MemError> {
        Ok(self.bytes(addr, 1)?[0])
    }

    /// Aligned little-endian `u16` load.
    #[inline]
    fn read_u16(&self, addr: u64) -> Result<u16, MemError> {
        self.load(addr, 2).map(|v| v as u16)
    }

    /// Aligned little-endian `u32` load.
    #[inline]
    fn read_u32(&self, addr: u64) -> Result<u32, MemError> {
        self.check_aligned(addr, 4)?;
        let b = self.bytes(addr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Aligned little-endian `u64` load.
    #[inline]
    fn read_u64(&self, addr: u64) -> Result<u64, MemError> {
        self.load(addr, 8)
    }

    /// Aligned little-endian `f32` load.
    #[inline]
    fn read_f32(&self, addr: u64) -> Result<f32, MemError> {
        self.read_u32(addr).map(f32::from_bits)
    }

    /// Aligned little-endian `f64` load.
    #[inline]
    fn read_f64(&self, addr: u64) -> Result<f64, MemError> {
        self.read_u64(addr).map(f64::from_bits)
    }

    /// `u8` store.
    #[inline]
    fn write_u8(&mut self, addr: u64, v: u8) -> Result<(), MemError> {
        self.store(addr, 1, v as u64)
    }

    /// Aligned little-endian `u16` store.
    #[inline]
    fn write_u16(&mut self, addr: u64, v: u16) -> Result<(), MemError> {
        self.store(addr, 2, v as u64)
    }

    /// Aligned little-endian `u32` store.
    #[inline]
    fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), MemError> {
        self.store(addr, 4, v as u64)
    }

    /// Aligned little-endian `u64` store.
    #[inline]
    fn write_u64(&mut self, addr: u64, v: u64) -> Result<(), MemError> {
        self.store(addr, 8, v)
    }

    /// Aligned little-endian `f32` store.
    #[inline]
    fn write_f32(&mut self, addr: u64, v: f32) -> Result<(), MemError> {
        self.write_u32(addr, v.to_bits())
    }

    /// Aligned little-endian `f64` store.
    #[inline]
    fn write_f64(&mut self, addr: u64, v: f64) -> Result<(), MemError> {
        self.write_u64(addr, v.to_bits())
    }

    /// Atomic read-modify-write of the aligned `size`-byte integer at `addr` (zero-extended to
    /// `u64`): stores the low `size` bytes of `op(old)` and returns `old`. (The functional
    /// executor runs one thread at a time, so this is trivially atomic.)
    #[inline]
    fn atomic_bits(
        &mut self,
        addr: u64,
        size: usize,
        op: impl FnOnce(u64) -> u64,
    ) -> Result<u64, MemError>
    where
        Self: Sized,
    {
        let old = self.load(addr, size)?;
        self.store(addr, size, op(old))?;
        Ok(old)
    }

    /// Atomic read-modify-write of an aligned `u32`: stores `op(old)` and returns `old` (CAS is
    /// `|old| if old == cmp { new } else { old }`).
    #[inline]
    fn atomic_u32(&mut self, addr: u64, op: impl FnOnce(u32) -> u32) -> Result<u32, MemError>
    where
        Self: Sized,
    {
        self.atomic_bits(addr, 4, |b| u64::from(op(b as u32)))
            .map(|b| b as u32)
    }

    /// Atomic read-modify-write of an aligned `u64`; returns the old value.
    #[inline]
    fn atomic_u64(&mut self, addr: u64, op: impl FnOnce(u64) -> u64) -> Result<u64, MemError>
    where
        Self: Sized,
    {
        self.atomic_bits(addr, 8, op)
    }

    /// Atomic read-modify-write of an aligned `f32` (e.g. `atom.add.f32`); returns the old value.
    #[inline]
    fn atomic_f32(&mut self, addr: u64, op: impl FnOnce(f32) -> f32) -> Result<f32, MemError>
    where
        Self: Sized,
    {
        self.atomic_u32(addr, |b| op(f32::from_bits(b)).to_bits())
            .map(f32::from_bits)
    }

    /// Atomic read-modify-write of an aligned `f64`; returns the old value.
    #[inline]
    fn atomic_f64(&mut self, addr: u64, op: impl FnOnce(f64) -> f64) -> Result<f64, MemError>
    where
        Self: Sized,
    {
        self.atomic_u64(addr, |b| op(f64::from_bits(b)).to_bits())
            .map(f64::from_bits)
    }
}

/// Start of the shared-memory window in the generic address space.
pub const SHARED_WINDOW_BASE: u64 = 0x7e00_0000_0000;
/// Start of the local-memory window in the generic address space.
pub const LOCAL_WINDOW_BASE: u64 = 0x7e01_0000_0000;
/// Size of each generic window (4 GiB: any 32-bit shared or local offset fits).
pub const WINDOW_SIZE: u64 = 1 << 32;

// The generic windows must not overlap each other or global allocations.
const _: () = assert!(LOCAL_WINDOW_BASE + WINDOW_SIZE <= GLOBAL_BASE);
const _: () = assert!(SHARED_WINDOW_BASE + WINDOW_SIZE <= LOCAL_WINDOW_BASE);

/// Splits a generic address into its state space and the address within that space
/// (`cvta.to.shared` / `cvta.to.local` semantics; global addresses are returned unchanged).
#[inline]
pub fn classify_generic(addr: u64) -> (Space, u64) {
    if addr.wrapping_sub(SHARED_WINDOW_BASE) < WINDOW_SIZE {
        (Space::Shared, addr - SHARED_WINDOW_BASE)
    } else if addr.wrapping_sub(LOCAL_WINDOW_BASE) < WINDOW_SIZE {
        (Space::Local, addr - LOCAL_WINDOW_BASE)
    } else {
        (Space::Global, addr)
    }
}

/// The generic address of a shared (`cvta.shared`) or local (`cvta.local`) address; global and
/// other spaces are returned unchanged.
#[inline]
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared => SHARED_WINDOW_BASE + (addr & (WINDOW_SIZE - 1)),
        Space::Local => LOCAL_WINDOW_BASE + (addr & (WINDOW_SIZE - 1)),
        _ => addr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_windows_round_trip_and_do_not_overlap_global() {
        assert_eq!(
            classify_generic(to_generic(Space::Shared, 0x40)),
            (Space::Shared, 0x40)
        );
        assert_eq!(
            classify_generic(to_generic(Space::Local, 8)),
            (Space::Local, 8)
        );
        assert_eq!(classify_generic(GLOBAL_BASE), (Space::Global, GLOBAL_BASE));
        assert_eq!(classify_generic(0), (Space::Global, 0));
    }
}
