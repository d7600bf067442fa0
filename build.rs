//! Records the git commit the binary is built from (every output directory's provenance
//! record names it). Outside a checkout, or without git, nothing is recorded and
//! the build goes on.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=REGWATT_GIT_COMMIT");
    if let Ok(c) = std::env::var("REGWATT_GIT_COMMIT") {
        println!("cargo:rustc-env=REGWATT_GIT_COMMIT={c}");
        return;
    }
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=REGWATT_GIT_COMMIT={commit}");
    // rebuild when HEAD moves: the HEAD file, the branch it names, packed refs
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let (Some(common), Some(branch)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        println!("cargo:rerun-if-changed={common}/{branch}");
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
}
