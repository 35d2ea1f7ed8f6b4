//! The simulator's error type: what went wrong before or around a launch (not inside a kernel; those
//! are `Diagnostic`s in the launch report).

use crate::source::SourceLocation;

fn at(location: &Option<SourceLocation>, ptx_line: u32) -> String {
    match location {
        Some(loc) => format!("{}:{} (PTX line {ptx_line})", loc.file, loc.line),
        None => format!("PTX line {ptx_line}"),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot parse the PTX at line {line} (`{text}`): {message}; the simulator reads PTX as NVRTC emits it, so recompile the kernel rather than editing the PTX")]
    Parse {
        line: u32,
        text: String,
        message: String,
    },

    #[error("the simulator does not support {what}, used at {}; run this kernel on a GPU, or write it without that feature", at(.location, *.ptx_line))]
    Unsupported {
        what: String,
        ptx_line: u32,
        location: Option<SourceLocation>,
    },

    #[error("invalid PTX at {}: {message}", at(.location, *.ptx_line))]
    Invalid {
        message: String,
        ptx_line: u32,
        location: Option<SourceLocation>,
    },

    /// A kernel of the module the simulator could not prepare; the module's other kernels run.
    #[error("kernel `{name}` cannot run in the simulator: {reason}")]
    KernelNotLowered { name: String, reason: String },

    #[error("no kernel named `{name}` in the module (it has: {}); check the name and that the kernel is `extern \"C\" __global__`", .available.join(", "))]
    UnknownKernel {
        name: String,
        available: Vec<String>,
    },

    #[error("kernel `{kernel}` takes {expected} parameters but the launch passed {got}; pass one argument per kernel parameter")]
    ParamCount {
        kernel: String,
        expected: usize,
        got: usize,
    },

    #[error("parameter {index} (`{name}`) of kernel `{kernel}` is {expected} bytes but the launch passed {got}; pointers are 8 bytes, int and float 4")]
    ParamSize {
        kernel: String,
        index: usize,
        name: String,
        expected: u32,
        got: usize,
    },

    #[error("invalid launch configuration: {0}")]
    InvalidLaunch(String),

    /// What ptxas (the GPU's own compiler, which the driver runs when it loads PTX) refuses: the
    /// driver then fails with `CUDA_ERROR_INVALID_PTX` and this line in its log.
    #[error("a GPU would not load this kernel: the driver's PTX compiler says `ptxas error   : {ptxas}` (CUDA_ERROR_INVALID_PTX); {advice}")]
    TooManyResources { ptxas: String, advice: String },

    #[error("out of device memory: cannot allocate {requested} bytes ({in_use} in use, limit {limit}); allocate less")]
    OutOfMemory {
        requested: u64,
        in_use: u64,
        limit: u64,
    },

    #[error("cannot {op} {len} bytes at device address {addr:#x}: {reason}; copy only within a live allocation")]
    BadAccess {
        op: &'static str,
        addr: u64,
        len: u64,
        reason: String,
    },
}
