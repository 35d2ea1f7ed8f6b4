//! The book's "Check yourself" sections, read as quizzes for `runner quiz`.
//!
//! A chapter of `book/src/` ends with `## Check yourself`: a numbered list of questions, then the
//! answers, numbered the same, folded in `<details>` under `<summary>Answers</summary>`. The
//! quiz is read from the course's own book when it runs, not embedded in the binary: the book sits
//! beside `exercises/` in every checkout, a chapter's questions change with the chapter, and a
//! runner built once keeps asking what the book on disk says (embedding would rebuild the runner
//! at every edit of a page, and would ask yesterday's questions of a course updated since).
//!
//! Parsing is strict, so a section written in another shape is an error that names its line, not
//! a quiz that silently lost a question: every question needs its answer, in the same order.

use anyhow::Context;
use std::path::{Path, PathBuf};

const HEADING: &str = "## Check yourself";

/// One question and the book's answer, as plain text (paragraphs joined, Markdown escapes gone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub ask: String,
    pub answer: String,
}

/// A chapter's quiz.
#[derive(Clone, Debug)]
pub struct Quiz {
    /// The page's name without `.md`, as the student types it: `coalescing`.
    pub chapter: String,
    /// The page's `# ` heading.
    pub title: String,
    pub questions: Vec<Question>,
}

/// What is wrong with a Check yourself section, and on which line of the page (from 1).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct ParseError {
    pub line: usize,
    pub problem: String,
}

fn error(line: usize, problem: impl Into<String>) -> ParseError {
    ParseError {
        line,
        problem: problem.into(),
    }
}

/// The questions of a page's Check yourself section; `None` when the page has none.
pub fn parse(page: &str) -> Result<Option<Vec<Question>>, ParseError> {
    let lines: Vec<&str> = page.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == HEADING) else {
        return Ok(None);
    };
    let end = (start + 1..lines.len())
        .find(|&n| lines[n].starts_with("# ") || lines[n].starts_with("## "))
        .unwrap_or(lines.len());
    let section = start + 1..end;
    let open = section
        .clone()
        .find(|&n| lines[n].trim() == "<details>")
        .ok_or_else(|| {
            error(
                start + 1,
                "Check yourself has no <details> with the answers",
            )
        })?;
    let summary = open + 1;
    if lines.get(summary).map(|l| l.trim()) != Some("<summary>Answers</summary>") {
        return Err(error(
            summary + 1,
            "expected <summary>Answers</summary> after <details>",
        ));
    }
    let close = (summary + 1..end)
        .find(|&n| lines[n].trim() == "</details>")
        .ok_or_else(|| error(open + 1, "the answers' <details> is never closed"))?;
    if let Some(n) = (close + 1..end).find(|&n| !lines[n].trim().is_empty()) {
        return Err(error(
            n + 1,
            "text after the answers: a Check yourself section ends with </details>",
        ));
    }
    // `runner quiz` shows the Markdown as written: a preprocessor's directive (`{{#number ...}}`)
    // would reach the terminal unexpanded.
    if let Some(n) = (start..close).find(|&n| lines[n].contains("{{#")) {
        return Err(error(
            n + 1,
            "a {{#...}} directive in Check yourself: `runner quiz` would show it as written",
        ));
    }
    let asks = numbered_list(&lines, start + 1, open, "question")?;
    let answers = numbered_list(&lines, summary + 1, close, "answer")?;
    if asks.is_empty() {
        return Err(error(start + 1, "Check yourself has no questions"));
    }
    if asks.len() != answers.len() {
        return Err(error(
            open + 1,
            format!("{} questions but {} answers", asks.len(), answers.len()),
        ));
    }
    Ok(Some(
        asks.into_iter()
            .zip(answers)
            .map(|(ask, answer)| Question { ask, answer })
            .collect(),
    ))
}

/// The items of the list `1. ...`, `2. ...` in `lines[from..to]`: each item's first line and the
/// indented lines that continue it, joined; a blank line then indented text is a new paragraph.
fn numbered_list(
    lines: &[&str],
    from: usize,
    to: usize,
    what: &str,
) -> Result<Vec<String>, ParseError> {
    let mut items: Vec<String> = Vec::new();
    let mut blank_before = false;
    for (n, line) in lines.iter().enumerate().take(to).skip(from) {
        if line.trim().is_empty() {
            blank_before = true;
            continue;
        }
        if let Some((number, text)) = item_start(line) {
            if number != items.len() + 1 {
                return Err(error(
                    n + 1,
                    format!(
                        "{what} {number} where {what} {} was expected",
                        items.len() + 1
                    ),
                ));
            }
            items.push(text.trim().to_string());
        } else if line.starts_with(' ') && !items.is_empty() {
            let item = items.last_mut().expect("not empty");
            item.push_str(if blank_before { "\n\n" } else { " " });
            item.push_str(line.trim());
        } else {
            return Err(error(
                n + 1,
                format!("expected a numbered {what} (`1. ...`) or an indented line continuing one"),
            ));
        }
        blank_before = false;
    }
    Ok(items.into_iter().map(|item| plain(&item)).collect())
}

/// `12. text` as (12, "text").
fn item_start(line: &str) -> Option<(usize, &str)> {
    let (digits, rest) = line.split_once(". ")?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, rest))
}

/// Markdown as the terminal should show it: backslash escapes and the common HTML entities
/// undone, and no control characters (an escape sequence in a page is never sent to a terminal).
fn plain(markdown: &str) -> String {
    let mut text = String::with_capacity(markdown.len());
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(|next| next.is_ascii_punctuation()) => {
                text.extend(chars.next());
            }
            '\n' => text.push('\n'),
            c if c.is_control() => text.push(' '),
            c => text.push(c),
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The book of a course: `book/src/` under its root.
pub struct Book {
    pub src: PathBuf,
}

impl Book {
    pub fn of_course(course_root: &Path) -> Book {
        Book {
            src: course_root.join("book").join("src"),
        }
    }

    pub fn exists(&self) -> bool {
        self.src.join("SUMMARY.md").is_file()
    }

    /// Every chapter with a Check yourself section, in the order of the book's table of contents.
    pub fn quizzes(&self) -> anyhow::Result<Vec<Quiz>> {
        let summary_path = self.src.join("SUMMARY.md");
        let summary = std::fs::read_to_string(&summary_path).with_context(|| {
            format!(
                "cannot read {}: `runner quiz` asks the Check yourself questions of the course's \
                 book, which should be in book/src/ beside exercises/",
                summary_path.display()
            )
        })?;
        let mut quizzes = Vec::new();
        for page in chapters_in(&summary) {
            let path = self.src.join(&page);
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let questions = parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            if let Some(questions) = questions {
                quizzes.push(Quiz {
                    chapter: page.trim_end_matches(".md").to_string(),
                    title: title_of(&text).unwrap_or_else(|| page.clone()),
                    questions,
                });
            }
        }
        Ok(quizzes)
    }
}

/// The pages a SUMMARY.md links, in order, each once: `[Title](page.md)`.
fn chapters_in(summary: &str) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    for line in summary.lines() {
        let Some(link) = line
            .split("](")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
        else {
            continue;
        };
        let page = link.split('#').next().unwrap_or(link).to_string();
        if page.ends_with(".md") && !page.contains('/') && !pages.contains(&page) {
            pages.push(page);
        }
    }
    pages
}

fn title_of(page: &str) -> Option<String> {
    page.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| plain(t.trim()))
}

/// `text` wrapped at `width` columns, every line indented by `indent`; paragraphs kept.
pub fn wrap(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    for (n, paragraph) in text.split("\n\n").enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty()
                && indent.len() + line.chars().count() + 1 + word.chars().count() > width
            {
                out.push_str(indent);
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if !line.is_empty() {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> Book {
        Book {
            src: Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src"),
        }
    }

    #[test]
    fn every_chapter_of_the_book_with_check_yourself_parses_question_by_answer() {
        let quizzes = book().quizzes().unwrap();
        // The chapters that end with one today; a chapter that gains one only adds to this.
        for chapter in [
            "how-to-use",
            "first-kernel",
            "coalescing",
            "warps",
            "performance",
            "numba-cpu",
            "cuda-from-python",
            "python-track",
        ] {
            assert!(
                quizzes.iter().any(|q| q.chapter == chapter),
                "{chapter} has no quiz"
            );
        }
        // Every page that has the heading is a quiz: none is skipped by the parser.
        let with_heading = std::fs::read_dir(&book().src)
            .unwrap()
            .filter(|e| {
                std::fs::read_to_string(e.as_ref().unwrap().path())
                    .is_ok_and(|t| t.lines().any(|l| l.trim_end() == HEADING))
            })
            .count();
        assert_eq!(quizzes.len(), with_heading);
        // In the order of the table of contents.
        let position = |name: &str| quizzes.iter().position(|q| q.chapter == name).unwrap();
        assert!(position("how-to-use") < position("coalescing"));
        assert!(position("coalescing") < position("python-track"));
        for quiz in &quizzes {
            for q in &quiz.questions {
                assert!(
                    !q.ask.is_empty() && !q.answer.is_empty(),
                    "{}",
                    quiz.chapter
                );
                assert!(!q.answer.contains("</details>"), "{}", quiz.chapter);
            }
        }
    }

    #[test]
    fn a_real_chapter_reads_as_its_questions_and_answers() {
        let quizzes = book().quizzes().unwrap();
        let coalescing = quizzes.iter().find(|q| q.chapter == "coalescing").unwrap();
        assert_eq!(coalescing.title, "Memory coalescing");
        assert_eq!(coalescing.questions.len(), 4);
        let first = &coalescing.questions[0];
        // The continuation line is joined to its item with one space.
        assert!(
            first
                .ask
                .starts_with("A warp's 32 lanes each read one float. How many sectors does the request touch when lane k reads"),
            "{}",
            first.ask
        );
        assert!(
            first.answer.starts_with("4 (128 aligned bytes), 5"),
            "{}",
            first.answer
        );
        assert!(coalescing.questions[1].answer.starts_with("4 / 16 = 25%"));
    }

    const SECTION: &str = "# Title\n\nText.\n\n## Check yourself\n\n1. Why?\n2. How many\n   lanes?\n\n<details>\n<summary>Answers</summary>\n\n1. Because \\*this\\*.\n2. 32,\n   all.\n\n   A second paragraph.\n\n</details>\n";

    #[test]
    fn items_continue_on_indented_lines_and_paragraphs() {
        let questions = parse(SECTION).unwrap().unwrap();
        assert_eq!(
            questions,
            vec![
                Question {
                    ask: "Why?".into(),
                    answer: "Because *this*.".into()
                },
                Question {
                    ask: "How many lanes?".into(),
                    answer: "32, all.\n\nA second paragraph.".into()
                },
            ]
        );
        assert_eq!(parse("# A page\n\nNo quiz.\n").unwrap(), None);
    }

    #[test]
    fn a_section_in_another_shape_is_refused_with_its_line() {
        let cases = [
            (
                SECTION.replace("2. 32,", "3. 32,"),
                "line 15: answer 3 where answer 2",
            ),
            (
                SECTION.replace("2. How many", "Two, how many"),
                "line 8: expected a numbered question",
            ),
            (
                SECTION.replace("1. Because", "Because"),
                "line 14: expected a numbered answer",
            ),
            (
                SECTION.replace("2. 32,\n   all.", ""),
                "2 questions but 1 answers",
            ),
            (SECTION.replace("</details>", ""), "never closed"),
            (
                SECTION.replace("<summary>Answers</summary>", "Answers"),
                "<summary>Answers</summary>",
            ),
            (format!("{SECTION}\nMore.\n"), "text after the answers"),
            (
                SECTION.replace("1. Why?", "1. Why {{#number a.b}}?"),
                "line 7: a {{#...}} directive",
            ),
        ];
        for (page, says) in cases {
            let err = parse(&page).unwrap_err().to_string();
            assert!(err.contains(says), "{says}: {err}");
        }
    }

    #[test]
    fn the_table_of_contents_gives_the_order_once_each() {
        let summary = "# Summary\n\n[Intro](introduction.md)\n\n- [A](a.md)\n- [B](b.md#part)\n- [A again](a.md)\n";
        assert_eq!(chapters_in(summary), ["introduction.md", "a.md", "b.md"]);
    }

    #[test]
    fn wrapping_keeps_words_whole_and_paragraphs_apart() {
        assert_eq!(
            wrap("one two three\n\nfour", "  ", 11),
            "  one two\n  three\n\n  four\n"
        );
    }
}
