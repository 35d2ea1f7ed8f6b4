//! 11: naive matrix multiply, C (m x n) = A (m x k) * B (k x n), one thread per element of C on
//! 16 x 16 blocks. Shapes include k = 1 (an outer product), a 1 x 1 result (a dot product) and
//! sides that are not multiples of 16; the timed case is 1024 cubed.

use super::ex10_matrix_add::launch_2d;
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Scalar};
use crate::compare::{any_of, Tolerance};
use crate::random::Rng;

const BLOCK: [u32; 2] = [16, 16];

const TIMING_SIZE: usize = 1024;

/// C = A B, accumulated in double precision, row by row so that B is read in order.
pub(super) fn matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = Vec::with_capacity(m * n);
    let mut row = vec![0.0f64; n];
    for r in 0..m {
        row.fill(0.0);
        for i in 0..k {
            let a_ri = a[r * k + i] as f64;
            for (sum, &b_ic) in row.iter_mut().zip(&b[i * n..(i + 1) * n]) {
                *sum += a_ri * b_ic as f64;
            }
        }
        c.extend(row.iter().map(|&s| s as f32));
    }
    c
}

fn case(m: usize, n: usize, k: usize, why: &str, rng: &mut Rng) -> Case {
    let name = format!("{m} x {k} times {k} x {n}{why}");
    matmul_case(
        Case::new(name, "matmul", launch_2d(m, n, BLOCK)),
        [m, n, k],
        rng,
    )
    .for_timing(m == TIMING_SIZE && n == TIMING_SIZE && k == TIMING_SIZE)
}

/// A matrix-multiply case on `case`'s kernel and launch: random A (m x k) and B (k x n), C to
/// compute, the CPU reference, the traffic and FLOP counts, and cuBLAS's shape. Exercise 17
/// multiplies the same way with another kernel.
pub(super) fn matmul_case(case: Case, [m, n, k]: [usize; 3], rng: &mut Rng) -> Case {
    case.input("a", HostData::F32(rng.vec_f32(m * k, -1.0, 1.0)))
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
        .shape_2d("c", m, n)
        .diagnose(move |ev| diagnose(ev, [m, n, k]))
        .inputs_of(move |case, _, i| Some(dot_inputs(case, [m, n, k], i / n, i % n)))
}

/// The first values of the row of A and the column of B behind element (row, col) of C.
fn dot_inputs(case: &Case, [_, n, k]: [usize; 3], row: usize, col: usize) -> String {
    let (a, b) = (case.f32s("a"), case.f32s("b"));
    let show = |values: Vec<f32>| {
        let more = if values.len() > 3 { ", ..." } else { "" };
        let first: Vec<String> = values.iter().take(3).map(|v| v.to_string()).collect();
        format!("{}{more}", first.join(", "))
    };
    format!(
        "row {row} of a: {}; column {col} of b: {}",
        show((0..k).map(|i| a[row * k + i]).collect()),
        show((0..k).map(|i| b[i * n + col]).collect())
    )
}

/// C computed with A or B read the wrong way, the sum accumulated in C itself (which starts as
/// garbage), or row and column swapped.
fn diagnose(ev: &Evidence, [m, n, k]: [usize; 3]) -> Option<String> {
    if let Some(cause) = super::ex10_matrix_add::swapped_rows_and_columns(ev) {
        return Some(cause);
    }
    let all_nan = (0..ev.len()).all(|i| {
        ev.actual.f64_at(i).is_nan() && !ev.never_written(i) && ev.expected.f64_at(i).is_finite()
    });
    if all_nan {
        return Some(
            "every element of c is NaN: the sum was accumulated in c itself (c[...] += ...), \
             which holds garbage until the kernel writes it; sum in a local variable that starts \
             at 0.0f, and write c once"
                .into(),
        );
    }
    let (a, b) = (ev.case.f32s("a"), ev.case.f32s("b"));
    let fits = Tolerance {
        abs: 1e-4,
        rel: 1e-3,
    };
    let product = |a_at: &dyn Fn(usize, usize) -> f32, b_at: &dyn Fn(usize, usize) -> f32| {
        ev.every_element_is(
            |e| {
                let (row, col) = (e / n, e % n);
                (0..k)
                    .map(|i| a_at(row, i) as f64 * b_at(i, col) as f64)
                    .sum()
            },
            fits,
        )
    };
    let a_right = |row: usize, i: usize| a[row * k + i];
    let b_right = |i: usize, col: usize| b[i * n + col];
    let mut causes = Vec::new();
    if product(&|row, i| a[i * m + row], &b_right) {
        causes.push(
            "A was read column by column, a[i * m + row]: row `row` of A is a[row * k + i]".into(),
        );
    }
    if product(&a_right, &|i, col| b[col * k + i]) {
        causes.push(
            "B was read row by row, b[col * k + i]: column `col` of B is b[i * n + col]".into(),
        );
    }
    any_of(causes)
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut plan: Vec<(usize, usize, usize, String)> = vec![
        (1, 1, 1, " (n = 1)".into()),
        (1, 1, 300, " (a single dot product)".into()),
        (5, 7, 1, " (k = 1: an outer product)".into()),
        (33, 17, 19, " (no side a multiple of 16)".into()),
        (70, 20, 45, " (more rows than columns)".into()),
    ];
    for &extra in &options.extra_sizes {
        plan.push((extra, 24, 16, format!(" (n = {extra} rows)")));
    }
    plan.push((128, 96, 64, " (random)".into()));
    if options.timing {
        plan.push((TIMING_SIZE, TIMING_SIZE, TIMING_SIZE, String::new()));
    }
    plan.into_iter()
        .map(|(m, n, k, why)| case(m, n, k, &why, &mut rng))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::likely_cause_of;

    fn shape(case: &Case) -> [usize; 3] {
        match (
            case.scalar_value("m"),
            case.scalar_value("n"),
            case.scalar_value("k"),
        ) {
            (Scalar::I32(m), Scalar::I32(n), Scalar::I32(k)) => {
                [m as usize, n as usize, k as usize]
            }
            _ => unreachable!(),
        }
    }

    fn cause_of(
        case: &Case,
        a_at: impl Fn(usize, usize) -> usize,
        b_at: impl Fn(usize, usize) -> usize,
    ) -> String {
        let [m, n, k] = shape(case);
        let (a, b) = (case.f32s("a"), case.f32s("b"));
        let c = (0..m * n)
            .map(|e| {
                let (row, col) = (e / n, e % n);
                (0..k).map(|i| a[a_at(row, i)] * b[b_at(i, col)]).sum()
            })
            .collect();
        likely_cause_of(case, "c", HostData::F32(c)).unwrap_or_default()
    }

    #[test]
    fn a_or_b_read_the_wrong_way_is_named_and_only_it() {
        for case in cases(&CaseOptions::default())
            .iter()
            .filter(|c| c.name.contains("random") || c.name.contains("33 x"))
        {
            let [m, n, k] = shape(case);
            let a_wrong = cause_of(case, |row, i| i * m + row, |i, col| i * n + col);
            assert!(
                a_wrong.contains("a[i * m + row]") && !a_wrong.contains("; or"),
                "{a_wrong}"
            );
            let b_wrong = cause_of(case, |row, i| row * k + i, |i, col| col * k + i);
            assert!(
                b_wrong.contains("b[col * k + i]") && !b_wrong.contains("; or"),
                "{b_wrong}"
            );
            let both = cause_of(case, |row, i| i * m + row, |i, col| col * k + i);
            assert_eq!(both, "");
        }
    }

    #[test]
    fn nan_everywhere_is_named_as_a_sum_in_c() {
        let case = cases(&CaseOptions::default()).remove(0);
        let cause = likely_cause_of(&case, "c", HostData::F32(vec![f32::NAN])).unwrap();
        assert!(cause.contains("local variable"), "{cause}");
        let case = cases(&CaseOptions::default()).remove(3);
        let [m, n, _] = shape(&case);
        let mut c = case.expected().remove(0).1;
        if let HostData::F32(v) = &mut c {
            v[0] = f32::NAN;
        }
        assert!(likely_cause_of(&case, "c", c).is_none_or(|c| !c.contains("local")));
        assert_eq!(m * n, case.buffer("c").len());
    }

    #[test]
    fn wrong_elements_show_the_row_and_column_behind_them() {
        let case = cases(&CaseOptions::default()).remove(3);
        let text = dot_inputs(&case, shape(&case), 2, 5);
        assert!(
            text.starts_with("row 2 of a: ") && text.contains("; column 5 of b: "),
            "{text}"
        );
        assert!(text.ends_with(", ..."), "{text}");
    }

    #[test]
    fn reference_multiplies_rows_by_columns() {
        // [1 2; 3 4; 5 6] (3 x 2) times [1 0 2; 0 1 3] (2 x 3)
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 0.0, 2.0, 0.0, 1.0, 3.0];
        assert_eq!(
            matmul(&a, &b, 3, 3, 2),
            [1.0, 2.0, 8.0, 3.0, 4.0, 18.0, 5.0, 6.0, 28.0]
        );
    }

    #[test]
    fn the_grid_covers_the_result_not_the_inputs() {
        let cases = cases(&CaseOptions::default());
        let c = cases.iter().find(|c| c.name.contains("33 x 19")).unwrap();
        assert_eq!(c.launch.grid, [2, 3, 1]);
    }
}
