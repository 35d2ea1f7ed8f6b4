//! py06: a 2D grid. A five-point smoothing of a rows x cols matrix: inner elements become the
//! mean of their four neighbours, border elements are copied. The sums run in the kernel's order
//! (above, below, left, right) and the quarter is exact, so the reference matches to the bit.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

pub(super) fn smooth(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let at = |r: usize, c: usize| a[r * cols + c];
    let mut out = a.to_vec();
    for r in 1..rows.saturating_sub(1) {
        for c in 1..cols.saturating_sub(1) {
            out[r * cols + c] = (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1)) * 0.25;
        }
    }
    out
}

fn case(name: &str, rows: usize, cols: usize, rng: &mut Rng) -> HostCase {
    matrix_case(name, rows, cols, rng, smooth)
}

/// A case of a rows x cols matrix `a` in [-1, 1) and the matrix `out` that `reference` makes of it.
pub(super) fn matrix_case(
    name: &str,
    rows: usize,
    cols: usize,
    rng: &mut Rng,
    reference: fn(&[f32], usize, usize) -> Vec<f32>,
) -> HostCase {
    let a = rng.vec_f32(rows * cols, -1.0, 1.0);
    let want = reference(&a, rows, cols);
    HostCase {
        name: name.to_string(),
        params: vec![("rows", rows.to_string()), ("cols", cols.to_string())],
        inputs: vec![("a", HostData::F32(a))],
        expected: vec![("out", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("7 x 5, fewer columns than rows", 7, 5, rng),
        case("100 x 130, not whole blocks either way", 100, 130, rng),
    ]
}

/// Where the wrong elements are: past a row or a column no thread got right. Which of the two
/// causes it is (a grid too small that way, or x and y swapped so that the rows' threads run
/// down the columns) the outputs do not tell, so both are said (`row, col = cuda.grid(2)` with
/// the solution's grid leaves exactly the columns past the grid's y extent wrong).
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(want)), HostData::F32(got)) = (case.expected(name), actual) else {
        return None;
    };
    let number = |key: &str| case.param(key)?.parse::<usize>().ok();
    let (rows, cols) = (number("rows")?, number("cols")?);
    if got.len() != rows * cols {
        return None;
    }
    let wrong = |r: usize, c: usize| want[r * cols + c] != got[r * cols + c];
    let first_wrong_row = (0..rows).find(|&r| (0..cols).any(|c| wrong(r, c)))?;
    let first_wrong_col = (0..cols).find(|&c| (0..rows).any(|r| wrong(r, c)))?;
    let rows_after_all_wrong = (first_wrong_row..rows).all(|r| (0..cols).all(|c| wrong(r, c)));
    let cols_after_all_wrong = (first_wrong_col..cols).all(|c| (0..rows).all(|r| wrong(r, c)));
    if first_wrong_row > 0 && rows_after_all_wrong {
        Some(format!(
            "rows {first_wrong_row} and after are wrong, the rows before right: no thread got \
             them right. The grid's y dimension must reach every row ({rows}), and y must be the \
             row: col, row = cuda.grid(2)"
        ))
    } else if first_wrong_col > 0 && cols_after_all_wrong {
        Some(format!(
            "columns {first_wrong_col} and after are wrong, the columns before right: no thread \
             got them right. The grid's x dimension must reach every column ({cols}), and x must \
             be the column: col, row = cuda.grid(2)"
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_no_thread_got_right_are_named_without_blaming_one_cause() {
        // 3 x 5, columns 2 and after left as they were poisoned (0): what x and y swapped with
        // the solution's grid leave, as a grid too narrow would.
        let want: Vec<f32> = (1..=15).map(|v| v as f32).collect();
        let got: Vec<f32> = (0..15)
            .map(|i| if i % 5 < 2 { want[i] } else { 0.0 })
            .collect();
        let case = HostCase {
            name: "3 x 5".into(),
            params: vec![("rows", "3".into()), ("cols", "5".into())],
            inputs: Vec::new(),
            expected: vec![("out", HostData::F32(want))],
        };
        let said = diagnose(&case, "out", &HostData::F32(got)).unwrap();
        assert!(said.starts_with("columns 2 and after are wrong"), "{said}");
        assert!(
            said.contains("x must be the column: col, row = cuda.grid(2)"),
            "{said}"
        );
        assert!(!said.contains("does not reach"), "{said}");
    }
}
