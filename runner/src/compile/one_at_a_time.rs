//! One compile of a given key at a time in this process. On a GPU a check and the simulator's
//! re-check beside it ask for the same PTX at the same moment (see `cmd::check`); the second
//! waits for the first and then finds its output in the compile cache, rather than running
//! NVRTC a second time on the same text.

use std::collections::HashSet;
use std::sync::{Condvar, Mutex, MutexGuard};

static BUSY: Mutex<Option<HashSet<String>>> = Mutex::new(None);
static FREED: Condvar = Condvar::new();
/// Threads waiting in [`take`] now: lets the tests see a waiter wait, rather than guess with a sleep.
#[cfg(test)]
static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn busy() -> MutexGuard<'static, Option<HashSet<String>>> {
    // A thread that panicked while holding the set left it whole: inserts and removes only.
    BUSY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The turn to compile `key`, held until dropped.
pub(crate) struct Turn {
    key: String,
}

/// Waits until no other thread of this process holds the turn for `key`, then takes it.
pub(crate) fn take(key: &str) -> Turn {
    let mut busy = busy();
    while busy.get_or_insert_with(HashSet::new).contains(key) {
        #[cfg(test)]
        WAITING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        busy = FREED
            .wait(busy)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        #[cfg(test)]
        WAITING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
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
    use std::sync::{mpsc, Arc};
    use std::time::{Duration, Instant};

    /// Far longer than a thread takes to start on any machine; only a lost wake-up or a wrong
    /// wait reaches it.
    const STUCK: Duration = Duration::from_secs(120);

    #[test]
    fn a_second_taker_of_the_same_key_waits_for_the_first() {
        let first = take("same source");
        let released = Arc::new(AtomicBool::new(false));
        let seen = released.clone();
        let second = std::thread::Builder::new()
            .name("second taker".into())
            .spawn(move || {
                let _turn = take("same source");
                seen.load(Ordering::SeqCst)
            })
            .expect("a thread starts");
        // Let go only once the second is seen waiting, however late its thread starts.
        let started = Instant::now();
        while WAITING.load(Ordering::SeqCst) == 0 {
            assert!(started.elapsed() < STUCK, "the second never waited");
            std::thread::sleep(Duration::from_millis(1));
        }
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
        let (done, finished) = mpsc::channel();
        std::thread::Builder::new()
            .name("other key".into())
            .spawn(move || {
                let _turn = take("another source");
                done.send(()).unwrap();
            })
            .expect("a thread starts");
        assert!(
            finished.recv_timeout(STUCK).is_ok(),
            "a different key waited for the first"
        );
    }
}
