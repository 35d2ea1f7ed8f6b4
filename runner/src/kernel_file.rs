//! Reading a student's kernel file: a regular file of bounded size holding UTF-8 text.
//!
//! Whatever path a student (or a typo) gives, reading it must end quickly and in bounded memory:
//! the file's type is looked at before it is opened, so a FIFO or a device is never opened at
//! all, and no more than the size limit is ever read. The text is decoded as UTF-8 with a leading
//! byte-order mark dropped (some Windows editors write one; the compiler would reject it as an
//! invisible character), and binary content is refused in one line instead of being compiled.

use std::io::Read;
use std::path::Path;

/// The largest kernel file read: the longest exercise is a few KB, so anything near this is not
/// a kernel file.
pub const MAX_BYTES: u64 = 1 << 20;

const BYTE_ORDER_MARK: &str = "\u{feff}";

/// Why a kernel file cannot be used; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum KernelFileError {
    // Not a `source` (thiserror would chain it, and `{:#}` would then say the reason twice).
    /// The system refused to look at or read the file.
    #[error("{path}: {error}")]
    Io {
        /// The path as given.
        path: String,
        /// Why (not found, permission denied).
        error: std::io::Error,
    },
    /// A folder, a FIFO, a device or a socket.
    #[error("{path} is {kind}, not a regular file: give the path of a .cu file")]
    NotAFile {
        /// The path as given.
        path: String,
        /// What it is instead, in words ("a folder").
        kind: &'static str,
    },
    #[error(
        "{path} is {size} bytes, over the {} MiB a kernel file may have: is it the right file?",
        MAX_BYTES >> 20
    )]
    /// Over [`MAX_BYTES`].
    TooLarge {
        /// The path as given.
        path: String,
        /// Its bytes.
        size: u64,
    },
    #[error(
        "{path} is not UTF-8 text (line {line}): save it as UTF-8 in your editor, or check that \
         it is the right file"
    )]
    /// Text in another encoding (Latin-1, UTF-16).
    NotUtf8 {
        /// The path as given.
        path: String,
        /// The first line that is not UTF-8 (1-based).
        line: usize,
    },
    #[error(
        "{path} holds binary content ({what} on line {line}), not CUDA source: \
         check that it is the right file"
    )]
    /// Bytes no source file holds (NUL, control characters other than whitespace).
    Binary {
        /// The path as given.
        path: String,
        /// The first such byte, in words ("a NUL byte").
        what: String,
        /// Its line (1-based).
        line: usize,
    },
}

/// Reads the kernel file at `path` as text; see the module's comment for what is refused.
pub fn read(path: &Path) -> Result<String, KernelFileError> {
    let shown = path.display().to_string();
    let io = |error| KernelFileError::Io {
        path: shown.clone(),
        error,
    };
    // `metadata` follows a symbolic link, so a link to a regular file is fine; what it points at
    // is what would be opened.
    let metadata = std::fs::metadata(path).map_err(io)?;
    check_type(&metadata, &shown)?;
    let file = open_nonblocking(path).map_err(io)?;
    // The path may have been replaced since it was looked at: what was opened is what counts.
    check_type(&file.metadata().map_err(io)?, &shown)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(KernelFileError::TooLarge {
            path: shown,
            size: metadata.len().max(bytes.len() as u64),
        });
    }
    decode(bytes, &shown)
}

/// Opens `path` for reading without waiting in the open itself: opening a FIFO for reading
/// waits for a writer, for ever if none comes, and a path looked at a moment before may since
/// have been replaced by one. The caller checks the type of what was opened.
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// What a path is, in a student's words ("a folder", "a named pipe (FIFO)").
pub fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_file() {
        "a file"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

fn check_type(metadata: &std::fs::Metadata, shown: &str) -> Result<(), KernelFileError> {
    if !metadata.is_file() {
        return Err(KernelFileError::NotAFile {
            path: shown.into(),
            kind: kind_of(metadata),
        });
    }
    if metadata.len() > MAX_BYTES {
        return Err(KernelFileError::TooLarge {
            path: shown.into(),
            size: metadata.len(),
        });
    }
    Ok(())
}

/// The text of a kernel file's bytes: UTF-8 without a leading byte-order mark, and no control
/// characters other than the whitespace ones (tab, line and page breaks).
pub fn decode(bytes: Vec<u8>, shown: &str) -> Result<String, KernelFileError> {
    let line_of = |bytes: &[u8], at: usize| bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    if let Some(at) = bytes.iter().position(|&b| is_binary(b)) {
        let what = match bytes[at] {
            0 => "a NUL byte".to_string(),
            b => format!("the control byte 0x{b:02x}"),
        };
        return Err(KernelFileError::Binary {
            path: shown.into(),
            what,
            line: line_of(&bytes, at),
        });
    }
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        KernelFileError::NotUtf8 {
            path: shown.into(),
            line: line_of(e.as_bytes(), at),
        }
    })?;
    if text.starts_with(BYTE_ORDER_MARK) {
        text.drain(..BYTE_ORDER_MARK.len());
    }
    Ok(text)
}

fn is_binary(byte: u8) -> bool {
    byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_dropped_and_only_at_the_start() {
        let text = decode("\u{feff}int x;\u{feff}".as_bytes().to_vec(), "k.cu").unwrap();
        assert_eq!(text, "int x;\u{feff}");
    }

    #[test]
    fn binary_content_is_refused_with_its_line() {
        let err = decode(b"int x;\nint \0y;".to_vec(), "k.cu").unwrap_err();
        assert!(
            matches!(err, KernelFileError::Binary { line: 2, .. }),
            "{err}"
        );
        let err = decode(b"a\n\xff\xfe".to_vec(), "k.cu").unwrap_err();
        assert!(
            matches!(err, KernelFileError::NotUtf8 { line: 2, .. }),
            "{err}"
        );
        assert!(decode(b"a\tb\r\n\x0c".to_vec(), "k.cu").is_ok());
    }
}
