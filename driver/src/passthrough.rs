//! Pass-through mode: with `SIMCUDA_BACKEND=gpu`, every entry point forwards to the real driver
//! named by `SIMCUDA_REAL_LIBCUDA` (an absolute path: this library is on the program's library
//! path as `libcuda.so.1`, so a search by name would find this library again), and the record
//! holds the same counts, failures, transfers, launches and synchronisations as on the simulator,
//! with times measured by the GPU's events (`state::timing`) instead of modelled.
//!
//! | module | owns |
//! | --- | --- |
//! | `recorded` | the entry points whose work is recorded: copies, memsets, launches, synchronisations, allocations, streams |
//! | `graphs` | captured graphs as the record keeps them: work on a capturing stream noted, not run |
//!
//! Every other entry point only forwards (counted, and failures named): each implemented one
//! starts with [`pass_through!`], and the generated stubs of `not_supported` do the same.

pub(crate) mod graphs;
mod managed;
pub(crate) mod recorded;

use crate::real::{raw, Args};
// For `recorded`, which times each operation.
use crate::state::timing;
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::CStr;

/// In pass-through mode, forwards the entry point it is the first line of, and returns. A plain
/// `pass_through!(name(args))` forwards as it is; `pass_through!(recorded::name(args))` goes
/// through the recording form in [`recorded`].
macro_rules! pass_through {
    (recorded::$name:ident($($arg:expr),* $(,)?)) => {
        if crate::real::active() {
            // SAFETY: the program's arguments, passed on unchanged to the real driver, whose
            // contract is the one this entry point was called under.
            return unsafe { crate::passthrough::recorded::$name($($arg),*) };
        }
    };
    ($name:ident($($arg:expr),* $(,)?)) => {
        if crate::real::active() {
            // SAFETY: as above.
            return unsafe { crate::passthrough::forward(stringify!($name), ($($arg,)*)) };
        }
    };
}

/// Calls the real `name` with `args`: counted in the record, and a failure named there. The
/// driver's lock is not held during the call: the real driver may call the program back (host
/// functions, stream callbacks), and the program may call the driver from there.
///
/// # Safety
/// As [`raw`].
pub(crate) unsafe fn forward<A: Args>(name: &'static str, args: A) -> CUresult {
    crate::state::write_when_the_program_exits();
    crate::state::with_driver(|d| d.record.count(name));
    // SAFETY: the caller's contract.
    let result = unsafe { raw(name, args) };
    if result != E::CUDA_SUCCESS {
        failed(name, result);
    }
    result
}

/// Notes in the record that `name` failed with `error`, named by the real driver.
fn failed(name: &str, error: CUresult) {
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string, or fails.
    let named = unsafe { raw("cuGetErrorName", (error, &mut text as *mut _)) };
    let error_name = if named == E::CUDA_SUCCESS && !text.is_null() {
        // SAFETY: a NUL-terminated static string of the driver's.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    } else {
        crate::errors::name_of(error as u32)
    };
    crate::state::with_driver(|d| {
        d.record.failures.push(crate::record::Failure {
            call: name.to_string(),
            error: error as u32,
            name: error_name,
        })
    });
}
