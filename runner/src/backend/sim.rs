//! The simulator backend: runs NVRTC's PTX on the CPU with the `sim` crate, warp by warp, and
//! reports the memory figures and diagnostics that a GPU cannot give.

use super::{Backend, BackendError, DevicePtr, KernelLaunch, LaunchDetails, ModuleId};
use crate::compile::{Image, Target};
use sim::{Diagnostic, DiagnosticKind, Limits, Machine, Module};
use std::time::Duration;

mod watch;

/// The PTX architecture the simulator is given: sm_80's instruction set covers every exercise.
pub const SIM_ARCHITECTURE: u32 = 80;

/// What the simulator runs: PTX for [`SIM_ARCHITECTURE`].
pub const SIM_TARGET: Target = Target::Ptx {
    arch: SIM_ARCHITECTURE,
};

/// Warp instructions per second the simulator runs on one core of a modest machine (about 9
/// million measured on a 2-core CI machine for a warp spinning in a loop): turns an exercise's
/// time limit into an instruction budget, so a hang is caught after about the same wall time,
/// and at exactly the same point on every machine.
pub const WARP_INSTRUCTIONS_PER_SECOND: u64 = 10_000_000;

/// The PTX simulator as a check's device: its machine (memory, figures) and the modules loaded
/// with their PTX text.
#[derive(Default)]
pub struct SimBackend {
    machine: Machine,
    modules: Vec<(Module, String)>,
}

impl SimBackend {
    /// A simulated device with empty memory.
    pub fn new() -> SimBackend {
        SimBackend {
            machine: Machine::new(),
            modules: Vec::new(),
        }
    }
}

/// NVRTC makes a relative program name absolute against the current folder in its line
/// information; the report goes back to the name the runner gave, the file's path in the course.
pub fn relativise_paths(report: &mut sim::LaunchReport) {
    report
        .lines
        .iter_mut()
        .for_each(|l| relative_to_current_dir(&mut l.file));
    report
        .diagnostics
        .iter_mut()
        .filter_map(|d| d.location.as_mut())
        .for_each(|l| relative_to_current_dir(&mut l.file));
}

/// `file` relative to the current folder (the course's, where a check runs) when it is inside
/// it: `exercises/py07_shared_memory/block_sums.py`, as the student knows it.
pub fn relative_to_current_dir(file: &mut String) {
    let Ok(here) = std::env::current_dir() else {
        return;
    };
    if let Ok(rest) = std::path::Path::new(file.as_str()).strip_prefix(&here) {
        *file = rest.display().to_string();
    }
}

/// The simulator's launch for `launch`: its time limit as a budget of warp instructions.
fn sim_launch(launch: &KernelLaunch) -> sim::Launch {
    sim::Launch {
        kernel: launch.kernel.to_string(),
        grid: launch.launch.grid,
        block: launch.launch.block,
        dynamic_shared_bytes: launch.launch.shared_bytes,
        params: launch.params.to_vec(),
        limits: Limits {
            max_warp_instructions: (launch.time_limit.as_secs_f64()
                * WARP_INSTRUCTIONS_PER_SECOND as f64) as u64,
            threads: cpu_threads(),
            max_clock: (launch.time_limit.as_secs_f64() * 1e9) as u64,
            ..Limits::default()
        },
    }
}

/// The initial value of `name` in PTX such as `.visible .const .align 4 .u32 name = 256;`.
/// A variable declared without an initialiser holds zero, as NVRTC leaves out `= 0`.
fn declared_int_in_ptx(ptx: &str, name: &str) -> Option<i32> {
    ptx.lines().find_map(|line| {
        let line = line.trim().trim_end_matches(';');
        let (declaration, value) = line.split_once('=').unwrap_or((line, "0"));
        let mut words = declaration.split_whitespace();
        let is_variable = words.clone().any(|w| w == ".const" || w == ".global");
        let is_int = words.clone().any(|w| matches!(w, ".u32" | ".s32" | ".b32"));
        (is_variable && is_int && words.next_back()? == name)
            .then(|| value.trim().parse::<i64>().ok().map(|v| v as i32))?
    })
}

/// CPU threads the simulator may use for the blocks of a launch: RUNNER_SIM_THREADS, else all
/// cores (0). A grader running several checks at once gives each fewer.
fn cpu_threads() -> usize {
    std::env::var("RUNNER_SIM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A fatal diagnostic as the error that stops the case: a hang as a GPU's time limit would, any
/// other bug as the diagnostic itself, facts and all.
fn fatal_error(diagnostic: &Diagnostic, limit: Duration) -> BackendError {
    match diagnostic.kind {
        DiagnosticKind::Timeout => {
            let [bx, by, bz] = diagnostic.block;
            let [tx, ty, tz] = diagnostic.thread;
            let place = diagnostic
                .location
                .as_ref()
                .map(|l| format!(" at {}:{}", l.file, l.line));
            BackendError::Timeout {
                limit,
                detail: Some(format!(
                    "thread ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}) was still running{}",
                    place.unwrap_or_default()
                )),
            }
        }
        _ => BackendError::Diagnosed(Box::new(diagnostic.clone())),
    }
}

/// One diagnostic in a line: where, which thread, what.
pub fn describe(d: &Diagnostic) -> String {
    let place = d
        .location
        .as_ref()
        .map(|l| format!("{}:{}: ", l.file, l.line))
        .unwrap_or_default();
    let [bx, by, bz] = d.block;
    let [tx, ty, tz] = d.thread;
    format!(
        "{place}{} (block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz}))",
        d.message
    )
}

impl Backend for SimBackend {
    fn kind(&self) -> contract::Backend {
        contract::Backend::Sim
    }

    fn describe(&self) -> String {
        "the simulator (no GPU)".into()
    }

    fn target(&self) -> Target {
        SIM_TARGET
    }

    fn needs_guard_zones(&self) -> bool {
        false
    }

    fn load(&mut self, image: &Image) -> Result<ModuleId, BackendError> {
        let ptx = image.ptx_text().ok_or_else(|| {
            BackendError::Load("the simulator needs PTX, not machine code".into())
        })?;
        let module = Module::parse(ptx).map_err(|e| {
            BackendError::Load(format!("the simulator cannot run this kernel: {e}"))
        })?;
        self.modules.push((module, ptx.to_string()));
        Ok(self.modules.len() - 1)
    }

    fn has_kernel(&mut self, module: ModuleId, name: &str) -> bool {
        // A kernel the simulator could not prepare is there all the same: its launch says why.
        let m = &self.modules[module].0;
        m.kernel(name).is_some() || m.lowering_error(name).is_some()
    }

    fn read_declared_int(&mut self, module: ModuleId, name: &str) -> Option<i32> {
        declared_int_in_ptx(&self.modules[module].1, name)
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, BackendError> {
        self.machine
            .try_alloc(bytes as u64)
            .map_err(|e| BackendError::Device(e.to_string()))
    }

    fn write(&mut self, ptr: DevicePtr, bytes: &[u8]) -> Result<(), BackendError> {
        self.machine
            .write(ptr, bytes)
            .map_err(|e| BackendError::Device(e.to_string()))
    }

    fn read_into(&mut self, ptr: DevicePtr, out: &mut [u8]) -> Result<(), BackendError> {
        let bytes = self
            .machine
            .read(ptr, out.len() as u64)
            .map_err(|e| BackendError::Device(e.to_string()))?;
        out.copy_from_slice(&bytes);
        Ok(())
    }

    fn free(&mut self, ptr: DevicePtr) {
        self.machine.free(ptr);
    }

    fn launch(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
    ) -> Result<LaunchDetails, BackendError> {
        let sim_launch = sim_launch(launch);
        let mut report = self
            .machine
            .launch(&self.modules[module].0, &sim_launch)
            .map_err(|e| match e {
                sim::SimError::InvalidLaunch(why) => BackendError::InvalidLaunch(format!(
                    "the launch {} was refused, as a GPU would refuse it: {why}",
                    launch.launch
                )),
                e @ sim::SimError::TooManyResources { .. } => {
                    BackendError::InvalidLaunch(e.to_string())
                }
                e @ sim::SimError::KernelNotLowered { .. } => BackendError::Load(e.to_string()),
                e => BackendError::Fault(format!("the simulator stopped: {e}")),
            })?;
        relativise_paths(&mut report);
        if report.aborted {
            let first_fatal = report.diagnostics.iter().find(|d| d.kind.is_fatal());
            if let Some(diagnostic) = first_fatal.or(report.diagnostics.first()) {
                return Err(fatal_error(diagnostic, launch.time_limit));
            }
            return Err(BackendError::Fault(
                "the simulator stopped the kernel".into(),
            ));
        }
        Ok(Some(report))
    }

    fn launch_watched(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
        watch: &sim::Watch,
    ) -> Result<Option<sim::Watched>, BackendError> {
        watch::launch(self, module, launch, watch).map(Some)
    }

    fn time(
        &mut self,
        _: ModuleId,
        _: &KernelLaunch,
        _: usize,
    ) -> Result<Option<Duration>, BackendError> {
        Ok(None)
    }

    fn copy_bandwidth(&mut self) -> Result<Option<f64>, BackendError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::declared_int_in_ptx;

    #[test]
    fn declared_constants_are_read_from_ptx() {
        let ptx = ".visible .const .align 4 .u32 threads_per_block = 128;\n.visible .global .align 4 .b32 blocks = 40;\n";
        assert_eq!(declared_int_in_ptx(ptx, "threads_per_block"), Some(128));
        assert_eq!(declared_int_in_ptx(ptx, "blocks"), Some(40));
        assert_eq!(declared_int_in_ptx(ptx, "missing"), None);
        let zero = ".visible .const .align 4 .u32 threads_per_block;\n";
        assert_eq!(declared_int_in_ptx(zero, "threads_per_block"), Some(0));
    }
}
