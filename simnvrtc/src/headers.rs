//! CUDA's own headers (`cuda_fp16.h`, `cooperative_groups.h`, CCCL) made reachable to a
//! program's compiles, as a toolkit's NVRTC finds them beside it.
//!
//! NVRTC carries none of these headers: on a GPU machine a program passes the toolkit's
//! `include/` (or NVRTC finds it beside itself), and under the runner there is no toolkit, only
//! the course's copy (`.nvrtc/headers/`). The runner lists the folders it compiles kernel
//! exercises with (`SIMNVRTC_INCLUDE`, separated as `PATH` is); they go after the program's own
//! options, so a folder the program names itself is searched first and its header wins.

use std::ffi::{CString, OsStr};

/// The variable that lists the folders.
pub const INCLUDE_VARIABLE: &str = "SIMNVRTC_INCLUDE";

/// `--include-path=DIR` for each folder `SIMNVRTC_INCLUDE` lists (none where it is unset); a
/// folder whose name cannot be an option (a NUL byte, not UTF-8) is left out.
pub fn include_options() -> Vec<CString> {
    std::env::var_os(INCLUDE_VARIABLE)
        .map(|list| options_for(&list))
        .unwrap_or_default()
}

/// `--include-path=DIR` for each folder of `list`.
fn options_for(list: &OsStr) -> Vec<CString> {
    std::env::split_paths(list)
        .filter(|dir| !dir.as_os_str().is_empty())
        .filter_map(|dir| {
            let dir = dir.to_str()?.to_owned();
            CString::new(format!("--include-path={dir}")).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_listed_folder_becomes_an_include_path() {
        assert!(options_for(OsStr::new("")).is_empty());
        let list = std::env::join_paths(["/course/.nvrtc/a", "/course/.nvrtc/b"]).unwrap();
        assert_eq!(
            options_for(&list),
            vec![
                CString::from(c"--include-path=/course/.nvrtc/a"),
                CString::from(c"--include-path=/course/.nvrtc/b"),
            ]
        );
    }
}
