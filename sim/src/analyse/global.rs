//! Races on global memory within one launch.
//!
//! Inside a block, a shadow record per touched word (kept in 1 KiB pages, found through a hash map
//! of the pages the block touched) applies the shared-memory rules: barrier intervals, same-warp
//! ordering, exact bytes. When the block ends, its record pages become byte ranges: what the block
//! read, wrote plainly and wrote with atomics, each with a source line and a thread (adjacent
//! bytes of one line merge, so a coalesced kernel leaves a few ranges per block). After every block
//! has run, `cross_block` sorts all ranges and reports overlaps between different blocks, which
//! nothing in a launch orders.
//!
//! Deliberate inter-block communication is the exception: a kernel with a memory fence
//! (`__threadfence()`) or volatile / acquire / release / relaxed global accesses publishes data to
//! other blocks on purpose (the threadfence reduction: partial sums, a fence, an atomic ticket, the
//! last block reads them). For such kernels only plain write/write overlaps between blocks are
//! reported; reads of other blocks' writes and plain accesses next to atomics are trusted. A
//! write/write overlap is trusted too where the later block wrote after its first global atomic
//! (its ticket) and the earlier block before its own: blocks of a kernel with global atomics run
//! in order here, and the earlier one's fence published its write before its ticket (the last
//! block of the threadfence reduction overwriting block 0's partial sum with the total); and so
//! is one between two critical sections of one spin lock (`locks`).
//!
//! Memory is bounded: a block tracks at most `MAX_PAGES` pages (4 MiB of the data it touches, about
//! 124 MiB of records, allocated as the block touches them) and a CPU thread keeps at most `MAX_RANGES` ranges for the launch. Past
//! either cap, accesses go unchecked: a race there may be missed, never invented.

use super::locks::Locks;
use super::{word_mask, Access, Conflict, Kind, Rec, Split, WHOLE};
use crate::exec::block::{DiagKey, LaunchCx, WorkerOut};
use crate::report::{Diagnostic, DiagnosticKind, Race, RaceAccess, RacePlace};
use std::collections::HashMap;

const PAGE_WORDS: usize = 256;
/// Pages one block may track (4 MiB of touched data).
const MAX_PAGES: usize = 4096;
/// Ranges one CPU thread keeps for the cross-block pass (48 bytes each: 96 MiB).
const MAX_RANGES: usize = 1 << 21;
/// Active ranges of the cross-block sweep before they are thinned (see `thin`).
const MAX_ACTIVE: usize = 256;

#[derive(Clone, Copy, Default)]
struct Word {
    rec: Rec,
    /// The block (its first barrier interval) that the summary below belongs to.
    block: u32,
    /// Per kind of access (`Kind as usize`), the first thread and line of the block that did it.
    first: [Toucher; 4],
    /// The critical section all of the block's plain writes of the word were in
    /// (`Locks::section`; 0: none).
    w_section: u32,
    /// Bytes the block wrote with plain stores, with atomics, read plainly, and read as a
    /// compare-and-swap's expected value; and of the plain writes, those made after the block's
    /// first global atomic.
    plain: u8,
    late: u8,
    atomic: u8,
    read: u8,
    cas_read: u8,
}

/// One access that stands for those of its kind to a word.
#[derive(Clone, Copy, Default)]
struct Toucher {
    site: u32,
    tid: u16,
    size: u8,
}

struct Page {
    number: u64,
    /// The words this block touched lie in `[lo, hi)`.
    lo: usize,
    hi: usize,
    words: Box<[Word]>,
}

/// The block's record pages, reused by the worker's next block (records of older barrier
/// intervals and summaries of older blocks never match).
pub(crate) struct GlobalShadow {
    index: HashMap<u64, u32>,
    pages: Vec<Page>,
    used: usize,
    /// The page of the previous access, and its slot.
    last: (u64, usize),
    split: Split,
    block: u32,
    capped: bool,
    /// The block has done a global atomic (taken its ticket).
    ticketed: bool,
    /// The threads' spin locks.
    pub locks: Locks,
}

impl Default for GlobalShadow {
    fn default() -> Self {
        GlobalShadow {
            index: HashMap::new(),
            pages: Vec::new(),
            used: 0,
            last: (u64::MAX, 0),
            split: Split::default(),
            block: 0,
            capped: false,
            ticketed: false,
            locks: Locks::default(),
        }
    }
}

/// Bytes `[lo, hi)` that one block touched in one way, with one thread and source line that did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    lo: u64,
    hi: u64,
    block: u64,
    site: u32,
    tid: u16,
    kind: Kind,
    /// Plain writes made after the block's first global atomic.
    after_ticket: bool,
    /// Plain writes made in critical sections of the spin lock at this address (0: none).
    lock: u64,
    /// Bytes per access of that line (to name the element).
    size: u8,
}

impl GlobalShadow {
    /// Starts block `block_lin`'s tracking; `epoch` is its first barrier interval.
    pub fn begin_block(&mut self, epoch: u32) {
        self.index.clear();
        self.used = 0;
        self.last = (u64::MAX, 0);
        self.block = epoch;
        self.ticketed = false;
        self.locks.begin_block();
    }

    #[inline]
    fn slot(&mut self, page: u64) -> Option<usize> {
        if self.last.0 == page {
            return Some(self.last.1);
        }
        let slot = match self.index.get(&page) {
            Some(&s) => s as usize,
            None => {
                if self.used == MAX_PAGES {
                    self.capped = true;
                    return None;
                }
                let s = self.used;
                self.used += 1;
                if s == self.pages.len() {
                    self.pages.push(Page {
                        number: page,
                        lo: PAGE_WORDS,
                        hi: 0,
                        words: vec![Word::default(); PAGE_WORDS].into_boxed_slice(),
                    });
                } else {
                    let p = &mut self.pages[s];
                    (p.number, p.lo, p.hi) = (page, PAGE_WORDS, 0);
                }
                self.index.insert(page, s as u32);
                s
            }
        };
        self.last = (page, slot);
        Some(slot)
    }

    /// Checks and records one lane's access of `len` bytes at `addr` in barrier interval `epoch`;
    /// returns the first conflict with another thread of the block.
    #[inline]
    pub fn check(&mut self, epoch: u32, addr: u64, len: u32, acc: &Access) -> Option<Conflict> {
        let end = addr + len as u64;
        let mut found = None;
        let mut word = addr >> 2;
        while word << 2 < end {
            let Some(slot) = self.slot(word / PAGE_WORDS as u64) else {
                return found;
            };
            let page = &mut self.pages[slot];
            let i = (word % PAGE_WORDS as u64) as usize;
            (page.lo, page.hi) = (page.lo.min(i), page.hi.max(i + 1));
            let g = &mut page.words[i];
            let mask = if len >= 4 {
                0xf
            } else {
                word_mask(addr as usize & 3, (addr as usize & 3) + len as usize, 0)
            };
            if g.block != self.block {
                g.block = self.block;
                (g.plain, g.late, g.atomic, g.read, g.cas_read) = (0, 0, 0, 0, 0);
            }
            let seen = match acc.kind {
                Kind::Atomic => {
                    self.ticketed = true;
                    &mut g.atomic
                }
                Kind::Write => {
                    g.late = if self.ticketed {
                        g.late | mask
                    } else {
                        g.late & !mask
                    };
                    &mut g.plain
                }
                Kind::Read => &mut g.read,
                Kind::CasRead => &mut g.cas_read,
            };
            if *seen == 0 {
                g.first[acc.kind as usize] = Toucher {
                    site: acc.site,
                    tid: acc.tid,
                    size: len as u8,
                };
            }
            if acc.kind == Kind::Write {
                let section = self.locks.section(acc.tid);
                if *seen == 0 {
                    g.w_section = section;
                } else if g.w_section != section {
                    g.w_section = 0;
                }
            }
            *seen |= mask;
            let c = if g.rec.split == WHOLE && !g.rec.needs_split(epoch, mask, acc.tid) {
                g.rec.check(epoch, mask, acc)
            } else {
                self.split.check(&mut g.rec, epoch, mask, acc)
            };
            found = found.or(c);
            word += 1;
        }
        found
    }

    /// Turns the block's records into byte ranges for the cross-block pass.
    pub fn finish_block(&mut self, block_lin: u64, out: &mut WorkerOut) {
        let mut slots: Vec<usize> = (0..self.used).collect();
        slots.sort_unstable_by_key(|&s| self.pages[s].number);
        // Reads, reads for a compare-and-swap, atomics, plain writes, plain writes after the
        // block's ticket.
        const KINDS: [(Kind, bool); 5] = [
            (Kind::Read, false),
            (Kind::CasRead, false),
            (Kind::Atomic, false),
            (Kind::Write, false),
            (Kind::Write, true),
        ];
        let mut open: [Option<Range>; 5] = [None; 5];
        for s in slots {
            let page = &self.pages[s];
            let first_byte = page.number * PAGE_WORDS as u64 * 4;
            for (i, g) in page.words[..page.hi].iter().enumerate().skip(page.lo) {
                if g.block != self.block {
                    continue;
                }
                let base = first_byte + 4 * i as u64;
                let masks = [
                    g.read,
                    g.cas_read,
                    g.atomic,
                    g.plain & !g.late,
                    g.plain & g.late,
                ];
                let write_lock = if g.plain != 0 {
                    self.locks.lock_of(g.w_section)
                } else {
                    0
                };
                for (slot, (&mask, &(kind, after_ticket))) in
                    open.iter_mut().zip(masks.iter().zip(&KINDS))
                {
                    if mask == 0 {
                        continue;
                    }
                    let Toucher { site, tid, size } = g.first[kind as usize];
                    let lock = if kind == Kind::Write { write_lock } else { 0 };
                    let mut add = |lo: u64, hi: u64| match slot {
                        Some(r) if r.hi == lo && r.site == site && r.lock == lock => r.hi = hi,
                        _ => {
                            let fresh = Range {
                                lo,
                                hi,
                                block: block_lin,
                                site,
                                tid,
                                kind,
                                after_ticket,
                                lock,
                                size,
                            };
                            if let Some(r) = slot.replace(fresh) {
                                keep(r, out);
                            }
                        }
                    };
                    // Whole words (the usual case) extend a range by four bytes at once.
                    if mask == 0xf {
                        add(base, base + 4);
                    } else {
                        for b in (0..4).filter(|b| mask >> b & 1 != 0) {
                            add(base + b, base + b + 1);
                        }
                    }
                }
            }
        }
        for r in open.into_iter().flatten() {
            keep(r, out);
        }
        out.global_ranges_capped |= self.capped;
        self.capped = false;
    }
}

/// Keeps a finished range for the cross-block pass, up to `MAX_RANGES` per CPU thread.
fn keep(r: Range, out: &mut WorkerOut) {
    if out.global_ranges.len() < MAX_RANGES {
        out.global_ranges.push(r);
    } else {
        out.global_ranges_capped = true;
    }
}

/// Whether two blocks' accesses of a common byte race.
fn conflicting(a: Kind, b: Kind, fenced: bool) -> bool {
    if fenced {
        a == Kind::Write && b == Kind::Write
    } else {
        a.races_with(b)
    }
}

/// The two accesses of a race, the one to report first: a plain access where the other is atomic
/// (atomics are right among themselves, so the plain one is the mistake: `*count = 0` next to
/// every thread's `atomicAdd(count, 1)`), else the later block's.
fn culprit(a: Range, b: Range) -> (Range, Range) {
    if a.kind.is_plain() != b.kind.is_plain() {
        return if a.kind.is_plain() { (a, b) } else { (b, a) };
    }
    if b.block >= a.block {
        (b, a)
    } else {
        (a, b)
    }
}

/// Whether a ticket orders two blocks' plain writes (see the module's comment): the later block
/// wrote after its first global atomic, the earlier one before its own.
fn ticket_ordered(a: &Range, b: &Range) -> bool {
    let (first, later) = if a.block < b.block { (a, b) } else { (b, a) };
    !first.after_ticket && later.after_ticket
}

/// Whether two plain writes were both made in critical sections of one spin lock (`locks`),
/// which makes the blocks take turns.
fn same_lock(a: &Range, b: &Range) -> bool {
    a.lock != 0 && a.lock == b.lock
}

/// Keeps, per source line and kind, the range reaching furthest and the one reaching furthest
/// from another block: every later range that overlaps a dropped one overlaps one of those, from
/// a block other than its own.
fn thin(active: &mut Vec<Range>) {
    active.sort_unstable_by_key(|r| {
        let order = (r.site, r.kind, r.after_ticket);
        (order, std::cmp::Reverse(r.hi), r.block)
    });
    let mut kept: Vec<Range> = Vec::new();
    let mut group_start = 0;
    for r in active.iter() {
        let same_group = kept.get(group_start).is_some_and(|g| {
            g.site == r.site && g.kind == r.kind && g.after_ticket == r.after_ticket
        });
        if !same_group {
            group_start = kept.len();
            kept.push(*r);
        } else if kept.len() - group_start == 1 && kept[group_start].block != r.block {
            kept.push(*r);
        }
    }
    *active = kept;
}

/// Reports overlaps between different blocks' ranges (once per pair of source lines), as
/// diagnostics of the later block of each pair.
pub(crate) fn cross_block(l: &LaunchCx, outs: &mut [WorkerOut]) {
    let mut all: Vec<Range> = outs
        .iter_mut()
        .flat_map(|o| std::mem::take(&mut o.global_ranges))
        .collect();
    if all.is_empty() || l.total_blocks < 2 {
        return;
    }
    all.sort_unstable_by_key(|r| (r.lo, r.block, r.kind, r.site));
    let fenced = l.prog.cross_block_sync;
    let mut active: [Vec<Range>; 2] = [Vec::new(), Vec::new()];
    // Per pair of lines, the first overlap found; a write/write one replaces a read/write one.
    let mut reported: HashMap<DiagKey, usize> = HashMap::new();
    let mut found: Vec<(Range, Range, DiagKey)> = Vec::new();
    for r in all {
        for set in active.iter_mut() {
            set.retain(|a| a.hi > r.lo);
        }
        let against: &[usize] = if r.kind.writes() { &[0, 1] } else { &[1] };
        for &s in against {
            for a in &active[s] {
                if a.block == r.block
                    || !conflicting(a.kind, r.kind, fenced)
                    || (fenced && (ticket_ordered(a, &r) || same_lock(a, &r)))
                {
                    continue;
                }
                let key = DiagKey(
                    DiagnosticKind::GlobalRace,
                    a.site.min(r.site),
                    a.site.max(r.site),
                );
                let write_write = a.kind == Kind::Write && r.kind == Kind::Write;
                match reported.get(&key) {
                    None => {
                        reported.insert(key, found.len());
                        found.push((*a, r, key));
                    }
                    Some(&i) if write_write && found[i].0.kind != found[i].1.kind => {
                        found[i] = (*a, r, key);
                    }
                    Some(_) => {}
                }
            }
        }
        let set = &mut active[r.kind.writes() as usize];
        set.push(r);
        if set.len() > MAX_ACTIVE {
            thin(set);
        }
    }
    for (a, b, key) in found {
        let (me, other) = culprit(a, b);
        let at = a.lo.max(b.lo);
        let d = cross_block_diagnostic(l, &me, &other, at);
        outs[0].diags.push((me.block, key, d));
    }
}

fn thread_text(l: &LaunchCx, block: u64, tid: u16) -> String {
    let t = l.thread_index(tid as u32);
    let b = l.block_index(block);
    format!(
        "thread ({},{},{}) of block ({},{},{})",
        t[0], t[1], t[2], b[0], b[1], b[2]
    )
}

fn line_text(l: &LaunchCx, site: u32) -> String {
    l.prog
        .sites
        .get(site as usize)
        .cloned()
        .flatten()
        .map_or_else(
            || "elsewhere".to_string(),
            |loc| format!("at line {}", loc.line),
        )
}

fn cross_block_diagnostic(l: &LaunchCx, me: &Range, other: &Range, at: u64) -> Diagnostic {
    let place = global_place(l, at, me.size.max(1) as u64);
    let what = describe_global(l, &place);
    let (who, them) = (
        thread_text(l, me.block, me.tid),
        thread_text(l, other.block, other.tid),
    );
    let (here, there) = (line_text(l, me.site), line_text(l, other.site));
    let verb = |k: Kind| match k {
        Kind::Read => "reads",
        Kind::CasRead => "reads (as a compare-and-swap's expected value)",
        Kind::Atomic => "atomically updates",
        Kind::Write => "writes",
    };
    let message = if me.kind == Kind::Write && other.kind == Kind::Write {
        format!(
            "race on global memory: {who} writes {what} {here}, and {them} writes it too {there}, in the same \
             launch: two threads write the same element (an index is wrong, or the update needs an atomic such as \
             atomicAdd)"
        )
    } else if me.kind.writes() && other.kind.writes() {
        format!(
            "race on global memory: {who} {} {what} {here} while {them} {} it {there} in the same launch: every \
             thread that updates an element concurrently must use an atomic",
            verb(me.kind),
            verb(other.kind)
        )
    } else {
        format!(
            "race on global memory: {who} {} {what} {here} that {them} {} {there} in the same launch; nothing \
             orders threads of different blocks within a launch (not even __syncthreads()), so the threads should \
             use different elements, or the second step needs a kernel launch of its own{}",
            verb(me.kind),
            verb(other.kind),
            if me.site == other.site {
                " (an update like `x += v` needs an atomic such as atomicAdd)"
            } else {
                ""
            }
        )
    };
    let side = |r: &Range| RaceAccess {
        block: l.block_index(r.block),
        thread: l.thread_index(r.tid as u32),
        location: l.prog.sites.get(r.site as usize).cloned().flatten(),
        access: r.kind,
    };
    let [first, second] = [side(me), side(other)];
    let place_words = Race::words_in(&message, &what);
    Diagnostic {
        kind: DiagnosticKind::GlobalRace,
        block: first.block,
        thread: first.thread,
        location: first.location.clone(),
        message,
        race: Some(Box::new(Race {
            accesses: [first, second],
            place,
            place_words,
        })),
    }
}

/// Where `addr` is, for an access of `size` bytes: an element of the array of the kernel argument
/// pointing closest below it into the same allocation, else of a `__device__` variable.
pub(crate) fn global_place(l: &LaunchCx, addr: u64, size: u64) -> RacePlace {
    let unnamed = RacePlace::Global {
        argument: None,
        variable: None,
        element: None,
        address: addr,
    };
    let Some(alloc) = l.mem.find(addr, 1) else {
        return unnamed;
    };
    let mut best: Option<(usize, u64)> = None;
    for (i, p) in l.prog.params.iter().enumerate() {
        if p.size_bytes != 8 {
            continue;
        }
        let off = l.prog.param_offsets[i] as usize;
        let Some(bytes) = l.params.get(off..off + 8) else {
            continue;
        };
        let ptr = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        if ptr >= alloc.base && ptr <= addr && best.is_none_or(|(_, b)| ptr > b) {
            best = Some((i, ptr));
        }
    }
    if let Some((i, ptr)) = best {
        return RacePlace::Global {
            argument: Some(i as u32),
            variable: None,
            element: Some((addr - ptr) / size),
            address: addr,
        };
    }
    let variable = l
        .global_names
        .iter()
        .filter(|(b, _)| *b >= alloc.base && *b <= addr)
        .max_by_key(|(b, _)| *b);
    match variable {
        Some((base, name)) => RacePlace::Global {
            argument: None,
            variable: Some(name.clone()),
            element: (alloc.size > size).then(|| (addr - base) / size),
            address: addr,
        },
        None => unnamed,
    }
}

/// "element 5 of the array passed as argument 2": `global_place` in words.
pub(crate) fn describe_global(l: &LaunchCx, place: &RacePlace) -> String {
    let RacePlace::Global {
        argument,
        variable,
        element,
        address,
    } = place
    else {
        return "shared memory".to_string();
    };
    match (argument, variable, element) {
        (Some(i), _, Some(e)) => format!("element {e} of the array passed as argument {}", i + 1),
        (_, Some(name), None) => format!("`{name}`"),
        (_, Some(name), Some(e)) => format!("element {e} of `{name}`"),
        _ => match l.mem.find(*address, 1) {
            Some(alloc) => format!(
                "byte {} of the {}-byte allocation at {:#x}",
                address - alloc.base,
                alloc.size,
                alloc.base
            ),
            None => format!("global memory at address {address:#x}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_words_record_stays_small() {
        // What the comments on MAX_PAGES and MAX_RANGES promise.
        assert!(
            std::mem::size_of::<Word>() <= 124,
            "{}",
            std::mem::size_of::<Word>()
        );
        assert!(
            std::mem::size_of::<Range>() <= 48,
            "{}",
            std::mem::size_of::<Range>()
        );
    }
}
