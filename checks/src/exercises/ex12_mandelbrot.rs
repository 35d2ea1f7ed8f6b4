//! 12: the Mandelbrot set: a 2D grid of 32 x 8 blocks over the image, and a `__device__` function
//! for the escape time of one point.
//!
//! Exact comparison of step counts works because the arithmetic is in double precision: the
//! tests below recompute every case with fused multiply-adds in the places a compiler may put
//! them, and every pixel keeps its count.

use super::ex10_matrix_add::launch_2d;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Scalar};
use crate::compare::any_of;
use crate::random::Rng;

const BLOCK: [u32; 2] = [32, 8];

/// The whole set, with a margin: x from -2.5 to 1. The centre is a little off the real axis:
/// with the axis through the middle of a row of pixels, their cy would be 0 plus or minus a
/// rounding error, and on the set's antenna (the real axis from -2 to -1.4) that error alone
/// decides when a point escapes.
const FULL_VIEW: View = View {
    centre_x: -0.75,
    centre_y: 0.0137,
    width: 3.5,
};

/// Regions near the edge of the set, where pixels take many steps and differ most.
const DETAIL: [(f64, f64); 4] = [
    (-0.745, 0.113),
    (0.282, 0.01),
    (-1.255, 0.02),
    (-0.16, 1.035),
];

/// What part of the plane an image shows: its centre and the width of the whole image.
#[derive(Clone, Copy, Debug)]
struct View {
    centre_x: f64,
    centre_y: f64,
    width: f64,
}

/// The image of a view in pixels: the corner and side the kernel is given.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub width: usize,
    pub height: usize,
    pub x_min: f64,
    pub y_min: f64,
    pub pixel_size: f64,
    pub max_iterations: i32,
}

impl Frame {
    fn new(view: View, width: usize, height: usize, max_iterations: i32) -> Frame {
        let pixel_size = view.width / width as f64;
        Frame {
            width,
            height,
            x_min: view.centre_x - view.width / 2.0,
            y_min: view.centre_y - pixel_size * height as f64 / 2.0,
            pixel_size,
            max_iterations,
        }
    }

    /// The point of pixel (row, col): the centre of its square.
    pub(super) fn point(&self, row: usize, col: usize) -> (f64, f64) {
        (
            self.x_min + (col as f64 + 0.5) * self.pixel_size,
            self.y_min + (row as f64 + 0.5) * self.pixel_size,
        )
    }
}

/// Steps before |z| > 2 under z = z * z + c from 0, at most `max_iterations`.
pub(super) fn escape_time(cx: f64, cy: f64, max_iterations: i32) -> i32 {
    let (mut zx, mut zy) = (0.0f64, 0.0f64);
    let mut steps = 0;
    while steps < max_iterations && zx * zx + zy * zy <= 4.0 {
        let next_zx = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = next_zx;
        steps += 1;
    }
    steps
}

/// How far a point may move without changing any pixel's count, for the frame to be used: a
/// thousand times the rounding error of double precision around 1, far more than any order of
/// operations a compiler chooses can move it.
const STEADY_MARGIN: f64 = 1e-13;

/// Whether no pixel's count changes when its point moves by STEADY_MARGIN in x or y. Near the
/// edge of the set a few points are that sensitive, more the more steps are allowed.
fn is_steady(frame: &Frame) -> bool {
    (0..frame.height).all(|row| {
        (0..frame.width).all(|col| {
            let (cx, cy) = frame.point(row, col);
            let steps = escape_time(cx, cy, frame.max_iterations);
            [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
                .iter()
                .all(|(dx, dy)| {
                    let moved = escape_time(
                        cx + dx * STEADY_MARGIN,
                        cy + dy * STEADY_MARGIN,
                        frame.max_iterations,
                    );
                    moved == steps
                })
        })
    })
}

/// The frame, or the nearest steady one: moved right by a fraction of a pixel at a time.
fn steadied(mut frame: Frame) -> Frame {
    for _ in 0..20 {
        if is_steady(&frame) {
            return frame;
        }
        frame.x_min += 0.37 * frame.pixel_size;
    }
    panic!("no steady frame near {frame:?}")
}

pub(super) fn image(frame: &Frame) -> Vec<i32> {
    let mut pixels = Vec::with_capacity(frame.width * frame.height);
    for row in 0..frame.height {
        for col in 0..frame.width {
            let (cx, cy) = frame.point(row, col);
            pixels.push(escape_time(cx, cy, frame.max_iterations));
        }
    }
    pixels
}

fn case(name: String, frame: Frame) -> Case {
    let n = frame.width * frame.height;
    let name = format!(
        "{name}: {} x {} pixels, at most {} steps",
        frame.width, frame.height, frame.max_iterations
    );
    Case::new(
        name,
        "mandelbrot",
        launch_2d(frame.height, frame.width, BLOCK),
    )
    .output("iterations", HostData::I32(vec![0; n]))
    .scalar("width", Scalar::I32(frame.width as i32))
    .scalar("height", Scalar::I32(frame.height as i32))
    .scalar("x_min", Scalar::F64(frame.x_min))
    .scalar("y_min", Scalar::F64(frame.y_min))
    .scalar("pixel_size", Scalar::F64(frame.pixel_size))
    .scalar("max_iterations", Scalar::I32(frame.max_iterations))
    .reference(move |_| vec![("iterations".into(), HostData::I32(image(&frame)))])
    .bytes_moved(4 * n as u64)
    .flops(FLOPS_PER_STEP * image(&frame).iter().map(|&steps| steps as u64).sum::<u64>())
    .for_timing(n >= TIMING_PIXELS)
    .shape_2d("iterations", frame.height, frame.width)
    .diagnose(move |ev| diagnose(ev, &frame))
    .inputs_of(move |_, _, i| {
        let (cx, cy) = frame.point(i / frame.width.max(1), i % frame.width.max(1));
        Some(format!("c = ({cx}, {cy})"))
    })
}

/// The escape loop's usual slips, one at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slip {
    /// `steps <= max_iterations`: points of the set take one step too many.
    CapInclusive,
    /// zx overwritten before zy is computed from it.
    NoTemporary,
    /// |z|^2 compared with 2, as if it were |z|.
    RadiusNotSquared,
    /// The pixel's point at its corner, not its centre.
    PixelCorner,
}

impl Slip {
    const ALL: [Slip; 4] = [
        Slip::CapInclusive,
        Slip::NoTemporary,
        Slip::RadiusNotSquared,
        Slip::PixelCorner,
    ];

    fn cause(self, max_iterations: i32) -> String {
        match self {
            Slip::CapInclusive => format!(
                "the points of the set took {} steps, one more than the cap: the loop runs while \
                 steps <= max_iterations; stop at steps < max_iterations",
                max_iterations + 1
            ),
            Slip::NoTemporary => {
                "zy was computed from the new zx: the update overwrites zx first; \
                 keep the new zx in a temporary until zy is done (both come from the old values)"
                    .into()
            }
            Slip::RadiusNotSquared => "points escape too early: zx * zx + zy * zy is |z|^2, and \
                 |z| > 2 means |z|^2 > 4; compare with 4.0, not 2.0"
                .into(),
            Slip::PixelCorner => "each pixel was computed at its corner: its point is the centre \
                 of its square, x_min + (col + 0.5) * pixel_size (and the same for y)"
                .into(),
        }
    }

    /// The image a kernel with this slip computes.
    fn image(self, frame: &Frame) -> Vec<i32> {
        let mut pixels = Vec::with_capacity(frame.width * frame.height);
        for row in 0..frame.height {
            for col in 0..frame.width {
                let (cx, cy) = if self == Slip::PixelCorner {
                    (
                        frame.x_min + col as f64 * frame.pixel_size,
                        frame.y_min + row as f64 * frame.pixel_size,
                    )
                } else {
                    frame.point(row, col)
                };
                pixels.push(self.escape_time(cx, cy, frame.max_iterations));
            }
        }
        pixels
    }

    fn escape_time(self, cx: f64, cy: f64, max_iterations: i32) -> i32 {
        let limit = if self == Slip::RadiusNotSquared {
            2.0
        } else {
            4.0
        };
        let cap = max_iterations + i32::from(self == Slip::CapInclusive);
        let (mut zx, mut zy) = (0.0f64, 0.0f64);
        let mut steps = 0;
        while steps < cap && zx * zx + zy * zy <= limit {
            if self == Slip::NoTemporary {
                zx = zx * zx - zy * zy + cx;
                zy = 2.0 * zx * zy + cy;
            } else {
                let next_zx = zx * zx - zy * zy + cx;
                zy = 2.0 * zx * zy + cy;
                zx = next_zx;
            }
            steps += 1;
        }
        steps
    }
}

/// Names the slip whose image the kernel's output is: all but a few pixels (near the edge of
/// the set, where rounding decides) equal to it, and far more than equal the right image.
fn diagnose(ev: &Evidence, frame: &Frame) -> Option<String> {
    if let Some(cause) = super::ex10_matrix_add::swapped_rows_and_columns(ev) {
        return Some(cause);
    }
    let n = ev.len();
    let causes = Slip::ALL
        .iter()
        .filter(|slip| {
            let image = slip.image(frame);
            let differ = (0..n)
                .filter(|&i| ev.never_written(i) || ev.actual.f64_at(i) != image[i] as f64)
                .count();
            differ <= n / 200 && differ * 10 < ev.wrong.len()
        })
        .map(|slip| slip.cause(frame.max_iterations))
        .collect();
    any_of(causes)
}

const TIMING_PIXELS: usize = 2048 * 1536;

/// Double-precision operations of one step: zx * zx, zy * zy, their difference and their sum
/// (the escape test), + cx, 2 * zx, * zy, + cy. The kernel is bound by them, not by memory.
const FLOPS_PER_STEP: u64 = 8;

/// The frames of the cases, named: edge shapes over the whole set, then zooms near its edge.
fn frames(options: &CaseOptions) -> Vec<(String, Frame)> {
    // Inside the main cardioid: the one pixel never escapes.
    let one_point = View {
        centre_x: -0.25,
        centre_y: 0.0,
        width: 0.01,
    };
    let mut frames = vec![
        (
            "n = 1, a point of the set".into(),
            Frame::new(one_point, 1, 1, 64),
        ),
        ("a single row".into(), Frame::new(FULL_VIEW, 1000, 1, 64)),
        ("a single column".into(), Frame::new(FULL_VIEW, 1, 300, 64)),
        (
            "neither side a multiple of the 32 x 8 block".into(),
            Frame::new(FULL_VIEW, 65, 25, 64),
        ),
        (
            "taller than wide".into(),
            Frame::new(FULL_VIEW, 37, 100, 64),
        ),
    ];
    frames.push(("the whole set".into(), Frame::new(FULL_VIEW, 160, 120, 64)));
    let mut rng = Rng::new(options.seed);
    for _ in 0..2 {
        let (x, y) = DETAIL[(rng.next_u64() % DETAIL.len() as u64) as usize];
        let width = 0.05 * (1.0 + rng.unit_f32() as f64);
        let view = View {
            centre_x: x,
            centre_y: y,
            width,
        };
        frames.push(("near the edge".into(), Frame::new(view, 128, 96, 128)));
    }
    for &n in &options.extra_sizes {
        frames.push((format!("n = {n} columns"), Frame::new(FULL_VIEW, n, 9, 64)));
    }
    // Steadied here, where it is cheap; the timed frame is steady as it is (a test says so).
    let mut frames: Vec<(String, Frame)> = frames
        .into_iter()
        .map(|(name, frame)| (name, steadied(frame)))
        .collect();
    if options.timing {
        frames.push(("timing".into(), Frame::new(FULL_VIEW, 2048, 1536, 64)));
    }
    frames
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    frames(options)
        .into_iter()
        .map(|(name, frame)| case(name, frame))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::likely_cause_of;

    #[test]
    fn each_slip_is_named_and_only_it() {
        let options = CaseOptions::default();
        for ((name, frame), case) in frames(&options).into_iter().zip(cases(&options)) {
            let right = image(&frame);
            for slip in Slip::ALL {
                let output = slip.image(&frame);
                if output == right {
                    continue;
                }
                let cause = likely_cause_of(&case, "iterations", HostData::I32(output));
                let cause = cause.unwrap_or_default();
                assert!(
                    cause.contains(&slip.cause(frame.max_iterations)),
                    "{name}: {slip:?}"
                );
                // A frame of one row or column may fit two slips; a picture fits one.
                if frame.width > 1 && frame.height > 1 {
                    assert!(!cause.contains("; or"), "{name}: {slip:?}: {cause}");
                }
            }
            // Every pixel one step short: no slip of these.
            let short: Vec<i32> = right.iter().map(|&s| (s - 1).max(0)).collect();
            if short != right {
                assert_eq!(
                    likely_cause_of(&case, "iterations", HostData::I32(short)),
                    None
                );
            }
        }
    }

    #[test]
    fn swapped_x_and_y_are_named() {
        let options = CaseOptions::default();
        let (_, frame) = frames(&options).remove(1);
        let case = cases(&options).remove(1);
        let mut output = HostData::I32(image(&frame)).poisoned();
        if let HostData::I32(v) = &mut output {
            // The single row: only columns below the grid's 8 threads in y are reached.
            v[..8].copy_from_slice(&image(&frame)[..8]);
        }
        let cause = likely_cause_of(&case, "iterations", output).unwrap();
        assert!(cause.contains("row and column are swapped"), "{cause}");
    }

    #[test]
    fn points_inside_stay_and_points_outside_escape() {
        assert_eq!(escape_time(0.0, 0.0, 100), 100);
        assert_eq!(escape_time(-1.0, 0.0, 100), 100);
        assert_eq!(escape_time(2.0, 0.0, 100), 2);
        assert_eq!(escape_time(0.0, 0.0, 0), 0);
    }

    /// The escape time as a GPU computes it once the compiler has fused multiplies and adds,
    /// in either of the ways it may, pixel point included.
    fn fused_escape_time(frame: &Frame, row: usize, col: usize, variant: bool) -> i32 {
        let cx = (col as f64 + 0.5).mul_add(frame.pixel_size, frame.x_min);
        let cy = (row as f64 + 0.5).mul_add(frame.pixel_size, frame.y_min);
        let (mut zx, mut zy) = (0.0f64, 0.0f64);
        let mut steps = 0;
        while steps < frame.max_iterations && zx.mul_add(zx, zy * zy) <= 4.0 {
            let next_zx = if variant {
                zx.mul_add(zx, -(zy * zy)) + cx
            } else {
                (-zy).mul_add(zy, zx * zx) + cx
            };
            zy = (2.0 * zx).mul_add(zy, cy);
            zx = next_zx;
            steps += 1;
        }
        steps
    }

    #[test]
    fn fused_multiply_adds_change_no_pixel() {
        for seed in [1, 2, 3, CaseOptions::default().seed] {
            assert_fused_variants_agree(&CaseOptions {
                seed,
                extra_sizes: vec![333],
                ..Default::default()
            });
        }
    }

    fn assert_fused_variants_agree(options: &CaseOptions) {
        for (name, frame) in frames(options) {
            let plain = image(&frame);
            for variant in [false, true] {
                for row in 0..frame.height {
                    for col in 0..frame.width {
                        let fused = fused_escape_time(&frame, row, col, variant);
                        assert_eq!(
                            fused,
                            plain[row * frame.width + col],
                            "{name} ({row}, {col})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    #[ignore = "slow in a debug build: cargo test --release -p checks -- --ignored"]
    fn the_timed_image_is_steady_and_many_seeds_give_steady_frames() {
        let timed = frames(&CaseOptions {
            timing: true,
            ..Default::default()
        })
        .pop()
        .unwrap();
        assert!(is_steady(&timed.1), "{timed:?}");
        assert_fused_variants_agree(&CaseOptions {
            timing: true,
            ..Default::default()
        });
        for seed in 0..300 {
            let extra_sizes = vec![1 + seed as usize * 7];
            assert_fused_variants_agree(&CaseOptions {
                seed,
                extra_sizes,
                ..Default::default()
            });
        }
    }

    #[test]
    fn zooms_show_both_the_set_and_its_outside() {
        let options = CaseOptions::default();
        for (name, frame) in frames(&options)
            .into_iter()
            .filter(|(n, _)| n == "near the edge")
        {
            let pixels = image(&frame);
            let inside = pixels
                .iter()
                .filter(|&&s| s == frame.max_iterations)
                .count();
            assert!(inside > 0 && inside < pixels.len(), "{name}: {inside}");
        }
    }
}
