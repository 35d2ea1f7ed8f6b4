//! `junit.xml`: a test suite per submission and a test case per exercise, for CI dashboards
//! and LMS plug-ins that read JUnit. A cell below full points is a failure; a cell the grader
//! could not check is an error; a cell not graded yet is skipped.

use super::super::results::Status;
use super::{points, Book};
use runner::compile::cache::write_atomically;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Text as XML 1.0 character data or attribute value: escaped, and without the control
/// characters XML cannot hold (a kernel's printf may have any).
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

pub(super) fn render(book: &Book) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors, mut time) = (0, 0, 0, 0.0);
    for row in &book.rows {
        let (mut suite_failures, mut suite_errors, mut suite_skipped) = (0, 0, 0);
        let mut cases = String::new();
        for (exercise, cell) in book.settings.exercises.iter().zip(&row.cells) {
            let name = escape(&format!("{} {}", exercise.id, exercise.title));
            let Some(cell) = cell else {
                suite_skipped += 1;
                let _ = writeln!(cases, "    <testcase classname=\"{}\" name=\"{name}\" time=\"0\">\n      <skipped message=\"not graded yet\"/>\n    </testcase>", escape(&row.submission));
                continue;
            };
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"{name}\" time=\"{:.3}\">",
                escape(&row.submission),
                cell.seconds
            );
            let body = format!("{}\n\n{}", cell.message, cell.details)
                .trim_end()
                .to_string();
            if cell.status == Status::Error {
                suite_errors += 1;
                let _ = writeln!(
                    cases,
                    "      <error message=\"{}\" type=\"error\">{}</error>",
                    escape(&cell.message),
                    escape(&body)
                );
            } else if cell.points < exercise.points as f64 {
                suite_failures += 1;
                let _ = writeln!(
                    cases,
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    escape(&cell.message),
                    cell.status.name(),
                    escape(&body)
                );
            }
            let _ = writeln!(
                cases,
                "      <system-out>{}: {} of {} points. {}</system-out>\n    </testcase>",
                cell.status.name(),
                points(cell.points),
                exercise.points,
                escape(&cell.message)
            );
        }
        tests += row.cells.len();
        failures += suite_failures;
        errors += suite_errors;
        time += row.seconds;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"{suite_errors}\" skipped=\"{suite_skipped}\" time=\"{:.3}\">\n    <properties>\n      <property name=\"complete\" value=\"{}\"/>\n      <property name=\"name\" value=\"{}\"/>\n      <property name=\"points\" value=\"{}\"/>\n      <property name=\"max_points\" value=\"{}\"/>\n    </properties>\n{cases}  </testsuite>",
            escape(&row.submission),
            row.cells.len(),
            row.seconds,
            row.is_complete(),
            escape(&row.name),
            points(row.total),
            row.max
        );
    }
    let name = match book.completeness.warning() {
        Some(warning) => escape(&format!("runner grade: {warning}")),
        None => "runner grade".to_string(),
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">\n{suites}</testsuites>\n"
    )
}

pub(super) fn write(out: &Path, book: &Book) -> anyhow::Result<Vec<PathBuf>> {
    let path = out.join("junit.xml");
    write_atomically(&path, render(book).as_bytes())?;
    Ok(vec![path])
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_and_control_characters_cannot_break_the_xml() {
        assert_eq!(
            super::escape("a<b & \"c\"\u{1b}[31m"),
            "a&lt;b &amp; &quot;c&quot;\u{FFFD}[31m"
        );
    }
}
