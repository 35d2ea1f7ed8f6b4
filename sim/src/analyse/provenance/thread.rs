//! What one watched thread did, step by step (its loads, stores and branches), and where the same
//! thread's run of the student's kernel and of the reference solution first part. The two kernels'
//! code differs, so steps are aligned by what both runs share: the elements each reads and writes,
//! stream by stream (one stream per array and direction), never by instruction or line.

use super::{Computation, Place, Scalar};
use crate::source::SourceLocation;
use serde::{Deserialize, Serialize};

/// Steps kept per watched thread; a longer run is cut (and says so).
pub const KEPT_STEPS: usize = 1 << 16;

/// One thread of the grid, by block and thread index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedThread {
    /// Index of the block in the grid.
    pub block: [u32; 3],
    /// Index of the thread in its block.
    pub thread: [u32; 3],
}

/// What a memory step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// A load.
    Load,
    /// A store (`st`).
    Store,
    /// An atomic read-modify-write (`atom`, `red`).
    Atomic,
}

/// A load, store or atomic of one element by the watched thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryStep {
    /// Whether it loaded, stored or did an atomic.
    pub access: Access,
    /// The element it touched.
    pub place: Place,
    /// The type of the access.
    pub ty: Scalar,
    /// The value loaded, stored, or left by the atomic.
    pub bits: u64,
    /// The CUDA source line of the access (None without line info).
    pub location: Option<SourceLocation>,
    /// The PTX instruction, as `ld.shared.f32`.
    pub instruction: String,
}

/// A conditional branch the watched thread reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchStep {
    /// The CUDA source line of the branch (None without line info).
    pub location: Option<SourceLocation>,
    /// Whether the thread took the branch (jumped).
    pub taken: bool,
    /// The branch jumps back (the test of a loop, as compilers lay loops out).
    pub backward: bool,
    /// The comparison that set the branch's predicate, with its operands' values, where certain.
    pub condition: Option<Computation>,
}

/// One step of a watched thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// A load, store or atomic.
    Memory(MemoryStep),
    /// A conditional branch.
    Branch(BranchStep),
}

/// The steps one watched thread made in a launch, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadTrace {
    /// The thread followed.
    pub thread: WatchedThread,
    /// Its steps, at most [`KEPT_STEPS`].
    pub steps: Vec<Step>,
    /// More than [`KEPT_STEPS`] steps were made; the rest were not kept.
    pub cut: bool,
}

impl ThreadTrace {
    /// An empty trace of `thread`, for the launch to fill.
    pub fn new(thread: WatchedThread) -> ThreadTrace {
        ThreadTrace {
            thread,
            steps: Vec::new(),
            cut: false,
        }
    }

    pub(crate) fn push(&mut self, step: Step) {
        if self.steps.len() < KEPT_STEPS {
            self.steps.push(step);
        } else {
            self.cut = true;
        }
    }
}

/// How the student's run of a thread parts from the solution's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parting {
    /// The two runs touch different elements at this step.
    Place,
    /// Same element, different value.
    Value,
    /// The student's thread made no more steps of this stream; the solution's went on.
    StudentStops,
    /// The solution's thread made no more steps of this stream; the student's went on.
    StudentGoesOn,
    /// The solution's thread made steps of this stream that the student's left out; after them
    /// the two go on alike.
    StudentSkips,
    /// The student's thread made steps of this stream that the solution's does not; after them
    /// the two go on alike.
    StudentAdds,
}

/// Where the student's run of one thread first parts from the reference solution's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadDivergence {
    /// The thread compared.
    pub thread: WatchedThread,
    /// How the runs part.
    pub parting: Parting,
    /// Memory steps of the student's thread before the parting on which both runs agree.
    pub agreed: u64,
    /// How many steps one run makes there that the other leaves out (`StudentSkips`,
    /// `StudentAdds`); 0 otherwise.
    #[serde(default)]
    pub left_out: u64,
    /// The student's step where the runs part (`None`: it made none there).
    pub student: Option<MemoryStep>,
    /// The solution's step where the runs part (`None`: it made none there).
    pub reference: Option<MemoryStep>,
    /// The student's last step of the same stream before the parting, where `student` is `None`.
    pub student_last: Option<MemoryStep>,
    /// The student's last conditional branch before the parting.
    pub student_branch: Option<BranchStep>,
    /// The solution's last conditional branch before the parting.
    pub reference_branch: Option<BranchStep>,
    /// A loop of the thread that went round a different number of times in the two runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trips: Option<super::loops::LoopTrips>,
}

/// A stream: loads, or stores, of one array (atomics count as stores).
#[derive(Clone, PartialEq, Eq)]
struct StreamKey {
    store: bool,
    name: Option<String>,
    space: super::Space,
}

fn key(step: &MemoryStep) -> StreamKey {
    StreamKey {
        store: step.access != Access::Load,
        name: step.place.name.clone(),
        space: step.place.space,
    }
}

/// (position in the trace, step) of each memory step, grouped by stream in first-seen order.
fn streams(trace: &ThreadTrace) -> Vec<(StreamKey, Vec<(usize, &MemoryStep)>)> {
    let mut out: Vec<(StreamKey, Vec<(usize, &MemoryStep)>)> = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        let Step::Memory(m) = step else { continue };
        let k = key(m);
        match out.iter_mut().find(|(have, _)| *have == k) {
            Some((_, list)) => list.push((i, m)),
            None => out.push((k, vec![(i, m)])),
        }
    }
    out
}

/// A candidate parting in one stream: (student position, reference position, kind, the two steps).
struct Candidate<'a> {
    at: (usize, usize),
    left_out: usize,
    parting: Parting,
    student: Option<&'a MemoryStep>,
    reference: Option<&'a MemoryStep>,
    student_last: Option<&'a MemoryStep>,
}

/// Where `student`'s run of a thread first parts from `reference`'s, comparing each array's loads
/// and stores in order (element and value, floats within `close`); `None` where they agree
/// everywhere, or either trace was cut or is empty (a thread outside one run's grid).
pub fn thread_divergence(
    student: &ThreadTrace,
    reference: &ThreadTrace,
    close: super::Closeness,
) -> Option<ThreadDivergence> {
    if student.cut || reference.cut || student.steps.is_empty() || reference.steps.is_empty() {
        return None;
    }
    let theirs = streams(reference);
    let mine = streams(student);
    let mut keys: Vec<&StreamKey> = mine.iter().map(|(k, _)| k).collect();
    for (k, _) in &theirs {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let find = |list: &'_ [(StreamKey, Vec<(usize, &'_ MemoryStep)>)], k: &StreamKey| {
        list.iter().position(|(have, _)| have == k)
    };
    let candidates = keys.iter().filter_map(|k| {
        let (s, r) = (find(&mine, k), find(&theirs, k));
        match (s, r) {
            (Some(s), Some(r)) => stream_parting(&mine[s].1, &theirs[r].1, close),
            // An array only one run touches: where it first does, the other run did something
            // else (its memory step of the same rank), not nothing.
            (Some(s), None) => Some(one_sided(&mine[s].1, (student, reference), true)),
            (None, Some(r)) => Some(one_sided(&theirs[r].1, (reference, student), false)),
            (None, None) => None,
        }
    });
    // The earliest parting in the student's run; at the same step, an element read or written
    // (or not) before a value, since a different value is often what a different element causes.
    let first = candidates.min_by_key(|c| (c.at.0, c.parting == Parting::Value, c.at.1))?;
    let agreed = student.steps[..first.at.0]
        .iter()
        .filter(|s| matches!(s, Step::Memory(_)))
        .count() as u64;
    Some(ThreadDivergence {
        thread: student.thread,
        parting: first.parting,
        agreed,
        left_out: first.left_out as u64,
        student: first.student.cloned(),
        reference: first.reference.cloned(),
        student_last: first.student_last.cloned(),
        student_branch: last_branch(student, deciding(student, first.at.0, first.parting)),
        reference_branch: last_branch(reference, deciding(reference, first.at.1, first.parting)),
        trips: trips(student, reference, &first),
    })
}

/// The trip counts of the loop where the runs part: that stream's steps at its line where both
/// runs make them, else the loops' tests.
fn trips(
    student: &ThreadTrace,
    reference: &ThreadTrace,
    first: &Candidate,
) -> Option<super::loops::LoopTrips> {
    let mine = first.student.or(first.student_last);
    let by_steps = match (mine, first.reference) {
        (Some(s), Some(r)) => super::loops::by_steps(student, reference, (s, r)),
        _ => None,
    };
    by_steps.or_else(|| super::loops::by_tests(student, reference))
}

fn stream_parting<'a>(
    s: &[(usize, &'a MemoryStep)],
    r: &[(usize, &'a MemoryStep)],
    close: super::Closeness,
) -> Option<Candidate<'a>> {
    for k in 0..s.len().max(r.len()) {
        let (mine, theirs) = (s.get(k), r.get(k));
        let parting = match (mine, theirs) {
            (Some(_), Some(_)) if !same_place(s, k, r, k) => {
                if let Some(c) = left_out(s, r, k) {
                    return Some(c);
                }
                Parting::Place
            }
            (Some((_, m)), Some((_, t))) => {
                if m.ty.same_value(m.bits, t.bits, close.abs, close.rel) {
                    continue;
                }
                Parting::Value
            }
            (None, _) => Parting::StudentStops,
            (_, None) => Parting::StudentGoesOn,
        };
        // A stream that ended is placed just after its last step in that run.
        let after =
            |list: &[(usize, &MemoryStep)]| list.get(k.wrapping_sub(1)).map_or(0, |p| p.0 + 1);
        return Some(Candidate {
            at: (
                mine.map_or_else(|| after(s), |p| p.0),
                theirs.map_or_else(|| after(r), |p| p.0),
            ),
            parting,
            student: mine.map(|p| p.1),
            reference: theirs.map(|p| p.1),
            student_last: k.checked_sub(1).and_then(|j| s.get(j)).map(|p| p.1),
            left_out: 0,
        });
    }
    None
}

/// Steps compared after a gap to take it for steps left out, where that many remain.
const REJOIN: usize = 4;
/// The most steps a gap may span.
const MOST_LEFT_OUT: usize = 8;

fn same_place(s: &[(usize, &MemoryStep)], i: usize, r: &[(usize, &MemoryStep)], j: usize) -> bool {
    match (s.get(i), r.get(j)) {
        (Some((_, a)), Some((_, b))) => {
            a.place.space == b.place.space
                && a.place.index == b.place.index
                && (a.place.index.is_some() || a.place.address == b.place.address)
        }
        _ => false,
    }
}

/// Where the streams part at `k`, whether one run left out a few steps the other made and the
/// two then go on alike (the next [`REJOIN`] steps, or all that remain, at the same places).
fn left_out<'a>(
    s: &[(usize, &'a MemoryStep)],
    r: &[(usize, &'a MemoryStep)],
    k: usize,
) -> Option<Candidate<'a>> {
    // `a` from `k` on is `b` from `k + d` on, for the steps compared.
    let rejoins = |a: &[(usize, &MemoryStep)], b: &[(usize, &MemoryStep)], d: usize| {
        let m = REJOIN.min(a.len() - k).min(b.len().saturating_sub(k + d));
        let at_end = m == a.len() - k && m == b.len().saturating_sub(k + d);
        (m >= 2 || (at_end && m >= 1)) && (0..m).all(|j| same_place(a, k + j, b, k + d + j))
    };
    let after = |list: &[(usize, &MemoryStep)]| k.checked_sub(1).map_or(0, |j| list[j].0 + 1);
    let last = k.checked_sub(1).map(|j| s[j].1);
    for d in 1..=MOST_LEFT_OUT {
        if k + d < r.len() && rejoins(s, r, d) {
            return Some(Candidate {
                at: (after(s), r[k].0),
                left_out: d,
                parting: Parting::StudentSkips,
                student: Some(s[k].1),
                reference: Some(r[k].1),
                student_last: last,
            });
        }
        if k + d < s.len() && rejoins(r, s, d) {
            return Some(Candidate {
                at: (s[k].0, after(r)),
                left_out: d,
                parting: Parting::StudentAdds,
                student: Some(s[k].1),
                reference: Some(r[k].1),
                student_last: last,
            });
        }
    }
    None
}

/// Where to look back from for the branch that decided a parting at step `at`: where a run's
/// stream ended (`at` is just past its last step), the branches that ended it come after `at`,
/// before the run's next memory step.
fn deciding(trace: &ThreadTrace, at: usize, parting: Parting) -> usize {
    if !matches!(parting, Parting::StudentStops | Parting::StudentGoesOn) {
        return at;
    }
    let next = trace
        .steps
        .iter()
        .skip(at)
        .position(|s| matches!(s, Step::Memory(_)));
    next.map_or(trace.steps.len(), |n| at + n)
}

/// The parting at the first step of a stream only one run has (`own`; the student's where
/// `mine`): it is paired with the other run's memory step of the same rank among memory steps.
fn one_sided<'a>(
    stream: &[(usize, &'a MemoryStep)],
    (own, other): (&ThreadTrace, &'a ThreadTrace),
    mine: bool,
) -> Candidate<'a> {
    let (at, step) = stream[0];
    let rank = memory_steps(own).take_while(|(i, _)| *i < at).count();
    let paired = memory_steps(other).nth(rank);
    let other_at = paired.map_or(other.steps.len(), |p| p.0);
    let (student, reference) = match mine {
        true => (Some(step), paired.map(|p| p.1)),
        false => (paired.map(|p| p.1), Some(step)),
    };
    Candidate {
        at: if mine { (at, other_at) } else { (other_at, at) },
        parting: Parting::Place,
        student,
        reference,
        student_last: None,
        left_out: 0,
    }
}

fn memory_steps(trace: &ThreadTrace) -> impl Iterator<Item = (usize, &MemoryStep)> {
    trace.steps.iter().enumerate().filter_map(|(i, s)| match s {
        Step::Memory(m) => Some((i, m)),
        Step::Branch(_) => None,
    })
}

/// The last conditional branch before step `at`.
fn last_branch(trace: &ThreadTrace, at: usize) -> Option<BranchStep> {
    trace.steps[..at.min(trace.steps.len())]
        .iter()
        .rev()
        .find_map(|s| match s {
            Step::Branch(b) => Some(b.clone()),
            Step::Memory(_) => None,
        })
}
