//! One cell: `runner check NN --file KERNEL` for one submission's kernel, in a process of its
//! own under a wall-time limit (killed on expiry) and the sandbox's CPU, memory and file-size
//! limits, writing its report to a file handed over on a descriptor (stdout carries only what
//! the kernel printed); then what its exit and its report mean for the grade. A whole program (host
//! and Python exercises, graded with `--run-programs`) is checked the same way, with its
//! exercise's own time limit and room for cargo (`CheckCommand::limits`), and its report is
//! read by `program`.
//!
//! A kernel's `printf` never decides a grade: a correct kernel left with a debug print in every
//! thread gets its points. Its output is bounded by the check (1 MiB per launch in the simulator,
//! as a GPU's printf buffer, and 1 MiB per report), the cell shows its first lines and says when
//! it was cut; only the time printing takes counts, as any other work does (a loop printing
//! a thousand lines per thread runs past the time limit, in the simulator's budget of
//! instructions, which does not depend on the machine).

use super::judged::{cap, case_lines, Judged};
use super::results::Status;
use super::sandbox::{self, Limits, Sandbox, Sandboxed};
use contract::report::kernel::CaseResult;
use contract::{CheckReport, Report, Verdict, SCHEMA_VERSION};
use runner::course::Exercise;
use runner::process::{self, read_tail, Waited};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The most of a check's output, and of its report, that is read back; a report is a few KiB
/// (a kernel's printf in it is capped at 1 MiB).
const MAX_STDOUT: u64 = 16 << 20;
const MAX_STDERR_SHOWN: usize = 2000;

#[derive(Clone, Debug)]
pub(crate) struct CheckCommand {
    pub exe: PathBuf,
    pub course_root: PathBuf,
    /// None lets `runner check` pick (the GPU when one works), as the preflight does.
    pub backend: runner::backend::BackendChoice,
    pub seed: Option<u64>,
    pub sizes: Vec<usize>,
    pub time_limit: Duration,
    pub memory_limit_mb: u64,
    /// The whole-program exercises being graded (host and Python: `runner check` builds and
    /// runs the student's program), with the wall time one check of each may take.
    pub programs: BTreeMap<String, Duration>,
    /// The sandbox each check runs in; None only where none can be made and the instructor
    /// said to go on without.
    pub sandbox: Option<Sandbox>,
}

/// Time a check of a whole program has beyond its cases: cargo builds the student's crate
/// (seconds; the preflight's check of the exercise's own file has built cudarc, once per run,
/// which takes a minute or two).
const BUILD_ALLOWANCE: Duration = Duration::from_secs(180);

/// The wall time a check of whole-program exercise `exercise` may take: the build, then each
/// case under the exercise's own limit (time_limit_ms, which the check itself enforces on the
/// program: this is the backstop). Rust programs of one exercise take turns (the build folder's
/// lock is held while the program runs, see `host::build`), so a check may first wait for the
/// others in flight: `at_once` of them.
pub(crate) fn program_time_limit(exercise: &Exercise, cases: usize, at_once: usize) -> Duration {
    let one = BUILD_ALLOWANCE + Duration::from_millis(exercise.time_limit_ms) * (cases as u32 + 1);
    if exercise.is_python() {
        one
    } else {
        one * at_once.max(1) as u32
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut,
    Cancelled,
}

/// How a check ended, what it printed, and the report it wrote.
#[derive(Debug)]
pub(crate) struct Raw {
    pub exit: Exit,
    /// What the kernel or program printed (a GPU's printf reaches stdout itself).
    pub stdout: String,
    pub stderr: String,
    /// The report's JSON, as the check wrote it to its own file (None where it wrote none).
    pub report: Option<String>,
    pub seconds: f64,
}

impl CheckCommand {
    /// Whether `exercise` is a whole program, run by the student's own code.
    pub(crate) fn is_program(&self, exercise: &str) -> bool {
        self.programs.contains_key(exercise)
    }

    /// The wall-time and memory (MiB) limits of a check of `exercise`. A whole program's check
    /// runs cargo and rustc, then the program, each a process of its own under the memory limit
    /// (it holds per process): at least what `runner check` gives a program, so that a program
    /// that passes there is not out of memory here.
    pub(crate) fn limits(&self, exercise: &str) -> (Duration, u64) {
        match self.programs.get(exercise) {
            Some(&wall) => (
                wall.max(self.time_limit),
                self.memory_limit_mb
                    .max(runner::host::PROGRAM_MEMORY_LIMIT_BYTES >> 20),
            ),
            None => (self.time_limit, self.memory_limit_mb),
        }
    }

    /// The limits of a check of `exercise` as the sandbox sets them: CPU time twice the wall
    /// time (a check's compile children work beside it) and a margin.
    pub(crate) fn sandbox_limits(&self, exercise: &str) -> Limits {
        let (time_limit, memory_mb) = self.limits(exercise);
        Limits {
            memory_mb,
            cpu_seconds: (time_limit.as_secs_f64() * 2.0).ceil() as u64 + 5,
        }
    }

    /// `runner check` on `kernel` under the limits, in a sandbox of its own where the run has
    /// one (`sandbox`); the hidden seed and the file for the report are handed over on
    /// descriptors, never on the command line.
    pub(crate) fn command(
        &self,
        exercise: &str,
        kernel: &Path,
        report: std::fs::File,
    ) -> std::io::Result<Sandboxed> {
        let mut check: Vec<OsString> = ["check", exercise].map(OsString::from).into();
        if let Some(backend) = self.backend.flag() {
            check.extend(["--backend".into(), backend.into()]);
        }
        if !self.sizes.is_empty() {
            let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
            check.extend(["--sizes".into(), sizes.join(",").into()]);
        }
        check.extend(["--file".into(), kernel.into()]);
        let cell = self
            .sandbox
            .as_ref()
            .map(|sandbox| (sandbox, sandbox.cell(exercise, kernel)));
        let limits = self.sandbox_limits(exercise);
        let handed = sandbox::Handed {
            seed: self.seed,
            report: Some(report),
        };
        let mut sandboxed = sandbox::command(&self.exe, &limits, cell, handed, &check)?;
        sandboxed
            .command
            .current_dir(&self.course_root)
            .env("NO_COLOR", "1")
            // Cells run side by side (`--jobs`): one simulator thread each keeps them from
            // fighting over the cores; results do not depend on the thread count.
            .env("RUNNER_SIM_THREADS", "1")
            // A Rust backtrace tells a student nothing, and printing one under the memory
            // limit can fail and hide the out-of-memory message the grader looks for.
            .env("RUST_BACKTRACE", "0")
            .env_remove("RUNNER_BACKEND");
        Ok(sandboxed)
    }

    /// Runs the check with its output in files under `scratch`, polling for the end so the wall
    /// limit and a cancel (Ctrl-C) are both noticed within milliseconds.
    pub(crate) fn run(
        &self,
        exercise: &str,
        kernel: &Path,
        scratch: &Path,
        cancel: &AtomicBool,
    ) -> std::io::Result<Raw> {
        std::fs::create_dir_all(scratch)?;
        let (out_path, err_path) = (scratch.join("stdout"), scratch.join("stderr"));
        let report_path = scratch.join("report.json");
        let mut sandboxed = self.command(exercise, kernel, std::fs::File::create(&report_path)?)?;
        let command = &mut sandboxed.command;
        // A process group of its own: Ctrl-C in the terminal reaches the grader, which stops
        // the checks itself and records nothing half done.
        command
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out_path)?)
            .stderr(std::fs::File::create(&err_path)?);
        let time_limit = self.limits(exercise).0;
        let clock = process::WallClock::start();
        let mut child = process::Group::spawn(command)?;
        let cancelled = || cancel.load(Ordering::Relaxed);
        let max_pause = Duration::from_millis(20);
        let exit = match process::wait(&mut child, time_limit, &cancelled, &clock, max_pause)? {
            Waited::Exited(status) => exit_of(status, self.sandbox.is_some()),
            Waited::TimedOut => Exit::TimedOut,
            Waited::Cancelled => Exit::Cancelled,
        };
        let seconds = process::Clock::elapsed(&clock).as_secs_f64();
        let stdout = read_tail(&out_path, MAX_STDOUT);
        let stderr = read_capped(&err_path, 1 << 20);
        let report = Some(read_capped(&report_path, MAX_STDOUT)).filter(|r| !r.is_empty());
        Ok(Raw {
            exit,
            stdout,
            stderr,
            report,
            seconds,
        })
    }
}

/// How a check's process ended. In a sandbox the process the grader started is bubblewrap,
/// which ends with 128 + N where the check inside was ended by signal N: that is read as the
/// signal (a check's own exit codes are 0 to 3), so a crash, the CPU limit or the memory limit
/// is judged alike in a sandbox and out of one.
pub(super) fn exit_of(status: std::process::ExitStatus, sandboxed: bool) -> Exit {
    match (status.code(), status.signal()) {
        (Some(code), _) if sandboxed && (129..=128 + 64).contains(&code) => {
            Exit::Signal(code - 128)
        }
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        (None, None) => Exit::Code(-1),
    }
}

fn read_capped(path: &Path, cap: u64) -> String {
    let mut bytes = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(cap).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The report a check wrote, read into its type: first its schema version alone, so that a
/// report of another version is told apart from a damaged one.
fn read_report(json: Option<&str>) -> Result<Report, Judged> {
    #[derive(serde::Deserialize)]
    struct Version {
        schema_version: u32,
    }
    let unreadable = |why: String| {
        judged(
            Status::Crashed,
            format!("The check ended without a readable report ({why})."),
            String::new(),
        )
    };
    let Some(json) = json else {
        return Err(unreadable("it wrote none".into()));
    };
    let version = serde_json::from_str::<Version>(json)
        .map_err(|e| unreadable(e.to_string()))?
        .schema_version;
    if version != SCHEMA_VERSION {
        return Err(judged(
            Status::Error,
            format!(
                "The check's report is of version {version}, this grader reads version \
                 {SCHEMA_VERSION}: grade with the same runner that checks."
            ),
            String::new(),
        ));
    }
    serde_json::from_str(json).map_err(|e| unreadable(e.to_string()))
}

/// The grade a report gives; `printed` is what the kernel printed on stdout (a GPU's printf),
/// which joins the simulator's in the report, under the same cap.
fn from_any_report(report: Report, printed: &str) -> Judged {
    match report {
        Report::Kernel(mut report) => {
            let printed_in_report = std::mem::take(&mut report.printf);
            report.add_printf(printed);
            if !report.printf.ends_with('\n') && !report.printf.is_empty() {
                report.printf.push('\n');
            }
            report.add_printf(&printed_in_report);
            from_report(*report)
        }
        // A whole program's report (host, Python): its own judging, the exits shared.
        Report::Program(report) => super::program::judge_program(&report),
    }
}

fn judged(status: Status, message: String, details: String) -> Judged {
    Judged {
        status,
        message,
        details: cap(details),
        cases: Vec::new(),
    }
}

fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text.len().saturating_sub(MAX_STDERR_SHOWN);
    let start = (start..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    text[start..].to_string()
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "a signal",
    }
}

fn out_of_memory(stderr: &str) -> bool {
    let lower = stderr.to_ascii_lowercase();
    lower.contains("memory allocation of")
        || lower.contains("out of memory")
        || lower.contains("cannot allocate memory")
}

/// Where a kernel was staged, and the path it has in the submission: messages name the latter.
pub(crate) struct Naming<'a> {
    pub staged_file: &'a Path,
    pub staging_root: &'a Path,
    pub found_at: &'a str,
}

impl Naming<'_> {
    fn apply(&self, text: &str) -> String {
        let file = self.staged_file.display().to_string();
        let root = format!("{}/", self.staging_root.display());
        text.replace(&file, self.found_at).replace(&root, "")
    }

    /// `apply` on a report's JSON text: the submission's path goes in escaped as a JSON string's
    /// content, so that a name with a line break or a quote (`my\nwork/`) leaves the report
    /// readable.
    fn apply_json(&self, json: &str) -> String {
        let file = self.staged_file.display().to_string();
        let root = format!("{}/", self.staging_root.display());
        let quoted = serde_json::to_string(self.found_at).unwrap_or_default();
        let escaped = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(self.found_at);
        json.replace(&file, escaped).replace(&root, "")
    }
}

/// Judges a finished process; paths of the staged kernel are shown as the submission's own.
pub(crate) fn judge(
    raw: &Raw,
    naming: &Naming,
    time_limit: Duration,
    memory_limit_mb: u64,
) -> Judged {
    let stdout = naming.apply(&raw.stdout);
    let stderr = tail(&naming.apply(&raw.stderr));
    let oom = || {
        judged(
            Status::OutOfMemory,
            format!("The check used more than the memory limit of {memory_limit_mb} MiB and was stopped."),
            stderr.clone(),
        )
    };
    match raw.exit {
        Exit::TimedOut | Exit::Cancelled => judged(
            Status::Timeout,
            format!(
                "The check was still running after {:.0} s, the grading time limit, and was stopped (time_limit_s in grading.toml).",
                time_limit.as_secs_f64()
            ),
            stderr,
        ),
        Exit::Signal(24) => judged(
            Status::Timeout,
            "The check used up its CPU-time limit and was stopped.".into(),
            stderr,
        ),
        Exit::Signal(_) if out_of_memory(&stderr) => oom(),
        Exit::Signal(signal) => judged(
            Status::Crashed,
            format!("The check's process died ({}, signal {signal}) without a verdict.", signal_name(signal)),
            stderr,
        ),
        Exit::Code(0 | 1) => {
            let report = raw.report.as_deref().map(|json| naming.apply_json(json));
            match read_report(report.as_deref()) {
                Ok(report) => from_any_report(report, &stdout),
                Err(unread) => Judged {
                    details: cap(stderr),
                    ..unread
                },
            }
        }
        Exit::Code(_) if out_of_memory(&stderr) => oom(),
        Exit::Code(code) if code == i32::from(sandbox::DISK_FULL_EXIT) => judged(
            Status::Crashed,
            "The cell's folders are full: the program wrote more than its sandbox holds \
             (disk_limit_mb in the grading file), and the check could not go on."
                .into(),
            stderr,
        ),
        Exit::Code(2) => {
            let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim();
            judged(Status::Error, format!("The grader could not check this cell: {}", first.trim_start_matches("Error: ")), stderr)
        }
        Exit::Code(code) => {
            let panicked = stderr.contains("panicked");
            let what = if panicked { "panicked" } else { "ended" };
            judged(Status::Crashed, format!("The check {what} without a verdict (exit code {code})."), stderr)
        }
    }
}

fn describe_case(case: &CaseResult) -> String {
    let head = format!("Case `{}` {}", case.name, case.launch);
    if let Some(error) = &case.error {
        return format!("{head}: {error}");
    }
    let Some(m) = &case.mismatch else {
        return format!("{head}: wrong result.");
    };
    let verb = if m.wrong == 1 { "is" } else { "are" };
    let mut text = format!(
        "{head}: {} of {} of `{}` {verb} wrong",
        m.wrong,
        runner::report::count(m.len as u64, "element"),
        m.buffer
    );
    if m.never_written > 0 {
        text.push_str(&format!(" ({} never written)", m.never_written));
    }
    if let Some(w) = m.first_wrong.first() {
        text.push_str(&format!("; {}", wrong_element(&m.buffer, w)));
    }
    text.push('.');
    if let Some(cause) = &m.likely_cause {
        text.push_str(&format!(" Likely: {cause}"));
    }
    text
}

fn wrong_element(buffer: &str, w: &checks::WrongElement) -> String {
    let at = w.position();
    format!("{buffer}[{at}]: expected {}, got {}", w.expected, w.actual)
}

/// The report in words, for the grade book's details.
fn details_of(report: &CheckReport) -> String {
    let mut details = String::new();
    for case in &report.cases {
        let mark = if case.passed { "✓" } else { "✗" };
        details.push_str(&format!("{mark} {} {}\n", case.name, case.launch));
        if !case.passed {
            details.push_str(&format!("    {}\n", describe_case(case)));
            if let Some(m) = &case.mismatch {
                for w in m.first_wrong.iter().skip(1) {
                    details.push_str(&format!("    {}\n", wrong_element(&m.buffer, w)));
                }
            }
        }
    }
    for t in &report.targets {
        let mark = if t.met { "✓" } else { "✗" };
        details.push_str(&format!("{mark} target: {}\n", t.explanation));
    }
    if !report.diagnostics.is_empty() {
        details.push_str("The simulator found:\n");
        for d in &report.diagnostics {
            details.push_str(&format!("  {} (case {})\n", d.text, d.case));
        }
    }
    if !report.printf.is_empty() {
        details.push_str(&printed(report));
    }
    details
}

/// Lines of a kernel's printf shown in a cell: enough to recognise a debug print.
const PRINTF_LINES_SHOWN: usize = 20;

/// What the kernel printed, as the cell shows it: the first lines, how much there was, and
/// whether the check cut it. Printing never changes a verdict (see the module's comment).
fn printed(report: &CheckReport) -> String {
    let lines: Vec<&str> = report
        .printf
        .lines()
        .filter(|l| !l.starts_with("printf output cut"))
        .collect();
    let size = if report.printf_was_cut() {
        "output cut at 1 MiB".to_string()
    } else {
        format!("{} lines", lines.len())
    };
    let mut text = format!("The kernel printed ({size}); this does not change the grade:\n");
    for line in lines.iter().take(PRINTF_LINES_SHOWN) {
        text.push_str(&format!("  {line}\n"));
    }
    if lines.len() > PRINTF_LINES_SHOWN {
        text.push_str("  ...\n");
    }
    text
}

fn from_report(report: CheckReport) -> Judged {
    let cases = case_lines(report.cases.iter().map(|c| (c.name.as_str(), c.passed)));
    let mut details = details_of(&report);
    let failing = report.cases.iter().find(|c| !c.passed);
    let named = |text: String| format!("{} {text}", report.verdict.headline());
    let (status, message) = match report.verdict {
        Verdict::Passed => (
            Status::Passed,
            format!("Every case is right ({} cases).", report.cases.len()),
        ),
        Verdict::TargetsMissed => {
            let missed = report
                .targets
                .iter()
                .find(|t| t.missed())
                .map_or(report.summary.clone(), |t| t.explanation.clone());
            (
                Status::TargetMissed,
                format!("Every case is right, but {missed}."),
            )
        }
        Verdict::NotDone => (
            Status::NotDone,
            "Not done: the exercise's TODOs are not done (the file is the original, or its kernel does not write its output yet).".into(),
        ),
        Verdict::CompileError => {
            let errors = report
                .compile
                .as_ref()
                .and_then(|c| c.errors.clone())
                .unwrap_or_default();
            let first = errors
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("see the details")
                .trim()
                .to_string();
            details = format!("{}\n{details}", errors.trim_end());
            (Status::CompileError, format!("Does not compile: {first}"))
        }
        // The simulator stopped a kernel that ran past the exercise's own time limit.
        Verdict::Hang => (
            Status::Timeout,
            named(failing.map_or(report.summary.clone(), describe_case)),
        ),
        // A bug the simulator found decides the verdict even where every output is right.
        Verdict::Race | Verdict::BarrierDivergence | Verdict::BadMask => {
            let finding = report.diagnostics.first();
            let found = finding.map_or(report.summary.clone(), |d| {
                format!("In case `{}`: {}", d.case, d.text)
            });
            let text = match failing.filter(|c| c.mismatch.is_some()) {
                Some(case) => format!("{} The simulator found why. {found}", describe_case(case)),
                None => found,
            };
            (Status::Failed, named(text))
        }
        _ => (
            Status::Failed,
            named(failing.map_or(report.summary.clone(), describe_case)),
        ),
    };
    Judged {
        status,
        message,
        details: cap(details),
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(exit: Exit, stdout: &str, stderr: &str) -> Raw {
        Raw {
            exit,
            stdout: stdout.into(),
            stderr: stderr.into(),
            report: None,
            seconds: 0.0,
        }
    }

    /// A check's report as `runner check` writes it to its file: tagged a kernel's.
    fn written(report: &CheckReport) -> String {
        let mut json = serde_json::to_value(report).unwrap();
        json["kind"] = "kernel".into();
        serde_json::to_string_pretty(&json).unwrap()
    }

    fn judge_raw(r: Raw) -> Judged {
        let naming = Naming {
            staged_file: Path::new("/stage/alice/02_vector_add/vector_add.cu"),
            staging_root: Path::new("/stage/alice"),
            found_at: "alice/vector_add.cu",
        };
        judge(&r, &naming, Duration::from_secs(60), 4096)
    }

    #[test]
    fn a_path_with_a_line_break_or_a_quote_leaves_the_report_readable() {
        let found_at = "my\nwork/\"q\"/vector_add.cu";
        let naming = Naming {
            staged_file: Path::new("/stage/ann/02_vector_add/vector_add.cu"),
            staging_root: Path::new("/stage/ann"),
            found_at,
        };
        let json = r#"{"file": "/stage/ann/02_vector_add/vector_add.cu", "note": "/stage/ann/x"}"#;
        let named: serde_json::Value = serde_json::from_str(&naming.apply_json(json)).unwrap();
        assert_eq!(named["file"], found_at);
        assert_eq!(named["note"], "x");
    }

    #[test]
    fn a_signal_that_ended_the_check_inside_the_sandbox_is_read_as_that_signal() {
        use std::os::unix::process::ExitStatusExt;
        let exited = |code: i32| std::process::ExitStatus::from_raw(code << 8);
        assert_eq!(exit_of(exited(128 + 24), true), Exit::Signal(24));
        assert_eq!(exit_of(exited(128 + 24), false), Exit::Code(152));
        assert_eq!(exit_of(exited(1), true), Exit::Code(1));
        let killed = std::process::ExitStatus::from_raw(9);
        assert_eq!(exit_of(killed, true), Exit::Signal(9));
    }

    #[test]
    fn exits_without_a_report_are_told_apart() {
        assert_eq!(
            judge_raw(raw(Exit::TimedOut, "", "")).status,
            Status::Timeout
        );
        assert_eq!(
            judge_raw(raw(Exit::Signal(24), "", "")).status,
            Status::Timeout
        );
        let crashed = judge_raw(raw(Exit::Signal(11), "", ""));
        assert_eq!(crashed.status, Status::Crashed);
        assert!(crashed.message.contains("SIGSEGV"), "{}", crashed.message);
        let oom = judge_raw(raw(
            Exit::Signal(6),
            "",
            "memory allocation of 1073741824 bytes failed",
        ));
        assert_eq!(oom.status, Status::OutOfMemory);
        assert!(oom.message.contains("4096 MiB"));
        let error = judge_raw(raw(
            Exit::Code(2),
            "",
            "Error: exercise 09 has no check in checks/ yet",
        ));
        assert_eq!(error.status, Status::Error);
        assert!(
            error
                .message
                .ends_with("exercise 09 has no check in checks/ yet"),
            "{}",
            error.message
        );
        assert_eq!(
            judge_raw(raw(Exit::Code(1), "not json", "")).status,
            Status::Crashed
        );
        // The student's program filled the sandbox: its own doing, not the grader's (an error
        // would be tried again on every --resume).
        let full = judge_raw(raw(
            Exit::Code(sandbox::DISK_FULL_EXIT.into()),
            "",
            "Error: No space left on device (os error 28)",
        ));
        assert_eq!(full.status, Status::Crashed);
        assert!(
            full.message.contains("folders are full"),
            "{}",
            full.message
        );
        assert_eq!(
            judge_raw(raw(Exit::Code(101), "", "thread 'main' panicked at x")).status,
            Status::Crashed
        );
    }

    fn report(verdict: Verdict, cases: Vec<CaseResult>) -> CheckReport {
        CheckReport {
            schema_version: SCHEMA_VERSION,
            exercise: "02".into(),
            title: "t".into(),
            file: "f".into(),
            backend: contract::Backend::Sim,
            device: "d".into(),
            verdict,
            summary: "s".into(),
            compile: None,
            cases,
            gpu: None,
            sim: None,
            reference_sim: None,
            targets: Vec::new(),
            diagnostics: Vec::new(),
            printf: String::new(),
            progress: None,
        }
    }

    fn case(name: &str, verdict: Verdict) -> CaseResult {
        CaseResult {
            name: name.into(),
            launch: "<<<4, 256>>>".into(),
            passed: verdict == Verdict::Passed,
            verdict,
            error: None,
            mismatch: None,
            finding: None,
        }
    }

    fn judge_report(report: &CheckReport) -> Judged {
        judge_raw(Raw {
            report: Some(written(report)),
            ..raw(Exit::Code(1), "", "")
        })
    }

    #[test]
    fn reports_become_grades_with_the_first_failing_case_named() {
        let mut wrong = case("n = 1000", Verdict::WrongOutput);
        wrong.mismatch = Some(checks::Mismatch {
            buffer: "c".into(),
            len: 1000,
            wrong: 24,
            never_written: 24,
            first_wrong: vec![checks::WrongElement {
                index: 976,
                at: None,
                expected: "1.5".into(),
                actual: "0".into(),
                inputs: None,
                origin: None,
            }],
            likely_cause: Some("the tail is wrong".into()),
            unchanged: false,
        });
        let failed = report(
            Verdict::WrongOutput,
            vec![case("n = 1", Verdict::Passed), wrong],
        );
        let judged = judge_report(&failed);
        assert_eq!(judged.status, Status::Failed);
        assert!(judged.message.contains("Wrong output. Case `n = 1000` <<<4, 256>>>: 24 of 1000 elements of `c` are wrong (24 never written); c[976]: expected 1.5, got 0. Likely: the tail is wrong"), "{}", judged.message);
        assert_eq!(judged.cases.len(), 2);

        let mut compile = report(Verdict::CompileError, Vec::new());
        compile.compile = Some(contract::CompileFigures {
            from_cache: false,
            milliseconds: 0.0,
            errors: Some("/stage/alice/02_vector_add/vector_add.cu:5: error: identifier \"idx\" is undefined\n  c[idx] = 1;".into()),
        });
        let judged = judge_report(&compile);
        assert_eq!(judged.status, Status::CompileError);
        assert_eq!(
            judged.message,
            "Does not compile: alice/vector_add.cu:5: error: identifier \"idx\" is undefined"
        );

        let hang = report(Verdict::Hang, vec![case("n = 1", Verdict::Hang)]);
        assert_eq!(judge_report(&hang).status, Status::Timeout);
        let mut missed = report(Verdict::TargetsMissed, Vec::new());
        missed.targets.push(contract::Target {
            name: "max_sectors_per_request".into(),
            wanted: "at most 4".into(),
            got: "32".into(),
            limit: 4.0,
            actual: Some(32.0),
            met: false,
            decides: true,
            explanation: "32 sectors per request".into(),
        });
        let judged = judge_report(&missed);
        assert_eq!(
            (judged.status, judged.message.as_str()),
            (
                Status::TargetMissed,
                "Every case is right, but 32 sectors per request."
            )
        );
    }

    #[test]
    fn a_race_fails_the_cell_even_with_every_case_right_and_is_named() {
        let mut raced = report(Verdict::Race, vec![case("n = 1000", Verdict::Race)]);
        raced.cases[0].passed = true;
        raced.diagnostics.push(contract::Finding {
            verdict: Verdict::Race,
            case: "n = 1000".into(),
            kind: contract::DiagnosticKind::SharedRace,
            place: Some(contract::Place {
                file: "scan.cu".into(),
                line: 12,
            }),
            buffer: None,
            element: None,
            thread: [0; 3],
            block: [0; 3],
            text: "scan.cu:12: race on shared memory".into(),
        });
        let judged = judge_report(&raced);
        assert_eq!(judged.status, Status::Failed);
        assert!(
            judged
                .message
                .starts_with("Race. In case `n = 1000`: scan.cu:12: race"),
            "{}",
            judged.message
        );
    }

    #[test]
    fn a_gpu_printf_before_the_report_is_shown_in_the_cell_and_does_not_change_the_grade() {
        let mut passed = report(Verdict::Passed, vec![case("n = 1", Verdict::Passed)]);
        passed.printf = "from the simulator\n".into();
        // What a GPU's printf put on stdout: it looks like a report, with a line that is `{`
        // alone, and ends without a line break (searching stdout for the report found none).
        let stdout = "{\n\"kind\": \"kernel\", \"verdict\": \"wrong_output\"\n}\n{";
        let judged = judge_raw(Raw {
            report: Some(written(&passed)),
            ..raw(Exit::Code(0), stdout, "")
        });
        assert_eq!(judged.status, Status::Passed, "{judged:?}");
        assert!(
            judged.details.contains(
                "The kernel printed (5 lines); this does not change the grade:\n  {\n  \"kind\": \"kernel\", \"verdict\": \"wrong_output\"\n  }\n  {\n  from the simulator\n"
            ),
            "{}",
            judged.details
        );
    }

    #[test]
    fn a_flood_of_printf_is_cut_to_a_few_lines_with_a_note() {
        let mut flooded = report(Verdict::Passed, vec![case("n = 1", Verdict::Passed)]);
        flooded.add_printf(&"thread 7 says hi\n".repeat(100_000));
        let judged = judge_report(&flooded);
        assert_eq!(judged.status, Status::Passed);
        assert!(
            judged
                .details
                .contains("The kernel printed (output cut at 1 MiB)"),
            "{}",
            judged.details
        );
        assert_eq!(
            judged.details.matches("thread 7 says hi").count(),
            PRINTF_LINES_SHOWN
        );
    }

    #[test]
    fn a_report_of_another_schema_version_is_not_graded() {
        let mut old = report(Verdict::Passed, Vec::new());
        old.schema_version = SCHEMA_VERSION + 1;
        assert_eq!(judge_report(&old).status, Status::Error);
    }
}
