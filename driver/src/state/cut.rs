//! A record per part of a process: hostkit's case runner (`hostkit/python/hostkit_cases.py`)
//! runs a check's cases one after another in one Python interpreter, and asks for each case's
//! record when it ends (`simcudaCutRecord`) and for a start as a new process's between cases
//! (`simcudaStartAfresh`), so that each case's record is the one a process of its own would
//! have written.

use super::{exit, with_driver, Driver};
use std::ffi::{c_char, c_int, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;

/// Writes the record so far to `path`, as the driver writes it at exit, and starts a new one.
/// Returns 0, or -1 where nothing was written (pass-through mode, whose measured times point
/// into the record; a path that cannot be written, said on stderr).
///
/// # Safety
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn simcudaCutRecord(path: *const c_char) -> c_int {
    if path.is_null() || crate::real::active() {
        return -1;
    }
    // SAFETY: NUL-terminated, by the caller's contract.
    let path = OsStr::from_bytes(unsafe { CStr::from_ptr(path) }.to_bytes());
    let json = with_driver(|d| {
        let json = serde_json::to_string_pretty(exit::finished(d));
        // The timeline and what the streams have waited for go on: what the program left
        // behind (Numba's lazy frees) is placed after its case, in nobody's record.
        d.record.data = Default::default();
        d.never_waited_for = 0;
        json
    });
    match json.map(|text| std::fs::write(path, text)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprintln!("simcuda: cannot write {}: {e}", path.to_string_lossy());
            -1
        }
        Err(e) => {
            eprintln!("simcuda: cannot write the record: {e}");
            -1
        }
    }
}

/// Starts as a new process would (a new record and timeline, streams numbered from 1) where
/// nothing the driver holds would carry into what runs next, and returns 1; otherwise changes
/// nothing and returns 0.
#[no_mangle]
pub extern "C" fn simcudaStartAfresh() -> c_int {
    with_driver(|d| {
        if !quiet(d) {
            return 0;
        }
        d.record = Default::default();
        d.streams = super::default_stream_only();
        d.never_waited_for = 0;
        d.earlier_allocations = d.allocations.iter().collect();
        1
    })
}

/// The bytes of the allocations made before the driver last started afresh that are still
/// allocated (Numba never frees the arrays its ufuncs make): left out of what is leaked now.
pub(super) fn earlier_bytes_left(d: &Driver) -> u64 {
    let still = |&&(start, len): &&(u64, u64)| d.allocations.holding(start) == Some((start, len));
    d.earlier_allocations
        .iter()
        .filter(still)
        .map(|(_, len)| len)
        .sum()
}

/// Whether nothing of what ran would reach what runs next: no kernel fault (a GPU's context is
/// lost after one), no copy in flight, no capture under way, no stream but the default one (its
/// number would differ from a new process's), no managed or mapped memory.
fn quiet(d: &Driver) -> bool {
    d.sticky.is_none()
        && d.unseen_fault.is_none()
        && d.in_flight.is_empty()
        && d.captures.is_empty()
        && d.streams.len() == 1
        && d.mirrors.blocks.is_empty()
        && !crate::real::active()
}
