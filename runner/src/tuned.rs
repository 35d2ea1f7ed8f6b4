//! Tuned references: a second solution of an exercise, named by its `tuned` field in
//! exercises.toml and kept in `solutions/tuned/`, written for speed rather than teaching (wider
//! loads, several elements per thread, register tiles). `runner bench` times them beside the
//! teaching solutions, and `runner dev check` holds them to every case.
//!
//! A tuned kernel keeps the exercise's entry points and parameters but may want another launch:
//! it says so by declaring, in its file,
//!
//! ```c
//! extern "C" __constant__ int tuned_block_x = 256;  // threads per block, per dimension
//! extern "C" __constant__ int tuned_items_x = 8;    // work of how many check threads per thread
//! ```
//!
//! (and `_y`, `_z`). The grid then shrinks so that the threads still cover what the check's
//! launch covered. A name it does not declare keeps the check's block size, or one item.

use crate::backend::{Backend, ModuleId};
use checks::Case;

/// How a tuned kernel wants its cases launched, read from its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retiling {
    block: [Option<u32>; 3],
    items: [u32; 3],
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl Retiling {
    /// The tuned_* values the module declares; None when it declares none of them.
    pub fn read(backend: &mut dyn Backend, module: ModuleId) -> Option<Retiling> {
        let mut read = |name: String| {
            backend
                .read_declared_int(module, &name)
                .filter(|&v| v > 0)
                .map(|v| v as u32)
        };
        let mut retiling = Retiling {
            block: [None; 3],
            items: [1; 3],
        };
        let mut any = false;
        for (d, axis) in AXES.iter().enumerate() {
            retiling.block[d] = read(format!("tuned_block_{axis}"));
            let items = read(format!("tuned_items_{axis}"));
            any |= retiling.block[d].is_some() || items.is_some();
            retiling.items[d] = items.unwrap_or(1);
        }
        any.then_some(retiling)
    }

    /// The case with its launch laid out for the tuned kernel.
    pub fn apply(&self, case: &Case) -> Case {
        let block = std::array::from_fn(|d| self.block[d].unwrap_or(case.launch.block[d]));
        let mut tuned = case.clone();
        tuned.launch = case.launch.retiled(block, self.items);
        tuned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checks::Launch;

    #[test]
    fn undeclared_dimensions_keep_the_checks_block() {
        let retiling = Retiling {
            block: [None, Some(8), None],
            items: [1, 4, 1],
        };
        let case = Case::new(
            "t",
            "k",
            Launch {
                grid: [4, 4, 1],
                block: [32, 32, 1],
                shared_bytes: 0,
            },
        );
        let tuned = retiling.apply(&case);
        assert_eq!(tuned.launch.block, [32, 8, 1]);
        assert_eq!(tuned.launch.grid, [4, 4, 1]);
        assert_eq!(
            case.launch.block,
            [32, 32, 1],
            "the original case is untouched"
        );
    }
}
