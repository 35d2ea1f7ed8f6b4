//! The entry points called directly, in one sequence (the driver's state is the process's).

use crate::context::*;
use crate::device::*;
use crate::error_calls::*;
use crate::memory::*;
use crate::state::with_driver;
use crate::stream::*;
use cudarc::driver::sys::{cudaError_enum as E, CUcontext, CUstream};
use std::ffi::{c_void, CStr};

#[test]
fn the_driver_answers_as_nvidias_does_and_records_what_copies_cost() {
    // Before cuInit, as the real driver: not initialised.
    let mut count = 0;
    // SAFETY: a valid pointer.
    assert_eq!(
        unsafe { cuDeviceGetCount(&mut count) },
        E::CUDA_ERROR_NOT_INITIALIZED
    );
    assert_eq!(cuInit(0), E::CUDA_SUCCESS);
    // SAFETY: valid pointers throughout.
    unsafe {
        assert_eq!(cuDeviceGetCount(&mut count), E::CUDA_SUCCESS);
        assert_eq!(count, 1);
        let mut name = std::ptr::null();
        assert_eq!(
            cuGetErrorName(E::CUDA_ERROR_ILLEGAL_ADDRESS as u32, &mut name),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            CStr::from_ptr(name).to_str(),
            Ok("CUDA_ERROR_ILLEGAL_ADDRESS")
        );
        // No context yet: memory calls fail.
        let mut dptr = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut dptr, 64), E::CUDA_ERROR_INVALID_CONTEXT);
        let mut ctx: CUcontext = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), E::CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), E::CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut dptr, 1 << 20), E::CUDA_SUCCESS);

        // A copy from pinned memory on a stream leaves the host free; from pageable memory the
        // host waits for it (it stages the data), and pinned copies are faster.
        let mut stream: CUstream = std::ptr::null_mut();
        assert_eq!(cuStreamCreate(&mut stream, 0), E::CUDA_SUCCESS);

        // Events created without timing (CU_EVENT_DISABLE_TIMING, cudarc's default) give no
        // elapsed time, as on a GPU; timing events do.
        let mut events = [std::ptr::null_mut(); 4];
        for (event, flags) in events.iter_mut().zip([2, 2, 0, 0]) {
            assert_eq!(cuEventCreate(event, flags), E::CUDA_SUCCESS);
            assert_eq!(cuEventRecord(*event, stream), E::CUDA_SUCCESS);
        }
        let mut ms = 0f32;
        assert_eq!(
            cuEventElapsedTime_v2(&mut ms, events[0], events[1]),
            E::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuEventElapsedTime_v2(&mut ms, events[2], events[3]),
            E::CUDA_SUCCESS
        );
        let mut pinned: *mut c_void = std::ptr::null_mut();
        assert_eq!(cuMemAllocHost_v2(&mut pinned, 1 << 20), E::CUDA_SUCCESS);
        let pageable = vec![7u8; 1 << 20];
        assert_eq!(
            cuMemcpyHtoDAsync_v2(dptr, pinned, 1 << 20, stream),
            E::CUDA_SUCCESS
        );
        let host_after_pinned = with_driver(|d| d.record.host_us);
        // A memset on a stream touches no host memory: it leaves the host free too, and runs
        // at the device's memory rate, not the bus's.
        assert_eq!(cuMemsetD8Async(dptr, 0, 1 << 20, stream), E::CUDA_SUCCESS);
        let (host_after_memset, memset_us) = with_driver(|d| {
            let t = d.record.transfers.last().unwrap();
            (d.record.host_us, t.end_us - t.start_us)
        });
        assert_eq!(host_after_memset, 0.0);
        assert!(memset_us < 5.0, "a 1 MiB memset modelled at {memset_us} µs");
        with_driver(|d| d.record.transfers.pop());
        assert_eq!(
            cuMemcpyHtoDAsync_v2(dptr, pageable.as_ptr().cast(), 1 << 20, stream),
            E::CUDA_SUCCESS
        );
        let host_after_pageable = with_driver(|d| d.record.host_us);
        assert_eq!(host_after_pinned, 0.0);
        assert!(host_after_pageable > 0.0);
        let (pinned_us, pageable_us) = with_driver(|d| {
            let t = &d.record.transfers;
            (t[0].end_us - t[0].start_us, t[1].end_us - t[1].start_us)
        });
        assert!(pinned_us < pageable_us);
        // The data arrived.
        let mut back = vec![0u8; 16];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), dptr, 16),
            E::CUDA_SUCCESS
        );
        assert_eq!(back, [7u8; 16]);

        // A copy back to page-locked memory on a stream lands when the program waits for it,
        // not before: read early, the memory still holds what it held.
        let host = pinned.cast::<u8>();
        // `pinned` is 1 MiB of page-locked memory of this driver's (inside this test's unsafe).
        std::ptr::write_bytes(host, 0, 16);
        assert_eq!(
            cuMemcpyDtoHAsync_v2(pinned, dptr, 16, stream),
            E::CUDA_SUCCESS
        );
        let early = std::slice::from_raw_parts(host, 16).to_vec();
        assert_eq!(early, [0u8; 16]);
        assert_eq!(crate::in_flight::simcudaBytesInFlight(pinned, 16), 16);
        assert_eq!(cuStreamSynchronize(stream), E::CUDA_SUCCESS);
        assert_eq!(std::slice::from_raw_parts(host, 16), [7u8; 16]);
        assert_eq!(crate::in_flight::simcudaBytesInFlight(pinned, 16), 0);

        // Unified addressing: cuMemcpy finds each side by where it lies.
        let mut unified_back = vec![0u8; 16];
        let host_address = unified_back.as_mut_ptr() as u64;
        assert_eq!(
            crate::memory::cuMemcpy(host_address, dptr, 16),
            E::CUDA_SUCCESS
        );
        assert_eq!(unified_back, [7u8; 16]);
        let directions = with_driver(|d| d.record.transfers.last().map(|t| t.direction));
        assert_eq!(directions, Some(crate::record::Direction::DeviceToHost));

        // What the driver knows about a pointer, as NVIDIA's answers (pointers.rs): the block
        // that holds it, its memory type; an address in no block is not found.
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(
            crate::pointers::cuMemGetAddressRange_v2(&mut base, &mut size, dptr + 500),
            E::CUDA_SUCCESS
        );
        assert_eq!((base, size), (dptr, 1 << 20));
        let mut memory_type = 0u32;
        let host_type = crate::pointers::cuPointerGetAttribute(
            (&mut memory_type as *mut u32).cast(),
            2,
            pinned as u64 + 8,
        );
        assert_eq!((host_type, memory_type), (E::CUDA_SUCCESS, 1));
        assert_eq!(
            crate::pointers::cuMemGetAddressRange_v2(&mut base, &mut size, host_address),
            E::CUDA_ERROR_NOT_FOUND
        );

        // Zero bytes: success whatever the pointers, null ones included, as NVIDIA's driver
        // answers (scripts/gpu/driver-answers/zero_bytes.sh).
        assert_eq!(cuMemcpyHtoD_v2(0, std::ptr::null(), 0), E::CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyDtoHAsync_v2(std::ptr::null_mut(), 0, 0, stream),
            E::CUDA_SUCCESS
        );
        assert_eq!(crate::memory::cuMemcpy(0, 0, 0), E::CUDA_SUCCESS);
        assert_eq!(cuMemsetD8_v2(0, 0, 0), E::CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(0, pinned, 1), E::CUDA_ERROR_INVALID_VALUE);

        // An entry point this driver lacks names itself and fails.
        let mut array = std::ptr::null_mut();
        // A writable handle and a null descriptor, never read on the simulator.
        let created = crate::not_supported::cuArrayCreate_v2(&mut array, std::ptr::null());
        assert_eq!(created, E::CUDA_ERROR_NOT_SUPPORTED);
        assert!(with_driver(|d| d
            .record
            .not_supported
            .contains(&"cuArrayCreate_v2".to_string())));

        // Occupancy from the H100 model, and context limits read back as set.
        let ptx = concat!(
            include_str!("../../sim/tests/fixtures/vector_add.ptx"),
            "\0"
        );
        let mut module = std::ptr::null_mut();
        assert_eq!(
            crate::module::cuModuleLoadData(&mut module, ptx.as_ptr().cast()),
            E::CUDA_SUCCESS
        );
        let mut function = std::ptr::null_mut();
        let name = c"vector_add";
        assert_eq!(
            crate::module::cuModuleGetFunction(&mut function, module, name.as_ptr()),
            E::CUDA_SUCCESS
        );
        let mut blocks = 0;
        let occupancy = crate::occupancy::cuOccupancyMaxActiveBlocksPerMultiprocessor;
        assert_eq!(occupancy(&mut blocks, function, 256, 0), E::CUDA_SUCCESS);
        // A cache preference and the profiler's range are accepted, as by a GPU with no
        // profiler attached (numba-cuda's cache_config, cuda-samples' profiler ranges).
        assert_eq!(
            crate::library::cuKernelSetCacheConfig(function, 1, 0),
            E::CUDA_SUCCESS
        );
        assert_eq!(
            crate::library::cuKernelSetCacheConfig(function, 1, 1),
            E::CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(crate::profiler::cuProfilerStart(), E::CUDA_SUCCESS);
        assert_eq!(crate::profiler::cuProfilerStop(), E::CUDA_SUCCESS);
        assert_eq!(blocks, 8, "2048 threads per SM");
        assert_eq!(
            occupancy(&mut blocks, function, 256, 100 * 1024),
            E::CUDA_SUCCESS
        );
        assert_eq!(blocks, 2, "228 KiB of shared memory per SM");
        let (mut grid, mut block) = (0, 0);
        let potential = crate::occupancy::cuOccupancyMaxPotentialBlockSize;
        assert_eq!(
            potential(&mut grid, &mut block, function, None, 0, 0),
            E::CUDA_SUCCESS
        );
        assert_eq!((grid, block), (2 * 132, 1024));
        let mut printf_buffer = 0usize;
        let limits = crate::occupancy::cuCtxGetLimit;
        assert_eq!(limits(&mut printf_buffer, 1), E::CUDA_SUCCESS);
        assert_eq!(printf_buffer, 1 << 20);
        assert_eq!(crate::occupancy::cuCtxSetLimit(1, 4 << 20), E::CUDA_SUCCESS);
        assert_eq!(limits(&mut printf_buffer, 1), E::CUDA_SUCCESS);
        assert_eq!(printf_buffer, 4 << 20);
        assert_eq!(
            limits(&mut printf_buffer, 99),
            E::CUDA_ERROR_UNSUPPORTED_LIMIT
        );

        // A launch whose parameters come packed in one buffer (`extra`), as some programs pass
        // them: three pointers and an int, each at its alignment.
        let n = 40usize;
        let (mut a, mut b, mut c) = (0u64, 0u64, 0u64);
        for (ptr, fill) in [(&mut a, 1.5f32), (&mut b, 2.0), (&mut c, 0.0)] {
            assert_eq!(cuMemAlloc_v2(ptr, 4 * n), E::CUDA_SUCCESS);
            let host = vec![fill; n];
            assert_eq!(
                cuMemcpyHtoD_v2(*ptr, host.as_ptr().cast(), 4 * n),
                E::CUDA_SUCCESS
            );
        }
        let mut packed = Vec::new();
        for ptr in [a, b, c] {
            packed.extend_from_slice(&ptr.to_le_bytes());
        }
        packed.extend_from_slice(&(n as i32).to_le_bytes());
        let mut size = packed.len();
        let mut extra = [
            std::ptr::without_provenance_mut(1), // CU_LAUNCH_PARAM_BUFFER_POINTER
            packed.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(2), // CU_LAUNCH_PARAM_BUFFER_SIZE
            (&mut size as *mut usize).cast(),
            std::ptr::null_mut(),
        ];
        let launched = crate::launch::cuLaunchKernel(
            function,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        );
        assert_eq!(launched, E::CUDA_SUCCESS);
        let mut sums = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(sums.as_mut_ptr().cast(), c, 4 * n),
            E::CUDA_SUCCESS
        );
        assert!(sums.iter().all(|&s| s == 3.5), "{sums:?}");

        // Work on two streams overlaps on the timeline (a copy engine and the compute engine);
        // the legacy default stream waits for both (they are blocking streams).
        let (mut s1, mut s2): (CUstream, CUstream) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(cuStreamCreate(&mut s1, 0), E::CUDA_SUCCESS);
        assert_eq!(cuStreamCreate(&mut s2, 0), E::CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), E::CUDA_SUCCESS);
        let big = 8 << 20;
        let (mut device_big, mut host_big) = (0u64, std::ptr::null_mut());
        assert_eq!(cuMemAlloc_v2(&mut device_big, big), E::CUDA_SUCCESS);
        assert_eq!(cuMemAllocHost_v2(&mut host_big, big), E::CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyHtoDAsync_v2(device_big, host_big, big, s1),
            E::CUDA_SUCCESS
        );
        let n_arg = n as i32;
        let mut args: [*mut c_void; 4] = [
            (&a as *const u64).cast_mut().cast(),
            (&b as *const u64).cast_mut().cast(),
            (&c as *const u64).cast_mut().cast(),
            (&n_arg as *const i32).cast_mut().cast(),
        ];
        let launched = crate::launch::cuLaunchKernel(
            function,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            s2,
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        );
        assert_eq!(launched, E::CUDA_SUCCESS);
        assert_eq!(cuMemsetD8_v2(device_big, 0, 16), E::CUDA_SUCCESS);
        let (copy, kernel, memset) = with_driver(|d| {
            let t = &d.record.transfers;
            let copy = (t[t.len() - 2].start_us, t[t.len() - 2].end_us);
            let memset = (t[t.len() - 1].start_us, t[t.len() - 1].end_us);
            let l = d.record.launches.last().unwrap();
            (copy, (l.start_us, l.end_us), memset)
        });
        assert!(
            kernel.0 < copy.1 && copy.0 <= kernel.0,
            "{copy:?} {kernel:?}"
        );
        assert!(memset.0 >= copy.1.max(kernel.1), "{memset:?}");

        assert_eq!(cuMemFreeHost(pinned), E::CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dptr), E::CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dptr), E::CUDA_ERROR_INVALID_VALUE);

        bound_by_is_recorded_from_the_model(function);
    }
}

/// A launch's modelled time says what bounds it: a vector add over 12 MB is DRAM-bound, one
/// warp's long chain of dependent FMAs is issue-bound.
/// `vector_add` is the fixture's kernel, loaded in the current context.
fn bound_by_is_recorded_from_the_model(vector_add: cudarc::driver::sys::CUfunction) {
    // SAFETY: valid pointers throughout; each launch's arguments match its kernel's parameters.
    unsafe {
        let bound_by = || with_driver(|d| d.record.launches.last().and_then(|l| l.bound_by));
        let n = 1usize << 20;
        let mut buffers = [0u64; 3];
        for buffer in &mut buffers {
            assert_eq!(cuMemAlloc_v2(buffer, 4 * n), E::CUDA_SUCCESS);
        }
        let n_arg = n as i32;
        let mut args: [*mut c_void; 4] = [
            (&buffers[0] as *const u64).cast_mut().cast(),
            (&buffers[1] as *const u64).cast_mut().cast(),
            (&buffers[2] as *const u64).cast_mut().cast(),
            (&n_arg as *const i32).cast_mut().cast(),
        ];
        let (stream, extra) = (std::ptr::null_mut(), std::ptr::null_mut());
        let launch = crate::launch::cuLaunchKernel;
        let launched = launch(
            vector_add,
            4096,
            1,
            1,
            256,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            extra,
        );
        assert_eq!(launched, E::CUDA_SUCCESS);
        assert_eq!(bound_by(), Some(sim::Resource::Dram));

        let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
                   .visible .entry spin(.param .u64 out, .param .u32 trips) {\n\
                   .reg .pred %p; .reg .f32 %f<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n\
                   mov.f32 %f1, 0f3F800000; ld.param.u32 %r1, [trips]; mov.u32 %r2, 0;\n\
                   LOOP: fma.rn.f32 %f1, %f1, 0f3F7FFFFF, 0f3F800000; add.u32 %r2, %r2, 1;\n\
                   setp.lt.u32 %p, %r2, %r1; @%p bra LOOP;\n\
                   ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1;\n\
                   mov.u32 %r3, %tid.x; mul.wide.u32 %rd3, %r3, 4; add.s64 %rd2, %rd2, %rd3;\n\
                   st.global.f32 [%rd2], %f1; ret; }\n\0";
        let mut module = std::ptr::null_mut();
        assert_eq!(
            crate::module::cuModuleLoadData(&mut module, ptx.as_ptr().cast()),
            E::CUDA_SUCCESS
        );
        let mut spin = std::ptr::null_mut();
        assert_eq!(
            crate::module::cuModuleGetFunction(&mut spin, module, c"spin".as_ptr()),
            E::CUDA_SUCCESS
        );
        let trips = 3000u32;
        let mut args: [*mut c_void; 2] = [
            (&buffers[0] as *const u64).cast_mut().cast(),
            (&trips as *const u32).cast_mut().cast(),
        ];
        let launched = launch(spin, 1, 1, 1, 32, 1, 1, 0, stream, args.as_mut_ptr(), extra);
        assert_eq!(launched, E::CUDA_SUCCESS);
        assert_eq!(bound_by(), Some(sim::Resource::Issue));
        for buffer in buffers {
            assert_eq!(cuMemFree_v2(buffer), E::CUDA_SUCCESS);
        }
    }
}
