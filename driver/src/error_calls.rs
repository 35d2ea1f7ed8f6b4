//! What a program asks of errors: `cuGetErrorName` and `cuGetErrorString` (from the table in
//! `errors`), and the answer of every entry point this driver does not implement.

use crate::errors::describe;
use crate::state::{call_with, put};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::c_char;

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
