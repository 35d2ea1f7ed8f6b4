//! A warp-accurate simulator for the PTX that NVRTC emits: runs CUDA kernels without a GPU, with
//! the GPU's results, and measures what the course teaches (coalescing, bank conflicts,
//! out-of-bounds accesses, races) per source line.
//!
//! The layers, lowest first: a module imports only from the rows above its own and from those
//! before it in its row (CI's `scripts/module-cycles --layers sim` holds the crate to it). PTX
//! flows parse -> lower -> exec -> model; `analyse` sits below `exec` because its trackers (race
//! shadows, spin locks, stored values' provenance) are what the executor feeds at every access,
//! and it names what it finds from the program, the memory and the report's types alone.
//!
//! | layer | module | owns |
//! | --- | --- | --- |
//! | leaves | `source`, `error`, `printf` | a position in the CUDA source, [`SimError`], printf's formatting |
//! | parse | `parse` | PTX text -> syntax tree |
//! | program | `ir`, `rounding`, `instructions` | flat instruction lists with register slots; exact rounding to f32/f16 and the FP8 formats; instruction counts by kind |
//! | lower | `lower` | syntax tree -> `ir`, calls inlined |
//! | memory | `memory` | global allocations, where a bad address lies against them, address windows, sectors and wavefronts, the launch's traffic counts |
//! | report | `report` | figures, diagnostics, and the time model's inputs and result ([`ModelledTime`]) |
//! | analyse | `analyse` | race detection; where a stored value came from (`provenance`) |
//! | execute | `exec` | warps in lockstep, divergence, barriers, warp-synchronous operations |
//! | model | `model` | modelled time on a reference GPU ([`GpuModel`]) from the counts |
//! | API | `module`, `machine` | [`Module`], [`Machine`] |
//!
//! ```no_run
//! # fn demo(ptx: &str) -> Result<(), sim::SimError> {
//! let module = sim::Module::parse(ptx)?;
//! let mut gpu = sim::Machine::new();
//! let n = 1024u32;
//! let out = gpu.alloc(4 * n as u64);
//! let params = vec![out.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
//! let report = gpu.launch(&module, &sim::Launch::new("fill", [4, 1, 1], [256, 1, 1], params))?;
//! println!("{} sectors per load request", report.figures.load_sectors_per_request());
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

mod analyse;
mod error;
mod exec;
mod instructions;
mod ir;
mod lower;
mod machine;
mod memory;
mod model;
mod module;
mod parse;
mod printf;
mod report;
mod rounding;
mod source;

pub use analyse::provenance::loops::{Counted, LoopTrips};
pub use analyse::provenance::thread::{
    thread_divergence, Access, BranchStep, MemoryStep, Parting, Step, ThreadDivergence,
    ThreadTrace, WatchedThread, KEPT_STEPS,
};
pub use analyse::provenance::{
    origin_of, Closeness, Computation, Divergence, ElementOrigin, ElementStores, NamedBuffer,
    Operand, Place, Scalar, Space, StoreEvent, UnwrittenRead, Watch, Watched, WatchedElement,
    Writers, KEPT_STORES,
};
pub use error::SimError;
pub use instructions::InstructionCounts;
pub use ir::ParamInfo;
pub use machine::Machine;
pub use model::GpuModel;
pub use module::{KernelInfo, KernelResources, Module};
pub use parse::LaunchBounds;
pub use report::{
    AccessFault, AccessKind, AccessOp, BadAccess, Diagnostic, DiagnosticKind, Figures, GlobalMiss,
    KernelShape, Launch, LaunchReport, Limits, LineFigures, MemorySpace, ModelledTime,
    NearAllocation, Occupancy, OccupancyLimit, PastTheEnd, Race, RaceAccess, RacePlace, Resource,
    ResourceTimes, Traffic,
};
pub use source::SourceLocation;
