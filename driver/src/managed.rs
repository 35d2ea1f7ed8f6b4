//! Managed memory (`cuMemAllocManaged`, Unified Memory): one pointer the host and kernels both
//! read and write. The host's memory is mapped by this driver and mirrored on the simulated device
//! (`mirror`); prefetches and advice are checked and kept, as `cuMemRangeGetAttribute` reads them
//! back, and move nothing (there is one memory). What the program did with managed memory is
//! recorded by `state::book`, alike here and in pass-through mode.

use crate::mirror::Kind;
use crate::state::advice::{destination, Advice, Location, CPU};
use crate::state::{call, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream};
use std::ffi::{c_int, c_uint, c_void};

/// `CU_MEM_ATTACH_GLOBAL` and `CU_MEM_ATTACH_HOST`: the flags `cuMemAllocManaged` takes.
const ATTACH_GLOBAL: c_uint = 1;
const ATTACH_HOST: c_uint = 2;
/// `CU_DEVICE_INVALID`, as a device ordinal in advice and range attributes.
const NO_DEVICE: c_int = -2;

fn alloc(d: &mut Driver, bytes: usize, flags: c_uint) -> Result<u64> {
    d.require_context()?;
    if bytes == 0 || !matches!(flags, ATTACH_GLOBAL | ATTACH_HOST) {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    d.record.implicit_barrier();
    // SAFETY: an anonymous private mapping of fresh, zeroed pages; nothing else is touched.
    let host = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if host == libc::MAP_FAILED {
        return Err(E::CUDA_ERROR_OUT_OF_MEMORY);
    }
    let start = host as u64;
    if let Err(e) = d.mirror(start, bytes as u64, Kind::Managed) {
        // SAFETY: mapped just above, never handed out.
        unsafe { libc::munmap(host, bytes) };
        return Err(e);
    }
    d.allocations.insert(start, bytes as u64);
    d.advice.insert(start, Advice::default());
    d.managed_allocated(start, bytes as u64);
    Ok(start)
}

/// Frees device memory at `start`: a managed block's host mapping too.
pub(crate) fn free(d: &mut Driver, start: u64) {
    match d.unmirror(start) {
        Some((len, Kind::Managed)) => {
            d.advice.remove(&start);
            d.managed_freed(start);
            // SAFETY: mapped by `alloc` with this length, and freed once (its allocation is gone).
            unsafe { libc::munmap(start as *mut c_void, len as usize) };
        }
        Some((_, Kind::Mapped)) | None => d.machine.free(start),
    }
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(
    dptr: *mut u64,
    bytes: usize,
    flags: c_uint,
) -> CUresult {
    pass_through!(recorded::cuMemAllocManaged(dptr, bytes, flags));
    call("cuMemAllocManaged", |d| {
        if dptr.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let start = alloc(d, bytes, flags)?;
        // SAFETY: the caller's contract.
        unsafe { put(dptr, start) }
    })
}

/// The advice of the managed block that holds all of `[ptr, ptr + count)`.
fn advice_of(d: &mut Driver, ptr: u64, count: usize) -> Result<&mut Advice> {
    let (start, len, kind) = d.mirrors.holding(ptr).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
    let inside = (ptr - start)
        .checked_add(count as u64)
        .is_some_and(|end| end <= len);
    if count == 0 || !inside || kind != Kind::Managed {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    d.advice.get_mut(&start).ok_or(E::CUDA_ERROR_INVALID_VALUE)
}

fn prefetch(d: &mut Driver, ptr: u64, count: usize, to: c_int, stream: CUstream) -> Result {
    d.require_context()?;
    let stream = d.stream_index(stream.cast())?;
    if to != 0 && to != CPU {
        return Err(E::CUDA_ERROR_INVALID_DEVICE);
    }
    advice_of(d, ptr, count)?.last_prefetch = Some(to);
    d.managed_prefetched(ptr, count as u64, destination(to), stream);
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync(
    ptr: u64,
    count: usize,
    device: c_int,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemPrefetchAsync(ptr, count, device, stream));
    call("cuMemPrefetchAsync", |d| {
        prefetch(d, ptr, count, device, stream)
    })
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync_v2(
    ptr: u64,
    count: usize,
    location: Location,
    flags: c_uint,
    stream: CUstream,
) -> CUresult {
    pass_through!(recorded::cuMemPrefetchAsync_v2(
        ptr, count, location, flags, stream
    ));
    call("cuMemPrefetchAsync_v2", |d| {
        if flags != 0 {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        prefetch(d, ptr, count, location.ordinal()?, stream)
    })
}

/// `CU_MEM_ATTACH_SINGLE`: only the one stream's work touches the block.
const ATTACH_SINGLE: c_uint = 4;

/// Checks `cuStreamAttachMemAsync`'s arguments as NVIDIA's driver does: a managed block, the
/// whole of it (length 0 or its size: a part cannot change hands), one attach flag, and a stream
/// of the program's own for single attachment. With one memory nothing moves, so nothing is kept.
fn attach(d: &mut Driver, stream: CUstream, ptr: u64, length: usize, flags: c_uint) -> Result {
    d.require_context()?;
    let index = d.stream_index(stream.cast())?;
    let (start, len, kind) = d.mirrors.holding(ptr).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
    let whole = length == 0 || (ptr == start && length as u64 == len);
    let flag_known = matches!(flags, ATTACH_GLOBAL | ATTACH_HOST | ATTACH_SINGLE);
    if kind != Kind::Managed || !whole || !flag_known {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // The legacy and per-thread default streams are index 0 too.
    if flags == ATTACH_SINGLE && index == 0 {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuStreamAttachMemAsync(
    stream: CUstream,
    ptr: u64,
    length: usize,
    flags: c_uint,
) -> CUresult {
    pass_through!(cuStreamAttachMemAsync(stream, ptr, length, flags));
    call("cuStreamAttachMemAsync", |d| {
        attach(d, stream, ptr, length, flags)
    })
}

/// Applies `cuMemAdvise`'s advice `advice` about device `device` to the block of `ptr`.
fn advise(d: &mut Driver, ptr: u64, count: usize, advice: c_int, device: c_int) -> Result {
    d.require_context()?;
    // Read-mostly advice names no device; the others name the device or the host.
    if matches!(advice, 3..=6) && device != 0 && device != CPU {
        return Err(E::CUDA_ERROR_INVALID_DEVICE);
    }
    let a = advice_of(d, ptr, count)?;
    match advice {
        1 => a.read_mostly = true,
        2 => a.read_mostly = false,
        3 => a.preferred = Some(device),
        4 => a.preferred = None,
        5 if !a.accessed_by.contains(&device) => a.accessed_by.push(device),
        5 => {}
        6 => a.accessed_by.retain(|&x| x != device),
        _ => return Err(E::CUDA_ERROR_INVALID_VALUE),
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuMemAdvise(ptr: u64, count: usize, advice: c_int, device: c_int) -> CUresult {
    pass_through!(cuMemAdvise(ptr, count, advice, device));
    call("cuMemAdvise", |d| advise(d, ptr, count, advice, device))
}

#[no_mangle]
pub extern "C" fn cuMemAdvise_v2(
    ptr: u64,
    count: usize,
    advice: c_int,
    location: Location,
) -> CUresult {
    pass_through!(cuMemAdvise_v2(ptr, count, advice, location));
    call("cuMemAdvise_v2", |d| {
        // Read-mostly advice ignores its location.
        let device = if matches!(advice, 1 | 2) {
            0
        } else {
            location.ordinal()?
        };
        advise(d, ptr, count, advice, device)
    })
}

/// The ints `cuMemRangeGetAttribute` writes for `attribute`, given room for `slots` of them.
fn range_attribute(a: &Advice, attribute: c_int, slots: usize) -> Result<Vec<c_int>> {
    let one = |v: c_int| {
        if slots == 1 {
            Ok(vec![v])
        } else {
            Err(E::CUDA_ERROR_INVALID_VALUE)
        }
    };
    match attribute {
        1 => one(c_int::from(a.read_mostly)),
        2 => one(a.preferred.unwrap_or(NO_DEVICE)),
        3 => Ok((0..slots)
            .map(|i| a.accessed_by.get(i).copied().unwrap_or(NO_DEVICE))
            .collect()),
        4 => one(a.last_prefetch.unwrap_or(NO_DEVICE)),
        _ => Err(E::CUDA_ERROR_INVALID_VALUE),
    }
}

/// # Safety
/// `data` is null or valid for `size` bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn cuMemRangeGetAttribute(
    data: *mut c_void,
    size: usize,
    attribute: c_int,
    ptr: u64,
    count: usize,
) -> CUresult {
    pass_through!(cuMemRangeGetAttribute(data, size, attribute, ptr, count));
    call("cuMemRangeGetAttribute", |d| {
        if data.is_null() || size == 0 || !size.is_multiple_of(4) {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let values = range_attribute(advice_of(d, ptr, count)?, attribute, size / 4)?;
        // SAFETY: `size` writable bytes by the caller's contract; `values` has size / 4 ints.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), data.cast(), values.len()) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_attributes_read_back_the_advice_and_unset_ones_name_no_device() {
        let mut a = Advice::default();
        assert_eq!(range_attribute(&a, 2, 1), Ok(vec![NO_DEVICE]));
        assert_eq!(range_attribute(&a, 4, 1), Ok(vec![NO_DEVICE]));
        a.read_mostly = true;
        a.accessed_by = vec![0];
        assert_eq!(range_attribute(&a, 1, 1), Ok(vec![1]));
        assert_eq!(range_attribute(&a, 3, 3), Ok(vec![0, NO_DEVICE, NO_DEVICE]));
        assert_eq!(range_attribute(&a, 1, 2), Err(E::CUDA_ERROR_INVALID_VALUE));
        assert_eq!(range_attribute(&a, 9, 1), Err(E::CUDA_ERROR_INVALID_VALUE));
    }

    #[test]
    fn a_location_is_the_device_or_the_host() {
        assert_eq!(Location { kind: 1, id: 0 }.ordinal(), Ok(0));
        assert_eq!(Location { kind: 2, id: 0 }.ordinal(), Ok(CPU));
        assert_eq!(
            Location { kind: 1, id: 1 }.ordinal(),
            Err(E::CUDA_ERROR_INVALID_DEVICE)
        );
        assert_eq!(
            Location { kind: 0, id: 0 }.ordinal(),
            Err(E::CUDA_ERROR_INVALID_VALUE)
        );
    }
}
