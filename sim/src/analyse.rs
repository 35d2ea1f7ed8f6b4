//! Race detection. A shadow record per 4-byte word remembers the last writer and the readers since
//! the last barrier, so each access is checked in constant time; shared memory has one record per
//! word of the block's shared memory, global memory a record per word that the block touched
//! (`global`), plus a pass after the launch that compares what different blocks touched.
//!
//! Two accesses race when they touch a common byte in the same barrier interval, come from
//! different threads, their kinds conflict (`Kind::races_with`: a plain store with anything, a
//! plain load with an atomic; atomics among themselves never, nor the load a compare-and-swap
//! loop starts with against atomics, see `cas_reads`), and they are not ordered:
//! lanes of one warp are ordered only within one instruction or across a `__syncwarp()` (under
//! independent thread scheduling a warp's lanes need not run in step, so the classic
//! warp-synchronous `volatile` reduction is reported).
//!
//! Tracking is exact per byte. A word's record stands for all its bytes while one thread has used
//! it in the current barrier interval, or several threads have each used the whole word (the
//! usual one-thread-per-word pattern: one record, one check). When threads share a word at byte
//! granularity (`unsigned char` or `short` arrays, one element per thread) the word splits into
//! four byte records, taken from a side table, until the next barrier interval that touches it.

pub(crate) mod cas_reads;
pub(crate) mod global;
pub(crate) mod locks;
pub(crate) mod provenance;

/// Thread ids are below 1024; this marks "several readers".
const MANY: u16 = u16::MAX;
/// `Rec::split` of a word that has no byte records.
const WHOLE: u32 = u32::MAX;

/// What the accesses to one word (or one byte) did in the current barrier interval: the last
/// plain write, the atomics, and the reads, each with one thread and line that did it.
#[derive(Clone, Copy)]
struct Rec {
    w_epoch: u32,
    w_stamp: u32,
    w_wsync: u32,
    w_site: u32,
    a_epoch: u32,
    a_wsync: u32,
    a_site: u32,
    r_epoch: u32,
    r_wsync: u32,
    r_site: u32,
    /// Another thread's atomic (when `a_many`) and another reader (when `r_many`; plain where
    /// any other reader was), with their lines: a race report names one thread, not "others".
    ao_site: u32,
    ro_site: u32,
    /// Index of the word's byte records in `Split`, or `WHOLE`.
    split: u32,
    w_tid: u16,
    /// The first thread that updated the word atomically in this interval.
    a_tid: u16,
    /// The atomics' warp, or `MANY`.
    a_warp: u16,
    /// The first reader in this interval; the first plain reader once there is one.
    r_tid: u16,
    /// The readers' warp, or `MANY`.
    r_warp: u16,
    ao_tid: u16,
    ro_tid: u16,
    w_mask: u8,
    a_mask: u8,
    r_mask: u8,
    a_many: bool,
    r_many: bool,
    /// Some read in this interval was plain (not the expected value of a compare-and-swap).
    r_plain: bool,
    /// Plain reads came from several threads.
    rp_many: bool,
    ro_plain: bool,
}

impl Default for Rec {
    fn default() -> Self {
        Rec {
            w_epoch: 0,
            w_stamp: 0,
            w_wsync: 0,
            w_site: 0,
            a_epoch: 0,
            a_wsync: 0,
            a_site: 0,
            r_epoch: 0,
            r_wsync: 0,
            r_site: 0,
            ao_site: 0,
            ro_site: 0,
            split: WHOLE,
            w_tid: 0,
            a_tid: 0,
            a_warp: 0,
            r_tid: 0,
            r_warp: 0,
            ao_tid: 0,
            ro_tid: 0,
            w_mask: 0,
            a_mask: 0,
            r_mask: 0,
            a_many: false,
            r_many: false,
            r_plain: false,
            rp_many: false,
            ro_plain: false,
        }
    }
}

/// What an access does to memory (the report's type: a race report names both kinds).
pub(crate) use crate::report::AccessKind as Kind;

/// One lane's access.
pub(crate) struct Access {
    /// Thread index within the block.
    pub tid: u16,
    /// The warp's `__syncwarp()` count.
    pub wsync: u32,
    /// Identifies the warp instruction (same stamp: same instruction of the same warp).
    pub stamp: u32,
    pub site: u32,
    pub kind: Kind,
}

/// The earlier access an access races with.
#[derive(Clone, Copy)]
pub(crate) struct Conflict {
    /// The other thread.
    pub tid: u16,
    pub site: u32,
    pub kind: Kind,
}

impl Conflict {
    /// Both accesses store plain values to the same bytes: no barrier makes that right, one of the
    /// two indices is wrong (or the update needs an atomic).
    pub(crate) fn is_write_write(&self, acc: &Access) -> bool {
        self.kind == Kind::Write && acc.kind == Kind::Write
    }
}

impl Rec {
    /// Whether recording `acc` (touching the bytes in `mask`) in this word's single record would
    /// lose what another thread did at byte granularity in this interval.
    #[inline]
    fn needs_split(&self, epoch: u32, mask: u8, tid: u16) -> bool {
        let writer = self.w_epoch == epoch && self.w_tid != tid && (mask & self.w_mask) != 0xf;
        let atomics = self.a_epoch == epoch
            && (self.a_many || self.a_tid != tid)
            && (mask & self.a_mask) != 0xf;
        let readers = self.r_epoch == epoch
            && (self.r_many || self.r_tid != tid)
            && (mask & self.r_mask) != 0xf;
        writer || atomics || readers
    }

    /// The record of byte `b` of this word, when the word's record still stands for all bytes.
    fn byte(&self, b: u32) -> Rec {
        let mut r = *self;
        r.split = WHOLE;
        r.w_mask = (self.w_mask >> b) & 1;
        r.a_mask = (self.a_mask >> b) & 1;
        r.r_mask = (self.r_mask >> b) & 1;
        if r.w_mask == 0 {
            r.w_epoch = 0;
        }
        if r.a_mask == 0 {
            r.a_epoch = 0;
        }
        if r.r_mask == 0 {
            r.r_epoch = 0;
        }
        r
    }

    /// The first earlier access of this interval that `acc` races with: the plain write, then the
    /// atomics, then the reads.
    #[inline]
    fn conflict(&self, epoch: u32, mask: u8, acc: &Access) -> Option<Conflict> {
        let s = self;
        let warp = acc.tid / 32;
        // Lanes of one warp are ordered by a `__syncwarp()` between them.
        let synced =
            |other_warp: u16, other_wsync: u32| other_warp == warp && other_wsync != acc.wsync;
        if s.w_epoch == epoch && s.w_tid != acc.tid && s.w_mask & mask != 0 {
            let same_warp = s.w_tid / 32 == warp;
            let ordered = same_warp && (s.w_stamp == acc.stamp || s.w_wsync != acc.wsync);
            if !ordered {
                return Some(Conflict {
                    tid: s.w_tid,
                    site: s.w_site,
                    kind: Kind::Write,
                });
            }
        }
        if acc.kind.races_with(Kind::Atomic)
            && s.a_epoch == epoch
            && s.a_mask & mask != 0
            && (s.a_many || s.a_tid != acc.tid)
            && !synced(s.a_warp, s.a_wsync)
        {
            let (tid, site) = if s.a_tid != acc.tid {
                (s.a_tid, s.a_site)
            } else {
                (s.ao_tid, s.ao_site)
            };
            return Some(Conflict {
                tid,
                site,
                kind: Kind::Atomic,
            });
        }
        if acc.kind.writes() && s.r_epoch == epoch && s.r_mask & mask != 0 {
            let any_reader = acc.kind.races_with(Kind::CasRead);
            let others = if any_reader {
                s.r_many || s.r_tid != acc.tid
            } else {
                s.r_plain && (s.rp_many || s.r_tid != acc.tid)
            };
            if others && !synced(s.r_warp, s.r_wsync) {
                // The representative reader, or the other one when it is this thread (plain
                // where any other plain reader was, which is what an atomic races with).
                let (tid, site, plain) = if s.r_tid != acc.tid {
                    (s.r_tid, s.r_site, s.r_plain)
                } else {
                    (s.ro_tid, s.ro_site, s.ro_plain)
                };
                let kind = if plain { Kind::Read } else { Kind::CasRead };
                return Some(Conflict { tid, site, kind });
            }
        }
        None
    }

    #[inline]
    fn check(&mut self, epoch: u32, mask: u8, acc: &Access) -> Option<Conflict> {
        let conflict = self.conflict(epoch, mask, acc);
        let s = self;
        let warp = acc.tid / 32;
        match acc.kind {
            Kind::Write => {
                if s.w_epoch == epoch && s.w_tid == acc.tid {
                    s.w_mask |= mask;
                } else {
                    s.w_mask = mask;
                }
                s.w_epoch = epoch;
                s.w_tid = acc.tid;
                s.w_stamp = acc.stamp;
                s.w_wsync = acc.wsync;
                s.w_site = acc.site;
            }
            Kind::Atomic => {
                if s.a_epoch != epoch {
                    s.a_epoch = epoch;
                    s.a_tid = acc.tid;
                    s.a_site = acc.site;
                    s.a_warp = warp;
                    s.a_mask = mask;
                    s.a_many = false;
                } else {
                    if s.a_tid != acc.tid && !s.a_many {
                        (s.ao_tid, s.ao_site, s.a_many) = (acc.tid, acc.site, true);
                    }
                    if s.a_warp != warp {
                        s.a_warp = MANY;
                    }
                    s.a_mask |= mask;
                }
                s.a_wsync = acc.wsync;
            }
            Kind::Read | Kind::CasRead => {
                let plain = acc.kind == Kind::Read;
                if s.r_epoch != epoch {
                    s.r_epoch = epoch;
                    s.r_tid = acc.tid;
                    s.r_site = acc.site;
                    s.r_warp = warp;
                    s.r_mask = mask;
                    s.r_many = false;
                    s.r_plain = plain;
                    s.rp_many = false;
                } else {
                    note_reader(s, acc, plain);
                    if s.r_warp != warp {
                        s.r_warp = MANY;
                    }
                    s.r_mask |= mask;
                }
                s.r_wsync = acc.wsync;
            }
        }
        conflict
    }
}

/// Records one more read of the current interval. The first plain reader stands for the readers
/// (only a plain read races with atomics); `ro_*` keeps another reader, plain where one was.
fn note_reader(s: &mut Rec, acc: &Access, plain: bool) {
    if plain && !s.r_plain {
        let (old_tid, old_site) = (s.r_tid, s.r_site);
        (s.r_tid, s.r_site, s.r_plain, s.rp_many) = (acc.tid, acc.site, true, false);
        if old_tid != acc.tid && (!s.r_many || s.ro_tid == acc.tid) {
            (s.ro_tid, s.ro_site, s.ro_plain) = (old_tid, old_site, false);
            s.r_many = true;
        }
    } else if acc.tid != s.r_tid {
        s.rp_many |= plain && s.r_plain;
        if !s.r_many || (plain && !s.ro_plain) {
            (s.ro_tid, s.ro_site, s.ro_plain) = (acc.tid, acc.site, plain);
        }
        s.r_many = true;
    }
}

/// Byte records of the words that threads share at byte granularity.
#[derive(Default)]
struct Split {
    bytes: Vec<[Rec; 4]>,
    /// The last barrier interval that touched each entry: older entries are stale.
    epoch: Vec<u32>,
    free: Vec<u32>,
}

impl Split {
    /// Checks and records an access to the bytes `mask` of the word whose record is `word`.
    #[inline]
    fn check(&mut self, word: &mut Rec, epoch: u32, mask: u8, acc: &Access) -> Option<Conflict> {
        if word.split != WHOLE {
            let i = word.split as usize;
            if self.epoch[i] == epoch {
                return self.check_bytes(i, epoch, mask, acc);
            }
            // Nothing of this interval is in the byte records: the word is whole again.
            self.free.push(word.split);
            *word = Rec::default();
        }
        if !word.needs_split(epoch, mask, acc.tid) {
            return word.check(epoch, mask, acc);
        }
        let bytes = std::array::from_fn(|b| word.byte(b as u32));
        let i = match self.free.pop() {
            Some(i) => {
                self.bytes[i as usize] = bytes;
                i
            }
            None => {
                self.bytes.push(bytes);
                self.epoch.push(0);
                (self.bytes.len() - 1) as u32
            }
        };
        word.split = i;
        self.check_bytes(i as usize, epoch, mask, acc)
    }

    fn check_bytes(&mut self, i: usize, epoch: u32, mask: u8, acc: &Access) -> Option<Conflict> {
        self.epoch[i] = epoch;
        let mut found = None;
        for (b, rec) in self.bytes[i].iter_mut().enumerate() {
            if mask >> b & 1 != 0 {
                let c = rec.check(epoch, 1, acc);
                found = found.or(c);
            }
        }
        found
    }
}

/// The bytes of word `word` that `[addr, end)` covers, as a 4-bit mask.
#[inline]
fn word_mask(addr: usize, end: usize, word: usize) -> u8 {
    let lo = addr.max(word << 2) - (word << 2);
    let hi = (end - (word << 2)).min(4);
    ((1u16 << hi) - (1u16 << lo)) as u8
}

/// The race shadow of one block's shared memory (reused by the worker's next block: records of
/// older barrier intervals never match).
#[derive(Default)]
pub(crate) struct RaceShadow {
    words: Vec<Rec>,
    split: Split,
}

impl RaceShadow {
    pub(crate) fn resize(&mut self, shared_bytes: usize) {
        self.words = vec![Rec::default(); shared_bytes.div_ceil(4) + 4];
        self.split = Split::default();
    }

    /// Checks and records an access of `len` bytes at byte offset `addr` in barrier interval
    /// `epoch`; returns the first conflict found.
    #[inline]
    pub(crate) fn check(
        &mut self,
        epoch: u32,
        addr: usize,
        len: usize,
        acc: &Access,
    ) -> Option<Conflict> {
        if len == 4 && addr & 3 == 0 {
            let w = &mut self.words[addr >> 2];
            if w.split == WHOLE && !w.needs_split(epoch, 0xf, acc.tid) {
                return w.check(epoch, 0xf, acc);
            }
        }
        let mut found = None;
        let end = addr + len;
        for word in addr >> 2..end.div_ceil(4) {
            let mask = word_mask(addr, end, word);
            let c = self.split.check(&mut self.words[word], epoch, mask, acc);
            found = found.or(c);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(tid: u16, write: bool, stamp: u32) -> Access {
        Access {
            tid,
            wsync: 0,
            stamp,
            site: 1,
            kind: if write { Kind::Write } else { Kind::Read },
        }
    }

    fn with(kind: Kind, tid: u16, stamp: u32) -> Access {
        Access {
            kind,
            ..acc(tid, false, stamp)
        }
    }

    fn shadow() -> RaceShadow {
        let mut s = RaceShadow::default();
        s.resize(64);
        s
    }

    #[test]
    fn write_then_read_by_another_warp_races_until_a_barrier() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &acc(0, true, 1)).is_none());
        assert!(s.check(1, 0, 4, &acc(40, false, 2)).is_some());
        assert!(s.check(2, 0, 4, &acc(40, false, 3)).is_none());
    }

    #[test]
    fn one_thread_or_one_instruction_does_not_race() {
        let mut s = shadow();
        assert!(s.check(1, 8, 4, &acc(3, true, 1)).is_none());
        assert!(s.check(1, 8, 4, &acc(3, false, 2)).is_none());
        assert!(s.check(1, 8, 4, &acc(3, true, 3)).is_none());
        assert!(s.check(1, 16, 4, &acc(3, true, 4)).is_none());
        assert!(
            s.check(1, 16, 4, &acc(4, true, 4)).is_none(),
            "same warp, same instruction"
        );
        assert!(
            s.check(1, 16, 4, &acc(5, true, 5)).is_some(),
            "same warp, next instruction"
        );
    }

    #[test]
    fn different_bytes_of_a_word_do_not_race() {
        let mut s = shadow();
        assert!(s.check(1, 0, 1, &acc(0, true, 1)).is_none());
        assert!(s.check(1, 1, 1, &acc(64, true, 2)).is_none());
        assert!(s.check(1, 1, 1, &acc(96, false, 3)).is_some());
        assert!(s.check(1, 0, 1, &acc(96, false, 3)).is_some());
        assert!(s.check(1, 2, 1, &acc(96, false, 3)).is_none());
    }

    #[test]
    fn each_thread_its_own_byte_read_then_written() {
        let mut s = shadow();
        for t in 0..8u16 {
            assert!(s.check(1, t as usize, 1, &acc(t * 40, false, 1)).is_none());
        }
        for t in 0..8u16 {
            assert!(s.check(1, t as usize, 1, &acc(t * 40, true, 2)).is_none());
        }
        // A word read of bytes that four threads wrote.
        let c = s.check(1, 4, 4, &acc(500, false, 3)).expect("a race");
        assert!(c.kind == Kind::Write && c.tid != 500);
    }

    #[test]
    fn a_split_word_is_whole_again_after_a_barrier() {
        let mut s = shadow();
        assert!(s.check(1, 0, 2, &acc(0, true, 1)).is_none());
        assert!(s.check(1, 2, 2, &acc(40, true, 2)).is_none());
        assert!(s.check(2, 0, 4, &acc(80, false, 3)).is_none());
        assert!(s.words[0].split == WHOLE);
        assert!(s.check(2, 0, 4, &acc(120, true, 4)).is_some());
    }

    #[test]
    fn whole_word_readers_then_a_byte_writer_race() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &acc(0, false, 1)).is_none());
        assert!(s.check(1, 0, 4, &acc(40, false, 2)).is_none());
        let c = s.check(1, 3, 1, &acc(80, true, 3)).expect("a race");
        assert_eq!(c.kind, Kind::Read);
    }

    #[test]
    fn syncwarp_orders_lanes_of_a_warp() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &acc(1, true, 1)).is_none());
        assert!(s.check(1, 0, 4, &acc(0, false, 2)).is_some());
        let mut later = acc(2, false, 3);
        later.wsync = 1;
        assert!(s.check(1, 0, 4, &later).is_none());
    }

    #[test]
    fn atomics_among_themselves_never_race() {
        let mut s = shadow();
        for t in [0, 40, 300, 1] {
            assert!(s.check(1, 0, 4, &with(Kind::Atomic, t, t as u32)).is_none());
        }
    }

    #[test]
    fn a_cas_loops_first_read_does_not_race_with_atomics() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &with(Kind::CasRead, 0, 1)).is_none());
        assert!(s.check(1, 0, 4, &with(Kind::CasRead, 40, 2)).is_none());
        assert!(s.check(1, 0, 4, &with(Kind::Atomic, 40, 3)).is_none());
        assert!(s.check(1, 0, 4, &with(Kind::CasRead, 80, 4)).is_none());
        assert!(s.check(1, 0, 4, &with(Kind::Atomic, 0, 5)).is_none());
    }

    #[test]
    fn a_plain_read_races_with_another_threads_atomic_either_way() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &with(Kind::Atomic, 0, 1)).is_none());
        let c = s.check(1, 0, 4, &with(Kind::Read, 40, 2)).expect("a race");
        assert_eq!((c.kind, c.tid), (Kind::Atomic, 0));

        let mut s = shadow();
        assert!(s.check(1, 4, 4, &with(Kind::CasRead, 64, 1)).is_none());
        assert!(s.check(1, 4, 4, &with(Kind::Read, 40, 2)).is_none());
        let c = s.check(1, 4, 4, &with(Kind::Atomic, 0, 3)).expect("a race");
        assert_eq!((c.kind, c.tid, c.site), (Kind::Read, 40, 1));
    }

    #[test]
    fn a_plain_write_races_with_a_cas_read_and_with_atomics() {
        let mut s = shadow();
        assert!(s.check(1, 0, 4, &with(Kind::CasRead, 0, 1)).is_none());
        let c = s.check(1, 0, 4, &with(Kind::Write, 40, 2)).expect("a race");
        assert_eq!((c.kind, c.tid), (Kind::CasRead, 0));

        let mut s = shadow();
        assert!(s.check(1, 0, 4, &with(Kind::Atomic, 3, 1)).is_none());
        let c = s.check(1, 0, 4, &with(Kind::Write, 40, 2)).expect("a race");
        assert_eq!((c.kind, c.tid), (Kind::Atomic, 3));
    }

    #[test]
    fn a_plain_write_is_remembered_after_the_same_threads_atomic() {
        // `if (i == 0) *count = 0;` then `atomicAdd(count, 1)` by every thread: thread 0's own
        // atomic must not hide its plain write from the next thread's atomic.
        let mut s = shadow();
        let mut write = with(Kind::Write, 0, 1);
        write.site = 7;
        assert!(s.check(1, 0, 4, &write).is_none());
        assert!(s.check(1, 0, 4, &with(Kind::Atomic, 0, 2)).is_none());
        let c = s.check(1, 0, 4, &with(Kind::Atomic, 1, 2)).expect("a race");
        assert_eq!((c.kind, c.tid, c.site), (Kind::Write, 0, 7));
    }

    #[test]
    fn a_reader_is_named_with_its_own_line() {
        let mut s = shadow();
        let mut first = with(Kind::Read, 40, 1);
        first.site = 3;
        assert!(s.check(1, 0, 4, &first).is_none());
        let mut second = with(Kind::Read, 80, 2);
        second.site = 9;
        assert!(s.check(1, 0, 4, &second).is_none());
        let c = s.check(1, 0, 4, &with(Kind::Write, 0, 3)).expect("a race");
        assert_eq!((c.tid, c.site), (40, 3));
    }
}
