//! The tables for NVIDIA's tools (profilers, debuggers) that the runtime asks for at start-up
//! whether or not a tool is attached: TOOLS_RUNTIME_CALLBACK_HOOKS (`a094798c-...`), TOOLS_TLS
//! (`42d85a81-...`) and CONTEXT_CHECKS (`263e8860-...`). No tool ever attaches to the simulator,
//! so each answers as the real driver does with none.

use super::{unknown_slot, Slots, Table};
use cudarc::driver::sys::{cudaError_enum as E, CUcontext, CUresult};
use std::cell::UnsafeCell;
use std::ffi::c_void;

const HOOKS: usize = Table::ToolsRuntimeCallbackHooks as usize;
const TLS_TABLE: usize = Table::ToolsTls as usize;
const CHECKS: usize = Table::ContextChecks as usize;

pub(crate) static CALLBACK_HOOKS: Slots<7> = Slots([
    Slots::<7>::SIZE,
    unknown_slot::<HOOKS, 1> as *const c_void,
    callback_buffer as *const c_void,
    unknown_slot::<HOOKS, 3> as *const c_void,
    unknown_slot::<HOOKS, 4> as *const c_void,
    unknown_slot::<HOOKS, 5> as *const c_void,
    callback_flags as *const c_void,
]);

pub(crate) static TLS: Slots<4> = Slots([
    Slots::<4>::SIZE,
    unknown_slot::<TLS_TABLE, 1> as *const c_void,
    unknown_slot::<TLS_TABLE, 2> as *const c_void,
    unknown_slot::<TLS_TABLE, 3> as *const c_void,
]);

pub(crate) static CONTEXT_CHECKS: Slots<4> = Slots([
    Slots::<4>::SIZE,
    unknown_slot::<CHECKS, 1> as *const c_void,
    context_check as *const c_void,
    no_check_failed as *const c_void,
]);

/// Memory the runtime writes its tool callbacks' state into and reads back; nothing in the
/// driver reads it. Sized as the real driver reports (the unit is the runtime's business), with
/// room to spare whatever the unit is.
struct Buffer<const N: usize>(UnsafeCell<[u64; N]>);

// SAFETY: only the runtime touches the memory, through the pointer it is given.
unsafe impl<const N: usize> Sync for Buffer<N> {}

static CALLBACK_BUFFER: Buffer<1024> = Buffer(UnsafeCell::new([0; 1024]));
static CALLBACK_FLAGS: Buffer<14> = Buffer(UnsafeCell::new([0; 14]));

/// # Safety
/// `start` and `size` are valid for writes.
unsafe fn hand_out<const N: usize>(
    buffer: &'static Buffer<N>,
    start: *mut *mut c_void,
    size: *mut usize,
) {
    if start.is_null() || size.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe {
        start.write(buffer.0.get().cast());
        size.write(N);
    }
}

/// Hooks slot 2.
///
/// # Safety
/// As [`hand_out`].
unsafe extern "C" fn callback_buffer(start: *mut *mut c_void, size: *mut usize) {
    // SAFETY: the caller's contract.
    unsafe { hand_out(&CALLBACK_BUFFER, start, size) }
}

/// Hooks slot 6.
///
/// # Safety
/// As [`hand_out`].
unsafe extern "C" fn callback_flags(start: *mut *mut c_void, size: *mut usize) {
    // SAFETY: the caller's contract.
    unsafe { hand_out(&CALLBACK_FLAGS, start, size) }
}

/// Checks slot 2: the context passes (0), with nothing to add.
///
/// # Safety
/// `passed` is null or valid for a write.
unsafe extern "C" fn context_check(
    _ctx: CUcontext,
    passed: *mut u32,
    _extra: *mut *const c_void,
) -> CUresult {
    if !passed.is_null() {
        // SAFETY: the caller's contract.
        unsafe { passed.write(0) };
    }
    E::CUDA_SUCCESS
}

/// Checks slot 3: no check has failed.
extern "C" fn no_check_failed() -> u32 {
    0
}
