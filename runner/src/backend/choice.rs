//! What the user asks for with `--backend` (or `RUNNER_BACKEND`): a GPU, the simulator, or, left
//! out, the GPU when one works.

use clap::ValueEnum;

/// Where the user wants kernels to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// A real NVIDIA GPU.
    Gpu,
    /// The PTX simulator: no GPU needed, and it measures coalescing and bank conflicts.
    Sim,
}

/// `--backend`, as every verb that runs kernels takes it.
#[derive(clap::Args, Clone)]
pub struct BackendArgs {
    /// Where kernels run; by default the GPU when one works, else the simulator.
    #[arg(long, value_enum, env = "RUNNER_BACKEND")]
    pub backend: Option<BackendChoice>,
}
