//! What a host exercise's program gets from the course: the inputs of one test case, and a
//! place to put its outputs.
//!
//! `runner check` writes each case into a folder (`HOSTKIT_CASE`): one file per input array,
//! raw little-endian elements (`x.f32`, `states.u64`), and `params.txt` with a `name = value`
//! line per number. The program reads them through [`Task`], does its work on the GPU, and
//! hands its results back with [`Task::write_f32s`] and friends; the runner compares them with
//! its CPU reference. Nothing here touches CUDA: the lesson is the program's own.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable that names the case's folder.
pub const CASE_VARIABLE: &str = "HOSTKIT_CASE";

/// One test case: its numbers and the folder its arrays are in.
pub struct Task {
    dir: PathBuf,
    params: BTreeMap<String, String>,
}

/// What went wrong reading a case or writing a result, said so a student knows what to do.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// An element type the course's arrays come in.
pub trait Element: Copy {
    /// The file extension that names the type (`f32`, `u64`).
    const SUFFIX: &'static str;
    /// One element from its little-endian bytes (exactly its size).
    fn from_le(bytes: &[u8]) -> Self;
    /// Appends the element's little-endian bytes to `out`.
    fn to_le(self, out: &mut Vec<u8>);
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SUFFIX: &'static str = stringify!($t);
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("a whole element"))
            }
            fn to_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
element!(f32, f64, u32, i32, u64);

impl Task {
    /// The case `runner check` prepared. Run by hand, without the runner, it says how to run it.
    pub fn open() -> Result<Task, Error> {
        let dir = std::env::var_os(CASE_VARIABLE).ok_or_else(|| {
            Error(format!(
                "this program reads its inputs from the course: run it with `runner check NN` \
                 (which builds it, prepares each test case and checks the results); \
                 {CASE_VARIABLE} is not set"
            ))
        })?;
        Task::open_in(Path::new(&dir))
    }

    /// The case in `dir`.
    pub fn open_in(dir: &Path) -> Result<Task, Error> {
        let path = dir.join("params.txt");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error(format!("cannot read {}: {e}", path.display())))?;
        let params = text
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(name, value)| (name.trim().to_string(), value.trim().to_string()))
            .collect();
        Ok(Task {
            dir: dir.to_path_buf(),
            params,
        })
    }

    /// A whole number of the case (`n`, `steps`, `seed`).
    pub fn param(&self, name: &str) -> Result<u64, Error> {
        let value = self
            .params
            .get(name)
            .ok_or_else(|| Error(format!("the case has no number called {name:?}")))?;
        value.parse().map_err(|_| {
            Error(format!(
                "the case's {name} = {value:?} is not a whole number"
            ))
        })
    }

    /// A real number of the case (`alpha`).
    pub fn real(&self, name: &str) -> Result<f64, Error> {
        let value = self
            .params
            .get(name)
            .ok_or_else(|| Error(format!("the case has no number called {name:?}")))?;
        value
            .parse()
            .map_err(|_| Error(format!("the case's {name} = {value:?} is not a number")))
    }

    /// An input array.
    pub fn read<T: Element>(&self, name: &str) -> Result<Vec<T>, Error> {
        let path = self.dir.join(format!("{name}.{}", T::SUFFIX));
        let bytes = std::fs::read(&path).map_err(|e| {
            Error(format!(
                "the case has no {} array called {name:?} ({}: {e})",
                T::SUFFIX,
                path.display()
            ))
        })?;
        let size = std::mem::size_of::<T>();
        Ok(bytes.chunks_exact(size).map(T::from_le).collect())
    }

    /// Hands back an output array for the runner to check.
    pub fn write<T: Element>(&self, name: &str, values: &[T]) -> Result<(), Error> {
        let path = self.dir.join(format!("out_{name}.{}", T::SUFFIX));
        let mut bytes = Vec::with_capacity(std::mem::size_of_val(values));
        for v in values {
            v.to_le(&mut bytes);
        }
        std::fs::write(&path, bytes)
            .map_err(|e| Error(format!("cannot write {}: {e}", path.display())))
    }

    /// The input array `name` as `f32`s ([`Task::read`] for one type).
    pub fn read_f32s(&self, name: &str) -> Result<Vec<f32>, Error> {
        self.read(name)
    }

    /// Hands back the output array `name` as `f32`s ([`Task::write`] for one type).
    pub fn write_f32s(&self, name: &str, values: &[f32]) -> Result<(), Error> {
        self.write(name, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_written_as_the_runner_does_is_read_back() {
        let dir = std::env::temp_dir().join(format!("hostkit-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("params.txt"), "n = 3\nalpha = 2.5\n").unwrap();
        let x: Vec<u8> = [1.0f32, -2.0, 0.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        std::fs::write(dir.join("x.f32"), x).unwrap();
        let task = Task::open_in(&dir).unwrap();
        assert_eq!(task.param("n").unwrap(), 3);
        assert_eq!(task.real("alpha").unwrap(), 2.5);
        assert_eq!(task.read_f32s("x").unwrap(), vec![1.0, -2.0, 0.5]);
        assert!(task.param("alpha").is_err(), "2.5 is not a whole number");
        assert!(task.read::<u64>("x").is_err(), "x is an f32 array");
        task.write::<u64>("states", &[7, u64::MAX]).unwrap();
        let back = std::fs::read(dir.join("out_states.u64")).unwrap();
        assert_eq!(back.len(), 16);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
