//! Entry points that only NVIDIA's CUDA runtime (cudart) asks for among those a driver-API
//! program uses: what cudart needs at start-up beyond its private tables (`export_table`).

use crate::state::{call, put};
use cudarc::driver::sys::{CUmoduleLoadingMode, CUresult, CUstream, CUstreamCaptureStatus};

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

/// No stream is ever being captured: the simulator does not capture graphs (cuStreamBeginCapture
/// is not supported), so every valid stream answers "not capturing". CuPy asks before each copy.
///
/// # Safety
/// `status` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
) -> CUresult {
    pass_through!(cuStreamIsCapturing(stream, status));
    call("cuStreamIsCapturing", |d| {
        d.stream_index(stream.cast())?;
        // SAFETY: the caller's contract.
        unsafe { put(status, CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE) }
    })
}
