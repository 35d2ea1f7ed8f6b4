//! Device memory: global allocations (cudaMalloc-aligned, far apart, bounds-checked), the address
//! windows that generic addresses use for shared and local memory, the figures counters, and the
//! traffic counts the time model reads (`traffic`).
//!
//! Global memory is shared by the CPU threads that run blocks, so it is stored as relaxed atomic
//! words: plain loads and stores on x86, no data race in Rust terms, and well-defined lost updates
//! for kernels that race on the GPU too.

pub(crate) mod figures;
pub(crate) mod local;
pub(crate) mod miss;
pub(crate) mod traffic;

use crate::error::SimError;
use miss::{GlobalMiss, NearAllocation};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Generic addresses in `[SHARED_WINDOW, SHARED_WINDOW + 4 GiB)` are the block's shared memory.
pub(crate) const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
/// Generic addresses in `[LOCAL_WINDOW, LOCAL_WINDOW + 4 GiB)` are the thread's local memory.
pub(crate) const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
pub(crate) const WINDOW_SIZE: u64 = 1 << 32;
/// The first global allocation; they follow upwards, each followed by an unmapped gap so that an
/// index running off one allocation never lands in the next.
const GLOBAL_BASE: u64 = 0x0000_7000_0000_0000;
const GAP: u64 = 1 << 20;
/// The simulated device holds at most 4 GiB: its memory is the host's, so a request the size of a
/// real GPU's (80 GiB and more) would take the student's machine down instead of the kernel.
pub(crate) const MEMORY_LIMIT: u64 = 4 << 30;
/// Frees remembered to name an access to freed memory (16 bytes each).
const FREES_KEPT: usize = 1 << 16;
/// The alignment `cudaMalloc` guarantees (CUDA Programming Guide, "Device Memory Accesses"): the
/// bytes from an allocation's end up to the next multiple of it belong to no other allocation
/// and lie in the page that holds its last byte, so a GPU reads and writes them without a fault.
pub(crate) const GRANULE: u64 = 256;

pub(crate) struct Allocation {
    pub base: u64,
    pub size: u64,
    /// The bytes a GPU maps from `base`: `size` rounded up to [`GRANULE`] for `cudaMalloc`'d
    /// memory, `size` for host memory placed in the device's address space (its neighbours
    /// are the host's).
    pub mapped: u64,
    words: Box<[AtomicU32]>,
}

impl Allocation {
    /// Loads `bytes` (1, 2, 4 or 8) at byte offset `off`, which is a multiple of `bytes`.
    #[inline]
    pub(crate) fn load(&self, off: u64, bytes: u32) -> u64 {
        let w = (off >> 2) as usize;
        match bytes {
            4 => self.words[w].load(Relaxed) as u64,
            8 => {
                self.words[w].load(Relaxed) as u64 | (self.words[w + 1].load(Relaxed) as u64) << 32
            }
            _ => {
                let sh = (off & 3) * 8;
                let v = self.words[w].load(Relaxed) as u64 >> sh;
                v & if bytes == 1 { 0xff } else { 0xffff }
            }
        }
    }

    #[inline]
    pub(crate) fn store(&self, off: u64, bytes: u32, v: u64) {
        let w = (off >> 2) as usize;
        match bytes {
            4 => self.words[w].store(v as u32, Relaxed),
            8 => {
                self.words[w].store(v as u32, Relaxed);
                self.words[w + 1].store((v >> 32) as u32, Relaxed);
            }
            _ => {
                let sh = (off & 3) * 8;
                let m = if bytes == 1 { 0xffu32 } else { 0xffff } << sh;
                let v = (v as u32) << sh & m;
                // Bytes of one word may belong to different threads: update only ours.
                let _ = self.words[w].fetch_update(Relaxed, Relaxed, |cur| Some((cur & !m) | v));
            }
        }
    }
}

pub(crate) struct GlobalMemory {
    /// Keyed by base address: finding the allocation that holds an address and freeing one are
    /// O(log n) in the live allocations, as a program with a million of them needs.
    allocs: BTreeMap<u64, Allocation>,
    /// The latest frees, `(base, size)`, to name a use after free: at most [`FREES_KEPT`], so
    /// that a program that allocates and frees for ever keeps no more.
    freed: std::collections::VecDeque<(u64, u64)>,
    next: u64,
    in_use: u64,
}

/// Why an access is outside global memory, in the simulator's words (for a host copy's error).
pub(crate) fn describe_global_miss(mem: &GlobalMemory, addr: u64, len: u64) -> String {
    global_miss(mem, addr, len).describe(len, &NearAllocation::simulator_words)
}

/// Where an access of `len` bytes at `addr`, outside every live allocation, is: the allocation
/// it is nearest (within [`GAP`]), unnamed; the caller knows the kernel's names for it.
pub(crate) fn global_miss(mem: &GlobalMemory, addr: u64, len: u64) -> GlobalMiss {
    if addr < 4096 {
        return GlobalMiss::Null;
    }
    if let Some(&(base, size)) = mem
        .freed
        .iter()
        .rev()
        .find(|(b, s)| addr >= *b && addr < b + s)
    {
        return GlobalMiss::Freed { base, size };
    }
    let near = |a: &Allocation| NearAllocation {
        base: a.base,
        size: a.size,
        argument: None,
        variable: None,
    };
    if let Some(a) = mem.allocs.range(..=addr).next_back().map(|(_, a)| a) {
        let offset = addr - a.base;
        if offset < a.size {
            return GlobalMiss::Straddles {
                allocation: near(a),
                offset,
                past: addr.saturating_add(len) - (a.base + a.size),
                element: offset / len.max(1),
            };
        }
        let after = offset - a.size;
        if after < GAP {
            return GlobalMiss::PastEnd {
                allocation: near(a),
                after,
                element: offset / len.max(1),
            };
        }
    }
    if let Some((_, a)) = mem.allocs.range(addr..).next() {
        if a.base - addr < GAP {
            return GlobalMiss::BeforeStart {
                allocation: near(a),
                before: a.base - addr,
            };
        }
    }
    GlobalMiss::Nowhere
}

impl GlobalMemory {
    pub(crate) fn new() -> Self {
        GlobalMemory {
            allocs: BTreeMap::new(),
            freed: std::collections::VecDeque::new(),
            next: GLOBAL_BASE,
            in_use: 0,
        }
    }

    pub(crate) fn alloc(&mut self, bytes: u64, align: u64) -> Result<u64, SimError> {
        let size = bytes.max(1);
        let out_of_memory = || SimError::OutOfMemory {
            requested: bytes,
            in_use: self.in_use,
            limit: MEMORY_LIMIT,
        };
        if size > MEMORY_LIMIT - self.in_use {
            return Err(out_of_memory());
        }
        let align = align.max(GRANULE);
        let base = self.next.div_ceil(align) * align;
        let mapped = size.next_multiple_of(GRANULE);
        let n = (mapped / 4) as usize;
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| out_of_memory())?;
        words.extend((0..n).map(|_| AtomicU32::new(0)));
        let words = words.into_boxed_slice();
        self.allocs.insert(
            base,
            Allocation {
                base,
                size,
                mapped,
                words,
            },
        );
        self.next = (base + mapped + GAP).div_ceil(GAP) * GAP;
        self.in_use += size;
        Ok(base)
    }

    /// Places an allocation of `bytes` at `base`, where memory the host already has lives (host
    /// memory mapped into the device's address space, or managed memory): kernels then use the
    /// host's own addresses. Refused when any byte of it is another allocation's, or in a window.
    pub(crate) fn alloc_at(&mut self, base: u64, bytes: u64) -> Result<(), SimError> {
        let size = bytes.max(1);
        let end = base.checked_add(size);
        let windows = [SHARED_WINDOW, LOCAL_WINDOW];
        let in_window = |end: u64| windows.iter().any(|&w| base < w + WINDOW_SIZE && end > w);
        let overlaps = |end: u64| {
            self.allocs
                .range(..end)
                .next_back()
                .is_some_and(|(_, a)| a.base + a.size > base)
        };
        match end {
            Some(end) if base >= 4096 && !in_window(end) && !overlaps(end) => {}
            _ => {
                return Err(SimError::BadAccess {
                    op: "map",
                    addr: base,
                    len: bytes,
                    reason: "an address range the device already uses".to_string(),
                })
            }
        }
        if size > MEMORY_LIMIT - self.in_use {
            return Err(SimError::OutOfMemory {
                requested: bytes,
                in_use: self.in_use,
                limit: MEMORY_LIMIT,
            });
        }
        let words = (0..size.div_ceil(4)).map(|_| AtomicU32::new(0)).collect();
        let mapped = size;
        self.allocs.insert(
            base,
            Allocation {
                base,
                size,
                mapped,
                words,
            },
        );
        self.in_use += size;
        Ok(())
    }

    pub(crate) fn free(&mut self, addr: u64) -> bool {
        match self.allocs.remove(&addr) {
            Some(a) => {
                self.in_use -= a.size;
                if self.freed.len() == FREES_KEPT {
                    self.freed.pop_front();
                }
                self.freed.push_back((a.base, a.size));
                true
            }
            None => false,
        }
    }

    /// `(base, size)` of every live allocation, in ascending order of base.
    pub(crate) fn allocations(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.allocs.values().map(|a| (a.base, a.size))
    }

    /// The allocation holding `[addr, addr + len)`, or `None` when any byte is outside.
    #[inline]
    pub(crate) fn find(&self, addr: u64, len: u64) -> Option<&Allocation> {
        let (_, a) = self.allocs.range(..=addr).next_back()?;
        (addr - a.base)
            .checked_add(len)
            .is_some_and(|end| end <= a.size)
            .then_some(a)
    }

    /// The allocation whose mapped bytes (its granule, [`Allocation::mapped`]) hold
    /// `[addr, addr + len)`: where an access past an allocation's end would not fault on a GPU.
    pub(crate) fn find_mapped(&self, addr: u64, len: u64) -> Option<&Allocation> {
        let (_, a) = self.allocs.range(..=addr).next_back()?;
        (addr - a.base)
            .checked_add(len)
            .is_some_and(|end| end <= a.mapped)
            .then_some(a)
    }

    pub(crate) fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let a = self
            .find(addr, data.len() as u64)
            .ok_or_else(|| SimError::BadAccess {
                op: "write",
                addr,
                len: data.len() as u64,
                reason: describe_global_miss(self, addr, data.len() as u64),
            })?;
        let off = addr - a.base;
        let mut i = 0;
        while i < data.len() {
            let o = off + i as u64;
            if o.is_multiple_of(4) && i + 4 <= data.len() {
                let w = u32::from_le_bytes(data[i..i + 4].try_into().expect("four bytes"));
                a.store(o, 4, w as u64);
                i += 4;
            } else {
                a.store(o, 1, data[i] as u64);
                i += 1;
            }
        }
        Ok(())
    }

    pub(crate) fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, SimError> {
        let a = self.find(addr, len).ok_or_else(|| SimError::BadAccess {
            op: "read",
            addr,
            len,
            reason: describe_global_miss(self, addr, len),
        })?;
        let off = addr - a.base;
        let mut out = Vec::with_capacity(len as usize);
        let mut i = 0;
        while i < len {
            let o = off + i;
            if o.is_multiple_of(4) && i + 4 <= len {
                out.extend_from_slice(&(a.load(o, 4) as u32).to_le_bytes());
                i += 4;
            } else {
                out.push(a.load(o, 1) as u8);
                i += 1;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_after_free_is_named_and_only_the_latest_frees_are_kept() {
        let mut mem = GlobalMemory::new();
        let first = mem.alloc(64, 256).unwrap();
        assert!(mem.free(first));
        let why = describe_global_miss(&mem, first + 8, 4);
        assert!(why.contains("already freed"), "{why}");
        for _ in 0..FREES_KEPT + 10 {
            let at = mem.alloc(64, 256).unwrap();
            mem.free(at);
        }
        assert_eq!(mem.freed.len(), FREES_KEPT);
        assert!(mem.allocs.is_empty());
    }

    #[test]
    fn a_device_allocations_granule_is_mapped_and_host_memorys_end_is_its_own() {
        let mut mem = GlobalMemory::new();
        let at = mem.alloc(100, 256).unwrap();
        assert!(mem.find(at + 100, 4).is_none());
        assert_eq!(mem.find_mapped(at + 100, 4).map(|a| a.base), Some(at));
        assert!(mem.find_mapped(at + 252, 4).is_some());
        assert!(
            mem.find_mapped(at + 253, 4).is_none(),
            "straddles the granule's end"
        );
        assert!(mem.find_mapped(at + 256, 1).is_none());
        let host = 0x5555_0000_1000;
        mem.alloc_at(host, 100).unwrap();
        assert!(mem.find_mapped(host + 100, 1).is_none());
        assert!(mem.find_mapped(host + 96, 4).is_some());
    }

    #[test]
    fn an_allocation_placed_at_a_host_address_is_found_there_and_may_not_overlap() {
        let mut mem = GlobalMemory::new();
        let host = 0x5555_0000_1000;
        mem.alloc_at(host, 100).unwrap();
        mem.write(host + 96, &[1, 2, 3, 4]).unwrap();
        assert_eq!(mem.read(host + 96, 4).unwrap(), [1, 2, 3, 4]);
        assert!(mem.find(host + 97, 4).is_none());
        assert!(mem.alloc_at(host + 64, 8).is_err());
        assert!(mem.alloc_at(host - 8, 16).is_err());
        assert!(mem.alloc_at(SHARED_WINDOW + 8, 16).is_err());
        mem.alloc_at(host + 100, 4).unwrap();
        assert!(mem.free(host));
    }
}
