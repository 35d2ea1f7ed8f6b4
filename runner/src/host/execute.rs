//! Running a host program on one case: the case written where hostkit reads it, the program
//! started on the simulator's driver with a limit on its CPU time (and a wall-clock backstop for
//! one that sleeps) and its output kept within bounds, then its outputs and the driver's record
//! read back. The limit is CPU time, not wall time, because a loaded machine (a grader running a
//! check per core, CI beside other jobs) stretches a program's wall time but not its work: a
//! correct program must not become a hang because the machine was busy.

mod together;

use super::build::Built;
use super::record::{self, Record};
use crate::driver_env::DriverEnv;
use crate::process::{self, Child as _, Waited};
use anyhow::Context;
use checks::{HostCase, HostData};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The most of a program's output a report keeps (its end, where errors are).
const MAX_OUTPUT: u64 = 16 << 10;

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Exit {
    Code(i32),
    Signal(i32),
    /// Still running at the wall-clock backstop (a program that waits, or sleeps, for ever).
    TimedOut,
    /// Stopped on using its limit of CPU time, in seconds (a loop that never ends).
    OutOfCpu(u64),
}

/// How many times its CPU limit a program may take in wall time before it is stopped as a hang:
/// room for a machine that runs several checks per core.
pub(super) const WALL_BACKSTOP_FACTOR: u32 = 4;

/// One run of the program on one case.
pub(super) struct Run {
    pub exit: Exit,
    pub seconds: f64,
    /// The end of what the program printed, stdout then stderr.
    pub output: String,
    /// The driver's record; None where the program ended before the driver could write it
    /// (or wrote only part of it).
    pub record: Option<Record>,
    /// The outputs the program handed back, by name, as the case expects them.
    pub outputs: Vec<(&'static str, Option<HostData>)>,
    /// Outputs handed back while a copy into them was still in flight (hostkit asks the
    /// course's driver), with the bytes still to come.
    pub read_in_flight: Vec<(&'static str, u64)>,
}

pub(super) fn run_case(
    built: &Built,
    case: &HostCase,
    driver: &DriverEnv,
    limit: Duration,
) -> anyhow::Result<Run> {
    let dir = prepare(case)?;
    let (program, arguments) = built.command.split_first().context("no program to run")?;
    let mut command = Command::new(program);
    command.args(arguments);
    let cpu_seconds = cpu_seconds(limit);
    program_command(
        &mut command,
        built,
        driver,
        limits(cpu_seconds, cpu_seconds + 1)?,
    )?;
    command
        .env(hostkit::CASE_VARIABLE, dir.path())
        .stdout(std::fs::File::create(dir.path().join(STDOUT))?)
        .stderr(std::fs::File::create(dir.path().join(STDERR))?);
    let clock = process::WallClock::start();
    let mut child = process::Group::spawn(&mut command)
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let backstop = limit * WALL_BACKSTOP_FACTOR;
    let waited = process::wait(&mut child, backstop, &|| false, &clock, MAX_PAUSE)?;
    // The whole group, whichever way the program ended: what it started in the background ends
    // with it.
    child.end_group();
    let exit = exit_of(waited, cpu_seconds);
    let seconds = process::Clock::elapsed(&clock).as_secs_f64();
    read_run(dir.path(), case, exit, seconds, Some(&driver.record_path()))
}

/// Runs the program on every case, in the cases' order: all in one process where the program
/// can be run so (a Python program, on the simulator: `together`), else a process each.
pub(super) fn run_all(
    built: &Built,
    cases: &[HostCase],
    driver: &DriverEnv,
    limit: Duration,
    one_process: bool,
) -> anyhow::Result<Vec<Run>> {
    match &built.cases_together {
        Some(program) if one_process && cases.len() > 1 => {
            together::run(built, program, cases, driver, limit)
        }
        _ => (cases.iter())
            .map(|case| run_case(built, case, driver, limit))
            .collect(),
    }
}

/// How often, at most, a program's end is looked for.
pub(super) const MAX_PAUSE: Duration = Duration::from_millis(5);

/// The files a program's stdout and stderr go to, in its case's folder.
pub(super) const STDOUT: &str = "stdout.txt";
pub(super) const STDERR: &str = "stderr.txt";

/// A folder with `case` written where hostkit reads it.
pub(super) fn prepare(case: &HostCase) -> anyhow::Result<tempfile::TempDir> {
    let dir = crate::ending::tempdir().context("cannot make a folder for the case")?;
    write_case(dir.path(), case)?;
    Ok(dir)
}

/// The CPU seconds a case may use, from its wall-clock `limit`.
pub(super) fn cpu_seconds(limit: Duration) -> u64 {
    limit.as_secs_f64().ceil().max(1.0) as u64
}

/// Sets `command` up to run a program on the course's driver, within `limits`, with no input.
pub(super) fn program_command(
    command: &mut Command,
    built: &Built,
    driver: &DriverEnv,
    limits: Vec<(rlimit::Resource, u64, u64)>,
) -> anyhow::Result<()> {
    driver.apply(command);
    for (name, value) in &built.variables {
        command.env(name, value);
    }
    // A check fails any access past a buffer, even one a GPU's allocation granule would hide:
    // said explicitly, so a `run` policy left in the student's shell cannot relax it.
    command
        .env("SIMCUDA_FAULT_POLICY", "check")
        .stdin(Stdio::null());
    // Killed with the runner: the program runs in a process group of its own (so a time limit
    // can end it with everything it started), which a terminal's Ctrl-C does not reach; without
    // this, Ctrl-C during a check ended the runner and left a hanging program running.
    crate::os::limit_and_end_with(command, limits, std::process::id());
    Ok(())
}

/// How a wait for a program with `cpu_seconds` of CPU time ended, as a run's exit.
pub(super) fn exit_of(waited: Waited, cpu_seconds: u64) -> Exit {
    match waited {
        Waited::Exited(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (_, Some(libc::SIGXCPU)) => Exit::OutOfCpu(cpu_seconds),
            (_, Some(signal)) => Exit::Signal(signal),
            _ => Exit::Code(-1),
        },
        Waited::TimedOut | Waited::Cancelled => Exit::TimedOut,
    }
}

/// The run of a program on the case in `dir` that ended as `exit` after `seconds`: its output,
/// the driver's record at `record_path` (none where the program was stopped), and the outputs it
/// handed back.
pub(super) fn read_run(
    dir: &Path,
    case: &HostCase,
    exit: Exit,
    seconds: f64,
    record_path: Option<&Path>,
) -> anyhow::Result<Run> {
    let tail = |name: &str| crate::process::read_tail(&dir.join(name), MAX_OUTPUT);
    let output = format!("{}{}", tail(STDOUT), tail(STDERR));
    let text = record_path.and_then(|path| std::fs::read_to_string(path).ok());
    let record = match text.map(|t| record::parse(&t)) {
        Some(Ok(record)) => Some(record),
        // Another build's driver: every case would be misjudged, so the check stops here.
        Some(Err(e @ record::ReadError::OtherVersion { .. })) => return Err(e.into()),
        Some(Err(record::ReadError::Malformed(_))) | None => None,
    };
    let outputs = case
        .expected
        .iter()
        .map(|(name, want)| (*name, read_output(dir, name, want)))
        .collect();
    let read_in_flight = case
        .expected
        .iter()
        .filter_map(|(name, _)| {
            let marker = dir.join(format!("out_{name}.in_flight"));
            let bytes = std::fs::read_to_string(marker).ok()?.trim().parse().ok()?;
            Some((*name, bytes))
        })
        .collect();
    Ok(Run {
        exit,
        seconds,
        output,
        record,
        outputs,
        read_in_flight,
    })
}

/// The most heap a program may take (the simulator keeps device memory in it too): a program
/// that allocates without end fails its allocation, and the machine keeps its memory.
pub const MEMORY_LIMIT_BYTES: u64 = 8 << 30;
/// The most a program may write to one file (its output, the driver's record).
const FILE_LIMIT_BYTES: u64 = 256 << 20;

/// The program's limits, each a resource with its soft and hard values, never above the
/// runner's own (which the program inherits). The CPU limit's soft value sends SIGXCPU, which
/// ends a program that does not catch it; one that does is killed by the hard value
/// (`hard_cpu_seconds`, a second later for a program alone).
pub(super) fn limits(
    cpu_seconds: u64,
    hard_cpu_seconds: u64,
) -> std::io::Result<Vec<(rlimit::Resource, u64, u64)>> {
    use rlimit::Resource;
    let (soft_cpu, hard_cpu) = Resource::CPU.get()?;
    let mut limits = vec![(
        Resource::CPU,
        cpu_seconds.min(soft_cpu),
        hard_cpu_seconds.min(hard_cpu),
    )];
    for (resource, value) in [
        (Resource::DATA, MEMORY_LIMIT_BYTES),
        (Resource::FSIZE, FILE_LIMIT_BYTES),
        (Resource::CORE, 0),
    ] {
        let (_, hard) = resource.get()?;
        limits.push((resource, value.min(hard), value.min(hard)));
    }
    Ok(limits)
}

/// The case as hostkit reads it: `params.txt`, and one file of raw elements per input.
fn write_case(dir: &Path, case: &HostCase) -> anyhow::Result<()> {
    let params: String = case
        .params
        .iter()
        .map(|(name, value)| format!("{name} = {value}\n"))
        .collect();
    std::fs::write(dir.join("params.txt"), params)?;
    for (name, data) in &case.inputs {
        let file = dir.join(format!("{name}.{}", checks::host::suffix(data)));
        std::fs::write(file, data.as_bytes())?;
    }
    Ok(())
}

/// Output `name`, read as the type of `want`; None where the program wrote none. A file of
/// another length is read as it is (the comparison says the length is wrong).
fn read_output(dir: &Path, name: &str, want: &HostData) -> Option<HostData> {
    let path = dir.join(format!("out_{name}.{}", checks::host::suffix(want)));
    let limit = want.byte_len() as u64 + 4096;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(limit)
        .read_to_end(&mut bytes)
        .ok()?;
    let mut data = match want {
        HostData::F32(_) => HostData::F32(vec![0.0; bytes.len() / 4]),
        HostData::F64(_) => HostData::F64(vec![0.0; bytes.len() / 8]),
        HostData::I32(_) => HostData::I32(vec![0; bytes.len() / 4]),
        HostData::U32(_) => HostData::U32(vec![0; bytes.len() / 4]),
        HostData::U8(_) => HostData::U8(vec![0; bytes.len()]),
    };
    let whole = data.byte_len();
    data.as_bytes_mut().copy_from_slice(&bytes[..whole]);
    Some(data)
}
