//! A host exercise's report: what `runner check` prints, and its `--json` form.

use super::judge::CaseResult;
use super::targets::{explain_missed, TargetResult};
use crate::report::{Backend, Verdict};
use colored::Colorize;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A whole program's report: `crate::report::Report::Program`, whose JSON says
/// `"kind": "program"`. Read back by `runner-grade` (grade/src/program.rs), which checks
/// `schema_version`.
#[derive(Debug, Serialize, Deserialize)]
pub struct HostReport {
    pub schema_version: u32,
    pub exercise: String,
    pub title: String,
    /// Where the program's driver calls went.
    pub backend: Backend,
    /// The same in words, for the student: "the simulator's CUDA driver".
    pub device: String,
    pub verdict: Verdict,
    pub summary: String,
    /// The compiler's errors, where the program did not build.
    pub build_errors: Option<String>,
    pub warnings: Vec<String>,
    pub cases: Vec<CaseResult>,
    /// What the driver's record shows the program did wrong, even with right outputs.
    pub mistakes: Vec<String>,
    pub targets: Vec<TargetResult>,
    /// The driver's record of the largest case that ran: calls, copies, launches, timeline.
    pub record: Option<super::record::Record>,
    pub progress: Option<(usize, usize)>,
    /// Whether device memory still allocated at the end says something of the program: not for
    /// Python, where Numba frees arrays in finalizers that it skips as the interpreter exits.
    #[serde(skip)]
    pub leaks_matter: bool,
}

impl HostReport {
    /// A report that has found nothing yet: passed until something fails.
    pub fn new(exercise: &crate::course::Exercise, backend: Backend, device: &str) -> HostReport {
        HostReport {
            schema_version: crate::report::SCHEMA_VERSION,
            exercise: exercise.id.clone(),
            title: exercise.title.clone(),
            backend,
            device: device.into(),
            verdict: Verdict::Passed,
            summary: String::new(),
            build_errors: None,
            warnings: Vec::new(),
            cases: Vec::new(),
            mistakes: Vec::new(),
            targets: Vec::new(),
            record: None,
            progress: None,
            leaks_matter: !exercise.is_python(),
        }
    }

    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Passed
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} {} · {} (a whole program, on {})",
            "Exercise".bold(),
            self.exercise.bold(),
            self.title,
            self.device
        );
        if let Some(errors) = &self.build_errors {
            let _ = writeln!(out, "\n{errors}");
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "  {} {}", "!".yellow(), warning);
        }
        for case in &self.cases {
            let mark = if case.passed {
                "✓".green()
            } else {
                "✗".red()
            };
            let _ = writeln!(out, "  {mark} {}", case.name);
            for line in case.problem.iter().flat_map(|p| p.lines()) {
                let _ = writeln!(out, "      {}", line.trim_start());
            }
            if let Some(output) = &case.output {
                for line in output
                    .lines()
                    .rev()
                    .take(6)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                {
                    let _ = writeln!(out, "      | {line}");
                }
            }
        }
        self.render_findings(&mut out);
        if let Some(record) = &self.record {
            out.push_str(&super::summary::summary(record, self.leaks_matter));
        }
        let _ = writeln!(out, "\n{} {}", self.verdict_word(), self.summary);
        if let Some((done, total)) = self.progress {
            let _ = writeln!(out, "Progress: {done}/{total} exercises done.");
        }
        out
    }

    fn render_findings(&self, out: &mut String) {
        for mistake in &self.mistakes {
            let _ = writeln!(out, "  {} {mistake}", "Mistake:".red().bold());
        }
        for target in &self.targets {
            let mark = if target.met {
                "✓".green()
            } else {
                "✗".red()
            };
            let _ = writeln!(
                out,
                "  {mark} target: {} {} (got {})",
                target.name, target.wanted, target.got
            );
            if !target.met {
                let _ = writeln!(out, "      likely {}", explain_missed(target));
            }
        }
    }

    fn verdict_word(&self) -> colored::ColoredString {
        match self.verdict {
            Verdict::Passed => "PASSED".green().bold(),
            Verdict::NotDone => "NOT DONE".yellow().bold(),
            Verdict::TargetsMissed => "TARGETS MISSED".yellow().bold(),
            _ => "FAILED".red().bold(),
        }
    }
}
