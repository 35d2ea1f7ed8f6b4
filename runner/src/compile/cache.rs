//! The compile cache: compiled modules stored under a hash of source, options and compiler version.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::PathBuf;

pub struct Cache {
    pub dir: Option<PathBuf>,
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

    pub fn get(&self, key: &str, extension: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(key, extension)?).ok()
    }

    /// Stores atomically, so a reader never sees half a module.
    pub fn put(&self, key: &str, extension: &str, bytes: &[u8]) {
        let Some(path) = self.path(key, extension) else {
            return;
        };
        let _ = write_replacing(&path, bytes, false);
    }

    /// A small named value kept beside the modules, such as a device's measured bandwidth.
    pub fn get_value(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.as_ref()?.join("values").join(name)).ok()
    }

    pub fn put_value(&self, name: &str, value: &str) {
        if let Some(dir) = &self.dir {
            let _ = write_replacing(&dir.join("values").join(name), value.as_bytes(), false);
        }
    }
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
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    if durable {
        file.as_file().sync_all()?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
