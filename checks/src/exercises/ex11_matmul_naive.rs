//! 11: naive matrix multiply, C (m x n) = A (m x k) * B (k x n), one thread per element of C on
//! 16 x 16 blocks. Shapes include k = 1 (an outer product), a 1 x 1 result (a dot product) and
//! sides that are not multiples of 16; the timed case is 1024 cubed.

use super::ex10_matrix_add::launch_2d;
use crate::case::{Case, CaseOptions, HostData, Scalar};
use crate::random::Rng;

const BLOCK: [u32; 2] = [16, 16];

const TIMING_SIZE: usize = 1024;

/// C = A B, accumulated in double precision, row by row so that B is read in order.
pub fn matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
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
pub fn matmul_case(case: Case, [m, n, k]: [usize; 3], rng: &mut Rng) -> Case {
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
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
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
