//! The driver's record of a program's run in a few lines, for `runner run` and a host check's
//! report: calls, copies each way, launches with their figures, the time, a timeline of the
//! copies and kernels, and what failed.

use crate::kernel_name::short_name;
use crate::report::count;
use contract::{Direction, DriverRecord, Launch, TimelineKind, Transfer};

/// The record summed up; `leaks_matter` false leaves out the memory still allocated at the end
/// (a Python exercise's check: Numba frees arrays as the interpreter exits, after the record).
pub fn summary(record: &DriverRecord, leaks_matter: bool) -> String {
    let times = record.timeline;
    let calls: u64 = record.calls.values().sum();
    let mut out = format!(
        "\nThrough {}: {}, {}, {}, {}\n",
        match times {
            TimelineKind::Modelled => "the simulator's CUDA driver",
            TimelineKind::Measured => "NVIDIA's CUDA driver (pass-through)",
        },
        count(calls, "call"),
        plural(
            record.transfers.len() as u64,
            "copy or memset",
            "copies and memsets"
        ),
        plural(record.launches.len() as u64, "launch", "launches"),
        count(record.synchronisations, "synchronisation"),
    );
    out.push_str(&transfers_by_direction(&record.transfers, times));
    for (l, count, us) in alike_launches(&record.launches) {
        out.push_str(&launch_line(l, count, us, times));
        out.push_str(&busiest_lines(&l.lines));
    }
    let end = record
        .transfers
        .iter()
        .map(|t| t.end_us)
        .chain(record.launches.iter().map(|l| l.end_us))
        .fold(record.host_us, f64::max);
    out.push_str(&format!(
        "  {} time on the device's timeline: {end:.1} µs\n",
        word(times)
    ));
    out.push_str(&timeline(&record.transfers, &record.launches, end, times));
    out.push_str(&failures(record));
    let missing: Vec<&str> = record.unsupported().map(String::as_str).collect();
    if !missing.is_empty() {
        out.push_str(&format!(
            "  not implemented by the simulator's driver: {}\n",
            missing.join(", ")
        ));
    }
    if record.leaked_bytes > 0 && leaks_matter {
        out.push_str(&format!(
            "  {} bytes of device memory were never freed\n",
            record.leaked_bytes
        ));
    }
    out
}

fn word(times: TimelineKind) -> &'static str {
    match times {
        TimelineKind::Modelled => "modelled",
        TimelineKind::Measured => "measured",
    }
}

/// One line per direction: how many copies, how many bytes, how many from pinned memory, time.
fn transfers_by_direction(transfers: &[Transfer], times: TimelineKind) -> String {
    let mut out = String::new();
    for (direction, words) in [
        (Direction::HostToDevice, "to the device"),
        (Direction::DeviceToHost, "back to the host"),
        (Direction::DeviceToDevice, "on the device"),
    ] {
        let these: Vec<&Transfer> = transfers
            .iter()
            .filter(|t| t.direction == direction)
            .collect();
        if these.is_empty() {
            continue;
        }
        let bytes: u64 = these.iter().map(|t| t.bytes).sum();
        let pinned = these.iter().filter(|t| t.pinned).count();
        let us: f64 = these.iter().map(|t| t.end_us - t.start_us).sum();
        let memory = if direction == Direction::DeviceToDevice {
            String::new()
        } else {
            format!(", {pinned} with pinned host memory")
        };
        out.push_str(&format!(
            "  {words}: {} of {bytes} bytes{memory}, {us:.1} µs {}\n",
            count(these.len() as u64, "transfer"),
            word(times),
        ));
    }
    out
}

/// The failed calls the program made itself (a library's probes of the driver are not its
/// errors), each once with how many times.
fn failures(record: &DriverRecord) -> String {
    let mut failures: Vec<(&str, &str, usize)> = Vec::new();
    for f in record.program_failures() {
        match failures
            .iter_mut()
            .find(|(c, n, _)| *c == f.call && *n == f.name)
        {
            Some(seen) => seen.2 += 1,
            None => failures.push((&f.call, &f.name, 1)),
        }
    }
    let mut out = String::new();
    for (call, name, times) in failures.iter().take(5) {
        let times = if *times == 1 {
            String::new()
        } else {
            format!(" ({times} times)")
        };
        out.push_str(&format!("  {call} returned {name}{times}\n"));
    }
    out
}

/// The copies over the bus and the kernels on the timeline, in the order they start, each with a
/// bar across the program's span: where copies and kernels overlap (streams, pinned memory), the
/// bars do too. Memsets and copies within the device are counted, not drawn: a program that
/// clears its buffers would otherwise push the copies and kernels the lesson is about off the
/// rows shown.
fn timeline(transfers: &[Transfer], launches: &[Launch], end: f64, times: TimelineKind) -> String {
    const SHOWN: usize = 16;
    const WIDTH: f64 = 40.0;
    let on_the_device = transfers
        .iter()
        .filter(|t| t.direction == Direction::DeviceToDevice)
        .count();
    let mut rows: Vec<(f64, f64, String, usize)> = transfers
        .iter()
        .filter(|t| t.direction != Direction::DeviceToDevice)
        .map(|t| {
            let memory = if t.pinned { "pinned" } else { "pageable" };
            let way = match t.direction {
                Direction::HostToDevice => "copy in ",
                _ => "copy out",
            };
            let label = format!("{way} {} bytes, {memory}", t.bytes);
            (t.start_us, t.end_us, label, t.stream)
        })
        .chain(launches.iter().map(|l| {
            let label = format!("kernel {}", short_name(&l.kernel));
            (l.start_us, l.end_us, label, l.stream)
        }))
        .collect();
    if rows.is_empty() || end <= 0.0 {
        return String::new();
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = format!(
        "  timeline ({}; one row per copy or kernel):\n",
        match times {
            TimelineKind::Modelled => "modelled, µs from the first call",
            TimelineKind::Measured => "measured on the GPU, µs from the first operation's start",
        }
    );
    for (start, stop, label, stream) in rows.iter().take(SHOWN) {
        let from = (start / end * WIDTH) as usize;
        let to = ((stop / end * WIDTH).ceil() as usize).clamp(from + 1, WIDTH as usize);
        let bar: String = (0..WIDTH as usize)
            .map(|i| if (from..to).contains(&i) { '#' } else { '.' })
            .collect();
        out.push_str(&format!(
            "    {start:>9.1} {stop:>9.1}  stream {stream}  {bar}  {label}\n"
        ));
    }
    if rows.len() > SHOWN {
        out.push_str(&format!(
            "    ... and {} more (--json has them all)\n",
            rows.len() - SHOWN
        ));
    }
    if on_the_device > 0 {
        out.push_str(&format!(
            "    (and {} on the device, not drawn)\n",
            plural(on_the_device as u64, "memset or copy", "memsets and copies")
        ));
    }
    out
}

/// A launch's three costliest source lines, with their text where the file can be read.
fn busiest_lines(lines: &[sim::LineFigures]) -> String {
    let mut out = String::new();
    for l in lines.iter().take(3) {
        let f = &l.figures;
        let sectors = f.global_load_sectors + f.global_store_sectors + f.global_atomic_sectors;
        let wavefronts = f.shared_load_wavefronts + f.shared_store_wavefronts;
        let text = std::fs::read_to_string(&l.file)
            .ok()
            .and_then(|t| {
                t.lines()
                    .nth(l.line.saturating_sub(1) as usize)
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_default();
        // Absolute where the program's compiler named it so (nvcc, Numba, the course's NVRTC).
        let mut file = l.file.clone();
        crate::backend::sim::relative_to_current_dir(&mut file);
        out.push_str(&format!(
            "      {file}:{}  {sectors} sectors, {wavefronts} wavefronts  {text}\n",
            l.line
        ));
    }
    out
}

/// `n` things, where the plural is not the singular and an s.
fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `[x, y, z]` as `x`, `(x, y)` or `(x, y, z)`, as launches are written.
fn dims([x, y, z]: [u32; 3]) -> String {
    match (y, z) {
        (1, 1) => x.to_string(),
        (_, 1) => format!("({x}, {y})"),
        _ => format!("({x}, {y}, {z})"),
    }
}

/// Whether two launches were the same launch: kernel, shape and memory figures.
fn alike(a: &Launch, b: &Launch) -> bool {
    a.kernel == b.kernel && a.grid == b.grid && a.block == b.block && a.figures == b.figures
}

/// The launches grouped by what they were (kernel, grid, block, memory figures), in the order
/// each first came: each with how many there were and their mean time. A loop of launches is
/// one line, not hundreds.
fn alike_launches(launches: &[Launch]) -> Vec<(&Launch, usize, f64)> {
    let mut groups: Vec<(&Launch, usize, f64)> = Vec::new();
    for l in launches {
        let us = l.end_us - l.start_us;
        match groups.iter_mut().find(|(first, _, _)| alike(first, l)) {
            Some((_, count, total)) => {
                *count += 1;
                *total += us;
            }
            None => groups.push((l, 1, us)),
        }
    }
    groups
        .into_iter()
        .map(|(l, count, total)| (l, count, total / count as f64))
        .collect()
}

/// One line for `count` alike launches of mean time `us`, the first of which is `l`: its shape,
/// its memory figures on the simulator (a GPU gives none), bank conflicts where there were any,
/// its time.
fn launch_line(l: &Launch, count: usize, us: f64, times: TimelineKind) -> String {
    let figures = match &l.figures {
        None => String::new(),
        Some(f) => {
            let conflicts = f.shared_load_bank_conflicts + f.shared_store_bank_conflicts;
            let conflicts = if conflicts > 0 {
                format!(" {conflicts} bank conflicts,")
            } else {
                String::new()
            };
            format!(
                " {} global sectors, {} shared wavefronts,{conflicts}",
                f.global_load_sectors + f.global_store_sectors,
                f.shared_load_wavefronts + f.shared_store_wavefronts,
            )
        }
    };
    let (how_many, each) = match count {
        1 => (String::new(), ""),
        n => (format!(" ×{n}"), " each"),
    };
    // A modelled time says what bounds it, as a kernel check's does (a GPU's is measured).
    let bound = match l.bound_by {
        Some(resource) => format!(", bound by {resource}"),
        None => String::new(),
    };
    format!(
        "  launch {} <<<{}, {}>>>{how_many}:{figures} {us:.1} µs {}{each}{bound}{}\n",
        short_name(&l.kernel),
        dims(l.grid),
        dims(l.block),
        word(times),
        if l.aborted {
            " (stopped: see above)"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(direction: Direction, start_us: f64, end_us: f64) -> Transfer {
        Transfer {
            direction,
            bytes: 4096,
            pinned: true,
            asynchronous: true,
            stream: 1,
            start_us,
            end_us,
        }
    }

    #[test]
    fn memsets_do_not_push_copies_and_kernels_off_the_timeline() {
        let mut transfers: Vec<Transfer> = (0..20)
            .map(|i| transfer(Direction::DeviceToDevice, i as f64, i as f64 + 1.0))
            .collect();
        transfers.push(transfer(Direction::HostToDevice, 30.0, 40.0));
        transfers.push(transfer(Direction::DeviceToHost, 35.0, 45.0));
        let shown = timeline(&transfers, &[], 50.0, TimelineKind::Modelled);
        assert!(shown.contains("copy in  4096 bytes, pinned"), "{shown}");
        assert!(shown.contains("copy out 4096 bytes, pinned"), "{shown}");
        assert!(
            shown.contains("(and 20 memsets and copies on the device, not drawn)"),
            "{shown}"
        );
    }

    #[test]
    fn a_librarys_probe_is_not_shown_as_the_programs_error() {
        let failure = |call: &str, name: &str| contract::Failure {
            call: call.into(),
            error: 201,
            name: name.into(),
        };
        let record = DriverRecord {
            failures: vec![
                failure("cuCtxGetDevice", "CUDA_ERROR_INVALID_CONTEXT"),
                failure("cuMemcpyDtoH_v2", "CUDA_ERROR_INVALID_VALUE"),
            ],
            ..DriverRecord::default()
        };
        let shown = summary(&record, true);
        assert!(!shown.contains("cuCtxGetDevice"), "{shown}");
        assert!(
            shown.contains("cuMemcpyDtoH_v2 returned CUDA_ERROR_INVALID_VALUE"),
            "{shown}"
        );
    }

    #[test]
    fn a_busy_line_is_named_as_the_student_sees_the_file() {
        let here = std::env::current_dir().unwrap();
        let lines = [sim::LineFigures {
            file: here.join("src/main.rs").display().to_string(),
            line: 21,
            figures: sim::Figures::default(),
            instructions: Default::default(),
        }];
        let shown = busiest_lines(&lines);
        assert!(
            shown.starts_with("      src/main.rs:21  0 sectors"),
            "{shown}"
        );
    }

    #[test]
    fn bank_conflicts_are_in_the_launchs_line() {
        let figures = sim::Figures {
            shared_load_wavefronts: 64,
            shared_load_bank_conflicts: 32,
            ..sim::Figures::default()
        };
        let launch = Launch {
            kernel: "transpose".into(),
            grid: [4, 4, 1],
            block: [32, 8, 1],
            figures: Some(figures),
            warp_instructions: Some(100),
            end_us: 2.0,
            ..Launch::default()
        };
        let line = launch_line(&launch, 1, 2.0, TimelineKind::Modelled);
        assert!(line.contains("32 bank conflicts"), "{line}");
        assert!(line.contains("<<<(4, 4), (32, 8)>>>"), "{line}");
    }

    #[test]
    fn a_modelled_launch_says_what_bounds_it_and_a_measured_one_does_not() {
        let launch = |bound_by| Launch {
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            end_us: 2.0,
            bound_by,
            ..Launch::default()
        };
        let memory = launch(Some(sim::Resource::Dram));
        let line = launch_line(&memory, 3, 2.0, TimelineKind::Modelled);
        assert!(
            line.contains("2.0 µs modelled each, bound by DRAM"),
            "{line}"
        );
        let compute = launch(Some(sim::Resource::Issue));
        let line = launch_line(&compute, 1, 2.0, TimelineKind::Modelled);
        assert!(
            line.contains("modelled, bound by instruction issue"),
            "{line}"
        );
        let line = launch_line(&launch(None), 1, 2.0, TimelineKind::Measured);
        assert!(!line.contains("bound by"), "{line}");
    }
}
