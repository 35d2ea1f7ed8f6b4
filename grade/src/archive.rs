//! Reading a student's archive (`.zip`, `.tar` plain or compressed with gzip, xz or bzip2, `.7z`)
//! without trusting it: every entry name is checked before anything is written, links are never
//! created, the bytes an archive expands to are counted while it is read, and only the files
//! grading wants are written, into a fresh folder. Build folders (`target/`, `__pycache__`, see
//! `names::BUILD_FOLDERS`) are passed over before the limits are applied: a Rust crate handed in
//! with cargo's `target/` is no zip bomb. They still cost reading, up to `BUILD_FOLDER_FACTOR`
//! times the limits, since a compressed stream must be read through to reach what follows.

use flate2::read::MultiGzDecoder;
use std::cell::Cell;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::contents::Contents;
use super::names::in_build_folder;
use super::submissions::{Compression, Kind};

/// How many times the limits an archive may hold in all, build folders included.
const BUILD_FOLDER_FACTOR: u64 = 16;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub max_archive_bytes: u64,
    pub max_expanded_bytes: u64,
    pub max_entries: usize,
    pub max_file_bytes: u64,
}

/// Why a whole archive is refused; the message names the archive, and the entry where one is
/// at fault.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{archive}: the entry `{entry}` leads out of the archive's folder (`..`); archives with such paths are refused")]
    Escapes { archive: String, entry: String },
    #[error(
        "{archive}: the entry `{entry}` is an absolute path; archives with such paths are refused"
    )]
    Absolute { archive: String, entry: String },
    #[error("{archive}: the entry `{entry}` has a NUL byte in its name; the archive is refused")]
    NulInName { archive: String, entry: String },
    #[error("{archive}: `{entry}` is a link to `{target}`, outside the archive; archives with such links are refused")]
    LinkOutside {
        archive: String,
        entry: String,
        target: String,
    },
    #[error("{archive} has more than {limit} entries, build folders aside; the archive is refused (max_entries in grading.toml)")]
    TooManyEntries { archive: String, limit: usize },
    #[error("{archive} expands to more than {} (a zip bomb?), build folders aside; the archive is refused (max_expanded_mb in grading.toml)", mib(*.limit))]
    ExpandsPastLimit { archive: String, limit: u64 },
    #[error("{archive} expands to more than {}, its build folders ({}) included (a zip bomb?); the archive is refused: hand in the source files without them", mib(*.limit), super::names::BUILD_FOLDERS.join(", "))]
    WholePastLimit { archive: String, limit: u64 },
    #[error("{archive} has more than {limit} entries, its build folders included; the archive is refused: hand in the source files without them")]
    TooManyInAll { archive: String, limit: usize },
    #[error("{archive} is {}, more than the {} an archive may be; the archive is refused (max_archive_mb in grading.toml)", mib(*.size), mib(*.limit))]
    TooLarge {
        archive: String,
        size: u64,
        limit: u64,
    },
    #[error("{archive} cannot be read as a {kind} archive: {problem}")]
    Unreadable {
        archive: String,
        kind: &'static str,
        problem: String,
    },
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// A wanted file that was not written, and why: the kernel lookup reports it by name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// What was taken from an archive: the files grading wanted, under `root`, and those it could not take.
#[derive(Debug)]
pub(crate) struct Extracted {
    pub skipped: Vec<Skipped>,
    /// The files it held that were not wanted (build folders aside).
    pub others: Contents,
}

/// Extracts into `dest` (a fresh, empty folder) the regular files whose path `wanted` accepts.
pub(crate) fn extract(
    archive: &Path,
    kind: Kind,
    dest: &Path,
    limits: &Limits,
    wanted: &dyn Fn(&Path) -> bool,
) -> Result<Extracted, Refusal> {
    let name = archive.file_name().map_or_else(
        || archive.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let size = std::fs::metadata(archive)
        .map(|m| m.len())
        .map_err(|e| Refusal::Unreadable {
            archive: name.clone(),
            kind: kind.name(),
            problem: e.to_string(),
        })?;
    if size > limits.max_archive_bytes {
        return Err(Refusal::TooLarge {
            archive: name,
            size,
            limit: limits.max_archive_bytes,
        });
    }
    let mut reader = Reader {
        name,
        dest,
        limits,
        wanted,
        skipped: Vec::new(),
        others: Contents::default(),
        expanded: Rc::new(Cell::new(0)),
    };
    match kind {
        Kind::Zip => reader.zip(archive)?,
        Kind::Tar(compression) => reader.tar(archive, compression)?,
        Kind::SevenZip => reader.seven_zip(archive)?,
        Kind::Folder | Kind::File | Kind::Files | Kind::Unreadable(_) | Kind::Document(_) => {
            return Err(Refusal::Unreadable {
                archive: reader.name,
                kind: kind.name(),
                problem: "the grader does not read this kind of archive".into(),
            })
        }
    }
    Ok(Extracted {
        skipped: reader.skipped,
        others: reader.others,
    })
}

/// The most an archive may expand to, or hold entries, build folders included.
fn in_all(limit: u64) -> u64 {
    limit.saturating_mul(BUILD_FOLDER_FACTOR)
}

/// Counts what lies outside build folders against the limits, and everything against the
/// limits times `BUILD_FOLDER_FACTOR`.
#[derive(Default)]
struct Tally {
    entries: usize,
    all_entries: usize,
    bytes: u64,
}

impl Tally {
    fn add(&mut self, reader: &Reader, path: &Path, size: u64) -> Result<(), Refusal> {
        self.all_entries += 1;
        let limits = reader.limits;
        if self.all_entries as u64 > in_all(limits.max_entries as u64) {
            return Err(Refusal::TooManyInAll {
                archive: reader.name.clone(),
                limit: in_all(limits.max_entries as u64) as usize,
            });
        }
        if in_build_folder(path) {
            return Ok(());
        }
        self.entries += 1;
        self.bytes = self.bytes.saturating_add(size);
        if self.entries > limits.max_entries {
            return Err(Refusal::TooManyEntries {
                archive: reader.name.clone(),
                limit: limits.max_entries,
            });
        }
        if self.bytes > limits.max_expanded_bytes {
            return Err(Refusal::ExpandsPastLimit {
                archive: reader.name.clone(),
                limit: limits.max_expanded_bytes,
            });
        }
        Ok(())
    }
}

/// The entry name as a relative path, or why it is refused. Backslashes count as separators,
/// so a name made on Windows cannot slip a `..` through.
fn safe_relative(raw: &[u8]) -> Result<PathBuf, fn(String, String) -> Refusal> {
    if raw.contains(&0) {
        return Err(|archive, entry| Refusal::NulInName { archive, entry });
    }
    let text = String::from_utf8_lossy(raw);
    let bytes = text.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if text.starts_with('/') || text.starts_with('\\') || drive {
        return Err(|archive, entry| Refusal::Absolute { archive, entry });
    }
    let mut path = PathBuf::new();
    for part in text.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err(|archive, entry| Refusal::Escapes { archive, entry }),
            part => path.push(part),
        }
    }
    Ok(path)
}

/// Whether a link at `entry` (relative) pointing to `target` stays inside the archive's folder.
fn link_stays_inside(entry: &Path, target: &[u8]) -> bool {
    let target = String::from_utf8_lossy(target);
    if target.starts_with('/') || target.starts_with('\\') {
        return false;
    }
    let mut depth = entry.components().count() as i64 - 1;
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// Counts every byte that comes out of the decompressor, and stops at the limit.
struct Counted<R> {
    inner: R,
    expanded: Rc<Cell<u64>>,
    limit: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.expanded.set(self.expanded.get() + n as u64);
        if self.expanded.get() > self.limit {
            return Err(std::io::Error::other("the archive expands past its limit"));
        }
        Ok(n)
    }
}

struct Reader<'a> {
    name: String,
    dest: &'a Path,
    limits: &'a Limits,
    wanted: &'a dyn Fn(&Path) -> bool,
    skipped: Vec<Skipped>,
    others: Contents,
    expanded: Rc<Cell<u64>>,
}

impl Reader<'_> {
    fn refuse_name(&self, raw: &[u8]) -> Result<PathBuf, Refusal> {
        safe_relative(raw)
            .map_err(|make| make(self.name.clone(), String::from_utf8_lossy(raw).into_owned()))
    }

    /// Opens the archive if it is a regular file, without waiting in the open (a FIFO named
    /// `work.zip` would wait for a writer for ever).
    fn open(&self, archive: &Path, kind: &'static str) -> Result<std::fs::File, Refusal> {
        let file =
            runner::kernel_file::open_nonblocking(archive).map_err(|e| self.unreadable(kind, e))?;
        let metadata = file.metadata().map_err(|e| self.unreadable(kind, e))?;
        if !metadata.is_file() {
            let what = runner::kernel_file::kind_of(&metadata);
            return Err(self.unreadable(kind, format!("it is {what}, not a regular file")));
        }
        Ok(file)
    }

    fn unreadable(&self, kind: &'static str, problem: impl std::fmt::Display) -> Refusal {
        let whole = in_all(self.limits.max_expanded_bytes);
        if self.expanded.get() > whole {
            return Refusal::WholePastLimit {
                archive: self.name.clone(),
                limit: whole,
            };
        }
        Refusal::Unreadable {
            archive: self.name.clone(),
            kind,
            problem: problem.to_string(),
        }
    }

    fn check_link(&self, path: &Path, target: &[u8]) -> Result<(), Refusal> {
        if link_stays_inside(path, target) {
            return Ok(());
        }
        Err(Refusal::LinkOutside {
            archive: self.name.clone(),
            entry: path.display().to_string(),
            target: String::from_utf8_lossy(target).into_owned(),
        })
    }

    fn note_link(&mut self, path: PathBuf) {
        if (self.wanted)(&path) {
            let reason = "is a link in the archive; links are not followed: put the file itself in the archive".into();
            self.skipped.push(Skipped { path, reason });
        }
    }

    /// A wanted entry that is no file (a FIFO, a device): nothing is made for it, and its cell
    /// says why.
    fn note_special(&mut self, path: PathBuf, what: &str) {
        if (self.wanted)(&path) {
            let reason =
                format!("is {what} in the archive, not a file: put the file itself in the archive");
            self.skipped.push(Skipped { path, reason });
        }
    }

    /// An entry that is not wanted, counted for the cell that finds no file of its exercise.
    fn note_other(&mut self, path: &Path) {
        if !in_build_folder(path) {
            self.others.add(path);
        }
    }

    /// Copies one wanted entry to the destination, reading at most one byte past the file limit
    /// (an archive's limit for an archive inside it, which is read in its turn).
    fn take(
        &mut self,
        path: PathBuf,
        data: &mut dyn Read,
        kind: &'static str,
    ) -> Result<(), Refusal> {
        let mut bytes = Vec::new();
        let nested = is_archive(&path);
        let cap = if nested {
            self.limits.max_archive_bytes
        } else {
            self.limits.max_file_bytes
        };
        data.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.unreadable(kind, e))?;
        if bytes.len() as u64 > cap {
            let reason = if nested {
                format!("is larger than the {} an archive may be", mib(cap))
            } else {
                format!("is larger than the {} KiB a kernel file may be", cap / 1024)
            };
            self.skipped.push(Skipped { path, reason });
            return Ok(());
        }
        let target = self.dest.join(&path);
        let written = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&target, &bytes));
        written
            .map_err(|e| self.unreadable(kind, format!("cannot write {}: {e}", target.display())))
    }

    fn zip(&mut self, archive: &Path) -> Result<(), Refusal> {
        let file = self.open(archive, "zip")?;
        let mut zip =
            zip::ZipArchive::new(BufReader::new(file)).map_err(|e| self.unreadable("zip", e))?;
        // First every name and the sizes the archive declares, before a byte is expanded; what
        // lies in build folders is never expanded.
        let mut tally = Tally::default();
        let mut plan = Vec::new();
        for index in 0..zip.len() {
            let entry = zip
                .by_index_raw(index)
                .map_err(|e| self.unreadable("zip", e))?;
            let path = self.refuse_name(entry.name_raw())?;
            tally.add(self, &path, entry.size())?;
            plan.push((index, path, entry.is_symlink(), entry.is_dir()));
        }
        for (index, path, is_link, is_dir) in plan {
            if is_dir || in_build_folder(&path) {
                continue;
            }
            if !(is_link || (self.wanted)(&path)) {
                self.note_other(&path);
                continue;
            }
            let entry = match zip.by_index(index) {
                Ok(entry) => entry,
                Err(e) => {
                    if (self.wanted)(&path) {
                        self.skipped.push(Skipped {
                            path,
                            reason: format!("cannot be read from the archive: {e}"),
                        });
                    }
                    continue;
                }
            };
            let limit = in_all(self.limits.max_expanded_bytes);
            let mut counted = Counted {
                inner: entry,
                expanded: self.expanded.clone(),
                limit,
            };
            if is_link {
                let mut target = Vec::new();
                (&mut counted)
                    .take(4096)
                    .read_to_end(&mut target)
                    .map_err(|e| self.unreadable("zip", e))?;
                self.check_link(&path, &target)?;
                self.note_link(path);
            } else {
                self.take(path, &mut counted, "zip")?;
            }
        }
        Ok(())
    }

    /// A tar archive, compressed as its name says. The counter sits under the tar reader, so
    /// the data of skipped entries counts too.
    fn tar(&mut self, archive: &Path, compression: Compression) -> Result<(), Refusal> {
        let kind = Kind::Tar(compression).name();
        let file = BufReader::new(self.open(archive, kind)?);
        let stream: Box<dyn Read> = match compression {
            Compression::None => Box::new(file),
            Compression::Gzip => Box::new(MultiGzDecoder::new(file)),
            Compression::Xz => Box::new(lzma_rust2::XzReader::new(file, true)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(file)),
        };
        let counted = Counted {
            inner: stream,
            expanded: self.expanded.clone(),
            limit: in_all(self.limits.max_expanded_bytes),
        };
        let mut tar = tar::Archive::new(counted);
        let entries = tar.entries().map_err(|e| self.unreadable(kind, e))?;
        let mut tally = Tally::default();
        for entry in entries {
            let mut entry = entry.map_err(|e| self.unreadable(kind, e))?;
            let path = self.refuse_name(&entry.path_bytes())?;
            tally.add(self, &path, entry.size())?;
            if in_build_folder(&path) {
                continue;
            }
            let entry_type = entry.header().entry_type();
            if entry_type.is_symlink() {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                self.check_link(&path, &target)?;
                self.note_link(path);
            } else if entry_type.is_hard_link() {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                // A hard link's target is named from the archive's root.
                self.refuse_name(&target)
                    .map_err(|_| Refusal::LinkOutside {
                        archive: self.name.clone(),
                        entry: path.display().to_string(),
                        target: String::from_utf8_lossy(&target).into_owned(),
                    })?;
                self.note_link(path);
            } else if entry_type.is_file() || entry_type == tar::EntryType::Continuous {
                if (self.wanted)(&path) {
                    self.take(path, &mut entry, kind)?;
                } else {
                    self.note_other(&path);
                }
            } else if let Some(what) = special_entry(entry_type) {
                self.note_special(path, what);
            }
        }
        Ok(())
    }

    /// A 7z archive. Its header declares every entry's size, and the reader expands no more
    /// than that, so the limits are checked on the header before a byte is expanded.
    fn seven_zip(&mut self, archive: &Path) -> Result<(), Refusal> {
        let kind = Kind::SevenZip.name();
        let file = self.open(archive, kind)?;
        let mut reader =
            sevenz_rust2::ArchiveReader::new(BufReader::new(file), sevenz_rust2::Password::empty())
                .map_err(|e| self.unreadable(kind, e))?;
        let mut tally = Tally::default();
        let mut whole = 0u64;
        for entry in &reader.archive().files {
            let path = self.refuse_name(entry.name.as_bytes())?;
            tally.add(self, &path, entry.size)?;
            whole = whole.saturating_add(entry.size);
        }
        if whole > in_all(self.limits.max_expanded_bytes) {
            return Err(Refusal::WholePastLimit {
                archive: self.name.clone(),
                limit: in_all(self.limits.max_expanded_bytes),
            });
        }
        let mut refusal = None;
        let result = reader.for_each_entries(|entry, data| {
            if entry.is_directory {
                return Ok(true);
            }
            let Ok(path) = safe_relative(entry.name.as_bytes()) else {
                return Ok(true);
            };
            if in_build_folder(&path) {
                return Ok(true);
            }
            let outcome = if is_unix_link(entry.windows_attributes) {
                let mut target = Vec::new();
                data.take(4096).read_to_end(&mut target)?;
                self.check_link(&path, &target)
                    .map(|()| self.note_link(path))
            } else if (self.wanted)(&path) {
                self.take(path, data, kind)
            } else {
                self.note_other(&path);
                Ok(())
            };
            match outcome {
                Ok(()) => Ok(true),
                Err(refused) => {
                    refusal = Some(refused);
                    Ok(false)
                }
            }
        });
        if let Some(refused) = refusal {
            return Err(refused);
        }
        result.map_err(|e| self.unreadable(kind, e))
    }
}

/// What a tar entry that is neither a file, a folder nor a link is, in words; None for the
/// kinds that carry no file of the student's (folders, extended headers, GNU long names).
fn special_entry(entry_type: tar::EntryType) -> Option<&'static str> {
    match entry_type {
        tar::EntryType::Fifo => Some("a named pipe (FIFO)"),
        tar::EntryType::Char => Some("a character device"),
        tar::EntryType::Block => Some("a block device"),
        tar::EntryType::GNUSparse => Some("a sparse file"),
        _ => None,
    }
}

/// Whether `path` names an archive the grader reads (one inside a submission's archive is
/// extracted in its turn where nothing else is there).
pub(crate) fn is_archive(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    super::submissions::kind_and_stem(&name, false)
        .is_some_and(|(kind, _)| kind.is_readable_archive())
}

/// Whether a 7z entry's attributes carry a Unix mode (7-Zip keeps it in the high 16 bits, marked
/// by 0x8000) that says it is a symbolic link.
fn is_unix_link(attributes: u32) -> bool {
    const UNIX_EXTENSION: u32 = 0x8000;
    const FILE_TYPE: u32 = 0o170000;
    const SYMLINK: u32 = 0o120000;
    attributes & UNIX_EXTENSION != 0 && (attributes >> 16) & FILE_TYPE == SYMLINK
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread, failing the test if it has not answered within two minutes (where
    /// a FIFO's open would wait for ever; any machine answers a refusal far sooner).
    fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("within seconds".into())
            .spawn(move || tx.send(f()))
            .expect("a thread starts");
        rx.recv_timeout(std::time::Duration::from_secs(120))
            .expect("it answered without waiting")
    }

    #[test]
    #[allow(unsafe_code)] // mkfifo(3): the test makes a FIFO to hand the reader.
    fn a_fifo_named_as_an_archive_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        for (name, kind) in [
            ("work.zip", Kind::Zip),
            ("work.tar.gz", Kind::Tar(Compression::Gzip)),
        ] {
            let fifo = dir.path().join(name);
            let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
            let dest = dir.path().join(format!("{name}.out"));
            let refusal = within_seconds(move || {
                let limits = Limits {
                    max_archive_bytes: 1 << 20,
                    max_expanded_bytes: 1 << 20,
                    max_entries: 10,
                    max_file_bytes: 1 << 20,
                };
                extract(&fifo, kind, &dest, &limits, &|_| true).map(|_| ())
            });
            let message = refusal.expect_err("a FIFO is no archive").to_string();
            assert!(
                message.contains("a named pipe (FIFO), not a regular file"),
                "{message}"
            );
        }
    }

    #[test]
    fn names_that_escape_or_are_absolute_are_refused() {
        assert_eq!(safe_relative(b"a/./b.cu").unwrap(), PathBuf::from("a/b.cu"));
        let refused = |raw: &[u8]| {
            safe_relative(raw).map_err(|make| make("x.zip".into(), "e".into()).to_string())
        };
        assert!(refused(b"../x").unwrap_err().contains("leads out"));
        assert!(refused(b"a\\..\\..\\x").unwrap_err().contains("leads out"));
        assert!(refused(b"/etc/passwd").unwrap_err().contains("absolute"));
        assert!(refused(b"C:/x").unwrap_err().contains("absolute"));
        assert!(refused(b"a\0b").unwrap_err().contains("NUL"));
    }

    #[test]
    fn links_are_judged_from_where_they_sit() {
        assert!(link_stays_inside(Path::new("a/b/link"), b"../c"));
        assert!(!link_stays_inside(Path::new("a/link"), b"../../c"));
        assert!(!link_stays_inside(Path::new("link"), b"/etc/passwd"));
    }
}
