//! `submissions/<id>.json`: one file per submission with every cell, its points, message and
//! details, and the rule the points follow; `class.json` has the whole book in one file.

use super::{round2, Book};
use runner::compile::cache::write_atomically;
use serde_json::json;
use std::path::{Path, PathBuf};

pub(super) fn write(out: &Path, book: &Book) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for row in &book.rows {
        let value = json!({
            "submission": row.submission,
            "name": row.name,
            "total": round2(row.total),
            "max": row.max,
            "complete": row.is_complete(),
            "class_complete": book.completeness.complete,
            "scoring_rule": book.settings.scoring_rule,
            "backend": book.settings.backend,
            "exercises": row.cells,
        });
        let path = out
            .join("submissions")
            .join(format!("{}.json", row.submission));
        write_atomically(&path, serde_json::to_string_pretty(&value)?.as_bytes())?;
        written.push(path);
    }
    let path = out.join("class.json");
    write_atomically(&path, serde_json::to_string_pretty(book)?.as_bytes())?;
    written.push(path);
    Ok(written)
}
