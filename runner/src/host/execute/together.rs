//! A Python program's cases in one process: hostkit's case runner (`hostkit_cases.py`) runs
//! the program on each case's folder in turn in one interpreter, so Python's start and Numba's
//! import are paid once a check rather than once a case, and leaves in each folder what a
//! process of its own would have left: output, outputs, the driver's record of the case (cut by
//! the driver between cases) and the exit code. Each case keeps its own limits: the CPU limit is
//! raised by the case runner before each case, and the wall-clock backstop counts from the
//! case's start. A case the case runner could not finish as a process of its own would (it ended
//! the interpreter, crashed, left a thread or an exit function behind) is run again alone, so
//! it fails, or passes, as itself; one that used up its time is judged on what it left, as it
//! would be alone. Where a case left something in the driver that the next would see, the
//! next cases start in a new process.

use super::{Exit, Run};
use crate::driver_env::DriverEnv;
use crate::host::build::Built;
use crate::process::{self, Child as _, Clock as _, WallClock};
use anyhow::Context;
use checks::HostCase;
use std::cell::Cell;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

/// What the case runner leaves in a case's folder (as `hostkit_cases.py` names them): a mark
/// when the case starts, and its exit code and the driver's record once it has ended.
const STARTED: &str = "started";
const EXIT: &str = "exit.txt";
const RECORD: &str = "record.json";

/// Runs `program` (the case runner's command, to which the case folders are added) on every
/// case; the runs in the cases' order.
pub(in crate::host) fn run(
    built: &Built,
    program: &[std::ffi::OsString],
    cases: &[HostCase],
    driver: &DriverEnv,
    limit: Duration,
) -> anyhow::Result<Vec<Run>> {
    let folders = cases
        .iter()
        .map(super::prepare)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut runs = Vec::with_capacity(cases.len());
    while runs.len() < cases.len() {
        let first = runs.len();
        let process = one_process(built, program, &folders[first..], driver, limit)?;
        let mut since = process.started_at;
        for (case, folder) in cases.iter().zip(&folders).skip(first) {
            let Some((code, ended_at)) = ended(folder.path()) else {
                break;
            };
            let seconds = seconds_between(since, ended_at);
            let record = folder.path().join(RECORD);
            let exit = Exit::Code(code);
            runs.push(super::read_run(
                folder.path(),
                case,
                exit,
                seconds,
                Some(&record),
            )?);
            since = ended_at;
        }
        let Some((case, folder)) = cases.iter().zip(&folders).nth(runs.len()) else {
            break;
        };
        let started = folder.path().join(STARTED).exists();
        match process.exit {
            // Out of time in the case: alone it would have been too (its limits were its own),
            // and run again it would take as long.
            Exit::OutOfCpu(_) | Exit::TimedOut if started => {
                let seconds = process.last_case_seconds;
                let run = super::read_run(folder.path(), case, process.exit, seconds, None)?;
                runs.push(run);
            }
            // The case ended the interpreter (or never started: the case runner itself
            // failed): run alone, it says how it ends.
            _ if started || runs.len() == first => {
                runs.push(super::run_case(built, case, driver, limit)?);
            }
            // The case runner stopped after a case that left something in the driver: the
            // next cases start in a new process.
            _ => {}
        }
    }
    Ok(runs)
}

/// How the case runner's process ended.
struct Ended {
    exit: Exit,
    /// When it started.
    started_at: SystemTime,
    /// How long the last case it started had run when it ended.
    last_case_seconds: f64,
}

/// Runs the case runner once on `folders`' cases, until it ends, stops itself, or a case runs
/// past the wall-clock backstop.
fn one_process(
    built: &Built,
    program: &[std::ffi::OsString],
    folders: &[TempDir],
    driver: &DriverEnv,
    limit: Duration,
) -> anyhow::Result<Ended> {
    let (name, arguments) = program.split_first().context("no program to run")?;
    let mut command = Command::new(name);
    command
        .args(arguments)
        .args(folders.iter().map(TempDir::path));
    let cpu_seconds = super::cpu_seconds(limit);
    // The first case's limit is the process's; the case runner raises it before each later
    // case, within the hard limit (each case's and a second each).
    let hard = (cpu_seconds + 1) * folders.len() as u64;
    let limits = super::limits(cpu_seconds, hard)?;
    super::program_command(&mut command, built, driver, limits)?;
    // What the case runner says between cases is no case's.
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let started_at = SystemTime::now();
    let clock = WallClock::start();
    let mut child = process::Group::spawn(&mut command)
        .with_context(|| format!("cannot start {}", name.to_string_lossy()))?;
    let backstop = limit * super::WALL_BACKSTOP_FACTOR;
    let progress = Progress::new(folders, &clock);
    let overdue = || progress.case_seconds() >= backstop;
    let whole = backstop * (folders.len() as u32 + 1);
    let waited = process::wait(&mut child, whole, &overdue, &clock, super::MAX_PAUSE)?;
    child.end_group();
    let last_case_seconds = progress.case_seconds().as_secs_f64();
    Ok(Ended {
        exit: super::exit_of(waited, cpu_seconds),
        started_at,
        last_case_seconds,
    })
}

/// Which case the case runner is on, and since when (on `clock`), from the marks it leaves.
struct Progress<'a> {
    folders: &'a [TempDir],
    clock: &'a WallClock,
    /// How many cases have started, and when the last of them did.
    started: Cell<(usize, Duration)>,
}

impl<'a> Progress<'a> {
    fn new(folders: &'a [TempDir], clock: &'a WallClock) -> Progress<'a> {
        Progress {
            folders,
            clock,
            started: Cell::new((0, Duration::ZERO)),
        }
    }

    /// How long the case under way has run (the first from the process's start).
    fn case_seconds(&self) -> Duration {
        let (mut count, mut since) = self.started.get();
        // The first case's mark counts from the process's start, as a case run alone does.
        let marked = |n: usize| self.folders[n].path().join(STARTED).exists();
        while count < self.folders.len() && marked(count) {
            if count > 0 {
                since = self.clock.elapsed();
            }
            count += 1;
        }
        self.started.set((count, since));
        self.clock.elapsed().saturating_sub(since)
    }
}

/// The exit code of a case that ended, and when it ended (when its code was written).
fn ended(folder: &Path) -> Option<(i32, SystemTime)> {
    let path = folder.join(EXIT);
    let code = std::fs::read_to_string(&path).ok()?.trim().parse().ok()?;
    let at = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    Some((code, at))
}

fn seconds_between(from: SystemTime, to: SystemTime) -> f64 {
    to.duration_since(from).unwrap_or_default().as_secs_f64()
}
