//! 16: a transpose staged through a 32 x 32 tile of shared memory, so that both the reads and
//! the writes of global memory are coalesced. Exercise 18 reuses these cases.
//!
//! An extra size n from the instructor becomes an n x 33 matrix: it grows with n, as the
//! one-dimensional exercises do, and its rows are not whole tiles.

use super::scaled_for_timing;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// TILE in the kernel files: blocks of TILE x TILE threads, one tile each.
const TILE: u32 = 32;

/// The timing case: 32 MiB per matrix, larger than any current GPU's L2 cache; not square, so
/// that swapped dimensions show. The bench multiplies the rows by its timing scale.
const TIMING_SHAPE: (usize, usize) = (4096, 2048);

const TIMED: &str = "timed on a GPU";

/// The last case, the one whose figures the simulator judges: whole tiles and rows of a whole
/// number of sectors, so that a well-written kernel reaches exactly 4 sectors per request.
const MEASURED_SHAPE: (usize, usize) = (192, 320);

/// `x` (rows x cols, row-major) transposed: cols x rows.
pub fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; x.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = x[r * cols + c];
        }
    }
    t
}

/// Blocks of TILE x TILE threads covering a rows x cols matrix, x along columns.
fn launch(rows: usize, cols: usize) -> Launch {
    let blocks = |len: usize| len.div_ceil(TILE as usize).max(1) as u32;
    Launch {
        grid: [blocks(cols), blocks(rows), 1],
        block: [TILE, TILE, 1],
        shared_bytes: 0,
    }
}

fn label(rows: usize, cols: usize, why: &str) -> String {
    if why.is_empty() {
        format!("{rows} x {cols}")
    } else {
        format!("{rows} x {cols} ({why})")
    }
}

/// The cases of a transpose kernel called `kernel`, with the signature
/// `(const float* in, float* out, int rows, int cols)`.
pub(crate) fn transpose_cases(options: &CaseOptions, kernel: &str) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let seeded = (
        40 + rng.next_u64() as usize % 100,
        40 + rng.next_u64() as usize % 100,
    );
    let mut shapes: Vec<(usize, usize, &str)> = vec![
        (1, 1, "n = 1"),
        (1, 45, "a single row"),
        (45, 1, "a single column"),
        (33, 65, "not whole tiles"),
        (64, 96, "whole tiles, not square"),
        (seeded.0, seeded.1, "random shape"),
    ];
    shapes.extend(
        options
            .extra_sizes
            .iter()
            .map(|&n| (n, 33, "the extra size as rows")),
    );
    shapes.push((
        MEASURED_SHAPE.0,
        MEASURED_SHAPE.1,
        "the case the figures are taken from",
    ));
    if options.timing {
        shapes.push((
            scaled_for_timing(options, TIMING_SHAPE.0),
            TIMING_SHAPE.1,
            TIMED,
        ));
    }
    shapes
        .into_iter()
        .map(|(rows, cols, why)| {
            let elements = rows * cols;
            Case::new(label(rows, cols, why), kernel, launch(rows, cols))
                .input("in", HostData::F32(rng.vec_f32(elements, -1000.0, 1000.0)))
                .output("out", HostData::F32(vec![0.0; elements]))
                .scalar("rows", Scalar::I32(rows as i32))
                .scalar("cols", Scalar::I32(cols as i32))
                .reference(move |case| {
                    vec![(
                        "out".into(),
                        HostData::F32(transpose(case.f32s("in"), rows, cols)),
                    )]
                })
                .bytes_moved(8 * elements as u64)
                .for_timing(why == TIMED)
        })
        .collect()
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    transpose_cases(options, "transpose_tiled")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_rows_and_columns() {
        // 2 x 3: [[1, 2, 3], [4, 5, 6]] -> 3 x 2: [[1, 4], [2, 5], [3, 6]]
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(transpose(&x, 2, 3), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    fn the_grid_covers_columns_with_x_and_rows_with_y() {
        let l = launch(33, 65);
        assert_eq!((l.grid, l.block), ([3, 2, 1], [32, 32, 1]));
    }

    #[test]
    fn the_measured_case_comes_last_before_timing_and_is_whole_tiles() {
        let options = CaseOptions {
            extra_sizes: vec![50],
            timing: true,
            ..Default::default()
        };
        let cases = transpose_cases(&options, "k");
        let measured = cases.iter().rev().find(|c| !c.for_timing).unwrap();
        assert!(measured.name.starts_with("192 x 320"));
        assert_eq!(
            MEASURED_SHAPE.0 % TILE as usize + MEASURED_SHAPE.1 % TILE as usize,
            0
        );
        assert!(cases.last().unwrap().for_timing);
    }
}
