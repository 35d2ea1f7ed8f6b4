//! Compiling a kernel file with NVRTC, with a cache keyed by everything that changes the result,
//! and compile errors shown against the student's own file and line.
//!
//! | module     | owns                                                                  |
//! | ---------- | --------------------------------------------------------------------- |
//! | `nvrtc`    | loading NVRTC and calling its C API                                   |
//! | `child`    | running that call in a child process under a time and memory limit   |
//! | `includes` | the files a compile reads besides the source, for the cache key       |
//! | `headers`  | CUDA's own headers (cuda_fp16.h, cooperative_groups.h, CCCL) for NVRTC |
//! | `cache`    | compiled modules on disk, each entry checked against its own checksum |
//! | `errors`   | NVRTC's log rewritten against the student's file and line             |

pub mod cache;
pub mod child;
pub mod errors;
pub mod headers;
pub mod includes;
pub mod nvrtc;
mod one_at_a_time;

use std::path::{Path, PathBuf};

pub use cache::{Cache, Lookup};
pub use headers::CudaHeaders;
pub use nvrtc::{Nvrtc, NvrtcError};

/// What to compile for: PTX for a virtual architecture (the simulator, or a GPU the NVRTC cannot
/// make machine code for), or machine code for a real one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// PTX text, which the simulator runs and a GPU's driver compiles at load.
    Ptx {
        /// The virtual architecture, `compute_<arch>` (`75`).
        arch: u32,
    },
    /// Machine code for one GPU.
    Cubin {
        /// The real architecture, `sm_<arch>` (`90`).
        arch: u32,
    },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Ptx { arch } => write!(f, "PTX for compute_{arch}"),
            Target::Cubin { arch } => write!(f, "machine code for sm_{arch}"),
        }
    }
}

impl Target {
    fn options(&self) -> Vec<String> {
        let arch = match self {
            Target::Ptx { arch } => format!("compute_{arch}"),
            Target::Cubin { arch } => format!("sm_{arch}"),
        };
        // -lineinfo keeps source lines in the output: the simulator's reports and the GPU
        // tools (compute-sanitizer, ncu) need them.
        vec![
            format!("--gpu-architecture={arch}"),
            "-lineinfo".into(),
            "--std=c++17".into(),
        ]
    }

    /// Whether the compile makes machine code (which only a GPU loads).
    pub fn is_cubin(&self) -> bool {
        matches!(self, Target::Cubin { .. })
    }
}

/// A kernel file to compile: its text and the name messages use for it.
pub struct Source<'a> {
    /// The file as the student knows it, which the compiler's messages and `.loc` lines carry.
    pub name: &'a str,
    /// The CUDA C source.
    pub text: &'a str,
}

/// What a user adds to a compile (`runner sim -I DIR -D NAME=VALUE`): folders searched for
/// `#include`s, and macros defined before the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserOptions {
    /// Folders searched for `#include`s, as after `-I`.
    pub include_dirs: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`, as after `-D`.
    pub defines: Vec<String>,
}

impl UserOptions {
    fn options(&self) -> Vec<String> {
        let includes = self
            .include_dirs
            .iter()
            .map(|d| format!("--include-path={}", d.display()));
        let defines = self.defines.iter().map(|d| format!("--define-macro={d}"));
        includes.chain(defines).collect()
    }
}

/// A compiled module, ready for a backend.
pub struct Image {
    /// PTX text or a cubin, as `target` says.
    pub bytes: Vec<u8>,
    /// What was compiled for.
    pub target: Target,
    /// Whether the compile cache had it (no NVRTC call was made).
    pub from_cache: bool,
}

impl Image {
    /// The PTX, where the image is PTX (a cubin has none).
    pub fn ptx_text(&self) -> Option<&str> {
        match self.target {
            Target::Ptx { .. } => std::str::from_utf8(&self.bytes).ok(),
            Target::Cubin { .. } => None,
        }
    }
}

/// Why a compile gave no image.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The student's code does not compile; the message is ready to show.
    #[error("{0}")]
    Rejected(String),
    /// NVRTC itself failed (not found, crashed, out of memory): not the code's fault.
    #[error(transparent)]
    Nvrtc(#[from] NvrtcError),
}

/// NVRTC with the compile cache in front of it.
#[derive(Clone)]
pub struct Compiler {
    /// The NVRTC library found, which compiles in child processes.
    pub nvrtc: Nvrtc,
    /// Compiled images by hash of source, options and NVRTC version.
    pub cache: Cache,
    /// CUDA's own headers for this NVRTC, where installed; every compile can include them.
    pub headers: Option<CudaHeaders>,
}

impl Compiler {
    /// Loads NVRTC; the compile children [`child::keep_warm`] asked for start loading it too.
    pub fn new(course_root: Option<&Path>) -> Result<Compiler, NvrtcError> {
        let nvrtc = Nvrtc::find(course_root)?;
        child::warm_up(&nvrtc);
        let headers = CudaHeaders::find(&nvrtc.path, course_root);
        Ok(Compiler {
            nvrtc,
            cache: Cache::open(),
            headers,
        })
    }

    /// Compiles `source` for `target` (`-lineinfo`, C++17), from the cache where it is there.
    pub fn compile(&self, source: &Source, target: &Target) -> Result<Image, CompileError> {
        self.compile_with(source, target, &UserOptions::default())
    }

    /// [`Compiler::compile`] with the user's include folders and macros; the files found through
    /// the folders count in the cache key as the source's own includes do.
    pub fn compile_with(
        &self,
        source: &Source,
        target: &Target,
        user: &UserOptions,
    ) -> Result<Image, CompileError> {
        let mut options = target.options();
        options.extend(user.options());
        // After the user's folders, as a system include path comes after `-I`.
        options.extend(self.headers.iter().flat_map(CudaHeaders::options));
        let version = format!("nvrtc {}.{}", self.nvrtc.version.0, self.nvrtc.version.1);
        let headers_version = self.headers.as_ref().map_or("", |h| h.version.as_str());
        // NVRTC writes a relative name as an absolute path against the current folder into the
        // line information, and finds quoted includes from there, so the folder is part of what
        // the output depends on.
        let here = std::env::current_dir().unwrap_or_default();
        let key = includes::fingerprint(source.name, source.text, &here, &user.include_dirs).map(
            |included| {
                Cache::key(&[
                    KEY_FORMAT,
                    source.name,
                    source.text,
                    &included,
                    &options.join(" "),
                    &version,
                    headers_version,
                    &here.display().to_string(),
                ])
            },
        );
        let extension = if target.is_cubin() { "cubin" } else { "ptx" };
        let _turn = key.as_deref().map(one_at_a_time::take);
        if let Some(key) = &key {
            match self.cache.lookup(key, extension) {
                Lookup::Hit(bytes) => {
                    return Ok(Image {
                        bytes,
                        target: target.clone(),
                        from_cache: true,
                    })
                }
                Lookup::Missing => {}
                Lookup::Damaged(why) => eprintln!(
                    "Note: the compile cache's entry for {} was damaged ({why}); compiling it again.",
                    source.name
                ),
            }
        }
        match self.compile_bounded(source, &options, target.is_cubin())? {
            Ok(compiled) => {
                if let Some(key) = &key {
                    self.cache.put(key, extension, &compiled.image);
                }
                Ok(Image {
                    bytes: compiled.image,
                    target: target.clone(),
                    from_cache: false,
                })
            }
            Err(rejected) => {
                let mut shown = errors::render(&rejected.log, source);
                let advice = headers::missing_header_advice(&rejected.log, self.headers.as_ref());
                shown.extend(advice);
                Err(CompileError::Rejected(shown))
            }
        }
    }

    /// NVRTC's answer, from a child process under the limits where this binary can run one.
    fn compile_bounded(
        &self,
        source: &Source,
        options: &[String],
        cubin: bool,
    ) -> Result<Result<nvrtc::Compiled, nvrtc::Rejected>, CompileError> {
        if !child::enabled() {
            return Ok(self
                .nvrtc
                .compile(source.text, source.name, options, cubin)?);
        }
        let limits = child::Limits::from_env();
        let gave_up = |what: String| {
            CompileError::Rejected(format!(
                "{}: the compiler gave up {what}: a macro or template that expands without end?\n",
                source.name
            ))
        };
        match child::compile(
            &self.nvrtc,
            source.text,
            source.name,
            options,
            cubin,
            limits,
        ) {
            // NVRTC notices some allocation failures itself and says only "out of memory".
            Ok(Err(mut rejected)) if rejected.log.contains("error: out of memory") => {
                rejected.log.push_str(&format!(
                    "The compiler ran out of its {} MiB of memory: a macro or template that \
                     expands without end?\n",
                    limits.memory_mb
                ));
                Ok(Err(rejected))
            }
            Ok(answer) => Ok(answer),
            Err(child::Stopped::TimedOut) => Err(gave_up(format!("after {} s", limits.seconds))),
            Err(child::Stopped::Crashed {
                how,
                out_of_memory: true,
            }) => Err(gave_up(format!(
                "({how}), most likely at its memory limit of {} MiB",
                limits.memory_mb
            ))),
            Err(child::Stopped::Crashed {
                how,
                out_of_memory: false,
            }) => Err(CompileError::Rejected(format!(
                "{}: the compiler itself crashed on this file ({how}). Undo your last change, \
                 or write it another way, and check again.\n",
                source.name
            ))),
            Err(child::Stopped::Nvrtc(e)) => Err(e.into()),
        }
    }
}

/// Changed whenever what a key covers changes, so that older entries are never looked up.
const KEY_FORMAT: &str = "key 3: includes, CUDA headers";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_key_counts_cuda_headers_by_their_installed_version() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let nvrtc = Nvrtc::find(Some(root)).expect("NVRTC: run scripts/install-nvrtc");
        let headers = CudaHeaders::find(&nvrtc.path, Some(root))
            .expect("CUDA headers: run scripts/install-nvrtc");
        let cache = tempfile::tempdir().unwrap();
        let mut compiler = Compiler {
            nvrtc,
            cache: Cache {
                dir: Some(cache.path().to_path_buf()),
            },
            headers: Some(headers),
        };
        let source = Source {
            name: "h.cu",
            text: "#include <cuda_fp16.h>\n\
                   __global__ void k(__half* x) { x[0] = __float2half(1.0f); }\n",
        };
        let target = Target::Ptx { arch: 80 };
        let from_cache = |c: &Compiler| c.compile(&source, &target).unwrap().from_cache;
        assert!(!from_cache(&compiler));
        assert!(from_cache(&compiler), "the same headers: a hit");
        let installed = compiler.headers.as_mut().unwrap();
        installed.version.push_str(" and another release");
        assert!(!from_cache(&compiler), "other headers: compiled again");
    }
}
