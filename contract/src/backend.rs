//! Where a check ran, as one typed word in every report (never guessed from a sentence).

use serde::{Deserialize, Serialize};

/// Where kernels ran: the simulator, or a real NVIDIA GPU (for a whole program, NVIDIA's driver
/// behind the course's in pass-through mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The PTX simulator on the CPU: no GPU needed, times modelled.
    Sim,
    /// A real GPU: times measured.
    Gpu,
}

impl Backend {
    /// The word a report and the progress file use: `sim` or `gpu`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sim => "sim",
            Backend::Gpu => "gpu",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
