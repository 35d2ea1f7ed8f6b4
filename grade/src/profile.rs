//! `runner grade bench --profile`: where a worker's time goes. Each worker runs with
//! `RUNNER_TRACE` (see `runner::trace`), which writes a line as each phase of a check ends:
//!
//! ```text
//! [trace   1234.5 ms] compiled (from cache: false)
//! [trace   1240.1 ms] (sim-recheck) case run and compared: n = 1000
//! ```
//!
//! A phase's time is from the previous line of the same thread of the same worker process to
//! its own. The lines of every worker are summed by phase, so a table shows which phases grow
//! when more workers share a machine (the question the two-GPU figures left open).

use std::collections::BTreeMap;
use std::path::Path;

/// One phase's total over every worker.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Phase {
    /// The phase's name, with what varies from one check to another (case names, counts) left
    /// out, and the thread it ran on where that was not the worker's main thread.
    pub name: String,
    pub count: usize,
    pub total_ms: f64,
}

/// Sums the phases of every `*.log` in `dir`, largest total first.
pub(crate) fn read_dir(dir: &Path) -> std::io::Result<Vec<Phase>> {
    let mut totals = Totals::default();
    let mut logs: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    for log in logs {
        totals.add_log(&String::from_utf8_lossy(&std::fs::read(log)?));
    }
    Ok(totals.into_phases())
}

/// Where the threads a check starts count from: its request line.
const SINCE_REQUEST: &str = "\u{0}request";

#[derive(Default)]
struct Totals(BTreeMap<String, (usize, f64)>);

impl Totals {
    /// Adds one slot's log: its workers one after another, each starting its clock at zero.
    fn add_log(&mut self, log: &str) {
        let mut last_by_thread: BTreeMap<String, f64> = BTreeMap::new();
        for (at_ms, thread, phase) in log.lines().filter_map(parse_line) {
            let key = thread.unwrap_or("main").to_string();
            let main_went_back =
                thread.is_none() && last_by_thread.get("main").is_some_and(|&last| at_ms < last);
            if main_went_back {
                // A new worker took the slot: its clock starts again.
                last_by_thread.clear();
            }
            if thread.is_none() && phase.starts_with("request") {
                // A check begins: threads started for it count from here, not from the end of
                // the last check's thread of the same name.
                last_by_thread.retain(|name, _| name == "main");
                last_by_thread.insert(SINCE_REQUEST.into(), at_ms);
            }
            let since = match last_by_thread.insert(key, at_ms) {
                Some(last) => last,
                None => last_by_thread.get(SINCE_REQUEST).copied().unwrap_or(0.0),
            };
            let name = match thread {
                Some(thread) => format!("({thread}) {}", phase_name(phase)),
                None => phase_name(phase),
            };
            let entry = self.0.entry(name).or_default();
            entry.0 += 1;
            entry.1 += (at_ms - since).max(0.0);
        }
    }

    fn into_phases(self) -> Vec<Phase> {
        let mut phases: Vec<Phase> = self
            .0
            .into_iter()
            .map(|(name, (count, total_ms))| Phase {
                name,
                count,
                total_ms,
            })
            .collect();
        phases.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        phases
    }
}

/// `[trace   12.5 ms] (thread) phase` as (12.5, Some("thread"), "phase").
fn parse_line(line: &str) -> Option<(f64, Option<&str>, &str)> {
    let rest = line.trim_start().strip_prefix("[trace")?;
    let (ms, rest) = rest.split_once("ms]")?;
    let at_ms: f64 = ms.trim().parse().ok()?;
    let rest = rest.trim_start();
    match rest.strip_prefix('(').and_then(|r| r.split_once(") ")) {
        Some((thread, phase)) => Some((at_ms, Some(thread), phase)),
        None => Some((at_ms, None, rest)),
    }
}

/// The phase without what varies between checks: a case's name after `: ` (unless inside
/// brackets, as in `compiled (from cache: true)`) and numbers (`3 cases made` is `N cases made`).
fn phase_name(phase: &str) -> String {
    let kept = match phase.find(": ") {
        Some(at) if !phase[..at].contains('(') => &phase[..at],
        _ => phase,
    };
    let mut name = String::new();
    for c in kept.chars() {
        if c.is_ascii_digit() {
            if !name.ends_with('N') {
                name.push('N');
            }
        } else {
            name.push(c);
        }
    }
    name
}

/// A phase as the table names it: the few whose line says where it ended, not what ran.
fn shown_name(name: &str) -> &str {
    match name {
        "request" => "request (the worker waited for the next cell)",
        "GPU timing lock taken" => "GPU timing lock taken (another worker was timing)",
        other => other,
    }
}

/// The table `runner grade bench --profile` prints: each phase's share of the workers' time
/// (their main threads'; a named thread runs beside the main one) and its mean per check.
pub(crate) fn render(phases: &[Phase], checks: usize) -> String {
    let main_total: f64 = phases
        .iter()
        .filter(|p| !p.name.starts_with('('))
        .map(|p| p.total_ms)
        .sum();
    let mut out = format!(
        "Where the workers' time went ({:.1} s in all on their main threads, {checks} checks):\n",
        main_total / 1000.0
    );
    out += &format!(
        "{:>9} {:>7} {:>8} {:>11}  phase (ending with)\n",
        "total s", "share", "times", "ms a check"
    );
    for phase in phases {
        let share = if phase.name.starts_with('(') {
            "beside".to_string()
        } else {
            format!("{:.1}%", 100.0 * phase.total_ms / main_total.max(1e-9))
        };
        out += &format!(
            "{:>9.2} {share:>7} {:>8} {:>11.1}  {}\n",
            phase.total_ms / 1000.0,
            phase.count,
            phase.total_ms / checks.max(1) as f64,
            shown_name(&phase.name)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
[trace     10.0 ms] worker ready: NVRTC loaded and backend opened: NVIDIA H100
[trace     15.0 ms] request: check 02
[trace     45.0 ms] compiled (from cache: false)
[trace     40.0 ms] (sim-recheck) case run and compared: n = 7
[trace     60.0 ms] case run and compared: n = 7
[trace     61.0 ms] 12 cases made or reused
[trace      5.0 ms] worker ready: NVRTC loaded and backend opened: NVIDIA H100
[trace     25.0 ms] request: check 03
";

    fn phase<'a>(phases: &'a [Phase], name: &str) -> &'a Phase {
        phases
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no phase {name:?} in {phases:?}"))
    }

    #[test]
    fn a_phase_lasts_from_the_last_line_of_its_own_thread() {
        let mut totals = Totals::default();
        totals.add_log(LOG);
        let phases = totals.into_phases();
        assert_eq!(
            phase(&phases, "compiled (from cache: false)").total_ms,
            30.0
        );
        assert_eq!(phase(&phases, "case run and compared").total_ms, 15.0);
        // The re-check's thread counts from the check's request, not from the main thread's
        // last line.
        assert_eq!(
            phase(&phases, "(sim-recheck) case run and compared").total_ms,
            25.0
        );
        assert_eq!(phase(&phases, "N cases made or reused").count, 1);
    }

    #[test]
    fn a_thread_of_the_next_check_counts_from_that_check_s_request() {
        let mut totals = Totals::default();
        totals.add_log(
            "[trace 10.0 ms] request: check 01\n\
             [trace 30.0 ms] (simulator) kernel run\n\
             [trace 500.0 ms] request: check 02\n\
             [trace 510.0 ms] (simulator) kernel run\n",
        );
        let phases = totals.into_phases();
        let run = phase(&phases, "(simulator) kernel run");
        assert_eq!((run.count, run.total_ms), (2, 30.0), "20 ms then 10 ms");
    }

    #[test]
    fn a_new_worker_in_the_slot_starts_its_clock_again() {
        let mut totals = Totals::default();
        totals.add_log(LOG);
        let phases = totals.into_phases();
        let ready = phase(&phases, "worker ready");
        assert_eq!((ready.count, ready.total_ms), (2, 15.0));
        let request = phase(&phases, "request");
        assert_eq!((request.count, request.total_ms), (2, 25.0));
    }

    #[test]
    fn lines_that_are_not_trace_lines_are_left_out() {
        assert_eq!(parse_line("warning: something else"), None);
        assert_eq!(parse_line("[trace oops ms] x"), None);
        assert_eq!(
            parse_line("[trace 1.5 ms] (t) p"),
            Some((1.5, Some("t"), "p"))
        );
    }

    #[test]
    fn the_table_gives_each_main_thread_phase_its_share() {
        let phases = vec![
            Phase {
                name: "compiled".into(),
                count: 4,
                total_ms: 300.0,
            },
            Phase {
                name: "kernel timed".into(),
                count: 4,
                total_ms: 100.0,
            },
            Phase {
                name: "(sim-recheck) done".into(),
                count: 4,
                total_ms: 900.0,
            },
        ];
        let table = render(&phases, 4);
        assert!(table.contains("0.4 s in all"), "{table}");
        assert!(table.contains("75.0%"), "{table}");
        assert!(table.contains("beside"), "{table}");
        assert!(table.contains("75.0  compiled"), "{table}");
    }
}
