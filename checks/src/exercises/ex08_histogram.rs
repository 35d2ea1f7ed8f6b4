//! 08: a 256-bin histogram of bytes, with atomic additions, on a fixed grid smaller than the
//! data. Inputs include a single repeated value (every thread adds to the same bin) and a skewed
//! mix like text, beside uniformly random bytes.

use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

pub(super) const BINS: usize = 256;

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

pub(super) fn histogram(data: &[u8]) -> Vec<u32> {
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
        .diagnose(diagnose)
        .inputs_of(|_, _, bin| Some(format!("the bin of byte value {bin}")))
}

/// Reads the wrong bins against what each usual mistake counts: every block counting all the
/// data, or the same bytes; one byte per thread with no loop; increments lost.
fn diagnose(ev: &Evidence) -> Option<String> {
    let HostData::U8(data) = ev.case.buffer("data") else {
        return None;
    };
    let launch = &ev.case.launch;
    let (blocks, threads) = (launch.grid[0] as usize, launch.block[0] as usize);
    let grid_threads = blocks * threads;
    let actual = |bin: usize| ev.actual.f64_at(bin) as u64;
    let is = |bins: &[u32], times: u64| (0..BINS).all(|b| actual(b) == times * bins[b] as u64);

    let expected = histogram(data);
    if blocks > 1 && is(&expected, blocks as u64) {
        return Some(format!(
            "every bin holds {blocks} times its count, once per block: every block went over \
             all the data (a loop that starts at threadIdx.x and steps by blockDim.x); start at \
             blockIdx.x * blockDim.x + threadIdx.x and step by gridDim.x * blockDim.x"
        ));
    }
    let first_threads: Vec<u8> = data
        .iter()
        .enumerate()
        .filter(|(i, _)| i % grid_threads < threads)
        .map(|(_, &b)| b)
        .collect();
    if blocks > 1 && is(&histogram(&first_threads), blocks as u64) {
        return Some(format!(
            "the bins count the same bytes {blocks} times, once per block, and others not at \
             all: the loop starts at threadIdx.x alone; start at blockIdx.x * blockDim.x + \
             threadIdx.x"
        ));
    }
    if data.len() > grid_threads && is(&histogram(&data[..grid_threads]), 1) {
        return Some(format!(
            "only the first {grid_threads} bytes were counted, one per thread: the grid has \
             {grid_threads} threads for {} bytes; loop over the data with a grid-stride loop",
            data.len()
        ));
    }
    let counted: u64 = (0..BINS).map(actual).sum();
    if counted < data.len() as u64 && (0..BINS).all(|b| actual(b) <= expected[b] as u64) {
        return Some(format!(
            "{} of the {} bytes were not counted: increments were lost, as when threads add to \
             the same bin at once without an atomic (bins[v] += 1 is a read, an addition and a \
             write); use atomicAdd",
            data.len() as u64 - counted,
            data.len()
        ));
    }
    None
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

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
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
    use crate::compare::likely_cause_of;

    fn cause(case: &Case, bins: Vec<u32>) -> String {
        likely_cause_of(case, "bins", HostData::U32(bins)).unwrap_or_default()
    }

    fn data(case: &Case) -> &[u8] {
        match case.buffer("data") {
            HostData::U8(d) => d,
            _ => unreachable!(),
        }
    }

    #[test]
    fn every_block_counting_everything_is_named_with_the_factor() {
        for case in cases(&CaseOptions::default()) {
            let times8 = histogram(data(&case)).iter().map(|c| 8 * c).collect();
            let said = cause(&case, times8);
            assert!(said.contains("8 times its count, once per block"), "{said}");
            let times7 = histogram(data(&case)).iter().map(|c| 7 * c).collect();
            assert!(!cause(&case, times7).contains("once per block"));
        }
    }

    #[test]
    fn no_loop_and_lost_increments_are_named() {
        let case = cases(&CaseOptions::default()).remove(5);
        let d = data(&case);
        let said = cause(&case, histogram(&d[..2048]));
        assert!(said.contains("first 2048 bytes"), "{said}");
        let mut lost = histogram(d);
        lost[3] -= 2;
        lost[9] -= 1;
        let said = cause(&case, lost);
        assert!(
            said.contains("3 of the") && said.contains("atomicAdd"),
            "{said}"
        );
        let mut moved = histogram(d);
        moved[3] -= 2;
        moved[9] += 1;
        assert_eq!(cause(&case, moved), "");
    }

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
