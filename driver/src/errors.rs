//! Error names and strings, as the real driver gives them.

use crate::state::{call_with, put};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_char, CStr};

/// Name and description of each error this driver returns.
fn describe(code: u32) -> Option<(&'static CStr, &'static CStr)> {
    let known: &[(E, &CStr, &CStr)] = &[
        (E::CUDA_SUCCESS, c"CUDA_SUCCESS", c"no error"),
        (
            E::CUDA_ERROR_INVALID_VALUE,
            c"CUDA_ERROR_INVALID_VALUE",
            c"invalid argument",
        ),
        (
            E::CUDA_ERROR_OUT_OF_MEMORY,
            c"CUDA_ERROR_OUT_OF_MEMORY",
            c"out of memory",
        ),
        (
            E::CUDA_ERROR_NOT_INITIALIZED,
            c"CUDA_ERROR_NOT_INITIALIZED",
            c"initialization error",
        ),
        (
            E::CUDA_ERROR_DEINITIALIZED,
            c"CUDA_ERROR_DEINITIALIZED",
            c"driver shutting down",
        ),
        (
            E::CUDA_ERROR_INVALID_DEVICE,
            c"CUDA_ERROR_INVALID_DEVICE",
            c"invalid device ordinal",
        ),
        (
            E::CUDA_ERROR_INVALID_IMAGE,
            c"CUDA_ERROR_INVALID_IMAGE",
            c"device kernel image is invalid",
        ),
        (
            E::CUDA_ERROR_NO_BINARY_FOR_GPU,
            c"CUDA_ERROR_NO_BINARY_FOR_GPU",
            c"no kernel image is available for execution on the device",
        ),
        (
            E::CUDA_ERROR_INVALID_CONTEXT,
            c"CUDA_ERROR_INVALID_CONTEXT",
            c"invalid device context",
        ),
        (
            E::CUDA_ERROR_INVALID_PTX,
            c"CUDA_ERROR_INVALID_PTX",
            c"a PTX JIT compilation failed",
        ),
        (
            E::CUDA_ERROR_NOT_FOUND,
            c"CUDA_ERROR_NOT_FOUND",
            c"named symbol not found",
        ),
        (
            E::CUDA_ERROR_NOT_READY,
            c"CUDA_ERROR_NOT_READY",
            c"device not ready",
        ),
        (
            E::CUDA_ERROR_ILLEGAL_ADDRESS,
            c"CUDA_ERROR_ILLEGAL_ADDRESS",
            c"an illegal memory access was encountered",
        ),
        (
            E::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
            c"too many resources requested for launch",
        ),
        (
            E::CUDA_ERROR_LAUNCH_TIMEOUT,
            c"CUDA_ERROR_LAUNCH_TIMEOUT",
            c"the launch timed out and was terminated",
        ),
        (
            E::CUDA_ERROR_LAUNCH_FAILED,
            c"CUDA_ERROR_LAUNCH_FAILED",
            c"unspecified launch failure",
        ),
        (
            E::CUDA_ERROR_MISALIGNED_ADDRESS,
            c"CUDA_ERROR_MISALIGNED_ADDRESS",
            c"misaligned address",
        ),
        (
            E::CUDA_ERROR_ASSERT,
            c"CUDA_ERROR_ASSERT",
            c"device-side assert triggered",
        ),
        (
            E::CUDA_ERROR_INVALID_HANDLE,
            c"CUDA_ERROR_INVALID_HANDLE",
            c"invalid resource handle",
        ),
        (
            E::CUDA_ERROR_NOT_SUPPORTED,
            c"CUDA_ERROR_NOT_SUPPORTED",
            c"operation not supported",
        ),
        (
            E::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
            c"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
            c"part or all of the requested memory range is already mapped",
        ),
        (
            E::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
            c"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
            c"pointer does not correspond to a registered memory region",
        ),
        (
            E::CUDA_ERROR_UNSUPPORTED_LIMIT,
            c"CUDA_ERROR_UNSUPPORTED_LIMIT",
            c"limit is not supported on this architecture",
        ),
        (
            E::CUDA_ERROR_FILE_NOT_FOUND,
            c"CUDA_ERROR_FILE_NOT_FOUND",
            c"file not found",
        ),
        (
            E::CUDA_ERROR_UNKNOWN,
            c"CUDA_ERROR_UNKNOWN",
            c"unknown error",
        ),
    ];
    known
        .iter()
        .find(|(e, _, _)| *e as u32 == code)
        .map(|&(_, name, text)| (name, text))
}

/// An error's name, for the record.
pub(crate) fn name_of(code: u32) -> String {
    describe(code).map_or_else(
        || format!("CUresult {code}"),
        |(name, _)| name.to_string_lossy().into_owned(),
    )
}

/// # Safety
/// `out` is null or valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: u32, out: *mut *const c_char) -> CUresult {
    pass_through!(cuGetErrorName(error, out));
    call_with("cuGetErrorName", true, |_| {
        let (name, _) = describe(error).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, name.as_ptr()) }
    })
}

/// # Safety
/// `out` is null or valid for a write of a pointer.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: u32, out: *mut *const c_char) -> CUresult {
    pass_through!(cuGetErrorString(error, out));
    call_with("cuGetErrorString", true, |_| {
        let (_, text) = describe(error).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, text.as_ptr()) }
    })
}

/// What every entry point this driver does not implement answers: its name on stderr (once), in
/// the record, and `CUDA_ERROR_NOT_SUPPORTED`, so that a program never goes on as if it had
/// worked.
pub(crate) fn not_supported(name: &'static str) -> CUresult {
    crate::state::with_driver(|d| {
        d.record.count(name);
        if !d.record.not_supported.iter().any(|n| n == name) {
            eprintln!(
                "simcuda: {name} is not implemented by the simulator's CUDA driver; it returns \
                 CUDA_ERROR_NOT_SUPPORTED"
            );
            d.record.not_supported.push(name.to_string());
        }
        d.record.failed(name, E::CUDA_ERROR_NOT_SUPPORTED)
    })
}
