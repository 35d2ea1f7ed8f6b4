//! A wrong output whose right part ends exactly where the launched threads end: the driver's
//! record says how many threads each launch ran, so "the elements past the last thread were
//! never computed" is said only where the record and the values both show it, for any program.

use super::record::Record;
use checks::compare::element_f64;
use checks::{HostData, Tolerance};

/// Where every launch ran fewer threads than `name` has elements, the first of them (as many as
/// the largest launch's threads) are right, and the next is wrong: the sentence that says so.
pub(super) fn past_the_last_thread(
    record: &Record,
    name: &str,
    want: &HostData,
    got: &HostData,
    tolerance: Tolerance,
) -> Option<String> {
    let threads = record
        .launches
        .iter()
        .map(|l| {
            l.grid
                .iter()
                .chain(&l.block)
                .map(|&d| d as u64)
                .product::<u64>()
        })
        .max()?;
    let n = want.len();
    let covered = usize::try_from(threads).ok().filter(|&t| t > 0 && t < n)?;
    let right = |i| tolerance.accepts_value(element_f64(want, i), element_f64(got, i));
    (got.len() == n && (0..covered).all(right) && !right(covered)).then(|| {
        format!(
            "the largest launch ran {covered} threads (grid × block, in the driver's record) for \
             the {n} elements of {name}, and exactly the first {covered} are right: no thread \
             computed the rest. Launch enough blocks for every element (rounded up), or have each \
             thread loop over the elements past the grid"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::Launch;

    fn launched(grid: u32, block: u32) -> Record {
        let launch = Launch {
            kernel: "k".into(),
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            end_us: 1.0,
            ..Launch::default()
        };
        Record {
            launches: vec![launch],
            ..Record::default()
        }
    }

    #[test]
    fn a_tail_past_the_launched_threads_is_named_only_where_the_record_shows_it() {
        let want = HostData::F32((0..100).map(|i| i as f32).collect());
        let mut got: Vec<f32> = (0..100).map(|i| i as f32).collect();
        got[64..].iter_mut().for_each(|v| *v = -1.0);
        let got = HostData::F32(got);
        let exact = Tolerance::default();
        let said = past_the_last_thread(&launched(2, 32), "y", &want, &got, exact).unwrap();
        assert!(said.contains("ran 64 threads"), "{said}");
        // The record shows enough threads: the tail is some other mistake.
        assert_eq!(
            past_the_last_thread(&launched(4, 32), "y", &want, &got, exact),
            None
        );
        // Fewer threads, but the right part does not end where they do.
        assert_eq!(
            past_the_last_thread(&launched(1, 32), "y", &want, &got, exact),
            None
        );
        assert_eq!(
            past_the_last_thread(&Record::default(), "y", &want, &got, exact),
            None
        );
    }
}
