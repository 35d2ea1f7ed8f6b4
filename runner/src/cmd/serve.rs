//! `runner __serve` (hidden): the worker behind `runner watch`. It keeps NVRTC loaded and the
//! backend open (on a GPU, the context) from one check to the next, so that a check after a save
//! pays for neither again; `watch` runs it as a child and starts another when it ends, so a kernel
//! that hangs or wrecks the context never takes the watcher down.
//!
//! It speaks the worker protocol (`contract::worker`): a request a line on stdin, a message a
//! line on the descriptor it was handed for them (`--reply-fd`, or the grader's sandbox's report
//! descriptor), closed to every process it starts. Its stdout carries only what kernels print (a
//! GPU prints a kernel's `printf` there), which can pass for no answer.
//!
//! On a GPU, a check that found a bug (a fault, a hang, an access out of bounds) may have left the
//! context unusable: the worker answers, says it is ending, and ends.
//!
//! `runner grade` runs the same worker for a class on a GPU (see `grade::worker`), one per GPU:
//! its requests carry the grading file's seed and extra sizes, and with `--announce` the worker
//! says it is ready once the backend is open, so that the grader's time limit for the first cell
//! does not count opening the GPU.

use crate::backend::sim::SimBackend;
use crate::backend::{Backend, BackendArgs};
use crate::checker::check_everywhere;
use crate::checker::{Checker, Premade};
use crate::compile::Compiler;
use crate::pristine;
use crate::session::{compiler_and_backend, find_course};
use crate::trace;
use anyhow::Context;
use contract::worker::{Message, Reply, Request, PROTOCOL};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// The hidden subcommand the worker runs as.
pub const SUBCOMMAND: &str = "__serve";

/// The flag that names the descriptor a worker answers on.
pub const REPLY_FD_FLAG: &str = "--reply-fd";

/// `runner __serve`'s arguments.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The backend the worker opens once and checks every request on.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Say `ready` once the backend is open (`runner grade` asks).
    #[arg(long)]
    pub announce: bool,
    /// The descriptor to write the answers on, handed over by the program that started the
    /// worker (`runner watch`).
    #[arg(long, value_name = "FD")]
    pub reply_fd: Option<i32>,
    /// The answers' descriptor as an open file: how the grader's sandbox hands it over. Not on
    /// the command line.
    #[arg(skip)]
    pub replies: Option<std::fs::File>,
}

/// The message a line of a worker's answers carries, or a reply saying it could not be read
/// (the worker is then to be ended: it may no longer be the worker it was).
pub fn read_message(line: &[u8]) -> Message {
    serde_json::from_slice(line).unwrap_or_else(|err| {
        Message::Reply(Reply {
            ending: true,
            ..Reply::error(format!("the worker's answer could not be read: {err}"))
        })
    })
}

/// Where the answers go: the file the grader's sandbox opened, else the descriptor named.
fn replies_of(args: &mut ServeArgs) -> anyhow::Result<std::fs::File> {
    if let Some(file) = args.replies.take() {
        return Ok(file);
    }
    let Some(fd) = args.reply_fd else {
        anyhow::bail!(
            "{SUBCOMMAND} answers on a descriptor of its own: it is started by `runner watch` and \
             `runner grade`, which hand it one with {REPLY_FD_FLAG}; run those instead"
        );
    };
    crate::os::take_handed_fd(fd)
        .with_context(|| format!("cannot take descriptor {fd} ({REPLY_FD_FLAG}) for the answers"))
}

/// Writes one message, a line, and flushes it; what kernels printed before it through C's
/// stdio goes out first.
fn send(replies: &mut impl Write, message: &Message) -> anyhow::Result<()> {
    crate::os::flush_c_stdio();
    std::io::stdout().flush()?;
    writeln!(replies, "{}", serde_json::to_string(message)?)?;
    replies.flush()?;
    Ok(())
}

/// Runs the worker (`runner __serve`): answers check requests until its input ends.
pub fn run(mut args: ServeArgs) -> anyhow::Result<ExitCode> {
    // First, before anything this process opens could take the descriptor's number.
    let mut replies = replies_of(&mut args)?;
    let course = find_course()?;
    keep_freed_memory();
    // A check compiles twice at once on a GPU (for it and for the simulator's re-check), each in
    // a child: two wait ready.
    crate::compile::child::keep_warm(2, true);
    let (compiler, mut backend) = compiler_and_backend(&course, args.backend.backend, false)?;
    trace::mark(format!(
        "worker ready: NVRTC loaded and backend opened: {}",
        backend.describe()
    ));
    if args.announce {
        send(&mut replies, &Message::Ready { protocol: PROTOCOL })?;
    }
    // What the last check made (its cases, their CPU reference's outputs, the reference solution
    // loaded), for the next check of the same exercise to reuse.
    let mut kept: Option<Premade> = None;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if backend.kind() == contract::Backend::Sim {
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
            Ok(request) => Reply::error(format!(
                "protocol {} asked for, this worker speaks {PROTOCOL}",
                request.protocol
            )),
            Err(err) => Reply::error(format!("a request that is not one: {err}")),
        };
        let ending = reply.ending;
        send(&mut replies, &Message::Reply(reply))?;
        trace::mark("reply written");
        if ending {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
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
    let on_gpu = backend.kind() == contract::Backend::Gpu;
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
            ..Reply::error(format!("{err:#}"))
        },
    }
}
