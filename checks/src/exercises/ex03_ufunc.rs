//! 03: the ufunc pattern: the student writes only a scalar device function (the logistic
//! sigmoid); the exercise's own kernel applies it to every element.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::{any_of, Tolerance};
use crate::random::Rng;

const BLOCK: u32 = 256;

/// Inputs where a careless formula goes wrong: zero, large magnitudes where exp overflows.
const SPECIAL: [f32; 6] = [0.0, -0.0, 30.0, -30.0, 100.0, -100.0];

pub(super) fn sigmoid(x: f32) -> f32 {
    (1.0 / (1.0 + (-(x as f64)).exp())) as f32
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let mut x = rng.vec_f32(n, -12.0, 12.0);
            if n > SPECIAL.len() {
                x[..SPECIAL.len()].copy_from_slice(&SPECIAL);
            }
            Case::new(
                size_label(n, BLOCK as usize),
                "apply_ufunc",
                Launch::covering(n, BLOCK),
            )
            .input("x", HostData::F32(x))
            .output("y", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| {
                let y = case.f32s("x").iter().map(|&x| sigmoid(x)).collect();
                vec![("y".into(), HostData::F32(y))]
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
            .diagnose(diagnose)
            .inputs_of(|case, _, i| Some(format!("x = {}", case.f32s("x")[i])))
        })
        .collect()
}

/// Close enough to say a formula explains a value: far looser than the check, far tighter than
/// the differences between the formulas.
const FITS: Tolerance = Tolerance {
    abs: 1e-5,
    rel: 1e-4,
};

/// The sigmoid's usual slips, each recognised by computing what it gives for every input.
fn diagnose(ev: &Evidence) -> Option<String> {
    let x = ev.case.f32s("x");
    let mut causes = Vec::new();
    if ev.every_element_is(|i| sigmoid(-x[i]) as f64, FITS) {
        causes.push(
            "y is the sigmoid of -x, mirrored: the exponent must be -x, expf(-x), not expf(x)"
                .to_string(),
        );
    }
    if ev.every_element_is(|i| (1.0 + (-x[i]).exp()) as f64, FITS) {
        causes.push(
            "y is 1 + e^(-x): `1.0f / 1.0f + expf(-x)` divides before it adds; put the \
             denominator in parentheses, 1.0f / (1.0f + expf(-x))"
                .to_string(),
        );
    }
    let whole = (0..ev.len()).all(|i| [0.0, 1.0].contains(&ev.actual.f64_at(i)));
    let fractions = (0..ev.len()).any(|i| ev.expected.f64_at(i).fract() != 0.0);
    let as_integers = (0..ev.len()).all(|i| {
        // 1 / (1 + (int)e^(-x)): 1 where e^(-x) < 1, 0 where it is 1 or more.
        x[i].abs() < 1e-3 || ev.actual.f64_at(i) == if x[i] > 0.0 { 1.0 } else { 0.0 }
    });
    let all_zero = (0..ev.len()).all(|i| ev.actual.f64_at(i) == 0.0);
    if whole && fractions && as_integers && all_zero {
        causes.push(
            "y is 0 for every x: either y is never set, or an integer division made it 0 \
             (1 / (1 + an int) is 0 or 1); write the constants as floats, 1.0f, and keep e^(-x) \
             a float"
                .to_string(),
        );
    } else if whole && fractions && as_integers {
        causes.push(
            "y is only ever 0 or 1: an integer division (1 / (1 + an int) is 0 or 1); write the \
             constants as floats, 1.0f, and keep e^(-x) a float"
                .to_string(),
        );
    }
    let overflows: Vec<usize> = ev
        .wrong
        .iter()
        .copied()
        .filter(|&i| ev.actual.f64_at(i).is_nan() && !ev.never_written(i) && x[i] > 88.0)
        .collect();
    if !overflows.is_empty() && overflows.len() == ev.wrong.len() {
        causes.push(format!(
            "y is NaN where x = {}: e^x overflows a float above x = 88.7 and infinity / \
             infinity is NaN, as in expf(x) / (1 + expf(x)); use 1.0f / (1.0f + expf(-x)), \
             whose infinity only makes y 0",
            x[overflows[0]]
        ));
    }
    any_of(causes)
}

#[cfg(test)]
mod diagnosis_tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn case_of(n: usize) -> Case {
        cases(&CaseOptions::default())
            .into_iter()
            .find(|c| c.f32s("x").len() == n)
            .unwrap()
    }

    fn cause(case: &Case, kernel: impl Fn(f32) -> f32) -> String {
        let y = case.f32s("x").iter().map(|&x| kernel(x)).collect();
        likely_cause_of(case, "y", HostData::F32(y)).unwrap_or_default()
    }

    #[test]
    fn each_slip_is_named_and_only_it() {
        for n in [1, 1000] {
            let case = case_of(n);
            let mirrored = cause(&case, |x| 1.0 / (1.0 + x.exp()));
            assert!(
                mirrored.contains("expf(x)") && !mirrored.contains("; or"),
                "{mirrored}"
            );
            let precedence = cause(&case, |x| 1.0 / 1.0 + (-x).exp());
            assert!(precedence.contains("parentheses") && !precedence.contains("; or"));
            let integer = cause(&case, |x| (1 / 1i32.wrapping_add((-x).exp() as i32)) as f32);
            assert!(integer.contains("integer division"), "{integer}");
        }
        let overflow = cause(&case_of(1000), |x| x.exp() / (1.0 + x.exp()));
        assert!(
            overflow.contains("x = 100") && !overflow.contains("; or"),
            "{overflow}"
        );
    }

    #[test]
    fn other_wrong_values_are_not_named() {
        let case = case_of(1000);
        assert_eq!(cause(&case, |x| 1.0 / (1.0 + (-2.0 * x).exp())), "");
        assert_eq!(cause(&case, |x| x), "");
        // 0 for one negative x: y never set is as likely as an integer division.
        let zeros = cause(&case_of(1), |_| 0.0);
        assert!(zeros.contains("never set"), "{zeros}");
        assert_eq!(cause(&case, |_| 0.0), "");
    }
}
