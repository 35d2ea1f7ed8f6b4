//! 24 (capstone): a row softmax in one kernel, one block per row: row max, sum of exponentials
//! and normalisation, combined across the block with warp shuffles.
//!
//! An extra size n from the instructor becomes 4 rows of n columns.

use super::scaled_for_timing;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// BLOCK_SIZE in the kernel file: the threads that share a row.
const BLOCK: u32 = 256;
/// 32 MiB in and out: rows of the length of a language model's attention scores. The bench
/// multiplies the rows by its timing scale.
const TIMING_SHAPE: (usize, usize) = (4096, 2048);
const TIMED: &str = "timed on a GPU";

/// Softmax of each row, in double precision and rounded once.
pub fn softmax_rows(x: &[f32], cols: usize) -> Vec<f32> {
    x.chunks(cols)
        .flat_map(|row| {
            let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
            let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
            row.iter()
                .map(move |&v| ((v as f64 - max).exp() / sum) as f32)
        })
        .collect()
}

/// How a case's values are drawn.
#[derive(Clone, Copy)]
enum Values {
    /// Uniform in [lo, hi).
    Uniform(f32, f32),
    /// Every element the same.
    Constant(f32),
}

fn label(rows: usize, cols: usize, why: &str) -> String {
    if why.is_empty() {
        format!("{rows} x {cols}")
    } else {
        format!("{rows} x {cols} ({why})")
    }
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let seeded = (
        1 + rng.next_u64() as usize % 40,
        1 + rng.next_u64() as usize % 3000,
    );
    let normal = Values::Uniform(-10.0, 10.0);
    let mut shapes: Vec<(usize, usize, Values, &str)> = vec![
        (1, 1, normal, "n = 1"),
        (3, 7, normal, "rows shorter than a warp"),
        (2, 1000, normal, "rows not a multiple of the block"),
        (4, 256, Values::Constant(0.5), "every element equal"),
        (
            3,
            500,
            Values::Uniform(100.0, 1000.0),
            "large values: exp overflows unless the max is subtracted",
        ),
        (
            3,
            500,
            Values::Uniform(-300.0, -200.0),
            "very negative values: exp underflows to 0 unless the max is subtracted",
        ),
        (seeded.0, seeded.1, normal, "random shape"),
    ];
    shapes.extend(
        options
            .extra_sizes
            .iter()
            .map(|&n| (4, n, normal, "the extra size as row length")),
    );
    shapes.push((64, 1500, normal, ""));
    if options.timing {
        shapes.push((
            scaled_for_timing(options, TIMING_SHAPE.0),
            TIMING_SHAPE.1,
            normal,
            TIMED,
        ));
    }
    shapes
        .into_iter()
        .map(|(rows, cols, values, why)| {
            let elements = rows * cols;
            let data = match values {
                Values::Uniform(lo, hi) => rng.vec_f32(elements, lo, hi),
                Values::Constant(v) => vec![v; elements],
            };
            let launch = Launch {
                grid: [rows as u32, 1, 1],
                block: [BLOCK, 1, 1],
                shared_bytes: 0,
            };
            Case::new(label(rows, cols, why), "softmax_rows", launch)
                .input("in", HostData::F32(data))
                .output("out", HostData::F32(vec![0.0; elements]))
                .scalar("rows", Scalar::I32(rows as i32))
                .scalar("cols", Scalar::I32(cols as i32))
                .reference(move |case| {
                    vec![(
                        "out".into(),
                        HostData::F32(softmax_rows(case.f32s("in"), cols)),
                    )]
                })
                .bytes_moved(8 * elements as u64)
                .for_timing(why == TIMED)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sum_to_one_and_large_values_stay_finite() {
        let x = [1000.0, 1000.0, 0.0, 1.0, 2.0, 3.0];
        let y = softmax_rows(&x, 3);
        assert_eq!(&y[..2], &[0.5, 0.5]);
        assert_eq!(y[2], 0.0);
        let second: f32 = y[3..].iter().sum();
        assert!((second - 1.0).abs() < 1e-6);
        assert!(y[3] < y[4] && y[4] < y[5]);
    }
}
