//! A workload a study runs (`report --workloads`, a sweep grid's `workloads`): a built-in
//! workload's name, or the path of a user's launch spec file, so that a user's kernel gets
//! the same studies, tables and charts as the built-in ones.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use regwatt_sim::launch::LaunchSpec;
use regwatt_workloads::{Size, Workload};

use crate::provenance::SpecEntry;

/// A built-in workload, or a launch spec file read once.
pub enum StudyWorkload {
    Builtin(&'static Workload),
    Spec {
        /// The file's stem: the name in tables, charts and file names.
        name: String,
        path: PathBuf,
        /// The spec and its text (`None`: only the name is known, as when shards are merged).
        loaded: Option<(Box<LaunchSpec>, String)>,
    },
}

impl StudyWorkload {
    /// `item` as a built-in workload name, or, when it ends in `.toml` or names a directory,
    /// as a spec file (a relative path is taken from `base`, the grid file's directory).
    /// Reads a spec file only when `load`.
    fn parse_with(item: &str, base: &Path, load: bool) -> anyhow::Result<StudyWorkload> {
        let looks_like_path = item.ends_with(".toml") || item.contains('/');
        if !looks_like_path {
            return Ok(StudyWorkload::Builtin(regwatt_workloads::get(item)?));
        }
        let path = base.join(item);
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            bail!(
                "{}: a spec file's name is the workload's name in tables and file names: use letters, digits, `_`, `-` and `.`",
                path.display()
            );
        }
        if regwatt_workloads::get(&name).is_ok() {
            bail!(
                "{}: named like the built-in workload `{name}`; rename the file",
                path.display()
            );
        }
        let loaded = if load {
            let text = regwatt_inputs::read_text(&path, regwatt_inputs::TEXT_LIMIT)
                .with_context(|| format!("launch spec {item}"))?;
            let spec = LaunchSpec::load(&path)?;
            super::unset_constants(&spec, false)?;
            Some((Box::new(spec), text))
        } else {
            None
        };
        Ok(StudyWorkload::Spec { name, path, loaded })
    }

    /// Every item of a list, with distinct names.
    pub fn parse_all(items: &[String], base: &Path) -> anyhow::Result<Vec<StudyWorkload>> {
        StudyWorkload::parse_all_with(items, base, true)
    }

    /// [`StudyWorkload::parse_all`] without reading spec files: names only.
    pub fn names_of(items: &[String]) -> anyhow::Result<Vec<StudyWorkload>> {
        StudyWorkload::parse_all_with(items, Path::new(""), false)
    }

    fn parse_all_with(
        items: &[String],
        base: &Path,
        load: bool,
    ) -> anyhow::Result<Vec<StudyWorkload>> {
        let mut out: Vec<StudyWorkload> = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for item in items {
            let w = StudyWorkload::parse_with(item, base, load)?;
            if let Some(first) = seen.insert(w.name().to_string(), item.clone()) {
                if first == *item {
                    continue;
                }
                bail!(
                    "`{item}` and `{first}` would both be named `{}` in the tables; rename one",
                    w.name()
                );
            }
            out.push(w);
        }
        Ok(out)
    }

    /// The name in tables, charts and file names.
    pub fn name(&self) -> &str {
        match self {
            StudyWorkload::Builtin(w) => w.name,
            StudyWorkload::Spec { name, .. } => name,
        }
    }

    /// The built-in workload (its reference checks the outputs); `None` for a spec file,
    /// whose own `[check]` tables do.
    pub fn builtin(&self) -> Option<&'static Workload> {
        match self {
            StudyWorkload::Builtin(w) => Some(w),
            StudyWorkload::Spec { .. } => None,
        }
    }

    /// The input size a run of it uses: `size` for a built-in workload, `None` for a spec
    /// file (its inputs are its own).
    pub fn size(&self, size: Size) -> Option<Size> {
        self.builtin().map(|_| size)
    }

    /// Checks that the workload has input size `size` (a spec file has its own inputs).
    pub fn check_size(&self, size: Size) -> anyhow::Result<()> {
        if let StudyWorkload::Builtin(w) = self {
            w.spec_toml(size)?;
        }
        Ok(())
    }

    /// The launch spec of a run at `size` (ignored for a spec file).
    pub fn load_spec(&self, size: Size) -> anyhow::Result<LaunchSpec> {
        match self {
            StudyWorkload::Builtin(w) => Ok(w.load_spec(size)?),
            StudyWorkload::Spec {
                loaded: Some((spec, _)),
                ..
            } => Ok((**spec).clone()),
            StudyWorkload::Spec { path, .. } => bail!("{}: not read", path.display()),
        }
    }

    /// The provenance record of its spec at `size`.
    pub fn spec_entry(&self, size: Size) -> anyhow::Result<SpecEntry> {
        match self {
            StudyWorkload::Builtin(w) => {
                Ok(SpecEntry::new(&w.load_spec(size)?, w.spec_toml(size)?))
            }
            StudyWorkload::Spec {
                loaded: Some((spec, text)),
                ..
            } => Ok(SpecEntry::new(spec, text)),
            StudyWorkload::Spec { path, .. } => bail!("{}: not read", path.display()),
        }
    }

    /// The spec file's text (`None` for a built-in workload or a spec not read).
    pub fn spec_text(&self) -> Option<&str> {
        match self {
            StudyWorkload::Spec {
                loaded: Some((_, text)),
                ..
            } => Some(text),
            _ => None,
        }
    }

    /// Where it comes from, for messages: the name, or the spec file's path.
    pub fn source(&self) -> String {
        match self {
            StudyWorkload::Builtin(w) => w.name.to_string(),
            StudyWorkload::Spec { path, .. } => path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name is a built-in workload, a `.toml` path a spec file; unknown names, missing
    /// files, and spec files named like a built-in workload or like each other are refused.
    #[test]
    fn names_and_spec_files_are_told_apart() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let w = StudyWorkload::parse_with("vectorAdd", root, true).expect("built-in");
        assert_eq!(w.name(), "vectorAdd");
        assert!(w.builtin().is_some());
        assert_eq!(w.size(Size::Ci), Some(Size::Ci));
        let s = StudyWorkload::parse_with("designs/src/sharing/partial_shift.toml", root, true)
            .expect("spec");
        assert_eq!(s.name(), "partial_shift");
        assert!(s.builtin().is_none() && s.size(Size::Ci).is_none());
        assert!(s.load_spec(Size::Paper).is_ok());
        assert!(StudyWorkload::parse_with("nope", root, true).is_err());
        let e = StudyWorkload::parse_with("missing.toml", root, true)
            .err()
            .expect("missing file");
        assert!(format!("{e:#}").contains("missing.toml"), "{e:#}");
        let dir =
            std::env::temp_dir().join(format!("regwatt-study-workload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let clash = dir.join("vectorAdd.toml");
        std::fs::write(&clash, "").expect("write");
        let e = StudyWorkload::parse_with(clash.to_str().expect("utf8"), root, true)
            .err()
            .expect("clash");
        assert!(
            e.to_string().contains("built-in workload `vectorAdd`"),
            "{e}"
        );
        let items = [
            "designs/src/sharing/partial_shift.toml".to_string(),
            "./designs/src/sharing/partial_shift.toml".to_string(),
        ];
        let e = StudyWorkload::parse_all(&items, root)
            .err()
            .expect("same name");
        assert!(
            e.to_string().contains("both be named `partial_shift`"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
