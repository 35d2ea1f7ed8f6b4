//! 22: find the bug: a row blur whose right neighbour is not clamped to the image, so the last
//! pixel of each row reads the next row and the image's last pixel reads past the end. The
//! simulator stops at that read; on a GPU it lands in the guard zone and the pixel comes out
//! wrong.
//!
//! An extra size n from the instructor becomes an image n pixels wide and 9 high.

use super::scaled_for_timing;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Predicted;
use crate::random::Rng;

/// Blocks of 16 x 16 threads, one thread per pixel.
const BLOCK_SIDE: u32 = 16;
/// A 16 MiB image for timing; the bench multiplies the width by its timing scale.
const TIMING_SHAPE: (usize, usize) = (4096, 1024);
const TIMED: &str = "timed on a GPU";

/// Each pixel averaged with its left and right neighbours, the edge pixel standing in for a
/// neighbour past the edge; in float, in the kernel's order.
pub(super) fn blur_rows(image: &[f32], width: usize, height: usize) -> Vec<f32> {
    let mut out = vec![0.0; width * height];
    for y in 0..height {
        let row = &image[y * width..(y + 1) * width];
        for x in 0..width {
            let left = row[x.saturating_sub(1)];
            let right = row[(x + 1).min(width - 1)];
            out[y * width + x] = (left + row[x] + right) / 3.0;
        }
    }
    out
}

fn launch(width: usize, height: usize) -> Launch {
    let blocks = |len: usize| len.div_ceil(BLOCK_SIDE as usize).max(1) as u32;
    Launch {
        grid: [blocks(width), blocks(height), 1],
        block: [BLOCK_SIDE, BLOCK_SIDE, 1],
        shared_bytes: 0,
    }
}

fn label(width: usize, height: usize, why: &str) -> String {
    let shape = format!("{width} x {height} image");
    if why.is_empty() {
        shape
    } else {
        format!("{shape} ({why})")
    }
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let seeded = (
        20 + rng.next_u64() as usize % 200,
        20 + rng.next_u64() as usize % 100,
    );
    let mut shapes: Vec<(usize, usize, &str)> = vec![
        (1, 1, "n = 1"),
        (1, 20, "one pixel wide"),
        (37, 1, "one pixel high"),
        (17, 5, "not whole blocks"),
        (64, 48, "whole blocks"),
        (seeded.0, seeded.1, "random shape"),
    ];
    shapes.extend(
        options
            .extra_sizes
            .iter()
            .map(|&n| (n, 9, "the extra size as width")),
    );
    if options.timing {
        shapes.push((
            scaled_for_timing(options, TIMING_SHAPE.0),
            TIMING_SHAPE.1,
            TIMED,
        ));
    }
    shapes
        .into_iter()
        .map(|(width, height, why)| {
            let pixels = width * height;
            Case::new(
                label(width, height, why),
                "blur_rows",
                launch(width, height),
            )
            .input("in", HostData::F32(rng.vec_f32(pixels, 0.0, 1.0)))
            .output("out", HostData::F32(vec![0.0; pixels]))
            .scalar("width", Scalar::I32(width as i32))
            .scalar("height", Scalar::I32(height as i32))
            .reference(move |case| {
                vec![(
                    "out".into(),
                    HostData::F32(blur_rows(case.f32s("in"), width, height)),
                )]
            })
            .shape_2d("out", height, width)
            .diagnose(diagnose)
            .inputs_of(move |case, _, i| {
                let (y, x) = (i / width, i % width);
                let row = &case.f32s("in")[y * width..(y + 1) * width];
                let (first, last) = (x.saturating_sub(1), (x + 1).min(width - 1));
                Some(format!(
                    "in({y}, {first}..={last}) = {:?}",
                    &row[first..=last]
                ))
            })
            .bytes_moved(8 * pixels as u64)
            .for_timing(why == TIMED)
        })
        .collect()
}

/// Names the wrong fixes of 22 from the last column of the blurred image.
fn diagnose(ev: &Evidence) -> Option<String> {
    let width = ev.count("width");
    let image = ev.case.f32s("in");
    if width == 0 || !ev.wrong.iter().all(|&i| i % width == width - 1) {
        return None;
    }
    let left = |i: usize| image[i - (i % width).min(1)];
    let next_row = |i: usize| match image.get(i + 1) {
        Some(&right) => Predicted::Value(((left(i) + image[i] + right) / 3.0) as f64),
        None => Predicted::Garbage,
    };
    if ev.explained_by(next_row) {
        return Some(
            "the last pixel of each row (x = width - 1) takes the first pixel of the next row as \
             its right neighbour: clamp right to width - 1 in every row, not only at the end of \
             the image"
                .into(),
        );
    }
    let zero = |i: usize| Predicted::Value(((left(i) + image[i]) / 3.0) as f64);
    if ev.explained_by(zero) {
        return Some(
            "the last pixel of each row averages with 0 past the edge: the edge pixel itself \
             stands in for the missing neighbour (right = width - 1)"
                .into(),
        );
    }
    ev.explained_by(|_| Predicted::Unwritten).then(|| {
        "the last pixel of each row (x = width - 1) is never written: clamp its right neighbour \
         instead of skipping the pixel"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_fixes_of_the_last_column_are_named_apart() {
        let case = cases(&CaseOptions::default()).swap_remove(3);
        let (width, height) = (17, 5);
        assert!(case.name.starts_with("17 x 5"));
        let image = case.f32s("in").to_vec();
        let diagnose = |out: &HostData| {
            Evidence::with_actual(&case, "out", out, |ev| {
                (case.diagnose.as_ref().unwrap())(ev)
            })
        };
        let right = blur_rows(&image, width, height);
        let with_last = |value: &dyn Fn(usize) -> f32| {
            let mut out = right.clone();
            for y in 0..height {
                let i = y * width + width - 1;
                out[i] = value(i);
            }
            HostData::F32(out)
        };
        let next_row = with_last(&|i| {
            (image[i - 1] + image[i] + image.get(i + 1).copied().unwrap_or(image[i])) / 3.0
        });
        assert!(diagnose(&next_row).unwrap().contains("next row"));
        let zero = with_last(&|i| (image[i - 1] + image[i]) / 3.0);
        assert!(diagnose(&zero).unwrap().contains("stands in"));
        let poison = HostData::F32(vec![0.0; 1]).poisoned();
        let HostData::F32(p) = poison else {
            unreachable!()
        };
        let skipped = with_last(&|_| p[0]);
        assert!(diagnose(&skipped).unwrap().contains("never written"));
        let mut first_column = right.clone();
        first_column[width] += 1.0;
        assert_eq!(diagnose(&HostData::F32(first_column)), None);
    }

    #[test]
    fn edge_pixels_stand_in_for_missing_neighbours() {
        // Two rows of three: each row is blurred on its own.
        let image = [3.0, 6.0, 9.0, 0.0, 3.0, 0.0];
        assert_eq!(blur_rows(&image, 3, 2), vec![4.0, 6.0, 8.0, 1.0, 1.0, 1.0]);
        assert_eq!(blur_rows(&[1.5], 1, 1), vec![1.5]);
    }
}
