//! Where each of the first wrong elements came from: once a case's output is found wrong, the
//! simulator runs the student's kernel and the reference solution again on the same case,
//! watching those elements, and each wrong element gets the store that wrote it (thread, line,
//! value, the instruction and operands behind it) beside the reference's, and the first store
//! where the two runs part. Then the threads that wrote those elements run again in both, step
//! by step, and the first load, store or branch where the two runs of a thread part is named
//! (differential execution). Works for any kernel: nothing here knows a mistake.

mod likely;
pub mod text;

use super::Checker;
use crate::backend::ModuleId;
use crate::course::Exercise;
use crate::execute::Prepared;
use checks::{Case, Mismatch};
use contract::{Finding, Verdict};
use sim::{Watched, WatchedThread};
use std::borrow::Cow;
use std::time::Duration;

/// Wrong elements traced per case: the text shows these three, `--json` all that was traced.
pub const TRACED: usize = 3;

impl Checker<'_> {
    /// Gives the first wrong elements of `mismatch` their origin, where the backend can watch
    /// stores (the simulator). `case` is the failing case and its place among the exercise's.
    pub(super) fn trace_origins(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
        (index, case): (usize, &Case),
        mismatch: &mut Mismatch,
    ) -> Vec<Finding> {
        // Only the simulator watches stores; a GPU's check is spared copying the case again.
        if self.backend.kind() != contract::Backend::Sim {
            return Vec::new();
        }
        let indices: Vec<usize> = mismatch
            .first_wrong
            .iter()
            .take(TRACED)
            .map(|w| w.index)
            .collect();
        let limit = Duration::from_millis(exercise.time_limit_ms);
        let buffer = mismatch.buffer.clone();
        let watch = |threads: &[WatchedThread]| Watching {
            buffer: buffer.clone(),
            indices: indices.clone(),
            threads: threads.to_vec(),
        };
        let Some(student) = self.watch_case(module, case, &watch(&[]), limit) else {
            return Vec::new();
        };
        let found = unwritten_findings(case, &student);
        // A retiled case is launched as the student's file asks, which the solution does not.
        let reference = match self.retile {
            true => None,
            false => self.reference_case(exercise, (index, case)),
        };
        let reference_run = reference
            .as_ref()
            .and_then(|(module, case)| self.watch_case(*module, case, &watch(&[]), limit));
        let close = sim::Closeness {
            abs: exercise.tolerance.abs,
            rel: exercise.tolerance.rel,
        };
        let elements = student.elements.iter().enumerate();
        for (k, (wrong, stores)) in mismatch
            .first_wrong
            .iter_mut()
            .zip(elements.map(|e| e.1))
            .enumerate()
        {
            let theirs = reference_run.as_ref().and_then(|r| r.elements.get(k));
            wrong.origin = Some(sim::origin_of(stores, theirs, close));
        }
        crate::trace::mark("wrong elements traced to their stores");
        // Following threads step by step compares like with like only where both runs launch
        // the same grid: the solution's own declared launch may differ from the student's.
        let same_launch = exercise.declared.is_empty();
        let (Some((ref_module, ref_case)), Some(theirs), true) =
            (reference, reference_run, same_launch)
        else {
            return Vec::new();
        };
        let threads = writers(&student, &theirs);
        if threads.is_empty() {
            return found;
        }
        let mine = self.watch_case(module, case, &watch(&threads), limit);
        let theirs = self.watch_case(ref_module, &ref_case, &watch(&threads), limit);
        let (Some(mine), Some(theirs)) = (mine, theirs) else {
            return found;
        };
        for wrong in mismatch.first_wrong.iter_mut().take(TRACED) {
            let Some(origin) = wrong.origin.as_mut() else {
                continue;
            };
            let Some(thread) = writer_of(origin) else {
                continue;
            };
            let at = threads.iter().position(|&t| t == thread);
            let pair = at.and_then(|i| Some((mine.threads.get(i)?, theirs.threads.get(i)?)));
            origin.thread = pair.and_then(|(s, r)| sim::thread_divergence(s, r, close));
        }
        if mismatch.likely_cause.is_none() {
            mismatch.likely_cause = likely::from_divergences(&mismatch.first_wrong);
        }
        crate::trace::mark("watched threads compared step by step");
        found
    }

    /// Runs `case` again on fresh buffers, watching what `watching` names.
    fn watch_case(
        &mut self,
        module: ModuleId,
        case: &Case,
        watching: &Watching,
        limit: Duration,
    ) -> Option<Watched> {
        let prepared = Prepared::new(self.backend, case).ok()?;
        let watched = prepared
            .watch(&watching.buffer, &watching.indices)
            .and_then(|mut watch| {
                watch.threads = watching.threads.clone();
                let launch = prepared.launch_of(case, limit);
                self.backend.launch_watched(module, &launch, &watch).ok()?
            });
        prepared.free(self.backend);
        watched
    }

    /// The reference solution loaded on the backend, and its own case at `index` where the
    /// exercise reads its launch from the file (the solution declares its own); None where it
    /// is missing or fails, which leaves the trace without the reference's side.
    fn reference_case<'c>(
        &mut self,
        exercise: &Exercise,
        (index, case): (usize, &'c Case),
    ) -> Option<(ModuleId, Cow<'c, Case>)> {
        let path = self.course.solution_path(exercise);
        let solution = std::fs::read_to_string(&path).ok()?;
        let module = self
            .backend
            .load(&self.compile(&path, &solution).ok()?)
            .ok()?;
        if exercise.declared.is_empty() {
            return Some((module, Cow::Borrowed(case)));
        }
        let declared = self.declared_values(module, exercise).ok()?;
        let cases = checks::cases_for(&exercise.id, &self.case_options(declared))?;
        Some((module, Cow::Owned(cases.into_iter().nth(index)?)))
    }
}

/// What a watched re-run of a case records: elements `indices` of output `buffer`, and `threads`.
struct Watching {
    buffer: String,
    indices: Vec<usize>,
    threads: Vec<WatchedThread>,
}

/// The thread each traced element is followed in: the one that wrote it last in the solution's
/// run (where the student's wrote it wrong, or not at all, that thread shows what should have
/// happened), else the student's writer.
fn writer_of(origin: &sim::ElementOrigin) -> Option<WatchedThread> {
    let theirs = origin.reference.as_ref().and_then(|r| r.last.as_ref());
    let last = theirs.or(origin.student.last.as_ref())?;
    Some(WatchedThread {
        block: last.block,
        thread: last.thread,
    })
}

/// The threads to follow for the traced elements, each once.
fn writers(student: &Watched, reference: &Watched) -> Vec<WatchedThread> {
    let mut threads = Vec::new();
    for (mine, theirs) in student.elements.iter().zip(&reference.elements) {
        let origin = sim::origin_of(mine, Some(theirs), sim::Closeness { abs: 0.0, rel: 0.0 });
        if let Some(t) = writer_of(&origin) {
            if !threads.contains(&t) {
                threads.push(t);
            }
        }
    }
    threads
}

/// The student's reads of shared memory no thread of the block had written, as findings of
/// `case`: the array by its name, the element, the line and the thread.
fn unwritten_findings(case: &Case, student: &Watched) -> Vec<Finding> {
    let finding = |u: &sim::UnwrittenRead| {
        let [tx, ty, tz] = u.thread;
        let [bx, by, bz] = u.block;
        let line = u
            .location
            .as_ref()
            .map_or(String::new(), |l| format!("{}:{}: ", l.file, l.line));
        Finding {
            verdict: Verdict::WrongOutput,
            case: case.name.clone(),
            kind: sim::DiagnosticKind::UnwrittenShared,
            place: u.location.as_ref().map(|l| contract::Place {
                file: l.file.clone(),
                line: l.line,
            }),
            buffer: u.place.name.clone(),
            element: u.place.index,
            thread: u.thread,
            block: u.block,
            text: format!(
                "{line}thread ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}) reads {}, which no thread of its \
                 block had written: what it reads there is left over, not computed. Every element of a \
                 shared array that a thread reads must be stored by the block first",
                u.place
            ),
        }
    };
    student.unwritten_shared.iter().map(finding).collect()
}
