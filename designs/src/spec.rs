//! The closed set of register-file designs. A new design is one new folder under `src/` and
//! one new variant here (later issues: renaming, drowsy, Malekeh, cache-emulated, sharing,
//! L-registers).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A register-file design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DesignSpec {
    /// Statically allocated banked RF with operand collectors ([`crate::baseline`]).
    Baseline,
    /// Registers renamed across warps with compiler release flags (seed 002,
    /// [`crate::renaming`]).
    Renaming,
    /// Caching collector units with compiler reuse hints (seed 003, [`crate::malekeh`]).
    Malekeh,
    /// Renaming plus inter-warp sharing of loaded values through the register mapping (seed
    /// 000, [`crate::sharing`]).
    Sharing,
    /// The register file and the L1D as one tagged, set-associative array (seed 004,
    /// [`crate::cerf`]).
    Cerf,
    /// L-registers: convolution loads turned into shuffles from neighbouring lanes (seed 001,
    /// [`crate::lreg`]).
    Lreg,
}

/// Unknown design name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown design `{0}` (known: baseline, renaming, malekeh, sharing, cerf, lreg)")]
pub struct UnknownDesign(pub String);

impl DesignSpec {
    /// Every design, in report order.
    pub const ALL: [DesignSpec; 6] = [
        DesignSpec::Baseline,
        DesignSpec::Renaming,
        DesignSpec::Malekeh,
        DesignSpec::Sharing,
        DesignSpec::Cerf,
        DesignSpec::Lreg,
    ];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            DesignSpec::Baseline => "baseline",
            DesignSpec::Renaming => "renaming",
            DesignSpec::Malekeh => "malekeh",
            DesignSpec::Sharing => "sharing",
            DesignSpec::Cerf => "cerf",
            DesignSpec::Lreg => "lreg",
        }
    }

    /// Whether the design can run on `gpu` (seed 004's merged array needs one register
    /// file per SM: the gtx480 preset; every other design runs on every preset).
    pub fn supports(self, gpu: crate::config::GpuPreset) -> bool {
        match self {
            DesignSpec::Cerf => gpu == crate::config::GpuPreset::Gtx480,
            _ => true,
        }
    }

    /// File name and text of the design's `[design]` defaults (`None`: no parameters).
    pub fn defaults(self) -> Option<(&'static str, &'static str)> {
        match self {
            DesignSpec::Baseline => None,
            DesignSpec::Renaming => Some((
                "designs/src/renaming/defaults.toml",
                include_str!("renaming/defaults.toml"),
            )),
            DesignSpec::Malekeh => Some((
                "designs/src/malekeh/defaults.toml",
                include_str!("malekeh/defaults.toml"),
            )),
            DesignSpec::Sharing => Some((
                "designs/src/sharing/defaults.toml",
                include_str!("sharing/defaults.toml"),
            )),
            DesignSpec::Cerf => Some((
                "designs/src/cerf/defaults.toml",
                include_str!("cerf/defaults.toml"),
            )),
            DesignSpec::Lreg => Some((
                "designs/src/lreg/defaults.toml",
                include_str!("lreg/defaults.toml"),
            )),
        }
    }
}

impl DesignSpec {
    /// The design's README (path in the repository, text), embedded: `regwatt report` shows
    /// its "Seed versus regwatt" table. `None` for the baseline (designs/README.md).
    pub fn readme(self) -> Option<(&'static str, &'static str)> {
        match self {
            DesignSpec::Baseline => None,
            DesignSpec::Renaming => Some((
                "designs/src/renaming/README.md",
                include_str!("renaming/README.md"),
            )),
            DesignSpec::Malekeh => Some((
                "designs/src/malekeh/README.md",
                include_str!("malekeh/README.md"),
            )),
            DesignSpec::Sharing => Some((
                "designs/src/sharing/README.md",
                include_str!("sharing/README.md"),
            )),
            DesignSpec::Cerf => {
                Some(("designs/src/cerf/README.md", include_str!("cerf/README.md")))
            }
            DesignSpec::Lreg => {
                Some(("designs/src/lreg/README.md", include_str!("lreg/README.md")))
            }
        }
    }
}

impl fmt::Display for DesignSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DesignSpec {
    type Err = UnknownDesign;
    fn from_str(s: &str) -> Result<Self, UnknownDesign> {
        DesignSpec::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownDesign(s.to_string()))
    }
}
