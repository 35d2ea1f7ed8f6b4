//! The course's NVRTC: `libsimnvrtc.so`, which the runner puts on a program's library path as
//! `libnvrtc.so`, in front of NVIDIA's (`SIMNVRTC_REAL`, an absolute path). Every entry point
//! forwards to NVIDIA's, with two changes that give a program's kernels the source lines a
//! kernel exercise's have, without the student asking, and one that gives them the CUDA headers
//! a kernel exercise's have:
//!
//! | module | owns |
//! | --- | --- |
//! | `headers` | the course's CUDA header folders (`SIMNVRTC_INCLUDE`) added after a compile's own options |
//! | `lines` | `-lineinfo` added to a compile that asks for no line information |
//! | `placed` | a source found in one of the program's files (`SIMNVRTC_SOURCES`) named by that file and line (`#line`) |
//! | `real` | NVIDIA's library, loaded once, and its entry points by name |
//! | `virtual_arch` | on the simulator, a compile for `sm_XX` made for `compute_XX`, its PTX given as its CUBIN |
//! | `entry` | the C entry points cudarc and others call |
//!
//! cudarc's `compile_ptx(src)` passes no options and no name, so its PTX had no `.loc` lines:
//! a race or an out-of-bounds access in a Rust program's kernel named no line. With both
//! changes it names `src/main.rs:41` (a kernel in a string there) or `saxpy.cu:7` (one read
//! with `include_str!`), as a Python or C++ program's does. `-lineinfo` changes no instruction.

#![warn(missing_docs, unreachable_pub)]

mod entry;
pub mod headers;
pub mod lines;
pub mod placed;
mod real;
pub mod virtual_arch;

pub use entry::*;
