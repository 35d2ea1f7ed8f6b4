//! Simulator tests on fixture kernels (CUDA sources with their NVRTC PTX under tests/fixtures/).
#![allow(dead_code)]
// Comparing device output with a reference reads best as indexed loops.
#![allow(clippy::needless_range_loop)]

mod api;
mod bfloat16;
mod calls;
mod common;
mod cooperative_groups;
mod diagnostics;
mod figures;
mod fp8;
mod fuzz;
mod grid_sync;
mod halves;
mod hostile;
mod kernels;
mod limits;
mod model;
mod ncu;
mod ncu_cases;
mod ncu_public;
mod parsing;
mod past_the_end;
mod provenance;
mod races;
