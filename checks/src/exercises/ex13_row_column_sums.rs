//! 13: column sums (one thread per column: coalesced as written) and row sums (32 threads per
//! row, so that a warp can read a row together). The target on sectors per request is measured
//! on the last case, a `row_sums` case whose rows start on 32-byte boundaries, where a
//! coalesced kernel needs exactly 4 sectors per request and one thread per row needs 32.

use super::scaled_for_timing;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;
const THREADS_PER_ROW: usize = 32;

/// Timed: 2048 x 4096 floats, 32 MiB; the bench multiplies the rows by its timing scale.
const TIMING_SHAPE: (usize, usize) = (2048, 4096);

/// The case the simulator's figures (and so the target) come from: rows of 1024 floats.
const MEASURED_SHAPE: (usize, usize) = (64, 1024);

pub fn column_sums(matrix: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut sums = vec![0.0f64; cols];
    for row in matrix.chunks_exact(cols).take(rows) {
        for (sum, &x) in sums.iter_mut().zip(row) {
            *sum += x as f64;
        }
    }
    sums.into_iter().map(|s| s as f32).collect()
}

pub fn row_sums(matrix: &[f32], cols: usize) -> Vec<f32> {
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
        .bytes_moved(4 * (rows * cols + sums) as u64)
        .for_timing(why.is_empty())
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
