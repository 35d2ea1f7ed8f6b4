//! The parent's side of a compile child: starting it, asking it for one compile at a time under
//! the wall-time limit, and telling whether it may serve the next.

use super::{
    looks_out_of_memory, Answer, Compiled, Limits, NvrtcError, Rejected, Request, Stopped, PROGRAM,
    PROTOCOL, STARTED, SUBCOMMAND,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Compiles one child serves before a fresh one takes over, whatever they left: bounds what a
/// long-lived NVRTC may gather that its address space does not show, at one start in this many.
/// RUNNER_COMPILES_PER_CHILD may lower it (1: a fresh child for every compile, as before children
/// served many; to measure what serving saves).
pub(crate) const COMPILES_PER_CHILD: usize = 200;

fn compiles_per_child() -> usize {
    std::env::var("RUNNER_COMPILES_PER_CHILD")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or(COMPILES_PER_CHILD, |n| n.min(COMPILES_PER_CHILD))
}

/// The most of a child's stderr kept for saying how it crashed.
const ERRORS_KEPT: usize = 64 << 10;

/// A compile child that answers compiles one after another.
pub(super) struct Server {
    child: Child,
    /// Its stdin: requests, a line each.
    input: UnixStream,
    /// Its answers, read on a thread of their own; `None` once it ended without a whole answer.
    answers: Receiver<Option<Frame>>,
    errors: Option<JoinHandle<Vec<u8>>>,
    pub(super) nvrtc: String,
    pub(super) limits: Limits,
    served: usize,
    /// How many it may serve.
    serves_at_most: usize,
    /// It may not serve another compile (its last answer said so, or it ended).
    spent: bool,
}

/// What came of handing a child a request.
pub(super) enum Asked {
    Answered(Answer),
    /// The child had ended before it could take it (killed from outside while it waited).
    NotTaken,
}

/// One answer as the child sent it.
struct Frame {
    outcome: String,
    body: Vec<u8>,
    /// The child is as a fresh one would be after this compile.
    fresh: bool,
}

impl Server {
    /// A child for this NVRTC and these limits; it loads NVRTC and compiles a kernel of its own
    /// while the parent goes on.
    pub(super) fn start(nvrtc: &str, limits: Limits) -> std::io::Result<Server> {
        let (input, theirs) = UnixStream::pair()?;
        let mut child = Command::new(program()?)
            .arg(SUBCOMMAND)
            .arg("--serve")
            .arg(limits.memory_mb.to_string())
            .arg(limits.seconds.to_string())
            .arg(nvrtc)
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        STARTED.fetch_add(1, Ordering::Relaxed);
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        // The child's answers and its stderr are read on threads of their own: a compile waits
        // for an answer with a time limit, and stderr must be drained or the child blocks.
        let (sender, answers) = mpsc::channel();
        std::thread::Builder::new()
            .name("compile answers".into())
            .spawn(move || read_answers(stdout, sender))?;
        let errors = Some(
            std::thread::Builder::new()
                .name("compile stderr".into())
                .spawn(move || keep_errors(stderr))?,
        );
        Ok(Server {
            child,
            input,
            answers,
            errors,
            nvrtc: nvrtc.to_string(),
            limits,
            served: 0,
            serves_at_most: compiles_per_child(),
            spent: false,
        })
    }

    /// One compile: NVRTC's answer, or why there is none (the wall-time limit ends the child).
    pub(super) fn ask(&mut self, request: &Request) -> Asked {
        let mut line = serde_json::to_vec(request).expect("a request serialises");
        line.push(b'\n');
        if self.input.write_all(&line).is_err() {
            self.spent = true;
            return Asked::NotTaken;
        }
        self.served += 1;
        let limit = Duration::from_secs(self.limits.seconds);
        let answer = match self.answers.recv_timeout(limit) {
            Ok(Some(frame)) => {
                self.spent |= !frame.fresh || frame.outcome != "image";
                frame.answer()
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(self.crashed()),
            Err(RecvTimeoutError::Timeout) => {
                self.end();
                Err(Stopped::TimedOut)
            }
        };
        self.spent |= answer.is_err();
        Asked::Answered(answer)
    }

    /// Whether the next compile may go to this child.
    pub(super) fn may_serve_again(&self) -> bool {
        !self.spent && self.served < self.serves_at_most
    }

    /// Whether it was started for this NVRTC and these limits.
    pub(super) fn matches(&self, nvrtc: &str, limits: Limits) -> bool {
        self.nvrtc == nvrtc && self.limits == limits
    }

    /// Whether it can take a compile for this NVRTC and these limits now.
    pub(super) fn serves(&mut self, nvrtc: &str, limits: Limits) -> bool {
        self.matches(nvrtc, limits)
            && self.may_serve_again()
            && matches!(self.child.try_wait(), Ok(None))
    }

    /// How the child ended, once its answers stopped before a whole one.
    fn crashed(&mut self) -> Stopped {
        let status = match self.ended_within(Duration::from_secs(self.limits.seconds)) {
            Ok(status) => status,
            Err(e) => {
                return Stopped::Nvrtc(NvrtcError::Api(format!(
                    "cannot wait for the compiler's process: {e}"
                )))
            }
        };
        let errors = self
            .errors
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        let errors = String::from_utf8_lossy(&errors);
        Stopped::Crashed {
            how: match errors.trim().lines().last() {
                Some(last) => format!("{status}: {last}"),
                None => status.to_string(),
            },
            out_of_memory: looks_out_of_memory(
                std::os::unix::process::ExitStatusExt::signal(&status),
                &errors,
            ),
        }
    }

    /// How the child ended; one that closed its output but goes on (never one of this runner's)
    /// is ended after `patience`.
    fn ended_within(&mut self, patience: Duration) -> std::io::Result<std::process::ExitStatus> {
        let step = Duration::from_millis(10);
        let mut waited = Duration::ZERO;
        while waited < patience {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            std::thread::sleep(step);
            waited += step;
        }
        let _ = self.child.kill();
        self.child.wait()
    }

    fn end(&mut self) {
        self.spent = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.end();
    }
}

impl Frame {
    fn answer(self) -> Answer {
        let text = || String::from_utf8_lossy(&self.body).into_owned();
        match self.outcome.as_str() {
            "image" => Ok(Ok(Compiled { image: self.body })),
            "rejected" => Ok(Err(Rejected { log: text() })),
            "failed" if text().contains("OUT_OF_MEMORY") => Err(Stopped::Crashed {
                how: text(),
                out_of_memory: true,
            }),
            "failed" => Err(Stopped::Nvrtc(NvrtcError::Api(text()))),
            other => Err(Stopped::Nvrtc(NvrtcError::Api(format!(
                "the compiler's process answered `{other}`, which this runner does not know"
            )))),
        }
    }
}

/// The running program itself, even if its file has since been replaced (a rebuild, an upgrade
/// during `runner watch`): the child must speak the same protocol.
fn program() -> std::io::Result<std::path::PathBuf> {
    if let Some(program) = PROGRAM.get() {
        return Ok(program.clone());
    }
    let own = std::path::Path::new("/proc/self/exe");
    if own.exists() {
        return Ok(own.to_path_buf());
    }
    std::env::current_exe()
}

/// Reads the child's answers until it ends; `None` is sent once it ends without a whole one.
fn read_answers(stdout: ChildStdout, sender: mpsc::Sender<Option<Frame>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let frame = read_frame(&mut reader);
        let ended = frame.is_none();
        if sender.send(frame).is_err() || ended {
            return;
        }
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Frame> {
    let mut head = String::new();
    if reader.read_line(&mut head).ok()? == 0 {
        return None;
    }
    let (outcome, bytes, fresh) = parse_head(head.trim_end())?;
    let mut body = Vec::new();
    reader.take(bytes).read_to_end(&mut body).ok()?;
    (body.len() as u64 == bytes).then_some(Frame {
        outcome,
        body,
        fresh,
    })
}

/// `runner-compile <version> <outcome> <bytes> <fresh|spent>`: the outcome, the body's length
/// and whether the child may serve again.
fn parse_head(head: &str) -> Option<(String, u64, bool)> {
    let mut words = head.strip_prefix(PROTOCOL)?.split_whitespace();
    let outcome = words.next()?.to_string();
    let bytes = words.next()?.parse().ok()?;
    let fresh = match words.next()? {
        "fresh" => true,
        "spent" => false,
        _ => return None,
    };
    words.next().is_none().then_some((outcome, bytes, fresh))
}

/// The last [`ERRORS_KEPT`] bytes of the child's stderr, once it ends.
fn keep_errors(mut stderr: ChildStderr) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    while let Ok(read) = stderr.read(&mut chunk) {
        if read == 0 {
            break;
        }
        kept.extend_from_slice(&chunk[..read]);
        if kept.len() > 2 * ERRORS_KEPT {
            kept.drain(..kept.len() - ERRORS_KEPT);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_only_with_its_whole_body_and_a_known_head() {
        let mut whole: &[u8] =
            b"runner-compile 2 image 5 fresh\nabcdeXrunner-compile 2 rejected 2 spent\nno";
        let first = read_frame(&mut whole).unwrap();
        assert_eq!((first.outcome.as_str(), first.fresh), ("image", true));
        assert_eq!(first.body, b"abcde");
        assert!(read_frame(&mut whole).is_none(), "X is no head");
        let mut cut: &[u8] = b"runner-compile 2 image 9 fresh\nabc";
        assert!(read_frame(&mut cut).is_none(), "a body cut short");
        assert!(parse_head("runner-compile 1 image 3 fresh").is_none());
        assert!(parse_head("runner-compile 2 image 3").is_none());
        assert!(parse_head("runner-compile 2 image 3 fresh more").is_none());
        let spent = parse_head("runner-compile 2 rejected 2 spent").unwrap();
        assert_eq!(spent, ("rejected".to_string(), 2, false));
    }
}
