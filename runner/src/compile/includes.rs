//! The files a compile reads besides the source, for the cache key.
//!
//! NVRTC does not say which files it opened, so the source's `#include "..."` lines are followed
//! the way NVRTC follows them: relative to the including file's folder (for the source, the
//! folder of its name taken against the current folder), then, to be safe whichever rule it
//! applies, the folders of the files that included that one. Every candidate up to the first
//! that exists goes into the fingerprint, found or not, so creating, changing or deleting any of
//! them changes the key. The user's include folders (`-I`) come after those for `"..."`, and
//! are the only candidates for `<...>` that the key follows: NVRTC's built-in headers, which
//! `<...>` reaches when no folder holds the file, are covered by the NVRTC version in the key.
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
/// when an include cannot be followed, so that the result must not be cached. `include_dirs`
/// are the `-I` folders, relative ones taken against `here`.
pub fn fingerprint(
    name: &str,
    text: &str,
    here: &Path,
    include_dirs: &[PathBuf],
) -> Option<String> {
    let folder = here.join(Path::new(name).parent().unwrap_or(Path::new("")));
    let mut walk = Walk {
        seen: Vec::new(),
        out: String::new(),
        include_dirs: include_dirs.iter().map(|d| here.join(d)).collect(),
    };
    walk.file(text, &[folder], 0)?;
    Some(walk.out)
}

struct Walk {
    seen: Vec<PathBuf>,
    out: String,
    include_dirs: Vec<PathBuf>,
}

impl Walk {
    /// Follows the quoted includes of `text`; `folders` is the including chain's folders,
    /// innermost first.
    fn file(&mut self, text: &str, folders: &[PathBuf], depth: usize) -> Option<()> {
        for directive in directives(text) {
            let (target, searched) = match directive {
                Directive::Quoted(target) => (target, folders),
                Directive::System(target) => (target, &[][..]),
                Directive::Computed => return None,
            };
            let candidates: Vec<PathBuf> = if Path::new(target).is_absolute() {
                vec![PathBuf::from(target)]
            } else {
                let folders = searched.iter().chain(&self.include_dirs);
                folders.map(|f| f.join(target)).collect()
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
    System(&'a str),
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
        if let Some(angled) = rest.strip_prefix('<') {
            return Some(match angled.find('>') {
                Some(end) => Directive::System(&angled[..end]),
                None => Directive::Computed,
            });
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
        let first = fingerprint("k/x.cu", source, dir.path(), &[]).unwrap();
        assert!(first.contains("b.h"), "{first}");
        std::fs::write(dir.path().join("k/b.h"), "#define X 2\n").unwrap();
        let second = fingerprint("k/x.cu", source, dir.path(), &[]).unwrap();
        assert_ne!(first, second);
        std::fs::remove_file(dir.path().join("k/b.h")).unwrap();
        let third = fingerprint("k/x.cu", source, dir.path(), &[]).unwrap();
        assert!(third.contains("missing"), "{third}");
        assert!(
            fingerprint("k/x.cu", "#define H \"a.h\"\n#include H\n", dir.path(), &[]).is_none()
        );
    }

    #[test]
    fn headers_found_through_an_include_folder_are_in_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inc")).unwrap();
        std::fs::write(dir.path().join("inc/q.h"), "#define Q 1\n").unwrap();
        std::fs::write(dir.path().join("inc/s.h"), "#define S 1\n").unwrap();
        let source = "#include \"q.h\"\n#include <s.h>\n#include <cstdio>\n";
        let dirs = [PathBuf::from("inc")];
        let first = fingerprint("x.cu", source, dir.path(), &dirs).unwrap();
        assert!(first.contains("q.h") && first.contains("s.h"), "{first}");
        for header in ["inc/q.h", "inc/s.h"] {
            std::fs::write(dir.path().join(header), "#define CHANGED 2\n").unwrap();
            let changed = fingerprint("x.cu", source, dir.path(), &dirs).unwrap();
            assert_ne!(first, changed, "{header} changed");
        }
        let without = fingerprint("x.cu", source, dir.path(), &[]).unwrap();
        assert!(!without.contains("s.h"), "{without}");
    }
}
