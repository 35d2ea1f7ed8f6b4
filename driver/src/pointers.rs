//! What the driver knows about a pointer: `cuPointerGetAttribute(s)` and `cuMemGetAddressRange`.
//!
//! The answers are NVIDIA's, read from driver 580 on an H200 (scripts/gpu/driver-answers/pointers.sh,
//! its output in scripts/gpu/results/driver-pointers.txt): which attributes a block answers, what
//! each is worth, and how many bytes each writes. Libraries ask these to tell device memory from host
//! memory (Numba's `cuda.is_cuda_array`, CuPy, the CUDA runtime's `cudaPointerGetAttributes`).

use crate::state::{call, handle, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_uint, c_void};

/// `CU_MEMORYTYPE_HOST` and `CU_MEMORYTYPE_DEVICE`.
const HOST: u32 = 1;
const DEVICE: u32 = 2;
/// The granularity NVIDIA's driver maps device and page-locked memory in (its MAPPING_SIZE).
const MAPPING_GRANULE: u64 = 2 << 20;
/// `CU_POINTER_ATTRIBUTE_ACCESS_FLAGS`' read-write.
const READ_WRITE: u32 = 3;

/// A block of memory the driver allocated or registered, holding the pointer asked about.
struct Block {
    start: u64,
    len: u64,
    memory_type: u32,
    /// Registered memory is mapped as it is; what the driver allocates, in 2 MiB pieces.
    registered: bool,
    /// Managed memory (`cuMemAllocManaged`): device memory the host reads and writes too.
    managed: bool,
}

fn block_holding(d: &Driver, ptr: u64) -> Option<Block> {
    if let Some((start, len)) = d.allocations.holding(ptr) {
        return Some(Block {
            start,
            len,
            memory_type: DEVICE,
            registered: false,
            managed: d.mirrors.holding(start).map(|(_, _, kind)| kind)
                == Some(crate::mirror::Kind::Managed),
        });
    }
    let (start, len) = d.pinned.holding(ptr)?;
    let registered = !d.allocated_host.contains(&start);
    Some(Block {
        start,
        len,
        memory_type: HOST,
        registered,
        managed: false,
    })
}

/// One attribute's value, in the width NVIDIA's driver writes it.
#[derive(Debug, PartialEq)]
enum Value {
    U32(u32),
    I32(i32),
    U64(u64),
}

/// The handle of the calling thread's context (the one every block belongs to: the simulated
/// device has one context's memory).
fn context(d: &Driver) -> u64 {
    handle::<c_void>(d.current().unwrap_or(0)) as u64
}

/// The value of attribute `attribute` for `ptr` in `block`; `Err` is what the driver answers.
fn attribute(context: u64, block: &Block, attribute: c_uint, ptr: u64) -> Result<Value> {
    Ok(match attribute {
        1 => Value::U64(context),
        2 => Value::U32(block.memory_type),
        3 => Value::U64(ptr),
        4 if block.memory_type == HOST || block.managed => Value::U64(ptr),
        4 => return Err(E::CUDA_ERROR_INVALID_VALUE),
        // Synchronous memory operations are forced only on managed memory.
        6 => Value::U32(u32::from(block.managed)),
        // Unique among live blocks: their starts differ.
        7 => Value::U64(block.start),
        8 => Value::U32(u32::from(block.managed)),
        9 => Value::I32(0),
        11 => Value::U64(block.start),
        12 => Value::U64(block.len),
        13 => Value::U32(1),
        14 => Value::U64(0),
        15 => Value::U32(u32::from(block.memory_type == DEVICE && !block.managed)),
        16 => Value::U32(READ_WRITE),
        17 => Value::U64(0),
        18 if block.registered => Value::U64(block.len),
        18 => Value::U64(MAPPING_GRANULE),
        _ => return Err(E::CUDA_ERROR_NOT_SUPPORTED),
    })
}

/// What `cuPointerGetAttributes` writes for a pointer no block holds: no type, no device.
fn unknown_pointer(attribute: c_uint) -> Value {
    match attribute {
        2 | 6 | 8 | 13 | 15 | 16 => Value::U32(0),
        9 => Value::I32(-2),
        _ => Value::U64(0),
    }
}

/// # Safety
/// `out` is valid for a write of the value's width.
unsafe fn write(out: *mut c_void, value: Value) -> Result {
    // SAFETY: the caller's contract.
    unsafe {
        match value {
            Value::U32(v) => put(out.cast(), v),
            Value::I32(v) => put(out.cast(), v),
            Value::U64(v) => put(out.cast(), v),
        }
    }
}

/// # Safety
/// `data` is null or valid for a write of the attribute's width.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attr: c_uint,
    ptr: u64,
) -> CUresult {
    pass_through!(cuPointerGetAttribute(data, attr, ptr));
    call("cuPointerGetAttribute", |d| {
        let block = block_holding(d, ptr).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        let value = attribute(context(d), &block, attr, ptr)?;
        // SAFETY: the caller's contract.
        unsafe { write(data, value) }
    })
}

/// # Safety
/// `attributes` and `data` are valid for `count` reads; each `data[i]` is null or valid for a
/// write of attribute `i`'s width.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(
    count: c_uint,
    attributes: *const c_uint,
    data: *mut *mut c_void,
    ptr: u64,
) -> CUresult {
    pass_through!(cuPointerGetAttributes(count, attributes, data, ptr));
    call("cuPointerGetAttributes", |d| {
        if count > 0 && (attributes.is_null() || data.is_null()) {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let block = block_holding(d, ptr);
        for i in 0..count as usize {
            // SAFETY: the caller's contract: both arrays hold `count` entries.
            let (attr, out) = unsafe { (*attributes.add(i), *data.add(i)) };
            // Unlike the one-attribute call, an attribute a block lacks reads as zero here.
            let value = match &block {
                Some(block) => attribute(context(d), block, attr, ptr).unwrap_or(Value::U64(0)),
                None => unknown_pointer(attr),
            };
            if !out.is_null() {
                // SAFETY: the caller's contract.
                unsafe { write(out, value)? };
            }
        }
        Ok(())
    })
}

/// # Safety
/// `base` and `size` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut u64,
    size: *mut usize,
    ptr: u64,
) -> CUresult {
    pass_through!(cuMemGetAddressRange_v2(base, size, ptr));
    call("cuMemGetAddressRange_v2", |d| {
        let block = block_holding(d, ptr).ok_or(E::CUDA_ERROR_NOT_FOUND)?;
        // Either output may be left out (null), as NVIDIA's documentation allows.
        // SAFETY: the caller's contract.
        unsafe {
            if !base.is_null() {
                put(base, block.start)?;
            }
            if !size.is_null() {
                put(size, block.len as usize)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(memory_type: u32, registered: bool) -> Block {
        Block {
            start: 0x1000,
            len: 1000,
            memory_type,
            registered,
            managed: false,
        }
    }

    #[test]
    fn managed_memory_is_device_memory_with_a_host_pointer_as_nvidias_driver_says() {
        // scripts/gpu/results/driver-pointers.txt, "managed": 2=2 4=ptr 6=1 8=1 15=0.
        let managed = Block {
            managed: true,
            ..block(DEVICE, false)
        };
        assert_eq!(attribute(7, &managed, 2, 0x100a), Ok(Value::U32(DEVICE)));
        assert_eq!(attribute(7, &managed, 4, 0x100a), Ok(Value::U64(0x100a)));
        assert_eq!(attribute(7, &managed, 6, 0x100a), Ok(Value::U32(1)));
        assert_eq!(attribute(7, &managed, 8, 0x100a), Ok(Value::U32(1)));
        assert_eq!(attribute(7, &managed, 15, 0x100a), Ok(Value::U32(0)));
        assert_eq!(
            attribute(7, &managed, 18, 0x100a),
            Ok(Value::U64(MAPPING_GRANULE))
        );
    }

    #[test]
    fn device_memory_has_no_host_pointer_and_maps_in_2_mib_pieces() {
        let device = block(DEVICE, false);
        assert_eq!(attribute(7, &device, 2, 0x1100), Ok(Value::U32(DEVICE)));
        assert_eq!(attribute(7, &device, 3, 0x1100), Ok(Value::U64(0x1100)));
        assert_eq!(
            attribute(7, &device, 4, 0x1100),
            Err(E::CUDA_ERROR_INVALID_VALUE)
        );
        assert_eq!(attribute(7, &device, 11, 0x1100), Ok(Value::U64(0x1000)));
        assert_eq!(
            attribute(7, &device, 18, 0x1100),
            Ok(Value::U64(MAPPING_GRANULE))
        );
    }

    #[test]
    fn registered_host_memory_is_mapped_as_registered() {
        let registered = block(HOST, true);
        assert_eq!(attribute(7, &registered, 4, 0x1001), Ok(Value::U64(0x1001)));
        assert_eq!(attribute(7, &registered, 18, 0x1001), Ok(Value::U64(1000)));
        assert_eq!(attribute(7, &registered, 15, 0x1001), Ok(Value::U32(0)));
    }

    #[test]
    fn an_unknown_pointer_reads_as_no_device() {
        assert_eq!(unknown_pointer(9), Value::I32(-2));
        assert_eq!(unknown_pointer(2), Value::U32(0));
    }
}
