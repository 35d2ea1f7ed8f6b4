//! A launch the driver refused, named from the shape the driver's record keeps: which kernel,
//! with what grid and block, and the rule of CUDA that shape breaks, where it breaks one (a grid
//! of 0 blocks, a block of more than 1024 threads). A refused launch runs no thread, so it
//! explains a wrong or missing result before anything else does.

use super::record::Record;
use contract::RefusedLaunch;

/// The first refused launch of `record`, in words, with its cause where the shape shows one.
pub(super) fn first(record: &Record) -> Option<String> {
    record.refused_launches.first().map(describe)
}

fn describe(launch: &RefusedLaunch) -> String {
    let kernel = crate::kernel_name::short_name(&launch.kernel);
    let said = format!(
        "the launch of {kernel} with a grid of {} of {} was refused: {}",
        count(launch.grid, "block"),
        count(launch.block, "thread"),
        launch.name
    );
    match cause(launch) {
        Some(cause) => format!("{said}; {cause}"),
        None => said,
    }
}

/// `0 blocks`, `(4, 0, 1) blocks`: a shape's product where only x is used, else its three sizes.
fn count([x, y, z]: [u32; 3], what: &str) -> String {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    if y == 1 && z == 1 {
        format!("{x} {what}{}", plural(u64::from(x)))
    } else {
        format!("({x}, {y}, {z}) {what}s")
    }
}

/// The rule the shape breaks.
fn cause(launch: &RefusedLaunch) -> Option<String> {
    let [bx, by, bz] = launch.block;
    let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
    if launch.grid.contains(&0) {
        // The usual source: a block count by integer division, which rounds down to 0.
        return Some(format!(
            "a grid has at least 1 block in each dimension, and a block count of n / {bx} is 0 \
             when n < {bx}: round up, (n + {bx} - 1) / {bx}"
        ));
    }
    if launch.block.contains(&0) {
        return Some("a block has at least 1 thread in each dimension".into());
    }
    if threads > 1024 {
        return Some(format!(
            "a block has at most 1024 threads, and this one asks for {threads}: launch more \
             blocks of fewer threads (256 is usual)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(kernel: &str, grid: [u32; 3], block: [u32; 3]) -> Record {
        Record {
            refused_launches: vec![RefusedLaunch {
                kernel: kernel.into(),
                grid,
                block,
                shared_bytes: 0,
                error: 1,
                name: "CUDA_ERROR_INVALID_VALUE".into(),
            }],
            ..Record::default()
        }
    }

    #[test]
    fn a_grid_of_no_blocks_is_named_with_the_division_that_made_it() {
        let record = refused("_Z5saxpyfPKfPfi", [0, 1, 1], [256, 1, 1]);
        assert_eq!(
            first(&record).unwrap(),
            "the launch of saxpy with a grid of 0 blocks of 256 threads was refused: \
             CUDA_ERROR_INVALID_VALUE; a grid has at least 1 block in each dimension, and a \
             block count of n / 256 is 0 when n < 256: round up, (n + 256 - 1) / 256"
        );
    }

    #[test]
    fn a_block_too_large_is_named_and_a_shape_that_breaks_no_rule_gets_no_cause() {
        let record = refused("saxpy", [1, 1, 1], [2048, 1, 1]);
        let said = first(&record).unwrap();
        assert!(
            said.contains("at most 1024 threads, and this one asks for 2048"),
            "{said}"
        );
        let record = refused("saxpy", [4, 2, 1], [16, 16, 1]);
        assert_eq!(
            first(&record).unwrap(),
            "the launch of saxpy with a grid of (4, 2, 1) blocks of (16, 16, 1) threads was \
             refused: CUDA_ERROR_INVALID_VALUE"
        );
        assert_eq!(first(&Record::default()), None);
    }
}
