//! Entry points that only NVIDIA's CUDA runtime (cudart) asks for among those a driver-API
//! program uses: what cudart needs at start-up beyond its private tables (`export_table`).

use crate::state::{call, put};
use cudarc::driver::sys::{CUmoduleLoadingMode, CUresult};

/// Modules load eagerly: the simulator parses a module's PTX when it is loaded.
///
/// # Safety
/// `mode` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut CUmoduleLoadingMode) -> CUresult {
    pass_through!(cuModuleGetLoadingMode(mode));
    call("cuModuleGetLoadingMode", |_| {
        // SAFETY: the caller's contract.
        unsafe { put(mode, CUmoduleLoadingMode::CU_MODULE_EAGER_LOADING) }
    })
}
