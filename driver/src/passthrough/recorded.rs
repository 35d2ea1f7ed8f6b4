//! The entry points whose work the record describes, in pass-through mode: each forwards to the
//! real driver as [`super::forward`] does, and notes what the simulator's form notes (the
//! transfer, the launch, the synchronisation, the allocation), with the GPU's measured times.
//! Their signatures are those of the simulator's forms, which call them through `pass_through!`,
//! and their names the entry points'. Each is unsafe under its entry point's contract, which its
//! `unsafe` blocks pass on.
#![allow(non_snake_case)]

use super::graphs;
pub(crate) use super::graphs::{cuGraphInstantiateWithFlags, cuGraphLaunch, cuStreamEndCapture};
pub(crate) use super::managed::{cuMemAllocManaged, cuMemPrefetchAsync, cuMemPrefetchAsync_v2};
use super::timing::{self, Op};
use super::{failed, forward, raw, Args};
use crate::record::{Direction, Launch, Transfer};
use crate::state::copies::Wait;
use crate::state::{with_driver, Driver};
use cudarc::driver::sys::{cudaError_enum as E, CUfunction, CUresult, CUstream};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// Calls the real `name` between two events on `stream` and, if it succeeded, lets `note` add
/// the operation to the record (given the stream's index; it returns where it put it).
unsafe fn timed<A: Args>(
    name: &'static str,
    stream: CUstream,
    args: A,
    note: impl FnOnce(&mut Driver, usize) -> Op,
) -> CUresult {
    crate::state::write_when_the_program_exits();
    with_driver(|d| d.record.count(name));
    // SAFETY: the caller's contract.
    let (result, events) = timing::timed(stream, || unsafe { raw(name, args) });
    if result != E::CUDA_SUCCESS {
        failed(name, result);
        return result;
    }
    with_driver(|d| {
        let index = timing::stream_index(d, stream);
        let op = note(d, index);
        timing::pending(d, op, events);
    });
    result
}

/// Whether the real driver knows `ptr` as page-locked host memory (pageable memory is unknown
/// to it), or as device memory.
fn memory_type(ptr: u64) -> Option<c_uint> {
    const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: c_int = 2;
    let mut kind: c_uint = 0;
    // SAFETY: the attribute is an unsigned int, written through a valid pointer.
    let known = unsafe {
        raw(
            "cuPointerGetAttribute",
            (
                &mut kind as *mut c_uint as *mut c_void,
                CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                ptr,
            ),
        )
    };
    (known == E::CUDA_SUCCESS).then_some(kind)
}

const CU_MEMORYTYPE_HOST: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;

/// A copy between `host` (if any) and the device, recorded as the simulator records it.
unsafe fn copy<A: Args>(
    name: &'static str,
    args: A,
    direction: Direction,
    host: Option<u64>,
    bytes: usize,
    stream: Option<CUstream>,
) -> CUresult {
    if let Some(id) = stream.and_then(graphs::capture_of) {
        // SAFETY: the caller's contract.
        return unsafe { graphs::captured(name, args, id, graphs::Node::Copy) };
    }
    let pinned = host.is_none_or(|p| memory_type(p) == Some(CU_MEMORYTYPE_HOST));
    let on = stream.unwrap_or(std::ptr::null_mut());
    // SAFETY: the caller's contract.
    unsafe {
        timed(name, on, args, |d, index| {
            // As on the simulator: a synchronous copy waited for everything before it, and
            // asynchronous work may change managed memory until the program waits for it.
            match stream {
                None => drop(d.managed_waited(Wait::All)),
                Some(_) => d.managed_work_queued(index),
            }
            d.record.transfers.push(Transfer {
                direction,
                bytes: bytes as u64,
                pinned,
                asynchronous: stream.is_some(),
                stream: index,
                start_us: 0.0,
                end_us: 0.0,
            });
            Op::Transfer(d.record.transfers.len() - 1)
        })
    }
}

pub(crate) unsafe fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, bytes: usize) -> CUresult {
    let (direction, host) = (Direction::HostToDevice, Some(src as u64));
    unsafe {
        copy(
            "cuMemcpyHtoD_v2",
            (dst, src, bytes),
            direction,
            host,
            bytes,
            None,
        )
    }
}

pub(crate) unsafe fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, bytes: usize) -> CUresult {
    let (direction, host) = (Direction::DeviceToHost, Some(dst as u64));
    unsafe {
        copy(
            "cuMemcpyDtoH_v2",
            (dst, src, bytes),
            direction,
            host,
            bytes,
            None,
        )
    }
}

pub(crate) unsafe fn cuMemcpyDtoD_v2(dst: u64, src: u64, bytes: usize) -> CUresult {
    let direction = Direction::DeviceToDevice;
    unsafe {
        copy(
            "cuMemcpyDtoD_v2",
            (dst, src, bytes),
            direction,
            None,
            bytes,
            None,
        )
    }
}

pub(crate) unsafe fn cuMemcpyHtoDAsync_v2(
    dst: u64,
    src: *const c_void,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    let (direction, host) = (Direction::HostToDevice, Some(src as u64));
    let args = (dst, src, bytes, stream);
    unsafe {
        copy(
            "cuMemcpyHtoDAsync_v2",
            args,
            direction,
            host,
            bytes,
            Some(stream),
        )
    }
}

pub(crate) unsafe fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    let (direction, host) = (Direction::DeviceToHost, Some(dst as u64));
    let args = (dst, src, bytes, stream);
    unsafe {
        copy(
            "cuMemcpyDtoHAsync_v2",
            args,
            direction,
            host,
            bytes,
            Some(stream),
        )
    }
}

pub(crate) unsafe fn cuMemcpyDtoDAsync_v2(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> CUresult {
    let args = (dst, src, bytes, stream);
    let direction = Direction::DeviceToDevice;
    unsafe {
        copy(
            "cuMemcpyDtoDAsync_v2",
            args,
            direction,
            None,
            bytes,
            Some(stream),
        )
    }
}

/// A copy between any two addresses (unified addressing), its direction found from what the
/// real driver knows of each.
unsafe fn unified(
    name: &'static str,
    dst: u64,
    src: u64,
    bytes: usize,
    stream: Option<CUstream>,
) -> CUresult {
    let device = |p| memory_type(p) == Some(CU_MEMORYTYPE_DEVICE);
    let (direction, host) = match (device(dst), device(src)) {
        (true, true) => (Direction::DeviceToDevice, None),
        (true, false) => (Direction::HostToDevice, Some(src)),
        (false, true) => (Direction::DeviceToHost, Some(dst)),
        // Host to host: no transfer to the device; forwarded and counted only.
        // SAFETY: the caller's contract.
        (false, false) => return unsafe { forward(name, (dst, src, bytes)) },
    };
    // SAFETY: the caller's contract.
    unsafe {
        match stream {
            Some(s) => copy(name, (dst, src, bytes, s), direction, host, bytes, stream),
            None => copy(name, (dst, src, bytes), direction, host, bytes, stream),
        }
    }
}

pub(crate) unsafe fn cuMemcpy(dst: u64, src: u64, bytes: usize) -> CUresult {
    unsafe { unified("cuMemcpy", dst, src, bytes, None) }
}

pub(crate) unsafe fn cuMemcpyAsync(dst: u64, src: u64, bytes: usize, stream: CUstream) -> CUresult {
    unsafe { unified("cuMemcpyAsync", dst, src, bytes, Some(stream)) }
}

/// A memset: device work, recorded as a device-to-device transfer of its bytes, as the
/// simulator records it.
unsafe fn memset<A: Args>(
    name: &'static str,
    args: A,
    bytes: usize,
    stream: Option<CUstream>,
) -> CUresult {
    if let Some(id) = stream.and_then(graphs::capture_of) {
        // SAFETY: the caller's contract.
        return unsafe { graphs::captured(name, args, id, graphs::Node::Memset) };
    }
    unsafe { copy(name, args, Direction::DeviceToDevice, None, bytes, stream) }
}

pub(crate) unsafe fn cuMemsetD8_v2(dst: u64, value: u8, count: usize) -> CUresult {
    unsafe { memset("cuMemsetD8_v2", (dst, value, count), count, None) }
}

pub(crate) unsafe fn cuMemsetD16_v2(dst: u64, value: u16, count: usize) -> CUresult {
    unsafe {
        memset(
            "cuMemsetD16_v2",
            (dst, value, count),
            count.saturating_mul(2),
            None,
        )
    }
}

pub(crate) unsafe fn cuMemsetD32_v2(dst: u64, value: u32, count: usize) -> CUresult {
    unsafe {
        memset(
            "cuMemsetD32_v2",
            (dst, value, count),
            count.saturating_mul(4),
            None,
        )
    }
}

pub(crate) unsafe fn cuMemsetD8Async(dst: u64, value: u8, count: usize, s: CUstream) -> CUresult {
    unsafe { memset("cuMemsetD8Async", (dst, value, count, s), count, Some(s)) }
}

pub(crate) unsafe fn cuMemsetD16Async(dst: u64, value: u16, count: usize, s: CUstream) -> CUresult {
    unsafe {
        memset(
            "cuMemsetD16Async",
            (dst, value, count, s),
            count.saturating_mul(2),
            Some(s),
        )
    }
}

pub(crate) unsafe fn cuMemsetD32Async(dst: u64, value: u32, count: usize, s: CUstream) -> CUresult {
    unsafe {
        memset(
            "cuMemsetD32Async",
            (dst, value, count, s),
            count.saturating_mul(4),
            Some(s),
        )
    }
}

/// Forwards an allocation and keeps its size, for the bytes never freed.
unsafe fn allocated<A: Args>(
    name: &'static str,
    args: A,
    dptr: *mut u64,
    bytes: usize,
) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward(name, args) };
    if result == E::CUDA_SUCCESS {
        // SAFETY: the real driver wrote the allocation's address there.
        let at = unsafe { *dptr };
        with_driver(|d| d.allocations.insert(at, bytes as u64));
    }
    result
}

/// Forwards a free and forgets the allocation.
unsafe fn freed<A: Args>(name: &'static str, args: A, dptr: u64) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward(name, args) };
    if result == E::CUDA_SUCCESS {
        with_driver(|d| {
            d.allocations.remove(dptr);
            d.managed_freed(dptr);
        });
    }
    result
}

pub(crate) unsafe fn cuMemAlloc_v2(dptr: *mut u64, bytes: usize) -> CUresult {
    unsafe { allocated("cuMemAlloc_v2", (dptr, bytes), dptr, bytes) }
}

/// Stream-ordered allocation (cudarc uses it where the device has memory pools, as GPUs do).
pub(crate) unsafe fn cuMemAllocAsync(dptr: *mut u64, bytes: usize, stream: CUstream) -> CUresult {
    unsafe { allocated("cuMemAllocAsync", (dptr, bytes, stream), dptr, bytes) }
}

pub(crate) unsafe fn cuMemFree_v2(dptr: u64) -> CUresult {
    unsafe { freed("cuMemFree_v2", (dptr,), dptr) }
}

pub(crate) unsafe fn cuMemFreeAsync(dptr: u64, stream: CUstream) -> CUresult {
    unsafe { freed("cuMemFreeAsync", (dptr, stream), dptr) }
}

/// The name of the kernel `function` runs. A launch may pass a library's `CUkernel` where a
/// `CUfunction` goes (cuda.core and numba-cuda do), which `cuFuncGetName` does not know and
/// `cuKernelGetName` (CUDA 12.3) does.
fn kernel_name(function: CUfunction) -> String {
    let mut name: *const c_char = std::ptr::null();
    let found = ["cuFuncGetName", "cuKernelGetName"]
        .into_iter()
        .any(|getter| {
            // SAFETY: both write a pointer to the driver's own string, given a handle of theirs; a
            // handle of the other kind is refused with an error, not followed.
            let asked = unsafe { raw(getter, (&mut name as *mut *const c_char, function)) };
            asked == E::CUDA_SUCCESS && !name.is_null()
        });
    if !found {
        return "?".into();
    }
    // SAFETY: a NUL-terminated string of the driver's.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// A launch of `function`, recorded as the simulator records it, without its figures.
unsafe fn launch<A: Args>(
    name: &'static str,
    args: A,
    function: CUfunction,
    (grid, block, shared_bytes): ([u32; 3], [u32; 3], u32),
    stream: CUstream,
) -> CUresult {
    let kernel = kernel_name(function);
    if let Some(id) = graphs::capture_of(stream) {
        // SAFETY: the caller's contract.
        return unsafe { graphs::captured(name, args, id, graphs::Node::Kernel(kernel)) };
    }
    let refused = kernel.clone();
    // SAFETY: the caller's contract.
    let result = unsafe {
        timed(name, stream, args, |d, index| {
            d.managed_launched(&kernel, index);
            d.record.launches.push(Launch {
                kernel,
                grid,
                block,
                shared_bytes,
                stream: index,
                figures: None,
                lines: Vec::new(),
                warp_instructions: None,
                diagnostics: Vec::new(),
                aborted: false,
                start_us: 0.0,
                end_us: 0.0,
                bound_by: None,
                graph: None,
            });
            Op::Launch(d.record.launches.len() - 1)
        })
    };
    if result != E::CUDA_SUCCESS {
        with_driver(|d| {
            d.record
                .refused(&refused, (grid, block, shared_bytes), result)
        });
    }
    result
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn cuLaunchKernel(
    function: CUfunction,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared_bytes: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let shape = (
        [grid_x, grid_y, grid_z],
        [block_x, block_y, block_z],
        shared_bytes,
    );
    let args = (
        function,
        grid_x,
        grid_y,
        grid_z,
        block_x,
        block_y,
        block_z,
        shared_bytes,
        stream,
        params,
        extra,
    );
    unsafe { launch("cuLaunchKernel", args, function, shape, stream) }
}

pub(crate) unsafe fn cuLaunchKernelEx(
    config: *const cudarc::driver::sys::CUlaunchConfig,
    function: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let args = (config, function, params, extra);
    if config.is_null() {
        // SAFETY: the caller's contract; the real driver answers the null configuration.
        return unsafe { forward("cuLaunchKernelEx", args) };
    }
    // SAFETY: non-null, a launch configuration by the caller's contract.
    let c = unsafe { &*config };
    let grid = [c.gridDimX, c.gridDimY, c.gridDimZ];
    let block = [c.blockDimX, c.blockDimY, c.blockDimZ];
    let shape = (grid, block, c.sharedMemBytes);
    unsafe { launch("cuLaunchKernelEx", args, function, shape, c.hStream) }
}

/// Forwards a synchronisation, counts it, releases the managed memory it waited for (`wait`;
/// given the driver, as a stream's index is its), and reads the times of what has completed.
unsafe fn synchronised<A: Args>(
    name: &'static str,
    args: A,
    wait: impl FnOnce(&mut Driver) -> Wait,
) -> CUresult {
    // SAFETY: the caller's contract.
    let result = unsafe { forward(name, args) };
    with_driver(|d| {
        d.record.synchronisations += 1;
        if result == E::CUDA_SUCCESS {
            let wait = wait(d);
            d.managed_waited(wait);
        }
    });
    timing::resolve(false);
    result
}

pub(crate) unsafe fn cuCtxSynchronize() -> CUresult {
    unsafe { synchronised("cuCtxSynchronize", (), |_| Wait::All) }
}

pub(crate) unsafe fn cuCtxSynchronize_v2(ctx: cudarc::driver::sys::CUcontext) -> CUresult {
    unsafe { synchronised("cuCtxSynchronize_v2", (ctx,), |_| Wait::All) }
}

pub(crate) unsafe fn cuStreamSynchronize(stream: CUstream) -> CUresult {
    let wait = |d: &mut Driver| match timing::stream_index(d, stream) {
        0 => Wait::All,
        index => Wait::Stream(index),
    };
    unsafe { synchronised("cuStreamSynchronize", (stream,), wait) }
}

pub(crate) unsafe fn cuEventSynchronize(event: cudarc::driver::sys::CUevent) -> CUresult {
    // The event's place in the stream is the real driver's: every hold is released, which
    // is lenient where the simulator releases only the work queued before the event.
    unsafe { synchronised("cuEventSynchronize", (event,), |_| Wait::All) }
}

/// Reads every time before a context can go away (with it, the events).
unsafe fn ending<A: Args>(name: &'static str, args: A) -> CUresult {
    timing::resolve(true);
    // SAFETY: the caller's contract.
    unsafe { forward(name, args) }
}

pub(crate) unsafe fn cuCtxDestroy_v2(ctx: cudarc::driver::sys::CUcontext) -> CUresult {
    unsafe { ending("cuCtxDestroy_v2", (ctx,)) }
}

pub(crate) unsafe fn cuDevicePrimaryCtxRelease_v2(dev: c_int) -> CUresult {
    unsafe { ending("cuDevicePrimaryCtxRelease_v2", (dev,)) }
}

pub(crate) unsafe fn cuDevicePrimaryCtxReset_v2(dev: c_int) -> CUresult {
    unsafe { ending("cuDevicePrimaryCtxReset_v2", (dev,)) }
}
