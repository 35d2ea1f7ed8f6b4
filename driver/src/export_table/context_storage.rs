//! CONTEXT_LOCAL_STORAGE (`c693336e-...`): a value per context and key, which the runtime keeps
//! its own state of each context in. A null context means the current one.

use super::{inside, unknown_slot, Slots, Table};
use crate::state::{handle, with_driver, Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUcontext, CUresult};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

const T: usize = Table::ContextLocalStorage as usize;

/// This table has no size slot: its first slot is a function.
pub(crate) static TABLE: Slots<4> = Slots([
    store as *const c_void,
    remove as *const c_void,
    fetch as *const c_void,
    unknown_slot::<T, 3> as *const c_void,
]);

/// Called with the context, the key and the value when the context goes away.
type Destructor = Option<extern "C" fn(CUcontext, *mut c_void, *mut c_void)>;

/// Values by (context handle, key). The destructor is kept for a context's reset, which the
/// simulator never does while the runtime holds the context.
struct Stored {
    value: usize,
    _destructor: Destructor,
}

static STORAGE: Mutex<Option<HashMap<(usize, usize), Stored>>> = Mutex::new(None);

fn with_storage<T>(f: impl FnOnce(&mut HashMap<(usize, usize), Stored>) -> T) -> T {
    let mut storage = STORAGE.lock().unwrap_or_else(|p| p.into_inner());
    f(storage.get_or_insert_with(HashMap::new))
}

/// The context a handle names, the current one for null.
fn context(d: &Driver, context: CUcontext) -> Result<usize> {
    if !context.is_null() {
        return Ok(context as usize);
    }
    d.current()
        .map(|i| handle::<c_void>(i) as usize)
        .ok_or(E::CUDA_ERROR_INVALID_CONTEXT)
}

/// Slot 0.
extern "C" fn store(
    ctx: CUcontext,
    key: *mut c_void,
    value: *mut c_void,
    destructor: Destructor,
) -> CUresult {
    inside("cuGetExportTable CONTEXT_LOCAL_STORAGE store", |d| {
        let at = (context(d, ctx)?, key as usize);
        let stored = Stored {
            value: value as usize,
            _destructor: destructor,
        };
        with_storage(|s| s.insert(at, stored));
        Ok(())
    })
}

/// Slot 1.
extern "C" fn remove(ctx: CUcontext, key: *mut c_void) -> CUresult {
    inside("cuGetExportTable CONTEXT_LOCAL_STORAGE remove", |d| {
        let at = (context(d, ctx)?, key as usize);
        with_storage(|s| s.remove(&at));
        Ok(())
    })
}

/// Slot 2. The runtime asks before it has made a context current, and before it has stored
/// anything: both answers (an invalid context, an invalid handle) are what it expects then, and
/// no failure of the program's, so neither is recorded as one.
///
/// # Safety
/// `value` is null or valid for a write.
unsafe extern "C" fn fetch(value: *mut *mut c_void, ctx: CUcontext, key: *mut c_void) -> CUresult {
    if value.is_null() {
        return E::CUDA_ERROR_INVALID_VALUE;
    }
    let Ok(ctx) = with_driver(|d| context(d, ctx)) else {
        return E::CUDA_ERROR_INVALID_CONTEXT;
    };
    match with_storage(|s| s.get(&(ctx, key as usize)).map(|v| v.value)) {
        Some(found) => {
            // SAFETY: the caller's contract.
            unsafe { value.write(found as *mut c_void) };
            E::CUDA_SUCCESS
        }
        None => E::CUDA_ERROR_INVALID_HANDLE,
    }
}
