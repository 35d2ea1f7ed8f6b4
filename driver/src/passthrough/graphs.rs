//! CUDA graphs in pass-through mode: the record keeps each captured graph as the simulator's
//! form does (its kernels, copies and memsets, its instantiations and launches). Work queued on
//! a capturing stream is not run by the real driver but kept as a node, so it is forwarded
//! untimed and noted in its capture, not as a launch or a transfer; a graph's launch runs its
//! kernels inside the real driver, where the record does not see them one by one.
#![allow(non_snake_case)]

use super::forward;
use crate::real::raw;
use crate::state::with_driver;
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream, CUstreamCaptureStatus};
use std::ffi::{c_ulonglong, c_void};

/// A node of a capture, as the record counts it.
pub(crate) enum Node {
    Kernel(String),
    Copy,
    Memset,
}

/// The id of the capture `stream` is part of, if it is capturing (or its capture was
/// invalidated). The legacy default stream is never asked: it cannot capture, and asking it
/// while another stream captures is itself refused.
pub(crate) fn capture_of(stream: CUstream) -> Option<u64> {
    if (stream as usize) <= 1 {
        return None;
    }
    let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let mut id: u64 = 0;
    let null = std::ptr::null_mut::<c_void>();
    // SAFETY: status and id are written through valid pointers; the graph, dependencies and
    // their count are not asked for (null).
    let asked = unsafe {
        raw(
            "cuStreamGetCaptureInfo_v2",
            (
                stream,
                &mut status as *mut CUstreamCaptureStatus,
                &mut id as *mut u64,
                null,
                null,
                null,
            ),
        )
    };
    let capturing = status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    (asked == E::CUDA_SUCCESS && capturing).then_some(id)
}

/// Forwards work queued on a capturing stream (capture `id`), and notes it in the capture.
///
/// # Safety
/// `args` are what the real `name` takes, under its contract.
pub(crate) unsafe fn captured<A: crate::real::Args>(
    name: &'static str,
    args: A,
    id: u64,
    node: Node,
) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward(name, args) };
    if result == E::CUDA_SUCCESS {
        with_driver(|d| {
            let graph = d.measured.graphs.capturing.entry(id).or_default();
            match node {
                Node::Kernel(kernel) => graph.kernels.push(kernel),
                Node::Copy => graph.copies += 1,
                Node::Memset => graph.memsets += 1,
            }
        });
    }
    result
}

pub(crate) unsafe fn cuStreamEndCapture(stream: CUstream, graph: *mut *mut c_void) -> CUresult {
    let id = capture_of(stream);
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuStreamEndCapture", (stream, graph)) };
    with_driver(|d| {
        let kept = id.and_then(|id| d.measured.graphs.capturing.remove(&id));
        if result != E::CUDA_SUCCESS || graph.is_null() {
            return;
        }
        d.record.graphs.push(kept.unwrap_or_default());
        let index = d.record.graphs.len() - 1;
        // SAFETY: the real driver wrote the graph's handle there.
        let handle = unsafe { *graph } as usize;
        d.measured.graphs.graphs.insert(handle, index);
    });
    result
}

pub(crate) unsafe fn cuGraphInstantiateWithFlags(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuGraphInstantiateWithFlags", (exec, graph, flags)) };
    if result == E::CUDA_SUCCESS && !exec.is_null() {
        // SAFETY: the real driver wrote the instantiation's handle there.
        let handle = unsafe { *exec } as usize;
        with_driver(|d| {
            let Some(&index) = d.measured.graphs.graphs.get(&(graph as usize)) else {
                return;
            };
            d.record.graphs[index].instantiations += 1;
            d.measured.graphs.execs.insert(handle, index);
        });
    }
    result
}

pub(crate) unsafe fn cuGraphLaunch(exec: *mut c_void, stream: CUstream) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward("cuGraphLaunch", (exec, stream)) };
    if result == E::CUDA_SUCCESS {
        with_driver(|d| {
            if let Some(&index) = d.measured.graphs.execs.get(&(exec as usize)) {
                d.record.graphs[index].launches += 1;
            }
        });
    }
    result
}
