//! `runner grade sandbox`: sets the limits one check runs under, then replaces itself with that
//! check. Limits set on itself pass to the program it becomes, so no unsafe code is needed to
//! set them between fork and exec.

use anyhow::Context;
use rlimit::Resource;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;

/// A check writes its report and the compile cache; more than this is a runaway kernel's output.
const MAX_FILE_BYTES: u64 = 256 << 20;

pub struct Limits {
    /// Data memory (heap and private writable mappings), not address space: a CUDA context and
    /// each thread's malloc arena reserve far more address space than they use.
    pub memory_mb: u64,
    pub cpu_seconds: u64,
}

fn set(resource: Resource, value: u64, name: &str) -> anyhow::Result<()> {
    let (_, hard) =
        rlimit::getrlimit(resource).with_context(|| format!("cannot read the {name} limit"))?;
    let value = value.min(hard);
    rlimit::setrlimit(resource, value, value)
        .with_context(|| format!("cannot set the {name} limit to {value}"))
}

pub fn run(limits: &Limits, command: &[OsString]) -> anyhow::Result<std::process::ExitCode> {
    set(Resource::DATA, limits.memory_mb << 20, "data memory")?;
    set(Resource::CPU, limits.cpu_seconds, "CPU time")?;
    set(Resource::FSIZE, MAX_FILE_BYTES, "file size")?;
    // A crash must not leave a core file of the grader's size behind for every student.
    set(Resource::CORE, 0, "core file")?;
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let err = std::process::Command::new(exe).args(command).exec();
    Err(err).context("cannot start the check inside the sandbox")
}
