//! A host exercise's report: what `runner check` prints, and its `--json` form.

use crate::report::{Render, Verdict};
use colored::Colorize;
pub use contract::HostReport;
use std::fmt::Write as _;

impl Render for HostReport {
    fn render(&self) -> String {
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
        render_findings(self, &mut out);
        if let Some(record) = &self.record {
            out.push_str(&super::summary::summary(record, self.leaks_matter));
        }
        let _ = writeln!(out, "\n{} {}", verdict_word(self.verdict), self.summary);
        if let Some((done, total)) = self.progress {
            let _ = writeln!(out, "Progress: {done}/{total} exercises done.");
        }
        out
    }
}

fn render_findings(report: &HostReport, out: &mut String) {
    for mistake in &report.mistakes {
        let _ = writeln!(out, "  {} {mistake}", "Mistake:".red().bold());
    }
    for target in &report.targets {
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
            let _ = writeln!(out, "      likely {}", target.explanation);
        }
    }
}

fn verdict_word(verdict: Verdict) -> colored::ColoredString {
    match verdict {
        Verdict::Passed => "PASSED".green().bold(),
        Verdict::NotDone => "NOT DONE".yellow().bold(),
        Verdict::TargetsMissed => "TARGETS MISSED".yellow().bold(),
        _ => "FAILED".red().bold(),
    }
}
