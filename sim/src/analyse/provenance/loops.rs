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
/// ran a different number of times (loops paired in the order the thread reached them); where
/// one run reached one loop fewer, that run's thread never went round it (`never_entered`).
pub(crate) fn by_tests(student: &ThreadTrace, reference: &ThreadTrace) -> Option<LoopTrips> {
    let (mine, theirs) = (tests(student), tests(reference));
    if mine.len() != theirs.len() {
        return never_entered(&mine, &theirs);
    }
    let ((sl, s), (rl, r)) = mine
        .into_iter()
        .zip(theirs)
        .find(|((_, s), (_, r))| s != r)?;
    Some(trips_by_tests((sl, s), (rl, r)))
}

fn trips_by_tests(
    (student_loop, student): (Option<SourceLocation>, u64),
    (reference_loop, reference): (Option<SourceLocation>, u64),
) -> LoopTrips {
    LoopTrips {
        counted: Counted::Tests,
        student_loop,
        reference_loop,
        student_step: None,
        reference_step: None,
        student,
        reference,
    }
}

type Tests = [(Option<SourceLocation>, u64)];

/// A loop one run went round and the other never entered: a loop that runs no time never reaches
/// its test (compilers guard it with a branch around it), so that run lists one loop fewer. The
/// loop is the one whose leaving out pairs every other loop with one that ran as many times;
/// where none does, or several runs of loops differ, the runs are not paired (None).
fn never_entered(mine: &Tests, theirs: &Tests) -> Option<LoopTrips> {
    let (fewer, more, student_fewer) = if mine.len() < theirs.len() {
        (mine, theirs, true)
    } else {
        (theirs, mine, false)
    };
    if fewer.len() + 1 != more.len() {
        return None;
    }
    let counts = |l: &Tests| l.iter().map(|(_, n)| *n).collect::<Vec<u64>>();
    let (short, long) = (counts(fewer), counts(more));
    let skipped = (0..long.len()).find(|&i| {
        let mut rest = long.clone();
        rest.remove(i);
        rest == short
    })?;
    let entered = more[skipped].clone();
    Some(if student_fewer {
        trips_by_tests((None, 0), entered)
    } else {
        trips_by_tests(entered, (None, 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::provenance::thread::{BranchStep, WatchedThread};

    fn at(line: u32) -> Option<SourceLocation> {
        Some(SourceLocation {
            file: "k.cu".into(),
            line,
        })
    }

    /// A thread whose loops' tests ran (line, times) in turn.
    fn trace(loops: &[(u32, u64)]) -> ThreadTrace {
        let thread = WatchedThread {
            block: [0; 3],
            thread: [0; 3],
        };
        let mut trace = ThreadTrace::new(thread);
        for &(line, times) in loops {
            for pass in 0..times {
                trace.push(Step::Branch(BranchStep {
                    location: at(line),
                    taken: pass + 1 < times,
                    backward: true,
                    condition: None,
                }));
            }
        }
        trace
    }

    #[test]
    fn a_loop_the_students_thread_never_entered_is_counted_as_no_pass() {
        // The solution's thread goes round the loop at its line 76 once; the student's never
        // reaches a loop test at all.
        let trips = by_tests(&trace(&[]), &trace(&[(76, 1)])).unwrap();
        assert_eq!((trips.student, trips.reference), (0, 1));
        assert_eq!((trips.student_loop, trips.reference_loop), (None, at(76)));
        // Between two loops that agree, the missing one is the one that pairs the rest.
        let mine = trace(&[(10, 4), (30, 2)]);
        let theirs = trace(&[(11, 4), (20, 8), (31, 2)]);
        let trips = by_tests(&mine, &theirs).unwrap();
        assert_eq!((trips.student, trips.reference_loop), (0, at(20)));
    }

    #[test]
    fn a_loop_only_the_students_thread_went_round_is_counted_too() {
        let trips = by_tests(&trace(&[(5, 3), (9, 2)]), &trace(&[(6, 3)])).unwrap();
        assert_eq!((trips.student, trips.reference), (2, 0));
        assert_eq!((trips.student_loop, trips.reference_loop), (at(9), None));
    }

    #[test]
    fn runs_whose_other_loops_differ_too_are_not_paired() {
        // Leaving out any one of the solution's loops leaves counts that differ from the student's.
        assert_eq!(
            by_tests(&trace(&[(10, 3)]), &trace(&[(11, 4), (20, 8)])),
            None
        );
        assert_eq!(by_tests(&trace(&[]), &trace(&[(1, 1), (2, 1)])), None);
    }
}
