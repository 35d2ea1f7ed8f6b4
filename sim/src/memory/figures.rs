//! Counting what one warp-wide access costs: distinct global sectors, shared-memory wavefronts.

/// Number of distinct values (may reorder `v`). Coalesced accesses arrive sorted, so that case
/// skips the sort; values within 64 of each other (a warp's sectors, repeated or shuffled, as
/// the two half-warps of a matrix multiply read them) are counted as bits of one word.
#[inline]
pub(crate) fn count_distinct(v: &mut [u64]) -> u64 {
    if v.is_empty() {
        return 0;
    }
    if v.windows(2).all(|w| w[0] <= w[1]) {
        return 1 + v.windows(2).filter(|w| w[0] != w[1]).count() as u64;
    }
    let lo = v.iter().copied().min().unwrap_or(0);
    if v.iter().all(|&x| x - lo < 64) {
        let seen = v.iter().fold(0u64, |m, &x| m | 1 << (x - lo));
        return seen.count_ones() as u64;
    }
    v.sort_unstable();
    1 + v.windows(2).filter(|w| w[0] != w[1]).count() as u64
}

/// Wavefronts of one shared-memory access by the lanes in `mask` at byte addresses `addrs`, each
/// `bytes` wide, and the ideal count (one per group of phases that has lanes).
///
/// Phases: all 32 lanes for accesses of up to 4 bytes, half-warps for 8 bytes, quarter-warps for
/// 16. In a phase, each bank serves its distinct 4-byte words one per wavefront; lanes reading the
/// same word share it. For loads (`pair_phases`) the hardware serves two phases in one pass
/// where neither needs a bank the other uses, or both read one and the same address: the two
/// half-warps of an 8-byte load, the quarter-warps of each half-warp of a 16-byte load (measured
/// on an H100, `scripts/gpu/results/lds/wavefronts.md`: 45 lane patterns, all equal).
pub(crate) fn shared_wavefronts(
    mask: u32,
    addrs: &[u64; 32],
    bytes: u32,
    pair_phases: bool,
) -> (u64, u64) {
    let lanes_per_phase = match bytes {
        0..=4 => 32,
        8 => 16,
        _ => 8,
    };
    if lanes_per_phase == 32 {
        // Fast path: every lane on its own bank, or every lane on one word.
        let (mut banks, mut same) = (0u32, true);
        let first = addrs[mask.trailing_zeros() as usize & 31] >> 2;
        for (l, a) in addrs.iter().enumerate() {
            let on = mask >> l & 1 != 0;
            banks |= (on as u32) << ((a >> 2) & 31);
            same &= !on || a >> 2 == first;
        }
        if mask != 0 && (same || banks.count_ones() == mask.count_ones()) {
            return (1, 1);
        }
    }
    let phases: Vec<Option<Phase>> = (0..32 / lanes_per_phase)
        .map(|p| Phase::of(mask, addrs, p * lanes_per_phase, lanes_per_phase, bytes))
        .collect();
    let (mut wavefronts, mut ideal) = (0, 0);
    let mut serve = |cost: u64| {
        wavefronts += cost;
        ideal += 1;
    };
    if pair_phases && lanes_per_phase < 32 {
        for pair in phases.chunks(2) {
            match (pair[0], pair[1]) {
                (Some(a), Some(b)) if a.pairs_with(&b) => serve(a.wavefronts.max(b.wavefronts)),
                (a, b) => [a, b]
                    .into_iter()
                    .flatten()
                    .for_each(|p| serve(p.wavefronts)),
            }
        }
    } else {
        phases
            .into_iter()
            .flatten()
            .for_each(|p| serve(p.wavefronts));
    }
    (wavefronts, ideal)
}

/// What one phase of a shared-memory access needs.
#[derive(Clone, Copy)]
struct Phase {
    wavefronts: u64,
    /// The banks it uses, one bit each.
    banks: u32,
    /// The one address all its lanes read, if they all read one.
    only_address: Option<u64>,
}

impl Phase {
    fn of(mask: u32, addrs: &[u64; 32], first: usize, lanes: usize, bytes: u32) -> Option<Phase> {
        let words_per_lane = bytes.div_ceil(4).max(1) as u64;
        let mut words = [0u64; 32];
        let (mut n, mut only_address) = (0, None);
        let mut one_address = true;
        for (lane, &addr) in addrs.iter().enumerate().skip(first).take(lanes) {
            if mask >> lane & 1 == 0 {
                continue;
            }
            one_address &= only_address.is_none_or(|a| a == addr);
            only_address = Some(addr);
            let w0 = addr >> 2;
            for k in 0..words_per_lane {
                words[n] = w0 + k;
                n += 1;
            }
        }
        if n == 0 {
            return None;
        }
        let words = &mut words[..n];
        if !words.windows(2).all(|w| w[0] <= w[1]) {
            words.sort_unstable();
        }
        let (mut per_bank, mut banks) = ([0u8; 32], 0u32);
        let mut prev = u64::MAX;
        for &w in words.iter() {
            if w != prev {
                per_bank[(w & 31) as usize] += 1;
                banks |= 1 << (w & 31);
                prev = w;
            }
        }
        Some(Phase {
            wavefronts: *per_bank.iter().max().expect("32 banks") as u64,
            banks,
            only_address: only_address.filter(|_| one_address),
        })
    }

    fn pairs_with(&self, other: &Phase) -> bool {
        self.banks & other.banks == 0
            || (self.only_address.is_some() && self.only_address == other.only_address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(f: impl Fn(u64) -> u64) -> [u64; 32] {
        std::array::from_fn(|l| f(l as u64))
    }

    #[test]
    fn stride_one_is_one_wavefront() {
        assert_eq!(
            shared_wavefronts(u32::MAX, &addrs(|l| l * 4), 4, true),
            (1, 1)
        );
    }

    #[test]
    fn column_of_a_32_wide_tile_is_32_wavefronts() {
        assert_eq!(
            shared_wavefronts(u32::MAX, &addrs(|l| l * 128), 4, true),
            (32, 1)
        );
        assert_eq!(
            shared_wavefronts(u32::MAX, &addrs(|l| l * 132), 4, true),
            (1, 1)
        );
    }

    #[test]
    fn broadcast_is_one_wavefront() {
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|_| 64), 4, true), (1, 1));
    }

    #[test]
    fn eight_and_sixteen_byte_accesses_use_phases() {
        for pair in [false, true] {
            assert_eq!(
                shared_wavefronts(u32::MAX, &addrs(|l| l * 8), 8, pair),
                (2, 2)
            );
            assert_eq!(
                shared_wavefronts(u32::MAX, &addrs(|l| l * 16), 16, pair),
                (4, 4)
            );
            assert_eq!(
                shared_wavefronts(u32::MAX, &addrs(|l| l * 16), 8, pair),
                (4, 2)
            );
        }
    }

    /// The lane patterns of `scripts/gpu/lds/lds_patterns.cu`, element index of each lane.
    fn pattern(p: u64, lane: u64) -> u64 {
        match p {
            0 => lane,
            1 => 0,
            2 => lane / 16,
            3 => lane / 8,
            4 => lane / 4,
            5 => lane / 2,
            6 => lane % 8,
            7 => lane % 16,
            8 => lane * 2,
            9 => lane * 8,
            10 => (lane % 8) * 8,
            11 => (lane / 16) * 8,
            12 => 31 - lane,
            13 => (lane / 8) * 8,
            _ => (lane * 5) % 32,
        }
    }

    #[test]
    fn loads_take_the_wavefronts_an_h100_takes_for_every_measured_lane_pattern() {
        // Nsight Compute on an H100, one warp-wide load per pattern 0..=14
        // (scripts/gpu/results/lds/wavefronts.md, made by scripts/gpu/lds/measure.sh).
        let measured: [(u32, [u64; 15]); 3] = [
            (4, [1, 1, 1, 1, 1, 1, 1, 1, 2, 8, 2, 1, 1, 1, 1]),
            (8, [2, 1, 1, 1, 1, 1, 2, 2, 4, 16, 8, 1, 2, 2, 2]),
            (16, [4, 2, 2, 2, 2, 2, 4, 4, 8, 32, 32, 2, 4, 4, 4]),
        ];
        for (bytes, wavefronts) in measured {
            for (p, &want) in wavefronts.iter().enumerate() {
                let at = addrs(|l| pattern(p as u64, l) * bytes as u64);
                let (got, _) = shared_wavefronts(u32::MAX, &at, bytes, true);
                assert_eq!(got, want, "{bytes}-byte loads, pattern {p}");
            }
        }
    }

    #[test]
    fn byte_and_half_loads_and_all_stores_take_what_an_h100_takes() {
        // Loads of 1 and 2 bytes, and stores of 1 to 16 bytes, in the same patterns: stores are
        // served phase by phase, never two phases in one pass (one lane wins a word).
        let loads: [(u32, [u64; 15]); 2] = [
            (1, [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1]),
            (2, [1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1, 1]),
        ];
        let stores: [(u32, [u64; 15]); 5] = [
            (1, [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1]),
            (2, [1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1, 1]),
            (4, [1, 1, 1, 1, 1, 1, 1, 1, 2, 8, 2, 1, 1, 1, 1]),
            (8, [2, 2, 2, 2, 2, 2, 2, 2, 4, 16, 8, 2, 2, 2, 2]),
            (16, [4, 4, 4, 4, 4, 4, 4, 4, 8, 32, 32, 4, 4, 4, 4]),
        ];
        for (load, table) in [(true, &loads[..]), (false, &stores[..])] {
            for &(bytes, wavefronts) in table {
                for (p, &want) in wavefronts.iter().enumerate() {
                    let at = addrs(|l| pattern(p as u64, l) * bytes as u64);
                    let (got, _) = shared_wavefronts(u32::MAX, &at, bytes, load);
                    assert_eq!(got, want, "{bytes}-byte, load {load}, pattern {p}");
                }
            }
        }
    }

    #[test]
    fn distinct_sectors() {
        let mut v: Vec<u64> = (0..32).map(|l| l / 8).collect();
        assert_eq!(count_distinct(&mut v), 4);
        let mut v: Vec<u64> = (0..32).map(|l| (31 - l) * 3).collect();
        assert_eq!(count_distinct(&mut v), 32);
    }

    #[test]
    fn distinct_sectors_out_of_order_within_one_word_and_past_it() {
        // The two half-warps of a naive matrix multiply read the same 16 sectors.
        let mut v: Vec<u64> = (0..32).map(|l| 1000 + l % 16).collect();
        assert_eq!(count_distinct(&mut v), 16);
        // 63 apart is still one word of bits; 64 apart takes the sort.
        assert_eq!(count_distinct(&mut [563, 500, 563, 501]), 3);
        assert_eq!(count_distinct(&mut [564, 500, 564, 501]), 3);
        assert_eq!(count_distinct(&mut [u64::MAX, 0, u64::MAX]), 2);
    }
}
