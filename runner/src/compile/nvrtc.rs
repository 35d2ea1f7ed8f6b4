//! Finding and calling NVRTC, the CUDA run-time compiler, through its C API.
//!
//! NVRTC is loaded at run time, so the runner starts on machines with no CUDA at all. It may live
//! in a CUDA toolkit, on the library path, or in the course's own copy of the PyPI wheel
//! (`nvidia-cuda-nvrtc-cu12`), which works without a GPU.

// A library loaded at run time is called through raw function pointers, which only unsafe code
// can do; the crate root denies unsafe code everywhere but here, `backend::cuda` and `os`.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

type Program = *mut c_void;
type NvrtcResult = c_int;

/// The one command that gives a course its own NVRTC, shown whenever none is found.
pub const INSTALL_COMMAND: &str = "scripts/install-nvrtc";

/// Where the install script puts the PyPI wheel, relative to the course root.
pub const COURSE_NVRTC_DIR: &str = ".nvrtc/nvidia/cuda_nvrtc/lib";

/// Why NVRTC could not be used: each message says what to install or set.
#[derive(Debug, thiserror::Error)]
pub enum NvrtcError {
    /// No libnvrtc in any place looked.
    #[error(
        "NVRTC (the CUDA run-time compiler) was not found; looked in: {searched}.\n\
         Install the course's own copy with `{INSTALL_COMMAND}` (it needs Python's pip, no GPU), \
         or set RUNNER_NVRTC to the path of libnvrtc.so"
    )]
    NotFound {
        /// The places looked in, in words.
        searched: String,
    },
    /// A library was found but would not load, or lacks NVRTC's functions.
    #[error("{path} could not be used as NVRTC: {reason}")]
    Unusable {
        /// The library's path.
        path: String,
        /// The loader's reason.
        reason: String,
    },
    /// A call of NVRTC's failed (not a compile error in the code: those are its log).
    #[error("NVRTC failed: {0}")]
    Api(String),
}

/// A loaded NVRTC library; a clone shares the library (compiles from several threads at once
/// are safe in NVRTC).
#[derive(Clone)]
pub struct Nvrtc {
    library: std::sync::Arc<libloading::Library>,
    /// Where it was loaded from.
    pub path: String,
    /// Its CUDA version (major, minor), part of every cache key.
    pub version: (i32, i32),
}

/// The output of one successful compile.
pub struct Compiled {
    /// PTX text or a cubin, as asked.
    pub image: Vec<u8>,
}

/// A compile that NVRTC refused, with its log.
pub struct Rejected {
    /// NVRTC's messages, against the source's name and lines.
    pub log: String,
}

impl Nvrtc {
    /// Loads NVRTC from the first place that has one.
    pub fn find(course_root: Option<&Path>) -> Result<Nvrtc, NvrtcError> {
        let candidates = candidates(course_root);
        let mut failures = Vec::new();
        for candidate in &candidates {
            let is_path = candidate.contains('/');
            if is_path && !Path::new(candidate).exists() {
                continue;
            }
            match Nvrtc::open(candidate) {
                Ok(nvrtc) => return Ok(nvrtc),
                Err(err) if is_path => failures.push(err.to_string()),
                Err(_) => {}
            }
        }
        if let Some(first) = failures.into_iter().next() {
            return Err(NvrtcError::Unusable {
                path: "NVRTC".into(),
                reason: first,
            });
        }
        Err(NvrtcError::NotFound {
            searched: candidates.join(", "),
        })
    }

    pub(super) fn open(name: &str) -> Result<Nvrtc, NvrtcError> {
        // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
        let library =
            unsafe { libloading::Library::new(name) }.map_err(|e| NvrtcError::Unusable {
                path: name.into(),
                reason: e.to_string(),
            })?;
        let mut nvrtc = Nvrtc {
            library: std::sync::Arc::new(library),
            path: name.into(),
            version: (0, 0),
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints.
        unsafe {
            let version: libloading::Symbol<
                unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult,
            > = nvrtc.symbol(b"nvrtcVersion\0")?;
            nvrtc.check(version(&mut major, &mut minor))?;
        }
        nvrtc.version = (major, minor);
        Ok(nvrtc)
    }

    /// # Safety
    /// `T` must be the C signature of the symbol called `name`.
    unsafe fn symbol<T>(&self, name: &[u8]) -> Result<libloading::Symbol<'_, T>, NvrtcError> {
        // SAFETY: the caller names the right signature.
        unsafe { self.library.get(name) }.map_err(|e| NvrtcError::Unusable {
            path: self.path.clone(),
            reason: format!("missing {}: {e}", String::from_utf8_lossy(name)),
        })
    }

    fn check(&self, result: NvrtcResult) -> Result<(), NvrtcError> {
        if result == 0 {
            return Ok(());
        }
        let text = unsafe {
            // SAFETY: nvrtcGetErrorString returns a static string for any result code.
            self.symbol::<unsafe extern "C" fn(NvrtcResult) -> *const c_char>(
                b"nvrtcGetErrorString\0",
            )
            .map(|f| CStr::from_ptr(f(result)).to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("error {result}"))
        };
        Err(NvrtcError::Api(text))
    }

    /// The real GPU architectures this NVRTC can make machine code for, e.g. [75, 80, 86, 90].
    pub fn supported_architectures(&self) -> Vec<i32> {
        unsafe {
            // SAFETY: the first call writes one int, the second that many ints.
            let count = self.symbol::<unsafe extern "C" fn(*mut c_int) -> NvrtcResult>(
                b"nvrtcGetNumSupportedArchs\0",
            );
            let list = self.symbol::<unsafe extern "C" fn(*mut c_int) -> NvrtcResult>(
                b"nvrtcGetSupportedArchs\0",
            );
            let (Ok(count), Ok(list)) = (count, list) else {
                return Vec::new();
            };
            let mut n = 0;
            if count(&mut n) != 0 || n <= 0 {
                return Vec::new();
            }
            let mut archs = vec![0; n as usize];
            if list(archs.as_mut_ptr()) != 0 {
                return Vec::new();
            }
            archs
        }
    }

    /// Compiles `source`, named `name` in messages, with `options`. With `cubin` the result is
    /// machine code (options must name a real architecture, `sm_XY`), otherwise PTX text.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        cubin: bool,
    ) -> Result<Result<Compiled, Rejected>, NvrtcError> {
        type Create = unsafe extern "C" fn(
            *mut Program,
            *const c_char,
            *const c_char,
            c_int,
            *const *const c_char,
            *const *const c_char,
        ) -> NvrtcResult;
        type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult;
        type Size = unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult;
        type Get = unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult;
        type Destroy = unsafe extern "C" fn(*mut Program) -> NvrtcResult;

        let to_c = |s: &str| {
            CString::new(s).map_err(|_| NvrtcError::Api(format!("{s:?} holds a NUL byte")))
        };
        let c_source = to_c(source)?;
        let c_name = to_c(name)?;
        let c_options = options
            .iter()
            .map(|o| to_c(o))
            .collect::<Result<Vec<_>, _>>()?;
        let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();

        // SAFETY: each call follows NVRTC's documented contract: a program is created, used and
        // destroyed once; buffers are sized by the matching size call before being written.
        unsafe {
            let create: libloading::Symbol<Create> = self.symbol(b"nvrtcCreateProgram\0")?;
            let compile: libloading::Symbol<CompileFn> = self.symbol(b"nvrtcCompileProgram\0")?;
            let log_size: libloading::Symbol<Size> = self.symbol(b"nvrtcGetProgramLogSize\0")?;
            let get_log: libloading::Symbol<Get> = self.symbol(b"nvrtcGetProgramLog\0")?;
            let (size_name, get_name): (&[u8], &[u8]) = if cubin {
                (b"nvrtcGetCUBINSize\0", b"nvrtcGetCUBIN\0")
            } else {
                (b"nvrtcGetPTXSize\0", b"nvrtcGetPTX\0")
            };
            let image_size: libloading::Symbol<Size> = self.symbol(size_name)?;
            let get_image: libloading::Symbol<Get> = self.symbol(get_name)?;
            let destroy: libloading::Symbol<Destroy> = self.symbol(b"nvrtcDestroyProgram\0")?;

            let mut program: Program = std::ptr::null_mut();
            self.check(create(
                &mut program,
                c_source.as_ptr(),
                c_name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            ))?;
            let compiled = compile(program, option_ptrs.len() as c_int, option_ptrs.as_ptr());

            let read = |size: &Size, get: &Get| -> Result<Vec<u8>, NvrtcError> {
                let mut n = 0usize;
                self.check(size(program, &mut n))?;
                let mut buffer = vec![0u8; n];
                self.check(get(program, buffer.as_mut_ptr().cast()))?;
                Ok(buffer)
            };
            let log = read(&log_size, &get_log).map(|b| text_of(&b));
            let outcome = match (compiled, log) {
                (0, Ok(_)) => read(&image_size, &get_image).map(|mut image| {
                    if !cubin {
                        image.retain(|&b| b != 0);
                    }
                    Ok(Compiled { image })
                }),
                (_, Ok(log)) if !log.trim().is_empty() => Ok(Err(Rejected { log })),
                (code, Ok(_)) => self
                    .check(code)
                    .map(|_| Err(Rejected { log: String::new() })),
                (_, Err(e)) => Err(e),
            };
            destroy(&mut program);
            outcome
        }
    }
}

fn text_of(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Where NVRTC is looked for, best first: an explicit choice, a CUDA toolkit, the course's own
/// copy of the PyPI wheel, then whatever the dynamic loader finds on the library path.
fn candidates(course_root: Option<&Path>) -> Vec<String> {
    let mut list = Vec::new();
    if let Ok(path) = std::env::var("RUNNER_NVRTC") {
        return vec![path];
    }
    let mut toolkits: Vec<PathBuf> = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .collect();
    toolkits.push(PathBuf::from("/usr/local/cuda"));
    for toolkit in toolkits {
        for lib in ["lib64", "lib", "targets/x86_64-linux/lib"] {
            for version in ["", ".13", ".12"] {
                list.push(
                    toolkit
                        .join(lib)
                        .join(format!("libnvrtc.so{version}"))
                        .display()
                        .to_string(),
                );
            }
        }
    }
    if let Some(root) = course_root {
        list.push(
            root.join(COURSE_NVRTC_DIR)
                .join("libnvrtc.so.12")
                .display()
                .to_string(),
        );
    }
    list.extend(["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"].map(String::from));
    list.dedup();
    list
}
