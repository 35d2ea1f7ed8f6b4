//! `-lineinfo` added to a compile's options where they ask for no line information.

use std::ffi::{CStr, CString};

/// Options that already give line tables (`-G` gives full debug information, lines included).
const GIVE_LINES: [&str; 4] = ["-lineinfo", "--generate-line-info", "-G", "--device-debug"];

/// Whether `options` already ask NVRTC for line information.
pub fn asks_for_lines(options: &[&CStr]) -> bool {
    options
        .iter()
        .any(|o| GIVE_LINES.iter().any(|g| o.to_bytes() == g.as_bytes()))
}

/// The option to add where [`asks_for_lines`] is false.
pub fn line_option() -> CString {
    CString::from(c"-lineinfo")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_compile_without_line_information_gets_it() {
        assert!(!asks_for_lines(&[]));
        assert!(!asks_for_lines(&[
            c"--gpu-architecture=compute_90",
            c"-lineinfo-x"
        ]));
        assert!(asks_for_lines(&[c"-arch=compute_80", c"-lineinfo"]));
        assert!(asks_for_lines(&[c"--generate-line-info"]));
        assert!(asks_for_lines(&[c"-G"]));
    }
}
