//! The runner's child processes (a check's, a program's): started in a process group of their
//! own, waited for with a deadline, ended with everything they started, and what they printed
//! read back. The waiting is written against two small traits, [`Child`] and [`Clock`], so that
//! its deadline and cancelling are tested with a scripted child and a clock that only moves
//! when the waiter sleeps, whatever the machine's speed.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// A child process that can be polled and ended with its process group.
pub trait Child {
    /// Its exit status, if it has ended (as [`std::process::Child::try_wait`]).
    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>>;
    /// Kills its whole process group (what it started in the background too) and reaps it.
    /// After its end this kills only what it left behind.
    fn end_group(&mut self);
}

/// Time as the waiter sees it: elapsed since the wait began, and a pause.
pub trait Clock {
    /// Time since the wait began.
    fn elapsed(&self) -> Duration;
    /// Pauses the waiter for `pause` (a test's clock moves by it instead).
    fn sleep(&self, pause: Duration);
}

/// The machine's own clock.
pub struct WallClock(Instant);

impl WallClock {
    /// A clock that counts from now.
    pub fn start() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Clock for WallClock {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
    fn sleep(&self, pause: Duration) {
        std::thread::sleep(pause);
    }
}

/// A child started as the leader of a process group of its own, so that one signal ends it
/// and everything it started. (A terminal's Ctrl-C does not reach the group: the caller ends
/// it, or has it end with the runner.)
pub struct Group(std::process::Child);

impl Group {
    /// Starts `command` as the leader of a new process group.
    pub fn spawn(command: &mut Command) -> std::io::Result<Group> {
        command.process_group(0).spawn().map(Group)
    }

    /// The process id, which is also the group's.
    pub fn id(&self) -> u32 {
        self.0.id()
    }

    /// Its piped stdout, taken (once).
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.0.stdout.take()
    }
}

impl Child for Group {
    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.0.try_wait()
    }

    fn end_group(&mut self) {
        crate::os::kill_group(self.0.id());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How a wait ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited {
    /// It ended by itself, with this status.
    Exited(ExitStatus),
    /// Past the deadline: the group was ended.
    TimedOut,
    /// Cancelled (Ctrl-C to the grader): the group was ended.
    Cancelled,
}

/// Waits for `child` until `limit` has passed on `clock` or `cancelled` says so, polling with
/// pauses that double from 1 ms up to `max_pause` (a quick check ends soon after it exits, a
/// long one costs few wake-ups). On a deadline or a cancel the child's group is ended.
pub fn wait(
    child: &mut dyn Child,
    limit: Duration,
    cancelled: &dyn Fn() -> bool,
    clock: &dyn Clock,
    max_pause: Duration,
) -> std::io::Result<Waited> {
    let mut pause = Duration::from_millis(1).min(max_pause);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Exited(status));
        }
        let stop = if cancelled() {
            Some(Waited::Cancelled)
        } else if clock.elapsed() >= limit {
            Some(Waited::TimedOut)
        } else {
            None
        };
        if let Some(stop) = stop {
            child.end_group();
            return Ok(stop);
        }
        clock.sleep(pause);
        pause = (pause * 2).min(max_pause);
    }
}

/// The last `cap` bytes of a file, as text. A check's stdout is read so: the report is printed
/// last, after anything a kernel printed straight to stdout (a GPU's printf), so a flood is cut
/// from the front. (A host program's output is read the same way, for its errors come last.)
pub fn read_tail(path: &Path, cap: u64) -> String {
    use std::io::{Seek, SeekFrom};
    let mut bytes = Vec::new();
    if let Ok(mut file) = std::fs::File::open(path) {
        let len = file.metadata().map_or(0, |m| m.len());
        let _ = file.seek(SeekFrom::Start(len.saturating_sub(cap)));
        let _ = file.take(cap).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::os::unix::process::ExitStatusExt;

    /// Time that passes only when the waiter sleeps.
    #[derive(Default)]
    struct FakeClock(Cell<Duration>);

    impl Clock for FakeClock {
        fn elapsed(&self) -> Duration {
            self.0.get()
        }
        fn sleep(&self, pause: Duration) {
            self.0.set(self.0.get() + pause);
        }
    }

    /// A child that exits with code 3 once `exits_after` has passed on `clock`, if ever.
    struct Scripted<'a> {
        clock: &'a FakeClock,
        exits_after: Option<Duration>,
        ended: bool,
    }

    impl Child for Scripted<'_> {
        fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
            let exited = self
                .exits_after
                .is_some_and(|at| self.clock.elapsed() >= at);
            Ok(exited.then(|| ExitStatus::from_raw(3 << 8)))
        }
        fn end_group(&mut self) {
            self.ended = true;
        }
    }

    const MAX_PAUSE: Duration = Duration::from_millis(20);

    fn run(exits_after: Option<Duration>, cancel_at: Option<Duration>) -> (Waited, bool, Duration) {
        let clock = FakeClock::default();
        let mut child = Scripted {
            clock: &clock,
            exits_after,
            ended: false,
        };
        let cancelled = || cancel_at.is_some_and(|at| clock.elapsed() >= at);
        let limit = Duration::from_secs(2);
        let waited = wait(&mut child, limit, &cancelled, &clock, MAX_PAUSE).unwrap();
        (waited, child.ended, clock.elapsed())
    }

    #[test]
    fn a_child_that_exits_in_time_gives_its_status_and_its_group_is_left_alone() {
        let (waited, ended, at) = run(Some(Duration::from_millis(300)), None);
        assert_eq!(waited, Waited::Exited(ExitStatus::from_raw(3 << 8)));
        assert!(!ended);
        // Noticed within one pause of its exit.
        assert!(at >= Duration::from_millis(300) && at < Duration::from_millis(300) + MAX_PAUSE);
    }

    #[test]
    fn a_child_past_its_deadline_is_ended_with_its_group_at_the_deadline() {
        let (waited, ended, at) = run(None, None);
        assert_eq!(waited, Waited::TimedOut);
        assert!(ended);
        assert!(at >= Duration::from_secs(2) && at < Duration::from_secs(2) + MAX_PAUSE);
    }

    #[test]
    fn a_cancel_ends_the_group_before_the_deadline() {
        let (waited, ended, at) = run(None, Some(Duration::from_millis(500)));
        assert_eq!(waited, Waited::Cancelled);
        assert!(ended);
        assert!(at < Duration::from_secs(1));
    }

    #[test]
    fn a_real_group_is_ended_with_what_it_started() {
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 600 & echo $! ; wait"]);
        command.stdout(std::process::Stdio::piped());
        let mut group = Group::spawn(&mut command).unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(group.take_stdout().unwrap()),
            &mut line,
        )
        .unwrap();
        let sleeper: i32 = line.trim().parse().unwrap();
        let waited = wait(
            &mut group,
            Duration::ZERO,
            &|| false,
            &WallClock::start(),
            MAX_PAUSE,
        )
        .unwrap();
        assert_eq!(waited, Waited::TimedOut);
        // The background sleep was in the group: it is gone (or a zombie of init's, briefly).
        let gone = (0..1000).any(|_| {
            let stat = std::fs::read_to_string(format!("/proc/{sleeper}/stat"));
            let done = stat.map_or(true, |s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
            });
            if !done {
                std::thread::sleep(Duration::from_millis(10));
            }
            done
        });
        assert!(gone, "the group's background sleep {sleeper} still runs");
    }

    #[test]
    fn the_tail_is_the_last_bytes_and_a_short_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        std::fs::write(&path, "printf flood\n{report}").unwrap();
        assert_eq!(read_tail(&path, 8), "{report}");
        assert_eq!(read_tail(&path, 1000), "printf flood\n{report}");
        assert_eq!(read_tail(&dir.path().join("none"), 8), "");
    }
}
