//! `cuInit`, versions, and the one device: a model of an NVIDIA H100 SXM (compute capability 9.0),
//! or of an H200 with `SIMCUDA_GPU=h200`, with the simulator's 4 GiB of device memory.

use crate::state::{call, call_with, put, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUdevice_attribute as A, CUresult, CUuuid};
use std::ffi::{c_char, c_int, c_uint};

/// The CUDA version this driver reports (13.0), as `cuDriverGetVersion` encodes it.
pub(crate) const DRIVER_VERSION: c_int = 13000;
/// The device's UUID (`cuDeviceGetUuid`).
pub(crate) const UUID: [u8; 16] = *b"simcuda-h100-sim";
/// The reference GPU the device describes and kernels' times are modelled on: `SIMCUDA_GPU`
/// (`h100`, the default, or `h200`).
pub(crate) fn gpu_model() -> sim::GpuModel {
    match std::env::var("SIMCUDA_GPU").as_deref() {
        Ok("h200") => sim::GpuModel::h200(),
        _ => sim::GpuModel::h100(),
    }
}

fn device_name() -> &'static std::ffi::CStr {
    if gpu_model().name == sim::GpuModel::h200().name {
        c"NVIDIA H200 (simulated by the course's runner)"
    } else {
        c"NVIDIA H100 (simulated by the course's runner)"
    }
}
/// The simulator's device memory.
pub(crate) const TOTAL_MEMORY: usize = 4 << 30;

/// # Safety
/// Any flags; none are defined.
#[no_mangle]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    pass_through!(cuInit(flags));
    call_with("cuInit", true, |d| {
        if flags != 0 {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        d.initialised = true;
        Ok(())
    })
}

/// # Safety
/// `version` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    pass_through!(cuDriverGetVersion(version));
    // SAFETY: the caller's contract.
    call_with("cuDriverGetVersion", true, |_| unsafe {
        put(version, DRIVER_VERSION)
    })
}

/// # Safety
/// `count` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    pass_through!(cuDeviceGetCount(count));
    // SAFETY: the caller's contract.
    call("cuDeviceGetCount", |_| unsafe { put(count, 1) })
}

fn device(ordinal: c_int) -> Result {
    if ordinal == 0 {
        Ok(())
    } else {
        Err(E::CUDA_ERROR_INVALID_DEVICE)
    }
}

/// # Safety
/// `out` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(out: *mut c_int, ordinal: c_int) -> CUresult {
    pass_through!(cuDeviceGet(out, ordinal));
    call("cuDeviceGet", |_| {
        device(ordinal)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, 0) }
    })
}

/// # Safety
/// `name` is valid for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: c_int) -> CUresult {
    pass_through!(cuDeviceGetName(name, len, dev));
    call("cuDeviceGetName", |_| {
        device(dev)?;
        if name.is_null() || len <= 0 {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        let bytes = device_name().to_bytes();
        let n = bytes.len().min(len as usize - 1);
        // SAFETY: `name` holds `len` bytes and `n + 1 <= len`.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), name.cast(), n);
            *name.add(n) = 0;
        }
        Ok(())
    })
}

/// # Safety
/// `bytes` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: c_int) -> CUresult {
    pass_through!(cuDeviceTotalMem_v2(bytes, dev));
    call("cuDeviceTotalMem_v2", |_| {
        device(dev)?;
        // SAFETY: the caller's contract.
        unsafe { put(bytes, TOTAL_MEMORY) }
    })
}

/// # Safety
/// `uuid` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: c_int) -> CUresult {
    pass_through!(cuDeviceGetUuid_v2(uuid, dev));
    call("cuDeviceGetUuid_v2", |_| {
        device(dev)?;
        let mut bytes = [0 as c_char; 16];
        for (b, &v) in bytes.iter_mut().zip(&UUID) {
            *b = v as c_char;
        }
        // SAFETY: the caller's contract.
        unsafe { put(uuid, CUuuid { bytes }) }
    })
}

/// # Safety
/// `uuid` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: c_int) -> CUresult {
    pass_through!(cuDeviceGetUuid(uuid, dev));
    // SAFETY: the caller's contract, passed on.
    unsafe { cuDeviceGetUuid_v2(uuid, dev) }
}

/// # Safety
/// `major` and `minor` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: c_int,
) -> CUresult {
    pass_through!(cuDeviceComputeCapability(major, minor, dev));
    call("cuDeviceComputeCapability", |_| {
        device(dev)?;
        // SAFETY: the caller's contract.
        unsafe {
            put(major, 9)?;
            put(minor, 0)
        }
    })
}

/// The model's value of a device attribute; attributes it does not describe read 0 (a feature
/// the simulator does not offer, such as memory pools or cooperative launches).
pub(crate) fn attribute(raw: c_int) -> c_int {
    let is = |a: A| a as c_int == raw;
    let table: &[(A, c_int)] = &[
        (A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024),
        (A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024),
        (A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024),
        (A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64),
        (A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, i32::MAX),
        (A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535),
        (A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535),
        (
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            48 * 1024,
        ),
        (
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            227 * 1024,
        ),
        (
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            228 * 1024,
        ),
        (A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 64 * 1024),
        (A::CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32),
        (A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536),
        (
            A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
            65536,
        ),
        (A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1_980_000),
        (A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2_619_000),
        (A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120),
        (A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 50 * 1024 * 1024),
        (A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132),
        (A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048),
        (A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32),
        (A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9),
        (A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0),
        (A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1),
        (A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 2),
        (A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1),
        (A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1),
        (A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1),
        (A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1),
        (
            A::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
            1,
        ),
        (A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1),
        (A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
        // cuLaunchCooperativeKernel runs (cooperative.rs), and a grid barrier of the device
        // runtime's (Numba's this_grid().sync()) is simulated.
        (A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1),
    ];
    table
        .iter()
        .find(|(a, _)| is(*a))
        .map_or(0, |&(_, value)| value)
}

/// # Safety
/// `value` is null or valid for a write. `attrib` is taken as a plain integer: a value outside
/// the enumeration must not be undefined behaviour here.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    dev: c_int,
) -> CUresult {
    pass_through!(cuDeviceGetAttribute(value, attrib, dev));
    call("cuDeviceGetAttribute", |_| {
        device(dev)?;
        // SAFETY: the caller's contract.
        unsafe { put(value, attribute(attrib)) }
    })
}
