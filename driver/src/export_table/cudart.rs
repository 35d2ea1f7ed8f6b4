//! CUDART_INTERFACE (`6bd5fb6c-...`): how the runtime loads the fat binaries its program
//! registered (`__cudaRegisterFatBinary`) and finds the primary context. The simulator loads the
//! PTX out of each fat binary, as `cuModuleLoadData` loads PTX.

use super::{inside, unknown_slot, Slots, Table};
use crate::state::{handle, put, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUcontext, CUmodule, CUresult};
use std::ffi::{c_int, c_void};

const T: usize = Table::CudartInterface as usize;

pub(crate) static TABLE: Slots<13> = Slots([
    Slots::<13>::SIZE,
    module_from_fatbin as *const c_void,
    primary_context as *const c_void,
    unknown_slot::<T, 3> as *const c_void,
    unknown_slot::<T, 4> as *const c_void,
    unknown_slot::<T, 5> as *const c_void,
    module_from_fatbin_with_options as *const c_void,
    no_op as *const c_void,
    module_from_fatbin_header as *const c_void,
    unknown_slot::<T, 9> as *const c_void,
    unknown_slot::<T, 10> as *const c_void,
    unknown_slot::<T, 11> as *const c_void,
    load_compilers as *const c_void,
]);

/// Loads the PTX of the fat binary at `start` (a wrapper or the fat binary itself) as a module
/// of the current context.
///
/// # Safety
/// `module` is null or valid for a write; `start` points at what `__cudaRegisterFatBinary` was
/// given.
unsafe fn load(module: *mut CUmodule, start: *const c_void) -> CUresult {
    inside(
        "cuGetExportTable CUDART_INTERFACE module_from_fatbin",
        |d| {
            d.require_context()?;
            // SAFETY: the caller's contract.
            let fatbin =
                unsafe { crate::fatbin::of_wrapper(start) }.map_err(crate::fatbin::refused)?;
            let loaded = crate::module::load_anywhere(d, fatbin)?;
            // SAFETY: the caller's contract.
            unsafe { put(module, loaded) }
        },
    )
}

/// Slot 1.
///
/// # Safety
/// As [`load`].
unsafe extern "C" fn module_from_fatbin(module: *mut CUmodule, wrapper: *const c_void) -> CUresult {
    // SAFETY: the caller's contract.
    unsafe { load(module, wrapper) }
}

/// Slot 6: as slot 1, with JIT options the simulator has no use for.
///
/// # Safety
/// As [`load`].
unsafe extern "C" fn module_from_fatbin_with_options(
    module: *mut CUmodule,
    wrapper: *const c_void,
    _options: *mut c_void,
    _values: *mut c_void,
    _count: u32,
) -> CUresult {
    // SAFETY: the caller's contract.
    unsafe { load(module, wrapper) }
}

/// Slot 8: as slot 6, given the fat binary itself first.
///
/// # Safety
/// As [`load`].
unsafe extern "C" fn module_from_fatbin_header(
    fatbin: *const c_void,
    module: *mut CUmodule,
    _options: *mut c_void,
    _values: *mut c_void,
    _count: u32,
) -> CUresult {
    // SAFETY: the caller's contract.
    unsafe { load(module, fatbin) }
}

/// Slot 2: the device's primary context (the one the runtime's calls run in).
///
/// # Safety
/// `context` is null or valid for a write.
unsafe extern "C" fn primary_context(context: *mut CUcontext, device: c_int) -> CUresult {
    inside(
        "cuGetExportTable CUDART_INTERFACE primary_context",
        |_| -> Result {
            if device != 0 {
                return Err(E::CUDA_ERROR_INVALID_DEVICE);
            }
            // SAFETY: the caller's contract.
            unsafe { put(context, handle(0)) }
        },
    )
}

/// Slot 7: called with one number at start-up; nothing for the simulator to do.
extern "C" fn no_op(_: usize) {}

/// Slot 12: the real driver loads its PTX compiler here; the simulator needs none.
extern "C" fn load_compilers() -> CUresult {
    E::CUDA_SUCCESS
}
