//! What a command works with: the course, the compiler and a backend, set up once.

use crate::backend::cuda::{CudaBackend, GpuUnavailable};
use crate::backend::sim::SimBackend;
use crate::backend::Backend;
use crate::backend::BackendChoice;
use crate::compile::Compiler;
use crate::course::Course;
use anyhow::Context;
use colored::Colorize;

/// Opens the backend asked for, or by default the GPU when one works and else the simulator.
/// The fallback is explained the first time only; every report names the backend anyway.
pub fn open_backend(
    choice: BackendChoice,
    compiler: &Compiler,
    quiet: bool,
) -> anyhow::Result<Box<dyn Backend>> {
    let gpu = choice.may_use_gpu().then(|| CudaBackend::open(0));
    choose_backend(choice, gpu, compiler, quiet)
}

/// NVRTC and the backend, opened side by side: loading NVRTC from a cold disk (110 to 150 ms
/// seen on the H200 machine) then happens while CUDA initialises (about 220 ms), which a check
/// waits for anyway.
pub fn compiler_and_backend(
    course: &Course,
    choice: BackendChoice,
    quiet: bool,
) -> anyhow::Result<(Compiler, Box<dyn Backend>)> {
    let (compiler, gpu) = std::thread::scope(|scope| {
        let loading = std::thread::Builder::new()
            .name("NVRTC loader".into())
            .spawn_scoped(scope, || {
                let compiler = Compiler::new(Some(&course.root));
                crate::trace::mark("NVRTC loaded");
                compiler
            });
        let gpu = choice.may_use_gpu().then(|| CudaBackend::open(0));
        let compiler = match loading {
            Ok(loading) => loading
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: loaded after the GPU rather than beside it.
            Err(_) => Compiler::new(Some(&course.root)),
        };
        (compiler, gpu)
    });
    let compiler = compiler?;
    let backend = choose_backend(choice, gpu, &compiler, quiet)?;
    Ok((compiler, backend))
}

/// The backend a whole program runs on for `choice`: `auto` is the GPU where NVIDIA's driver is
/// installed (the program opens it itself, so nothing is opened here), else the simulator.
pub fn program_backend(choice: BackendChoice) -> contract::Backend {
    choice.resolve(CudaBackend::driver_present)
}

/// The backend for `choice`, given the outcome of opening the GPU where that was tried.
fn choose_backend(
    choice: BackendChoice,
    gpu: Option<Result<CudaBackend, GpuUnavailable>>,
    compiler: &Compiler,
    quiet: bool,
) -> anyhow::Result<Box<dyn Backend>> {
    match (choice, gpu) {
        (BackendChoice::Only(contract::Backend::Gpu), Some(gpu)) => {
            let gpu = gpu.context("--backend gpu was asked for, but no GPU can be used")?;
            Ok(Box::new(gpu))
        }
        (BackendChoice::Auto, Some(Ok(gpu))) => Ok(Box::new(gpu)),
        (BackendChoice::Auto, Some(Err(why))) => {
            let key = "simulator-explained";
            if !quiet && compiler.cache.get_value(key).is_none() {
                eprintln!(
                    "{} {why}\nRunning in the simulator: results are the same, and it shows memory figures a GPU \
                     cannot; kernel times are modelled for an H100, not measured. (`--backend sim` picks it without this note.)\n",
                    "Note:".yellow().bold()
                );
                compiler.cache.put_value(key, "yes");
            }
            Ok(Box::new(SimBackend::new()))
        }
        _ => Ok(Box::new(SimBackend::new())),
    }
}

/// The course the current folder is in (or below), for a verb that works on it.
pub fn find_course() -> anyhow::Result<Course> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    Course::find(&here)
}

/// NVRTC for `course`'s kernels, with the course's compile cache; fails saying how to install
/// NVRTC where none is found.
pub fn compiler(course: &Course) -> anyhow::Result<Compiler> {
    Ok(Compiler::new(Some(&course.root))?)
}
