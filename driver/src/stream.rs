//! Streams and events. Work runs when it is queued, so a stream or an event is always complete
//! by the time the program asks; what they order is the modelled timeline (see `record`), from
//! which an event's time and `cuEventElapsedTime` come, and what the host has waited for
//! (`happens_before`), which decides when copies in flight land and whether an event's time
//! may be read yet.

use crate::in_flight::Wait;
use crate::state::{call, handle, index, put, stream_handle, Driver, Event, Result};
use cudarc::driver::sys::{
    cudaError_enum as E, CUcontext, CUevent, CUgreenCtx, CUresult, CUstream,
};
use std::ffi::c_uint;

/// `CU_STREAM_NON_BLOCKING`: the stream does not wait for the default stream, nor it for it.
const NON_BLOCKING: c_uint = 1;
/// `CU_EVENT_DISABLE_TIMING`: the event orders work, and has no time to give.
const DISABLE_TIMING: c_uint = 2;

fn new_stream(d: &mut Driver, flags: c_uint) -> CUstream {
    let context = d.current();
    let index = d.streams.insert(context);
    d.record.stream_created(index, flags & NON_BLOCKING != 0);
    stream_handle(index)
}

/// # Safety
/// `stream` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(stream: *mut CUstream, flags: c_uint) -> CUresult {
    pass_through!(cuStreamCreate(stream, flags));
    call("cuStreamCreate", |d| {
        d.require_context()?;
        let s = new_stream(d, flags);
        // SAFETY: the caller's contract.
        unsafe { put(stream, s) }
    })
}

/// # Safety
/// `stream` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    stream: *mut CUstream,
    flags: c_uint,
    priority: i32,
) -> CUresult {
    pass_through!(cuStreamCreateWithPriority(stream, flags, priority));
    call("cuStreamCreateWithPriority", |d| {
        d.require_context()?;
        let s = new_stream(d, flags);
        // SAFETY: the caller's contract.
        unsafe { put(stream, s) }
    })
}

/// # Safety
/// `ctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(stream: CUstream, ctx: *mut CUcontext) -> CUresult {
    pass_through!(cuStreamGetCtx(stream, ctx));
    call("cuStreamGetCtx", |d| {
        let context = stream_context(d, stream)?;
        // SAFETY: the caller's contract.
        unsafe { put(ctx, context) }
    })
}

/// `cuStreamGetCtx_v2`: the stream's context; there are no green contexts, so `green` is null.
///
/// # Safety
/// `ctx` is null or valid for a write; `green` is null (not asked for) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx_v2(
    stream: CUstream,
    ctx: *mut CUcontext,
    green: *mut CUgreenCtx,
) -> CUresult {
    pass_through!(cuStreamGetCtx_v2(stream, ctx, green));
    call("cuStreamGetCtx_v2", |d| {
        let context = stream_context(d, stream)?;
        // SAFETY: the caller's contract.
        unsafe { put(ctx, context) }?;
        if !green.is_null() {
            // SAFETY: as above.
            unsafe { put(green, std::ptr::null_mut()) }?;
        }
        Ok(())
    })
}

/// The context a stream belongs to: the one current when it was made, or for the default
/// stream the calling thread's current one.
fn stream_context(d: &Driver, stream: CUstream) -> Result<CUcontext> {
    let i = d.stream_index(stream.cast())?;
    let context = d.streams.get(i).copied().flatten().or_else(|| d.current());
    d.live_context(context).map(handle)
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(stream: CUstream) -> CUresult {
    pass_through!(cuStreamDestroy_v2(stream));
    call("cuStreamDestroy_v2", |d| {
        let i = d.stream_index(stream.cast())?;
        if i == 0 {
            return Err(E::CUDA_ERROR_INVALID_HANDLE);
        }
        d.streams.remove(i);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuStreamSynchronize(stream: CUstream) -> CUresult {
    pass_through!(recorded::cuStreamSynchronize(stream));
    call("cuStreamSynchronize", |d| {
        let i = d.stream_index(stream.cast())?;
        if i == 0 || d.capture_id(i).is_some() {
            d.refuse_while_capturing(E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)?;
        }
        d.record.synchronise(Some(i));
        d.land(stream_wait(i));
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuStreamQuery(stream: CUstream) -> CUresult {
    pass_through!(cuStreamQuery(stream));
    // "Complete" is the answer: the stream's copies have landed by then.
    call("cuStreamQuery", |d| {
        let i = d.stream_index(stream.cast())?;
        d.land(stream_wait(i));
        Ok(())
    })
}

/// What waiting for stream `i` lands: its copies, or every copy for the default stream (the
/// legacy default stream waits for every blocking stream, and they for it).
pub(crate) fn stream_wait(i: usize) -> Wait {
    if i == 0 {
        Wait::All
    } else {
        Wait::Stream(i)
    }
}

/// The host waits for `event`: what its stream (and the streams it waited for) had queued when
/// it was recorded lands (`recorded`: its stream and order, for managed memory's holds).
fn host_waits_event(d: &mut Driver, event: CUevent, recorded: Option<(usize, u64)>) -> Result {
    d.record.order.host_waits_event(index(event)?);
    if let Some((stream, order)) = recorded {
        d.land(Wait::Before { stream, order });
    }
    Ok(())
}

fn event_mut(d: &mut Driver, event: CUevent) -> Result<&mut Event> {
    let i = index(event)?;
    d.events.get_mut(i).ok_or(E::CUDA_ERROR_INVALID_HANDLE)
}

#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(stream: CUstream, event: CUevent, flags: c_uint) -> CUresult {
    pass_through!(cuStreamWaitEvent(stream, event, flags));
    call("cuStreamWaitEvent", |d| {
        let s = d.stream_index(stream.cast())?;
        if let Some(capture) = event_mut(d, event)?.captured_in {
            d.join_capture(s, capture);
            return Ok(());
        }
        if let Some(at) = event_mut(d, event)?.at_us {
            d.record.wait_until(s, at);
        }
        d.record.order.stream_waits_event(s, index(event)?);
        Ok(())
    })
}

/// # Safety
/// `event` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(event: *mut CUevent, flags: c_uint) -> CUresult {
    pass_through!(cuEventCreate(event, flags));
    call("cuEventCreate", |d| {
        d.require_context()?;
        let i = d.events.insert(Event {
            at_us: None,
            recorded: None,
            without_timing: flags & DISABLE_TIMING != 0,
            captured_in: None,
        });
        // SAFETY: the caller's contract.
        unsafe { put(event, handle(i)) }
    })
}

#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(event: CUevent) -> CUresult {
    pass_through!(cuEventDestroy_v2(event));
    call("cuEventDestroy_v2", |d| {
        event_mut(d, event)?;
        d.events.remove(index(event)?);
        d.record.order.event_destroyed(index(event)?);
        Ok(())
    })
}

fn record_event(d: &mut Driver, event: CUevent, stream: CUstream) -> Result {
    let s = d.stream_index(stream.cast())?;
    if let Some(capture) = d.capture_id(s) {
        // Recorded inside a capture: a stream that waits for it joins the capture.
        event_mut(d, event)?.captured_in = Some(capture);
        return Ok(());
    }
    let at = d.record.stream_end(s);
    let order = d.record.order.position();
    d.record.order.record_event(index(event)?, s);
    let e = event_mut(d, event)?;
    e.at_us = Some(at);
    e.recorded = Some((s, order));
    e.captured_in = None;
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuEventRecord(event: CUevent, stream: CUstream) -> CUresult {
    pass_through!(cuEventRecord(event, stream));
    call("cuEventRecord", |d| record_event(d, event, stream))
}

#[no_mangle]
pub extern "C" fn cuEventRecordWithFlags(
    event: CUevent,
    stream: CUstream,
    flags: c_uint,
) -> CUresult {
    pass_through!(cuEventRecordWithFlags(event, stream, flags));
    call("cuEventRecordWithFlags", |d| record_event(d, event, stream))
}

#[no_mangle]
pub extern "C" fn cuEventSynchronize(event: CUevent) -> CUresult {
    pass_through!(recorded::cuEventSynchronize(event));
    call("cuEventSynchronize", |d| {
        let (at, recorded) = {
            let e = event_mut(d, event)?;
            (e.at_us, e.recorded)
        };
        d.record.synchronisations += 1;
        if let Some(at) = at {
            d.record.host_us = d.record.host_us.max(at);
        }
        host_waits_event(d, event, recorded)
    })
}

#[no_mangle]
pub extern "C" fn cuEventQuery(event: CUevent) -> CUresult {
    pass_through!(cuEventQuery(event));
    call("cuEventQuery", |d| {
        // "Complete" is the answer, so the program may go on as if it had waited.
        let recorded = event_mut(d, event)?.recorded;
        host_waits_event(d, event, recorded)
    })
}

/// Milliseconds between two recorded events, on the modelled timeline.
///
/// # Safety
/// `ms` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    ms: *mut f32,
    start: CUevent,
    end: CUevent,
) -> CUresult {
    pass_through!(cuEventElapsedTime_v2(ms, start, end));
    call("cuEventElapsedTime_v2", |d| {
        let (start_handle, end_handle) = (start, end);
        let (start, end) = (*event_mut(d, start)?, *event_mut(d, end)?);
        // As a GPU answers (cudarc's `new_event(None)` makes such events).
        if start.without_timing || end.without_timing {
            return Err(E::CUDA_ERROR_INVALID_HANDLE);
        }
        let (from, to) = (start.at_us, end.at_us);
        let (Some(from), Some(to)) = (from, to) else {
            return Err(E::CUDA_ERROR_INVALID_HANDLE);
        };
        // A GPU answers NOT_READY while either event may still be pending: here, every time
        // the program has not waited for both (its work has run, but nothing told it so).
        let waited = |e: CUevent| index(e).is_ok_and(|i| d.record.order.event_complete(i));
        if !waited(start_handle) || !waited(end_handle) {
            return Err(E::CUDA_ERROR_NOT_READY);
        }
        // SAFETY: the caller's contract.
        unsafe { put(ms, ((to - from) / 1000.0) as f32) }
    })
}

/// # Safety
/// As [`cuEventElapsedTime_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(
    ms: *mut f32,
    start: CUevent,
    end: CUevent,
) -> CUresult {
    pass_through!(cuEventElapsedTime(ms, start, end));
    // SAFETY: the caller's contract, passed on.
    unsafe { cuEventElapsedTime_v2(ms, start, end) }
}
