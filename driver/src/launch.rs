//! `cuLaunchKernel` on the simulator. A kernel that faults (out of bounds, misaligned, a hang, a
//! trap) fails as a GPU's does: the launch itself returns success, as do calls that only queue
//! more work, and the fault is the answer of the first call that waits for the device and of
//! every call after it (a sticky error, the context is lost). Bugs the GPU would not stop on (races,
//! a barrier not every thread reaches, a bad shuffle mask) are printed and recorded.

use crate::module::function_of;
use crate::record::Launch;
use crate::state::{call, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUfunction, CUresult, CUstream};
use sim::DiagnosticKind as K;
use std::ffi::{c_uint, c_void};

/// Seconds a launch may run before it counts as a hang (`SIMCUDA_TIME_LIMIT`, default 10).
fn time_limit() -> f64 {
    std::env::var("SIMCUDA_TIME_LIMIT")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(10.0)
}

/// What an access past a buffer's end inside its allocation's 256-byte granule does
/// (`SIMCUDA_FAULT_POLICY`): `run` (what `runner run` sets) reports it and lets the kernel go on,
/// as a GPU, which maps the granule, does; else (`check`, the course's checks) it faults as any
/// out-of-bounds access does, and the context is lost.
fn past_the_end() -> sim::PastTheEnd {
    match std::env::var("SIMCUDA_FAULT_POLICY").as_deref() {
        Ok("run") => sim::PastTheEnd::Report,
        _ => sim::PastTheEnd::Fault,
    }
}

/// CPU threads a launch's blocks may run on: one per core, asked of the system once. The answer
/// reads the process's cgroup files, which cost a small launch more than its whole kernel when
/// the simulator asked at every launch.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The error a GPU would give for a kernel stopped by `kind`.
fn fault(kind: K) -> CUresult {
    match kind {
        K::OutOfBounds => E::CUDA_ERROR_ILLEGAL_ADDRESS,
        K::Misaligned => E::CUDA_ERROR_MISALIGNED_ADDRESS,
        K::Timeout => E::CUDA_ERROR_LAUNCH_TIMEOUT,
        K::Assert => E::CUDA_ERROR_ASSERT,
        // NVIDIA's driver answers a `trap` (and `brkpt`) with a launch failure, not an assert.
        _ => E::CUDA_ERROR_LAUNCH_FAILED,
    }
}

/// A diagnostic as the driver prints it. One of a kind that stops a GPU's kernel but that the
/// kernel `went_on` after (an access inside an allocation's granule under the `run` policy) is a
/// warning with its line, since no error code will tell the program.
fn said(kernel: &str, diagnostic: &sim::Diagnostic, went_on: bool) -> String {
    match &diagnostic.location {
        Some(at) if went_on => format!(
            "{kernel}: warning at {}:{}: {}",
            at.file, at.line, diagnostic.message
        ),
        _ => format!("{kernel}: {}", diagnostic.message),
    }
}

/// Each parameter's bytes, read through the program's array of pointers.
///
/// # Safety
/// `params` holds one valid pointer per kernel parameter, each to that parameter's bytes.
unsafe fn parameters(info: &sim::KernelInfo, params: *mut *mut c_void) -> Result<Vec<Vec<u8>>> {
    if info.params.is_empty() {
        return Ok(Vec::new());
    }
    if params.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    info.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // SAFETY: one pointer per parameter, by the caller's contract.
            let at = unsafe { *params.add(i) };
            if at.is_null() {
                return Err(E::CUDA_ERROR_INVALID_VALUE);
            }
            // SAFETY: each points at its parameter's `size_bytes` bytes.
            Ok(
                unsafe { std::slice::from_raw_parts(at.cast::<u8>(), p.size_bytes as usize) }
                    .to_vec(),
            )
        })
        .collect()
}

/// Each parameter's bytes from `extra`'s packed buffer (`CU_LAUNCH_PARAM_BUFFER_POINTER`, then
/// `CU_LAUNCH_PARAM_BUFFER_SIZE`, then `CU_LAUNCH_PARAM_END`), laid out as the kernel's
/// parameters are: each at the next multiple of its alignment.
///
/// # Safety
/// `extra` is a list of (key, value) pointers ended by a null key, as the driver API defines.
unsafe fn packed_parameters(
    info: &sim::KernelInfo,
    extra: *mut *mut c_void,
) -> Result<Vec<Vec<u8>>> {
    let (mut buffer, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
    for pair in 0..16 {
        // SAFETY: keys and values alternate until the null key, by the caller's contract.
        let (key, value) = unsafe { (*extra.add(2 * pair) as usize, *extra.add(2 * pair + 1)) };
        match key {
            0 => break,
            1 => buffer = value.cast(),
            // SAFETY: the size's value points at a size_t.
            2 if !value.is_null() => size = Some(unsafe { *value.cast::<usize>() }),
            _ => return Err(E::CUDA_ERROR_INVALID_VALUE),
        }
    }
    let size = size.ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
    if buffer.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: the buffer holds `size` bytes, by the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(buffer, size) };
    let mut offset = 0usize;
    info.params
        .iter()
        .map(|p| {
            offset = offset.next_multiple_of(p.align.max(1) as usize);
            let end = offset + p.size_bytes as usize;
            let slice = bytes.get(offset..end).ok_or(E::CUDA_ERROR_INVALID_VALUE)?;
            offset = end;
            Ok(slice.to_vec())
        })
        .collect()
}

/// The lines that moved memory, costliest first (global sectors plus shared wavefronts).
fn costliest_lines(lines: &[sim::LineFigures]) -> Vec<sim::LineFigures> {
    let cost = |l: &sim::LineFigures| {
        let f = &l.figures;
        f.global_load_sectors
            + f.global_store_sectors
            + f.global_atomic_sectors
            + f.shared_load_wavefronts
            + f.shared_store_wavefronts
    };
    let mut moved: Vec<sim::LineFigures> = lines.iter().filter(|l| cost(l) > 0).cloned().collect();
    moved.sort_by_key(|l| std::cmp::Reverse(cost(l)));
    moved
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn launch(
    d: &mut Driver,
    function: CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: CUstream,
    params: Vec<Vec<u8>>,
) -> Result {
    let stream = d.stream_index(stream.cast())?;
    let (module, kernel) = function_of(d, function)?;
    if d.capture_id(stream).is_some() {
        let node = || crate::state::capture::Node::Launch {
            function: function as usize,
            kernel,
            grid,
            block,
            shared_bytes,
            params,
        };
        d.captured(stream, node);
        return Ok(());
    }
    let seconds = time_limit();
    let launch = sim::Launch {
        kernel: kernel.clone(),
        grid,
        block,
        dynamic_shared_bytes: shared_bytes,
        params,
        limits: sim::Limits {
            max_warp_instructions: (seconds * 1e7) as u64,
            max_clock: (seconds * 1e9) as u64,
            max_wall_time: Some(std::time::Duration::from_secs_f64(1.5 * seconds)),
            threads: cores(),
            past_the_end: past_the_end(),
            ..sim::Limits::default()
        },
    };
    let report = match d.with_mirrors(Some(stream), |d| d.machine.launch(&module, &launch)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("simcuda: cannot launch {kernel}: {e}");
            let error = match e {
                sim::SimError::InvalidLaunch(_) => E::CUDA_ERROR_INVALID_VALUE,
                sim::SimError::TooManyResources { .. } => E::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                sim::SimError::KernelNotLowered { .. } => E::CUDA_ERROR_NOT_SUPPORTED,
                _ => E::CUDA_ERROR_INVALID_VALUE,
            };
            d.record
                .refused(&kernel, (grid, block, shared_bytes), error);
            return Err(error);
        }
    };
    d.managed_launched(&kernel, stream);
    if module.uses_system_atomics(&kernel) {
        // The host works on managed memory beside such a kernel (its atomics and the kernel's
        // meet in one memory on a GPU). The kernel has run to its end here, so its managed
        // blocks go back to the host now: the host's own atomics then add to the kernel's
        // results, where handing them back at the wait would overwrite the host's.
        d.land_managed(crate::in_flight::Wait::Stream(stream));
    }
    let last = report.diagnostics.len().saturating_sub(1);
    for (i, diagnostic) in report.diagnostics.iter().enumerate() {
        let went_on = diagnostic.kind.is_fatal() && !(report.aborted && i == last);
        eprintln!("simcuda: {}", said(&kernel, diagnostic, went_on));
    }
    if !report.printf.is_empty() {
        print!("{}", report.printf);
    }
    // The diagnostic that stopped an aborted launch is its last; an out-of-bounds access the
    // kernel went on after (past_the_end) may come before it.
    let stopped_by = report
        .diagnostics
        .last()
        .filter(|x| report.aborted && x.kind.is_fatal())
        .map(|x| x.kind);
    let modelled = report.modelled_on(&crate::device::gpu_model());
    d.record.launch(
        Launch {
            kernel,
            grid,
            block,
            shared_bytes,
            stream,
            figures: Some(report.figures.clone()),
            lines: costliest_lines(&report.lines),
            warp_instructions: Some(report.warp_instructions),
            diagnostics: report.diagnostics.clone(),
            aborted: report.aborted,
            start_us: 0.0,
            end_us: 0.0,
            bound_by: Some(modelled.bound_by),
            graph: None,
        },
        modelled.microseconds,
    );
    if let Some(kind) = stopped_by {
        d.unseen_fault = Some(fault(kind));
    }
    Ok(())
}

/// The launch of a kernel of `module` that the simulator could not prepare (an instruction it
/// does not run), refused with the kernel's name and why; the module's other kernels still run.
fn refuse_unprepared(
    d: &mut Driver,
    module: &sim::Module,
    kernel: &str,
    shape: ([u32; 3], [u32; 3], u32),
) -> E {
    let Some(why) = module.lowering_error(kernel) else {
        return E::CUDA_ERROR_INVALID_HANDLE;
    };
    let refused = sim::SimError::KernelNotLowered {
        name: kernel.to_string(),
        reason: why.to_string(),
    };
    eprintln!("simcuda: {refused}");
    d.record.refused(kernel, shape, E::CUDA_ERROR_NOT_SUPPORTED);
    E::CUDA_ERROR_NOT_SUPPORTED
}

/// # Safety
/// `params` holds a valid pointer to each kernel parameter's bytes, or is null and `extra` is a
/// packed parameter buffer's description.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
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
    pass_through!(recorded::cuLaunchKernel(
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
        extra
    ));
    call("cuLaunchKernel", |d| {
        d.require_context()?;
        let (module, kernel) = function_of(d, function)?;
        let grid = [grid_x, grid_y, grid_z];
        let block = [block_x, block_y, block_z];
        let Some(info) = module.kernel(&kernel) else {
            return Err(refuse_unprepared(
                d,
                &module,
                &kernel,
                (grid, block, shared_bytes),
            ));
        };
        // SAFETY: the caller's contract.
        let params = if params.is_null() && !extra.is_null() {
            unsafe { packed_parameters(&info, extra) }?
        } else {
            unsafe { parameters(&info, params) }?
        };
        launch(d, function, grid, block, shared_bytes, stream, params)
    })
}

/// The launch with a configuration struct (CUDA 12), as cuda.core and Numba launch. Launch
/// attributes (clusters, cooperative launches, priorities) are not looked at: a kernel that needs
/// one to be correct (a grid-wide barrier) fails in the simulator, naming what it needs.
///
/// # Safety
/// `config` points at a launch configuration; `params` and `extra` as for [`cuLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const cudarc::driver::sys::CUlaunchConfig,
    function: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    pass_through!(recorded::cuLaunchKernelEx(config, function, params, extra));
    if config.is_null() {
        return crate::state::call("cuLaunchKernelEx", |_| Err(E::CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: non-null, and a launch configuration by the caller's contract.
    let c = unsafe { &*config };
    // SAFETY: the configuration's attributes, by the caller's contract.
    if unsafe { crate::cooperative::asked(c) } {
        let grid = [c.gridDimX, c.gridDimY, c.gridDimZ];
        let block = [c.blockDimX, c.blockDimY, c.blockDimZ];
        let checked =
            crate::cooperative::check("cuLaunchKernelEx", function, grid, block, c.sharedMemBytes);
        if checked != E::CUDA_SUCCESS {
            return checked;
        }
    }
    // SAFETY: the caller's contract, passed on.
    unsafe {
        cuLaunchKernel(
            function,
            c.gridDimX,
            c.gridDimY,
            c.gridDimZ,
            c.blockDimX,
            c.blockDimY,
            c.blockDimZ,
            c.sharedMemBytes,
            c.hStream,
            params,
            extra,
        )
    }
}

/// # Safety
/// As `cuLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
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
) -> CUresult {
    pass_through!(cuLaunchCooperativeKernel(
        function,
        grid_x,
        grid_y,
        grid_z,
        block_x,
        block_y,
        block_z,
        shared_bytes,
        stream,
        params
    ));
    let grid = [grid_x, grid_y, grid_z];
    let block = [block_x, block_y, block_z];
    let checked = crate::cooperative::check(
        "cuLaunchCooperativeKernel",
        function,
        grid,
        block,
        shared_bytes,
    );
    if checked != E::CUDA_SUCCESS {
        return checked;
    }
    // SAFETY: the caller's contract, passed on.
    unsafe {
        cuLaunchKernel(
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
            std::ptr::null_mut(),
        )
    }
}
