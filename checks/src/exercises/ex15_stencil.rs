//! 15: a 1D stencil (a moving sum of radius 3) whose block reads its stretch of the input, halo
//! included, into shared memory once.

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;
/// RADIUS in the kernel file: the window is 2 * RADIUS + 1 elements.
pub(super) const RADIUS: usize = 3;

/// out[i] = in[i - RADIUS] + ... + in[i + RADIUS], elements outside the array counting as 0,
/// added from left to right as the course's kernel does.
pub(super) fn moving_sum(x: &[f32]) -> Vec<f32> {
    (0..x.len())
        .map(|i| {
            let first = i.saturating_sub(RADIUS);
            let last = (i + RADIUS).min(x.len() - 1);
            x[first..=last].iter().sum()
        })
        .collect()
}

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    // 5: every window is cut by an end of the array; 512: whole blocks whose halos are inside
    // their neighbours; 769: one element in the last block.
    sizes_1d(options, &[5, 512, 256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            Case::new(
                size_label(n, BLOCK as usize),
                "stencil_1d",
                Launch::covering(n, BLOCK),
            )
            .input("in", HostData::F32(rng.vec_f32(n, -1.0, 1.0)))
            .output("out", HostData::F32(vec![0.0; n]))
            .scalar("n", Scalar::I32(n as i32))
            .reference(|case| vec![("out".into(), HostData::F32(moving_sum(case.f32s("in"))))])
            .diagnose(diagnose)
            .inputs_of(|case, _, i| {
                let x = case.f32s("in");
                let (first, last) = (i.saturating_sub(RADIUS), (i + RADIUS).min(x.len() - 1));
                Some(format!("in[{first}..={last}] = {:?}", &x[first..=last]))
            })
            .bytes_moved(8 * n as u64)
            .for_timing(n == timing_elements(options))
        })
        .collect()
}

/// Names the halo mistakes of 15: wrong elements only where a window leaves its block.
fn diagnose(ev: &Evidence) -> Option<String> {
    let n = ev.count("n");
    let block = BLOCK as usize;
    let at_array_end = |i: usize| i < RADIUS || i + RADIUS >= n;
    let near_block_edge = |i: usize| i % block < RADIUS || i % block >= block - RADIUS;
    if ev.wrong.is_empty()
        || !ev
            .wrong
            .iter()
            .all(|&i| near_block_edge(i) || at_array_end(i))
    {
        return None;
    }
    // A window that reaches into a neighbouring block that holds elements of the array.
    let into_neighbour = |i: usize| {
        (i % block < RADIUS && i >= block)
            || (i % block >= block - RADIUS && (i / block + 1) * block < n)
    };
    if ev.wrong.iter().any(|&i| into_neighbour(i)) {
        return Some(format!(
            "wrong only within RADIUS = {RADIUS} of the ends of a block: the halo (the RADIUS \
             elements on each side of the block, which belong to the neighbouring blocks) is not \
             loaded into the tile from the right place"
        ));
    }
    // Only where an element whose window stays inside the array came out right: at n <= 2 *
    // RADIUS every window reaches past an end, and a tile filled wrongly everywhere fits too.
    let right_inside = (0..n).any(|i| !at_array_end(i) && ev.wrong.binary_search(&i).is_err());
    (right_inside && ev.wrong.iter().all(|&i| at_array_end(i))).then(|| {
        "wrong only where the window reaches past an end of the array: the halo slots outside the \
         array must be written too, with 0"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnosis(n: usize, wrong_at: &[usize]) -> Option<String> {
        let case = cases(&CaseOptions {
            extra_sizes: vec![n],
            ..Default::default()
        })
        .into_iter()
        .find(|c| c.f32s("in").len() == n)
        .unwrap();
        let mut out = moving_sum(case.f32s("in"));
        for &i in wrong_at {
            out[i] += 1.0;
        }
        Evidence::with_actual(&case, "out", &HostData::F32(out), |ev| {
            (case.diagnose.as_ref().unwrap())(ev)
        })
    }

    #[test]
    fn halo_mistakes_are_named_only_at_block_edges() {
        let block = BLOCK as usize;
        let said = diagnosis(1000, &[block - 1, block, block + 2]).unwrap();
        assert!(
            said.contains("halo") && said.contains("neighbouring blocks"),
            "{said}"
        );
        let said = diagnosis(1000, &[0, 999]).unwrap();
        assert!(said.contains("past an end of the array"), "{said}");
        assert_eq!(diagnosis(1000, &[block - 1, 100]), None);
        // n = 1: the one window reaches past both ends, so being wrong there says nothing of
        // the halo (a tile filled at the wrong slot gives the same).
        assert_eq!(diagnosis(1, &[0]), None);
        assert_eq!(diagnosis(1000, &[500]), None);
    }

    #[test]
    fn windows_are_cut_at_both_ends() {
        let x: Vec<f32> = (1..=8).map(|v| v as f32).collect();
        // 1+2+3+4, 1..5, 1..6, 1..7, 2..8, 3..8, 4..8, 5..8
        assert_eq!(
            moving_sum(&x),
            vec![10.0, 15.0, 21.0, 28.0, 35.0, 33.0, 30.0, 26.0]
        );
        assert_eq!(moving_sum(&[2.5]), vec![2.5]);
    }
}
