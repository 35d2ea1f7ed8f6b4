//! Mapped page-locked host memory: kernels read and write the host's memory through the pointer
//! `cuMemHostGetDevicePointer` gives (with unified addressing, the host's own pointer). A block is
//! mirrored on the simulated device when the program asks for it (`CU_MEMHOSTALLOC_DEVICEMAP`,
//! `CU_MEMHOSTREGISTER_DEVICEMAP`, or a device pointer asked for), not for every page-locked
//! block: each mirrored block is copied around every launch.

use crate::mirror::Kind;
use crate::state::{call, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_uint, c_void};

/// `CU_MEMHOSTALLOC_DEVICEMAP` and `CU_MEMHOSTREGISTER_DEVICEMAP` (the same bit).
pub(crate) const DEVICEMAP: c_uint = 2;

/// Mirrors page-locked block `[start, start + len)` on the device when `flags` ask for it.
pub(crate) fn map_if_asked(d: &mut Driver, start: u64, len: u64, flags: c_uint) -> Result {
    if flags & DEVICEMAP != 0 {
        d.mirror(start, len, Kind::Mapped)?;
    }
    Ok(())
}

/// The device pointer of host pointer `p`, in page-locked memory: `p` itself, its block
/// mirrored on the device from now on.
fn device_pointer(d: &mut Driver, p: u64) -> Result<u64> {
    let (start, len) = d.pinned.holding(p).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
    if d.mirrors.holding(start).is_none() {
        d.mirror(start, len, Kind::Mapped)?;
    }
    Ok(p)
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    dptr: *mut u64,
    p: *mut c_void,
    flags: c_uint,
) -> CUresult {
    pass_through!(cuMemHostGetDevicePointer_v2(dptr, p, flags));
    call("cuMemHostGetDevicePointer_v2", |d| {
        d.require_context()?;
        if flags != 0 || dptr.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let at = device_pointer(d, p as u64)?;
        // SAFETY: the caller's contract.
        unsafe { put(dptr, at) }
    })
}
