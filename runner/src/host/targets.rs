//! A host exercise's targets, judged on the driver's records of its runs: how many copies each
//! way, how much copy time other work hid, and the simulator's memory figures for the launches
//! of the exercise's own kernels (sectors per request, bank conflicts, load sectors), whether
//! the program timed its work with events, and how it used CUDA graphs.

use super::execute::Run;
use super::record::{EntryKernels, Record};
use crate::course::HostSpec;
use contract::Target;

/// A goal on how the program used the driver, and how it did: its bound and figure in words and
/// as numbers (none where the figure was not measured), and what a miss usually means.
fn target(
    name: &str,
    (wanted, limit): (String, f64),
    (got, actual): (String, Option<f64>),
    met: bool,
) -> Target {
    Target {
        name: name.into(),
        wanted,
        got,
        limit,
        actual,
        met,
        decides: true,
        explanation: explain_missed(name).into(),
    }
}

/// The note of a simulator figure that a launch on a GPU does not give.
pub(super) const SKIPPED_ON_GPU: &str =
    "skipped: the kernel ran on a GPU, and only the simulator counts these";

/// The exercise's targets on the runs' records; copy overlap on the last (largest) case only,
/// the simulator's figures over every launch of the exercise's kernels (`entries`).
pub(super) fn targets(targets: &HostSpec, entries: &[String], runs: &[&Run]) -> Vec<Target> {
    let records: Vec<&Record> = runs.iter().filter_map(|r| r.record.as_ref()).collect();
    let mut results = figure_targets(targets, entries, &records);
    let most = |f: fn(&Record) -> u64| records.iter().map(|r| f(r)).max().unwrap_or(0);
    if let Some(max) = targets.max_uploads {
        let got = most(|r| r.uploads().count() as u64);
        results.push(target(
            "copies to the device in one run",
            (format!("at most {max}"), max as f64),
            (got.to_string(), Some(got as f64)),
            got <= max,
        ));
    }
    if let Some(max) = targets.max_downloads {
        let got = most(|r| r.downloads().count() as u64);
        results.push(target(
            "copies back to the host in one run",
            (format!("at most {max}"), max as f64),
            (got.to_string(), Some(got as f64)),
            got <= max,
        ));
    }
    if targets.managed_prefetches {
        // No copies allowed at all: the lesson is managed memory, not fewer copies.
        for t in results.iter_mut().filter(|t| t.name.starts_with("copies")) {
            t.explanation = super::unified::NO_COPIES_WHY.into();
        }
    }
    if let Some(max) = targets.max_load_sectors {
        results.extend(load_sectors_target(max, entries, records.last().copied()));
    }
    if let Some(min) = targets.min_event_timings {
        let got = most(event_timings);
        results.push(target(
            EVENTS_TARGET,
            (format!("at least {min}"), min as f64),
            (got.to_string(), Some(got as f64)),
            got >= min,
        ));
    }
    results.extend(graph_targets(targets, &records));
    if targets.managed_prefetches {
        results.extend(super::unified::targets(&records));
    }
    if let (Some(min), Some(last)) = (targets.min_copy_hidden, records.last()) {
        let got = last.copy_time_hidden();
        results.push(target(
            "copy time overlapped by other work (largest case)",
            (format!("at least {:.0}%", min * 100.0), min),
            (format!("{:.0}%", got * 100.0), Some(got)),
            got >= min,
        ));
    }
    results
}

/// Launches made on their own rather than as a graph's nodes, and graph instantiations, at most,
/// in any one run: both counted alike on the simulator and on a GPU (pass-through mode).
fn graph_targets(targets: &HostSpec, records: &[&Record]) -> Vec<Target> {
    let most = |f: &dyn Fn(&Record) -> u64| records.iter().map(|r| f(r)).max().unwrap_or(0);
    let at_most = |name, max: u64, got: u64| {
        target(
            name,
            (format!("at most {max}"), max as f64),
            (got.to_string(), Some(got as f64)),
            got <= max,
        )
    };
    let mut results = Vec::new();
    if let Some(max) = targets.max_direct_launches {
        let got = most(&|r| r.direct_launches().count() as u64);
        results.push(at_most(DIRECT_LAUNCHES_TARGET, max, got));
    }
    if let Some(max) = targets.max_graph_instantiations {
        let got = most(&Record::graph_instantiations);
        results.push(at_most(INSTANTIATIONS_TARGET, max, got));
    }
    results
}

/// Times the program read from pairs of events (`cuEventElapsedTime`, under any version suffix).
fn event_timings(record: &Record) -> u64 {
    record
        .calls
        .iter()
        .filter(|(call, _)| call.starts_with("cuEventElapsedTime"))
        .map(|(_, count)| count)
        .sum()
}

/// Global load sectors of the kernels' launches in the largest case's run, naming the line that
/// loads most; skipped, with a note, where the kernels ran on a GPU.
fn load_sectors_target(max: u64, entries: &[String], last: Option<&Record>) -> Option<Target> {
    let figures = kernel_figures(entries, &[last?])?;
    let wanted = (format!("at most {max}"), max as f64);
    let Some(figures) = figures else {
        let skipped = (SKIPPED_ON_GPU.to_string(), None);
        return Some(target(LOAD_SECTORS_TARGET, wanted, skipped, true));
    };
    let got = figures.total.global_load_sectors;
    let line = if got <= max {
        String::new()
    } else {
        costliest_line(
            &figures.lines,
            |f| f.global_load_sectors as f64,
            |c| format!("{c} sectors"),
        )
    };
    let mut result = target(
        LOAD_SECTORS_TARGET,
        wanted,
        (format!("{got}{line}"), Some(got as f64)),
        got <= max,
    );
    if scattered_loads(&figures.lines) {
        result.explanation = SCATTERED_LOADS_WHY.into();
    }
    Some(result)
}

/// Whether the line that loads the most sectors takes more than half a warp's worth per request
/// (a coalesced warp needs 4 of 4-byte and 8 of 8-byte elements, a scattered one 32): too many
/// sectors then come from loads spread over memory, not from loads repeated.
fn scattered_loads(lines: &[sim::LineFigures]) -> bool {
    lines
        .iter()
        .max_by_key(|l| l.figures.global_load_sectors)
        .is_some_and(|l| l.figures.load_sectors_per_request() > 16.0)
}

const SCATTERED_LOADS_WHY: &str =
    "a warp whose threads read addresses far apart, a sector each: in a[row, col] the last \
     index is the one whose neighbours sit side by side, so give it to neighbouring threads \
     (col from cuda.grid's x, threadIdx.x) and size the grid's x from the columns";

/// The simulator's figures of the launches of `entries`' kernels, added up, and per source line.
pub(super) struct KernelFigures {
    pub(super) total: sim::Figures,
    pub(super) lines: Vec<sim::LineFigures>,
}

/// None when no such kernel was launched; `Some(None)` when one ran on a GPU (no figures).
pub(super) fn kernel_figures(
    entries: &[String],
    records: &[&Record],
) -> Option<Option<KernelFigures>> {
    let theirs = EntryKernels::of(entries, records);
    let launches: Vec<_> = records
        .iter()
        .flat_map(|r| &r.launches)
        .filter(|l| theirs.holds(&l.kernel))
        .collect();
    if launches.is_empty() {
        return None;
    }
    let mut figures = KernelFigures {
        total: sim::Figures::default(),
        lines: Vec::new(),
    };
    for launch in launches {
        let Some(total) = &launch.figures else {
            return Some(None);
        };
        figures.total += total;
        for line in &launch.lines {
            match figures
                .lines
                .iter_mut()
                .find(|l| l.file == line.file && l.line == line.line)
            {
                Some(known) => known.figures += &line.figures,
                None => figures.lines.push(line.clone()),
            }
        }
    }
    Some(Some(figures))
}

fn sectors_per_request(f: &sim::Figures) -> f64 {
    let requests = f.global_load_requests + f.global_store_requests;
    let sectors = f.global_load_sectors + f.global_store_sectors;
    if requests == 0 {
        0.0
    } else {
        sectors as f64 / requests as f64
    }
}

/// `, most on line 51 of transpose.py (32.0 sectors per request)`: the line whose `cost` is
/// highest, shown by `show`, where the kernel has line information.
pub(super) fn costliest_line(
    lines: &[sim::LineFigures],
    cost: impl Fn(&sim::Figures) -> f64,
    show: impl Fn(f64) -> String,
) -> String {
    let worst = lines
        .iter()
        .map(|l| (l, cost(&l.figures)))
        .filter(|(_, c)| *c > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let Some((line, cost)) = worst else {
        return String::new();
    };
    let file = std::path::Path::new(&line.file)
        .file_name()
        .map_or(line.file.clone(), |f| f.to_string_lossy().into_owned());
    format!(", most on line {} of {file} ({})", line.line, show(cost))
}

/// Sectors per request and bank conflicts over the launches of the exercise's kernels, from the
/// simulator's figures; skipped, with a note, where the kernels ran on a GPU.
fn figure_targets(targets: &HostSpec, entries: &[String], records: &[&Record]) -> Vec<Target> {
    let mut results = Vec::new();
    let wanted = [
        (
            SECTORS_TARGET,
            targets
                .max_sectors_per_request
                .map(|m| (format!("at most {m:.1}"), m)),
        ),
        (
            CONFLICTS_TARGET,
            targets
                .max_bank_conflicts
                .map(|m| (format!("at most {m}"), m as f64)),
        ),
    ];
    if wanted.iter().all(|(_, w)| w.is_none()) {
        return results;
    }
    let Some(figures) = kernel_figures(entries, records) else {
        return results;
    };
    let Some(figures) = figures else {
        for (name, wanted) in wanted {
            if let Some(wanted) = wanted {
                let skipped = (SKIPPED_ON_GPU.to_string(), None);
                results.push(target(name, wanted, skipped, true));
            }
        }
        return results;
    };
    if let Some(max) = targets.max_sectors_per_request {
        let got = sectors_per_request(&figures.total);
        let met = got <= max;
        let line = if met {
            String::new()
        } else {
            costliest_line(&figures.lines, sectors_per_request, |c| {
                format!("{c:.1} sectors per request")
            })
        };
        results.push(target(
            SECTORS_TARGET,
            (format!("at most {max:.1}"), max),
            (format!("{got:.1}{line}"), Some(got)),
            met,
        ));
    }
    if let Some(max) = targets.max_bank_conflicts {
        let got = figures.total.shared_bank_conflicts();
        let met = got <= max;
        let line = if met {
            String::new()
        } else {
            costliest_line(
                &figures.lines,
                |f| f.shared_bank_conflicts() as f64,
                |c| format!("{c} bank conflicts"),
            )
        };
        results.push(target(
            CONFLICTS_TARGET,
            (format!("at most {max}"), max as f64),
            (format!("{got}{line}"), Some(got as f64)),
            met,
        ));
    }
    results
}

const SECTORS_TARGET: &str = "global sectors per request (simulator)";
const CONFLICTS_TARGET: &str = "shared-memory bank conflicts (simulator)";
const LOAD_SECTORS_TARGET: &str = "global load sectors, largest case (simulator)";
const EVENTS_TARGET: &str = "times measured with a pair of events";
const DIRECT_LAUNCHES_TARGET: &str = "kernel launches outside a graph in one run";
const INSTANTIATIONS_TARGET: &str = "graph instantiations in one run";

/// Says what a missed target usually means.
fn explain_missed(name: &str) -> &'static str {
    if name == SECTORS_TARGET {
        "a warp whose threads touch addresses far apart (down a column): let neighbouring \
         threads (threadIdx.x) read and write neighbouring elements of a row, going through \
         shared memory where one side of the work runs down columns"
    } else if name == CONFLICTS_TARGET {
        "a warp reading down a column of a shared array whose rows are a multiple of 32 words \
         long, so the whole column is in one bank: pad each row by one element \
         (`__shared__ float tile[TILE][TILE + 1]`; in Numba a (TILE, PADDED) shape with \
         PADDED = TILE + 1 at module level: Numba takes a constant there, not an expression)"
    } else if name == LOAD_SECTORS_TARGET {
        "the same input elements read again from global memory: load each once and keep it on \
         the chip, in a shared tile with its halo, a cuda.local array of the thread's own, or \
         constants in a cuda.const array"
    } else if name == EVENTS_TARGET {
        "no time measured on the GPU's clock: record an event before the work and one after it \
         on the stream (cuda.event(), event.record(stream)), wait for the second \
         (event.synchronize()), then cuda.event_elapsed_time(start, end)"
    } else if name == DIRECT_LAUNCHES_TARGET {
        "kernels launched one at a time, each paying the cost of a launch: capture one round's \
         launches into a graph once (cudaStreamBeginCapture on a stream of your own, the \
         launches on that stream, cudaStreamEndCapture), instantiate it, and launch it each \
         round with cudaGraphLaunch"
    } else if name == INSTANTIATIONS_TARGET {
        "a graph captured or instantiated again in the loop: instantiating costs more than the \
         launches it saves. Capture and instantiate once, before the loop, and launch the same \
         cudaGraphExec_t in it"
    } else if name.starts_with("copies back") {
        "a copy back inside the loop: keep the data on the device between kernels, and copy back \
         once, after the last"
    } else if name.starts_with("copies to") {
        "data sent again that is already on the device: upload once, before the loop"
    } else {
        "copies that overlap nothing: put each chunk's copy in, kernel and copy out on a stream \
         of its own, with pinned host memory, so one chunk's copies run beside another's kernel"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Language;
    use crate::host::record::Launch;

    fn launch(kernel: &str, figures: Option<sim::Figures>) -> Launch {
        let lines = figures
            .iter()
            .map(|f| sim::LineFigures {
                file: "/course/exercises/py08_transpose/transpose.py".into(),
                line: 51,
                figures: f.clone(),
                instructions: Default::default(),
            })
            .collect();
        Launch {
            kernel: kernel.into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            figures,
            lines,
            end_us: 1.0,
            ..Launch::default()
        }
    }

    fn record(launches: Vec<Launch>) -> Record {
        Record {
            launches,
            ..Record::default()
        }
    }

    const SPEC: HostSpec = HostSpec {
        language: Language::Python,
        max_uploads: None,
        max_downloads: None,
        min_copy_hidden: None,
        max_sectors_per_request: Some(4.0),
        max_bank_conflicts: Some(0),
        max_load_sectors: None,
        min_event_timings: None,
        max_direct_launches: None,
        max_graph_instantiations: None,
        managed_prefetches: false,
    };

    #[test]
    fn figure_targets_hold_the_named_kernels_launches_and_name_the_costliest_line() {
        let strided = sim::Figures {
            global_store_requests: 10,
            global_store_sectors: 320,
            shared_load_bank_conflicts: 31,
            ..Default::default()
        };
        // Another kernel's traffic does not count: only the entry's launches are judged.
        let other = sim::Figures {
            global_load_requests: 1,
            global_load_sectors: 1,
            ..Default::default()
        };
        let records = [record(vec![
            launch("_ZN8__main__9transposeB2v1", Some(strided)),
            launch("__main__::setup", Some(other)),
        ])];
        let entries = ["transpose".to_string()];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert_eq!(results.len(), 2);
        assert!(!results[0].met && !results[1].met);
        assert_eq!(
            results[0].got,
            "32.0, most on line 51 of transpose.py (32.0 sectors per request)"
        );
        assert_eq!(
            results[1].got,
            "31, most on line 51 of transpose.py (31 bank conflicts)"
        );
        assert!(results[1].explanation.contains("TILE + 1"));
        // The figures as numbers too, for a reader that compares them.
        assert_eq!((results[0].limit, results[0].actual), (4.0, Some(32.0)));
        assert_eq!((results[1].limit, results[1].actual), (0.0, Some(31.0)));

        let coalesced = sim::Figures {
            global_load_requests: 10,
            global_load_sectors: 40,
            ..Default::default()
        };
        let records = [record(vec![launch("transpose", Some(coalesced))])];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert!(results.iter().all(|r| r.met), "{results:?}");
        assert_eq!(results[0].got, "4.0");
    }

    #[test]
    fn load_sectors_are_held_on_the_kernels_launches_and_name_the_line_that_loads_most() {
        let reloaded = sim::Figures {
            global_load_requests: 10,
            global_load_sectors: 50,
            ..Default::default()
        };
        let entries = ["stencil".to_string()];
        let run = record(vec![
            launch("stencil", Some(reloaded.clone())),
            launch("__main__::other", Some(reloaded)),
        ]);
        let missed = load_sectors_target(40, &entries, Some(&run)).unwrap();
        assert!(!missed.met);
        // Only the kernel's own launch counts: 50, not 100.
        assert_eq!(
            missed.got,
            "50, most on line 51 of transpose.py (50 sectors)"
        );
        assert!(missed.explanation.contains("cuda.const"));
        assert_eq!((missed.limit, missed.actual), (40.0, Some(50.0)));
        assert!(load_sectors_target(50, &entries, Some(&run)).unwrap().met);
        let on_gpu = record(vec![launch("stencil", None)]);
        let skipped = load_sectors_target(40, &entries, Some(&on_gpu)).unwrap();
        assert!(skipped.met && skipped.got.starts_with("skipped"));
        assert_eq!(skipped.actual, None, "a figure not measured has no number");
        assert!(load_sectors_target(40, &entries, None).is_none());
    }

    #[test]
    fn load_sectors_spread_a_sector_a_thread_are_named_as_scattered_not_reloaded() {
        let scattered = sim::Figures {
            global_load_requests: 10,
            global_load_sectors: 320,
            ..Default::default()
        };
        let entries = ["smooth".to_string()];
        let run = record(vec![launch("smooth", Some(scattered))]);
        let missed = load_sectors_target(100, &entries, Some(&run)).unwrap();
        assert!(!missed.met);
        assert!(missed.explanation.contains("far apart"), "{missed:?}");
        assert!(!missed.explanation.contains("cuda.const"), "{missed:?}");
    }

    #[test]
    fn graph_targets_count_launches_outside_graphs_and_instantiations_in_the_busiest_run() {
        let spec = HostSpec {
            max_direct_launches: Some(0),
            max_graph_instantiations: Some(1),
            ..SPEC
        };
        let replayed = Launch {
            graph: Some(0),
            ..launch("smooth", None)
        };
        let graph = |instantiations| contract::Graph {
            kernels: vec!["smooth".into()],
            instantiations,
            launches: 3,
            ..Default::default()
        };
        let captured_once = Record {
            graphs: vec![graph(1)],
            ..record(vec![replayed.clone(), replayed.clone()])
        };
        let results = graph_targets(&spec, &[&captured_once]);
        assert!(results.iter().all(|r| r.met), "{results:?}");
        // Launched one by one: every launch counts; instantiated each round: 3 instantiations.
        let one_by_one = record(vec![launch("smooth", None), launch("smooth", None)]);
        let again = Record {
            graphs: vec![graph(3)],
            ..record(vec![replayed])
        };
        let results = graph_targets(&spec, &[&captured_once, &one_by_one, &again]);
        assert_eq!((results[0].got.as_str(), results[0].met), ("2", false));
        assert_eq!((results[1].got.as_str(), results[1].met), ("3", false));
        assert!(results[0].explanation.contains("cudaStreamBeginCapture"));
        assert!(results[1].explanation.contains("once, before the loop"));
    }

    #[test]
    fn event_timings_count_elapsed_time_reads_under_any_version_suffix() {
        let mut run = record(vec![]);
        assert_eq!(event_timings(&run), 0);
        run.calls.insert("cuEventRecord".into(), 2);
        run.calls.insert("cuEventElapsedTime_v2".into(), 3);
        assert_eq!(event_timings(&run), 3);
    }

    #[test]
    fn figure_targets_are_skipped_with_a_note_where_the_kernel_ran_on_a_gpu() {
        let records = [record(vec![launch("transpose", None)])];
        let entries = ["transpose".to_string()];
        let results = figure_targets(&SPEC, &entries, &records.iter().collect::<Vec<_>>());
        assert_eq!(results.len(), 2);
        assert!(results
            .iter()
            .all(|r| r.met && r.got.starts_with("skipped: the kernel ran on a GPU")));
        // No launch of the kernel at all is the "never launched" mistake, not a target.
        let none = [record(vec![])];
        assert!(figure_targets(&SPEC, &entries, &none.iter().collect::<Vec<_>>()).is_empty());
    }
}
