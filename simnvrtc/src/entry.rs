//! The C entry points: all 26 of NVRTC 12.9's, each forwarded to NVIDIA's. Some change what
//! they pass on: `nvrtcCreateProgram` names a source found in the program's files
//! ([`crate::placed`]), `nvrtcCompileProgram` adds `-lineinfo` ([`crate::lines`]) and the
//! course's CUDA headers ([`crate::headers`]) and, on the simulator, compiles for the virtual
//! architecture of a real one, whose PTX `nvrtcGetCUBIN` then gives ([`crate::virtual_arch`]).

#![allow(non_snake_case)]

use crate::real::symbol;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

/// `nvrtcResult`.
pub type Status = c_int;
/// `nvrtcProgram`, an opaque handle.
pub type Program = *mut c_void;

/// `NVRTC_ERROR_INTERNAL_ERROR`: what an entry point answers when NVIDIA's library is missing.
const INTERNAL_ERROR: Status = 11;

macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "`, forwarded to NVIDIA's NVRTC.")]
        ///
        /// # Safety
        /// As NVIDIA's: the arguments are passed on unchanged.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> Status {
            type Real = unsafe extern "C" fn($($ty),*) -> Status;
            // SAFETY: `Real` is the entry point's C signature, as NVRTC's header declares it.
            match unsafe { symbol::<Real>(concat!(stringify!($name), "\0").as_bytes()) } {
                // SAFETY: the program's arguments, under the contract it called this one with.
                Some(real) => unsafe { real($($arg),*) },
                None => INTERNAL_ERROR,
            }
        }
    )*};
}

forward! {
    nvrtcVersion(major: *mut c_int, minor: *mut c_int);
    nvrtcGetNumSupportedArchs(count: *mut c_int);
    nvrtcGetSupportedArchs(archs: *mut c_int);
    nvrtcGetPTXSize(prog: Program, size: *mut usize);
    nvrtcGetPTX(prog: Program, ptx: *mut c_char);
    nvrtcGetLTOIRSize(prog: Program, size: *mut usize);
    nvrtcGetLTOIR(prog: Program, ir: *mut c_char);
    nvrtcGetOptiXIRSize(prog: Program, size: *mut usize);
    nvrtcGetOptiXIR(prog: Program, ir: *mut c_char);
    nvrtcGetNVVMSize(prog: Program, size: *mut usize);
    nvrtcGetNVVM(prog: Program, nvvm: *mut c_char);
    nvrtcGetProgramLogSize(prog: Program, size: *mut usize);
    nvrtcGetProgramLog(prog: Program, log: *mut c_char);
    nvrtcAddNameExpression(prog: Program, expression: *const c_char);
    nvrtcGetLoweredName(prog: Program, expression: *const c_char, lowered: *mut *const c_char);
    nvrtcGetPCHHeapSize(size: *mut usize);
    nvrtcSetPCHHeapSize(size: usize);
    nvrtcGetPCHCreateStatus(prog: Program);
    nvrtcGetPCHHeapSizeRequired(prog: Program, size: *mut usize);
    nvrtcSetFlowCallback(prog: Program, callback: *mut c_void, payload: *mut c_void);
}

/// `nvrtcGetErrorString`, forwarded; the name of the code where NVIDIA's library is missing.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetErrorString(result: Status) -> *const c_char {
    type Real = unsafe extern "C" fn(Status) -> *const c_char;
    // SAFETY: NVRTC's signature.
    match unsafe { symbol::<Real>(b"nvrtcGetErrorString\0") } {
        // SAFETY: a plain code, as the program passed it.
        Some(real) => unsafe { real(result) },
        None => c"NVRTC_ERROR_INTERNAL_ERROR (NVIDIA's NVRTC could not be loaded)".as_ptr(),
    }
}

/// The sources handed to NVIDIA's with a `#line` before them, kept until their program is
/// destroyed: NVRTC's documentation does not promise that it copies a program's source.
fn kept_sources() -> &'static Mutex<HashMap<usize, CString>> {
    static KEPT: OnceLock<Mutex<HashMap<usize, CString>>> = OnceLock::new();
    KEPT.get_or_init(Default::default)
}

/// `nvrtcCreateProgram`, with a source found in the program's files named by its file and line.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcCreateProgram(
    prog: *mut Program,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> Status {
    type Real = unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status;
    // SAFETY: NVRTC's signature.
    let Some(real) = (unsafe { symbol::<Real>(b"nvrtcCreateProgram\0") }) else {
        return INTERNAL_ERROR;
    };
    let placed = (!src.is_null())
        // SAFETY: NVRTC takes a NUL-terminated source.
        .then(|| unsafe { CStr::from_ptr(src) })
        .and_then(|s| s.to_str().ok())
        .and_then(|s| crate::placed::placed(s, &crate::placed::listed_files()))
        .and_then(|s| CString::new(s).ok());
    let Some(placed) = placed else {
        // SAFETY: the program's arguments, unchanged.
        return unsafe { real(prog, src, name, num_headers, headers, include_names) };
    };
    // SAFETY: as the program's call, with a source that lives until the program is destroyed.
    let status = unsafe {
        real(
            prog,
            placed.as_ptr(),
            name,
            num_headers,
            headers,
            include_names,
        )
    };
    if status == 0 && !prog.is_null() {
        // SAFETY: NVRTC wrote the handle on success.
        let handle = unsafe { *prog } as usize;
        if let Ok(mut kept) = kept_sources().lock() {
            kept.insert(handle, placed);
        }
    }
    status
}

/// `nvrtcDestroyProgram`, forwarded; the source kept for the program let go after.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcDestroyProgram(prog: *mut Program) -> Status {
    type Real = unsafe extern "C" fn(*mut Program) -> Status;
    // SAFETY: NVRTC's signature.
    let Some(real) = (unsafe { symbol::<Real>(b"nvrtcDestroyProgram\0") }) else {
        return INTERNAL_ERROR;
    };
    // SAFETY: a handle's address as the program passed it; read before NVRTC clears it.
    let handle = (!prog.is_null()).then(|| unsafe { *prog } as usize);
    // SAFETY: the program's argument, unchanged.
    let status = unsafe { real(prog) };
    if let Some(handle) = handle {
        crate::virtual_arch::note(handle, false);
    }
    if let (Some(handle), Ok(mut kept)) = (handle, kept_sources().lock()) {
        kept.remove(&handle);
    }
    status
}

/// `nvrtcGetCUBINSize`: the PTX's size for a program compiled for the virtual architecture in
/// place of the real one it named ([`crate::virtual_arch`]), else forwarded.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBINSize(prog: Program, size: *mut usize) -> Status {
    type Real = unsafe extern "C" fn(Program, *mut usize) -> Status;
    let name: &[u8] = if crate::virtual_arch::cubin_is_ptx(prog as usize) {
        b"nvrtcGetPTXSize\0"
    } else {
        b"nvrtcGetCUBINSize\0"
    };
    // SAFETY: both entry points have this signature.
    match unsafe { symbol::<Real>(name) } {
        // SAFETY: the program's arguments, unchanged.
        Some(real) => unsafe { real(prog, size) },
        None => INTERNAL_ERROR,
    }
}

/// `nvrtcGetCUBIN`: the PTX, NUL-terminated, where [`nvrtcGetCUBINSize`] gave its size.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBIN(prog: Program, cubin: *mut c_char) -> Status {
    type Real = unsafe extern "C" fn(Program, *mut c_char) -> Status;
    let name: &[u8] = if crate::virtual_arch::cubin_is_ptx(prog as usize) {
        b"nvrtcGetPTX\0"
    } else {
        b"nvrtcGetCUBIN\0"
    };
    // SAFETY: both entry points have this signature.
    match unsafe { symbol::<Real>(name) } {
        // SAFETY: the program's arguments, unchanged.
        Some(real) => unsafe { real(prog, cubin) },
        None => INTERNAL_ERROR,
    }
}

/// `nvrtcCompileProgram`, with the course's CUDA header folders after the program's options, and
/// `-lineinfo` where they ask for no line information.
///
/// # Safety
/// As NVIDIA's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcCompileProgram(
    prog: Program,
    num_options: c_int,
    options: *const *const c_char,
) -> Status {
    type Real = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status;
    // SAFETY: NVRTC's signature.
    let Some(real) = (unsafe { symbol::<Real>(b"nvrtcCompileProgram\0") }) else {
        return INTERNAL_ERROR;
    };
    let count = usize::try_from(num_options).unwrap_or(0);
    let given: Vec<*const c_char> = if options.is_null() || count == 0 {
        Vec::new()
    } else {
        // SAFETY: NVRTC's contract: `num_options` option strings.
        unsafe { std::slice::from_raw_parts(options, count) }.to_vec()
    };
    let texts: Vec<&CStr> = given
        .iter()
        .filter(|p| !p.is_null())
        // SAFETY: each option is a NUL-terminated string.
        .map(|&p| unsafe { CStr::from_ptr(p) })
        .collect();
    if texts.len() != given.len() {
        // SAFETY: the program's arguments, unchanged.
        return unsafe { real(prog, num_options, options) };
    }
    let made_virtual = crate::virtual_arch::on_the_simulator()
        .then(|| crate::virtual_arch::virtual_options(&texts))
        .flatten();
    crate::virtual_arch::note(prog as usize, made_virtual.is_some());
    let mut added = crate::headers::include_options();
    if !crate::lines::asks_for_lines(&texts) {
        added.push(crate::lines::line_option());
    }
    if added.is_empty() && made_virtual.is_none() {
        // SAFETY: the program's arguments, unchanged.
        return unsafe { real(prog, num_options, options) };
    }
    let mut all = match &made_virtual {
        Some(options) => options.iter().map(|option| option.as_ptr()).collect(),
        None => given,
    };
    all.extend(added.iter().map(|option| option.as_ptr()));
    let Ok(n) = c_int::try_from(all.len()) else {
        // SAFETY: as above.
        return unsafe { real(prog, num_options, options) };
    };
    // SAFETY: the program's options and one more, all alive for the call.
    unsafe { real(prog, n, all.as_ptr()) }
}
