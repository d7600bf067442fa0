//! Memory coalescing for global/local accesses on sm_70+.
//!
//! Semantics follow GPGPU-Sim 4.0 / Accel-Sim `warp_inst_t::memory_coalescing_arch` for
//! `-gpgpu_coalesce_arch` ≥ 40 (Maxwell and later, where L1D and L2 are sectored): every active
//! lane's access `[addr, addr + size)` marks the 32 B sectors it touches (an access straddling a
//! sector boundary marks both); lanes are grouped by 128 B line; each line becomes one request
//! carrying the mask of touched sectors, and the number of 32 B sector transactions is the total
//! number of set sector bits. With `-gpgpu_shmem_warp_parts 1` (both reference configs) the whole
//! warp is coalesced together. Lines are emitted in increasing address order (GPGPU-Sim iterates an
//! ordered map of block addresses).
//!
//! Local-space accesses wider than 4 B are split into 4 B per-lane pieces by GPGPU-Sim before
//! coalescing; that does not change which sectors are touched, so no special case is needed.

use super::{LINE_BYTES, SECTOR_BYTES};

/// One lane's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LaneAccess {
    /// Byte address.
    pub addr: u64,
    /// Access size in bytes (1, 2, 4, 8 or 16).
    pub size: u8,
    /// Whether the lane is active (predicated on and not exited).
    pub active: bool,
}

/// One line's worth of a coalesced warp access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineAccess {
    /// 128 B-aligned line address.
    pub line_addr: u64,
    /// Touched sectors (bit `i` = bytes `32i .. 32i+32`).
    pub sectors: u8,
    /// Touched bytes of the line (bit `i` = byte `i`).
    pub bytes: u128,
    /// Lanes that touch this line (bit `l` = lane `l`).
    pub lanes: u32,
}

/// The coalescer's result for one warp instruction.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Coalesced {
    /// Touched lines in increasing address order.
    pub lines: Vec<LineAccess>,
}

impl Coalesced {
    /// Number of 32 B sector transactions (what a sm_70+ LD/ST unit sends to the L1D).
    pub fn sectors(&self) -> u32 {
        self.lines.iter().map(|l| l.sectors.count_ones()).sum()
    }

    /// Number of distinct 128 B lines.
    pub fn num_lines(&self) -> usize {
        self.lines.len()
    }

    /// Bytes requested by active lanes (distinct bytes).
    pub fn requested_bytes(&self) -> u32 {
        self.lines.iter().map(|l| l.bytes.count_ones()).sum()
    }
}

fn mark(lines: &mut Vec<LineAccess>, lane: usize, start: u64, end: u64) {
    // Walk the access one line piece at a time (a 16 B access can straddle two lines only when
    // misaligned).
    let mut a = start;
    while a < end {
        let line = a & !(LINE_BYTES - 1);
        let piece_end = end.min(line + LINE_BYTES);
        let lo = (a - line) as u32;
        let hi = (piece_end - line) as u32; // exclusive, ≤ 128
        let width = hi - lo;
        let bytes = if width == 128 {
            u128::MAX
        } else {
            ((1u128 << width) - 1) << lo
        };
        let first_sector = lo / SECTOR_BYTES as u32;
        let last_sector = (hi - 1) / SECTOR_BYTES as u32;
        // Bits first_sector..=last_sector (both ≤ 3, so the shifts stay small).
        let sectors = ((1u16 << (last_sector + 1)) - (1u16 << first_sector)) as u8;
        // Consecutive lanes usually share a line: check the most recent line first.
        let idx = match lines.last() {
            Some(l) if l.line_addr == line => lines.len() - 1,
            _ => match lines.iter().position(|l| l.line_addr == line) {
                Some(i) => i,
                None => {
                    lines.push(LineAccess {
                        line_addr: line,
                        sectors: 0,
                        bytes: 0,
                        lanes: 0,
                    });
                    lines.len() - 1
                }
            },
        };
        let entry = &mut lines[idx];
        entry.sectors |= sectors;
        entry.bytes |= bytes;
        entry.lanes |= 1 << lane;
        a = piece_end;
    }
}

/// Coalesces up to 32 lane accesses (lane `l` is `lanes[l]`). Sizes other than 1/2/4/8/16 are
/// treated as their byte count (0 touches nothing); addresses near `u64::MAX` saturate.
pub fn coalesce(lanes: &[LaneAccess]) -> Coalesced {
    let mut lines: Vec<LineAccess> = Vec::with_capacity(4);
    for (lane, a) in lanes.iter().enumerate().take(32) {
        if !a.active || a.size == 0 {
            continue;
        }
        mark(
            &mut lines,
            lane,
            a.addr,
            a.addr.saturating_add(a.size as u64),
        );
    }
    lines.sort_by_key(|l| l.line_addr);
    Coalesced { lines }
}

/// Convenience: accesses of `size` bytes at `base + lane * stride` for the lanes in `mask`.
pub fn strided(base: u64, stride: u64, size: u8, mask: u32) -> Vec<LaneAccess> {
    (0..32u64)
        .map(|l| LaneAccess {
            addr: base.wrapping_add(l.wrapping_mul(stride)),
            size,
            active: mask & (1 << l) != 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fully_coalesced_f32() {
        // 32 lanes × 4 B contiguous from a line boundary: 1 line, 4 sectors.
        let c = coalesce(&strided(0x1000, 4, 4, u32::MAX));
        assert_eq!(c.num_lines(), 1);
        assert_eq!(c.sectors(), 4);
        assert_eq!(c.lines[0].sectors, 0b1111);
        assert_eq!(c.lines[0].bytes, u128::MAX);
        assert_eq!(c.requested_bytes(), 128);
    }

    #[test]
    fn misaligned_contiguous_spans_two_lines() {
        // Offset by 4 B: bytes 0x1004..0x1084 → line 0x1000 sectors 0-3, line 0x1080 sector 0.
        let c = coalesce(&strided(0x1004, 4, 4, u32::MAX));
        assert_eq!(c.num_lines(), 2);
        assert_eq!(c.sectors(), 5);
        assert_eq!(c.lines[1].line_addr, 0x1080);
        assert_eq!(c.lines[1].sectors, 0b0001);
        assert_eq!(c.lines[1].lanes, 1 << 31);
    }

    #[test]
    fn doubles_and_vectors() {
        // 8 B per lane: 256 B → 2 lines × 4 sectors.
        assert_eq!(coalesce(&strided(0, 8, 8, u32::MAX)).sectors(), 8);
        // 16 B per lane: 512 B → 4 lines, 16 sectors.
        let c = coalesce(&strided(0, 16, 16, u32::MAX));
        assert_eq!((c.num_lines(), c.sectors()), (4, 16));
    }

    #[test]
    fn strided_accesses() {
        // Stride 8 B with 4 B loads: 256 B span, every sector touched → 8 sectors in 2 lines.
        assert_eq!(coalesce(&strided(0, 8, 4, u32::MAX)).sectors(), 8);
        // Stride 32 B: one sector per lane, 32 sectors in 8 lines.
        let c = coalesce(&strided(0, 32, 4, u32::MAX));
        assert_eq!((c.num_lines(), c.sectors()), (8, 32));
        // Stride 128 B: one line per lane, one sector each.
        let c = coalesce(&strided(0, 128, 4, u32::MAX));
        assert_eq!((c.num_lines(), c.sectors()), (32, 32));
        assert!(c
            .lines
            .iter()
            .all(|l| l.sectors == 1 && l.lanes.count_ones() == 1));
    }

    #[test]
    fn scattered_broadcast_and_inactive() {
        // All lanes read the same word: 1 sector.
        let c = coalesce(&strided(0x2010, 0, 4, u32::MAX));
        assert_eq!((c.num_lines(), c.sectors()), (1, 1));
        assert_eq!(c.lines[0].sectors, 0b0001);
        assert_eq!(c.lines[0].lanes, u32::MAX);
        // Scattered: lanes hit sectors of 3 lines, given out of order.
        let mut v = vec![LaneAccess::default(); 32];
        v[0] = LaneAccess {
            addr: 0x5000 + 96,
            size: 4,
            active: true,
        };
        v[1] = LaneAccess {
            addr: 0x100,
            size: 4,
            active: true,
        };
        v[2] = LaneAccess {
            addr: 0x100 + 64,
            size: 4,
            active: true,
        };
        v[3] = LaneAccess {
            addr: 0x9999_0000,
            size: 4,
            active: false,
        };
        v[4] = LaneAccess {
            addr: 0x5000 + 100,
            size: 4,
            active: true,
        };
        let c = coalesce(&v);
        assert_eq!(
            c.lines.iter().map(|l| l.line_addr).collect::<Vec<_>>(),
            vec![0x100, 0x5000]
        );
        assert_eq!(c.lines[0].sectors, 0b0101);
        assert_eq!(c.lines[1].sectors, 0b1000);
        assert_eq!(c.lines[1].lanes, 0b10001);
        assert_eq!(c.sectors(), 3);
        // No active lanes: nothing.
        assert_eq!(coalesce(&strided(0, 4, 4, 0)).sectors(), 0);
        // Half warp active, contiguous: 64 B = 2 sectors.
        assert_eq!(coalesce(&strided(0, 4, 4, 0xffff)).sectors(), 2);
    }

    #[test]
    fn straddling_access_marks_both_sectors() {
        let v = [LaneAccess {
            addr: 30,
            size: 4,
            active: true,
        }];
        let c = coalesce(&v);
        assert_eq!(c.lines[0].sectors, 0b0011);
        assert_eq!(c.lines[0].bytes, 0b1111 << 30);
    }
}
