//! Running a host program on one case: the case written where hostkit reads it, the program
//! started on the simulator's driver with a limit on its CPU time (and a wall-clock backstop for
//! one that sleeps) and its output kept within bounds, then its outputs and the driver's record
//! read back. The limit is CPU time, not wall time, because a loaded machine (a grader running a
//! check per core, CI beside other jobs) stretches a program's wall time but not its work: a
//! correct program must not become a hang because the machine was busy.

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
const WALL_BACKSTOP_FACTOR: u32 = 4;

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
    let dir = crate::ending::tempdir().context("cannot make a folder for the case")?;
    write_case(dir.path(), case)?;
    let (out_path, err_path) = (dir.path().join("stdout.txt"), dir.path().join("stderr.txt"));
    let (program, arguments) = built.command.split_first().context("no program to run")?;
    let mut command = Command::new(program);
    command.args(arguments);
    driver.apply(&mut command);
    for (name, value) in &built.variables {
        command.env(name, value);
    }
    // A check fails any access past a buffer, even one a GPU's allocation granule would hide:
    // said explicitly, so a `run` policy left in the student's shell cannot relax it.
    command
        .env("SIMCUDA_FAULT_POLICY", "check")
        .env(hostkit::CASE_VARIABLE, dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?);
    // Killed with the runner: the program runs in a process group of its own (so a time limit
    // can end it with everything it started), which a terminal's Ctrl-C does not reach; without
    // this, Ctrl-C during a check ended the runner and left a hanging program running.
    let cpu_seconds = limit.as_secs_f64().ceil().max(1.0) as u64;
    crate::os::limit_and_end_with(&mut command, limits(cpu_seconds)?, std::process::id());
    let clock = process::WallClock::start();
    let mut child = process::Group::spawn(&mut command)
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let max_pause = Duration::from_millis(5);
    let backstop = limit * WALL_BACKSTOP_FACTOR;
    let exit = match process::wait(&mut child, backstop, &|| false, &clock, max_pause)? {
        Waited::Exited(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (_, Some(libc::SIGXCPU)) => Exit::OutOfCpu(cpu_seconds),
            (_, Some(signal)) => Exit::Signal(signal),
            _ => Exit::Code(-1),
        },
        Waited::TimedOut | Waited::Cancelled => Exit::TimedOut,
    };
    // The whole group, whichever way the program ended: what it started in the background ends
    // with it.
    child.end_group();
    let tail = |path: &Path| crate::process::read_tail(path, MAX_OUTPUT);
    let output = format!("{}{}", tail(&out_path), tail(&err_path));
    let record = match std::fs::read_to_string(driver.record_path()).map(|t| record::parse(&t)) {
        Ok(Ok(record)) => Some(record),
        // Another build's driver: every case would be misjudged, so the check stops here.
        Ok(Err(e @ record::ReadError::OtherVersion { .. })) => return Err(e.into()),
        Ok(Err(record::ReadError::Malformed(_))) | Err(_) => None,
    };
    let outputs = case
        .expected
        .iter()
        .map(|(name, want)| (*name, read_output(dir.path(), name, want)))
        .collect();
    let read_in_flight = case
        .expected
        .iter()
        .filter_map(|(name, _)| {
            let marker = dir.path().join(format!("out_{name}.in_flight"));
            let bytes = std::fs::read_to_string(marker).ok()?.trim().parse().ok()?;
            Some((*name, bytes))
        })
        .collect();
    Ok(Run {
        exit,
        seconds: process::Clock::elapsed(&clock).as_secs_f64(),
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
/// ends a program that does not catch it; one that does is killed a second later by the hard
/// value.
fn limits(cpu_seconds: u64) -> std::io::Result<Vec<(rlimit::Resource, u64, u64)>> {
    use rlimit::Resource;
    let (soft_cpu, hard_cpu) = Resource::CPU.get()?;
    let mut limits = vec![(
        Resource::CPU,
        cpu_seconds.min(soft_cpu),
        (cpu_seconds + 1).min(hard_cpu),
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
