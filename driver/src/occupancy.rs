//! Occupancy queries and context limits, answered from the H100 model: 2048 threads, 32 blocks
//! and 228 KiB of shared memory per SM (1 KiB of it kept per block), 132 SMs. Registers are not
//! counted (the simulator's estimate lives in its time model, not here): kernels with many
//! registers per thread fit fewer blocks on a GPU than these answers say.

use crate::module::function_of;
use crate::state::{call, put, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUfunction, CUoccupancyB2DSize, CUresult};
use std::ffi::{c_int, c_uint};

const THREADS_PER_SM: c_int = 2048;
const BLOCKS_PER_SM: c_int = 32;
const SHARED_PER_SM: usize = 228 * 1024;
const SHARED_KEPT_PER_BLOCK: usize = 1024;
pub(crate) const SMS: c_int = 132;

/// Blocks of `block_size` threads using `shared` bytes of dynamic shared memory that fit on an
/// SM at once.
pub(crate) fn blocks_per_sm(block_size: c_int, shared: usize) -> c_int {
    if block_size <= 0 || block_size > 1024 {
        return 0;
    }
    let by_threads = THREADS_PER_SM / ((block_size + 31) / 32 * 32);
    let by_shared = (SHARED_PER_SM / (shared + SHARED_KEPT_PER_BLOCK)) as c_int;
    BLOCKS_PER_SM.min(by_threads).min(by_shared)
}

fn active_blocks(
    d: &Driver,
    function: CUfunction,
    block_size: c_int,
    shared: usize,
) -> Result<c_int> {
    function_of(d, function)?;
    if block_size <= 0 {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    Ok(blocks_per_sm(block_size, shared))
}

/// # Safety
/// `blocks` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    function: CUfunction,
    block_size: c_int,
    shared: usize,
) -> CUresult {
    pass_through!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks, function, block_size, shared
    ));
    call("cuOccupancyMaxActiveBlocksPerMultiprocessor", |d| {
        let n = active_blocks(d, function, block_size, shared)?;
        // SAFETY: the caller's contract.
        unsafe { put(blocks, n) }
    })
}

/// # Safety
/// As [`cuOccupancyMaxActiveBlocksPerMultiprocessor`].
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    function: CUfunction,
    block_size: c_int,
    shared: usize,
    _flags: c_uint,
) -> CUresult {
    pass_through!(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        blocks, function, block_size, shared, _flags
    ));
    call(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        |d| {
            let n = active_blocks(d, function, block_size, shared)?;
            // SAFETY: the caller's contract.
            unsafe { put(blocks, n) }
        },
    )
}

/// The block size with the most threads resident per SM (the largest among equals, as CUDA
/// chooses), and the grid that fills every SM with it.
///
/// # Safety
/// The output pointers are null or valid for writes; `shared_of` is null or a function of a
/// block size.
unsafe fn potential(
    d: &Driver,
    min_grid: *mut c_int,
    block: *mut c_int,
    function: CUfunction,
    shared_of: CUoccupancyB2DSize,
    shared: usize,
    limit: c_int,
) -> Result {
    function_of(d, function)?;
    let most = if limit > 0 { limit.min(1024) } else { 1024 };
    let mut best = (0, 0);
    for size in (32..=most).rev().step_by(32) {
        // SAFETY: the program's own callback, called as CUDA calls it.
        let bytes = shared_of.map_or(shared, |f| unsafe { f(size) });
        let resident = blocks_per_sm(size, bytes) * size;
        if resident > best.0 {
            best = (resident, size);
        }
    }
    let (_, size) = best;
    if size == 0 {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    let bytes = shared_of.map_or(shared, |f| unsafe { f(size) });
    // SAFETY: the caller's contract.
    unsafe {
        put(min_grid, blocks_per_sm(size, bytes) * SMS)?;
        put(block, size)
    }
}

/// # Safety
/// As [`potential`].
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    function: CUfunction,
    shared_of: CUoccupancyB2DSize,
    shared: usize,
    limit: c_int,
) -> CUresult {
    pass_through!(cuOccupancyMaxPotentialBlockSize(
        min_grid, block, function, shared_of, shared, limit
    ));
    call("cuOccupancyMaxPotentialBlockSize", |d| {
        // SAFETY: the caller's contract.
        unsafe { potential(d, min_grid, block, function, shared_of, shared, limit) }
    })
}

/// # Safety
/// As [`potential`].
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    function: CUfunction,
    shared_of: CUoccupancyB2DSize,
    shared: usize,
    limit: c_int,
    _flags: c_uint,
) -> CUresult {
    pass_through!(cuOccupancyMaxPotentialBlockSizeWithFlags(
        min_grid, block, function, shared_of, shared, limit, _flags
    ));
    call("cuOccupancyMaxPotentialBlockSizeWithFlags", |d| {
        // SAFETY: the caller's contract.
        unsafe { potential(d, min_grid, block, function, shared_of, shared, limit) }
    })
}

/// A context limit's value: what was set, else an H100's default.
fn limit_default(limit: c_int) -> Option<usize> {
    Some(match limit {
        0 => 1024,    // stack size per thread
        1 => 1 << 20, // printf buffer
        2 => 8 << 20, // device malloc heap
        3 => 2,       // device runtime sync depth
        4 => 2048,    // device runtime pending launches
        5 => 128,     // L2 fetch granularity
        6 => 0,       // persisting L2
        _ => return None,
    })
}

/// # Safety
/// `value` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_int) -> CUresult {
    pass_through!(cuCtxGetLimit(value, limit));
    call("cuCtxGetLimit", |d| {
        d.require_context()?;
        let default = limit_default(limit).ok_or(E::CUDA_ERROR_UNSUPPORTED_LIMIT)?;
        let set = d.limits.get(&limit).copied();
        // SAFETY: the caller's contract.
        unsafe { put(value, set.unwrap_or(default)) }
    })
}

/// Limits are kept and read back; the simulator's own bounds (its printf cap, local memory)
/// stay what they are.
#[no_mangle]
pub extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    pass_through!(cuCtxSetLimit(limit, value));
    call("cuCtxSetLimit", |d| {
        d.require_context()?;
        limit_default(limit).ok_or(E::CUDA_ERROR_UNSUPPORTED_LIMIT)?;
        d.limits.insert(limit, value);
        Ok(())
    })
}
