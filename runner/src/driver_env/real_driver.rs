//! Where NVIDIA's driver is, for `runner run --backend gpu`: the simulator's library goes first
//! on the program's library path as `libcuda.so.1`, so the real one is found here, by the
//! loader's cache and the folders drivers are installed in, and handed to it by absolute path.

use anyhow::bail;
use std::path::{Path, PathBuf};

/// Folders NVIDIA's driver is installed in when the loader's cache does not list it (containers
/// mount it under /usr/local/nvidia; CUDA's forward-compatibility package under compat/).
const USUAL_FOLDERS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/local/cuda/compat",
];

/// The real `libcuda.so.1`: `RUNNER_REAL_LIBCUDA` if set, else the first that the loader's cache
/// (`ldconfig -p`) or the usual folders have and that is not the simulator's `own` library.
pub(super) fn find(own: &Path) -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("RUNNER_REAL_LIBCUDA") {
        return Ok(PathBuf::from(path));
    }
    let cache = std::process::Command::new("ldconfig")
        .arg("-p")
        .output()
        .or_else(|_| {
            std::process::Command::new("/sbin/ldconfig")
                .arg("-p")
                .output()
        })
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    let mut candidates = listed_in(&cache);
    candidates.extend(
        USUAL_FOLDERS
            .iter()
            .map(|f| Path::new(f).join("libcuda.so.1")),
    );
    pick(&candidates, own)
}

/// The paths of `libcuda.so.1` in `ldconfig -p`'s listing (`\tlibcuda.so.1 (libc6,x86-64) =>
/// /usr/lib/x86_64-linux-gnu/libcuda.so.1`).
fn listed_in(cache: &str) -> Vec<PathBuf> {
    cache
        .lines()
        .filter(|line| line.trim_start().starts_with("libcuda.so.1 "))
        .filter_map(|line| line.split_once("=>"))
        .map(|(_, path)| PathBuf::from(path.trim()))
        .collect()
}

/// The first candidate that exists and is not the simulator's library (a folder on the library
/// path could hold a link to it).
fn pick(candidates: &[PathBuf], own: &Path) -> anyhow::Result<PathBuf> {
    let own = own.canonicalize().ok();
    let real = candidates
        .iter()
        .find(|p| p.is_file() && p.canonicalize().ok() != own);
    match real {
        Some(path) => Ok(path.clone()),
        None => bail!(
            "no GPU driver found: --backend gpu runs the program on NVIDIA's libcuda.so.1, \
             which neither the loader's cache (ldconfig -p) nor {} has; run it on a machine with \
             a GPU and its driver, set RUNNER_REAL_LIBCUDA to the driver's path, or use \
             --backend sim",
            USUAL_FOLDERS.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loaders_cache_names_the_driver() {
        let cache = "1523 libs found in cache `/etc/ld.so.cache'\n\
                     \tlibcudart.so.12 (libc6,x86-64) => /usr/lib/libcudart.so.12\n\
                     \tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n\
                     \tlibcuda.so (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so\n";
        assert_eq!(
            listed_in(cache),
            [PathBuf::from("/usr/lib/x86_64-linux-gnu/libcuda.so.1")]
        );
    }

    #[test]
    fn the_simulators_own_library_is_passed_over_and_none_left_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("libsimcuda.so");
        std::fs::write(&own, b"").unwrap();
        let link = dir.path().join("libcuda.so.1");
        std::os::unix::fs::symlink(&own, &link).unwrap();
        let missing = dir.path().join("nvidia/libcuda.so.1");
        let err = pick(&[link.clone(), missing], &own)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("no GPU driver found"), "{err}");
        assert!(err.contains("--backend sim"), "{err}");
        let real = dir.path().join("real.so.1");
        std::fs::write(&real, b"").unwrap();
        assert_eq!(pick(&[link, real.clone()], &own).unwrap(), real);
    }
}
