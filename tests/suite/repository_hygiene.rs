//! No committed text file names an absolute path of the machine that made it (a
//! PTX `.file` directive, a provenance note, a script's scratch folder). Every text file of the
//! checkout is read (not `target/`, not `.git`); binary files (with a NUL byte or not UTF-8,
//! such as `.npy` inputs) are skipped.

use std::path::{Path, PathBuf};

/// Roots of absolute paths that name a particular machine's folders. Spelled in pieces, so
/// that this file does not match itself.
fn machine_roots() -> Vec<String> {
    ["work", "tmp", "home", "root", "Users", "mnt", "scratch"]
        .iter()
        .map(|d| format!("/{d}/"))
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let rd = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in rd {
        let p = e
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.as_deref() == Some(".git") {
            // git's own: a folder, or in a linked worktree a file naming the main repository
            continue;
        }
        if p.is_dir() {
            if name.as_deref() != Some("target") {
                walk(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// A match only where the root starts a path: not inside a relative one (`../shared/x` is
/// fine, `a/tmp/b` is not an absolute path either).
fn absolute_at(line: &str, root: &str) -> bool {
    line.match_indices(root).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        !matches!(before, Some(c) if c.is_alphanumeric() || c == '.' || c == '_' || c == '-' || c == '/')
    })
}

#[test]
fn no_committed_text_file_names_an_absolute_machine_path() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(top, &mut files);
    files.sort();
    assert!(files.len() > 500, "only {} files found", files.len());
    let roots = machine_roots();
    let mut hits = Vec::new();
    let mut text_files = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if text.contains('\0') {
            continue;
        }
        text_files += 1;
        for (n, line) in text.lines().enumerate() {
            if roots.iter().any(|r| absolute_at(line, r)) {
                let rel = f.strip_prefix(top).unwrap_or(f);
                hits.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(text_files > 500, "only {text_files} text files read");
    assert!(
        hits.is_empty(),
        "absolute paths of a machine in committed files:\n{}",
        hits.join("\n")
    );
}

#[test]
fn absolute_path_detector() {
    let r = format!("/{}/", "tmp");
    assert!(absolute_at(&format!("work in {r}x"), &r));
    assert!(absolute_at(&format!("\"{r}x\""), &r));
    assert!(!absolute_at(&format!("../a{r}x"), &r));
}
