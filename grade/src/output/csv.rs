//! `gradebook.csv` (points per exercise, total, max, and whether the row is complete) and
//! `statuses.csv` (what happened in each cell), one row per submission, for a spreadsheet or an
//! LMS import. A row whose cells are not all graded says `partial` in its `complete` column.

use super::{points, Book};
use runner::compile::cache::write_atomically;
use std::path::{Path, PathBuf};

/// A spreadsheet runs a cell that starts with one of these as a formula; ids may start so.
fn inert(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

fn table(
    book: &Book,
    cell: impl Fn(&super::Row, usize) -> String,
    totals: bool,
) -> anyhow::Result<Vec<u8>> {
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    let mut header = vec!["submission".to_string(), "name".to_string()];
    header.extend(book.settings.exercises.iter().map(|e| e.id.clone()));
    if totals {
        header.extend([
            "total".to_string(),
            "max".to_string(),
            "complete".to_string(),
        ]);
    }
    writer.write_record(&header)?;
    for row in &book.rows {
        let mut record = vec![inert(&row.submission), inert(&row.name)];
        record.extend((0..row.cells.len()).map(|i| cell(row, i)));
        if totals {
            let complete = if row.is_complete() { "yes" } else { "partial" };
            record.extend([points(row.total), row.max.to_string(), complete.to_string()]);
        }
        writer.write_record(&record)?;
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

pub(super) fn write(out: &Path, book: &Book) -> anyhow::Result<Vec<PathBuf>> {
    let grades = table(
        book,
        |row, i| {
            row.cells[i]
                .as_ref()
                .map(|c| points(c.points))
                .unwrap_or_default()
        },
        true,
    )?;
    let statuses = table(
        book,
        |row, i| {
            row.cells[i]
                .as_ref()
                .map(|c| c.status.name().to_string())
                .unwrap_or_default()
        },
        false,
    )?;
    let (grades_path, statuses_path) = (out.join("gradebook.csv"), out.join("statuses.csv"));
    write_atomically(&grades_path, &grades)?;
    write_atomically(&statuses_path, &statuses)?;
    Ok(vec![grades_path, statuses_path])
}
