//! py09: exercise 25's saxpy from Python with cuda.core (the kernel CUDA C++, compiled by
//! cuda.core's Program, launched by its launch): the same cases.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// The threads per block the exercise's program launches with.
const BLOCK: usize = 256;

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    super::ex25_first_program::cases(rng)
}

/// Exercise 25's diagnosis, then a grid rounded down: every element before the last partial
/// block right, and those after it as they came in.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    if let Some(cause) = super::ex25_first_program::diagnose(case, name, actual) {
        return Some(cause);
    }
    let covered = super::ex25_first_program::whole_blocks_computed(case, name, actual, BLOCK)?;
    let n = actual.len();
    Some(format!(
        "the first {covered} elements are right and the last {} were never computed: the grid \
         has n / {BLOCK} blocks, rounded down; round up, (n + {BLOCK} - 1) // {BLOCK}",
        n - covered
    ))
}
