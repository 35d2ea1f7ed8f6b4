//! A kernel source found in one of the program's files, named by that file and the line it
//! starts on: `#line 40 "/home/me/25/src/main.rs"` put before it, so NVRTC's line tables (and
//! its error messages) name the student's file and line rather than `default_program`.
//!
//! The runner lists the files (`SIMNVRTC_SOURCES`, separated as `PATH` is): the program's
//! `main.rs` and the kernel files beside it. A source that is a whole file (`include_str!`)
//! starts at its line 1; one written in a raw string of `main.rs` starts on the string's line.
//! A source built at run time (`format!`) is in no file and is left as it is.

use std::path::{Path, PathBuf};

/// The variable that lists the program's files.
pub const SOURCES_VARIABLE: &str = "SIMNVRTC_SOURCES";

/// The files `SIMNVRTC_SOURCES` lists (none where it is unset).
pub fn listed_files() -> Vec<PathBuf> {
    std::env::var_os(SOURCES_VARIABLE)
        .map(|list| std::env::split_paths(&list).collect())
        .unwrap_or_default()
}

/// `source` with a `#line` directive naming the first of `files` that holds it and the line it
/// starts on; None where no file holds it (or the file's name cannot be written in a directive).
pub fn placed(source: &str, files: &[PathBuf]) -> Option<String> {
    if source.trim().is_empty() {
        return None;
    }
    files.iter().find_map(|file| {
        let text = std::fs::read_to_string(file).ok()?;
        let at = text.find(source)?;
        let line = text[..at].matches('\n').count() + 1;
        Some(format!("{}{source}", directive(file, line)?))
    })
}

/// `#line LINE "FILE"` and its newline; None for a name a directive cannot hold as it is.
fn directive(file: &Path, line: usize) -> Option<String> {
    let name = file.to_str()?;
    if name.contains(['"', '\\', '\n']) {
        return None;
    }
    Some(format!("#line {line} \"{name}\"\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str =
        "extern \"C\" __global__ void k(float *y) {\n    y[threadIdx.x] = 1.0f;\n}\n";

    #[test]
    fn a_whole_file_starts_at_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let cu = dir.path().join("saxpy.cu");
        std::fs::write(&cu, KERNEL).unwrap();
        let placed = placed(KERNEL, std::slice::from_ref(&cu)).unwrap();
        assert_eq!(placed, format!("#line 1 \"{}\"\n{KERNEL}", cu.display()));
    }

    #[test]
    fn a_raw_string_in_main_starts_on_the_string_line() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main.rs");
        let rust = format!("fn main() {{}}\n\nconst SRC: &str = r#\"\n{KERNEL}\"#;\n");
        std::fs::write(&main, &rust).unwrap();
        // cudarc is handed the string from just after `r#"`: a newline, then the kernel.
        let source = format!("\n{KERNEL}");
        let placed = placed(&source, &[dir.path().join("absent.cu"), main.clone()]).unwrap();
        assert!(placed.starts_with(&format!("#line 3 \"{}\"\n\n", main.display())));
        // Line 3 is the string's; the kernel's first line, after its newline, is line 4 of main.rs.
        assert_eq!(rust.lines().nth(3), KERNEL.lines().next());
    }

    #[test]
    fn a_source_in_no_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let cu = dir.path().join("other.cu");
        std::fs::write(&cu, "__global__ void other() {}\n").unwrap();
        assert_eq!(placed(KERNEL, &[cu]), None);
        assert_eq!(placed("", &[]), None);
    }

    #[test]
    fn a_name_a_directive_cannot_hold_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let cu = dir.path().join("odd\"name.cu");
        std::fs::write(&cu, KERNEL).unwrap();
        assert_eq!(placed(KERNEL, &[cu]), None);
    }
}
