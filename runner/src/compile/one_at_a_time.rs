//! One compile of a given key at a time in this process. On a GPU a check and the simulator's
//! re-check beside it ask for the same PTX at the same moment (see `cmd::check`); the second
//! waits for the first and then finds its output in the compile cache, rather than running
//! NVRTC a second time on the same text.

use std::collections::HashSet;
use std::sync::{Condvar, Mutex, MutexGuard};

static BUSY: Mutex<Option<HashSet<String>>> = Mutex::new(None);
static FREED: Condvar = Condvar::new();

fn busy() -> MutexGuard<'static, Option<HashSet<String>>> {
    // A thread that panicked while holding the set left it whole: inserts and removes only.
    BUSY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The turn to compile `key`, held until dropped.
pub struct Turn {
    key: String,
}

/// Waits until no other thread of this process holds the turn for `key`, then takes it.
pub fn take(key: &str) -> Turn {
    let mut busy = busy();
    while busy.get_or_insert_with(HashSet::new).contains(key) {
        busy = FREED
            .wait(busy)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
    }
    busy.get_or_insert_with(HashSet::new)
        .insert(key.to_string());
    Turn {
        key: key.to_string(),
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(set) = busy().as_mut() {
            set.remove(&self.key);
        }
        FREED.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_second_taker_of_the_same_key_waits_for_the_first() {
        let first = take("same source");
        let released = Arc::new(AtomicBool::new(false));
        let seen = released.clone();
        let second = std::thread::spawn(move || {
            let _turn = take("same source");
            seen.load(Ordering::SeqCst)
        });
        std::thread::sleep(Duration::from_millis(50));
        released.store(true, Ordering::SeqCst);
        drop(first);
        assert!(
            second.join().unwrap(),
            "the second took its turn before the first let go"
        );
    }

    #[test]
    fn other_keys_do_not_wait() {
        let _first = take("one source");
        let other = std::thread::spawn(|| {
            let _turn = take("another source");
        });
        other.join().unwrap();
    }
}
