//! `cuGetProcAddress`: how NVIDIA's Python bindings (and the CUDA runtime) find every other
//! entry point. A name is looked up in this library itself, in the form the caller's CUDA version
//! means (`versions`: `cuMemAlloc` is `cuMemAlloc_v2` since CUDA 3.2, `cuCtxCreate` is
//! `cuCtxCreate_v4` from 12.5, `cuCtxSynchronize` is `cuCtxSynchronize_v2`, which takes a context,
//! from 13.0), as NVIDIA's driver answers: the caller calls it with that form's arguments.

mod versions;

use crate::state::{call_with, put};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// This library's own handle, found from one of its functions.
fn own_library() -> Option<*mut c_void> {
    // SAFETY: dladdr only reads the address of one of our functions and fills `info`.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let ours = crate::device::cuInit as *const c_void;
    // SAFETY: `ours` is a function of this library; `info` is writable.
    if unsafe { libc::dladdr(ours, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname names this library, which is loaded: RTLD_NOLOAD only finds it.
    let handle = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    (!handle.is_null()).then_some(handle)
}

/// The address of the form of `symbol` that CUDA version `version` means, in this library (or a
/// later form that takes the same arguments, where this library lacks that one).
fn lookup(symbol: &str, version: c_int) -> Option<*mut c_void> {
    let handle = own_library()?;
    let names = versions::forms(symbol, version).unwrap_or_else(|| vec![symbol.to_string()]);
    names
        .into_iter()
        .filter_map(|name| CString::new(name).ok())
        .find_map(|name| {
            // SAFETY: `handle` is a loaded library and `name` a NUL-terminated string.
            let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
            (!address.is_null()).then_some(address)
        })
}

/// The real driver's answer for `symbol`, in pass-through mode.
fn real_proc_address(
    symbol: *const c_char,
    cuda_version: c_int,
    flags: u64,
) -> Option<*mut c_void> {
    if !crate::real::active() {
        return None;
    }
    let mut pfn: *mut c_void = std::ptr::null_mut();
    let status: *mut c_int = std::ptr::null_mut();
    let args = (
        symbol,
        &mut pfn as *mut *mut c_void,
        cuda_version,
        flags,
        status,
    );
    // SAFETY: a NUL-terminated name and a writable pointer, as cuGetProcAddress_v2 takes.
    let asked = unsafe { crate::real::raw("cuGetProcAddress_v2", args) };
    (asked == E::CUDA_SUCCESS && !pfn.is_null()).then_some(pfn)
}

/// `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`: the name is newer than the version asked for.
const VERSION_NOT_SUFFICIENT: c_int = 2;

/// `symbol_status` (when not null) gets 0 for found, 1 for not found, 2 for a version older
/// than the name (then no address, and CUDA_SUCCESS, as NVIDIA's driver answers).
///
/// # Safety
/// `symbol` is NUL-terminated; `pfn` and `symbol_status` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    symbol_status: *mut c_int,
) -> CUresult {
    // Bindings look every entry point up before they call cuInit, as the real driver allows.
    // A name this driver lacks is answered NOT_FOUND, as the real driver answers names it lacks,
    // but is no failure of the program's: bindings look up every entry point they know.
    let mut missing = false;
    let result = call_with("cuGetProcAddress_v2", true, |d| {
        if symbol.is_null() || pfn.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let name = unsafe { CStr::from_ptr(symbol) }
            .to_string_lossy()
            .into_owned();
        if versions::too_old(&name, cuda_version) {
            // SAFETY: the caller's contract.
            unsafe {
                put(pfn, std::ptr::null_mut())?;
                if !symbol_status.is_null() {
                    put(symbol_status, VERSION_NOT_SUFFICIENT)?;
                }
            }
            return Ok(());
        }
        // In pass-through mode, what this library does not export comes from the real driver
        // (unrecorded: the program calls it directly).
        let found =
            lookup(&name, cuda_version).or_else(|| real_proc_address(symbol, cuda_version, flags));
        if found.is_none() && !d.record.not_found.contains(&name) {
            d.record.not_found.push(name);
        }
        // SAFETY: the caller's contract.
        unsafe {
            put(pfn, found.unwrap_or(std::ptr::null_mut()))?;
            if !symbol_status.is_null() {
                put(symbol_status, found.is_none() as c_int)?;
            }
        }
        missing = found.is_none();
        Ok(())
    });
    if result == E::CUDA_SUCCESS && missing {
        E::CUDA_ERROR_NOT_FOUND
    } else {
        result
    }
}

/// The CUDA 11 form, without the status.
///
/// # Safety
/// As [`cuGetProcAddress_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
) -> CUresult {
    // SAFETY: the caller's contract, passed on.
    unsafe { cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, std::ptr::null_mut()) }
}
