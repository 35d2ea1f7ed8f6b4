//! py12: a tiled matrix multiply in shared memory. c = a @ b on shapes that are not whole tiles;
//! the sums run along k in the same order as the kernel's, in f64 here, so the tolerance covers
//! only the device's float32 rounding. That the kernel reads its operands from shared tiles is
//! held by the exercise's `max_load_sectors` on the simulator's figures.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            let total: f64 = (0..k)
                .map(|j| f64::from(a[row * k + j]) * f64::from(b[j * n + col]))
                .sum();
            c[row * n + col] = total as f32;
        }
    }
    c
}

fn case(name: &str, (m, k, n): (usize, usize, usize), rng: &mut Rng) -> HostCase {
    let a = rng.vec_f32(m * k, -1.0, 1.0);
    let b = rng.vec_f32(k * n, -1.0, 1.0);
    let c = matmul(&a, &b, m, k, n);
    HostCase {
        name: name.to_string(),
        params: vec![
            ("m", m.to_string()),
            ("k", k.to_string()),
            ("n", n.to_string()),
        ],
        inputs: vec![("a", HostData::F32(a)), ("b", HostData::F32(b))],
        expected: vec![("c", HostData::F32(c))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("(5 x 3) @ (3 x 7), less than a tile", (5, 3, 7), rng),
        case(
            "(72 x 80) @ (80 x 56), k five whole tiles",
            (72, 80, 56),
            rng,
        ),
        case(
            "(50 x 70) @ (70 x 90), no side whole tiles",
            (50, 70, 90),
            rng,
        ),
    ]
}

/// Every element 0: nothing was added to the sums.
pub(super) fn diagnose(_case: &HostCase, _name: &str, actual: &HostData) -> Option<String> {
    let HostData::F32(got) = actual else {
        return None;
    };
    got.iter().all(|v| *v == 0.0).then(|| {
        "every element of c is 0: no product was added. After loading both tiles and a \
         cuda.syncthreads(), add tile_a[ty, j] * tile_b[j, tx] for j in range(TILE)"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_multiplies_rows_by_columns() {
        // [[1, 2]] @ [[3], [4]] = [[11]]; [[1], [2]] @ [[3, 4]] = [[3, 4], [6, 8]].
        assert_eq!(matmul(&[1.0, 2.0], &[3.0, 4.0], 1, 2, 1), [11.0]);
        assert_eq!(
            matmul(&[1.0, 2.0], &[3.0, 4.0], 2, 1, 2),
            [3.0, 4.0, 6.0, 8.0]
        );
    }
}
