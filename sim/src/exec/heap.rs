//! The device heap behind a kernel's `malloc` and `free` (CUDA C++'s in-kernel allocation, which
//! Numba's runtime NRT uses for arrays made inside kernels): one region of global memory set
//! aside at the first launch that allocates, carved into blocks that outlive the launch, as on a
//! GPU (a block allocated in one kernel may be freed in another).

use super::block::BlockCx;
use super::{lanes, row, Warp};
use crate::ir::{Inst, Slot};
use crate::report::Diagnostic;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The heap's size: CUDA's default `cudaLimitMallocHeapSize`, 8 MB.
pub(crate) const HEAP_BYTES: u64 = 8 << 20;
/// `malloc` on a GPU returns addresses aligned to 16 bytes.
const ALIGN: u64 = 16;

/// The heap's region and its blocks (start -> size, both relative to the region).
#[derive(Debug)]
pub(crate) struct DeviceHeap {
    base: u64,
    size: u64,
    blocks: Mutex<Blocks>,
}

#[derive(Debug, Default)]
struct Blocks {
    live: BTreeMap<u64, u64>,
    /// Freed during the running launch, taken again only after it: a block that two threads of
    /// one launch used in turn would read as a race between them, and a use after free would go
    /// unseen.
    freed: BTreeMap<u64, u64>,
}

impl DeviceHeap {
    /// A heap over `[base, base + size)`, a live global allocation.
    pub(crate) fn new(base: u64, size: u64) -> DeviceHeap {
        DeviceHeap {
            base,
            size,
            blocks: Mutex::new(Blocks::default()),
        }
    }

    /// The first gap of the region that holds `bytes`, taken; `None` (a null pointer to the
    /// kernel) when none does, as `malloc` answers on a GPU whose heap is full.
    pub(crate) fn alloc(&self, bytes: u64) -> Option<u64> {
        let size = bytes.max(1).checked_next_multiple_of(ALIGN)?;
        let mut blocks = self
            .blocks
            .lock()
            .expect("no thread panics holding the heap");
        let mut start = 0;
        let mut taken: Vec<(u64, u64)> = blocks
            .live
            .iter()
            .chain(&blocks.freed)
            .map(|(&a, &l)| (a, l))
            .collect();
        taken.sort_unstable();
        for (at, len) in taken {
            if at >= start && at - start >= size {
                break;
            }
            start = start.max(at + len);
        }
        if start.checked_add(size)? > self.size {
            return None;
        }
        blocks.live.insert(start, size);
        Some(self.base + start)
    }

    /// Frees the block `addr` starts; false when no live block starts there.
    pub(crate) fn free(&self, addr: u64) -> bool {
        let mut blocks = self
            .blocks
            .lock()
            .expect("no thread panics holding the heap");
        let Some(at) = addr.checked_sub(self.base) else {
            return false;
        };
        match blocks.live.remove(&at) {
            Some(len) => {
                blocks.freed.insert(at, len);
                true
            }
            None => false,
        }
    }

    /// The launch is over: what it freed may be given out again.
    pub(crate) fn launch_ended(&self) {
        self.blocks
            .lock()
            .expect("no thread panicked holding the heap")
            .freed
            .clear();
    }
}

/// `d = malloc(size)` for each lane of `exec`, lowest lane first.
pub(super) fn malloc(w: &mut Warp, cx: &BlockCx, exec: u32, (size, d): (Slot, Slot)) {
    let sizes = row(&w.regs, size);
    for l in lanes(exec) {
        let addr = cx.l.heap.and_then(|h| h.alloc(sizes[l])).unwrap_or(0);
        w.regs[d as usize * 32 + l] = addr;
    }
}

/// `free(ptr)` for each lane of `exec`: null is nothing to free; any other address must be one
/// `malloc` returned and not yet freed, or the kernel stops (a GPU's heap would be corrupted).
pub(super) fn free(
    w: &mut Warp,
    cx: &BlockCx,
    inst: &Inst,
    exec: u32,
    ptr: Slot,
) -> Result<(), Box<Diagnostic>> {
    let ptrs = row(&w.regs, ptr);
    for l in lanes(exec) {
        let addr = ptrs[l];
        if addr != 0 && !cx.l.heap.is_some_and(|h| h.free(addr)) {
            return Err(cx.trap(
                w,
                1 << l,
                inst,
                format!(
                    "free({addr:#x}): not an address malloc returned in a kernel, or one already \
                     freed"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::DeviceHeap;

    #[test]
    fn blocks_are_aligned_apart_and_reused_once_freed() {
        let heap = DeviceHeap::new(0x1000, 256);
        let a = heap.alloc(10).unwrap();
        let b = heap.alloc(1).unwrap();
        assert_eq!((a, b), (0x1000, 0x1010));
        assert!(heap.free(a));
        assert!(!heap.free(a), "a block is freed once");
        assert_eq!(heap.alloc(16), Some(0x1020), "not again in the same launch");
        heap.launch_ended();
        assert_eq!(heap.alloc(16), Some(0x1000), "the first gap that fits");
        assert_eq!(
            heap.alloc(300),
            None,
            "more than the heap holds is a null pointer"
        );
        assert!(!heap.free(0x1008), "not the start of a block");
        assert_eq!(heap.alloc(208), Some(0x1030));
        assert_eq!(heap.alloc(1), None, "full");
    }
}
