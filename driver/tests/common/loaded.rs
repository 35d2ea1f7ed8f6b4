//! A driver of the test's own: a fresh copy of libsimcuda.so loaded with dlopen, so that its state
//! (contexts, allocations, a sticky error) is not the state of the other tests in the process,
//! and entry points called through the C ABI by name, as a program calls them.

use std::ffi::{c_void, CString};

/// One loaded copy of the driver library (never unloaded: its exit hook stays registered).
pub struct Loaded {
    handle: *mut c_void,
    _dir: tempfile::TempDir,
}

// SAFETY: the handle is only given to dlsym, which any thread may call; the driver's entry
// points are for any thread, as NVIDIA's are.
unsafe impl Send for Loaded {}
// SAFETY: as above.
unsafe impl Sync for Loaded {}

impl Loaded {
    /// Loads a fresh copy (a copy, not a link: the loader takes a link to a loaded library for
    /// that library, and would share its state).
    pub fn fresh() -> Loaded {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("libsimcuda.so");
        std::fs::copy(super::driver_library(), &copy).unwrap();
        let path = CString::new(copy.to_str().unwrap()).unwrap();
        // SAFETY: loads the driver library built beside this test.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!handle.is_null(), "cannot load {}", copy.display());
        Loaded { handle, _dir: dir }
    }

    /// A fresh copy, initialised, with the primary context current (as the CUDA runtime leaves
    /// it before its first call).
    pub fn with_context() -> Loaded {
        type Ptr = *mut c_void;
        type E = cudarc::driver::sys::cudaError_enum;
        let library = Loaded::fresh();
        // SAFETY: the driver API's signatures, valid pointers.
        unsafe {
            let init: unsafe extern "C" fn(u32) -> E = library.get("cuInit");
            let retain: unsafe extern "C" fn(*mut Ptr, i32) -> E =
                library.get("cuDevicePrimaryCtxRetain");
            let set: unsafe extern "C" fn(Ptr) -> E = library.get("cuCtxSetCurrent");
            assert_eq!(init(0), E::CUDA_SUCCESS);
            let mut ctx: Ptr = std::ptr::null_mut();
            assert_eq!(retain(&mut ctx, 0), E::CUDA_SUCCESS);
            assert_eq!(set(ctx), E::CUDA_SUCCESS);
        }
        library
    }

    /// Entry point `name`, as a function pointer of type `F`.
    ///
    /// # Safety
    /// `F` is an `extern "C" fn` type with the entry point's signature.
    pub unsafe fn get<F: Copy>(&self, name: &str) -> F {
        assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
        let c_name = CString::new(name).unwrap();
        // SAFETY: a loaded library and a NUL-terminated name.
        let symbol = unsafe { libc::dlsym(self.handle, c_name.as_ptr()) };
        assert!(!symbol.is_null(), "the driver has no {name}");
        // SAFETY: a function pointer of the entry point's type, by the caller's contract.
        unsafe { std::mem::transmute_copy::<*mut c_void, F>(&symbol) }
    }
}
