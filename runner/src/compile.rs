//! Compiling a kernel file with NVRTC, with a cache keyed by everything that changes the result,
//! and compile errors shown against the student's own file and line.

pub mod cache;
pub mod errors;
pub mod nvrtc;

use std::path::Path;

pub use cache::Cache;
pub use nvrtc::{Nvrtc, NvrtcError};

/// What to compile for: PTX for a virtual architecture (the simulator, or a GPU the NVRTC cannot
/// make machine code for), or machine code for a real one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Ptx { arch: u32 },
    Cubin { arch: u32 },
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

    pub fn is_cubin(&self) -> bool {
        matches!(self, Target::Cubin { .. })
    }
}

/// A kernel file to compile: its text and the name messages use for it.
pub struct Source<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// A compiled module, ready for a backend.
pub struct Image {
    pub bytes: Vec<u8>,
    pub target: Target,
    pub from_cache: bool,
}

impl Image {
    pub fn ptx_text(&self) -> Option<&str> {
        match self.target {
            Target::Ptx { .. } => std::str::from_utf8(&self.bytes).ok(),
            Target::Cubin { .. } => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The student's code does not compile; the message is ready to show.
    #[error("{0}")]
    Rejected(String),
    #[error(transparent)]
    Nvrtc(#[from] NvrtcError),
}

pub struct Compiler {
    pub nvrtc: Nvrtc,
    pub cache: Cache,
}

impl Compiler {
    pub fn new(course_root: Option<&Path>) -> Result<Compiler, NvrtcError> {
        Ok(Compiler {
            nvrtc: Nvrtc::find(course_root)?,
            cache: Cache::open(),
        })
    }

    pub fn compile(&self, source: &Source, target: &Target) -> Result<Image, CompileError> {
        let options = target.options();
        let version = format!("nvrtc {}.{}", self.nvrtc.version.0, self.nvrtc.version.1);
        // NVRTC writes a relative name as an absolute path against the current folder into the
        // line information, so the folder is part of what the output depends on.
        let here = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let key = Cache::key(&[
            source.name,
            source.text,
            &options.join(" "),
            &version,
            &here,
        ]);
        let extension = if target.is_cubin() { "cubin" } else { "ptx" };
        if let Some(bytes) = self.cache.get(&key, extension) {
            return Ok(Image {
                bytes,
                target: target.clone(),
                from_cache: true,
            });
        }
        match self
            .nvrtc
            .compile(source.text, source.name, &options, target.is_cubin())?
        {
            Ok(compiled) => {
                self.cache.put(&key, extension, &compiled.image);
                Ok(Image {
                    bytes: compiled.image,
                    target: target.clone(),
                    from_cache: false,
                })
            }
            Err(rejected) => Err(CompileError::Rejected(errors::render(
                &rejected.log,
                source,
            ))),
        }
    }
}
