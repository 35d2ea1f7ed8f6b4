//! Times measured on the GPU: a pair of events recorded on its stream around each copy and
//! launch, read when they have completed (at the program's synchronisations, before a context
//! goes away, at exit) as microseconds from the first event, the measured timeline's zero. The
//! events are the driver's own (created and recorded through `raw`, so not counted as the
//! program's calls). The state keeps them (`Measured`), and reads them at exit too.

use super::{with_driver, Driver};
use crate::real::raw;
use cudarc::driver::sys::{cudaError_enum as E, CUevent, CUresult, CUstream};
use std::collections::HashMap;
use std::ffi::c_uint;

/// Which entry of the record an operation's times go to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Transfer(usize),
    Launch(usize),
}

/// Events recorded before and after an operation (as addresses: the state is shared between
/// threads, an event handle is not `Send`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Events {
    start: usize,
    end: usize,
}

/// What pass-through mode keeps beside the record.
#[derive(Default)]
pub(crate) struct Measured {
    /// Handles of the streams the program used, by their index in the record less one (the
    /// default stream, index 0, has no entry).
    streams: Vec<usize>,
    /// The first event recorded: the zero of the measured timeline.
    origin: Option<usize>,
    pending: Vec<(Op, Events)>,
    /// The program's captured graphs.
    pub(crate) graphs: Graphs,
}

/// What pass-through mode keeps of the program's graphs.
#[derive(Default)]
pub(crate) struct Graphs {
    /// Captures under way, by the real driver's capture id: their record entries so far.
    pub(crate) capturing: HashMap<u64, contract::Graph>,
    /// Captured graphs (`CUgraph` handles) and their instantiations (`CUgraphExec` handles), by
    /// their entry's index in the record's `graphs`.
    pub(crate) graphs: HashMap<usize, usize>,
    pub(crate) execs: HashMap<usize, usize>,
}

/// The record's index of `stream`: null, `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD` are the
/// default stream; others are numbered as the program first uses them.
pub(crate) fn stream_index(d: &mut Driver, stream: CUstream) -> usize {
    let handle = stream as usize;
    if handle <= 2 {
        return 0;
    }
    let streams = &mut d.measured.streams;
    match streams.iter().position(|&h| h == handle) {
        Some(i) => i + 1,
        None => {
            streams.push(handle);
            streams.len()
        }
    }
}

fn new_event() -> Option<CUevent> {
    let mut event: CUevent = std::ptr::null_mut();
    // SAFETY: cuEventCreate writes a handle through a valid pointer.
    let made = unsafe { raw("cuEventCreate", (&mut event as *mut CUevent, 0 as c_uint)) };
    (made == E::CUDA_SUCCESS).then_some(event)
}

fn destroy(event: usize) {
    // SAFETY: an event this module created, destroyed once.
    unsafe { raw("cuEventDestroy_v2", (event as CUevent,)) };
}

/// Runs `op` on `stream` between two recorded events. The events are none when they could not
/// be recorded (a stream being captured into a graph, say): the operation is then untimed.
pub(crate) fn timed(stream: CUstream, op: impl FnOnce() -> CUresult) -> (CUresult, Option<Events>) {
    let (Some(start), Some(end)) = (new_event(), new_event()) else {
        return (op(), None);
    };
    let events = Events {
        start: start as usize,
        end: end as usize,
    };
    // SAFETY: events of the current context, recorded on the program's stream.
    let before = unsafe { raw("cuEventRecord", (start, stream)) };
    let result = op();
    // SAFETY: as above.
    let after = unsafe { raw("cuEventRecord", (end, stream)) };
    if before != E::CUDA_SUCCESS || after != E::CUDA_SUCCESS || result != E::CUDA_SUCCESS {
        destroy(events.start);
        destroy(events.end);
        return (result, None);
    }
    (result, Some(events))
}

/// Keeps `events` until they can be read into `op`'s entry of the record.
pub(crate) fn pending(d: &mut Driver, op: Op, events: Option<Events>) {
    let Some(events) = events else { return };
    let measured = &mut d.measured;
    if measured.origin.is_none() {
        measured.origin = Some(events.start);
    }
    measured.pending.push((op, events));
}

/// Milliseconds from `origin` to `event`, both complete.
fn elapsed(origin: usize, event: usize) -> Option<f64> {
    let mut ms = 0f32;
    // SAFETY: two recorded events of this module; `ms` is writable.
    let read = unsafe {
        raw(
            "cuEventElapsedTime_v2",
            (&mut ms as *mut f32, origin as CUevent, event as CUevent),
        )
    };
    (read == E::CUDA_SUCCESS).then_some(ms as f64)
}

/// Reads the times of the operations that have completed (`wait`: of all of them, waiting for
/// the GPU) into the record. The driver's lock is not held while the GPU is asked.
pub(crate) fn resolve(wait: bool) {
    let (origin, pending) = with_driver(|d| {
        let m = &mut d.measured;
        (m.origin, std::mem::take(&mut m.pending))
    });
    let Some(origin) = origin else { return };
    let mut times = Vec::new();
    let mut left = Vec::new();
    for (op, events) in pending {
        let done = if wait {
            // SAFETY: an event this module recorded.
            unsafe { raw("cuEventSynchronize", (events.end as CUevent,)) }
        } else {
            // SAFETY: as above.
            unsafe { raw("cuEventQuery", (events.end as CUevent,)) }
        };
        if done != E::CUDA_SUCCESS {
            left.push((op, events));
            continue;
        }
        let start = elapsed(origin, events.start);
        let end = elapsed(origin, events.end);
        if let (Some(start), Some(end)) = (start, end) {
            times.push((op, 1e3 * start, 1e3 * end));
        } else {
            eprintln!("simcuda: the GPU's events gave no time for {op:?}");
        }
        if events.start != origin {
            destroy(events.start);
        }
        destroy(events.end);
    }
    with_driver(|d| {
        d.measured.pending.extend(left);
        for (op, start_us, end_us) in times {
            let (start, end) = match op {
                Op::Transfer(i) => {
                    let t = &mut d.record.transfers[i];
                    (&mut t.start_us, &mut t.end_us)
                }
                Op::Launch(i) => {
                    let l = &mut d.record.launches[i];
                    (&mut l.start_us, &mut l.end_us)
                }
            };
            (*start, *end) = (start_us, end_us);
            d.record.host_us = d.record.host_us.max(end_us);
        }
    });
}
