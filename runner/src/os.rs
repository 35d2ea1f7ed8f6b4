//! The runner's own system calls, each in a safe function that says why it is sound: ending a
//! process or a process group, adopting orphans, what a program's process does between fork and
//! exec, descriptors handed to a child, C's stdio, the allocator's thresholds. Besides the GPU's
//! driver (`backend::cuda`) and NVRTC's loader (`compile::nvrtc`), the one module where unsafe
//! code is allowed: the crate root denies it everywhere else, so a new `unsafe` block has to come
//! here, with its reason.

#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Ends process `pid` (SIGKILL).
pub fn kill(pid: i32) {
    // SAFETY: kill(2) takes plain integers and touches no memory of this process.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

/// Ends every process of the group that `leader` leads (SIGKILL). The group outlives its leader
/// while members remain, so its id is not reused meanwhile.
pub fn kill_group(leader: u32) {
    kill(-(leader as libc::pid_t));
}

/// Has the runner, rather than init, adopt the orphans of the programs it starts, so that it can
/// find them among its descendants and end them.
pub fn adopt_orphans() {
    // SAFETY: prctl(2) with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) };
}

/// Has glibc keep freed blocks of up to `largest` bytes for the next allocations rather than
/// hand them back to the system (elsewhere, nothing). Call it before the work allocates.
pub fn keep_freed_memory(largest: i32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) only sets the allocator's parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, largest);
        libc::mallopt(libc::M_TRIM_THRESHOLD, largest);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = largest;
}

/// Has `command`'s program, in its own process before it starts, take `limits` (each a resource
/// with its soft and hard values) and be killed when process `parent` ends; where `parent` has
/// already ended by then, the program does not start.
pub fn limit_and_end_with(
    command: &mut Command,
    limits: Vec<(rlimit::Resource, u64, u64)>,
    parent: u32,
) {
    // SAFETY: between fork and exec the closure calls only setrlimit, prctl, getppid and _exit,
    // which are async-signal-safe, and allocates nothing: the limits were worked out before.
    unsafe {
        command.pre_exec(move || {
            for &(resource, soft, hard) in &limits {
                resource.set(soft, hard)?;
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended between the fork and the prctl: then nothing would come.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Has `command`'s program inherit `fd` at the same number (which it returns), while every other
/// program this process starts, before or after, does not: the descriptor stays close-on-exec
/// here and is opened up only in the child, between fork and exec.
pub fn hand_to_child(command: &mut Command, fd: BorrowedFd<'_>) -> RawFd {
    let number = fd.as_raw_fd();
    // SAFETY: between fork and exec only fcntl(2), which is async-signal-safe, on a number; where
    // the caller closed the descriptor before the spawn, fcntl fails and so does the spawn.
    unsafe {
        command.pre_exec(move || {
            if libc::fcntl(number, libc::F_SETFD, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    number
}

/// Takes `fd`, a descriptor the program that started this one handed it (see [`hand_to_child`])
/// for this process alone, as a file, closed on exec so that no program this one starts can
/// write to it. Refuses the standard streams and a number that is not open. Call it once per
/// descriptor, before anything else could have opened that number.
pub fn take_handed_fd(fd: RawFd) -> std::io::Result<std::fs::File> {
    if fd <= 2 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("descriptor {fd} is a standard stream, not one handed over"),
        ));
    }
    // SAFETY: fcntl(2) on a number; it touches no memory of this process.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the descriptor is open (fcntl succeeded) and was handed to this process for this
    // use alone; nothing else here owns it.
    Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Writes out what C's stdio holds for stdout: a GPU's driver prints a kernel's `printf`
/// through it, so this puts the text on stdout before whatever this process writes next
/// elsewhere.
pub fn flush_c_stdio() {
    // SAFETY: fflush(3) with NULL flushes every output stream; it takes no memory of ours.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}
