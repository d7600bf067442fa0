//! Where regwatt writes: an output folder it owns, and single files it creates.
//!
//! An [`OutDir`] (`--out DIR`, `--dump DIR`) is checked before any work starts
//! ([`OutDir::prepare`]):
//!
//! * a path that exists and is not a directory is refused at once, before a simulation runs;
//! * a folder that holds anything regwatt did not write there is refused unless `--force`.
//!   What regwatt wrote is listed in the folder's manifest, [`MANIFEST`], one JSON string
//!   per line, appended as each file is written;
//! * the files a previous run listed are removed before the first new file is written, so no
//!   stale file of an earlier run is left beside the new ones (files regwatt did not write
//!   stay, with `--force`, untouched unless a new file has the same name);
//! * nothing inside the folder is followed: every file is written to a fresh temporary file
//!   (`O_EXCL`) and renamed over its name, which replaces a symbolic link planted there instead
//!   of writing through it, and a sub-folder that is a symbolic link is refused.
//!
//! [`write_file`] creates one file (`spec new --out`, `workload export`, `calibrate --write`)
//! the same way: never over an existing file without `--force`, never through a symbolic link.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context};

/// The manifest of an output folder: the files regwatt wrote there.
pub const MANIFEST: &str = ".regwatt-output";

/// First line of [`MANIFEST`].
const MANIFEST_HEAD: &str =
    "# files regwatt wrote in this folder (one JSON string per line); regwatt replaces them on the next run";

/// At most this many foreign entries are named when a folder is refused.
const SHOWN: usize = 5;

/// An output folder regwatt writes into (module docs).
pub struct OutDir {
    root: PathBuf,
    state: Mutex<State>,
}

struct State {
    /// Files a previous run listed, removed before the first write.
    stale: Option<BTreeSet<String>>,
    manifest: Option<std::fs::File>,
    /// What this run wrote (the manifest, sorted, at [`OutDir::finish`]).
    written: BTreeSet<String>,
}

/// A relative path made only of plain names (no `..`, no root).
fn plain(rel: &Path) -> bool {
    rel.components().count() > 0 && rel.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The relative paths listed in a manifest's text (lines that are not JSON strings are
/// ignored; only plain relative paths are kept, so a hostile manifest cannot name a file
/// outside the folder).
fn listed(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<String>(l).ok())
        .filter(|p| plain(Path::new(p)))
        .collect()
}

/// Every entry below `dir` that is not a directory (symbolic links are entries, never
/// followed), as paths relative to `root`; stops after `limit` entries not in `known`.
fn foreign_entries(
    root: &Path,
    dir: &Path,
    known: &BTreeSet<String>,
    limit: usize,
    out: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= limit {
            return Ok(());
        }
        let path = e.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let ft = e
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        if ft.is_dir() {
            foreign_entries(root, &path, known, limit, out)?;
        } else {
            let r = rel.to_string_lossy().to_string();
            if r != MANIFEST && !known.contains(&r) {
                out.push(r);
            }
        }
    }
    Ok(())
}

impl OutDir {
    /// Checks `root` as the output folder of `flag` (`--out`, `--dump`) before any work: a
    /// non-directory is refused, and so is a folder holding files regwatt did not write there,
    /// unless `force`. Nothing is written yet.
    pub fn prepare(root: &Path, flag: &str, force: bool) -> anyhow::Result<OutDir> {
        let shown = root.display();
        let stale = match std::fs::metadata(root) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // a dangling symbolic link: writing would create its target
                if std::fs::symlink_metadata(root).is_ok() {
                    bail!("{flag} {shown}: a symbolic link to nothing; give a folder");
                }
                BTreeSet::new()
            }
            Err(e) => return Err(e).with_context(|| format!("{flag} {shown}")),
            Ok(m) if !m.is_dir() => {
                bail!("{flag} {shown}: exists and is not a directory; give a folder (new, empty, or one regwatt wrote)")
            }
            Ok(_) => {
                let manifest = root.join(MANIFEST);
                let known = match std::fs::symlink_metadata(&manifest) {
                    Ok(m) if m.is_file() => listed(
                        &regwatt_inputs::read_text(&manifest, regwatt_inputs::TEXT_LIMIT)
                            .with_context(|| format!("{flag} {shown}"))?,
                    ),
                    _ => BTreeSet::new(),
                };
                if !force {
                    let mut foreign = Vec::new();
                    foreign_entries(root, root, &known, SHOWN + 1, &mut foreign)?;
                    if !foreign.is_empty() {
                        let more = if foreign.len() > SHOWN { ", ..." } else { "" };
                        foreign.truncate(SHOWN);
                        let names: Vec<String> =
                            foreign.iter().map(|f| regwatt_inputs::excerpt(f)).collect();
                        bail!(
                            "{flag} {shown}: the folder holds files regwatt did not write there ({}{more}); give a new or empty folder, or pass --force to write beside them",
                            names.join(", ")
                        );
                    }
                }
                known
            }
        };
        Ok(OutDir {
            root: root.to_path_buf(),
            state: Mutex::new(State {
                stale: Some(stale),
                manifest: None,
                written: BTreeSet::new(),
            }),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Creates `dir/rel`'s parent folders inside the root, refusing any that is not a real
    /// directory (a symbolic link or a file).
    fn make_parents(&self, rel: &Path) -> anyhow::Result<()> {
        let mut at = self.root.clone();
        let parent = rel.parent().unwrap_or(Path::new(""));
        for c in parent.components() {
            at.push(c);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => bail!(
                    "refusing to write through {}: not a folder regwatt made (a symbolic link or a file)",
                    at.display()
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir(&at)
                        .with_context(|| format!("creating {}", at.display()))?;
                }
                Err(e) => return Err(e).with_context(|| format!("reading {}", at.display())),
            }
        }
        Ok(())
    }

    /// Before the first write: the folder made, the previous run's files removed, a fresh
    /// manifest opened.
    fn begin(&self, st: &mut State) -> anyhow::Result<()> {
        let Some(stale) = st.stale.take() else {
            return Ok(());
        };
        std::fs::create_dir_all(&self.root)
            .with_context(|| format!("creating {}", self.root.display()))?;
        for rel in &stale {
            let rel = Path::new(rel);
            let p = self.root.join(rel);
            // only through real folders of the root; the file itself (or a link) is removed,
            // never what a link points to
            let through_real_dirs = rel.parent().is_none_or(|parent| {
                let mut at = self.root.clone();
                parent.components().all(|c| {
                    at.push(c);
                    std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir())
                })
            });
            if through_real_dirs && std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_dir()) {
                std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            }
            // folders the previous run made and left empty
            let mut up = rel.parent();
            while let Some(d) = up.filter(|d| !d.as_os_str().is_empty()) {
                if std::fs::remove_dir(self.root.join(d)).is_err() {
                    break;
                }
                up = d.parent();
            }
        }
        let manifest = self.root.join(MANIFEST);
        if std::fs::symlink_metadata(&manifest).is_ok() {
            std::fs::remove_file(&manifest)
                .with_context(|| format!("removing {}", manifest.display()))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&manifest)
            .with_context(|| format!("creating {}", manifest.display()))?;
        writeln!(f, "{MANIFEST_HEAD}")
            .with_context(|| format!("writing {}", manifest.display()))?;
        st.manifest = Some(f);
        Ok(())
    }

    /// Writes `rel` (a plain relative path) through `fill`: to a fresh temporary file, then
    /// renamed over the name; listed in the manifest.
    pub fn write_with(
        &self,
        rel: impl AsRef<Path>,
        fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        let rel = rel.as_ref();
        if !plain(rel) {
            bail!("{}: not a plain relative path (internal)", rel.display());
        }
        let mut st = self
            .state
            .lock()
            .map_err(|_| anyhow::anyhow!("output folder state poisoned"))?;
        self.begin(&mut st)?;
        self.make_parents(rel)?;
        let path = self.root.join(rel);
        replace_file(&path, fill)?;
        let rel = rel.to_string_lossy().to_string();
        if let Some(m) = st.manifest.as_mut() {
            let line = serde_json::to_string(&rel)?;
            writeln!(m, "{line}").with_context(|| format!("writing {}", MANIFEST))?;
        }
        st.written.insert(rel);
        Ok(())
    }

    /// Ends the run: the manifest rewritten in sorted order, so the folder is byte-identical
    /// whatever order parallel workers wrote its files in. (Until then it is appended as each
    /// file is written, so a run that stops half-way still lists what it wrote.)
    pub fn finish(&self) -> anyhow::Result<()> {
        let mut st = self
            .state
            .lock()
            .map_err(|_| anyhow::anyhow!("output folder state poisoned"))?;
        if st.manifest.is_none() {
            return Ok(());
        }
        let mut text = format!("{MANIFEST_HEAD}\n");
        for rel in &st.written {
            text.push_str(&serde_json::to_string(rel)?);
            text.push('\n');
        }
        st.manifest = None;
        replace_file(&self.root.join(MANIFEST), |w| w.write_all(text.as_bytes()))
    }

    /// Writes `rel` with `bytes` ([`Self::write_with`]).
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
        self.write_with(rel, |w| w.write_all(bytes.as_ref()))
    }
}

impl Drop for OutDir {
    /// A command that ends early (an error) still leaves a sorted manifest.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Writes `path` through a temporary file beside it (created with `O_EXCL`, so never through
/// a link) renamed over it: a symbolic link at `path` is replaced, not followed.
fn replace_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        bail!("{}: is a folder", path.display());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.regwatt-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    let written = fill(&mut w).and_then(|()| w.flush());
    drop(w);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

/// Refuses `path` as a file to create unless it is new, or `force` (then it is replaced; a
/// symbolic link there is replaced, not followed). Checked before any work.
pub fn check_new_file(path: &Path, force: bool) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => bail!("{}: is a folder; give a file name", path.display()),
        Ok(_) if !force => bail!("{} exists; pass --force to overwrite it", path.display()),
        _ => Ok(()),
    }
}

/// Creates (or with `force` replaces) the file `path` with `bytes`, its folder made if
/// needed ([`check_new_file`], then a temporary file renamed over it).
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> anyhow::Result<()> {
    check_new_file(path, force)?;
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    replace_file(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("regwatt-outdir-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch");
        d
    }

    #[test]
    fn a_new_folder_is_made_and_listed() {
        let d = scratch("new").join("out");
        let o = OutDir::prepare(&d, "--out", false).expect("prepare");
        assert!(!d.exists(), "nothing is written before the first file");
        o.write("a/b.txt", "x").expect("write");
        o.write("c.txt", "y").expect("write");
        let m = std::fs::read_to_string(d.join(MANIFEST)).expect("manifest");
        assert_eq!(listed(&m), ["a/b.txt", "c.txt"].map(String::from).into());
        assert_eq!(std::fs::read_to_string(d.join("a/b.txt")).expect("b"), "x");
    }

    #[test]
    fn a_rerun_replaces_its_own_files_and_leaves_no_stale_ones() {
        let d = scratch("rerun");
        let o = OutDir::prepare(&d, "--out", false).expect("prepare");
        o.write("old/one.txt", "1").expect("write");
        o.write("keep.txt", "1").expect("write");
        drop(o);
        let o = OutDir::prepare(&d, "--out", false).expect("a folder regwatt wrote is reused");
        o.write("keep.txt", "2").expect("write");
        assert!(
            !d.join("old").exists(),
            "the previous run's files and folders are gone"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("keep.txt")).expect("keep"),
            "2"
        );
    }

    #[test]
    fn foreign_files_need_force_and_survive_it() {
        let d = scratch("foreign");
        std::fs::write(d.join("mine.txt"), "user").expect("user file");
        let e = OutDir::prepare(&d, "--out", false).err().expect("refused");
        assert!(e.to_string().contains("mine.txt"), "{e}");
        let o = OutDir::prepare(&d, "--out", true).expect("--force");
        o.write("report.json", "{}").expect("write");
        drop(o);
        assert_eq!(
            std::fs::read_to_string(d.join("mine.txt")).expect("kept"),
            "user"
        );
        // the user's file is still foreign to the next run
        assert!(OutDir::prepare(&d, "--out", false).is_err());
    }

    #[test]
    fn a_file_is_refused_before_any_work() {
        let d = scratch("file");
        let f = d.join("f");
        std::fs::write(&f, "x").expect("file");
        let e = OutDir::prepare(&f, "--out", true)
            .err()
            .expect("not a folder");
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_inside_are_replaced_never_followed() {
        let d = scratch("links");
        let target = d.join("target.txt");
        std::fs::write(&target, "precious").expect("target");
        let out = d.join("out");
        std::fs::create_dir(&out).expect("out");
        std::os::unix::fs::symlink(&target, out.join("report.json")).expect("link");
        // a planted link is a file regwatt did not write
        assert!(OutDir::prepare(&out, "--out", false).is_err());
        let o = OutDir::prepare(&out, "--out", true).expect("--force");
        o.write("report.json", "{}").expect("write");
        assert_eq!(std::fs::read_to_string(&target).expect("t"), "precious");
        assert!(!std::fs::symlink_metadata(out.join("report.json"))
            .expect("m")
            .is_symlink());
        // a sub-folder that is a link is refused
        std::os::unix::fs::symlink(&d, out.join("runs")).expect("dir link");
        let e = o.write("runs/x.json", "{}").expect_err("through a link");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!d.join("x.json").exists());
    }

    #[test]
    fn a_hostile_manifest_names_nothing_outside() {
        let m = format!("{MANIFEST_HEAD}\n\"../../etc/passwd\"\n\"/etc/passwd\"\n\"ok.txt\"\n");
        assert_eq!(listed(&m), ["ok.txt".to_string()].into());
    }

    #[test]
    fn single_files_need_force_to_be_replaced() {
        let d = scratch("single");
        let f = d.join("spec.toml");
        write_file(&f, b"1", false).expect("new");
        assert!(write_file(&f, b"2", false).is_err());
        write_file(&f, b"2", true).expect("--force");
        assert_eq!(std::fs::read(&f).expect("f"), b"2");
    }
}
