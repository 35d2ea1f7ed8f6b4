//! 10: matrix add on a 2D grid of 32 x 8 blocks. Shapes include a single row, a single column and
//! matrices with more rows than columns, where swapping row and column goes out of bounds or
//! writes the wrong elements.

use super::timing_elements;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::rows_and_columns_swapped;
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
        .shape_2d("c", rows, cols)
        .diagnose(swapped_rows_and_columns)
        .inputs_of(|case, _, i| {
            Some(format!(
                "a = {}, b = {}",
                case.f32s("a")[i],
                case.f32s("b")[i]
            ))
        })
}

/// Row and column swapped in a kernel whose grid runs x over the columns and y over the rows,
/// read from which elements it never reached. Exercises 11 and 12 launch the same way.
pub(crate) fn swapped_rows_and_columns(ev: &Evidence) -> Option<String> {
    rows_and_columns_swapped(ev).then(|| {
        let launch = &ev.case.launch;
        format!(
            "row and column are swapped: the elements never written are those whose row is at \
             least the {} threads the grid has in x, or whose column is at least the {} it has \
             in y; the column comes from x (blockIdx.x * blockDim.x + threadIdx.x), the row from y",
            launch.grid[0] * launch.block[0],
            launch.grid[1] * launch.block[1]
        )
    })
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
    use crate::compare::likely_cause_of;

    /// What a kernel with row from x and column from y writes: the right sums where it reaches.
    fn swapped_output(case: &Case, rows: usize, cols: usize) -> HostData {
        let (a, b) = (case.f32s("a"), case.f32s("b"));
        let launch = case.launch;
        let mut c = HostData::F32(vec![0.0; rows * cols]).poisoned();
        if let HostData::F32(c) = &mut c {
            for row in 0..rows.min((launch.grid[0] * launch.block[0]) as usize) {
                for col in 0..cols.min((launch.grid[1] * launch.block[1]) as usize) {
                    c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
                }
            }
        }
        c
    }

    #[test]
    fn swapped_row_and_column_are_named_and_wrong_elements_shown_at_row_and_col() {
        for case in cases(&CaseOptions::default()) {
            let (rows, cols) = match (case.scalar_value("rows"), case.scalar_value("cols")) {
                (Scalar::I32(r), Scalar::I32(c)) => (r as usize, c as usize),
                _ => unreachable!(),
            };
            let c = swapped_output(&case, rows, cols);
            let expected = &case.expected()[0].1;
            if crate::compare::compare("c", expected, &c, Default::default(), &case.launch).is_ok()
            {
                continue;
            }
            let cause = likely_cause_of(&case, "c", c.clone()).unwrap_or_default();
            assert!(
                cause.contains("row and column are swapped"),
                "{}: {cause}",
                case.name
            );
            let m = crate::compare::compare_case(&case, "c", expected, &c, Default::default())
                .unwrap_err();
            let first = &m.first_wrong[0];
            assert_eq!(first.at, Some([first.index / cols, first.index % cols]));
        }
    }

    #[test]
    fn an_unwritten_bottom_is_not_taken_for_a_swap() {
        let case = cases(&CaseOptions::default()).remove(4);
        let mut c = case.expected().remove(0).1;
        if let HostData::F32(v) = &mut c {
            let poison = f32::from_bits(crate::case::POISON_F32_BITS);
            v[37 * 96..].fill(poison);
        }
        let cause = likely_cause_of(&case, "c", c).unwrap_or_default();
        assert!(!cause.contains("swapped"), "{cause}");
    }

    #[test]
    fn the_grid_covers_columns_in_x_and_rows_in_y() {
        let launch = launch_2d(100, 37, [32, 8]);
        assert_eq!(launch.grid, [2, 13, 1]);
        assert!(launch.grid[0] * 32 >= 37 && launch.grid[1] * 8 >= 100);
    }
}
