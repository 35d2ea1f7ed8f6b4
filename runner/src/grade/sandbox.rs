//! Each grading cell in a sandbox of its own, made by bubblewrap (`policy` says what the cell
//! sees). Two sides:
//! - the grader's: [`Sandbox`] finds out once whether a sandbox can be made here, and starts a
//!   cell's command inside one, handing it the hidden seed and the reference solutions through
//!   file descriptors (never a command line, never a path the cell's programs can open);
//! - the cell's: `runner grade sandbox` is its first process. It makes the cell's own copies
//!   ([`Setup`]), reads the seed, sets the limits (limits set on itself hold for every process
//!   it starts), makes itself non-dumpable (so that a student's program, a child of the check,
//!   can neither read its memory nor open its descriptors) and then runs the check in its own
//!   process. When it ends, bubblewrap ends, and the kernel ends every process left in the
//!   cell's PID namespace (a `setsid` child included).

use super::policy::{Cell, Policy, Setup, Trust};
use crate::course::{Course, Exercise};
use anyhow::Context;
use clap::Parser;
use rlimit::Resource;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A check writes its report and the compile cache; more than this is a runaway kernel's output.
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Descriptors handed into a sandbox are moved at or above this, clear of the grader's own.
const FIRST_HANDED_FD: RawFd = 100;

/// The exit code of a check that ran out of room in the cell's folders: only the cell's own
/// programs fill them, so the cell is graded (crashed), not left for `--resume` as an error.
pub const DISK_FULL_EXIT: u8 = 3;

/// The flag an instructor passes to grade whole programs where no sandbox can be made.
pub const NO_SANDBOX_FLAG: &str = "--no-sandbox-i-trust-these-programs";

pub struct Limits {
    /// Data memory (heap and private writable mappings), not address space: a CUDA context and
    /// each thread's malloc arena reserve far more address space than they use.
    pub memory_mb: u64,
    pub cpu_seconds: u64,
}

/// Why no sandbox can be made on this machine, as the instructor reads it.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
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
pub struct Sandbox {
    pub policy: Policy,
    /// Each exercise's reference solutions (the solution, a tuned one), by id.
    pub solutions: BTreeMap<String, Vec<PathBuf>>,
    /// The Rust programs' exercises: their cells build.
    pub rust_programs: Vec<String>,
}

impl Sandbox {
    /// A sandbox of this policy, after trying one: bubblewrap is there and may make namespaces.
    pub fn try_new(
        policy: Policy,
        solutions: BTreeMap<String, Vec<PathBuf>>,
        rust_programs: Vec<String>,
    ) -> Result<Sandbox, Unavailable> {
        let output = Command::new(super::policy::BWRAP)
            .args([
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
            ])
            .output();
        match output {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Unavailable::NotInstalled),
            Err(e) => Err(Unavailable::Refused(e.to_string())),
            Ok(o) if o.status.success() => {
                let _ = policy.make_folders();
                Ok(Sandbox {
                    policy,
                    solutions,
                    rust_programs,
                })
            }
            Ok(o) => Err(Unavailable::Refused(
                String::from_utf8_lossy(&o.stderr).trim().to_string(),
            )),
        }
    }

    /// The cell for a check of `exercise` on `kernel`: a student's unless it is the course's
    /// own file (the preflight, which builds and compiles for the class).
    pub fn cell(&self, exercise: &str, kernel: &Path) -> Cell {
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
    /// every exercise), to be handed in by descriptor.
    pub fn solutions_of(&self, exercise: &str) -> Vec<(PathBuf, RawFd)> {
        self.solutions
            .iter()
            .filter(|(id, _)| exercise.is_empty() || *id == exercise)
            .flat_map(|(_, paths)| paths.iter().map(|p| (p.clone(), -1)))
            .collect()
    }
}

/// The sandbox a class is graded in: `hidden` are the grader's paths (submissions, grade book,
/// grading file, scratch). Where none can be made, whole programs are refused unless the
/// instructor opted out by name; kernels (compiled and run by the simulator or the GPU, never
/// as the student's own process) are checked as before, with a note.
pub fn for_class(
    course: &Course,
    exercises: &[Exercise],
    exe: &Path,
    hidden: Vec<PathBuf>,
    disk_mb: u64,
    no_sandbox: bool,
) -> anyhow::Result<Option<Sandbox>> {
    let rust_programs = exercises
        .iter()
        .filter(|e| e.is_host() && !e.is_python())
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

/// `runner COMMAND...` under `limits`, in a sandbox for `cell` where there is one, with `seed`
/// handed over on a descriptor: it never reaches a command line. The command's own variables
/// are set on the returned command as on any other; its descriptors live as long as it does.
pub fn command(
    exe: &Path,
    limits: &Limits,
    sandbox: Option<(&Sandbox, Cell)>,
    seed: Option<u64>,
    command: &[OsString],
) -> std::io::Result<Sandboxed> {
    let mut handed = Vec::new();
    let mut seed_fd = None;
    if let Some(seed) = seed {
        let (reader, mut writer) = std::io::pipe()?;
        writer.write_all(seed.to_string().as_bytes())?;
        drop(writer);
        let fd = hand(OwnedFd::from(reader))?;
        seed_fd = Some(fd.as_raw_fd());
        handed.push(fd);
    }
    let (mut outer, setup) = match sandbox {
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
    outer
        .args(["grade", "sandbox", "--memory-mb"])
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
pub struct Sandboxed {
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

// ---- Inside the sandbox ----

fn set(resource: Resource, value: u64, name: &str) -> anyhow::Result<()> {
    let (_, hard) =
        rlimit::getrlimit(resource).with_context(|| format!("cannot read the {name} limit"))?;
    let value = value.min(hard);
    rlimit::setrlimit(resource, value, value)
        .with_context(|| format!("cannot set the {name} limit to {value}"))
}

/// Copies the regular files and folders of `from` into `to` (links are left out: a staged
/// submission holds none, and one would lead out of the cell's folder).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

/// The programs a build folder holds (`debug/ex25_first_program`, beside its `.d`): the
/// exercises' own packages, which each cell builds again from its student's file. Every file
/// of theirs (`deps/ex25_first_program-1a2b...`, its fingerprint) starts with the name.
fn programs_built_in(folder: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(folder.join("debug")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let program = name.strip_suffix(".d")?.to_string();
            folder
                .join("debug")
                .join(&program)
                .is_file()
                .then_some(program)
        })
        .collect()
}

/// Whether cargo may find `name` linked from the prebuilt build folder: not the exercises' own
/// programs (built again, over the same names) nor a lock file (opened for writing).
fn linked(name: &str, programs: &[String]) -> bool {
    !(name.ends_with(".lock")
        || name == ".cargo-lock"
        || programs.iter().any(|p| name.starts_with(p.as_str())))
}

/// Mirrors the folders of `from` in `to` and links each file: cargo finds the dependencies
/// built, and writes what it builds beside them in the cell's own folder.
fn link_tree(from: &Path, to: &Path, programs: &[String]) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if !linked(&name.to_string_lossy(), programs) {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            link_tree(&source, &target, programs)?;
        } else {
            std::os::unix::fs::symlink(&source, &target)?;
        }
    }
    Ok(())
}

/// Reads the seed from its descriptor, then closes it.
fn read_seed(fd: RawFd) -> anyhow::Result<u64> {
    // SAFETY: the grader handed this descriptor to this process alone, for this read.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let mut text = String::new();
    file.read_to_string(&mut text)
        .context("cannot read the seed the grader handed over")?;
    text.trim()
        .parse()
        .with_context(|| format!("the grader handed over {text:?} as the seed"))
}

/// What a child process must not get: this process's reference solutions, and its memory.
fn keep_to_this_process(solution_fds: &[RawFd]) -> anyhow::Result<()> {
    for &fd in solution_fds {
        // SAFETY: fcntl(2) on a descriptor number; it touches no memory of this process.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } == -1 {
            return Err(std::io::Error::last_os_error())
                .context("cannot keep a reference solution from the check's children");
        }
    }
    // SAFETY: prctl(2) with integer arguments only.
    let (dumpable, no_new_privileges) = unsafe {
        (
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0),
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
        )
    };
    if dumpable == -1 || no_new_privileges == -1 {
        return Err(std::io::Error::last_os_error())
            .context("cannot keep the check's memory from its children");
    }
    Ok(())
}

/// Makes the cell's own folders as `setup` says.
fn prepare(setup: &Setup) -> anyhow::Result<()> {
    if let Some(home) = &setup.home {
        std::fs::create_dir_all(home).with_context(|| format!("cannot make {}", home.display()))?;
    }
    if let Some(copy) = &setup.staged {
        copy_tree(&copy.from, &copy.to).with_context(|| {
            format!(
                "cannot copy the submission's files into the cell ({})",
                copy.to.display()
            )
        })?;
    }
    if let Some(links) = &setup.prebuilt {
        let programs = programs_built_in(&links.from);
        link_tree(&links.from, &links.to, &programs).with_context(|| {
            format!(
                "cannot link the prebuilt build folder into the cell ({})",
                links.to.display()
            )
        })?;
    }
    Ok(())
}

/// The sandbox's first process: prepares the cell, then runs `command` (a runner command line)
/// in this same process under the limits.
pub fn run(
    limits: &Limits,
    setup: Option<&str>,
    command: &[OsString],
) -> anyhow::Result<std::process::ExitCode> {
    let setup: Setup = match setup {
        Some(json) => {
            serde_json::from_str(json).context("the grader's sandbox setup is damaged")?
        }
        None => Setup::default(),
    };
    prepare(&setup)?;
    let seed = setup.seed_fd.map(read_seed).transpose()?;
    set(Resource::DATA, limits.memory_mb << 20, "data memory")?;
    set(Resource::CPU, limits.cpu_seconds, "CPU time")?;
    set(Resource::FSIZE, MAX_FILE_BYTES, "file size")?;
    // A crash must not leave a core file of the grader's size behind for every student.
    set(Resource::CORE, 0, "core file")?;
    if setup.processes > 0 {
        set(Resource::NPROC, setup.processes, "process count")?;
    }
    keep_to_this_process(&setup.solution_fds)?;
    let arguments = std::iter::once(OsString::from("runner")).chain(command.iter().cloned());
    let mut cli = crate::cli::Cli::try_parse_from(arguments)
        .context("the grader asked the sandbox for a command the runner does not know")?;
    if let (Some(seed), crate::cli::Command::Check(args)) = (seed, &mut cli.command) {
        args.seed = Some(seed);
    }
    crate::cmd::run(cli.command).or_else(|err| {
        eprintln!("Error: {err:#}");
        Ok(std::process::ExitCode::from(error_exit(&err)))
    })
}

/// The exit code of a check that ended in `err`: [`DISK_FULL_EXIT`] where the cell's folders
/// were full, else 2, as `runner check` gives.
fn error_exit(err: &anyhow::Error) -> u8 {
    let full = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull)
    });
    if full {
        DISK_FULL_EXIT
    } else {
        2
    }
}

/// The folder a staged kernel or program is checked from: its own folder (a Rust program's
/// `src/`, with the modules beside `main.rs`).
pub fn staged_folder(kernel: &Path) -> Option<PathBuf> {
    kernel.parent().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exercises_own_packages_and_lock_files_are_not_linked() {
        let skip = vec!["ex25_first_program".to_string()];
        assert!(linked("libcudarc-1234.rlib", &skip));
        assert!(linked("hostkit-99", &skip));
        assert!(!linked("ex25_first_program-abcd", &skip));
        assert!(!linked("ex25_first_program", &skip));
        assert!(!linked("ex25.lock", &skip));
        assert!(!linked(".cargo-lock", &skip));
    }

    #[test]
    fn a_prebuilt_folder_is_linked_file_by_file_into_a_writable_one() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        std::fs::create_dir_all(from.join("debug/deps")).unwrap();
        std::fs::write(from.join("debug/deps/libcudarc.rlib"), "rlib").unwrap();
        std::fs::write(from.join("debug/deps/ex25_first_program-1"), "old").unwrap();
        std::fs::write(from.join("debug/ex25_first_program"), "old").unwrap();
        std::fs::write(from.join("debug/ex25_first_program.d"), "").unwrap();
        std::fs::write(from.join("ex25.lock"), "").unwrap();
        let programs = programs_built_in(&from);
        assert_eq!(programs, ["ex25_first_program"]);
        link_tree(&from, &to, &programs).unwrap();
        let linked = to.join("debug/deps/libcudarc.rlib");
        assert_eq!(
            std::fs::read_link(&linked).unwrap(),
            from.join("debug/deps/libcudarc.rlib")
        );
        assert!(!to.join("debug/deps/ex25_first_program-1").exists());
        assert!(!to.join("debug/ex25_first_program").exists());
        assert!(!to.join("ex25.lock").exists());
        std::fs::write(to.join("debug/deps/new"), "built in the cell").unwrap();
    }

    #[test]
    fn a_check_that_found_its_folders_full_says_so_in_its_exit_code() {
        let full = anyhow::Error::new(std::io::Error::from_raw_os_error(libc::ENOSPC))
            .context("cannot write the case");
        assert_eq!(error_exit(&full), DISK_FULL_EXIT);
        assert_eq!(error_exit(&anyhow::anyhow!("no such exercise")), 2);
    }

    #[test]
    fn the_seed_is_read_from_its_descriptor_once() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        writer.write_all(b"987654321").unwrap();
        drop(writer);
        let fd = OwnedFd::from(reader);
        let raw = fd.as_raw_fd();
        std::mem::forget(fd);
        assert_eq!(read_seed(raw).unwrap(), 987654321);
        // SAFETY: fcntl(2) on a number: the descriptor was closed by the read.
        assert_eq!(unsafe { libc::fcntl(raw, libc::F_GETFD) }, -1);
    }
}
