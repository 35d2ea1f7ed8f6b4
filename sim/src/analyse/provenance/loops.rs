//! How many times a watched thread went round a loop, in the student's run and the solution's:
//! an off-by-one bound, `<` for `<=` or a wrong stride changes that count, and the count says so
//! where the values alone do not. Loops are known by what the runs share, never by line (the two
//! files differ): a line's loads or stores of one array, or else the loops' tests in order.

use super::thread::{Access, MemoryStep, Step, ThreadTrace};
use crate::source::SourceLocation;
use serde::{Deserialize, Serialize};

/// What a trip count counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// The steps of one array and direction (loads, or stores) at one line: each pass of the loop
    /// around it makes one, unrolled or not, when the line touches the array once.
    Steps,
    /// The times the loop's test (its backward branch) ran: a loop the compiler did not unroll
    /// tests once per pass.
    Tests,
}

/// One loop of a watched thread that ran a different number of times in the two runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopTrips {
    /// Whether the counts are of steps or of the loop's test.
    pub counted: Counted,
    /// The loop's test (its backward branch) in each run's file, where it has one: a loop the
    /// compiler unrolled completely has none.
    pub student_loop: Option<SourceLocation>,
    /// The loop's test in the reference's file (None where it has none).
    pub reference_loop: Option<SourceLocation>,
    /// For [`Counted::Steps`]: the step counted, as each run made it last.
    pub student_step: Option<MemoryStep>,
    /// The step counted, as the reference's run made it last.
    pub reference_step: Option<MemoryStep>,
    /// Times the student's run went round the loop.
    pub student: u64,
    /// Times the reference's run went round the loop.
    pub reference: u64,
}

/// The steps at the line of `step` of its array and direction, in `trace`.
fn steps_like(trace: &ThreadTrace, step: &MemoryStep) -> Vec<(usize, MemoryStep)> {
    let same = |m: &MemoryStep| {
        (m.access == Access::Load) == (step.access == Access::Load)
            && m.place.name == step.place.name
            && m.place.space == step.place.space
            && m.location == step.location
    };
    let steps = trace.steps.iter().enumerate();
    steps
        .filter_map(|(i, s)| match s {
            Step::Memory(m) if same(m) => Some((i, m.clone())),
            _ => None,
        })
        .collect()
}

/// The line of the backward branch that first follows step `at`: the test of the loop around it.
fn loop_after(trace: &ThreadTrace, at: usize) -> Option<SourceLocation> {
    trace.steps[at..].iter().find_map(|s| match s {
        Step::Branch(b) if b.backward => b.location.clone(),
        _ => None,
    })
}

/// Trip counts where the runs part at a step both make, or where one run stops making it: the
/// steps of that line's array in each run, counted where the line makes them more than once in
/// either run (a loop) and the counts differ.
pub(crate) fn by_steps(
    student: &ThreadTrace,
    reference: &ThreadTrace,
    (mine, theirs): (&MemoryStep, &MemoryStep),
) -> Option<LoopTrips> {
    let (s, r) = (steps_like(student, mine), steps_like(reference, theirs));
    let (first_s, first_r) = (s.first()?, r.first()?);
    if s.len() == r.len() || s.len().max(r.len()) < 2 {
        return None;
    }
    Some(LoopTrips {
        counted: Counted::Steps,
        student_loop: loop_after(student, first_s.0),
        reference_loop: loop_after(reference, first_r.0),
        student_step: s.last().map(|p| p.1.clone()),
        reference_step: r.last().map(|p| p.1.clone()),
        student: s.len() as u64,
        reference: r.len() as u64,
    })
}

/// Each loop's test (a backward branch's line) in the order the thread first reached it, with
/// the times it ran.
fn tests(trace: &ThreadTrace) -> Vec<(Option<SourceLocation>, u64)> {
    let mut out: Vec<(Option<SourceLocation>, u64)> = Vec::new();
    for step in &trace.steps {
        let Step::Branch(b) = step else { continue };
        if !b.backward {
            continue;
        }
        match out.iter_mut().find(|(l, _)| *l == b.location) {
            Some((_, n)) => *n += 1,
            None => out.push((b.location.clone(), 1)),
        }
    }
    out
}

/// Trip counts from the loops' tests: where both runs reach as many loops, the first whose test
/// ran a different number of times (loops paired in the order the thread reached them).
pub(crate) fn by_tests(student: &ThreadTrace, reference: &ThreadTrace) -> Option<LoopTrips> {
    let (mine, theirs) = (tests(student), tests(reference));
    if mine.len() != theirs.len() {
        return None;
    }
    let ((sl, s), (rl, r)) = mine
        .into_iter()
        .zip(theirs)
        .find(|((_, s), (_, r))| s != r)?;
    Some(LoopTrips {
        counted: Counted::Tests,
        student_loop: sl,
        reference_loop: rl,
        student_step: None,
        reference_step: None,
        student: s,
        reference: r,
    })
}
