//! Global accesses past a `cudaMalloc` allocation's end that stay inside its 256-byte granule,
//! which a GPU maps and so never faults on: under [`PastTheEnd::Report`] they are reported once
//! per line and go ahead on the granule's padding, as on a GPU; under `Fault` they stop the
//! kernel like any other out-of-bounds access.

use super::super::lanes;
use crate::memory::{Allocation, GlobalMemory, GRANULE};
use crate::report::{DiagKey, Diagnostic, DiagnosticKind, PastTheEnd};

/// Whether the accesses of `bad`'s lanes (`len` bytes each at `addrs`) may go ahead under
/// `policy`: every one inside its allocation's granule. Fills `allocs` for those lanes when
/// they may, and leaves it untouched when not.
pub(super) fn goes_on<'a>(
    mem: &'a GlobalMemory,
    policy: PastTheEnd,
    bad: u32,
    addrs: &[u64; 32],
    len: u64,
    allocs: &mut [Option<&'a Allocation>; 32],
) -> bool {
    if policy == PastTheEnd::Fault {
        return false;
    }
    let mut found = [None; 32];
    for l in lanes(bad) {
        match mem.find_mapped(addrs[l], len) {
            Some(a) => found[l] = Some(a),
            None => return false,
        }
    }
    for l in lanes(bad) {
        allocs[l] = found[l];
    }
    true
}

/// The diagnostic of an access that went on, said so, under the key that keeps one per line.
pub(super) fn reported(mut d: Diagnostic, site: u32) -> (DiagKey, Diagnostic) {
    d.message.push_str(&format!(
        "; a GPU maps the rest of the allocation's {GRANULE}-byte granule and does not fault there, so \
         the kernel went on (reading or writing padding): fix the bound, since `runner check` stops at it"
    ));
    (DiagKey(DiagnosticKind::OutOfBounds, site, site), d)
}
