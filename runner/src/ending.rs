//! What ends with the runner when a signal ends it. Ctrl-C, SIGTERM (a scheduler, `kill`) and
//! SIGHUP (a closed terminal) to `runner run` or `runner check` run no destructors: the student's
//! program (in a process group of its own, or adopted by init) went on running, and the scratch
//! folders stayed. Here the runner adopts whatever its programs leave behind (a child subreaper),
//! and on such a signal kills every process below it and removes the folders made by `tempdir`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The exit status after a signal: 128 + SIGINT, as a shell shows an interrupted command.
const INTERRUPTED: i32 = 130;

/// Set when a signal is ending the runner: the command's own end waits for the handler's.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Scratch folders a signal removes too.
static SCRATCH: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn scratch() -> MutexGuard<'static, Vec<PathBuf>> {
    SCRATCH
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Has a signal end the runner's programs and scratch folders with it. Called by the commands
/// that start programs; a second call changes nothing.
pub fn on_signal_end_everything() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Orphans of the runner's programs are adopted by the runner, so `descendants` finds them.
        crate::os::adopt_orphans();
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        // The handler runs on a thread of its own, outside the signal's context, so it may
        // lock, read /proc and remove folders. Where no thread can be had, a signal ends the
        // runner as it would any program (its scratch folders are then left behind).
        let _ = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                if signals.forever().next().is_some() {
                    end_everything();
                }
            });
    });
}

/// A signal's end of the runner: its programs killed, its scratch folders removed, exit 130.
fn end_everything() -> ! {
    ENDING.store(true, Ordering::SeqCst);
    // Held until the exit: the command, which sees its program killed, prints no verdict on it,
    // and main does not end the process first with the command's own exit code.
    let _out = std::io::stdout().lock();
    let _err = std::io::stderr().lock();
    end_descendants();
    for dir in scratch().iter() {
        let _ = std::fs::remove_dir_all(dir);
    }
    // The one exit outside main: a signal has ended the command, and its destructors would
    // only remove what is removed above.
    #[allow(clippy::disallowed_methods)]
    std::process::exit(INTERRUPTED);
}

/// Called as the command ends: while a signal's handler is ending everything, waits for it to
/// exit the process with the signal's status.
pub fn wait_if_ending() {
    while ENDING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// A scratch folder that a signal removes as its `Drop` would have.
pub fn tempdir() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let mut held = scratch();
    held.retain(|path| path.exists());
    held.push(dir.path().to_path_buf());
    Ok(dir)
}

/// Kills every process below the runner, again until none is left (one may fork meanwhile).
fn end_descendants() {
    for _ in 0..100 {
        let below = descendants(std::process::id() as i32);
        if below.is_empty() {
            return;
        }
        for pid in below {
            crate::os::kill(pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Live processes whose parent chain leads to `root`, from /proc.
fn descendants(root: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(i32, i32)> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(|pid: i32| Some((pid, live_parent(pid)?)))
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    found.remove(0);
    found
}

/// The parent of `pid` from `/proc/PID/stat`, unless it is a zombie (already ended).
fn live_parent(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces and parentheses: read after the last.
    let mut fields = stat.rsplit_once(") ")?.1.split(' ');
    let state = fields.next()?;
    (state != "Z" && state != "X").then_some(())?;
    fields.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_childs_own_child_is_its_descendant_and_the_child_is_not() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let shell = child.id() as i32;
        let started = std::time::Instant::now();
        let found = loop {
            let found = descendants(shell);
            if !found.is_empty() || started.elapsed().as_secs() > 60 {
                break found;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        for &pid in found.iter().chain([&shell]) {
            crate::os::kill(pid);
        }
        let _ = child.wait();
        assert_eq!(found.len(), 1, "the shell's sleep: {found:?}");
        assert_ne!(found[0], shell);
    }
}
