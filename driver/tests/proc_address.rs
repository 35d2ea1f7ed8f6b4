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
