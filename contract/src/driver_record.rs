//! What a program did through the driver: calls, failures, transfers, launches (with the
//! simulator's figures and diagnostics), synchronisations, CUDA graphs, and a timeline.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of [`DriverRecord`]'s shape. A reader refuses a record of another version (a
/// `libsimcuda.so` from another build of the course) rather than misread it. 2: `graphs`, and a
/// launch's `graph` (a record without them would read as a program that used no graph). 3:
/// `managed` (without it, a program would read as one that used no managed memory). 4:
/// `refused_launches` (without it, a launch the driver refused would go unnamed). 5: a launch's
/// `bound_by` (without it, a modelled time would read as one nothing bounds). 6: `host_reads`
/// and `arrivals_never_waited_for` (without them, a result read before any wait would read as
/// one read after it).
pub const DRIVER_RECORD_VERSION: u32 = 6;

/// Which way a copy went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the program's memory to the device's.
    HostToDevice,
    /// From the device's memory back to the program's.
    DeviceToHost,
    /// Within the device's memory (a copy or a memset).
    DeviceToDevice,
}

/// One copy or memset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    /// Which way it went.
    pub direction: Direction,
    /// How many bytes.
    pub bytes: u64,
    /// From or to page-locked host memory.
    pub pinned: bool,
    /// Issued with an `Async` call.
    pub asynchronous: bool,
    /// The stream it was queued on (0: the default stream).
    pub stream: usize,
    /// When it started on the timeline, in microseconds from the program's first call.
    pub start_us: f64,
    /// When it ended.
    pub end_us: f64,
}

/// One kernel launch. (`Default` is for tests and builders: an empty launch to fill in.)
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Launch {
    /// The kernel's name as the module has it (mangled, for C++ and Numba kernels).
    pub kernel: String,
    /// Blocks in the grid.
    pub grid: [u32; 3],
    /// Threads in a block.
    pub block: [u32; 3],
    /// Dynamic shared memory, in bytes.
    pub shared_bytes: u32,
    /// The stream it was queued on.
    pub stream: usize,
    /// The simulator's figures; none when the kernel ran on a GPU (pass-through mode).
    pub figures: Option<sim::Figures>,
    /// Per source line with memory traffic (where the PTX has line information: NVRTC's
    /// `-lineinfo`, Numba's `lineinfo=True`), costliest first.
    pub lines: Vec<sim::LineFigures>,
    /// None when the kernel ran on a GPU (pass-through mode).
    pub warp_instructions: Option<u64>,
    /// What the simulator found (kind, thread, block, source line, details), as typed values:
    /// a check gives a program's race or out-of-bounds access the verdict a kernel's gets.
    pub diagnostics: Vec<sim::Diagnostic>,
    /// A fatal diagnostic stopped the kernel.
    pub aborted: bool,
    /// When it started on the timeline.
    pub start_us: f64,
    /// When it ended.
    pub end_us: f64,
    /// What bounds its modelled time (the simulator's model, the figure a kernel check shows);
    /// none when the kernel ran on a GPU, whose time is measured.
    #[serde(default)]
    pub bound_by: Option<sim::Resource>,
    /// The graph (its index in [`DriverRecord::graphs`]) whose launch ran this kernel; none for
    /// a kernel launched on its own. (In pass-through mode a graph's kernels run inside the real
    /// driver and are not listed here: the graph's own entry counts them.)
    #[serde(default)]
    pub graph: Option<usize>,
}

/// A CUDA graph the program captured from a stream (`cudaStreamBeginCapture` ...
/// `cudaStreamEndCapture`), and what it did with it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// The kernels of its launch nodes, in the order they were captured (names as in
    /// [`Launch::kernel`]).
    pub kernels: Vec<String>,
    /// Its copy nodes.
    pub copies: u64,
    /// Its memset nodes.
    pub memsets: u64,
    /// How many times it was instantiated (`cudaGraphInstantiate`).
    pub instantiations: u64,
    /// How many times an instantiation of it was launched (`cudaGraphLaunch`).
    pub launches: u64,
}

/// A call that returned an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The entry point (`cuMemcpyHtoD_v2`).
    pub call: String,
    /// The error's number.
    pub error: u32,
    /// The error's name (`CUDA_ERROR_ILLEGAL_ADDRESS`).
    pub name: String,
}

/// A launch the driver refused, so the kernel never ran: with the shape it was given, which is
/// what a check names the cause by (a grid of 0 blocks, a block of more than 1024 threads).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedLaunch {
    /// The kernel's name as the driver knows it (mangled where the program's is).
    pub kernel: String,
    /// Blocks in x, y and z.
    pub grid: [u32; 3],
    /// Threads per block in x, y and z.
    pub block: [u32; 3],
    /// Dynamic shared memory asked for, in bytes.
    pub shared_bytes: u32,
    /// The error's number.
    pub error: u32,
    /// The error's name (`CUDA_ERROR_INVALID_VALUE`).
    pub name: String,
}

/// Where a record's times come from.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    /// The simulator's model of an H100's copy engines and kernels.
    #[default]
    Modelled,
    /// A GPU's events around each copy and launch (pass-through mode).
    Measured,
}

/// What the program did through the driver, written as JSON when it exits.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DriverRecord {
    /// [`DRIVER_RECORD_VERSION`] of the driver that wrote it.
    pub version: u32,
    /// Whether `start_us` and `end_us` (and `host_us`) are modelled or measured.
    pub timeline: TimelineKind,
    /// How many times each entry point was called.
    pub calls: BTreeMap<String, u64>,
    /// The calls that returned an error, in order.
    pub failures: Vec<Failure>,
    /// Copies and memsets, in order.
    pub transfers: Vec<Transfer>,
    /// Kernel launches, in order.
    pub launches: Vec<Launch>,
    /// The program's own waits (stream, context and event synchronisations).
    pub synchronisations: u64,
    /// Entry points the program called that this driver does not implement.
    pub not_supported: Vec<String>,
    /// Names asked of cuGetProcAddress that this driver does not have at all (a binding may
    /// look up every entry point it knows; it fails only if it calls one).
    pub not_found: Vec<String>,
    /// Allocations (device or page-locked) made while queued copies or kernels had not
    /// finished, which therefore waited for them.
    pub allocation_waits: u64,
    /// Device bytes allocated and not freed when the program ended.
    pub leaked_bytes: u64,
    /// Copies back to page-locked memory the program never waited for (the simulated driver
    /// lands them only when the program waits, or frees the memory).
    pub copies_never_waited_for: u64,
    /// The time at which the host is (microseconds from the first call) when the program ends.
    pub host_us: f64,
    /// The graphs the program captured, in the order their captures ended.
    pub graphs: Vec<Graph>,
    /// Managed memory (`cudaMallocManaged`) and what the program did with it.
    #[serde(default)]
    pub managed: Managed,
    /// Launches the driver refused, in order.
    #[serde(default)]
    pub refused_launches: Vec<RefusedLaunch>,
    /// The results the program handed back (hostkit's reads of its memory), in order, with what
    /// the host had not waited for when it read them.
    #[serde(default)]
    pub host_reads: Vec<HostRead>,
    /// Asynchronous copies back to pageable memory the program never waited for: their bytes
    /// were there (a GPU's driver returns from such a copy once it is done, today), but CUDA
    /// promises only that the call "might be synchronous".
    #[serde(default)]
    pub arrivals_never_waited_for: u64,
}

/// A result the program handed back, read from its memory by hostkit: what the host had not yet
/// waited for of the copies that wrote there. Seen alike on every track (hostkit asks the driver
/// before each read), judged on the happens-before of the driver's streams, events and waits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRead {
    /// How many bytes it read.
    pub bytes: u64,
    /// Of those, bytes of copies into page-locked memory still on their way: the program read
    /// what was there before (stale data, here every time).
    pub in_flight: u64,
    /// Bytes of copies into pageable memory that had arrived though the program had not waited
    /// for them: right here and on today's GPUs, but read before any wait says they are done.
    pub arrived_unwaited: u64,
    /// The streams of the copies not waited for (0: the default stream).
    pub streams: Vec<usize>,
}

/// Where a prefetch of managed memory moves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    /// The GPU's memory.
    Device,
    /// The host's memory (`cudaCpuDeviceId`, or a host location).
    Host,
}

/// Managed memory: its blocks, and the calls that concern them in the order the program made
/// them. Everything here is seen alike on the simulator and in pass-through mode on a GPU: the
/// calls themselves, not where the pages are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Managed {
    /// Each managed allocation's size in bytes, in the order they were made (a block is named by
    /// its index here).
    pub blocks: Vec<u64>,
    /// What the program did with them, in call order.
    pub steps: Vec<ManagedStep>,
}

/// One call that concerns managed memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum ManagedStep {
    /// `cudaMallocManaged`.
    Allocated {
        /// The block's index in [`Managed::blocks`].
        block: usize,
    },
    /// `cudaFree` of a managed block.
    Freed {
        /// The block.
        block: usize,
    },
    /// `cudaMemPrefetchAsync` of `bytes` of a block.
    Prefetched {
        /// The block the prefetch starts in.
        block: usize,
        /// How many bytes it asked for.
        bytes: u64,
        /// Where to.
        to: Destination,
        /// The stream it was queued on (0: the default stream).
        stream: usize,
    },
    /// A kernel launched while managed blocks were allocated (a launch may use any of them).
    Launched {
        /// The kernel's name, as in [`Launch::kernel`].
        kernel: String,
        /// The stream it was queued on.
        stream: usize,
    },
    /// The program handed back a result (hostkit's write) straight from a managed block.
    ResultRead {
        /// The block.
        block: usize,
        /// How many bytes it read.
        bytes: u64,
        /// Of those, the bytes of blocks that device work queued since the program's last wait
        /// could still change: read before the program waited for the device.
        unwaited: u64,
    },
}

/// Entry points that libraries call on their own to probe the driver, not the program: their
/// failures are not the program's to check (NVRTC asks for `cuGetExportTable` and goes on).
const PROBES: &[&str] = &["cuGetExportTable"];

/// Calls that fail this way when a library asks before there is a context, and goes on: cuda.core
/// asks which device is current when a `Device()` is made, and the CUDA runtime asks through
/// `cuCtxGetDevice_v2` where the driver offers it.
const CONTEXT_PROBES: &[(&str, &str)] = &[
    ("cuCtxGetDevice", "CUDA_ERROR_INVALID_CONTEXT"),
    ("cuCtxGetDevice_v2", "CUDA_ERROR_INVALID_CONTEXT"),
];

impl DriverRecord {
    /// The copies to the device.
    pub fn uploads(&self) -> impl Iterator<Item = &Transfer> {
        self.transfers
            .iter()
            .filter(|t| t.direction == Direction::HostToDevice)
    }

    /// The copies back from the device.
    pub fn downloads(&self) -> impl Iterator<Item = &Transfer> {
        self.transfers
            .iter()
            .filter(|t| t.direction == Direction::DeviceToHost)
    }

    /// The failed calls the program made itself, not a library's probes.
    pub fn program_failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter().filter(|f| {
            !PROBES.contains(&f.call.as_str())
                && !CONTEXT_PROBES.contains(&(f.call.as_str(), f.name.as_str()))
        })
    }

    /// The kernel launches the program made on its own, not as a graph's nodes.
    pub fn direct_launches(&self) -> impl Iterator<Item = &Launch> {
        self.launches.iter().filter(|l| l.graph.is_none())
    }

    /// How many times the program launched a graph, all graphs together.
    pub fn graph_launches(&self) -> u64 {
        self.graphs.iter().map(|g| g.launches).sum()
    }

    /// How many times the program instantiated a graph, all graphs together.
    pub fn graph_instantiations(&self) -> u64 {
        self.graphs.iter().map(|g| g.instantiations).sum()
    }

    /// Whether kernel `named` ran: launched on its own, or as a node of a graph that was
    /// launched (which is all a pass-through record shows of a graph's kernels).
    pub fn ran_kernel(&self, named: impl Fn(&str) -> bool) -> bool {
        self.launches.iter().any(|l| named(&l.kernel))
            || self
                .graphs
                .iter()
                .filter(|g| g.launches > 0)
                .any(|g| g.kernels.iter().any(|k| named(k)))
    }

    /// The program's own entry points the simulated driver does not implement.
    pub fn unsupported(&self) -> impl Iterator<Item = &String> {
        self.not_supported
            .iter()
            .filter(|name| !PROBES.contains(&name.as_str()))
    }

    /// The share of the copies' time during which something else ran too (a kernel, or a copy
    /// the other way): what streams and pinned memory buy. 0 when there were no copies.
    pub fn copy_time_hidden(&self) -> f64 {
        let copies: Vec<(f64, f64, Direction)> = self
            .transfers
            .iter()
            .filter(|t| t.direction != Direction::DeviceToDevice)
            .map(|t| (t.start_us, t.end_us, t.direction))
            .collect();
        let total: f64 = copies.iter().map(|(s, e, _)| e - s).sum();
        if total <= 0.0 {
            return 0.0;
        }
        let hidden: f64 = copies
            .iter()
            .map(|&(start, end, direction)| {
                let others = copies
                    .iter()
                    .filter(|c| c.2 != direction)
                    .map(|c| (c.0, c.1))
                    .chain(self.launches.iter().map(|l| (l.start_us, l.end_us)));
                covered(start, end, others)
            })
            .sum();
        hidden / total
    }
}

/// How much of [start, end) the union of `intervals` covers.
fn covered(start: f64, end: f64, intervals: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut parts: Vec<(f64, f64)> = intervals
        .map(|(s, e)| (s.max(start), e.min(end)))
        .filter(|(s, e)| e > s)
        .collect();
    parts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut sum, mut reach) = (0.0, start);
    for (s, e) in parts {
        let s = s.max(reach);
        if e > s {
            sum += e - s;
            reach = e;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(direction: Direction, start_us: f64, end_us: f64) -> Transfer {
        Transfer {
            direction,
            bytes: 1 << 20,
            pinned: true,
            asynchronous: true,
            stream: 1,
            start_us,
            end_us,
        }
    }

    fn kernel(start_us: f64, end_us: f64) -> Launch {
        Launch {
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
            stream: 0,
            figures: None,
            lines: vec![],
            warp_instructions: None,
            diagnostics: vec![],
            aborted: false,
            start_us,
            end_us,
            bound_by: None,
            graph: None,
        }
    }

    #[test]
    fn copy_time_is_hidden_only_where_other_work_runs_beside_it() {
        let mut record = DriverRecord {
            transfers: vec![
                transfer(Direction::HostToDevice, 0.0, 10.0),
                transfer(Direction::DeviceToHost, 5.0, 15.0),
            ],
            ..DriverRecord::default()
        };
        // Each copy overlaps the other for 5 of its 10 µs.
        assert!((record.copy_time_hidden() - 0.5).abs() < 1e-9);
        record.launches.push(kernel(0.0, 20.0));
        assert!((record.copy_time_hidden() - 1.0).abs() < 1e-9);
        assert_eq!(DriverRecord::default().copy_time_hidden(), 0.0);
    }

    #[test]
    fn a_librarys_probes_are_not_the_programs_failures() {
        let failure = |call: &str, name: &str| Failure {
            call: call.into(),
            error: 1,
            name: name.into(),
        };
        let record = DriverRecord {
            failures: vec![
                failure("cuGetExportTable", "CUDA_ERROR_NOT_SUPPORTED"),
                failure("cuCtxGetDevice", "CUDA_ERROR_INVALID_CONTEXT"),
                failure("cuCtxGetDevice_v2", "CUDA_ERROR_INVALID_CONTEXT"),
                failure("cuMemAlloc_v2", "CUDA_ERROR_OUT_OF_MEMORY"),
            ],
            not_supported: vec!["cuGetExportTable".into(), "cuGraphLaunch".into()],
            ..DriverRecord::default()
        };
        let calls: Vec<&str> = record.program_failures().map(|f| f.call.as_str()).collect();
        assert_eq!(calls, ["cuMemAlloc_v2"]);
        let unsupported: Vec<&String> = record.unsupported().collect();
        assert_eq!(unsupported, ["cuGraphLaunch"]);
    }

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let record = DriverRecord {
            version: DRIVER_RECORD_VERSION,
            transfers: vec![transfer(Direction::DeviceToHost, 1.0, 2.0)],
            launches: vec![kernel(2.0, 3.0)],
            ..DriverRecord::default()
        };
        let text = serde_json::to_string(&record).unwrap();
        let back: DriverRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back.version, DRIVER_RECORD_VERSION);
        assert_eq!(back.transfers, record.transfers);
        assert_eq!(back.launches[0].block, [32, 1, 1]);
    }

    #[test]
    fn a_graphs_kernels_ran_only_if_the_graph_was_launched_and_are_not_direct_launches() {
        let mut record = DriverRecord {
            launches: vec![kernel(0.0, 1.0)],
            graphs: vec![Graph {
                kernels: vec!["smooth".into(), "gain".into()],
                instantiations: 1,
                ..Graph::default()
            }],
            ..DriverRecord::default()
        };
        assert!(record.ran_kernel(|k| k == "k"));
        assert!(!record.ran_kernel(|k| k == "gain"));
        record.graphs[0].launches = 3;
        assert!(record.ran_kernel(|k| k == "gain"));
        assert_eq!(
            (record.graph_launches(), record.graph_instantiations()),
            (3, 1)
        );
        record.launches.push(Launch {
            graph: Some(0),
            ..kernel(1.0, 2.0)
        });
        assert_eq!(record.direct_launches().count(), 1);
    }
}
