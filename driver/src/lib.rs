//! The CUDA driver API on the course's simulator: `libsimcuda.so`, which `runner run` puts on a
//! program's library path as `libcuda.so` and `libcuda.so.1`, so that a host program written
//! against the driver API (cudarc in Rust, NVIDIA's cuda-python) allocates, copies and launches
//! without a GPU, and every call, transfer and launch is recorded.
//!
//! | module | owns |
//! | --- | --- |
//! | `state` | the one driver state behind a lock, handles, the entry-point wrapper |
//! | `device` | `cuInit`, versions, the device and its attributes (a model of an H100) |
//! | `context` | primary and ordinary contexts, the current context |
//! | `memory` | allocation, memset, copies in every direction, pinned host memory |
//! | `mirror` | host memory the device also sees, kept alike on both sides around device work |
//! | `managed` | managed memory (`cuMemAllocManaged`), prefetches and advice |
//! | `mapped` | page-locked host memory mapped for kernels (`cuMemHostGetDevicePointer`) |
//! | `pitched` | 2D allocations with pitched rows and copies of rectangles (`cudaMallocPitch`, `cudaMemcpy2D`) |
//! | `pointers` | what the driver knows about a pointer: its attributes and the block that holds it |
//! | `ranges` | the address ranges kept per allocation, found in O(log n) |
//! | `handles` | the tables handles index: modules, functions, streams, events, links |
//! | `module` | PTX modules, their functions and globals |
//! | `library` | the CUDA 12 library API: modules and kernels loaded in no context |
//! | `cooperative` | cooperative launches, refused past the blocks that fit at once |
//! | `launch` | `cuLaunchKernel` on the simulator |
//! | `link` | the driver's linker, for one PTX input (Numba, cuda.core) |
//! | `occupancy` | occupancy queries and context limits, from the H100 model |
//! | `stream` | streams and events (work runs when it is queued; events carry modelled times) |
//! | `graph` | stream capture and CUDA graphs: work on a capturing stream kept as nodes, replayed by `cuGraphLaunch` |
//! | `in_flight` | copies back to page-locked memory, which land only when the program waits |
//! | `record` | what the program did, written as JSON when it exits (`SIMCUDA_REPORT`) |
//! | `errors` | error names and strings, as NVIDIA's driver gives them (a leaf) |
//! | `error_calls` | `cuGetErrorName`, `cuGetErrorString`, and the answer of every entry point this driver does not implement |
//! | `profiler` | `cuProfilerStart`/`Stop`, accepted as without a profiler attached |
//! | `proc_address` | `cuGetProcAddress`: entry points by name, as NVIDIA's Python bindings find them |
//! | `export_table` | `cuGetExportTable`: the private tables the CUDA runtime (cudart) needs |
//! | `fatbin` | fat binaries (what nvcc puts device code in): the PTX taken out of one |
//! | `passthrough` | pass-through mode (`SIMCUDA_BACKEND=gpu`): every entry point forwards to the real driver, and the record's times are measured |
//! | `real` | the real driver: which driver this library is in the process, NVIDIA's loaded, its entry points called by name |
//!
//! Work runs at once, in the calling thread, when it is queued: a stream is an order the program
//! asked for, and the simulator keeps it (the one exception: an asynchronous copy back to
//! page-locked memory reaches the program's memory only when the program waits for it). What a GPU would overlap is left to the timeline of the
//! record.

// First: its `pass_through!` starts every entry point.
#[macro_use]
mod passthrough;

mod context;
mod cooperative;
mod cudart_support;
mod device;
mod error_calls;
mod errors;
mod export_table;
mod fatbin;
mod graph;
mod handles;
mod in_flight;
mod launch;
mod library;
mod link;
mod managed;
mod mapped;
mod memory;
mod mirror;
mod module;
mod not_supported;
mod occupancy;
mod pitched;
mod pointers;
mod proc_address;
mod profiler;
mod ranges;
mod real;
mod record;
mod state;
mod stream;

pub use record::Record;

#[cfg(test)]
mod tests;
