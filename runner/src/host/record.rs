//! The driver's record of a program's run ([`contract::DriverRecord`], which `libsimcuda`
//! writes at the program's exit), read back: refused with a message that says what to do when
//! another build of the driver wrote it, never misread.

use contract::DRIVER_RECORD_VERSION;
pub use contract::{Direction, DriverRecord as Record, Launch};
use serde::Deserialize;

/// Why a record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The record's JSON is broken or of another shape.
    #[error("the driver's record is not a record: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error(
        "the driver's record is of version {found}, and this runner reads version \
         {DRIVER_RECORD_VERSION}: libsimcuda.so comes from another build of the course; rebuild \
         both with `cargo build --release -p runner -p simdriver`"
    )]
    /// The record is of another version than this runner reads.
    OtherVersion {
        /// The version the record says it is.
        found: u32,
    },
}

/// The version alone, read first: a record of another shape still says which it is.
#[derive(Deserialize)]
struct Version {
    #[serde(default)]
    version: u32,
}

/// Reads a record the driver wrote.
pub fn parse(text: &str) -> Result<Record, ReadError> {
    let Version { version } = serde_json::from_str(text)?;
    if version != DRIVER_RECORD_VERSION {
        return Err(ReadError::OtherVersion { found: version });
    }
    Ok(serde_json::from_str(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_of_another_version_is_refused_with_what_to_do() {
        let mut record = Record {
            version: DRIVER_RECORD_VERSION,
            ..Record::default()
        };
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(parse(&text).unwrap().version, DRIVER_RECORD_VERSION);
        record.version = DRIVER_RECORD_VERSION + 1;
        let text = serde_json::to_string(&record).unwrap();
        let err = parse(&text).unwrap_err().to_string();
        assert!(
            err.contains("cargo build --release -p runner -p simdriver"),
            "{err}"
        );
        let err = parse("{\"calls\": {}}").unwrap_err();
        assert!(matches!(err, ReadError::OtherVersion { found: 0 }), "{err}");
    }
}
