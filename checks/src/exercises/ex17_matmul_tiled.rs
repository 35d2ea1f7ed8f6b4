//! 17: matrix multiply with TILE x TILE tiles of both inputs staged in shared memory.
//!
//! An extra size n from the instructor becomes n x 20 times 20 x 24: it grows with n, as the
//! one-dimensional exercises do, and k and n are not whole tiles.

use super::ex11_matmul_naive::matmul_case;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, Launch};
use crate::compare::Predicted;
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

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
            matmul_case(case, [m, n, k], &mut rng)
                .shape_2d("c", m, n)
                .diagnose(diagnose)
                .for_timing(why == TIMED)
        })
        .collect()
}

/// c(row, col) as a kernel computes it whose step `step` multiplies `a_at(row, step, i)` by
/// `b_at(step, i, col)` for i in 0 .. TILE, over the steps `steps`; an index past k gives 0.
fn tiled_sum(
    [m, n, k]: [usize; 3],
    steps: usize,
    a: impl Fn(usize, usize) -> Option<usize>,
    b: impl Fn(usize, usize) -> Option<usize>,
    (av, bv): (&[f32], &[f32]),
    e: usize,
) -> Predicted {
    let (row, col) = (e / n.max(1), e % n.max(1));
    if row >= m {
        return Predicted::Unwritten;
    }
    let tile = TILE as usize;
    let mut sum = 0.0f64;
    for step in (0..steps).map(|s| s * tile) {
        for i in 0..tile {
            let inside = |x: usize| x < k;
            let a_val = a(step, i)
                .filter(|&x| inside(x))
                .map_or(0.0, |x| av[row * k + x]);
            let b_val = b(step, i)
                .filter(|&x| inside(x))
                .map_or(0.0, |x| bv[x * n + col]);
            sum += a_val as f64 * b_val as f64;
        }
    }
    Predicted::Value(sum)
}

/// Names the tile-index mistakes of 17 from the values in c.
fn diagnose(ev: &Evidence) -> Option<String> {
    let shape @ [_, _, k] = [ev.count("m"), ev.count("n"), ev.count("k")];
    let inputs = (ev.case.f32s("a"), ev.case.f32s("b"));
    let tile = TILE as usize;
    let all_steps = k.div_ceil(tile);
    // The column of a (row of b) element i of step `step` should come from, when inside k.
    let moving = |step: usize, i: usize| (step + i < k).then_some(step + i);
    let first_tile = |step: usize, i: usize| (step + i < k).then_some(i);
    if k % tile != 0 {
        let whole = |e| tiled_sum(shape, k / tile, moving, moving, inputs, e);
        if ev.explained_by(whole) {
            return Some(format!(
                "c leaves out the products of the last k % TILE = {} columns of a (rows of b): \
                 the loop over the tiles must also run the last, partial tile (step < k), whose \
                 slots past k hold 0",
                k % tile
            ));
        }
    }
    if k > tile {
        let a_stays = |e| tiled_sum(shape, all_steps, first_tile, moving, inputs, e);
        if ev.explained_by(a_stays) {
            return Some(
                "every step multiplies the first tile of a: the column read from a must move \
                 with the step, a[row * k + step + threadIdx.x]"
                    .into(),
            );
        }
        let b_stays = |e| tiled_sum(shape, all_steps, moving, first_tile, inputs, e);
        if ev.explained_by(b_stays) {
            return Some(
                "every step multiplies the first tile of b: the row read from b must move with \
                 the step, b[(step + threadIdx.y) * n + col]"
                    .into(),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::ex11_matmul_naive::matmul;
    use super::*;
    use crate::case::HostData;

    #[test]
    fn dropped_partial_tiles_and_unmoved_tiles_are_named_apart() {
        let all = cases(&CaseOptions::default());
        let case = all
            .iter()
            .find(|c| c.name.starts_with("17 x 20 times"))
            .unwrap();
        let [m, n, k] = [17, 33, 20];
        let (a, b) = (case.f32s("a"), case.f32s("b"));
        let diagnose = |c: Vec<f32>| {
            Evidence::with_actual(case, "c", &HostData::F32(c), |ev| {
                (case.diagnose.as_ref().unwrap())(ev)
            })
        };
        // The first 16 columns of a times the first 16 rows of b.
        let mut a16 = a.to_vec();
        for r in 0..m {
            a16[r * k + 16..(r + 1) * k].fill(0.0);
        }
        let said = diagnose(matmul(&a16, b, m, n, k)).unwrap();
        assert!(said.contains("partial tile"), "{said}");
        // Step 16 multiplies a's columns 0..3 again instead of 16..19.
        let mut a_stays = a16.clone();
        for r in 0..m {
            for i in 16..k {
                a_stays[r * k + i] = a[r * k + i - 16];
            }
        }
        let said = diagnose(matmul(&a_stays, b, m, n, k)).unwrap();
        assert!(said.contains("first tile of a"), "{said}");
        let scaled: Vec<f32> = matmul(a, b, m, n, k).iter().map(|x| x * 1.5).collect();
        assert_eq!(diagnose(scaled), None);
    }

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
