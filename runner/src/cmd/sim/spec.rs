//! The value language shared by `--arg`, `--set` and a plan's buffers: a scalar `TYPE=V`, or a
//! buffer `TYPE[N]` with its initial contents (`=random`, `=zeros`, `=iota`, `=V` for every
//! element, `=@FILE` from a `.npy` or raw little-endian file; `TYPE[]=@FILE` takes N from it).

use super::files;
use super::types::{ElemType, TYPE_NAMES};
use anyhow::bail;
use checks::random::Rng;
use std::path::{Path, PathBuf};

/// Largest buffer one spec may ask for: the simulator's memory holds 4 GiB in all.
pub(super) const MAX_BUFFER_BYTES: u64 = 4 << 30;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum ValueSpec {
    Scalar { ty: ElemType, bytes: Vec<u8> },
    Buffer(BufferSpec),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct BufferSpec {
    pub ty: ElemType,
    /// Elements; `None` for `TYPE[]`, whose length comes from its file or its variable.
    pub len: Option<u64>,
    pub init: Init,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Init {
    Random,
    Zeros,
    Iota,
    /// Every component set to this number.
    Value(String),
    File(PathBuf),
}

const SYNTAX: &str = "expected a buffer TYPE[N] (=random, =zeros, =iota, =V or =@FILE.npy) or a \
    scalar TYPE=V, e.g. f32[1024]=@x.npy, i32[256]=zeros, f32=2.5";

/// Reads `text`; a file it names is taken relative to `base`.
pub(super) fn parse(text: &str, base: &Path) -> Result<ValueSpec, String> {
    let (head, value) = match text.split_once('=') {
        Some((head, value)) => (head.trim(), Some(value.trim())),
        None => (text.trim(), None),
    };
    let (type_name, len) = match head.split_once('[') {
        Some((name, rest)) => {
            let count = rest.strip_suffix(']').ok_or(SYNTAX)?.trim();
            let len = match count {
                "" => None,
                n => Some(
                    n.parse::<u64>()
                        .map_err(|_| format!("{n:?} is not a length; {SYNTAX}"))?,
                ),
            };
            (name, Some(len))
        }
        None => (head, None),
    };
    let ty = ElemType::parse(type_name)
        .ok_or_else(|| format!("unknown type {type_name:?}: expected {TYPE_NAMES}"))?;
    let Some(len) = len else {
        let value = value.ok_or(SYNTAX)?;
        let mut bytes = Vec::new();
        ty.push_parsed(value, &mut bytes)?;
        return Ok(ValueSpec::Scalar { ty, bytes });
    };
    let init = match value.unwrap_or("random") {
        "random" => Init::Random,
        "zeros" => Init::Zeros,
        "iota" => Init::Iota,
        file if file.starts_with('@') => Init::File(base.join(file[1..].trim())),
        number => {
            ty.scalar.push_parsed(number, &mut Vec::new())?;
            Init::Value(number.to_string())
        }
    };
    Ok(ValueSpec::Buffer(BufferSpec { ty, len, init }))
}

impl BufferSpec {
    /// The buffer's bytes. `fits` is the length in elements its place requires (a variable's),
    /// when it has one; a length given or read that differs from it is an error.
    pub(super) fn contents(&self, fits: Option<u64>, rng: &mut Rng) -> anyhow::Result<Vec<u8>> {
        let elem = self.ty.bytes() as u64;
        if let Init::File(path) = &self.init {
            let bytes = files::read(path, self.ty, self.len.or(fits))?;
            return Ok(bytes);
        }
        let Some(len) = self.len.or(fits) else {
            bail!(
                "{}[] has no file to take its length from: give it, as in {}[1024]",
                self.ty,
                self.ty
            );
        };
        if let (Some(want), Some(given)) = (fits, self.len) {
            if want != given {
                bail!("it holds {want} elements of {}, not {given}", self.ty);
            }
        }
        let total = len.saturating_mul(elem);
        if total > MAX_BUFFER_BYTES {
            bail!(
                "{}[{len}] is {total} bytes; the simulator holds at most {MAX_BUFFER_BYTES} bytes (4 GiB) \
                 of device memory, so use a smaller buffer",
                self.ty
            );
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(total as usize)
            .map_err(|_| anyhow::anyhow!("not enough memory for {total} bytes"))?;
        let scalar = self.ty.scalar;
        let components = len * self.ty.lanes as u64;
        let mut constant = Vec::new();
        if let Init::Value(v) = &self.init {
            scalar
                .push_parsed(v, &mut constant)
                .map_err(anyhow::Error::msg)?;
        }
        for i in 0..components {
            match &self.init {
                Init::Random => scalar.push_random(rng, &mut bytes),
                Init::Zeros => bytes.resize(bytes.len() + scalar.bytes(), 0),
                Init::Iota => scalar.push_f64(i as f64, &mut bytes),
                Init::Value(_) => bytes.extend_from_slice(&constant),
                Init::File(_) => unreachable!("read above"),
            }
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(text: &str) -> BufferSpec {
        match parse(text, Path::new("/data")).unwrap() {
            ValueSpec::Buffer(b) => b,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn buffers_take_their_fill_and_files_are_found_beside_the_base() {
        let b = buffer("u16[4]=iota");
        let bytes = b.contents(None, &mut Rng::new(1)).unwrap();
        assert_eq!(bytes, [0, 0, 1, 0, 2, 0, 3, 0]);
        let b = buffer("float2[2]=1.5");
        let bytes = b.contents(None, &mut Rng::new(1)).unwrap();
        assert_eq!(bytes, 1.5f32.to_le_bytes().repeat(4));
        assert_eq!(
            buffer("f32[]=@in.npy").init,
            Init::File("/data/in.npy".into())
        );
        assert_eq!(buffer("i8[3]").init, Init::Random);
    }

    #[test]
    fn a_length_comes_from_the_variable_or_must_equal_it() {
        let b = buffer("f32[]=zeros");
        assert_eq!(b.contents(Some(16), &mut Rng::new(1)).unwrap().len(), 64);
        assert!(b.contents(None, &mut Rng::new(1)).is_err());
        let wrong = buffer("f32[8]=zeros").contents(Some(16), &mut Rng::new(1));
        assert!(wrong.unwrap_err().to_string().contains("holds 16 elements"));
    }

    #[test]
    fn scalars_and_mistakes() {
        assert_eq!(
            parse("f16=1", Path::new("")).unwrap(),
            ValueSpec::Scalar {
                ty: ElemType::parse("f16").unwrap(),
                bytes: 0x3c00u16.to_le_bytes().to_vec()
            }
        );
        assert!(parse("f32", Path::new("")).is_err());
        assert!(parse("q32=1", Path::new(""))
            .unwrap_err()
            .contains("unknown type"));
        assert!(parse("u8[4]=300", Path::new(""))
            .unwrap_err()
            .contains("does not fit"));
        assert!(parse("f32[x]", Path::new(""))
            .unwrap_err()
            .contains("not a length"));
    }
}
