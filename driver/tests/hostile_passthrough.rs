//! Hostile calls in pass-through mode: the copy in front records what the program did and
//! forwards each call to the "real" driver (a second copy of the library, which simulates), so
//! an answer is the real driver's, and the recording around it must survive any argument.
//! (One test in this file: it sets the process's environment before the driver first reads it.)

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::cudaError_enum as E;
use std::ffi::c_void;

type Init = unsafe extern "C" fn(u32) -> E;
type Retain = unsafe extern "C" fn(*mut *mut c_void, i32) -> E;
type SetCurrent = unsafe extern "C" fn(*mut c_void) -> E;
type Alloc = unsafe extern "C" fn(*mut u64, usize) -> E;
type MemsetD16 = unsafe extern "C" fn(u64, u16, usize) -> E;
type MemsetD32 = unsafe extern "C" fn(u64, u32, usize) -> E;
type MemsetD32Async = unsafe extern "C" fn(u64, u32, usize, *mut c_void) -> E;

#[test]
fn a_memset_count_whose_bytes_overflow_is_forwarded_and_answered_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("libcuda.so.1");
    std::fs::copy(common::driver_library(), &real).unwrap();
    // The only test of this process, before any driver call: nothing else reads these.
    std::env::set_var("SIMCUDA_BACKEND", "gpu");
    std::env::set_var("SIMCUDA_REAL_LIBCUDA", &real);
    let front = Loaded::fresh();
    // SAFETY: each type is the entry point's signature in the driver API, and the calls pass
    // valid pointers.
    unsafe {
        let init: Init = front.get("cuInit");
        let retain: Retain = front.get("cuDevicePrimaryCtxRetain");
        let set_current: SetCurrent = front.get("cuCtxSetCurrent");
        let alloc: Alloc = front.get("cuMemAlloc_v2");
        let memset16: MemsetD16 = front.get("cuMemsetD16_v2");
        let memset32: MemsetD32 = front.get("cuMemsetD32_v2");
        let memset32_async: MemsetD32Async = front.get("cuMemsetD32Async");
        assert_eq!(init(0), E::CUDA_SUCCESS);
        let (mut ctx, mut at) = (std::ptr::null_mut(), 0);
        assert_eq!(retain(&mut ctx, 0), E::CUDA_SUCCESS);
        assert_eq!(set_current(ctx), E::CUDA_SUCCESS);
        assert_eq!(alloc(&mut at, 64), E::CUDA_SUCCESS);
        let stream = std::ptr::null_mut();
        assert_eq!(memset32(at, 0, usize::MAX), E::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            memset16(at, 0, usize::MAX / 2 + 1),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            memset32_async(at, 0, usize::MAX / 4 + 1, stream),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(memset32(at, 7, 16), E::CUDA_SUCCESS);
    }
}
