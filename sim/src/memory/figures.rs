//! Counting what one warp-wide access costs: distinct global sectors, shared-memory wavefronts.

/// Number of distinct values (reorders `v`). Coalesced accesses arrive sorted, so that case skips
/// the sort.
#[inline]
pub(crate) fn count_distinct(v: &mut [u64]) -> u64 {
    if v.is_empty() {
        return 0;
    }
    if !v.windows(2).all(|w| w[0] <= w[1]) {
        v.sort_unstable();
    }
    1 + v.windows(2).filter(|w| w[0] != w[1]).count() as u64
}

/// Wavefronts of one shared-memory access by the lanes in `mask` at byte addresses `addrs`, each
/// `bytes` wide, and the ideal count (one per phase that has lanes).
///
/// Phases: all 32 lanes for accesses of up to 4 bytes, half-warps for 8 bytes, quarter-warps for
/// 16. In a phase, each bank serves its distinct 4-byte words one per wavefront; lanes reading the
/// same word share it.
pub(crate) fn shared_wavefronts(mask: u32, addrs: &[u64; 32], bytes: u32) -> (u64, u64) {
    let lanes_per_phase = match bytes {
        0..=4 => 32,
        8 => 16,
        _ => 8,
    };
    let words_per_lane = bytes.div_ceil(4).max(1) as u64;
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
    let (mut wavefronts, mut ideal) = (0, 0);
    for phase in 0..32 / lanes_per_phase {
        let mut words = [0u64; 32];
        let mut n = 0;
        let first = phase * lanes_per_phase;
        for (lane, &addr) in addrs.iter().enumerate().skip(first).take(lanes_per_phase) {
            if mask >> lane & 1 == 0 {
                continue;
            }
            let w0 = addr >> 2;
            for k in 0..words_per_lane {
                words[n] = w0 + k;
                n += 1;
            }
        }
        if n == 0 {
            continue;
        }
        ideal += 1;
        let words = &mut words[..n];
        if !words.windows(2).all(|w| w[0] <= w[1]) {
            words.sort_unstable();
        }
        let mut per_bank = [0u8; 32];
        let mut prev = u64::MAX;
        for &w in words.iter() {
            if w != prev {
                per_bank[(w & 31) as usize] += 1;
                prev = w;
            }
        }
        wavefronts += *per_bank.iter().max().expect("32 banks") as u64;
    }
    (wavefronts, ideal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(f: impl Fn(u64) -> u64) -> [u64; 32] {
        std::array::from_fn(|l| f(l as u64))
    }

    #[test]
    fn stride_one_is_one_wavefront() {
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 4), 4), (1, 1));
    }

    #[test]
    fn column_of_a_32_wide_tile_is_32_wavefronts() {
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 128), 4), (32, 1));
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 132), 4), (1, 1));
    }

    #[test]
    fn broadcast_is_one_wavefront() {
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|_| 64), 4), (1, 1));
    }

    #[test]
    fn eight_and_sixteen_byte_accesses_use_phases() {
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 8), 8), (2, 2));
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 16), 16), (4, 4));
        assert_eq!(shared_wavefronts(u32::MAX, &addrs(|l| l * 16), 8), (4, 2));
    }

    #[test]
    fn distinct_sectors() {
        let mut v: Vec<u64> = (0..32).map(|l| l / 8).collect();
        assert_eq!(count_distinct(&mut v), 4);
        let mut v: Vec<u64> = (0..32).map(|l| (31 - l) * 3).collect();
        assert_eq!(count_distinct(&mut v), 32);
    }
}
