//! Gradescope's autograder format: `gradescope/<id>/results.json` per submission, with the
//! fields Gradescope documents (`score`, `execution_time`, `output`, `visibility`, `extra_data`
//! with the submission's id and name as handed in, and `tests`
//! with `name`, `number`, `score`, `max_score`, `status`, `output`, `visibility`).

use super::{points, round2, Book, Completeness, Row};
use runner::compile::cache::write_atomically;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub(crate) fn results(book: &Book, row: &Row) -> Value {
    let tests: Vec<Value> = book
        .settings
        .exercises
        .iter()
        .zip(&row.cells)
        .map(|(exercise, cell)| {
            let (score, status, output) = match cell {
                Some(cell) => {
                    let mut output = format!("{}: {}", cell.status.name(), cell.message);
                    if !cell.details.is_empty() {
                        output.push_str(&format!("\n\n{}", cell.details));
                    }
                    let status = if cell.points >= exercise.points as f64 {
                        "passed"
                    } else {
                        "failed"
                    };
                    (round2(cell.points), status, output)
                }
                None => (
                    0.0,
                    "failed",
                    "Not graded: the grading run was stopped before this exercise.".to_string(),
                ),
            };
            json!({
                "name": format!("{} {}", exercise.id, exercise.title),
                "number": exercise.id,
                "score": score,
                "max_score": exercise.points,
                "status": status,
                "output": output,
                "visibility": "visible",
            })
        })
        .collect();
    let mut output = format!(
        "{} of {} points, checked {}. {}",
        points(row.total),
        row.max,
        book.settings.backend.where_it_ran(&book.settings.device),
        book.settings.scoring_rule
    );
    if !row.is_complete() {
        let warning = Completeness {
            complete: false,
            final_cells: row.final_cells(),
            cells: row.cells.len(),
        }
        .warning()
        .unwrap_or_default();
        output = format!("{warning}\n\n{output}");
    }
    json!({
        "score": round2(row.total),
        "execution_time": row.seconds.ceil() as u64,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "submission": row.submission,
            "name": row.name,
            "complete": row.is_complete(),
        },
        "tests": tests,
    })
}

pub(crate) fn write(out: &Path, book: &Book) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for row in &book.rows {
        let path = out
            .join("gradescope")
            .join(&row.submission)
            .join("results.json");
        write_atomically(
            &path,
            serde_json::to_string_pretty(&results(book, row))?.as_bytes(),
        )?;
        written.push(path);
    }
    Ok(written)
}
