//! What a command works with: the course, the compiler and a backend, set up once.

use crate::backend::cuda::CudaBackend;
use crate::backend::sim::SimBackend;
use crate::backend::Backend;
use crate::cli::BackendChoice;
use crate::compile::Compiler;
use crate::course::Course;
use anyhow::Context;
use colored::Colorize;

/// Opens the backend asked for, or by default the GPU when one works and else the simulator.
/// The fallback is explained the first time only; every report names the backend anyway.
pub fn open_backend(
    choice: Option<BackendChoice>,
    compiler: &Compiler,
    quiet: bool,
) -> anyhow::Result<Box<dyn Backend>> {
    match choice {
        Some(BackendChoice::Sim) => Ok(Box::new(SimBackend::new())),
        Some(BackendChoice::Gpu) => {
            let gpu = CudaBackend::open(0)
                .context("--backend gpu was asked for, but no GPU can be used")?;
            Ok(Box::new(gpu))
        }
        None => match CudaBackend::open(0) {
            Ok(gpu) => Ok(Box::new(gpu)),
            Err(why) => {
                let key = "simulator-explained";
                if !quiet && compiler.cache.get_value(key).is_none() {
                    eprintln!(
                        "{} {why}\nRunning in the simulator: results are the same, and it shows memory figures a GPU \
                         cannot; kernel times need a GPU. (`--backend sim` picks it without this note.)\n",
                        "Note:".yellow().bold()
                    );
                    compiler.cache.put_value(key, "yes");
                }
                Ok(Box::new(SimBackend::new()))
            }
        },
    }
}

pub fn find_course() -> anyhow::Result<Course> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    Course::find(&here)
}

pub fn compiler(course: &Course) -> anyhow::Result<Compiler> {
    Ok(Compiler::new(Some(&course.root))?)
}
