//! The result of one check, as data (for `--json`) and as text for a student.

use checks::Mismatch;
use colored::Colorize;
use serde::{Deserialize, Serialize};

pub use contract::{Backend, DiagnosticKind, Finding, Place, Verdict, SCHEMA_VERSION};

/// The most of a kernel's `printf` output one report keeps, over all its cases and launches: what
/// one launch may print on a GPU (its printf buffer holds 1 MiB), so a kernel left printing in
/// every thread gives a report of a few MiB at most, whatever its cases print together.
pub const MAX_PRINTF_BYTES: usize = 1 << 20;

/// The line that ends a report's `printf` when it was cut at [`MAX_PRINTF_BYTES`]. The
/// simulator's own note for one launch cut at its buffer starts the same way.
pub const PRINTF_CUT_NOTE: &str = "printf output cut at 1 MiB";

/// One check's report, a kernel's or a whole program's: what `runner check --json` prints (its
/// `kind`, `kernel` or `program`, beside `schema_version`) and what the grader reads back.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Report {
    /// A CUDA C kernel checked against its CPU reference, case by case.
    Kernel(Box<CheckReport>),
    /// A whole program run on each case through the course's driver.
    Program(Box<crate::host::report::HostReport>),
}

impl Report {
    pub fn verdict(&self) -> Verdict {
        match self {
            Report::Kernel(report) => report.verdict,
            Report::Program(report) => report.verdict,
        }
    }

    pub fn passed(&self) -> bool {
        self.verdict() == Verdict::Passed
    }

    /// The report as a student reads it.
    pub fn render(&self) -> String {
        match self {
            Report::Kernel(report) => report.render(),
            Report::Program(report) => report.render(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CheckReport {
    pub schema_version: u32,
    pub exercise: String,
    pub title: String,
    pub file: String,
    pub backend: Backend,
    pub device: String,
    pub verdict: Verdict,
    /// One line saying what happened and what to do next.
    pub summary: String,
    pub compile: Option<CompileFigures>,
    pub cases: Vec<CaseResult>,
    pub gpu: Option<GpuFigures>,
    pub sim: Option<SimFigures>,
    /// The reference solution's simulator figures on the same case, where a target compares
    /// with them.
    pub reference_sim: Option<SimFigures>,
    pub targets: Vec<crate::targets::TargetCheck>,
    /// The bugs the simulator found, the one that decides the verdict first.
    pub diagnostics: Vec<Finding>,
    pub printf: String,
    pub progress: Option<(usize, usize)>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CompileFigures {
    pub from_cache: bool,
    pub milliseconds: f64,
    /// The compiler's message when the file does not compile, shown against the student's lines.
    pub errors: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CaseResult {
    pub name: String,
    pub launch: String,
    pub passed: bool,
    /// This case's own verdict: passed, wrong output, or the bug that stopped it.
    pub verdict: Verdict,
    pub error: Option<String>,
    pub mismatch: Option<Mismatch>,
}

/// Timings on a GPU, all from the same run.
#[derive(Debug, Serialize, Deserialize)]
pub struct GpuFigures {
    pub case: String,
    pub kernel_ms: f64,
    pub bandwidth_gb_s: f64,
    /// For compute-bound exercises (those whose check counts floating-point operations).
    pub gflop_s: Option<f64>,
    pub reference_gflop_s: Option<f64>,
    pub reference_ms: Option<f64>,
    pub reference_bandwidth_gb_s: Option<f64>,
    /// The device's own device-to-device copy bandwidth (read + write), measured once and cached.
    pub copy_bandwidth_gb_s: f64,
    pub cpu_reference_ms: f64,
    pub host_to_device_ms: f64,
    pub device_to_host_ms: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SimFigures {
    pub case: String,
    pub kernel: sim::Figures,
    pub lines: Vec<sim::LineFigures>,
    pub warp_instructions: u64,
    /// The launch's time modelled on a reference GPU from what the simulator counted.
    pub modelled: sim::ModelledTime,
    /// The launch's grid and blocks (and what the model read from the PTX).
    #[serde(default)]
    pub shape: sim::KernelShape,
}

impl SimFigures {
    /// The figures of one launch on case `case`.
    pub fn of(case: &str, report: sim::LaunchReport) -> SimFigures {
        SimFigures {
            case: case.to_string(),
            kernel: report.figures,
            lines: report.lines,
            warp_instructions: report.warp_instructions,
            modelled: report.modelled,
            shape: report.shape,
        }
    }

    /// The modelled time of the kernel's work, without the launch overhead that every kernel
    /// pays alike (on the small cases the simulator runs, the overhead would hide the work).
    pub fn modelled_work_us(&self) -> f64 {
        (self.modelled.microseconds - self.modelled.per_resource.launch_us).max(0.0)
    }
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        matches!(self.verdict, Verdict::Passed)
    }

    /// Adds one launch's (or one backend's) printf output, keeping the first
    /// [`MAX_PRINTF_BYTES`] in whole lines and ending a cut output with [`PRINTF_CUT_NOTE`].
    pub fn add_printf(&mut self, text: &str) {
        let note = format!("{PRINTF_CUT_NOTE}\n");
        if text.is_empty() || self.printf.ends_with(&note) {
            return;
        }
        let room = MAX_PRINTF_BYTES.saturating_sub(self.printf.len());
        if text.len() <= room {
            self.printf.push_str(text);
            return;
        }
        let mut end = room;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let kept = text[..end].rfind('\n').map_or(0, |line_end| line_end + 1);
        self.printf.push_str(&text[..kept]);
        if !self.printf.is_empty() && !self.printf.ends_with('\n') {
            self.printf.push('\n');
        }
        self.printf.push_str(&note);
    }

    /// Whether the printf output was cut, here or at a launch's printf buffer.
    pub fn printf_was_cut(&self) -> bool {
        self.printf
            .lines()
            .any(|l| l.starts_with("printf output cut"))
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "{} {}  ·  {}  ·  {}\n",
            self.exercise.bold(),
            self.title.bold(),
            self.file,
            self.device.dimmed()
        ));
        if let Some(errors) = self.compile.as_ref().and_then(|c| c.errors.as_ref()) {
            out.push_str(&format!("\n{}\n", errors.trim_end()));
        }
        for case in &self.cases {
            render_case(&mut out, case);
        }
        if !self.diagnostics.is_empty() {
            out.push_str(&format!("\n{}\n", "The simulator found:".yellow().bold()));
            for d in &self.diagnostics {
                out.push_str(&format!("  {} (case {})\n", d.text, d.case));
            }
        }
        if !self.printf.is_empty() {
            out.push_str(&format!(
                "\n{}\n{}\n",
                "The kernel printed:".bold(),
                indent(self.printf.trim_end())
            ));
        }
        if let Some(gpu) = &self.gpu {
            render_gpu(&mut out, gpu);
        }
        if let Some(sim) = &self.sim {
            render_sim(&mut out, sim, true);
            render_modelled(&mut out, sim, self.reference_sim.as_ref());
        }
        for t in &self.targets {
            let mark = match (t.met, t.decides) {
                (true, _) => "✓".green(),
                (false, true) => "✗".red(),
                (false, false) => "·".normal(),
            };
            out.push_str(&format!("  {mark} target: {}\n", t.explanation));
        }
        let headline = self.verdict.headline().bold();
        let verdict = match self.verdict {
            Verdict::Passed => headline.green(),
            Verdict::NotDone | Verdict::TargetsMissed => headline.yellow(),
            _ => headline.red(),
        };
        out.push_str(&format!("\n{verdict} {}\n", self.summary));
        if let Some((done, total)) = self.progress {
            out.push_str(&format!("Progress: {done}/{total} exercises done.\n"));
        }
        out
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_case(out: &mut String, case: &CaseResult) {
    let mark = if case.passed {
        "✓".green()
    } else {
        "✗".red()
    };
    out.push_str(&format!(
        "  {mark} {}  {}\n",
        case.name,
        case.launch.dimmed()
    ));
    if let Some(error) = &case.error {
        out.push_str(&format!("{}\n", indent(&format!("  {error}"))));
    } else if !case.passed && case.mismatch.is_none() {
        out.push_str(&format!(
            "      every output is right, but: {} (what the simulator found is below)\n",
            case.verdict.headline()
        ));
    }
    if let Some(m) = &case.mismatch {
        let verb = if m.wrong == 1 { "is" } else { "are" };
        out.push_str(&format!(
            "      {} of {} of `{}` {verb} wrong",
            m.wrong,
            count(m.len as u64, "element"),
            m.buffer
        ));
        if m.never_written > 0 {
            out.push_str(&format!(" ({} never written)", m.never_written));
        }
        out.push('\n');
        for w in &m.first_wrong {
            let at = w.position();
            let inputs = w
                .inputs
                .as_ref()
                .map(|i| format!("  from {i}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "        {}[{at}]: expected {}, got {}{inputs}\n",
                m.buffer, w.expected, w.actual
            ));
            if let Some(origin) = &w.origin {
                let lines = crate::checker::provenance::text::lines(origin);
                for line in lines {
                    out.push_str(&format!("          {line}\n"));
                }
            }
        }
        if let Some(cause) = &m.likely_cause {
            out.push_str(&format!("      {} {cause}\n", "Likely:".yellow()));
        }
    }
}

fn render_gpu(out: &mut String, gpu: &GpuFigures) {
    let share = |gb: f64| 100.0 * gb / gpu.copy_bandwidth_gb_s;
    out.push_str(&format!("\n{} ({})\n", "Figures".bold(), gpu.case));
    out.push_str(&format!(
        "  your kernel     {:>9.3} ms  {:>7.0} GB/s  {:>3.0}% of the copy limit {}\n",
        gpu.kernel_ms,
        gpu.bandwidth_gb_s,
        share(gpu.bandwidth_gb_s),
        bar(share(gpu.bandwidth_gb_s))
    ));
    if let (Some(mine), Some(reference)) = (gpu.gflop_s, gpu.reference_gflop_s) {
        out.push_str(&format!(
            "  compute         {mine:>9.0} GFLOP/s yours, {reference:.0} GFLOP/s the reference\n"
        ));
    }
    if let (Some(ms), Some(gb)) = (gpu.reference_ms, gpu.reference_bandwidth_gb_s) {
        out.push_str(&format!(
            "  reference       {ms:>9.3} ms  {gb:>7.0} GB/s  {:>3.0}% of the copy limit {}\n",
            share(gb),
            bar(share(gb))
        ));
    }
    out.push_str(&format!(
        "  copy limit                    {:>7.0} GB/s  (this GPU's device-to-device copy, read + write)\n",
        gpu.copy_bandwidth_gb_s
    ));
    out.push_str(&format!(
        "  CPU reference   {:>9.3} ms  (one thread)\n",
        gpu.cpu_reference_ms
    ));
    out.push_str(&format!(
        "  transfers       {:>9.3} ms to the GPU, {:.3} ms back (not in the kernel time)\n",
        gpu.host_to_device_ms, gpu.device_to_host_ms
    ));
}

fn bar(percent: f64) -> String {
    let filled = (percent.clamp(0.0, 100.0) / 10.0).round() as usize;
    format!("[{}{}]", "#".repeat(filled), ".".repeat(10 - filled))
}

/// The simulator's figures as text, for `runner sim`, which shows the lines in a table of its own.
pub fn render_sim_text(sim: &SimFigures) -> String {
    let mut out = String::new();
    render_sim(&mut out, sim, false);
    out
}

fn render_sim(out: &mut String, sim: &SimFigures, busiest_lines: bool) {
    let f = &sim.kernel;
    if *f == sim::Figures::default() {
        return;
    }
    out.push_str(&format!(
        "\n{} ({}, in the simulator)\n",
        "Memory figures".bold(),
        sim.case
    ));
    let per = |sectors: u64, requests: u64| {
        if requests == 0 {
            0.0
        } else {
            sectors as f64 / requests as f64
        }
    };
    if f.global_load_requests + f.global_store_requests > 0 {
        out.push_str(&format!(
            "  global loads   {:>9} requests {:>10} sectors  {:>5.1} sectors/request\n",
            f.global_load_requests,
            f.global_load_sectors,
            per(f.global_load_sectors, f.global_load_requests)
        ));
        out.push_str(&format!(
            "  global stores  {:>9} requests {:>10} sectors  {:>5.1} sectors/request\n",
            f.global_store_requests,
            f.global_store_sectors,
            per(f.global_store_sectors, f.global_store_requests)
        ));
    }
    if f.shared_load_requests + f.shared_store_requests > 0 {
        out.push_str(&format!(
            "  shared loads   {:>9} requests {:>10} wavefronts {:>8} bank conflicts\n",
            f.shared_load_requests, f.shared_load_wavefronts, f.shared_load_bank_conflicts
        ));
        out.push_str(&format!(
            "  shared stores  {:>9} requests {:>10} wavefronts {:>8} bank conflicts\n",
            f.shared_store_requests, f.shared_store_wavefronts, f.shared_store_bank_conflicts
        ));
    }
    if f.global_atomic_requests + f.shared_atomic_requests > 0 {
        out.push_str(&format!(
            "  atomics        {:>9} global, {} shared\n",
            f.global_atomic_requests, f.shared_atomic_requests
        ));
    }
    render_instructions(out, sim);
    let mut lines: Vec<&sim::LineFigures> = sim
        .lines
        .iter()
        .filter(|l| line_cost(&l.figures) > 0)
        .collect();
    lines.sort_by_key(|l| std::cmp::Reverse(line_cost(&l.figures)));
    if busiest_lines && lines.len() > 1 {
        out.push_str("  busiest lines:\n");
        for l in lines.iter().take(3) {
            let g = &l.figures;
            out.push_str(&format!(
                "    {}:{}  {} in {}, {}\n",
                l.file,
                l.line,
                count(g.global_load_sectors + g.global_store_sectors, "sector"),
                count(g.global_load_requests + g.global_store_requests, "request"),
                count(
                    g.shared_load_wavefronts + g.shared_store_wavefronts,
                    "shared wavefront"
                )
            ));
        }
    }
}

/// The warp instructions executed and, from the lines', what kind they were, largest first.
fn render_instructions(out: &mut String, sim: &SimFigures) {
    if sim.warp_instructions == 0 {
        return;
    }
    let mut kinds = sim::InstructionCounts::default();
    for line in &sim.lines {
        kinds += &line.instructions;
    }
    let mut shares = [
        (kinds.arithmetic, "arithmetic"),
        (kinds.memory, "memory"),
        (kinds.control, "control"),
        (kinds.warp, "warp-wide"),
        (kinds.synchronisation, "synchronisation"),
    ];
    shares.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    let total = kinds.total().max(1) as f64;
    let shown: Vec<String> = shares
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{:.0}% {kind}", 100.0 * *n as f64 / total))
        .collect();
    out.push_str(&format!(
        "  instructions   {:>9} warp instructions (PTX): {}\n",
        sim.warp_instructions,
        shown.join(", ")
    ));
}

fn render_modelled(out: &mut String, sim: &SimFigures, reference: Option<&SimFigures>) {
    let m = &sim.modelled;
    if m.microseconds <= 0.0 || sim.kernel.is_empty() {
        return;
    }
    out.push_str(&format!("  modelled time  {}\n", m.explain()));
    if let Some(reference) = reference {
        out.push_str(&format!(
            "                 the reference solution: {:.1} µs, bound by {} (without the launch: yours {:.2} µs, the reference {:.2} µs)\n",
            reference.modelled.microseconds,
            reference.modelled.bound_by,
            sim.modelled_work_us(),
            reference.modelled_work_us()
        ));
    }
}

/// `n` things, in the singular for one: "1 element", "2 elements".
pub fn count(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Rough memory cost of a line: each global sector and each shared wavefront is a transaction.
fn line_cost(f: &sim::Figures) -> u64 {
    f.global_load_sectors
        + f.global_store_sectors
        + f.shared_load_wavefronts
        + f.shared_store_wavefronts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> CheckReport {
        serde_json::from_value(serde_json::json!({
            "schema_version": SCHEMA_VERSION, "exercise": "02", "title": "t", "file": "f",
            "backend": "sim", "device": "d", "verdict": "passed", "summary": "s",
            "compile": null, "cases": [], "gpu": null, "sim": null, "reference_sim": null,
            "targets": [], "diagnostics": [], "printf": "", "progress": null
        }))
        .unwrap()
    }

    #[test]
    fn one_report_says_its_kind_and_reads_back_as_the_same_kind() {
        let kernel = serde_json::to_value(Report::Kernel(Box::new(empty()))).unwrap();
        assert_eq!(kernel["kind"], "kernel");
        assert_eq!(kernel["schema_version"], SCHEMA_VERSION);
        assert_eq!(kernel["backend"], "sim");
        let program = serde_json::json!({
            "kind": "program", "schema_version": SCHEMA_VERSION, "exercise": "25", "title": "t",
            "backend": "gpu", "device": "the GPU", "verdict": "wrong_output", "summary": "s",
            "build_errors": null, "warnings": [], "cases": [], "mistakes": [], "targets": [],
            "record": null, "progress": null
        });
        let Report::Program(read) = serde_json::from_value(program).unwrap() else {
            panic!("a program's report read as a kernel's");
        };
        assert_eq!(read.backend, Backend::Gpu);
        assert_eq!(Report::Program(read).verdict(), Verdict::WrongOutput);
        let Report::Kernel(_) = serde_json::from_value(kernel).unwrap() else {
            panic!("a kernel's report read as a program's");
        };
    }

    #[test]
    fn printf_over_all_cases_is_cut_at_a_line_once_past_the_limit_and_says_so() {
        let mut report = empty();
        let launch = "thread 12345 says hello\n".repeat(30_000); // 720 KB, under the limit alone
        report.add_printf(&launch);
        assert!(!report.printf_was_cut());
        report.add_printf(&launch);
        report.add_printf(&launch);
        assert!(report.printf.len() <= MAX_PRINTF_BYTES + PRINTF_CUT_NOTE.len() + 1);
        assert!(report
            .printf
            .ends_with("hello\nprintf output cut at 1 MiB\n"));
        assert_eq!(report.printf.matches(PRINTF_CUT_NOTE).count(), 1);
        assert!(report.printf_was_cut());
    }
}
