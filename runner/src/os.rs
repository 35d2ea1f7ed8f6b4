//! The runner's own system calls, each in a safe function that says why it is sound: ending a
//! process or a process group, adopting orphans, what a program's process does between fork and
//! exec, the allocator's thresholds. Besides the GPU's driver (`backend::cuda`) and NVRTC's
//! loader (`compile::nvrtc`), the one module where unsafe code is allowed: the crate root denies
//! it everywhere else, so a new `unsafe` block has to come here, with its reason.

#![allow(unsafe_code)]

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
