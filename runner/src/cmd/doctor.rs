//! `runner doctor`: what this machine has for the course, and whether the parts work together.

use crate::backend::cuda::CudaBackend;
use crate::backend::sim::SimBackend;
use crate::backend::Backend;
use crate::checker::target_for;
use crate::compile::{nvrtc::INSTALL_COMMAND, Compiler, Source};
use crate::session::find_course;
use colored::Colorize;
use std::process::ExitCode;

const PROBE: &str =
    "extern \"C\" __global__ void probe(int* out) { out[threadIdx.x] = threadIdx.x; }\n";

fn ok(label: &str, text: impl std::fmt::Display) {
    println!("  {} {label:<22} {text}", "✓".green());
}

fn bad(label: &str, text: impl std::fmt::Display) {
    println!("  {} {label:<22} {text}", "✗".red());
}

/// Something optional that is not there: said, not counted as a fault.
fn absent(label: &str, text: impl std::fmt::Display) {
    println!("  {} {label:<22} {text}", "-".dimmed());
}

/// What whole programs need (`runner run`, the host exercises and the Python track): the
/// simulator's driver library, cargo for the Rust ones, the course's CUDA Python for Python.
fn host_programs(course: Option<&crate::course::Course>) {
    match crate::driver_env::driver_library() {
        Ok(library) => ok("simulated CUDA driver", library.display()),
        Err(e) => absent("simulated CUDA driver", format!("{e:#} (for `runner run`)")),
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    match std::process::Command::new(&cargo).arg("--version").output() {
        Ok(out) if out.status.success() => ok(
            "cargo",
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
        ),
        _ => absent(
            "cargo",
            "not found: the host exercises (25-28) are Rust programs; install Rust from https://rustup.rs",
        ),
    }
    nvcc(course);
    match crate::driver_env::course_python(course) {
        Some(python) => ok("CUDA Python", python.display()),
        None => absent(
            "CUDA Python",
            "not installed: scripts/install-cuda-python (for the Python track and `runner run -- python prog.py`)",
        ),
    }
}

/// The CUDA C++ compiler, its release, and the host compiler it needs.
fn nvcc(course: Option<&crate::course::Course>) {
    let Some(nvcc) = crate::driver_env::course_nvcc(course) else {
        return absent(
            "nvcc",
            "not installed: scripts/install-nvcc (for CUDA C++ programs: `runner run ./a.out`)",
        );
    };
    let release = std::process::Command::new(&nvcc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text.lines().find(|l| l.contains("release"))?;
            Some(line.trim().to_string())
        });
    let host = std::process::Command::new("g++").arg("--version").output();
    match (release, host) {
        (Some(release), Ok(_)) => ok("nvcc", format!("{} ({release})", nvcc.display())),
        (None, _) => bad("nvcc", format!("{} does not run", nvcc.display())),
        (Some(_), Err(_)) => bad(
            "nvcc",
            format!(
                "{}: its host compiler g++ is missing (apt install g++)",
                nvcc.display()
            ),
        ),
    }
}

/// Runs `runner doctor`: what this machine has (GPU, driver, NVRTC) and whether they work together.
pub fn run() -> anyhow::Result<ExitCode> {
    println!("{}", "runner doctor".bold());
    let course = match find_course() {
        Ok(course) => {
            ok(
                "course",
                format!(
                    "{} ({} exercises)",
                    course.root.display(),
                    course.exercises.len()
                ),
            );
            Some(course)
        }
        Err(e) => {
            bad("course", format!("{e:#}"));
            None
        }
    };
    let compiler = match Compiler::new(course.as_ref().map(|c| c.root.as_path())) {
        Ok(compiler) => {
            let (major, minor) = compiler.nvrtc.version;
            ok(
                "NVRTC",
                format!("{major}.{minor} from {}", compiler.nvrtc.path),
            );
            let archs = compiler.nvrtc.supported_architectures();
            ok(
                "NVRTC architectures",
                archs
                    .iter()
                    .map(|a| format!("sm_{a}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            match &compiler.headers {
                Some(headers) => ok(
                    "CUDA headers",
                    headers
                        .dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                None => bad(
                    "CUDA headers",
                    format!(
                        "none found: cuda_fp16.h and cooperative_groups.h cannot be included; \
                         install them with {INSTALL_COMMAND}"
                    ),
                ),
            }
            Some(compiler)
        }
        Err(e) => {
            bad("NVRTC", format!("{e}"));
            println!("      install the course's own copy: {INSTALL_COMMAND}");
            None
        }
    };
    if let Some(compiler) = &compiler {
        match compiler.cache.dir.as_ref() {
            Some(dir) => ok("compile cache", dir.display()),
            None => bad(
                "compile cache",
                "no cache folder: every check compiles from scratch",
            ),
        }
    }
    let gpu_works = match CudaBackend::open(0) {
        Ok(mut gpu) => {
            let (major, minor) = gpu.driver_cuda_version();
            ok("driver", format!("supports CUDA {major}.{minor}"));
            ok("GPU", gpu.describe());
            if let Some(problem) = compiler
                .as_ref()
                .and_then(|c| version_mismatch(c.nvrtc.version, (major, minor)))
            {
                bad("NVRTC vs driver", problem);
            }
            match &compiler {
                Some(compiler) => probe(&mut gpu, compiler, "driver accepts NVRTC"),
                None => false,
            }
        }
        Err(e) => {
            bad("GPU", e);
            false
        }
    };
    let sim_works = match &compiler {
        Some(compiler) => probe(&mut SimBackend::new(), compiler, "simulator"),
        None => false,
    };
    host_programs(course.as_ref());
    println!();
    if gpu_works {
        println!("Checks run on the GPU; `--backend sim` uses the simulator.");
    } else if sim_works {
        println!("Checks run in the simulator (no GPU works here).");
    } else {
        println!("Nothing can run kernels yet: fix the first ✗ above.");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Compiles and runs a one-line kernel on `backend`; says what broke if anything did.
fn probe(backend: &mut dyn Backend, compiler: &Compiler, label: &str) -> bool {
    let target = target_for(backend, compiler);
    let outcome = (|| -> anyhow::Result<()> {
        let image = compiler.compile(
            &Source {
                name: "probe.cu",
                text: PROBE,
            },
            &target,
        )?;
        let module = backend.load(&image)?;
        let out = backend.alloc(128)?;
        let params = [out.to_le_bytes().to_vec()];
        let launch = checks::Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        let kernel = crate::backend::KernelLaunch {
            kernel: "probe",
            launch,
            params: &params,
            time_limit: std::time::Duration::from_secs(5),
        };
        backend.launch(module, &kernel)?;
        let bytes = backend.read(out, 128)?;
        anyhow::ensure!(bytes[4 * 31] == 31, "the probe kernel gave a wrong answer");
        Ok(())
    })();
    match outcome {
        Ok(()) => {
            ok(label, format!("yes ({target})"));
            true
        }
        Err(e) => {
            bad(label, format!("{e:#}"));
            false
        }
    }
}

/// When NVRTC is newer than the driver, the PTX it makes is refused by the driver (machine code
/// may still load): says so and what to do.
pub fn version_mismatch(nvrtc: (i32, i32), driver: (i32, i32)) -> Option<String> {
    (nvrtc > driver).then(|| {
        format!(
            "NVRTC {}.{} is newer than the driver (CUDA {}.{}): code for a new GPU may not load. \
             Update the NVIDIA driver, or set RUNNER_NVRTC to an NVRTC of CUDA {}.{} or older \
             (e.g. run scripts/install-nvrtc and point it at .nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12)",
            nvrtc.0, nvrtc.1, driver.0, driver.1, driver.0, driver.1
        )
    })
}

#[cfg(test)]
mod tests {
    use super::version_mismatch;

    #[test]
    fn nvrtc_newer_than_the_driver_is_flagged_with_a_remedy() {
        let problem = version_mismatch((13, 0), (12, 4)).unwrap();
        assert!(
            problem.contains("NVRTC 13.0 is newer than the driver (CUDA 12.4)"),
            "{problem}"
        );
        assert!(problem.contains("RUNNER_NVRTC"));
        assert_eq!(version_mismatch((12, 9), (13, 0)), None);
        assert_eq!(version_mismatch((13, 0), (13, 0)), None);
    }
}
