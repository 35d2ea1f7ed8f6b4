//! A "Likely:" line from the threads followed step by step, said only where every followed
//! thread tells the same: each did what the solution's does, in the same order, on the same
//! array, then stopped where the solution's went on (or went on where it stopped, with a branch
//! of the same comparison going the other way to show the bound that let it).

use super::text;
use checks::WrongElement;
use sim::{BranchStep, Parting, ThreadDivergence};

/// The likely mistake the followed threads agree on; `None` where they do not all part the same
/// way, or the evidence is missing in any of them.
pub(crate) fn from_divergences(wrong: &[WrongElement]) -> Option<String> {
    let parts: Vec<&ThreadDivergence> = wrong
        .iter()
        .filter_map(|w| w.origin.as_ref()?.thread.as_ref())
        .collect();
    let first = *parts.first()?;
    if !parts.iter().all(|d| d.parting == first.parting) {
        return None;
    }
    let threads = match parts.len() {
        1 => "the thread followed".to_string(),
        n => format!("each of the {n} threads followed"),
    };
    match first.parting {
        Parting::StudentStops if parts.iter().all(|d| stopped_short(d)) => {
            let (last, next) = (first.student_last.as_ref()?, first.reference.as_ref()?);
            Some(format!(
                "your kernel stops too early: in {threads} it does what the solution's does, in \
                 the same order, up to {}{}, then stops{} where the solution's goes on to {}{}: \
                 a loop bound or a condition ends it too soon",
                text::step(last),
                text::at(&last.location, ""),
                decided(first).unwrap_or_default(),
                text::step(next),
                text::at(&next.location, text::SOLUTION),
            ))
        }
        Parting::StudentSkips if parts.iter().all(|d| stopped_short(d)) => {
            let (last, skipped) = (first.student_last.as_ref()?, first.reference.as_ref()?);
            Some(format!(
                "your kernel leaves out steps: in {threads} it does what the solution's does, in \
                 the same order, up to {}{}, then leaves out what the solution's does next ({}{}) \
                 and goes on as the solution's does after it: a loop bound or a condition leaves \
                 it out",
                text::step(last),
                text::at(&last.location, ""),
                text::step(skipped),
                text::at(&skipped.location, text::SOLUTION),
            ))
        }
        Parting::StudentGoesOn if parts.iter().all(|d| decided(d).is_some()) => {
            let next = first.student.as_ref()?;
            Some(format!(
                "your kernel goes on too far: in {threads} it does what the solution's does, in \
                 the same order, then{} goes on to {}{} where the solution's stops: a loop bound \
                 or a condition lets it run too long",
                decided(first)?,
                text::step(next),
                text::at(&next.location, ""),
            ))
        }
        _ => None,
    }
}

/// The student's run agreed on earlier steps, some of the same array, before it stopped.
fn stopped_short(d: &ThreadDivergence) -> bool {
    d.agreed > 0 && d.student_last.is_some()
}

/// ` (the branch at line 31, setp.lt.s32 compared 3 with 3, went the other way from the
/// solution's, which compared 3 with 4)`, where the branches before the parting ran the same
/// comparison and went opposite ways.
fn decided(d: &ThreadDivergence) -> Option<String> {
    let (mine, theirs) = (d.student_branch.as_ref()?, d.reference_branch.as_ref()?);
    let (a, b) = (mine.condition.as_ref()?, theirs.condition.as_ref()?);
    if a.instruction != b.instruction || mine.taken == theirs.taken {
        return None;
    }
    Some(format!(
        " (the branch at line {}, {}, went the other way from the solution's, {})",
        line(mine),
        compared(mine),
        compared(theirs)
    ))
}

fn line(b: &BranchStep) -> u32 {
    b.location.as_ref().map_or(0, |l| l.line)
}

/// `setp.lt.s32 compared 3 with 3`.
fn compared(b: &BranchStep) -> String {
    text::condition(b)
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .to_string()
}
