//! Modules from PTX (the simulator runs PTX, not machine code), their functions and globals.

use crate::state::{call, handle, index, put, Driver, LoadedModule, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUfunction, CUmodule, CUresult};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

/// Loads PTX text, or the PTX of a fat binary, in the current context; machine code (a cubin,
/// or a fat binary without PTX) is refused with what to do instead.
fn load(d: &mut Driver, image: &[u8]) -> Result<CUmodule> {
    d.require_context()?;
    load_anywhere(d, image)
}

/// Loads PTX text, in no context in particular (a library, in the driver's words).
pub(crate) fn load_anywhere(d: &mut Driver, image: &[u8]) -> Result<CUmodule> {
    if image.starts_with(&crate::fatbin::MAGIC) {
        let ptx = crate::fatbin::ptx(image).map_err(crate::fatbin::refused)?;
        return load_anywhere(d, ptx.as_bytes());
    }
    if image.starts_with(b"\x7fELF") {
        eprintln!(
            "simcuda: cuModuleLoadData was given machine code (a cubin); the \
             simulator runs PTX: compile with NVRTC for a virtual architecture (compute_90), or \
             give the .ptx file"
        );
        return Err(E::CUDA_ERROR_INVALID_IMAGE);
    }
    let text = std::str::from_utf8(image).map_err(|_| E::CUDA_ERROR_INVALID_IMAGE)?;
    // A kernel the simulator cannot run is refused when launched, not here: the module's other
    // kernels stay usable (cudart loads all of a program's kernels at its first call).
    let module = sim::Module::parse_keeping_refused(text).map_err(|e| {
        eprintln!("simcuda: the simulator cannot load this PTX: {e}");
        E::CUDA_ERROR_INVALID_PTX
    })?;
    let i = d.modules.insert(LoadedModule {
        module: Arc::new(module),
        functions: Vec::new(),
    });
    Ok(handle(i))
}

/// The most bytes of a module file (or linker input) read: 256 MiB. NVIDIA's driver documents no
/// limit, but NVRTC's PTX for a kernel is kilobytes to a few megabytes, and PTX of hundreds of
/// megabytes would take the simulator minutes to parse; without a bound, `/dev/zero` or an
/// endless pipe is read until the program's memory runs out.
pub(crate) const LARGEST_IMAGE: u64 = 256 << 20;

/// The bytes of module file `path`, refused past [`LARGEST_IMAGE`] with what to do: a file by its
/// size, before reading; a device or pipe (`/dev/zero`) once that much has been read.
pub(crate) fn read_image(path: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|_| E::CUDA_ERROR_FILE_NOT_FOUND)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut image = Vec::new();
    if size <= LARGEST_IMAGE {
        file.take(LARGEST_IMAGE + 1)
            .read_to_end(&mut image)
            .map_err(|_| E::CUDA_ERROR_FILE_NOT_FOUND)?;
    }
    if size > LARGEST_IMAGE || image.len() as u64 > LARGEST_IMAGE {
        eprintln!(
            "simcuda: {path} holds more than {} MiB (or never ends); the simulator loads PTX \
             modules up to that size: give the .ptx file of the kernels the program launches",
            LARGEST_IMAGE >> 20
        );
        return Err(E::CUDA_ERROR_INVALID_IMAGE);
    }
    Ok(image)
}

/// The PTX an image pointer points at: text up to its NUL.
///
/// # Safety
/// `image` is a NUL-terminated image, as the driver API requires of PTX.
pub(crate) unsafe fn image_bytes<'a>(image: *const c_void) -> Result<&'a [u8]> {
    if image.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: the caller's contract, or a fat binary (nvcc's programs give one).
    if let Some(fatbin) = unsafe { crate::fatbin::image_at(image) } {
        return fatbin.map_err(crate::fatbin::refused);
    }
    // SAFETY: NUL-terminated by the caller's contract. An ELF image is not, but it begins with
    // four non-zero bytes, which is all `load` looks at before refusing it.
    Ok(unsafe { CStr::from_ptr(image.cast()) }.to_bytes())
}

/// # Safety
/// `module` is null or valid for a write; `image` is a NUL-terminated PTX image.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult {
    pass_through!(cuModuleLoadData(module, image));
    call("cuModuleLoadData", |d| {
        // SAFETY: the caller's contract.
        let loaded = load(d, unsafe { image_bytes(image) }?)?;
        // SAFETY: the caller's contract.
        unsafe { put(module, loaded) }
    })
}

/// JIT options are accepted and ignored: nothing is compiled for a GPU.
///
/// # Safety
/// As [`cuModuleLoadData`].
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut CUmodule,
    image: *const c_void,
    _num_options: c_uint,
    _options: *mut c_void,
    _values: *mut *mut c_void,
) -> CUresult {
    pass_through!(cuModuleLoadDataEx(
        module,
        image,
        _num_options,
        _options,
        _values
    ));
    call("cuModuleLoadDataEx", |d| {
        // SAFETY: the caller's contract.
        let loaded = load(d, unsafe { image_bytes(image) }?)?;
        // SAFETY: the caller's contract.
        unsafe { put(module, loaded) }
    })
}

/// # Safety
/// `module` is null or valid for a write; `path` is a NUL-terminated path.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut CUmodule, path: *const c_char) -> CUresult {
    pass_through!(cuModuleLoad(module, path));
    call("cuModuleLoad", |d| {
        if path.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let path = unsafe { CStr::from_ptr(path) }
            .to_string_lossy()
            .into_owned();
        let loaded = load(d, &read_image(&path)?)?;
        // SAFETY: the caller's contract.
        unsafe { put(module, loaded) }
    })
}

pub(crate) fn module_of(d: &Driver, module: CUmodule) -> Result<(usize, Arc<sim::Module>)> {
    let i = index(module)?;
    match d.modules.get(i) {
        Some(m) => Ok((i, m.module.clone())),
        None => Err(E::CUDA_ERROR_INVALID_HANDLE),
    }
}

/// Unloads module `i`, and forgets the function handles given out for its kernels.
pub(crate) fn unload(d: &mut Driver, i: usize) {
    let Some(unloaded) = d.modules.remove(i) else {
        return;
    };
    for function in unloaded.functions {
        if let Some(key) = d.functions.remove(function) {
            d.function_handles.remove(&key);
        }
    }
}

#[no_mangle]
pub extern "C" fn cuModuleUnload(module: CUmodule) -> CUresult {
    pass_through!(cuModuleUnload(module));
    call("cuModuleUnload", |d| {
        let (i, _) = module_of(d, module)?;
        unload(d, i);
        Ok(())
    })
}

/// # Safety
/// `function` is null or valid for a write; `name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    function: *mut CUfunction,
    module: CUmodule,
    name: *const c_char,
) -> CUresult {
    pass_through!(cuModuleGetFunction(function, module, name));
    // SAFETY: the caller's contract, passed on.
    call("cuModuleGetFunction", |d| unsafe {
        get_function(d, function, module, name)
    })
}

/// A handle for kernel `name` of `module`, written through `function`.
///
/// # Safety
/// `function` is null or valid for a write; `name` is null or NUL-terminated.
pub(crate) unsafe fn get_function(
    d: &mut Driver,
    function: *mut CUfunction,
    module: CUmodule,
    name: *const c_char,
) -> Result {
    let (i, m) = module_of(d, module)?;
    if name.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: NUL-terminated by the caller's contract.
    let name = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    // A kernel the simulator could not prepare gets a handle too; its launch is refused, naming it.
    if m.kernel(&name).is_none() && m.lowering_error(&name).is_none() {
        return Err(E::CUDA_ERROR_NOT_FOUND);
    }
    let key = (i, name);
    let number = match d.function_handles.get(&key) {
        Some(&number) => number,
        None => {
            let number = d.functions.insert(key.clone());
            d.function_handles.insert(key, number);
            if let Some(module) = d.modules.get_mut(i) {
                module.functions.push(number);
            }
            number
        }
    };
    // SAFETY: the caller's contract.
    unsafe { put(function, handle(number)) }
}

/// The module and kernel name of a function handle.
pub(crate) fn function_of(d: &Driver, function: CUfunction) -> Result<(Arc<sim::Module>, String)> {
    let (module, name) = d
        .functions
        .get(index(function)?)
        .cloned()
        .ok_or(E::CUDA_ERROR_INVALID_HANDLE)?;
    match d.modules.get(module) {
        Some(m) => Ok((m.module.clone(), name)),
        None => Err(E::CUDA_ERROR_INVALID_HANDLE),
    }
}

/// # Safety
/// `dptr` and `bytes` are null or valid for writes; `name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut u64,
    bytes: *mut usize,
    module: CUmodule,
    name: *const c_char,
) -> CUresult {
    pass_through!(cuModuleGetGlobal_v2(dptr, bytes, module, name));
    call("cuModuleGetGlobal_v2", |d| {
        let (_, m) = module_of(d, module)?;
        if name.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let name = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let (addr, size) = d
            .machine
            .symbol(&m, &name)
            .map_err(|_| E::CUDA_ERROR_OUT_OF_MEMORY)?
            .ok_or(E::CUDA_ERROR_NOT_FOUND)?;
        // SAFETY: the caller's contract; either pointer may be null (not wanted).
        unsafe {
            if !dptr.is_null() {
                put(dptr, addr)?;
            }
            if !bytes.is_null() {
                put(bytes, size as usize)?;
            }
        }
        Ok(())
    })
}

/// A function's attributes as a GPU reports them: its shared, local and constant bytes from the
/// PTX (`sim::Module::resources`), its most threads per block from `.maxntid`/`.reqntid`; the
/// registers ptxas would give are not known to the simulator, which reports 32 (or `.maxnreg`
/// where lower).
///
/// # Safety
/// `value` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    function: CUfunction,
) -> CUresult {
    pass_through!(cuFuncGetAttribute(value, attrib, function));
    use cudarc::driver::sys::CUfunction_attribute as F;
    call("cuFuncGetAttribute", |d| {
        let (module, name) = function_of(d, function)?;
        let resources = module.resources(&name);
        let is = |a: F| a as c_int == attrib;
        let bounds = module.launch_bounds(&name);
        let v = if is(F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) {
            // `.maxntid`/`.reqntid` (`__launch_bounds__`) bound it, as ptxas records them.
            bounds
                .and_then(|b| b.thread_limit())
                .map_or(1024, |t| t as c_int)
        } else if is(F::CU_FUNC_ATTRIBUTE_PTX_VERSION) {
            // The PTX's own target, as a GPU reports it: CUB and CCCL pick the code path of this
            // architecture, and answer cudaErrorInvalidDeviceFunction for one not compiled in.
            module.target_arch().map_or(90, |arch| arch as c_int)
        } else if is(F::CU_FUNC_ATTRIBUTE_BINARY_VERSION) {
            90
        } else if is(F::CU_FUNC_ATTRIBUTE_NUM_REGS) {
            // Never more than `.maxnreg` allows.
            bounds
                .and_then(|b| b.max_registers)
                .map_or(32, |r| r.min(32) as c_int)
        } else if is(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) {
            resources.map_or(0, |r| r.shared_static_bytes as c_int)
        } else if is(F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) {
            resources.map_or(0, |r| r.local_bytes_per_thread as c_int)
        } else if is(F::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES) {
            resources.map_or(0, |r| r.constant_bytes.min(c_int::MAX as u64) as c_int)
        } else {
            0
        };
        // SAFETY: the caller's contract.
        unsafe { put(value, v) }
    })
}

/// Accepted: the simulator has no cache configuration or shared-memory carve-out to set.
#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(
    function: CUfunction,
    attrib: c_int,
    value: c_int,
) -> CUresult {
    pass_through!(cuFuncSetAttribute(function, attrib, value));
    call("cuFuncSetAttribute", |d| {
        function_of(d, function).map(|_| ())
    })
}

#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(function: CUfunction, config: c_int) -> CUresult {
    pass_through!(cuFuncSetCacheConfig(function, config));
    call("cuFuncSetCacheConfig", |d| {
        function_of(d, function).map(|_| ())
    })
}

/// The kernel's name, as written in the PTX (mangled, for C++ kernels). The driver keeps one
/// string per distinct name for the life of the process, as the real driver keeps its own.
///
/// # Safety
/// `name` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, function: CUfunction) -> CUresult {
    pass_through!(cuFuncGetName(name, function));
    call("cuFuncGetName", |d| {
        let (_, kernel) = function_of(d, function)?;
        let text = std::ffi::CString::new(kernel).map_err(|_| E::CUDA_ERROR_INVALID_VALUE)?;
        let kept: &'static CStr = match d.names.iter().find(|n| ***n == *text) {
            Some(&kept) => kept,
            None => {
                let kept = Box::leak(text.into_boxed_c_str());
                d.names.push(kept);
                kept
            }
        };
        // SAFETY: the caller's contract.
        unsafe { put(name, kept.as_ptr()) }
    })
}
