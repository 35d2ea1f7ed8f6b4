//! Managed memory in pass-through mode: the allocation and prefetches forwarded to the real
//! driver, and noted in the record as the simulator notes them (`state::book`).
#![allow(non_snake_case)]

use super::forward;
use crate::state::advice::{destination, Location};
use crate::state::timing;
use crate::state::with_driver;
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream};
use std::ffi::{c_int, c_uint};

/// # Safety
/// `cuMemAllocManaged`'s contract.
pub(crate) unsafe fn cuMemAllocManaged(dptr: *mut u64, bytes: usize, flags: c_uint) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuMemAllocManaged", (dptr, bytes, flags)) };
    if result == E::CUDA_SUCCESS {
        // SAFETY: the real driver wrote the allocation's address there.
        let at = unsafe { *dptr };
        with_driver(|d| {
            d.allocations.insert(at, bytes as u64);
            d.managed_allocated(at, bytes as u64);
        });
    }
    result
}

/// Notes a prefetch the real driver accepted (`to`: the device ordinal, or `CU_DEVICE_CPU`).
fn prefetched(result: CUresult, ptr: u64, count: usize, to: Option<c_int>, stream: CUstream) {
    if let (E::CUDA_SUCCESS, Some(to)) = (result, to) {
        with_driver(|d| {
            let index = timing::stream_index(d, stream);
            d.managed_prefetched(ptr, count as u64, destination(to), index);
        });
    }
}

/// # Safety
/// `cuMemPrefetchAsync`'s contract.
pub(crate) unsafe fn cuMemPrefetchAsync(
    ptr: u64,
    count: usize,
    device: c_int,
    stream: CUstream,
) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuMemPrefetchAsync", (ptr, count, device, stream)) };
    prefetched(result, ptr, count, Some(device), stream);
    result
}

/// # Safety
/// `cuMemPrefetchAsync_v2`'s contract.
pub(crate) unsafe fn cuMemPrefetchAsync_v2(
    ptr: u64,
    count: usize,
    location: Location,
    flags: c_uint,
    stream: CUstream,
) -> CUresult {
    let args = (ptr, count, location, flags, stream);
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuMemPrefetchAsync_v2", args) };
    prefetched(result, ptr, count, location.ordinal().ok(), stream);
    result
}
