//! Cells checked by long-lived workers (`runner __serve`, the worker behind `watch`), one per GPU,
//! rather than one process per cell: a GPU cell's own process spent about 1.9 s creating a CUDA
//! context, loading NVRTC and timing the reference solution before its kernel ran at all. A
//! worker opens the context once, keeps NVRTC and its compile children warm, keeps an exercise's
//! cases, their CPU reference's outputs and the reference solution (loaded, and timed once) from
//! one cell to the next; the grader hands it the cells one exercise after another so that all of
//! that is reused.
//!
//! What each cell still gets, as in its own process:
//! - a wall-time limit: past it the worker (and its compile children, one process group) is
//!   killed, the cell is "timeout", and a new worker takes the next cell;
//! - a worker that dies in a cell (a signal, the memory limit) costs that cell only ("crashed",
//!   "out of memory"), judged by the same rules as a cell's own process (`cell::judge`);
//! - a check that ran into a bug on the device (a fault, a hang the backend stopped, a write into
//!   a guard zone, any case that ended in an error) may have left the context unusable or
//!   written where it should not: the worker answers, ends, and the next cell gets a fresh one;
//! - the report is the same typed report a cell's `runner check` writes to its report file,
//!   judged by the same code, with the kernel's `printf` (on a GPU the process's stdout)
//!   collected per cell and capped;
//! - a report no kernel can forge: the worker answers (`contract::worker`) on a pipe of its own,
//!   handed over as a cell's report file is and closed to its children, while its stdout, where
//!   a GPU prints a kernel's `printf`, goes to a file that is only ever read as printed text.
//!
//! What a worker does not give, and the per-cell processes do (`--isolation cell`):
//! - limits per cell on memory and CPU time: the sandbox's limits hold for the worker as a whole
//!   (the memory limit is a cell's; the CPU limit a cell's times the cells a worker checks before
//!   it is replaced), so a cell that nearly fills the memory limit without passing it leaves
//!   less for the next cells of that worker, which may then fail "out of memory";
//! - a fresh address space per cell on the device: a kernel that writes outside its buffers
//!   without faulting and without touching a guard zone (into memory another allocation of the
//!   same context holds, the reference solution's module say) is not noticed. The cases' buffers
//!   are written afresh for every cell and the reference's time is kept on the host, so no later
//!   cell's verdict is known to depend on such a write, but the context no longer proves it;
//! - separation from the simulator's re-check: it runs on a thread of the worker.
//!
//! So the simulator, where a cell's own process is cheap and the isolation is complete, keeps
//! per-cell processes by default; GPUs get workers. `--isolation` picks either on either.

use super::cell::{exit_of, CheckCommand, Exit, Raw};
use super::sandbox::{self, Handed, Limits};
use contract::worker::{Message, Reply, Request};
use runner::backend::BackendChoice;
use runner::cmd::serve::{read_message, SUBCOMMAND};
use runner::process::{self, Child, Group, Waited, WallClock};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, PipeReader, PipeWriter, Read, Seek, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How cells are kept apart: a process each, or workers that check many.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolation {
    /// A process per cell (`runner check` under the sandbox's limits): the default in the
    /// simulator.
    Cell,
    /// A worker per GPU that checks many cells: the default on a GPU.
    Worker,
}

/// Cells a worker checks before a fresh one takes over: bounds what a long-lived process
/// gathers (every student's module stays loaded in its context) at the price of one start.
const CHECKS_PER_WORKER: usize = 400;

/// How long a worker may take to load NVRTC and open its backend.
const START_LIMIT: Duration = Duration::from_secs(120);

/// The most of one cell's `printf` (a GPU's, on the worker's stdout) that is kept; the report
/// keeps at most 1 MiB of it anyway.
const MAX_PRINTED: u64 = 2 << 20;

/// What came of handing a worker a cell.
enum Answer {
    /// Its reply, and what the kernel printed before it.
    Reply(Box<Reply>, Vec<u8>),
    /// Past the time limit, or Ctrl-C: the worker is to be ended.
    Stopped(Exit),
    /// The worker went away (its output ended, or it took no request).
    Gone,
}

/// The GPUs to put a worker on: CUDA_VISIBLE_DEVICES where it is set (each worker then sees one
/// of them), else every device the driver counts; none where there is no GPU.
pub(crate) fn gpus() -> Vec<String> {
    if let Ok(visible) = std::env::var("CUDA_VISIBLE_DEVICES") {
        return visible
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect();
    }
    (0..runner::backend::cuda::CudaBackend::count())
        .map(|n| n.to_string())
        .collect()
}

/// One place in the pool: the worker it has now (if any) and how to start the next.
pub(crate) struct Slot {
    command: CheckCommand,
    /// The CUDA device this slot's workers see (CUDA_VISIBLE_DEVICES), where there are GPUs.
    device: Option<String>,
    /// Threads the simulator may use inside the worker.
    sim_threads: usize,
    /// This slot's own folder in the run's scratch folder.
    scratch: PathBuf,
    /// Where the run stages each submission (`stage/<id>/`): in a sandbox the worker sees there
    /// only its inbox, which holds the one kernel it is checking.
    staging: PathBuf,
    /// Where its workers' stderr goes, appended: in `scratch`, or a kept trace log.
    stderr_path: PathBuf,
    /// Its workers write `RUNNER_TRACE` phase lines to stderr (`runner grade bench --profile`).
    traced: bool,
    /// Boxed: a slot is one of the pool's checkers, beside a command half its size.
    worker: Option<Box<Worker>>,
}

struct Worker {
    /// The worker, leader of a process group of its own: Ctrl-C reaches the grader alone, and
    /// one signal ends the worker with its compile children.
    child: Group,
    requests: PipeWriter,
    /// Keeps the request pipe open, so that writing to a worker that has died fails instead of
    /// raising SIGPIPE in the grader.
    _keep_open: PipeReader,
    /// Its answers, read off their pipe.
    messages: mpsc::Receiver<Message>,
    /// The file its stdout appends to: emptied before each cell, read after its reply.
    printed: File,
    checks: usize,
    /// The backend it was started with (`--backend`); auto: it chose for itself.
    backend: BackendChoice,
    /// When it was started; None once it said it is ready.
    starting: Option<Instant>,
}

impl Slot {
    pub(crate) fn new(
        command: &CheckCommand,
        device: Option<String>,
        sim_threads: usize,
        scratch: &Path,
        staging: &Path,
        trace_log: Option<PathBuf>,
    ) -> Slot {
        Slot {
            command: command.clone(),
            device,
            sim_threads: sim_threads.max(1),
            scratch: scratch.to_path_buf(),
            staging: staging.to_path_buf(),
            traced: trace_log.is_some(),
            stderr_path: trace_log.unwrap_or_else(|| scratch.join("worker-stderr")),
            worker: None,
        }
    }

    /// The file the workers' stdout (a GPU's `printf`) goes to.
    fn stdout_path(&self) -> PathBuf {
        self.scratch.join("worker-stdout")
    }

    /// The folder the grader puts the kernel being checked in, alone (see `deliver`).
    fn inbox(&self) -> PathBuf {
        self.scratch.join("inbox")
    }

    /// Puts `kernel` in the inbox at the path it has under the staging folder, which the
    /// sandboxed worker sees as the staging folder: so a kernel sees no other student's file
    /// (an `#include "../../bob/..."` finds nothing) and every path in its messages is the
    /// staged one. A kernel outside the staging folder (the course's own) is in the worker's
    /// view of the course already.
    fn deliver(&self, kernel: &Path) -> std::io::Result<()> {
        let Ok(relative) = kernel.strip_prefix(&self.staging) else {
            return Ok(());
        };
        let inbox = self.inbox();
        for entry in std::fs::read_dir(&inbox)? {
            let path = entry?.path();
            if path.is_dir() {
                std::fs::remove_dir_all(path)?;
            } else {
                std::fs::remove_file(path)?;
            }
        }
        let copy = inbox.join(relative);
        if let Some(folder) = copy.parent() {
            std::fs::create_dir_all(folder)?;
        }
        std::fs::copy(kernel, copy).map(|_| ())
    }

    /// Sets the backend of the workers started from now on (the preflight decides it). A worker
    /// started ahead on another backend is ended: the next cell starts one on this.
    pub(crate) fn set_backend(&mut self, backend: contract::Backend) {
        self.command.backend = backend.into();
        let other = |w: &Worker| matches!(w.backend, BackendChoice::Only(b) if b != backend);
        if self.worker.as_deref().is_some_and(other) {
            self.end_worker();
        }
    }

    /// Starts this slot's worker on `backend` without waiting for it, so that its start (on a
    /// GPU, the driver's initialisation and the context: 0.5 to 1.2 s, longer the more workers
    /// start side by side) overlaps the course's check and the staging of the class rather than
    /// delaying the first cell (issue 24). The first cell waits for it to be ready.
    pub(crate) fn start_ahead(&mut self, backend: BackendChoice) -> std::io::Result<()> {
        if self.worker.is_none() {
            self.command.backend = backend;
            self.worker = Some(Box::new(self.start()?));
        }
        Ok(())
    }

    fn start(&mut self) -> std::io::Result<Worker> {
        std::fs::create_dir_all(&self.scratch)?;
        if let Some(dir) = self.stderr_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let c = &self.command;
        let limits = Limits {
            memory_mb: c.memory_limit_mb,
            cpu_seconds: ((c.time_limit.as_secs_f64() * 2.0).ceil() as u64 + 5)
                .saturating_mul(CHECKS_PER_WORKER as u64),
        };
        let mut serve: Vec<OsString> = vec![SUBCOMMAND.into(), "--announce".into()];
        if let Some(backend) = c.backend.flag() {
            serve.extend(["--backend".into(), backend.into()]);
        }
        let lock = self.gpu_lock();
        let cell = self.sandbox_cell(lock.as_deref())?;
        // The worker answers on a pipe handed over as a cell's report file is (kept from its
        // children); the descriptors stay open here until the worker has started.
        let (answers, answering) = std::io::pipe()?;
        let handed = Handed {
            seed: None,
            report: Some(File::from(OwnedFd::from(answering))),
        };
        let mut sandboxed = sandbox::command(&c.exe, &limits, cell, handed, &serve)?;
        let (reader, requests) = std::io::pipe()?;
        let keep_open = reader.try_clone()?;
        let printed = File::options()
            .create(true)
            .append(true)
            .read(true)
            .open(self.stdout_path())?;
        self.set_up(&mut sandboxed.command, lock.as_deref())?
            .stdin(reader)
            .stdout(printed.try_clone()?);
        let child = Group::spawn(&mut sandboxed.command)?;
        // The worker holds the only writer now: its answers end when it does.
        drop(sandboxed);
        // Read on a thread of their own, so that `ask` can wait for a reply with a limit.
        let (send, messages) = mpsc::channel();
        std::thread::Builder::new()
            .name("worker answers".into())
            .spawn(move || read_messages(BufReader::new(answers), send))?;
        Ok(Worker {
            child,
            requests,
            _keep_open: keep_open,
            messages,
            printed,
            checks: 0,
            backend: c.backend,
            starting: Some(Instant::now()),
        })
    }

    /// The file through which the workers of this slot's GPU take turns to time kernels (see
    /// checker::gpu_lock): in the run's scratch folder, beside every worker's own folder.
    fn gpu_lock(&self) -> Option<PathBuf> {
        let device = self.device.as_ref()?;
        Some(self.scratch.parent()?.join(format!("gpu{device}.lock")))
    }

    /// The worker's sandbox, where the run has one: it sees the inbox where the staged kernels
    /// would be, and shares the GPU's `lock`.
    fn sandbox_cell(
        &self,
        lock: Option<&Path>,
    ) -> std::io::Result<Option<(&sandbox::Sandbox, crate::policy::Cell)>> {
        let Some(sandbox) = &self.command.sandbox else {
            return Ok(None);
        };
        std::fs::create_dir_all(self.inbox())?;
        let mut cell = sandbox.cell("", Path::new(""));
        cell.staged = None;
        cell.read_only = vec![(self.inbox(), self.staging.clone())];
        if let Some(lock) = lock {
            std::fs::File::options()
                .create(true)
                .append(true)
                .open(lock)?;
            cell.shared.push(lock.to_path_buf());
        }
        Ok(Some((sandbox, cell)))
    }

    /// The worker's folder, variables and stderr.
    fn set_up<'c>(
        &self,
        command: &'c mut Command,
        lock: Option<&Path>,
    ) -> std::io::Result<&'c mut Command> {
        command
            .current_dir(&self.command.course_root)
            .env("NO_COLOR", "1")
            .env("RUNNER_SIM_THREADS", self.sim_threads.to_string())
            .env("RUST_BACKTRACE", "0")
            .env_remove("RUNNER_BACKEND")
            // Appended: what a cell's check wrote is read from the length before it on, and a
            // trace log keeps every worker the slot had.
            .stderr(
                std::fs::File::options()
                    .create(true)
                    .append(true)
                    .open(&self.stderr_path)?,
            );
        if self.traced {
            command.env("RUNNER_TRACE", "1");
        }
        if let Some(device) = &self.device {
            command.env("CUDA_VISIBLE_DEVICES", device);
        }
        if let Some(lock) = lock {
            command.env(runner::checker::gpu_lock::VARIABLE, lock);
        }
        Ok(command)
    }

    /// Waits until this slot's worker (started ahead, or started now) is ready to check; false
    /// where none could be had (its first check then says why).
    pub(crate) fn wait_until_ready(&mut self, cancel: &AtomicBool) -> bool {
        matches!(self.ready_worker(cancel), Ok(Ok(())))
    }

    /// A started and ready worker, or why none could be had (as a cell's raw result).
    fn ready_worker(&mut self, cancel: &AtomicBool) -> std::io::Result<Result<(), Raw>> {
        let mut worker = match self.worker.take() {
            Some(worker) => worker,
            None => Box::new(self.start()?),
        };
        let Some(started) = worker.starting else {
            self.worker = Some(worker);
            return Ok(Ok(()));
        };
        loop {
            match worker.messages.recv_timeout(Duration::from_millis(50)) {
                Ok(Message::Ready { .. }) => {
                    worker.starting = None;
                    self.worker = Some(worker);
                    return Ok(Ok(()));
                }
                Ok(Message::Reply(..)) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::Relaxed) {
                        worker.end();
                        return Ok(Err(raw(Exit::Cancelled, String::new(), 0.0)));
                    }
                    if started.elapsed() < START_LIMIT {
                        continue;
                    }
                    worker.end();
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let _ = worker.exit(cancel);
                }
            }
            let said = self.stderr_since(0);
            let said = said.trim().trim_start_matches("Error: ");
            return Ok(Err(raw(
                Exit::Code(2),
                format!("Error: the worker that checks could not start: {said}"),
                started.elapsed().as_secs_f64(),
            )));
        }
    }

    fn stderr_since(&self, offset: u64) -> String {
        let mut text = Vec::new();
        if let Ok(mut file) = std::fs::File::open(&self.stderr_path) {
            let _ = file.seek(std::io::SeekFrom::Start(offset));
            let _ = file.take(1 << 20).read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    /// Checks one cell as `CheckCommand::run` does, on this slot's worker (started first where
    /// there is none): the same raw result, so `cell::judge` judges both alike.
    pub(crate) fn run(
        &mut self,
        exercise: &str,
        kernel: &Path,
        cancel: &AtomicBool,
    ) -> std::io::Result<Raw> {
        // A whole program (host, Python) gets a check process of its own, as under
        // `--isolation cell`: the worker's context, modules and reference timing are a kernel's,
        // and a program's build and its own process would gain nothing from them.
        if self.command.is_program(exercise) {
            let scratch = self.scratch.join("program");
            return self.command.run(exercise, kernel, &scratch, cancel);
        }
        if let Err(not_started) = self.ready_worker(cancel)? {
            return Ok(not_started);
        }
        if self.command.sandbox.is_some() {
            self.deliver(kernel)?;
        }
        let worker = self.worker.as_mut().expect("a ready worker");
        let stderr_offset = std::fs::metadata(&self.stderr_path).map_or(0, |m| m.len());
        let request = Request {
            file: Some(kernel.to_path_buf()),
            seed: self.command.seed,
            sizes: self.command.sizes.clone(),
            ..Request::check(exercise)
        };
        let started = Instant::now();
        let answer = worker.ask(&request, self.command.time_limit, cancel);
        let seconds = started.elapsed().as_secs_f64();
        match answer {
            Answer::Reply(reply, printed) => {
                if reply.ending || worker.checks >= CHECKS_PER_WORKER {
                    self.end_worker();
                }
                Ok(from_reply(*reply, &printed, seconds))
            }
            Answer::Stopped(stopped) => {
                self.end_worker();
                let stderr = self.stderr_since(stderr_offset);
                Ok(raw(stopped, stderr, seconds))
            }
            Answer::Gone => {
                let exit = worker.exit_mid_cell(cancel, self.command.sandbox.is_some());
                self.worker = None;
                let stderr = self.stderr_since(stderr_offset);
                Ok(raw(exit, stderr, seconds))
            }
        }
    }

    fn end_worker(&mut self) {
        if let Some(mut worker) = self.worker.take() {
            worker.end();
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.end_worker();
    }
}

impl Worker {
    /// Ends the worker and whatever it started (its compile children share its group).
    fn end(&mut self) {
        self.child.end_group();
    }

    /// Hands the worker one cell and waits for its reply, at most `limit`, or until Ctrl-C
    /// (`cancel`).
    fn ask(&mut self, request: &Request, limit: Duration, cancel: &AtomicBool) -> Answer {
        let line = serde_json::to_string(request).expect("a request serialises");
        // The worker's stdout appends: emptied, it holds this cell's printing alone.
        let _ = self.printed.set_len(0);
        let started = Instant::now();
        let sent = writeln!(self.requests, "{line}").is_ok();
        self.checks += 1;
        if !sent {
            return Answer::Gone;
        }
        loop {
            match self.messages.recv_timeout(Duration::from_millis(20)) {
                Ok(Message::Reply(reply)) => {
                    return Answer::Reply(Box::new(reply), read_printed(&self.printed))
                }
                Ok(Message::Ready { .. }) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::Relaxed) {
                        return Answer::Stopped(Exit::Cancelled);
                    }
                    if started.elapsed() >= limit {
                        return Answer::Stopped(Exit::TimedOut);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Answer::Gone,
            }
        }
    }

    /// How a worker that went away in the middle of a cell ended, as a cell's process would
    /// have (`sandboxed`: its exit is bubblewrap's).
    fn exit_mid_cell(&mut self, cancel: &AtomicBool, sandboxed: bool) -> Exit {
        match self.exit(cancel) {
            Ok(status) => match exit_of(status, sandboxed) {
                // A worker ends only when asked or killed: ending on its own in the middle of a
                // cell is a crash whatever its code.
                Exit::Code(0 | -1) => Exit::Code(101),
                exit => exit,
            },
            Err(_) => Exit::Signal(9),
        }
    }

    /// How the worker ended, once its output has: waited for until it exits, or until Ctrl-C
    /// (`cancel`) ends its group (an error then).
    fn exit(&mut self, cancel: &AtomicBool) -> std::io::Result<ExitStatus> {
        let cancelled = || cancel.load(Ordering::Relaxed);
        let pause = Duration::from_millis(20);
        let clock = WallClock::start();
        match process::wait(&mut self.child, Duration::MAX, &cancelled, &clock, pause)? {
            Waited::Exited(status) => Ok(status),
            Waited::TimedOut | Waited::Cancelled => Err(std::io::Error::other(
                "the grader was stopped while the worker was ending",
            )),
        }
    }
}

fn raw(exit: Exit, stderr: String, seconds: f64) -> Raw {
    Raw {
        exit,
        stdout: String::new(),
        stderr,
        report: None,
        seconds,
    }
}

/// A reply as the raw result of `runner check` in a process of its own: what the kernel
/// printed, and the report; or, where no check could be made, exit code 2 and the error.
fn from_reply(reply: Reply, printed: &[u8], seconds: f64) -> Raw {
    let stdout = String::from_utf8_lossy(printed).into_owned();
    match reply.report {
        Some(report) => {
            let code = if report.passed() { 0 } else { 1 };
            // The report as `runner check` writes it, tagged a kernel's: the grader reads a
            // worker's cells and a process's cells alike.
            let report = contract::Report::Kernel(report);
            Raw {
                exit: Exit::Code(code),
                stdout,
                stderr: String::new(),
                report: Some(serde_json::to_string(&report).expect("a report serialises")),
                seconds,
            }
        }
        None => Raw {
            exit: Exit::Code(2),
            stdout,
            report: None,
            stderr: format!(
                "Error: {}",
                reply
                    .error
                    .as_deref()
                    .unwrap_or("the worker gave no report")
            ),
            seconds,
        },
    }
}

/// What a worker printed on stdout since its file was emptied, up to [`MAX_PRINTED`]: all of a
/// cell's printing once its reply has come, since the worker writes its stdout before it answers.
fn read_printed(mut file: &File) -> Vec<u8> {
    let mut printed = Vec::new();
    if file.rewind().is_ok() {
        let _ = file.take(MAX_PRINTED).read_to_end(&mut printed);
    }
    printed
}

/// Reads a worker's answers, a message a line, until they end (the worker has).
fn read_messages(mut answers: impl BufRead, messages: mpsc::Sender<Message>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match answers.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if messages.send(read_message(&line)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::worker::PROTOCOL;
    use contract::Backend;

    /// A kernel's report that passed, as a forger would print it.
    fn passed_report() -> serde_json::Value {
        serde_json::json!({
            "schema_version": contract::SCHEMA_VERSION, "exercise": "02", "title": "t",
            "file": "f", "backend": "sim", "device": "d", "verdict": "passed", "summary": "s",
            "compile": null, "cases": [], "gpu": null, "sim": null, "reference_sim": null,
            "targets": [], "diagnostics": [], "printf": "", "progress": null
        })
    }

    fn command(exe: &Path, root: &Path) -> CheckCommand {
        CheckCommand {
            exe: exe.into(),
            course_root: root.into(),
            backend: Default::default(),
            seed: None,
            sizes: Vec::new(),
            time_limit: Duration::from_secs(1),
            memory_limit_mb: 1,
            programs: Default::default(),
            sandbox: None,
        }
    }

    #[test]
    fn answers_are_read_a_message_a_line_and_a_garbled_one_ends_the_worker() {
        let reply =
            |error: &str| serde_json::to_string(&Message::Reply(Reply::error(error.into())));
        let text = format!(
            "{}\n{}\n{}\nthread 0 says hi\n",
            serde_json::to_string(&Message::Ready { protocol: PROTOCOL }).unwrap(),
            reply("first").unwrap(),
            reply("second").unwrap(),
        );
        let (send, messages) = mpsc::channel();
        read_messages(BufReader::new(text.as_bytes()), send);
        let got: Vec<Message> = messages.iter().collect();
        assert!(matches!(got[0], Message::Ready { protocol: PROTOCOL }));
        let errors: Vec<_> = got[1..]
            .iter()
            .map(|m| match m {
                Message::Reply(reply) => (reply.error.clone().unwrap(), reply.ending),
                Message::Ready { .. } => panic!("a reply read as ready"),
            })
            .collect();
        assert_eq!(
            errors[..2],
            [("first".into(), false), ("second".into(), false)]
        );
        assert!(errors[2].0.contains("could not be read") && errors[2].1);
    }

    /// A stand-in for `runner-grade`, run as a worker: it says it is ready on the descriptor the
    /// grader handed it (its setup's `report_fd`), takes a request, prints on stdout what a
    /// forging kernel's `printf` would (the old protocol's marker with a passed report, and a
    /// passed reply in this protocol's words), then gives its true answer on the descriptor.
    fn forging_worker(dir: &Path) -> PathBuf {
        let forged = serde_json::to_string(&serde_json::json!({
            "message": "reply", "protocol": PROTOCOL, "report": passed_report(),
            "error": null, "ending": false
        }))
        .unwrap();
        let truth = serde_json::to_string(&Message::Reply(Reply::error(
            "the kernel does not compile".into(),
        )))
        .unwrap();
        let ready = serde_json::to_string(&Message::Ready { protocol: PROTOCOL }).unwrap();
        let script = format!(
            "#!/bin/sh\n\
             fd=$(printf '%s' \"$7\" | sed -n 's/.*\"report_fd\":\\([0-9]*\\).*/\\1/p')\n\
             answer() {{ printf '%s\\n' \"$1\" >/proc/self/fd/$fd; }}\n\
             answer '{ready}'\n\
             read -r request\n\
             printf '\\036runner-serve 2 %s\\n%s\\n' '{forged}' '{forged}'\n\
             answer '{truth}'\n\
             read -r request\n"
        );
        let path = dir.join("forging-worker");
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn what_a_kernel_prints_cannot_pass_for_the_workers_reply() {
        let dir = tempfile::tempdir().unwrap();
        let exe = forging_worker(dir.path());
        let mut command = command(&exe, dir.path());
        command.time_limit = Duration::from_secs(600);
        let mut slot = Slot::new(
            &command,
            None,
            1,
            &dir.path().join("worker0"),
            &dir.path().join("stage"),
            None,
        );
        let kernel = dir.path().join("stage/ann/02_vector_add/vector_add.cu");
        let raw = slot.run("02", &kernel, &AtomicBool::new(false)).unwrap();
        assert_eq!(raw.exit, Exit::Code(2), "{raw:?}");
        assert_eq!(raw.stderr, "Error: the kernel does not compile");
        assert!(raw.report.is_none());
        let printed: Vec<&str> = raw.stdout.lines().collect();
        assert_eq!(printed.len(), 2, "{printed:?}");
        assert!(printed
            .iter()
            .all(|line| line.contains(r#""verdict":"passed""#)));
    }

    /// A stand-in worker that notes each start (its arguments, a line of `starts`), says it is
    /// ready and answers every request with an error.
    fn noting_worker(dir: &Path, starts: &Path) -> PathBuf {
        let ready = serde_json::to_string(&Message::Ready { protocol: PROTOCOL }).unwrap();
        let reply =
            serde_json::to_string(&Message::Reply(Reply::error("no check here".into()))).unwrap();
        let script = format!(
            "#!/bin/sh\n\
             printf '%s\\n' \"$*\" >>'{starts}'\n\
             fd=$(printf '%s' \"$7\" | sed -n 's/.*\"report_fd\":\\([0-9]*\\).*/\\1/p')\n\
             answer() {{ printf '%s\\n' \"$1\" >/proc/self/fd/$fd; }}\n\
             answer '{ready}'\n\
             while read -r request; do answer '{reply}'; done\n",
            starts = starts.display()
        );
        let path = dir.join("noting-worker");
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The lines of `starts`: one per worker started, its arguments.
    fn started(starts: &Path) -> Vec<String> {
        std::fs::read_to_string(starts)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn noted_slot(dir: &Path, name: &str) -> (Slot, PathBuf) {
        let starts = dir.join(format!("{name}-starts"));
        let exe = noting_worker(dir, &starts);
        let mut command = command(&exe, dir);
        command.time_limit = Duration::from_secs(600);
        let slot = Slot::new(&command, None, 1, &dir.join(name), &dir.join("stage"), None);
        (slot, starts)
    }

    fn gpu() -> BackendChoice {
        BackendChoice::Only(Backend::Gpu)
    }

    #[test]
    fn a_worker_started_ahead_runs_before_its_first_cell_and_checks_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut slot, starts) = noted_slot(dir.path(), "worker1");
        slot.start_ahead(gpu()).unwrap();
        // No cell was handed out, yet the worker runs (no bound on how soon: any machine).
        while started(&starts).is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
        let kernel = dir.path().join("stage/ann/02_vector_add/vector_add.cu");
        let raw = slot.run("02", &kernel, &AtomicBool::new(false)).unwrap();
        assert_eq!(raw.stderr, "Error: no check here", "{raw:?}");
        let lines = started(&starts);
        assert_eq!(lines.len(), 1, "one worker, started ahead: {lines:?}");
        assert!(lines[0].contains("--backend gpu"), "{lines:?}");
    }

    #[test]
    fn a_worker_started_ahead_on_another_backend_than_the_courses_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("stage/ann/02_vector_add/vector_add.cu");
        let cancel = AtomicBool::new(false);
        // Started ahead on the GPU; the course's check found the simulator.
        let (mut wrong, starts) = noted_slot(dir.path(), "worker1");
        wrong.start_ahead(gpu()).unwrap();
        // Running (no bound on how soon) before the course's check ends it.
        while started(&starts).is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
        wrong.set_backend(Backend::Sim);
        wrong.run("02", &kernel, &cancel).unwrap();
        let lines = started(&starts);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("--backend sim"), "{lines:?}");
        // Started ahead on the backend the course's check found: kept.
        let (mut right, starts) = noted_slot(dir.path(), "worker2");
        right.start_ahead(gpu()).unwrap();
        right.set_backend(Backend::Gpu);
        right.run("02", &kernel, &cancel).unwrap();
        assert_eq!(started(&starts).len(), 1);
        // The first worker chose its backend itself and the course's check took it: kept.
        let (mut first, starts) = noted_slot(dir.path(), "worker0");
        first.run("02", &kernel, &cancel).unwrap();
        first.set_backend(Backend::Gpu);
        first.run("02", &kernel, &cancel).unwrap();
        let lines = started(&starts);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(!lines[0].contains("--backend"), "{lines:?}");
    }

    #[test]
    fn a_flood_of_printf_is_kept_up_to_the_cap() {
        // Appending, as the worker's stdout does: after emptying, writes start at 0 again.
        let path = tempfile::NamedTempFile::new().unwrap().into_temp_path();
        let mut file = File::options().append(true).read(true).open(&path).unwrap();
        file.write_all(&"x".repeat(5 << 20).into_bytes()).unwrap();
        assert_eq!(read_printed(&file).len() as u64, MAX_PRINTED);
        file.set_len(0).unwrap();
        file.write_all(b"thread 0 says hi\n").unwrap();
        assert_eq!(read_printed(&file), b"thread 0 says hi\n");
    }

    #[test]
    fn a_sandboxed_worker_is_handed_one_students_kernel_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let staging = dir.path().join("stage");
        for student in ["ann", "bob"] {
            let kernel = staging.join(student).join("02_vector_add/vector_add.cu");
            std::fs::create_dir_all(kernel.parent().unwrap()).unwrap();
            std::fs::write(&kernel, format!("// {student}'s")).unwrap();
        }
        let command = command(Path::new("runner"), dir.path());
        let slot = Slot::new(
            &command,
            None,
            1,
            &dir.path().join("worker0"),
            &staging,
            None,
        );
        std::fs::create_dir_all(slot.inbox()).unwrap();
        let inbox = |student: &str| {
            slot.inbox()
                .join(student)
                .join("02_vector_add/vector_add.cu")
        };
        slot.deliver(&staging.join("ann/02_vector_add/vector_add.cu"))
            .unwrap();
        assert_eq!(std::fs::read_to_string(inbox("ann")).unwrap(), "// ann's");
        slot.deliver(&staging.join("bob/02_vector_add/vector_add.cu"))
            .unwrap();
        assert_eq!(std::fs::read_to_string(inbox("bob")).unwrap(), "// bob's");
        assert!(
            !inbox("ann").exists(),
            "ann's kernel is still there for bob's to include"
        );
        // The course's own file is in the worker's view already: nothing is delivered.
        slot.deliver(&dir.path().join("exercises/02_vector_add/vector_add.cu"))
            .unwrap();
        assert!(inbox("bob").exists());
    }

    #[test]
    fn an_error_reply_reads_as_a_check_that_could_not_be_made() {
        let raw = from_reply(Reply::error("cannot read k.cu".into()), b"", 0.5);
        assert_eq!(raw.exit, Exit::Code(2));
        assert_eq!(raw.stderr, "Error: cannot read k.cu");
    }
}
