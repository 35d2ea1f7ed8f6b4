//! The registry of exercise checks, by the stable ids of the syllabus.

use crate::case::{Case, CaseOptions};

mod ex01_thread_index;
mod ex02_vector_add;
mod ex03_ufunc;
mod ex04_fused;
mod ex05_grid_stride;
mod ex06_launch_config;
mod ex07_racy_counter;
mod ex08_histogram;
mod ex09_monte_carlo_pi;
mod ex10_matrix_add;
mod ex11_matmul_naive;
mod ex12_mandelbrot;
mod ex13_row_column_sums;
mod ex14_aos_to_soa;
mod ex15_stencil;
mod ex16_transpose_tiled;
mod ex17_matmul_tiled;
mod ex18_transpose_conflict_free;
mod ex19_reduce_sequential;
mod ex20_reduce_shuffle;
mod ex21_block_scan;
mod ex22_bug_out_of_bounds;
mod ex23_bug_missing_barrier;
mod ex24_softmax;

type CaseFn = fn(&CaseOptions) -> Vec<Case>;

const CHECKS: &[(&str, CaseFn)] = &[
    ("01", ex01_thread_index::cases),
    ("02", ex02_vector_add::cases),
    ("03", ex03_ufunc::cases),
    ("04", ex04_fused::cases),
    ("05", ex05_grid_stride::cases),
    ("06", ex06_launch_config::cases),
    ("07", ex07_racy_counter::cases),
    ("08", ex08_histogram::cases),
    ("09", ex09_monte_carlo_pi::cases),
    ("10", ex10_matrix_add::cases),
    ("11", ex11_matmul_naive::cases),
    ("12", ex12_mandelbrot::cases),
    ("13", ex13_row_column_sums::cases),
    ("14", ex14_aos_to_soa::cases),
    ("15", ex15_stencil::cases),
    ("16", ex16_transpose_tiled::cases),
    ("17", ex17_matmul_tiled::cases),
    ("18", ex18_transpose_conflict_free::cases),
    ("19", ex19_reduce_sequential::cases),
    ("20", ex20_reduce_shuffle::cases),
    ("21", ex21_block_scan::cases),
    ("22", ex22_bug_out_of_bounds::cases),
    ("23", ex23_bug_missing_barrier::cases),
    ("24", ex24_softmax::cases),
];

/// The test cases of exercise `id`, or None when no check exists for it.
pub fn cases_for(id: &str, options: &CaseOptions) -> Option<Vec<Case>> {
    CHECKS
        .iter()
        .find(|(known, _)| *known == id)
        .map(|(_, cases)| cases(options))
}

/// Ids that have a check, in syllabus order.
pub fn known_ids() -> impl Iterator<Item = &'static str> {
    CHECKS.iter().map(|(id, _)| *id)
}

/// The largest extra problem size (`--sizes`, grading's `sizes`): exercises take it as a length
/// or as the rows of a matrix a few dozen columns wide, so this keeps every case's buffers within
/// a few hundred MiB, and a simulated case within seconds.
pub const MAX_EXTRA_SIZE: usize = 1 << 20;

/// An extra problem size as given on a command line, checked before anything runs.
pub fn parse_extra_size(text: &str) -> Result<usize, String> {
    let n: usize = text.trim().parse().map_err(|_| {
        format!("`{text}` is not a size: give a whole number from 1 to {MAX_EXTRA_SIZE}")
    })?;
    if n == 0 || n > MAX_EXTRA_SIZE {
        return Err(format!(
            "{n} is out of range: sizes go from 1 to {MAX_EXTRA_SIZE} (a length, or the rows of a matrix)"
        ));
    }
    Ok(n)
}

/// Sizes every one-dimensional exercise is tried on: one element, sizes that are not a multiple
/// of the block size, the exercise's own, the instructor's extra sizes, and last the timing size
/// when asked for.
pub(crate) fn sizes_1d(options: &CaseOptions, own: &[usize]) -> Vec<usize> {
    let mut sizes = vec![1, 1000];
    sizes.extend_from_slice(own);
    sizes.extend(options.extra_sizes.iter().copied());
    if options.timing {
        sizes.push(timing_elements(options));
    }
    sizes
}

/// The element count of the large case timed on a GPU: 32 MiB per float array, so the arrays of
/// a kernel together are larger than any current GPU's L2 cache (which is also flushed between
/// timed launches), while copying them in stays well under a second.
pub(crate) const TIMING_ELEMENTS: usize = 1 << 23;

/// The element count of the timing case for these options: `TIMING_ELEMENTS` for a check, more
/// for `runner bench`.
pub(crate) fn timing_elements(options: &CaseOptions) -> usize {
    scaled_for_timing(options, TIMING_ELEMENTS)
}

/// A dimension of a timing case (its length, or the rows or width of a 2D one): the check's
/// own, times the bench's scale.
pub(crate) fn scaled_for_timing(options: &CaseOptions, extent: usize) -> usize {
    extent * options.timing_scale.max(1)
}

/// Case name that says why the size was chosen.
pub(crate) fn size_label(n: usize, block: usize) -> String {
    match n {
        1 => "n = 1".into(),
        _ if !n.is_multiple_of(block) => format!("n = {n} (not a multiple of {block})"),
        _ => format!("n = {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_has_edge_cases_and_references_match_output_lengths() {
        for id in known_ids() {
            let cases = cases_for(id, &CaseOptions::default()).unwrap();
            assert!(
                cases.iter().any(|c| c.name.contains("n = 1")),
                "{id} lacks n = 1"
            );
            for case in &cases {
                let expected = case.expected();
                assert!(
                    !expected.is_empty(),
                    "{id} {} has no expected output",
                    case.name
                );
                for (name, data) in &expected {
                    let out = case
                        .outputs()
                        .find(|b| &b.name == name)
                        .expect("declared output");
                    assert_eq!(out.data.len(), data.len(), "{id} {}: {name}", case.name);
                }
            }
        }
    }

    #[test]
    fn timing_cases_appear_only_when_asked() {
        for id in known_ids() {
            let plain = cases_for(id, &CaseOptions::default()).unwrap();
            assert!(plain.iter().all(|c| !c.for_timing));
            let timed = cases_for(
                id,
                &CaseOptions {
                    timing: true,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                timed.iter().any(|c| c.for_timing),
                "{id} has no timing case"
            );
        }
    }

    #[test]
    fn timing_scale_grows_the_one_dimensional_timing_case() {
        let timed = |timing_scale| {
            let options = CaseOptions {
                timing: true,
                timing_scale,
                ..Default::default()
            };
            let cases = cases_for("01", &options).unwrap();
            let case = cases.into_iter().find(|c| c.for_timing).unwrap();
            case.buffer("out").len()
        };
        assert_eq!(timed(1), TIMING_ELEMENTS);
        assert_eq!(timed(2), 2 * TIMING_ELEMENTS);
    }

    #[test]
    fn timing_scale_grows_the_two_dimensional_timing_cases() {
        for id in ["13", "16", "18", "22", "24"] {
            let elements = |timing_scale| {
                let options = CaseOptions {
                    timing: true,
                    timing_scale,
                    ..Default::default()
                };
                let cases = cases_for(id, &options).unwrap();
                let case = cases.into_iter().find(|c| c.for_timing).unwrap();
                case.bytes_moved
            };
            assert_eq!(elements(4), 4 * elements(1), "{id}");
        }
    }

    #[test]
    fn seed_changes_random_inputs() {
        let a = cases_for(
            "02",
            &CaseOptions {
                seed: 1,
                ..Default::default()
            },
        )
        .unwrap();
        let b = cases_for(
            "02",
            &CaseOptions {
                seed: 2,
                ..Default::default()
            },
        )
        .unwrap();
        let last = |c: &[Case]| c.last().unwrap().buffer("a").clone();
        assert_ne!(last(&a), last(&b));
    }

    #[test]
    fn extra_sizes_are_checked_before_use() {
        assert_eq!(parse_extra_size("4097"), Ok(4097));
        assert!(parse_extra_size("0").unwrap_err().contains("from 1 to"));
        assert!(parse_extra_size("3000000000")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_extra_size("ten").unwrap_err().contains("not a size"));
    }

    #[test]
    fn extra_sizes_become_cases() {
        let opts = CaseOptions {
            extra_sizes: vec![4097],
            ..Default::default()
        };
        for id in known_ids() {
            let cases = cases_for(id, &opts).unwrap();
            assert!(cases.iter().any(|c| c.name.contains("4097")), "{id}");
        }
    }
}
