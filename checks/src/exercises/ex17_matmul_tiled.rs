//! 17: matrix multiply with TILE x TILE tiles of both inputs staged in shared memory.
//!
//! An extra size n from the instructor becomes n x 20 times 20 x 24: it grows with n, as the
//! one-dimensional exercises do, and k and n are not whole tiles.

use super::ex11_matmul_naive::matmul_case;
use crate::case::{Case, CaseOptions, Launch};
use crate::random::Rng;

/// TILE in the kernel file.
const TILE: u32 = 16;

/// (m, n, k) of the timing case: 2 GFLOP, a few milliseconds for a naive kernel; 4, 8 and 8 MiB
/// of matrices; and small enough that the CPU reference takes about a second.
const TIMING_SHAPE: (usize, usize, usize) = (1024, 2048, 1024);

/// (m, n, k) the bench times instead (any timing scale above 1): square 4096 matrices, where
/// cuBLAS is near its peak, so the share of it means something. 137 GFLOP; the CPU reference
/// takes tens of seconds, which only the bench pays.
const BENCH_SHAPE: (usize, usize, usize) = (4096, 4096, 4096);
const TIMED: &str = "timed on a GPU";

/// Blocks of TILE x TILE threads covering c (m x n), x along columns.
fn launch(m: usize, n: usize) -> Launch {
    let blocks = |len: usize| len.div_ceil(TILE as usize).max(1) as u32;
    Launch {
        grid: [blocks(n), blocks(m), 1],
        block: [TILE, TILE, 1],
        shared_bytes: 0,
    }
}

fn label(m: usize, n: usize, k: usize, why: &str) -> String {
    let shape = format!("{m} x {k} times {k} x {n}");
    if why.is_empty() {
        shape
    } else {
        format!("{shape} ({why})")
    }
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut dim = |lo: usize, hi: usize| lo + rng.next_u64() as usize % (hi - lo);
    let seeded = (dim(20, 100), dim(20, 100), dim(20, 100));
    let mut shapes: Vec<(usize, usize, usize, &str)> = vec![
        (1, 1, 1, "one element: m = k = n = 1"),
        (5, 7, 3, "smaller than a tile"),
        (1, 50, 70, "a row vector times a matrix"),
        (17, 33, 20, "no dimension a multiple of 16"),
        (64, 48, 32, "whole tiles, not square"),
        (seeded.0, seeded.1, seeded.2, "random shape"),
    ];
    shapes.extend(
        options
            .extra_sizes
            .iter()
            .map(|&s| (s, 24, 20, "the extra size as rows of a")),
    );
    shapes.push((128, 96, 80, "whole tiles"));
    if options.timing {
        let (m, n, k) = if options.timing_scale > 1 {
            BENCH_SHAPE
        } else {
            TIMING_SHAPE
        };
        shapes.push((m, n, k, TIMED));
    }
    shapes
        .into_iter()
        .map(|(m, n, k, why)| {
            let case = Case::new(label(m, n, k, why), "matmul_tiled", launch(m, n));
            matmul_case(case, [m, n, k], &mut rng).for_timing(why == TIMED)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::ex11_matmul_naive::matmul;
    use super::*;

    #[test]
    fn matmul_of_small_matrices() {
        // [[1, 2, 3], [4, 5, 6]] times [[1, 0], [0, 1], [1, 1]]
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        assert_eq!(matmul(&a, &b, 2, 2, 3), vec![4.0, 5.0, 10.0, 11.0]);
    }

    #[test]
    fn the_grid_covers_columns_with_x_and_rows_with_y() {
        let l = launch(17, 33);
        assert_eq!((l.grid, l.block), ([3, 2, 1], [16, 16, 1]));
    }
}
