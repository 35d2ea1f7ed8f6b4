//! The class: one submission per folder or archive (`.zip`, `.tar`, `.tar.gz`, `.tar.xz`,
//! `.tar.bz2`, `.7z`) in the submissions folder, each with an id safe to use in file names, and
//! the deterministic slice of them a shard grades. An archive of a kind the grader cannot read
//! (`.rar`) is a submission too, refused with the reason, so it is in every output, as is a
//! document handed in for code (a PDF, a notebook, a screenshot); so is a lone
//! program file (`ann_vector_add.cu`, as some learning platforms export one upload each), and so
//! are a flat export's uploads, one submission per student (`flat_export`).

pub(crate) mod flat_export;

use anyhow::Context;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Folder,
    /// One source file (`.cu`, `.rs`, `.py`), the whole submission.
    File,
    /// One student's source files in a flat export (`flat_export`): `path` is the first of
    /// them, [`Submission::uploads`] lists them all.
    Files,
    Zip,
    Tar(Compression),
    SevenZip,
    /// An archive format the grader does not read, by name ("RAR").
    Unreadable(&'static str),
    /// A document or picture handed in instead of source code, by kind ("PDF").
    Document(&'static str),
}

/// How a tar archive is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Xz,
    Bzip2,
}

impl Kind {
    /// The archive's kind as people name it ("tar.xz"), for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Folder => "folder",
            Kind::File => "file",
            Kind::Files => "files",
            Kind::Zip => "zip",
            Kind::Tar(Compression::None) => "tar",
            Kind::Tar(Compression::Gzip) => "tar.gz",
            Kind::Tar(Compression::Xz) => "tar.xz",
            Kind::Tar(Compression::Bzip2) => "tar.bz2",
            Kind::SevenZip => "7z",
            Kind::Unreadable(name) | Kind::Document(name) => name,
        }
    }

    /// Whether the grader reads files out of it.
    pub fn is_readable_archive(self) -> bool {
        !matches!(
            self,
            Kind::Folder | Kind::File | Kind::Files | Kind::Unreadable(_) | Kind::Document(_)
        )
    }
}

/// The archives the grader reads, by file name suffix (longest first where one ends another).
const ARCHIVES: &[(&str, Kind)] = &[
    (".zip", Kind::Zip),
    (".tar.gz", Kind::Tar(Compression::Gzip)),
    (".tgz", Kind::Tar(Compression::Gzip)),
    (".tar.xz", Kind::Tar(Compression::Xz)),
    (".txz", Kind::Tar(Compression::Xz)),
    (".tar.bz2", Kind::Tar(Compression::Bzip2)),
    (".tbz2", Kind::Tar(Compression::Bzip2)),
    (".tbz", Kind::Tar(Compression::Bzip2)),
    (".tar", Kind::Tar(Compression::None)),
    (".7z", Kind::SevenZip),
    // Handed in as often, and not read: named in every output with what to hand in instead.
    (".rar", Kind::Unreadable("RAR")),
    (".tar.zst", Kind::Unreadable("tar.zst")),
    (".tar.lz", Kind::Unreadable("tar.lz")),
    (".zst", Kind::Unreadable("zstd")),
    (".gz", Kind::Unreadable("gzip (of a single file)")),
    (".xz", Kind::Unreadable("xz (of a single file)")),
    (".bz2", Kind::Unreadable("bzip2 (of a single file)")),
    // What students hand in by mistake for code: named in every output with what to hand in.
    (".pdf", Kind::Document("PDF document")),
    (".docx", Kind::Document("Word document")),
    (".doc", Kind::Document("Word document")),
    (".odt", Kind::Document("OpenDocument text")),
    (".ipynb", Kind::Document("Jupyter notebook")),
    (".png", Kind::Document("PNG picture")),
    (".jpg", Kind::Document("JPEG picture")),
    (".jpeg", Kind::Document("JPEG picture")),
    // A single file handed in as it is: a kernel or a whole program.
    (".cu", Kind::File),
    (".rs", Kind::File),
    (".py", Kind::File),
];

/// Why an archive the grader cannot read is refused, and what to hand in instead.
pub(crate) fn unreadable_reason(name: &str, format: &str) -> String {
    format!(
        "{name} is a {format} archive, which the grader does not read: hand in a .zip, .tar.gz, \
         .tar.xz, .tar.bz2 or .7z (or the folder)"
    )
}

/// Why a document handed in for code is not graded, and what to hand in instead.
pub(crate) fn document_reason(name: &str, what: &str) -> String {
    format!(
        "{name} is a {what}, not source code: hand in the exercises' files (.cu, .py, .rs) as \
         named in the course, in a folder or an archive"
    )
}

#[derive(Clone, Debug)]
pub struct Submission {
    /// The folder or archive name without extension, made safe for file names and unique in
    /// the class (see `unique_ids`).
    pub id: String,
    /// The folder or archive name as it is on disk ("Zoë Smith (2)", "bob.zip"): every output
    /// shows it beside the id.
    pub name: String,
    pub path: PathBuf,
    pub kind: Kind,
}

impl Submission {
    /// The source files a lone file or a flat export's submission is made of (none for a
    /// folder or an archive), each with the name it was uploaded as.
    pub fn uploads(&self) -> Vec<(PathBuf, String)> {
        let name_of = |path: &Path| {
            path.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        };
        match self.kind {
            Kind::File => vec![(self.path.clone(), self.name.clone())],
            Kind::Files => flat_export::members(&self.path, is_source_file)
                .into_iter()
                .map(|path| {
                    let name = name_of(&path);
                    let original =
                        flat_export::parse(&name).map_or(name.clone(), |u| u.original.into());
                    (path, original)
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Whether a file at the top of the submissions folder is a source file handed in alone.
fn is_source_file(name: &str) -> bool {
    matches!(kind_and_stem(name, false), Some((Kind::File, _)))
}

/// A flat export's source files (`flat_export`) as one entry per student, its name the
/// student's and user id and its path the first upload; an archive in the export under the
/// student's name (its id); other entries as they are. Entries are (stem, name on disk, path,
/// kind).
fn gather_flat_export(
    found: Vec<(String, String, PathBuf, Kind)>,
) -> Vec<(String, String, PathBuf, Kind)> {
    let mut students: BTreeMap<(String, String), (String, PathBuf)> = BTreeMap::new();
    let mut rest = Vec::new();
    for mut entry in found {
        let upload = (entry.3 != Kind::Folder)
            .then(|| flat_export::parse(&entry.1))
            .flatten();
        let Some(upload) = upload else {
            rest.push(entry);
            continue;
        };
        if entry.3 != Kind::File {
            // An archive in the export: its own submission, under the student's name.
            entry.0 = upload.student.to_string();
            rest.push(entry);
            continue;
        }
        let key = (upload.student.to_string(), upload.user_id.to_string());
        let path = entry.2.clone();
        students
            .entry(key)
            .and_modify(|(_, first)| {
                if path < *first {
                    *first = path.clone();
                }
            })
            .or_insert_with(|| (upload.submission_name(), entry.2));
    }
    rest.extend(
        students
            .into_iter()
            .map(|((student, _), (name, first))| (student, name, first, Kind::Files)),
    );
    rest
}

/// What the folder holds: the submissions, sorted by id, and the entries that are none.
pub(crate) struct Class {
    pub submissions: Vec<Submission>,
    pub ignored: Vec<String>,
}

pub(crate) fn kind_and_stem(name: &str, is_dir: bool) -> Option<(Kind, &str)> {
    if is_dir {
        return Some((Kind::Folder, name));
    }
    let lower = name.to_ascii_lowercase();
    for &(suffix, kind) in ARCHIVES {
        if lower.ends_with(suffix) && lower.len() > suffix.len() {
            return Some((kind, &name[..name.len() - suffix.len()]));
        }
    }
    None
}

/// Letters and digits of any script and `._-@+` are kept; anything else becomes `_`, so an id
/// is a file name in every output and a name in every format.
pub(crate) fn safe_id(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "._-@+".contains(c) {
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

/// Ids for submissions, given as (stem, name on disk), never the same for two: where stems
/// give the same safe id (also when only letter case differs, as on a case-insensitive disk),
/// each of them gets a suffix from a hash of its own name, so an id does not depend on which
/// other names are there or in what order they were read (shards on several machines agree).
fn unique_ids(entries: &[(&str, &str)]) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let ids: Vec<String> = entries.iter().map(|(stem, _)| safe_id(stem)).collect();
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    for id in &ids {
        *uses.entry(id.to_lowercase()).or_default() += 1;
    }
    ids.into_iter()
        .zip(entries)
        .map(|(id, (_, name))| {
            if uses[&id.to_lowercase()] == 1 {
                return id;
            }
            let hash = Sha256::digest(name.as_bytes());
            let suffix: String = hash[..4].iter().map(|b| format!("{b:02x}")).collect();
            format!("{id}-{suffix}")
        })
        .collect()
}

pub(crate) fn discover(dir: &Path) -> anyhow::Result<Class> {
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!("cannot read the submissions folder {}: give a folder with one folder or archive per student", dir.display())
    })?;
    let mut found: Vec<(String, String, PathBuf, Kind)> = Vec::new();
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
        found.push((stem.to_string(), name, path, kind));
    }
    let found = gather_flat_export(found);
    let keys: Vec<(&str, &str)> = found
        .iter()
        .map(|(stem, name, ..)| (stem.as_str(), name.as_str()))
        .collect();
    let ids = unique_ids(&keys);
    let mut submissions: Vec<Submission> = ids
        .into_iter()
        .zip(found)
        .map(|(id, (_, name, path, kind))| Submission {
            id,
            name,
            path,
            kind,
        })
        .collect();
    submissions.sort_by(|a, b| a.id.cmp(&b.id));
    ignored.sort();
    Ok(Class {
        submissions,
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
    fn ids_are_safe_file_names_in_any_script() {
        assert_eq!(safe_id("Anna Müller (1)"), "Anna_Müller__1_");
        assert_eq!(safe_id("李雷"), "李雷");
        assert_eq!(safe_id("../x"), "_.._x");
        assert_eq!(safe_id("a/b\\c"), "a_b_c");
        assert_eq!(safe_id("bob@uni.edu"), "bob@uni.edu");
    }

    #[test]
    fn names_that_give_one_id_each_get_their_own_suffix_whatever_else_is_there() {
        let ids = unique_ids(&[
            ("a b", "a b"),
            ("a_b", "a_b.zip"),
            ("A_B", "A_B"),
            ("c", "c"),
        ]);
        assert_eq!(ids.len(), 4);
        assert!(
            ids[..3].iter().all(|id| id.len() == "a_b-".len() + 8),
            "{ids:?}"
        );
        assert_eq!(ids[3], "c");
        let unique: std::collections::BTreeSet<_> = ids.iter().map(|i| i.to_lowercase()).collect();
        assert_eq!(unique.len(), 4, "{ids:?}");
        // The same name keeps its id when the others change.
        assert_eq!(unique_ids(&[("a b", "a b"), ("a_b", "other")])[0], ids[0]);
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
                ("bob", Kind::Tar(Compression::Gzip)),
                ("carol", Kind::Folder)
            ]
        );
        assert_eq!(class.ignored, ["notes.txt"]);
        assert_eq!(class.submissions[0].name, "alice.zip");
        std::fs::create_dir(dir.path().join("alice")).unwrap();
        let class = discover(dir.path()).unwrap();
        let alices: Vec<_> = class
            .submissions
            .iter()
            .filter(|s| s.id.starts_with("alice-"))
            .collect();
        assert_eq!(
            alices.len(),
            2,
            "a folder and an archive of one name are both graded"
        );
    }

    #[test]
    fn a_flat_export_is_one_submission_per_student_with_all_their_uploads() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "doe_jane_11_90_vector_add.cu",
            "doe_jane_11_90_histogram (1).cu",
            "doe_jane_12_91_vector_add.cu",
            "doe_jane_11_90_work.zip",
            "ann_vector_add.cu",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let mut class = discover(dir.path()).unwrap().submissions;
        class.sort_by(|a, b| a.name.cmp(&b.name));
        let found: Vec<_> = class.iter().map(|s| (s.name.as_str(), s.kind)).collect();
        assert_eq!(
            found,
            [
                ("ann_vector_add.cu", Kind::File),
                ("doe_jane_11", Kind::Files),
                ("doe_jane_11_90_work.zip", Kind::Zip),
                ("doe_jane_12", Kind::Files),
            ]
        );
        let uploads: Vec<_> = class[1]
            .uploads()
            .into_iter()
            .map(|(_, uploaded_as)| uploaded_as)
            .collect();
        assert_eq!(uploads, ["histogram (1).cu", "vector_add.cu"]);
        // Three submissions of students named doe_jane: the archive too is hers.
        for doe in &class[1..] {
            assert!(doe.id.starts_with("doe_jane-"), "{}", doe.id);
        }
        assert_ne!(class[1].id, class[3].id);
    }

    #[test]
    fn shards_cover_the_class_once_and_are_balanced() {
        let class: Vec<Submission> = (0..10)
            .map(|i| Submission {
                id: format!("s{i:02}"),
                name: format!("s{i:02}"),
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
