//! The class: one submission per folder, `.zip` or `.tar.gz` in the submissions folder, each
//! with an id safe to use in file names, and the deterministic slice of them a shard grades.

use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Folder,
    Zip,
    TarGz,
}

#[derive(Clone, Debug)]
pub struct Submission {
    /// The folder or archive name without extension, made safe for file names.
    pub id: String,
    pub path: PathBuf,
    pub kind: Kind,
}

/// What the folder holds: the submissions, sorted by id, and the entries that are none.
pub struct Class {
    pub submissions: Vec<Submission>,
    pub ignored: Vec<String>,
}

pub fn kind_and_stem(name: &str, is_dir: bool) -> Option<(Kind, &str)> {
    if is_dir {
        return Some((Kind::Folder, name));
    }
    let lower = name.to_ascii_lowercase();
    for (suffix, kind) in [
        (".zip", Kind::Zip),
        (".tar.gz", Kind::TarGz),
        (".tgz", Kind::TarGz),
    ] {
        if lower.ends_with(suffix) && lower.len() > suffix.len() {
            return Some((kind, &name[..name.len() - suffix.len()]));
        }
    }
    None
}

/// Letters, digits and `._-@+` are kept; anything else becomes `_`, so an id is a file name
/// in every output and a name in every format.
pub fn safe_id(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-@+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.starts_with('.') {
        format!("_{id}")
    } else {
        id
    }
}

pub fn discover(dir: &Path) -> anyhow::Result<Class> {
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!("cannot read the submissions folder {}: give a folder with one folder or archive per student", dir.display())
    })?;
    let mut by_id: BTreeMap<String, Submission> = BTreeMap::new();
    let mut ignored = Vec::new();
    for entry in entries {
        let entry = entry
            .with_context(|| format!("cannot read the submissions folder {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // The instructor's own links (e.g. into an LMS export) are followed at this level only.
        let is_dir = path.is_dir();
        let Some((kind, stem)) = kind_and_stem(&name, is_dir) else {
            ignored.push(name);
            continue;
        };
        let id = safe_id(stem);
        if let Some(other) = by_id.get(&id) {
            bail!(
                "{} and {} both give the submission id `{id}`: rename one so each student has one entry",
                other.path.display(),
                path.display()
            );
        }
        by_id.insert(id.clone(), Submission { id, path, kind });
    }
    ignored.sort();
    Ok(Class {
        submissions: by_id.into_values().collect(),
        ignored,
    })
}

/// `--shard I/N`: the I-th of N slices, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || format!("`{text}` is not a shard: write I/N with 1 <= I <= N, e.g. 2/8");
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let index: usize = index.trim().parse().map_err(|_| usage())?;
        let count: usize = count.trim().parse().map_err(|_| usage())?;
        if index == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Every N-th submission in id order, starting at the I-th: the same slice on every machine
    /// that sees the same folder, and slices that differ in size by one at most.
    pub fn select(&self, submissions: Vec<Submission>) -> Vec<Submission> {
        submissions
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % self.count == self.index - 1)
            .map(|(_, s)| s)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_safe_file_names() {
        assert_eq!(safe_id("Anna Müller (1)"), "Anna_M_ller__1_");
        assert_eq!(safe_id("../x"), "_.._x");
        assert_eq!(safe_id("bob@uni.edu"), "bob@uni.edu");
    }

    #[test]
    fn archives_and_folders_are_found_and_other_files_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("carol")).unwrap();
        std::fs::write(dir.path().join("alice.zip"), b"").unwrap();
        std::fs::write(dir.path().join("bob.TAR.GZ"), b"").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"").unwrap();
        let class = discover(dir.path()).unwrap();
        let ids: Vec<_> = class
            .submissions
            .iter()
            .map(|s| (s.id.as_str(), s.kind))
            .collect();
        assert_eq!(
            ids,
            [
                ("alice", Kind::Zip),
                ("bob", Kind::TarGz),
                ("carol", Kind::Folder)
            ]
        );
        assert_eq!(class.ignored, ["notes.txt"]);
        std::fs::create_dir(dir.path().join("alice")).unwrap();
        let err = discover(dir.path()).err().unwrap().to_string();
        assert!(err.contains("both give the submission id `alice`"), "{err}");
    }

    #[test]
    fn shards_cover_the_class_once_and_are_balanced() {
        let class: Vec<Submission> = (0..10)
            .map(|i| Submission {
                id: format!("s{i:02}"),
                path: PathBuf::new(),
                kind: Kind::Folder,
            })
            .collect();
        let mut seen = Vec::new();
        for index in 1..=3 {
            let slice = Shard { index, count: 3 }.select(class.clone());
            assert!((3..=4).contains(&slice.len()));
            seen.extend(slice.into_iter().map(|s| s.id));
        }
        seen.sort();
        assert_eq!(seen, class.iter().map(|s| s.id.clone()).collect::<Vec<_>>());
        assert!(
            "0/3".parse::<Shard>().is_err()
                && "4/3".parse::<Shard>().is_err()
                && "x".parse::<Shard>().is_err()
        );
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
    }
}
