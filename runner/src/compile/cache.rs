//! The compile cache: compiled modules stored under a hash of everything the compile read
//! (source, included files, options, compiler version).
//!
//! Each entry starts with a line holding the length and hash of the module after it, so a damaged
//! entry (empty, cut short by a full disk, overwritten) is found and compiled again, never used.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::PathBuf;

/// Compiled modules and small measured values on disk, by the hash of what made them.
#[derive(Clone)]
pub struct Cache {
    /// Its folder; None where no folder could be named (then nothing is cached).
    pub dir: Option<PathBuf>,
}

/// The first line's start: the format of an entry, changed whenever the format does.
const ENTRY_HEADER: &str = "runner-cache-entry 1";

/// What the cache holds for a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The bytes stored, checked against their length and hash.
    Hit(Vec<u8>),
    /// Nothing stored under the key (or no cache folder).
    Missing,
    /// An entry that does not hold what was stored; why, in a few words.
    Damaged(&'static str),
}

fn hash_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Cache {
    /// The cache in RUNNER_CACHE_DIR, else the user's cache folder. A cache that cannot be made
    /// only makes compiles slower, so it is never an error.
    pub fn open() -> Cache {
        let dir = std::env::var_os("RUNNER_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| {
                directories::ProjectDirs::from("org", "gpu-course", "runner")
                    .map(|d| d.cache_dir().to_path_buf())
            });
        Cache { dir }
    }

    /// The key of what `parts` make: a hash in hex, each part's length hashed before it so
    /// that no two lists of parts run together into one key.
    pub fn key(parts: &[&str]) -> String {
        let mut hash = Sha256::new();
        for part in parts {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, key: &str, extension: &str) -> Option<PathBuf> {
        Some(
            self.dir
                .as_ref()?
                .join("modules")
                .join(format!("{key}.{extension}")),
        )
    }

    /// The module stored under `key`, checked against its header. A damaged entry is removed,
    /// so that it is reported once and then replaced.
    pub fn lookup(&self, key: &str, extension: &str) -> Lookup {
        let Some(path) = self.path(key, extension) else {
            return Lookup::Missing;
        };
        let Ok(entry) = std::fs::read(&path) else {
            return Lookup::Missing;
        };
        let found = open_entry(entry);
        if matches!(found, Lookup::Damaged(_)) {
            let _ = std::fs::remove_file(&path);
        }
        found
    }

    /// Stores atomically, so a reader never sees half a module; the header catches what
    /// atomicity cannot (a disk that fills, another program writing there).
    pub fn put(&self, key: &str, extension: &str, bytes: &[u8]) {
        let Some(path) = self.path(key, extension) else {
            return;
        };
        let mut entry =
            format!("{ENTRY_HEADER} {} {}\n", bytes.len(), hash_hex(bytes)).into_bytes();
        entry.extend_from_slice(bytes);
        let _ = write_replacing(&path, &entry, false);
    }

    /// A small named value kept beside the modules, such as a device's measured bandwidth.
    pub fn get_value(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.as_ref()?.join("values").join(name)).ok()
    }

    /// Keeps `value` as `name` for [`Cache::get_value`]; a failure to write only loses it.
    pub fn put_value(&self, name: &str, value: &str) {
        if let Some(dir) = &self.dir {
            let _ = write_replacing(&dir.join("values").join(name), value.as_bytes(), false);
        }
    }
}

/// The module in an entry's bytes, if its header vouches for it.
fn open_entry(mut entry: Vec<u8>) -> Lookup {
    if entry.is_empty() {
        return Lookup::Damaged("empty");
    }
    let Some(end) = entry.iter().take(200).position(|&b| b == b'\n') else {
        return Lookup::Damaged("no header");
    };
    let header = String::from_utf8_lossy(&entry[..end]).into_owned();
    let mut fields = header
        .strip_prefix(ENTRY_HEADER)
        .unwrap_or_default()
        .split_whitespace();
    let (Some(Ok(length)), Some(hash), None) = (
        fields.next().map(str::parse::<usize>),
        fields.next(),
        fields.next(),
    ) else {
        return Lookup::Damaged("no header");
    };
    let body = entry.split_off(end + 1);
    if body.len() != length {
        return Lookup::Damaged("wrong length");
    }
    if hash_hex(&body) != hash {
        return Lookup::Damaged("checksum mismatch");
    }
    Lookup::Hit(body)
}

/// Writes a file so that it either keeps its old content or has all of the new, even across a
/// crash: the bytes go to a temporary file in the same folder, flushed to disk, which is then
/// renamed over the target. For what must not be lost: progress, grades, restored exercises.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing(path, bytes, true)
}

/// The same without waiting for the disk: a cache entry lost in a crash is only recompiled.
fn write_replacing(path: &std::path::Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir)?;
    // Made as `File::create` makes a file (0666 less the umask), not private as a temporary
    // file: a grade book or a progress file is shared with whoever the umask lets read it.
    let mut file = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    if durable {
        file.as_file().sync_all()?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_and_any_damage_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache {
            dir: Some(dir.path().to_path_buf()),
        };
        cache.put("k", "ptx", b"module body");
        assert_eq!(
            cache.lookup("k", "ptx"),
            Lookup::Hit(b"module body".to_vec())
        );
        let path = cache.path("k", "ptx").unwrap();
        let whole = std::fs::read(&path).unwrap();
        let mut flipped = whole.clone();
        *flipped.last_mut().unwrap() ^= 1;
        for (damage, why) in [
            (Vec::new(), "empty"),
            (whole[..whole.len() - 3].to_vec(), "wrong length"),
            (b"garbage".to_vec(), "no header"),
            (flipped, "checksum mismatch"),
        ] {
            std::fs::write(&path, damage).unwrap();
            assert_eq!(cache.lookup("k", "ptx"), Lookup::Damaged(why));
            assert_eq!(
                cache.lookup("k", "ptx"),
                Lookup::Missing,
                "removed once found"
            );
        }
    }
}
