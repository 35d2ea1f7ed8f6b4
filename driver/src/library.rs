//! The library API (CUDA 12): modules loaded in no context in particular, and their kernels. Here
//! a library is a module and a kernel is a function (one device, one address space), so each
//! handle is also valid as the other.

use crate::module::{function_of, get_function, image_bytes, load_anywhere, module_of};
use crate::state::{call, put};
use cudarc::driver::sys::{CUfunction, CUmodule, CUresult};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// # Safety
/// `library` is null or valid for a write; `code` is a NUL-terminated PTX image.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut CUmodule,
    code: *const c_void,
    _jit_options: *mut c_int,
    _jit_values: *mut *mut c_void,
    _num_jit_options: c_uint,
    _library_options: *mut c_int,
    _library_values: *mut *mut c_void,
    _num_library_options: c_uint,
) -> CUresult {
    pass_through!(cuLibraryLoadData(
        library,
        code,
        _jit_options,
        _jit_values,
        _num_jit_options,
        _library_options,
        _library_values,
        _num_library_options
    ));
    call("cuLibraryLoadData", |d| {
        // SAFETY: the caller's contract.
        let loaded = load_anywhere(d, unsafe { image_bytes(code) }?)?;
        // SAFETY: the caller's contract.
        unsafe { put(library, loaded) }
    })
}

#[no_mangle]
pub extern "C" fn cuLibraryUnload(library: CUmodule) -> CUresult {
    pass_through!(cuLibraryUnload(library));
    call("cuLibraryUnload", |d| {
        let (i, _) = module_of(d, library)?;
        crate::module::unload(d, i);
        Ok(())
    })
}

/// # Safety
/// `module` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut CUmodule, library: CUmodule) -> CUresult {
    pass_through!(cuLibraryGetModule(module, library));
    call("cuLibraryGetModule", |d| {
        module_of(d, library)?;
        // SAFETY: the caller's contract.
        unsafe { put(module, library) }
    })
}

/// # Safety
/// `kernel` is null or valid for a write; `name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut CUfunction,
    library: CUmodule,
    name: *const c_char,
) -> CUresult {
    pass_through!(cuLibraryGetKernel(kernel, library, name));
    // SAFETY: the caller's contract, passed on.
    call("cuLibraryGetKernel", |d| unsafe {
        get_function(d, kernel, library, name)
    })
}

/// # Safety
/// `function` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(
    function: *mut CUfunction,
    kernel: CUfunction,
) -> CUresult {
    pass_through!(cuKernelGetFunction(function, kernel));
    call("cuKernelGetFunction", |d| {
        function_of(d, kernel)?;
        // SAFETY: the caller's contract.
        unsafe { put(function, kernel) }
    })
}

/// # Safety
/// `value` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    kernel: CUfunction,
    dev: c_int,
) -> CUresult {
    pass_through!(cuKernelGetAttribute(value, attrib, kernel, dev));
    // SAFETY: the caller's contract, passed on.
    unsafe { crate::module::cuFuncGetAttribute(value, attrib, kernel) }
}

/// Accepted, as for functions.
#[no_mangle]
pub extern "C" fn cuKernelSetAttribute(
    attrib: c_int,
    value: c_int,
    kernel: CUfunction,
    dev: c_int,
) -> CUresult {
    pass_through!(cuKernelSetAttribute(attrib, value, kernel, dev));
    call("cuKernelSetAttribute", |d| {
        function_of(d, kernel).map(|_| ())
    })
}

/// Accepted and ignored, as for functions (`cuFuncSetCacheConfig`): the simulator has no L1 and
/// shared-memory carve-out to prefer, and a GPU may ignore the preference too.
#[no_mangle]
pub extern "C" fn cuKernelSetCacheConfig(
    kernel: CUfunction,
    config: c_int,
    dev: c_int,
) -> CUresult {
    pass_through!(cuKernelSetCacheConfig(kernel, config, dev));
    call("cuKernelSetCacheConfig", |d| {
        if dev != 0 {
            return Err(cudarc::driver::sys::cudaError_enum::CUDA_ERROR_INVALID_DEVICE);
        }
        function_of(d, kernel).map(|_| ())
    })
}

/// # Safety
/// As `cuModuleGetGlobal_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut u64,
    bytes: *mut usize,
    library: CUmodule,
    name: *const c_char,
) -> CUresult {
    pass_through!(cuLibraryGetGlobal(dptr, bytes, library, name));
    // SAFETY: the caller's contract, passed on.
    unsafe { crate::module::cuModuleGetGlobal_v2(dptr, bytes, library, name) }
}
