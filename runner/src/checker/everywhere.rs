//! Where a kernel is checked: on the backend given, and, where that is a GPU, again in the
//! simulator, whose findings (races, masks, traffic; the bug behind a wrong output or a fault)
//! join the GPU's report by the verdict module's rules. `runner check` and `runner watch`'s worker both check this way.

use super::{add_simulator_cause, add_simulator_findings, read_kernel, Checker};
use crate::backend::sim::SimBackend;
use crate::course::Exercise;
use crate::trace;
use contract::{Backend, CheckReport, Verdict};
use std::path::Path;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// Checks `path` as `exercise` with `checker`, then, where that ran on a GPU and passed, again in
/// the simulator: a GPU runs kernels but sees neither races nor masks nor the traffic behind a
/// time, so every lesson is judged the same. `runner check` and `runner watch`'s worker both
/// check this way.
///
/// On a GPU the simulator's check starts at once on a thread of its own, with its own compile,
/// beside the GPU's: the report waits for the slower of the two rather than for both. It counts
/// where the GPU's check passed (a bug or a target it finds fails the kernel) and where the GPU
/// saw wrong outputs or a fault (a bug it finds names the cause). After a hang it counts only if
/// already done; otherwise, and after any other verdict, it is left to finish unseen (it holds
/// nothing the GPU's check needs), and the process waits for it only as it ends
/// (`finish_unseen`).
pub fn check_everywhere(
    checker: &mut Checker,
    exercise: &Exercise,
    path: &Path,
) -> anyhow::Result<CheckReport> {
    let text = read_kernel(checker.course, exercise, path)?;
    let in_simulator = (checker.backend.kind() == Backend::Gpu).then(|| {
        let course = checker.course.clone();
        let compiler = checker.compiler.clone();
        let (seed, extra_sizes) = (checker.seed, checker.extra_sizes.clone());
        let (original, retile) = (checker.original.clone(), checker.retile);
        let (exercise, path, text) = (exercise.clone(), path.to_path_buf(), text.clone());
        let thread = std::thread::Builder::new().name("simulator".into());
        thread.spawn(move || {
            let mut simulator = SimBackend::new();
            let seen = Checker {
                course: &course,
                compiler: &compiler,
                backend: &mut simulator,
                seed,
                extra_sizes,
                timing: false,
                save_outputs: None,
                retile,
                premade: None,
                original,
                compile_as: None,
            }
            .check_source(&exercise, &path, &text);
            trace::mark("checked again in the simulator");
            seen
        })
    });
    // No thread to be had (a grader's limits): the GPU's verdict stands alone.
    let in_simulator = in_simulator.and_then(Result::ok);
    if in_simulator.is_some() && runs_simulator_ptx(checker.backend.target()) {
        // One compile for both: the GPU loads the simulator's PTX (the driver makes the
        // machine code), so the kernel timed is the kernel the simulator checked, and a class
        // graded on a GPU pays NVRTC once a check rather than twice.
        checker.compile_as = Some(crate::backend::sim::SIM_TARGET);
    }
    let mut report = checker.check_source(exercise, path, &text)?;
    trace::mark("check done");
    if let Some(in_simulator) = in_simulator {
        match report.verdict {
            Verdict::Passed | Verdict::TargetsMissed => {
                add_simulator_findings(&mut report, joined(in_simulator)?);
                trace::mark("the simulator's re-check joined");
            }
            // A wrong output or a fault on the GPU: the simulator may name the bug behind it.
            // A hang only where the simulator is already done: it is not waited for.
            Verdict::WrongOutput | Verdict::Crashed => add_cause(&mut report, in_simulator),
            Verdict::Hang if in_simulator.is_finished() => add_cause(&mut report, in_simulator),
            _ => leave_unseen(in_simulator),
        }
    }
    Ok(report)
}

/// Waits for the simulator's check and lets it name the bug behind the GPU's failure; a
/// simulator that could not check leaves the GPU's verdict as it is.
fn add_cause(report: &mut CheckReport, in_simulator: JoinHandle<anyhow::Result<CheckReport>>) {
    if let Ok(seen) = joined(in_simulator) {
        add_simulator_cause(report, seen);
        trace::mark("the simulator named the cause");
    }
}

/// The simulator's check, once done; its panic, if it panicked, goes on in this thread.
fn joined(in_simulator: JoinHandle<anyhow::Result<CheckReport>>) -> anyhow::Result<CheckReport> {
    in_simulator
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Simulator checks whose report nobody waits for, still running.
static UNSEEN: Mutex<Vec<JoinHandle<anyhow::Result<CheckReport>>>> = Mutex::new(Vec::new());

fn leave_unseen(thread: JoinHandle<anyhow::Result<CheckReport>>) {
    let mut unseen = UNSEEN.lock().unwrap_or_else(|p| p.into_inner());
    // Those already done are let go here, so a long-lived worker keeps no pile of them.
    unseen.retain(|t| !t.is_finished());
    unseen.push(thread);
}

/// Waits for the simulator checks left unseen, at the process's end. A thread still running
/// while the process exits races the exit's teardown (the CUDA driver's and NVRTC's handlers
/// run while it compiles and simulates): on an H200 one `runner check --backend gpu` of a
/// failing kernel in three ended in a segmentation fault after its report was printed.
pub fn finish_unseen() {
    let unseen = std::mem::take(&mut *UNSEEN.lock().unwrap_or_else(|p| p.into_inner()));
    for thread in unseen {
        // Its report is not wanted, nor its panic: the check's own report is out.
        let _ = thread.join();
    }
}

/// Whether a GPU that asks for `target` can run the simulator's PTX: the driver compiles PTX
/// for its own architecture or a newer one, never an older (a T4, sm_75, cannot load PTX for
/// compute_80); such a GPU gets its own compile.
fn runs_simulator_ptx(target: crate::compile::Target) -> bool {
    use crate::compile::Target;
    let (Target::Cubin { arch } | Target::Ptx { arch }) = target;
    arch >= crate::backend::sim::SIM_ARCHITECTURE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::Target;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn only_a_gpu_as_new_as_the_simulators_ptx_shares_its_compile() {
        assert!(runs_simulator_ptx(Target::Cubin { arch: 90 }), "an H100");
        assert!(runs_simulator_ptx(Target::Cubin { arch: 80 }), "an A100");
        assert!(!runs_simulator_ptx(Target::Cubin { arch: 75 }), "a T4");
        assert!(
            !runs_simulator_ptx(Target::Ptx { arch: 70 }),
            "a V100 through PTX"
        );
    }

    #[test]
    fn checks_left_unseen_are_waited_for_at_the_end() {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let thread = std::thread::Builder::new()
            .name("unseen".into())
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                flag.store(true, Ordering::SeqCst);
                Err(anyhow::anyhow!("not wanted"))
            })
            .unwrap();
        leave_unseen(thread);
        finish_unseen();
        assert!(
            done.load(Ordering::SeqCst),
            "finish_unseen returned before the thread ended"
        );
        assert!(UNSEEN.lock().unwrap().is_empty());
    }
}
