//! The child's side: limits itself, loads NVRTC, compiles a kernel of its own, then answers
//! compile requests one after another until its stdin ends (its parent is done, or gone).

use super::{Request, PROTOCOL};
use crate::compile::nvrtc::{Compiled, Nvrtc, Rejected};
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// How much larger than after its own first compile a child's address space may be after a
/// student's and still serve the next one: NVRTC's allocator keeps a little; more means the
/// next compile would find less of the memory limit free than a fresh child does.
pub(crate) const GROWTH_ALLOWED: u64 = 64 << 20;

/// What the child answers with: NVRTC's answer, or the error's text.
type Answer = Result<Result<Compiled, Rejected>, String>;

/// A kernel compiled and thrown away before the first request: NVRTC's first-compile set-up
/// (its builtin headers and code generator; loading the library leaves them for the first
/// program) is then off the request's path, and the child's size after it is what every later
/// compile is held to.
const PRIMER: &str = "extern \"C\" __global__ void primer(int *out) { out[threadIdx.x] = 1; }\n";

/// A child ready for requests.
struct Ready {
    nvrtc: Nvrtc,
    seconds: u64,
    /// Its address space after its own first compile, in bytes.
    baseline: u64,
}

/// Serves `--serve <memory MiB> <seconds> <nvrtc>` until stdin ends.
pub(super) fn serve(args: Vec<OsString>) -> ExitCode {
    if args.first().is_none_or(|a| a != "--serve") {
        eprintln!(
            "this is the runner's compile child: the runner starts it with --serve; run `runner` \
             itself"
        );
        return ExitCode::FAILURE;
    }
    let ready = prepare(&args[1..]);
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (answer, fresh) = match &ready {
            Ok(ready) => ready.answer(&line),
            Err(why) => (Err(why.clone()), false),
        };
        if write_answer(&mut out, answer, fresh).is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Limits, NVRTC and the first compile; an error is the answer to every request.
fn prepare(args: &[OsString]) -> Result<Ready, String> {
    let number = |at: usize| {
        args.get(at)
            .and_then(|a| a.to_str())
            .and_then(|a| a.parse::<u64>().ok())
            .ok_or_else(|| "a compile child needs its memory and time limits".to_string())
    };
    let memory_mb = number(0)?;
    let seconds = number(1)?;
    limit_self(memory_mb, seconds)?;
    let path = args
        .get(2)
        .and_then(|a| a.to_str())
        .ok_or("a compile child needs NVRTC's path")?;
    let nvrtc = Nvrtc::open(path).map_err(|e| e.to_string())?;
    let _ = nvrtc.compile(PRIMER, "primer.cu", &[], false);
    let baseline = address_space().ok_or("cannot read the compile child's own size")?;
    Ok(Ready {
        nvrtc,
        seconds,
        baseline,
    })
}

impl Ready {
    /// The answer to one request line, and whether the child is still as a fresh one.
    fn answer(&self, line: &str) -> (Answer, bool) {
        let answer = serde_json::from_str::<Request>(line)
            .map_err(|e| format!("a compile request that does not read: {e}"))
            .and_then(|request| {
                limit_cpu(self.seconds)?;
                self.nvrtc
                    .compile(
                        &request.source,
                        &request.name,
                        &request.options,
                        request.cubin,
                    )
                    .map_err(|e| e.to_string())
            });
        let fresh = address_space().is_some_and(|now| now <= self.baseline + GROWTH_ALLOWED);
        (answer, fresh)
    }
}

fn write_answer(out: &mut impl Write, answer: Answer, fresh: bool) -> std::io::Result<()> {
    let (outcome, body) = match answer {
        Ok(Ok(compiled)) => ("image", compiled.image),
        Ok(Err(rejected)) => ("rejected", rejected.log.into_bytes()),
        Err(error) => ("failed", error.into_bytes()),
    };
    let state = if fresh { "fresh" } else { "spent" };
    writeln!(out, "{PROTOCOL} {outcome} {} {state}", body.len())?;
    out.write_all(&body)?;
    out.flush()
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
    set(Resource::CORE, 0)?;
    limit_cpu(seconds)
}

/// The CPU-time limit counts the whole process's time: before each compile its soft limit is
/// moved to the time spent so far plus one compile's (the hard limit stays, so it can be moved
/// again).
fn limit_cpu(seconds: u64) -> Result<(), String> {
    use rlimit::Resource;
    let (_, hard) = rlimit::getrlimit(Resource::CPU).map_err(|e| e.to_string())?;
    let spent = cpu_seconds().ok_or("cannot read the compile child's CPU time")?;
    let soft = cpu_soft_limit(spent, seconds).min(hard);
    rlimit::setrlimit(Resource::CPU, soft, hard).map_err(|e| e.to_string())
}

/// One second more than the compile's own, as before a child served more than one compile.
fn cpu_soft_limit(spent: u64, seconds: u64) -> u64 {
    spent + seconds + 1
}

/// The process's user and system time so far, in whole seconds rounded up (/proc/self/stat
/// counts in USER_HZ ticks, 100 a second on Linux whatever the kernel's own rate).
fn cpu_seconds() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command's name (in parentheses) may hold spaces: fields are counted after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system).div_ceil(100))
}

/// The process's address space (what the memory limit counts), in bytes.
fn address_space() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_compile_gets_the_time_limit_on_top_of_what_the_child_spent_before() {
        assert_eq!(cpu_soft_limit(0, 30), 31);
        assert_eq!(cpu_soft_limit(45, 30), 76);
    }

    #[test]
    fn the_process_own_cpu_time_and_size_are_read() {
        let before = cpu_seconds().expect("CPU time from /proc/self/stat");
        let mut x = 0u64;
        for i in 0..50_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(cpu_seconds().unwrap() >= before.max(1), "{x}");
        let size = address_space().expect("VmSize from /proc/self/status");
        assert!(size > 1 << 20, "{size}");
    }
}
