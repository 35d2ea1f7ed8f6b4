//! The CUDA driver API on the course's simulator: `libsimcuda.so`, which `runner run` puts on a
//! program's library path as `libcuda.so` and `libcuda.so.1`, so that a host program written
//! against the driver API (cudarc in Rust, NVIDIA's cuda-python) allocates, copies and launches
//! without a GPU, and every call, transfer and launch is recorded.
//!
//! The layers, lowest first: a module imports only from the rows above its own and from those
//! before it in its row (`scripts/module-cycles --layers driver` lists what still goes against
//! it, issue 22). The state is data and the one lock: a concern's data that the state holds is a
//! type of `state`'s (`state::capture`, `state::timing`, `state::copies`, `state::mirrors`,
//! `state::advice`, `state::book`), and the concern's module above acts on
//! it through `&mut Driver`; the state never calls up. Every entry point starts with
//! `pass_through!`, so `passthrough` sits below them all and names none of them.
//!
//! | layer | modules | owns |
//! | --- | --- | --- |
//! | leaves | `errors`, `handles`, `ranges`, `fatbin`, `real` | error names and strings as NVIDIA's driver gives them; the tables handles index; address ranges found in O(log n); the PTX taken out of a fat binary; the real driver (which driver this library is, NVIDIA's loaded, its entry points called by name) |
//! | record | `happens_before`, `record` | what the host has waited for (vector clocks over the streams); what the program did, and the modelled timeline that places it |
//! | state | `state` | everything the driver keeps, behind one lock (a capture's nodes, pass-through's events, copies in flight, mirrored blocks, managed memory's advice and its book), the wrapper `call` every entry point goes through, the record written at exit (`SIMCUDA_REPORT`) |
//! | pass-through | `passthrough` | pass-through mode (`SIMCUDA_BACKEND=gpu`): every entry point forwards to the real driver, and the record's times are measured |
//! | kept alike | `in_flight`, `mirror` | copies back to page-locked memory, which land only when the program waits; host memory the device also sees, kept alike on both sides around device work |
//! | device | `device`, `context`, `profiler`, `cudart_support`, `error_calls` | `cuInit`, versions, the device (a model of an H100); contexts; the profiler's calls; cudart's helpers; `cuGetErrorName`/`String` and the answer of every entry point not implemented |
//! | code | `module`, `library`, `link`, `occupancy`, `cooperative` | PTX modules, their functions and globals; the CUDA 12 library API; the driver's linker; occupancy from the H100 model; whether a cooperative grid fits at once |
//! | memory | `managed`, `mapped`, `memory`, `pitched`, `pointers`, `stream`, `host_func` | managed memory, prefetches and advice; mapped page-locked memory; allocation, memset and copies; 2D pitched allocations and copies; a pointer's attributes; streams and events; host functions on a stream |
//! | work | `launch`, `graph` | `cuLaunchKernel`, `cuLaunchKernelEx`, cooperative launches on the simulator; stream capture and CUDA graphs replayed by `cuGraphLaunch` |
//! | tables | `not_supported`, `export_table`, `proc_address` | the entry points not implemented (generated); `cuGetExportTable`'s private tables for cudart; `cuGetProcAddress` |
//! | tests | `fatbin_tests`, `tests` | unit tests that reach across modules: fat binaries, the entry points in one sequence |
//!
//! Work runs at once, in the calling thread, when it is queued: a stream is an order the program
//! asked for, and the simulator keeps it (the one exception: an asynchronous copy back to
//! page-locked memory reaches the program's memory only when the program waits for it). What a GPU would overlap is left to the timeline of the
//! record.

#![warn(missing_docs, unreachable_pub)]

// The entry points are `#[no_mangle] pub extern "C"` functions: no Rust crate reaches them, but
// the dynamic linker does, by name, so they stay `pub`. The modules that define them allow
// `unreachable_pub`, marked "its entry points"; every other item is `pub(crate)` where it can be.

// First: its `pass_through!` starts every entry point.
#[macro_use]
mod passthrough;

#[allow(unreachable_pub)] // its entry points
mod context;
mod cooperative;
#[allow(unreachable_pub)] // its entry points
mod cudart_support;
#[allow(unreachable_pub)] // its entry points
mod device;
#[allow(unreachable_pub)] // its entry points
mod error_calls;
mod errors;
#[allow(unreachable_pub)] // its entry points
mod export_table;
mod fatbin;
#[allow(unreachable_pub)] // its entry points
mod graph;
mod handles;
mod happens_before;
#[allow(unreachable_pub)] // its entry points
mod host_func;
#[allow(unreachable_pub)] // its entry points
mod in_flight;
#[allow(unreachable_pub)] // its entry points
mod launch;
#[allow(unreachable_pub)] // its entry points
mod library;
#[allow(unreachable_pub)] // its entry points
mod link;
#[allow(unreachable_pub)] // its entry points
mod managed;
#[allow(unreachable_pub)] // its entry points
mod mapped;
#[allow(unreachable_pub)] // its entry points
mod memory;
mod mirror;
#[allow(unreachable_pub)] // its entry points
mod module;
#[allow(unreachable_pub)] // its entry points
mod not_supported;
#[allow(unreachable_pub)] // its entry points
mod occupancy;
#[allow(unreachable_pub)] // its entry points
mod pitched;
#[allow(unreachable_pub)] // its entry points
mod pointers;
#[allow(unreachable_pub)] // its entry points
mod proc_address;
#[allow(unreachable_pub)] // its entry points
mod profiler;
mod ranges;
mod real;
mod record;
mod state;
#[allow(unreachable_pub)] // its entry points
mod stream;

pub use record::Record;

#[cfg(test)]
mod tests;
