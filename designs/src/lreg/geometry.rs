//! The L-register annotation and the window arithmetic of Elango 2017 (Elango 2017, §6.2, §7.1,
//! §7.3, Fig. 19–20).
//!
//! A kernel whose body holds
//! `.pragma "regwatt.lreg kernel_dim=K row_stride=RS col_stride=CS skip=S lead=L inputs=a,b";`
//! (emitted from CUDA with `asm volatile(".pragma \"regwatt.lreg ...\";")`; ptxas ignores
//! unknown pragmas) has its threads' `ld.global` instructions numbered in dynamic order from 0
//! (the L-register ids, §7.1: "the hardware tracks the sequence of L registers for a thread,
//! renames them in increasing order"):
//!
//! * ids `0 .. L` are not part of a window (the bias load of the seed's network);
//! * then come the `K × K` window positions in row-major order, `S` consecutive loads each
//!   (the skip factor, §7.3: "the skip factor is 2 in this case, as weights and input data are
//!   stored alternatively"); within a group, the slots in `inputs` are input pixels, the others
//!   weights; after `K²·S` loads the next window starts (the next input channel);
//! * the horizontal neighbour of thread `(x, y)` is `(x + 1, y)`, whose window starts `CS`
//!   pixels to the right; the vertical neighbour is `(x, y + 1)`, `RS` rows down (§6.2).
//!
//! Input position `(r, c)` of a thread's window is position `(r, c − CS)` of its horizontal
//! neighbour's when `c ≥ CS` (§7.3.1: "in an overlapped region if Reg mod (K·S) > CS·S",
//! shift `CS·S`), and position `(r − RS, c)` of its vertical neighbour's when `r ≥ RS`
//! (§7.3.2). The seed writes the vertical shift as `K·RS`, which is right for its Fig. 10
//! numbering without a skip factor (register 11 → register 1 of thread 13) but moves one row
//! instead of `RS` rows when weights interleave; regwatt shifts by `K·RS·S`, which gives the
//! seed's Fig. 10 examples with `S = 1` and keeps the rows right for `S > 1`.

use std::fmt;

/// The pragma's first word.
pub const PRAGMA: &str = "regwatt.lreg";

/// A kernel's L-register annotation (§7.3, Fig. 20).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// Window side `K` (Fig. 20's kernel dimension).
    pub kernel_dim: u32,
    /// Rows between the windows of vertically adjacent threads.
    pub row_stride: u32,
    /// Columns between the windows of horizontally adjacent threads.
    pub col_stride: u32,
    /// Loads per window position (§7.3's skip factor).
    pub skip: u32,
    /// Loads before the first window.
    pub lead: u32,
    /// Bit `s` set: slot `s` of a position's group is an input pixel.
    pub inputs: u64,
}

/// What the `id`-th L-register of a thread holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A load outside any window or a weight: never shared.
    Private,
    /// Input pixel at window row `r`, column `c`.
    Input { r: u32, c: u32 },
}

/// A malformed annotation: the pragma text and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotationError {
    pub pragma: String,
    pub message: String,
}

impl fmt::Display for AnnotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".pragma \"{}\": {}", self.pragma, self.message)
    }
}

impl Annotation {
    /// The annotation among a kernel's pragma strings: `Ok(None)` when there is none, an error
    /// when one is malformed or there are several.
    pub fn from_pragmas(pragmas: &[String]) -> Result<Option<Annotation>, AnnotationError> {
        let mut found = None;
        for p in pragmas {
            let mut words = p.split_whitespace();
            if words.next() != Some(PRAGMA) {
                continue;
            }
            let a = Annotation::parse_fields(words).map_err(|message| AnnotationError {
                pragma: p.clone(),
                message,
            })?;
            if found.replace(a).is_some() {
                return Err(AnnotationError {
                    pragma: p.clone(),
                    message: "a second L-register annotation in one kernel".into(),
                });
            }
        }
        Ok(found)
    }

    fn parse_fields<'a>(words: impl Iterator<Item = &'a str>) -> Result<Annotation, String> {
        let mut v: [Option<u32>; 5] = [None; 5];
        const KEYS: [&str; 5] = ["kernel_dim", "row_stride", "col_stride", "skip", "lead"];
        let mut inputs: Option<u64> = None;
        for w in words {
            let (k, val) = w
                .split_once('=')
                .ok_or_else(|| format!("`{w}`: expected KEY=VALUE"))?;
            if k == "inputs" {
                let mut m = 0u64;
                for s in val.split(',') {
                    let n: u32 = s
                        .parse()
                        .map_err(|_| format!("inputs: `{s}` is not a slot number"))?;
                    if n >= 64 {
                        return Err(format!("inputs: slot {n} is beyond 63"));
                    }
                    m |= 1 << n;
                }
                if inputs.replace(m).is_some() {
                    return Err("inputs given twice".into());
                }
                continue;
            }
            let i = KEYS.iter().position(|x| *x == k).ok_or_else(|| {
                format!(
                    "unknown key `{k}` (known: kernel_dim, row_stride, col_stride, skip, lead, inputs)"
                )
            })?;
            let n: u32 = val
                .parse()
                .map_err(|_| format!("{k}: `{val}` is not a whole number"))?;
            if v[i].replace(n).is_some() {
                return Err(format!("{k} given twice"));
            }
        }
        let get = |i: usize| v[i].ok_or_else(|| format!("missing {}", KEYS[i]));
        let a = Annotation {
            kernel_dim: get(0)?,
            row_stride: get(1)?,
            col_stride: get(2)?,
            skip: get(3)?,
            lead: get(4)?,
            inputs: inputs.ok_or("missing inputs")?,
        };
        if !(2..=32).contains(&a.kernel_dim) {
            return Err(format!("kernel_dim {}: must be in 2..=32", a.kernel_dim));
        }
        if a.row_stride == 0 || a.col_stride == 0 {
            return Err("row_stride and col_stride must be at least 1".into());
        }
        if !(1..=64).contains(&a.skip) {
            return Err(format!("skip {}: must be in 1..=64", a.skip));
        }
        if a.inputs >> a.skip != 0 {
            return Err(format!(
                "inputs: every slot must be below skip ({})",
                a.skip
            ));
        }
        if a.lead > 1 << 16 {
            return Err(format!("lead {}: at most 65536", a.lead));
        }
        Ok(a)
    }

    /// Loads of one window (`K²·S`).
    pub fn window_len(&self) -> u32 {
        self.kernel_dim * self.kernel_dim * self.skip
    }

    /// What L-register `id` holds.
    pub fn slot(&self, id: u32) -> Slot {
        let Some(p) = id.checked_sub(self.lead) else {
            return Slot::Private;
        };
        let q = p % self.window_len();
        let (pos, s) = (q / self.skip, q % self.skip);
        if self.inputs >> s & 1 == 0 {
            return Slot::Private;
        }
        Slot::Input {
            r: pos / self.kernel_dim,
            c: pos % self.kernel_dim,
        }
    }

    /// The horizontal neighbour's L-register holding the same pixel as `id` (§7.3.1), if
    /// `id` is an input in the horizontal overlap.
    pub fn horizontal_source(&self, id: u32) -> Option<u32> {
        match self.slot(id) {
            Slot::Input { c, .. } if c >= self.col_stride => Some(id - self.col_stride * self.skip),
            _ => None,
        }
    }

    /// The vertical neighbour's L-register holding the same pixel as `id` (§7.3.2), if `id`
    /// is an input in the vertical overlap.
    pub fn vertical_source(&self, id: u32) -> Option<u32> {
        match self.slot(id) {
            Slot::Input { r, .. } if r >= self.row_stride => {
                Some(id - self.kernel_dim * self.row_stride * self.skip)
            }
            _ => None,
        }
    }

    /// The last L-register id at which a neighbour reads `id` (§7.2, Fig. 19: orange ones are
    /// read horizontally, blue ones vertically, the others only by their own thread), or
    /// `None` when no neighbour reads it.
    pub fn last_reader(&self, id: u32) -> Option<u32> {
        let Slot::Input { r, c } = self.slot(id) else {
            return None;
        };
        let h = (c + self.col_stride < self.kernel_dim).then(|| id + self.col_stride * self.skip);
        let v = (r + self.row_stride < self.kernel_dim)
            .then(|| id + self.kernel_dim * self.row_stride * self.skip);
        h.max(v)
    }

    /// Whether the input at window position `(r, c)` is one a thread with both neighbours
    /// still loads itself (the non-overlapped corner, Fig. 12).
    pub fn loads_itself(&self, r: u32, c: u32) -> bool {
        r < self.row_stride && c < self.col_stride
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(text: &str) -> Annotation {
        Annotation::from_pragmas(&[text.to_string()])
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("no annotation in {text}"))
    }

    /// Fig. 8–11's numbering: one register per window position (no weights), 1-based in the
    /// seed; here 0-based ids `n − 1`.
    fn fig8() -> Annotation {
        ann("regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=1 lead=0 inputs=0")
    }

    /// Follows shifts from thread `(0, 0)` until a thread loads the pixel itself: (thread
    /// offset (dx, dy), 1-based register of that thread). Horizontal first, as the hardware.
    fn owner(a: &Annotation, reg1: u32) -> ((u32, u32), u32) {
        let (mut id, mut dx, mut dy) = (reg1 - 1, 0, 0);
        loop {
            if let Some(s) = a.horizontal_source(id) {
                id = s;
                dx += 1;
            } else if let Some(s) = a.vertical_source(id) {
                id = s;
                dy += 1;
            } else {
                return ((dx, dy), id + 1);
            }
        }
    }

    /// §6.2's four worked examples (block 13 threads wide: thread (x, y) is thread 13y + x):
    /// register 3 of thread 0 is register 1' of thread 1, register 5 is 1'' of thread 2
    /// (Fig. 8–9); register 11 is 1' of thread 13, register 21 is 1'' of thread 26
    /// (Fig. 10–11).
    #[test]
    fn the_seeds_four_worked_examples() {
        let a = fig8();
        let tid = |(dx, dy): (u32, u32)| dy * 13 + dx;
        let (t, r) = owner(&a, 3);
        assert_eq!((tid(t), r), (1, 1));
        let (t, r) = owner(&a, 5);
        assert_eq!((tid(t), r), (2, 1));
        let (t, r) = owner(&a, 11);
        assert_eq!((tid(t), r), (13, 1));
        let (t, r) = owner(&a, 21);
        assert_eq!((tid(t), r), (26, 1));
        // one step each: register 3 reads register 1 of the next thread, 11 reads 1 of the
        // thread below (the seed's shifts CS·S = 2 and K·RS = 10 with S = 1)
        assert_eq!(a.horizontal_source(2), Some(0));
        assert_eq!(a.vertical_source(10), Some(0));
    }

    /// Fig. 12: with both neighbours, an interior thread of a stride-2 5×5 layer loads 4 of
    /// its 25 inputs (84 % fewer); with the seed's interleaved weights (S = 2, bias first) it
    /// loads 4 + 25 + 1 of 51, 21 fewer.
    #[test]
    fn interior_threads_load_4_of_25_inputs() {
        let a = fig8();
        let own = (0..25)
            .filter(|&id| a.horizontal_source(id).is_none() && a.vertical_source(id).is_none())
            .count();
        assert_eq!(own, 4);
        let b = ann("regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=1 inputs=0");
        let own = (0..51)
            .filter(|&id| b.horizontal_source(id).is_none() && b.vertical_source(id).is_none())
            .count();
        assert_eq!(own, 30);
        // the seed's §7.3.1 overlap test, 1-based n (lead 0): n mod (K·S) > CS·S, on inputs
        let c = ann("regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=0 inputs=0");
        for n in (1..=50).step_by(2) {
            assert_eq!(
                c.horizontal_source(n - 1).is_some(),
                n % 10 > 4,
                "register {n}"
            );
            // §7.3.2: overlapped if n > K·S·RS
            assert_eq!(c.vertical_source(n - 1).is_some(), n > 20, "register {n}");
        }
        // weights are never shared
        assert_eq!(c.slot(1), Slot::Private);
        assert_eq!(c.horizontal_source(9), None);
    }

    #[test]
    fn windows_repeat_and_last_readers() {
        // layer 2 of the seed's network: 6 maps' (input, weight) pairs per position
        let a = ann(
            "regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=12 lead=1 inputs=0,2,4,6,8,10",
        );
        assert_eq!(a.window_len(), 300);
        assert_eq!(a.slot(0), Slot::Private);
        assert_eq!(a.slot(1), Slot::Input { r: 0, c: 0 });
        assert_eq!(a.slot(2), Slot::Private);
        assert_eq!(a.slot(1 + 12 * 7 + 4), Slot::Input { r: 1, c: 2 });
        // the next window (a second channel loop) starts over
        assert_eq!(a.slot(301), Slot::Input { r: 0, c: 0 });
        // (0, 0) is read by the left neighbour at (0, 2) and the upper one at (2, 0)
        assert_eq!(a.last_reader(1), Some(1 + 5 * 2 * 12));
        // (4, 4): nobody else reads it
        assert_eq!(a.last_reader(1 + 12 * 24), None);
        // (4, 1): read horizontally only
        assert_eq!(a.last_reader(1 + 12 * 21), Some(1 + 12 * 21 + 24));
        assert!(a.loads_itself(1, 1) && !a.loads_itself(2, 0));
    }

    #[test]
    fn bad_annotations_are_errors() {
        let bad = |t: &str| {
            Annotation::from_pragmas(&[t.to_string()])
                .expect_err(t)
                .to_string()
        };
        assert!(bad("regwatt.lreg kernel_dim=5").contains("missing row_stride"));
        assert!(
            bad("regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=1 inputs=2")
                .contains("below skip")
        );
        assert!(bad(
            "regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=1 inputs=0 size=3"
        )
        .contains("unknown key `size`"));
        assert!(bad("regwatt.lreg kernel_dim=x").contains("not a whole number"));
        let two = [
            "regwatt.lreg kernel_dim=3 row_stride=1 col_stride=1 skip=1 lead=0 inputs=0"
                .to_string(),
            "regwatt.lreg kernel_dim=3 row_stride=1 col_stride=1 skip=1 lead=0 inputs=0"
                .to_string(),
        ];
        assert!(Annotation::from_pragmas(&two)
            .expect_err("two")
            .to_string()
            .contains("second"));
        // other pragmas are not ours
        assert_eq!(
            Annotation::from_pragmas(&["nounroll".to_string()]).expect("ok"),
            None
        );
    }
}
