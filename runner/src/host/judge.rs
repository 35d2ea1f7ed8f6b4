//! Judging a host program's runs: its outputs against the CPU reference, and what the driver's
//! record shows of how it got them (copies, launches, errors, streams), so the mistakes the host
//! chapters teach about are named, not only noticed.

use super::execute::{Exit, Run};
use super::record::{Direction, Record};
use crate::course::{Exercise, HostSpec, Language};
use crate::report::Verdict;
use checks::{HostCase, HostData, Tolerance};
use serde::{Deserialize, Serialize};

/// What a failed call the program went on after means.
const WENT_ON: &str = "and the program went on as if it had worked: check the result of every \
                       call (in Rust, `?` or a match), so an error stops the program where it happens";

/// One case's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseResult {
    pub name: String,
    pub passed: bool,
    /// What went wrong, in a sentence or two, where something did.
    pub problem: Option<String>,
    /// The end of what the program printed, where the case failed.
    pub output: Option<String>,
    pub seconds: f64,
}

/// A goal on how the program used the driver, and how it did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetResult {
    pub name: String,
    pub wanted: String,
    pub got: String,
    pub met: bool,
}

/// What a run failed on before its outputs could count, with the verdict it gives.
fn run_failure(run: &Run) -> Option<(Verdict, String)> {
    let failures = run.record.as_ref().map(failed_calls).unwrap_or_default();
    let unsupported: Vec<&String> = run.record.iter().flat_map(Record::unsupported).collect();
    if let Some(name) = unsupported.first() {
        return Some((
            Verdict::Crashed,
            format!(
                "the program called {name}, which the simulator's CUDA driver does not implement"
            ),
        ));
    }
    if let Some(diagnostic) = run
        .record
        .iter()
        .flat_map(|r| &r.launches)
        .find(|l| l.aborted || !l.diagnostics.is_empty())
    {
        let what = diagnostic.diagnostics.join("; ");
        return Some((
            Verdict::Crashed,
            format!("kernel {}: {what}", diagnostic.kernel),
        ));
    }
    match run.exit {
        Exit::Code(0) => None,
        Exit::TimedOut => Some((
            Verdict::Hang,
            format!(
                "the program was still running after {:.0} s and was stopped",
                run.seconds
            ),
        )),
        _ if out_of_memory(&run.output) => Some((
            Verdict::Crashed,
            format!(
                "the program ran out of memory: a whole program may take {} GiB here; does it \
                 allocate more than its data needs, or in a loop?",
                super::execute::MEMORY_LIMIT_BYTES >> 30
            ),
        )),
        Exit::Signal(signal) => Some((
            Verdict::Crashed,
            format!("the program was ended by signal {signal}"),
        )),
        Exit::Code(code) if failures.is_empty() => Some((
            Verdict::Crashed,
            format!("the program stopped with exit code {code}"),
        )),
        Exit::Code(_) => Some((
            Verdict::Crashed,
            format!(
                "the program stopped on an error from the driver: {}",
                failures.join(", ")
            ),
        )),
    }
}

/// Whether the program's output says an allocation failed (Rust's abort, Python's MemoryError).
fn out_of_memory(output: &str) -> bool {
    output.contains("memory allocation of") || output.contains("MemoryError")
}

/// The program's failed calls, as `cuLaunchKernel: CUDA_ERROR_INVALID_VALUE`.
fn failed_calls(record: &Record) -> Vec<String> {
    record
        .program_failures()
        .map(|f| format!("{} returned {}", f.call, f.name))
        .collect()
}

/// Judges one case's run: its outputs, once the run itself went well.
pub fn judge_case(exercise: &Exercise, case: &HostCase, run: &Run) -> (Verdict, CaseResult) {
    let verdict_and_problem = run_failure(run).or_else(|| wrong_output(exercise, case, run));
    let (verdict, problem) = match verdict_and_problem {
        Some((verdict, problem)) => (verdict, Some(problem)),
        None => (Verdict::Passed, None),
    };
    let passed = verdict == Verdict::Passed;
    let result = CaseResult {
        name: case.name.clone(),
        passed,
        problem,
        output: (!passed && !run.output.trim().is_empty()).then(|| run.output.clone()),
        seconds: run.seconds,
    };
    (verdict, result)
}

fn wrong_output(exercise: &Exercise, case: &HostCase, run: &Run) -> Option<(Verdict, String)> {
    for (name, got) in &run.outputs {
        let want = case.expected(name)?;
        let Some(got) = got else {
            return Some((
                Verdict::WrongOutput,
                format!("the program handed back no {name} (hostkit's task.write_f32s(\"{name}\", ...) was never called)"),
            ));
        };
        if let Some(problem) = mismatch(name, want, got, exercise.tolerance) {
            // An error the program never looked at explains a wrong result before anything else;
            // then a copy it never waited for.
            let unchecked = run
                .record
                .as_ref()
                .and_then(|r| failed_calls(r).into_iter().next());
            let cause = unchecked
                .map(|failure| format!("{failure}, {WENT_ON}"))
                .or_else(|| read_before_waiting(run, name))
                .or_else(|| checks::diagnose_host(&exercise.id, case, name, got))
                .map(|c| format!("\n  Likely: {c}"))
                .unwrap_or_default();
            return Some((Verdict::WrongOutput, format!("{problem}{cause}")));
        }
    }
    None
}

/// Says so where the program read `name` (or any result) before waiting for the copy into it.
fn read_before_waiting(run: &Run, name: &str) -> Option<String> {
    let wait = "wait for an asynchronous copy (synchronize its stream, or an event recorded \
                after it) before reading what it copies";
    if let Some((_, bytes)) = run.read_in_flight.iter().find(|(n, _)| *n == name) {
        return Some(format!(
            "{name} was handed back while {bytes} bytes of a copy into it were still on their \
             way from the device: {wait}"
        ));
    }
    let never = run.record.as_ref().map_or(0, |r| r.copies_never_waited_for);
    let copies = match never {
        0 => return None,
        1 => "an asynchronous copy back to the host was".to_string(),
        n => format!("{n} asynchronous copies back to the host were"),
    };
    Some(format!(
        "{copies} never waited for, so the program read its memory before the data arrived: \
         {wait}"
    ))
}

/// How `got` differs from `want`: its length, or its first few wrong elements.
fn mismatch(name: &str, want: &HostData, got: &HostData, tolerance: Tolerance) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!(
            "{name} has {} elements, and should have {}",
            got.len(),
            want.len()
        ));
    }
    if checks::identical_and_accepted(want, got, tolerance) {
        return None;
    }
    let wrong: Vec<usize> = (0..want.len())
        .filter(|&i| {
            let (w, g) = (
                checks::compare::element_f64(want, i),
                checks::compare::element_f64(got, i),
            );
            !tolerance.accepts_value(w, g)
        })
        .collect();
    if wrong.is_empty() {
        return None;
    }
    let shown: Vec<String> = wrong
        .iter()
        .take(3)
        .map(|&i| {
            let (w, g) = (
                checks::compare::element_f64(want, i),
                checks::compare::element_f64(got, i),
            );
            format!("{name}[{i}] = {g}, expected {w}")
        })
        .collect();
    Some(format!(
        "{} of {} elements of {name} are wrong: {}",
        wrong.len(),
        want.len(),
        shown.join("; ")
    ))
}

/// The mistakes the driver's records show in runs whose outputs were right, each named with
/// what to do instead. The lesson of a host exercise is in these.
pub fn mistakes(exercise: &Exercise, runs: &[&Run]) -> Vec<String> {
    let mut found = Vec::new();
    let records: Vec<&Record> = runs.iter().filter_map(|r| r.record.as_ref()).collect();
    if let Some(failure) = records.iter().flat_map(|r| failed_calls(r)).next() {
        found.push(format!("{failure}, {WENT_ON}"));
    }
    for kernel in &exercise.entries {
        let launched = records.iter().all(|r| {
            r.launches
                .iter()
                .any(|l| super::kernel_named(&l.kernel, kernel))
        });
        if !launched {
            found.push(format!(
                "the program never launched {kernel}: the results were not computed on the GPU"
            ));
        }
    }
    // Numba frees device arrays in finalizers that it skips when the interpreter shuts down, so
    // a Python program's leftovers at exit say nothing of the program.
    let python = exercise
        .host
        .as_ref()
        .is_some_and(|h| h.language == Language::Python);
    let leaked = records.iter().map(|r| r.leaked_bytes).max();
    if let Some(leaked) = leaked.filter(|b| *b > 0 && !python) {
        found.push(format!(
            "{leaked} bytes of device memory were still allocated when the program ended: free \
             what you allocate (cudarc frees a CudaSlice when it is dropped; a raw cuMemAlloc \
             needs its cuMemFree)"
        ));
    }
    let targets = exercise.host.clone().unwrap_or_default();
    if targets.min_copy_hidden.is_some() {
        let pageable = records
            .iter()
            .flat_map(|r| &r.transfers)
            .filter(|t| t.asynchronous && !t.pinned && t.direction != Direction::DeviceToDevice)
            .count();
        let waits = records
            .iter()
            .map(|r| r.allocation_waits)
            .max()
            .unwrap_or(0);
        if waits > 0 {
            found.push(format!(
                "{waits} allocations were made while copies or kernels were still queued: CUDA \
                 runs nothing queued after an allocation beside what was queued before it, so \
                 the chunks ran one after another. Allocate every buffer first, then queue the work"
            ));
        }
        if pageable > 0 {
            found.push(format!(
                "{pageable} asynchronous copies used pageable host memory (a Vec): the driver \
                 stages those through a buffer of its own while the host waits, so they overlap \
                 nothing. Copy from and to pinned memory (ctx.alloc_pinned)"
            ));
        }
    }
    found
}

/// The exercise's targets on the runs' records; copy overlap on the last (largest) case only,
/// the simulator's figures over every launch of the exercise's kernels (`entries`).
pub fn targets(targets: &HostSpec, entries: &[String], runs: &[&Run]) -> Vec<TargetResult> {
    let records: Vec<&Record> = runs.iter().filter_map(|r| r.record.as_ref()).collect();
    let mut results = figure_targets(targets, entries, &records);
    let most = |f: fn(&Record) -> u64| records.iter().map(|r| f(r)).max().unwrap_or(0);
    if let Some(max) = targets.max_uploads {
        let got = most(|r| r.uploads().count() as u64);
        results.push(TargetResult {
            name: "copies to the device in one run".into(),
            wanted: format!("at most {max}"),
            got: got.to_string(),
            met: got <= max,
        });
    }
    if let Some(max) = targets.max_downloads {
        let got = most(|r| r.downloads().count() as u64);
        results.push(TargetResult {
            name: "copies back to the host in one run".into(),
            wanted: format!("at most {max}"),
            got: got.to_string(),
            met: got <= max,
        });
    }
    if let (Some(min), Some(last)) = (targets.min_copy_hidden, records.last()) {
        let got = last.copy_time_hidden();
        results.push(TargetResult {
            name: "copy time overlapped by other work (largest case)".into(),
            wanted: format!("at least {:.0}%", min * 100.0),
            got: format!("{:.0}%", got * 100.0),
            met: got >= min,
        });
    }
    results
}

/// The simulator's figures of the launches of `entries`' kernels, added up, and per source line.
struct KernelFigures {
    total: sim::Figures,
    lines: Vec<sim::LineFigures>,
}

/// None when no such kernel was launched; `Some(None)` when one ran on a GPU (no figures).
fn kernel_figures(entries: &[String], records: &[&Record]) -> Option<Option<KernelFigures>> {
    let launches: Vec<_> = records
        .iter()
        .flat_map(|r| &r.launches)
        .filter(|l| entries.iter().any(|e| super::kernel_named(&l.kernel, e)))
        .collect();
    if launches.is_empty() {
        return None;
    }
    let mut figures = KernelFigures {
        total: sim::Figures::default(),
        lines: Vec::new(),
    };
    for launch in launches {
        let Some(total) = &launch.figures else {
            return Some(None);
        };
        figures.total += total;
        for line in &launch.lines {
            match figures
                .lines
                .iter_mut()
                .find(|l| l.file == line.file && l.line == line.line)
            {
                Some(known) => known.figures += &line.figures,
                None => figures.lines.push(line.clone()),
            }
        }
    }
    Some(Some(figures))
}

fn sectors_per_request(f: &sim::Figures) -> f64 {
    let requests = f.global_load_requests + f.global_store_requests;
    let sectors = f.global_load_sectors + f.global_store_sectors;
    if requests == 0 {
        0.0
    } else {
        sectors as f64 / requests as f64
    }
}

/// `, most on line 51 of transpose.py (32.0 sectors per request)`: the line whose `cost` is
/// highest, shown by `show`, where the kernel has line information.
fn costliest_line(
    lines: &[sim::LineFigures],
    cost: impl Fn(&sim::Figures) -> f64,
    show: impl Fn(f64) -> String,
) -> String {
    let worst = lines
        .iter()
        .map(|l| (l, cost(&l.figures)))
        .filter(|(_, c)| *c > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let Some((line, cost)) = worst else {
        return String::new();
    };
    let file = std::path::Path::new(&line.file)
        .file_name()
        .map_or(line.file.clone(), |f| f.to_string_lossy().into_owned());
    format!(", most on line {} of {file} ({})", line.line, show(cost))
}

/// Sectors per request and bank conflicts over the launches of the exercise's kernels, from the
/// simulator's figures; skipped, with a note, where the kernels ran on a GPU.
fn figure_targets(
    targets: &HostSpec,
    entries: &[String],
    records: &[&Record],
) -> Vec<TargetResult> {
    let mut results = Vec::new();
    let wanted = [
        (
            SECTORS_TARGET,
            targets
                .max_sectors_per_request
                .map(|m| format!("at most {m:.1}")),
        ),
        (
            CONFLICTS_TARGET,
            targets.max_bank_conflicts.map(|m| format!("at most {m}")),
        ),
    ];
    if wanted.iter().all(|(_, w)| w.is_none()) {
        return results;
    }
    let Some(figures) = kernel_figures(entries, records) else {
        return results;
    };
    let Some(figures) = figures else {
        for (name, wanted) in wanted {
            if let Some(wanted) = wanted {
                results.push(TargetResult {
                    name: name.into(),
                    wanted,
                    got: "skipped: the kernel ran on a GPU, and only the simulator counts these"
                        .into(),
                    met: true,
                });
            }
        }
        return results;
    };
    if let Some(max) = targets.max_sectors_per_request {
        let got = sectors_per_request(&figures.total);
        let met = got <= max;
        let line = if met {
            String::new()
        } else {
            costliest_line(&figures.lines, sectors_per_request, |c| {
                format!("{c:.1} sectors per request")
            })
        };
        results.push(TargetResult {
            name: SECTORS_TARGET.into(),
            wanted: format!("at most {max:.1}"),
            got: format!("{got:.1}{line}"),
            met,
        });
    }
    if let Some(max) = targets.max_bank_conflicts {
        let got = figures.total.shared_bank_conflicts();
        let met = got <= max;
        let line = if met {
            String::new()
        } else {
            costliest_line(
                &figures.lines,
                |f| f.shared_bank_conflicts() as f64,
                |c| format!("{c} bank conflicts"),
            )
        };
        results.push(TargetResult {
            name: CONFLICTS_TARGET.into(),
            wanted: format!("at most {max}"),
            got: format!("{got}{line}"),
            met,
        });
    }
    results
}

const SECTORS_TARGET: &str = "global sectors per request (simulator)";
const CONFLICTS_TARGET: &str = "shared-memory bank conflicts (simulator)";

/// Says what a missed target usually means.
pub fn explain_missed(target: &TargetResult) -> &'static str {
    if target.name == SECTORS_TARGET {
        "a warp whose threads touch addresses far apart (down a column): let neighbouring \
         threads (threadIdx.x) read and write neighbouring elements of a row, going through \
         shared memory where one side of the work runs down columns"
    } else if target.name == CONFLICTS_TARGET {
        "a warp reading down a column of a shared array whose rows are a multiple of 32 words \
         long, so the whole column is in one bank: pad each row by one element \
         (`__shared__ float tile[TILE][TILE + 1]`; in Numba a (TILE, TILE + 1) shape)"
    } else if target.name.starts_with("copies back") {
        "a copy back inside the loop: keep the data on the device between kernels, and copy back \
         once, after the last"
    } else if target.name.starts_with("copies to") {
        "data sent again that is already on the device: upload once, before the loop"
    } else {
        "copies that overlap nothing: put each chunk's copy in, kernel and copy out on a stream \
         of its own, with pinned host memory, so one chunk's copies run beside another's kernel"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::record::Launch;

    fn launch(kernel: &str, figures: Option<sim::Figures>) -> Launch {
        let lines = figures
            .iter()
            .map(|f| sim::LineFigures {
                file: "/course/exercises/py08_transpose/transpose.py".into(),
                line: 51,
                figures: f.clone(),
                instructions: Default::default(),
            })
            .collect();
        Launch {
            kernel: kernel.into(),
            figures,
            lines,
            diagnostics: vec![],
            aborted: false,
            start_us: 0.0,
            end_us: 1.0,
        }
    }

    fn record(launches: Vec<Launch>) -> Record {
        Record {
            launches,
            ..Record::default()
        }
    }

    const SPEC: HostSpec = HostSpec {
        language: Language::Python,
        max_uploads: None,
        max_downloads: None,
        min_copy_hidden: None,
        max_sectors_per_request: Some(4.0),
        max_bank_conflicts: Some(0),
    };

    #[test]
    fn figure_targets_hold_the_named_kernels_launches_and_name_the_costliest_line() {
        let strided = sim::Figures {
            global_store_requests: 10,
            global_store_sectors: 320,
            shared_load_bank_conflicts: 31,
            ..Default::default()
        };
        // Another kernel's traffic does not count: only the entry's launches are judged.
        let other = sim::Figures {
            global_load_requests: 1,
            global_load_sectors: 1,
            ..Default::default()
        };
        let records = [record(vec![
            launch("_ZN8__main__9transposeB2v1", Some(strided)),
            launch("__main__::setup", Some(other)),
        ])];
        let entries = ["transpose".to_string()];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert_eq!(results.len(), 2);
        assert!(!results[0].met && !results[1].met);
        assert_eq!(
            results[0].got,
            "32.0, most on line 51 of transpose.py (32.0 sectors per request)"
        );
        assert_eq!(
            results[1].got,
            "31, most on line 51 of transpose.py (31 bank conflicts)"
        );
        assert!(explain_missed(&results[1]).contains("TILE + 1"));

        let coalesced = sim::Figures {
            global_load_requests: 10,
            global_load_sectors: 40,
            ..Default::default()
        };
        let records = [record(vec![launch("transpose", Some(coalesced))])];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert!(results.iter().all(|r| r.met), "{results:?}");
        assert_eq!(results[0].got, "4.0");
    }

    #[test]
    fn figure_targets_are_skipped_with_a_note_where_the_kernel_ran_on_a_gpu() {
        let records = [record(vec![launch("transpose", None)])];
        let entries = ["transpose".to_string()];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert_eq!(results.len(), 2);
        assert!(results
            .iter()
            .all(|r| r.met && r.got.starts_with("skipped: the kernel ran on a GPU")));
        // No launch of the kernel at all is the "never launched" mistake, not a target.
        let none = [record(vec![])];
        assert!(figure_targets(&SPEC, &entries, &none.iter().collect::<Vec<_>>()).is_empty());
    }
}
