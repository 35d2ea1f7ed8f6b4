//! 10: matrix add on a 2D grid of 32 x 8 blocks. Shapes include a single row, a single column and
//! matrices with more rows than columns, where swapping row and column goes out of bounds or
//! writes the wrong elements.

use super::timing_elements;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: [u32; 2] = [32, 8];

/// Timed shape: 2048 x 4096 floats, 32 MiB per matrix.
/// Rows of the timing case; its columns make up the timing element count.
const TIMING_ROWS: usize = 2048;

/// A 2D grid of `block`-shaped blocks covering `cols` (x) by `rows` (y), rounded up.
pub(crate) fn launch_2d(rows: usize, cols: usize, block: [u32; 2]) -> Launch {
    let blocks = |extent: usize, size: u32| extent.div_ceil(size as usize).max(1) as u32;
    Launch {
        grid: [blocks(cols, block[0]), blocks(rows, block[1]), 1],
        block: [block[0], block[1], 1],
        shared_bytes: 0,
    }
}

/// The shapes every matrix exercise is tried on, with why each is there: one element, one row,
/// one column, sides that are not multiples of the block, taller than wide, then random ones.
pub(crate) fn edge_shapes(block: [u32; 2]) -> Vec<(usize, usize, String)> {
    let (w, h) = (block[0] as usize, block[1] as usize);
    vec![
        (1, 1, "1 x 1 (n = 1)".into()),
        (1, 1000, "1 x 1000 (a single row)".into()),
        (1000, 1, "1000 x 1 (a single column)".into()),
        (
            3 * h + 1,
            2 * w + 1,
            format!(
                "{} x {} (neither side a multiple of the {w} x {h} block)",
                3 * h + 1,
                2 * w + 1
            ),
        ),
        (100, 37, "100 x 37 (more rows than columns)".into()),
    ]
}

fn matrix_case(rows: usize, cols: usize, name: String, rng: &mut Rng) -> Case {
    let n = rows * cols;
    Case::new(name, "matrix_add", launch_2d(rows, cols, BLOCK))
        .input("a", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
        .input("b", HostData::F32(rng.vec_f32(n, -100.0, 100.0)))
        .output("c", HostData::F32(vec![0.0; n]))
        .scalar("rows", Scalar::I32(rows as i32))
        .scalar("cols", Scalar::I32(cols as i32))
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
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut shapes = edge_shapes(BLOCK);
    for _ in 0..2 {
        let rows = 1 + (rng.next_u64() % 300) as usize;
        let cols = 1 + (rng.next_u64() % 300) as usize;
        shapes.push((rows, cols, format!("{rows} x {cols} (random)")));
    }
    for &n in &options.extra_sizes {
        shapes.push((n, 33, format!("{n} x 33 (n = {n} rows)")));
    }
    let timing_shape = (TIMING_ROWS, timing_elements(options) / TIMING_ROWS);
    if options.timing {
        let (rows, cols) = timing_shape;
        shapes.push((rows, cols, format!("{rows} x {cols}")));
    }
    shapes
        .into_iter()
        .map(|(rows, cols, name)| {
            matrix_case(rows, cols, name, &mut rng).for_timing((rows, cols) == timing_shape)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_covers_columns_in_x_and_rows_in_y() {
        let launch = launch_2d(100, 37, [32, 8]);
        assert_eq!(launch.grid, [2, 13, 1]);
        assert!(launch.grid[0] * 32 >= 37 && launch.grid[1] * 8 >= 100);
    }
}
