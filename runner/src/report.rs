//! A check's report as text for a student. The report itself, what `--json` prints and the
//! grader reads, is the contract's ([`contract::Report`]); this module renders it.

use colored::Colorize;

pub use contract::report::kernel::CaseResult;
pub use contract::{
    Backend, CheckReport, CompileFigures, DiagnosticKind, Finding, GpuFigures, Place, Report,
    SimFigures, Target, Verdict, MAX_PRINTF_BYTES, PRINTF_CUT_NOTE, SCHEMA_VERSION,
};

/// A report as a student reads it, rendered from its fields once, at the end.
pub trait Render {
    /// The report as text.
    fn render(&self) -> String;
}

impl Render for Report {
    fn render(&self) -> String {
        match self {
            Report::Kernel(report) => report.render(),
            Report::Program(report) => report.render(),
        }
    }
}

impl Render for CheckReport {
    fn render(&self) -> String {
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
