//! `report.html`: one self-contained page (inline CSS and script, no other file, nothing
//! fetched) with the class table, sortable by any column, a page per student, a histogram of
//! the scores of each exercise, and the groups of alike kernels with each pair side by side,
//! the lines they share marked. The book travels as JSON inside the page; the script builds the
//! page from it and sets every student-written text (names, messages, kernels) as text, never
//! as markup.

use super::Book;
use runner::compile::cache::write_atomically;
use std::path::{Path, PathBuf};

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// JSON that is safe inside a `<script>` element: no `<` can end it or open a comment.
fn embeddable(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

pub(super) fn render(book: &Book) -> anyhow::Result<String> {
    let data = embeddable(&serde_json::to_string(book)?);
    // In the page itself, not built by the script: a partial report says so even without it.
    let partial = book
        .completeness
        .warning()
        .map_or(String::new(), |warning| {
            format!(
                "<p class=\"warning\" id=\"partial\">{}</p>\n",
                super::junit::escape(&warning)
            )
        });
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Grades</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>Grades</h1>{partial}<p id=\"summary\"></p><nav><a href=\"#\">Class</a></nav></header>\n\
         <noscript><p class=\"warning\">This report builds its tables with a script: allow scripts for this file, or read gradebook.csv and submissions/*.json.</p></noscript>\n\
         <main>\n<section id=\"class-view\">\n<h2>Submissions</h2>\n<p class=\"hint\">Click a column's title to sort by it; click a name for the student's page.</p>\n\
         <table id=\"grades\"><thead></thead><tbody></tbody></table>\n<h2>Scores per exercise</h2>\n<div id=\"histograms\"></div>\n\
         <h2>Similar submissions</h2>\n<div id=\"similarity\"></div>\n<h2>How points are given</h2>\n<p id=\"rule\"></p>\n</section>\n\
         <div id=\"students\"></div>\n</main>\n\
         <script type=\"application/json\" id=\"grade-data\">{data}</script>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    ))
}

pub(super) fn write(out: &Path, book: &Book) -> anyhow::Result<Vec<PathBuf>> {
    let path = out.join("report.html");
    write_atomically(&path, render(book)?.as_bytes())?;
    Ok(vec![path])
}

#[cfg(test)]
mod tests {
    use super::super::Book;
    use crate::config::GradingFile;
    use crate::settings::Settings;
    use crate::similarity::{Group, Kernel, Pair};

    #[test]
    fn a_kernel_in_the_similarity_report_cannot_add_markup_to_the_page() {
        let kernel =
            "__global__ void k() {\n  // </script><img src=x onerror=\"alert(1)\"><!--\n}\n";
        let member = |id: &str| Kernel {
            submission: id.into(),
            text: kernel.into(),
            own_lines: vec![2],
        };
        let book = Book {
            settings: Settings::new(
                &GradingFile::default(),
                None,
                contract::Backend::Sim,
                "simulator",
                &[],
            ),
            completeness: super::super::Completeness {
                complete: true,
                final_cells: 0,
                cells: 0,
            },
            rows: Vec::new(),
            similarity: vec![Group {
                exercise: "02".into(),
                members: vec!["a".into(), "b".into()],
                similarity: 1.0,
                rarity_bits: 90.0,
                pairs: vec![Pair {
                    a: "a".into(),
                    b: "b".into(),
                    similarity: 1.0,
                    rarity_bits: 90.0,
                    shared_a: vec![2],
                    shared_b: vec![2],
                }],
                kernels: vec![member("a"), member("b")],
            }],
        };
        let page = super::render(&book).unwrap();
        assert_eq!(
            page.matches("<script").count(),
            2,
            "the data and the script"
        );
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(!page.contains("<img") && !page.contains("<!--"));
        let data = page.split("id=\"grade-data\">").nth(1).unwrap();
        let data = &data[..data.find("</script>").unwrap()];
        let back: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(back["similarity"][0]["kernels"][0]["text"], kernel);
    }

    #[test]
    fn embedded_json_cannot_close_the_script() {
        let text = super::embeddable(r#"{"m":"</script><script>alert(1)</script>"}"#);
        assert!(!text.contains('<') && !text.contains('>'));
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["m"], "</script><script>alert(1)</script>");
    }
}
