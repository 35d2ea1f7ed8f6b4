//! `runner __serve` (hidden): the worker behind `runner watch`. It keeps NVRTC loaded and the
//! backend open (on a GPU, the context) from one check to the next, so that a check after a save
//! pays for neither again; `watch` runs it as a child and starts another when it ends, so a kernel
//! that hangs or wrecks the context never takes the watcher down.
//!
//! The contract between the two is versioned ([`PROTOCOL`]):
//!
//! - stdin: one JSON [`Request`] a line;
//! - stdout: for each request, one line `MARKER` + a JSON [`Reply`]. Anything else on stdout is the
//!   kernel's own `printf` (a GPU prints it on the process's stdout) and is passed on as it is.
//!
//! On a GPU, a check that found a bug (a fault, a hang, an access out of bounds) may have left the
//! context unusable: the worker answers, says it is ending, and ends.
//!
//! `runner grade` runs the same worker for a class on a GPU (see `grade::worker`), one per GPU:
//! its requests carry the grading file's seed and extra sizes, and with `--announce` the worker
//! writes `MARKER` + `ready` once the backend is open, so that the grader's time limit for the
//! first cell does not count opening the GPU.

use crate::backend::sim::SimBackend;
use crate::backend::Backend;
use crate::backend::BackendChoice;
use crate::checker::check_everywhere;
use crate::checker::{Checker, Premade};
use crate::compile::Compiler;
use crate::pristine;
use crate::report::CheckReport;
use crate::session::{compiler_and_backend, find_course};
use crate::trace;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The hidden subcommand the worker runs as.
pub const SUBCOMMAND: &str = "__serve";

/// Raised whenever [`Request`] or [`Reply`] changes.
pub const PROTOCOL: u32 = 2;

/// What starts a reply line: a record separator, which neither JSON nor a student's `printf` of
/// text puts at the start of a line, then the protocol's name and version.
pub const MARKER: &str = "\u{1e}runner-serve 2 ";

/// What follows [`MARKER`] on the line a worker started with `--announce` writes once ready.
pub const READY: &str = "ready";

/// Splits a line of a worker's stdout into what a kernel printed and, where the line carries
/// the worker's own message, what follows [`MARKER`].
pub fn split_line(line: &[u8]) -> (&[u8], Option<&[u8]>) {
    let marker = MARKER.as_bytes();
    match line.windows(marker.len()).position(|w| w == marker) {
        Some(at) => (&line[..at], Some(&line[at + marker.len()..])),
        None => (line, None),
    }
}

/// The reply a message carries, or one saying it could not be read (the worker ends: it may no
/// longer be the worker it was).
pub fn read_reply(message: &[u8]) -> Reply {
    serde_json::from_slice(message).unwrap_or_else(|err| Reply {
        protocol: PROTOCOL,
        report: None,
        error: Some(format!("the worker's reply could not be read: {err}")),
        ending: true,
    })
}

/// One check to make.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub protocol: u32,
    pub exercise: String,
    /// A file to check instead of the exercise's own (as `runner check --file`).
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// The seed of the random inputs (as `runner check --seed`).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Problem sizes to test beyond the exercise's own (as `runner check --sizes`).
    #[serde(default)]
    pub sizes: Vec<usize>,
}

/// The answer to one [`Request`]: the report, or why no check could be made.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    pub protocol: u32,
    pub report: Option<Box<CheckReport>>,
    pub error: Option<String>,
    /// The worker ends after this reply: its GPU context may be unusable.
    pub ending: bool,
}

pub fn run(choice: Option<BackendChoice>, announce: bool) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    keep_freed_memory();
    // A check compiles twice at once on a GPU (for it and for the simulator's re-check), each in
    // a child: two wait ready.
    crate::compile::child::keep_warm(2, true);
    let (compiler, mut backend) = compiler_and_backend(&course, choice, false)?;
    trace::mark(format!(
        "worker ready: NVRTC loaded and backend opened: {}",
        backend.describe()
    ));
    if announce {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{MARKER}{READY}")?;
        out.flush()?;
    }
    // What the last check made (its cases, their CPU reference's outputs, the reference solution
    // loaded), for the next check of the same exercise to reuse.
    let mut kept: Option<Premade> = None;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if backend.kind() == crate::report::Backend::Sim {
            // A simulated device afresh for every check, as `runner check` has: its memory
            // starts empty at the same addresses (they appear in the findings), and nothing an
            // earlier kernel left there can be read.
            backend = Box::new(SimBackend::new());
            if let Some(kept) = &mut kept {
                kept.forget_modules();
            }
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Ok(request) if request.protocol == PROTOCOL => {
                answer(&compiler, backend.as_mut(), &request, &mut kept)
            }
            Ok(request) => failed(format!(
                "protocol {} asked for, this worker speaks {PROTOCOL}",
                request.protocol
            )),
            Err(err) => failed(format!("a request that is not one: {err}")),
        };
        let mut out = std::io::stdout().lock();
        writeln!(out, "{MARKER}{}", serde_json::to_string(&reply)?)?;
        out.flush()?;
        trace::mark("reply written");
        if reply.ending {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn failed(error: String) -> Reply {
    Reply {
        protocol: PROTOCOL,
        report: None,
        error: Some(error),
        ending: false,
    }
}

/// Keeps the memory a check frees for the next check rather than handing it back to the system.
/// glibc maps each large buffer (from 128 KiB to 32 MiB, as it adapts) afresh and unmaps it when
/// freed, so every check after a save paid a page fault per 4 KiB of the outputs it read back:
/// about 25 ms of exercise 02's 8M-element case on an H100, a quarter of the re-check.
fn keep_freed_memory() {
    crate::os::keep_freed_memory(1 << 30);
}

/// Checks as `runner check` does, with the course read again (metadata edited since the last
/// check counts) and the compiler and backend kept.
fn answer(
    compiler: &Compiler,
    backend: &mut dyn Backend,
    request: &Request,
    kept: &mut Option<Premade>,
) -> Reply {
    trace::mark(format!("request: check {}", request.exercise));
    let on_gpu = backend.kind() == crate::report::Backend::Gpu;
    let checked = find_course().and_then(|course| {
        let exercise = course.exercise(&request.exercise)?.clone();
        let path = request
            .file
            .clone()
            .unwrap_or_else(|| course.exercise_path(&exercise));
        let mut checker = Checker {
            course: &course,
            compiler,
            backend: &mut *backend,
            seed: request.seed,
            extra_sizes: request.sizes.clone(),
            timing: true,
            save_outputs: None,
            retile: false,
            premade: kept.take(),
            original: pristine::original_text(&course, &exercise),
            compile_as: None,
        };
        let checked = check_everywhere(&mut checker, &exercise, &path);
        *kept = checker.premade.take();
        checked
    });
    match checked {
        Ok(report) => {
            // A bug found on the device may have been a fault or a kernel abandoned there; past
            // one, a GPU context is trusted no more. (The simulator's findings say nothing of it.)
            let bug = report
                .cases
                .iter()
                .any(|case| case.error.is_some() || crate::checker::verdict::is_bug(case.verdict));
            Reply {
                protocol: PROTOCOL,
                report: Some(Box::new(report)),
                error: None,
                ending: on_gpu && bug,
            }
        }
        Err(err) => Reply {
            ending: on_gpu,
            ..failed(format!("{err:#}"))
        },
    }
}
