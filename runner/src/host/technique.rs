//! How a host exercise's kernels do their work, where right outputs and the driver's copies do
//! not show it: global atomics per block and memory instructions (the simulator's figures of the
//! exercise's own kernels), and whether a Numba kernel calls the device functions the exercise
//! teaches (read from the program's source by Python's own parser).

use super::record::{EntryKernels, Record};
use super::targets::{costliest_line, kernel_figures, SKIPPED_ON_GPU};
use crate::course::Technique;
use anyhow::Context;
use contract::Target;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The exercise's technique targets: the figures on the largest case's run (`last`), the device
/// functions from `program`'s source, read by `python`.
pub(super) fn targets(
    technique: &Technique,
    entries: &[String],
    last: Option<&Record>,
    program: Option<(&Path, &Path)>,
) -> anyhow::Result<Vec<Target>> {
    let mut results = figure_targets(technique, entries, last);
    if let Some((python, program)) = program {
        if technique.kernel_calls_device_function {
            let called = device_functions_called(python, program, entries)?;
            results.push(device_function_target(&called));
        }
        if technique.kernel_loops {
            let loops = read_program(python, KERNEL_LOOPS_PY, program, entries, "its loops")?;
            results.push(kernel_loops_target(&loops));
        }
    }
    Ok(results)
}

/// Global atomics per block and memory requests of the entries' launches in `last`.
fn figure_targets(technique: &Technique, entries: &[String], last: Option<&Record>) -> Vec<Target> {
    let wanted = [
        (ATOMICS_TARGET, technique.max_global_atomics_per_block),
        (
            REQUESTS_TARGET,
            technique.max_memory_requests.map(|m| m as f64),
        ),
    ];
    let Some(figures) = last.and_then(|last| kernel_figures(entries, &[last])) else {
        return Vec::new();
    };
    let Some(figures) = figures else {
        return wanted
            .into_iter()
            .filter_map(|(name, max)| {
                let max = max?;
                Some(target(name, max, (SKIPPED_ON_GPU.into(), None), true))
            })
            .collect();
    };
    let mut results = Vec::new();
    if let Some(max) = technique.max_global_atomics_per_block {
        let blocks = blocks_launched(entries, last);
        let got = figures.total.global_atomic_requests as f64 / blocks.max(1) as f64;
        let words = format!(
            "{got:.1} ({} atomic instructions over {blocks} blocks)",
            figures.total.global_atomic_requests
        );
        results.push(target(ATOMICS_TARGET, max, (words, Some(got)), got <= max));
    }
    if let Some(max) = technique.max_memory_requests {
        let got = memory_requests(&figures.total);
        let line = if got <= max {
            String::new()
        } else {
            costliest_line(
                &figures.lines,
                |f| memory_requests(f) as f64,
                |c| format!("{c} requests"),
            )
        };
        let words = (format!("{got}{line}"), Some(got as f64));
        results.push(target(REQUESTS_TARGET, max as f64, words, got <= max));
    }
    results
}

/// Blocks in the grids of the entries' launches in `last`.
fn blocks_launched(entries: &[String], last: Option<&Record>) -> u64 {
    let records: Vec<&Record> = last.into_iter().collect();
    let theirs = EntryKernels::of(entries, &records);
    last.iter()
        .flat_map(|r| &r.launches)
        .filter(|l| theirs.holds(&l.kernel))
        .map(|l| l.grid.iter().map(|&g| u64::from(g)).product::<u64>())
        .sum()
}

/// Warp instructions that load or store global or shared memory (a request each).
fn memory_requests(f: &sim::Figures) -> u64 {
    f.global_load_requests
        + f.global_store_requests
        + f.shared_load_requests
        + f.shared_store_requests
}

fn target(name: &str, max: f64, (got, actual): (String, Option<f64>), met: bool) -> Target {
    Target {
        name: name.into(),
        wanted: format!("at most {max}"),
        got,
        limit: max,
        actual,
        met,
        decides: true,
        explanation: explain_missed(name).into(),
    }
}

/// What each kernel of `entries` calls of the program's device functions, as Python's parser
/// reads `program`; none for a kernel the program does not define.
type DeviceCalls = BTreeMap<String, Option<Vec<String>>>;

/// Reads `program` with `python`'s `ast` module (device_calls.py): the device functions, those
/// decorated `@cuda.jit(device=True)`, that each kernel's own body calls.
fn device_functions_called(
    python: &Path,
    program: &Path,
    entries: &[String],
) -> anyhow::Result<DeviceCalls> {
    read_program(
        python,
        DEVICE_CALLS_PY,
        program,
        entries,
        "its device functions",
    )
}

/// Runs `script` with `python` on `program` and the kernels `entries`, and reads the JSON it
/// prints; `what` names what it looks for, in the messages.
fn read_program<T: serde::de::DeserializeOwned>(
    python: &Path,
    script: &str,
    program: &Path,
    entries: &[String],
    what: &str,
) -> anyhow::Result<T> {
    let output = Command::new(python)
        .args(["-c", script])
        .arg(program)
        .args(entries)
        .output()
        .with_context(|| format!("cannot run {}", python.display()))?;
    anyhow::ensure!(
        output.status.success(),
        "reading {} for {what} failed: {}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .with_context(|| format!("reading {} for {what} gave no answer", program.display()))
}

const DEVICE_CALLS_PY: &str = include_str!("technique/device_calls.py");

/// Met where some kernel calls a device function; a kernel the program does not define is
/// another finding's (`never launched`), not this one's.
fn device_function_target(called: &DeviceCalls) -> Target {
    let defined: Vec<(&String, &Vec<String>)> = called
        .iter()
        .filter_map(|(k, c)| Some((k, c.as_ref()?)))
        .collect();
    let calls: Vec<String> = defined
        .iter()
        .flat_map(|(kernel, calls)| calls.iter().map(move |c| format!("{kernel} calls {c}")))
        .collect();
    let met = defined.is_empty() || !calls.is_empty();
    let got = if calls.is_empty() {
        let kernels: Vec<&str> = defined.iter().map(|(k, _)| k.as_str()).collect();
        format!(
            "0: {} calls no @cuda.jit(device=True) function",
            kernels.join(", ")
        )
    } else {
        format!("{}: {}", calls.len(), calls.join(", "))
    };
    Target {
        name: DEVICE_CALLS_TARGET.into(),
        wanted: "at least 1".into(),
        got,
        limit: 1.0,
        actual: Some(calls.len() as f64),
        met,
        decides: true,
        explanation: explain_missed(DEVICE_CALLS_TARGET).into(),
    }
}

const KERNEL_LOOPS_PY: &str = include_str!("technique/kernel_loops.py");

/// Whether each kernel of the exercise loops (kernel_loops.py); none for one not defined.
type KernelLoops = BTreeMap<String, Option<bool>>;

/// Met where every kernel the program defines loops over elements; a kernel the program does
/// not define is another finding's (`never launched`), not this one's.
fn kernel_loops_target(loops: &KernelLoops) -> Target {
    let without: Vec<&str> = loops
        .iter()
        .filter(|(_, l)| **l == Some(false))
        .map(|(k, _)| k.as_str())
        .collect();
    let got = if without.is_empty() {
        "yes".to_string()
    } else {
        format!("no: {} holds no for or while loop", without.join(", "))
    };
    Target {
        name: LOOPS_TARGET.into(),
        wanted: "yes".into(),
        got,
        limit: 1.0,
        actual: Some(if without.is_empty() { 1.0 } else { 0.0 }),
        met: without.is_empty(),
        decides: true,
        explanation: explain_missed(LOOPS_TARGET).into(),
    }
}

const LOOPS_TARGET: &str = "a loop in the kernel over the elements (grid-stride)";
const ATOMICS_TARGET: &str = "global atomics per block (simulator)";
const REQUESTS_TARGET: &str = "memory requests of the kernels, largest case (simulator)";
const DEVICE_CALLS_TARGET: &str = "device functions the kernel calls";

/// Says what a missed technique target usually means.
fn explain_missed(name: &str) -> &'static str {
    if name == ATOMICS_TARGET {
        "every thread adding to the total with an atomic: they all wait on one word, one after \
         another. Add up the block's values in shared memory first (a tree, with a barrier \
         between steps), then one thread of the block makes the one atomic addition"
    } else if name == REQUESTS_TARGET {
        "a loop in which one thread walks the elements one after another, a warp instruction for \
         each with the warp's other lanes idle: let every thread of the block take part in each \
         step (a scan in log2(BLOCK) steps, each thread adding the value `offset` places before)"
    } else if name == LOOPS_TARGET {
        "one thread for each element, the grid sized to the array: the exercise's grid is fixed, \
         so each thread loops, from cuda.grid(1) to the end in steps of cuda.gridsize(1) \
         (range(start, n, stride)), whatever the array's size"
    } else {
        "the kernel does the work itself: the exercise is to write it as device functions, \
         @cuda.jit(device=True), and call them from the kernel (a function defined but never \
         called does not count)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::record::Launch;

    /// A launch of `kernel` on `grid` blocks.
    fn launch(kernel: &str, grid: u32, figures: Option<sim::Figures>) -> Launch {
        Launch {
            kernel: kernel.into(),
            grid: [grid, 1, 1],
            block: [256, 1, 1],
            figures,
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

    #[test]
    fn atomics_are_counted_per_block_of_the_exercises_kernels() {
        let technique = Technique {
            max_global_atomics_per_block: Some(1.0),
            ..Technique::default()
        };
        let per_thread = sim::Figures {
            global_atomic_requests: 512,
            ..Default::default()
        };
        let entries = ["reduce_sum".to_string()];
        // Another kernel's atomics and blocks do not count.
        let run = record(vec![
            launch("_ZN8__main__10reduce_sumB2v1", 64, Some(per_thread)),
            launch("__main__::other", 1000, Some(sim::Figures::default())),
        ]);
        let missed = figure_targets(&technique, &entries, Some(&run));
        assert_eq!(missed.len(), 1);
        assert!(!missed[0].met, "{missed:?}");
        assert_eq!(
            missed[0].got,
            "8.0 (512 atomic instructions over 64 blocks)"
        );
        assert!(missed[0].explanation.contains("one atomic addition"));
        let per_block = sim::Figures {
            global_atomic_requests: 64,
            ..Default::default()
        };
        let run = record(vec![launch("reduce_sum", 64, Some(per_block))]);
        assert!(figure_targets(&technique, &entries, Some(&run))[0].met);
    }

    #[test]
    fn memory_requests_add_global_and_shared_and_are_skipped_on_a_gpu() {
        let technique = Technique {
            max_memory_requests: Some(100),
            ..Technique::default()
        };
        let serial = sim::Figures {
            global_load_requests: 10,
            global_store_requests: 10,
            shared_load_requests: 70,
            shared_store_requests: 11,
            ..Default::default()
        };
        let entries = ["scan_blocks".to_string()];
        let run = record(vec![launch("scan_blocks", 4, Some(serial))]);
        let missed = figure_targets(&technique, &entries, Some(&run));
        assert!(
            !missed[0].met && missed[0].got.starts_with("101"),
            "{missed:?}"
        );
        assert_eq!(missed[0].actual, Some(101.0));
        let on_gpu = record(vec![launch("scan_blocks", 4, None)]);
        let skipped = figure_targets(&technique, &entries, Some(&on_gpu));
        assert!(skipped[0].met && skipped[0].got == SKIPPED_ON_GPU);
        // No launch of the kernel at all is the "never launched" finding, not a target.
        assert!(figure_targets(&technique, &entries, Some(&record(vec![]))).is_empty());
    }

    fn read(source: &str, entries: &[&str]) -> DeviceCalls {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("program.py");
        std::fs::write(&program, source).unwrap();
        let entries: Vec<String> = entries.iter().map(|e| e.to_string()).collect();
        device_functions_called(Path::new("python3"), &program, &entries).unwrap()
    }

    const CALLED: &str = "
from numba import cuda

@cuda.jit(device=True)
def step(n):
    return n // 2

@cuda.jit
def kernel(x):
    x[0] = step(x[0])
";

    #[test]
    fn a_kernel_that_calls_a_device_function_meets_the_target() {
        let called = read(CALLED, &["kernel", "missing"]);
        assert_eq!(called["kernel"], Some(vec!["step".to_string()]));
        assert_eq!(called["missing"], None);
        let result = device_function_target(&called);
        assert!(result.met, "{result:?}");
        assert_eq!(result.got, "1: kernel calls step");
    }

    #[test]
    fn a_device_function_defined_and_never_called_does_not_count() {
        let inline = CALLED.replace("x[0] = step(x[0])", "x[0] = x[0] // 2");
        let result = device_function_target(&read(&inline, &["kernel"]));
        assert!(!result.met, "{result:?}");
        assert_eq!(
            result.got,
            "0: kernel calls no @cuda.jit(device=True) function"
        );
        // A plain function, without device=True, is not a device function either.
        let plain = CALLED.replace("@cuda.jit(device=True)", "");
        assert!(!device_function_target(&read(&plain, &["kernel"])).met);
    }

    fn loops(source: &str, entries: &[&str]) -> KernelLoops {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("program.py");
        std::fs::write(&program, source).unwrap();
        let entries: Vec<String> = entries.iter().map(|e| e.to_string()).collect();
        let python = Path::new("python3");
        read_program(python, KERNEL_LOOPS_PY, &program, &entries, "loops").unwrap()
    }

    #[test]
    fn a_kernel_without_a_loop_misses_the_loop_target_and_one_with_a_loop_meets_it() {
        let striding = "
from numba import cuda

@cuda.jit
def kernel(x):
    # for i in a comment does not count
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        x[i] = 0
";
        let found = loops(striding, &["kernel", "missing"]);
        assert_eq!(found["kernel"], Some(true));
        assert_eq!(found["missing"], None);
        assert!(kernel_loops_target(&found).met);
        let once = striding.replace(
            "for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):",
            "i = cuda.grid(1)\n    if i < x.size:",
        );
        let result = kernel_loops_target(&loops(&once, &["kernel"]));
        assert!(!result.met, "{result:?}");
        assert_eq!(result.got, "no: kernel holds no for or while loop");
        // A loop in a device function the kernel calls is the kernel's loop.
        let helper = "
from numba import cuda

@cuda.jit(device=True)
def fill(x):
    i = cuda.grid(1)
    while i < x.size:
        x[i] = 0
        i += cuda.gridsize(1)

@cuda.jit
def kernel(x):
    fill(x)
";
        assert!(kernel_loops_target(&loops(helper, &["kernel"])).met);
    }
}
