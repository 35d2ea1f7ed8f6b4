//! The files a compile reads besides the source, for the cache key.
//!
//! NVRTC does not say which files it opened, so the source's `#include "..."` lines are followed
//! the way NVRTC follows them: relative to the including file's folder (for the source, the
//! folder of its name taken against the current folder), then, to be safe whichever rule it
//! applies, the folders of the files that included that one. Every candidate up to the first
//! that exists goes into the fingerprint, found or not, so creating, changing or deleting any of
//! them changes the key. `#include <...>` reaches only NVRTC's built-in headers (no include
//! paths are passed), which the NVRTC version in the key covers.
//!
//! Directives are followed whether or not an `#if` would skip them: a file too many only makes
//! the key cover more. An `#include` of a macro cannot be followed: such a source is not cached.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// More nested includes than any kernel has; deeper chains are cut off (and are almost surely a
/// file including itself, which `#pragma once` or a guard stops).
const MAX_DEPTH: usize = 32;
const MAX_FILES: usize = 256;

/// A fingerprint of every file a compile of `text`, named `name`, may read besides itself; `None`
/// when an include cannot be followed, so that the result must not be cached.
pub fn fingerprint(name: &str, text: &str, here: &Path) -> Option<String> {
    let folder = here.join(Path::new(name).parent().unwrap_or(Path::new("")));
    let mut walk = Walk {
        seen: Vec::new(),
        out: String::new(),
    };
    walk.file(text, &[folder], 0)?;
    Some(walk.out)
}

struct Walk {
    seen: Vec<PathBuf>,
    out: String,
}

impl Walk {
    /// Follows the quoted includes of `text`; `folders` is the including chain's folders,
    /// innermost first.
    fn file(&mut self, text: &str, folders: &[PathBuf], depth: usize) -> Option<()> {
        for directive in directives(text) {
            let target = match directive {
                Directive::Quoted(target) => target,
                Directive::System => continue,
                Directive::Computed => return None,
            };
            let candidates: Vec<PathBuf> = if Path::new(target).is_absolute() {
                vec![PathBuf::from(target)]
            } else {
                folders.iter().map(|f| f.join(target)).collect()
            };
            for candidate in candidates {
                let Some(content) = self.record(&candidate) else {
                    continue;
                };
                if let Some(text) = content {
                    if depth < MAX_DEPTH && self.seen.len() < MAX_FILES {
                        let mut inner = vec![candidate.parent()?.to_path_buf()];
                        inner.extend(folders.iter().cloned());
                        self.file(&text, &inner, depth + 1)?;
                    }
                }
                break;
            }
        }
        Some(())
    }

    /// Adds `path`'s state to the fingerprint. `None`: it does not exist (look further);
    /// `Some(Some(text))`: its text, to follow, the first time it is seen; `Some(None)`: it
    /// exists, but there is nothing more to follow.
    fn record(&mut self, path: &Path) -> Option<Option<String>> {
        let shown = path.display().to_string();
        if !path.exists() {
            self.out.push_str(&format!("{shown}\0missing\n"));
            return None;
        }
        if self.seen.iter().any(|p| p == path) {
            return Some(None);
        }
        self.seen.push(path.to_path_buf());
        // The kernel file rules keep a FIFO or a huge file named in an #include from stalling
        // the key; NVRTC itself meets them under the compile's limits.
        match crate::kernel_file::read(path) {
            Ok(text) => {
                let hash: String = Sha256::digest(text.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                self.out.push_str(&format!("{shown}\0{hash}\n"));
                Some(Some(text))
            }
            Err(e) => {
                self.out.push_str(&format!("{shown}\0unreadable: {e}\n"));
                Some(None)
            }
        }
    }
}

enum Directive<'a> {
    Quoted(&'a str),
    System,
    Computed,
}

/// The `#include` directives of `text`, in order.
fn directives(text: &str) -> impl Iterator<Item = Directive<'_>> {
    text.lines().filter_map(|line| {
        let rest = line.trim_start().strip_prefix('#')?.trim_start();
        let after = rest.strip_prefix("include")?;
        // `#include_next`, `#includes` and the like are other words, not this directive.
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let rest = after.trim_start();
        if let Some(quoted) = rest.strip_prefix('"') {
            return Some(match quoted.find('"') {
                Some(end) => Directive::Quoted(&quoted[..end]),
                None => Directive::Computed,
            });
        }
        if rest.starts_with('<') {
            return Some(Directive::System);
        }
        Some(Directive::Computed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_change_changes_the_fingerprint_and_a_missing_one_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("k")).unwrap();
        std::fs::write(dir.path().join("k/a.h"), "#include \"b.h\"\n").unwrap();
        std::fs::write(dir.path().join("k/b.h"), "#define X 1\n").unwrap();
        let source = "#include <cstdio>\n  #  include \"a.h\"\n";
        let first = fingerprint("k/x.cu", source, dir.path()).unwrap();
        assert!(first.contains("b.h"), "{first}");
        std::fs::write(dir.path().join("k/b.h"), "#define X 2\n").unwrap();
        let second = fingerprint("k/x.cu", source, dir.path()).unwrap();
        assert_ne!(first, second);
        std::fs::remove_file(dir.path().join("k/b.h")).unwrap();
        let third = fingerprint("k/x.cu", source, dir.path()).unwrap();
        assert!(third.contains("missing"), "{third}");
        assert!(fingerprint("k/x.cu", "#define H \"a.h\"\n#include H\n", dir.path()).is_none());
    }
}
