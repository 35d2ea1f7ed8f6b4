//! Spin locks, recognised from the accesses: which plain writes a lock orders between blocks.
//!
//! A thread takes a lock when it changes a word with a compare-and-swap or an exchange
//! (`atomicCAS(lock, 0, 1)` returning 0, `atomicExch(lock, 1)` returning 0), and gives it back
//! when it next writes that word with the value it found there (`atomicExch(lock, 0)`, or a
//! plain `*lock = 0` after a fence). What it writes in between is a critical section. Only a
//! section given back this way counts: a compare-and-swap loop that adds to a word also changes
//! it, but never puts the old value back, so it orders nothing.
//!
//! Blocks run one at a time in a kernel with global atomics, so two blocks' sections on one
//! lock never overlap here; on a GPU the lock makes them take turns. Two plain writes made in
//! sections of the same lock are therefore ordered, where the kernel publishes them with a fence
//! (see `global`). Inside a block, threads taking turns at a lock are not modelled.

/// The lock a thread holds, and the value that gives it back.
#[derive(Clone, Copy, Default)]
struct Held {
    /// Index into `Locks::sections` plus one; 0: none.
    section: u32,
    lock: u64,
    restore: u64,
}

/// One critical section: its lock word and whether it was given back.
#[derive(Clone, Copy)]
struct Section {
    lock: u64,
    released: bool,
}

/// A write that may take or give back a lock.
pub(crate) struct LockWrite {
    pub tid: u16,
    pub addr: u64,
    /// The word's value before and after the write.
    pub old: u64,
    pub new: u64,
    /// A compare-and-swap or exchange (the operations that take a lock).
    pub swaps: bool,
}

/// The block's threads' locks and critical sections.
#[derive(Default)]
pub(crate) struct Locks {
    held: Vec<Held>,
    sections: Vec<Section>,
}

impl Locks {
    pub(crate) fn begin_block(&mut self) {
        self.held.clear();
        self.sections.clear();
    }

    /// Whether thread `tid` holds a lock (its writes need `step`).
    #[inline]
    pub(crate) fn holds(&self, tid: u16) -> bool {
        self.held.get(tid as usize).is_some_and(|h| h.section != 0)
    }

    /// The section thread `tid` writes in (0: none), for `lock_of` at the end of the block.
    #[inline]
    pub(crate) fn section(&self, tid: u16) -> u32 {
        self.held.get(tid as usize).map_or(0, |h| h.section)
    }

    /// Takes or gives back a lock for a write of one word.
    pub(crate) fn step(&mut self, w: &LockWrite) {
        let i = w.tid as usize;
        if i >= self.held.len() {
            self.held.resize(i + 1, Held::default());
        }
        let h = self.held[i];
        if h.section != 0 {
            if w.addr == h.lock {
                let s = &mut self.sections[h.section as usize - 1];
                s.released = w.new == h.restore;
                self.held[i] = Held::default();
            }
            return;
        }
        if w.swaps && w.old != w.new {
            self.sections.push(Section {
                lock: w.addr,
                released: false,
            });
            self.held[i] = Held {
                section: self.sections.len() as u32,
                lock: w.addr,
                restore: w.old,
            };
        }
    }

    /// The lock word of section `section` if it was given back; 0 otherwise.
    pub(crate) fn lock_of(&self, section: u32) -> u64 {
        match section
            .checked_sub(1)
            .and_then(|i| self.sections.get(i as usize))
        {
            Some(s) if s.released => s.lock,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(tid: u16, addr: u64, old: u64, new: u64, swaps: bool) -> LockWrite {
        LockWrite {
            tid,
            addr,
            old,
            new,
            swaps,
        }
    }

    #[test]
    fn a_section_counts_once_the_lock_is_given_back() {
        let mut l = Locks::default();
        l.step(&write(0, 64, 0, 1, true));
        let s = l.section(0);
        assert_ne!(s, 0);
        assert_eq!(l.lock_of(s), 0, "not yet given back");
        l.step(&write(0, 128, 5, 6, false));
        assert_eq!(l.section(0), s, "a write elsewhere stays in the section");
        l.step(&write(0, 64, 1, 0, true));
        assert_eq!(l.section(0), 0);
        assert_eq!(l.lock_of(s), 64);
    }

    #[test]
    fn a_cas_loop_that_adds_is_no_lock() {
        let mut l = Locks::default();
        l.step(&write(3, 64, 10, 12, true));
        let s = l.section(3);
        l.step(&write(3, 64, 12, 15, true));
        assert_eq!(l.lock_of(s), 0, "the old value never came back");
    }

    #[test]
    fn a_failed_swap_takes_nothing() {
        let mut l = Locks::default();
        l.step(&write(1, 64, 1, 1, true));
        assert!(!l.holds(1));
    }
}
