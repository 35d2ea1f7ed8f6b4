//! The Unified Memory targets (a host exercise's `managed_prefetches = true`), judged on the
//! driver's record of managed memory (`contract::Managed`), which the simulator and pass-through
//! mode on a GPU keep alike from the same calls: every launch finds each managed buffer
//! prefetched to the device, whole; each result the host reads from managed memory was
//! prefetched back to the host after the last launch, and the host waited for the device first.
//! Where the pages really are is the GPU's business, and no figure of it is judged.

use super::record::Record;
use crate::kernel_name::short_name;
use contract::{Destination, ManagedStep, Target};

pub(super) const TO_DEVICE: &str = "managed buffers prefetched to the device";
pub(super) const TO_HOST: &str = "results prefetched back to the host";
pub(super) const WAITED: &str = "results read by the host";

/// The three targets over every run's record: each is met where no run breaks it, and says a
/// break found.
pub(super) fn targets(records: &[&Record]) -> Vec<Target> {
    // The largest case (the last) first: its sizes are the ones worth naming.
    let first = |rule: fn(&Record) -> Option<String>| records.iter().rev().find_map(|r| rule(r));
    vec![
        target(
            TO_DEVICE,
            "whole, before every launch",
            first(launch_gap),
            TO_DEVICE_WHY,
        ),
        target(
            TO_HOST,
            "whole, after the last launch",
            first(result_gap),
            TO_HOST_WHY,
        ),
        target(
            WAITED,
            "after waiting for the device",
            first(unwaited_read),
            WAITED_WHY,
        ),
    ]
}

/// What a copy means in a managed-memory exercise (its copy targets allow none).
pub(super) const NO_COPIES_WHY: &str = "with managed memory the host and the kernels use one \
     pointer: write the inputs into it and hand the results back from it, with no cudaMemcpy";
const TO_DEVICE_WHY: &str = "a kernel that touches a managed page the GPU does not hold stops \
     while the page migrates, page fault by page fault; cudaMemPrefetchAsync to the device, \
     queued before the launch, moves the whole buffer at copy speed instead";
const TO_HOST_WHY: &str = "the host's first touch of each page the kernel left on the GPU \
     faults it back one page at a time; a prefetch to the host moves it all at once";
const WAITED_WHY: &str = "a launch returns before its kernel has run: until the program waits \
     (cudaDeviceSynchronize), the kernel may still be writing the memory the host reads";

fn target(name: &str, wanted: &str, problem: Option<String>, why: &str) -> Target {
    Target {
        name: name.into(),
        wanted: wanted.into(),
        got: problem.clone().unwrap_or_else(|| "all".into()),
        limit: 0.0,
        actual: None,
        met: problem.is_none(),
        decides: true,
        explanation: why.into(),
    }
}

/// `the 2nd managed buffer (4000 bytes)`.
fn buffer(record: &Record, block: usize) -> String {
    let nth = match block + 1 {
        1 => "1st".to_string(),
        2 => "2nd".to_string(),
        3 => "3rd".to_string(),
        n => format!("{n}th"),
    };
    let bytes = record.managed.blocks.get(block).copied().unwrap_or(0);
    format!("the {nth} managed buffer ({bytes} bytes)")
}

/// The first launch that found a live managed buffer not prefetched to the device, whole, and
/// why; or that the program made no managed memory at all.
fn launch_gap(record: &Record) -> Option<String> {
    let managed = &record.managed;
    if managed.blocks.is_empty() {
        return Some("no managed memory: the program never called cudaMallocManaged".into());
    }
    let mut live = vec![false; managed.blocks.len()];
    let mut last: Vec<Option<(Destination, u64)>> = vec![None; managed.blocks.len()];
    for (at, step) in managed.steps.iter().enumerate() {
        match step {
            ManagedStep::Allocated { block } => live[*block] = true,
            ManagedStep::Freed { block } => live[*block] = false,
            ManagedStep::Prefetched {
                block, bytes, to, ..
            } => last[*block] = Some((*to, *bytes)),
            ManagedStep::Launched { kernel, .. } => {
                for block in (0..live.len()).filter(|&b| live[b]) {
                    let Some(gap) = prefetch_gap(managed.blocks[block], last[block]) else {
                        continue;
                    };
                    let later = prefetched_later(&managed.steps[at..], block);
                    let kernel = short_name(kernel);
                    let what = buffer(record, block);
                    return Some(gap_words(&what, &kernel, gap, later));
                }
            }
            ManagedStep::ResultRead { .. } => {}
        }
    }
    None
}

/// How a buffer of `size` bytes whose last prefetch was `last` falls short at a launch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gap {
    Never,
    OnHost,
    Part(u64),
}

/// None where the buffer was prefetched to the device whole.
fn prefetch_gap(size: u64, last: Option<(Destination, u64)>) -> Option<Gap> {
    match last {
        None => Some(Gap::Never),
        Some((Destination::Host, _)) => Some(Gap::OnHost),
        Some((Destination::Device, bytes)) if bytes < size => Some(Gap::Part(bytes)),
        Some((Destination::Device, _)) => None,
    }
}

fn prefetched_later(steps: &[ManagedStep], block: usize) -> bool {
    steps.iter().any(|s| {
        matches!(s, ManagedStep::Prefetched { block: b, to: Destination::Device, .. } if *b == block)
    })
}

fn gap_words(what: &str, kernel: &str, gap: Gap, later: bool) -> String {
    match gap {
        Gap::Never if later => format!(
            "{what} was prefetched to the device only after {kernel}'s launch: a prefetch is \
             queued work too, so queue it before the kernel that needs the data"
        ),
        Gap::Never => format!("{what} was not prefetched to the device before {kernel}'s launch"),
        Gap::OnHost => format!(
            "{what} was last prefetched to the host, not the device, before {kernel}'s launch"
        ),
        Gap::Part(bytes) => format!(
            "only {bytes} bytes of {what} were prefetched to the device before {kernel}'s \
             launch: cudaMemPrefetchAsync's count is in bytes (n * sizeof(float)), not elements"
        ),
    }
}

/// The first result read from a managed buffer that was not prefetched back to the host, whole,
/// after the last launch; or that no result came from managed memory.
fn result_gap(record: &Record) -> Option<String> {
    let managed = &record.managed;
    let mut since_launch: Vec<Option<(Destination, u64)>> = vec![None; managed.blocks.len()];
    let mut reads = 0;
    for step in &managed.steps {
        match step {
            ManagedStep::Launched { .. } => since_launch.iter_mut().for_each(|p| *p = None),
            ManagedStep::Prefetched {
                block, bytes, to, ..
            } => since_launch[*block] = Some((*to, *bytes)),
            ManagedStep::ResultRead { block, bytes, .. } => {
                reads += 1;
                // A result may be part of a block (x and y in one allocation): the prefetch
                // must cover what was read, not the whole block.
                let size = managed.blocks[*block].min(*bytes);
                match since_launch[*block] {
                    Some((Destination::Host, bytes)) if bytes >= size => {}
                    Some((Destination::Host, bytes)) => {
                        return Some(format!(
                            "only {bytes} bytes of {} were prefetched back to the host before \
                             it was read: the count is in bytes",
                            buffer(record, *block)
                        ))
                    }
                    _ => {
                        return Some(format!(
                            "{} was read by the host where the last kernel left it, on the \
                             device: prefetch it to the host (cudaMemPrefetchAsync to \
                             cudaMemLocationTypeHost) before waiting",
                            buffer(record, *block)
                        ))
                    }
                }
            }
            ManagedStep::Allocated { .. } | ManagedStep::Freed { .. } => {}
        }
    }
    // A result the host copied out of managed memory itself (into a std::vector, say) is not
    // seen by the driver: where nothing was copied back over the bus and a managed buffer was
    // prefetched back whole after the last launch, the program did what the exercise asks.
    let copied_back = record
        .transfers
        .iter()
        .any(|t| t.direction == contract::Direction::DeviceToHost);
    let prefetched_back = since_launch
        .iter()
        .zip(&managed.blocks)
        .any(|(p, size)| matches!(p, Some((Destination::Host, bytes)) if bytes >= size));
    if reads == 0 && !copied_back && prefetched_back {
        return None;
    }
    (reads == 0 && !managed.blocks.is_empty()).then(|| {
        "no result was handed back from managed memory: hand back the managed buffer itself \
         (task.write(name, pointer, n)), with no copy"
            .into()
    })
}

/// The first result read from managed memory that device work could still change.
pub(super) fn unwaited_read(record: &Record) -> Option<String> {
    record.managed.steps.iter().find_map(|step| match step {
        ManagedStep::ResultRead {
            block, unwaited, ..
        } if *unwaited > 0 => Some(format!(
            "{} was read while the kernel could still be writing {unwaited} bytes of it: \
             cudaDeviceSynchronize() before the host reads a kernel's results",
            buffer(record, *block)
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::Managed;

    fn record(steps: Vec<ManagedStep>) -> Record {
        Record {
            managed: Managed {
                blocks: vec![4000, 4000],
                steps,
            },
            ..Record::default()
        }
    }

    fn prefetch(block: usize, bytes: u64, to: Destination) -> ManagedStep {
        ManagedStep::Prefetched {
            block,
            bytes,
            to,
            stream: 0,
        }
    }

    fn launch() -> ManagedStep {
        ManagedStep::Launched {
            kernel: "_Z5saxpyfPKfPfi".into(),
            stream: 0,
        }
    }

    fn read(unwaited: u64) -> ManagedStep {
        ManagedStep::ResultRead {
            block: 1,
            bytes: 4000,
            unwaited,
        }
    }

    fn allocated() -> Vec<ManagedStep> {
        vec![
            ManagedStep::Allocated { block: 0 },
            ManagedStep::Allocated { block: 1 },
        ]
    }

    fn steps(rest: Vec<ManagedStep>) -> Vec<ManagedStep> {
        allocated().into_iter().chain(rest).collect()
    }

    #[test]
    fn a_program_that_prefetches_both_ways_and_waits_meets_all_three() {
        let r = record(steps(vec![
            prefetch(0, 4000, Destination::Device),
            prefetch(1, 4000, Destination::Device),
            launch(),
            prefetch(1, 4000, Destination::Host),
            read(0),
        ]));
        let all = targets(&[&r]);
        assert!(all.iter().all(|t| t.met), "{all:?}");
    }

    #[test]
    fn each_gap_before_a_launch_is_named() {
        let never = record(steps(vec![
            prefetch(0, 4000, Destination::Device),
            launch(),
        ]));
        let said = launch_gap(&never).unwrap();
        assert!(
            said.contains("the 2nd managed buffer (4000 bytes) was not prefetched"),
            "{said}"
        );
        assert!(said.contains("saxpy's launch"), "{said}");
        let after = record(steps(vec![
            launch(),
            prefetch(0, 4000, Destination::Device),
        ]));
        assert!(launch_gap(&after)
            .unwrap()
            .contains("only after saxpy's launch"));
        let part = record(steps(vec![
            prefetch(0, 1000, Destination::Device),
            prefetch(1, 4000, Destination::Device),
            launch(),
        ]));
        assert!(launch_gap(&part)
            .unwrap()
            .contains("only 1000 bytes of the 1st"));
        assert!(launch_gap(&Record::default())
            .unwrap()
            .contains("never called cudaMallocManaged"));
    }

    #[test]
    fn a_result_read_unprefetched_or_unwaited_is_named() {
        let r = record(steps(vec![launch(), read(4000)]));
        assert!(result_gap(&r)
            .unwrap()
            .contains("where the last kernel left it"));
        assert!(unwaited_read(&r)
            .unwrap()
            .contains("still be writing 4000 bytes"));
        // A prefetch to the host before the launch does not count for the read after it.
        let r = record(steps(vec![
            prefetch(1, 4000, Destination::Host),
            launch(),
            read(0),
        ]));
        assert!(result_gap(&r).is_some());
        assert!(unwaited_read(&r).is_none());
        let none = record(allocated());
        assert!(result_gap(&none)
            .unwrap()
            .contains("no result was handed back"));
    }

    #[test]
    fn a_result_that_is_part_of_a_block_needs_only_its_part_prefetched() {
        // x and y in one block of 8000 bytes, y its second half: y prefetched back and read.
        let mut r = record(vec![
            ManagedStep::Allocated { block: 0 },
            prefetch(0, 8000, Destination::Device),
            launch(),
            prefetch(0, 4000, Destination::Host),
            ManagedStep::ResultRead {
                block: 0,
                bytes: 4000,
                unwaited: 0,
            },
        ]);
        r.managed.blocks = vec![8000];
        assert_eq!(result_gap(&r), None);
        // A prefetch sized in elements still falls short of what was read.
        if let ManagedStep::Prefetched { bytes, .. } = &mut r.managed.steps[3] {
            *bytes = 1000;
        }
        assert!(result_gap(&r).unwrap().contains("only 1000 bytes"));
    }

    #[test]
    fn a_result_the_host_copied_out_itself_after_a_whole_prefetch_back_is_not_a_gap() {
        let prefetched = steps(vec![
            prefetch(0, 4000, Destination::Device),
            prefetch(1, 4000, Destination::Device),
            launch(),
            prefetch(1, 4000, Destination::Host),
        ]);
        let r = record(prefetched.clone());
        assert_eq!(result_gap(&r), None);
        // Copied back with cudaMemcpy instead: the copy targets fail it, and this says why.
        let mut copied = record(prefetched);
        copied.transfers.push(contract::Transfer {
            direction: contract::Direction::DeviceToHost,
            bytes: 4000,
            pinned: false,
            asynchronous: false,
            stream: 0,
            start_us: 0.0,
            end_us: 1.0,
        });
        assert!(result_gap(&copied)
            .unwrap()
            .contains("no result was handed back"));
        // Not prefetched back after the launch: still named.
        let r = record(steps(vec![launch()]));
        assert!(result_gap(&r).is_some());
    }
}
