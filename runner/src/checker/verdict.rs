//! Every rule that decides a verdict, for kernels and whole programs alike, on the GPU and in the
//! simulator alike: which verdict a diagnostic, a backend error, a GPU's fault code or the way a
//! program stopped gives, which of two verdicts wins, the findings of the simulator's diagnostics,
//! and the advice that ends a failed check, and (in [`conclusion`]) how the stages of a check come
//! to its one verdict. Other modules gather the facts and call these; none decides a verdict of
//! its own.

use super::defined_kernels;
use crate::backend::BackendError;
use crate::course::Exercise;
use checks::Case;
use contract::{CheckReport, Finding, Place, Verdict};
use sim::{BadAccess, Diagnostic, DiagnosticKind, GlobalMiss, NearAllocation, RacePlace};

mod conclusion;
pub use conclusion::{conclude, Stages};

/// The verdict a diagnostic gives a check: every kind is a bug in the kernel.
pub fn of_diagnostic(d: &Diagnostic) -> Verdict {
    of_kind(d.kind)
}

/// The verdict a kind of bug gives, wherever it was seen: in the simulator's diagnostic, or as
/// the GPU's fault that equals it.
pub fn of_kind(kind: DiagnosticKind) -> Verdict {
    match kind {
        DiagnosticKind::OutOfBounds => Verdict::OutOfBounds,
        DiagnosticKind::Misaligned => Verdict::Misaligned,
        DiagnosticKind::SharedRace | DiagnosticKind::GlobalRace => Verdict::Race,
        DiagnosticKind::DivergentBarrier => Verdict::BarrierDivergence,
        DiagnosticKind::Deadlock | DiagnosticKind::Timeout => Verdict::Hang,
        DiagnosticKind::InconsistentMask | DiagnosticKind::WarpSyncDeadlock => Verdict::BadMask,
        DiagnosticKind::Trap | DiagnosticKind::Assert => Verdict::Crashed,
        // It explains a wrong output; the output decides.
        DiagnosticKind::UnwrittenShared => Verdict::WrongOutput,
    }
}

/// The verdict a GPU's error for a kernel's fault gives, the same as the simulator's for the same
/// bug: an illegal address is an access out of bounds, a misaligned address a misaligned access.
/// None for the errors that name no bug of their own (a trap, a failed launch).
pub fn of_fault(code: u32) -> Option<Verdict> {
    use cudarc::driver::sys::CUresult::*;
    [
        (CUDA_ERROR_ILLEGAL_ADDRESS, Verdict::OutOfBounds),
        (CUDA_ERROR_MISALIGNED_ADDRESS, Verdict::Misaligned),
        (CUDA_ERROR_LAUNCH_TIMEOUT, Verdict::Hang),
    ]
    .into_iter()
    .find(|(error, _)| *error as u32 == code)
    .map(|(_, verdict)| verdict)
}

/// How a whole program's run stopped before its outputs could count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramStop {
    /// It called a driver function the simulator's driver does not implement.
    Unsupported,
    /// A kernel was stopped, with the verdict its diagnostic gives ([`of_diagnostic`]).
    Kernel(Verdict),
    /// A kernel was stopped, and no diagnostic says why.
    KernelStopped,
    /// It ran past its time or CPU-time limit.
    OutOfTime,
    /// It ended on its own terms: a signal, running out of memory, a non-zero exit with no
    /// failed driver call.
    Ended,
    /// It exited after driver calls failed: their CUDA error codes, in order.
    DriverError(Vec<u32>),
}

/// The verdict a program's stop gives. A kernel's fault that reached the program only as an
/// error code (on a GPU, in pass-through) gives the verdict the simulator gives the same bug
/// (an illegal address is `out_of_bounds`), so a program is judged alike on both.
pub fn of_program_stop(stop: &ProgramStop) -> Verdict {
    match stop {
        ProgramStop::Kernel(verdict) => *verdict,
        ProgramStop::OutOfTime => Verdict::Hang,
        ProgramStop::DriverError(codes) => codes
            .iter()
            .find_map(|code| of_fault(*code))
            .unwrap_or(Verdict::Crashed),
        ProgramStop::Unsupported | ProgramStop::KernelStopped | ProgramStop::Ended => {
            Verdict::Crashed
        }
    }
}

/// A bug the kernel has whatever its outputs say; among several, the first in this order is
/// the verdict (a barrier half a block skips causes the races that follow it).
fn bug_rank(verdict: Verdict) -> Option<u8> {
    Some(match verdict {
        Verdict::OutOfBounds => 0,
        Verdict::Misaligned => 1,
        Verdict::Crashed | Verdict::InvalidLaunch => 2,
        Verdict::Hang => 3,
        Verdict::BarrierDivergence => 4,
        Verdict::BadMask => 5,
        Verdict::Race => 6,
        _ => return None,
    })
}

/// Whether the verdict is a bug in the kernel (not a wrong output, a missed target, a pass).
pub fn is_bug(verdict: Verdict) -> bool {
    bug_rank(verdict).is_some()
}

/// Orders findings: the one that decides the verdict first.
pub fn severity(verdict: Verdict) -> u8 {
    bug_rank(verdict).unwrap_or(u8::MAX)
}

/// The more telling of two failure verdicts: a bug over a wrong output.
pub fn worse(this: Verdict, other: Verdict) -> Verdict {
    match (bug_rank(this), bug_rank(other)) {
        (Some(a), Some(b)) if b < a => other,
        (Some(_), _) => this,
        (None, Some(_)) => other,
        (None, None) if this == Verdict::Passed => other,
        (None, None) => this,
    }
}

/// A backend error as the case's verdict and the line a student reads under the failing case,
/// with the bug as a finding of `case` where the simulator stopped the kernel at one.
pub(super) fn describe_backend_error(
    case: &Case,
    err: &BackendError,
) -> (Verdict, String, Option<Finding>) {
    let (verdict, text) = match err {
        BackendError::Diagnosed(d) => {
            let found = finding(case, d);
            let text = match found.verdict {
                Verdict::OutOfBounds => format!("Out of bounds: {}", found.text),
                _ => found.text.clone(),
            };
            return (found.verdict, text, Some(found));
        }
        BackendError::OutOfBounds(detail) => {
            (Verdict::OutOfBounds, format!("Out of bounds: {detail}"))
        }
        BackendError::Timeout { .. } => (Verdict::Hang, format!("Hang: {err}")),
        BackendError::Stopped { kind, text } => (of_kind(*kind), text.clone()),
        BackendError::InvalidLaunch(text) => {
            (Verdict::InvalidLaunch, format!("Launch refused: {text}"))
        }
        BackendError::Fault(detail) => (Verdict::Crashed, format!("The kernel failed: {detail}")),
        other => (Verdict::Crashed, other.to_string()),
    };
    (verdict, text, None)
}

/// The argument (0-based) and element a race on global memory touched through a kernel
/// parameter, as the simulator found them.
fn raced_argument(d: &Diagnostic) -> Option<(u32, Option<u64>)> {
    match &d.race.as_deref()?.place {
        RacePlace::Global {
            argument: Some(argument),
            element,
            ..
        } => Some((*argument, *element)),
        _ => None,
    }
}

/// The bugs among a launch's diagnostics, as findings of `case`, with its arrays called by
/// their parameter names.
pub(super) fn findings(case: &Case, diagnostics: &[Diagnostic]) -> Vec<Finding> {
    diagnostics.iter().map(|d| finding(case, d)).collect()
}

/// The buffer of `case` that the kernel's parameter `argument` (0-based) is.
fn buffer_of(case: &Case, argument: Option<u32>) -> Option<&checks::Buffer> {
    match case.args.get(argument? as usize)? {
        checks::Arg::Buffer(buffer) => Some(buffer),
        checks::Arg::Scalar { .. } => None,
    }
}

/// One diagnostic as a finding of `case`: its facts as fields, and the sentence, which calls the
/// array by the buffer's name where the memory is a kernel argument's.
fn finding(case: &Case, d: &Diagnostic) -> Finding {
    let (buffer, element, text) = match d.access.as_deref() {
        Some(access) => bad_access(case, d, access),
        None => race(case, d),
    };
    Finding {
        verdict: of_diagnostic(d),
        case: case.name.clone(),
        kind: d.kind,
        place: d.location.as_ref().map(|l| Place {
            file: l.file.clone(),
            line: l.line,
        }),
        buffer,
        element,
        thread: d.thread,
        block: d.block,
        text,
    }
}

/// A diagnostic's buffer, element and sentence, where a race's place is a kernel argument.
fn race(case: &Case, d: &Diagnostic) -> (Option<String>, Option<u64>, String) {
    let raced = raced_argument(d);
    let buffer = raced
        .and_then(|(argument, _)| buffer_of(case, Some(argument)))
        .map(|b| b.name.clone());
    let element = raced.and_then(|(_, element)| element);
    let words = buffer
        .as_ref()
        .map(|name| named_element(element, &format!("`{name}`")));
    (buffer, element, sentence(d, words.as_deref()))
}

/// A bad access's buffer (the one a kernel parameter points at, whose allocation the access
/// was nearest), its element, and its sentence in the buffer's name, ending in the guard that
/// prevents an access past the end.
fn bad_access(
    case: &Case,
    d: &Diagnostic,
    access: &BadAccess,
) -> (Option<String>, Option<u64>, String) {
    let miss = access.global_miss();
    let buffer = miss
        .and_then(GlobalMiss::allocation)
        .and_then(|a| buffer_of(case, a.argument))
        .map(|b| b.name.clone());
    let element = buffer.as_ref().and_then(|_| miss?.element());
    let named = |a: &NearAllocation| match buffer_of(case, a.argument) {
        Some(b) => format!("`{}` ({} bytes)", b.name, a.size),
        None => a.simulator_words(),
    };
    let mut text = crate::backend::sim::describe(&Diagnostic {
        message: access.describe(&named),
        ..d.clone()
    });
    if let (Some(name), Some(_)) = (&buffer, miss.filter(|m| m.is_past_the_end())) {
        text.push_str(&format!(
            ". No thread may reach past the end of `{name}`: guard the access with the array's \
             length, as in `if (i < n)` or, in 2D, `if (row < rows && col < cols)` (the grid \
             is rounded up to whole blocks), or keep the index inside the array at its edges"
        ));
        if off_by_one_guard(case, d, access, element) {
            text.push_str(
                "; this access is exactly one element past the end: a `<=` where `<` belongs?",
            );
        }
    }
    (buffer, element, text)
}

/// Whether an access past the end has the shape a `<=` guard gives: one lane, exactly one element
/// past the end, on a one-dimensional launch whose thread has the element's index as its own
/// (`i = blockIdx.x * blockDim.x + threadIdx.x` with `i == n`). A wrong stride or offset can also
/// land one element past the end; then the guess would mislead, so it is not made.
fn off_by_one_guard(case: &Case, d: &Diagnostic, access: &BadAccess, element: Option<u64>) -> bool {
    let just_past = matches!(
        access.global_miss(),
        Some(GlobalMiss::PastEnd { after: 0, .. })
    );
    let launch = &case.launch;
    let one_dimensional = launch.block[1..] == [1, 1] && launch.grid[1..] == [1, 1];
    let index = d.block[0] as u64 * launch.block[0] as u64 + d.thread[0] as u64;
    just_past && access.lanes.count_ones() == 1 && one_dimensional && element == Some(index)
}

/// "element 3 of `x`", or the array alone where the simulator gave no element.
pub fn named_element(element: Option<u64>, array: &str) -> String {
    match element {
        Some(e) => format!("element {e} of {array}"),
        None => array.to_string(),
    }
}

/// The diagnostic in a line (where, which thread, what), with the memory its message names
/// called `words` where given: spliced in where the simulator says its message names the place.
pub fn sentence(d: &Diagnostic, words: Option<&str>) -> String {
    let span = d.race.as_deref().and_then(|r| r.place_words);
    let message = match (span, words) {
        (Some([start, end]), Some(words)) if d.message.get(start..end).is_some() => {
            format!("{}{words}{}", &d.message[..start], &d.message[end..])
        }
        _ => return crate::backend::sim::describe(d),
    };
    crate::backend::sim::describe(&Diagnostic {
        message,
        ..d.clone()
    })
}

/// What to do when an entry point is missing: C++ mangles the names of functions declared
/// without `extern "C"`, so the kernel is there under another name.
pub(super) fn missing_kernel_advice(missing: &str, file: &str, text: &str) -> String {
    let defined = defined_kernels(text);
    if defined.iter().any(|d| d == missing) {
        return format!(
            "The exercise launches a kernel called `{missing}`. {file} defines `{missing}`, but without              `extern \"C\"` in front of `__global__` C++ renames it (to something like `_Z{}{missing}Pf...`,              its parameter types encoded), and the launch cannot find it. Put `extern \"C\"` back.",
            missing.len()
        );
    }
    format!(
        "The exercise launches a kernel called `{missing}`, and {file} defines {}. Kernels are found by name: \
         keep the name and the `extern \"C\"` in front of `__global__`.",
        if defined.is_empty() { "no kernel".to_string() } else { format!("only `{}`", defined.join("`, `")) }
    )
}

/// The last line of a failed check: what the verdict means and what to do next.
pub(super) fn failure_summary(report: &CheckReport, exercise: &Exercise) -> String {
    let hint = format!("`runner hint {}` gives a hint.", exercise.id);
    let first = report.diagnostics.first();
    match report.verdict {
        Verdict::NotDone => format!(
            "This is still the exercise as it was given: do the TODOs in {}. `runner hint {}` helps.",
            report.file, exercise.id
        ),
        Verdict::WrongOutput => format!("Fix the first failing case above. {hint}"),
        Verdict::Race | Verdict::BarrierDivergence | Verdict::BadMask => {
            let finding = first.map_or(String::new(), |d| format!("In case `{}`: {}.", d.case, d.text));
            let outputs_wrong = report.cases.iter().any(|c| c.mismatch.is_some());
            if outputs_wrong {
                format!("The outputs are wrong, and the simulator found why. {finding} {hint}")
            } else {
                format!(
                    "{finding} This is a bug even though the outputs came out right: on a GPU it gives \
                     wrong answers some of the time. {hint}"
                )
            }
        }
        _ => format!("See the first failing case above. {hint}"),
    }
}

/// Folds the simulator's check of a kernel that passed on a GPU into the GPU's report: a bug it
/// finds decides the verdict, and its targets on traffic (sectors, wavefronts, bank conflicts)
/// join the GPU's on time. The GPU's own time stays the judge of time.
pub fn add_simulator_findings(gpu: &mut CheckReport, sim: CheckReport) {
    gpu.sim = sim.sim;
    gpu.reference_sim = sim.reference_sim;
    gpu.add_printf(&sim.printf);
    if !matches!(sim.verdict, Verdict::Passed | Verdict::TargetsMissed) {
        gpu.verdict = sim.verdict;
        gpu.diagnostics = sim.diagnostics;
        gpu.summary = format!(
            "Every case came out right on the GPU, but the simulator, running the same cases, says: {} {}",
            sim.verdict.headline(),
            sim.summary
        );
        return;
    }
    let traffic = sim
        .targets
        .into_iter()
        .filter(|t| t.name != "max_time_vs_reference");
    gpu.targets.extend(traffic);
    let missed = gpu.targets.iter().find(|t| t.missed());
    if let (Verdict::Passed, Some(missed)) = (gpu.verdict, missed) {
        gpu.verdict = Verdict::TargetsMissed;
        gpu.summary = format!(
            "Every case is right, but {}. That is the lesson of this exercise.",
            missed.explanation
        );
    }
}

/// Folds the simulator's check of a kernel that failed on a GPU (wrong outputs, a fault, a hang)
/// into the GPU's report where the simulator names the bug behind the failure: a GPU shows only
/// what came out, the simulator watches every access and barrier. So the same bug gets the same
/// verdict, with its line, on either backend. The GPU's cases (what it computed) stay.
pub fn add_simulator_cause(gpu: &mut CheckReport, sim: CheckReport) {
    let names_the_cause = matches!(
        sim.verdict,
        Verdict::OutOfBounds
            | Verdict::Misaligned
            | Verdict::BarrierDivergence
            | Verdict::BadMask
            | Verdict::Race
    );
    if !names_the_cause || gpu.verdict == sim.verdict {
        return;
    }
    gpu.summary = format!("On the GPU: {} {}", gpu.verdict.headline(), sim.summary);
    gpu.verdict = sim.verdict;
    let gpu_findings = std::mem::replace(&mut gpu.diagnostics, sim.diagnostics);
    gpu.diagnostics.extend(gpu_findings);
    gpu.sim = sim.sim;
    gpu.reference_sim = sim.reference_sim;
    gpu.add_printf(&sim.printf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_out_of_time_hangs_and_a_driver_error_takes_the_first_fault_it_names() {
        assert_eq!(of_program_stop(&ProgramStop::OutOfTime), Verdict::Hang);
        assert_eq!(of_program_stop(&ProgramStop::Ended), Verdict::Crashed);
        // 1 (invalid value) names no fault; 716 (misaligned address) does.
        let errors = ProgramStop::DriverError(vec![1, 716, 700]);
        assert_eq!(of_program_stop(&errors), Verdict::Misaligned);
        assert_eq!(
            of_program_stop(&ProgramStop::DriverError(vec![1])),
            Verdict::Crashed
        );
    }
    use contract::Target;

    fn report(verdict: Verdict) -> CheckReport {
        CheckReport {
            schema_version: contract::SCHEMA_VERSION,
            exercise: "19".into(),
            title: "t".into(),
            file: "f".into(),
            backend: contract::Backend::Gpu,
            device: "d".into(),
            verdict,
            summary: "s".into(),
            compile: None,
            cases: Vec::new(),
            gpu: None,
            sim: None,
            reference_sim: None,
            targets: Vec::new(),
            diagnostics: Vec::new(),
            printf: String::new(),
            progress: None,
        }
    }

    fn target(name: &str, met: bool) -> Target {
        let actual = if met { 1.0 } else { 3.3 };
        Target {
            name: name.into(),
            wanted: "at most 1.25".into(),
            got: actual.to_string(),
            limit: 1.25,
            actual: Some(actual),
            met,
            decides: true,
            explanation: format!("{name} explained"),
        }
    }

    /// A race on element 3 of the kernel's argument `argument` (0-based), at `race.cu:12`.
    fn global_race(argument: u32) -> Diagnostic {
        let place = RacePlace::Global {
            argument: Some(argument),
            variable: None,
            element: Some(3),
            address: 0x1000,
        };
        let location = Some(sim::SourceLocation {
            file: "race.cu".into(),
            line: 12,
        });
        let access = |thread: [u32; 3], access| sim::RaceAccess {
            block: [2, 0, 0],
            thread,
            location: location.clone(),
            access,
        };
        let what = format!("element 3 of the array passed as argument {}", argument + 1);
        let message = format!("race on global memory: thread (1,0,0) writes {what} at line 12");
        Diagnostic {
            kind: DiagnosticKind::GlobalRace,
            block: [2, 0, 0],
            thread: [1, 0, 0],
            location: location.clone(),
            race: Some(Box::new(sim::Race {
                accesses: [
                    access([1, 0, 0], sim::AccessKind::Write),
                    access([0, 0, 0], sim::AccessKind::Read),
                ],
                place,
                place_words: sim::Race::words_in(&message, &what),
            })),
            message,
            access: None,
        }
    }

    /// Exercise 02's first case.
    fn first_case() -> Case {
        checks::cases_for("02", &checks::CaseOptions::default())
            .unwrap()
            .remove(0)
    }

    /// A 4-byte load by `lanes` of warp 0, `after` bytes past the end of the 4-byte allocation
    /// that kernel parameter `argument` points at, at `oob.cu:5`.
    fn past_the_end(argument: Option<u32>, after: u64, lanes: u32) -> Diagnostic {
        let base = 0x7000_0000_0000;
        let access = BadAccess {
            space: sim::MemorySpace::Global,
            op: sim::AccessOp::Load,
            bytes: 4,
            address: base + 4 + after,
            lanes,
            warp: 0,
            fault: sim::AccessFault::Global {
                miss: GlobalMiss::PastEnd {
                    allocation: NearAllocation {
                        base,
                        size: 4,
                        argument,
                        variable: None,
                    },
                    after,
                    element: (4 + after) / 4,
                },
            },
        };
        Diagnostic {
            kind: DiagnosticKind::OutOfBounds,
            block: [0, 0, 0],
            thread: [lanes.trailing_zeros(), 0, 0],
            location: Some(sim::SourceLocation {
                file: "oob.cu".into(),
                line: 5,
            }),
            message: access.message(),
            race: None,
            access: Some(Box::new(access)),
        }
    }

    #[test]
    fn an_access_past_a_buffer_is_a_finding_with_its_name_element_and_line_and_the_guard_to_add() {
        let case = first_case();
        let stopped = BackendError::Diagnosed(Box::new(past_the_end(Some(0), 0, 1 << 1)));
        let (verdict, text, found) = describe_backend_error(&case, &stopped);
        let found = found.expect("the simulator's bug is a finding");
        assert_eq!(verdict, Verdict::OutOfBounds);
        assert_eq!(
            (found.buffer.as_deref(), found.element, found.thread),
            (Some("a"), Some(1), [1, 0, 0])
        );
        let place = found.place.expect("the line");
        assert_eq!((place.file.as_str(), place.line), ("oob.cu", 5));
        assert_eq!(text, format!("Out of bounds: {}", found.text));
        assert_eq!(
            text,
            "Out of bounds: oob.cu:5: out-of-bounds 4-byte load of global memory at address \
             0x700000000004 by lane 1 of warp 0: just past the end of `a` (4 bytes) (element 1 of \
             an array that holds 1 element of 4 bytes) (block (0, 0, 0), thread (1, 0, 0)). No \
             thread may reach past the end of `a`: guard the access with the array's length, as \
             in `if (i < n)` or, in 2D, `if (row < rows && col < cols)` (the grid is rounded up \
             to whole blocks), or keep the index inside the array at its edges; this access is \
             exactly one element past the end: a `<=` where `<` belongs?"
        );
    }

    #[test]
    fn one_element_past_the_end_is_called_a_guard_off_by_one_only_where_the_thread_is_that_element()
    {
        let guess = "a `<=` where `<` belongs";
        let text = |case: &Case, lanes: u32| {
            let stopped = BackendError::Diagnosed(Box::new(past_the_end(Some(0), 0, lanes)));
            describe_backend_error(case, &stopped).1
        };
        // Thread 1 of a 1D launch reads element 1 of a 1-element array: `i <= n`.
        assert!(text(&first_case(), 1 << 1).contains(guess));
        // The same access in a 2D launch: a stride or offset may land there as well.
        let mut two_d = first_case();
        two_d.launch.block = [1, 2, 1];
        assert!(!text(&two_d, 1 << 1).contains(guess));
        // Thread 0 (lane 0) one element past the end is not `i == n`.
        assert!(!text(&first_case(), 1).contains(guess));
    }

    #[test]
    fn only_one_lane_just_past_the_end_is_called_off_by_one_and_an_unknown_allocation_keeps_its_address(
    ) {
        let case = first_case();
        let describe = |d| describe_backend_error(&case, &BackendError::Diagnosed(Box::new(d)));
        let (_, lanes, _) = describe(past_the_end(Some(0), 0, 0b110));
        assert!(lanes.contains("past the end of `a`"), "{lanes}");
        assert!(!lanes.contains("`<=`"), "{lanes}");
        let (_, further, _) = describe(past_the_end(Some(0), 8, 1));
        assert!(further.contains("8 bytes past the end of `a`"), "{further}");
        assert!(!further.contains("`<=`"), "{further}");
        let (verdict, unknown, found) = describe(past_the_end(None, 0, 1));
        let found = found.unwrap();
        assert_eq!(
            (verdict, found.buffer, found.element),
            (Verdict::OutOfBounds, None, None)
        );
        assert!(
            unknown.contains("just past the end of the 4-byte allocation at 0x700000000000"),
            "{unknown}"
        );
        assert!(!unknown.contains("No thread may reach"), "{unknown}");
    }

    #[test]
    fn a_kernel_stopped_at_a_bug_gets_the_verdict_of_its_kind_on_either_backend() {
        let case = first_case();
        let stopped = |kind| BackendError::Stopped {
            kind,
            text: "stopped".into(),
        };
        let describe = |kind| {
            let (verdict, text, found) = describe_backend_error(&case, &stopped(kind));
            assert_eq!(found, None, "a GPU's fault names no facts");
            (verdict, text)
        };
        // The GPU's misaligned-address fault is reported as the simulator's diagnostic kind.
        let misaligned = describe(DiagnosticKind::Misaligned).0;
        let fault = cudarc::driver::sys::CUresult::CUDA_ERROR_MISALIGNED_ADDRESS as u32;
        assert_eq!(Some(misaligned), of_fault(fault));
        assert_eq!(misaligned, Verdict::Misaligned);
        let cases = [
            (DiagnosticKind::Deadlock, Verdict::Hang),
            (DiagnosticKind::WarpSyncDeadlock, Verdict::BadMask),
            (DiagnosticKind::Trap, Verdict::Crashed),
            (DiagnosticKind::SharedRace, Verdict::Race),
        ];
        for (kind, verdict) in cases {
            assert_eq!(describe(kind), (verdict, "stopped".into()));
        }
    }

    #[test]
    fn a_races_finding_names_its_buffer_element_thread_and_line_as_fields() {
        let case = checks::cases_for("02", &checks::CaseOptions::default())
            .unwrap()
            .remove(0);
        let (argument, name) = case
            .args
            .iter()
            .enumerate()
            .find_map(|(k, arg)| match arg {
                checks::Arg::Buffer(b) => Some((k as u32, b.name.clone())),
                _ => None,
            })
            .unwrap();
        let found = finding(&case, &global_race(argument));
        assert_eq!(found.verdict, Verdict::Race);
        assert_eq!(found.kind, DiagnosticKind::GlobalRace);
        assert_eq!(found.buffer.as_deref(), Some(name.as_str()));
        assert_eq!(found.element, Some(3));
        assert_eq!((found.thread, found.block), ([1, 0, 0], [2, 0, 0]));
        let place = found.place.as_ref().unwrap();
        assert_eq!((place.file.as_str(), place.line), ("race.cu", 12));
        assert_eq!(
            found.text,
            format!(
                "race.cu:12: race on global memory: thread (1,0,0) writes element 3 of `{name}` \
                 at line 12 (block (2, 0, 0), thread (1, 0, 0))"
            )
        );
        // A scalar argument names no buffer.
        let scalar = case
            .args
            .iter()
            .position(|a| matches!(a, checks::Arg::Scalar { .. }))
            .unwrap();
        assert_eq!(finding(&case, &global_race(scalar as u32)).buffer, None);
    }

    #[test]
    fn a_bug_outranks_a_wrong_output_and_the_earliest_bug_outranks_the_rest() {
        assert_eq!(
            worse(Verdict::Passed, Verdict::WrongOutput),
            Verdict::WrongOutput
        );
        assert_eq!(worse(Verdict::WrongOutput, Verdict::Race), Verdict::Race);
        assert_eq!(
            worse(Verdict::Race, Verdict::OutOfBounds),
            Verdict::OutOfBounds
        );
        assert_eq!(
            worse(Verdict::BarrierDivergence, Verdict::Race),
            Verdict::BarrierDivergence
        );
        assert!(is_bug(Verdict::Hang) && !is_bug(Verdict::TargetsMissed));
        assert_eq!(severity(Verdict::WrongOutput), u8::MAX);
    }

    #[test]
    fn a_bug_the_simulator_finds_fails_a_kernel_the_gpu_passed() {
        let mut gpu = report(Verdict::Passed);
        let mut sim = report(Verdict::Race);
        sim.diagnostics.push(Finding {
            verdict: Verdict::Race,
            case: "n = 1".into(),
            kind: DiagnosticKind::SharedRace,
            place: None,
            buffer: None,
            element: None,
            thread: [0; 3],
            block: [0; 3],
            text: "race on shared memory".into(),
        });
        add_simulator_findings(&mut gpu, sim);
        assert_eq!(gpu.verdict, Verdict::Race);
        assert_eq!(gpu.diagnostics.len(), 1);
        assert!(gpu.summary.contains("right on the GPU"), "{}", gpu.summary);
    }

    #[test]
    fn the_simulators_bug_names_why_a_kernel_failed_on_the_gpu() {
        let sim = || {
            let mut sim = report(Verdict::Race);
            sim.summary = "The outputs are wrong, and the simulator found why.".into();
            sim.diagnostics.push(Finding {
                verdict: Verdict::Race,
                case: "n = 1".into(),
                kind: DiagnosticKind::SharedRace,
                place: None,
                buffer: None,
                element: None,
                thread: [0; 3],
                block: [0; 3],
                text: "race on shared memory".into(),
            });
            sim
        };
        for on_gpu in [Verdict::WrongOutput, Verdict::Crashed, Verdict::Hang] {
            let mut gpu = report(on_gpu);
            add_simulator_cause(&mut gpu, sim());
            assert_eq!(gpu.verdict, Verdict::Race, "after {on_gpu:?}");
            assert_eq!(gpu.diagnostics.len(), 1);
            assert!(
                gpu.summary
                    .starts_with(&format!("On the GPU: {}", on_gpu.headline()))
                    && gpu.summary.contains("simulator found why"),
                "{}",
                gpu.summary
            );
        }
        // A simulator that sees only wrong outputs, or nothing, leaves the GPU's verdict.
        for seen in [Verdict::WrongOutput, Verdict::Passed, Verdict::Hang] {
            let mut gpu = report(Verdict::WrongOutput);
            add_simulator_cause(&mut gpu, report(seen));
            assert_eq!(
                gpu.verdict,
                Verdict::WrongOutput,
                "the simulator said {seen:?}"
            );
            assert_eq!(gpu.summary, "s");
        }
    }

    #[test]
    fn traffic_targets_join_the_gpus_and_the_gpus_time_stays_the_judge_of_time() {
        let mut gpu = report(Verdict::Passed);
        gpu.targets.push(target("max_time_vs_reference", true));
        let mut sim = report(Verdict::TargetsMissed);
        sim.targets
            .push(target("max_shared_wavefronts_vs_reference", false));
        sim.targets.push(target("max_time_vs_reference", false));
        add_simulator_findings(&mut gpu, sim);
        assert_eq!(gpu.verdict, Verdict::TargetsMissed);
        let names: Vec<&str> = gpu.targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "max_time_vs_reference",
                "max_shared_wavefronts_vs_reference"
            ]
        );
        assert!(gpu
            .summary
            .contains("max_shared_wavefronts_vs_reference explained"));

        let mut clean = report(Verdict::Passed);
        add_simulator_findings(&mut clean, report(Verdict::Passed));
        assert_eq!(clean.verdict, Verdict::Passed);
    }
}
