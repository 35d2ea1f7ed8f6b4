//! What a check needs from a device, as one trait with two implementations: `cuda` (a real GPU,
//! through cudarc; the only module with unsafe launch code) and `sim` (the PTX simulator).

mod choice;
pub mod cuda;
pub mod sim;

pub use choice::{backend_parser, BackendArgs, BackendChoice};

use crate::compile::{Image, Target};
use std::time::Duration;

/// A device address, as the backend hands it out (a GPU's pointer, or the simulator's).
pub type DevicePtr = u64;
/// A loaded module, numbered by the backend that loaded it.
pub type ModuleId = usize;

/// One launch of a kernel: name, shape, raw parameter bytes in parameter order.
pub struct KernelLaunch<'a> {
    /// The kernel's name, as the module declares it.
    pub kernel: &'a str,
    /// Grid and block shape, and dynamic shared memory.
    pub launch: checks::Launch,
    /// Each parameter's bytes, as the kernel's parameter list lays them out.
    pub params: &'a [Vec<u8>],
    /// The exercise's limit for one launch: past it the kernel is stopped as a hang.
    pub time_limit: Duration,
}

/// What the simulator learnt during a launch; a GPU has nothing to add here.
pub type LaunchDetails = Option<::sim::LaunchReport>;

/// Why a backend could not do what a check asked; the checker turns each into a case's verdict
/// and sentence (checker::verdict).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The module has no kernel of that name.
    #[error("the module has no kernel called `{0}`")]
    MissingKernel(String),
    /// On a GPU: an illegal-address fault, or the guard zones around a buffer found a write past
    /// it (the simulator reports `Diagnosed` instead).
    #[error("{0}")]
    OutOfBounds(String),
    #[error(
        "the kernel was still running after {}, the exercise's time limit, and was stopped{}. \
         Look for a loop that never ends: a counter that does not advance, or a condition no thread can make false",
        describe_limit(*.limit),
        .detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )]
    /// The kernel ran past its time limit and was stopped.
    Timeout {
        /// The limit it ran past.
        limit: Duration,
        /// What the simulator saw of where it spun, where it can say.
        detail: Option<String>,
    },
    /// The simulator stopped the kernel at a bug: its diagnostic, whose facts (the array an
    /// access left, its element, the lanes) the checker renders in the case's own names.
    #[error("{}", sim::describe(.0))]
    Diagnosed(Box<::sim::Diagnostic>),
    /// The GPU stopped the kernel at a fault named by the diagnostic's kind it equals (a
    /// misaligned address). The checker gives it its verdict.
    #[error("{text}")]
    Stopped {
        /// The kind of bug the GPU's fault equals.
        kind: ::sim::DiagnosticKind,
        /// The fault in words, for the failing case.
        text: String,
    },
    /// The launch's shape is one no GPU takes (block too large, too much shared memory).
    #[error("{0}")]
    InvalidLaunch(String),
    /// The kernel failed in a way no rule names (a trap, an unknown fault): the backend's words.
    #[error("{0}")]
    Fault(String),
    /// The module could not be loaded (the backend's words).
    #[error("{0}")]
    Load(String),
    /// The device refused an allocation or a copy, or failed itself (no memory, a lost context):
    /// the backend's words.
    #[error("{0}")]
    Device(String),
}

fn describe_limit(limit: Duration) -> String {
    format!("{:.1} s", limit.as_secs_f64())
}

/// What a check needs from a device: modules, memory, launches. Implemented by a GPU
/// (`cuda`) and by the simulator (`sim`).
pub trait Backend {
    /// "gpu" or "sim", as in `--backend`.
    fn kind(&self) -> contract::Backend;
    /// The device in words, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
    fn describe(&self) -> String;
    /// What the compiler should make for this backend.
    fn target(&self) -> Target;
    /// Whether buffers need guard zones to catch out-of-bounds writes; the simulator checks every
    /// access itself.
    fn needs_guard_zones(&self) -> bool;
    /// Loads a compiled module (PTX or cubin) for launches.
    fn load(&mut self, image: &Image) -> Result<ModuleId, BackendError>;
    /// Whether the module has a kernel called `name`.
    fn has_kernel(&mut self, module: ModuleId, name: &str) -> bool;
    /// The value of a module-level `extern "C" __constant__ int`, or None when there is none.
    fn read_declared_int(&mut self, module: ModuleId, name: &str) -> Option<i32>;
    /// Allocates `bytes` of device memory.
    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, BackendError>;
    /// Copies `bytes` to the device at `ptr`.
    fn write(&mut self, ptr: DevicePtr, bytes: &[u8]) -> Result<(), BackendError>;
    /// Copies `out.len()` bytes from the device at `ptr` into `out`.
    fn read_into(&mut self, ptr: DevicePtr, out: &mut [u8]) -> Result<(), BackendError>;
    /// Copies `len` bytes from the device at `ptr`.
    fn read(&mut self, ptr: DevicePtr, len: usize) -> Result<Vec<u8>, BackendError> {
        let mut bytes = vec![0u8; len];
        self.read_into(ptr, &mut bytes)?;
        Ok(bytes)
    }
    /// Frees an allocation made by `alloc`.
    fn free(&mut self, ptr: DevicePtr);
    /// Runs one launch to its end; the simulator hands back what it learnt.
    fn launch(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
    ) -> Result<LaunchDetails, BackendError>;
    /// Runs a launch recording every store to `watch`'s elements and every step of its threads,
    /// to say where wrong outputs came from; None where the backend cannot (a GPU).
    fn launch_watched(
        &mut self,
        _module: ModuleId,
        _launch: &KernelLaunch,
        _watch: &::sim::Watch,
    ) -> Result<Option<::sim::Watched>, BackendError> {
        Ok(None)
    }
    /// Median kernel time over `repeats` timed launches after warm-up; None where timing means
    /// nothing (the simulator).
    fn time(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
        repeats: usize,
    ) -> Result<Option<Duration>, BackendError>;
    /// The device's own copy bandwidth in bytes per second (read + write), the ceiling that
    /// effective bandwidth is measured against; None in the simulator.
    fn copy_bandwidth(&mut self) -> Result<Option<f64>, BackendError>;
    /// Median time of cuBLAS SGEMM on an (m, n, k) shape: the ceiling for matrix multiply. None
    /// where there is no cuBLAS.
    fn sgemm_time(
        &mut self,
        _shape: [usize; 3],
        _repeats: usize,
    ) -> Result<Option<Duration>, BackendError> {
        Ok(None)
    }
}
