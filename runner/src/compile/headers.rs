//! CUDA's own headers (`cuda_fp16.h`, `cooperative_groups.h`, CCCL's `cuda/std`, `cub` and
//! `thrust`), which NVRTC does not carry: the include folders that go with the NVRTC in use, what
//! stands for their content in the compile cache's key, and the advice when one is missing.
//!
//! Where they come from, best first: the CUDA toolkit the NVRTC was loaded from (its `include/`,
//! the same release as the compiler), else the course's copy of NVIDIA's PyPI wheels in
//! `.nvrtc/headers/` (`scripts/install-nvrtc`, the CUDA release of the course's NVRTC).

use super::nvrtc::INSTALL_COMMAND;
use std::path::{Path, PathBuf};

/// Where `scripts/install-cuda-headers` puts the wheels, relative to the course root.
pub const COURSE_HEADERS_DIR: &str = ".nvrtc/headers";

/// The include folders inside the course's copy, one per wheel.
const WHEEL_INCLUDE_DIRS: [&str; 2] = ["nvidia/cuda_runtime/include", "nvidia/cuda_cccl/include"];

/// One installed set of CUDA headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaHeaders {
    /// Passed to NVRTC after the user's own folders, so that a user's header of the same name wins.
    pub dirs: Vec<PathBuf>,
    /// Names the installed release, for the cache key. The key counts this rather than the bytes
    /// of every header a compile reads: `cooperative_groups.h` or CCCL pull in hundreds of files,
    /// which no one edits; these folders change only when another release is installed, and that
    /// changes this.
    pub version: String,
}

impl CudaHeaders {
    /// The headers for the NVRTC at `nvrtc_path`: its toolkit's, else the course's copy (found
    /// from `course_root`, or beside an NVRTC that is the course's own).
    pub fn find(nvrtc_path: &str, course_root: Option<&Path>) -> Option<CudaHeaders> {
        let nvrtc = Path::new(nvrtc_path);
        if let Some(toolkit) = toolkit_headers(nvrtc) {
            return Some(toolkit);
        }
        let beside_nvrtc = nvrtc
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == ".nvrtc"))
            .map(|nvrtc_dir| nvrtc_dir.join("headers"));
        course_root
            .map(|root| root.join(COURSE_HEADERS_DIR))
            .into_iter()
            .chain(beside_nvrtc)
            .find_map(|dir| wheel_headers(&dir))
    }

    /// `--include-path` options for NVRTC.
    pub fn options(&self) -> Vec<String> {
        self.dirs
            .iter()
            .map(|d| format!("--include-path={}", d.display()))
            .collect()
    }
}

/// A toolkit keeps its headers in `include/` beside the library folder NVRTC is in (`lib64/`, or
/// `targets/x86_64-linux/lib/`), and from CUDA 13 CCCL in `include/cccl/`.
fn toolkit_headers(nvrtc: &Path) -> Option<CudaHeaders> {
    let include = nvrtc.parent()?.parent()?.join("include");
    if !include.join("cuda_fp16.h").is_file() {
        return None;
    }
    let version = include
        .ancestors()
        .skip(1)
        .take(3)
        .map(|dir| dir.join("version.json"))
        .find_map(|file| std::fs::read_to_string(file).ok())
        .unwrap_or_else(|| listing_of(&include));
    let cccl = include.join("cccl");
    let mut dirs = vec![include];
    if cccl.is_dir() {
        dirs.push(cccl);
    }
    Some(CudaHeaders { dirs, version })
}

/// The course's copy: its VERSION file names the wheels and their versions.
fn wheel_headers(dir: &Path) -> Option<CudaHeaders> {
    let version = std::fs::read_to_string(dir.join("VERSION")).ok()?;
    let dirs: Vec<PathBuf> = WHEEL_INCLUDE_DIRS
        .iter()
        .map(|d| dir.join(d))
        .filter(|d| d.is_dir())
        .collect();
    if dirs.is_empty() {
        return None;
    }
    Some(CudaHeaders {
        dirs,
        version: format!("{}: {}", dir.display(), version.trim()),
    })
}

/// For a toolkit without `version.json`: the names, sizes and times of its top-level headers,
/// which any update of the toolkit changes.
fn listing_of(include: &Path) -> String {
    let mut entries: Vec<String> = std::fs::read_dir(include)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| {
            let meta = entry.metadata().ok();
            let modified = meta.as_ref().and_then(|m| m.modified().ok());
            let size = meta.map(|m| m.len());
            format!("{:?} {size:?} {modified:?}", entry.file_name())
        })
        .collect();
    entries.sort();
    format!("{}\n{}", include.display(), entries.join("\n"))
}

/// What to do when NVRTC's `log` says it could not open one of CUDA's own headers; `None` when
/// the missing file is not one (the user's own header: `-I` is the remedy).
pub fn missing_header_advice(log: &str, installed: Option<&CudaHeaders>) -> Option<String> {
    let name = log.lines().find_map(|line| {
        let rest = line
            .split_once("could not open source file \"")
            .or_else(|| line.split_once("cannot open source file \""))?
            .1;
        rest.split_once('"').map(|(name, _)| name)
    })?;
    if !is_cuda_header(name) {
        return None;
    }
    Some(match installed {
        None => format!(
            "`{name}` is one of CUDA's own headers, and none were found: install them with \
             `{INSTALL_COMMAND}` (from PyPI, no GPU needed; the runner then finds them in \
             {COURSE_HEADERS_DIR}/), or use a CUDA toolkit's NVRTC.\n"
        ),
        Some(headers) => format!(
            "`{name}` is not among the CUDA headers found in {}: the course installs the CUDA \
             runtime's headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, ...) and CCCL's \
             (cuda/std, cub, thrust). For a library's header, add its folder with -I.\n",
            headers
                .dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// Names of the headers that come with CUDA rather than with a course or a student.
fn is_cuda_header(name: &str) -> bool {
    const PREFIXES: [&str; 13] = [
        "cuda",
        "cooperative_groups",
        "cub/",
        "thrust/",
        "nv/",
        "crt/",
        "mma.h",
        "sm_",
        "device_",
        "vector_",
        "math_constants.h",
        "curand",
        "texture_",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_toolkit_of_the_nvrtc_comes_before_the_course_copy() {
        let dir = tempfile::tempdir().unwrap();
        let course = dir.path().join("course");
        touch(
            &course.join(".nvrtc/headers/nvidia/cuda_runtime/include/cuda_fp16.h"),
            "",
        );
        touch(&course.join(".nvrtc/headers/VERSION"), "wheels 1\n");
        let toolkit = dir.path().join("cuda");
        touch(&toolkit.join("include/cuda_fp16.h"), "");
        touch(&toolkit.join("version.json"), "{\"cuda\": \"12.4\"}");
        let from_toolkit = CudaHeaders::find(
            &toolkit.join("lib64/libnvrtc.so").display().to_string(),
            Some(&course),
        )
        .unwrap();
        assert_eq!(from_toolkit.dirs, [toolkit.join("include")]);
        assert!(from_toolkit.version.contains("12.4"));

        let wheel = course.join(".nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
        for root in [Some(course.as_path()), None] {
            let found = CudaHeaders::find(&wheel.display().to_string(), root).unwrap();
            assert_eq!(
                found.dirs,
                [course.join(".nvrtc/headers/nvidia/cuda_runtime/include")]
            );
            assert!(found.version.ends_with("wheels 1"), "{}", found.version);
        }
        assert_eq!(CudaHeaders::find("libnvrtc.so.12", None), None);
    }

    #[test]
    fn a_missing_cuda_header_names_the_install_script_and_a_users_header_does_not() {
        let log = "k.cu(1): catastrophic error: could not open source file \"cuda_fp16.h\" \
                   (no directories in search list)\n";
        let advice = missing_header_advice(log, None).unwrap();
        assert!(advice.contains(INSTALL_COMMAND), "{advice}");
        let installed = CudaHeaders {
            dirs: vec![PathBuf::from("/h")],
            version: String::new(),
        };
        let nested = "info.h(50): catastrophic error: cannot open source file \"nv/target\"\n";
        let advice = missing_header_advice(nested, Some(&installed)).unwrap();
        assert!(
            advice.contains("not among") && advice.contains("/h"),
            "{advice}"
        );
        let own = "k.cu(1): catastrophic error: could not open source file \"mine.h\"\n";
        assert_eq!(missing_header_advice(own, None), None);
    }
}
