//! 28: random numbers the way Numba makes them. The host seeds xoroshiro128+ with SplitMix64 and
//! gives each thread its own stream by jumping the previous thread's state 2^64 steps ahead
//! (`numba.cuda.random.create_xoroshiro128p_states`); the states go to the device once, and
//! every batch's kernel advances them there. The reference reproduces every draw exactly.

use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

/// One generator's state (Numba's `xoroshiro128p_dtype`: s0, s1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State(u64, u64);

impl State {
    /// Numba's `init_xoroshiro128p_state`: SplitMix64 of the seed, in both halves.
    pub(super) fn seeded(seed: u64) -> State {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        State(z, z)
    }

    /// `xoroshiro128p_next`.
    pub(super) fn next_u64(&mut self) -> u64 {
        let (s0, mut s1) = (self.0, self.1);
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        self.1 = s1.rotate_left(36);
        result
    }

    /// `xoroshiro128p_jump`: 2^64 steps ahead.
    pub(super) fn jump(&mut self) {
        const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
        let (mut s0, mut s1) = (0, 0);
        for word in JUMP {
            for bit in 0..64 {
                if word & (1 << bit) != 0 {
                    s0 ^= self.0;
                    s1 ^= self.1;
                }
                self.next_u64();
            }
        }
        *self = State(s0, s1);
    }

    /// `xoroshiro128p_uniform_float32`: the top 53 bits as a double in [0, 1), then a float.
    pub(super) fn uniform_f32(&mut self) -> f32 {
        ((self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)) as f32
    }
}

/// `create_xoroshiro128p_states(n, seed)`: thread i's state is the seed's jumped i times.
pub(super) fn states(n: usize, seed: u64) -> Vec<State> {
    let mut state = State::seeded(seed);
    (0..n)
        .map(|i| {
            if i > 0 {
                state.jump();
            }
            state
        })
        .collect()
}

/// Every batch's draws from `states`: batch b, draw k of thread i at ((b * draws) + k) * n + i.
pub(super) fn draws(mut states: Vec<State>, draws: usize, batches: usize) -> Vec<f32> {
    let n = states.len();
    let mut out = vec![0.0; batches * draws * n];
    for b in 0..batches {
        for (i, state) in states.iter_mut().enumerate() {
            for k in 0..draws {
                out[(b * draws + k) * n + i] = state.uniform_f32();
            }
        }
    }
    out
}

fn case(name: &str, threads: usize, per_launch: usize, batches: usize, rng: &mut Rng) -> HostCase {
    let seed = rng.next_u64() >> 16;
    let want = draws(states(threads, seed), per_launch, batches);
    HostCase {
        name: name.to_string(),
        params: vec![
            ("seed", seed.to_string()),
            ("threads", threads.to_string()),
            ("draws", per_launch.to_string()),
            ("batches", batches.to_string()),
        ],
        inputs: Vec::new(),
        expected: vec![("draws", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case("1 thread, 1 batch of 4 draws", 1, 4, 1, rng),
        case("1000 threads, 3 batches of 8 draws", 1000, 8, 3, rng),
    ]
}

/// What the draws show of how the states were made.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let HostData::F32(got) = actual else {
        return None;
    };
    let number = |key: &str| case.param(key)?.parse::<usize>().ok();
    let (n, per_launch, batches) = (number("threads")?, number("draws")?, number("batches")?);
    let seed: u64 = case.param("seed")?.parse().ok()?;
    if name != "draws" || got.len() != n * per_launch * batches || n < 2 {
        return None;
    }
    if got.iter().all(|v| *v == 0.0) {
        return Some(
            "every draw is 0: nothing came back from the device (the kernel never ran, or its \
             draws were never copied back)"
                .into(),
        );
    }
    if got.chunks(n).all(|row| row.iter().all(|v| *v == row[0])) {
        return Some(
            "every thread drew the same numbers: all states are the same. Jump each state 2^64 \
             steps past the previous thread's (state i = state i-1, jumped once)"
                .into(),
        );
    }
    let batch = n * per_launch;
    if batches > 1 && got[..batch] == got[batch..2 * batch] {
        return Some(
            "the second batch repeats the first: the states were made or uploaded again before \
             it. Upload them once and let each launch leave them advanced on the device"
                .into(),
        );
    }
    if let Some(said) = one_part_for_every_batch(case, got, batch, batches) {
        return Some(said);
    }
    let jumped_once_more = draws(states(n + 1, seed)[1..].to_vec(), per_launch, batches);
    (*got == jumped_once_more).then(|| {
        "each thread's numbers are the next thread's: thread 0's state is the seeded one, \
         not jumped; thread i's is jumped i times"
            .into()
    })
}

/// The first batch's part of the draws holding the last batch's, and every other part as it was
/// allocated (zeros): each launch was given the same part of the array, not its batch's.
fn one_part_for_every_batch(
    case: &HostCase,
    got: &[f32],
    batch: usize,
    batches: usize,
) -> Option<String> {
    let Some(HostData::F32(want)) = case.expected("draws") else {
        return None;
    };
    let last = &want[(batches - 1) * batch..];
    (batches > 1 && got[..batch] == *last && got[batch..].iter().all(|v| *v == 0.0)).then(|| {
        format!(
            "the first {batch} draws are the last batch's and the other {} are 0: every launch \
             wrote the same part of the array. Give launch b the part from b * per_batch to \
             (b + 1) * per_batch",
            got.len() - batch
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_batch_written_to_the_first_part_is_named() {
        let case = &cases(&mut Rng::new(3))[1];
        let Some(HostData::F32(want)) = case.expected("draws") else {
            panic!("draws are f32")
        };
        let batch = want.len() / 3;
        let mut got = vec![0.0f32; want.len()];
        got[..batch].copy_from_slice(&want[2 * batch..]);
        let said = diagnose(case, "draws", &HostData::F32(got.clone())).unwrap();
        assert!(said.contains("every launch wrote the same part"), "{said}");
        // The first part holding the first batch's draws is another mistake (never relaunched).
        got[..batch].copy_from_slice(&want[..batch]);
        assert_eq!(one_part_for_every_batch(case, &got, batch, 3), None);
    }

    /// Numba-cuda 0.30.4's own values, printed with `init_xoroshiro128p_states_cpu(s, 42, 0)`
    /// on three states, then three `xoroshiro128p_uniform_float32(s, 2)`.
    #[test]
    fn states_and_draws_are_numbas() {
        let s = states(3, 42);
        assert_eq!(s[0], State(0xbdd732262feb6e95, 0xbdd732262feb6e95));
        assert_eq!(s[1], State(0x045a2c270718bc3b, 0x05b3939a23e533b4));
        assert_eq!(s[2], State(0xa67324e5ecccb8dc, 0x4a81bbd6c315729e));
        let mut third = s[2];
        let drawn: Vec<f64> = (0..3).map(|_| third.uniform_f32() as f64).collect();
        // As Python printed the float32 values (widened to double).
        let numba: [f64; 3] = [0.9412365555763245, 0.13687238097190857, 0.6842495799064636];
        assert_eq!(drawn, numba);
    }

    #[test]
    fn uniform_draws_lie_in_the_unit_interval() {
        let mut state = State::seeded(7);
        for _ in 0..1000 {
            let v = state.uniform_f32();
            assert!((0.0..=1.0).contains(&v));
        }
    }
}
