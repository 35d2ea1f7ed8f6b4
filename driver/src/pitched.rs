//! Pitched memory: 2D allocations whose rows each start on an aligned address (`cuMemAllocPitch`,
//! which `cudaMallocPitch` calls), and copies of a rectangle of rows (`cuMemcpy2D`, which
//! `cudaMemcpy2D` calls). A copy is recorded as one transfer of the rectangle's bytes.

use crate::in_flight::Wait;
use crate::record::Direction;
use crate::state::{call, put, Driver, Result};
use cudarc::driver::sys::{
    cudaError_enum as E, CUmemorytype as M, CUresult, CUstream, CUDA_MEMCPY2D,
};
use std::ffi::c_uint;

/// Rows start on multiples of this (what NVIDIA's driver gives on an H100: a 100-byte row has
/// a pitch of 512).
const PITCH_ALIGNMENT: usize = 512;

/// # Safety
/// `dptr` and `pitch` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut u64,
    pitch: *mut usize,
    width_bytes: usize,
    height: usize,
    element_bytes: c_uint,
) -> CUresult {
    pass_through!(cuMemAllocPitch_v2(
        dptr,
        pitch,
        width_bytes,
        height,
        element_bytes
    ));
    call("cuMemAllocPitch_v2", |d| {
        let sizes_valid = matches!(element_bytes, 4 | 8 | 16) && width_bytes > 0 && height > 0;
        if dptr.is_null() || pitch.is_null() || !sizes_valid {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let row = width_bytes
            .checked_next_multiple_of(PITCH_ALIGNMENT)
            .ok_or(E::CUDA_ERROR_OUT_OF_MEMORY)?;
        let bytes = row.checked_mul(height).ok_or(E::CUDA_ERROR_OUT_OF_MEMORY)?;
        let start = crate::memory::alloc(d, bytes)?;
        // SAFETY: the caller's contract; both checked not null.
        unsafe {
            put(dptr, start)?;
            put(pitch, row)
        }
    })
}

/// Where one side of a 2D copy is: the address of its first row's first byte, and its pitch.
#[derive(Clone, Copy)]
enum Side {
    Host(usize, usize),
    Device(u64, usize),
}

impl Side {
    fn row(self, r: usize) -> Result<Side> {
        let overflow = E::CUDA_ERROR_INVALID_VALUE;
        Ok(match self {
            Side::Host(at, pitch) => Side::Host(
                r.checked_mul(pitch)
                    .and_then(|o| at.checked_add(o))
                    .ok_or(overflow)?,
                pitch,
            ),
            Side::Device(at, pitch) => {
                let offset = r.checked_mul(pitch).ok_or(overflow)? as u64;
                Side::Device(at.checked_add(offset).ok_or(overflow)?, pitch)
            }
        })
    }
}

/// One side of `copy` from its memory type, pointers, offset and pitch. Unified addresses are
/// told apart by where they lie, as `cuMemcpy` does.
#[allow(clippy::too_many_arguments)]
fn side(
    d: &Driver,
    memory: M,
    host: usize,
    device: u64,
    x: usize,
    y: usize,
    pitch: usize,
    width: usize,
) -> Result<Side> {
    if width > pitch {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    let offset = y
        .checked_mul(pitch)
        .and_then(|o| o.checked_add(x))
        .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
    let on_device = match memory {
        M::CU_MEMORYTYPE_HOST => false,
        M::CU_MEMORYTYPE_DEVICE => true,
        M::CU_MEMORYTYPE_UNIFIED => d.machine.holds(device, 1),
        _ => {
            eprintln!(
                "simcuda: cuMemcpy2D from or to a CUDA array is not supported by the simulator"
            );
            return Err(E::CUDA_ERROR_NOT_SUPPORTED);
        }
    };
    Ok(if on_device {
        Side::Device(
            device
                .checked_add(offset as u64)
                .ok_or(E::CUDA_ERROR_INVALID_VALUE)?,
            pitch,
        )
    } else {
        let start = if memory == M::CU_MEMORYTYPE_UNIFIED {
            device as usize
        } else {
            host
        };
        Side::Host(
            start
                .checked_add(offset)
                .ok_or(E::CUDA_ERROR_INVALID_VALUE)?,
            pitch,
        )
    })
}

/// Runs a 2D copy row by row, recorded on `stream` (`None`: synchronous) as one transfer.
///
/// # Safety
/// `copy` is null or valid for a read; its host rows are valid for `WidthInBytes` bytes each.
unsafe fn copy_2d(d: &mut Driver, copy: *const CUDA_MEMCPY2D, stream: Option<CUstream>) -> Result {
    d.require_context()?;
    if copy.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    let c = unsafe { *copy };
    if stream.is_none() {
        // A synchronous copy runs after everything queued, as `memory::copy`'s do.
        d.land(Wait::All);
    }
    let stream_index = d.stream_index(stream.unwrap_or(std::ptr::null_mut()).cast())?;
    let width = c.WidthInBytes;
    let (src_host, dst_host) = (c.srcHost as usize, c.dstHost as usize);
    let src = side(
        d,
        c.srcMemoryType,
        src_host,
        c.srcDevice,
        c.srcXInBytes,
        c.srcY,
        c.srcPitch,
        width,
    )?;
    let dst = side(
        d,
        c.dstMemoryType,
        dst_host,
        c.dstDevice,
        c.dstXInBytes,
        c.dstY,
        c.dstPitch,
        width,
    )?;
    // Every device row first: nothing is copied when a row lies outside the allocations.
    for r in 0..c.Height {
        for s in [src.row(r)?, dst.row(r)?] {
            if let Side::Device(at, _) = s {
                if !d.machine.holds(at, width as u64) {
                    return Err(E::CUDA_ERROR_INVALID_VALUE);
                }
            }
        }
    }
    let (direction, pinned) = match (src, dst) {
        (Side::Host(at, _), Side::Device(..)) => (Direction::HostToDevice, d.is_pinned(at, width)),
        (Side::Device(..), Side::Host(at, _)) => (Direction::DeviceToHost, d.is_pinned(at, width)),
        (Side::Device(..), Side::Device(..)) => (Direction::DeviceToDevice, true),
        // Host to host: not the driver's to do, as `cuMemcpy` answers it.
        (Side::Host(..), Side::Host(..)) => return Err(E::CUDA_ERROR_INVALID_VALUE),
    };
    for r in 0..c.Height {
        let bytes = match src.row(r)? {
            // SAFETY: the program passed each host row as `width` readable bytes.
            Side::Host(at, _) => {
                unsafe { std::slice::from_raw_parts(at as *const u8, width) }.to_vec()
            }
            Side::Device(at, _) => d
                .machine
                .read(at, width as u64)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?,
        };
        match dst.row(r)? {
            Side::Device(at, _) => d
                .machine
                .write(at, &bytes)
                .map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?,
            // Back to page-locked memory on a stream: it lands when the program waits.
            Side::Host(at, _) if stream.is_some() && pinned => {
                d.send_later(stream_index, at, bytes)
            }
            // SAFETY: the program passed each host row as `width` writable bytes.
            Side::Host(at, _) => unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), at as *mut u8, width)
            },
        }
    }
    let total = (width as u64).saturating_mul(c.Height as u64);
    d.record
        .transfer(direction, total, pinned, stream.is_some(), stream_index);
    Ok(())
}

/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(copy: *const CUDA_MEMCPY2D) -> CUresult {
    pass_through!(cuMemcpy2D_v2(copy));
    // SAFETY: the caller's contract, passed on.
    call("cuMemcpy2D_v2", |d| unsafe { copy_2d(d, copy, None) })
}

/// The simulator's copies have no alignment to keep: as [`cuMemcpy2D_v2`].
///
/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(copy: *const CUDA_MEMCPY2D) -> CUresult {
    pass_through!(cuMemcpy2DUnaligned_v2(copy));
    // SAFETY: the caller's contract, passed on.
    call("cuMemcpy2DUnaligned_v2", |d| unsafe {
        copy_2d(d, copy, None)
    })
}

/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(
    copy: *const CUDA_MEMCPY2D,
    stream: CUstream,
) -> CUresult {
    pass_through!(cuMemcpy2DAsync_v2(copy, stream));
    // SAFETY: the caller's contract, passed on.
    call("cuMemcpy2DAsync_v2", |d| unsafe {
        copy_2d(d, copy, Some(stream))
    })
}
