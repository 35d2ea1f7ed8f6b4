//! The parts of the runner that stand alone, as a library: reading kernel files, compiling them
//! with NVRTC and the compile cache. The binary (`main.rs`) uses them like its own modules; the
//! library exists so that benchmarks can measure them.

pub mod compile;
pub mod kernel_file;
