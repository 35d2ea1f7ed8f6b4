//! A bug the simulator found, as facts: what, where in the source, which thread, which buffer
//! and element. The sentence a student reads is rendered from these once, by the checker; no
//! reader downstream edits or searches it for a fact.

use crate::Verdict;
use serde::{Deserialize, Serialize};

/// A place in the student's source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The file as the student knows it (`exercises/07_racy_counter/counter.cu`).
    pub file: String,
    /// 1-based.
    pub line: u32,
}

/// One bug found in one case (or one run of a program).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The verdict this bug gives the check.
    pub verdict: Verdict,
    /// The case it was found in.
    pub case: String,
    /// What the simulator saw.
    pub kind: sim::DiagnosticKind,
    /// The source line of the access or instruction, where the PTX has line information.
    #[serde(default)]
    pub place: Option<Place>,
    /// The array it touched, by the name the check gives its buffer (a race on global memory
    /// through a kernel argument).
    #[serde(default)]
    pub buffer: Option<String>,
    /// The element of that array (or of the `__device__` variable), in elements of the access.
    #[serde(default)]
    pub element: Option<u64>,
    /// The thread that made the access, within its block.
    pub thread: [u32; 3],
    /// Its block.
    pub block: [u32; 3],
    /// Where, which thread, what, and what to do: rendered from the facts above.
    pub text: String,
}
