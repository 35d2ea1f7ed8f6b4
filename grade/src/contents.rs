//! What a submission held besides its exercises' files, as far as it was looked at: the archive
//! reader and the kernel lookup both collect it, and a cell says it where nothing was handed in.

use std::path::Path;

/// The files of a submission that are no exercise's, as far as they were looked at: the first
/// few by path, and how many in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Contents {
    pub first: Vec<String>,
    pub count: usize,
}

impl Contents {
    /// How many paths `first` keeps.
    const SHOWN: usize = 5;

    pub(crate) fn add(&mut self, path: &Path) {
        self.count += 1;
        if self.first.len() < Self::SHOWN {
            self.first.push(path.display().to_string());
        }
    }

    /// "holds no file", "holds 1 file, report.pdf", "holds 7 files (a.txt, b.txt, ...)".
    pub(crate) fn describe(&self) -> String {
        let listed = self.first.join(", ");
        match self.count {
            0 => "holds no file".into(),
            1 => format!("holds 1 file, {listed}, and it is no exercise's"),
            n if n <= self.first.len() => format!("holds {n} files ({listed}), none an exercise's"),
            n => format!("holds {n} files ({listed}, ...), none an exercise's"),
        }
    }
}
