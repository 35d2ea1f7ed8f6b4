//! `runner run -- COMMAND ARGS...`: a whole host program on the simulator's CUDA driver. The
//! program finds `libsimcuda.so` (the `simdriver` crate) as `libcuda.so` on its library path,
//! allocates, copies and launches without a GPU, and the driver's record of what it did (calls,
//! copies, launches and their memory figures, a modelled timeline) is summed up afterwards.
//! With `--backend gpu` the same library runs in pass-through mode in front of NVIDIA's driver
//! (`driver_env` finds it): the program runs on the GPU, and the record's times are measured.

use crate::course::Course;
use crate::driver_env::DriverEnv;
use anyhow::{bail, Context};
use contract::Backend;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// `runner run`'s arguments.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Print the driver's whole record as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Seconds a kernel may run in the simulator before it counts as a hang.
    #[arg(long, default_value_t = 10.0)]
    pub time_limit: f64,
    /// The GPU the simulated device describes and kernel times are modelled on: h100 or h200.
    #[arg(long, default_value = "h100")]
    pub gpu_model: String,
    /// Where the program's driver calls go: `sim`, the simulator; `gpu`, NVIDIA's driver, through
    /// the same library in pass-through mode (same record, times measured on the GPU).
    #[arg(long, value_parser = crate::backend::backend_parser(), default_value = "sim")]
    pub backend: Backend,
    /// The program to run and its arguments (after `--`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<OsString>,
}

/// Runs `runner run`: the program on the course's driver, then its summary; exits as the program did.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if !matches!(args.gpu_model.as_str(), "h100" | "h200") {
        bail!("--gpu-model {}: expected h100 or h200", args.gpu_model);
    }
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        bail!(
            "--time-limit {}: give a positive number of seconds",
            args.time_limit
        );
    }
    crate::ending::on_signal_end_everything();
    // The course the runner was started in, if any: its NVRTC and its CUDA Python environment.
    let course = crate::session::find_course().ok();
    let driver = DriverEnv::prepare(
        course.as_ref(),
        args.backend,
        &args.gpu_model,
        args.time_limit,
    )?;
    let record_path = driver.record_path();
    let (program, rest) = args
        .command
        .split_first()
        .context("give the program to run")?;
    let program = course_python(course.as_ref(), program).unwrap_or_else(|| PathBuf::from(program));
    let mut command = std::process::Command::new(&program);
    command.args(rest);
    driver.apply(&mut command);
    // A read or write past a buffer's end that stays inside its allocation's 256-byte granule
    // does not fault on a GPU: a whole program runs on past it, with a warning naming the line,
    // where the course's checks (the driver's default policy) stop the kernel.
    command.env("SIMCUDA_FAULT_POLICY", "run");
    if args.json {
        // Standard output carries the record alone, so that it parses as JSON: what the program
        // prints goes to standard error, still on the terminal.
        command.stdout(std::io::stderr());
    }
    let status = command
        .status()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let code = status.code().unwrap_or(1).clamp(0, 255) as u8;
    let Ok(text) = std::fs::read_to_string(&record_path) else {
        let shown = program.display();
        // The record is written when the program exits normally: a signal leaves none.
        match std::os::unix::process::ExitStatusExt::signal(&status) {
            Some(signal) => eprintln!(
                "{shown} was ended by signal {signal} before the driver could write what it did"
            ),
            None => eprintln!(
                "{shown} made no call to the CUDA driver (a program that loads libcuda by a path \
                 of its own, or none, never reaches the simulator)"
            ),
        }
        return Ok(ExitCode::from(code));
    };
    let record = crate::host::record::parse(&text)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        // Shown for every program, Python's included: cuda-from-python.md explains why Numba's
        // arrays are still allocated when its program ends.
        print!("{}", crate::host::summary::summary(&record, true));
    }
    Ok(ExitCode::from(code))
}

/// For `python` or `python3`, the course's CUDA Python environment (`.cuda-python/`, made by
/// `scripts/install-cuda-python`) when it has one: the system's Python has no numba-cuda.
fn course_python(course: Option<&Course>, program: &OsString) -> Option<PathBuf> {
    if program != "python" && program != "python3" {
        return None;
    }
    let python = crate::driver_env::course_python(course)?;
    eprintln!(
        "(Python from the course's CUDA Python environment: {})",
        python.display()
    );
    Some(python)
}
