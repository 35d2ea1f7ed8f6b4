//! The simulator's error type: what went wrong before or around a launch (not inside a kernel; those
//! are `Diagnostic`s in the launch report).

use crate::source::SourceLocation;

fn at(location: &Option<SourceLocation>, ptx_line: u32) -> String {
    match location {
        Some(loc) => format!("{}:{} (PTX line {ptx_line})", loc.file, loc.line),
        None => format!("PTX line {ptx_line}"),
    }
}

/// Why the simulator could not load a module, prepare a launch or touch device memory; each
/// message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot parse the PTX at line {line} (`{text}`): {message}; the simulator reads PTX as NVRTC emits it, so recompile the kernel rather than editing the PTX")]
    /// The PTX text does not parse.
    Parse {
        /// Line of the PTX text, from 1.
        line: u32,
        /// That line's text.
        text: String,
        /// What the parser expected there.
        message: String,
    },

    #[error("the simulator does not support {what}, used at {}; run this kernel on a GPU, or write it without that feature", at(.location, *.ptx_line))]
    /// A PTX feature the simulator does not run.
    Unsupported {
        /// The feature, in words (an instruction and its modifiers, a state space).
        what: String,
        /// Line of the PTX text where it is used, from 1.
        ptx_line: u32,
        /// The CUDA source line, where the PTX names one (None without line info).
        location: Option<SourceLocation>,
    },

    #[error("invalid PTX at {}: {message}", at(.location, *.ptx_line))]
    /// PTX that parses but breaks a rule of the ISA (an undeclared register, a bad operand).
    Invalid {
        /// The rule broken.
        message: String,
        /// Line of the PTX text, from 1.
        ptx_line: u32,
        /// The CUDA source line, where the PTX names one (None without line info).
        location: Option<SourceLocation>,
    },

    /// A kernel of the module the simulator could not prepare; the module's other kernels run.
    #[error("kernel `{name}` cannot run in the simulator: {reason}")]
    KernelNotLowered {
        /// The kernel's (mangled) entry name.
        name: String,
        /// Why it could not be prepared: another SimError's message.
        reason: String,
    },

    #[error("no kernel named `{name}` in the module (it has: {}); check the name and that the kernel is `extern \"C\" __global__`", .available.join(", "))]
    /// A launch names a kernel the module does not have.
    UnknownKernel {
        /// The name the launch asked for.
        name: String,
        /// The module's kernel names.
        available: Vec<String>,
    },

    #[error("kernel `{kernel}` takes {expected} parameters but the launch passed {got}; pass one argument per kernel parameter")]
    /// A launch passes a different number of arguments than the kernel has parameters.
    ParamCount {
        /// The kernel's entry name.
        kernel: String,
        /// Parameters the kernel declares.
        expected: usize,
        /// Arguments the launch passed.
        got: usize,
    },

    #[error("parameter {index} (`{name}`) of kernel `{kernel}` is {expected} bytes but the launch passed {got}; pointers are 8 bytes, int and float 4")]
    /// An argument's size in bytes differs from its parameter's.
    ParamSize {
        /// The kernel's entry name.
        kernel: String,
        /// The parameter's position, from 0.
        index: usize,
        /// The parameter's PTX name.
        name: String,
        /// The parameter's size in bytes.
        expected: u32,
        /// The argument's size in bytes.
        got: usize,
    },

    #[error("invalid launch configuration: {0}")]
    /// A grid, block or shared-memory size no GPU accepts; the text says which limit.
    InvalidLaunch(String),

    /// What ptxas (the GPU's own compiler, which the driver runs when it loads PTX) refuses: the
    /// driver then fails with `CUDA_ERROR_INVALID_PTX` and this line in its log.
    #[error("a GPU would not load this kernel: the driver's PTX compiler says `ptxas error   : {ptxas}` (CUDA_ERROR_INVALID_PTX); {advice}")]
    TooManyResources {
        /// ptxas's message after `ptxas error   : `.
        ptxas: String,
        /// What to change in the kernel.
        advice: String,
    },

    #[error("out of device memory: cannot allocate {requested} bytes ({in_use} in use, limit {limit}); allocate less")]
    /// An allocation past the simulated device's memory.
    OutOfMemory {
        /// Bytes asked for.
        requested: u64,
        /// Bytes allocated already.
        in_use: u64,
        /// The device's memory, in bytes.
        limit: u64,
    },

    #[error("cannot {op} {len} bytes at device address {addr:#x}: {reason}; copy only within a live allocation")]
    /// A host-side read, write or mapping that the live allocations do not allow.
    BadAccess {
        /// The operation, as a verb (`read`, `write`, `map`).
        op: &'static str,
        /// The device address it starts at.
        addr: u64,
        /// Bytes it covers.
        len: u64,
        /// Why the range is not valid (no allocation there, past its end, freed).
        reason: String,
    },
}
