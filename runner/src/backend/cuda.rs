//! The GPU backend, through cudarc's driver API. The only module that launches kernels, so the
//! only one with unsafe launch code.

// A launch hands the driver raw pointers to its arguments and device memory, which only unsafe
// code can do; the crate root denies unsafe code everywhere but here, `compile::nvrtc` and `os`.
#![allow(unsafe_code)]

use super::{Backend, BackendError, DevicePtr, KernelLaunch, LaunchDetails, ModuleId};
use crate::compile::{Image, Target};
use cudarc::driver::{result, sys, DriverError};
use std::ffi::{c_void, CString};
use std::time::{Duration, Instant};

mod kept;

/// Why no GPU could be used, said so a student knows what to do.
#[derive(Debug, thiserror::Error)]
pub enum GpuUnavailable {
    /// libcuda.so is not installed.
    #[error("no NVIDIA driver: libcuda.so was not found. On a machine without an NVIDIA GPU the simulator runs every exercise (`--backend sim`).")]
    NoDriver,
    /// The driver is there but gave no device (its error in words).
    #[error("the NVIDIA driver found no usable GPU ({0}). Check `nvidia-smi`; without a GPU, use the simulator (`--backend sim`).")]
    NoDevice(String),
}

/// Larger than the L2 cache of any current GPU (50 MB on an H100, 60 MB on a B200).
const L2_FLUSH_BYTES: usize = 256 << 20;

/// A real GPU through NVIDIA's driver (cudarc): one context, its modules, and the buffers a
/// check keeps between cases.
pub struct CudaBackend {
    context: sys::CUcontext,
    name: String,
    compute_capability: (i32, i32),
    /// The driver's CUDA version, as cuDriverGetVersion gives it (13000 for 13.0).
    pub driver_version: i32,
    modules: Vec<sys::CUmodule>,
    /// Set after a launch error that leaves the context unusable (an illegal address, a kernel
    /// that had to be abandoned): nothing more may be asked of the device, and nothing is
    /// synchronised or freed on drop, so the process can end at once.
    broken: bool,
    /// Freed buffers kept for the next case (see `kept`).
    kept: kept::Kept,
}

fn driver_message(err: DriverError) -> String {
    let name = err
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = err
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}: {text}")
}

impl CudaBackend {
    /// Whether the CUDA driver library can be loaded: a GPU may be usable. Instant.
    pub fn driver_present() -> bool {
        // SAFETY: only probes for the library; no CUDA call is made.
        unsafe { sys::is_culib_present() }
    }

    /// How many GPUs the driver counts: 0 without a driver, or where it cannot start. Creates
    /// no context.
    pub fn count() -> usize {
        if !Self::driver_present() || result::init().is_err() {
            return 0;
        }
        result::device::get_count().map_or(0, |n| n.max(0) as usize)
    }

    /// Opens GPU `ordinal` and makes its primary context current.
    pub fn open(ordinal: i32) -> Result<CudaBackend, GpuUnavailable> {
        if !Self::driver_present() {
            return Err(GpuUnavailable::NoDriver);
        }
        let no_device = |e: DriverError| GpuUnavailable::NoDevice(driver_message(e));
        result::init().map_err(no_device)?;
        crate::trace::mark("CUDA driver initialised");
        let count = result::device::get_count().map_err(no_device)?;
        if count <= ordinal {
            return Err(GpuUnavailable::NoDevice(format!(
                "{count} GPUs visible, wanted number {ordinal}"
            )));
        }
        let device = result::device::get(ordinal).map_err(no_device)?;
        let attribute = |a| unsafe { result::device::get_attribute(device, a) };
        let major =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
                .map_err(no_device)?;
        let minor =
            attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
                .map_err(no_device)?;
        let name = result::device::get_name(device).map_err(no_device)?;
        let mut driver_version = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(no_device)?;
        // SAFETY: the device handle is valid; the retained context is released by the process's end.
        let context = unsafe { result::primary_ctx::retain(device) }.map_err(no_device)?;
        unsafe { result::ctx::set_current(context) }.map_err(no_device)?;
        crate::trace::mark("context created");
        Ok(CudaBackend {
            context,
            name,
            compute_capability: (major, minor),
            driver_version,
            modules: Vec::new(),
            broken: false,
            kept: kept::Kept::default(),
        })
    }

    /// The device's compute capability as one number (90 for sm_90).
    pub fn architecture(&self) -> u32 {
        (self.compute_capability.0 * 10 + self.compute_capability.1) as u32
    }

    /// The CUDA version the driver supports, e.g. (13, 0).
    pub fn driver_cuda_version(&self) -> (i32, i32) {
        (
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10,
        )
    }

    /// Really frees every buffer kept for reuse; whether there was any.
    fn release_kept(&mut self) -> bool {
        let kept = self.kept.drain();
        for &ptr in &kept {
            // SAFETY: a buffer alloc made, freed by its user and kept since; freed once.
            let _ = unsafe { result::free_sync(ptr) };
        }
        !kept.is_empty()
    }

    fn usable(&self) -> Result<(), BackendError> {
        if self.broken {
            return Err(BackendError::Device(
                "the GPU context was lost after an earlier error".into(),
            ));
        }
        Ok(())
    }

    fn device_error(&self, what: &str, err: DriverError) -> BackendError {
        BackendError::Device(format!("{what} failed: {}", driver_message(err)))
    }

    fn function(&self, module: ModuleId, name: &str) -> Option<sys::CUfunction> {
        let c_name = CString::new(name).ok()?;
        // SAFETY: the module is loaded and stays loaded while the backend lives.
        unsafe { result::module::get_function(self.modules[module], c_name) }.ok()
    }

    /// Waits for `event` until `limit` has passed. Past the limit the kernel is abandoned and
    /// the context marked broken: CUDA cannot stop one kernel, only the whole context.
    fn wait(&mut self, event: sys::CUevent, limit: Duration) -> Result<(), BackendError> {
        let started = Instant::now();
        loop {
            // SAFETY: the event was created in this context and recorded after the launch.
            match unsafe { result::event::query(event) } {
                Ok(()) => return Ok(()),
                Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_READY)) => {}
                Err(err) => {
                    self.broken = true;
                    return Err(launch_error(err));
                }
            }
            if started.elapsed() > limit {
                self.broken = true;
                return Err(BackendError::Timeout {
                    limit,
                    detail: None,
                });
            }
            // Most launches end within a millisecond: ask again at once for the first two, so a
            // check's 46 timed launches do not each wait out a sleep; then poll gently.
            if started.elapsed() < Duration::from_millis(2) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }

    fn launch_async(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
    ) -> Result<(), BackendError> {
        let function = self
            .function(module, launch.kernel)
            .ok_or_else(|| BackendError::MissingKernel(launch.kernel.into()))?;
        let l = launch.launch;
        let mut params: Vec<*mut c_void> = launch
            .params
            .iter()
            .map(|p| p.as_ptr() as *mut c_void)
            .collect();
        // SAFETY: the function belongs to a loaded module; each parameter pointer points at bytes
        // of the parameter's size, alive until the launch returns (the driver copies them).
        unsafe {
            result::launch_kernel(
                function,
                (l.grid[0], l.grid[1], l.grid[2]),
                (l.block[0], l.block[1], l.block[2]),
                l.shared_bytes,
                std::ptr::null_mut(),
                &mut params,
            )
        }
        .map_err(|err| match err.0 {
            sys::CUresult::CUDA_ERROR_INVALID_VALUE
            | sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => BackendError::InvalidLaunch(
                format!("the launch {} was refused: {}", l, driver_message(err)),
            ),
            _ => launch_error(err),
        })
    }

    fn timed_launch(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
    ) -> Result<Duration, BackendError> {
        self.timed(launch.time_limit, |backend| {
            backend.launch_async(module, launch)
        })
    }

    /// Runs `work`, which queues asynchronous GPU work on the default stream, between two events,
    /// waits for it for at most `limit`, and returns the GPU time between the events.
    fn timed(
        &mut self,
        limit: Duration,
        work: impl FnOnce(&mut Self) -> Result<(), BackendError>,
    ) -> Result<Duration, BackendError> {
        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
        let start =
            result::event::create(flags).map_err(|e| self.device_error("creating an event", e))?;
        let end =
            result::event::create(flags).map_err(|e| self.device_error("creating an event", e))?;
        let outcome = (|| {
            // SAFETY: events of this context, recorded on the default stream around the work.
            unsafe { result::event::record(start, std::ptr::null_mut()) }.map_err(launch_error)?;
            work(self)?;
            unsafe { result::event::record(end, std::ptr::null_mut()) }.map_err(launch_error)?;
            self.wait(end, limit)?;
            let ms = unsafe { result::event::elapsed(start, end) }.map_err(launch_error)?;
            Ok(Duration::from_secs_f64(ms as f64 / 1000.0))
        })();
        if !self.broken {
            // SAFETY: both events are complete and not used again.
            unsafe {
                let _ = result::event::destroy(start);
                let _ = result::event::destroy(end);
            }
        }
        outcome
    }
}

/// A launch or completion error in words a student understands.
fn launch_error(err: DriverError) -> BackendError {
    use sys::CUresult::*;
    match err.0 {
        CUDA_ERROR_ILLEGAL_ADDRESS => BackendError::OutOfBounds(
            "the kernel accessed memory outside any buffer (illegal address): an index went out of bounds".into(),
        ),
        CUDA_ERROR_MISALIGNED_ADDRESS => BackendError::Stopped {
            kind: sim::DiagnosticKind::Misaligned,
            text: "the kernel accessed memory at a misaligned address: a pointer was cast to a wider type at an offset that is not a multiple of its size".into(),
        },
        CUDA_ERROR_ASSERT => BackendError::Fault("an assert() in the kernel failed".into()),
        CUDA_ERROR_ILLEGAL_INSTRUCTION => BackendError::Fault("the kernel ran an illegal instruction (a trap, or a warp operation with a bad mask)".into()),
        _ => BackendError::Fault(format!("the kernel failed: {}", driver_message(err))),
    }
}

impl Backend for CudaBackend {
    fn kind(&self) -> contract::Backend {
        contract::Backend::Gpu
    }

    fn describe(&self) -> String {
        format!("{} (sm_{})", self.name, self.architecture())
    }

    fn target(&self) -> Target {
        Target::Cubin {
            arch: self.architecture(),
        }
    }

    fn needs_guard_zones(&self) -> bool {
        true
    }

    fn load(&mut self, image: &Image) -> Result<ModuleId, BackendError> {
        self.usable()?;
        let module = if image.target.is_cubin() {
            // SAFETY: the image is a complete cubin.
            unsafe { result::module::load_data(image.bytes.as_ptr().cast()) }
        } else {
            let mut text = image.bytes.clone();
            text.push(0);
            // SAFETY: PTX text with its terminating NUL.
            unsafe { load_ptx_with_line_info(&text) }
        }
        .map_err(|err| self.load_error(err))?;
        self.modules.push(module);
        Ok(self.modules.len() - 1)
    }

    fn has_kernel(&mut self, module: ModuleId, name: &str) -> bool {
        self.function(module, name).is_some()
    }

    fn read_declared_int(&mut self, module: ModuleId, name: &str) -> Option<i32> {
        let c_name = CString::new(name).ok()?;
        // SAFETY: the module is loaded; the global is read only when it is exactly an int.
        unsafe {
            let (ptr, size) = result::module::get_global(self.modules[module], c_name).ok()?;
            if size != 4 {
                return None;
            }
            let mut value = [0i32; 1];
            result::memcpy_dtoh_sync(&mut value, ptr).ok()?;
            Some(value[0])
        }
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, BackendError> {
        self.usable()?;
        let bytes = bytes.max(1);
        if let Some(ptr) = self.kept.take(bytes) {
            return Ok(ptr);
        }
        // SAFETY: a plain device allocation.
        let ptr = match unsafe { result::malloc_sync(bytes) } {
            Ok(ptr) => ptr,
            Err(_) if self.release_kept() => {
                // The memory kept for reuse may be what is missing: freed, try once more.
                // SAFETY: as above.
                unsafe { result::malloc_sync(bytes) }
                    .map_err(|e| self.device_error(&format!("allocating {bytes} bytes"), e))?
            }
            Err(e) => return Err(self.device_error(&format!("allocating {bytes} bytes"), e)),
        };
        self.kept.allocated(ptr, bytes);
        Ok(ptr)
    }

    fn write(&mut self, ptr: DevicePtr, bytes: &[u8]) -> Result<(), BackendError> {
        self.usable()?;
        // SAFETY: ptr is an allocation of this backend at least bytes.len() long.
        unsafe { result::memcpy_htod_sync(ptr, bytes) }
            .map_err(|e| self.device_error("copying to the GPU", e))
    }

    fn read_into(&mut self, ptr: DevicePtr, out: &mut [u8]) -> Result<(), BackendError> {
        self.usable()?;
        // SAFETY: ptr is an allocation of this backend at least out.len() long.
        unsafe { result::memcpy_dtoh_sync(out, ptr) }
            .map_err(|e| self.device_error("copying from the GPU", e))
    }

    fn free(&mut self, ptr: DevicePtr) {
        if self.broken {
            return;
        }
        if let Some(ptr) = self.kept.keep(ptr) {
            // SAFETY: ptr came from alloc and is freed once.
            let _ = unsafe { result::free_sync(ptr) };
        }
    }

    fn launch(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
    ) -> Result<LaunchDetails, BackendError> {
        self.usable()?;
        self.timed_launch(module, launch)?;
        Ok(None)
    }

    fn time(
        &mut self,
        module: ModuleId,
        launch: &KernelLaunch,
        repeats: usize,
    ) -> Result<Option<Duration>, BackendError> {
        self.usable()?;
        for _ in 0..3 {
            self.timed_launch(module, launch)?;
        }
        let scratch = self.alloc(L2_FLUSH_BYTES)?;
        let mut times = Vec::with_capacity(repeats);
        for _ in 0..repeats.max(1) {
            // Overwriting a buffer larger than L2 evicts the kernel's data, so every timed launch
            // reads from device memory as a first launch on fresh data would.
            // SAFETY: scratch is an allocation of L2_FLUSH_BYTES bytes.
            unsafe { result::memset_d8_async(scratch, 0, L2_FLUSH_BYTES, std::ptr::null_mut()) }
                .map_err(|e| self.device_error("flushing L2", e))?;
            times.push(self.timed_launch(module, launch)?);
        }
        self.free(scratch);
        times.sort();
        Ok(Some(times[times.len() / 2]))
    }

    fn sgemm_time(
        &mut self,
        shape: [usize; 3],
        repeats: usize,
    ) -> Result<Option<Duration>, BackendError> {
        self.usable()?;
        self.time_sgemm(shape, repeats)
    }

    fn copy_bandwidth(&mut self) -> Result<Option<f64>, BackendError> {
        self.usable()?;
        const BYTES: usize = 512 << 20;
        let src = self.alloc(BYTES)?;
        let dst = self.alloc(BYTES)?;
        let mut times = Vec::new();
        for round in 0..10 {
            // SAFETY: two distinct allocations of BYTES bytes, copied on the default stream.
            let time = self.timed(Duration::from_secs(10), |backend| {
                unsafe { result::memcpy_dtod_async(dst, src, BYTES, std::ptr::null_mut()) }
                    .map_err(|e| backend.device_error("a device copy", e))
            })?;
            if round >= 2 {
                times.push(time);
            }
        }
        self.free(src);
        self.free(dst);
        times.sort();
        let median = times[times.len() / 2];
        Ok(Some(2.0 * BYTES as f64 / median.as_secs_f64()))
    }
}

impl CudaBackend {
    /// cuBLAS's SGEMM on (m, n, k), median of event-timed calls after warm-up.
    fn time_sgemm(
        &mut self,
        [m, n, k]: [usize; 3],
        repeats: usize,
    ) -> Result<Option<Duration>, BackendError> {
        use cudarc::cublas::{result as blas, sys as blas_sys};
        // SAFETY: only probes for the library.
        if !unsafe { blas_sys::is_culib_present() } {
            return Ok(None);
        }
        let handle =
            blas::create_handle().map_err(|e| BackendError::Device(format!("cuBLAS: {e:?}")))?;
        let (a, b, c) = (
            self.alloc(4 * m * k)?,
            self.alloc(4 * k * n)?,
            self.alloc(4 * m * n)?,
        );
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = blas_sys::cublasOperation_t::CUBLAS_OP_N;
        let mut times = Vec::new();
        for round in 0..repeats.max(1) + 3 {
            let time = self.timed(Duration::from_secs(10), |_| {
                // SAFETY: a, b, c hold m·k, k·n and m·n floats; column-major leading dimensions
                // match; the call is queued on the default stream the events use.
                unsafe {
                    blas::sgemm(
                        handle,
                        op,
                        op,
                        m as i32,
                        n as i32,
                        k as i32,
                        &alpha,
                        a as *const f32,
                        m as i32,
                        b as *const f32,
                        k as i32,
                        &beta,
                        c as *mut f32,
                        m as i32,
                    )
                }
                .map_err(|e| BackendError::Device(format!("cuBLAS SGEMM failed: {e:?}")))
            })?;
            if round >= 3 {
                times.push(time);
            }
        }
        // SAFETY: the handle is destroyed once, after its last call completed.
        let _ = unsafe { blas::destroy_handle(handle) };
        for ptr in [a, b, c] {
            self.free(ptr);
        }
        times.sort();
        Ok(Some(times[times.len() / 2]))
    }

    fn load_error(&self, err: DriverError) -> BackendError {
        use sys::CUresult::*;
        match err.0 {
            CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | CUDA_ERROR_NO_BINARY_FOR_GPU
            | CUDA_ERROR_INVALID_IMAGE
            | CUDA_ERROR_INVALID_PTX => {
                let (major, minor) = self.driver_cuda_version();
                BackendError::Load(format!(
                    "the GPU driver (CUDA {major}.{minor}) cannot load what NVRTC made ({}). The NVRTC in use is newer than the driver: \
                     update the NVIDIA driver, or point RUNNER_NVRTC at an NVRTC no newer than CUDA {major}.{minor} \
                     (`runner doctor` shows both versions).",
                    driver_message(err)
                ))
            }
            _ => self.device_error("loading the compiled kernel", err),
        }
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if self.broken {
            return;
        }
        self.release_kept();
        for &module in &self.modules {
            // SAFETY: modules of this context, unloaded once, after all launches completed.
            let _ = unsafe { result::module::unload(module) };
        }
        let _ = self.context;
    }
}

/// Loads PTX, compiled by the driver for this GPU, keeping the source lines `-lineinfo` put in
/// the PTX (the driver drops them unless asked), so compute-sanitizer and Nsight Compute name
/// the student's lines as they do for a cubin NVRTC made.
///
/// # Safety
/// `text` is PTX ending in a NUL.
unsafe fn load_ptx_with_line_info(text: &[u8]) -> Result<sys::CUmodule, DriverError> {
    let mut module = std::mem::MaybeUninit::uninit();
    let mut options = [sys::CUjit_option::CU_JIT_GENERATE_LINE_INFO];
    // A JIT option's value is passed in the pointer itself.
    let mut values = [std::ptr::without_provenance_mut::<c_void>(1)];
    // SAFETY: one option with its value; the text ends in a NUL (the caller's promise).
    unsafe {
        sys::cuModuleLoadDataEx(
            module.as_mut_ptr(),
            text.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
        .result()?;
        Ok(module.assume_init())
    }
}
