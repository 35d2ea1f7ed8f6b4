//! 13: column sums (one thread per column: coalesced as written) and row sums (32 threads per
//! row, so that a warp can read a row together). The target on sectors per request is measured
//! on the last case, a `row_sums` case whose rows start on 32-byte boundaries, where a
//! coalesced kernel needs exactly 4 sectors per request and one thread per row needs 32.

use super::scaled_for_timing;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::{element_f64, Predicted};
use crate::random::Rng;

const BLOCK: u32 = 256;
const THREADS_PER_ROW: usize = 32;

/// Timed: 2048 x 4096 floats, 32 MiB; the bench multiplies the rows by its timing scale.
const TIMING_SHAPE: (usize, usize) = (2048, 4096);

/// The case the simulator's figures (and so the target) come from: rows of 1024 floats.
const MEASURED_SHAPE: (usize, usize) = (64, 1024);

pub(super) fn column_sums(matrix: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut sums = vec![0.0f64; cols];
    for row in matrix.chunks_exact(cols).take(rows) {
        for (sum, &x) in sums.iter_mut().zip(row) {
            *sum += x as f64;
        }
    }
    sums.into_iter().map(|s| s as f32).collect()
}

pub(super) fn row_sums(matrix: &[f32], cols: usize) -> Vec<f32> {
    matrix
        .chunks_exact(cols)
        .map(|row| row.iter().map(|&x| x as f64).sum::<f64>() as f32)
        .collect()
}

fn matrix_case(kernel: &str, rows: usize, cols: usize, why: &str, rng: &mut Rng) -> Case {
    let name = format!("{kernel}: {rows} x {cols}{why}");
    let matrix = HostData::F32(rng.vec_f32(rows * cols, -1.0, 1.0));
    let case = if kernel == "column_sums" {
        Case::new(name, kernel, Launch::covering(cols, BLOCK))
            .input("matrix", matrix)
            .output("sums", HostData::F32(vec![0.0; cols]))
            .reference(move |case| {
                vec![(
                    "sums".into(),
                    HostData::F32(column_sums(case.f32s("matrix"), rows, cols)),
                )]
            })
    } else {
        Case::new(
            name,
            kernel,
            Launch::covering(rows * THREADS_PER_ROW, BLOCK),
        )
        .input("matrix", matrix)
        .in_out("sums", HostData::F32(vec![0.0; rows]))
        .reference(move |case| {
            vec![(
                "sums".into(),
                HostData::F32(row_sums(case.f32s("matrix"), cols)),
            )]
        })
    };
    let sums = if kernel == "column_sums" { cols } else { rows };
    case.scalar("rows", Scalar::I32(rows as i32))
        .scalar("cols", Scalar::I32(cols as i32))
        .diagnose(diagnose)
        .bytes_moved(4 * (rows * cols + sums) as u64)
        .for_timing(why.is_empty())
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut plan: Vec<(&str, usize, usize, String)> = vec![
        ("column_sums", 1, 1, " (n = 1)".into()),
        ("column_sums", 1, 1000, " (a single row)".into()),
        ("column_sums", 300, 77, " (random)".into()),
        ("row_sums", 1, 1, " (n = 1)".into()),
        ("row_sums", 1, 1000, " (a single row)".into()),
        ("row_sums", 1000, 1, " (a single column)".into()),
        (
            "row_sums",
            33,
            65,
            " (rows that are not a multiple of 32 long)".into(),
        ),
        ("row_sums", 100, 37, " (random)".into()),
    ];
    for &n in &options.extra_sizes {
        plan.push(("row_sums", n, 33, format!(" (n = {n} rows)")));
    }
    let (rows, cols) = MEASURED_SHAPE;
    plan.push((
        "row_sums",
        rows,
        cols,
        " (the sectors per request are measured here)".into(),
    ));
    if options.timing {
        let (rows, cols) = TIMING_SHAPE;
        plan.push((
            "row_sums",
            scaled_for_timing(options, rows),
            cols,
            String::new(),
        ));
    }
    plan.into_iter()
        .map(|(kernel, rows, cols, why)| matrix_case(kernel, rows, cols, &why, &mut rng))
        .collect()
}

/// The sum of the elements of row `r` that lane `lane` of the row's warp reads when the lanes
/// step through the row by 32.
fn lane_part(matrix: &[f32], cols: usize, r: usize, lane: usize) -> f64 {
    (lane..cols)
        .step_by(THREADS_PER_ROW)
        .map(|c| matrix[r * cols + c] as f64)
        .sum()
}

/// Names the typical mistakes of 13 from wrong sums.
fn diagnose(ev: &Evidence) -> Option<String> {
    let (rows, cols) = (ev.count("rows"), ev.count("cols"));
    let m = ev.case.f32s("matrix");
    if ev.case.kernel == "column_sums" {
        let column_major =
            |c: usize| Predicted::Value((0..rows).map(|r| m[c * rows + r] as f64).sum());
        return ev.explained_by(column_major).then(|| {
            "sums[c] adds up matrix[c * rows] .. matrix[c * rows + rows - 1]: the matrix is read \
             as if it were stored column by column, but element (r, c) is matrix[r * cols + c]"
                .to_string()
        });
    }
    // Each lane adds its part with a plain `+=`: one lane's store wins.
    let one_lane = |r: usize| {
        let actual = element_f64(ev.actual, r);
        let nearest = (0..THREADS_PER_ROW)
            .map(|lane| lane_part(m, cols, r, lane))
            .min_by(|a, b| (a - actual).abs().total_cmp(&(b - actual).abs()))
            .unwrap_or(0.0);
        Predicted::Value(nearest)
    };
    let some_part_not_zero = ev.wrong.iter().any(|&r| element_f64(ev.actual, r) != 0.0);
    if some_part_not_zero && ev.explained_by(one_lane) {
        return Some(
            "sums[r] holds the part of row r that one of its 32 threads added: the threads \
             overwrite each other's sums[r]; add each part with atomicAdd"
                .to_string(),
        );
    }
    // Lanes stepping by 1: element c is added by lanes 0 .. min(c, 31).
    let step_by_one = |r: usize| {
        Predicted::Value(
            (0..cols)
                .map(|c| (c + 1).min(THREADS_PER_ROW) as f64 * m[r * cols + c] as f64)
                .sum(),
        )
    };
    ev.explained_by(step_by_one).then(|| {
        "elements are counted several times over: the 32 threads of a row each start at their \
         lane, but must step through the row by 32 (columns lane, lane + 32, ...), not by 1"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(kernel: &str, rows: usize, cols: usize) -> Case {
        matrix_case(kernel, rows, cols, " (test)", &mut Rng::new(7))
    }

    fn diagnosis(case: &Case, actual: Vec<f32>) -> Option<String> {
        Evidence::with_actual(case, "sums", &HostData::F32(actual), |ev| {
            (case.diagnose.as_ref().unwrap())(ev)
        })
    }

    #[test]
    fn column_major_reading_is_named() {
        let c = case("column_sums", 30, 7);
        let m = c.f32s("matrix").to_vec();
        let wrong: Vec<f32> = (0..7)
            .map(|col| (0..30).map(|r| m[col * 30 + r]).sum())
            .collect();
        assert!(diagnosis(&c, wrong).unwrap().contains("column by column"));
        let doubled: Vec<f32> = column_sums(&m, 30, 7).iter().map(|s| 2.0 * s).collect();
        assert_eq!(diagnosis(&c, doubled), None);
    }

    #[test]
    fn lost_updates_and_overcounting_are_told_apart() {
        let (rows, cols) = (5, 70);
        let c = case("row_sums", rows, cols);
        let m = c.f32s("matrix").to_vec();
        let last_lane: Vec<f32> = (0..rows)
            .map(|r| lane_part(&m, cols, r, 31) as f32)
            .collect();
        let said = diagnosis(&c, last_lane).unwrap();
        assert!(said.contains("atomicAdd"), "{said}");
        let by_one: Vec<f32> = (0..rows)
            .map(|r| {
                (0..cols)
                    .map(|k| (k + 1).min(32) as f32 * m[r * cols + k])
                    .sum()
            })
            .collect();
        let said = diagnosis(&c, by_one).unwrap();
        assert!(
            said.contains("by 32") && !said.contains("atomicAdd"),
            "{said}"
        );
        let halved: Vec<f32> = row_sums(&m, cols).iter().map(|s| s / 2.0).collect();
        assert_eq!(diagnosis(&c, halved), None);
    }

    #[test]
    fn sums_run_along_the_right_direction() {
        // [1 2 3; 4 5 6]
        let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(column_sums(&m, 2, 3), [5.0, 7.0, 9.0]);
        assert_eq!(row_sums(&m, 3), [6.0, 15.0]);
    }

    #[test]
    fn the_last_simulated_case_is_row_sums_on_aligned_rows() {
        let cases = cases(&CaseOptions {
            extra_sizes: vec![77],
            ..Default::default()
        });
        let last = cases.last().unwrap();
        assert_eq!(last.kernel, "row_sums");
        assert_eq!(
            last.f32s("matrix").len(),
            MEASURED_SHAPE.0 * MEASURED_SHAPE.1
        );
        assert_eq!(
            MEASURED_SHAPE.1 % THREADS_PER_ROW,
            0,
            "rows must start on sector boundaries"
        );
    }
}
