//! A whole program's cell (a host exercise in Rust, the Python track): `runner check` writes a
//! `Report::Program` (a `HostReport`) rather than a kernel's `CheckReport`, and this reads it
//! into the same grade: status, one line, details, cases. The exits without a report (time,
//! memory, signals) and the report's version are judged by `cell::judge` for both.

use super::judged::{cap, case_lines, Judged};
use super::results::Status;
use contract::{HostReport, Verdict};

/// A whole program's report as a grade.
pub(crate) fn judge_program(report: &HostReport) -> Judged {
    let cases = case_lines(report.cases.iter().map(|c| (c.name.as_str(), c.passed)));
    let mut details = details_of(report);
    let failing = report.cases.iter().find(|c| !c.passed);
    let first_failing = || {
        failing.map_or(report.summary.clone(), |c| {
            let problem = c.problem.as_deref().unwrap_or("wrong result");
            format!("Case `{}`: {problem}", c.name)
        })
    };
    // What the driver's record shows the program did otherwise than the exercise teaches.
    let first_finding = || {
        report
            .mistakes
            .first()
            .cloned()
            .or_else(|| {
                report
                    .targets
                    .iter()
                    .find(|t| !t.met)
                    .map(|t| format!("{}: wanted {}, got {}", t.name, t.wanted, t.got))
            })
            .unwrap_or_else(|| report.summary.clone())
    };
    let named = |text: String| format!("{} {text}", report.verdict.headline());
    let (status, message) = match report.verdict {
        Verdict::Passed => (
            Status::Passed,
            format!(
                "Every case is right ({} cases), and the program uses the driver as the exercise asks.",
                report.cases.len()
            ),
        ),
        Verdict::TargetsMissed => (
            Status::TargetMissed,
            format!("Every case is right, but {}", first_finding()),
        ),
        Verdict::NotDone => (
            Status::NotDone,
            "Not done: the program is as it was handed out; its TODOs are still to do.".into(),
        ),
        Verdict::CompileError => {
            let errors = report.build_errors.clone().unwrap_or_default();
            let first = errors
                .lines()
                .find(|l| l.contains("error") || l.contains("Error"))
                .unwrap_or("see the details")
                .trim()
                .to_string();
            details = format!("{}\n{details}", errors.trim_end());
            (Status::CompileError, format!("Does not compile: {first}"))
        }
        // A program still running after the exercise's time limit, stopped by the check.
        Verdict::Hang => (Status::Timeout, named(first_failing())),
        // Right outputs made without the kernel (computed on the CPU, say): the lesson missed.
        Verdict::MissingKernel if failing.is_none() => {
            (Status::Failed, named(first_finding()))
        }
        _ => (Status::Failed, named(first_failing())),
    };
    Judged {
        status,
        message,
        details: cap(details),
        cases,
    }
}

/// The report in words, for the grade book's details.
fn details_of(report: &HostReport) -> String {
    let mut details = String::new();
    for warning in &report.warnings {
        details.push_str(&format!("! {warning}\n"));
    }
    for case in &report.cases {
        let mark = if case.passed { "✓" } else { "✗" };
        details.push_str(&format!("{mark} {}\n", case.name));
        for line in case.problem.iter().flat_map(|p| p.lines()) {
            details.push_str(&format!("    {}\n", line.trim_start()));
        }
        if let Some(output) = case.output.as_deref().filter(|_| !case.passed) {
            let lines: Vec<&str> = output.lines().collect();
            for line in &lines[lines.len().saturating_sub(6)..] {
                details.push_str(&format!("    | {line}\n"));
            }
        }
    }
    for mistake in &report.mistakes {
        details.push_str(&format!("Mistake: {mistake}\n"));
    }
    for t in &report.targets {
        let mark = if t.met { "✓" } else { "✗" };
        details.push_str(&format!(
            "{mark} target: {} {} (got {})\n",
            t.name, t.wanted, t.got
        ));
    }
    details
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CaseLine;
    use contract::SCHEMA_VERSION;

    fn judge_json(json: &str) -> Judged {
        judge_program(&serde_json::from_str(json).unwrap())
    }

    fn host_json(verdict: &str, extra: &str) -> String {
        format!(
            r#"{{"schema_version": {SCHEMA_VERSION}, "exercise": "25", "title": "First program",
            "kind": "program", "backend": "sim", "device": "the simulator's CUDA driver", "verdict": "{verdict}",
            "summary": "1 of 2 cases right.", "build_errors": null, "warnings": [],
            "cases": [
              {{"name": "n = 1", "passed": true, "problem": null, "output": null, "seconds": 0.1}},
              {{"name": "n = 1000", "passed": {second}, "problem": {problem}, "output": "sum 12\n", "seconds": 0.2}}
            ],
            "mistakes": {mistakes}, "targets": [], "record": null, "progress": [0, 0]{extra}}}"#,
            second = verdict != "wrong_output",
            problem = if verdict == "wrong_output" {
                r#""out[3]: expected 1.5, got 0""#
            } else {
                "null"
            },
            mistakes = if verdict == "targets_missed" {
                r#"["the program copies c back in every iteration"]"#
            } else {
                "[]"
            },
        )
    }

    #[test]
    fn a_host_report_becomes_a_grade_with_its_cases_and_findings() {
        let judged = judge_json(&host_json("wrong_output", ""));
        assert_eq!(judged.status, Status::Failed, "{judged:?}");
        assert_eq!(
            judged.message,
            "Wrong output. Case `n = 1000`: out[3]: expected 1.5, got 0"
        );
        assert_eq!(
            judged.cases,
            vec![
                CaseLine {
                    name: "n = 1".into(),
                    passed: true
                },
                CaseLine {
                    name: "n = 1000".into(),
                    passed: false
                }
            ]
        );
        assert!(
            judged
                .details
                .contains("✗ n = 1000\n    out[3]: expected 1.5, got 0\n    | sum 12\n"),
            "{}",
            judged.details
        );

        let missed = judge_json(&host_json("targets_missed", ""));
        assert_eq!(missed.status, Status::TargetMissed);
        assert_eq!(
            missed.message,
            "Every case is right, but the program copies c back in every iteration"
        );
        assert!(missed
            .details
            .contains("Mistake: the program copies c back"));

        let passed = judge_json(&host_json("passed", ""));
        assert_eq!(passed.status, Status::Passed);
        assert_eq!(judge_json(&host_json("hang", "")).status, Status::Timeout);
    }

    #[test]
    fn a_program_that_does_not_build_shows_the_compiler() {
        let json = host_json("compile_error", "").replace(
            r#""build_errors": null"#,
            r#""build_errors": "error[E0425]: cannot find value `n` in this scope\n --> alice/25_first_program/src/main.rs:9:5""#,
        );
        let judged = judge_json(&json);
        assert_eq!(judged.status, Status::CompileError);
        assert_eq!(
            judged.message,
            "Does not compile: error[E0425]: cannot find value `n` in this scope"
        );
        assert!(judged.details.contains("src/main.rs:9:5"));
    }
}
