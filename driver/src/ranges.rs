//! Address ranges the driver keeps per allocation (device memory, page-locked host memory), keyed
//! by start: adding, removing and finding the range that holds an address are O(log n), as a
//! program with a million live allocations needs (NVIDIA's driver frees a million in 3.8 s).

use std::collections::BTreeMap;

/// Non-overlapping ranges `[start, start + len)`, and their total length.
#[derive(Default)]
pub(crate) struct Ranges {
    by_start: BTreeMap<u64, u64>,
    total: u64,
}

impl Ranges {
    /// Adds `[start, start + len)`; the caller has checked that it overlaps none.
    pub(crate) fn insert(&mut self, start: u64, len: u64) {
        if let Some(old) = self.by_start.insert(start, len) {
            self.total -= old;
        }
        self.total += len;
    }

    /// Removes the range that starts at `start`; its length, or `None` if no range starts there.
    pub(crate) fn remove(&mut self, start: u64) -> Option<u64> {
        let len = self.by_start.remove(&start)?;
        self.total -= len;
        Some(len)
    }

    /// The range that holds byte `at`, as `(start, len)`.
    pub(crate) fn holding(&self, at: u64) -> Option<(u64, u64)> {
        let (&start, &len) = self.by_start.range(..=at).next_back()?;
        (at - start < len).then_some((start, len))
    }

    /// Whether `[at, at + len)` lies inside one range (a length that wraps around lies in none).
    pub(crate) fn contains(&self, at: u64, len: u64) -> bool {
        self.holding(at).is_some_and(|(start, size)| {
            (at - start).checked_add(len).is_some_and(|end| end <= size)
        })
    }

    /// Whether any range shares a byte with `[start, end)`.
    pub(crate) fn overlaps(&self, start: u64, end: u64) -> bool {
        let before = self.by_start.range(..start).next_back();
        let ends_inside = before.is_some_and(|(&s, &len)| s.saturating_add(len) > start);
        ends_inside || self.by_start.range(start..end).next().is_some()
    }

    /// The sum of the ranges' lengths.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The ranges, as `(start, len)`, by start.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.by_start.iter().map(|(&start, &len)| (start, len))
    }
}

#[cfg(test)]
mod tests {
    use super::Ranges;

    #[test]
    fn ranges_are_found_by_any_byte_and_their_total_kept() {
        let mut r = Ranges::default();
        r.insert(100, 50);
        r.insert(300, 10);
        assert_eq!(r.holding(149), Some((100, 50)));
        assert_eq!(r.holding(150), None);
        assert!(r.contains(120, 30) && !r.contains(120, 31));
        assert!(
            !r.contains(120, u64::MAX),
            "a length that wraps lies in no range"
        );
        assert!(r.overlaps(149, 160) && r.overlaps(0, 101) && r.overlaps(305, 306));
        assert!(!r.overlaps(150, 300) && !r.overlaps(310, 400));
        assert_eq!(r.total(), 60);
        assert_eq!(r.remove(100), Some(50));
        assert_eq!(r.remove(100), None);
        assert_eq!(r.total(), 10);
    }
}
