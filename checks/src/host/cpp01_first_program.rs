//! cpp01: the first CUDA C++ program, y = alpha * x + y on the runtime API. The cases are
//! exercise 25's (the same program in Rust); the C++ mistakes add one: a copy sized in elements.

use super::ex25_first_program;
use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    ex25_first_program::cases(rng)
}

/// The threads per block the exercise's program launches with.
const BLOCK: usize = 256;

/// y unchanged (exercise 25's reading); right on whole blocks and unchanged after them (a grid
/// rounded down); or right only on its first quarter and unchanged after it: cudaMemcpy was
/// given n, a count of elements, where it takes bytes, so it copied n / 4 floats each way.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    if let Some(said) = ex25_first_program::diagnose(case, name, actual) {
        return Some(said);
    }
    if let Some(covered) = ex25_first_program::whole_blocks_computed(case, name, actual, BLOCK) {
        return Some(format!(
            "the first {covered} elements of {name} are right and the last {} came back as they \
             went in, computed by no thread: the grid has n / {BLOCK} blocks, rounded down; \
             round up, (n + {BLOCK} - 1) / {BLOCK}",
            actual.len() - covered
        ));
    }
    let (Some(HostData::F32(want)), Some(HostData::F32(input)), HostData::F32(got)) =
        (case.expected(name), case.input(name), actual)
    else {
        return None;
    };
    let quarter = want.len() / 4;
    let first_right = want.len() == got.len() && quarter > 0 && want[..quarter] == got[..quarter];
    // A short copy back leaves the rest as the program's own y was; anything else there is
    // another mistake, which this reading would misname.
    (first_right && got[quarter..] == input[quarter..] && want[quarter..] != got[quarter..]).then(
        || {
            format!(
                "the first {quarter} elements of {name} are right and the rest came back as they \
                 went in, a quarter of the array: a copy was given the number of elements where \
                 cudaMemcpy takes bytes (n * sizeof(float))"
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_sized_in_elements_is_named() {
        let case = &cases(&mut Rng::new(1))[1];
        let Some(HostData::F32(want)) = case.expected("y") else {
            panic!("y is f32")
        };
        let Some(HostData::F32(y)) = case.input("y") else {
            panic!("y is f32")
        };
        let quarter = want.len() / 4;
        let mut got = y.clone();
        got[..quarter].copy_from_slice(&want[..quarter]);
        let said = diagnose(case, "y", &HostData::F32(got)).unwrap();
        assert!(said.contains("cudaMemcpy takes bytes"), "{said}");
        assert!(diagnose(case, "y", &HostData::F32(want.clone())).is_none());
    }

    #[test]
    fn a_grid_rounded_down_is_not_called_a_short_copy() {
        // n = 1000: three whole blocks of 256 computed, the last 232 elements as they went in.
        let case = &cases(&mut Rng::new(1))[1];
        let (Some(HostData::F32(want)), Some(HostData::F32(y))) =
            (case.expected("y"), case.input("y"))
        else {
            panic!("y is f32")
        };
        let mut got = y.clone();
        got[..768].copy_from_slice(&want[..768]);
        let said = diagnose(case, "y", &HostData::F32(got.clone())).unwrap();
        assert!(
            said.contains("the last 232 came back as they went in"),
            "{said}"
        );
        assert!(!said.contains("cudaMemcpy takes bytes"), "{said}");
        // Right on the first quarter but wrong, not unchanged, after it: neither reading holds.
        got[300] += 1.0;
        got[800] = want[800] + 1.0;
        assert_eq!(diagnose(case, "y", &HostData::F32(got)), None);
    }
}
