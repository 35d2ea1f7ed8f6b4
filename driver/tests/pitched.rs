//! Pitched allocations and 2D copies through the C ABI, on a driver of their own: what NVIDIA's
//! driver refuses is refused before anything is copied.

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::{cudaError_enum as E, CUmemorytype as M, CUDA_MEMCPY2D};
#[test]
fn a_bad_element_size_or_a_row_past_the_allocation_is_refused_and_nothing_is_copied() {
    let library = Loaded::with_context();
    // SAFETY: the driver API's signatures; valid pointers throughout.
    unsafe {
        let alloc_pitch: unsafe extern "C" fn(*mut u64, *mut usize, usize, usize, u32) -> E =
            library.get("cuMemAllocPitch_v2");
        let copy_2d: unsafe extern "C" fn(*const CUDA_MEMCPY2D) -> E = library.get("cuMemcpy2D_v2");
        let (mut start, mut pitch) = (0u64, 0usize);
        assert_eq!(
            alloc_pitch(&mut start, &mut pitch, 100, 4, 3),
            E::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            alloc_pitch(&mut start, &mut pitch, 100, 4, 4),
            E::CUDA_SUCCESS
        );
        assert_eq!(pitch, 512);
        // Five rows out of an allocation of four: refused, and the host rows left alone.
        let mut host = vec![7u8; 5 * 100];
        let mut copy = CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: M::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: start,
            srcArray: std::ptr::null_mut(),
            srcPitch: pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: M::CU_MEMORYTYPE_HOST,
            dstHost: host.as_mut_ptr().cast(),
            dstDevice: 0,
            dstArray: std::ptr::null_mut(),
            dstPitch: 100,
            WidthInBytes: 100,
            Height: 5,
        };
        assert_eq!(copy_2d(&copy), E::CUDA_ERROR_INVALID_VALUE);
        assert!(host.iter().all(|&b| b == 7));
        // A row wider than its pitch: refused.
        copy.Height = 4;
        copy.dstPitch = 50;
        assert_eq!(copy_2d(&copy), E::CUDA_ERROR_INVALID_VALUE);
        copy.dstPitch = 100;
        assert_eq!(copy_2d(&copy), E::CUDA_SUCCESS);
    }
}
