//! 04: three elementwise steps (scale and shift, ReLU, square) fused into one kernel, so the data
//! makes one trip through memory instead of three.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::{any_of, Tolerance};
use crate::random::Rng;

const BLOCK: u32 = 256;

pub(super) fn fused(x: f32, a: f32, b: f32) -> f32 {
    let shifted = a.mul_add(x, b);
    let relu = shifted.max(0.0);
    relu * relu
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let a = rng.range_f32(0.5, 2.0);
            let b = rng.range_f32(-1.0, 1.0);
            Case::new(
                size_label(n, BLOCK as usize),
                "fused",
                Launch::covering(n, BLOCK),
            )
            .input("x", HostData::F32(rng.vec_f32(n, -10.0, 10.0)))
            .output("y", HostData::F32(vec![0.0; n]))
            .scalar("a", Scalar::F32(a))
            .scalar("b", Scalar::F32(b))
            .scalar("n", Scalar::I32(n as i32))
            .reference(move |case| {
                let y = case.f32s("x").iter().map(|&x| fused(x, a, b)).collect();
                vec![("y".into(), HostData::F32(y))]
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
            .diagnose(diagnose)
            .inputs_of(move |case, _, i| {
                Some(format!("x = {}, a = {a}, b = {b}", case.f32s("x")[i]))
            })
        })
        .collect()
}

/// Close enough to say a formula explains a value: far looser than the check, far tighter than
/// the differences between the formulas.
const FITS: Tolerance = Tolerance {
    abs: 1e-4,
    rel: 1e-4,
};

fn f32_scalar(case: &Case, name: &str) -> f32 {
    match case.scalar_value(name) {
        Scalar::F32(v) => v,
        other => panic!("{name} is {other:?}, not a float"),
    }
}

/// What a kernel computes from x, a and b fixed.
type Formula<'a> = Box<dyn Fn(f32) -> f32 + 'a>;

/// The three steps done wrong, each recognised by computing what it gives for every input; then
/// the index mistakes of exercise 01.
fn diagnose(ev: &Evidence) -> Option<String> {
    let x = ev.case.f32s("x");
    let (a, b) = (f32_scalar(ev.case, "a"), f32_scalar(ev.case, "b"));
    let relu = |t: f32| t.max(0.0);
    let formulas: [(&str, Formula); 4] = [
        (
            "negative values of a * x + b come out squared instead of 0: the ReLU must cut \
             them to 0 before the square (fmaxf(t, 0.0f), then t * t)",
            Box::new(|x| a.mul_add(x, b).powi(2)),
        ),
        (
            "the positive values of a * x + b come out 0 and the negative ones squared: the \
             ReLU keeps the larger of t and 0, fmaxf(t, 0.0f), not fminf",
            Box::new(|x| a.mul_add(x, b).min(0.0).powi(2)),
        ),
        (
            "y is relu(b * x + a)^2: a and b are swapped (a multiplies x, b is added)",
            Box::new(|x| relu(b.mul_add(x, a)).powi(2)),
        ),
        (
            "y is relu(a * x + b) without the last step: square it (t * t)",
            Box::new(|x| relu(a.mul_add(x, b))),
        ),
    ];
    let causes = formulas
        .iter()
        .filter(|(_, formula)| ev.every_element_is(|i| formula(x[i]) as f64, FITS))
        .map(|(cause, _)| cause.to_string())
        .collect();
    any_of(causes).or_else(|| super::ex01_thread_index::index_mistake(ev))
}

#[cfg(test)]
mod diagnosis_tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn cause(case: &Case, kernel: impl Fn(f32, f32, f32) -> f32) -> String {
        let (a, b) = (f32_scalar(case, "a"), f32_scalar(case, "b"));
        let y = case.f32s("x").iter().map(|&x| kernel(x, a, b)).collect();
        likely_cause_of(case, "y", HostData::F32(y)).unwrap_or_default()
    }

    #[test]
    fn each_wrong_step_is_named_on_a_larger_case_and_only_it() {
        let case = cases(&CaseOptions::default()).remove(1);
        let relu = |t: f32| t.max(0.0);
        let found = [
            cause(&case, |x, a, b| relu((a * x + b) * (a * x + b))),
            cause(&case, |x, a, b| (a * x + b).min(0.0).powi(2)),
            cause(&case, |x, a, b| relu(b * x + a).powi(2)),
            cause(&case, |x, a, b| relu(a * x + b)),
        ];
        for (cause, words) in
            found
                .iter()
                .zip(["before the square", "fminf", "swapped", "square it"])
        {
            assert!(cause.contains(words) && !cause.contains("; or"), "{cause}");
        }
        assert_eq!(cause(&case, |x, a, b| relu(a * x - b).powi(2)), "");
    }

    #[test]
    fn a_single_element_names_every_step_that_fits() {
        let case = cases(&CaseOptions::default()).remove(0);
        let cause = cause(&case, |_, _, _| 0.0);
        assert!(cause.contains("fminf"), "{cause}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn negative_values_are_cut_to_zero_before_squaring() {
        assert_eq!(super::fused(-3.0, 1.0, 0.0), 0.0);
        assert_eq!(super::fused(3.0, 2.0, 1.0), 49.0);
    }
}
