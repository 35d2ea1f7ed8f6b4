//! The runner's child processes (a check's, a program's): what they printed, read back.

use std::io::Read;
use std::path::Path;

/// The last `cap` bytes of a file, as text. A check's stdout is read so: the report is printed
/// last, after anything a kernel printed straight to stdout (a GPU's printf), so a flood is cut
/// from the front. (A host program's output is read the same way, for its errors come last.)
pub fn read_tail(path: &Path, cap: u64) -> String {
    use std::io::{Seek, SeekFrom};
    let mut bytes = Vec::new();
    if let Ok(mut file) = std::fs::File::open(path) {
        let len = file.metadata().map_or(0, |m| m.len());
        let _ = file.seek(SeekFrom::Start(len.saturating_sub(cap)));
        let _ = file.take(cap).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_the_last_bytes_and_a_short_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        std::fs::write(&path, "printf flood\n{report}").unwrap();
        assert_eq!(read_tail(&path, 8), "{report}");
        assert_eq!(read_tail(&path, 1000), "printf flood\n{report}");
        assert_eq!(read_tail(&dir.path().join("none"), 8), "");
    }
}
