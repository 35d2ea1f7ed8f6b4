//! The real driver, for pass-through mode (`SIMCUDA_BACKEND=gpu`): which driver this library is
//! in the process, NVIDIA's loaded from `SIMCUDA_REAL_LIBCUDA`, and its entry points called by
//! name (`raw`). A leaf: `passthrough` records around these calls, `state` reads the GPU's
//! events through them.
//!
//! | module | owns |
//! | --- | --- |
//! | `args` | calling a real entry point with the arguments the program passed, typed by them |

mod args;

use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

pub(crate) use args::Args;

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
    match library.get("cuInit") {
        Some(address) if is_ours(address) => Err(format!(
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

/// What the dynamic loader knows of the object (this library, NVIDIA's) that holds `address`:
/// its file and where it is loaded.
fn object_of(address: *const c_void) -> Option<libc::Dl_info> {
    // SAFETY: Dl_info is plain C data, for which zeroes are a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only looks `address` up, and fills `info`, which is writable.
    (unsafe { libc::dladdr(address, &mut info) } != 0).then_some(info)
}

/// Whether `address` lies in this library (a function the real driver's handle gave us is then
/// our own: the path named this library under another name).
fn is_ours(address: *const c_void) -> bool {
    let ours = object_of as *const c_void;
    match (object_of(address), object_of(ours)) {
        (Some(theirs), Some(ours)) => theirs.dli_fbase == ours.dli_fbase,
        _ => false,
    }
}

/// This library's own file, found from one of its functions.
fn own_path() -> Option<std::path::PathBuf> {
    let info = object_of(object_of as *const c_void)?;
    if info.dli_fname.is_null() {
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
