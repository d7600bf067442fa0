//! Where a launch spec's referenced files (`ptx = ...`, `init = { kind = "npy", path = ... }`)
//! come from: the filesystem, or an in-memory set for workloads embedded in the binary.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// Resolves and reads files named inside a launch spec.
pub trait SpecFiles {
    /// Reads `path` exactly as written in the spec: relative to the spec's directory, or
    /// absolute; at most `limit` bytes (a larger file is an error, not a truncation).
    fn read(&self, path: &str, limit: u64) -> io::Result<Vec<u8>>;
    /// How `path` is named in error messages (e.g. the resolved filesystem path).
    fn describe(&self, path: &str) -> String;
}

/// Files on disk, relative paths resolved against a base directory (the spec file's directory).
#[derive(Clone, Debug)]
pub struct DirFiles {
    base: PathBuf,
}

impl DirFiles {
    /// Resolves relative paths against `base`.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        DirFiles { base: base.into() }
    }

    /// The filesystem path `path` resolves to.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }
}

impl SpecFiles for DirFiles {
    /// Through [`regwatt_inputs::read`]: regular files only, at most `limit` bytes.
    fn read(&self, path: &str, limit: u64) -> io::Result<Vec<u8>> {
        regwatt_inputs::read(&self.resolve(path), limit).map_err(|e| match e {
            regwatt_inputs::ReadError::Io { source, .. } => source,
            // the caller names the file; the reason alone
            regwatt_inputs::ReadError::NotRegular { kind, .. } => io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a {kind}, not a regular file"),
            ),
            regwatt_inputs::ReadError::TooLarge { size, limit, .. } => io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{size} bytes, more than the {limit} bytes this input may have"),
            ),
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        })
    }

    fn describe(&self, path: &str) -> String {
        self.resolve(path).display().to_string()
    }
}

/// An in-memory "virtual directory": relative paths map to embedded bytes
/// (e.g. `include_bytes!`). Absolute paths are never found. A leading `./` is ignored.
#[derive(Clone, Debug, Default)]
pub struct MemFiles {
    root: String,
    files: BTreeMap<String, Cow<'static, [u8]>>,
}

impl MemFiles {
    /// An empty set; `root` prefixes names in messages (e.g. `"builtin:conv3x3"`).
    pub fn new(root: impl Into<String>) -> Self {
        MemFiles {
            root: root.into(),
            files: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) a file; builder style.
    pub fn with(mut self, path: &str, bytes: impl Into<Cow<'static, [u8]>>) -> Self {
        self.insert(path, bytes);
        self
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: &str, bytes: impl Into<Cow<'static, [u8]>>) {
        self.files.insert(normalise(path).to_string(), bytes.into());
    }
}

fn normalise(path: &str) -> &str {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p
}

impl SpecFiles for MemFiles {
    fn read(&self, path: &str, limit: u64) -> io::Result<Vec<u8>> {
        let bytes = self.files.get(normalise(path));
        if let Some(b) = bytes.filter(|b| b.len() as u64 > limit) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} bytes, more than the {limit} bytes this input may have",
                    b.len()
                ),
            ));
        }
        bytes.map(|b| b.to_vec()).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no embedded file {path:?} in {}", self.root),
            )
        })
    }

    fn describe(&self, path: &str) -> String {
        format!("{}/{}", self.root, normalise(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_files_resolve_relative_names() {
        let m = MemFiles::new("builtin:x").with("k.ptx", &b"abc"[..]);
        assert_eq!(m.read("./k.ptx", 3).unwrap(), b"abc");
        assert_eq!(m.read("k.ptx", 3).unwrap(), b"abc");
        assert_eq!(
            m.read("/k.ptx", 3).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(m.describe("./k.ptx"), "builtin:x/k.ptx");
        // one byte over the bound
        assert_eq!(
            m.read("k.ptx", 2).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn dir_files_resolve_against_base() {
        let d = DirFiles::new("/a/b");
        assert_eq!(d.resolve("c.npy"), PathBuf::from("/a/b/c.npy"));
        assert_eq!(d.resolve("/abs/c.npy"), PathBuf::from("/abs/c.npy"));
    }
}
