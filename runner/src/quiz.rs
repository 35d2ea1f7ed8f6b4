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
//!
//! An answer that starts with a bold key is checked by `runner quiz`, not marked by the student:
//! `**(b)**` for a question that lists its options as `(a) ... (b) ...`, or `**389**`,
//! `**2.7 ± 0.1**`, `**4, 5, 8, 32**` for one that asks for numbers, in order. A checked answer
//! links the section of its page to reread after a miss (`[Sectors](#sectors)`); the link must
//! name a heading of the page. An answer without a key is shown, not scored.

use anyhow::Context;
use std::path::{Path, PathBuf};

const HEADING: &str = "## Check yourself";

/// One question and the book's answer, as plain text (paragraphs joined, Markdown escapes gone).
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The question; for a multiple-choice one, without its options.
    pub ask: String,
    /// The book's answer, shown after a reply (and for a question the student thinks through).
    pub answer: String,
    /// How the runner checks a reply; `None` for a question the student thinks through.
    pub key: Option<Key>,
    /// The section of the page that teaches the answer.
    pub section: Option<Section>,
}

/// The right answer of a checked question.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// One of the options, by letter: `options[n]` is lettered `a` + n.
    Choice {
        /// The options, in the book's order.
        options: Vec<String>,
        /// The right option's letter.
        right: char,
    },
    /// Numbers, in the order the question asks for them.
    Numbers(Vec<Number>),
}

/// What a reply to a checked question is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judged {
    /// The key's answer (numbers within their tolerance).
    Right,
    /// An answer of the right form, but not the key's.
    Wrong,
    /// Not an answer to this question; what to type instead.
    Unreadable(String),
}

impl Key {
    /// Judges a student's reply: a letter (`b`, `(b)`, `B`) for a choice, numbers in order.
    pub fn judge(&self, reply: &str) -> Judged {
        match self {
            Key::Choice { options, right } => {
                let letter = reply
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches([')', '.'])
                    .to_ascii_lowercase();
                let last = (b'a' + options.len() as u8 - 1) as char;
                match letter.chars().collect::<Vec<_>>().as_slice() {
                    [c] if ('a'..=last).contains(c) => {
                        if c == right {
                            Judged::Right
                        } else {
                            Judged::Wrong
                        }
                    }
                    _ => Judged::Unreadable(format!("Answer with a letter from a to {last}.")),
                }
            }
            Key::Numbers(expected) => {
                let given = numbers_in(reply);
                if given.len() != expected.len() {
                    return Judged::Unreadable(match expected.len() {
                        1 => "Answer with one number.".to_string(),
                        n => format!("Answer with {n} numbers, in the order asked."),
                    });
                }
                let all_close = given
                    .iter()
                    .zip(expected)
                    .all(|(g, e)| (g - e.value).abs() <= e.tolerance);
                if all_close {
                    Judged::Right
                } else {
                    Judged::Wrong
                }
            }
        }
    }

    /// The right answer in a line: `(b) only integer types`, `389`, `4, 5, 8, 32`.
    pub fn display(&self) -> String {
        match self {
            Key::Choice { options, right } => {
                format!("({right}) {}", options[*right as usize - 'a' as usize])
            }
            Key::Numbers(numbers) => numbers
                .iter()
                .map(|n| n.value.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// A number of an answer and how far a reply may be from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number {
    /// The book's value.
    pub value: f64,
    /// How far from it a reply may be and still be right.
    pub tolerance: f64,
}

/// A heading of a chapter's page: its text and the anchor mdBook gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The heading's text, Markdown gone.
    pub title: String,
    /// The id mdBook gives it (`sectors-and-requests`, no `#`), for a link to the section.
    pub anchor: String,
}

/// A chapter's quiz.
#[derive(Clone, Debug)]
pub struct Quiz {
    /// The page's name without `.md`, as the student types it: `coalescing`.
    pub chapter: String,
    /// The page's `# ` heading.
    pub title: String,
    /// Its questions, in the page's order.
    pub questions: Vec<Question>,
}

/// What is wrong with a Check yourself section, and on which line of the page (from 1).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct ParseError {
    /// The page's line (from 1).
    pub line: usize,
    /// What is wrong there and how to write it.
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
    let sections = sections_of(&lines);
    asks.into_iter()
        .zip(answers)
        .map(|(ask, answer)| question(ask, answer, &sections))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A question from its item and its answer's item, with the key and section the answer gives.
fn question(ask: Item, answer: Item, sections: &[Section]) -> Result<Question, ParseError> {
    let (key_text, rest) = match answer.text.strip_prefix("**") {
        Some(after) => {
            let (key, rest) = after.split_once("**").ok_or_else(|| {
                error(
                    answer.line,
                    "an answer's bold key is never closed (`**...**`)",
                )
            })?;
            (Some(key.trim().trim_end_matches('.')), rest)
        }
        None => (None, answer.text.as_str()),
    };
    let section = match link_anchor(rest) {
        Some(anchor) => Some(
            sections
                .iter()
                .find(|s| s.anchor == anchor)
                .cloned()
                .ok_or_else(|| {
                    error(
                        answer.line,
                        format!("the answer links #{anchor}, which is no heading of this page"),
                    )
                })?,
        ),
        None => None,
    };
    let ask_text = plain(&ask.text);
    let Some(key_text) = key_text else {
        return Ok(Question {
            ask: ask_text,
            answer: plain(&answer.text),
            key: None,
            section,
        });
    };
    if section.is_none() {
        return Err(error(
            answer.line,
            "a checked answer links the section to reread after a miss: add [Heading](#anchor)",
        ));
    }
    let (ask, key) = match choice_letter(key_text) {
        Some(right) => {
            let (stem, options) = split_options(&ask_text).ok_or_else(|| {
                error(
                    ask.line,
                    format!("the answer's key is ({right}), but the question lists no options `(a) ... (b) ...`"),
                )
            })?;
            if right as usize - 'a' as usize >= options.len() {
                return Err(error(
                    answer.line,
                    format!(
                        "the key ({right}) is not one of the question's {} options",
                        options.len()
                    ),
                ));
            }
            (stem, Key::Choice { options, right })
        }
        None => {
            let numbers = key_numbers(key_text).ok_or_else(|| {
                error(
                    answer.line,
                    format!(
                        "the bold key {key_text:?} is neither an option such as **(b)** nor \
                         numbers such as **389**, **2.7 ± 0.1** or **4, 5, 8, 32**"
                    ),
                )
            })?;
            (ask_text, Key::Numbers(numbers))
        }
    };
    Ok(Question {
        ask,
        answer: plain(&answer.text),
        key: Some(key),
        section,
    })
}

/// `b` from the key `(b)`.
fn choice_letter(key: &str) -> Option<char> {
    let inner = key.strip_prefix('(')?.strip_suffix(')')?;
    let mut chars = inner.chars();
    let letter = chars.next().filter(|c| c.is_ascii_lowercase())?;
    chars.next().is_none().then_some(letter)
}

/// A multiple-choice question's stem and its options, `(a) ...`, `(b) ...` in order.
fn split_options(ask: &str) -> Option<(String, Vec<String>)> {
    let marker = |letter: char| format!("({letter}) ");
    let first = find_marker(ask, &marker('a'), 0)?;
    let mut starts = vec![first];
    let mut letter = 'b';
    while let Some(at) = find_marker(ask, &marker(letter), starts[starts.len() - 1]) {
        starts.push(at);
        letter = (letter as u8 + 1) as char;
    }
    if starts.len() < 2 {
        return None;
    }
    let options = starts
        .iter()
        .enumerate()
        .map(|(n, &at)| {
            let end = starts.get(n + 1).copied().unwrap_or(ask.len());
            let option = ask[at + 4..end].trim();
            let option = option.strip_suffix(" or").unwrap_or(option);
            option.trim_end_matches([',', ';']).trim().to_string()
        })
        .collect();
    Some((ask[..first].trim().to_string(), options))
}

/// Where `marker` starts in `text` at or after `from`, at the start or after a space.
fn find_marker(text: &str, marker: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = text[at..].find(marker) {
        let pos = at + found;
        if pos == 0 || text[..pos].ends_with(char::is_whitespace) {
            return Some(pos);
        }
        at = pos + marker.len();
    }
    None
}

/// The numbers of a key: `389`, `2.7 ± 0.1`, `4, 5, 8, 32`. A number without `±` must be met
/// exactly (to a part in a million, for decimals).
fn key_numbers(key: &str) -> Option<Vec<Number>> {
    key.split(", ")
        .map(|part| {
            let (value, tolerance) = match part.split_once('±') {
                Some((value, tolerance)) => (value, Some(tolerance)),
                None => (part, None),
            };
            let value = single_number(value)?;
            let tolerance = match tolerance {
                Some(t) => single_number(t)?,
                None => value.abs() * 1e-6,
            };
            Some(Number { value, tolerance })
        })
        .collect()
}

fn single_number(text: &str) -> Option<f64> {
    match numbers_in(text).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The numbers written in a reply, in order: `4, 5, 8 and 32`, `2.7 TB/s`, `270,336`, `1.7e6`,
/// `−3`, `25%`. A comma followed by exactly three digits groups thousands; any other comma
/// separates numbers.
pub fn numbers_in(text: &str) -> Vec<f64> {
    let text = text.replace('−', "-");
    let chars: Vec<char> = text.chars().collect();
    let mut numbers = Vec::new();
    let mut n = 0;
    while n < chars.len() {
        let negative = chars[n] == '-' && chars.get(n + 1).is_some_and(char::is_ascii_digit);
        let starts = chars[n].is_ascii_digit() || negative;
        let after_word =
            n > 0 && (chars[n - 1].is_alphanumeric() || matches!(chars[n - 1], '.' | '_'));
        if !starts || after_word {
            n += 1;
            continue;
        }
        let mut digits = String::new();
        if negative {
            digits.push('-');
            n += 1;
        }
        while n < chars.len() {
            let c = chars[n];
            let grouped = c == ','
                && (1..=3).all(|k| chars.get(n + k).is_some_and(char::is_ascii_digit))
                && !chars.get(n + 4).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() {
                digits.push(c);
            } else if grouped {
                // A thousands separator: skipped.
            } else if c == '.' && chars.get(n + 1).is_some_and(char::is_ascii_digit) {
                digits.push(c);
            } else if (c == 'e' || c == 'E')
                && chars
                    .get(n + 1)
                    .is_some_and(|d| d.is_ascii_digit() || *d == '-' || *d == '+')
            {
                digits.push(c);
                if let Some(sign) = chars.get(n + 1).filter(|d| !d.is_ascii_digit()) {
                    digits.push(*sign);
                    n += 1;
                }
            } else {
                break;
            }
            n += 1;
        }
        if let Ok(value) = digits.parse() {
            numbers.push(value);
        }
    }
    numbers
}

/// The anchor of the first same-page link, `[text](#anchor)`, in an answer's Markdown.
fn link_anchor(markdown: &str) -> Option<&str> {
    let start = markdown.find("](#")? + 3;
    let len = markdown[start..].find(')')?;
    Some(&markdown[start..start + len])
}

/// The headings of a page with the anchors mdBook gives them: a `{#id}` written after the
/// heading, else its text in lower case, spaces as `-`, other punctuation dropped, and `-1`,
/// `-2` after a repeat. Lines inside code fences are code, not headings.
fn sections_of(lines: &[&str]) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if in_fence || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let heading = line[hashes..].trim();
        let (title, anchor) = match heading.rsplit_once("{#") {
            Some((title, id)) if id.ends_with('}') => {
                (title.trim(), id.trim_end_matches('}').to_string())
            }
            _ => {
                let title = plain(heading);
                let base = normalize_id(&title);
                let repeats = sections
                    .iter()
                    .filter(|s| normalize_id(&s.title) == base)
                    .count();
                let anchor = if repeats == 0 {
                    base
                } else {
                    format!("{base}-{repeats}")
                };
                sections.push(Section { title, anchor });
                continue;
            }
        };
        sections.push(Section {
            title: plain(title),
            anchor,
        });
    }
    sections
}

/// mdBook's id for a heading's text.
fn normalize_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// An item of a numbered list: its Markdown, items' lines joined, and its first line (from 1).
struct Item {
    line: usize,
    text: String,
}

/// The items of the list `1. ...`, `2. ...` in `lines[from..to]`: each item's first line and the
/// indented lines that continue it, joined; a blank line then indented text is a new paragraph.
fn numbered_list(
    lines: &[&str],
    from: usize,
    to: usize,
    what: &str,
) -> Result<Vec<Item>, ParseError> {
    let mut items: Vec<Item> = Vec::new();
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
            items.push(Item {
                line: n + 1,
                text: text.trim().to_string(),
            });
        } else if line.starts_with(' ') && !items.is_empty() {
            let item = &mut items.last_mut().expect("not empty").text;
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
    Ok(items)
}

/// `12. text` as (12, "text").
fn item_start(line: &str) -> Option<(usize, &str)> {
    let (digits, rest) = line.split_once(". ")?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, rest))
}

/// Markdown as the terminal should show it: backslash escapes, bold and the common HTML
/// entities undone, a link as its text, and no control characters (an escape sequence in a page
/// is never sent to a terminal).
fn plain(markdown: &str) -> String {
    let markdown = links_as_text(markdown);
    let mut text = String::with_capacity(markdown.len());
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(|next| next.is_ascii_punctuation()) => {
                text.extend(chars.next());
            }
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
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

/// `[text](target)` as `text`.
fn links_as_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let link = after.find("](").and_then(|close| {
            let target = &after[close + 2..];
            target.find(')').map(|end| (close, close + 2 + end + 1))
        });
        match link {
            Some((close, end)) if !after[..close].contains('[') => {
                out.push_str(&rest[..open]);
                out.push_str(&after[..close]);
                rest = &after[end..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The book of a course: `book/src/` under its root.
pub struct Book {
    /// The folder with `SUMMARY.md` and the chapters' pages.
    pub src: PathBuf,
}

impl Book {
    /// The book of the course at `course_root`, whether or not it is there.
    pub fn of_course(course_root: &Path) -> Book {
        Book {
            src: course_root.join("book").join("src"),
        }
    }

    /// Whether the course has its book (a student's copy may have only the exercises).
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
        assert_eq!(coalescing.questions.len(), 5);
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
            first
                .answer
                .starts_with("4, 5, 8, 32: 4 (128 aligned bytes), 5"),
            "{}",
            first.answer
        );
        assert_eq!(
            first.key.as_ref().unwrap().judge("4, 5, 8 and 32"),
            Judged::Right
        );
        assert_eq!(
            first.key.as_ref().unwrap().judge("4, 4, 8 and 32"),
            Judged::Wrong
        );
        assert_eq!(
            first.section.as_ref().unwrap().title,
            "What breaks coalescing"
        );
        assert!(coalescing.questions[1]
            .answer
            .starts_with("25: 4 / 16 = 25%"));
    }

    #[test]
    fn every_quiz_of_the_book_checks_most_of_its_questions() {
        for quiz in book().quizzes().unwrap() {
            let checked = quiz.questions.iter().filter(|q| q.key.is_some()).count();
            assert!(
                2 * checked >= quiz.questions.len(),
                "{}: only {checked} of {} questions are checked",
                quiz.chapter,
                quiz.questions.len()
            );
        }
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
                    answer: "Because *this*.".into(),
                    key: None,
                    section: None,
                },
                Question {
                    ask: "How many lanes?".into(),
                    answer: "32, all.\n\nA second paragraph.".into(),
                    key: None,
                    section: None,
                },
            ]
        );
        assert_eq!(parse("# A page\n\nNo quiz.\n").unwrap(), None);
    }

    const CHECKED: &str = "# Title\n\n## Sectors and requests\n\n```python\n# not a heading\n```\n\n## Check yourself\n\n1. Which?\n   (a) one, (b) two, or\n   (c) three\n2. How many lanes and warps?\n\n<details>\n<summary>Answers</summary>\n\n1. **(b)** Two ([Sectors](#sectors-and-requests)).\n2. **32, 1.5 ± 0.5**. See [the title](#title).\n\n</details>\n";

    #[test]
    fn a_bold_key_makes_a_question_checked_with_its_section() {
        let questions = parse(CHECKED).unwrap().unwrap();
        let choice = &questions[0];
        assert_eq!(choice.ask, "Which?");
        assert_eq!(
            choice.key,
            Some(Key::Choice {
                options: vec!["one".into(), "two".into(), "three".into()],
                right: 'b'
            })
        );
        assert_eq!(choice.answer, "(b) Two (Sectors).");
        assert_eq!(
            choice.section,
            Some(Section {
                title: "Sectors and requests".into(),
                anchor: "sectors-and-requests".into()
            })
        );
        assert_eq!(choice.key.as_ref().unwrap().judge("B"), Judged::Right);
        assert_eq!(choice.key.as_ref().unwrap().judge("(a)"), Judged::Wrong);
        assert!(matches!(
            choice.key.as_ref().unwrap().judge("d"),
            Judged::Unreadable(_)
        ));
        let numbers = questions[1].key.as_ref().unwrap();
        assert_eq!(numbers.judge("32 lanes, 2 warps"), Judged::Right);
        assert_eq!(numbers.judge("32 and 1"), Judged::Right);
        assert_eq!(numbers.judge("32, 2.6"), Judged::Wrong);
        assert_eq!(numbers.judge("31, 1.5"), Judged::Wrong);
        assert!(matches!(numbers.judge("32"), Judged::Unreadable(_)));
        assert_eq!(questions[1].section.as_ref().unwrap().anchor, "title");
    }

    #[test]
    fn a_key_that_cannot_be_checked_is_refused_with_its_line() {
        let cases = [
            (
                CHECKED.replace("**(b)**", "**(d)**"),
                "line 19: the key (d) is not one of the question's 3 options",
            ),
            (
                CHECKED.replace("**(b)**", "**two**"),
                "line 19: the bold key \"two\"",
            ),
            (
                CHECKED.replace("(a) one, (b) two, or", "one, two, or"),
                "line 11: the answer's key is (b), but the question lists no options",
            ),
            (
                CHECKED.replace("(#title)", "(#titel)"),
                "line 20: the answer links #titel, which is no heading",
            ),
            (
                CHECKED.replace(" See [the title](#title).", ""),
                "line 20: a checked answer links the section to reread",
            ),
            (
                CHECKED.replace("0.5**.", "0.5."),
                "line 20: an answer's bold key is never closed",
            ),
        ];
        assert_refused(&cases);
    }

    /// Each page is refused with a message that says the text beside it.
    fn assert_refused(cases: &[(String, &str)]) {
        for (page, says) in cases {
            let err = parse(page).unwrap_err().to_string();
            assert!(err.contains(says), "{says}: {err}");
        }
    }

    #[test]
    fn numbers_are_read_as_a_student_writes_them() {
        assert_eq!(numbers_in("4, 5, 8 and 32"), [4.0, 5.0, 8.0, 32.0]);
        assert_eq!(numbers_in("270,336 threads"), [270336.0]);
        assert_eq!(numbers_in("1,000,000"), [1e6]);
        assert_eq!(numbers_in("4,5,8"), [4.0, 5.0, 8.0]);
        assert_eq!(numbers_in("about 2.7 TB/s"), [2.7]);
        assert_eq!(numbers_in("1.7e6 B, −3 and 25%"), [1.7e6, -3.0, 25.0]);
        // Digits inside a word are not a number: sm_90, float4, x2.
        assert_eq!(numbers_in("sm_90 float4 x2"), Vec::<f64>::new());
    }

    #[test]
    fn headings_get_mdbooks_anchors() {
        let lines = [
            "# The `const` keyword, again!",
            "## Exercise 07: Fix it {#exercise-07}",
            "## Notes",
            "## Notes",
        ];
        let anchors: Vec<String> = sections_of(&lines).into_iter().map(|s| s.anchor).collect();
        assert_eq!(
            anchors,
            ["the-const-keyword-again", "exercise-07", "notes", "notes-1"]
        );
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
        assert_refused(&cases);
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
