//! The grade book, built from the cells on disk, and the formats graders read it in: a CSV
//! grade book, one JSON per submission, JUnit XML, Gradescope `results.json` and an HTML report.
//! Until every cell of the class has its grade, every format says the results are partial
//! (`Book::completeness`), so a grade book written after Ctrl-C is never taken for the final one.

#[path = "output/csv.rs"]
mod csv;
#[path = "output/gradescope.rs"]
pub(crate) mod gradescope;
#[path = "output/html.rs"]
mod html;
#[path = "output/json.rs"]
mod json;
#[path = "output/junit.rs"]
mod junit;

use super::results::{CellResult, Store};
use super::settings::Settings;
use super::similarity::Group;
use anyhow::Context;
use clap::ValueEnum;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `gradebook.csv` (points) and `statuses.csv`: submission x exercise, and the total.
    Csv,
    /// `submissions/<id>.json`: every cell of one submission with its message and details.
    Json,
    /// `junit.xml`: a test suite per submission, a test case per exercise.
    Junit,
    /// `gradescope/<id>/results.json`, in Gradescope's autograder format.
    Gradescope,
    /// `report.html`: one self-contained page, sortable, with a page per student and histograms.
    Html,
}

#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub submission: String,
    /// The folder or archive name as handed in ("Zoë Smith (2)"), shown beside the id.
    pub name: String,
    /// In the order of `settings.exercises`; None for a cell not graded (yet).
    pub cells: Vec<Option<CellResult>>,
    pub total: f64,
    pub max: u32,
    pub seconds: f64,
}

impl Row {
    pub(crate) fn graded(&self) -> usize {
        self.cells.iter().flatten().count()
    }

    /// Cells with their final grade: graded, and not a grader error that `--resume` retries.
    pub(crate) fn final_cells(&self) -> usize {
        self.cells
            .iter()
            .flatten()
            .filter(|c| c.status.is_final())
            .count()
    }

    /// Whether every cell of the row has its final grade.
    pub(crate) fn is_complete(&self) -> bool {
        self.final_cells() == self.cells.len()
    }
}

/// How much of the class has its final grade.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Completeness {
    pub complete: bool,
    /// Cells with their final grade, of `cells`.
    pub final_cells: usize,
    pub cells: usize,
}

impl Completeness {
    /// One sentence for the top of a partial output; None for a complete class.
    pub(crate) fn warning(&self) -> Option<String> {
        (!self.complete).then(|| {
            format!(
                "PARTIAL RESULTS: {} of {} cells have their final grade; the totals are not final. \
                 Run the same `runner grade` command with --resume to grade the rest.",
                self.final_cells, self.cells
            )
        })
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct Book {
    pub settings: Settings,
    /// Whether every cell has its final grade; the formats say so where it has not.
    pub completeness: Completeness,
    pub rows: Vec<Row>,
    pub similarity: Vec<Group>,
}

impl Book {
    /// The rows of `submissions` (all in the store when None), from the cells on disk.
    pub(crate) fn from_store(
        settings: Settings,
        store: &Store,
        submissions: Option<&[String]>,
        similarity: Vec<Group>,
    ) -> Book {
        let mut cells: HashMap<(String, String), CellResult> = store
            .all()
            .into_iter()
            .map(|c| ((c.submission.clone(), c.exercise.clone()), c))
            .collect();
        let mut ids: Vec<String> = match submissions {
            Some(ids) => ids.to_vec(),
            None => cells
                .keys()
                .map(|(submission, _)| submission.clone())
                .collect(),
        };
        ids.sort();
        ids.dedup();
        let rows = ids
            .into_iter()
            .map(|id| {
                let row_cells: Vec<Option<CellResult>> = settings
                    .exercises
                    .iter()
                    .map(|e| cells.remove(&(id.clone(), e.id.clone())))
                    .collect();
                let total = row_cells.iter().flatten().map(|c| c.points).sum::<f64>();
                let seconds = row_cells.iter().flatten().map(|c| c.seconds).sum::<f64>();
                let name = row_cells
                    .iter()
                    .flatten()
                    .map(|c| c.name.clone())
                    .find(|n| !n.is_empty())
                    .unwrap_or_else(|| id.clone());
                Row {
                    submission: id,
                    name,
                    cells: row_cells,
                    total: round2(total),
                    max: settings.max_total(),
                    seconds,
                }
            })
            .collect::<Vec<Row>>();
        let completeness = Completeness {
            complete: rows.iter().all(Row::is_complete),
            final_cells: rows.iter().map(Row::final_cells).sum(),
            cells: rows.iter().map(|r| r.cells.len()).sum(),
        };
        Book {
            settings,
            completeness,
            rows,
            similarity,
        }
    }

    pub(crate) fn missing_cells(&self) -> usize {
        self.rows.iter().map(|r| r.cells.len() - r.graded()).sum()
    }
}

/// Rounded to hundredths; never -0 (the sum of no cells is -0.0, which would show as "-0").
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

/// Points without a needless `.0`: 10, 7.5.
pub(crate) fn points(x: f64) -> String {
    let x = round2(x);
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// Writes every asked-for format into `out`; returns the files written.
pub(crate) fn write(out: &Path, book: &Book, formats: &[Format]) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for format in formats {
        let files = match format {
            Format::Csv => csv::write(out, book),
            Format::Json => json::write(out, book),
            Format::Junit => junit::write(out, book),
            Format::Gradescope => gradescope::write(out, book),
            Format::Html => html::write(out, book),
        }
        .with_context(|| format!("cannot write the {format:?} output in {}", out.display()))?;
        written.extend(files);
    }
    Ok(written)
}
