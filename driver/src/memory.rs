//! Device memory, page-locked host memory, memset and copies. Copies run at once; the record
//! places them on the modelled timeline (pinned or pageable, synchronous or not, which stream).

use crate::in_flight::Wait;
use crate::record::Direction;
use crate::state::capture::{CopyAddresses, Node};
use crate::state::{call, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream};
use std::ffi::{c_uint, c_void};

pub(crate) fn alloc(d: &mut Driver, bytes: usize) -> Result<u64> {
    d.require_context()?;
    d.record.implicit_barrier();
    if bytes == 0 {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    let ptr = d
        .machine
        .try_alloc(bytes as u64)
        .map_err(|_| E::CUDA_ERROR_OUT_OF_MEMORY)?;
    d.allocations.insert(ptr, bytes as u64);
    Ok(ptr)
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, bytes: usize) -> CUresult {
    pass_through!(recorded::cuMemAlloc_v2(dptr, bytes));
    call("cuMemAlloc_v2", |d| {
        let ptr = alloc(d, bytes)?;
        // SAFETY: the caller's contract.
        unsafe { put(dptr, ptr) }
    })
}

#[no_mangle]
pub extern "C" fn cuMemFree_v2(dptr: u64) -> CUresult {
    pass_through!(recorded::cuMemFree_v2(dptr));
    call("cuMemFree_v2", |d| {
        // Freeing null does nothing, as free(NULL) and NVIDIA's driver.
        if dptr == 0 {
            return Ok(());
        }
        d.allocations
            .remove(dptr)
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        crate::managed::free(d, dptr);
        Ok(())
    })
}

/// # Safety
/// `free` and `total` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    pass_through!(cuMemGetInfo_v2(free, total));
    call("cuMemGetInfo_v2", |d| {
        let used = d.allocations.total();
        let total_bytes = crate::device::TOTAL_MEMORY;
        // SAFETY: the caller's contract.
        unsafe {
            put(free, total_bytes.saturating_sub(used as usize))?;
            put(total, total_bytes)
        }
    })
}

fn alloc_host(d: &mut Driver, bytes: usize) -> Result<*mut c_void> {
    d.record.implicit_barrier();
    let mut ptr = std::ptr::null_mut();
    // SAFETY: posix_memalign writes an allocation of `bytes.max(1)` bytes to `ptr`.
    if unsafe { libc::posix_memalign(&mut ptr, 4096, bytes.max(1)) } != 0 {
        return Err(E::CUDA_ERROR_OUT_OF_MEMORY);
    }
    d.pinned.insert(ptr as u64, bytes as u64);
    d.allocated_host.insert(ptr as u64);
    Ok(ptr)
}

/// # Safety
/// `pp` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    pass_through!(cuMemAllocHost_v2(pp, bytes));
    call("cuMemAllocHost_v2", |d| {
        let ptr = alloc_host(d, bytes)?;
        // SAFETY: the caller's contract.
        unsafe { put(pp, ptr) }
    })
}

/// # Safety
/// `pp` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> CUresult {
    pass_through!(cuMemHostAlloc(pp, bytes, flags));
    call("cuMemHostAlloc", |d| {
        let ptr = alloc_host(d, bytes)?;
        crate::mapped::map_if_asked(d, ptr as u64, bytes as u64, flags)?;
        // SAFETY: the caller's contract.
        unsafe { put(pp, ptr) }
    })
}

/// # Safety
/// `p` came from cuMemAllocHost or cuMemHostAlloc.
#[no_mangle]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    pass_through!(cuMemFreeHost(p));
    call("cuMemFreeHost", |d| {
        // Registered memory is the program's, not the driver's to free.
        if !d.allocated_host.remove(&(p as u64)) {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let len = d
            .pinned
            .remove(p as u64)
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        d.land(Wait::Into {
            start: p as usize,
            len: len as usize,
        });
        d.unmirror(p as u64);
        // SAFETY: `p` was allocated by posix_memalign in `alloc_host` and is freed once.
        unsafe { libc::free(p) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    pass_through!(cuMemHostRegister_v2(p, bytes, flags));
    call("cuMemHostRegister_v2", |d| {
        let start = p as u64;
        // A range that wraps around the address space is no memory at all (NVIDIA's driver
        // refuses it too).
        let end = start.checked_add(bytes as u64);
        let Some(end) = end.filter(|_| !p.is_null() && bytes > 0) else {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        };
        if d.pinned.overlaps(start, end) {
            return Err(E::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
        d.record.implicit_barrier();
        crate::mapped::map_if_asked(d, start, bytes as u64, flags)?;
        d.pinned.insert(start, bytes as u64);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    pass_through!(cuMemHostUnregister(p));
    call("cuMemHostUnregister", |d| {
        // Memory from cuMemAllocHost was never registered: it is freed, not unregistered.
        if d.allocated_host.contains(&(p as u64)) {
            return Err(E::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
        }
        let len = d
            .pinned
            .remove(p as u64)
            .ok_or(E::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)?;
        d.land(Wait::Into {
            start: p as usize,
            len: len as usize,
        });
        d.unmirror(p as u64);
        Ok(())
    })
}

/// A copy between the program's memory and the device, or within the device.
pub(crate) enum Copy {
    In { dst: u64, src: *const c_void },
    Out { dst: *mut c_void, src: u64 },
    Within { dst: u64, src: u64 },
}

impl From<&Copy> for CopyAddresses {
    fn from(what: &Copy) -> CopyAddresses {
        match *what {
            Copy::In { dst, src } => CopyAddresses::In {
                dst,
                src: src as usize,
            },
            Copy::Out { dst, src } => CopyAddresses::Out {
                dst: dst as usize,
                src,
            },
            Copy::Within { dst, src } => CopyAddresses::Within { dst, src },
        }
    }
}

impl From<CopyAddresses> for Copy {
    fn from(what: CopyAddresses) -> Copy {
        match what {
            CopyAddresses::In { dst, src } => Copy::In {
                dst,
                src: src as *const c_void,
            },
            CopyAddresses::Out { dst, src } => Copy::Out {
                dst: dst as *mut c_void,
                src,
            },
            CopyAddresses::Within { dst, src } => Copy::Within { dst, src },
        }
    }
}

/// Runs a copy of `bytes` and records it on `stream` (`None`: a synchronous copy).
pub(crate) fn copy(d: &mut Driver, what: Copy, bytes: usize, stream: Option<CUstream>) -> Result {
    let node = || Node::Copy {
        what: CopyAddresses::from(&what),
        bytes,
    };
    if d.kept_for_a_graph(stream, node)? {
        return Ok(());
    }
    let queued_on = stream.and_then(|s| d.stream_index(s.cast()).ok());
    d.with_mirrors(queued_on, |d| copy_now(d, what, bytes, stream))
}

fn copy_now(d: &mut Driver, what: Copy, bytes: usize, stream: Option<CUstream>) -> Result {
    d.require_context()?;
    if stream.is_none() {
        // A synchronous copy runs on the legacy default stream: after everything queued.
        d.land(Wait::All);
    }
    // A synchronous call works on the default stream, as a null stream names it.
    let stream_index = d.stream_index(stream.unwrap_or(std::ptr::null_mut()).cast())?;
    if bytes == 0 {
        // Nothing to copy: NVIDIA's driver answers success whatever the pointers, null ones
        // included (Numba copies a 0-sized array with a null device pointer).
        return Ok(());
    }
    let (direction, pinned) = match what {
        Copy::In { dst, src } => {
            // The device side first: no slice of the program's memory is made for a length
            // that no allocation holds.
            if src.is_null() || !d.machine.holds(dst, bytes as u64) {
                return Err(E::CUDA_ERROR_INVALID_VALUE);
            }
            // SAFETY: the program passed `src` as `bytes` readable bytes.
            let data = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), bytes) };
            d.machine
                .write(dst, data)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
            (Direction::HostToDevice, d.is_pinned(src as usize, bytes))
        }
        Copy::Out { dst, src } => {
            if dst.is_null() {
                return Err(E::CUDA_ERROR_INVALID_VALUE);
            }
            let data = d
                .machine
                .read(src, bytes as u64)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
            let pinned = d.is_pinned(dst as usize, bytes);
            if stream.is_some() && pinned {
                d.send_later(stream_index, dst as usize, data);
            } else {
                // SAFETY: the program passed `dst` as `bytes` writable bytes.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst.cast::<u8>(), bytes) };
                if stream.is_some() && d.mirrors.holding(dst as u64).is_none() {
                    // There now, as on a GPU today, though nothing says so until a wait.
                    d.record.order.arrived(stream_index, dst as usize, bytes);
                }
            }
            (Direction::DeviceToHost, pinned)
        }
        Copy::Within { dst, src } => {
            let data = d
                .machine
                .read(src, bytes as u64)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
            d.machine
                .write(dst, &data)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
            (Direction::DeviceToDevice, true)
        }
    };
    d.record.transfer(
        direction,
        bytes as u64,
        pinned,
        stream.is_some(),
        stream_index,
    );
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, bytes: usize) -> CUresult {
    pass_through!(recorded::cuMemcpyHtoD_v2(dst, src, bytes));
    call("cuMemcpyHtoD_v2", |d| {
        copy(d, Copy::In { dst, src }, bytes, None)
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, bytes: usize) -> CUresult {
    pass_through!(recorded::cuMemcpyDtoH_v2(dst, src, bytes));
    call("cuMemcpyDtoH_v2", |d| {
        copy(d, Copy::Out { dst, src }, bytes, None)
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, bytes: usize) -> CUresult {
    pass_through!(recorded::cuMemcpyDtoD_v2(dst, src, bytes));
    call("cuMemcpyDtoD_v2", |d| {
        copy(d, Copy::Within { dst, src }, bytes, None)
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: u64,
    src: *const c_void,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemcpyHtoDAsync_v2(dst, src, bytes, stream));
    call("cuMemcpyHtoDAsync_v2", |d| {
        copy(d, Copy::In { dst, src }, bytes, Some(stream))
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemcpyDtoHAsync_v2(dst, src, bytes, stream));
    call("cuMemcpyDtoHAsync_v2", |d| {
        copy(d, Copy::Out { dst, src }, bytes, Some(stream))
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemcpyDtoDAsync_v2(dst, src, bytes, stream));
    call("cuMemcpyDtoDAsync_v2", |d| {
        copy(d, Copy::Within { dst, src }, bytes, Some(stream))
    })
}

/// Whether `ptr` lies in device memory, an allocation or a module's variable (unified addressing:
/// the driver tells device addresses from host ones by where they lie).
fn on_device(d: &Driver, ptr: u64) -> bool {
    d.machine.holds(ptr, 1)
}

/// A copy between any two addresses, its direction found from where they lie.
fn unified(d: &mut Driver, dst: u64, src: u64, bytes: usize, stream: Option<CUstream>) -> Result {
    let what = match (on_device(d, dst), on_device(d, src)) {
        // Zero bytes between any two addresses: `copy` answers success, as NVIDIA's driver does.
        _ if bytes == 0 => Copy::Within { dst, src },
        (true, true) => Copy::Within { dst, src },
        (true, false) => Copy::In {
            dst,
            src: src as *const c_void,
        },
        (false, true) => Copy::Out {
            dst: dst as *mut c_void,
            src,
        },
        // Host to host: not the driver's to do (a real driver copies it; say what it is).
        (false, false) => return Err(E::CUDA_ERROR_INVALID_VALUE),
    };
    copy(d, what, bytes, stream)
}

/// # Safety
/// A host address among `dst` and `src` is valid for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy(dst: u64, src: u64, bytes: usize) -> CUresult {
    pass_through!(recorded::cuMemcpy(dst, src, bytes));
    call("cuMemcpy", |d| unified(d, dst, src, bytes, None))
}

/// # Safety
/// As [`cuMemcpy`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemcpyAsync(dst, src, bytes, stream));
    call("cuMemcpyAsync", |d| {
        unified(d, dst, src, bytes, Some(stream))
    })
}

/// Fills `count` elements of `pattern` (1, 2 or 4 bytes, little-endian) at `dst`.
pub(crate) fn memset(
    d: &mut Driver,
    dst: u64,
    pattern: &[u8],
    count: usize,
    stream: Option<CUstream>,
) -> Result {
    let node = || Node::Memset {
        dst,
        pattern: pattern.to_vec(),
        count,
    };
    if d.kept_for_a_graph(stream, node)? {
        return Ok(());
    }
    let queued_on = stream.and_then(|s| d.stream_index(s.cast()).ok());
    d.with_mirrors(queued_on, |d| memset_now(d, dst, pattern, count, stream))
}

fn memset_now(
    d: &mut Driver,
    dst: u64,
    pattern: &[u8],
    count: usize,
    stream: Option<CUstream>,
) -> Result {
    d.require_context()?;
    // A synchronous call works on the default stream, as a null stream names it.
    let stream_index = d.stream_index(stream.unwrap_or(std::ptr::null_mut()).cast())?;
    if count == 0 {
        // As a copy of no bytes: success whatever the pointer.
        return Ok(());
    }
    // Checked before the pattern is built: a count past the allocation (or one whose bytes
    // overflow) is refused at once, as NVIDIA's driver does, not after building it.
    let length = pattern.len().checked_mul(count);
    if !length.is_some_and(|n| d.machine.holds(dst, n as u64)) {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    let bytes: Vec<u8> = pattern
        .iter()
        .copied()
        .cycle()
        .take(pattern.len() * count)
        .collect();
    d.machine
        .write(dst, &bytes)
        .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
    // A memset is device work: it takes the device-to-device engine's time for its bytes.
    d.record.transfer(
        Direction::DeviceToDevice,
        bytes.len() as u64,
        true,
        stream.is_some(),
        stream_index,
    );
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, count: usize) -> CUresult {
    pass_through!(recorded::cuMemsetD8_v2(dst, value, count));
    call("cuMemsetD8_v2", |d| memset(d, dst, &[value], count, None))
}

#[no_mangle]
pub extern "C" fn cuMemsetD16_v2(dst: u64, value: u16, count: usize) -> CUresult {
    pass_through!(recorded::cuMemsetD16_v2(dst, value, count));
    call("cuMemsetD16_v2", |d| {
        memset(d, dst, &value.to_le_bytes(), count, None)
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD32_v2(dst: u64, value: u32, count: usize) -> CUresult {
    pass_through!(recorded::cuMemsetD32_v2(dst, value, count));
    call("cuMemsetD32_v2", |d| {
        memset(d, dst, &value.to_le_bytes(), count, None)
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD8Async(dst: u64, value: u8, count: usize, stream: CUstream) -> CUresult {
    pass_through!(recorded::cuMemsetD8Async(dst, value, count, stream));
    call("cuMemsetD8Async", |d| {
        memset(d, dst, &[value], count, Some(stream))
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD16Async(
    dst: u64,
    value: u16,
    count: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemsetD16Async(dst, value, count, stream));
    call("cuMemsetD16Async", |d| {
        memset(d, dst, &value.to_le_bytes(), count, Some(stream))
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD32Async(
    dst: u64,
    value: u32,
    count: usize,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemsetD32Async(dst, value, count, stream));
    call("cuMemsetD32Async", |d| {
        memset(d, dst, &value.to_le_bytes(), count, Some(stream))
    })
}
