//! Counting the traffic the time model needs beyond the per-request figures: which 32-byte
//! sectors a launch touches at all (what an L2 that holds the launch's reuse fetches from DRAM),
//! which ones each block touches (what an L1 that holds a block's reuse fetches from L2), cache
//! lines per request (the L1's data stage serves one per cycle), barriers, and the global address
//! that atomics hit most often.
//!
//! Every count is the same whatever the number of CPU threads: sets are unions, per-block counts
//! are made by the one thread that runs the block, and the rest are sums.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// Addresses tracked for atomics; beyond this many distinct ones, new addresses are not counted
/// (the hottest address of a kernel is hit early and often, so it is already in).
const MAX_ATOMIC_ADDRESSES: usize = 1 << 16;
/// A block's sector list is deduplicated in place when it grows past this, keeping its memory
/// bounded by the sectors the block really touches.
const BLOCK_SECTORS_COMPACT: usize = 1 << 20;

/// Sectors of one allocation read and written during a launch: one bit per 32-byte sector (a 32
/// MiB array takes 128 KiB), made on first touch.
struct Region {
    base: u64,
    sectors: u64,
    read: OnceLock<Box<[AtomicU64]>>,
    written: OnceLock<Box<[AtomicU64]>>,
}

/// The launch's unique sectors, shared by the CPU threads that run its blocks.
pub(crate) struct SectorSet {
    /// Sorted by base, like the allocations they mirror.
    regions: Vec<Region>,
}

fn bitmap(sectors: u64) -> Box<[AtomicU64]> {
    (0..sectors.div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect()
}

impl SectorSet {
    /// One region per allocation, `(base, size)` in ascending order of base.
    pub(crate) fn new(allocations: impl Iterator<Item = (u64, u64)>) -> SectorSet {
        SectorSet {
            regions: allocations
                .map(|(base, size)| Region {
                    base,
                    // Allocations are 256-byte aligned, so sector 0 of the region starts at base.
                    sectors: size.div_ceil(32),
                    read: OnceLock::new(),
                    written: OnceLock::new(),
                })
                .collect(),
        }
    }

    /// Marks the sectors `first..=last` (sector numbers, address / 32) of the allocation at
    /// `base`, read and/or written.
    pub(crate) fn mark(&self, base: u64, sectors: &[u64], read: bool, written: bool) {
        let i = self.regions.partition_point(|r| r.base <= base);
        let Some(region) = i.checked_sub(1).map(|i| &self.regions[i]) else {
            return;
        };
        if region.base != base {
            return;
        }
        let first = base >> 5;
        if read {
            set_bits(
                region.read.get_or_init(|| bitmap(region.sectors)),
                first,
                sectors,
            );
        }
        if written {
            set_bits(
                region.written.get_or_init(|| bitmap(region.sectors)),
                first,
                sectors,
            );
        }
    }

    /// Distinct sectors read, and written, over the launch.
    pub(crate) fn counts(&self) -> (u64, u64) {
        let count = |m: &OnceLock<Box<[AtomicU64]>>| {
            m.get().map_or(0, |words| {
                words
                    .iter()
                    .map(|w| w.load(Relaxed).count_ones() as u64)
                    .sum()
            })
        };
        self.regions.iter().fold((0, 0), |(r, w), region| {
            (r + count(&region.read), w + count(&region.written))
        })
    }
}

/// Sets the bits of `sectors` (absolute sector numbers), one atomic OR per 64-sector word, and
/// none where the bits are already set (most requests of a kernel that rereads its data).
fn set_bits(words: &[AtomicU64], first: u64, sectors: &[u64]) {
    let mut word = u64::MAX;
    let mut bits = 0u64;
    let flush = |word: u64, bits: u64| {
        if let Some(w) = words.get(word as usize) {
            if w.load(Relaxed) & bits != bits {
                w.fetch_or(bits, Relaxed);
            }
        }
    };
    for &s in sectors {
        let rel = s.wrapping_sub(first);
        if rel >> 6 != word {
            if bits != 0 {
                flush(word, bits);
            }
            word = rel >> 6;
            bits = 0;
        }
        bits |= 1 << (rel & 63);
    }
    if bits != 0 {
        flush(word, bits);
    }
}

/// What one CPU thread counts over the blocks it runs.
#[derive(Default)]
pub(crate) struct TrafficCounter {
    /// Sectors the current block has loaded (with repeats until compacted).
    block_sectors: Vec<u64>,
    /// Sum over finished blocks of the distinct sectors each loaded.
    pub block_unique_load_sectors: u64,
    /// Sum over global requests of the distinct 128-byte lines each touched.
    pub global_lines: u64,
    /// Block-wide barriers completed, summed over blocks.
    pub barriers: u64,
    /// Warp requests per global address that atomics touched.
    pub atomic_addresses: HashMap<u64, u64>,
    /// Executions of each instruction of the program (warp instructions), by index.
    pub executed: Vec<u64>,
    /// Lines the current block's requests touched.
    block_lines: u64,
    /// Global load and store (and atomic) requests of each warp of the current block.
    warp_loads: Vec<u64>,
    warp_stores: Vec<u64>,
    /// The most lines one block's requests touched.
    pub busiest_block_lines: u64,
    /// The most warp instructions one block executed.
    pub busiest_block_instructions: u64,
    /// Sum over blocks of the block's warp instructions times its busy warps (its instructions
    /// over its busiest warp's).
    pub busy_warp_instructions: u64,
    /// The most global load requests, and store and atomic requests, one warp made.
    pub busiest_warp_loads: u64,
    pub busiest_warp_stores: u64,
    /// Sum over store requests of the distinct 128-byte lines each touched.
    pub store_lines: u64,
    /// The most cycles one warp skipped waiting on the clock.
    pub longest_clock_wait: u64,
}

impl TrafficCounter {
    pub(crate) fn new(instructions: usize) -> TrafficCounter {
        TrafficCounter {
            executed: vec![0; instructions],
            ..Default::default()
        }
    }

    /// One global request's distinct sectors (sorted or not) and lines.
    pub(crate) fn request(&mut self, sectors: &[u64], lines: u64, load: bool) {
        self.global_lines += lines;
        self.block_lines += lines;
        if load {
            let mut last = u64::MAX;
            for &s in sectors {
                if s != last {
                    self.block_sectors.push(s);
                    last = s;
                }
            }
            if self.block_sectors.len() > BLOCK_SECTORS_COMPACT {
                compact(&mut self.block_sectors);
            }
        }
    }

    /// The distinct addresses one atomic request touched.
    pub(crate) fn atomic(&mut self, addresses: &[u64]) {
        for &a in addresses {
            let n = self.atomic_addresses.len();
            match self.atomic_addresses.get_mut(&a) {
                Some(count) => *count += 1,
                None if n < MAX_ATOMIC_ADDRESSES => {
                    self.atomic_addresses.insert(a, 1);
                }
                None => {}
            }
        }
    }

    /// One warp request of warp `warp` of the block: a load, or a store or atomic.
    pub(crate) fn warp_request(&mut self, warp: u32, load: bool) {
        let counts = if load {
            &mut self.warp_loads
        } else {
            &mut self.warp_stores
        };
        let w = warp as usize;
        if counts.len() <= w {
            counts.resize(w + 1, 0);
        }
        counts[w] += 1;
    }

    /// The warp instructions each warp of the finished block executed.
    pub(crate) fn block_warps(&mut self, instructions: impl Iterator<Item = u64>) {
        let (mut sum, mut most) = (0u64, 0u64);
        for n in instructions {
            sum += n;
            most = most.max(n);
        }
        self.busiest_block_instructions = self.busiest_block_instructions.max(sum);
        if most > 0 {
            self.busy_warp_instructions += (sum as u128 * sum as u128 / most as u128) as u64;
        }
    }

    pub(crate) fn end_block(&mut self) {
        self.busiest_block_lines = self.busiest_block_lines.max(self.block_lines);
        self.block_lines = 0;
        for (busiest, counts) in [
            (&mut self.busiest_warp_loads, &mut self.warp_loads),
            (&mut self.busiest_warp_stores, &mut self.warp_stores),
        ] {
            *busiest = (*busiest).max(counts.iter().copied().max().unwrap_or(0));
            counts.clear();
        }
        compact(&mut self.block_sectors);
        self.block_unique_load_sectors += self.block_sectors.len() as u64;
        self.block_sectors.clear();
    }
}

fn compact(v: &mut Vec<u64>) {
    v.sort_unstable();
    v.dedup();
}

/// Distinct 128-byte lines among sectors given in ascending order, or in any order.
pub(crate) fn distinct_lines(sectors: &[u64]) -> u64 {
    let mut lines = [0u64; 64];
    let n = sectors.len().min(64);
    for (l, s) in lines.iter_mut().zip(sectors) {
        *l = s >> 2;
    }
    super::figures::count_distinct(&mut lines[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_are_counted_once_per_launch_read_and_written_apart() {
        let set = SectorSet::new([(256, 1024), (1 << 20, 64)].into_iter());
        let first = 256 >> 5;
        set.mark(256, &[first, first + 1, first + 1, first + 31], true, false);
        set.mark(256, &[first + 1], true, true);
        set.mark(1 << 20, &[(1 << 20) >> 5], false, true);
        assert_eq!(set.counts(), (3, 2));
    }

    #[test]
    fn block_sectors_are_unique_per_block_and_summed_over_blocks() {
        let mut t = TrafficCounter::new(0);
        t.request(&[1, 2, 3, 4], 1, true);
        t.request(&[4, 3, 2, 1], 1, true);
        t.end_block();
        t.request(&[1, 2], 1, true);
        t.request(&[9], 1, false);
        t.end_block();
        assert_eq!(t.block_unique_load_sectors, 6);
        assert_eq!(t.global_lines, 4);
    }

    #[test]
    fn lines_group_four_sectors() {
        assert_eq!(distinct_lines(&[0, 1, 2, 3]), 1);
        assert_eq!(distinct_lines(&[0, 4, 8, 12]), 4);
    }
}
