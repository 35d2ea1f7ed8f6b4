//! The watcher's end of the worker (`runner __serve`): starting it, asking it for a check under a
//! time limit, and noticing when it has gone.

use crate::backend::BackendChoice;
use crate::cmd::serve::{read_message, REPLY_FD_FLAG, SUBCOMMAND};
use crate::course::Exercise;
use anyhow::Context;
use contract::worker::{Message, Reply, Request};
use std::io::{BufRead, BufReader, PipeReader, PipeWriter, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running worker.
pub(super) struct Worker {
    child: Child,
    requests: PipeWriter,
    /// A reader of the request pipe kept here, so that writing to a worker that has died fills
    /// the pipe instead of ending the watcher with SIGPIPE.
    _keep_open: PipeReader,
    replies: mpsc::Receiver<Reply>,
}

/// Why a check came back without a reply.
pub(super) enum Lost {
    /// The worker ended (it crashed, or was killed) in the middle of the check.
    Ended(String),
    /// The check ran past the limit; the worker was stopped.
    TimedOut(Duration),
}

impl Worker {
    /// Starts a worker in `root`; it loads NVRTC and opens the backend while the caller goes on.
    pub(super) fn start(root: &Path, choice: BackendChoice) -> anyhow::Result<Worker> {
        let exe = std::env::current_exe().context("cannot find the runner's own program")?;
        let (reader, requests) = std::io::pipe().context("cannot make a pipe for the worker")?;
        let keep_open = reader
            .try_clone()
            .context("cannot make a pipe for the worker")?;
        let mut command = Command::new(exe);
        command.current_dir(root).arg(SUBCOMMAND);
        if let Some(flag) = choice.flag() {
            command.args(["--backend", flag]);
        }
        // The answers come on a pipe of their own: the worker's stdout is the kernels' `printf`
        // (a GPU's), passed to the terminal as it is, which no kernel can make pass for one.
        let (answers, answering) = std::io::pipe().context("cannot make a pipe for the worker")?;
        let fd = crate::os::hand_to_child(&mut command, answering.as_fd());
        command.arg(REPLY_FD_FLAG).arg(fd.to_string());
        let child = command
            .stdin(reader)
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .spawn()
            .context("cannot start the worker that checks")?;
        // The worker holds the only writer now: its answers end when it does.
        drop(answering);
        // Read on a thread of their own, so that `check` can wait for a reply with a limit.
        let (send, replies) = mpsc::channel();
        std::thread::Builder::new()
            .name("worker answers".into())
            .spawn(move || pass_on(BufReader::new(answers), send))
            .context("cannot start a thread to read the worker's answers")?;
        Ok(Worker {
            child,
            requests,
            _keep_open: keep_open,
            replies,
        })
    }

    /// Whether the worker is still running.
    pub(super) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Asks for a check of `exercise` (of `file` instead of its own file, where given) and waits
    /// for the reply at most `limit`.
    pub(super) fn check(
        &mut self,
        exercise: &str,
        file: Option<PathBuf>,
        limit: Duration,
    ) -> Result<Reply, Lost> {
        let request = Request {
            file,
            ..Request::check(exercise)
        };
        let line = serde_json::to_string(&request).expect("a request serialises");
        if writeln!(self.requests, "{line}").is_err() {
            return Err(self.ended());
        }
        match self.replies.recv_timeout(limit) {
            Ok(reply) => Ok(reply),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.stop();
                Err(Lost::TimedOut(limit))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(self.ended()),
        }
    }

    fn ended(&mut self) -> Lost {
        let how = match self.child.wait() {
            Ok(status) => describe_exit(status),
            Err(err) => err.to_string(),
        };
        Lost::Ended(how)
    }

    /// Ends the worker and waits for it.
    pub(super) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("it was ended by signal {signal}");
        }
    }
    status.to_string()
}

/// Reads the worker's answers and hands its replies to the watcher.
fn pass_on(mut answers: impl BufRead, replies: mpsc::Sender<Reply>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match answers.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Message::Reply(reply) = read_message(&line) else {
            continue;
        };
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// How long a check may take before the worker is stopped: a backstop only, since the compiler
/// and the backends stop what runs too long themselves. RUNNER_WATCH_LIMIT_S sets it (tests do).
pub(super) fn check_limit(exercise: &Exercise) -> Duration {
    if let Some(seconds) = std::env::var("RUNNER_WATCH_LIMIT_S")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
    {
        return Duration::from_secs_f64(seconds);
    }
    let compiles = 3 * runner::compile::child::Limits::from_env().seconds;
    Duration::from_secs(compiles + 30) + 20 * Duration::from_millis(exercise.time_limit_ms)
}
