//! The driver's linker (`cuLinkCreate` ... `cuLinkComplete`), as Numba and cuda.core use it to
//! turn their PTX into a loadable image. The simulator loads PTX, so the image is PTX: one input
//! as it is, several made into one module (`merge`), the PTX of a fat binary taken out of it.
//! Machine code is refused with the reason; the device runtime's archive (`libcudadevrt.a`) is
//! taken, since the simulator provides what kernels call of it.

use crate::state::{call, handle, index, put, Driver, Link, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

mod merge;

/// `CU_JIT_INPUT_PTX`, `CU_JIT_INPUT_FATBINARY` and `CU_JIT_INPUT_LIBRARY`.
const INPUT_PTX: c_int = 1;
const INPUT_FATBINARY: c_int = 3;
const INPUT_LIBRARY: c_int = 4;
/// The first bytes of an `ar` archive, what a library input is.
const ARCHIVE_MAGIC: &[u8] = b"!<arch>\n";

fn link_mut(d: &mut Driver, state: *mut c_void) -> Result<&mut Link> {
    let i = index(state)?;
    d.links.get_mut(i).ok_or(E::CUDA_ERROR_INVALID_HANDLE)
}

fn add(d: &mut Driver, state: *mut c_void, kind: c_int, bytes: &[u8], name: &str) -> Result {
    let link = link_mut(d, state)?;
    if kind == INPUT_FATBINARY {
        let ptx = crate::fatbin::ptx(bytes).map_err(crate::fatbin::refused)?;
        link.inputs.push(ptx.into_bytes());
        return Ok(());
    }
    if kind == INPUT_LIBRARY {
        return library(bytes, name);
    }
    if kind != INPUT_PTX {
        eprintln!(
            "simcuda: cuLinkAdd was given {name} as machine code or an archive (input type {kind}); \
             the simulator links PTX only"
        );
        return Err(E::CUDA_ERROR_NOT_SUPPORTED);
    }
    // PTX may come with or without its terminating NUL.
    let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
    link.inputs.push(text.to_vec());
    Ok(())
}

/// A library input: an archive of host objects whose device code is machine code, such as
/// `libcudadevrt.a`, which Numba links for `grid.sync()`. The simulator cannot run that code and
/// needs none of it: the device runtime's functions that kernels call (`cudaCGSynchronize`) are
/// the simulator's own (sim's lowering of calls). So the archive adds nothing to the image, and
/// a call to any other function of it stays unresolved and is named when the module loads.
fn library(bytes: &[u8], name: &str) -> Result {
    if !bytes.starts_with(ARCHIVE_MAGIC) {
        eprintln!(
            "simcuda: cuLinkAdd was given {name} as a library (input type {INPUT_LIBRARY}), but it \
             is not an archive (it does not start with `!<arch>`): pass a .a file"
        );
        return Err(E::CUDA_ERROR_INVALID_IMAGE);
    }
    Ok(())
}

/// # Safety
/// `state` is null or valid for a write; options are ignored (there is nothing to compile).
#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate_v2(
    num_options: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    state: *mut *mut c_void,
) -> CUresult {
    pass_through!(cuLinkCreate_v2(num_options, options, values, state));
    call("cuLinkCreate_v2", |d| {
        d.require_context()?;
        let i = d.links.insert(Link::default());
        // SAFETY: the caller's contract.
        unsafe { put(state, handle(i)) }
    })
}

/// # Safety
/// `data` holds `size` bytes; `name` is null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: *mut c_void,
    kind: c_int,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _num_options: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    pass_through!(cuLinkAddData_v2(
        state,
        kind,
        data,
        size,
        name,
        _num_options,
        _options,
        _values
    ));
    call("cuLinkAddData_v2", |d| {
        if data.is_null() || size as u64 > crate::module::LARGEST_IMAGE {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        let name = if name.is_null() {
            "an input".to_string()
        } else {
            // SAFETY: NUL-terminated by the caller's contract.
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        };
        add(d, state, kind, bytes, &name)
    })
}

/// # Safety
/// `path` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: *mut c_void,
    kind: c_int,
    path: *const c_char,
    _num_options: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    pass_through!(cuLinkAddFile_v2(
        state,
        kind,
        path,
        _num_options,
        _options,
        _values
    ));
    call("cuLinkAddFile_v2", |d| {
        if path.is_null() {
            return Err(E::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let path = unsafe { CStr::from_ptr(path) }
            .to_string_lossy()
            .into_owned();
        let bytes = crate::module::read_image(&path)?;
        add(d, state, kind, &bytes, &path)
    })
}

/// # Safety
/// `image` and `size` are null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cuLinkComplete(
    state: *mut c_void,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    pass_through!(cuLinkComplete(state, image, size));
    call("cuLinkComplete", |d| {
        let link = link_mut(d, state)?;
        let mut bytes = linked(&link.inputs)?;
        bytes.push(0);
        link.image = bytes;
        let (ptr, len) = (link.image.as_mut_ptr().cast::<c_void>(), link.image.len());
        // SAFETY: the caller's contract; the image lives until cuLinkDestroy.
        unsafe {
            put(image, ptr)?;
            if !size.is_null() {
                put(size, len)?;
            }
        }
        Ok(())
    })
}

/// The image of a link's inputs: one PTX input as it is, several made into one module.
fn linked(inputs: &[Vec<u8>]) -> Result<Vec<u8>> {
    match inputs {
        [] => {
            eprintln!("simcuda: cuLinkComplete with no inputs: add PTX with cuLinkAddData first");
            Err(E::CUDA_ERROR_INVALID_VALUE)
        }
        [only] => Ok(only.clone()),
        several => {
            let texts: Vec<String> = several
                .iter()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect();
            merge::merge(&texts).map(String::into_bytes).map_err(|why| {
                eprintln!(
                    "simcuda: cuLinkComplete could not link its {} PTX inputs: {why}",
                    texts.len()
                );
                E::CUDA_ERROR_INVALID_PTX
            })
        }
    }
}

#[no_mangle]
pub extern "C" fn cuLinkDestroy(state: *mut c_void) -> CUresult {
    pass_through!(cuLinkDestroy(state));
    call("cuLinkDestroy", |d| {
        link_mut(d, state)?;
        d.links.remove(index(state)?);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_is_taken_where_it_is_an_archive_and_refused_otherwise() {
        assert_eq!(library(b"!<arch>\n/ 0 0 0 0 0\n", "libcudadevrt.a"), Ok(()));
        assert_eq!(
            library(b".version 8.8\n", "kernel.ptx"),
            Err(E::CUDA_ERROR_INVALID_IMAGE)
        );
    }
}
