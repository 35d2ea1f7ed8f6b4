//! Where a check ran, as one typed word in every report (never guessed from a sentence), and the
//! only words the course says about it.

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
    /// Both, in the order a command line lists them.
    pub const ALL: [Backend; 2] = [Backend::Sim, Backend::Gpu];

    /// The word a report, the progress file and `--backend` use: `sim` or `gpu`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sim => "sim",
            Backend::Gpu => "gpu",
        }
    }

    /// Where work ran, as the end of a sentence ("Graded 3 submissions ... in 2.0 s, in the
    /// simulator (no GPU)."): `device` is the GPU's name in words, which the simulator's phrase
    /// leaves out. The grader's summary, its Gradescope results and its HTML report say the same.
    pub fn where_it_ran(self, device: &str) -> String {
        match self {
            Backend::Sim => "in the simulator (no GPU)".to_string(),
            Backend::Gpu => format!("on {device}"),
        }
    }

    /// What a whole program's CUDA calls went to, as a program's report names its device.
    pub fn program_driver(self) -> &'static str {
        match self {
            Backend::Sim => "the simulator's CUDA driver",
            Backend::Gpu => "the GPU, through NVIDIA's CUDA driver (times measured)",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A word that names no backend, with what was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBackend(pub String);

impl std::fmt::Display for UnknownBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no backend is called `{}`: give sim or gpu", self.0)
    }
}

impl std::error::Error for UnknownBackend {}

impl std::str::FromStr for Backend {
    type Err = UnknownBackend;

    /// Reads the word `name` prints back, so a backend passed to a child process comes back the same.
    fn from_str(word: &str) -> Result<Backend, UnknownBackend> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == word)
            .ok_or_else(|| UnknownBackend(word.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_reads_back_the_word_it_prints() {
        for backend in Backend::ALL {
            assert_eq!(backend.name().parse::<Backend>(), Ok(backend));
            assert_eq!(
                serde_json::to_string(&backend).unwrap(),
                format!("\"{backend}\"")
            );
        }
        let wrong = "cuda".parse::<Backend>().unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "no backend is called `cuda`: give sim or gpu"
        );
    }

    #[test]
    fn the_simulator_is_named_without_a_device_and_a_gpu_by_its_device() {
        assert_eq!(
            Backend::Sim.where_it_ran("NVIDIA H100"),
            "in the simulator (no GPU)"
        );
        assert_eq!(Backend::Gpu.where_it_ran("NVIDIA H100"), "on NVIDIA H100");
    }
}
