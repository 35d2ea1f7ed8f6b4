//! A wrong element's origin in two or three lines of text: who stored the value and from what,
//! what the reference solution stored there, and where the two runs first part.

use sim::{Computation, ElementOrigin, Operand, StoreEvent, Writers};

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
    out
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
const SOLUTION: &str = " of the solution";

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

fn value(event: &StoreEvent) -> String {
    let shown = event.ty.show(event.bits);
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
    let value = o.bits.map(|b| o.ty.show(b));
    match (&o.loaded_from, value) {
        (Some(place), Some(v)) => format!("{place} = {v}"),
        (Some(place), None) => place.to_string(),
        (None, Some(v)) => v,
        (None, None) => "?".into(),
    }
}
