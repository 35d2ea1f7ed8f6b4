//! cpp01: the first CUDA C++ program, y = alpha * x + y on the runtime API. The cases are
//! exercise 25's (the same program in Rust); the C++ mistakes add one: a copy sized in elements.

use super::ex25_first_program;
use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

pub fn cases(rng: &mut Rng) -> Vec<HostCase> {
    ex25_first_program::cases(rng)
}

/// y unchanged (exercise 25's reading), or right only on its first quarter: cudaMemcpy was given
/// n, a count of elements, where it takes bytes, so it copied n / 4 floats.
pub fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    if let Some(said) = ex25_first_program::diagnose(case, name, actual) {
        return Some(said);
    }
    let (Some(HostData::F32(want)), HostData::F32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let quarter = want.len() / 4;
    let first_right = want.len() == got.len() && quarter > 0 && want[..quarter] == got[..quarter];
    (first_right && want[quarter..] != got[quarter..]).then(|| {
        format!(
            "the first {quarter} elements of {name} are right and the rest are not, a quarter of \
             the array: a copy was given the number of elements where cudaMemcpy takes bytes \
             (n * sizeof(float))"
        )
    })
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
}
