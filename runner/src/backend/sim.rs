//! The simulator backend: runs NVRTC's PTX on the CPU with the `sim` crate, warp by warp, and
//! reports the memory figures and diagnostics that a GPU cannot give.

use super::{Backend, BackendError, DevicePtr, KernelLaunch, LaunchDetails, ModuleId};
use crate::compile::{Image, Target};
use sim::{Diagnostic, DiagnosticKind, Limits, Machine, Module};
use std::time::Duration;

/// The PTX architecture the simulator is given: sm_80's instruction set covers every exercise.
pub const SIM_ARCHITECTURE: u32 = 80;

/// Warp instructions per second the simulator runs, at least, on a slow machine: turns an
/// exercise's time limit into an instruction budget, so a hang is caught at the same point on
/// every machine.
const WARP_INSTRUCTIONS_PER_SECOND: u64 = 50_000_000;

#[derive(Default)]
pub struct SimBackend {
    machine: Machine,
    modules: Vec<Module>,
}

impl SimBackend {
    pub fn new() -> SimBackend {
        SimBackend { machine: Machine::new(), modules: Vec::new() }
    }
}

/// A fatal diagnostic as the error a GPU would have raised, with the simulator's better detail.
fn fatal_error(diagnostic: &Diagnostic, limit: Duration) -> BackendError {
    let text = describe(diagnostic);
    match diagnostic.kind {
        DiagnosticKind::OutOfBounds => BackendError::OutOfBounds(text),
        DiagnosticKind::Timeout => BackendError::Timeout { limit, detail: Some(text) },
        _ => BackendError::Fault(text),
    }
}

/// One diagnostic in a line: where, which thread, what.
pub fn describe(d: &Diagnostic) -> String {
    let place = d.location.as_ref().map(|l| format!("{}:{}: ", l.file, l.line)).unwrap_or_default();
    let [bx, by, bz] = d.block;
    let [tx, ty, tz] = d.thread;
    format!("{place}{} (block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz}))", d.message)
}

impl Backend for SimBackend {
    fn kind(&self) -> &'static str {
        "sim"
    }

    fn describe(&self) -> String {
        "the simulator (no GPU)".into()
    }

    fn target(&self) -> Target {
        Target::Ptx { arch: SIM_ARCHITECTURE }
    }

    fn needs_guard_zones(&self) -> bool {
        false
    }

    fn load(&mut self, image: &Image) -> Result<ModuleId, BackendError> {
        let ptx = image.ptx_text().ok_or_else(|| BackendError::Load("the simulator needs PTX, not machine code".into()))?;
        let module = Module::parse(ptx).map_err(|e| BackendError::Load(format!("the simulator cannot run this kernel: {e}")))?;
        self.modules.push(module);
        Ok(self.modules.len() - 1)
    }

    fn has_kernel(&mut self, module: ModuleId, name: &str) -> bool {
        self.modules[module].kernel(name).is_some()
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, BackendError> {
        Ok(self.machine.alloc(bytes as u64))
    }

    fn write(&mut self, ptr: DevicePtr, bytes: &[u8]) -> Result<(), BackendError> {
        self.machine.write(ptr, bytes).map_err(|e| BackendError::Device(e.to_string()))
    }

    fn read(&mut self, ptr: DevicePtr, len: usize) -> Result<Vec<u8>, BackendError> {
        self.machine.read(ptr, len as u64).map_err(|e| BackendError::Device(e.to_string()))
    }

    fn free(&mut self, ptr: DevicePtr) {
        self.machine.free(ptr);
    }

    fn launch(&mut self, module: ModuleId, launch: &KernelLaunch) -> Result<LaunchDetails, BackendError> {
        let sim_launch = sim::Launch {
            kernel: launch.kernel.to_string(),
            grid: launch.launch.grid,
            block: launch.launch.block,
            dynamic_shared_bytes: launch.launch.shared_bytes,
            params: launch.params.to_vec(),
            limits: Limits {
                max_warp_instructions: (launch.time_limit.as_secs_f64() * WARP_INSTRUCTIONS_PER_SECOND as f64) as u64,
                ..Limits::default()
            },
        };
        let report = self
            .machine
            .launch(&self.modules[module], &sim_launch)
            .map_err(|e| BackendError::Fault(format!("the simulator stopped: {e}")))?;
        if report.aborted {
            let first_fatal = report.diagnostics.iter().find(|d| d.kind != DiagnosticKind::SharedRace);
            if let Some(diagnostic) = first_fatal.or(report.diagnostics.first()) {
                return Err(fatal_error(diagnostic, launch.time_limit));
            }
            return Err(BackendError::Fault("the simulator stopped the kernel".into()));
        }
        Ok(Some(report))
    }

    fn time(&mut self, _: ModuleId, _: &KernelLaunch, _: usize) -> Result<Option<Duration>, BackendError> {
        Ok(None)
    }

    fn copy_bandwidth(&mut self) -> Result<Option<f64>, BackendError> {
        Ok(None)
    }
}
