//! Host memory the device also sees, as the state keeps it: the mirrored blocks and the managed
//! blocks' book. `mirror` keeps the two sides alike.

use std::collections::BTreeMap;

/// What a mirrored block is, which decides who frees its host memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `cuMemAllocManaged`: the driver mapped the host memory, and unmaps it when freed.
    Managed,
    /// Page-locked host memory mapped for the device (`DEVICEMAP`, `cuMemHostGetDevicePointer`):
    /// its host memory is freed (or unregistered) by the page-locked memory's own calls.
    Mapped,
}

/// The mirrored blocks, by start: length and kind.
#[derive(Default)]
pub(crate) struct Mirrors {
    pub(crate) blocks: BTreeMap<u64, (u64, Kind)>,
    /// The managed blocks' record, and which of them device work holds.
    pub(crate) book: super::book::Book,
}

impl Mirrors {
    /// The block holding byte `at`: `(start, len, kind)`.
    pub(crate) fn holding(&self, at: u64) -> Option<(u64, u64, Kind)> {
        let (&start, &(len, kind)) = self.blocks.range(..=at).next_back()?;
        (at - start < len).then_some((start, len, kind))
    }
}
