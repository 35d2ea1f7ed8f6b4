//! What `runner sim` shows: each launch's figures, a total over a chain, the source lines by
//! cost with their text, the files written; or all of it as one JSON object.

use super::execute::{Finished, Ran};
use crate::report::SimFigures;
use serde::Serialize;
use std::collections::HashMap;

/// What orders the per-line table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    /// Global sectors plus shared wavefronts: the memory work a line costs.
    #[default]
    Cost,
    /// Global load and store sectors.
    Sectors,
    /// Global load and store requests (warp instructions).
    Requests,
    /// Shared-memory wavefronts.
    Wavefronts,
    /// Shared-memory bank conflicts.
    Conflicts,
    /// Warp instructions executed, of every kind.
    Instructions,
    /// Source order, every line that executed.
    Line,
}

impl SortKey {
    fn of(self, l: &sim::LineFigures) -> u64 {
        let f = &l.figures;
        match self {
            SortKey::Cost => sectors(f) + wavefronts(f),
            SortKey::Sectors => sectors(f),
            SortKey::Requests => f.global_load_requests + f.global_store_requests,
            SortKey::Wavefronts => wavefronts(f),
            SortKey::Conflicts => f.shared_bank_conflicts(),
            SortKey::Instructions => l.instructions.total(),
            SortKey::Line => 0,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            SortKey::Cost => "global sectors + shared wavefronts",
            SortKey::Sectors => "global sectors",
            SortKey::Requests => "global requests",
            SortKey::Wavefronts => "shared wavefronts",
            SortKey::Conflicts => "bank conflicts",
            SortKey::Instructions => "warp instructions",
            SortKey::Line => "position in the source",
        }
    }
}

fn sectors(f: &sim::Figures) -> u64 {
    f.global_load_sectors + f.global_store_sectors
}

fn wavefronts(f: &sim::Figures) -> u64 {
    f.shared_load_wavefronts + f.shared_store_wavefronts
}

pub(super) struct View {
    pub sort: SortKey,
    /// Rows of the per-line table; 0 for all.
    pub lines: usize,
}

fn dims_text(d: [u32; 3]) -> String {
    let shown = match d {
        [x, 1, 1] => vec![x],
        [x, y, 1] => vec![x, y],
        [x, y, z] => vec![x, y, z],
    };
    shown
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn case(l: &Ran) -> String {
    format!(
        "{} <<<{}, {}>>>",
        l.kernel,
        dims_text(l.grid),
        dims_text(l.block)
    )
}

/// Every launch's lines added up by (file, line), in source order.
fn merged_lines(done: &Finished) -> Vec<sim::LineFigures> {
    let mut merged: Vec<sim::LineFigures> = Vec::new();
    for line in done.launches.iter().flat_map(|l| &l.report.lines) {
        match merged
            .iter_mut()
            .find(|m| m.file == line.file && m.line == line.line)
        {
            Some(m) => {
                m.figures += &line.figures;
                m.instructions += &line.instructions;
            }
            None => merged.push(line.clone()),
        }
    }
    merged.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    merged
}

/// The text of source lines, each file read once; `None` where it cannot be read.
#[derive(Default)]
struct Sources(HashMap<String, Option<Vec<String>>>);

impl Sources {
    fn line(&mut self, file: &str, line: u32) -> Option<String> {
        let lines = self.0.entry(file.to_string()).or_insert_with(|| {
            let text = runner::kernel_file::read(std::path::Path::new(file)).ok()?;
            Some(text.lines().map(|l| l.trim().to_string()).collect())
        });
        lines.as_ref()?.get(line.checked_sub(1)? as usize).cloned()
    }
}

pub(super) fn text(done: &Finished, view: &View) -> String {
    let mut out = String::new();
    for (i, l) in done.launches.iter().enumerate() {
        let figures = SimFigures {
            case: match done.planned {
                1 => case(l),
                n => format!("launch {} of {n}: {}", i + 1, case(l)),
            },
            kernel: l.report.figures.clone(),
            lines: l.report.lines.clone(),
            warp_instructions: l.report.warp_instructions,
            modelled: l.modelled.clone(),
            shape: l.report.shape.clone(),
        };
        out.push_str(&crate::report::render_sim_text(&figures));
        out.push_str(&format!("  modelled time: {}\n", l.modelled.explain()));
        for d in &l.report.diagnostics {
            out.push_str(&format!("  {}\n", crate::backend::sim::describe(d)));
        }
        out.push_str(&l.report.printf);
    }
    if done.launches.len() < done.planned {
        out.push_str(&format!(
            "\nThe plan stopped after launch {} of {}, which was stopped; the later launches did not run.\n",
            done.launches.len(),
            done.planned
        ));
    }
    if done.planned > 1 {
        total(&mut out, done);
    }
    line_table(&mut out, &merged_lines(done), view);
    for w in &done.written {
        out.push_str(&format!(
            "  wrote {} ({}[{}])\n",
            w.path.display(),
            w.ty,
            w.len
        ));
    }
    out
}

fn total(out: &mut String, done: &Finished) {
    let mut figures = sim::Figures::default();
    for l in &done.launches {
        figures += &l.report.figures;
    }
    let total = SimFigures {
        case: format!("total of {} launches", done.launches.len()),
        kernel: figures,
        lines: merged_lines(done),
        warp_instructions: done
            .launches
            .iter()
            .map(|l| l.report.warp_instructions)
            .sum(),
        // The modelled times are added up below; render_sim_text does not show this one.
        modelled: sim::ModelledTime::default(),
        shape: sim::KernelShape::default(),
    };
    out.push_str(&crate::report::render_sim_text(&total));
    let us: f64 = done.launches.iter().map(|l| l.modelled.microseconds).sum();
    out.push_str(&format!("  modelled time: {us:.2} µs in all\n"));
}

/// The widest source text shown; longer lines are cut with `…`.
const SOURCE_WIDTH: usize = 72;

fn line_table(out: &mut String, lines: &[sim::LineFigures], view: &View) {
    if lines.is_empty() {
        return;
    }
    // Lines that cost nothing by the chosen measure say nothing about it.
    let mut sorted: Vec<&sim::LineFigures> = lines
        .iter()
        .filter(|l| view.sort == SortKey::Line || view.sort.of(l) > 0)
        .collect();
    if sorted.is_empty() {
        return;
    }
    sorted.sort_by_key(|l| std::cmp::Reverse(view.sort.of(l)));
    let shown = if view.lines == 0 {
        sorted.len()
    } else {
        view.lines.min(sorted.len())
    };
    out.push_str(&format!(
        "\nSource lines by {} ({shown} of {}; --sort, --lines):\n",
        view.sort.describe(),
        sorted.len()
    ));
    let width = sorted[..shown]
        .iter()
        .map(|l| l.file.len() + 1 + l.line.to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!(
        "  {:<width$}  {:>9} {:>8} {:>8}  {:>10} {:>9} {:>12}  source\n",
        "line", "sectors", "requests", "sect/req", "wavefronts", "conflicts", "instructions"
    ));
    let mut sources = Sources::default();
    for l in &sorted[..shown] {
        let f = &l.figures;
        let requests = f.global_load_requests + f.global_store_requests;
        let per = if requests == 0 {
            0.0
        } else {
            sectors(f) as f64 / requests as f64
        };
        let mut source = sources.line(&l.file, l.line).unwrap_or_default();
        if source.chars().count() > SOURCE_WIDTH {
            source = source.chars().take(SOURCE_WIDTH - 1).collect::<String>() + "…";
        }
        out.push_str(&format!(
            "  {:<width$}  {:>9} {:>8} {:>8.1}  {:>10} {:>9} {:>12}  {source}\n",
            format!("{}:{}", l.file, l.line),
            sectors(f),
            requests,
            per,
            wavefronts(f),
            f.shared_bank_conflicts(),
            l.instructions.total(),
        ));
    }
}

#[derive(Serialize)]
struct LaunchJson<'a> {
    kernel: &'a str,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    figures: &'a sim::Figures,
    warp_instructions: u64,
    /// The same instructions by kind (memory, arithmetic, control, warp-wide, synchronisation).
    instructions: &'a sim::InstructionCounts,
    lines: Vec<LineJson<'a>>,
    diagnostics: &'a [sim::Diagnostic],
    printf: &'a str,
    modelled: &'a sim::ModelledTime,
    /// The kernel was stopped (a fatal diagnostic, or the time limit).
    aborted: bool,
}

#[derive(Serialize)]
struct LineJson<'a> {
    #[serde(flatten)]
    figures: &'a sim::LineFigures,
    /// The source line's text, when its file can be read.
    text: Option<String>,
}

#[derive(Serialize)]
struct WrittenJson<'a> {
    name: &'a str,
    path: String,
    r#type: String,
    len: u64,
}

#[derive(Serialize)]
struct TotalJson {
    figures: sim::Figures,
    warp_instructions: u64,
    instructions: sim::InstructionCounts,
    modelled_microseconds: f64,
}

fn lines_json<'a>(lines: &'a [sim::LineFigures], sources: &mut Sources) -> Vec<LineJson<'a>> {
    lines
        .iter()
        .map(|l| LineJson {
            figures: l,
            text: sources.line(&l.file, l.line),
        })
        .collect()
}

fn launch_json<'a>(l: &'a Ran, sources: &mut Sources) -> LaunchJson<'a> {
    LaunchJson {
        kernel: &l.kernel,
        grid: l.grid,
        block: l.block,
        shared_bytes: l.shared_bytes,
        figures: &l.report.figures,
        warp_instructions: l.report.warp_instructions,
        instructions: &l.report.instructions,
        lines: lines_json(&l.report.lines, sources),
        diagnostics: &l.report.diagnostics,
        printf: &l.report.printf,
        modelled: &l.modelled,
        aborted: l.report.aborted,
    }
}

/// One launch from the command line: its object as `runner sim --json` always printed it, with
/// the files written beside; a plan: every launch, the total, the merged lines and the files.
pub(super) fn json(done: &Finished, plan_file: bool) -> serde_json::Result<String> {
    let mut sources = Sources::default();
    let written: Vec<WrittenJson> = done
        .written
        .iter()
        .map(|w| WrittenJson {
            name: &w.name,
            path: w.path.display().to_string(),
            r#type: w.ty.to_string(),
            len: w.len,
        })
        .collect();
    if !plan_file {
        let mut value = serde_json::to_value(launch_json(&done.launches[0], &mut sources))?;
        value["outputs"] = serde_json::to_value(written)?;
        return serde_json::to_string_pretty(&value);
    }
    let mut figures = sim::Figures::default();
    let mut instructions = sim::InstructionCounts::default();
    for l in &done.launches {
        figures += &l.report.figures;
        instructions += &l.report.instructions;
    }
    let merged = merged_lines(done);
    let value = serde_json::json!({
        "launches": done.launches.iter().map(|l| launch_json(l, &mut sources)).collect::<Vec<_>>(),
        "planned_launches": done.planned,
        "total": TotalJson {
            figures,
            warp_instructions: done.launches.iter().map(|l| l.report.warp_instructions).sum(),
            instructions,
            modelled_microseconds: done.launches.iter().map(|l| l.modelled.microseconds).sum(),
        },
        "lines": lines_json(&merged, &mut sources),
        "outputs": written,
        "aborted": done.aborted(),
    });
    serde_json::to_string_pretty(&value)
}
