//! An access that left its memory or was misaligned, as facts: which memory, which address, how
//! wide, which lanes, and for global memory the allocation it was nearest. A reader that knows an
//! allocation by another name (a buffer's parameter name) renders the sentence with that name from
//! these facts; the diagnostic's own message is the same sentence with the simulator's words.

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

/// Where a global address outside every live allocation is, relative to what is there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "where", rename_all = "snake_case")]
pub enum GlobalMiss {
    /// Within the first 4 KiB: a null pointer, or an index from one.
    Null,
    /// Inside an allocation that was freed.
    Freed {
        /// Where the freed allocation started.
        base: u64,
        /// Its bytes.
        size: u64,
    },
    /// Starts inside an allocation and ends past its end.
    Straddles {
        /// The allocation the access starts in.
        allocation: NearAllocation,
        /// Where the access starts, in bytes from the allocation's start.
        offset: u64,
        /// Bytes of the access past the allocation's end.
        past: u64,
        /// The access's index from the allocation's start, in elements of its size.
        element: u64,
    },
    /// Starts past the end of an allocation.
    PastEnd {
        /// The allocation that ends below the address.
        allocation: NearAllocation,
        /// Bytes between its end and the access (0: just past it).
        after: u64,
        /// The access's index from the allocation's start, in elements of its size.
        element: u64,
    },
    /// Starts before the start of an allocation.
    BeforeStart {
        /// The allocation that starts above the address.
        allocation: NearAllocation,
        /// Bytes from the access to the allocation's start.
        before: u64,
    },
    /// Far from any allocation.
    Nowhere,
}

/// The allocation a bad global access was nearest, with the names the kernel knows it by.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NearAllocation {
    /// Its first byte's address, what `cudaMalloc` returned.
    pub base: u64,
    /// Its bytes, as asked for (not rounded up to the allocation granule).
    pub size: u64,
    /// The kernel parameter (0-based, as the PTX declares them) whose pointer is the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument: Option<u32>,
    /// The `__device__` variable at the base, where no parameter points there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
}

impl NearAllocation {
    /// The allocation as the simulator calls it: "the 4000-byte allocation at 0x700000000000".
    pub fn simulator_words(&self) -> String {
        format!("the {}-byte allocation at {:#x}", self.size, self.base)
    }
}

impl GlobalMiss {
    /// The allocation the access was nearest, where it was near one.
    pub fn allocation(&self) -> Option<&NearAllocation> {
        match self {
            GlobalMiss::Straddles { allocation, .. }
            | GlobalMiss::PastEnd { allocation, .. }
            | GlobalMiss::BeforeStart { allocation, .. } => Some(allocation),
            _ => None,
        }
    }

    /// The allocation, for the simulator to name it.
    pub(crate) fn allocation_mut(&mut self) -> Option<&mut NearAllocation> {
        match self {
            GlobalMiss::Straddles { allocation, .. }
            | GlobalMiss::PastEnd { allocation, .. }
            | GlobalMiss::BeforeStart { allocation, .. } => Some(allocation),
            _ => None,
        }
    }

    /// The access's element index from the start of its allocation, where it began at or past
    /// the allocation's end.
    pub fn element(&self) -> Option<u64> {
        match self {
            GlobalMiss::Straddles { element, .. } | GlobalMiss::PastEnd { element, .. } => {
                Some(*element)
            }
            _ => None,
        }
    }

    /// Whether the access began at or past the end of an allocation (not before its start).
    pub fn is_past_the_end(&self) -> bool {
        self.element().is_some()
    }

    /// Why the address is outside global memory, with the allocation called `name(allocation)`.
    pub fn describe(&self, bytes: u64, name: &dyn Fn(&NearAllocation) -> String) -> String {
        match self {
            GlobalMiss::Null => "a null (or nearly null) pointer".to_string(),
            GlobalMiss::Freed { base, size } => {
                format!(
                    "memory of the {size}-byte allocation at {base:#x}, which was already freed"
                )
            }
            GlobalMiss::Straddles {
                allocation,
                offset,
                past,
                ..
            } => format!(
                "{} past the end of {} (offset {offset} of it)",
                count(*past, "byte"),
                name(allocation),
            ),
            GlobalMiss::PastEnd {
                allocation,
                after,
                element,
            } => {
                let len = bytes.max(1);
                let distance = if *after == 0 {
                    "just".to_string()
                } else {
                    count(*after, "byte")
                };
                format!(
                    "{distance} past the end of {} (element {element} of an array that holds {} of {len} bytes)",
                    name(allocation),
                    count(allocation.size / len, "element")
                )
            }
            GlobalMiss::BeforeStart { allocation, before } => {
                format!("{before} bytes before the start of {}", name(allocation))
            }
            GlobalMiss::Nowhere => "an address that belongs to no allocation".to_string(),
        }
    }
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

/// `n` things, in the singular for one.
pub(crate) fn count(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
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
