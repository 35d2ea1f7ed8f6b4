//! Where a bad global address lies relative to the allocations (null, freed, past an end, before a
//! start, nowhere), as the memory finds it; the report carries it in a bad access's facts.

use serde::{Deserialize, Serialize};

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

/// `n` things, in the singular for one.
pub(crate) fn count(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}
