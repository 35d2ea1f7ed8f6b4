//! Compiling in a child process under a time and memory limit.
//!
//! NVRTC runs to the end of whatever it is given: a macro that expands without end keeps it busy
//! for minutes and takes gigabytes. So the runner compiles in a copy of itself (`runner
//! __compile`), which limits its own memory and CPU time before loading NVRTC and is killed when
//! the wall-time limit passes. The contract between the two is versioned:
//!
//! - the one argument after the subcommand: a temporary file holding one JSON [`Request`] (a
//!   file, not a pipe, so a child that dies early cannot hand the parent a broken pipe);
//! - stdout: one line `runner-compile <version> <outcome>` (`image`, `rejected` or `failed`),
//!   then the machine code or PTX, NVRTC's log, or the error's text, to the end.
//!
//! A child can also be started ahead (`runner __compile --warm <memory MiB> <seconds> <nvrtc>`,
//! see [`keep_warm`]): it limits itself and loads NVRTC at once, then waits for the path of its
//! request file on stdin (a line; end of input ends it). It still makes one compile and ends,
//! under the same limits, so nothing a compile leaves behind reaches the next; a long-lived
//! process (`runner watch`'s worker) so pays neither the start nor NVRTC's load on a compile.
//!
//! Only a binary that calls [`serve_if_asked`] first thing in `main` compiles this way; anything
//! else linking the library (benchmarks, unit tests) compiles in its own process.

use super::nvrtc::{Compiled, Nvrtc, NvrtcError, Rejected};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The hidden subcommand the child runs as.
pub const SUBCOMMAND: &str = "__compile";

const PROTOCOL: &str = "runner-compile 1";

static SERVES_COMPILES: AtomicBool = AtomicBool::new(false);

/// Call first thing in `main`: in a compile child this compiles and returns the exit code;
/// otherwise it returns `None` and, from then on, compiles run in a child.
pub fn serve_if_asked() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == SUBCOMMAND) {
        return Some(serve());
    }
    SERVES_COMPILES.store(true, Ordering::Relaxed);
    None
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
    pub seconds: u64,
    pub memory_mb: u64,
}

impl Limits {
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

#[derive(serde::Serialize, serde::Deserialize)]
struct Request {
    nvrtc: String,
    name: String,
    source: String,
    options: Vec<String>,
    cubin: bool,
    limits_memory_mb: u64,
    limits_seconds: u64,
}

/// How a compile in the child ended, when it did not end with NVRTC's answer.
#[derive(Debug)]
pub enum Stopped {
    TimedOut,
    /// Ended without an answer (a signal, an allocation failure). `how` says what was seen,
    /// e.g. `signal: 6 (SIGABRT)`; `out_of_memory` whether that looks like the memory limit
    /// rather than a crash of the compiler itself.
    Crashed {
        how: String,
        out_of_memory: bool,
    },
    Nvrtc(NvrtcError),
}

/// Compiles in a child process; `Ok` holds NVRTC's own answer.
pub fn compile(
    nvrtc: &Nvrtc,
    source: &str,
    name: &str,
    options: &[String],
    cubin: bool,
    limits: Limits,
) -> Result<Result<Compiled, Rejected>, Stopped> {
    let api = |what: &str, e: std::io::Error| {
        Stopped::Nvrtc(NvrtcError::Api(format!(
            "cannot {what} the compiler's process: {e}"
        )))
    };
    let request = serde_json::to_vec(&Request {
        nvrtc: nvrtc.path.clone(),
        name: name.into(),
        source: source.into(),
        options: options.to_vec(),
        cubin,
        limits_memory_mb: limits.memory_mb,
        limits_seconds: limits.seconds,
    })
    .expect("a request serialises");
    let mut request_file = tempfile::NamedTempFile::new().map_err(|e| api("write for", e))?;
    request_file
        .write_all(&request)
        .map_err(|e| api("write for", e))?;
    let mut child = match take_warm(&nvrtc.path, limits) {
        // A child that died while it waited takes no request; a fresh one does.
        Some(mut warm) => match writeln!(warm.stdin, "{}", request_file.path().display()) {
            Ok(()) => {
                drop(warm.stdin);
                warm.child
            }
            Err(_) => {
                let _ = warm.child.kill();
                let _ = warm.child.wait();
                spawn(&[request_file.path().as_os_str()]).map_err(|e| api("start", e))?
            }
        },
        None => spawn(&[request_file.path().as_os_str()]).map_err(|e| api("start", e))?,
    };
    // The next compile finds a child ready too.
    if REFILL.load(Ordering::Relaxed) {
        fill_pool(&nvrtc.path, limits);
    }
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = (&mut stderr).take(64 << 10).read_to_end(&mut text);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        String::from_utf8_lossy(&text).into_owned()
    });
    let (sender, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.read_to_end(&mut bytes);
        let _ = sender.send(read.map(|_| bytes));
    });
    let output = match answer.recv_timeout(Duration::from_secs(limits.seconds)) {
        Ok(output) => output,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Stopped::TimedOut);
        }
    };
    let status = child.wait().map_err(|e| api("wait for", e))?;
    let stderr = errors.join().unwrap_or_default();
    let output = output.map_err(|e| api("read from", e))?;
    match parse_answer(&output) {
        Some(answer) => answer,
        None => Err(Stopped::Crashed {
            how: match stderr.trim().lines().last() {
                Some(last) => format!("{status}: {last}"),
                None => status.to_string(),
            },
            out_of_memory: looks_out_of_memory(
                std::os::unix::process::ExitStatusExt::signal(&status),
                &stderr,
            ),
        }),
    }
}

/// A copy of this program as a compile child, with `args` after the subcommand.
fn spawn(args: &[&std::ffi::OsStr]) -> std::io::Result<Child> {
    // The running program itself, even if its file has since been replaced (a rebuild, an
    // upgrade during `runner watch`): the child must speak the same protocol.
    let own = std::path::Path::new("/proc/self/exe");
    let exe = if own.exists() {
        own.to_path_buf()
    } else {
        std::env::current_exe()?
    };
    Command::new(exe)
        .arg(SUBCOMMAND)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// A child started ahead, limited and with NVRTC loaded, waiting for its request.
struct Warm {
    child: Child,
    stdin: ChildStdin,
    nvrtc: String,
    limits: Limits,
}

/// How many children to keep started ahead (none unless [`keep_warm`] asks), and whether to
/// start another each time one is taken.
static WANTED: AtomicUsize = AtomicUsize::new(0);
static REFILL: AtomicBool = AtomicBool::new(false);
static POOL: Mutex<Vec<Warm>> = Mutex::new(Vec::new());

/// Have `count` compile children started ahead (for compiles that may run side by side), and,
/// with `refill` (a long-lived process), another started whenever one is taken; [`warm_up`]
/// starts the first ones. Only where compiles go to a child at all.
pub fn keep_warm(count: usize, refill: bool) {
    WANTED.store(count, Ordering::Relaxed);
    REFILL.store(refill, Ordering::Relaxed);
}

/// Starts the children [`keep_warm`] asked for, for this NVRTC and the limits of now.
pub fn warm_up(nvrtc: &Nvrtc) {
    fill_pool(&nvrtc.path, Limits::from_env());
}

fn fill_pool(nvrtc: &str, limits: Limits) {
    let wanted = WANTED.load(Ordering::Relaxed);
    if wanted == 0 || !enabled() {
        return;
    }
    let mut pool = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // Children of another NVRTC or other limits, or that have ended, serve no compile.
    pool.retain_mut(|warm| {
        let usable = warm.nvrtc == nvrtc
            && warm.limits == limits
            && matches!(warm.child.try_wait(), Ok(None));
        if !usable {
            let _ = warm.child.kill();
            let _ = warm.child.wait();
        }
        usable
    });
    while pool.len() < wanted {
        let started = spawn(&[
            "--warm".as_ref(),
            limits.memory_mb.to_string().as_ref(),
            limits.seconds.to_string().as_ref(),
            nvrtc.as_ref(),
        ]);
        let Ok(mut child) = started else { return };
        let Some(stdin) = child.stdin.take() else {
            return;
        };
        pool.push(Warm {
            child,
            stdin,
            nvrtc: nvrtc.to_string(),
            limits,
        });
    }
}

fn take_warm(nvrtc: &str, limits: Limits) -> Option<Warm> {
    let mut pool = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    loop {
        let at = pool
            .iter()
            .position(|w| w.nvrtc == nvrtc && w.limits == limits)?;
        let mut warm = pool.swap_remove(at);
        if matches!(warm.child.try_wait(), Ok(None)) {
            return Some(warm);
        }
        let _ = warm.child.wait();
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

fn parse_answer(output: &[u8]) -> Option<Result<Result<Compiled, Rejected>, Stopped>> {
    let end = output.iter().position(|&b| b == b'\n')?;
    let head = std::str::from_utf8(&output[..end]).ok()?;
    let body = &output[end + 1..];
    let outcome = head.strip_prefix(PROTOCOL)?.trim();
    let text = || String::from_utf8_lossy(body).into_owned();
    Some(match outcome {
        "image" => Ok(Ok(Compiled {
            image: body.to_vec(),
        })),
        "rejected" => Ok(Err(Rejected { log: text() })),
        "failed" if text().contains("OUT_OF_MEMORY") => Err(Stopped::Crashed {
            how: text(),
            out_of_memory: true,
        }),
        "failed" => Err(Stopped::Nvrtc(NvrtcError::Api(text()))),
        _ => return None,
    })
}

/// The child's side: limits itself, compiles the request in the file named by its argument
/// (or, started ahead with `--warm`, by the line on stdin), answers on stdout.
fn serve() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(2).collect();
    let answer = if args.first().is_some_and(|a| a == "--warm") {
        match serve_warm(&args[1..]) {
            Some(answer) => answer,
            // Its parent ended, or never needed it.
            None => return ExitCode::SUCCESS,
        }
    } else {
        read_request(args.first()).and_then(|request| {
            limit_self(request.limits_memory_mb, request.limits_seconds)?;
            let nvrtc = Nvrtc::open(&request.nvrtc).map_err(|e| e.to_string())?;
            compile_request(&nvrtc, &request)
        })
    };
    let (outcome, body) = match answer {
        Ok(Ok(compiled)) => ("image", compiled.image),
        Ok(Err(rejected)) => ("rejected", rejected.log.into_bytes()),
        Err(error) => ("failed", error.into_bytes()),
    };
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "{PROTOCOL} {outcome}")
        .and_then(|_| out.write_all(&body))
        .and_then(|_| out.flush());
    if written.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

type Answer = Result<Result<Compiled, Rejected>, String>;

/// A child started ahead: limits, NVRTC, then the request named on stdin; `None` when stdin
/// ends with no request.
fn serve_warm(args: &[std::ffi::OsString]) -> Option<Answer> {
    let number = |at: usize| {
        args.get(at)
            .and_then(|a| a.to_str())
            .and_then(|a| a.parse::<u64>().ok())
            .ok_or_else(|| "a warm compile child needs its limits".to_string())
    };
    let prepared = number(0).and_then(|memory_mb| {
        let seconds = number(1)?;
        limit_self(memory_mb, seconds)?;
        let path = args
            .get(2)
            .and_then(|a| a.to_str())
            .ok_or("no NVRTC given")?;
        let nvrtc = Nvrtc::open(path).map_err(|e| e.to_string())?;
        prime(&nvrtc);
        Ok((nvrtc, memory_mb, seconds))
    });
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => return None,
        Ok(_) => {}
    }
    let request_file = std::ffi::OsString::from(line.trim_end_matches('\n'));
    Some(prepared.and_then(|(nvrtc, memory_mb, seconds)| {
        let request = read_request(Some(&request_file))?;
        if request.nvrtc != nvrtc.path
            || request.limits_memory_mb != memory_mb
            || request.limits_seconds != seconds
        {
            return Err(
                "a warm compile child was sent a request for another NVRTC or other limits".into(),
            );
        }
        compile_request(&nvrtc, &request)
    }))
}

/// A kernel compiled and thrown away while a warm child waits for its request.
const PRIMER: &str = "extern \"C\" __global__ void primer(int *out) { out[threadIdx.x] = 1; }\n";

/// Compiles [`PRIMER`] so that NVRTC's first-compile set-up (its builtin headers and code
/// generator; loading the library leaves them for the first program) is done before the request
/// comes: a grader's worker that waited for it spent 91 ms a compile with 4 workers and 136 ms
/// with 8 on a 32-core machine, where a compile in a process that had compiled before took 34 ms
/// (scripts/gpu/results/grade-scaling.md); 74 and 119 ms with it. Whatever it leaves is NVRTC's for a kernel of the
/// course's own, so the child's one student compile still finds nothing of another student's.
fn prime(nvrtc: &Nvrtc) {
    let _ = nvrtc.compile(PRIMER, "primer.cu", &[], false);
}

fn read_request(path: Option<&std::ffi::OsString>) -> Result<Request, String> {
    let path = path.ok_or_else(|| "no request file given".to_string())?;
    let input = std::fs::read(path).map_err(|e| e.to_string())?;
    serde_json::from_slice::<Request>(&input).map_err(|e| e.to_string())
}

fn compile_request(nvrtc: &Nvrtc, request: &Request) -> Answer {
    nvrtc
        .compile(
            &request.source,
            &request.name,
            &request.options,
            request.cubin,
        )
        .map_err(|e| e.to_string())
}

/// Address space rather than data memory: NVRTC is one thread with no CUDA context, so what it
/// maps is what it uses. CPU time backs up the parent's wall-time kill should the parent die.
fn limit_self(memory_mb: u64, seconds: u64) -> Result<(), String> {
    use rlimit::Resource;
    let set = |resource: Resource, value: u64| {
        let (_, hard) = rlimit::getrlimit(resource).map_err(|e| e.to_string())?;
        let value = value.min(hard);
        rlimit::setrlimit(resource, value, value).map_err(|e| e.to_string())
    };
    set(Resource::AS, memory_mb << 20)?;
    set(Resource::CPU, seconds + 1)?;
    set(Resource::CORE, 0)
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
