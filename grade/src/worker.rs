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
//!   collected per cell and capped.
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
use super::sandbox::{self, Limits};
use runner::cmd::serve::{read_reply, split_line, Reply, Request, PROTOCOL, READY, SUBCOMMAND};
use runner::process::{self, Child, Group, Waited, WallClock};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, PipeReader, PipeWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
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
const MAX_PRINTED: usize = 2 << 20;

/// What came of handing a worker a cell.
enum Answer {
    /// Its reply, and what the kernel printed before it.
    Reply(Box<Reply>, Vec<u8>),
    /// Past the time limit, or Ctrl-C: the worker is to be ended.
    Stopped(Exit),
    /// The worker went away (its output ended, or it took no request).
    Gone,
}

/// What a worker's output carries to the grader.
enum Line {
    Ready,
    Reply(Box<Reply>, Vec<u8>),
}

/// The GPUs to put a worker on: CUDA_VISIBLE_DEVICES where it is set (each worker then sees one
/// of them), else every device the driver counts; none where there is no GPU.
pub fn gpus() -> Vec<String> {
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
pub struct Slot {
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
    worker: Option<Worker>,
}

struct Worker {
    /// The worker, leader of a process group of its own: Ctrl-C reaches the grader alone, and
    /// one signal ends the worker with its compile children.
    child: Group,
    requests: PipeWriter,
    /// Keeps the request pipe open, so that writing to a worker that has died fails instead of
    /// raising SIGPIPE in the grader.
    _keep_open: PipeReader,
    lines: mpsc::Receiver<Line>,
    checks: usize,
}

impl Slot {
    pub fn new(
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

    /// Sets the backend of the workers started from now on (the preflight decides it).
    pub fn set_backend(&mut self, backend: &str) {
        self.command.backend = Some(backend.to_string());
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
        if let Some(backend) = &c.backend {
            serve.extend(["--backend".into(), backend.into()]);
        }
        let lock = self.gpu_lock();
        let cell = self.sandbox_cell(lock.as_deref())?;
        // The descriptors it hands over stay open until the worker has started.
        let mut sandboxed = sandbox::command(&c.exe, &limits, cell, Default::default(), &serve)?;
        let (reader, requests) = std::io::pipe()?;
        let keep_open = reader.try_clone()?;
        self.set_up(&mut sandboxed.command, lock.as_deref())?
            .stdin(reader)
            .stdout(Stdio::piped());
        let mut child = Group::spawn(&mut sandboxed.command)?;
        let stdout = child.take_stdout().expect("the worker's stdout is piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || read_lines(BufReader::new(stdout), send));
        Ok(Worker {
            child,
            requests,
            _keep_open: keep_open,
            lines,
            checks: 0,
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

    /// A started and ready worker, or why none could be had (as a cell's raw result).
    fn ready_worker(&mut self, cancel: &AtomicBool) -> std::io::Result<Result<(), Raw>> {
        if self.worker.is_some() {
            return Ok(Ok(()));
        }
        let started = Instant::now();
        let mut worker = self.start()?;
        loop {
            match worker.lines.recv_timeout(Duration::from_millis(50)) {
                Ok(Line::Ready) => {
                    self.worker = Some(worker);
                    return Ok(Ok(()));
                }
                Ok(Line::Reply(..)) => {}
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
    pub fn run(
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
            protocol: PROTOCOL,
            exercise: exercise.to_string(),
            file: Some(kernel.to_path_buf()),
            seed: self.command.seed,
            sizes: self.command.sizes.clone(),
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
        let started = Instant::now();
        let sent = writeln!(self.requests, "{line}").is_ok();
        self.checks += 1;
        if !sent {
            return Answer::Gone;
        }
        loop {
            match self.lines.recv_timeout(Duration::from_millis(20)) {
                Ok(Line::Reply(reply, printed)) => return Answer::Reply(reply, printed),
                Ok(Line::Ready) => {}
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

/// Reads a worker's stdout: `MARKER` lines are its replies (and its `ready`); anything before a
/// reply is what the kernel printed during that check, kept up to [`MAX_PRINTED`].
fn read_lines(mut stdout: impl BufRead, lines: mpsc::Sender<Line>) {
    let mut printed = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdout.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let (before, message) = split_line(&line);
        let room = MAX_PRINTED.saturating_sub(printed.len());
        printed.extend_from_slice(&before[..before.len().min(room)]);
        let Some(message) = message else { continue };
        let message = if message.trim_ascii() == READY.as_bytes() {
            Line::Ready
        } else {
            Line::Reply(Box::new(read_reply(message)), std::mem::take(&mut printed))
        };
        if lines.send(message).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner::cmd::serve::MARKER;

    fn reply_line(error: &str) -> String {
        let reply = Reply {
            protocol: PROTOCOL,
            report: None,
            error: Some(error.into()),
            ending: false,
        };
        format!("{MARKER}{}\n", serde_json::to_string(&reply).unwrap())
    }

    #[test]
    fn output_before_a_reply_is_that_cells_printf_and_ready_is_no_reply() {
        let text = format!(
            "{MARKER}{READY}\nthread 0 says hi\nthread 1 says hi\n{}{}",
            reply_line("first"),
            reply_line("second")
        );
        let (send, lines) = mpsc::channel();
        read_lines(BufReader::new(text.as_bytes()), send);
        let got: Vec<Line> = lines.iter().collect();
        assert!(matches!(got[0], Line::Ready));
        let Line::Reply(reply, printed) = &got[1] else {
            panic!("a reply")
        };
        assert_eq!(reply.error.as_deref(), Some("first"));
        assert_eq!(printed, b"thread 0 says hi\nthread 1 says hi\n");
        let Line::Reply(reply, printed) = &got[2] else {
            panic!("a reply")
        };
        assert_eq!(reply.error.as_deref(), Some("second"));
        assert!(
            printed.is_empty(),
            "the next cell starts with nothing printed"
        );
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
        let command = CheckCommand {
            exe: "runner".into(),
            course_root: dir.path().into(),
            backend: None,
            seed: None,
            sizes: Vec::new(),
            time_limit: Duration::from_secs(1),
            memory_limit_mb: 1,
            programs: Default::default(),
            sandbox: None,
        };
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
    fn a_flood_of_printf_is_kept_up_to_the_cap() {
        let flood = "x".repeat(1000) + "\n";
        let text = flood.repeat(5000) + &reply_line("done");
        let (send, lines) = mpsc::channel();
        read_lines(BufReader::new(text.as_bytes()), send);
        let Some(Line::Reply(_, printed)) = lines.iter().next() else {
            panic!("a reply")
        };
        assert_eq!(printed.len(), MAX_PRINTED);
    }

    #[test]
    fn an_error_reply_reads_as_a_check_that_could_not_be_made() {
        let reply = Reply {
            protocol: PROTOCOL,
            report: None,
            error: Some("cannot read k.cu".into()),
            ending: false,
        };
        let raw = from_reply(reply, b"", 0.5);
        assert_eq!(raw.exit, Exit::Code(2));
        assert_eq!(raw.stderr, "Error: cannot read k.cu");
    }
}
