//! Race detection on shared memory: a shadow word per 4 bytes of shared memory remembers the last
//! writer and the readers since the last barrier, so each access is checked in constant time.
//!
//! Two accesses race when they touch the same bytes in the same barrier interval, come from
//! different threads, at least one writes, they are not both atomic, and they are not ordered:
//! lanes of one warp are ordered only within one instruction or across a `__syncwarp()` (under
//! independent thread scheduling a warp's lanes need not run in step, so the classic
//! warp-synchronous `volatile` reduction is reported).

/// Thread ids are below 1024; this marks "several readers".
const MANY: u16 = u16::MAX;

#[derive(Clone, Copy, Default)]
struct WordShadow {
    w_epoch: u32,
    w_stamp: u32,
    w_wsync: u32,
    w_site: u32,
    w_tid: u16,
    w_mask: u8,
    w_atomic: bool,
    r_epoch: u32,
    r_wsync: u32,
    r_site: u32,
    /// The first reader in this interval.
    r_tid: u16,
    /// The readers' warp, or `MANY`.
    r_warp: u16,
    r_mask: u8,
    r_many: bool,
}

/// One lane's access.
pub(crate) struct Access {
    /// Thread index within the block.
    pub tid: u16,
    /// The warp's `__syncwarp()` count.
    pub wsync: u32,
    /// Identifies the warp instruction (same stamp: same instruction of the same warp).
    pub stamp: u32,
    pub site: u32,
    pub write: bool,
    pub atomic: bool,
}

/// The earlier access an access races with.
pub(crate) struct Conflict {
    /// The other thread, when known (`None`: several readers).
    pub tid: Option<u16>,
    pub site: u32,
    pub write: bool,
}

#[derive(Default)]
pub(crate) struct RaceShadow {
    words: Vec<WordShadow>,
}

impl RaceShadow {
    pub fn resize(&mut self, shared_bytes: usize) {
        self.words = vec![WordShadow::default(); shared_bytes.div_ceil(4) + 4];
    }

    /// Checks and records an access of `len` bytes at byte offset `addr` in barrier interval
    /// `epoch`; returns the first conflict found.
    #[inline]
    pub fn check(&mut self, epoch: u32, addr: usize, len: usize, acc: &Access) -> Option<Conflict> {
        if len == 4 && addr & 3 == 0 {
            return self.check_word(epoch, addr >> 2, 0xf, acc);
        }
        let mut found = None;
        let end = addr + len;
        let mut a = addr;
        while a < end {
            let word = a >> 2;
            let lo = a & 3;
            let hi = (end - (word << 2)).min(4);
            let mask = ((1u16 << hi) - (1u16 << lo)) as u8;
            let c = self.check_word(epoch, word, mask, acc);
            if found.is_none() {
                found = c;
            }
            a = (word + 1) << 2;
        }
        found
    }

    #[inline]
    fn check_word(&mut self, epoch: u32, word: usize, mask: u8, acc: &Access) -> Option<Conflict> {
        let s = &mut self.words[word];
        let warp = acc.tid / 32;
        let mut conflict = None;
        if s.w_epoch == epoch
            && s.w_tid != acc.tid
            && s.w_mask & mask != 0
            && !(acc.atomic && s.w_atomic)
        {
            let same_warp = s.w_tid / 32 == warp;
            let ordered = same_warp && (s.w_stamp == acc.stamp || s.w_wsync != acc.wsync);
            if !ordered {
                conflict = Some(Conflict {
                    tid: Some(s.w_tid),
                    site: s.w_site,
                    write: true,
                });
            }
        }
        if acc.write {
            if conflict.is_none()
                && s.r_epoch == epoch
                && s.r_mask & mask != 0
                && (s.r_many || s.r_tid != acc.tid)
                && !(s.r_warp == warp && s.r_wsync != acc.wsync)
            {
                let tid = if !s.r_many { Some(s.r_tid) } else { None };
                conflict = Some(Conflict {
                    tid,
                    site: s.r_site,
                    write: false,
                });
            }
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
            s.w_atomic = acc.atomic;
        } else {
            if s.r_epoch != epoch {
                s.r_epoch = epoch;
                s.r_tid = acc.tid;
                s.r_warp = warp;
                s.r_mask = mask;
                s.r_many = false;
            } else {
                if s.r_tid != acc.tid {
                    s.r_many = true;
                }
                if s.r_warp != warp {
                    s.r_warp = MANY;
                }
                s.r_mask |= mask;
            }
            s.r_wsync = acc.wsync;
            s.r_site = acc.site;
        }
        conflict
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
            write,
            atomic: false,
        }
    }

    #[test]
    fn write_then_read_by_another_warp_races_until_a_barrier() {
        let mut s = RaceShadow::default();
        s.resize(64);
        assert!(s.check(1, 0, 4, &acc(0, true, 1)).is_none());
        assert!(s.check(1, 0, 4, &acc(40, false, 2)).is_some());
        assert!(s.check(2, 0, 4, &acc(40, false, 3)).is_none());
    }

    #[test]
    fn one_thread_or_one_instruction_does_not_race() {
        let mut s = RaceShadow::default();
        s.resize(64);
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
        let mut s = RaceShadow::default();
        s.resize(64);
        assert!(s.check(1, 0, 1, &acc(0, true, 1)).is_none());
        assert!(s.check(1, 1, 1, &acc(64, true, 2)).is_none());
        assert!(s.check(1, 1, 1, &acc(96, false, 3)).is_some());
    }

    #[test]
    fn syncwarp_orders_lanes_of_a_warp() {
        let mut s = RaceShadow::default();
        s.resize(64);
        assert!(s.check(1, 0, 4, &acc(1, true, 1)).is_none());
        assert!(s.check(1, 0, 4, &acc(0, false, 2)).is_some());
        let mut later = acc(2, false, 3);
        later.wsync = 1;
        assert!(s.check(1, 0, 4, &later).is_none());
    }
}
