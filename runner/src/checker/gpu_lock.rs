//! The GPU to itself while a check times kernels. `runner grade` runs several workers on one GPU,
//! so the work that only needs the CPU (compiling, the CPU reference, the simulator's re-check)
//! runs side by side; the timed launches must not, or one student's kernel is timed against
//! another's load. Each worker is given the same lock file for its GPU
//! (`RUNNER_GPU_TIMING_LOCK`), and holds it exclusively while it times the kernel and the
//! reference solution.

use std::fs::File;

/// The variable that names the lock file of the GPU this process times kernels on.
pub const VARIABLE: &str = "RUNNER_GPU_TIMING_LOCK";

/// Waits for the GPU's timing lock, where one was given; the lock is held until the file is
/// dropped. None where no lock was given (a check on its own) or it cannot be taken (then the
/// timing goes on unlocked, as it would on its own).
pub fn hold() -> Option<File> {
    let path = std::env::var_os(VARIABLE)?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .ok()?;
    file.lock().ok()?;
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gpu0.lock");
        // SAFETY of the test: set before any other thread of this test reads it.
        std::env::set_var(VARIABLE, &path);
        let first = hold().expect("the lock is free");
        let other = File::options().write(true).open(&path).unwrap();
        assert!(other.try_lock().is_err(), "held by the first");
        drop(first);
        assert!(other.try_lock().is_ok(), "free once the first let go");
        std::env::remove_var(VARIABLE);
    }
}
