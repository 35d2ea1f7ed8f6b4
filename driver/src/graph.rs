//! Stream capture and CUDA graphs. Work queued on a capturing stream (kernel launches, copies,
//! memsets) is kept as the graph's nodes instead of run; a graph, instantiated and launched on a
//! stream, runs its nodes in the order they were captured, each recorded as if queued there.
//! Another stream joins a capture by waiting for an event recorded on a capturing stream.
//!
//! What a GPU refuses while a capture is under way is refused here too, with the capture
//! invalidated (its end then answers STREAM_CAPTURE_INVALIDATED): a synchronous copy or memset,
//! which would wait on the legacy default stream (STREAM_CAPTURE_IMPLICIT, as an H200 answers:
//! scripts/gpu/driver-programs.sh), and waiting for the device or a capturing stream
//! (STREAM_CAPTURE_UNSUPPORTED).
//! Graphs built node by node (`cuGraphAddKernelNode`...) are not supported.
//!
//! The record keeps each captured graph (its kernels, copies and memsets, how many times it was
//! instantiated and launched), and marks the launches a graph's launch ran with that graph.

use crate::state::capture::{Capture, Graph, Node};
use crate::state::{call, handle, index, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream, CUstreamCaptureStatus};
use std::ffi::{c_uint, c_ulonglong, c_void};

/// The record's entry for a graph of `nodes`, not yet instantiated or launched.
fn recorded(nodes: &[Node]) -> contract::Graph {
    let mut graph = contract::Graph::default();
    for node in nodes {
        match node {
            Node::Launch { kernel, .. } => graph.kernels.push(kernel.clone()),
            Node::Copy { .. } => graph.copies += 1,
            Node::Memset { .. } => graph.memsets += 1,
        }
    }
    graph
}

/// `CU_STREAM_CAPTURE_MODE_RELAXED`: unsafe calls are allowed during the capture.
const MODE_RELAXED: c_uint = 2;

/// Runs `node` on `stream` (a graph's launch).
fn run(d: &mut Driver, node: Node, stream: CUstream) -> Result {
    match node {
        Node::Launch {
            function,
            kernel: _,
            grid,
            block,
            shared_bytes,
            params,
        } => crate::launch::launch(d, function as _, grid, block, shared_bytes, stream, params),
        Node::Copy { what, bytes } => crate::memory::copy(d, what.into(), bytes, Some(stream)),
        Node::Memset {
            dst,
            pattern,
            count,
        } => crate::memory::memset(d, dst, &pattern, count, Some(stream)),
    }
}

#[no_mangle]
pub extern "C" fn cuStreamBeginCapture_v2(stream: CUstream, mode: c_uint) -> CUresult {
    pass_through!(cuStreamBeginCapture_v2(stream, mode));
    call("cuStreamBeginCapture_v2", |d| {
        let s = d.stream_index(stream.cast())?;
        // The legacy default stream synchronises with every other: it cannot be captured.
        if s == 0 {
            return Err(E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        }
        if d.capturing.contains_key(&s) {
            return Err(E::CUDA_ERROR_ILLEGAL_STATE);
        }
        let id = d.captures.insert(Capture {
            nodes: Vec::new(),
            origin: s,
            relaxed: mode == MODE_RELAXED,
            invalidated: false,
        });
        d.capturing.insert(s, id);
        Ok(())
    })
}

/// # Safety
/// `graph` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(stream: CUstream, graph: *mut *mut c_void) -> CUresult {
    pass_through!(recorded::cuStreamEndCapture(stream, graph));
    call("cuStreamEndCapture", |d| {
        let s = d.stream_index(stream.cast())?;
        let id = d.capture_id(s).ok_or(E::CUDA_ERROR_ILLEGAL_STATE)?;
        if d.captures.get(id).is_some_and(|c| c.origin != s) {
            return Err(E::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
        }
        d.capturing.retain(|_, c| *c != id);
        let capture = d.captures.remove(id).ok_or(E::CUDA_ERROR_ILLEGAL_STATE)?;
        if capture.invalidated {
            return Err(E::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        }
        d.record.graphs.push(recorded(&capture.nodes));
        let g = d.graphs.insert(Graph {
            nodes: capture.nodes,
            recorded: d.record.graphs.len() - 1,
        });
        // SAFETY: the caller's contract.
        unsafe { put(graph, handle(g)) }
    })
}

/// # Safety
/// `status` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
) -> CUresult {
    pass_through!(cuStreamIsCapturing(stream, status));
    call("cuStreamIsCapturing", |d| {
        let s = d.stream_index(stream.cast())?;
        let answer = match d.capture_of(s) {
            None => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE,
            Some(c) if c.invalidated => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED,
            Some(_) => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE,
        };
        // SAFETY: the caller's contract.
        unsafe { put(status, answer) }
    })
}

/// # Safety
/// Each pointer is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut u64,
    graph: *mut *mut c_void,
    dependencies: *mut *const c_void,
    count: *mut usize,
) -> CUresult {
    pass_through!(cuStreamGetCaptureInfo_v2(
        stream,
        status,
        id,
        graph,
        dependencies,
        count
    ));
    // SAFETY: the caller's contract.
    call("cuStreamGetCaptureInfo_v2", |d| unsafe {
        capture_info(d, stream, status, id, graph, dependencies, count)
    })
}

/// # Safety
/// Each pointer is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut u64,
    graph: *mut *mut c_void,
    dependencies: *mut *const c_void,
    edges: *mut *const c_void,
    count: *mut usize,
) -> CUresult {
    pass_through!(cuStreamGetCaptureInfo_v3(
        stream,
        status,
        id,
        graph,
        dependencies,
        edges,
        count
    ));
    call("cuStreamGetCaptureInfo_v3", |d| {
        // SAFETY: the caller's contract.
        unsafe { put_if_asked(edges, std::ptr::null()) }?;
        // SAFETY: the caller's contract.
        unsafe { capture_info(d, stream, status, id, graph, dependencies, count) }
    })
}

/// Writes `value` through `at` unless `at` is null (an out-parameter not asked for).
///
/// # Safety
/// `at` is null or valid for a write.
unsafe fn put_if_asked<T>(at: *mut T, value: T) -> Result {
    if at.is_null() {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { put(at, value) }
}

/// A stream's capture status and the capture's id (its index, from 1). The graph under
/// construction and its dependency nodes are not given (null, none): this driver keeps a
/// capture's nodes in a list, with no graph to add nodes to by hand.
///
/// # Safety
/// Each pointer is null or valid for a write.
unsafe fn capture_info(
    d: &mut Driver,
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut u64,
    graph: *mut *mut c_void,
    dependencies: *mut *const c_void,
    count: *mut usize,
) -> Result {
    let s = d.stream_index(stream.cast())?;
    let capture = d.capture_id(s);
    let answer = match capture.and_then(|c| d.captures.get(c)) {
        None => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE,
        Some(c) if c.invalidated => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED,
        Some(_) => CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE,
    };
    // SAFETY: the caller's contract, for each.
    unsafe {
        put(status, answer)?;
        if let Some(c) = capture {
            put_if_asked(id, c as u64 + 1)?;
        }
        put_if_asked(graph, std::ptr::null_mut())?;
        put_if_asked(dependencies, std::ptr::null())?;
        put_if_asked(count, 0)
    }
}

/// # Safety
/// `exec` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> CUresult {
    pass_through!(recorded::cuGraphInstantiateWithFlags(exec, graph, flags));
    call("cuGraphInstantiateWithFlags", |d| {
        let graph = d
            .graphs
            .get(index(graph)?)
            .cloned()
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        d.record.graphs[graph.recorded].instantiations += 1;
        let e = d.graph_execs.insert(graph);
        // SAFETY: the caller's contract.
        unsafe { put(exec, handle(e)) }
    })
}

#[no_mangle]
pub extern "C" fn cuGraphLaunch(exec: *mut c_void, stream: CUstream) -> CUresult {
    pass_through!(recorded::cuGraphLaunch(exec, stream));
    call("cuGraphLaunch", |d| {
        d.require_context()?;
        d.stream_index(stream.cast())?;
        let graph = d
            .graph_execs
            .get(index(exec)?)
            .cloned()
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        d.record.graphs[graph.recorded].launches += 1;
        let first = d.record.launches.len();
        let ran = graph
            .nodes
            .into_iter()
            .try_for_each(|node| run(d, node, stream));
        for launch in &mut d.record.launches[first..] {
            launch.graph = Some(graph.recorded);
        }
        ran
    })
}

/// # Safety
/// `count` is null or valid for a write; `nodes` is null or holds `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    graph: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> CUresult {
    pass_through!(cuGraphGetNodes(graph, nodes, count));
    call("cuGraphGetNodes", |d| {
        let n = d
            .graphs
            .get(index(graph)?)
            .map(|g| g.nodes.len())
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        if nodes.is_null() {
            // SAFETY: the caller's contract.
            return unsafe { put(count, n) };
        }
        // SAFETY: the caller's contract: `count` holds how many handles `nodes` has room for.
        let room = unsafe { count.as_ref() }
            .copied()
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
        for i in 0..room.min(n) {
            // Node handles name their place in the graph; nothing reads them back yet.
            // SAFETY: the caller's contract.
            unsafe { put(nodes.add(i), handle(i)) }?;
        }
        // SAFETY: the caller's contract.
        unsafe { put(count, room.min(n)) }
    })
}

#[no_mangle]
pub extern "C" fn cuGraphDestroy(graph: *mut c_void) -> CUresult {
    pass_through!(cuGraphDestroy(graph));
    call("cuGraphDestroy", |d| {
        d.graphs
            .remove(index(graph)?)
            .map(|_| ())
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)
    })
}

#[no_mangle]
pub extern "C" fn cuGraphExecDestroy(exec: *mut c_void) -> CUresult {
    pass_through!(cuGraphExecDestroy(exec));
    call("cuGraphExecDestroy", |d| {
        d.graph_execs
            .remove(index(exec)?)
            .map(|_| ())
            .ok_or(E::CUDA_ERROR_INVALID_VALUE)
    })
}
