//! Reading what a user hands regwatt, and quoting it back.
//!
//! Every file regwatt reads on a user's behalf (PTX, launch specs, `.npy` data, override files,
//! grids, sweep shards, CACTI cfgs, technology files) goes through [`read`] or [`read_text`]:
//!
//! * only a **regular file** is read (a symlink to one is fine). A directory, FIFO, socket or
//!   device is refused before it is opened, so `/dev/zero` cannot fill memory and a FIFO
//!   cannot block the process; the opened handle is checked again, so a file swapped for a
//!   device in between is refused too;
//! * at most `limit` bytes are read: a file whose size exceeds the limit is refused from its
//!   metadata, and the read itself stops one byte past the limit (a file that grows while it is
//!   read is refused, not followed).
//!
//! Error messages quote user text only through [`excerpt`], so a hostile input (a 100 KB
//! `--set` value, a line of `/etc/passwd` behind a symlink) is never echoed whole.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Bound on a text input regwatt parses whole: PTX, TOML (specs, override files, grids,
/// technology files), CACTI cfgs, sweep CSVs. The largest such file regwatt ships is a
/// 130 KB PTX (`workloads/mnist33_lreg`); a 64 MiB bound leaves a factor of 500 for PTX that
/// NVRTC generates from large unrolled kernels while keeping a parse of it within memory.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// Characters of user text an error message quotes at most ([`excerpt`]).
pub const EXCERPT_CHARS: usize = 80;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The operating system refused (missing file, permissions, ...).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a regular file.
    #[error("{}: is a {kind}, not a regular file", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    /// Larger than the bound of its kind.
    #[error("{}: {size} bytes, more than the {limit} bytes this input may have", path.display())]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    /// Not UTF-8 text.
    #[error("{}: not UTF-8 text (byte {offset})", path.display())]
    NotUtf8 { path: PathBuf, offset: usize },
}

impl ReadError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Io { path, .. }
            | ReadError::NotRegular { path, .. }
            | ReadError::TooLarge { path, .. }
            | ReadError::NotUtf8 { path, .. } => path,
        }
    }
}

/// What a file system entry is, in words.
fn kind_of(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if ft.is_fifo() {
            return "FIFO";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
        if ft.is_socket() {
            return "socket";
        }
    }
    if ft.is_dir() {
        "directory"
    } else if ft.is_symlink() {
        "dangling symbolic link"
    } else {
        "special file"
    }
}

/// Reads the regular file `path` (symlinks followed), at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    // `metadata` follows symlinks and never opens the file: a FIFO is refused here before
    // `open` could block on it
    let meta = std::fs::metadata(path).map_err(io)?;
    check(path, &meta, limit)?;
    let file = std::fs::File::open(path).map_err(io)?;
    // the opened handle again: the path may have been replaced since
    let meta = file.metadata().map_err(io)?;
    check(path, &meta, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

fn check(path: &Path, meta: &std::fs::Metadata, limit: u64) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        });
    }
    Ok(())
}

/// Reads the regular file `path` as UTF-8 text, at most `limit` bytes.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read(path, limit)?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// 1-based `(line, column)` of byte `offset` in `text` (column in characters).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let start = offset.min(text.len());
    let before = text.get(..start).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, col)
}

/// A parser's error on `text` (named `file`) as `(FILE:LINE:COL, message)` (`FILE` alone
/// without a position), the message cut to a short excerpt and no quotation of the text: the
/// `toml` crate's own display repeats the offending line, whatever its length.
pub fn located(file: &str, text: &str, offset: Option<usize>, message: &str) -> (String, String) {
    let m = excerpt_n(message.trim(), 4 * EXCERPT_CHARS);
    match offset {
        Some(o) => {
            let (l, c) = line_col(text, o);
            (format!("{file}:{l}:{c}"), m)
        }
        None => (file.to_string(), m),
    }
}

/// At most [`EXCERPT_CHARS`] characters of `text` for an error message: its first line,
/// control characters shown escaped, and `…` (with the length) where it was cut.
pub fn excerpt(text: &str) -> String {
    excerpt_n(text, EXCERPT_CHARS)
}

/// [`excerpt`] with a bound of `max` characters.
pub fn excerpt_n(text: &str, max: usize) -> String {
    let total = text.chars().count();
    let mut out = String::new();
    let mut shown = 0;
    for c in text.chars() {
        if shown >= max || c == '\n' {
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        shown += 1;
    }
    if shown < total {
        out.push_str(&format!("… ({total} characters)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("regwatt-inputs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    }

    #[test]
    fn regular_file_within_the_bound_is_read() {
        let d = scratch("regular");
        let p = d.join("a.txt");
        std::fs::write(&p, "hello").expect("write");
        assert_eq!(read_text(&p, 5).expect("read"), "hello");
        // one byte over the bound is refused from the metadata
        let e = read(&p, 4).expect_err("too large");
        assert!(
            matches!(
                e,
                ReadError::TooLarge {
                    size: 5,
                    limit: 4,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_directories_and_fifos_are_refused_without_blocking() {
        let d = scratch("special");
        let e = read(Path::new("/dev/zero"), TEXT_LIMIT).expect_err("device");
        assert!(e.to_string().contains("character device"), "{e}");
        let e = read(&d, TEXT_LIMIT).expect_err("directory");
        assert!(e.to_string().contains("directory"), "{e}");
        // a symlink to a device is the device
        let l = d.join("zero.npy");
        std::os::unix::fs::symlink("/dev/zero", &l).expect("symlink");
        let e = read(&l, TEXT_LIMIT).expect_err("symlink to a device");
        assert!(e.to_string().contains("character device"), "{e}");
        // a FIFO: `mkfifo` makes one; reading it would block forever if it were opened
        let f = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&f).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read(&f, TEXT_LIMIT).expect_err("fifo");
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
    }

    #[test]
    fn text_must_be_utf8() {
        let d = scratch("utf8");
        let p = d.join("b.bin");
        std::fs::write(&p, [b'a', 0xff, b'b']).expect("write");
        let e = read_text(&p, 10).expect_err("not utf8");
        assert!(matches!(e, ReadError::NotUtf8 { offset: 1, .. }), "{e}");
    }

    #[test]
    fn positions_are_one_based_in_characters() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nx", 99), (2, 2));
        assert_eq!(
            located("f", "a\nb", Some(2), " bad "),
            ("f:2:1".to_string(), "bad".to_string())
        );
        assert_eq!(
            located("f", "", None, "bad"),
            ("f".to_string(), "bad".to_string())
        );
    }

    #[test]
    fn excerpts_are_short_single_lines() {
        assert_eq!(excerpt("short"), "short");
        assert_eq!(excerpt_n("abcdef", 3), "abc… (6 characters)");
        assert_eq!(excerpt("first\nsecond"), "first… (12 characters)");
        assert_eq!(excerpt_n("a\tb", 10), "a\\tb");
        let long = "x".repeat(100_000);
        assert!(excerpt(&long).chars().count() < EXCERPT_CHARS + 30);
    }
}
