//! 17: matrix multiply with TILE x TILE tiles of both inputs staged in shared memory.
//!
//! An extra size n from the instructor becomes n x 20 times 20 x 24: it grows with n, as the
//! one-dimensional exercises do, and k and n are not whole tiles.

use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

/// TILE in the kernel file.
const TILE: u32 = 16;

/// (m, n, k) of the timing case: 2 GFLOP, a few milliseconds for a naive kernel; 4, 8 and 8 MiB
/// of matrices; and small enough that the CPU reference takes about a second.
const TIMING_SHAPE: (usize, usize, usize) = (1024, 2048, 1024);
const TIMED: &str = "timed on a GPU";

/// c = a b for row-major a (m x k) and b (k x n), accumulated in double precision so that the
/// reference is closer to the exact product than any float kernel.
pub fn matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0.0f64; m * n];
    for row in 0..m {
        let c_row = &mut c[row * n..(row + 1) * n];
        for i in 0..k {
            let a_value = a[row * k + i] as f64;
            // Along a row of b and of c: the loop order that keeps the CPU's caches busy.
            for (c_value, &b_value) in c_row.iter_mut().zip(&b[i * n..(i + 1) * n]) {
                *c_value += a_value * b_value as f64;
            }
        }
    }
    c.into_iter().map(|v| v as f32).collect()
}

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
        shapes.push((TIMING_SHAPE.0, TIMING_SHAPE.1, TIMING_SHAPE.2, TIMED));
    }
    shapes
        .into_iter()
        .map(|(m, n, k, why)| {
            Case::new(label(m, n, k, why), "matmul_tiled", launch(m, n))
                .input("a", HostData::F32(rng.vec_f32(m * k, -1.0, 1.0)))
                .input("b", HostData::F32(rng.vec_f32(k * n, -1.0, 1.0)))
                .output("c", HostData::F32(vec![0.0; m * n]))
                .scalar("m", Scalar::I32(m as i32))
                .scalar("n", Scalar::I32(n as i32))
                .scalar("k", Scalar::I32(k as i32))
                .reference(move |case| {
                    vec![(
                        "c".into(),
                        HostData::F32(matmul(case.f32s("a"), case.f32s("b"), m, n, k)),
                    )]
                })
                .bytes_moved(4 * (m * k + k * n + m * n) as u64)
                .flops(2 * (m * n * k) as u64)
                .sgemm_shape(m, n, k)
                .for_timing(why == TIMED)
        })
        .collect()
}

#[cfg(test)]
mod tests {
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
