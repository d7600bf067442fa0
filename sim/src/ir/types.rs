//! Scalar types, state spaces and the small enums that qualify an instruction.
//!
//! Names follow the PTX ISA: fundamental types §5.2.1, state spaces §5.1, rounding modifiers
//! §9.7.3 / §9.7.9.21, comparison operators §9.7.6.1, special registers §10.

/// A PTX fundamental type (PTX ISA §5.2.1), or `None` for instructions without a type suffix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    #[default]
    None,
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    TF32,
    F32,
    F64,
}

impl Ty {
    /// Parses a type suffix without its dot (`"u32"`).
    pub fn from_suffix(s: &str) -> Option<Ty> {
        Some(match s {
            "pred" => Ty::Pred,
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::BF16,
            "bf16x2" => Ty::BF16x2,
            "tf32" => Ty::TF32,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    /// Size in bytes (predicates: 1 for layout purposes, 0 for `None`).
    pub fn size(self) -> u32 {
        match self {
            Ty::None => 0,
            Ty::Pred | Ty::B8 | Ty::U8 | Ty::S8 => 1,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::BF16 => 2,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::BF16x2 | Ty::TF32 => 4,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 8,
            Ty::B128 => 16,
        }
    }

    /// Size in bits.
    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    /// Floating-point types (incl. packed halves).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Ty::F16 | Ty::F16x2 | Ty::BF16 | Ty::BF16x2 | Ty::TF32 | Ty::F32 | Ty::F64
        )
    }

    /// Signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    /// The register class a value of this type occupies (PTX ISA §5.2.1, `.reg` variables).
    pub fn class(self) -> RegClass {
        match self {
            Ty::Pred => RegClass::Pred,
            Ty::None => RegClass::B32,
            t if t.size() <= 2 => RegClass::B16,
            t if t.size() == 4 => RegClass::B32,
            t if t.size() == 8 => RegClass::B64,
            _ => RegClass::B128,
        }
    }
}

/// Storage class of a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// 1-bit predicate.
    Pred,
    /// 8- or 16-bit value (occupies one 32-bit architectural register after allocation).
    B16,
    /// 32-bit value.
    B32,
    /// 64-bit value (an aligned even/odd pair of architectural registers).
    B64,
    /// 128-bit value (an aligned quad).
    B128,
}

impl RegClass {
    /// Number of 32-bit architectural registers a value of this class occupies (0 for predicates).
    pub fn slots(self) -> u32 {
        match self {
            RegClass::Pred => 0,
            RegClass::B16 | RegClass::B32 => 1,
            RegClass::B64 => 2,
            RegClass::B128 => 4,
        }
    }
}

/// State space (PTX ISA §5.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// No space qualifier: generic addressing (§6.4.1).
    #[default]
    Generic,
    Global,
    Shared,
    /// `.shared::cluster` (sm_90).
    SharedCluster,
    Local,
    Const,
    Param,
    Tex,
}

impl Space {
    /// Parses a state-space suffix without its dot.
    pub fn from_suffix(s: &str) -> Option<Space> {
        Some(match s {
            "global" => Space::Global,
            "shared" | "shared::cta" => Space::Shared,
            "shared::cluster" => Space::SharedCluster,
            "local" => Space::Local,
            "const" => Space::Const,
            "param" | "param::entry" | "param::func" => Space::Param,
            "tex" => Space::Tex,
            _ => return None,
        })
    }
}

/// Rounding modifier (PTX ISA §9.7.3 floating-point rounding, §9.7.9.21 `cvt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Round {
    #[default]
    None,
    Rn,
    Rz,
    Rm,
    Rp,
    Rna,
    Rs,
    /// Integer rounding of a float (`.rni` etc., for `cvt` to integer / `cvt.rni.f32.f32`).
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Round {
    /// Parses a rounding suffix without its dot.
    pub fn from_suffix(s: &str) -> Option<Round> {
        Some(match s {
            "rn" => Round::Rn,
            "rz" => Round::Rz,
            "rm" => Round::Rm,
            "rp" => Round::Rp,
            "rna" => Round::Rna,
            "rs" => Round::Rs,
            "rni" => Round::Rni,
            "rzi" => Round::Rzi,
            "rmi" => Round::Rmi,
            "rpi" => Round::Rpi,
            _ => return None,
        })
    }
}

/// Comparison operator of `setp`/`set`/`slct` (PTX ISA §9.7.6.1, Tables "Operators for signed
/// integer, unsigned integer, and bit-size types" and "Floating-point comparison operators").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cmp {
    #[default]
    None,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned lower / lower-or-same / higher / higher-or-same.
    Lo,
    Ls,
    Hi,
    Hs,
    /// Unordered variants: true if either operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands numbers / either NaN.
    Num,
    Nan,
}

impl Cmp {
    /// Parses a comparison suffix without its dot.
    pub fn from_suffix(s: &str) -> Option<Cmp> {
        Some(match s {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lo" => Cmp::Lo,
            "ls" => Cmp::Ls,
            "hi" => Cmp::Hi,
            "hs" => Cmp::Hs,
            "equ" => Cmp::Equ,
            "neu" => Cmp::Neu,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }
}

/// Boolean combiner of `setp.CMP.BOOL` / `set.CMP.BOOL` (PTX ISA §9.7.6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BoolOp {
    #[default]
    None,
    And,
    Or,
    Xor,
}

/// Operation of `atom` / `red` (PTX ISA §9.7.13.5), `redux.sync` (§9.7.13.11) and `bar.red`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AtomOp {
    #[default]
    None,
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// `bar.red.popc`
    Popc,
}

impl AtomOp {
    /// Parses an atomic-operation suffix without its dot.
    pub fn from_suffix(s: &str) -> Option<AtomOp> {
        Some(match s {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            "popc" => AtomOp::Popc,
            _ => return None,
        })
    }
}

/// Sub-mode of instructions that have one: `shfl` (§9.7.8.6), `vote` (§9.7.12.11),
/// `mul`/`mad` width (§9.7.1.3), `prmt` modes (§9.7.8.7), `bar` flavours (§9.7.12.1),
/// `cvta` direction (§9.7.8.20), `match` (§9.7.12.12), `shf` direction (§9.7.8.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    #[default]
    None,
    /// `mul.lo` / `mad.lo`
    Lo,
    /// `mul.hi` / `mad.hi`
    Hi,
    /// `mul.wide` / `mad.wide`
    Wide,
    ShflUp,
    ShflDown,
    ShflBfly,
    ShflIdx,
    VoteAll,
    VoteAny,
    VoteUni,
    VoteBallot,
    /// `bar.sync` / `barrier.sync`
    BarSync,
    /// `bar.arrive`
    BarArrive,
    /// `bar.red`
    BarRed,
    /// `cvta.to.SPACE` (generic → space) vs plain `cvta.SPACE` (space → generic).
    CvtaTo,
    CvtaFrom,
    MatchAny,
    MatchAll,
    ShfL,
    ShfR,
    /// `prmt` modes `.f4e .b4e .rc8 .ecl .ecr .rc16`
    PrmtF4e,
    PrmtB4e,
    PrmtRc8,
    PrmtEcl,
    PrmtEcr,
    PrmtRc16,
    /// `.add` of the SIMD video instructions (PTX ISA §9.7.16.2): the lane results are summed
    /// and added to `c` (secondary accumulate) instead of merged with `c`.
    VideoAdd,
}

/// Dimension of a special register such as `%tid.x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X,
    Y,
    Z,
}

/// Special (read-only) registers (PTX ISA §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sreg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    /// `%envreg0`..`%envreg31`
    EnvReg(u8),
    /// `%pm0`..`%pm7`
    Pm(u8),
}

impl Sreg {
    /// Parses a special-register name including `%` (`"%tid.x"`).
    pub fn from_name(s: &str) -> Option<Sreg> {
        let dim = |d: &str| match d {
            "x" => Some(Dim::X),
            "y" => Some(Dim::Y),
            "z" => Some(Dim::Z),
            _ => None,
        };
        if let Some((base, d)) = s.split_once('.') {
            let d = dim(d)?;
            return Some(match base {
                "%tid" => Sreg::Tid(d),
                "%ntid" => Sreg::Ntid(d),
                "%ctaid" => Sreg::Ctaid(d),
                "%nctaid" => Sreg::Nctaid(d),
                _ => return None,
            });
        }
        Some(match s {
            "%laneid" => Sreg::LaneId,
            "%warpid" => Sreg::WarpId,
            "%nwarpid" => Sreg::NWarpId,
            "%smid" => Sreg::SmId,
            "%nsmid" => Sreg::NSmId,
            "%gridid" => Sreg::GridId,
            "%lanemask_eq" => Sreg::LanemaskEq,
            "%lanemask_le" => Sreg::LanemaskLe,
            "%lanemask_lt" => Sreg::LanemaskLt,
            "%lanemask_ge" => Sreg::LanemaskGe,
            "%lanemask_gt" => Sreg::LanemaskGt,
            "%clock" => Sreg::Clock,
            "%clock_hi" => Sreg::ClockHi,
            "%clock64" => Sreg::Clock64,
            "%globaltimer" => Sreg::GlobalTimer,
            "%globaltimer_lo" => Sreg::GlobalTimerLo,
            "%globaltimer_hi" => Sreg::GlobalTimerHi,
            "%dynamic_smem_size" => Sreg::DynamicSmemSize,
            "%total_smem_size" => Sreg::TotalSmemSize,
            "%aggr_smem_size" => Sreg::AggrSmemSize,
            _ => {
                if let Some(n) = s.strip_prefix("%envreg") {
                    let n: u8 = n.parse().ok()?;
                    return (n < 32).then_some(Sreg::EnvReg(n));
                }
                if let Some(n) = s.strip_prefix("%pm") {
                    let n: u8 = n.parse().ok()?;
                    return (n < 8).then_some(Sreg::Pm(n));
                }
                return None;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_sizes_and_classes() {
        assert_eq!(Ty::from_suffix("u64").map(Ty::size), Some(8));
        assert_eq!(Ty::F16.class(), RegClass::B16);
        assert_eq!(Ty::F64.class(), RegClass::B64);
        assert_eq!(Ty::Pred.class(), RegClass::Pred);
        assert_eq!(RegClass::B64.slots(), 2);
        assert!(Ty::S32.is_signed() && !Ty::U32.is_signed());
        assert!(Ty::from_suffix("u33").is_none());
    }

    #[test]
    fn special_registers() {
        assert_eq!(Sreg::from_name("%tid.x"), Some(Sreg::Tid(Dim::X)));
        assert_eq!(Sreg::from_name("%nctaid.z"), Some(Sreg::Nctaid(Dim::Z)));
        assert_eq!(Sreg::from_name("%envreg3"), Some(Sreg::EnvReg(3)));
        assert_eq!(Sreg::from_name("%envreg32"), None);
        assert_eq!(Sreg::from_name("%tid.w"), None);
        assert_eq!(Sreg::from_name("%r1"), None);
    }
}
