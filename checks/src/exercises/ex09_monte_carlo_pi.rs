//! 09: Monte Carlo pi with a PCG32 generator per thread (seed shared, stream = global index).
//!
//! Reproducible: the CPU reference runs the same generator, and the coordinates are cell centres
//! of a 2048 x 2048 grid, so x * x + y * y is exact in single precision with or without fused
//! multiply-adds; every thread's hit count must match exactly. Statistical: the tests below hold
//! the generator and the seeding to what a Monte Carlo estimate needs (estimates within a few
//! standard deviations of pi, per-thread counts spread like a binomial, distinct streams).

use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

/// PCG32 as the kernel file has it (pcg-random.org's pcg32_srandom_r and pcg32_random_r).
#[derive(Clone, Debug)]
pub(super) struct Pcg32 {
    state: u64,
    increment: u64,
}

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

impl Pcg32 {
    pub(super) fn new(seed: u64, stream: u64) -> Pcg32 {
        let mut rng = Pcg32 {
            state: 0,
            increment: (stream << 1) | 1,
        };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    pub(super) fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MULTIPLIER).wrapping_add(self.increment);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// The centre of one of 2048 cells of (0, 1), as `uniform_coordinate` computes it.
    pub(super) fn coordinate(&mut self) -> f32 {
        let cell = self.next_u32() >> 21;
        (2 * cell + 1) as f32 * (1.0 / 4096.0)
    }
}

/// Hits of one thread: points with x * x + y * y < 1, x drawn before y.
pub(super) fn thread_hits(seed: u64, thread: u64, samples: u32) -> u32 {
    let mut rng = Pcg32::new(seed, thread);
    let mut hits = 0;
    for _ in 0..samples {
        let x = rng.coordinate();
        let y = rng.coordinate();
        // Exact in f32 (each square has at most 24 significant bits, their sum is even and
        // below 2^25), so the GPU's fused multiply-add gives the same answer.
        if x * x + y * y < 1.0 {
            hits += 1;
        }
    }
    hits
}

pub(super) fn all_hits(seed: u64, threads: usize, samples: u32) -> Vec<u32> {
    (0..threads as u64)
        .map(|t| thread_hits(seed, t, samples))
        .collect()
}

pub(super) fn estimate(hits: &[u32], samples: u32) -> f64 {
    let total: u64 = hits.iter().map(|&h| h as u64).sum();
    4.0 * total as f64 / (hits.len() as f64 * samples as f64)
}

fn case(label: &str, threads: usize, samples: u32, seed: u64, timing: bool) -> Case {
    let plural = |k: u64, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
    let mut name = format!(
        "{label}: {} x {}",
        plural(threads as u64, "thread"),
        plural(samples as u64, "sample")
    );
    if !timing {
        let pi = estimate(&all_hits(seed, threads, samples), samples);
        name.push_str(&format!(" (the reference's estimate of pi: {pi:.4})"));
    }
    let reference = move |_: &Case| {
        let hits = all_hits(seed, threads, samples);
        let total = hits.iter().sum::<u32>();
        vec![
            ("hits".into(), HostData::U32(hits)),
            ("total_hits".into(), HostData::U32(vec![total])),
        ]
    };
    Case::new(name, "estimate_pi", Launch::covering(threads, BLOCK))
        .output("hits", HostData::U32(vec![0; threads]))
        .in_out("total_hits", HostData::U32(vec![0]))
        .scalar("seed", Scalar::U64(seed))
        .scalar("samples_per_thread", Scalar::I32(samples as i32))
        .scalar("threads", Scalar::I32(threads as i32))
        .reference(reference)
        .bytes_moved(4 * threads as u64 + 4)
        .for_timing(timing)
        .diagnose(diagnose)
}

/// Reads the wrong hit counts against what each usual seeding mistake gives (the same stream
/// for every thread, streams repeating per block, the generator restarted for every sample),
/// and a wrong total against the lost additions of a non-atomic sum.
fn diagnose(ev: &Evidence) -> Option<String> {
    let (Scalar::U64(seed), Scalar::I32(samples)) = (
        ev.case.scalar_value("seed"),
        ev.case.scalar_value("samples_per_thread"),
    ) else {
        return None;
    };
    let samples = samples.max(0) as u32;
    let actual = |t: usize| ev.actual.f64_at(t) as u64;
    let expected = |t: usize| ev.expected.f64_at(t) as u64;
    let threads = ev.len();
    if ev.buffer == "total_hits" {
        return (actual(0) < expected(0)).then(|| {
            format!(
                "total_hits is {} where the threads' hits add up to {}: additions were lost, as \
                 when threads add to it at the same time without an atomic (*total_hits += \
                 count is a read, an addition and a write); use atomicAdd(total_hits, count)",
                actual(0),
                expected(0)
            )
        });
    }
    let all = |f: &dyn Fn(usize) -> u64| (0..threads).all(|t| actual(t) == f(t));
    if let Some(cause) = samples_drawn(ev, seed, samples, &actual) {
        return Some(cause);
    }
    let differ = (1..threads).any(|t| expected(t) != expected(0));
    let first = thread_hits(seed, 0, samples) as u64;
    // Every count 0 is also what threads that drew nothing count: then both causes fit, and
    // both are said.
    if threads > 1 && differ && first == 0 && all(&|_| 0) {
        return Some(
            "every thread counted 0 hits, as thread 0 does. Either no thread drew a sample (the \
             sample loop never ran: s from 0 while s < samples_per_thread), or every thread drew \
             the same numbers, from one stream: start each thread's generator on its own stream, \
             pcg32_init(seed, t) with t the thread's global index"
                .into(),
        );
    }
    if threads > 1 && differ && first > 0 && all(&|_| first) {
        return Some(format!(
            "every thread counted {first} hits, as thread 0 does: every thread drew the same \
             numbers, from one stream; start each thread's generator on its own stream, \
             pcg32_init(seed, t) with t the thread's global index"
        ));
    }
    let block = ev.case.launch.block[0] as usize;
    if threads > block && all(&|t| expected(t % block)) {
        return Some(format!(
            "the hit counts repeat every {block} threads: each block's threads drew the same \
             numbers as block 0's; the stream must be the global index \
             (blockIdx.x * blockDim.x + threadIdx.x), not threadIdx.x"
        ));
    }
    if samples > 1 && all(&|t| samples as u64 * thread_hits(seed, t as u64, 1) as u64) {
        return Some(format!(
            "every thread counted either 0 or all {samples} of its samples: each sample drew the \
             same point, because the generator was started again for every sample; start it \
             once, before the loop"
        ));
    }
    None
}

/// Every thread's count is that of its first `k` samples, for `k` one fewer or one more than
/// the case's: the sample loop ran a different number of times (it starts at 1, or tests `<=`).
/// Said only where two or more threads drew at least one sample each, so that the counts, which
/// differ thread by thread, are the evidence: every count 0 fits other mistakes too.
fn samples_drawn(
    ev: &Evidence,
    seed: u64,
    samples: u32,
    actual: &dyn Fn(usize) -> u64,
) -> Option<String> {
    let threads = ev.len();
    let drawn = [samples.checked_sub(1), samples.checked_add(1)];
    let k = drawn
        .into_iter()
        .flatten()
        .filter(|&k| k > 0 && threads > 1)
        .find(|&k| (0..threads).all(|t| actual(t) == thread_hits(seed, t as u64, k) as u64))?;
    let per = |n: u32| format!("{n} sample{}", if n == 1 { "" } else { "s" });
    Some(format!(
        "every thread counted the hits of its first {} where it should draw {}: the sample loop \
         goes round once too {} (s from 0 while s < samples_per_thread)",
        per(k),
        per(samples),
        if k < samples { "few" } else { "many" },
    ))
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let mut seed = || rng.next_u64();
    let mut cases = vec![
        case("n = 1", 1, 1000, seed(), false),
        case("one sample each", 1000, 1, seed(), false),
        case("n = 1000 (not a multiple of 256)", 1000, 32, seed(), false),
    ];
    for &n in &options.extra_sizes {
        cases.push(case(&format!("n = {n}"), n, 16, seed(), false));
    }
    cases.push(case("n = 4096", 4096, 64, seed(), false));
    if options.timing {
        cases.push(case("timing", 1 << 18, 256, seed(), true));
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::likely_cause_of;
    use std::f64::consts::PI;

    fn seed_and_samples(case: &Case) -> (u64, u32) {
        match (
            case.scalar_value("seed"),
            case.scalar_value("samples_per_thread"),
        ) {
            (Scalar::U64(seed), Scalar::I32(samples)) => (seed, samples as u32),
            _ => unreachable!(),
        }
    }

    fn cause(case: &Case, hits: impl Fn(u64, u64, u32) -> u32) -> String {
        let (seed, samples) = seed_and_samples(case);
        let threads = case
            .launch
            .total_threads()
            .min(case.buffer("hits").len() as u64);
        let hits = (0..threads).map(|t| hits(seed, t, samples)).collect();
        likely_cause_of(case, "hits", HostData::U32(hits)).unwrap_or_default()
    }

    #[test]
    fn each_seeding_mistake_is_named_and_only_it() {
        for case in &cases(&CaseOptions::default())[1..] {
            let same = cause(case, |seed, _, samples| thread_hits(seed, 0, samples));
            let (seed, samples) = seed_and_samples(case);
            assert!(same.contains("the same numbers, from one stream"), "{same}");
            // Thread 0 hit nothing: every count 0 does not single out one stream.
            let alone = thread_hits(seed, 0, samples) > 0;
            assert_eq!(!same.contains("Either"), alone, "{same}");
            let per_block = cause(case, |seed, t, samples| thread_hits(seed, t % 256, samples));
            assert!(per_block.contains("repeat every 256"), "{per_block}");
            if seed_and_samples(case).1 > 1 {
                let restarted = cause(case, |seed, t, samples| samples * thread_hits(seed, t, 1));
                assert!(restarted.contains("started again"), "{restarted}");
            }
            let other = cause(case, |seed, t, samples| thread_hits(seed + 1, t, samples));
            assert_eq!(other, "", "{}", case.name);
        }
    }

    #[test]
    fn a_sample_loop_once_short_or_long_is_named_and_no_stream_blamed_for_zero_hits() {
        let cases = cases(&CaseOptions::default());
        for case in &cases[2..] {
            let (_, samples) = seed_and_samples(case);
            let short = cause(case, |seed, t, samples| thread_hits(seed, t, samples - 1));
            assert!(short.contains("goes round once too few"), "{short}");
            let long = cause(case, |seed, t, samples| thread_hits(seed, t, samples + 1));
            assert!(long.contains("goes round once too many"), "{long}");
            assert!(long.contains(&format!("{} samples", samples + 1)), "{long}");
        }
        // One sample each, one fewer: no thread draws, every count is 0. Where thread 0's one
        // point misses, that fits one stream as well as a loop that never ran: both are said;
        // where it hits, one stream does not fit, and nothing is said.
        let mut both = 0;
        for seed in 0..40 {
            let case = case("one sample each", 1000, 1, seed, false);
            let said = cause(&case, |_, _, _| 0);
            if thread_hits(seed, 0, 1) == 0 {
                assert!(
                    said.contains("the sample loop never ran"),
                    "seed {seed}: {said}"
                );
                assert!(said.contains("from one stream"), "seed {seed}: {said}");
                both += 1;
            } else {
                assert_eq!(said, "", "seed {seed}");
            }
        }
        assert!(
            both > 0,
            "no seed whose thread 0 misses: the test proves nothing"
        );
    }

    #[test]
    fn a_total_short_of_the_hits_is_named() {
        let case = &cases(&CaseOptions::default())[2];
        let cause = likely_cause_of(case, "total_hits", HostData::U32(vec![28])).unwrap();
        assert!(cause.contains("atomicAdd"), "{cause}");
    }

    #[test]
    fn generator_is_pcg32_as_published() {
        // pcg-c-basic's demo: pcg32_srandom_r(&rng, 42, 54), then its first six numbers.
        let mut rng = Pcg32::new(42, 54);
        let first: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
        assert_eq!(
            first,
            [0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]
        );
    }

    /// Standard deviation of the estimate from `n` samples: 4 sqrt(p (1 - p) / n), p = pi / 4.
    fn sigma(n: f64) -> f64 {
        let p = PI / 4.0;
        4.0 * (p * (1.0 - p) / n).sqrt()
    }

    #[test]
    fn estimates_are_within_four_standard_deviations_of_pi() {
        for seed in 0..20 {
            let pi = estimate(&all_hits(seed, 4096, 64), 64);
            assert!(
                (pi - PI).abs() < 4.0 * sigma(4096.0 * 64.0),
                "seed {seed}: {pi}"
            );
        }
    }

    #[test]
    fn the_grid_of_cell_centres_does_not_bias_the_estimate() {
        // The estimate tends to the share of the 2048 x 2048 cell centres inside the circle.
        let centre = |c: u64| (2 * c + 1) as f64 / 4096.0;
        let inside: u64 = (0..2048)
            .map(|i| {
                (0..2048)
                    .filter(|&j| centre(i).powi(2) + centre(j).powi(2) < 1.0)
                    .count() as u64
            })
            .sum();
        let limit = 4.0 * inside as f64 / (2048.0 * 2048.0);
        assert!((limit - PI).abs() < 1e-5, "{limit}");
    }

    #[test]
    fn threads_draw_independent_streams() {
        // Per-thread counts spread like Binomial(64, pi/4), variance 64 p (1 - p) = 10.8: streams
        // that repeated or moved together would spread far less or far more.
        let hits = all_hits(7, 4096, 64);
        let mean = hits.iter().map(|&h| h as f64).sum::<f64>() / 4096.0;
        let variance = hits.iter().map(|&h| (h as f64 - mean).powi(2)).sum::<f64>() / 4095.0;
        assert!((9.0..12.6).contains(&variance), "{variance}");
        assert_ne!(Pcg32::new(7, 0).next_u32(), Pcg32::new(7, 1).next_u32());
    }

    #[test]
    fn coordinates_are_cell_centres_inside_the_unit_interval() {
        let mut rng = Pcg32::new(3, 9);
        for _ in 0..10_000 {
            let x = rng.coordinate();
            assert!(x > 0.0 && x < 1.0);
            assert_eq!((x * 4096.0) as u32 % 2, 1);
        }
    }
}
