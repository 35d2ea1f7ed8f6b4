//! A small seeded generator, so that a seed gives the same inputs on every machine and version.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// SplitMix64: tiny, fast and statistically good enough for test inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), with the 24 bits an f32 can hold.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit_f32()
    }

    /// `n` values uniform in [lo, hi). Large arrays (the GPU timing cases, tens of millions of
    /// elements) are made in chunks on several threads, each chunk from its own generator seeded
    /// from this one, so the values depend on the seed alone, not on the number of threads.
    pub fn vec_f32(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        if n < PARALLEL_FROM {
            return (0..n).map(|_| self.range_f32(lo, hi)).collect();
        }
        let mut values = vec![0.0f32; n];
        let chunks: Vec<Mutex<(&mut [f32], Rng)>> = values
            .chunks_mut(CHUNK)
            .map(|chunk| Mutex::new((chunk, Rng::new(self.next_u64()))))
            .collect();
        let next = AtomicUsize::new(0);
        // Each worker takes the next chunk until none is left; this thread works too, so that
        // where no other thread can be had (a grader's limits) the same values are still made.
        let work = || {
            while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                let mut chunk = chunk
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let (values, rng) = &mut *chunk;
                for x in values.iter_mut() {
                    *x = rng.range_f32(lo, hi);
                }
            }
        };
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(8));
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let _ = std::thread::Builder::new().spawn_scoped(scope, work);
            }
            work();
        });
        drop(chunks);
        values
    }
}

/// Arrays from this many elements on are made in parallel chunks.
const PARALLEL_FROM: usize = 1 << 20;
const CHUNK: usize = 1 << 18;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_gives_same_values_and_other_seeds_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    }

    #[test]
    fn large_arrays_depend_on_the_seed_only_and_stay_in_range() {
        let a = Rng::new(3).vec_f32(PARALLEL_FROM + 5, -1.0, 1.0);
        let b = Rng::new(3).vec_f32(PARALLEL_FROM + 5, -1.0, 1.0);
        let c = Rng::new(4).vec_f32(PARALLEL_FROM + 5, -1.0, 1.0);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|x| (-1.0..1.0).contains(x)));
        // Chunks differ from one another: no generator was reused.
        assert_ne!(a[..16], a[CHUNK..CHUNK + 16]);
    }

    #[test]
    fn floats_stay_in_their_range() {
        let mut rng = Rng::new(1);
        for _ in 0..10_000 {
            let x = rng.range_f32(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&x));
        }
    }
}
