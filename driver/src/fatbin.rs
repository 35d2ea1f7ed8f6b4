//! Fat binaries: the container nvcc puts a program's device code in (one file per architecture,
//! PTX or machine code, each maybe compressed), and the PTX the simulator runs, taken out of one.
//!
//! The layout, as nvcc 12 and 13 write it (little-endian): a 16-byte header (magic `0xBA55ED50`,
//! version 1, header size, then the size of the files after it), then the files, each with a
//! header of its own: kind (1 PTX, 2 ELF), header size, padded payload size, compressed size, the
//! architecture (80 for `compute_80`), flags (bit 13 LZ4, bit 15 Zstandard) and the size of the
//! uncompressed payload. nvcc 13 compresses PTX with Zstandard by default, nvcc 12 with LZ4.

use std::ffi::c_void;

/// The first four bytes of a fat binary.
pub(crate) const MAGIC: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();
/// `__fatBinC_Wrapper_t`, which `__cudaRegisterFatBinary` is given: magic, version, a pointer to
/// the fat binary.
const WRAPPER_MAGIC: u32 = 0x4662_43B1;
const HEADER_BYTES: usize = 16;
/// The file header's fields this parser reads end here (nvcc writes 80 bytes).
const FILE_HEADER_BYTES: usize = 64;
const LZ4: u64 = 1 << 13;
const ZSTD: u64 = 1 << 15;
/// No PTX of a course-sized program comes near this; a corrupt size field would.
const MAX_PTX_BYTES: u64 = 256 << 20;

/// What a fat binary's file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ptx,
    MachineCode,
    Other(u16),
}

/// How a file's payload is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compression {
    None,
    Lz4 { bytes: u64 },
    Zstd { bytes: u64 },
}

/// One file of a fat binary.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<'a> {
    pub kind: Kind,
    /// The architecture, as nvcc's `sm_XX`/`compute_XX` number it (80, 90).
    pub arch: u32,
    compression: Compression,
    payload: &'a [u8],
}

/// Why no PTX could be taken out of a fat binary.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FatbinError {
    #[error("this is not a fat binary (it does not start with nvcc's magic number)")]
    NotAFatBinary,
    #[error("the fat binary is cut short: {what} needs {needed} bytes, {had} are there")]
    Truncated {
        what: &'static str,
        needed: u64,
        had: u64,
    },
    #[error(
        "the fat binary carries machine code only ({}), which the simulator cannot run: build \
         with `-gencode arch=compute_80,code=compute_80` (or add it) so that it carries PTX",
        archs(.machine_code_for)
    )]
    NoPtx { machine_code_for: Vec<u32> },
    #[error(
        "the fat binary holds no device code: a program built with -rdc=true (relocatable device \
         code) has its device code linked apart, which the simulator does not do yet: build \
         without -rdc"
    )]
    Empty,
    #[error("the PTX for {} cannot be decompressed: {why}", arch_name(*.arch))]
    Decompress { arch: u32, why: String },
    #[error("the PTX for {} is not text", arch_name(*.arch))]
    NotText { arch: u32 },
}

fn arch_name(arch: u32) -> String {
    format!("sm_{arch}")
}

fn archs(archs: &[u32]) -> String {
    let names: Vec<_> = archs.iter().map(|&a| arch_name(a)).collect();
    names.join(", ")
}

fn read<const N: usize>(
    bytes: &[u8],
    at: usize,
    what: &'static str,
) -> Result<[u8; N], FatbinError> {
    bytes
        .get(at..at + N)
        .and_then(|b| b.try_into().ok())
        .ok_or(FatbinError::Truncated {
            what,
            needed: (at + N) as u64,
            had: bytes.len() as u64,
        })
}

fn u16_at(bytes: &[u8], at: usize, what: &'static str) -> Result<u16, FatbinError> {
    read(bytes, at, what).map(u16::from_le_bytes)
}

fn u32_at(bytes: &[u8], at: usize, what: &'static str) -> Result<u32, FatbinError> {
    read(bytes, at, what).map(u32::from_le_bytes)
}

fn u64_at(bytes: &[u8], at: usize, what: &'static str) -> Result<u64, FatbinError> {
    read(bytes, at, what).map(u64::from_le_bytes)
}

/// `bytes[start..start + len]`, or what was missing.
fn span<'a>(
    bytes: &'a [u8],
    start: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], FatbinError> {
    let end = start.saturating_add(len);
    usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(s, e)| bytes.get(s..e))
        .ok_or(FatbinError::Truncated {
            what,
            needed: end,
            had: bytes.len() as u64,
        })
}

/// The header's size and the size of the files after it.
fn header(fatbin: &[u8]) -> Result<(u64, u64), FatbinError> {
    if !fatbin.starts_with(&MAGIC) {
        return Err(FatbinError::NotAFatBinary);
    }
    let header_bytes = u16_at(fatbin, 6, "the fat binary's header")?;
    let files_bytes = u64_at(fatbin, 8, "the fat binary's header")?;
    Ok((header_bytes.into(), files_bytes))
}

/// The files of a fat binary, in order.
pub(crate) fn entries(fatbin: &[u8]) -> Result<Vec<Entry<'_>>, FatbinError> {
    let (header_bytes, files_bytes) = header(fatbin)?;
    let mut files = span(fatbin, header_bytes, files_bytes, "the fat binary's files")?;
    let mut found = Vec::new();
    while !files.is_empty() {
        let what = "a file header of the fat binary";
        let kind = match u16_at(files, 0, what)? {
            1 => Kind::Ptx,
            2 => Kind::MachineCode,
            other => Kind::Other(other),
        };
        let header_bytes = u32_at(files, 4, what)?;
        let padded_bytes = u32_at(files, 8, what)?;
        let compressed_bytes = u32_at(files, 16, what)?;
        let arch = u32_at(files, 28, what)?;
        let flags = u64_at(files, 40, what)?;
        let uncompressed_bytes = u64_at(files, 56, what)?;
        read::<FILE_HEADER_BYTES>(files, 0, what)?;
        let compression = if flags & ZSTD != 0 {
            Compression::Zstd {
                bytes: uncompressed_bytes,
            }
        } else if flags & LZ4 != 0 {
            Compression::Lz4 {
                bytes: uncompressed_bytes,
            }
        } else {
            Compression::None
        };
        let stored_bytes = match compression {
            Compression::None => padded_bytes,
            _ => compressed_bytes,
        };
        let payload = span(
            files,
            header_bytes.into(),
            stored_bytes.into(),
            "a file of the fat binary",
        )?;
        found.push(Entry {
            kind,
            arch,
            compression,
            payload,
        });
        let next = u64::from(header_bytes) + u64::from(padded_bytes.max(compressed_bytes));
        files = files.get(next as usize..).unwrap_or_default();
    }
    Ok(found)
}

impl Entry<'_> {
    /// The payload as stored, decompressed, without the NULs that pad it.
    pub(crate) fn contents(&self) -> Result<Vec<u8>, FatbinError> {
        let failed = |why: String| FatbinError::Decompress {
            arch: self.arch,
            why,
        };
        let mut contents = match self.compression {
            Compression::None => self.payload.to_vec(),
            Compression::Lz4 { bytes } => {
                let bytes = usize::try_from(bytes.min(MAX_PTX_BYTES)).unwrap_or_default();
                lz4_flex::block::decompress(self.payload, bytes)
                    .map_err(|e| failed(e.to_string()))?
            }
            Compression::Zstd { bytes } => {
                let mut out = Vec::with_capacity(
                    usize::try_from(bytes.min(MAX_PTX_BYTES)).unwrap_or_default(),
                );
                let mut decoder = ruzstd::decoding::StreamingDecoder::new(self.payload)
                    .map_err(|e| failed(e.to_string()))?;
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(&mut decoder, MAX_PTX_BYTES),
                    &mut out,
                )
                .map_err(|e| failed(e.to_string()))?;
                out
            }
        };
        while contents.last() == Some(&0) {
            contents.pop();
        }
        Ok(contents)
    }
}

/// The PTX of a fat binary: of its PTX files, the one for the newest architecture (the
/// simulator runs any; the newest says most).
pub(crate) fn ptx(fatbin: &[u8]) -> Result<String, FatbinError> {
    let entries = entries(fatbin)?;
    if entries.is_empty() {
        return Err(FatbinError::Empty);
    }
    let Some(newest) = entries
        .iter()
        .filter(|e| e.kind == Kind::Ptx)
        .max_by_key(|e| e.arch)
    else {
        return Err(FatbinError::NoPtx {
            machine_code_for: entries.iter().map(|e| e.arch).collect(),
        });
    };
    String::from_utf8(newest.contents()?).map_err(|_| FatbinError::NotText { arch: newest.arch })
}

/// The fat binary that starts at `start`, as long as its header says.
///
/// # Safety
/// `start` is null, or points at a fat binary whose header tells its true length, readable to
/// its end.
pub(crate) unsafe fn at<'a>(start: *const c_void) -> Result<&'a [u8], FatbinError> {
    if start.is_null() {
        return Err(FatbinError::NotAFatBinary);
    }
    // SAFETY: a fat binary's header is 16 bytes, readable by the caller's contract.
    let head = unsafe { std::slice::from_raw_parts(start.cast::<u8>(), HEADER_BYTES) };
    let (header_bytes, files_bytes) = header(head)?;
    let total = header_bytes.saturating_add(files_bytes);
    if files_bytes > MAX_PTX_BYTES.saturating_mul(4) {
        return Err(FatbinError::Truncated {
            what: "the fat binary's files (its header gives an impossible size)",
            needed: total,
            had: MAX_PTX_BYTES * 4,
        });
    }
    // SAFETY: the header gives the length, and the caller's contract makes it readable.
    Ok(unsafe { std::slice::from_raw_parts(start.cast::<u8>(), total as usize) })
}

/// The fat binary a `__fatBinC_Wrapper_t` points at (what `__cudaRegisterFatBinary` is given),
/// or the fat binary itself if `start` is one.
///
/// # Safety
/// `start` is null, or points at a wrapper whose pointer is valid, or at a fat binary, as
/// [`at`] requires.
pub(crate) unsafe fn of_wrapper<'a>(start: *const c_void) -> Result<&'a [u8], FatbinError> {
    // SAFETY: the caller's contract.
    unsafe { image_at(start) }.unwrap_or(Err(FatbinError::NotAFatBinary))
}

/// The fat binary at `start` (or that the wrapper at `start` points at), or `None` if `start`
/// is neither, as for PTX text. Never reads past the end of a NUL-terminated string that is not
/// a fat binary: its four magic bytes are read one at a time, and none is NUL.
///
/// # Safety
/// `start` is null, or a NUL-terminated string, or as [`of_wrapper`] requires.
pub(crate) unsafe fn image_at<'a>(start: *const c_void) -> Option<Result<&'a [u8], FatbinError>> {
    let starts_with = |magic: [u8; 4]| {
        magic.iter().enumerate().all(|(i, &byte)| {
            // SAFETY: bytes before `i` matched the magic, none of which is NUL, so byte `i` is
            // within the string (or the header) by the caller's contract.
            unsafe { *start.cast::<u8>().add(i) == byte }
        })
    };
    if start.is_null() {
        return None;
    }
    if starts_with(MAGIC) {
        // SAFETY: a fat binary, by its magic and the caller's contract.
        return Some(unsafe { at(start) });
    }
    if !starts_with(WRAPPER_MAGIC.to_le_bytes()) {
        return None;
    }
    // SAFETY: a wrapper, by its magic: 16 bytes, the fat binary's address at byte 8.
    let head = unsafe { std::slice::from_raw_parts(start.cast::<u8>(), HEADER_BYTES) };
    let data = match u64_at(head, 8, "the fat binary's wrapper") {
        Ok(data) => data as usize as *const c_void,
        Err(e) => return Some(Err(e)),
    };
    // SAFETY: the wrapper's pointer, valid by the caller's contract.
    Some(unsafe { at(data) })
}

/// Says on stderr why a fat binary gives no PTX, and answers as NVIDIA's driver does for an
/// image it cannot use.
pub(crate) fn refused(why: FatbinError) -> cudarc::driver::sys::CUresult {
    use cudarc::driver::sys::cudaError_enum as E;
    eprintln!("simcuda: the program's device code cannot be loaded: {why}");
    match why {
        FatbinError::NoPtx { .. } => E::CUDA_ERROR_NO_BINARY_FOR_GPU,
        _ => E::CUDA_ERROR_INVALID_IMAGE,
    }
}

#[cfg(test)]
#[path = "fatbin_tests.rs"]
mod tests;
