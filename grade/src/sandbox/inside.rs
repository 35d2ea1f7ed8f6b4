//! `runner-grade sandbox`: the first process inside a cell's sandbox. It makes the cell's own
//! copies ([`Setup`]), reads the seed, sets the limits (limits set on itself hold for every
//! process it starts), makes itself non-dumpable (so that a student's program, a child of the
//! check, can neither read its memory nor open its descriptors) and then runs the check in its
//! own process. When it ends, bubblewrap ends, and the kernel ends every process left in the
//! cell's PID namespace.

use super::{Limits, DISK_FULL_EXIT};
use crate::policy::Setup;
use anyhow::Context;
use clap::Parser;
use rlimit::Resource;
use std::ffi::OsString;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::Path;

/// A check writes its report and the compile cache; more than this is a runaway kernel's output.
const MAX_FILE_BYTES: u64 = 256 << 20;

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

/// The file the check writes its report to (a worker, its answers), from its descriptor.
fn report_file(fd: RawFd) -> std::fs::File {
    // SAFETY: the grader handed this descriptor to this process alone, for the report.
    std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What a child process must not get: this process's reference solutions and report file
/// (`fds`), and its memory.
fn keep_to_this_process(fds: &[RawFd]) -> anyhow::Result<()> {
    for &fd in fds {
        // SAFETY: fcntl(2) on a descriptor number; it touches no memory of this process.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } == -1 {
            return Err(std::io::Error::last_os_error()).context(
                "cannot keep a reference solution or the report from the check's children",
            );
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
pub(crate) fn run(
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
    let kept: Vec<RawFd> = setup
        .solution_fds
        .iter()
        .chain(&setup.report_fd)
        .copied()
        .collect();
    keep_to_this_process(&kept)?;
    let arguments = std::iter::once(OsString::from("runner")).chain(command.iter().cloned());
    let mut cli = runner::cli::Cli::try_parse_from(arguments)
        .context("the grader asked the sandbox for a command the runner does not know")?;
    match &mut cli.command {
        runner::cli::Command::Check(args) => {
            args.seed = seed.or(args.seed);
            args.json_file = setup.report_fd.map(report_file);
        }
        // A worker answers on the report's descriptor (see `worker`).
        runner::cli::Command::Serve(args) => args.replies = setup.report_fd.map(report_file),
        _ => {}
    }
    runner::cmd::run(cli.command).or_else(|err| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

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
