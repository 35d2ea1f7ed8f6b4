//! A CUDA C kernel's report: its cases against the CPU reference, its figures on the GPU or in
//! the simulator, its targets and the bugs the simulator found.

use crate::{Backend, Finding, Mismatch, Target, Verdict};
use serde::{Deserialize, Serialize};

/// The most of a kernel's `printf` output one report keeps, over all its cases and launches: what
/// one launch may print on a GPU (its printf buffer holds 1 MiB), so a kernel left printing in
/// every thread gives a report of a few MiB at most, whatever its cases print together.
pub const MAX_PRINTF_BYTES: usize = 1 << 20;

/// The line that ends a report's `printf` when it was cut at [`MAX_PRINTF_BYTES`]. The
/// simulator's own note for one launch cut at its buffer starts the same way.
pub const PRINTF_CUT_NOTE: &str = "printf output cut at 1 MiB";

/// A kernel's check: `crate::Report::Kernel`, whose JSON says `"kind": "kernel"`.
#[derive(Debug, Serialize, Deserialize)]
pub struct CheckReport {
    /// [`crate::SCHEMA_VERSION`] of the runner that wrote it.
    pub schema_version: u32,
    /// The exercise's id (`07`).
    pub exercise: String,
    /// The exercise's title.
    pub title: String,
    /// The student's kernel file, as they know it.
    pub file: String,
    /// Where it ran.
    pub backend: Backend,
    /// The device in words: the GPU's name, or the simulator's.
    pub device: String,
    /// What the check concluded.
    pub verdict: Verdict,
    /// One line saying what happened and what to do next.
    pub summary: String,
    /// The compile's figures, where it got that far.
    pub compile: Option<CompileFigures>,
    /// Each case's result, in the order they ran.
    pub cases: Vec<CaseResult>,
    /// Times on a GPU.
    pub gpu: Option<GpuFigures>,
    /// The simulator's figures of the largest case.
    pub sim: Option<SimFigures>,
    /// The reference solution's simulator figures on the same case, where a target compares
    /// with them.
    pub reference_sim: Option<SimFigures>,
    /// The exercise's targets, those that decide first.
    pub targets: Vec<Target>,
    /// The bugs the simulator found, the one that decides the verdict first.
    pub diagnostics: Vec<Finding>,
    /// What the kernel printed, cut at [`MAX_PRINTF_BYTES`].
    pub printf: String,
    /// Exercises done and in the course, where progress is kept.
    pub progress: Option<(usize, usize)>,
}

/// How the compile went.
#[derive(Debug, Serialize, Deserialize)]
pub struct CompileFigures {
    /// Whether the PTX came from the cache.
    pub from_cache: bool,
    /// How long it took.
    pub milliseconds: f64,
    /// The compiler's message when the file does not compile, shown against the student's lines.
    pub errors: Option<String>,
}

/// One case's result.
#[derive(Debug, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's name (`n = 1`, `random, seed 7`).
    pub name: String,
    /// The launch, in words (`grid 4, block 256`).
    pub launch: String,
    /// Whether every output was right and nothing went wrong.
    pub passed: bool,
    /// This case's own verdict: passed, wrong output, or the bug that stopped it.
    pub verdict: Verdict,
    /// What stopped it, where something did.
    pub error: Option<String>,
    /// The first output that differs from the reference.
    pub mismatch: Option<Mismatch>,
    /// The bug that stopped the case's kernel, as facts (its line, array, element, thread),
    /// where the simulator found one; `error` is its sentence. A GPU's fault names none.
    #[serde(default)]
    pub finding: Option<Finding>,
}

/// Timings on a GPU, all from the same run.
#[derive(Debug, Serialize, Deserialize)]
pub struct GpuFigures {
    /// The case they were measured on.
    pub case: String,
    /// The kernel's median time.
    pub kernel_ms: f64,
    /// Its effective bandwidth.
    pub bandwidth_gb_s: f64,
    /// For compute-bound exercises (those whose check counts floating-point operations).
    pub gflop_s: Option<f64>,
    /// The reference solution's, on the same case.
    pub reference_gflop_s: Option<f64>,
    /// The reference solution's median time.
    pub reference_ms: Option<f64>,
    /// The reference solution's effective bandwidth.
    pub reference_bandwidth_gb_s: Option<f64>,
    /// The device's own device-to-device copy bandwidth (read + write), measured once and cached.
    pub copy_bandwidth_gb_s: f64,
    /// The CPU reference's time, on one thread.
    pub cpu_reference_ms: f64,
    /// The inputs' copy to the GPU.
    pub host_to_device_ms: f64,
    /// The outputs' copy back.
    pub device_to_host_ms: f64,
}

/// The simulator's figures of one launch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SimFigures {
    /// The case of the launch.
    pub case: String,
    /// The kernel's memory figures.
    pub kernel: sim::Figures,
    /// The same per source line.
    pub lines: Vec<sim::LineFigures>,
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// The launch's time modelled on a reference GPU from what the simulator counted.
    pub modelled: sim::ModelledTime,
    /// The launch's grid and blocks (and what the model read from the PTX).
    #[serde(default)]
    pub shape: sim::KernelShape,
}

impl SimFigures {
    /// The figures of one launch on case `case`.
    pub fn of(case: &str, report: sim::LaunchReport) -> SimFigures {
        SimFigures {
            case: case.to_string(),
            kernel: report.figures,
            lines: report.lines,
            warp_instructions: report.warp_instructions,
            modelled: report.modelled,
            shape: report.shape,
        }
    }

    /// The modelled time of the kernel's work, without the launch overhead that every kernel
    /// pays alike (on the small cases the simulator runs, the overhead would hide the work).
    pub fn modelled_work_us(&self) -> f64 {
        (self.modelled.microseconds - self.modelled.per_resource.launch_us).max(0.0)
    }
}

impl CheckReport {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        matches!(self.verdict, Verdict::Passed)
    }

    /// Adds one launch's (or one backend's) printf output, keeping the first
    /// [`MAX_PRINTF_BYTES`] in whole lines and ending a cut output with [`PRINTF_CUT_NOTE`].
    pub fn add_printf(&mut self, text: &str) {
        let note = format!("{PRINTF_CUT_NOTE}\n");
        if text.is_empty() || self.printf.ends_with(&note) {
            return;
        }
        let room = MAX_PRINTF_BYTES.saturating_sub(self.printf.len());
        if text.len() <= room {
            self.printf.push_str(text);
            return;
        }
        let mut end = room;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let kept = text[..end].rfind('\n').map_or(0, |line_end| line_end + 1);
        self.printf.push_str(&text[..kept]);
        if !self.printf.is_empty() && !self.printf.ends_with('\n') {
            self.printf.push('\n');
        }
        self.printf.push_str(&note);
    }

    /// Whether the printf output was cut, here or at a launch's printf buffer.
    pub fn printf_was_cut(&self) -> bool {
        self.printf
            .lines()
            .any(|l| l.starts_with("printf output cut"))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn empty() -> CheckReport {
        serde_json::from_value(serde_json::json!({
            "schema_version": crate::SCHEMA_VERSION, "exercise": "02", "title": "t", "file": "f",
            "backend": "sim", "device": "d", "verdict": "passed", "summary": "s",
            "compile": null, "cases": [], "gpu": null, "sim": null, "reference_sim": null,
            "targets": [], "diagnostics": [], "printf": "", "progress": null
        }))
        .unwrap()
    }

    #[test]
    fn printf_over_all_cases_is_cut_at_a_line_once_past_the_limit_and_says_so() {
        let mut report = empty();
        let launch = "thread 12345 says hello\n".repeat(30_000); // 720 KB, under the limit alone
        report.add_printf(&launch);
        assert!(!report.printf_was_cut());
        report.add_printf(&launch);
        report.add_printf(&launch);
        assert!(report.printf.len() <= MAX_PRINTF_BYTES + PRINTF_CUT_NOTE.len() + 1);
        assert!(report
            .printf
            .ends_with("hello\nprintf output cut at 1 MiB\n"));
        assert_eq!(report.printf.matches(PRINTF_CUT_NOTE).count(), 1);
        assert!(report.printf_was_cut());
    }
}
