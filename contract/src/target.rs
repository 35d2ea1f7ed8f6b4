//! A goal an exercise sets on its figures, and how a check did against it: one type for kernels
//! and whole programs alike.

use serde::{Deserialize, Serialize};

/// A goal on a check's figures (sectors per request, bank conflicts, copies, a time against the
/// reference solution's), with the figure measured and whether it was met.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// What is measured: the exercise's key for a kernel's target (`max_sectors_per_request`),
    /// a phrase for a program's (`copies back to the host in one run`).
    pub name: String,
    /// The bound in words: `at most 4.0`, `at least 60%`.
    #[serde(default)]
    pub wanted: String,
    /// The figure measured, in words; for a program it may name the line that costs most, or
    /// say why the figure was not measured.
    #[serde(default)]
    pub got: String,
    /// The bound as a number.
    #[serde(default)]
    pub limit: f64,
    /// The figure as a number; none where it was not measured (a simulator figure of a kernel
    /// that ran on a GPU).
    #[serde(default)]
    pub actual: Option<f64>,
    /// Whether the figure is within the bound.
    pub met: bool,
    /// Whether a miss fails the check. A time the simulator modelled decides only where the
    /// model was validated on a GPU for the exercise; elsewhere it is shown beside the exact
    /// figures (sectors, wavefronts, the launch), which judge the technique.
    #[serde(default = "decides_by_default")]
    pub decides: bool,
    /// A sentence for the student: the figure against the bound and what it means (a kernel's),
    /// or what a miss usually means (a program's).
    #[serde(default)]
    pub explanation: String,
}

fn decides_by_default() -> bool {
    true
}

impl Target {
    /// A target that was missed and decides: the check's verdict is `targets_missed`.
    pub fn missed(&self) -> bool {
        self.decides && !self.met
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_decides_unless_it_says_otherwise_and_only_a_deciding_miss_is_missed() {
        let read: Target = serde_json::from_value(serde_json::json!({
            "name": "max_bank_conflicts", "limit": 0.0, "actual": 31.0, "met": false,
            "explanation": "shared memory has 31 bank conflicts"
        }))
        .unwrap();
        assert!(read.decides && read.missed());
        let shown = Target {
            decides: false,
            ..read.clone()
        };
        assert!(!shown.missed());
        let met = Target { met: true, ..read };
        assert!(!met.missed());
    }
}
