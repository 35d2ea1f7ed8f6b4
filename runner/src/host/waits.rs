//! Whether a program waited for its results before reading them: judged on the driver's record
//! of each result read (`contract::HostRead`, from the happens-before of the program's streams,
//! events and waits) and of the copies back it never waited for. A copy back into pageable
//! memory returns once done on today's GPUs, so such a program's outputs are right; an exercise
//! that teaches streams (`technique.results_waited_for`) holds it to the wait CUDA asks for.

use super::record::Record;
use crate::course::Language;
use contract::Target;

/// The target's name, as a check's report shows it.
pub(super) const WAITED_TARGET: &str = "results read after waiting for their copy back";

/// The target over the runs' records: met where every result was read after a wait for the
/// copies that brought it, and no copy back was left unwaited for.
pub(super) fn results_waited_for<'a>(
    records: impl IntoIterator<Item = &'a Record>,
    language: Language,
) -> Target {
    let (mut reads, mut unwaited, mut streams, mut never) = (0, 0, Vec::new(), 0);
    for record in records {
        reads += record.host_reads.len();
        for read in record.host_reads.iter() {
            if read.in_flight + read.arrived_unwaited > 0 {
                unwaited += 1;
                streams.extend(read.streams.iter().copied());
            }
        }
        never += record.arrivals_never_waited_for + record.copies_never_waited_for;
    }
    streams.sort_unstable();
    streams.dedup();
    let waited = reads - unwaited;
    let got = if unwaited > 0 {
        let on: Vec<String> = streams.iter().map(|s| stream_name(*s)).collect();
        format!(
            "{waited} of {reads}: {unwaited} read before the program waited for the copy back \
             into it (on {})",
            on.join(", ")
        )
    } else if never > 0 {
        format!("{reads} of {reads}, but {never} copies back to the host never waited for")
    } else {
        format!("{reads} of {reads}")
    };
    let met = unwaited == 0 && never == 0;
    Target {
        name: WAITED_TARGET.into(),
        wanted: "all".into(),
        got,
        limit: 0.0,
        actual: Some((unwaited as u64 + never) as f64),
        met,
        decides: true,
        explanation: explanation(language),
    }
}

fn stream_name(stream: usize) -> String {
    match stream {
        0 => "the default stream".into(),
        s => format!("stream {s}"),
    }
}

/// What a miss means, and the wait to add in the program's own words.
fn explanation(language: Language) -> String {
    let wait = match language {
        Language::Python => {
            "stream.sync() (cuda.core), stream.synchronize() (Numba), or an event recorded \
             after the copy and waited for"
        }
        Language::Cpp => {
            "cudaStreamSynchronize(stream), or cudaEventSynchronize on an event \
             recorded after the copy"
        }
        Language::Rust => {
            "stream.synchronize(), or an event recorded after the copy and \
             synchronized"
        }
    };
    format!(
        "a result read before waiting for its copy back: an asynchronous copy returns before \
         its bytes are known to be there: into \
         page-locked memory it returns at once, and into pageable memory it happens to return \
         once done on today's GPUs, which CUDA does not promise (such a call \"might be \
         synchronous\"). Wait for the stream before reading the result: {wait}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::HostRead;

    fn record(reads: Vec<HostRead>) -> Record {
        Record {
            host_reads: reads,
            ..Record::default()
        }
    }

    fn read(arrived_unwaited: u64, streams: Vec<usize>) -> HostRead {
        HostRead {
            bytes: 16,
            in_flight: 0,
            arrived_unwaited,
            streams,
        }
    }

    #[test]
    fn a_result_read_before_its_copy_was_waited_for_misses_the_target() {
        let waited = record(vec![read(0, vec![])]);
        let target = results_waited_for([&waited], Language::Python);
        assert!(target.met, "{target:?}");
        let unwaited = record(vec![read(16, vec![1])]);
        let target = results_waited_for([&waited, &unwaited], Language::Python);
        assert!(!target.met);
        assert_eq!(
            target.got,
            "1 of 2: 1 read before the program waited for the copy back into it (on stream 1)"
        );
        assert!(target.explanation.contains("stream.sync()"));
    }

    #[test]
    fn a_copy_back_never_waited_for_misses_it_though_no_result_was_read_from_it() {
        let mut never = record(vec![read(0, vec![])]);
        never.arrivals_never_waited_for = 2;
        let target = results_waited_for([&never], Language::Cpp);
        assert!(!target.met);
        assert_eq!(
            target.got,
            "1 of 1, but 2 copies back to the host never waited for"
        );
        assert!(target.explanation.contains("cudaStreamSynchronize"));
    }
}
