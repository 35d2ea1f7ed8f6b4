//! Hostile and careless calls through the C ABI, each on a driver of its own: every one is
//! answered at once with NVIDIA's error (nothing built or read from a size first), and the
//! answers that NVIDIA's driver gives differently are given as it gives them.

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::cudaError_enum as E;
use std::ffi::{c_char, c_void};

type Ptr = *mut c_void;

/// `CUctxCreateParams`: execution affinity and CIG (a context shared with a graphics API).
#[repr(C)]
struct CtxCreateParams {
    exec_affinity_params: Ptr,
    num_exec_affinity_params: i32,
    cig_params: Ptr,
}

/// The entry points these tests call, each with its driver API signature, from one fresh copy of
/// the library.
macro_rules! api {
    ($($name:ident: fn($($arg:ty),*);)*) => {
        #[allow(non_snake_case)]
        struct Api {
            $($name: unsafe extern "C" fn($($arg),*) -> E,)*
            _library: Loaded,
        }

        impl Api {
            fn fresh() -> Api {
                let library = Loaded::fresh();
                // SAFETY: each type is the entry point's signature in the driver API.
                unsafe { Api { $($name: library.get(stringify!($name)),)* _library: library } }
            }
        }
    };
}

api! {
    cuInit: fn(u32);
    cuDevicePrimaryCtxRetain: fn(*mut Ptr, i32);
    cuCtxSetCurrent: fn(Ptr);
    cuCtxGetCurrent: fn(*mut Ptr);
    cuCtxCreate_v2: fn(*mut Ptr, u32, i32);
    cuCtxCreate_v4: fn(*mut Ptr, *mut CtxCreateParams, u32, i32);
    cuCtxDestroy_v2: fn(Ptr);
    cuCtxPushCurrent_v2: fn(Ptr);
    cuCtxPopCurrent_v2: fn(*mut Ptr);
    cuCtxSynchronize: fn();
    cuMemAlloc_v2: fn(*mut u64, usize);
    cuMemFree_v2: fn(u64);
    cuMemsetD8_v2: fn(u64, u8, usize);
    cuMemsetD16_v2: fn(u64, u16, usize);
    cuMemsetD32_v2: fn(u64, u32, usize);
    cuMemsetD8Async: fn(u64, u8, usize, Ptr);
    cuMemsetD16Async: fn(u64, u16, usize, Ptr);
    cuMemsetD32Async: fn(u64, u32, usize, Ptr);
    cuMemcpyHtoD_v2: fn(u64, *const c_void, usize);
    cuMemcpyDtoH_v2: fn(Ptr, u64, usize);
    cuMemcpyDtoD_v2: fn(u64, u64, usize);
    cuMemHostRegister_v2: fn(Ptr, usize, u32);
    cuMemHostUnregister: fn(Ptr);
    cuMemAllocHost_v2: fn(*mut Ptr, usize);
    cuMemFreeHost: fn(Ptr);
    cuMemGetInfo_v2: fn(*mut usize, *mut usize);
    cuMemcpy: fn(u64, u64, usize);
    cuMemcpyHtoDAsync_v2: fn(u64, *const c_void, usize, Ptr);
    cuMemcpyDtoHAsync_v2: fn(Ptr, u64, usize, Ptr);
    cuMemcpyDtoDAsync_v2: fn(u64, u64, usize, Ptr);
    cuStreamCreate: fn(*mut Ptr, u32);
    cuStreamGetCtx: fn(Ptr, *mut Ptr);
    cuStreamGetCtx_v2: fn(Ptr, *mut Ptr, *mut Ptr);
    cuDeviceGetAttribute: fn(*mut i32, i32, i32);
    cuStreamDestroy_v2: fn(Ptr);
    cuStreamSynchronize: fn(Ptr);
    cuEventSynchronize: fn(Ptr);
    cuModuleLoad: fn(*mut Ptr, *const c_char);
    cuModuleLoadData: fn(*mut Ptr, *const c_void);
    cuModuleGetFunction: fn(*mut Ptr, Ptr, *const c_char);
    cuModuleUnload: fn(Ptr);
    cuFuncGetAttribute: fn(*mut i32, i32, Ptr);
    cuEventCreate: fn(*mut Ptr, u32);
    cuEventDestroy_v2: fn(Ptr);
    cuEventRecord: fn(Ptr, Ptr);
    cuLaunchKernel: fn(Ptr, u32, u32, u32, u32, u32, u32, u32, Ptr, *mut Ptr, *mut Ptr);
}

impl Api {
    /// A fresh driver, initialised, with the primary context current.
    fn with_context() -> (Api, Ptr) {
        let api = Api::fresh();
        let mut primary = std::ptr::null_mut();
        // SAFETY: driver API calls with valid pointers.
        unsafe {
            assert_eq!((api.cuInit)(0), E::CUDA_SUCCESS);
            assert_eq!(
                (api.cuDevicePrimaryCtxRetain)(&mut primary, 0),
                E::CUDA_SUCCESS
            );
            assert_eq!((api.cuCtxSetCurrent)(primary), E::CUDA_SUCCESS);
        }
        (api, primary)
    }

    fn alloc(&self, bytes: usize) -> u64 {
        let mut at = 0;
        // SAFETY: a valid pointer.
        assert_eq!(
            unsafe { (self.cuMemAlloc_v2)(&mut at, bytes) },
            E::CUDA_SUCCESS
        );
        at
    }

    fn current(&self) -> Ptr {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: a valid pointer.
        assert_eq!(unsafe { (self.cuCtxGetCurrent)(&mut ctx) }, E::CUDA_SUCCESS);
        ctx
    }

    /// Loads PTX text as a module and finds kernel `name` in it.
    fn kernel(&self, ptx: &str, name: &std::ffi::CStr) -> Ptr {
        let ptx = format!("{ptx}\0");
        let (mut module, mut function) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: a NUL-terminated image, a NUL-terminated name and valid pointers.
        unsafe {
            assert_eq!(
                (self.cuModuleLoadData)(&mut module, ptx.as_ptr().cast()),
                E::CUDA_SUCCESS
            );
            assert_eq!(
                (self.cuModuleGetFunction)(&mut function, module, name.as_ptr()),
                E::CUDA_SUCCESS
            );
        }
        function
    }

    /// Launches `function` on one block of 32 threads with `args` (each a pointer to its bytes).
    fn launch(&self, function: Ptr, args: &mut [Ptr]) -> E {
        let (stream, extra) = (std::ptr::null_mut(), std::ptr::null_mut());
        let params = args.as_mut_ptr();
        // SAFETY: one pointer per kernel parameter, each to that parameter's bytes.
        unsafe { (self.cuLaunchKernel)(function, 1, 1, 1, 32, 1, 1, 0, stream, params, extra) }
    }
}

const BUGS_PTX: &str = include_str!("../../sim/tests/fixtures/bugs.ptx");

#[test]
fn a_memset_past_its_allocation_is_refused_before_anything_is_built() {
    let (api, _) = Api::with_context();
    let at = api.alloc(64);
    let null = std::ptr::null_mut();
    // SAFETY: driver API calls; none of these touches host memory.
    unsafe {
        // 2^36 words is a 256 GiB pattern, and SIZE_MAX words overflow: both refused at once.
        assert_eq!(
            (api.cuMemsetD32_v2)(at, 1, 1 << 36),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            (api.cuMemsetD32_v2)(at, 0, usize::MAX),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            (api.cuMemsetD16_v2)(at, 0, usize::MAX / 2 + 1),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            (api.cuMemsetD32Async)(at, 0, usize::MAX, null),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            (api.cuMemsetD16Async)(at, 0, 1 << 40, null),
            E::CUDA_ERROR_INVALID_VALUE
        );
        // One element past the end, in each width.
        assert_eq!((api.cuMemsetD8_v2)(at, 1, 65), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            (api.cuMemsetD8Async)(at + 1, 1, 64, null),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!((api.cuMemsetD16_v2)(at, 1, 33), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!((api.cuMemsetD32_v2)(at, 1, 17), E::CUDA_ERROR_INVALID_VALUE);
        // The whole allocation is fine, and the driver still answers.
        assert_eq!((api.cuMemsetD32_v2)(at, 0x0102_0304, 16), E::CUDA_SUCCESS);
        let mut back = [0u32; 16];
        assert_eq!(
            (api.cuMemcpyDtoH_v2)(back.as_mut_ptr().cast(), at, 64),
            E::CUDA_SUCCESS
        );
        assert_eq!(back, [0x0102_0304; 16]);
    }
}

#[test]
fn a_copy_past_its_allocation_is_refused_before_the_programs_memory_is_touched() {
    let (api, _) = Api::with_context();
    let (a, b) = (api.alloc(64), api.alloc(64));
    let host = [0u8; 64];
    let mut back = [0u8; 64];
    // SAFETY: driver API calls; each length is refused before the host pointer is read.
    unsafe {
        for bytes in [65, 1 << 40, usize::MAX] {
            assert_eq!(
                (api.cuMemcpyHtoD_v2)(a, host.as_ptr().cast(), bytes),
                E::CUDA_ERROR_INVALID_VALUE,
                "{bytes}"
            );
            assert_eq!(
                (api.cuMemcpyDtoH_v2)(back.as_mut_ptr().cast(), a, bytes),
                E::CUDA_ERROR_INVALID_VALUE,
                "{bytes}"
            );
            assert_eq!(
                (api.cuMemcpyDtoD_v2)(b, a, bytes),
                E::CUDA_ERROR_INVALID_VALUE,
                "{bytes}"
            );
        }
        // An address near the top of the address space: its end wraps.
        assert_eq!(
            (api.cuMemcpyHtoD_v2)(u64::MAX - 8, host.as_ptr().cast(), 64),
            E::CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn freeing_null_succeeds_as_on_nvidias_driver() {
    let (api, _) = Api::with_context();
    let at = api.alloc(64);
    // SAFETY: driver API calls.
    unsafe {
        assert_eq!((api.cuMemFree_v2)(0), E::CUDA_SUCCESS);
        assert_eq!((api.cuMemFree_v2)(at), E::CUDA_SUCCESS);
        assert_eq!((api.cuMemFree_v2)(at), E::CUDA_ERROR_INVALID_VALUE);
    }
}

#[test]
fn contexts_form_a_stack_and_destroying_the_current_one_brings_back_the_one_before() {
    let (api, primary) = Api::with_context();
    let (mut first, mut second, mut popped) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        assert_eq!((api.cuCtxCreate_v2)(&mut first, 0, 0), E::CUDA_SUCCESS);
        assert_eq!(api.current(), first);
        assert_eq!((api.cuCtxDestroy_v2)(first), E::CUDA_SUCCESS);
        assert_eq!(
            api.current(),
            primary,
            "the context before is current again"
        );
        // Created twice, popped once: the first is current, then the primary again.
        assert_eq!((api.cuCtxCreate_v2)(&mut first, 0, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxCreate_v2)(&mut second, 0, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxPopCurrent_v2)(&mut popped), E::CUDA_SUCCESS);
        assert_eq!((popped, api.current()), (second, first));
        // Pushed on top, then replaced at the top by cuCtxSetCurrent: one pop leaves `first`.
        assert_eq!((api.cuCtxPushCurrent_v2)(second), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxSetCurrent)(primary), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxPopCurrent_v2)(&mut popped), E::CUDA_SUCCESS);
        assert_eq!((popped, api.current()), (primary, first));
        // A destroyed context lower in the stack is never current again.
        assert_eq!((api.cuCtxPushCurrent_v2)(second), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxDestroy_v2)(first), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxPopCurrent_v2)(&mut popped), E::CUDA_SUCCESS);
        assert_eq!(api.current(), primary);
    }
}

#[test]
fn cuda_13s_cu_ctx_create_makes_a_context_and_refuses_affinity_it_cannot_give() {
    // CUDA 13's cuda.h defines cuCtxCreate as cuCtxCreate_v4: every program built against it
    // (cuda-samples' driver-API samples) links that name.
    let (api, primary) = Api::with_context();
    let mut ctx = std::ptr::null_mut();
    let mut affinity = 0u64;
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        let mut none = CtxCreateParams {
            exec_affinity_params: std::ptr::null_mut(),
            num_exec_affinity_params: 0,
            cig_params: std::ptr::null_mut(),
        };
        for params in [std::ptr::null_mut(), &mut none as *mut CtxCreateParams] {
            assert_eq!(
                (api.cuCtxCreate_v4)(&mut ctx, params, 0, 0),
                E::CUDA_SUCCESS
            );
            assert!(!ctx.is_null() && ctx != primary);
            assert_eq!(api.current(), ctx, "the new context is current");
            assert_eq!((api.cuCtxDestroy_v2)(ctx), E::CUDA_SUCCESS);
        }
        assert_eq!(
            (api.cuCtxCreate_v4)(&mut ctx, std::ptr::null_mut(), 0, 1),
            E::CUDA_ERROR_INVALID_DEVICE
        );
        let mut some = CtxCreateParams {
            exec_affinity_params: (&mut affinity as *mut u64).cast(),
            num_exec_affinity_params: 1,
            cig_params: std::ptr::null_mut(),
        };
        assert_eq!(
            (api.cuCtxCreate_v4)(&mut ctx, &mut some, 0, 0),
            E::CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(api.current(), primary);
    }
}

#[test]
fn a_stream_belongs_to_the_context_it_was_made_in_and_the_default_stream_to_the_current_one() {
    // cuda.core asks a stream's context before a cooperative launch (Numba's grid sync).
    let (api, primary) = Api::with_context();
    let (mut stream, mut other, mut asked, mut green) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        1 as Ptr,
    );
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        assert_eq!((api.cuStreamCreate)(&mut stream, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxCreate_v2)(&mut other, 0, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuStreamGetCtx)(stream, &mut asked), E::CUDA_SUCCESS);
        assert_eq!(asked, primary, "made while the primary context was current");
        assert_eq!(
            (api.cuStreamGetCtx)(std::ptr::null_mut(), &mut asked),
            E::CUDA_SUCCESS
        );
        assert_eq!(asked, other, "the default stream is the current context's");
        assert_eq!(
            (api.cuStreamGetCtx_v2)(stream, &mut asked, &mut green),
            E::CUDA_SUCCESS
        );
        assert_eq!((asked, green), (primary, std::ptr::null_mut()));
        assert_eq!(
            (api.cuStreamGetCtx)(stream, std::ptr::null_mut()),
            E::CUDA_ERROR_INVALID_VALUE
        );
        let mut cooperative = 0;
        // CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 95.
        assert_eq!(
            (api.cuDeviceGetAttribute)(&mut cooperative, 95, 0),
            E::CUDA_SUCCESS
        );
        assert_eq!(cooperative, 1, "cooperative launches run");
    }
}

#[test]
fn registering_host_memory_that_wraps_is_refused_and_registered_memory_is_never_freed() {
    let (api, _) = Api::with_context();
    let near_the_top = std::ptr::without_provenance_mut(usize::MAX - 4095);
    let mut buffer = vec![0u8; 8192];
    let start: Ptr = buffer.as_mut_ptr().cast();
    // SAFETY: driver API calls; registration only records the range.
    unsafe {
        assert_eq!(
            (api.cuMemHostRegister_v2)(near_the_top, 8192, 0),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            (api.cuMemHostRegister_v2)(start, usize::MAX, 0),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!((api.cuMemHostRegister_v2)(start, 8192, 0), E::CUDA_SUCCESS);
        // Overlapping a registered range from below and from inside.
        let inside = start.cast::<u8>().add(4096).cast();
        assert_eq!(
            (api.cuMemHostRegister_v2)(inside, 16, 0),
            E::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        // Registered memory is the program's: cuMemFreeHost refuses it (it freed it once).
        assert_eq!((api.cuMemFreeHost)(start), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!((api.cuMemHostUnregister)(start), E::CUDA_SUCCESS);
        assert_eq!((api.cuMemHostRegister_v2)(inside, 16, 0), E::CUDA_SUCCESS);
        // And memory from cuMemAllocHost is freed, never unregistered.
        let mut pinned = std::ptr::null_mut();
        assert_eq!((api.cuMemAllocHost_v2)(&mut pinned, 64), E::CUDA_SUCCESS);
        assert_eq!(
            (api.cuMemHostUnregister)(pinned),
            E::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        assert_eq!((api.cuMemFreeHost)(pinned), E::CUDA_SUCCESS);
    }
}

#[test]
fn a_module_that_defines_a_kernel_twice_is_refused_at_load() {
    let (api, _) = Api::with_context();
    let kernel = ".visible .entry twice(.param .u64 out)\n{\n    ret;\n}\n";
    let ptx = format!(".version 7.0\n.target sm_80\n.address_size 64\n{kernel}{kernel}\0");
    let mut module = std::ptr::null_mut();
    // SAFETY: a NUL-terminated image and a valid pointer.
    let loaded = unsafe { (api.cuModuleLoadData)(&mut module, ptx.as_ptr().cast()) };
    assert_eq!(loaded, E::CUDA_ERROR_INVALID_PTX);
}

#[test]
fn a_kernel_the_simulator_cannot_run_costs_only_its_own_launch() {
    // cudart loads all of a program's kernels at its first call: a module whose one kernel uses
    // an instruction the simulator lacks must still load, or every runtime call fails.
    let (api, _) = Api::with_context();
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n.extern .func elsewhere();\n";
    let refused = ".visible .entry calls_out() { call.uni elsewhere, (); ret; }\n";
    let fine = ".visible .entry fine() { ret; }\n";
    let alone = api.kernel(&format!("{head}{refused}"), c"calls_out");
    let beside = api.kernel(&format!("{head}{refused}{fine}"), c"calls_out");
    let runs = api.kernel(&format!("{head}{refused}{fine}"), c"fine");
    assert_eq!(api.launch(alone, &mut []), E::CUDA_ERROR_NOT_SUPPORTED);
    assert_eq!(api.launch(beside, &mut []), E::CUDA_ERROR_NOT_SUPPORTED);
    // The refusal is no fault of the context: the module's other kernel runs, and waits succeed.
    assert_eq!(api.launch(runs, &mut []), E::CUDA_SUCCESS);
    // SAFETY: a driver API call.
    assert_eq!(unsafe { (api.cuCtxSynchronize)() }, E::CUDA_SUCCESS);
    let ptx = format!("{head}{refused}\0");
    let (mut module, mut function) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: driver API calls with valid pointers and NUL-terminated strings.
    unsafe {
        assert_eq!(
            (api.cuModuleLoadData)(&mut module, ptx.as_ptr().cast()),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            (api.cuModuleGetFunction)(&mut function, module, c"absent".as_ptr()),
            E::CUDA_ERROR_NOT_FOUND
        );
    }
}

#[test]
fn a_kernels_ptx_version_is_its_modules_target_as_cub_reads_it() {
    // CUB picks its code path by cudaFuncGetAttributes' ptxVersion and refuses one not compiled
    // in (cudaErrorInvalidDeviceFunction): nvcc's compute_80 PTX must say 80, not the device's 90.
    let (api, _) = Api::with_context();
    let (ptx_version, binary_version) = (5, 6);
    for (target, wanted) in [("sm_80", 80), ("sm_90a", 90), ("sm_75", 75)] {
        let ptx = format!(
            ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
        );
        let function = api.kernel(&ptx, c"k");
        let (mut ptx_says, mut binary_says) = (0, 0);
        // SAFETY: valid pointers and a function handle.
        unsafe {
            assert_eq!(
                (api.cuFuncGetAttribute)(&mut ptx_says, ptx_version, function),
                E::CUDA_SUCCESS
            );
            assert_eq!(
                (api.cuFuncGetAttribute)(&mut binary_says, binary_version, function),
                E::CUDA_SUCCESS
            );
        }
        assert_eq!((ptx_says, binary_says), (wanted, 90), "{target}");
    }
}

#[test]
fn a_kernels_launch_bounds_are_its_most_threads_and_registers() {
    // numba's dispatcher tests read `__launch_bounds__` back through cuFuncGetAttribute.
    let (api, _) = Api::with_context();
    let (max_threads, num_regs) = (0, 4);
    for (directives, wanted) in [
        ("", (1024, 32)),
        (".maxntid 128, 1, 1", (128, 32)),
        (".reqntid 16, 16, 1 .maxnreg 24", (256, 24)),
        (".maxntid 512 .reqntid 64", (64, 32)),
    ] {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {directives} {{ ret; }}\n"
        );
        let function = api.kernel(&ptx, c"k");
        let (mut threads, mut registers) = (0, 0);
        // SAFETY: valid pointers and a function handle.
        unsafe {
            assert_eq!(
                (api.cuFuncGetAttribute)(&mut threads, max_threads, function),
                E::CUDA_SUCCESS
            );
            assert_eq!(
                (api.cuFuncGetAttribute)(&mut registers, num_regs, function),
                E::CUDA_SUCCESS
            );
        }
        assert_eq!((threads, registers), wanted, "{directives}");
    }
}

#[test]
fn a_module_file_past_the_largest_size_is_refused_without_reading_it_all() {
    let (api, _) = Api::with_context();
    let dir = tempfile::tempdir().unwrap();
    // A sparse file of 256 MiB and a byte: no disk used, refused by its size.
    let huge = dir.path().join("huge.ptx");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len((256 << 20) + 1).unwrap();
    let mut module = std::ptr::null_mut();
    let path = std::ffi::CString::new(huge.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path and a valid pointer.
    unsafe {
        assert_eq!(
            (api.cuModuleLoad)(&mut module, path.as_ptr()),
            E::CUDA_ERROR_INVALID_IMAGE
        );
        // A device that never ends is read only as far as the bound.
        if std::path::Path::new("/dev/zero").exists() {
            assert_eq!(
                (api.cuModuleLoad)(&mut module, c"/dev/zero".as_ptr()),
                E::CUDA_ERROR_INVALID_IMAGE
            );
        }
    }
}

#[test]
fn a_kernel_that_traps_fails_its_context_with_a_launch_failure_as_on_nvidias_driver() {
    let (api, _) = Api::with_context();
    let function = api.kernel(BUGS_PTX, c"trap_kernel");
    let mut out = api.alloc(4 * 32);
    let mut args = [(&raw mut out).cast()];
    assert_eq!(api.launch(function, &mut args), E::CUDA_SUCCESS);
    // SAFETY: a driver API call.
    assert_eq!(
        unsafe { (api.cuCtxSynchronize)() },
        E::CUDA_ERROR_LAUNCH_FAILED
    );
}

#[test]
fn a_failed_assert_in_a_kernel_is_an_assert_error_as_on_nvidias_driver() {
    let (api, _) = Api::with_context();
    let function = api.kernel(BUGS_PTX, c"failing_assert");
    let mut data = api.alloc(4 * 32);
    let host: Vec<i32> = (0..32).map(|i| if i == 7 { -1 } else { i }).collect();
    // SAFETY: 128 readable bytes.
    let copied = unsafe { (api.cuMemcpyHtoD_v2)(data, host.as_ptr().cast(), 4 * 32) };
    assert_eq!(copied, E::CUDA_SUCCESS);
    let mut n = 32i32;
    let mut args = [(&raw mut data).cast(), (&raw mut n).cast()];
    assert_eq!(api.launch(function, &mut args), E::CUDA_SUCCESS);
    // SAFETY: a driver API call.
    assert_eq!(unsafe { (api.cuCtxSynchronize)() }, E::CUDA_ERROR_ASSERT);
}

#[test]
fn a_kernels_fault_is_answered_by_the_first_call_that_waits_not_by_work_queued_after_it() {
    // cudarc's own test_device_side_assert: its launch records an event after the kernel, which a
    // GPU accepts (the kernel has not run yet) and the synchronise after it answers the assert.
    let (api, _) = Api::with_context();
    let function = api.kernel(BUGS_PTX, c"failing_assert");
    let mut data = api.alloc(4 * 32);
    let host: Vec<i32> = (0..32).map(|i| if i == 7 { -1 } else { i }).collect();
    let mut n = 32i32;
    let mut args = [(&raw mut data).cast(), (&raw mut n).cast()];
    let (mut stream, mut event) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: driver API calls with valid pointers; 128 readable bytes.
    unsafe {
        assert_eq!(
            (api.cuMemcpyHtoD_v2)(data, host.as_ptr().cast(), 4 * 32),
            E::CUDA_SUCCESS
        );
        assert_eq!((api.cuStreamCreate)(&mut stream, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuEventCreate)(&mut event, 0), E::CUDA_SUCCESS);
        assert_eq!(api.launch(function, &mut args), E::CUDA_SUCCESS);
        assert_eq!((api.cuEventRecord)(event, stream), E::CUDA_SUCCESS);
        let queued = (api.cuMemcpyHtoDAsync_v2)(data, host.as_ptr().cast(), 4 * 32, stream);
        assert_eq!(queued, E::CUDA_SUCCESS);
        assert_eq!((api.cuStreamSynchronize)(stream), E::CUDA_ERROR_ASSERT);
        // From then on every call answers it, queueing ones too.
        assert_eq!((api.cuEventRecord)(event, stream), E::CUDA_ERROR_ASSERT);
    }
}

#[test]
fn a_kernel_asked_for_twice_has_one_handle_and_none_once_its_module_is_unloaded() {
    let (api, _) = Api::with_context();
    let ptx = format!("{BUGS_PTX}\0");
    let (mut module, mut first, mut again) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    let mut threads = 0;
    // SAFETY: driver API calls with valid pointers and NUL-terminated strings.
    unsafe {
        let loaded = (api.cuModuleLoadData)(&mut module, ptx.as_ptr().cast());
        assert_eq!(loaded, E::CUDA_SUCCESS);
        let name = c"trap_kernel".as_ptr();
        assert_eq!(
            (api.cuModuleGetFunction)(&mut first, module, name),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            (api.cuModuleGetFunction)(&mut again, module, name),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            first, again,
            "one handle per kernel, as NVIDIA's driver gives"
        );
        // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (0): valid while the module is loaded.
        assert_eq!(
            (api.cuFuncGetAttribute)(&mut threads, 0, first),
            E::CUDA_SUCCESS
        );
        assert_eq!((api.cuModuleUnload)(module), E::CUDA_SUCCESS);
        assert_eq!(
            (api.cuFuncGetAttribute)(&mut threads, 0, first),
            E::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!((api.cuModuleUnload)(module), E::CUDA_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn a_destroyed_event_stays_refused_however_many_are_created_after_it() {
    let (api, _) = Api::with_context();
    let (mut destroyed, mut event) = (std::ptr::null_mut(), std::ptr::null_mut());
    let stream = std::ptr::null_mut();
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        assert_eq!((api.cuEventCreate)(&mut destroyed, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuEventDestroy_v2)(destroyed), E::CUDA_SUCCESS);
        for _ in 0..100 {
            assert_eq!((api.cuEventCreate)(&mut event, 0), E::CUDA_SUCCESS);
            assert_ne!(event, destroyed, "a handle is never given out twice");
            assert_eq!((api.cuEventDestroy_v2)(event), E::CUDA_SUCCESS);
        }
        assert_eq!(
            (api.cuEventRecord)(destroyed, stream),
            E::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            (api.cuEventDestroy_v2)(destroyed),
            E::CUDA_ERROR_INVALID_HANDLE
        );
    }
}

/// Sizes and counts a careless or hostile program passes: around an allocation's end, past
/// 4 GiB, and near the top of `size_t`, where arithmetic overflows.
const HOSTILE_SIZES: [usize; 16] = [
    0,
    1,
    3,
    63,
    64,
    65,
    255,
    4095,
    4096,
    4097,
    1 << 33,
    1 << 36,
    usize::MAX / 4 + 1,
    usize::MAX / 2 + 1,
    usize::MAX - 1,
    usize::MAX,
];

/// SplitMix64: a seeded sequence, so a failure is replayed by its seed.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.next() as usize % from.len()]
    }
}

/// What the random calls work on: device allocations (live and freed), streams, events,
/// page-locked blocks and contexts, and host memory every accepted copy stays inside.
struct Handles {
    device: Vec<u64>,
    streams: Vec<Ptr>,
    events: Vec<Ptr>,
    pinned: Vec<Ptr>,
    contexts: Vec<Ptr>,
    host: &'static mut [u8],
}

impl Handles {
    /// A device address: an allocation, a byte inside or just past one, null, or one that wraps.
    fn device(&self, s: &mut Sequence) -> u64 {
        let base = s.pick(&self.device);
        s.pick(&[base, base + 1, base + 64, base + 4096, 0, u64::MAX - 8])
    }

    /// A host address: the start of the host memory, a place in it, or null. (Never a wild
    /// host pointer: the driver reads and writes the program's memory as NVIDIA's does.)
    fn host(&mut self, s: &mut Sequence) -> Ptr {
        let offset = s.pick(&[0, 1, 4096, 8192]);
        if s.next().is_multiple_of(8) {
            return std::ptr::null_mut();
        }
        // SAFETY: every offset is inside the host memory (64 KiB).
        unsafe { self.host.as_mut_ptr().add(offset).cast() }
    }
}

/// One random call with hostile arguments; its answer.
///
/// # Safety
/// `api` is a fresh driver; `h` holds what earlier calls made.
unsafe fn random_call(api: &Api, h: &mut Handles, s: &mut Sequence) -> (&'static str, E) {
    let size = s.pick(&HOSTILE_SIZES);
    let stream = s.pick(&h.streams);
    let mut out = std::ptr::null_mut();
    // SAFETY: valid out-pointers; device and host addresses as `Handles` gives them: every host
    // range an accepted call touches lies in the host memory, as the sizes it accepts are at most
    // an allocation's (4097 bytes).
    unsafe {
        match s.next() % 20 {
            0 => {
                let bytes = s.pick(&[1, 64, 4097, 1 << 33, usize::MAX]);
                let mut at = 0;
                let result = (api.cuMemAlloc_v2)(&mut at, bytes);
                if result == E::CUDA_SUCCESS {
                    h.device.push(at);
                }
                ("cuMemAlloc", result)
            }
            1 => ("cuMemFree", (api.cuMemFree_v2)(h.device(s))),
            2 => {
                let value = s.next() as u32;
                (
                    "cuMemsetD32",
                    (api.cuMemsetD32_v2)(h.device(s), value, size),
                )
            }
            3 => (
                "cuMemsetD16Async",
                (api.cuMemsetD16Async)(h.device(s), 7, size, stream),
            ),
            4 => ("cuMemsetD8", (api.cuMemsetD8_v2)(h.device(s), 7, size)),
            5 => {
                let src = h.host(s);
                (
                    "cuMemcpyHtoD",
                    (api.cuMemcpyHtoD_v2)(h.device(s), src, size),
                )
            }
            6 => {
                let dst = h.host(s);
                (
                    "cuMemcpyDtoH",
                    (api.cuMemcpyDtoH_v2)(dst, h.device(s), size),
                )
            }
            7 => {
                let (dst, src) = (h.device(s), h.device(s));
                (
                    "cuMemcpyDtoDAsync",
                    (api.cuMemcpyDtoDAsync_v2)(dst, src, size, stream),
                )
            }
            8 => {
                let src = h.host(s);
                let at = h.device(s);
                (
                    "cuMemcpyHtoDAsync",
                    (api.cuMemcpyHtoDAsync_v2)(at, src, size, stream),
                )
            }
            9 => {
                let dst = h.host(s);
                let at = h.device(s);
                (
                    "cuMemcpyDtoHAsync",
                    (api.cuMemcpyDtoHAsync_v2)(dst, at, size, stream),
                )
            }
            10 => {
                // Unified addressing: a device address and host memory, either way round.
                let (device, host) = (h.device(s), h.host(s) as u64);
                let (dst, src) = if s.next().is_multiple_of(2) {
                    (device, host)
                } else {
                    (host, device)
                };
                ("cuMemcpy", (api.cuMemcpy)(dst, src, size))
            }
            11 => {
                let host = h.host(s);
                let at = s.pick(&[host, std::ptr::without_provenance_mut(usize::MAX - 64)]);
                ("cuMemHostRegister", (api.cuMemHostRegister_v2)(at, size, 0))
            }
            12 => ("cuMemHostUnregister", (api.cuMemHostUnregister)(h.host(s))),
            13 => {
                let bytes = s.pick(&[0, 64, 1 << 20, usize::MAX]);
                let result = (api.cuMemAllocHost_v2)(&mut out, bytes);
                if result == E::CUDA_SUCCESS {
                    h.pinned.push(out);
                }
                ("cuMemAllocHost", result)
            }
            14 => match h.pinned.pop() {
                Some(p) => ("cuMemFreeHost", (api.cuMemFreeHost)(p)),
                None => ("cuMemFreeHost", (api.cuMemFreeHost)(h.host(s))),
            },
            15 => {
                let result = (api.cuStreamCreate)(&mut out, (s.next() % 2) as u32);
                if result == E::CUDA_SUCCESS {
                    h.streams.push(out);
                }
                ("cuStreamCreate", result)
            }
            16 => match s.next() % 4 {
                0 => ("cuStreamDestroy", (api.cuStreamDestroy_v2)(stream)),
                1 => ("cuStreamSynchronize", (api.cuStreamSynchronize)(stream)),
                2 => ("cuCtxSynchronize", (api.cuCtxSynchronize)()),
                _ => {
                    let (mut free, mut total) = (0, 0);
                    let total_out = s.pick(&[&raw mut total, std::ptr::null_mut()]);
                    ("cuMemGetInfo", (api.cuMemGetInfo_v2)(&mut free, total_out))
                }
            },
            17 => {
                let result = (api.cuEventCreate)(&mut out, 0);
                if result == E::CUDA_SUCCESS {
                    h.events.push(out);
                }
                ("cuEventCreate", result)
            }
            18 => {
                let event = s.pick(&h.events);
                match s.next() % 3 {
                    0 => ("cuEventRecord", (api.cuEventRecord)(event, stream)),
                    1 => ("cuEventSynchronize", (api.cuEventSynchronize)(event)),
                    _ => ("cuEventDestroy", (api.cuEventDestroy_v2)(event)),
                }
            }
            _ => match s.next() % 4 {
                0 => {
                    let result = (api.cuCtxCreate_v2)(&mut out, 0, 0);
                    if result == E::CUDA_SUCCESS {
                        h.contexts.push(out);
                    }
                    ("cuCtxCreate", result)
                }
                1 => ("cuCtxDestroy", (api.cuCtxDestroy_v2)(s.pick(&h.contexts))),
                2 => (
                    "cuCtxPushCurrent",
                    (api.cuCtxPushCurrent_v2)(s.pick(&h.contexts)),
                ),
                _ => ("cuCtxPopCurrent", (api.cuCtxPopCurrent_v2)(&mut out)),
            },
        }
    }
}

#[test]
fn random_calls_with_hostile_sizes_are_each_answered_with_an_error_never_a_panic() {
    let seed = std::env::var("HOSTILE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25);
    let (api, primary) = Api::with_context();
    let mut s = Sequence(seed);
    let mut h = Handles {
        device: vec![api.alloc(64), api.alloc(4097)],
        streams: vec![std::ptr::null_mut()],
        events: vec![std::ptr::null_mut()],
        pinned: Vec::new(),
        contexts: vec![primary],
        // Kept for the process: copies in flight may land in it at any later wait.
        host: Box::leak(vec![0u8; 64 << 10].into_boxed_slice()),
    };
    let mut answers = std::collections::BTreeMap::<(&str, E), u32>::new();
    for step in 0..20_000 {
        // SAFETY: a fresh driver and what earlier calls made.
        let (call, answer) = unsafe { random_call(&api, &mut h, &mut s) };
        assert_ne!(
            answer,
            E::CUDA_ERROR_UNKNOWN,
            "step {step} of seed {seed}: {call} panicked inside the driver"
        );
        *answers.entry((call, answer)).or_default() += 1;
    }
    // The sequence reached the calls' successes and their refusals alike.
    let succeeded = |call| answers.contains_key(&(call, E::CUDA_SUCCESS));
    let refused = |call, error| answers.contains_key(&(call, error));
    assert!(succeeded("cuMemsetD32") && refused("cuMemsetD32", E::CUDA_ERROR_INVALID_VALUE));
    assert!(succeeded("cuMemcpyDtoH") && refused("cuMemcpyDtoH", E::CUDA_ERROR_INVALID_VALUE));
    assert!(succeeded("cuMemHostRegister"), "{answers:?}");
}

#[test]
fn launch_configurations_past_the_gpus_limits_are_refused_before_anything_runs() {
    let (api, _) = Api::with_context();
    let function = api.kernel(
        include_str!("../../sim/tests/fixtures/vector_add.ptx"),
        c"vector_add",
    );
    let (mut a, mut n) = (api.alloc(4 * 64), 64i32);
    let mut args = [
        (&raw mut a).cast(),
        (&raw mut a).cast(),
        (&raw mut a).cast(),
        (&raw mut n).cast(),
    ];
    let (stream, extra) = (std::ptr::null_mut(), std::ptr::null_mut());
    let params = args.as_mut_ptr();
    let max = u32::MAX;
    // (grid, block, dynamic shared bytes): an H100's limits are 2^31-1 x 65535 x 65535 blocks,
    // 1024 x 1024 x 64 threads and 1024 in all, 227 KiB of shared memory.
    for (grid, block, shared) in [
        ([0, 1, 1], [32, 1, 1], 0),
        ([1, 1, 1], [0, 1, 1], 0),
        ([1, 0, 1], [32, 1, 1], 0),
        ([1, 1, 1], [1025, 1, 1], 0),
        ([1, 1, 1], [32, 32, 2], 0),
        ([1, 1, 1], [1, 1, 65], 0),
        ([1, 65536, 1], [32, 1, 1], 0),
        ([1, 1, 65536], [32, 1, 1], 0),
        ([max, 1, 1], [32, 1, 1], 0),
        ([max, max, max], [max, max, max], max),
        ([1, 1, 1], [32, 1, 1], 228 * 1024),
        ([1, 1, 1], [32, 1, 1], max),
    ] {
        let [gx, gy, gz] = grid;
        let [bx, by, bz] = block;
        // SAFETY: one pointer per kernel parameter, each to its bytes.
        let answer = unsafe {
            (api.cuLaunchKernel)(
                function, gx, gy, gz, bx, by, bz, shared, stream, params, extra,
            )
        };
        assert_eq!(
            answer,
            E::CUDA_ERROR_INVALID_VALUE,
            "grid {grid:?}, block {block:?}, {shared} shared bytes"
        );
    }
    // The driver still works, and no launch ran.
    assert_eq!(api.launch(function, &mut args), E::CUDA_SUCCESS);
    // SAFETY: a driver API call.
    assert_eq!(unsafe { (api.cuCtxSynchronize)() }, E::CUDA_SUCCESS);
}

#[test]
fn each_thread_has_its_own_context_stack_as_on_nvidias_driver() {
    let (api, primary) = Api::with_context();
    let mut other = std::ptr::null_mut();
    let mut popped = std::ptr::null_mut();
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        assert_eq!((api.cuCtxCreate_v2)(&mut other, 0, 0), E::CUDA_SUCCESS);
        assert_eq!((api.cuCtxPopCurrent_v2)(&mut popped), E::CUDA_SUCCESS);
    }
    assert_eq!(api.current(), primary);
    let other = other as usize;
    let (ready, destroyed) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut at = 0;
            // SAFETY: driver API calls with valid pointers.
            unsafe {
                // A new thread has no current context, whatever the main thread's is.
                assert!(api.current().is_null());
                assert_eq!(
                    (api.cuMemAlloc_v2)(&mut at, 64),
                    E::CUDA_ERROR_INVALID_CONTEXT
                );
                let other: Ptr = std::ptr::without_provenance_mut(other);
                assert_eq!((api.cuCtxPushCurrent_v2)(other), E::CUDA_SUCCESS);
                assert_eq!((api.cuMemAlloc_v2)(&mut at, 64), E::CUDA_SUCCESS);
                ready.wait();
                // Destroyed by the main thread while current here.
                destroyed.wait();
                assert_eq!(
                    (api.cuMemAlloc_v2)(&mut at, 64),
                    E::CUDA_ERROR_CONTEXT_IS_DESTROYED
                );
            }
        });
        ready.wait();
        assert_eq!(api.current(), primary, "the other thread's push is its own");
        let other: Ptr = std::ptr::without_provenance_mut(other);
        // SAFETY: a driver API call.
        assert_eq!(unsafe { (api.cuCtxDestroy_v2)(other) }, E::CUDA_SUCCESS);
        destroyed.wait();
    });
    assert_eq!(api.current(), primary);
    api.alloc(64);
}
