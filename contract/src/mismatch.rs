//! An output that differs from the CPU reference, element by element: written by the checks'
//! comparison, carried in a kernel's report.

use serde::{Deserialize, Serialize};

/// An output that differs from the reference.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mismatch {
    /// The output's name, as the check calls its buffer.
    pub buffer: String,
    /// Its length in elements.
    pub len: usize,
    /// How many elements are wrong (never written ones included).
    pub wrong: usize,
    /// How many still hold the poison the output was filled with before the launch.
    pub never_written: usize,
    /// The first few wrong elements, in order.
    pub first_wrong: Vec<WrongElement>,
    /// The likely mistake, when the pattern of wrong elements tells.
    pub likely_cause: Option<String>,
    /// The buffer holds exactly what it held before the launch: the kernel did nothing to it.
    pub unchanged: bool,
}

/// One wrong element.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WrongElement {
    /// Its index in the output.
    pub index: usize,
    /// (row, col) for a 2D output.
    pub at: Option<[usize; 2]>,
    /// What the reference computed, as the student reads it.
    pub expected: String,
    /// What the kernel left there.
    pub actual: String,
    /// The inputs that produced this element, when the exercise can tell.
    pub inputs: Option<String>,
    /// Which thread and line stored this value, beside what the reference solution stored there:
    /// traced in the simulator after the comparison (`runner::checker::provenance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<sim::ElementOrigin>,
}

impl WrongElement {
    /// Where the element is, as a student reads it: (row, col) in a 2D output, else its index.
    pub fn position(&self) -> String {
        match self.at {
            Some([row, col]) => format!("({row}, {col})"),
            None => self.index.to_string(),
        }
    }
}
