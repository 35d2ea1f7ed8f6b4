//! py16: exercise 27's pipeline in Numba (pinned memory, a stream per chunk, events), with chunks
//! large enough to overlap on a GPU. Numba spends 0.1 to 1 ms of the host's time on each copy
//! or launch it queues; a chunk's copies must take longer than that, or the GPU finishes each
//! chunk before the next is queued and nothing overlaps (4 MB chunks hid 0% of their copy time
//! on an H100, 32 MB chunks 61-78%: scripts/gpu/results/py16-chunks.md).

use super::ex27_pinned_streams::{case, FEW_ROUNDS, ROUNDS};
use super::HostCase;
use crate::random::Rng;

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        case(
            "n = 1000 in 3 chunks, the last one shorter",
            1000,
            3,
            FEW_ROUNDS,
            rng,
        ),
        case("n = 33554432 (128 MB) in 4 chunks", 1 << 25, 4, ROUNDS, rng),
    ]
}

#[cfg(test)]
mod tests {
    use crate::case::HostData;

    /// 16 MB chunks hid 9-65% of their copy time on an H100, run to run, against Numba's
    /// queueing; 32 MB chunks 61-78%. The largest case keeps its chunks at 32 MB or more.
    #[test]
    fn the_largest_case_has_chunks_whose_copies_outlast_numbas_host_time() {
        let cases = crate::host_cases_for("py16", None).unwrap();
        let largest = cases.last().unwrap();
        let chunks: usize = largest
            .params
            .iter()
            .find(|(name, _)| *name == "chunks")
            .map(|(_, value)| value.parse().unwrap())
            .unwrap();
        let Some(("signal", HostData::F32(signal))) = largest.inputs.first().map(|(n, d)| (*n, d))
        else {
            panic!("py16's input is the signal, as f32");
        };
        let chunk_bytes = signal.len() * 4 / chunks;
        assert!(chunk_bytes >= 32 << 20, "{chunk_bytes} bytes a chunk");
    }
}
