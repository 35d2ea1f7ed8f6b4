//! A position in the CUDA source: the one type every layer, from parsing to the report, uses to
//! say where something is, so it sits below them all.

use serde::{Deserialize, Serialize};

/// A position in the CUDA source, from the PTX `.loc` and `.file` directives. `file` is the name
/// NVRTC was given for the program (possibly with a directory prefix).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SourceLocation {
    /// The source file's name, as NVRTC was given it.
    pub file: String,
    /// Line in that file, from 1.
    pub line: u32,
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
