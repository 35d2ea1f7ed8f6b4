//! A wrong element's origin in two or three lines of text: who stored the value and from what,
//! what the reference solution stored there, where the two runs first part, and where the run of
//! the thread behind it first parts from the solution's, step by step.

use sim::{
    Access, BranchStep, Computation, Counted, ElementOrigin, LoopTrips, MemoryStep, Operand,
    Parting, Scalar, SourceLocation, StoreEvent, ThreadDivergence, Writers,
};

/// The lines shown under a wrong element (without indentation).
pub fn lines(origin: &ElementOrigin) -> Vec<String> {
    let mut out = vec![yours(&origin.student)];
    if let Some(reference) = &origin.reference {
        out.push(match &reference.last {
            Some(last) => format!("the solution's run: {}", store(last, SOLUTION)),
            None => "the solution's run stores nothing there either".into(),
        });
    }
    if let Some(part) = &origin.first_difference {
        // Shown only where the runs part before the last store: the lines above tell the last.
        let before_last = part.number < origin.student.count
            || origin
                .reference
                .as_ref()
                .is_some_and(|r| part.number < r.count);
        if before_last {
            let side = |event: &Option<StoreEvent>, file| match event {
                Some(e) => short(e, file),
                None => "nothing".to_string(),
            };
            out.push(format!(
                "the runs first differ at store {} to it: yours {}, the solution's {}",
                part.number,
                side(&part.student, ""),
                side(&part.reference, SOLUTION)
            ));
        }
    }
    if let Some(thread) = &origin.thread {
        out.extend(parting(thread));
    }
    out
}

/// Where the student's run of a thread parts from the solution's, and the branch before it.
fn parting(d: &ThreadDivergence) -> Vec<String> {
    let [tx, ty, tz] = d.thread.thread;
    let [bx, by, bz] = d.thread.block;
    let agreed = match d.agreed {
        0 => "at its first load or store".to_string(),
        n => format!("after {n} loads and stores that agree"),
    };
    let mut out = vec![format!(
        "thread ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}) parts from the solution's {agreed}:"
    )];
    let mine = |s: &MemoryStep| format!("{}{}", step(s), at(&s.location, ""));
    let theirs = |s: &MemoryStep| format!("{}{}", step(s), at(&s.location, SOLUTION));
    out.push(match (d.parting, &d.student, &d.reference) {
        (Parting::StudentStops, _, Some(r)) => {
            let yours = match &d.student_last {
                Some(s) => format!("yours stops after {}", mine(s)),
                None => "yours does not".to_string(),
            };
            format!("  {yours}; the solution's goes on to {}", theirs(r))
        }
        (Parting::StudentSkips, Some(s), Some(r)) => format!(
            "  yours leaves out {} the solution's makes, from {}, and goes on with {}",
            count(d.left_out, "step"),
            theirs(r),
            mine(s)
        ),
        (Parting::StudentAdds, Some(s), Some(r)) => format!(
            "  yours makes {} the solution's does not, from {}, before going on with {}",
            count(d.left_out, "step"),
            mine(s),
            theirs(r)
        ),
        (Parting::StudentGoesOn, Some(s), _) => {
            format!(
                "  yours goes on to {}; the solution's stops before it",
                mine(s)
            )
        }
        (_, Some(s), Some(r)) => format!("  yours {}; the solution's {}", mine(s), theirs(r)),
        // One run made no load or store at all (a thread that returned at once).
        (_, None, Some(r)) => format!(
            "  yours makes no load or store; the solution's begins with {}",
            theirs(r)
        ),
        (_, Some(s), None) => format!(
            "  yours begins with {}; the solution's makes no load or store",
            mine(s)
        ),
        (_, None, None) => return Vec::new(),
    });
    if let Some(line) = branches(d) {
        out.push(line);
    }
    out.extend(d.trips.as_ref().map(trips));
    out
}

/// `  the loop at line 31 goes round 1 time in yours and 2 times in the solution's ...`: a loop
/// that ran a different number of times, with what was counted.
fn trips(t: &LoopTrips) -> String {
    let times = |n: u64| count(n, "time");
    let lines =
        |l: &Option<SourceLocation>, file| l.as_ref().map(|l| format!("line {}{file}", l.line));
    let (mine, theirs) = (
        lines(&t.student_loop, ""),
        lines(&t.reference_loop, SOLUTION),
    );
    // A loop one run never entered has no test there, so no line in that run's file.
    match (t.student, t.reference, &mine, &theirs) {
        (0, n, _, Some(theirs)) => {
            return format!(
                "  yours never goes round the loop that the solution's goes round {} (its loop \
                 at {theirs}): check where your loop starts and what it compares",
                times(n)
            )
        }
        (n, 0, Some(mine), _) => {
            return format!(
                "  the loop at {mine} goes round {} in yours; the solution's thread never \
                 enters its loop there",
                times(n)
            )
        }
        _ => {}
    }
    let (Counted::Steps, Some(s), Some(r)) = (t.counted, &t.student_step, &t.reference_step) else {
        return format!(
            "  the loop at {} tests its condition {} in yours and {} in the solution's (its loop at {})",
            mine.unwrap_or_else(|| "an unknown line".into()),
            times(t.student),
            times(t.reference),
            theirs.unwrap_or_else(|| "an unknown line".into())
        );
    };
    let name = s.place.name.as_deref().unwrap_or("memory");
    match (mine, theirs) {
        (Some(mine), Some(theirs)) => format!(
            "  the loop at {mine} goes round {} in yours and {} in the solution's (its loop at \
             {theirs}), counting the {}s of `{name}`{} ({})",
            times(t.student),
            times(t.reference),
            noun(s),
            at(&s.location, ""),
            at(&r.location, SOLUTION).trim_start()
        ),
        _ => format!(
            "  yours makes {} of `{name}`{}, the solution's {} ({})",
            count(t.student, noun(s)),
            at(&s.location, ""),
            t.reference,
            at(&r.location, SOLUTION).trim_start()
        ),
    }
}

/// What a memory step is, as a noun: `read`, `store`.
fn noun(s: &MemoryStep) -> &'static str {
    match s.access {
        Access::Load if s.place.space == sim::Space::Lane => "shuffle",
        Access::Load => "read",
        Access::Store => "store",
        Access::Atomic => "update",
    }
}

/// Each run's last conditional branch before the parting, where either ran one.
fn branches(d: &ThreadDivergence) -> Option<String> {
    let show = |b: &Option<BranchStep>, file| match b {
        Some(b) => format!(
            "at line {}{file}{}, {}",
            b.location.as_ref().map_or(0, |l| l.line),
            condition(b),
            direction(b)
        ),
        None => "none".into(),
    };
    (d.student_branch.is_some() || d.reference_branch.is_some()).then(|| {
        format!(
            "  the last branch before it: yours {}; the solution's {}",
            show(&d.student_branch, ""),
            show(&d.reference_branch, SOLUTION)
        )
    })
}

fn direction(b: &BranchStep) -> &'static str {
    match (b.backward, b.taken) {
        (true, true) => "the loop went round again",
        (true, false) => "the loop ended",
        (false, true) => "taken",
        (false, false) => "not taken",
    }
}

/// ` (setp.gt.s32 compared 1 with 1)`: the comparison behind a branch, where it is known.
pub(super) fn condition(b: &BranchStep) -> String {
    let Some(c) = &b.condition else {
        return String::new();
    };
    let operands: Vec<String> = c.operands.iter().map(operand).collect();
    format!(" ({} compared {})", c.instruction, operands.join(" with "))
}

/// `read sums[1] = 4.0`, `store out[0] = 9.0`: what a step did.
pub(super) fn step(s: &MemoryStep) -> String {
    let verb = match s.access {
        Access::Load if s.place.space == sim::Space::Lane => "get",
        Access::Load => "read",
        Access::Store => "store",
        Access::Atomic => "update",
    };
    format!("{verb} {} = {}", s.place, shown(s.ty, s.bits))
}

/// ` at line 12` (followed by `file`), or nothing where the line is not known.
pub(super) fn at(location: &Option<SourceLocation>, file: &str) -> String {
    location
        .as_ref()
        .map(|l| format!(" at line {}{file}", l.line))
        .unwrap_or_default()
}

fn yours(writers: &Writers) -> String {
    match &writers.last {
        None => "no thread stored to it".into(),
        Some(last) if writers.count > 1 => {
            let by = store(last, "");
            format!("stored last (of {} stores) by {by}", writers.count)
        }
        Some(last) => format!("stored by {}", store(last, "")),
    }
}

/// Said after a line number of the reference solution's file.
pub(super) const SOLUTION: &str = " of the solution";

/// `thread (4, 0, 0) of block (0, 0, 0) at line 12: 3.0 = add.f32(a[4] = 1.0, b[4] = 2.0)`;
/// `file` follows each line number (the solution's lines are not the student's).
fn store(event: &StoreEvent, file: &str) -> String {
    let [tx, ty, tz] = event.thread;
    let [bx, by, bz] = event.block;
    let mut text = format!(
        "thread ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}){}: {}",
        at_line(event, file),
        value(event)
    );
    if let Some(computed) = &event.computed_by {
        text.push_str(&computation(computed, event, file));
    }
    text
}

/// The value and the line alone, for the line that compares two stores.
fn short(event: &StoreEvent, file: &str) -> String {
    format!("{}{}", value(event), at_line(event, file))
}

fn at_line(event: &StoreEvent, file: &str) -> String {
    event
        .location
        .as_ref()
        .map(|l| format!(" at line {}{file}", l.line))
        .unwrap_or_default()
}

/// A value as its type shows it; an unsigned integer with its top bit set also as the signed
/// integer of its width: where no signed instruction computed it (`out[i] = -1` is a `mov`), the
/// PTX stores C's `int` as `.u32`, and 4294967295 alone would hide the -1 the student wrote.
fn shown(ty: Scalar, bits: u64) -> String {
    let signed = match ty {
        Scalar::U8 => Scalar::S8,
        Scalar::U16 => Scalar::S16,
        Scalar::U32 => Scalar::S32,
        Scalar::U64 => Scalar::S64,
        _ => return ty.show(bits),
    };
    let top_bit = 1u64 << (8 * ty.bytes() - 1);
    if bits & top_bit == 0 {
        return ty.show(bits);
    }
    format!("{} (as signed: {})", ty.show(bits), signed.show(bits))
}

fn value(event: &StoreEvent) -> String {
    let shown = shown(event.ty, event.bits);
    if event.whole {
        shown
    } else {
        format!("{shown} (a {} covering part of it)", event.instruction)
    }
}

/// ` = a[5]` for a load, ` = add.f32(a[4] = 1.0, 2.0)` for arithmetic, with the computation's
/// line where it is not the store's.
fn computation(c: &Computation, store: &StoreEvent, file: &str) -> String {
    let line = match (&c.location, &store.location) {
        (Some(at), Some(st)) if at.line != st.line => format!(" (line {}{file})", at.line),
        _ => String::new(),
    };
    if let Some(place) = &c.loaded_from {
        return format!(" = {place}{line}");
    }
    if c.operands.is_empty() {
        return String::new();
    }
    let operands: Vec<String> = c.operands.iter().map(operand).collect();
    format!(" = {}({}){line}", c.instruction, operands.join(", "))
}

fn operand(o: &Operand) -> String {
    let value = o.bits.map(|b| shown(o.ty, b));
    match (&o.loaded_from, value) {
        (Some(place), Some(v)) => format!("{place} = {v}"),
        (Some(place), None) => place.to_string(),
        (None, Some(v)) => v,
        (None, None) => "?".into(),
    }
}

/// `1 step`, `3 steps`.
fn count(n: u64, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::shown;
    use sim::Scalar;

    #[test]
    fn an_unsigned_value_with_its_top_bit_set_is_shown_signed_too() {
        assert_eq!(
            shown(Scalar::U32, 0xffff_fffd),
            "4294967293 (as signed: -3)"
        );
        assert_eq!(shown(Scalar::U32, 7), "7");
        assert_eq!(shown(Scalar::S32, 0xffff_fffd), "-3");
        assert_eq!(shown(Scalar::U8, 0x80), "128 (as signed: -128)");
        assert_eq!(shown(Scalar::F32, 1.5f32.to_bits() as u64), "1.5");
    }
}
