//! 08: a 256-bin histogram of bytes, with atomic additions, on a fixed grid smaller than the
//! data. Inputs include a single repeated value (every thread adds to the same bin) and a skewed
//! mix like text, beside uniformly random bytes.

use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

pub const BINS: usize = 256;

/// 2048 threads: fewer than the bytes of most cases, so the kernel must loop.
const GRID: Launch = Launch {
    grid: [8, 1, 1],
    block: [256, 1, 1],
    shared_bytes: 0,
};

/// The timed grid: a few blocks per SM of a large GPU, 128 bytes per thread.
const TIMING_GRID: Launch = Launch {
    grid: [1024, 1, 1],
    block: [256, 1, 1],
    shared_bytes: 0,
};

/// 32 MiB of bytes: larger than the L2 cache of any current GPU.
const TIMING_BYTES: usize = 32 << 20;

pub fn histogram(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; BINS];
    for &byte in data {
        bins[byte as usize] += 1;
    }
    bins
}

fn case(name: String, data: Vec<u8>, launch: Launch) -> Case {
    let n = data.len();
    Case::new(name, "histogram", launch)
        .input("data", HostData::U8(data))
        .in_out("bins", HostData::U32(vec![0; BINS]))
        .scalar("n", Scalar::I32(n as i32))
        .reference(|case| match case.buffer("data") {
            HostData::U8(data) => vec![("bins".into(), HostData::U32(histogram(data)))],
            _ => unreachable!("data is declared as bytes"),
        })
        .bytes_moved(n as u64 + 4 * BINS as u64)
        .for_timing(n == TIMING_BYTES)
}

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// Mostly a few values, like the letters of a text: spaces and a handful of common letters.
fn skewed_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    const COMMON: &[u8] = b"      eeeettaaoinshr";
    (0..n)
        .map(|_| {
            let r = rng.next_u64();
            if r % 10 < 8 {
                COMMON[(r >> 8) as usize % COMMON.len()]
            } else {
                (r >> 16) as u8
            }
        })
        .collect()
}

pub fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    let threads = GRID.total_threads();
    let mut cases = vec![
        case("n = 1".into(), vec![200], GRID),
        case(
            format!("n = 1000, fewer bytes than the {threads} threads"),
            random_bytes(&mut rng, 1000),
            GRID,
        ),
        case(
            "n = 5000, every byte 42 (all threads add to one bin)".into(),
            vec![42; 5000],
            GRID,
        ),
        case(
            "n = 20000, skewed like text".into(),
            skewed_bytes(&mut rng, 20_000),
            GRID,
        ),
    ];
    let mut sizes = vec![65_539, 100_003];
    sizes.extend(options.extra_sizes.iter().copied());
    for n in sizes {
        let name = format!("n = {n} random bytes on {threads} threads");
        cases.push(case(name, random_bytes(&mut rng, n), GRID));
    }
    if options.timing {
        let name = format!("n = {TIMING_BYTES} random bytes");
        cases.push(case(
            name,
            random_bytes(&mut rng, TIMING_BYTES),
            TIMING_GRID,
        ));
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_lands_in_its_own_bin() {
        let bins = histogram(&[0, 255, 255, 7]);
        assert_eq!((bins[0], bins[255], bins[7]), (1, 2, 1));
        assert_eq!(bins.iter().sum::<u32>(), 4);
    }

    #[test]
    fn skewed_data_is_dominated_by_a_few_values() {
        let bins = histogram(&skewed_bytes(&mut Rng::new(1), 10_000));
        assert!(bins[b' ' as usize] > 2000, "{}", bins[b' ' as usize]);
    }
}
