//! py08: a transpose through a tile in shared memory. The output is a's elements moved, so it
//! matches to the bit; how the kernel moved them (sectors per request, bank conflicts) is held by
//! the exercise's targets on the simulator's figures.

use super::HostCase;
use crate::random::Rng;

fn transpose(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    (0..cols)
        .flat_map(|c| (0..rows).map(move |r| a[r * cols + c]))
        .collect()
}

/// Rows and columns are multiples of 8 floats (32 bytes), so every row of a and of out starts on
/// a sector: a warp reading 32 neighbours then takes 4 sectors, as the target asks.
fn case(name: &str, rows: usize, cols: usize, rng: &mut Rng) -> HostCase {
    super::py06_grid_2d::matrix_case(name, rows, cols, rng, transpose)
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("8 x 40, a tile and a part", 8, 40, rng),
        case("96 x 200, not whole tiles in columns", 96, 200, rng),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_swaps_rows_and_columns() {
        // [[1, 2, 3], [4, 5, 6]] transposed is [[1, 4], [2, 5], [3, 6]].
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(transpose(&a, 2, 3), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }
}
