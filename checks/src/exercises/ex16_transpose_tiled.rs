//! 16: a transpose staged through a 32 x 32 tile of shared memory, so that both the reads and
//! the writes of global memory are coalesced. Exercise 18 reuses these cases.
//!
//! An extra size n from the instructor becomes an n x 33 matrix: it grows with n, as the
//! one-dimensional exercises do, and its rows are not whole tiles.

use super::scaled_for_timing;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Predicted;
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
pub(super) fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
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
                .shape_2d("out", cols, rows)
                .diagnose(diagnose)
                .inputs_of(move |case, _, k| {
                    let (r, c) = (k % rows.max(1), k / rows.max(1));
                    Some(format!("in({r}, {c}) = {}", case.f32s("in")[r * cols + c]))
                })
                .bytes_moved(8 * elements as u64)
                .for_timing(why == TIMED)
        })
        .collect()
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    transpose_cases(options, "transpose_tiled")
}

/// Names the index mistakes of a tiled transpose from the values in `out`.
fn diagnose(ev: &Evidence) -> Option<String> {
    let (rows, cols) = (ev.count("rows"), ev.count("cols"));
    let input = ev.case.f32s("in");
    let t = TILE as usize;
    let at = |r: usize, c: usize| {
        if r < rows && c < cols {
            Predicted::Value(input[r * cols + c] as f64)
        } else {
            // A slot of the tile that no thread loaded.
            Predicted::Garbage
        }
    };
    // out(or, oc) is element k of out; it should hold in(oc, or).
    let out_rc = |k: usize| (k / rows.max(1), k % rows.max(1));
    let copied = |k: usize| Predicted::Value(input[k] as f64);
    if ev.explained_by(copied) {
        return Some(
            "out holds `in` element for element (out[k] = in[k]): nothing is transposed".into(),
        );
    }
    let tile_not_transposed = |k: usize| {
        let (or, oc) = out_rc(k);
        at(t * (oc / t) + or % t, t * (or / t) + oc % t)
    };
    if ev.explained_by(tile_not_transposed) {
        return Some(
            "every tile of out is in its place but not transposed itself: in the write phase \
             the thread reads the tile across, tile[threadIdx.x][threadIdx.y]"
                .into(),
        );
    }
    let blocks_not_swapped = |k: usize| {
        let (or, oc) = out_rc(k);
        let (bx, by) = (oc / t, or / t);
        if bx >= cols.div_ceil(t) || by >= rows.div_ceil(t) {
            return Predicted::Unwritten;
        }
        at(t * by + oc % t, t * bx + or % t)
    };
    ev.explained_by(blocks_not_swapped).then(|| {
        "every tile is transposed but written where it sat in `in`: in the write phase the block \
         indices swap roles (rows of out start at blockIdx.x * TILE, columns at blockIdx.y * TILE)"
            .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a transpose writes when out(or, oc) takes in(source(or, oc)), NaN outside `in`,
    /// poison where `source` gives None.
    fn written(case: &Case, source: impl Fn(usize, usize) -> Option<(usize, usize)>) -> HostData {
        let (rows, cols) = (case.f32s("in").len() / 65, 65);
        let mut out = HostData::F32(vec![0.0; rows * cols]).poisoned();
        if let HostData::F32(v) = &mut out {
            for (k, slot) in v.iter_mut().enumerate() {
                if let Some((r, c)) = source(k / rows, k % rows) {
                    *slot = if r < rows && c < cols {
                        case.f32s("in")[r * cols + c]
                    } else {
                        f32::NAN
                    };
                }
            }
        }
        out
    }

    #[test]
    fn transposed_tiles_and_swapped_blocks_are_told_apart() {
        let case = transpose_cases(&CaseOptions::default(), "k").swap_remove(3);
        assert!(case.name.starts_with("33 x 65"));
        let t = TILE as usize;
        let diagnose = |out: &HostData| {
            Evidence::with_actual(&case, "out", out, |ev| {
                (case.diagnose.as_ref().unwrap())(ev)
            })
        };
        let not_transposed = written(&case, |or, oc| {
            Some((t * (oc / t) + or % t, t * (or / t) + oc % t))
        });
        assert!(diagnose(&not_transposed)
            .unwrap()
            .contains("not transposed"));
        let not_swapped = written(&case, |or, oc| {
            (oc / t < 65usize.div_ceil(t) && or / t < 33usize.div_ceil(t))
                .then(|| (t * (or / t) + oc % t, t * (oc / t) + or % t))
        });
        assert!(diagnose(&not_swapped).unwrap().contains("block indices"));
        let copied = HostData::F32(case.f32s("in").to_vec());
        assert!(diagnose(&copied).unwrap().contains("element for element"));
        let off_by_one = written(&case, |or, oc| Some((oc, (or + 1) % 65)));
        assert_eq!(diagnose(&off_by_one), None);
    }

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
