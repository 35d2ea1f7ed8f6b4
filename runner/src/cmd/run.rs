//! `runner run -- COMMAND ARGS...`: a whole host program on the simulator's CUDA driver. The
//! program finds `libsimcuda.so` (the `simdriver` crate) as `libcuda.so` on its library path,
//! allocates, copies and launches without a GPU, and the driver's record of what it did (calls,
//! copies, launches and their memory figures, a modelled timeline) is summed up afterwards.
//! With `--backend gpu` the same library runs in pass-through mode in front of NVIDIA's driver
//! (`driver_env` finds it): the program runs on the GPU, and the record's times are measured.

use crate::course::Course;
pub use crate::driver_env::Backend;
use crate::driver_env::DriverEnv;
use crate::kernel_name::short_name;
use crate::report::count;
use anyhow::{bail, Context};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct RunArgs {
    /// Print the driver's whole record as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Seconds a kernel may run in the simulator before it counts as a hang.
    #[arg(long, default_value_t = 10.0)]
    pub time_limit: f64,
    /// The GPU the simulated device describes and kernel times are modelled on: h100 or h200.
    #[arg(long, default_value = "h100")]
    pub gpu_model: String,
    /// Where the program's driver calls go: `sim`, the simulator; `gpu`, NVIDIA's driver, through
    /// the same library in pass-through mode (same record, times measured on the GPU).
    #[arg(long, value_enum, default_value_t = Backend::Sim)]
    pub backend: Backend,
    /// The program to run and its arguments (after `--`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<OsString>,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if !matches!(args.gpu_model.as_str(), "h100" | "h200") {
        bail!("--gpu-model {}: expected h100 or h200", args.gpu_model);
    }
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        bail!(
            "--time-limit {}: give a positive number of seconds",
            args.time_limit
        );
    }
    // The course the runner was started in, if any: its NVRTC and its CUDA Python environment.
    let course = crate::session::find_course().ok();
    let driver = DriverEnv::prepare(
        course.as_ref(),
        args.backend,
        &args.gpu_model,
        args.time_limit,
    )?;
    let record_path = driver.record_path();
    let (program, rest) = args
        .command
        .split_first()
        .context("give the program to run")?;
    let program = course_python(course.as_ref(), program).unwrap_or_else(|| PathBuf::from(program));
    let mut command = std::process::Command::new(&program);
    command.args(rest);
    driver.apply(&mut command);
    let status = command
        .status()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let code = status.code().unwrap_or(1).clamp(0, 255) as u8;
    let Ok(text) = std::fs::read_to_string(&record_path) else {
        let shown = program.display();
        // The record is written when the program exits normally: a signal leaves none.
        match std::os::unix::process::ExitStatusExt::signal(&status) {
            Some(signal) => eprintln!(
                "{shown} was ended by signal {signal} before the driver could write what it did"
            ),
            None => eprintln!(
                "{shown} made no call to the CUDA driver (a program linked to the CUDA runtime \
                 statically, or one that found no libcuda, never reaches the simulator)"
            ),
        }
        return Ok(ExitCode::from(code));
    };
    let record: Value = serde_json::from_str(&text).context("the driver's record is not JSON")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        // Shown for every program, Python's included: cuda-from-python.md explains why Numba's
        // arrays are still allocated when its program ends.
        print!("{}", summary(&record, true));
    }
    Ok(ExitCode::from(code))
}

/// The operations on the modelled timeline, in the order they start, each with a bar across the
/// program's span: where copies and kernels overlap (streams, pinned memory), the bars do too.
fn timeline(transfers: &[Value], launches: &[Value], end: f64, times: Times) -> String {
    const SHOWN: usize = 16;
    const WIDTH: f64 = 40.0;
    let mut rows: Vec<(f64, f64, String, u64)> = transfers
        .iter()
        .map(|t| {
            let memory = if t["pinned"] == true {
                "pinned"
            } else {
                "pageable"
            };
            let bytes = number(&t["bytes"]);
            let label = match t["direction"].as_str() {
                Some("host_to_device") => format!("copy in  {bytes} bytes, {memory}"),
                Some("device_to_host") => format!("copy out {bytes} bytes, {memory}"),
                _ => format!("on the device: {bytes} bytes copied or set"),
            };
            (
                number(&t["start_us"]),
                number(&t["end_us"]),
                label,
                t["stream"].as_u64().unwrap_or(0),
            )
        })
        .chain(launches.iter().map(|l| {
            let label = format!("kernel {}", short_name(l["kernel"].as_str().unwrap_or("?")));
            (
                number(&l["start_us"]),
                number(&l["end_us"]),
                label,
                l["stream"].as_u64().unwrap_or(0),
            )
        }))
        .collect();
    if rows.is_empty() || end <= 0.0 {
        return String::new();
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = format!(
        "  timeline ({}; one row per operation):\n",
        match times {
            Times::Modelled => "modelled, µs from the first call",
            Times::Measured => "measured on the GPU, µs from the first operation's start",
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
    out
}

/// A launch's three costliest source lines, with their text where the file can be read.
fn busiest_lines(lines: &Value) -> String {
    let mut out = String::new();
    for l in list(lines).iter().take(3) {
        let (file, line) = (
            l["file"].as_str().unwrap_or("?"),
            l["line"].as_u64().unwrap_or(0),
        );
        let f = &l["figures"];
        let sectors = number(&f["global_load_sectors"])
            + number(&f["global_store_sectors"])
            + number(&f["global_atomic_sectors"]);
        let wavefronts =
            number(&f["shared_load_wavefronts"]) + number(&f["shared_store_wavefronts"]);
        let text = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| {
                t.lines()
                    .nth(line.saturating_sub(1) as usize)
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "      {file}:{line}  {sectors} sectors, {wavefronts} wavefronts  {text}\n"
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
fn dims(v: &Value) -> String {
    let d: Vec<u64> = list(v).iter().map(|x| x.as_u64().unwrap_or(0)).collect();
    match d.as_slice() {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
        _ => v.to_string(),
    }
}

/// For `python` or `python3`, the course's CUDA Python environment (`.cuda-python/`, made by
/// `scripts/install-cuda-python`) when it has one: the system's Python has no numba-cuda.
fn course_python(course: Option<&Course>, program: &OsString) -> Option<PathBuf> {
    if program != "python" && program != "python3" {
        return None;
    }
    let python = crate::driver_env::course_python(course)?;
    eprintln!(
        "(Python from the course's CUDA Python environment: {})",
        python.display()
    );
    Some(python)
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn list(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], |a| a.as_slice())
}

/// A launch in one line: its shape, its memory figures on the simulator (a GPU gives none), its
/// time.
/// The launches grouped by what they were (kernel, grid, block, memory figures), in the order
/// each first came: each with how many there were and their mean time. A loop of launches is
/// one line, not hundreds.
fn alike_launches(launches: &[Value]) -> Vec<(&Value, usize, f64)> {
    let mut groups: Vec<(&Value, usize, f64)> = Vec::new();
    let same = |a: &Value, b: &Value| {
        ["kernel", "grid", "block", "figures"]
            .iter()
            .all(|key| a[key] == b[key])
    };
    for l in launches {
        let us = number(&l["end_us"]) - number(&l["start_us"]);
        match groups.iter_mut().find(|(first, _, _)| same(first, l)) {
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

/// One line for `count` alike launches of mean time `us`, the first of which is `l`.
fn launch_line(l: &Value, count: usize, us: f64, times: Times) -> String {
    let f = &l["figures"];
    let figures = if f.is_null() {
        String::new()
    } else {
        format!(
            " {} global sectors, {} shared wavefronts,",
            number(&f["global_load_sectors"]) + number(&f["global_store_sectors"]),
            number(&f["shared_load_wavefronts"]) + number(&f["shared_store_wavefronts"]),
        )
    };
    let (how_many, each) = match count {
        1 => (String::new(), ""),
        n => (format!(" ×{n}"), " each"),
    };
    format!(
        "  launch {} <<<{}, {}>>>{how_many}:{figures} {us:.1} µs {}{each}{}\n",
        short_name(l["kernel"].as_str().unwrap_or("?")),
        dims(&l["grid"]),
        dims(&l["block"]),
        times.word(),
        if l["aborted"] == true {
            " (stopped: see above)"
        } else {
            ""
        }
    )
}

/// Where a record's times come from: the simulator's model, or the GPU's events.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Times {
    Modelled,
    Measured,
}

impl Times {
    fn of(record: &Value) -> Times {
        match record["timeline"].as_str() {
            Some("measured") => Times::Measured,
            _ => Times::Modelled,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Times::Modelled => "modelled",
            Times::Measured => "measured",
        }
    }
}

/// The record in a few lines: calls, copies, launches, the time, what went wrong.
/// The record summed up; `leaks_matter` false leaves out the memory still allocated at the end
/// (a Python exercise's check: Numba frees arrays as the interpreter exits, after the record).
pub fn summary(record: &Value, leaks_matter: bool) -> String {
    let times = Times::of(record);
    let calls: f64 = record["calls"]
        .as_object()
        .map_or(0.0, |m| m.values().map(number).sum());
    let transfers = list(&record["transfers"]);
    let launches = list(&record["launches"]);
    let mut out = format!(
        "\nThrough {}: {}, {}, {}, {}\n",
        match times {
            Times::Modelled => "the simulator's CUDA driver",
            Times::Measured => "NVIDIA's CUDA driver (pass-through)",
        },
        count(calls as u64, "call"),
        plural(
            transfers.len() as u64,
            "copy or memset",
            "copies and memsets"
        ),
        plural(launches.len() as u64, "launch", "launches"),
        count(
            number(&record["synchronisations"]) as u64,
            "synchronisation"
        ),
    );
    for (direction, words) in [
        ("host_to_device", "to the device"),
        ("device_to_host", "back to the host"),
        ("device_to_device", "on the device"),
    ] {
        let these: Vec<&Value> = transfers
            .iter()
            .filter(|t| t["direction"] == direction)
            .collect();
        if these.is_empty() {
            continue;
        }
        let bytes: f64 = these.iter().map(|t| number(&t["bytes"])).sum();
        let pinned = these.iter().filter(|t| t["pinned"] == true).count();
        let us: f64 = these
            .iter()
            .map(|t| number(&t["end_us"]) - number(&t["start_us"]))
            .sum();
        let memory = if direction == "device_to_device" {
            String::new()
        } else {
            format!(", {pinned} with pinned host memory")
        };
        out.push_str(&format!(
            "  {words}: {} of {bytes} bytes{memory}, {us:.1} µs {}\n",
            count(these.len() as u64, "transfer"),
            times.word(),
        ));
    }
    for (l, count, us) in alike_launches(launches) {
        out.push_str(&launch_line(l, count, us, times));
        out.push_str(&busiest_lines(&l["lines"]));
    }
    let end = transfers
        .iter()
        .chain(launches)
        .map(|x| number(&x["end_us"]))
        .fold(number(&record["host_us"]), f64::max);
    out.push_str(&format!(
        "  {} time on the device's timeline: {end:.1} µs\n",
        times.word()
    ));
    out.push_str(&timeline(transfers, launches, end, times));
    let mut failures: Vec<(String, String, usize)> = Vec::new();
    for f in list(&record["failures"]) {
        let (call, name) = (
            f["call"].as_str().unwrap_or("?"),
            f["name"].as_str().unwrap_or("?"),
        );
        match failures.iter_mut().find(|(c, n, _)| c == call && n == name) {
            Some(seen) => seen.2 += 1,
            None => failures.push((call.to_string(), name.to_string(), 1)),
        }
    }
    for (call, name, times) in failures.iter().take(5) {
        let times = if *times == 1 {
            String::new()
        } else {
            format!(" ({times} times)")
        };
        out.push_str(&format!("  {call} returned {name}{times}\n"));
    }
    let missing = list(&record["not_supported"]);
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().filter_map(|n| n.as_str()).collect();
        out.push_str(&format!(
            "  not implemented by the simulator's driver: {}\n",
            names.join(", ")
        ));
    }
    let leaked = number(&record["leaked_bytes"]);
    if leaked > 0.0 && leaks_matter {
        out.push_str(&format!(
            "  {leaked} bytes of device memory were never freed\n"
        ));
    }
    out
}
