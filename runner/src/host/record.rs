//! The driver's record of a program's run (the JSON `libsimcuda` writes at exit, see
//! `driver/src/record.rs`), read into types: the part a host check judges.

use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Transfer {
    pub direction: Direction,
    pub pinned: bool,
    pub asynchronous: bool,
    pub start_us: f64,
    pub end_us: f64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Launch {
    pub kernel: String,
    /// The simulator's figures; none when the kernel ran on a GPU (pass-through mode).
    #[serde(default)]
    pub figures: Option<sim::Figures>,
    /// Per source line with memory traffic, costliest first (where the PTX has line information).
    #[serde(default)]
    pub lines: Vec<sim::LineFigures>,
    #[serde(default)]
    pub diagnostics: Vec<String>,
    #[serde(default)]
    pub aborted: bool,
    pub start_us: f64,
    pub end_us: f64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Failure {
    pub call: String,
    pub name: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct Record {
    #[serde(default)]
    pub failures: Vec<Failure>,
    #[serde(default)]
    pub transfers: Vec<Transfer>,
    #[serde(default)]
    pub launches: Vec<Launch>,
    #[serde(default)]
    pub not_supported: Vec<String>,
    #[serde(default)]
    pub leaked_bytes: u64,
    /// Copies back to page-locked memory the program never waited for (the simulator's driver
    /// lands them only when the program waits, or frees the memory).
    #[serde(default)]
    pub copies_never_waited_for: u64,
    /// Allocations that waited for queued work to finish (the simulator's driver counts them).
    #[serde(default)]
    pub allocation_waits: u64,
}

/// Entry points that libraries call on their own to probe the driver, not the program: their
/// failures are not the program's to check (NVRTC asks for `cuGetExportTable` and goes on).
const PROBES: &[&str] = &["cuGetExportTable"];

/// Calls that fail this way when a library asks before there is a context, and goes on: cuda.core
/// asks which device is current when a `Device()` is made.
const CONTEXT_PROBES: &[(&str, &str)] = &[("cuCtxGetDevice", "CUDA_ERROR_INVALID_CONTEXT")];

impl Record {
    pub fn uploads(&self) -> impl Iterator<Item = &Transfer> {
        self.transfers
            .iter()
            .filter(|t| t.direction == Direction::HostToDevice)
    }

    pub fn downloads(&self) -> impl Iterator<Item = &Transfer> {
        self.transfers
            .iter()
            .filter(|t| t.direction == Direction::DeviceToHost)
    }

    /// The failed calls the program made itself.
    pub fn program_failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter().filter(|f| {
            !PROBES.contains(&f.call.as_str())
                && !CONTEXT_PROBES.contains(&(f.call.as_str(), f.name.as_str()))
        })
    }

    /// The program's own entry points the simulator's driver does not implement.
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
            pinned: true,
            asynchronous: true,
            start_us,
            end_us,
        }
    }

    #[test]
    fn copy_time_is_hidden_only_where_other_work_runs_beside_it() {
        let mut record = Record {
            transfers: vec![
                transfer(Direction::HostToDevice, 0.0, 10.0),
                transfer(Direction::DeviceToHost, 5.0, 15.0),
            ],
            ..Record::default()
        };
        // Each copy overlaps the other for 5 of its 10 µs.
        assert!((record.copy_time_hidden() - 0.5).abs() < 1e-9);
        record.launches.push(Launch {
            kernel: "k".into(),
            figures: None,
            lines: vec![],
            diagnostics: vec![],
            aborted: false,
            start_us: 0.0,
            end_us: 20.0,
        });
        assert!((record.copy_time_hidden() - 1.0).abs() < 1e-9);
        assert_eq!(Record::default().copy_time_hidden(), 0.0);
    }

    #[test]
    fn a_library_asking_for_the_device_before_a_context_is_not_the_programs_failure() {
        let failure = |call: &str, name: &str| Failure {
            call: call.into(),
            name: name.into(),
        };
        let record = Record {
            failures: vec![
                failure("cuCtxGetDevice", "CUDA_ERROR_INVALID_CONTEXT"),
                failure("cuGetExportTable", "CUDA_ERROR_NOT_SUPPORTED"),
                failure("cuCtxGetDevice", "CUDA_ERROR_INVALID_VALUE"),
                failure("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE"),
            ],
            ..Record::default()
        };
        let left: Vec<&str> = record.program_failures().map(|f| f.call.as_str()).collect();
        assert_eq!(left, ["cuCtxGetDevice", "cuLaunchKernel"]);
    }

    #[test]
    fn overlapping_intervals_are_counted_once() {
        let parts = [(0.0, 6.0), (4.0, 8.0), (20.0, 30.0)].into_iter();
        assert_eq!(covered(2.0, 10.0, parts), 6.0);
    }
}
