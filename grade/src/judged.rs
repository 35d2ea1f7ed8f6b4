//! What a cell's check said, as a grade (`Judged`), and the helpers both kinds of report are
//! judged with: `cell` judges a kernel's report and the exits, `program` a whole program's.

use super::results::{CaseLine, Status};

/// Longest `details` kept per cell.
const MAX_DETAILS: usize = 6000;

/// What a cell's process said, as a grade: status, one line, details, cases.
#[derive(Debug, PartialEq)]
pub(crate) struct Judged {
    pub status: Status,
    pub message: String,
    pub details: String,
    pub cases: Vec<CaseLine>,
}

/// `text` cut to what a grade book shows.
pub(super) fn cap(mut text: String) -> String {
    if text.len() > MAX_DETAILS {
        let mut end = MAX_DETAILS;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n[... cut]");
    }
    text
}

/// A report's cases as the grade book lists them: name, and whether it passed.
pub(super) fn case_lines<'a>(cases: impl Iterator<Item = (&'a str, bool)>) -> Vec<CaseLine> {
    cases
        .map(|(name, passed)| CaseLine {
            name: name.to_string(),
            passed,
        })
        .collect()
}
