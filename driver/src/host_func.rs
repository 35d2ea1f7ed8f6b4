//! Host functions on a stream: `cuLaunchHostFunc` and the older `cuStreamAddCallback`. Work runs
//! when it is queued, so everything before the function on its stream has run by then: its
//! copies in flight land (the function may read them, as on a GPU) and the function is called
//! at once, in the calling thread, with the driver's lock released, since a callback may call
//! the driver back (NVIDIA's documentation forbids it, and programs still call
//! `cudaGetLastError` from one). On a capturing stream a host function would be a graph node,
//! which the capture does not keep: it is refused, and the capture invalidated, rather than run
//! now.

use crate::state::{call, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUhostFn, CUresult, CUstream, CUstreamCallback};
use std::ffi::{c_uint, c_void};

/// `cuLaunchHostFunc`: calls `function(user_data)` after the stream's earlier work.
#[no_mangle]
pub extern "C" fn cuLaunchHostFunc(
    stream: CUstream,
    function: CUhostFn,
    user_data: *mut c_void,
) -> CUresult {
    pass_through!(cuLaunchHostFunc(stream, function, user_data));
    let Some(function) = function else {
        return call("cuLaunchHostFunc", |_| Err(E::CUDA_ERROR_INVALID_VALUE));
    };
    let answer = call("cuLaunchHostFunc", |d| reached(d, stream));
    if answer == E::CUDA_SUCCESS {
        // SAFETY: the program's function and its own argument, called as the driver would.
        unsafe { function(user_data) };
    }
    answer
}

/// `cuStreamAddCallback`: calls `callback(stream, CUDA_SUCCESS, user_data)` after the stream's
/// earlier work (work that fails makes the context's error sticky, and the call never gets here).
#[no_mangle]
pub extern "C" fn cuStreamAddCallback(
    stream: CUstream,
    callback: CUstreamCallback,
    user_data: *mut c_void,
    flags: c_uint,
) -> CUresult {
    pass_through!(cuStreamAddCallback(stream, callback, user_data, flags));
    let Some(callback) = callback.filter(|_| flags == 0) else {
        // The flags are reserved: NVIDIA's driver refuses any but 0.
        return call("cuStreamAddCallback", |_| Err(E::CUDA_ERROR_INVALID_VALUE));
    };
    let answer = call("cuStreamAddCallback", |d| reached(d, stream));
    if answer == E::CUDA_SUCCESS {
        // SAFETY: the program's callback and its own argument, called as the driver would.
        unsafe { callback(stream, E::CUDA_SUCCESS, user_data) };
    }
    answer
}

/// The stream's earlier work done and its copies landed, as a host function finds them; refused
/// on a capturing stream.
fn reached(d: &mut Driver, stream: CUstream) -> Result {
    let i = d.stream_index(stream.cast())?;
    if d.capture_id(i).is_some() {
        d.refuse_while_capturing(E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)?;
        return Err(E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    d.land(crate::stream::stream_wait(i));
    Ok(())
}
