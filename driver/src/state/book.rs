//! The record of managed memory (`contract::Managed`) and which managed blocks device work may
//! still change, kept alike on the simulator and in pass-through mode: both see the same calls
//! (allocations, prefetches, launches, waits, a result handed back), so a program is judged the
//! same way on either. On the simulator a block held this way also keeps its device bytes from
//! the host until the program waits (`mirror`); on a GPU the pages are wherever the GPU put them.

use super::copies::Wait;
use super::Driver;
use contract::{Destination, ManagedStep};
use std::collections::BTreeMap;

/// The managed blocks alive, and those device work holds.
#[derive(Default)]
pub(crate) struct Book {
    /// Live blocks by start: their index in the record and length.
    live: BTreeMap<u64, (usize, u64)>,
    /// Blocks device work was queued on since the program last waited for it: by start, the
    /// stream and order of the latest such work (an event waits for what was queued before it).
    held: BTreeMap<u64, (usize, u64)>,
}

impl Book {
    /// The live block holding byte `at`: its start, index and length.
    fn holding(&self, at: u64) -> Option<(u64, usize, u64)> {
        let (&start, &(index, len)) = self.live.range(..=at).next_back()?;
        (at - start < len).then_some((start, index, len))
    }

    /// Whether device work holds the block that starts at `start`.
    pub(crate) fn is_held(&self, start: u64) -> bool {
        self.held.contains_key(&start)
    }

    /// The bytes of `[start, start + len)` in blocks device work holds.
    fn held_bytes(&self, start: u64, len: u64) -> u64 {
        self.held
            .keys()
            .filter_map(|&s| {
                let (_, block_len) = self.live.get(&s)?;
                let from = s.max(start);
                let to = (s + block_len).min(start + len);
                (to > from).then(|| to - from)
            })
            .sum()
    }

    /// Forgets the holds `wait` covers; returns the blocks released, as (start, length).
    fn release(&mut self, wait: Wait) -> Vec<(u64, u64)> {
        let live = &self.live;
        let mut released = Vec::new();
        self.held.retain(|&start, &mut (stream, order)| {
            let len = live.get(&start).map_or(0, |b| b.1);
            let covered = match wait {
                Wait::All => true,
                Wait::Stream(s) => s == stream,
                Wait::Before {
                    stream: s,
                    order: o,
                } => s == stream && order <= o,
                Wait::Into { start: at, len: n } => {
                    (start as usize) < at + n && at < (start + len) as usize
                }
            };
            if covered {
                released.push((start, len));
            }
            !covered
        });
        released
    }
}

impl Driver {
    /// A managed block was allocated at `start`.
    pub(crate) fn managed_allocated(&mut self, start: u64, len: u64) {
        let managed = &mut self.record.managed;
        let block = managed.blocks.len();
        managed.blocks.push(len);
        managed.steps.push(ManagedStep::Allocated { block });
        self.mirrors.book.live.insert(start, (block, len));
    }

    /// The managed block at `start` was freed (nothing if it is not one).
    pub(crate) fn managed_freed(&mut self, start: u64) {
        let book = &mut self.mirrors.book;
        if let Some((block, _)) = book.live.remove(&start) {
            book.held.remove(&start);
            self.record.managed.steps.push(ManagedStep::Freed { block });
        }
    }

    /// A prefetch of `bytes` at `ptr` to `to` was queued on `stream`. It moves pages, not
    /// values: a block a kernel holds stays held until the program waits.
    pub(crate) fn managed_prefetched(
        &mut self,
        ptr: u64,
        bytes: u64,
        to: Destination,
        stream: usize,
    ) {
        if let Some((_, block, _)) = self.mirrors.book.holding(ptr) {
            let step = ManagedStep::Prefetched {
                block,
                bytes,
                to,
                stream,
            };
            self.record.managed.steps.push(step);
        }
    }

    /// Device work was queued on `stream` (a launch, an asynchronous copy or memset): it may
    /// change any live block until the program waits for it.
    pub(crate) fn managed_work_queued(&mut self, stream: usize) {
        if self.mirrors.book.live.is_empty() {
            return;
        }
        let order = self.record.order.queued_on(stream);
        let book = &mut self.mirrors.book;
        for &start in book.live.keys() {
            book.held.insert(start, (stream, order));
        }
    }

    /// Kernel `kernel` was launched on `stream` (noted only while managed memory is allocated).
    pub(crate) fn managed_launched(&mut self, kernel: &str, stream: usize) {
        if self.mirrors.book.live.is_empty() {
            return;
        }
        self.managed_work_queued(stream);
        let kernel = kernel.to_string();
        let step = ManagedStep::Launched { kernel, stream };
        self.record.managed.steps.push(step);
    }

    /// The program waited (`wait`): the blocks it released, as (start, length).
    pub(crate) fn managed_waited(&mut self, wait: Wait) -> Vec<(u64, u64)> {
        self.mirrors.book.release(wait)
    }

    /// The program hands back `[start, start + len)` as a result: noted if it is managed memory.
    /// Returns the bytes of it that device work may still change.
    pub(crate) fn managed_result_read(&mut self, start: u64, len: u64) -> u64 {
        let book = &self.mirrors.book;
        let Some((_, block, _)) = book.holding(start) else {
            return 0;
        };
        let unwaited = book.held_bytes(start, len);
        let step = ManagedStep::ResultRead {
            block,
            bytes: len,
            unwaited,
        };
        self.record.managed.steps.push(step);
        unwaited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> Book {
        let mut book = Book::default();
        book.live.insert(1000, (0, 100));
        book.live.insert(4000, (1, 100));
        book
    }

    #[test]
    fn a_stream_wait_releases_only_that_streams_blocks_and_an_event_only_earlier_work() {
        let mut b = book();
        b.held.insert(1000, (1, 5));
        b.held.insert(4000, (2, 6));
        assert_eq!(b.held_bytes(1050, 100), 50);
        assert_eq!(b.held_bytes(1050, 3000), 100);
        // A read of other memory, before or after the held blocks, holds nothing.
        assert_eq!(b.held_bytes(10, 8), 0);
        assert_eq!(b.held_bytes(9000, 8), 0);
        assert_eq!(b.release(Wait::Stream(2)), vec![(4000, 100)]);
        assert_eq!(
            b.release(Wait::Before {
                stream: 1,
                order: 4
            }),
            vec![]
        );
        assert_eq!(
            b.release(Wait::Before {
                stream: 1,
                order: 5
            }),
            vec![(1000, 100)]
        );
        assert_eq!(b.held_bytes(0, 10_000), 0);
    }

    #[test]
    fn freeing_memory_releases_the_blocks_it_overlaps() {
        let mut b = book();
        b.held.insert(1000, (0, 1));
        b.held.insert(4000, (0, 1));
        assert_eq!(
            b.release(Wait::Into {
                start: 4050,
                len: 8
            }),
            vec![(4000, 100)]
        );
        assert!(b.is_held(1000) && !b.is_held(4000));
        assert_eq!(b.holding(1099), Some((1000, 0, 100)));
        assert_eq!(b.holding(1100), None);
    }
}
