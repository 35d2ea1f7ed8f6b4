//! Contexts: the primary context and ordinary ones. They all share the one simulated device and
//! its memory; what a context adds here is that calls need one to be current. The current context
//! is the top of a context stack, as NVIDIA's driver keeps it: `cuCtxCreate` and
//! `cuCtxPushCurrent` push, `cuCtxPopCurrent` and destroying the current context pop (the context
//! before it is current again), `cuCtxSetCurrent` replaces the top. Each CPU thread has its own
//! stack, as on NVIDIA's driver; a context destroyed while current to another thread answers
//! that thread's calls with `CUDA_ERROR_CONTEXT_IS_DESTROYED`.

use crate::state::{call, handle, index, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUcontext, CUctxCreateParams, CUresult};
use std::ffi::{c_int, c_uint};

fn context_index(d: &Driver, ctx: CUcontext) -> Result<usize> {
    let i = index(ctx).map_err(|_| E::CUDA_ERROR_INVALID_CONTEXT)?;
    match d.contexts.get(i) {
        Some(true) => Ok(i),
        _ => Err(E::CUDA_ERROR_INVALID_CONTEXT),
    }
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: c_int) -> CUresult {
    pass_through!(cuDevicePrimaryCtxRetain(pctx, dev));
    call("cuDevicePrimaryCtxRetain", |d| {
        if dev != 0 {
            return Err(E::CUDA_ERROR_INVALID_DEVICE);
        }
        d.primary_retains += 1;
        // SAFETY: the caller's contract.
        unsafe { put(pctx, handle(0)) }
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: c_int) -> CUresult {
    pass_through!(recorded::cuDevicePrimaryCtxRelease_v2(dev));
    call("cuDevicePrimaryCtxRelease_v2", |d| {
        if dev != 0 {
            return Err(E::CUDA_ERROR_INVALID_DEVICE);
        }
        d.primary_retains = d.primary_retains.saturating_sub(1);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: c_int) -> CUresult {
    pass_through!(recorded::cuDevicePrimaryCtxReset_v2(dev));
    call("cuDevicePrimaryCtxReset_v2", |d| {
        if dev != 0 {
            return Err(E::CUDA_ERROR_INVALID_DEVICE);
        }
        d.primary_retains = 0;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: c_int, flags: c_uint) -> CUresult {
    pass_through!(cuDevicePrimaryCtxSetFlags_v2(dev, flags));
    call("cuDevicePrimaryCtxSetFlags_v2", |_| {
        if dev != 0 {
            return Err(E::CUDA_ERROR_INVALID_DEVICE);
        }
        Ok(())
    })
}

/// # Safety
/// `flags` and `active` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: c_int,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    pass_through!(cuDevicePrimaryCtxGetState(dev, flags, active));
    call("cuDevicePrimaryCtxGetState", |d| {
        if dev != 0 {
            return Err(E::CUDA_ERROR_INVALID_DEVICE);
        }
        // SAFETY: the caller's contract.
        unsafe {
            put(flags, 0)?;
            put(active, (d.primary_retains > 0) as c_int)
        }
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut CUcontext,
    flags: c_uint,
    dev: c_int,
) -> CUresult {
    pass_through!(cuCtxCreate_v2(pctx, flags, dev));
    call("cuCtxCreate_v2", |d| {
        // SAFETY: the caller's contract.
        unsafe { create(d, pctx, dev) }
    })
}

/// `cuCtxCreate` as CUDA 13's cuda.h names it (`#define cuCtxCreate cuCtxCreate_v4`): a program
/// built against it links this name. Parameters that ask for execution affinity or a CIG context
/// (shared with a graphics API) are refused; none (null, or empty) is a plain context.
///
/// # Safety
/// `pctx` is null or valid for a write; `params` is null or points to a `CUctxCreateParams`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut CUcontext,
    params: *mut CUctxCreateParams,
    flags: c_uint,
    dev: c_int,
) -> CUresult {
    pass_through!(cuCtxCreate_v4(pctx, params, flags, dev));
    call("cuCtxCreate_v4", |d| {
        // SAFETY: the caller's contract.
        if let Some(p) = unsafe { params.as_ref() } {
            if p.numExecAffinityParams > 0 || !p.cigParams.is_null() {
                return Err(E::CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        // SAFETY: the caller's contract.
        unsafe { create(d, pctx, dev) }
    })
}

/// A new context on device `dev`, pushed on the calling thread's stack and written to `pctx`.
///
/// # Safety
/// `pctx` is null or valid for a write.
unsafe fn create(d: &mut Driver, pctx: *mut CUcontext, dev: c_int) -> Result<()> {
    if dev != 0 {
        return Err(E::CUDA_ERROR_INVALID_DEVICE);
    }
    d.contexts.push(true);
    let i = d.contexts.len() - 1;
    d.context_stack(|s| s.push(i));
    // SAFETY: the caller's contract.
    unsafe { put(pctx, handle(i)) }
}

#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    pass_through!(recorded::cuCtxDestroy_v2(ctx));
    call("cuCtxDestroy_v2", |d| {
        let i = context_index(d, ctx)?;
        if d.current() == Some(i) {
            d.context_stack(|s| s.pop());
        }
        if i > 0 {
            d.contexts[i] = false;
            // Nothing left to pop back to: a destroyed context is current nowhere.
            d.context_stack(|s| s.retain(|&c| c != i));
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    pass_through!(cuCtxSetCurrent(ctx));
    call("cuCtxSetCurrent", |d| {
        // Null pops the top; a context replaces it (or is pushed onto an empty stack).
        if ctx.is_null() {
            d.context_stack(|s| s.pop());
            return Ok(());
        }
        let i = context_index(d, ctx)?;
        d.context_stack(|s| {
            s.pop();
            s.push(i)
        });
        Ok(())
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    pass_through!(cuCtxGetCurrent(pctx));
    call("cuCtxGetCurrent", |d| {
        let current = d.current().map_or(std::ptr::null_mut(), handle);
        // SAFETY: the caller's contract.
        unsafe { put(pctx, current) }
    })
}

#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult {
    pass_through!(cuCtxPushCurrent_v2(ctx));
    call("cuCtxPushCurrent_v2", |d| {
        let i = context_index(d, ctx)?;
        d.context_stack(|s| s.push(i));
        Ok(())
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult {
    pass_through!(cuCtxPopCurrent_v2(pctx));
    call("cuCtxPopCurrent_v2", |d| {
        let current = d
            .context_stack(|s| s.pop())
            .ok_or(E::CUDA_ERROR_INVALID_CONTEXT)?;
        if pctx.is_null() {
            return Ok(());
        }
        // SAFETY: the caller's contract.
        unsafe { put(pctx, handle(current)) }
    })
}

/// # Safety
/// `dev` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut c_int) -> CUresult {
    pass_through!(cuCtxGetDevice(dev));
    call("cuCtxGetDevice", |d| {
        d.require_context()?;
        // SAFETY: the caller's contract.
        unsafe { put(dev, 0) }
    })
}

#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    pass_through!(recorded::cuCtxSynchronize());
    call("cuCtxSynchronize", synchronize)
}

/// Waits for all the device's work: there is one device, whose contexts share its one queue.
fn synchronize(d: &mut Driver) -> Result {
    d.require_context()?;
    d.refuse_while_capturing(E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)?;
    d.record.synchronise(None);
    d.land(crate::in_flight::Wait::All);
    Ok(())
}

/// The context `ctx` names, or the current one where it is null (the `_v2` calls of CUDA 13).
fn given_or_current(d: &Driver, ctx: CUcontext) -> Result<usize> {
    if ctx.is_null() {
        d.live_context(d.current())
    } else {
        context_index(d, ctx)
    }
}

/// CUDA 13's `cuCtxSynchronize` (asked for at 13.0 by `cuGetProcAddress`): context `ctx`'s work,
/// or the current context's where it is null.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize_v2(ctx: CUcontext) -> CUresult {
    pass_through!(recorded::cuCtxSynchronize_v2(ctx));
    call("cuCtxSynchronize_v2", |d| {
        given_or_current(d, ctx)?;
        synchronize(d)
    })
}

/// CUDA 13's `cuCtxGetDevice`: the device of context `ctx`, or of the current one where it is
/// null; every context is on device 0.
///
/// # Safety
/// `dev` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut c_int, ctx: CUcontext) -> CUresult {
    pass_through!(cuCtxGetDevice_v2(dev, ctx));
    call("cuCtxGetDevice_v2", |d| {
        given_or_current(d, ctx)?;
        // SAFETY: the caller's contract.
        unsafe { put(dev, 0) }
    })
}

/// # Safety
/// `config` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    pass_through!(cuCtxGetCacheConfig(config));
    call("cuCtxGetCacheConfig", |d| {
        d.require_context()?;
        // SAFETY: the caller's contract. CU_FUNC_CACHE_PREFER_NONE: the simulator has no
        // L1/shared carve-out to prefer.
        unsafe { put(config, 0) }
    })
}

/// Accepted and ignored, as a GPU may ignore it.
#[no_mangle]
pub extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    pass_through!(cuCtxSetCacheConfig(config));
    call("cuCtxSetCacheConfig", |d| d.require_context())
}

/// # Safety
/// `config` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(config: *mut c_int) -> CUresult {
    pass_through!(cuCtxGetSharedMemConfig(config));
    call("cuCtxGetSharedMemConfig", |d| {
        d.require_context()?;
        // SAFETY: the caller's contract. Four-byte banks, the only size since compute 5.0.
        unsafe { put(config, 1) }
    })
}

/// # Safety
/// Both pointers are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CUresult {
    pass_through!(cuCtxGetStreamPriorityRange(least, greatest));
    call("cuCtxGetStreamPriorityRange", |d| {
        d.require_context()?;
        // SAFETY: the caller's contract; either may be null (not wanted). An H100's range.
        unsafe {
            if !least.is_null() {
                put(least, 0)?;
            }
            if !greatest.is_null() {
                put(greatest, -5)?;
            }
        }
        Ok(())
    })
}

/// # Safety
/// `flags` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    pass_through!(cuCtxGetFlags(flags));
    call("cuCtxGetFlags", |d| {
        d.require_context()?;
        // SAFETY: the caller's contract.
        unsafe { put(flags, 0) }
    })
}

/// # Safety
/// `version` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut c_uint) -> CUresult {
    pass_through!(cuCtxGetApiVersion(ctx, version));
    call("cuCtxGetApiVersion", |d| {
        if !ctx.is_null() {
            context_index(d, ctx)?;
        }
        // SAFETY: the caller's contract. The context API version every current driver reports.
        unsafe { put(version, 3020) }
    })
}
