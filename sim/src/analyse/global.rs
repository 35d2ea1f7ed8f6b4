//! Races on global memory within one launch.
//!
//! Inside a block, a shadow record per touched word (kept in 1 KiB pages, found through a hash map
//! of the pages the block touched) applies the shared-memory rules: barrier intervals, same-warp
//! ordering, exact bytes. A warp instruction's accesses of words the block has not touched are kept
//! as one `Run` until another access touches one of them, and plain reads that can change nothing
//! skip the record (`Settled`): the common cases cost no record per word. When the block ends,
//! its record pages become byte ranges: what the block read, wrote plainly and wrote with
//! atomics, each with a source line and a thread (adjacent bytes of one line merge, so a
//! coalesced kernel leaves a few ranges per block). After every block
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
use super::{word_mask, Access, Conflict, Kind, Rec, Split, MANY, WHOLE};
use crate::ir::Program;
use crate::memory::GlobalMemory;
use crate::report::{DiagKey, Diagnostic, DiagnosticKind, Race, RaceAccess, RacePlace};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// How one access touches one word (beside the `Access` itself).
struct Touch {
    epoch: u32,
    /// The bytes of the word.
    mask: u8,
    /// Bytes the access reads or writes.
    size: u8,
    /// The block had done a global atomic before it.
    late: bool,
    /// The critical section of a plain store (`Locks::section`).
    section: u32,
}

impl Word {
    /// Whether, in barrier interval `epoch`, a plain read of the whole word by a thread of the
    /// readers' warp at their `__syncwarp()` count (any thread, where the readers' warp is
    /// `MANY`) can neither race nor change the record: only plain reads of all its bytes so far,
    /// by several threads, the first and another one kept. `Rec::check` would then only set
    /// `r_wsync`, to the value it has (or, for `MANY`, one that no check reads).
    fn settled_reads(&self, epoch: u32) -> bool {
        let r = &self.rec;
        r.split == WHOLE
            && r.r_epoch == epoch
            && r.w_epoch != epoch
            && r.a_epoch != epoch
            && r.r_mask == 0xf
            && r.r_many
            && r.r_plain
            && r.rp_many
            && r.ro_plain
            && self.read == 0xf
    }
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
    /// Per word, where this block's accesses to it are: `UNTOUCHED`, `DIRECT` (in `words`), or
    /// the run and lane of the one warp instruction that touched it (`run_owner`).
    owner: Box<[u32]>,
    /// Per word, the reads that would find nothing and change nothing in its record
    /// (`Word::settled_reads`), so that they need not read it.
    settled: Box<[Settled]>,
}

/// Full-word plain reads in barrier interval `epoch` by threads of warp `warp` at its
/// `__syncwarp()` count `wsync`, or by any thread of the block where `warp` is `MANY`.
#[derive(Clone, Copy, Default)]
struct Settled {
    epoch: u32,
    wsync: u32,
    warp: u16,
}

/// `Page::owner` of a word the block has not touched.
const UNTOUCHED: u32 = 0;
/// `Page::owner` of a word whose `Word` record holds what the block did to it.
const DIRECT: u32 = u32::MAX;
/// Runs one block keeps (116 MiB of them at most); past it, accesses are recorded per word.
const MAX_RUNS: usize = 1 << 20;
/// `Run::second` of a word that one lane read.
const NO_LANE: u8 = u8::MAX;

/// One warp instruction's plain loads or stores of words that no thread of the block had touched:
/// lane by lane, its accesses would each have started a word's record afresh, so the run stands
/// for those records until another access touches one of its words (`GlobalShadow::settle`).
/// This is the common case of a global-heavy kernel (each thread its own elements), and keeping
/// one run instead of a 124-byte record per word keeps the shadow in the CPU's cache. Lanes of a
/// load may share a word (a broadcast, or SGEMM's two half-warps reading one row of B): the word
/// belongs to its first lane, and only the second reader matters besides (`note_reader` changes
/// nothing for a third).
struct Run {
    epoch: u32,
    stamp: u32,
    wsync: u32,
    site: u32,
    kind: Kind,
    /// Bytes per lane.
    size: u8,
    /// A store made after the block's first global atomic.
    late: bool,
    /// Thread of each lane.
    tids: [u16; 32],
    /// Per lane that read a word first, the next lane that read it (`NO_LANE`: none).
    second: [u8; 32],
}

/// The `Page::owner` of the words that lane `lane` of run `run` touched.
fn run_owner(run: usize, lane: usize) -> u32 {
    (run * 32 + lane + 1) as u32
}

/// Whether `owner` (a `Page::owner`) is a word of run `run` (`UNTOUCHED` and `DIRECT` wrap to
/// past `MAX_RUNS`, so they are no run's).
#[inline]
fn same_run(owner: u32, run: usize) -> bool {
    owner.wrapping_sub(1) as usize / 32 == run
}

/// The block's record pages, reused by the worker's next block (records of older barrier
/// intervals and summaries of older blocks never match).
pub(crate) struct GlobalShadow {
    index: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
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
    /// This block's runs (`Run`).
    runs: Vec<Run>,
}

impl Default for GlobalShadow {
    fn default() -> Self {
        GlobalShadow {
            index: HashMap::default(),
            pages: Vec::new(),
            used: 0,
            last: (u64::MAX, 0),
            split: Split::default(),
            block: 0,
            capped: false,
            ticketed: false,
            locks: Locks::default(),
            runs: Vec::new(),
        }
    }
}

/// Hashes a page number with one multiplication (Fibonacci hashing, as rustc's FxHasher does):
/// the page index is looked up on most global accesses, its keys are the simulator's own page
/// numbers, and SipHash's defence against chosen keys cost 3% of a transpose's time.
#[derive(Default)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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

/// What a CPU thread's blocks touched in global memory, kept for the cross-block pass.
#[derive(Default)]
pub(crate) struct GlobalRanges {
    pub ranges: Vec<Range>,
    /// Some accesses went untracked (past `MAX_RANGES`, or a block's `MAX_PAGES`).
    pub capped: bool,
}

/// What naming a thread, a source line or a global address needs of the launch (the executor's
/// launch context lends it).
pub(crate) struct LaunchView<'a> {
    pub prog: &'a Program,
    pub mem: &'a GlobalMemory,
    /// The kernel's argument bytes.
    pub params: &'a [u8],
    /// Address and name of each `__device__` variable.
    pub global_names: &'a [(u64, String)],
    pub grid: [u32; 3],
    pub block_dim: [u32; 3],
    pub total_blocks: u64,
}

impl LaunchView<'_> {
    /// The block with linear index `lin`, x fastest.
    pub(crate) fn block_index(&self, lin: u64) -> [u32; 3] {
        let (gx, gy) = (self.grid[0] as u64, self.grid[1] as u64);
        [
            (lin % gx) as u32,
            ((lin / gx) % gy) as u32,
            (lin / (gx * gy)) as u32,
        ]
    }

    /// The thread of its block with linear index `lin`, x fastest.
    pub(crate) fn thread_index(&self, lin: u32) -> [u32; 3] {
        let (bx, by) = (self.block_dim[0], self.block_dim[1]);
        [lin % bx, (lin / bx) % by, lin / (bx * by)]
    }
}

impl GlobalShadow {
    /// Starts block `block_lin`'s tracking; `epoch` is its first barrier interval.
    pub(crate) fn begin_block(&mut self, epoch: u32) {
        self.index.clear();
        self.used = 0;
        self.last = (u64::MAX, 0);
        self.block = epoch;
        self.ticketed = false;
        self.locks.begin_block();
        self.runs.clear();
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
                        owner: vec![UNTOUCHED; PAGE_WORDS].into_boxed_slice(),
                        settled: vec![Settled::default(); PAGE_WORDS].into_boxed_slice(),
                    });
                } else {
                    let p = &mut self.pages[s];
                    (p.number, p.lo, p.hi) = (page, PAGE_WORDS, 0);
                    p.owner.fill(UNTOUCHED);
                }
                self.index.insert(page, s as u32);
                s
            }
        };
        self.last = (page, slot);
        Some(slot)
    }

    /// The slot of page `page` if the block has touched it (`slot` without making one).
    #[inline]
    fn present(&mut self, page: u64) -> Option<usize> {
        if self.last.0 != page {
            self.last = (page, *self.index.get(&page)? as usize);
        }
        Some(self.last.1)
    }

    /// Checks and records one lane's access of `len` bytes at `addr` in barrier interval `epoch`;
    /// returns the first conflict with another thread of the block.
    #[inline]
    pub(crate) fn check(
        &mut self,
        epoch: u32,
        addr: u64,
        len: u32,
        acc: &Access,
    ) -> Option<Conflict> {
        let end = addr + len as u64;
        let mut found = None;
        let mut word = addr >> 2;
        while word << 2 < end {
            let Some(slot) = self.slot(word / PAGE_WORDS as u64) else {
                return found;
            };
            let i = (word % PAGE_WORDS as u64) as usize;
            let mask = if len >= 4 {
                0xf
            } else {
                word_mask(addr as usize & 3, (addr as usize & 3) + len as usize, 0)
            };
            if acc.kind == Kind::Atomic {
                self.ticketed = true;
            }
            let section = if acc.kind == Kind::Write {
                self.locks.section(acc.tid)
            } else {
                0
            };
            let settled = self.pages[slot].settled[i];
            if acc.kind == Kind::Read
                && mask == 0xf
                && settled.epoch == epoch
                && (settled.warp == MANY
                    || (settled.warp == acc.tid / 32 && settled.wsync == acc.wsync))
            {
                word += 1;
                continue;
            }
            self.settle(slot, i);
            let touch = Touch {
                epoch,
                mask,
                size: len as u8,
                late: self.ticketed,
                section,
            };
            let c = self.touch(slot, i, &touch, acc);
            found = found.or(c);
            word += 1;
        }
        found
    }

    /// Records one warp instruction's accesses as a `Run` where that is exact: plain loads or
    /// stores of whole words, each lane's above the previous lane's (or, for 4-byte loads, of
    /// the same word as an earlier lane's), by threads that hold no spin lock, of words the block
    /// has not touched (so no conflict is possible). `tids` gives each lane's thread; `acc` the
    /// rest of every lane's access. Returns false, recording nothing, where the accesses must be
    /// checked lane by lane.
    pub(crate) fn check_run(
        &mut self,
        epoch: u32,
        exec: u32,
        addrs: &[u64; 32],
        len: u32,
        acc: &Access,
        tids: &[u16; 32],
    ) -> bool {
        if !matches!(acc.kind, Kind::Read | Kind::Write)
            || !len.is_multiple_of(4)
            || self.runs.len() == MAX_RUNS
        {
            return false;
        }
        if acc.kind == Kind::Read && self.settled_run(epoch, exec, addrs, len, acc, tids) {
            return true;
        }
        let writes = acc.kind == Kind::Write;
        // Loads of one word each may share words; `mark_run` finds which.
        let shares = !writes && len == 4;
        let (mut m, mut next) = (exec, 0);
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let below = addrs[l] < next && !shares;
            if addrs[l] & 3 != 0 || below || (writes && self.locks.holds(tids[l])) {
                return false;
            }
            next = addrs[l] + len as u64;
        }
        let run = self.runs.len();
        let mut second = [NO_LANE; 32];
        if !self.mark_run(run, exec, addrs, len, shares.then_some(&mut second)) {
            return false;
        }
        self.runs.push(Run {
            epoch,
            stamp: acc.stamp,
            wsync: acc.wsync,
            site: acc.site,
            kind: acc.kind,
            size: len as u8,
            late: self.ticketed,
            tids: *tids,
            second,
        });
        true
    }

    /// Whether every word of a warp's plain loads of whole words is settled for its lane's
    /// thread (`Settled`), so that lane by lane `check` would skip each one, changing nothing.
    /// Only tried where the first lane's word is already in a record (`DIRECT`), since a word
    /// that is settled is: SGEMM's later warps reading a row of B that two warps read before
    /// then cost one look at the settled entries instead of a failed run and a loop of checks.
    fn settled_run(
        &mut self,
        epoch: u32,
        exec: u32,
        addrs: &[u64; 32],
        len: u32,
        acc: &Access,
        tids: &[u16; 32],
    ) -> bool {
        if exec == 0 {
            return false;
        }
        let first = addrs[exec.trailing_zeros() as usize] >> 2;
        match self.present(first / PAGE_WORDS as u64) {
            Some(slot)
                if self.pages[slot].owner[(first % PAGE_WORDS as u64) as usize] == DIRECT => {}
            _ => return false,
        }
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            if addrs[l] & 3 != 0 {
                return false;
            }
            for word in addrs[l] >> 2..(addrs[l] + len as u64) >> 2 {
                let Some(slot) = self.present(word / PAGE_WORDS as u64) else {
                    return false;
                };
                let s = self.pages[slot].settled[(word % PAGE_WORDS as u64) as usize];
                let mine = s.warp == MANY || (s.warp == tids[l] / 32 && s.wsync == acc.wsync);
                if s.epoch != epoch || !mine {
                    return false;
                }
            }
        }
        true
    }

    /// Marks the words of the active lanes' accesses as run `run`'s, if none was touched yet
    /// (with `second`, a word an earlier lane of the run marked is shared: it notes the lane that
    /// read it next); otherwise unmarks what it marked and returns false.
    fn mark_run(
        &mut self,
        run: usize,
        exec: u32,
        addrs: &[u64; 32],
        len: u32,
        mut second: Option<&mut [u8; 32]>,
    ) -> bool {
        if let Some(marked) = self.mark_contiguous(run, exec, addrs, len) {
            return marked;
        }
        let mut page = (u64::MAX, 0);
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            for word in addrs[l] >> 2..(addrs[l] + len as u64) >> 2 {
                let number = word / PAGE_WORDS as u64;
                if number != page.0 {
                    let Some(slot) = self.slot(number) else {
                        self.unmark_run(run, exec & !m, addrs, len);
                        return false;
                    };
                    page = (number, slot);
                }
                let p = &mut self.pages[page.1];
                let i = (word % PAGE_WORDS as u64) as usize;
                let owner = p.owner[i];
                if owner != UNTOUCHED {
                    let ours = owner >= run_owner(run, 0) && owner != DIRECT;
                    if let (true, Some(second)) = (ours, second.as_deref_mut()) {
                        let first = (owner - run_owner(run, 0)) as usize;
                        if second[first] == NO_LANE {
                            second[first] = l as u8;
                        }
                        continue;
                    }
                    self.unmark_run(run, exec & !m, addrs, len);
                    return false;
                }
                p.owner[i] = run_owner(run, l);
                (p.lo, p.hi) = (p.lo.min(i), p.hi.max(i + 1));
            }
        }
        true
    }

    /// `mark_run` for the usual case, a full warp's 4-byte accesses of 32 consecutive words of
    /// one page: one test of the 32 owner entries and one pass that marks them, instead of a
    /// page lookup and a test per lane. `None` where the case does not apply (`mark_run` then
    /// goes lane by lane, and also finds any word an earlier access touched).
    fn mark_contiguous(
        &mut self,
        run: usize,
        exec: u32,
        addrs: &[u64; 32],
        len: u32,
    ) -> Option<bool> {
        if exec != u32::MAX || len != 4 {
            return None;
        }
        let first = addrs[0] >> 2;
        let i = (first % PAGE_WORDS as u64) as usize;
        let contiguous = (0..32).all(|l| addrs[l] == addrs[0].wrapping_add(4 * l as u64));
        if !contiguous || i + 32 > PAGE_WORDS {
            return None;
        }
        let slot = self.slot(first / PAGE_WORDS as u64)?;
        let p = &mut self.pages[slot];
        let owners = &mut p.owner[i..i + 32];
        if owners.iter().any(|&o| o != UNTOUCHED) {
            return None;
        }
        for (l, o) in owners.iter_mut().enumerate() {
            *o = run_owner(run, l);
        }
        (p.lo, p.hi) = (p.lo.min(i), p.hi.max(i + 32));
        Some(true)
    }

    /// Undoes `mark_run` for lanes `lanes`.
    fn unmark_run(&mut self, run: usize, lanes: u32, addrs: &[u64; 32], len: u32) {
        for l in (0..32).filter(|l| lanes >> l & 1 != 0) {
            for word in addrs[l] >> 2..(addrs[l] + len as u64) >> 2 {
                let Some(&slot) = self.index.get(&(word / PAGE_WORDS as u64)) else {
                    continue;
                };
                let owner =
                    &mut self.pages[slot as usize].owner[(word % PAGE_WORDS as u64) as usize];
                if *owner == run_owner(run, l) {
                    *owner = UNTOUCHED;
                }
            }
        }
    }

    /// Makes word `i` of page `slot`'s `Word` record hold what the block did to it: a word of a
    /// run gets the record its lane's access would have left.
    fn settle(&mut self, slot: usize, i: usize) {
        let owner = self.pages[slot].owner[i];
        if owner == DIRECT {
            return;
        }
        self.pages[slot].owner[i] = DIRECT;
        if owner == UNTOUCHED {
            return;
        }
        let (run, lane) = ((owner - 1) as usize / 32, (owner - 1) as usize % 32);
        let r = &self.runs[run];
        let acc = Access {
            tid: r.tids[lane],
            wsync: r.wsync,
            stamp: r.stamp,
            site: r.site,
            kind: r.kind,
        };
        let touch = Touch {
            epoch: r.epoch,
            mask: 0xf,
            size: r.size,
            late: r.late,
            section: 0,
        };
        let second = r.second[lane];
        let next = (second != NO_LANE).then(|| r.tids[second as usize]);
        let c = self.touch(slot, i, &touch, &acc);
        debug_assert!(c.is_none(), "a run's words were untouched");
        if let Some(tid) = next {
            let c = self.touch(slot, i, &touch, &Access { tid, ..acc });
            debug_assert!(c.is_none(), "reads of one instruction do not race");
        }
    }

    /// Checks and records `acc` in word `i` of page `slot`.
    #[inline]
    fn touch(&mut self, slot: usize, i: usize, t: &Touch, acc: &Access) -> Option<Conflict> {
        let page = &mut self.pages[slot];
        (page.lo, page.hi) = (page.lo.min(i), page.hi.max(i + 1));
        let g = &mut page.words[i];
        let mask = t.mask;
        if g.block != self.block {
            g.block = self.block;
            (g.plain, g.late, g.atomic, g.read, g.cas_read) = (0, 0, 0, 0, 0);
        }
        let seen = match acc.kind {
            Kind::Atomic => &mut g.atomic,
            Kind::Write => {
                g.late = if t.late {
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
                size: t.size,
            };
        }
        if acc.kind == Kind::Write {
            if *seen == 0 {
                g.w_section = t.section;
            } else if g.w_section != t.section {
                g.w_section = 0;
            }
        }
        *seen |= mask;
        let epoch = t.epoch;
        let c = if g.rec.split == WHOLE && !g.rec.needs_split(epoch, mask, acc.tid) {
            g.rec.check(epoch, mask, acc)
        } else {
            self.split.check(&mut g.rec, epoch, mask, acc)
        };
        page.settled[i] = if g.settled_reads(epoch) {
            Settled {
                epoch,
                wsync: g.rec.r_wsync,
                warp: g.rec.r_warp,
            }
        } else {
            Settled::default()
        };
        c
    }

    /// Turns the block's records into byte ranges for the cross-block pass.
    pub(crate) fn finish_block(&mut self, block_lin: u64, out: &mut GlobalRanges) {
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
            let mut i = page.lo;
            while i < page.hi {
                let (at, owner) = (i, page.owner[i]);
                let base = first_byte + 4 * at as u64;
                i += 1;
                if owner == UNTOUCHED {
                    continue;
                }
                if owner != DIRECT {
                    // A run's word: one kind, the whole word, outside any critical section.
                    let (run, lane) = ((owner - 1) as usize / 32, (owner - 1) as usize % 32);
                    let r = &self.runs[run];
                    let k = match (r.kind, r.late) {
                        (Kind::Write, false) => 3,
                        (Kind::Write, true) => 4,
                        _ => 0,
                    };
                    // The run's next words would each extend this range (same line, no lock):
                    // one pass over their owners instead of a range a word.
                    let mut hi = base + 4;
                    while i < page.hi && same_run(page.owner[i], run) {
                        (hi, i) = (hi + 4, i + 1);
                    }
                    let fresh = Range {
                        lo: base,
                        hi,
                        block: block_lin,
                        site: r.site,
                        tid: r.tids[lane],
                        kind: r.kind,
                        after_ticket: r.late && r.kind == Kind::Write,
                        lock: 0,
                        size: r.size,
                    };
                    add(&mut open[k], fresh, out);
                    continue;
                }
                let g = &page.words[at];
                if g.block != self.block {
                    continue;
                }
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
                    let range = |lo: u64, hi: u64| Range {
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
                    // Whole words (the usual case) extend a range by four bytes at once.
                    if mask == 0xf {
                        add(slot, range(base, base + 4), out);
                    } else {
                        for b in (0..4).filter(|b| mask >> b & 1 != 0) {
                            add(slot, range(base + b, base + b + 1), out);
                        }
                    }
                }
            }
        }
        for r in open.into_iter().flatten() {
            keep(r, out);
        }
        out.capped |= self.capped;
        self.capped = false;
    }
}

/// Extends the open range of a kind by `fresh` where it continues it (same line, same lock), else
/// keeps the open range and opens `fresh`.
#[inline]
fn add(open: &mut Option<Range>, fresh: Range, out: &mut GlobalRanges) {
    match open {
        Some(r) if r.hi == fresh.lo && r.site == fresh.site && r.lock == fresh.lock => {
            r.hi = fresh.hi
        }
        _ => {
            if let Some(r) = open.replace(fresh) {
                keep(r, out);
            }
        }
    }
}

/// Keeps a finished range for the cross-block pass, up to `MAX_RANGES` per CPU thread.
fn keep(r: Range, out: &mut GlobalRanges) {
    if out.ranges.len() < MAX_RANGES {
        out.ranges.push(r);
    } else {
        out.capped = true;
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

/// Overlaps between different blocks' ranges (once per pair of source lines), as diagnostics of
/// the later block of each pair: `(block, key, diagnostic)`.
pub(crate) fn cross_block(l: &LaunchView, mut all: Vec<Range>) -> Vec<(u64, DiagKey, Diagnostic)> {
    if all.is_empty() || l.total_blocks < 2 {
        return Vec::new();
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
    found
        .into_iter()
        .map(|(a, b, key)| {
            let (me, other) = culprit(a, b);
            let at = a.lo.max(b.lo);
            (me.block, key, cross_block_diagnostic(l, &me, &other, at))
        })
        .collect()
}

fn thread_text(l: &LaunchView, block: u64, tid: u16) -> String {
    let t = l.thread_index(tid as u32);
    let b = l.block_index(block);
    format!(
        "thread ({},{},{}) of block ({},{},{})",
        t[0], t[1], t[2], b[0], b[1], b[2]
    )
}

fn line_text(l: &LaunchView, site: u32) -> String {
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

fn cross_block_diagnostic(l: &LaunchView, me: &Range, other: &Range, at: u64) -> Diagnostic {
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
        access: None,
    }
}

/// Where `addr` is, for an access of `size` bytes: an element of the array of the kernel argument
/// pointing closest below it into the same allocation, else of a `__device__` variable.
pub(crate) fn global_place(l: &LaunchView, addr: u64, size: u64) -> RacePlace {
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
pub(crate) fn describe_global(l: &LaunchView, place: &RacePlace) -> String {
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

    const BASE: u64 = 0x10_0000;

    fn access(kind: Kind, tid: u16, stamp: u32, site: u32) -> Access {
        Access {
            tid,
            wsync: 0,
            stamp,
            site,
            kind,
        }
    }

    /// A warp's 32 lanes, lane `l` at `BASE + 4 * l` (8-byte lanes: `BASE + 8 * l`).
    fn warp_addrs(len: u64) -> [u64; 32] {
        std::array::from_fn(|l| BASE + len * l as u64)
    }

    fn tids(warp: u16) -> [u16; 32] {
        std::array::from_fn(|l| warp * 32 + l as u16)
    }

    /// SGEMM's loads: the two half-warps read the same 16 words of a row of B
    /// (`Halves`), or each half-warp one word of A (`Broadcast`); else lane `l` its own element.
    #[derive(Clone, Copy)]
    enum Shape {
        Own,
        Halves,
        Broadcast,
    }

    fn shaped_addrs(shape: Shape, len: u32) -> [u64; 32] {
        match shape {
            Shape::Own => warp_addrs(len as u64),
            Shape::Halves => std::array::from_fn(|l| BASE + 4 * (l % 16) as u64),
            Shape::Broadcast => std::array::from_fn(|l| BASE + 4 * (l / 16) as u64),
        }
    }

    /// Records warp `warp`'s access as a run (`as_run`) or lane by lane, as `track_global` would
    /// without the run; returns whether it became a run and the conflicts the lanes found.
    fn warp_access(
        g: &mut GlobalShadow,
        as_run: bool,
        epoch: u32,
        kind: Kind,
        warp: u16,
        len: u32,
        stamp: u32,
    ) -> (bool, Vec<(u16, u32)>) {
        shaped_access(g, as_run, (epoch, kind, warp, len, Shape::Own), stamp)
    }

    /// `warp_access` with the lanes' addresses shaped by `Shape`.
    fn shaped_access(
        g: &mut GlobalShadow,
        as_run: bool,
        (epoch, kind, warp, len, shape): (u32, Kind, u16, u32, Shape),
        stamp: u32,
    ) -> (bool, Vec<(u16, u32)>) {
        let addrs = shaped_addrs(shape, len);
        let acc = access(kind, 0, stamp, 1);
        if as_run && g.check_run(epoch, u32::MAX, &addrs, len, &acc, &tids(warp)) {
            return (true, Vec::new());
        }
        let found = (0..32)
            .filter_map(|l| {
                let acc = access(kind, tids(warp)[l], stamp, 1);
                g.check(epoch, addrs[l], len, &acc)
            })
            .map(|c| (c.tid, c.site))
            .collect();
        (false, found)
    }

    /// What one block's accesses left for the cross-block pass.
    fn ranges(g: &mut GlobalShadow) -> String {
        let mut out = GlobalRanges::default();
        g.finish_block(0, &mut out);
        format!("{:?}", out.ranges)
    }

    /// Three warps store 32 words each, side by side (warp 0 from line 1, warps 1 and 2 from
    /// line 2), then after a barrier a thread of warp 3 reads a word in the middle of warp 2's.
    fn neighbouring_runs(as_run: bool) -> Vec<Range> {
        let mut g = GlobalShadow::default();
        g.begin_block(1);
        for (warp, site) in [(0u16, 1u32), (1, 2), (2, 2)] {
            let addrs: [u64; 32] =
                std::array::from_fn(|l| BASE + 4 * (32 * warp as u64 + l as u64));
            let stamp = warp as u32 + 1;
            let acc = access(Kind::Write, 0, stamp, site);
            if as_run && g.check_run(1, u32::MAX, &addrs, 4, &acc, &tids(warp)) {
                continue;
            }
            for (l, &tid) in tids(warp).iter().enumerate() {
                let acc = access(Kind::Write, tid, stamp, site);
                assert!(g.check(1, addrs[l], 4, &acc).is_none());
            }
        }
        let read = access(Kind::Read, 96, 4, 3);
        assert!(g.check(2, BASE + 4 * 70, 4, &read).is_none());
        let mut out = GlobalRanges::default();
        g.finish_block(0, &mut out);
        out.ranges
    }

    #[test]
    fn a_runs_words_become_the_ranges_its_lanes_records_would() {
        let (runs, lanes) = (neighbouring_runs(true), neighbouring_runs(false));
        assert_eq!(format!("{runs:?}"), format!("{lanes:?}"));
        // Line 1's 32 words; line 2's 64 (warps 1 and 2 merge, across the word in a record);
        // the read.
        let spans: Vec<_> = runs.iter().map(|r| (r.site, r.hi - r.lo)).collect();
        assert_eq!(spans, [(1, 128), (3, 4), (2, 256)]);
    }

    #[test]
    fn a_warps_own_words_are_one_run_and_no_word_records() {
        let mut g = GlobalShadow::default();
        g.begin_block(1);
        assert!(warp_access(&mut g, true, 1, Kind::Write, 0, 4, 1).0);
        assert_eq!(g.runs.len(), 1);
        assert!(g.pages[0].words.iter().all(|w| w.block != g.block));
        // The same words again (another warp, or the same after a barrier) are not fresh.
        assert!(!warp_access(&mut g, true, 1, Kind::Read, 1, 4, 2).0);
        assert!(!warp_access(&mut g, true, 2, Kind::Read, 0, 4, 3).0);
    }

    #[test]
    fn reads_by_several_warps_settle_and_a_write_still_names_the_first_reader() {
        let mut g = GlobalShadow::default();
        g.begin_block(1);
        warp_access(&mut g, false, 1, Kind::Read, 0, 4, 1);
        assert_eq!(g.pages[0].settled[0].epoch, 0, "one reader");
        warp_access(&mut g, false, 1, Kind::Read, 1, 4, 2);
        assert_eq!(g.pages[0].settled[0].epoch, 1);
        assert_eq!(g.pages[0].settled[0].warp, MANY);
        warp_access(&mut g, false, 1, Kind::Read, 2, 4, 3);
        let (_, found) = warp_access(&mut g, false, 1, Kind::Write, 3, 4, 4);
        assert_eq!(found[0], (0, 1), "thread 0 read word 0 first");
        assert_eq!(g.pages[0].settled[0].epoch, 0, "written");
        // The next barrier interval starts afresh.
        warp_access(&mut g, false, 2, Kind::Read, 0, 4, 5);
        assert_eq!(g.pages[0].settled[0].epoch, 0);
        // Lanes of one warp reading one word (a broadcast) settle it for that warp.
        let read = |tid| access(Kind::Read, tid, 6, 1);
        assert!(g.check(3, BASE + 128, 4, &read(0)).is_none());
        assert!(g.check(3, BASE + 128, 4, &read(1)).is_none());
        let s = g.pages[0].settled[32];
        assert_eq!((s.epoch, s.warp), (3, 0));
    }

    #[test]
    fn a_run_is_refused_where_lanes_share_words_they_write_or_update_atomically() {
        let mut g = GlobalShadow::default();
        g.begin_block(1);
        let addrs = shaped_addrs(Shape::Halves, 4);
        let write = access(Kind::Write, 0, 1, 1);
        assert!(!g.check_run(1, u32::MAX, &addrs, 4, &write, &tids(0)));
        let read = access(Kind::Read, 0, 1, 1);
        let pairs =
            [[0u64, 8, 0, 8], [0, 0, 8, 8]].map(|p| std::array::from_fn(|l| BASE + p[l % 4]));
        assert!(!g.check_run(1, u32::MAX, &pairs[0], 8, &read, &tids(0)));
        let atomic = access(Kind::Atomic, 0, 1, 1);
        assert!(!g.check_run(1, u32::MAX, &warp_addrs(4), 4, &atomic, &tids(0)));
        let bytes = warp_addrs(1);
        assert!(!g.check_run(1, u32::MAX, &bytes, 1, &read, &tids(0)));
        // The last lane's word was touched: the lanes before it leave no mark.
        assert!(g
            .check(1, BASE + 4 * 31, 4, &access(Kind::Read, 99, 2, 1))
            .is_none());
        assert!(!g.check_run(1, u32::MAX, &warp_addrs(4), 4, &read, &tids(0)));
        assert!(g.pages[0].owner[..31].iter().all(|&o| o == UNTOUCHED));
        assert!(!g.check_run(1, u32::MAX, &pairs[1], 8, &read, &tids(0)));
        assert!(g.pages[0].owner[..31].iter().all(|&o| o == UNTOUCHED));
        assert!(g.runs.is_empty());
    }

    #[test]
    fn lanes_loading_one_word_share_it_in_a_run() {
        let mut g = GlobalShadow::default();
        g.begin_block(1);
        assert!(shaped_access(&mut g, true, (1, Kind::Read, 0, 4, Shape::Halves), 1).0);
        let r = &g.runs[0];
        assert_eq!((r.second[0], r.second[15], r.second[16]), (16, 31, NO_LANE));
        assert_eq!(g.pages[0].owner[15], run_owner(0, 15));
        assert_eq!(g.pages[0].owner[16], UNTOUCHED);
        // A second warp's read makes the record both lanes would have left, and settles it.
        let read = access(Kind::Read, 32, 2, 1);
        assert!(g.check(1, BASE, 4, &read).is_none());
        let rec = &g.pages[0].words[0].rec;
        assert_eq!((rec.r_tid, rec.ro_tid, rec.r_warp), (0, 16, MANY));
        assert_eq!(g.pages[0].settled[0].warp, MANY);
    }

    #[test]
    fn a_run_finds_and_leaves_what_lane_by_lane_tracking_does() {
        // Each script: a warp's first access (a run where allowed), then other accesses of the
        // block to its words.
        type Step = (u32, Kind, u16, u32, Shape);
        let owned = |(epoch, kind, warp, len)| (epoch, kind, warp, len, Shape::Own);
        let (own, halves, broadcast) = (Shape::Own, Shape::Halves, Shape::Broadcast);
        let shared: [&[Step]; 6] = [
            &[
                (1, Kind::Read, 0, 4, halves),
                (1, Kind::Write, 1, 4, halves),
            ],
            &[
                (1, Kind::Read, 0, 4, halves),
                (1, Kind::Write, 0, 4, halves),
            ],
            &[
                (1, Kind::Read, 0, 4, halves),
                (1, Kind::Read, 1, 4, halves),
                (1, Kind::Read, 2, 4, own),
                (1, Kind::Atomic, 0, 4, broadcast),
            ],
            &[
                (1, Kind::Read, 0, 4, broadcast),
                (1, Kind::Read, 0, 4, broadcast),
                (1, Kind::Write, 0, 4, own),
            ],
            &[
                (1, Kind::Read, 0, 4, broadcast),
                (2, Kind::Read, 1, 4, halves),
                (2, Kind::Write, 2, 4, broadcast),
            ],
            &[
                (1, Kind::Read, 0, 4, broadcast),
                (1, Kind::Write, 1, 8, own),
            ],
        ];
        let scripts: [&[(u32, Kind, u16, u32)]; 8] = [
            &[(1, Kind::Write, 0, 4), (1, Kind::Read, 1, 4)],
            &[(1, Kind::Read, 0, 4), (1, Kind::Write, 2, 4)],
            &[(1, Kind::Write, 0, 4), (1, Kind::Write, 0, 4)],
            &[
                (1, Kind::Write, 0, 8),
                (2, Kind::Read, 1, 8),
                (2, Kind::Write, 3, 8),
            ],
            &[
                (1, Kind::Read, 0, 4),
                (1, Kind::Read, 1, 4),
                (1, Kind::Atomic, 2, 4),
            ],
            &[
                (1, Kind::Write, 0, 4),
                (1, Kind::Atomic, 1, 4),
                (1, Kind::Write, 2, 4),
            ],
            &[(1, Kind::Read, 0, 4)],
            &[
                (1, Kind::Read, 0, 4),
                (1, Kind::Read, 1, 4),
                (1, Kind::Read, 2, 8),
                (1, Kind::Write, 3, 4),
            ],
        ];
        let scripts = scripts
            .iter()
            .map(|s| s.iter().map(|&step| owned(step)).collect::<Vec<Step>>())
            .chain(shared.iter().map(|s| s.to_vec()));
        let mut races = 0;
        for script in scripts {
            let run = |as_run: bool| {
                let mut g = GlobalShadow::default();
                g.begin_block(1);
                let mut found = Vec::new();
                for (stamp, &step) in script.iter().enumerate() {
                    let first = stamp == 0 && as_run;
                    let (ran, f) = shaped_access(&mut g, first, step, stamp as u32);
                    assert_eq!(ran, first);
                    found.push(f);
                }
                (found, ranges(&mut g))
            };
            let lane_by_lane = run(false);
            races += lane_by_lane.0.iter().flatten().count();
            assert_eq!(run(true), lane_by_lane);
        }
        assert!(races > 0, "the scripts race");
    }

    #[test]
    fn reads_of_settled_words_are_taken_per_warp_and_leave_what_lane_by_lane_does() {
        // SGEMM's row of B: warp 0's read is a run, warp 1's settles the words for every warp,
        // the later warps' reads are taken whole; then a write races with the readers. And
        // A's broadcast words, once settled for warp 0 alone, are taken whole for warp 0 only.
        let halves = |warp| (1, Kind::Read, warp, 4, Shape::Halves);
        let broadcast = |warp| (1, Kind::Read, warp, 4, Shape::Broadcast);
        let mut b_row: Vec<_> = (0..8).map(|w| (halves(w), w != 1)).collect();
        b_row.push(((1, Kind::Write, 8, 4, Shape::Own), false));
        let a_word = [
            (broadcast(0), true),
            (broadcast(0), false),
            (broadcast(0), true),
            (broadcast(1), false),
            (broadcast(2), true),
            ((1, Kind::Write, 3, 4, Shape::Own), false),
        ];
        for script in [&b_row[..], &a_word[..]] {
            let run = |as_run: bool| {
                let mut g = GlobalShadow::default();
                g.begin_block(1);
                let mut found = Vec::new();
                for (stamp, &(step, taken)) in script.iter().enumerate() {
                    let (ran, f) = shaped_access(&mut g, as_run, step, stamp as u32);
                    assert_eq!(ran, as_run && taken, "step {stamp}");
                    found.push(f);
                }
                (found, ranges(&mut g))
            };
            let lane_by_lane = run(false);
            assert!(
                lane_by_lane.0.iter().flatten().count() > 0,
                "the write races"
            );
            assert_eq!(run(true), lane_by_lane);
        }
    }

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
