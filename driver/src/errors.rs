//! Error names and strings, as the real driver gives them: a leaf, which the record (naming a
//! failed call) and the entry points that answer a program's questions (`error_calls`) read.

use std::ffi::{CStr, CString};
use std::sync::OnceLock;

/// Every error code NVIDIA's driver names, with its name and description, as its driver 580
/// answered `cuGetErrorName` and `cuGetErrorString` on an H200
/// (scripts/gpu/driver-answers/error_strings.sh wrote the file): a program that prints the message
/// of any code, not only those this driver returns, reads what it would read on a GPU.
const ERROR_TABLE: &str = include_str!("error_strings.tsv");

/// One row of [`ERROR_TABLE`], with the strings NUL-terminated for the C caller.
struct Described {
    code: u32,
    name: CString,
    text: CString,
}

/// The table, parsed once; its strings live as long as the library, so callers may keep them.
fn table() -> &'static [Described] {
    static TABLE: OnceLock<Vec<Described>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ERROR_TABLE
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(parse_row)
            .collect()
    })
}

fn parse_row(line: &str) -> Described {
    let mut fields = line.splitn(3, '\t');
    let mut next = || fields.next().unwrap_or_default();
    let (code, name, text) = (next(), next(), next());
    Described {
        code: code.parse().expect("error_strings.tsv: a code is a number"),
        name: CString::new(name).expect("error_strings.tsv: no NUL in a name"),
        text: CString::new(text).expect("error_strings.tsv: no NUL in a description"),
    }
}

/// Name and description of an error code, where NVIDIA's driver names it.
pub(crate) fn describe(code: u32) -> Option<(&'static CStr, &'static CStr)> {
    table()
        .iter()
        .find(|row| row.code == code)
        .map(|row| (row.name.as_c_str(), row.text.as_c_str()))
}

/// An error's name, for the record.
pub(crate) fn name_of(code: u32) -> String {
    describe(code).map_or_else(
        || format!("CUresult {code}"),
        |(name, _)| name.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn every_code_nvidia_names_is_described_not_only_those_this_driver_returns() {
        // 900 is never returned by the simulated driver (no stream capture), yet a program that
        // prints its message must read NVIDIA's.
        let (name, text) = describe(900).expect("code 900 is in the table");
        assert_eq!(name, c"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
        assert_eq!(text, c"operation not permitted when stream is capturing");
        assert!(table().len() > 100, "the table has {} rows", table().len());
    }

    #[test]
    fn a_code_nvidia_does_not_name_has_no_description() {
        assert!(describe(12345).is_none());
        assert_eq!(name_of(12345), "CUresult 12345");
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<u32> = table().iter().map(|row| row.code).collect();
        codes.dedup();
        assert_eq!(codes.len(), table().len());
    }
}
