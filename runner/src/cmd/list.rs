//! `runner list`: the exercises and the student's progress.

use crate::course::{Course, Exercise, Track};
use crate::output;
use crate::progress::{Progress, QuizScore};
use crate::quiz::Book;
use crate::session::find_course;
use colored::Colorize;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

/// The title column's widest, in characters: the column is as wide as the longest title up to
/// this, and a longer title is cut short so the paths still line up.
const MAX_TITLE_WIDTH: usize = 64;

#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    name: &'a str,
    title: &'a str,
    points: u32,
    file: String,
    done: bool,
}

/// Runs `runner list`: the exercises track by track with the student's progress (or as JSON).
pub fn run(json: bool) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(list(json))
}

fn list(json: bool) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let (progress, warning) = Progress::load(&course.root)?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let rows: Vec<Row> = in_track_order(&course)
        .into_iter()
        .map(|e| Row {
            id: &e.id,
            name: &e.name,
            title: &e.title,
            points: e.points,
            file: format!("exercises/{}", e.file),
            done: progress.is_done(&e.id),
        })
        .collect();
    let done = rows.iter().filter(|r| r.done).count();
    if json {
        let out = serde_json::json!({
            "exercises": rows,
            "done": done,
            "total": rows.len(),
            "quizzes": progress.quizzes,
        });
        output::print(&format!("{}\n", serde_json::to_string_pretty(&out)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = rows
        .iter()
        .map(|r| r.title.chars().count())
        .max()
        .unwrap_or(0)
        .min(MAX_TITLE_WIDTH);
    // Ids differ in width (`07`, `py01`): padded, so the columns after them line up.
    let id_width = rows.iter().map(|r| r.id.chars().count()).max().unwrap_or(0);
    let mut text = String::new();
    for row in &rows {
        let state = if row.done {
            "done   ".green()
        } else {
            "pending".yellow()
        };
        writeln!(
            text,
            "{}  {state}  {:<width$} {}",
            format!("{:<id_width$}", row.id).bold(),
            fit(row.title, width),
            row.file.dimmed()
        )?;
    }
    writeln!(text, "\nProgress: {done}/{} exercises done.", rows.len())?;
    if let Some(line) = quizzes_line(&progress.quizzes, Book::of_course(&course.root).exists()) {
        writeln!(text, "{line}")?;
    }
    if let Some(next) = next_exercise(&course, &progress) {
        writeln!(text, "Next: runner check {}", next.id)?;
    }
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The exercises track by track, in the book's order of the tracks (kernels, Rust, Python, C++),
/// each track in the metadata's order: a track's exercises stay together wherever the metadata
/// puts them.
fn in_track_order(course: &Course) -> Vec<&Exercise> {
    let mut exercises: Vec<&Exercise> = course.exercises.iter().collect();
    // A stable sort, so each track keeps the metadata's order.
    exercises.sort_by_key(|e| place_in_book(e.track()));
    exercises
}

/// Where a track comes in the book: the kernels' chapters, the Rust programs from chapter 3 on,
/// then the Python part and the C++ part.
fn place_in_book(track: Track) -> u8 {
    match track {
        Track::Kernels => 0,
        Track::RustHost => 1,
        Track::Python => 2,
        Track::Cpp => 3,
    }
}

/// What to do next: the exercise after the one passed last, in its track (after py03, py04), as a
/// pass of it said; before any pass, the first exercise not done.
fn next_exercise<'c>(course: &'c Course, progress: &Progress) -> Option<&'c Exercise> {
    let last = progress
        .done
        .iter()
        .max_by_key(|(_, record)| record.at)
        .and_then(|(id, _)| course.exercises.iter().find(|e| &e.id == id));
    match last {
        Some(last) => course.next_after(last, |id| progress.is_done(id)),
        None => course.exercises.iter().find(|e| !progress.is_done(&e.id)),
    }
}

/// The chapters' quizzes taken, with their last scores; where none is taken yet and the course
/// has its book, where to start.
fn quizzes_line(scores: &BTreeMap<String, QuizScore>, has_book: bool) -> Option<String> {
    if scores.is_empty() {
        return has_book.then(|| {
            "Quizzes: none taken yet; `runner quiz` lists the chapters' Check yourself questions."
                .to_string()
        });
    }
    let taken: Vec<String> = scores
        .iter()
        .map(|(chapter, s)| format!("{chapter} {}/{}", s.right, s.questions))
        .collect();
    Some(format!(
        "Quizzes: {} (`runner quiz` lists them all).",
        taken.join(", ")
    ))
}

/// `title` in at most `width` characters, on one line: cut short with an ellipsis, and control
/// characters (a newline or an escape sequence in the metadata) shown as spaces, never sent to
/// the terminal.
fn fit(title: &str, width: usize) -> String {
    let clean: Vec<char> = title
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.len() <= width || width == 0 {
        return clean.into_iter().collect();
    }
    let mut cut: String = clean[..width - 1]
        .iter()
        .collect::<String>()
        .trim_end()
        .to_string();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::DoneRecord;

    #[test]
    fn quizzes_taken_are_listed_with_their_scores() {
        assert_eq!(quizzes_line(&BTreeMap::new(), false), None);
        assert!(quizzes_line(&BTreeMap::new(), true)
            .unwrap()
            .contains("none taken yet"));
        let mut scores = BTreeMap::new();
        for (chapter, right) in [("warps", 5), ("coalescing", 3)] {
            let score = QuizScore {
                right,
                questions: 5,
                best: right,
                at: 0,
            };
            scores.insert(chapter.to_string(), score);
        }
        assert_eq!(
            quizzes_line(&scores, true).unwrap(),
            "Quizzes: coalescing 3/5, warps 5/5 (`runner quiz` lists them all)."
        );
    }

    #[test]
    fn next_follows_the_track_of_the_exercise_passed_last() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let course = Course::load(&repo).unwrap();
        let mut progress = Progress::default();
        assert_eq!(next_exercise(&course, &progress).unwrap().id, "01");
        for (id, at) in [("01", 1), ("py01", 2), ("py02", 3), ("py03", 4)] {
            let record = DoneRecord {
                at,
                backend: "sim".into(),
            };
            progress.done.insert(id.into(), record);
        }
        assert_eq!(next_exercise(&course, &progress).unwrap().id, "py04");
        progress.done.get_mut("01").unwrap().at = 5;
        assert_eq!(next_exercise(&course, &progress).unwrap().id, "02");
    }

    #[test]
    fn the_list_keeps_each_track_together_in_the_books_order() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let course = Course::load(&repo).unwrap();
        let listed = in_track_order(&course);
        assert_eq!(listed.len(), course.exercises.len());
        let places: Vec<u8> = listed.iter().map(|e| place_in_book(e.track())).collect();
        assert!(places.windows(2).all(|w| w[0] <= w[1]), "{places:?}");
        let ids: Vec<&str> = listed.iter().map(|e| e.id.as_str()).collect();
        let at = |id: &str| ids.iter().position(|listed| *listed == id).unwrap();
        // The metadata may put a C++ exercise between two Python ones (cpp01 came after py10);
        // the list keeps the Python track whole.
        assert_eq!(at("py11"), at("py10") + 1, "{ids:?}");
        assert_eq!(at("01"), 0);
        assert_eq!(listed.last().unwrap().track(), Track::Cpp, "{ids:?}");
    }

    #[test]
    fn next_after_a_cpp_exercise_is_the_next_cpp_exercise() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let course = Course::load(&repo).unwrap();
        let mut progress = Progress::default();
        let record = DoneRecord {
            at: 1,
            backend: "sim".into(),
        };
        progress.done.insert("cpp01".into(), record);
        assert_eq!(next_exercise(&course, &progress).unwrap().id, "cpp02");
    }

    #[test]
    fn titles_fit_their_column() {
        assert_eq!(fit("Vector add", 12), "Vector add");
        assert_eq!(fit("A title far too long", 10), "A title f…");
        assert_eq!(fit("Red \u{1b}[31m", 20), "Red  [31m");
        assert_eq!(fit(&"é".repeat(60), 52).chars().count(), 52);
    }
}
