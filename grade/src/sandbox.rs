//! Each grading cell in a sandbox of its own, made by bubblewrap (`policy` says what the cell
//! sees). Two sides:
//! - the grader's: [`Sandbox`] finds out once whether a sandbox can be made here, and starts a
//!   cell's command inside one, handing it the hidden seed and the reference solutions through
//!   file descriptors (never a command line, never a path the cell's programs can open);
//! - the cell's (`inside`): `runner grade sandbox` is its first process, which prepares the
//!   cell, takes the seed, sets the limits and runs the check in its own, non-dumpable process.
//!   When it ends, bubblewrap ends, and the kernel ends every process left in the cell's PID
//!   namespace (a `setsid` child included).

mod inside;

pub(crate) use inside::run;

use super::policy::{Cell, Policy, Setup, Trust};
use runner::course::{Course, Exercise, Language};
use runner::process::{self, Clock, Group, Waited, WallClock};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Descriptors handed into a sandbox are moved at or above this, clear of the grader's own.
const FIRST_HANDED_FD: RawFd = 100;

/// The exit code of a check that ran out of room in the cell's folders: only the cell's own
/// programs fill them, so the cell is graded (crashed), not left for `--resume` as an error.
pub(crate) const DISK_FULL_EXIT: u8 = 3;

/// The flag an instructor passes to grade whole programs where no sandbox can be made.
pub(crate) const NO_SANDBOX_FLAG: &str = "--no-sandbox-i-trust-these-programs";

pub(crate) struct Limits {
    /// Data memory (heap and private writable mappings), not address space: a CUDA context and
    /// each thread's malloc arena reserve far more address space than they use.
    pub memory_mb: u64,
    pub cpu_seconds: u64,
}

/// Why no sandbox can be made on this machine, as the instructor reads it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unavailable {
    #[error(
        "bubblewrap (`{}`) is not installed, so students' programs cannot be run in a sandbox: \
         install it (Debian and Ubuntu: `apt install bubblewrap`; Fedora: `dnf install bubblewrap`)",
        super::policy::BWRAP
    )]
    NotInstalled,
    #[error(
        "bubblewrap cannot make a sandbox on this machine ({0}): it needs user namespaces (a \
         container may forbid them; sysctl kernel.unprivileged_userns_clone=1 where that setting \
         exists) or to be run as root"
    )]
    Refused(String),
}

/// Sandboxes for the cells of one run.
#[derive(Clone, Debug)]
pub(crate) struct Sandbox {
    pub policy: Policy,
    /// Each exercise's reference solutions (the solution, a tuned one), by id.
    pub solutions: BTreeMap<String, Vec<PathBuf>>,
    /// The Rust programs' exercises: their cells build.
    pub rust_programs: Vec<String>,
}

impl Sandbox {
    /// A sandbox of this policy, after trying one: bubblewrap is there and may make namespaces.
    pub(crate) fn try_new(
        policy: Policy,
        solutions: BTreeMap<String, Vec<PathBuf>>,
        rust_programs: Vec<String>,
    ) -> Result<Sandbox, Unavailable> {
        let mut trial = Command::new(super::policy::BWRAP);
        trial.args([
            "--unshare-all",
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
            "true",
        ]);
        try_sandbox(&mut trial, TRIAL_LIMIT, &WallClock::start())?;
        let _ = policy.make_folders();
        Ok(Sandbox {
            policy,
            solutions,
            rust_programs,
        })
    }

    /// The cell for a check of `exercise` on `kernel`: a student's unless it is the course's
    /// own file (the preflight, which builds and compiles for the class).
    pub(crate) fn cell(&self, exercise: &str, kernel: &Path) -> Cell {
        let course = kernel.starts_with(self.policy.course_root.join("exercises"));
        Cell {
            trust: if course {
                Trust::Course
            } else {
                Trust::Student
            },
            staged: if course { None } else { staged_folder(kernel) },
            solutions: self.solutions_of(exercise),
            seed_fd: None,
            shared: Vec::new(),
            read_only: Vec::new(),
            builds: self.rust_programs.iter().any(|p| p == exercise),
        }
    }

    /// The reference solutions of `exercise` (all of them where it is None: a worker checks
    /// every exercise), to be handed in by descriptor. Each file once: exercises share a tuned
    /// one (16 and 18 share transpose.cu), and bubblewrap refuses to place a path twice.
    pub(crate) fn solutions_of(&self, exercise: &str) -> Vec<(PathBuf, RawFd)> {
        let paths: std::collections::BTreeSet<&PathBuf> = self
            .solutions
            .iter()
            .filter(|(id, _)| exercise.is_empty() || *id == exercise)
            .flat_map(|(_, paths)| paths)
            .collect();
        paths.into_iter().map(|p| (p.clone(), -1)).collect()
    }
}

/// The sandbox a class is graded in: `hidden` are the grader's paths (submissions, grade book,
/// grading file, scratch). Where none can be made, whole programs are refused unless the
/// instructor opted out by name; kernels (compiled and run by the simulator or the GPU, never
/// as the student's own process) are checked as before, with a note.
pub(crate) fn for_class(
    course: &Course,
    exercises: &[Exercise],
    exe: &Path,
    hidden: Vec<PathBuf>,
    disk_mb: u64,
    no_sandbox: bool,
) -> anyhow::Result<Option<Sandbox>> {
    let rust_programs = exercises
        .iter()
        .filter(|e| e.language() == Some(Language::Rust))
        .map(|e| e.id.clone())
        .collect();
    let solutions = exercises
        .iter()
        .map(|e| {
            let paths = std::iter::once(course.solution_path(e))
                .chain(course.tuned_path(e))
                .collect();
            (e.id.clone(), paths)
        })
        .collect();
    let policy = Policy::for_run(&course.root, exe, hidden, disk_mb);
    match Sandbox::try_new(policy, solutions, rust_programs) {
        Ok(sandbox) => Ok(Some(sandbox)),
        Err(why) => match exercises.iter().find(|e| e.is_host()) {
            Some(program) if !no_sandbox => anyhow::bail!(
                "{why}. Exercise {} is a whole program, the student's own code: `runner grade` \
                 runs each in a sandbox of its own and will not run one without. Install \
                 bubblewrap, or pass {NO_SANDBOX_FLAG} to run the programs with your own rights \
                 (then only inside a container or a VM of their own)",
                program.id
            ),
            Some(_) => {
                eprintln!("Warning: {why}. The students' programs run with your own rights ({NO_SANDBOX_FLAG}).");
                Ok(None)
            }
            None => {
                eprintln!("Note: {why}. The kernels are checked without a sandbox.");
                Ok(None)
            }
        },
    }
}

/// What the grader hands a cell's first process on descriptors, never on a command line nor
/// at a path the cell's programs can open.
#[derive(Default)]
pub(crate) struct Handed {
    /// The hidden seed.
    pub seed: Option<u64>,
    /// The file a check writes its report to (`runner check`'s `json_file`), apart from what
    /// the kernel or program prints on stdout.
    pub report: Option<std::fs::File>,
}

/// How long bubblewrap may take to make a trial sandbox and run `true` in it.
const TRIAL_LIMIT: Duration = Duration::from_secs(30);

/// Runs `trial` (bubblewrap making a sandbox and running `true` in it) as any child of the
/// grader is run: in a process group of its own, ended past `limit` on `clock`. Where it fails,
/// what it said on stderr is why.
fn try_sandbox(trial: &mut Command, limit: Duration, clock: &dyn Clock) -> Result<(), Unavailable> {
    let refused = |e: std::io::Error| Unavailable::Refused(e.to_string());
    let mut said = tempfile::tempfile().map_err(refused)?;
    trial
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(said.try_clone().map_err(refused)?);
    let mut child = match Group::spawn(trial) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Unavailable::NotInstalled)
        }
        Err(e) => return Err(refused(e)),
        Ok(child) => child,
    };
    let pause = Duration::from_millis(20);
    match process::wait(&mut child, limit, &|| false, clock, pause).map_err(refused)? {
        Waited::Exited(status) if status.success() => Ok(()),
        Waited::Exited(status) => {
            let mut text = String::new();
            let _ = said.seek(std::io::SeekFrom::Start(0));
            let _ = said.take(64 << 10).read_to_string(&mut text);
            let text = text.trim();
            Err(Unavailable::Refused(if text.is_empty() {
                format!("it ended with {status} and said nothing")
            } else {
                text.to_string()
            }))
        }
        Waited::TimedOut | Waited::Cancelled => Err(Unavailable::Refused(format!(
            "it had made no sandbox after {} s and was stopped",
            limit.as_secs()
        ))),
    }
}

/// `runner COMMAND...` under `limits`, in a sandbox for `cell` where there is one, with the
/// seed and the report's file handed over on descriptors (`Handed`). The command's own
/// variables are set on the returned command as on any other; its descriptors live as long as
/// it does.
pub(crate) fn command(
    exe: &Path,
    limits: &Limits,
    sandbox: Option<(&Sandbox, Cell)>,
    given: Handed,
    command: &[OsString],
) -> std::io::Result<Sandboxed> {
    let mut handed = Vec::new();
    let mut seed_fd = None;
    if let Some(seed) = given.seed {
        let (reader, mut writer) = std::io::pipe()?;
        writer.write_all(seed.to_string().as_bytes())?;
        drop(writer);
        let fd = hand(OwnedFd::from(reader))?;
        seed_fd = Some(fd.as_raw_fd());
        handed.push(fd);
    }
    let mut report_fd = None;
    if let Some(report) = given.report {
        let fd = hand(OwnedFd::from(report))?;
        report_fd = Some(fd.as_raw_fd());
        handed.push(fd);
    }
    let (mut outer, mut setup) = match sandbox {
        Some((sandbox, mut cell)) => {
            cell.seed_fd = seed_fd;
            for (path, _) in std::mem::take(&mut cell.solutions) {
                // A course without a solution's file: the check says what it cannot judge.
                let Ok(file) = std::fs::File::open(&path) else {
                    continue;
                };
                let own = hand(OwnedFd::from(file))?;
                cell.solutions.push((path, own.as_raw_fd()));
                handed.push(own);
            }
            let (arguments, setup) = sandbox.policy.arguments(&cell);
            let mut outer = Command::new(super::policy::BWRAP);
            outer.args(arguments).arg("--").arg(exe);
            outer.env_clear().envs(sandbox.policy.environment());
            (outer, setup)
        }
        None => (
            Command::new(exe),
            Setup {
                seed_fd,
                ..Setup::default()
            },
        ),
    };
    setup.report_fd = report_fd;
    outer
        .args(["sandbox", "--memory-mb"])
        .arg(limits.memory_mb.to_string())
        .arg("--cpu-seconds")
        .arg(limits.cpu_seconds.to_string())
        .arg("--setup")
        .arg(serde_json::to_string(&setup).expect("a setup serialises"))
        .arg("--")
        .args(command);
    let fds: Vec<RawFd> = handed.iter().map(AsRawFd::as_raw_fd).collect();
    // SAFETY: between fork and exec only fcntl(2), which is async-signal-safe, on descriptors
    // this process owns until the command is dropped.
    unsafe {
        outer.pre_exec(move || {
            for &fd in &fds {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(Sandboxed {
        command: outer,
        _handed: handed,
    })
}

/// A command to start in a sandbox, with the descriptors it is handed: keep the whole value
/// until the command has been spawned (dropping it closes them, and the spawn then fails).
pub(crate) struct Sandboxed {
    pub command: Command,
    _handed: Vec<OwnedFd>,
}

/// A copy of `fd` at or above [`FIRST_HANDED_FD`], closed on exec in every other child.
fn hand(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    // SAFETY: fcntl(2) duplicates a descriptor this function owns; the new one is owned below.
    let copy = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, FIRST_HANDED_FD) };
    if copy == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(copy) })
}

/// The folder a staged kernel or program is checked from: its own folder (a Rust program's
/// `src/`, with the modules beside `main.rs`).
pub(crate) fn staged_folder(kernel: &Path) -> Option<PathBuf> {
    kernel.parent().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock on which the trial's time is always up.
    struct TimeIsUp;

    impl Clock for TimeIsUp {
        fn elapsed(&self) -> Duration {
            Duration::MAX
        }
        fn sleep(&self, _: Duration) {}
    }

    #[test]
    fn a_trial_sandbox_that_fails_hangs_or_is_not_there_says_why() {
        let limit = Duration::from_secs(30);
        let mut refused = Command::new("sh");
        refused.args([
            "-c",
            "echo 'No permissions to create new namespace' >&2; exit 1",
        ]);
        let why = try_sandbox(&mut refused, limit, &WallClock::start()).unwrap_err();
        assert_eq!(
            why.to_string(),
            Unavailable::Refused("No permissions to create new namespace".into()).to_string()
        );
        let mut hangs = Command::new("sleep");
        hangs.arg("600");
        let why = try_sandbox(&mut hangs, limit, &TimeIsUp).unwrap_err();
        assert!(
            why.to_string().contains("had made no sandbox after 30 s"),
            "{why}"
        );
        let mut missing = Command::new("/nonexistent/bwrap");
        assert!(matches!(
            try_sandbox(&mut missing, limit, &TimeIsUp),
            Err(Unavailable::NotInstalled)
        ));
        assert!(try_sandbox(&mut Command::new("true"), limit, &WallClock::start()).is_ok());
    }

    #[test]
    fn a_worker_is_handed_a_solution_two_exercises_share_once() {
        let course = Path::new("/course");
        let shared = course.join("solutions/tuned/transpose.cu");
        let own = |id: &str| course.join(format!("solutions/{id}/transpose.cu"));
        let sandbox = Sandbox {
            policy: Policy::for_run(course, &course.join("bin/runner"), Vec::new(), 64),
            solutions: BTreeMap::from([
                ("16".to_string(), vec![own("16"), shared.clone()]),
                ("18".to_string(), vec![own("18"), shared.clone()]),
            ]),
            rust_programs: Vec::new(),
        };
        let every: Vec<PathBuf> = sandbox.solutions_of("").into_iter().map(|s| s.0).collect();
        assert_eq!(every, vec![own("16"), own("18"), shared.clone()]);
        let one: Vec<PathBuf> = sandbox
            .solutions_of("18")
            .into_iter()
            .map(|s| s.0)
            .collect();
        assert_eq!(one, vec![own("18"), shared]);
    }
}
