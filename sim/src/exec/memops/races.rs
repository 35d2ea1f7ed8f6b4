//! Race reports inside a block: which of the two accesses to name first, and the sentence.
//!
//! The report stands at the access that is the mistake. Between a plain access and an atomic one
//! that is the plain one (atomics are right among themselves): `*count = 0` by thread 0 next to
//! every thread's `atomicAdd(count, 1)` is reported at thread 0's store, whichever ran last.
//! Between two plain accesses it is the later one, where the detector found the pair.

use super::super::block::BlockCx;
use crate::analyse::{Access, Conflict, Kind};
use crate::report::{DiagKey, Diagnostic, DiagnosticKind, Race, RaceAccess, RacePlace};

/// One access of a racing pair.
#[derive(Clone, Copy)]
struct Side {
    tid: u16,
    site: u32,
    kind: Kind,
}

/// Where the race was found: the memory, the current access and the earlier one it races with.
pub(super) struct Found<'a> {
    pub space: DiagnosticKind,
    /// The element, in the student's words ("element 0 of the array passed as argument 2").
    pub what: String,
    /// The same as a fact.
    pub place: RacePlace,
    pub acc: &'a Access,
    pub conflict: Conflict,
}

/// Reports the race once per pair of lines (a write/write race replaces a read/write one).
pub(super) fn report(cx: &mut BlockCx, found: Found) {
    let Found {
        space,
        what,
        place,
        acc,
        conflict: c,
    } = found;
    let (a, b) = (acc.site.min(c.site), acc.site.max(c.site));
    let key = DiagKey(space, a, b);
    let write_write = c.is_write_write(acc);
    if !is_new(cx, key, write_write) {
        return;
    }
    let later = Side {
        tid: acc.tid,
        site: acc.site,
        kind: acc.kind,
    };
    let earlier = Side {
        tid: c.tid,
        site: c.site,
        kind: c.kind,
    };
    let (first, second) = if earlier.kind.is_plain() && !later.kind.is_plain() {
        (earlier, later)
    } else {
        (later, earlier)
    };
    let message = if first.kind.is_plain() != second.kind.is_plain() {
        mixed_message(cx, space, &what, first, second)
    } else if space == DiagnosticKind::SharedRace {
        shared_message(cx, &what, first, second, acc)
    } else {
        global_message(cx, &what, first, second, acc)
    };
    let side = |s: Side| RaceAccess {
        block: cx.block,
        thread: cx.l.thread_index(s.tid as u32),
        location: cx.location(s.site),
        access: s.kind,
    };
    let d = Diagnostic {
        kind: space,
        block: cx.block,
        thread: cx.l.thread_index(first.tid as u32),
        location: cx.location(first.site),
        race: Some(Box::new(Race {
            accesses: [side(first), side(second)],
            place,
            place_words: Race::words_in(&message, &what),
        })),
        message,
        access: None,
    };
    if cx.out.race_reads.remove(&key) {
        if let Some(entry) = cx.out.diags.iter_mut().find(|(_, k, _)| *k == key) {
            *entry = (cx.block_lin, key, d);
            return;
        }
    }
    if !write_write {
        cx.out.race_reads.insert(key);
    }
    cx.report(key, d);
}

/// Whether a race between these lines is worth a report: the first one, or a write/write race
/// where a read/write one was reported.
fn is_new(cx: &BlockCx, key: DiagKey, write_write: bool) -> bool {
    !cx.out.seen.contains(&key) || (write_write && cx.out.race_reads.contains(&key))
}

fn verb(k: Kind) -> &'static str {
    match k {
        Kind::Read => "reads",
        Kind::CasRead => "reads (as a compare-and-swap's expected value)",
        Kind::Write => "writes",
        Kind::Atomic => "atomically updates",
    }
}

fn past(k: Kind) -> &'static str {
    match k {
        Kind::Read => "read",
        Kind::CasRead => "read (as a compare-and-swap's expected value)",
        Kind::Write => "wrote",
        Kind::Atomic => "atomically updated",
    }
}

/// "thread (3,0,0)".
fn thread(cx: &BlockCx, tid: u16) -> String {
    let t = cx.l.thread_index(tid as u32);
    format!("thread ({},{},{})", t[0], t[1], t[2])
}

fn line(cx: &BlockCx, site: u32) -> String {
    cx.location(site).map_or_else(
        || "elsewhere".to_string(),
        |l| format!("at line {}", l.line),
    )
}

fn same_warp(a: Side, b: Side) -> bool {
    a.tid / 32 == b.tid / 32
}

fn memory(space: DiagnosticKind) -> &'static str {
    if space == DiagnosticKind::SharedRace {
        "shared"
    } else {
        "global"
    }
}

/// A plain access next to atomics on the same element.
fn mixed_message(
    cx: &BlockCx,
    space: DiagnosticKind,
    what: &str,
    plain: Side,
    atomic: Side,
) -> String {
    let barrier = if same_warp(plain, atomic) {
        "__syncwarp() (or __syncthreads())"
    } else {
        "__syncthreads()"
    };
    format!(
        "race on {} memory: {} {} {what} {} while {} of the same block {} it {}, with no barrier between: a \
         plain access to an element that other threads update atomically races with them; make it atomic too{}, \
         or order the two with {barrier}",
        memory(space),
        thread(cx, plain.tid),
        verb(plain.kind),
        line(cx, plain.site),
        thread(cx, atomic.tid),
        verb(atomic.kind),
        line(cx, atomic.site),
        if plain.kind == Kind::Write && space == DiagnosticKind::GlobalRace {
            ", set a starting value before the launch (not in the kernel that updates it)"
        } else {
            ""
        }
    )
}

fn shared_message(cx: &BlockCx, what: &str, me: Side, other: Side, acc: &Access) -> String {
    let who = thread(cx, me.tid);
    let them = thread(cx, other.tid);
    let there = line(cx, other.site);
    if me.kind == Kind::Write && other.kind == Kind::Write {
        return format!(
            "race on shared memory: {who} writes {what} while {them} wrote it {there} since the last barrier: \
             two threads write the same element: an index is wrong"
        );
    }
    let fix = if same_warp(me, other) {
        "threads of one warp are not guaranteed to run in step: put __syncwarp() (or __syncthreads()) between the two accesses"
    } else {
        "put __syncthreads() between the two accesses"
    };
    let why = match (acc.kind.writes(), other.kind.writes()) {
        (false, _) => "read before the write finished",
        (true, false) => "written before the read finished",
        (true, true) => "two updates are not ordered",
    };
    format!(
        "race on shared memory: {who} {} {what} while {them} {} it {there} since the last barrier: {why}; {fix}",
        verb(me.kind),
        past(other.kind)
    )
}

fn global_message(cx: &BlockCx, what: &str, me: Side, other: Side, acc: &Access) -> String {
    let who = thread(cx, me.tid);
    let them = thread(cx, other.tid);
    let (here, there) = (line(cx, me.site), line(cx, other.site));
    if me.kind == Kind::Write && other.kind == Kind::Write {
        return format!(
            "race on global memory: {who} writes {what} {here}, and {them} of the same block writes it too {there}: \
             two threads write the same element (an index is wrong, or the update needs an atomic such as atomicAdd)"
        );
    }
    let missing = if same_warp(me, other) {
        "threads of one warp are not guaranteed to run in step, so a __syncwarp() (or __syncthreads()) is missing"
    } else {
        "a __syncthreads() is missing"
    };
    // One line that reads and writes the element is an update like `x += v`.
    let update = if other.site == acc.site {
        ", or an update like `x += v` needs an atomic such as atomicAdd"
    } else {
        ""
    };
    format!(
        "race on global memory: {who} {} {what} {here} that {them} of the same block {} {there}, with no \
         barrier between ({missing}, or the threads should use different elements{update})",
        verb(me.kind),
        past(other.kind)
    )
}
