//! What handles name (modules, functions, streams, events, links): each created entry gets the
//! next number, never given out again, so a handle used after its destroy is refused; a
//! destroyed entry is removed, so memory follows what is live however many a program creates and
//! destroys, as on NVIDIA's driver (a table that kept every destroyed entry grew without bound).

use std::collections::HashMap;

/// Live entries by number.
pub(crate) struct Table<T> {
    live: HashMap<usize, T>,
    next: usize,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            live: HashMap::new(),
            next: 0,
        }
    }
}

impl<T> Table<T> {
    /// Adds `value` under the next number, which it returns.
    pub(crate) fn insert(&mut self, value: T) -> usize {
        let number = self.next;
        self.next += 1;
        self.live.insert(number, value);
        number
    }

    pub(crate) fn get(&self, number: usize) -> Option<&T> {
        self.live.get(&number)
    }

    pub(crate) fn get_mut(&mut self, number: usize) -> Option<&mut T> {
        self.live.get_mut(&number)
    }

    pub(crate) fn remove(&mut self, number: usize) -> Option<T> {
        self.live.remove(&number)
    }

    /// How many entries are live.
    pub(crate) fn len(&self) -> usize {
        self.live.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn a_removed_entry_is_gone_and_its_number_never_comes_back() {
        let mut table = Table::default();
        let first = table.insert("a");
        assert_eq!(table.remove(first), Some("a"));
        for _ in 0..1000 {
            let n = table.insert("b");
            assert_ne!(n, first);
            table.remove(n);
        }
        assert_eq!((table.live.len(), table.get(first)), (0, None));
        let kept = table.insert("c");
        assert_eq!(table.get(kept), Some(&"c"));
    }
}
