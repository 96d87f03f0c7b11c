//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared` beside the checkout, where CI and every developer machine keep the reference
/// material; `PTXAS_SHARED` overrides it. Missing is a hard failure, never a skip.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("PTXAS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    assert!(
        dir.join("corpus").is_dir(),
        "reference material not found at {} (set PTXAS_SHARED)",
        dir.display()
    );
    dir
}

/// Every `.ptx` file of the corpus, sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![shared_dir().join("corpus")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
