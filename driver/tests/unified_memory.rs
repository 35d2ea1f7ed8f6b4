//! Managed and mapped host memory through the C ABI, on a driver of their own and a PTX kernel
//! (no nvcc needed): the host writes, the kernel doubles, the host reads back with no copy; what
//! NVIDIA's driver refuses (advice on memory that is not managed, flags it does not know) refused.

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::cudaError_enum as E;
use std::ffi::{c_uint, c_void};

const TWICE: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 a, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r3, [%rd2];
    shl.b32 %r4, %r3, 1;
    st.global.u32 [%rd2], %r4;
DONE:
    ret;
}
\0";

type Ptr = *mut c_void;
type Launch =
    unsafe extern "C" fn(Ptr, u32, u32, u32, u32, u32, u32, u32, Ptr, *mut Ptr, *mut Ptr) -> E;

/// Loads `twice` and returns a launcher of it over `n` ints at `at`.
fn twice(library: &Loaded) -> impl Fn(u64, u32) -> E + '_ {
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let load: unsafe extern "C" fn(*mut Ptr, *const c_void) -> E =
            library.get("cuModuleLoadData");
        let get: unsafe extern "C" fn(*mut Ptr, Ptr, *const std::ffi::c_char) -> E =
            library.get("cuModuleGetFunction");
        let (mut module, mut function) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(load(&mut module, TWICE.as_ptr().cast()), E::CUDA_SUCCESS);
        assert_eq!(
            get(&mut function, module, c"twice".as_ptr()),
            E::CUDA_SUCCESS
        );
        let launch: Launch = library.get("cuLaunchKernel");
        move |mut at: u64, mut n: u32| {
            let mut params = [(&raw mut at).cast(), (&raw mut n).cast()];
            let (null, no_extra) = (std::ptr::null_mut(), std::ptr::null_mut());
            launch(
                function,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                null,
                params.as_mut_ptr(),
                no_extra,
            )
        }
    }
}

#[test]
fn managed_memory_is_doubled_in_place_and_advice_needs_managed_memory() {
    let library = Loaded::with_context();
    let run = twice(&library);
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let alloc: unsafe extern "C" fn(*mut u64, usize, c_uint) -> E =
            library.get("cuMemAllocManaged");
        let alloc_device: unsafe extern "C" fn(*mut u64, usize) -> E = library.get("cuMemAlloc_v2");
        let free: unsafe extern "C" fn(u64) -> E = library.get("cuMemFree_v2");
        let advise: unsafe extern "C" fn(u64, usize, i32, i32) -> E = library.get("cuMemAdvise");
        let prefetch: unsafe extern "C" fn(u64, usize, i32, Ptr) -> E =
            library.get("cuMemPrefetchAsync");
        let (mut managed, mut device) = (0u64, 0u64);
        assert_eq!(alloc(&mut managed, 40, 4), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(alloc(&mut managed, 40, 1), E::CUDA_SUCCESS);
        let synchronize: unsafe extern "C" fn() -> E = library.get("cuCtxSynchronize");
        let host = std::slice::from_raw_parts_mut(managed as *mut u32, 10);
        host.iter_mut().zip(0..).for_each(|(x, i)| *x = i);
        assert_eq!(run(managed, 10), E::CUDA_SUCCESS);
        assert_eq!(synchronize(), E::CUDA_SUCCESS);
        assert_eq!(host, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
        // Advice and prefetches: on managed memory only, and within it.
        assert_eq!(advise(managed, 40, 3, 0), E::CUDA_SUCCESS);
        assert_eq!(advise(managed, 41, 3, 0), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            prefetch(managed, 40, -1, std::ptr::null_mut()),
            E::CUDA_SUCCESS
        );
        assert_eq!(alloc_device(&mut device, 40), E::CUDA_SUCCESS);
        assert_eq!(advise(device, 40, 3, 0), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            prefetch(device, 40, 0, std::ptr::null_mut()),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(free(managed), E::CUDA_SUCCESS);
        assert_eq!(free(device), E::CUDA_SUCCESS);
    }
}

#[test]
fn mapped_page_locked_memory_is_doubled_through_its_device_pointer() {
    let library = Loaded::with_context();
    let run = twice(&library);
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let host_alloc: unsafe extern "C" fn(*mut Ptr, usize, c_uint) -> E =
            library.get("cuMemHostAlloc");
        let device_pointer: unsafe extern "C" fn(*mut u64, Ptr, c_uint) -> E =
            library.get("cuMemHostGetDevicePointer_v2");
        let free_host: unsafe extern "C" fn(Ptr) -> E = library.get("cuMemFreeHost");
        let mut host = std::ptr::null_mut();
        assert_eq!(host_alloc(&mut host, 16, 2), E::CUDA_SUCCESS);
        let ints = std::slice::from_raw_parts_mut(host.cast::<u32>(), 4);
        ints.copy_from_slice(&[1, 2, 3, 4]);
        let mut device = 0u64;
        assert_eq!(
            device_pointer(&mut device, host, 1),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(device_pointer(&mut device, host, 0), E::CUDA_SUCCESS);
        assert_eq!(device, host as u64);
        assert_eq!(run(device, 4), E::CUDA_SUCCESS);
        assert_eq!(ints, [2, 4, 6, 8]);
        // Memory the driver never page-locked has no device pointer.
        let mut plain = [0u32; 4];
        let not_pinned = plain.as_mut_ptr().cast();
        assert_eq!(
            device_pointer(&mut device, not_pinned, 0),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(free_host(host), E::CUDA_SUCCESS);
    }
}

#[test]
fn a_managed_block_is_attached_to_a_stream_whole_with_one_flag_as_nvidias_driver_asks() {
    let library = Loaded::with_context();
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let alloc: unsafe extern "C" fn(*mut u64, usize, c_uint) -> E =
            library.get("cuMemAllocManaged");
        let alloc_device: unsafe extern "C" fn(*mut u64, usize) -> E = library.get("cuMemAlloc_v2");
        let create: unsafe extern "C" fn(*mut Ptr, c_uint) -> E = library.get("cuStreamCreate");
        let attach: unsafe extern "C" fn(Ptr, u64, usize, c_uint) -> E =
            library.get("cuStreamAttachMemAsync");
        let (mut managed, mut device, mut stream) = (0u64, 0u64, std::ptr::null_mut());
        assert_eq!(alloc(&mut managed, 400, 1), E::CUDA_SUCCESS);
        assert_eq!(alloc_device(&mut device, 400), E::CUDA_SUCCESS);
        assert_eq!(create(&mut stream, 0), E::CUDA_SUCCESS);
        // CU_MEM_ATTACH_SINGLE (4), HOST (2) and GLOBAL (1), the whole block by length 0 or its size.
        assert_eq!(attach(stream, managed, 0, 4), E::CUDA_SUCCESS);
        assert_eq!(attach(stream, managed, 400, 2), E::CUDA_SUCCESS);
        assert_eq!(attach(std::ptr::null_mut(), managed, 0, 1), E::CUDA_SUCCESS);
        // Part of a block, an unknown flag, single attachment to the default stream, device memory.
        let refused = E::CUDA_ERROR_INVALID_VALUE;
        assert_eq!(attach(stream, managed, 200, 4), refused);
        assert_eq!(attach(stream, managed, 0, 3), refused);
        assert_eq!(attach(std::ptr::null_mut(), managed, 0, 4), refused);
        assert_eq!(attach(stream, device, 0, 1), refused);
    }
}

#[test]
fn the_host_reads_a_kernels_managed_results_only_once_it_has_waited_for_the_kernel() {
    let library = Loaded::with_context();
    let run = twice(&library);
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let alloc: unsafe extern "C" fn(*mut u64, usize, c_uint) -> E =
            library.get("cuMemAllocManaged");
        let synchronize: unsafe extern "C" fn() -> E = library.get("cuCtxSynchronize");
        let in_flight: unsafe extern "C" fn(*const c_void, usize) -> usize =
            library.get("simcudaBytesInFlight");
        let mut managed = 0u64;
        assert_eq!(alloc(&mut managed, 16, 1), E::CUDA_SUCCESS);
        let host = std::slice::from_raw_parts_mut(managed as *mut u32, 4);
        host.copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(run(managed, 4), E::CUDA_SUCCESS);
        // As on a GPU still running the kernel: its results are not the host's yet.
        assert_eq!(host, [1, 2, 3, 4]);
        assert_eq!(in_flight(managed as *const c_void, 16), 16);
        // A second launch works on the first one's results, not the host's stale copy.
        assert_eq!(run(managed, 4), E::CUDA_SUCCESS);
        assert_eq!(synchronize(), E::CUDA_SUCCESS);
        assert_eq!(host, [4, 8, 12, 16]);
        assert_eq!(in_flight(managed as *const c_void, 16), 0);
    }
}

/// Each of 64 threads adds 10 to a managed int with a system-scope atomic, as
/// `atomicAdd_system` compiles (cuda-samples' systemWideAtomics).
const ADD_SYSTEM: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry add_system(.param .u64 a)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
    atom.global.sys.add.u32 %r1, [%rd2], 10;
    ret;
}
\0";

#[test]
fn system_scope_atomics_and_the_hosts_add_up_in_managed_memory() {
    // On a GPU the host's atomics and a kernel's system-scope atomics meet in one memory while
    // the kernel runs: the total is both. The host's adds must not be overwritten by the
    // device's copy when the program waits (systemWideAtomics got only the kernel's half).
    let library = Loaded::with_context();
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let load: unsafe extern "C" fn(*mut Ptr, *const c_void) -> E =
            library.get("cuModuleLoadData");
        let get: unsafe extern "C" fn(*mut Ptr, Ptr, *const std::ffi::c_char) -> E =
            library.get("cuModuleGetFunction");
        let launch: Launch = library.get("cuLaunchKernel");
        let alloc: unsafe extern "C" fn(*mut u64, usize, c_uint) -> E =
            library.get("cuMemAllocManaged");
        let synchronize: unsafe extern "C" fn() -> E = library.get("cuCtxSynchronize");
        let (mut module, mut function, mut managed) =
            (std::ptr::null_mut(), std::ptr::null_mut(), 0u64);
        assert_eq!(
            load(&mut module, ADD_SYSTEM.as_ptr().cast()),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            get(&mut function, module, c"add_system".as_ptr()),
            E::CUDA_SUCCESS
        );
        assert_eq!(alloc(&mut managed, 4, 1), E::CUDA_SUCCESS);
        let counter = &*(managed as *const std::sync::atomic::AtomicU32);
        counter.store(0, std::sync::atomic::Ordering::SeqCst);
        let mut params = [(&raw mut managed).cast()];
        let (null, no_extra) = (std::ptr::null_mut(), std::ptr::null_mut());
        let launched = launch(
            function,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            null,
            params.as_mut_ptr(),
            no_extra,
        );
        assert_eq!(launched, E::CUDA_SUCCESS);
        for _ in 0..64 {
            counter.fetch_add(10, std::sync::atomic::Ordering::SeqCst);
        }
        assert_eq!(synchronize(), E::CUDA_SUCCESS);
        assert_eq!(
            counter.load(std::sync::atomic::Ordering::SeqCst),
            2 * 64 * 10
        );
    }
}
