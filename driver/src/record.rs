//! What the program did through the driver: calls, transfers, launches, synchronisations, and a
//! timeline, written as JSON to `SIMCUDA_REPORT` when the program exits.
//!
//! On the simulator the timeline is modelled (`"timeline": "modelled"`); in pass-through mode it
//! is measured with the GPU's events (`"measured"`, see `state::timing`), and launches have
//! no simulator figures. The modelled timeline: copies over PCIe 5.0 x16 as an H100's measured
//! (`scripts/gpu/results/copies.md`, from `scripts/gpu/copies/measure.sh`): 55 GB/s from or to
//! page-locked memory, 10 GB/s from or to pageable memory (which the driver stages through a
//! buffer of its own), and about 9 µs before the first byte; kernels at the simulator's modelled
//! time on an H100. A copy engine per
//! direction and the compute engine each do one thing at a time; operations of one stream run in
//! order; the default stream waits for every stream; a synchronous call makes the host wait.

use crate::happens_before::HappensBefore;
use contract::DriverRecord;
use cudarc::driver::sys::CUresult;

/// Measured on an H100 (PCIe 5.0 x16): 256 MiB pinned in 4866 µs either way, 64 MiB pageable
/// in 6742 µs to the device and 6371 µs back.
const PINNED_BYTES_PER_US: f64 = 55e3;
const PAGEABLE_BYTES_PER_US: f64 = 10e3;
/// What a copy costs before its first byte (a 4 KiB copy takes 9-11 µs, event to event).
const COPY_LATENCY_US: f64 = 9.0;
/// Device memory, bytes read plus written: an H100's device-to-device copy measured 2944 GB/s
/// (`scripts/gpu/results/model-validation.md`); a copy or memset on the device starts after
/// about a launch's latency.
const DEVICE_BYTES_PER_US: f64 = 2.944e6;
const DEVICE_LATENCY_US: f64 = 2.0;

pub(crate) use contract::{Direction, Failure, Launch, Transfer};

/// What the program did (the data, [`contract::DriverRecord`], defined once for writer and
/// readers), and the modelled timeline's state that places each operation on it.
#[derive(Default, Debug)]
pub struct Record {
    /// What was recorded, as written to `SIMCUDA_REPORT` and read by the checker and `runner run`.
    pub data: DriverRecord,
    model: Timeline,
    /// The order of everything queued, and what the streams and the host have waited for.
    pub(crate) order: HappensBefore,
}

impl std::ops::Deref for Record {
    type Target = DriverRecord;
    fn deref(&self) -> &DriverRecord {
        &self.data
    }
}

impl std::ops::DerefMut for Record {
    fn deref_mut(&mut self) -> &mut DriverRecord {
        &mut self.data
    }
}

#[derive(Default, Debug)]
struct Timeline {
    /// When each stream's last operation ends.
    streams: Vec<f64>,
    /// Streams created with CU_STREAM_NON_BLOCKING, which do not wait for the default stream.
    non_blocking: Vec<bool>,
    /// The latest end of any stream, and of any blocking stream (the default stream's too):
    /// kept as ends are set (an end only grows), so that waiting for every stream costs the
    /// same however many streams a program has created and destroyed.
    any_end: f64,
    blocking_end: f64,
    /// When each engine is next free: copies in, copies out, kernels.
    engines: [f64; 3],
    /// When the last copy over the bus or kernel queued so far ends (memsets and copies on the
    /// device aside: an allocation that waits only for those loses next to nothing).
    heavy_work_ends: f64,
}

impl Record {
    pub(crate) fn count(&mut self, name: &str) {
        *self.data.calls.entry(name.to_string()).or_default() += 1;
    }

    /// Notes that `call` failed with `error`, and gives the error back.
    pub(crate) fn failed(&mut self, call: &str, error: CUresult) -> CUresult {
        self.data.failures.push(Failure {
            call: call.to_string(),
            error: error as u32,
            name: crate::errors::name_of(error as u32),
        });
        error
    }

    /// Notes that the driver refused to launch `kernel` with this shape (grid, block, dynamic
    /// shared bytes), answering `error`: a check names the cause from the shape.
    pub(crate) fn refused(
        &mut self,
        kernel: &str,
        (grid, block, shared_bytes): ([u32; 3], [u32; 3], u32),
        error: CUresult,
    ) {
        self.data.refused_launches.push(contract::RefusedLaunch {
            kernel: kernel.to_string(),
            grid,
            block,
            shared_bytes,
            error: error as u32,
            name: crate::errors::name_of(error as u32),
        });
    }

    /// Places an operation of `us` on `engine` in `stream`: after the stream's last one, after
    /// the engine's, after the host issued it (and, on the default stream, after every stream).
    /// A synchronous operation holds the host until it ends. Returns its start and end.
    fn place(&mut self, stream: usize, engine: usize, us: f64, synchronous: bool) -> (f64, f64) {
        self.order.queued_on(stream);
        let t = &mut self.model;
        if t.streams.len() <= stream {
            t.streams.resize(stream + 1, 0.0);
        }
        let mut start = self
            .data
            .host_us
            .max(t.streams[stream])
            .max(t.engines[engine]);
        if stream == 0 {
            // The (legacy) default stream waits for every blocking stream's work...
            start = start.max(t.blocking_end);
        } else if !t.non_blocking.get(stream).copied().unwrap_or(false) {
            // ... and a blocking stream's work waits for the default stream's.
            start = start.max(t.streams[0]);
        }
        let end = start + us;
        t.set_end(stream, end);
        t.engines[engine] = end;
        if synchronous {
            self.data.host_us = end;
        }
        (start, end)
    }

    pub(crate) fn transfer(
        &mut self,
        direction: Direction,
        bytes: u64,
        pinned: bool,
        asynchronous: bool,
        stream: usize,
    ) {
        let us = match direction {
            // Read and written in the device's own memory, by the copy engine or a kernel.
            Direction::DeviceToDevice => {
                DEVICE_LATENCY_US + 2.0 * bytes as f64 / DEVICE_BYTES_PER_US
            }
            _ if pinned => COPY_LATENCY_US + bytes as f64 / PINNED_BYTES_PER_US,
            _ => COPY_LATENCY_US + bytes as f64 / PAGEABLE_BYTES_PER_US,
        };
        let engine = match direction {
            Direction::HostToDevice => 0,
            Direction::DeviceToHost => 1,
            Direction::DeviceToDevice => 2,
        };
        // An asynchronous copy from pageable memory is staged by the host: the call returns only
        // when the data has left the program's memory. (No host memory in a device-to-device
        // copy or a memset: asynchronous is asynchronous.)
        let staged = !pinned && direction != Direction::DeviceToDevice;
        let synchronous = !asynchronous || staged;
        let (start_us, end_us) = self.place(stream, engine, us, synchronous);
        if direction != Direction::DeviceToDevice {
            self.model.heavy_work_ends = self.model.heavy_work_ends.max(end_us);
        }
        self.data.transfers.push(Transfer {
            direction,
            bytes,
            pinned,
            asynchronous,
            stream,
            start_us,
            end_us,
        });
    }

    pub(crate) fn launch(&mut self, mut launch: Launch, modelled_us: f64) {
        let (start, end) = self.place(launch.stream, 2, modelled_us, false);
        self.model.heavy_work_ends = self.model.heavy_work_ends.max(end);
        (launch.start_us, launch.end_us) = (start, end);
        self.data.launches.push(launch);
    }

    /// Notes a new stream and whether it was made non-blocking.
    pub(crate) fn stream_created(&mut self, stream: usize, non_blocking: bool) {
        self.order.stream_created(stream, non_blocking);
        let t = &mut self.model;
        if t.non_blocking.len() <= stream {
            t.non_blocking.resize(stream + 1, false);
        }
        t.non_blocking[stream] = non_blocking;
    }

    /// The host waits for `stream` (or for everything).
    pub(crate) fn synchronise(&mut self, stream: Option<usize>) {
        self.data.synchronisations += 1;
        let t = &self.model;
        let until = match stream {
            Some(s) => t.streams.get(s).copied().unwrap_or(0.0),
            None => t.any_end,
        };
        self.data.host_us = self.data.host_us.max(until);
    }

    /// CUDA's implicit synchronisation: nothing queued after a device or page-locked host
    /// allocation runs beside anything queued before it (CUDA C++ Programming Guide, "Implicit
    /// Synchronization"); the H100 in pass-through mode showed a program that allocates pinned
    /// memory between its chunks run them one after another. Modelled as the host waiting for
    /// every stream, which is not one of the program's own synchronisations.
    pub(crate) fn implicit_barrier(&mut self) {
        let until = self.model.any_end;
        if self.model.heavy_work_ends > self.data.host_us {
            self.data.allocation_waits += 1;
        }
        self.data.host_us = self.data.host_us.max(until);
    }

    /// When `stream`'s work queued so far ends (an event recorded now fires then).
    pub(crate) fn stream_end(&self, stream: usize) -> f64 {
        let t = &self.model;
        let end = t.streams.get(stream).copied().unwrap_or(0.0);
        end.max(self.data.host_us)
    }

    /// `stream` waits until `at` (an event another stream recorded).
    pub(crate) fn wait_until(&mut self, stream: usize, at: f64) {
        let t = &mut self.model;
        if t.streams.len() <= stream {
            t.streams.resize(stream + 1, 0.0);
        }
        t.set_end(stream, t.streams[stream].max(at));
    }
}

impl Timeline {
    /// `stream`'s work now ends at `end` (never earlier than before), which `stream` has room for.
    fn set_end(&mut self, stream: usize, end: f64) {
        self.streams[stream] = end;
        self.any_end = self.any_end.max(end);
        if !self.non_blocking.get(stream).copied().unwrap_or(false) {
            self.blocking_end = self.blocking_end.max(end);
        }
    }
}
