//! 02: vector add with a bounds guard.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let sizes = sizes_1d(options, &[256 * 3 + 1, 65_539]);
    let mut rng = Rng::new(options.seed);
    sizes
        .into_iter()
        .map(|n| {
            Case::new(
                size_label(n, BLOCK as usize),
                "vector_add",
                Launch::covering(n, BLOCK),
            )
            .input("a", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
            .input("b", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
            .output("c", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| {
                let c = case
                    .f32s("a")
                    .iter()
                    .zip(case.f32s("b"))
                    .map(|(a, b)| a + b)
                    .collect();
                vec![("c".into(), HostData::F32(c))]
            })
            .bytes_moved(12 * n as u64)
            .for_timing(n == timing_elements(options))
            .diagnose(super::ex01_thread_index::index_mistake)
            .inputs_of(|case, _, i| {
                Some(format!(
                    "a = {}, b = {}",
                    case.f32s("a")[i],
                    case.f32s("b")[i]
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod diagnosis_tests {
    use super::*;
    use crate::compare::{compare_case, likely_cause_of, Tolerance};

    #[test]
    fn missing_block_index_is_named_and_wrong_elements_show_their_inputs() {
        let case = cases(&CaseOptions::default()).remove(1);
        let (a, b) = (case.f32s("a"), case.f32s("b"));
        let n = a.len();
        let mut c = vec![f32::from_bits(crate::case::POISON_F32_BITS); n];
        for i in 0..256 {
            c[i] = a[i] + b[i];
        }
        let cause = likely_cause_of(&case, "c", HostData::F32(c.clone())).unwrap();
        assert!(cause.contains("blockIdx.x * blockDim.x"), "{cause}");
        let expected = &case.expected()[0].1;
        let mismatch = compare_case(
            &case,
            "c",
            expected,
            &HostData::F32(c),
            Tolerance::default(),
        )
        .unwrap_err();
        let inputs = mismatch.first_wrong[0].inputs.clone().unwrap();
        assert_eq!(inputs, format!("a = {}, b = {}", a[256], b[256]));
    }
}
