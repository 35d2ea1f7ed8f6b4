//! 24 (capstone): a row softmax in one kernel, one block per row: row max, sum of exponentials
//! and normalisation, combined across the block with warp shuffles.
//!
//! An extra size n from the instructor becomes 4 rows of n columns.

use super::scaled_for_timing;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::element_f64;
use crate::random::Rng;

/// BLOCK_SIZE in the kernel file: the threads that share a row.
const BLOCK: u32 = 256;
/// 32 MiB in and out: rows of the length of a language model's attention scores. The bench
/// multiplies the rows by its timing scale.
const TIMING_SHAPE: (usize, usize) = (4096, 2048);
const TIMED: &str = "timed on a GPU";

/// Softmax of each row, in double precision and rounded once.
pub(super) fn softmax_rows(x: &[f32], cols: usize) -> Vec<f32> {
    if cols == 0 {
        return Vec::new();
    }
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

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
                .shape_2d("out", rows, cols)
                .diagnose(diagnose)
                .bytes_moved(8 * elements as u64)
                .for_timing(why == TIMED)
        })
        .collect()
}

/// Below this, expf(x) underflows to 0 in float; above 88.7 it overflows to inf.
const EXP_UNDERFLOW: f32 = -87.0;
const EXP_OVERFLOW: f32 = 88.7;

/// Names the typical mistakes of 24 from the wrong rows.
fn diagnose(ev: &Evidence) -> Option<String> {
    let cols = ev.count("cols");
    let x = ev.case.f32s("in");
    let &first = ev.wrong.first()?;
    if cols == 0 {
        return None;
    }
    let row_of = |i: usize| &x[i / cols * cols..(i / cols + 1) * cols];
    let row_max = |i: usize| row_of(i).iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let actual = |i: usize| element_f64(ev.actual, i);
    let broken = |i: usize| {
        !ev.never_written(i)
            && (!actual(i).is_finite() || (actual(i) == 0.0 && element_f64(ev.expected, i) > 0.0))
    };
    // The wrong elements of the first wrong row.
    let row: Vec<usize> = ev
        .wrong
        .iter()
        .copied()
        .take_while(|&i| i / cols == first / cols)
        .collect();
    if row.iter().any(|&i| broken(i)) {
        let max = row_max(first);
        if max > EXP_OVERFLOW {
            return Some(format!(
                "row {} holds values up to {max}, and expf overflows to inf above 88.7: subtract \
                 the row's max from every element before expf, in the sum and in the output",
                first / cols
            ));
        }
        if max < EXP_UNDERFLOW {
            return Some(format!(
                "every element of row {} is below -87 (its max is {max}), where expf underflows to \
                 0 and the row becomes 0 / 0: subtract the row's own max, found starting from \
                 -infinity (a max that starts at 0 is larger than every element of this row)",
                first / cols
            ));
        }
        if row
            .iter()
            .any(|&i| !ev.never_written(i) && actual(i).is_nan())
        {
            return Some(
                "NaN although the row's values are moderate: the threads do not agree on the \
                 row's max or sum. Every thread needs the block's result: __shfl_xor_sync leaves \
                 it in every lane, __shfl_down_sync only in lane 0"
                    .into(),
            );
        }
    }
    // Right proportions within each warp's elements of a row, the wrong scale.
    let group = |i: usize| (i / cols, (i % cols) % BLOCK as usize / 32);
    let mut scales: Vec<((usize, usize), f64)> = Vec::new();
    for &i in ev.wrong {
        let ratio = actual(i) / element_f64(ev.expected, i);
        if !ratio.is_finite() || ev.never_written(i) {
            return None;
        }
        match scales.iter().find(|(g, _)| *g == group(i)) {
            Some((_, s)) if (s - ratio).abs() > 1e-3 * s.abs() => return None,
            Some(_) => {}
            None => scales.push((group(i), ratio)),
        }
    }
    // Only two warps of one row with different scales show per-warp sums: rows differ in their
    // sums, so a scale that differs from row to row says nothing about warps.
    let differs = scales
        .windows(2)
        .any(|w| w[0].0 .0 == w[1].0 .0 && (w[0].1 - w[1].1).abs() > 1e-3 * w[0].1.abs());
    if differs {
        return Some(
            "each warp's elements of a row are in the right proportions but scaled differently: \
             each warp divides by its own part of the sum; combine the warps' sums across the block"
                .into(),
        );
    }
    // One factor for a whole row says the sum is wrong; for a few elements it says nothing.
    let whole_rows = scales.iter().all(|&((r, _), factor)| {
        (r * cols..(r + 1) * cols).all(|i| {
            let scaled = factor * element_f64(ev.expected, i);
            (actual(i) - scaled).abs() <= 1e-3 * scaled.abs() + 1e-6
        })
    });
    let ((row, _), factor) = scales[0];
    whole_rows.then(|| {
        format!(
            "every wrong row is in the right proportions but scaled by one factor ({factor:.4} in \
             row {row}): the exponentials are not divided by the row's whole sum (or are divided \
             by another number); every element needs expf(x - max) / sum"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnosis(why: &str, actual: impl Fn(&Case) -> Vec<f32>) -> Option<String> {
        let case = cases(&CaseOptions::default())
            .into_iter()
            .find(|c| c.name.contains(why))
            .unwrap();
        Evidence::with_actual(&case, "out", &HostData::F32(actual(&case)), |ev| {
            (case.diagnose.as_ref().unwrap())(ev)
        })
    }

    /// Softmax without the max subtracted, in float as a kernel computes it.
    fn unshifted(case: &Case) -> Vec<f32> {
        let cols = case.f32s("in").len() / 3;
        case.f32s("in")
            .chunks(cols)
            .flat_map(|row| {
                let sum: f32 = row.iter().map(|v| v.exp()).sum();
                row.iter().map(move |v| v.exp() / sum)
            })
            .collect()
    }

    #[test]
    fn overflow_underflow_and_per_warp_sums_are_named_apart() {
        let said = diagnosis("large values", unshifted).unwrap();
        assert!(
            said.contains("subtract") && said.contains("overflows"),
            "{said}"
        );
        let said = diagnosis("very negative", unshifted).unwrap();
        assert!(said.contains("-infinity"), "{said}");
        let per_warp = |case: &Case| {
            // Row of 1000: each warp of the block divides by its own share of the sum.
            let x = case.f32s("in");
            let cols = 1000;
            let mut out = softmax_rows(x, cols);
            for (i, v) in out.iter_mut().enumerate() {
                *v *= 1.0 + ((i % cols) % 256 / 32) as f32;
            }
            out
        };
        let said = diagnosis("rows not a multiple", per_warp).unwrap();
        assert!(said.contains("across the block"), "{said}");
        let off = |case: &Case| {
            let mut out = softmax_rows(case.f32s("in"), 1000);
            out[3] *= 2.0;
            out
        };
        assert_eq!(diagnosis("rows not a multiple", off), None);
        // Never divided by the sum: each row has its own factor, one per row, not per warp.
        let unnormalised = |case: &Case| {
            let x = case.f32s("in");
            let cols = x.len() / 3;
            x.chunks(cols)
                .flat_map(|row| {
                    let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                    row.iter().map(move |v| (v - max).exp())
                })
                .collect()
        };
        let said = diagnosis("shorter than a warp", unnormalised).unwrap();
        assert!(
            said.contains("whole sum") && !said.contains("warp"),
            "{said}"
        );
        let nan = |case: &Case| {
            let mut out = vec![f32::NAN; case.f32s("in").len()];
            out[0] = 0.0;
            out
        };
        assert!(diagnosis("rows not a multiple", nan)
            .unwrap()
            .contains("every lane"));
    }

    #[test]
    fn rows_of_no_columns_have_no_softmax() {
        assert!(softmax_rows(&[], 0).is_empty());
    }

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
