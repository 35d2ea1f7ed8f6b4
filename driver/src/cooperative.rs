//! Cooperative launches (`cuLaunchCooperativeKernel`, `cuLaunchKernelEx` with the cooperative
//! attribute, both in `launch`): refused with `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` when the grid has more
//! blocks than fit on the GPU at once, by the occupancy the driver answers (8 blocks of 256
//! threads per SM x 132 SMs = 1056, as an H100 measured in the book), and launched otherwise.
//!
//! A grid-wide barrier (`grid.sync()`) does not run yet: nvcc compiles it to a read of the
//! driver's workspace pointer (`%envreg1`, `%envreg2`) and a spin on an atomic counter, which
//! needs every block of the grid running at once in the simulator.

use crate::module::function_of;
use crate::state::{call, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUfunction, CUlaunchConfig, CUresult};
use std::ffi::c_uint;

/// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`.
const COOPERATIVE: u32 = 2;

/// Refuses a grid of `grid` blocks of `block` threads that does not fit on the GPU at once.
fn fits(grid: [c_uint; 3], block: [c_uint; 3], shared: c_uint) -> Result {
    let threads = block.iter().map(|&n| u64::from(n)).product::<u64>();
    let blocks = grid.iter().map(|&n| u64::from(n)).product::<u64>();
    let per_sm =
        crate::occupancy::blocks_per_sm(threads.min(i32::MAX as u64) as i32, shared as usize);
    let at_once = per_sm as u64 * crate::occupancy::SMS as u64;
    if blocks > at_once {
        return Err(E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
    Ok(())
}

/// Whether a launch configuration asks for a cooperative launch.
///
/// # Safety
/// `config.attrs` holds `config.numAttrs` launch attributes (or none).
pub(crate) unsafe fn asked(config: &CUlaunchConfig) -> bool {
    if config.attrs.is_null() {
        return false;
    }
    (0..config.numAttrs as usize).any(|i| {
        // SAFETY: within the attributes, by the caller's contract; the id is read as a plain
        // integer (a value outside the enumeration is no UB here), the value as its first int.
        unsafe {
            let attribute = config.attrs.add(i);
            let id = attribute.cast::<u32>().read();
            let value = std::ptr::addr_of!((*attribute).value).cast::<i32>().read();
            id == COOPERATIVE && value != 0
        }
    })
}

/// The check a cooperative launch makes before it runs: the function, then the grid's size.
pub(crate) fn check(
    name: &'static str,
    function: CUfunction,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
) -> CUresult {
    call(name, |d| {
        d.require_context()?;
        function_of(d, function)?;
        fits(grid, block, shared)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cooperative_grid_fits_up_to_1056_blocks_of_256_threads_as_on_an_h100() {
        assert_eq!(fits([1056, 1, 1], [256, 1, 1], 0), Ok(()));
        assert_eq!(fits([33, 32, 1], [16, 16, 1], 0), Ok(()));
        assert_eq!(
            fits([1057, 1, 1], [256, 1, 1], 0),
            Err(E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
        );
        // 100 KiB of shared memory a block: two fit on an SM.
        assert_eq!(fits([264, 1, 1], [64, 1, 1], 100 << 10), Ok(()));
        assert_eq!(
            fits([265, 1, 1], [64, 1, 1], 100 << 10),
            Err(E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
        );
    }
}
