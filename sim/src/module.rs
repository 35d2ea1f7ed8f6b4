//! A parsed and lowered PTX module: its kernels and module-level variables.

use crate::error::SimError;
use crate::ir::{ParamInfo, Program};
use crate::lower::GlobalVar;
use std::sync::atomic::{AtomicU64, Ordering};

/// A kernel's name and parameters, as the launch must supply them.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The kernel's entry name, as PTX spells it (mangled where not `extern "C"`).
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<ParamInfo>,
}

/// A kernel's static resources (`Module::resources`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    /// Statically declared `__shared__` memory per block, in bytes.
    pub shared_static_bytes: u32,
    /// Local memory (stack, spilled arrays) per thread, in bytes.
    pub local_bytes_per_thread: u32,
    /// The module's `__constant__` memory, in bytes.
    pub constant_bytes: u64,
}

/// PTX parsed and lowered into executable form: immutable, shareable between threads and machines.
#[derive(Debug)]
pub struct Module {
    /// Distinguishes modules so a machine keeps one copy of each module's global variables.
    pub(crate) id: u64,
    pub(crate) programs: Vec<Program>,
    /// Kernels the simulator could not prepare, with why (in words).
    pub(crate) failed: Vec<(String, String)>,
    pub(crate) globals: Vec<GlobalVar>,
    /// What the time model reads from the parsed program, per kernel.
    pub(crate) statics: std::collections::HashMap<String, crate::model::statics::KernelStatic>,
    /// The PTX text, whose lines name the instructions a watched launch reports.
    pub(crate) ptx: String,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

type Statics = std::collections::HashMap<String, crate::model::statics::KernelStatic>;

/// The module's kernels lowered (those that could not be, with why) and the time model's reading.
fn prepare(ptx: &str) -> Result<(crate::lower::Lowered, Statics), SimError> {
    let ast = crate::parse::parse(ptx)?;
    let lowered = crate::lower::lower_module(&ast)?;
    Ok((lowered, crate::model::statics::analyse(&ast)))
}

impl Module {
    /// Parses PTX text (as NVRTC emits it) and prepares every kernel in it for execution.
    /// Instructions the simulator cannot run are reported here, with their source line.
    pub fn parse(ptx: &str) -> Result<Module, SimError> {
        let (mut lowered, statics) = prepare(ptx)?;
        // A module none of whose kernels can run is an error in itself, as it always was.
        if lowered.programs.is_empty() && !lowered.failed.is_empty() {
            return Err(lowered.failed.swap_remove(0).1);
        }
        Ok(Module::assemble(ptx, lowered, statics))
    }

    /// As [`Module::parse`], but a module none of whose kernels can run loads too, each kernel
    /// kept with why it cannot run ([`Module::lowering_error`]), as a driver loads a module and
    /// refuses such a kernel only when it is launched: an unsupported instruction costs only
    /// the kernel that uses it.
    pub fn parse_keeping_refused(ptx: &str) -> Result<Module, SimError> {
        let (lowered, statics) = prepare(ptx)?;
        Ok(Module::assemble(ptx, lowered, statics))
    }

    fn assemble(ptx: &str, lowered: crate::lower::Lowered, statics: Statics) -> Module {
        Module {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            programs: lowered.programs,
            failed: lowered
                .failed
                .into_iter()
                .map(|(name, e)| (name, e.to_string()))
                .collect(),
            globals: lowered.globals,
            statics,
            ptx: ptx.to_string(),
        }
    }

    /// The kernels the simulator can run, in the module's order.
    pub fn kernels(&self) -> Vec<KernelInfo> {
        self.programs
            .iter()
            .map(|p| KernelInfo {
                name: p.name.clone(),
                params: p.params.clone(),
            })
            .collect()
    }

    /// The kernel named `name`; None where the module has none the simulator can run.
    pub fn kernel(&self, name: &str) -> Option<KernelInfo> {
        self.program(name).map(|p| KernelInfo {
            name: p.name.clone(),
            params: p.params.clone(),
        })
    }

    /// What kernel `name` asks of the device beside its threads, as `cuFuncGetAttribute` reports
    /// it: static shared bytes per block, `.local` bytes per thread, and the module's `__constant__`
    /// bytes (ptxas counts those a kernel uses; a module's kernels usually share them all).
    pub fn resources(&self, name: &str) -> Option<KernelResources> {
        let program = self.program(name)?;
        Some(KernelResources {
            shared_static_bytes: program.shared_static,
            local_bytes_per_thread: program.local_frame,
            constant_bytes: self
                .globals
                .iter()
                .filter(|g| g.constant)
                .map(|g| g.size)
                .sum(),
        })
    }

    pub(crate) fn program(&self, name: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.name == name)
    }

    /// Why kernel `name` cannot run in the simulator, when it is one of the module's kernels that
    /// could not be prepared.
    pub fn lowering_error(&self, name: &str) -> Option<&str> {
        self.failed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, why)| why.as_str())
    }

    /// The architecture the PTX was compiled for, from its `.target` directive (`sm_80` is 80):
    /// what a driver reports as a kernel's PTX version. None where the text names none.
    pub fn target_arch(&self) -> Option<u32> {
        let line = self
            .ptx
            .lines()
            .map(str::trim_start)
            .find(|l| l.starts_with(".target"))?;
        line.split(|c: char| c.is_whitespace() || c == ',')
            .find_map(|word| {
                let digits = word.strip_prefix("sm_")?;
                digits
                    .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .parse()
                    .ok()
            })
    }

    /// Whether kernel `name` has system-scope atomics (`atomicAdd_system`): it shares memory
    /// with the host while it runs, as a driver must let it.
    pub fn uses_system_atomics(&self, name: &str) -> bool {
        self.program(name).is_some_and(|p| p.has_system_atomics)
    }

    /// Names of the module's `__device__` and `__constant__` variables.
    pub fn variables(&self) -> Vec<String> {
        self.globals.iter().map(|g| g.name.clone()).collect()
    }
}
