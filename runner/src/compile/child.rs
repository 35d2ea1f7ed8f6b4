//! Compiling in a child process under a time and memory limit.
//!
//! NVRTC runs to the end of whatever it is given: a macro that expands without end keeps it busy
//! for minutes and takes gigabytes. So the runner compiles in a copy of itself (`runner
//! __compile --serve <memory MiB> <seconds> <nvrtc>`), which limits its own memory before loading
//! NVRTC, compiles a kernel of its own (NVRTC's first-compile set-up), and then serves compiles
//! one after another, each under the CPU-time limit, killed by the parent when the wall-time
//! limit passes (`serving` is the child's side, `server` the parent's).
//!
//! A child serves the next compile only if the last one left it as a fresh one would be: NVRTC
//! answered with machine code or PTX (not a refusal, which may be its own "out of memory"), and
//! its address space is no larger than after its own first compile, give or take
//! [`serving::GROWTH_ALLOWED`]. A refusal, a crash, a timeout, growth, or
//! [`server::COMPILES_PER_CHILD`] compiles end it, and the next compile gets a fresh child: no
//! student's compile changes what the next one is given. Starting and NVRTC's first compile cost
//! a compile 92-136 ms on a 32-core machine, where a compile in a process that had compiled
//! before took 34 ms (scripts/gpu/results/grade-scaling.md).
//!
//! The contract between the two is versioned ([`PROTOCOL`]): a request is one line of JSON on
//! the child's stdin (a socket, so a write to a child that has died is an error, never SIGPIPE);
//! an answer is a line `runner-compile <version> <outcome> <bytes> <fresh|spent>` on its stdout
//! (`image`, `rejected` or `failed`), then that many bytes: the machine code or PTX, NVRTC's log,
//! or the error's text.
//!
//! Only a binary that calls [`serve_if_asked`] first thing in `main` (or a test that names the
//! runner with [`serve_from`]) compiles this way; anything else linking the library (benchmarks,
//! unit tests) compiles in its own process.

mod server;
mod serving;

use super::nvrtc::{Compiled, Nvrtc, NvrtcError, Rejected};
use server::{Asked, Server};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The hidden subcommand the child runs as.
pub const SUBCOMMAND: &str = "__compile";

const PROTOCOL: &str = "runner-compile 2";

static SERVES_COMPILES: AtomicBool = AtomicBool::new(false);

/// The program a child runs as, where not this one (tests name the runner's binary).
static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Call first thing in `main`: in a compile child this serves compiles and returns the exit
/// code; otherwise it returns `None` and, from then on, compiles run in a child.
pub fn serve_if_asked() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == SUBCOMMAND) {
        return Some(serving::serve(args.collect()));
    }
    SERVES_COMPILES.store(true, Ordering::Relaxed);
    None
}

/// Compiles go to children running `program` (a runner binary) from now on: for a test or a
/// tool that links the library and has the runner at hand.
pub fn serve_from(program: PathBuf) {
    let _ = PROGRAM.set(program);
    SERVES_COMPILES.store(true, Ordering::Relaxed);
}

/// Whether compiles go to a child: only in a binary that can answer them, and unless
/// RUNNER_COMPILE_IN_PROCESS is set (to measure what the child costs, or to debug NVRTC).
pub fn enabled() -> bool {
    SERVES_COMPILES.load(Ordering::Relaxed)
        && std::env::var_os("RUNNER_COMPILE_IN_PROCESS").is_none()
}

/// The limits a compile runs under; the environment may lower them (tests do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Seconds one compile may take (the child's CPU time, and the parent's wait for its
    /// answer) before it is given up.
    pub seconds: u64,
    /// The child's address space, in MiB: a compile that needs more fails instead of the
    /// machine running out.
    pub memory_mb: u64,
}

impl Limits {
    /// 30 s and 4096 MiB, or RUNNER_COMPILE_TIME_LIMIT_S and RUNNER_COMPILE_MEMORY_LIMIT_MB
    /// where set to a positive number.
    pub fn from_env() -> Limits {
        let read = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&v| v > 0)
                .unwrap_or(default)
        };
        Limits {
            seconds: read("RUNNER_COMPILE_TIME_LIMIT_S", 30),
            memory_mb: read("RUNNER_COMPILE_MEMORY_LIMIT_MB", 4096),
        }
    }
}

/// One compile, as sent to a child.
#[derive(serde::Serialize, serde::Deserialize)]
struct Request {
    name: String,
    source: String,
    options: Vec<String>,
    cubin: bool,
}

/// How a compile in the child ended, when it did not end with NVRTC's answer.
#[derive(Debug)]
pub enum Stopped {
    /// It ran past [`Limits::seconds`] and was ended.
    TimedOut,
    /// Ended without an answer (a signal, an allocation failure). `how` says what was seen,
    /// e.g. `signal: 6 (SIGABRT)`; `out_of_memory` whether that looks like the memory limit
    /// rather than a crash of the compiler itself.
    Crashed {
        /// What was seen of its end.
        how: String,
        /// Whether it looks like the memory limit.
        out_of_memory: bool,
    },
    /// The child could not load or call NVRTC.
    Nvrtc(NvrtcError),
}

/// NVRTC's own answer to a compile, or why there is none.
pub type Answer = Result<Result<Compiled, Rejected>, Stopped>;

/// Compiles in a child process; `Ok` holds NVRTC's own answer.
pub fn compile(
    nvrtc: &Nvrtc,
    source: &str,
    name: &str,
    options: &[String],
    cubin: bool,
    limits: Limits,
) -> Answer {
    let request = Request {
        name: name.into(),
        source: source.into(),
        options: options.to_vec(),
        cubin,
    };
    let started = |e: std::io::Error| {
        Stopped::Nvrtc(NvrtcError::Api(format!(
            "cannot start the compiler's process: {e}"
        )))
    };
    let mut server = match take(&nvrtc.path, limits) {
        Some(server) => server,
        None => Server::start(&nvrtc.path, limits).map_err(started)?,
    };
    let answer = match server.ask(&request) {
        Asked::Answered(answer) => answer,
        // It ended while it waited (killed from outside): a fresh one takes the request.
        Asked::NotTaken => {
            server = Server::start(&nvrtc.path, limits).map_err(started)?;
            match server.ask(&request) {
                Asked::Answered(answer) => answer,
                Asked::NotTaken => Err(Stopped::Crashed {
                    how: "the compiler's process ended before it read the request".into(),
                    out_of_memory: false,
                }),
            }
        }
    };
    if server.may_serve_again() {
        give_back(server);
    } else {
        drop(server);
        if REFILL.load(Ordering::Relaxed) {
            fill_pool(&nvrtc.path, limits);
        }
    }
    answer
}

/// How many children to keep started ahead (none unless [`keep_warm`] asks), and whether to
/// start another each time one is ended.
static WANTED: AtomicUsize = AtomicUsize::new(0);
static REFILL: AtomicBool = AtomicBool::new(false);
static POOL: Mutex<Vec<Server>> = Mutex::new(Vec::new());
/// Children started by this process, for tests and profiles.
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// Have `count` compile children started ahead (for compiles that may run side by side), and,
/// with `refill` (a long-lived process), another started whenever one is ended; [`warm_up`]
/// starts the first ones. Only where compiles go to a child at all.
pub fn keep_warm(count: usize, refill: bool) {
    WANTED.store(count, Ordering::Relaxed);
    REFILL.store(refill, Ordering::Relaxed);
}

/// Starts the children [`keep_warm`] asked for, for this NVRTC and the limits of now.
pub fn warm_up(nvrtc: &Nvrtc) {
    fill_pool(&nvrtc.path, Limits::from_env());
}

/// How many compile children this process has started so far.
pub fn children_started() -> usize {
    STARTED.load(Ordering::Relaxed)
}

fn pool() -> std::sync::MutexGuard<'static, Vec<Server>> {
    POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn fill_pool(nvrtc: &str, limits: Limits) {
    let wanted = WANTED.load(Ordering::Relaxed);
    if wanted == 0 || !enabled() {
        return;
    }
    let mut pool = pool();
    // Children of another NVRTC or other limits, or that have ended, serve no compile.
    pool.retain_mut(|server| server.serves(nvrtc, limits));
    while pool.len() < wanted {
        let Ok(server) = Server::start(nvrtc, limits) else {
            return;
        };
        pool.push(server);
    }
}

fn take(nvrtc: &str, limits: Limits) -> Option<Server> {
    let mut pool = pool();
    loop {
        let at = pool.iter_mut().position(|s| s.matches(nvrtc, limits))?;
        let mut server = pool.swap_remove(at);
        if server.serves(nvrtc, limits) {
            return Some(server);
        }
    }
}

/// Back to the pool for the next compile, unless as many wait there as are wanted (compiles
/// side by side each started one). Children of another NVRTC or other limits end: compiles have
/// moved on from them.
fn give_back(server: Server) {
    let mut pool = pool();
    pool.retain_mut(|other| other.serves(&server.nvrtc, server.limits));
    if pool.len() < WANTED.load(Ordering::Relaxed).max(1) {
        pool.push(server);
    }
}

/// Whether a child that ended with `signal` and `stderr` most likely met its memory limit: an
/// allocation that failed aborts (SIGABRT) or says so, and the kernel's OOM killer sends
/// SIGKILL; a segmentation fault or an illegal instruction is the compiler's own crash.
fn looks_out_of_memory(signal: Option<i32>, stderr: &str) -> bool {
    let said = [
        "memory allocation",
        "bad_alloc",
        "out of memory",
        "Cannot allocate",
    ]
    .iter()
    .any(|words| stderr.contains(words));
    said || matches!(signal, Some(libc::SIGABRT | libc::SIGKILL))
}

#[cfg(test)]
mod tests {
    use super::looks_out_of_memory;

    #[test]
    fn only_an_abort_a_kill_or_words_about_memory_are_taken_for_the_memory_limit() {
        assert!(looks_out_of_memory(Some(libc::SIGABRT), ""));
        assert!(looks_out_of_memory(Some(libc::SIGKILL), ""));
        assert!(looks_out_of_memory(
            None,
            "memory allocation of 2147483648 bytes failed"
        ));
        assert!(looks_out_of_memory(Some(libc::SIGSEGV), "std::bad_alloc"));
        assert!(!looks_out_of_memory(Some(libc::SIGSEGV), ""));
        assert!(!looks_out_of_memory(
            Some(libc::SIGILL),
            "Illegal instruction"
        ));
        assert!(!looks_out_of_memory(None, ""));
    }
}
