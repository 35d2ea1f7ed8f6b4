//! Judging a host program's runs: its outputs against the CPU reference, and what the driver's
//! record shows of how it got them (copies, launches, errors, streams), so the mistakes the host
//! chapters teach about are named, not only noticed.

use super::execute::{Exit, Run};
use super::record::{Direction, EntryKernels, Launch, Record};
use super::words;
use crate::backend::sim::relative_to_current_dir;
use crate::checker::verdict::{of_diagnostic, of_program_stop, sentence, ProgramStop};
use crate::course::{Exercise, Language};
use crate::kernel_name::short_name;
use crate::report::Verdict;
use checks::{HostCase, HostData, Tolerance};

pub(super) use contract::report::program::CaseResult;

/// What a run failed on before its outputs could count, with the verdict it gives.
fn run_failure(run: &Run, python: bool) -> Option<(Verdict, String)> {
    let (stop, said) = run_stop(run, python)?;
    Some((of_program_stop(&stop), said))
}

/// How a run stopped before its outputs could count, and the words for it.
fn run_stop(run: &Run, python: bool) -> Option<(ProgramStop, String)> {
    let failures = run.record.as_ref().map(failed_calls).unwrap_or_default();
    let unsupported: Vec<&String> = run.record.iter().flat_map(Record::unsupported).collect();
    if let Some(name) = unsupported.first() {
        return Some((
            ProgramStop::Unsupported,
            format!(
                "the program called {name}, which the simulator's CUDA driver does not implement"
            ),
        ));
    }
    if let Some(launch) = run
        .record
        .iter()
        .flat_map(|r| &r.launches)
        .find(|l| l.aborted || !l.diagnostics.is_empty())
    {
        let (verdict, said) = kernel_failure(launch, python);
        return Some((ProgramStop::Kernel(verdict), said));
    }
    match run.exit {
        Exit::Code(0) => None,
        Exit::TimedOut => Some((
            ProgramStop::OutOfTime,
            format!(
                "the program was still running after {:.0} s and was stopped",
                run.seconds
            ),
        )),
        Exit::OutOfCpu(seconds) => Some((
            ProgramStop::OutOfTime,
            format!(
                "the program used {seconds} s of CPU time without finishing and was stopped: \
                 does a loop never end?"
            ),
        )),
        _ if out_of_memory(&run.output) => Some((
            ProgramStop::Ended,
            format!(
                "the program ran out of memory: a whole program may take {} GiB here; does it \
                 allocate more than its data needs, or in a loop?",
                super::execute::MEMORY_LIMIT_BYTES >> 30
            ),
        )),
        Exit::Signal(signal) => Some((
            ProgramStop::Ended,
            format!("the program was ended by signal {signal}"),
        )),
        Exit::Code(code) if failures.is_empty() => Some((
            ProgramStop::Ended,
            format!("the program stopped with exit code {code}"),
        )),
        Exit::Code(_) => Some((
            ProgramStop::DriverError(failed_codes(run)),
            format!(
                "the program stopped on an error from the driver: {}{}",
                failures.join(", "),
                refused_launch(run)
                    .or_else(|| error_advice(run).map(String::from))
                    .map(|a| format!("\n  Likely: {a}"))
                    .unwrap_or_default()
            ),
        )),
    }
}

/// What the first of the program's failed calls that [`words::error_advice`] knows means.
fn error_advice(run: &Run) -> Option<&'static str> {
    let record = run.record.as_ref()?;
    record
        .program_failures()
        .find_map(|f| words::error_advice(f.error))
}

/// The first launch the driver refused, named from its shape.
fn refused_launch(run: &Run) -> Option<String> {
    super::refused::first(run.record.as_ref()?)
}

/// The CUDA error codes of the program's failed calls, in order.
fn failed_codes(run: &Run) -> Vec<u32> {
    let failures = run.record.iter().flat_map(|r| r.program_failures());
    failures.map(|f| f.error).collect()
}

/// The verdict a launch's diagnostics give, as a kernel exercise's check gives it (a race is
/// `race`, an access past an array `out_of_bounds`), with the diagnostic that decides: the one
/// that stopped the kernel, else the first.
fn kernel_failure(launch: &Launch, python: bool) -> (Verdict, String) {
    let kernel = short_name(&launch.kernel);
    let deciding = launch
        .diagnostics
        .iter()
        .find(|d| d.kind.is_fatal())
        .or(launch.diagnostics.first());
    let Some(diagnostic) = deciding else {
        return (
            of_program_stop(&ProgramStop::KernelStopped),
            format!("kernel {kernel} was stopped"),
        );
    };
    let array = super::params::race_array_words(launch, diagnostic, python);
    // Numba's line information names the script by its absolute path.
    let mut diagnostic = diagnostic.clone();
    let named_access = super::params::bad_access_words(launch, &diagnostic, python);
    let mut advice = None;
    if let Some((message, past_the_end)) = named_access {
        diagnostic.message = message;
        advice = past_the_end;
    }
    if let Some(place) = diagnostic.location.as_mut() {
        relative_to_current_dir(&mut place.file);
    }
    let what = sentence(&diagnostic, array.as_deref());
    let what = if python { in_numba_words(&what) } else { what };
    let what = match advice {
        Some(advice) => format!("{what}. {advice}"),
        None => what,
    };
    (
        of_diagnostic(&diagnostic),
        format!("kernel {kernel}: {what}"),
    )
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

/// What the program printed, less the driver's own lines repeating a kernel's diagnostics
/// (`simcuda: KERNEL: race on ...`), which the case's problem already gives in readable words.
fn output_without_diagnostics(run: &Run) -> String {
    let diagnostics: Vec<&str> = run
        .record
        .iter()
        .flat_map(|r| &r.launches)
        .flat_map(|l| &l.diagnostics)
        .map(|d| d.message.as_str())
        .collect();
    run.output
        .lines()
        .filter(|line| {
            !(line.starts_with("simcuda: ") && diagnostics.iter().any(|d| line.ends_with(d)))
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The simulator's advice, which is in CUDA C's words, as a Numba program says it.
fn in_numba_words(text: &str) -> String {
    let mut text = text.to_string();
    for (c, numba) in [
        ("__syncthreads()", "cuda.syncthreads()"),
        ("__syncwarp()", "cuda.syncwarp()"),
        ("atomicAdd", "cuda.atomic.add"),
    ] {
        text = text.replace(c, numba);
    }
    text
}

/// The language of a host exercise's program (Rust where the metadata names none).
fn language(exercise: &Exercise) -> Language {
    exercise.language().unwrap_or_default()
}

/// Judges one case's run: its outputs, once the run itself went well.
pub(super) fn judge_case(exercise: &Exercise, case: &HostCase, run: &Run) -> (Verdict, CaseResult) {
    let verdict_and_problem =
        run_failure(run, exercise.is_python()).or_else(|| wrong_output(exercise, case, run));
    let (verdict, problem) = match verdict_and_problem {
        Some((verdict, problem)) => (verdict, Some(problem)),
        None => (Verdict::Passed, None),
    };
    let passed = verdict == Verdict::Passed;
    let result = CaseResult {
        name: case.name.clone(),
        passed,
        problem,
        output: Some(output_without_diagnostics(run)).filter(|o| !passed && !o.trim().is_empty()),
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
                format!(
                    "the program handed back no {name} (hostkit's {} was never called)",
                    words::write_call(language(exercise), name)
                ),
            ));
        };
        if let Some(problem) = mismatch(name, want, got, exercise.tolerance) {
            // An error the program never looked at explains a wrong result before anything else;
            // then a copy it never waited for.
            let unchecked = run
                .record
                .as_ref()
                .and_then(|r| failed_calls(r).into_iter().next());
            // A refused launch is the unchecked error that explains most: no thread ran.
            let refused =
                refused_launch(run).map(|r| format!("{r}, {}", words::went_on(language(exercise))));
            let cause = refused
                .or_else(|| {
                    unchecked.map(|failure| match error_advice(run) {
                        Some(advice) => format!("{failure}: {advice}"),
                        None => format!("{failure}, {}", words::went_on(language(exercise))),
                    })
                })
                .or_else(|| read_before_waiting(run, name))
                .or_else(|| unchanged_though_copied_back(case, run, name, got))
                .or_else(|| checks::diagnose_host(&exercise.id, case, name, got))
                .or_else(|| {
                    let record = run.record.as_ref()?;
                    super::coverage::past_the_last_thread(
                        record,
                        name,
                        want,
                        got,
                        exercise.tolerance,
                    )
                })
                .map(|c| format!("\n  Likely: {c}"))
                .unwrap_or_default();
            return Some((Verdict::WrongOutput, format!("{problem}{cause}")));
        }
    }
    None
}

/// An output handed back exactly as it went in, where the driver's record shows a kernel launched
/// and a copy back at least its size: the exercise's own reading ("never copied back, or never
/// launched") would contradict the record, so the kernel's arguments are named instead.
fn unchanged_though_copied_back(
    case: &HostCase,
    run: &Run,
    name: &str,
    got: &HostData,
) -> Option<String> {
    let record = run.record.as_ref()?;
    let copied_back = record
        .transfers
        .iter()
        .any(|t| t.direction == Direction::DeviceToHost && t.bytes >= got.byte_len() as u64);
    (case.input(name) == Some(got) && !record.launches.is_empty() && copied_back).then(|| {
        format!(
            "{name} came back exactly as it went in, though the driver's record shows the kernel \
             launched and a copy back: either the kernel left {name} unchanged (check the \
             arguments it was given, their order and their types: a Python float or a Rust f64 is \
             an 8-byte double where a kernel's float reads 4 bytes), or the copy back went into \
             another array than the one handed back"
        )
    })
}

/// Says so where the program read `name` (or any result) before waiting for the copy into it.
fn read_before_waiting(run: &Run, name: &str) -> Option<String> {
    let wait = "wait for an asynchronous copy (synchronize its stream, or an event recorded \
                after it) before reading what it copies";
    if let Some((_, bytes)) = run.read_in_flight.iter().find(|(n, _)| *n == name) {
        // Managed memory the kernel still held, rather than a copy on its way.
        if let Some(said) = run.record.as_ref().and_then(super::unified::unwaited_read) {
            return Some(said);
        }
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

/// The exercise's kernels that some run never launched: its results came from elsewhere (the
/// CPU, or a library). A run that left no record never called the driver at all (a Numba ufunc
/// without `target='cuda'` is compiled for the CPU), so it launched nothing.
pub(super) fn unlaunched_kernels<'e>(exercise: &'e Exercise, runs: &[&Run]) -> Vec<&'e str> {
    let launched = |run: &&Run, kernel: &str| {
        run.record
            .as_ref()
            .is_some_and(|r| EntryKernels::of(&exercise.entries, &[r]).launched(kernel))
    };
    exercise
        .entries
        .iter()
        .filter(|kernel| !runs.iter().all(|run| launched(run, kernel)))
        .map(String::as_str)
        .collect()
}

/// The mistakes the driver's records show in runs whose outputs were right, each named with
/// what to do instead. The lesson of a host exercise is in these.
pub(super) fn mistakes(exercise: &Exercise, runs: &[&Run]) -> Vec<String> {
    let mut found = Vec::new();
    let records: Vec<&Record> = runs.iter().filter_map(|r| r.record.as_ref()).collect();
    if let Some(failure) = records.iter().flat_map(|r| failed_calls(r)).next() {
        let advice = records
            .iter()
            .flat_map(|r| r.program_failures())
            .find_map(|f| words::error_advice(f.error))
            .map(|a| format!(": {a}"))
            .unwrap_or_default();
        found.push(format!(
            "{failure}, {}{advice}",
            words::went_on(language(exercise))
        ));
    }
    for kernel in unlaunched_kernels(exercise, runs) {
        found.push(format!(
            "the program never launched {kernel}: the results were not computed on the GPU"
        ));
    }
    // Numba frees device arrays in finalizers that it skips when the interpreter shuts down, so
    // a Python program's leftovers at exit say nothing of the program.
    let python = exercise.is_python();
    let leaked = records.iter().map(|r| r.leaked_bytes).max();
    if let Some(leaked) = leaked.filter(|b| *b > 0 && !python) {
        found.push(format!(
            "{leaked} bytes of device memory were still allocated when the program ended: free \
             what you allocate ({})",
            words::free_advice(language(exercise))
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
            let (pageable_memory, pinned) = words::pinned_advice(language(exercise));
            found.push(format!(
                "{pageable} asynchronous copies used pageable host memory ({pageable_memory}): \
                 the driver stages those through a buffer of its own while the host waits, so \
                 they overlap nothing. Copy from and to pinned memory ({pinned})"
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch whose kernel raced on element 3 of its 12th argument (one of Numba's arrays).
    fn raced_launch() -> Launch {
        let what = "element 3 of the array passed as argument 12";
        let message = format!(
            "race on shared memory: thread (1,0,0) writes {what}, and thread (0,0,0) reads it: a \
             __syncthreads() is missing, or an update like `x += v` needs an atomic such as atomicAdd"
        );
        let access = |access| sim::RaceAccess {
            block: [0; 3],
            thread: [1, 0, 0],
            location: None,
            access,
        };
        let race = sim::Race {
            accesses: [
                access(sim::AccessKind::Write),
                access(sim::AccessKind::Read),
            ],
            place: sim::RacePlace::Global {
                argument: Some(11),
                variable: None,
                element: Some(3),
                address: 0x100c,
            },
            place_words: sim::Race::words_in(&message, what),
        };
        let mut launch = launch_with(sim::DiagnosticKind::GlobalRace, &message);
        launch.diagnostics[0].race = Some(Box::new(race));
        launch
    }

    #[test]
    fn a_python_exercise_hears_the_simulators_advice_in_numbas_words() {
        let (verdict, said) = kernel_failure(&raced_launch(), true);
        assert_eq!(verdict, Verdict::Race);
        assert_eq!(
            said,
            "kernel k: race on shared memory: thread (1,0,0) writes element 3 of one of the \
             kernel's arrays, and thread (0,0,0) reads it: a cuda.syncthreads() is missing, or an \
             update like `x += v` needs an atomic such as cuda.atomic.add (block (0, 0, 0), \
             thread (1, 0, 0))"
        );
        // A CUDA C program's is left in the simulator's words.
        let (_, said) = kernel_failure(&raced_launch(), false);
        assert!(
            said.contains("element 3 of the array passed as argument 12"),
            "{said}"
        );
    }

    #[test]
    fn a_kernels_fault_on_a_gpu_gives_the_verdict_the_simulator_gives_the_same_bug() {
        for (error, name, verdict) in [
            (700, "CUDA_ERROR_ILLEGAL_ADDRESS", Verdict::OutOfBounds),
            (716, "CUDA_ERROR_MISALIGNED_ADDRESS", Verdict::Misaligned),
            (719, "CUDA_ERROR_LAUNCH_FAILED", Verdict::Crashed),
        ] {
            let record = Record {
                failures: vec![contract::Failure {
                    call: "cuCtxSynchronize".into(),
                    error,
                    name: name.into(),
                }],
                ..Record::default()
            };
            let run = Run {
                exit: Exit::Code(1),
                seconds: 0.1,
                output: String::new(),
                record: Some(record),
                outputs: Vec::new(),
                read_in_flight: Vec::new(),
            };
            let (got, said) = run_failure(&run, false).unwrap();
            assert_eq!(got, verdict, "{name}");
            assert!(said.contains(name), "{said}");
        }
    }

    /// A launch of `_Z1kPf` with one diagnostic of `kind` saying `message`.
    fn launch_with(kind: sim::DiagnosticKind, message: &str) -> Launch {
        Launch {
            kernel: "_Z1kPf".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            diagnostics: vec![sim::Diagnostic {
                kind,
                block: [0; 3],
                thread: [1, 0, 0],
                location: None,
                message: message.into(),
                race: None,
                access: None,
            }],
            end_us: 1.0,
            ..Launch::default()
        }
    }

    #[test]
    fn the_drivers_copy_of_a_reported_diagnostic_is_left_out_of_the_output() {
        let record = Record {
            launches: vec![launch_with(
                sim::DiagnosticKind::GlobalRace,
                "race on global memory: x",
            )],
            ..Record::default()
        };
        let run = Run {
            exit: Exit::Code(1),
            seconds: 0.1,
            output: "before\nsimcuda: _Z1kPf: race on global memory: x\nafter\n".into(),
            record: Some(record),
            outputs: Vec::new(),
            read_in_flight: Vec::new(),
        };
        assert_eq!(output_without_diagnostics(&run), "before\nafter\n");
    }
}
