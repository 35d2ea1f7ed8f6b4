//! Buffer contents from and to files: `.npy` (NumPy's format; the header read by `npyz`) or raw
//! little-endian bytes (any other name).
//!
//! Files are written with a header of our own, 20 lines, rather than through `npyz`: its
//! writers are typed per Rust element type, and it has no half-precision type without a
//! feature its released versions do not offer, while here every buffer is already bytes.

use super::spec::MAX_BUFFER_BYTES;
use super::types::ElemType;
use anyhow::{bail, Context};
use std::io::Read;
use std::path::Path;

fn is_npy(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// The bytes of `path` as a buffer of `ty`: all of it, which must be `len` elements when given.
pub(super) fn read(path: &Path, ty: ElemType, len: Option<u64>) -> anyhow::Result<Vec<u8>> {
    let shown = path.display();
    let file = runner::kernel_file::open_nonblocking(path)
        .with_context(|| format!("cannot read {shown}: check the path"))?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        bail!(
            "{shown} is {}, not a file of values",
            runner::kernel_file::kind_of(&metadata)
        );
    }
    if metadata.len() > MAX_BUFFER_BYTES + 4096 {
        bail!("{shown} is larger than the simulator's 4 GiB of device memory");
    }
    let mut bytes = Vec::new();
    file.take(MAX_BUFFER_BYTES + 4096)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {shown}"))?;
    let data = if is_npy(path) {
        npy_data(&bytes, ty).with_context(|| format!("{shown}"))?
    } else {
        &bytes[..]
    };
    let elem = ty.bytes();
    if data.len() % elem != 0 {
        bail!(
            "{shown} has {} bytes, not a whole number of {ty} ({elem} bytes each)",
            data.len()
        );
    }
    let found = (data.len() / elem) as u64;
    if let Some(len) = len.filter(|&l| l != found) {
        bail!("{shown} holds {found} elements of {ty}; the buffer needs {len}: give {ty}[{found}] or a file of {len}");
    }
    Ok(data.to_vec())
}

/// The data of a `.npy` file, checked against `ty`: same element type, C order.
fn npy_data(bytes: &[u8], ty: ElemType) -> anyhow::Result<&[u8]> {
    let mut rest = bytes;
    let header = npyz::NpyHeader::from_reader(&mut rest)
        .map_err(|e| anyhow::anyhow!("not a .npy file NumPy wrote ({e})"))?;
    let descr = match header.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        _ => bail!(
            "holds structured records; save a plain array of {}",
            ty.scalar
        ),
    };
    let want = ty.scalar.npy_descr();
    // '<', '|' and '=' (native, which is little-endian wherever this runs) all read alike.
    let same = descr.len() == want.len()
        && descr[1..] == want[1..]
        && (descr.starts_with(['<', '|', '=']) || descr.ends_with('1'));
    if !same {
        bail!(
            "holds {descr} values, not {want} ({}): save it with .astype({}){}",
            ty.scalar,
            ty.scalar.numpy_name(),
            if descr.starts_with('>') {
                ".newbyteorder('<')"
            } else {
                ""
            }
        );
    }
    let wide_dims = header.shape().iter().filter(|&&d| d > 1).count();
    if matches!(header.order(), npyz::Order::Fortran) && wide_dims > 1 {
        bail!("is in Fortran order; save np.ascontiguousarray(a) instead");
    }
    let shape = header.shape();
    let expected = shape
        .iter()
        .try_fold(ty.scalar.bytes() as u64, |bytes, &d| bytes.checked_mul(d))
        .filter(|&bytes| bytes <= MAX_BUFFER_BYTES)
        .with_context(|| {
            format!(
                "has shape {shape:?}: more than the simulator's 4 GiB of device memory in {}s; \
                 the header is damaged or the array too large",
                ty.scalar
            )
        })?;
    if (rest.len() as u64) < expected {
        bail!(
            "is cut short: its header promises {expected} bytes of data, it has {}",
            rest.len()
        );
    }
    Ok(&rest[..expected as usize])
}

/// Writes `bytes`, a buffer of `ty`, as a `.npy` file: shape `(n,)`, or `(n, lanes)` for a
/// vector type.
pub(super) fn write_npy(path: &Path, ty: ElemType, bytes: &[u8]) -> anyhow::Result<()> {
    let n = bytes.len() / ty.bytes();
    let shape = if ty.lanes == 1 {
        format!("({n},)")
    } else {
        format!("({n}, {})", ty.lanes)
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        ty.scalar.npy_descr()
    );
    // Format 1.0: magic, version, a 2-byte header length, and a header padded with spaces to a
    // multiple of 64 bytes in all, ending in a newline.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(bytes);
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(name: &str) -> ElemType {
        ElemType::parse(name).unwrap()
    }

    /// A `.npy` file of `f32` with `shape` written in its header and 16 bytes of data.
    fn npy_with_shape(dir: &Path, shape: &str) -> std::path::PathBuf {
        let path = dir.join("lies.npy");
        let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        header.push_str(&" ".repeat(117 - header.len()));
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&[0; 16]);
        std::fs::write(&path, out).unwrap();
        path
    }

    #[test]
    fn a_shape_whose_size_overflows_is_refused_naming_the_file_and_shape() {
        let dir = tempfile::tempdir().unwrap();
        for (shape, shown) in [
            ("(4611686018427387904,)", "[4611686018427387904]"),
            (
                "(4294967296, 4294967296, 16)",
                "[4294967296, 4294967296, 16]",
            ),
            ("(1073741824, 2)", "[1073741824, 2]"),
        ] {
            let path = npy_with_shape(dir.path(), shape);
            let err = format!("{:#}", read(&path, ty("f32"), None).unwrap_err());
            assert!(
                err.contains("lies.npy") && err.contains(&format!("has shape {shown}")),
                "{shape}: {err}"
            );
        }
        let path = npy_with_shape(dir.path(), "(2, 2)");
        assert_eq!(read(&path, ty("f32"), None).unwrap().len(), 16);
    }

    /// Seeded mutations of a valid `.npy` file (bytes of its header changed, shapes at the edges
    /// of u64, the file cut anywhere) are read or refused, never a panic.
    #[test]
    fn mutated_npy_files_are_read_or_refused_never_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let valid = std::fs::read(npy_with_shape(dir.path(), "(2, 2)")).unwrap();
        let shapes = [
            "(0,)",
            "(18446744073709551615,)",
            "(4294967296, 4294967297)",
            "()",
            "(-1,)",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for i in 0..600 {
            let mut bytes = match i % 3 {
                0 => std::fs::read(npy_with_shape(dir.path(), shapes[next(shapes.len())])).unwrap(),
                _ => valid.clone(),
            };
            for _ in 0..next(4) {
                let at = next(bytes.len());
                let pool = b"0123456789(),' x\x00\xff";
                bytes[at] = pool[next(pool.len())];
            }
            bytes.truncate(next(bytes.len() + 1).max(bytes.len() * (i % 2)));
            let path = dir.path().join("m.npy");
            std::fs::write(&path, &bytes).unwrap();
            let _ = read(&path, ty("f32"), None);
        }
    }

    #[test]
    fn a_written_npy_reads_back_with_its_shape_through_npyz() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        let bytes: Vec<u8> = (0..8u16).flat_map(|h| h.to_le_bytes()).collect();
        write_npy(&path, ty("half2"), &bytes).unwrap();
        let file = std::fs::read(&path).unwrap();
        let npy = npyz::NpyFile::new(&file[..]).unwrap();
        assert_eq!(npy.shape(), [4, 2]);
        assert_eq!(npy.dtype().descr(), "'<f2'");
        assert_eq!(
            (file.len() - bytes.len()) % 64,
            0,
            "data starts 64-byte aligned"
        );
        assert_eq!(read(&path, ty("half2"), Some(4)).unwrap(), bytes);
        assert_eq!(read(&path, ty("f16"), None).unwrap().len(), 16);
    }

    #[test]
    fn a_wrong_type_or_length_is_an_error_that_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.npy");
        write_npy(&path, ty("i64"), &[0; 24]).unwrap();
        let err = format!("{:#}", read(&path, ty("f32"), None).unwrap_err());
        assert!(
            err.contains("holds <i8 values, not <f4") && err.contains("astype(np.float32)"),
            "{err}"
        );
        let err = format!("{:#}", read(&path, ty("i64"), Some(4)).unwrap_err());
        assert!(
            err.contains("holds 3 elements of i64; the buffer needs 4"),
            "{err}"
        );
    }

    #[test]
    fn a_raw_file_is_little_endian_bytes_of_whole_elements() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bin");
        std::fs::write(&path, [1, 0, 2, 0, 3]).unwrap();
        let err = read(&path, ty("u16"), None).unwrap_err().to_string();
        assert!(err.contains("not a whole number of u16"), "{err}");
        std::fs::write(&path, [1, 0, 2, 0]).unwrap();
        assert_eq!(read(&path, ty("u16"), Some(2)).unwrap(), [1, 0, 2, 0]);
    }
}
