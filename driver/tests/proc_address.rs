//! `cuGetProcAddress` on the built library, as NVIDIA's Python bindings use it: dlopen the
//! driver, then ask it for every other entry point by name.

mod common;

use std::ffi::{c_char, c_int, c_void, CString};

type Init = unsafe extern "C" fn(u32) -> u32;
type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> u32;

fn symbol(handle: *mut c_void, name: &str) -> *mut c_void {
    let name = CString::new(name).unwrap();
    // SAFETY: a loaded library and a NUL-terminated name.
    unsafe { libc::dlsym(handle, name.as_ptr()) }
}

#[test]
fn entry_points_are_found_by_name_and_the_base_name_means_the_v2_form() {
    let library = common::driver_library();
    let path = CString::new(library.to_str().unwrap()).unwrap();
    // SAFETY: loads the driver library built beside this test.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) };
    assert!(!handle.is_null(), "cannot load {}", library.display());
    // SAFETY: the symbols have these signatures (the driver API's).
    let (init, get): (Init, GetProcAddress) = unsafe {
        (
            std::mem::transmute::<*mut c_void, Init>(symbol(handle, "cuInit")),
            std::mem::transmute::<*mut c_void, GetProcAddress>(symbol(
                handle,
                "cuGetProcAddress_v2",
            )),
        )
    };
    // SAFETY: driver API calls with valid pointers.
    unsafe {
        assert_eq!(init(0), 0);
        let ask = |name: &str| {
            let name = CString::new(name).unwrap();
            let (mut pfn, mut status) = (std::ptr::null_mut(), -1);
            let result = get(name.as_ptr(), &mut pfn, 12000, 0, &mut status);
            (result, pfn, status)
        };
        assert_eq!(ask("cuMemAlloc"), (0, symbol(handle, "cuMemAlloc_v2"), 0));
        assert_eq!(
            ask("cuLaunchKernel"),
            (0, symbol(handle, "cuLaunchKernel"), 0)
        );
        // cuCtxSynchronize_v2 takes a context: a stub here, not what the base name means.
        assert_eq!(
            ask("cuCtxSynchronize").1,
            symbol(handle, "cuCtxSynchronize")
        );
        // Not implemented, but exported: found, and it names itself when called.
        assert_eq!(ask("cuArrayCreate").1, symbol(handle, "cuArrayCreate_v2"));
        let (result, pfn, status) = ask("cuNoSuchEntryPoint");
        assert_eq!((result, pfn.is_null(), status), (500, true, 1));
    }
}

#[test]
fn each_cuda_version_gets_the_form_its_headers_mean_as_from_nvidias_driver() {
    let library = common::driver_library();
    let path = CString::new(library.to_str().unwrap()).unwrap();
    // SAFETY: loads the driver library built beside this test.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) };
    assert!(!handle.is_null(), "cannot load {}", library.display());
    // SAFETY: the symbol has this signature (the driver API's).
    let get = unsafe {
        std::mem::transmute::<*mut c_void, GetProcAddress>(symbol(handle, "cuGetProcAddress_v2"))
    };
    let ask = |name: &str, version: c_int| {
        let name = CString::new(name).unwrap();
        let mut pfn = std::ptr::null_mut();
        // SAFETY: a NUL-terminated name and a writable pointer.
        let result = unsafe { get(name.as_ptr(), &mut pfn, version, 0, std::ptr::null_mut()) };
        assert_eq!(result, 0);
        pfn
    };
    // CUDA 13's cuda.h: #define cuCtxCreate cuCtxCreate_v4 (CUctxCreateParams); 12.x's: _v2.
    assert_eq!(ask("cuCtxCreate", 13000), symbol(handle, "cuCtxCreate_v4"));
    assert_eq!(ask("cuCtxCreate", 12050), symbol(handle, "cuCtxCreate_v4"));
    assert_eq!(ask("cuCtxCreate", 11040), symbol(handle, "cuCtxCreate_v3"));
    assert_eq!(ask("cuCtxCreate", 3020), symbol(handle, "cuCtxCreate_v2"));
    // From 13.0 cuCtxSynchronize means the form that takes a context.
    assert_eq!(
        ask("cuCtxSynchronize", 12090),
        symbol(handle, "cuCtxSynchronize")
    );
    let synchronize = ask("cuCtxSynchronize", 13000);
    assert_eq!(synchronize, symbol(handle, "cuCtxSynchronize_v2"));
    assert_eq!(
        ask("cuStreamGetCaptureInfo", 11030),
        symbol(handle, "cuStreamGetCaptureInfo_v2")
    );
    assert_eq!(
        ask("cuStreamGetCaptureInfo", 12030),
        symbol(handle, "cuStreamGetCaptureInfo_v3")
    );
    assert_eq!(ask("cuMemAdvise", 12000), symbol(handle, "cuMemAdvise"));
    assert_eq!(ask("cuMemAdvise", 13000), symbol(handle, "cuMemAdvise_v2"));
    // Older than the name: no address, VERSION_NOT_SUFFICIENT (2) and success, as on an H100.
    let name = CString::new("cuMemAdvise").unwrap();
    let (mut pfn, mut status) = (std::ptr::null_mut(), -1);
    // SAFETY: a NUL-terminated name and writable pointers.
    let result = unsafe { get(name.as_ptr(), &mut pfn, 7999, 0, &mut status) };
    assert_eq!((result, pfn.is_null(), status), (0, true, 2));
    // The form CUDA 13 gets is implemented: it synchronises the current context (null).
    type Synchronize = unsafe extern "C" fn(*mut c_void) -> u32;
    type Retain = unsafe extern "C" fn(*mut *mut c_void, c_int) -> u32;
    type SetCurrent = unsafe extern "C" fn(*mut c_void) -> u32;
    // SAFETY: the driver API's signatures; valid pointers.
    unsafe {
        let init: Init = std::mem::transmute(symbol(handle, "cuInit"));
        let retain: Retain = std::mem::transmute(symbol(handle, "cuDevicePrimaryCtxRetain"));
        let set: SetCurrent = std::mem::transmute(symbol(handle, "cuCtxSetCurrent"));
        let synchronize: Synchronize = std::mem::transmute(synchronize);
        assert_eq!(init(0), 0);
        let mut ctx = std::ptr::null_mut();
        assert_eq!(retain(&mut ctx, 0), 0);
        assert_eq!(set(ctx), 0);
        assert_eq!(synchronize(std::ptr::null_mut()), 0);
        assert_eq!(synchronize(ctx), 0);
    }
}
