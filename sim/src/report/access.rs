//! An access that left its memory or was misaligned, as facts: which memory, which address, how
//! wide, which lanes, and for global memory the allocation it was nearest. A reader that knows an
//! allocation by another name (a buffer's parameter name) renders the sentence with that name from
//! these facts; the diagnostic's own message is the same sentence with the simulator's words.

pub use crate::memory::miss::{GlobalMiss, NearAllocation};
use serde::{Deserialize, Serialize};

/// A memory access the GPU would stop the kernel at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadAccess {
    /// The memory the instruction addressed.
    pub space: MemorySpace,
    /// What the instruction does there.
    pub op: AccessOp,
    /// Bytes each lane accesses (16 for a `float4`).
    pub bytes: u32,
    /// Where the first bad lane went: a global address, or a byte offset into the block's shared
    /// memory or the thread's local frame (two's complement where an index went below zero).
    pub address: u64,
    /// The lanes of the warp whose accesses were bad (bit `i`: lane `i`).
    pub lanes: u32,
    /// The warp within its block.
    pub warp: u32,
    /// What was wrong with the address.
    pub fault: AccessFault,
}

/// The state space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemorySpace {
    /// Device memory that every thread reaches: `cudaMalloc`'d buffers, `__device__` variables.
    Global,
    /// The block's `__shared__` memory.
    Shared,
    /// The thread's own frame: local arrays, spills.
    Local,
}

/// What an instruction does to memory, in the words a student reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessOp {
    /// A plain read.
    Load,
    /// A plain write.
    Store,
    /// A read-modify-write (`atom`, `red`).
    Atomic,
}

/// What was wrong with a bad access's address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum AccessFault {
    /// Not a multiple of the access's size.
    Misaligned,
    /// Outside every live global allocation.
    Global {
        /// Where the address is, against the allocations there are.
        miss: GlobalMiss,
    },
    /// Past the block's shared memory.
    Shared {
        /// Bytes of shared memory the block has, static and dynamic.
        size: u64,
        /// The access reached the `extern __shared__` array of a launch that gave it no bytes.
        dynamic_unsized: bool,
    },
    /// Outside the thread's local frame.
    Local {
        /// Bytes the thread's local arrays take.
        size: u64,
    },
}

impl BadAccess {
    /// The access in one sentence, with a global allocation called `name(allocation)`.
    pub fn describe(&self, name: &dyn Fn(&NearAllocation) -> String) -> String {
        let (n, op, space) = (self.bytes, self.op.word(), self.space.word());
        let who = format!("{} of warp {}", lane_list(self.lanes), self.warp);
        let at = self.address;
        match &self.fault {
            AccessFault::Misaligned => format!(
                "misaligned {n}-byte {op} of {space} memory at address {at:#x} (not a multiple of {n}) by {who}; \
                 a vector or wide access needs an address aligned to its size"
            ),
            AccessFault::Global { miss } => format!(
                "out-of-bounds {n}-byte {op} of global memory at address {at:#x} by {who}: {}",
                miss.describe(u64::from(n), name)
            ),
            AccessFault::Shared {
                size,
                dynamic_unsized,
            } => format!(
                "out-of-bounds {n}-byte {op} of shared memory at offset {at} by {who}: the block has {size} \
                 bytes of shared memory{}",
                if *dynamic_unsized {
                    " (an `extern __shared__` array needs its size as the launch's dynamic shared memory)"
                } else {
                    ""
                }
            ),
            AccessFault::Local { size } => format!(
                "out-of-bounds {n}-byte {op} of local memory at offset {} by {who}: the thread's local \
                 arrays take {size} bytes (an index past the end of a local array)",
                at as i64
            ),
        }
    }

    /// The sentence in the simulator's own words (the diagnostic's message).
    pub fn message(&self) -> String {
        self.describe(&NearAllocation::simulator_words)
    }

    /// The global miss, for an access out of bounds of global memory.
    pub fn global_miss(&self) -> Option<&GlobalMiss> {
        match &self.fault {
            AccessFault::Global { miss } => Some(miss),
            _ => None,
        }
    }
}

impl MemorySpace {
    fn word(self) -> &'static str {
        match self {
            MemorySpace::Global => "global",
            MemorySpace::Shared => "shared",
            MemorySpace::Local => "local",
        }
    }
}

impl AccessOp {
    fn word(self) -> &'static str {
        match self {
            AccessOp::Load => "load",
            AccessOp::Store => "store",
            AccessOp::Atomic => "atomic",
        }
    }
}

/// The lanes of a mask in words: "lane 3", "lanes 0-15,20".
pub(crate) fn lane_list(m: u32) -> String {
    let mut out = Vec::new();
    let mut l = 0;
    while l < 32 {
        if m >> l & 1 == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && m >> l & 1 != 0 {
            l += 1;
        }
        out.push(if l - 1 == start {
            start.to_string()
        } else {
            format!("{}-{}", start, l - 1)
        });
    }
    let word = if m.count_ones() == 1 { "lane" } else { "lanes" };
    format!("{word} {}", out.join(","))
}
