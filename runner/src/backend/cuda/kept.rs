//! Device allocations kept for the next case rather than freed. A check allocates and frees a
//! few buffers for every case, and a grading worker checks hundreds of cells: each
//! `cuMemAlloc`/`cuMemFree` goes through the kernel driver, whose locks every GPU of the machine
//! shares, so two GPUs graded side by side wait on each other there. Buffers of the same sizes
//! come back case after case (the same exercise for many students), so a freed buffer is kept
//! by its size and handed out again. Nothing a kernel left in one is seen by the next: every
//! buffer, outputs included, is written in full (with its guard zones) before a launch.
//! The bookkeeping only; the CUDA calls stay in the backend.

use crate::backend::DevicePtr;
use std::collections::HashMap;

/// At most this many bytes are kept free: beyond, a freed buffer is really freed.
pub(super) const KEPT_BYTES: usize = 1 << 30;

#[derive(Default)]
pub(super) struct Kept {
    /// The size of every allocation this process made and has not really freed.
    sizes: HashMap<DevicePtr, usize>,
    /// Freed buffers, by size.
    free: HashMap<usize, Vec<DevicePtr>>,
    free_bytes: usize,
}

impl Kept {
    /// Notes a new allocation of `bytes`.
    pub(super) fn allocated(&mut self, ptr: DevicePtr, bytes: usize) {
        self.sizes.insert(ptr, bytes);
    }

    /// A freed buffer of exactly `bytes`, if one is kept.
    pub(super) fn take(&mut self, bytes: usize) -> Option<DevicePtr> {
        let ptr = self.free.get_mut(&bytes)?.pop()?;
        self.free_bytes -= bytes;
        Some(ptr)
    }

    /// Keeps a buffer its user has freed; returns it where it must really be freed instead (an
    /// unknown pointer, or too much kept already).
    pub(super) fn keep(&mut self, ptr: DevicePtr) -> Option<DevicePtr> {
        let Some(&bytes) = self.sizes.get(&ptr) else {
            return Some(ptr);
        };
        if self.free_bytes + bytes > KEPT_BYTES {
            self.sizes.remove(&ptr);
            return Some(ptr);
        }
        self.free.entry(bytes).or_default().push(ptr);
        self.free_bytes += bytes;
        None
    }

    /// Every kept buffer, forgotten here, for the caller to really free (when memory runs out,
    /// or at the end).
    pub(super) fn drain(&mut self) -> Vec<DevicePtr> {
        let ptrs: Vec<DevicePtr> = self.free.drain().flat_map(|(_, ptrs)| ptrs).collect();
        for ptr in &ptrs {
            self.sizes.remove(ptr);
        }
        self.free_bytes = 0;
        ptrs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_buffer_comes_back_for_the_same_size_only() {
        let mut kept = Kept::default();
        kept.allocated(0x1000, 4096);
        assert_eq!(kept.keep(0x1000), None, "kept, not freed");
        assert_eq!(kept.take(8192), None, "another size");
        assert_eq!(kept.take(4096), Some(0x1000));
        assert_eq!(kept.take(4096), None, "handed out once");
    }

    #[test]
    fn beyond_the_limit_or_unknown_a_buffer_is_really_freed() {
        let mut kept = Kept::default();
        kept.allocated(0x1000, KEPT_BYTES);
        kept.allocated(0x2000, 1);
        assert_eq!(kept.keep(0x1000), None);
        assert_eq!(kept.keep(0x2000), Some(0x2000), "over the limit");
        assert_eq!(kept.keep(0x3000), Some(0x3000), "never allocated here");
        assert_eq!(kept.drain(), vec![0x1000]);
        assert_eq!(kept.take(KEPT_BYTES), None, "drained");
    }
}
