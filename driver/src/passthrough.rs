//! Pass-through mode: with `SIMCUDA_BACKEND=gpu`, every entry point forwards to the real driver
//! named by `SIMCUDA_REAL_LIBCUDA` (an absolute path: this library is on the program's library
//! path as `libcuda.so.1`, so a search by name would find this library again), and the record
//! holds the same counts, failures, transfers, launches and synchronisations as on the simulator,
//! with times measured by the GPU's events (`timing`) instead of modelled.
//!
//! | module | owns |
//! | --- | --- |
//! | `args` | calling a real entry point with the arguments the program passed, typed by them |
//! | `recorded` | the entry points whose work is recorded: copies, memsets, launches, synchronisations, allocations, streams |
//! | `timing` | events around each copy and launch, read into the record when they have completed |
//! | `graphs` | captured graphs as the record keeps them: work on a capturing stream noted, not run |
//!
//! Every other entry point only forwards (counted, and failures named): each implemented one
//! starts with [`pass_through!`], and the generated stubs of `not_supported` do the same.

mod args;
pub(crate) mod graphs;
pub(crate) mod recorded;
pub(crate) mod timing;

use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

pub(crate) use args::Args;

/// In pass-through mode, forwards the entry point it is the first line of, and returns. A plain
/// `pass_through!(name(args))` forwards as it is; `pass_through!(recorded::name(args))` goes
/// through the recording form in [`recorded`].
macro_rules! pass_through {
    (recorded::$name:ident($($arg:expr),* $(,)?)) => {
        if crate::passthrough::active() {
            // SAFETY: the program's arguments, passed on unchanged to the real driver, whose
            // contract is the one this entry point was called under.
            return unsafe { crate::passthrough::recorded::$name($($arg),*) };
        }
    };
    ($name:ident($($arg:expr),* $(,)?)) => {
        if crate::passthrough::active() {
            // SAFETY: as above.
            return unsafe { crate::passthrough::forward(stringify!($name), ($($arg,)*)) };
        }
    };
}

/// Which driver this library is in this process.
enum Backend {
    Simulator,
    /// This library was named as the real driver (a second copy of it, in the tests): it
    /// simulates, and the pass-through copy in front of it keeps the record.
    RealDriverBehindPassThrough,
    /// Pass-through to the real driver, or why it could not be loaded.
    Gpu(Result<RealDriver, String>),
}

/// The real driver's handle from `dlopen`, never closed: its functions are called until the
/// process ends. (libc's dlopen rather than libloading, which this crate would add to the shared
/// lock file for two calls: cudarc uses libloading but does not export it.)
#[derive(Debug)]
struct RealDriver(usize);

fn backend() -> &'static Backend {
    static BACKEND: OnceLock<Backend> = OnceLock::new();
    BACKEND.get_or_init(|| {
        if std::env::var("SIMCUDA_BACKEND").as_deref() != Ok("gpu") {
            return Backend::Simulator;
        }
        let Some(path) = std::env::var_os("SIMCUDA_REAL_LIBCUDA") else {
            return Backend::Gpu(Err("SIMCUDA_BACKEND=gpu needs SIMCUDA_REAL_LIBCUDA, the \
                                     real driver's absolute path"
                .into()));
        };
        let path = std::path::PathBuf::from(path);
        if own_path().is_some_and(|own| same_file(&own, &path)) {
            return Backend::RealDriverBehindPassThrough;
        }
        Backend::Gpu(load(&path))
    })
}

/// Loads the real driver at `path`, refusing a relative path and this library itself (either
/// would forward every call back here, for ever).
fn load(path: &std::path::Path) -> Result<RealDriver, String> {
    if !path.is_absolute() {
        return Err(format!(
            "SIMCUDA_REAL_LIBCUDA={}: give an absolute path",
            path.display()
        ));
    }
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("{}: a path with a NUL byte", path.display()))?;
    // SAFETY: loading NVIDIA's driver runs its initialisers, which is what a program using
    // CUDA does anyway; `name` is NUL-terminated.
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        // SAFETY: dlerror gives the last error as a NUL-terminated string, or null.
        let why = unsafe { libc::dlerror() };
        let why = if why.is_null() {
            String::new()
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(why) }
                .to_string_lossy()
                .into_owned()
        };
        return Err(format!(
            "cannot load the real CUDA driver {}: {why}",
            path.display()
        ));
    }
    let library = RealDriver(handle as usize);
    let ours = crate::device::cuInit as *const c_void;
    match library.get("cuInit") {
        Some(address) if address == ours => Err(format!(
            "{} is this library itself, not NVIDIA's driver",
            path.display()
        )),
        Some(_) => Ok(library),
        None => Err(format!(
            "{} is no CUDA driver: it has no cuInit",
            path.display()
        )),
    }
}

impl RealDriver {
    /// The address of `name`, if the library has it.
    fn get(&self, name: &str) -> Option<*const c_void> {
        let name = std::ffi::CString::new(name).ok()?;
        // SAFETY: a loaded library's handle and a NUL-terminated name.
        let address = unsafe { libc::dlsym(self.0 as *mut c_void, name.as_ptr()) };
        (!address.is_null()).then_some(address.cast_const())
    }
}

/// This library's own file, found from one of its functions.
pub(crate) fn own_path() -> Option<std::path::PathBuf> {
    // SAFETY: dladdr reads the address of one of our functions and fills `info`.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let ours = crate::device::cuInit as *const c_void;
    // SAFETY: `ours` is a function of this library; `info` is writable.
    if unsafe { libc::dladdr(ours, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr gave a NUL-terminated file name.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    Some(std::path::PathBuf::from(
        name.to_string_lossy().into_owned(),
    ))
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether entry points forward to a real driver.
pub(crate) fn active() -> bool {
    matches!(backend(), Backend::Gpu(_))
}

/// Whether this library keeps the record (not when it is the real driver behind another copy).
pub(crate) fn keeps_record() -> bool {
    !matches!(backend(), Backend::RealDriverBehindPassThrough)
}

/// The real driver's `name`, or why there is none (said once on stderr).
fn symbol(name: &str) -> Result<*const c_void, CUresult> {
    let Backend::Gpu(loaded) = backend() else {
        return Err(E::CUDA_ERROR_NOT_INITIALIZED);
    };
    let library = loaded.as_ref().map_err(|why| {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| eprintln!("simcuda: {why}"));
        E::CUDA_ERROR_NO_DEVICE
    })?;
    library.get(name).ok_or_else(|| {
        eprintln!("simcuda: the real CUDA driver has no {name}");
        E::CUDA_ERROR_NOT_SUPPORTED
    })
}

/// Calls the real `name` with `args`, unrecorded (the events the timing adds).
///
/// # Safety
/// `args` are what the real `name` takes, under its contract.
pub(crate) unsafe fn raw<A: Args>(name: &str, args: A) -> CUresult {
    match symbol(name) {
        // SAFETY: the caller's contract.
        Ok(address) => unsafe { args.call(address) },
        Err(e) => e,
    }
}

/// Calls the real `name` with `args`: counted in the record, and a failure named there. The
/// driver's lock is not held during the call: the real driver may call the program back (host
/// functions, stream callbacks), and the program may call the driver from there.
///
/// # Safety
/// As [`raw`].
pub(crate) unsafe fn forward<A: Args>(name: &'static str, args: A) -> CUresult {
    crate::record::write_when_the_program_exits();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_to_the_real_driver_is_refused() {
        let why = load(std::path::Path::new("libcuda.so.1")).unwrap_err();
        assert!(why.contains("give an absolute path"), "{why}");
    }

    #[test]
    fn a_missing_real_driver_is_named() {
        let why = load(std::path::Path::new("/nonexistent/libcuda.so.1")).unwrap_err();
        assert!(
            why.contains("cannot load the real CUDA driver /nonexistent"),
            "{why}"
        );
    }
}
