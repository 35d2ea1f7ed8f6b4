//! `runner quiz [CHAPTER]`: a chapter's Check yourself questions, asked one at a time in the
//! terminal, the book's answer shown after each, the score kept with the student's progress.
//! Without a chapter, the chapters that have a quiz and the last score of each.

use crate::course::Course;
use crate::output;
use crate::progress::{Progress, QuizScore};
use crate::quiz::{wrap, Book, Judged, Key, Quiz, Section};
use crate::session::find_course;
use anyhow::bail;
use colored::Colorize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

/// Questions and answers are wrapped to this many columns.
const WIDTH: usize = 100;

/// Runs `runner quiz`: a chapter's questions one at a time, or the chapters and scores.
pub fn run(chapter: Option<&str>) -> anyhow::Result<ExitCode> {
    output::quiet_when_closed(quiz(chapter))
}

fn quiz(chapter: Option<&str>) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let quizzes = Book::of_course(&course.root).quizzes()?;
    if quizzes.is_empty() {
        bail!("no chapter of the book in book/src/ has a Check yourself section");
    }
    let (progress, warning) = Progress::load(&course.root)?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let Some(name) = chapter else {
        output::print(&listing(&quizzes, &progress.quizzes))?;
        return Ok(ExitCode::SUCCESS);
    };
    let quiz = find(&course, &quizzes, name)?;
    let stdin = std::io::stdin();
    // A terminal shows what the student types; answers piped in are shown as they are read, so
    // the transcript reads the same.
    let echo = !stdin.is_terminal();
    let mut stdout = std::io::stdout();
    let kept = || match progress.quizzes.get(&quiz.chapter) {
        Some(before) => format!(
            "your last score, {} of {}, is kept",
            before.right, before.questions
        ),
        None => "nothing was recorded".to_string(),
    };
    match ask(quiz, &mut stdin.lock(), &mut stdout, echo)? {
        Finished::All {
            right,
            checked,
            reread,
        } => {
            let (score, warning) = Progress::update(&course.root, |p| {
                p.record_quiz(&quiz.chapter, right, checked)
            })?;
            if let Some(warning) = warning {
                eprintln!("{} {warning}", "Warning:".yellow().bold());
            }
            output::print(&closing(quiz, &score, &reread))?;
            Ok(ExitCode::SUCCESS)
        }
        Finished::Quit { answered } => {
            output::print(&format!(
                "Stopped after {answered} of {} questions: the quiz is not finished, and {}.\n",
                quiz.questions.len(),
                kept()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Finished::InputEnded { answered } => {
            bail!(
                "the input ended after {answered} of the {} questions, so the quiz is not finished \
                 and {}. `runner quiz` reads your answers from the terminal: run it in one, \
                 or pipe one line per question (a letter, numbers, or an empty line where the \
                 question is not checked).",
                quiz.questions.len(),
                kept()
            )
        }
    }
}

/// How the questions ended: all asked, the student quit (`q`), or the input ran out first (a
/// pipe, or stdin closed).
#[derive(Debug, PartialEq, Eq)]
enum Finished {
    All {
        right: usize,
        checked: usize,
        reread: Vec<Section>,
    },
    Quit {
        answered: usize,
    },
    InputEnded {
        answered: usize,
    },
}

/// A reply that is not an answer: the student stops, or the input ended.
enum Stop {
    Quit,
    InputEnded,
}

/// Asks every question of `quiz` on `out`, reading the student's replies from `input`: a
/// checked question's reply is judged (a letter, or numbers), and a miss names the section to
/// reread; a question without a key is thought through, and Enter shows the book's answer. `q`
/// quits. With `echo`, each line read is written out after its prompt.
fn ask(
    quiz: &Quiz,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<Finished> {
    let total = quiz.questions.len();
    let checked = quiz.questions.iter().filter(|q| q.key.is_some()).count();
    writeln!(
        out,
        "{} {}, {total} questions, {checked} of them checked.\nType your answer and press Enter; \
         `q` quits.\n",
        "Check yourself:".bold(),
        quiz.title
    )?;
    let mut right = 0;
    let mut reread: Vec<Section> = Vec::new();
    for (n, question) in quiz.questions.iter().enumerate() {
        writeln!(out, "{}", format!("Question {} of {total}", n + 1).bold())?;
        write!(out, "{}", wrap(&question.ask, "  ", WIDTH))?;
        let judged = match &question.key {
            Some(key) => ask_checked(key, input, out, echo),
            None => ask_open(input, out, echo),
        };
        let judged = match judged? {
            Ok(judged) => judged,
            Err(stop) => {
                writeln!(out)?;
                return Ok(match stop {
                    Stop::Quit => Finished::Quit { answered: n },
                    Stop::InputEnded => Finished::InputEnded { answered: n },
                });
            }
        };
        match (judged, &question.key) {
            (Some(true), _) => {
                right += 1;
                writeln!(out, "{}", "Right.".green().bold())?;
            }
            (Some(false), Some(key)) => {
                let verdict = wrap(
                    &format!("Not right: the answer is {}.", key.display()),
                    "",
                    WIDTH,
                );
                let marked = "Not right:".red().bold().to_string();
                write!(out, "{}", verdict.replacen("Not right:", &marked, 1))?;
            }
            _ => {}
        }
        writeln!(out, "{}", "The book's answer:".cyan())?;
        write!(out, "{}", wrap(&question.answer, "  ", WIDTH))?;
        if judged == Some(false) {
            if let Some(section) = &question.section {
                writeln!(
                    out,
                    "{} \"{}\" ({}.md#{}).",
                    "Reread".yellow(),
                    section.title,
                    quiz.chapter,
                    section.anchor
                )?;
                if !reread.contains(section) {
                    reread.push(section.clone());
                }
            }
        }
        writeln!(out)?;
    }
    Ok(Finished::All {
        right,
        checked,
        reread,
    })
}

/// Reads replies to a checked question until one is an answer: `Some(true)` when right.
fn ask_checked(
    key: &Key,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<Result<Option<bool>, Stop>> {
    let prompt = match key {
        Key::Choice { options, .. } => {
            for (n, option) in options.iter().enumerate() {
                let letter = (b'a' + n as u8) as char;
                write!(
                    out,
                    "{}",
                    wrap(&format!("({letter}) {option}"), "    ", WIDTH)
                )?;
            }
            format!(
                "Your answer (a to {}):",
                (b'a' + options.len() as u8 - 1) as char
            )
        }
        Key::Numbers(numbers) if numbers.len() == 1 => "Your answer (a number):".to_string(),
        Key::Numbers(numbers) => format!("Your answer ({} numbers):", numbers.len()),
    };
    loop {
        write!(out, "{} ", prompt.dimmed())?;
        out.flush()?;
        let Some(reply) = read_line(input, out, echo)? else {
            return Ok(Err(Stop::InputEnded));
        };
        if is_quit(&reply) {
            return Ok(Err(Stop::Quit));
        }
        match key.judge(&reply) {
            Judged::Right => return Ok(Ok(Some(true))),
            Judged::Wrong => return Ok(Ok(Some(false))),
            Judged::Unreadable(what) => writeln!(out, "{what} (`q` quits.)")?,
        }
    }
}

/// Waits for Enter on a question that is thought through, not checked.
fn ask_open(
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<Result<Option<bool>, Stop>> {
    write!(
        out,
        "{} ",
        "Not checked: think it through, then press Enter for the book's answer.".dimmed()
    )?;
    out.flush()?;
    match read_line(input, out, echo)? {
        None => Ok(Err(Stop::InputEnded)),
        Some(reply) if is_quit(&reply) => Ok(Err(Stop::Quit)),
        Some(_) => Ok(Ok(None)),
    }
}

fn is_quit(reply: &str) -> bool {
    matches!(reply.trim().to_ascii_lowercase().as_str(), "q" | "quit")
}

/// One line of input without its line ending, or `None` at the end of the input.
fn read_line(
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let line = line.trim_end_matches(['\n', '\r']).to_string();
    if echo {
        let shown: String = line.chars().filter(|c| !c.is_control()).collect();
        writeln!(out, "{shown}")?;
    }
    Ok(Some(line))
}

fn closing(quiz: &Quiz, score: &QuizScore, reread: &[Section]) -> String {
    let mut text = format!(
        "{} {} of {} checked questions right, for {}",
        "Score:".bold(),
        score.right,
        score.questions,
        quiz.title
    );
    if score.best > score.right {
        text.push_str(&format!(
            " (your best: {} of {})",
            score.best, score.questions
        ));
    }
    text.push_str(".\n");
    let mut next = "Saved with your progress: `runner list` shows it".to_string();
    if !reread.is_empty() {
        let titles: Vec<String> = reread.iter().map(|s| format!("\"{}\"", s.title)).collect();
        next.push_str(&format!(
            "; reread {} in {}.md, and take the quiz again with `runner quiz {}`",
            titles.join(", "),
            quiz.chapter,
            quiz.chapter
        ));
    }
    next.push('.');
    text + &wrap(&next, "", WIDTH)
}

/// The quiz a student named: a chapter (`coalescing`, `coalescing.md`, any case) or an exercise
/// (`13`, `py03`), which names its chapter.
fn find<'q>(course: &Course, quizzes: &'q [Quiz], name: &str) -> anyhow::Result<&'q Quiz> {
    let wanted = name.trim().trim_end_matches(".md").to_ascii_lowercase();
    if let Some(quiz) = quizzes.iter().find(|q| q.chapter == wanted) {
        return Ok(quiz);
    }
    let exercise = course.exercise(name).ok();
    let chapter = exercise.map(|e| e.chapter.trim_end_matches(".md"));
    if let Some(quiz) = chapter.and_then(|c| quizzes.iter().find(|q| q.chapter == c)) {
        return Ok(quiz);
    }
    let names: Vec<&str> = quizzes.iter().map(|q| q.chapter.as_str()).collect();
    bail!(
        "there is no chapter {name:?} with a Check yourself quiz; the chapters with one are {}. \
         (An exercise's id, such as 13, names its chapter too.)",
        names.join(", ")
    )
}

/// Every chapter with a quiz, its number of questions and the last score.
fn listing(quizzes: &[Quiz], scores: &BTreeMap<String, QuizScore>) -> String {
    let name_width = quizzes.iter().map(|q| q.chapter.len()).max().unwrap_or(0);
    let title_width = quizzes
        .iter()
        .map(|q| q.title.chars().count())
        .max()
        .unwrap_or(0);
    let mut text =
        String::from("The chapters' Check yourself questions (`runner quiz CHAPTER` asks them):\n");
    for quiz in quizzes {
        let last = match scores.get(&quiz.chapter) {
            Some(score) => format!("last {} of {}", score.right, score.questions)
                .green()
                .to_string(),
            None => "not taken".yellow().to_string(),
        };
        let checked = quiz.questions.iter().filter(|q| q.key.is_some()).count();
        let _ = writeln!(
            text,
            "  {}  {:<title_width$}  {:>2} questions, {:>2} checked  {last}",
            format!("{:<name_width$}", quiz.chapter).bold(),
            quiz.title,
            quiz.questions.len(),
            checked,
        );
    }
    let taken = quizzes
        .iter()
        .filter(|q| scores.contains_key(&q.chapter))
        .count();
    let _ = writeln!(text, "\nTaken: {taken} of {} chapters.", quizzes.len());
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quiz::{Number, Question};

    fn section(title: &str) -> Option<Section> {
        Some(Section {
            title: title.into(),
            anchor: title.to_ascii_lowercase(),
        })
    }

    fn quiz() -> Quiz {
        Quiz {
            chapter: "warps".into(),
            title: "Warps".into(),
            questions: vec![
                Question {
                    ask: "Which lane holds the sum?".into(),
                    answer: "(a) Lane 0.".into(),
                    key: Some(Key::Choice {
                        options: vec!["lane 0".into(), "lane 31".into(), "every lane".into()],
                        right: 'a',
                    }),
                    section: section("Shuffles"),
                },
                Question {
                    ask: "How many warps in 100 threads?".into(),
                    answer: "4. Rounded up.".into(),
                    key: Some(Key::Numbers(vec![Number {
                        value: 4.0,
                        tolerance: 0.0,
                    }])),
                    section: section("Warps"),
                },
                Question {
                    ask: "Why?".into(),
                    answer: "Because.".into(),
                    key: None,
                    section: None,
                },
            ],
        }
    }

    fn answer(input: &str) -> (Finished, String) {
        colored::control::set_override(false);
        let mut out = Vec::new();
        let finished = ask(&quiz(), &mut input.as_bytes(), &mut out, true).unwrap();
        (finished, String::from_utf8(out).unwrap())
    }

    #[test]
    fn replies_are_judged_and_a_miss_names_its_section() {
        let (finished, out) = answer("a\n5\n\n");
        assert_eq!(
            finished,
            Finished::All {
                right: 1,
                checked: 2,
                reread: vec![section("Warps").unwrap()],
            }
        );
        let order = [
            "Which lane holds the sum?",
            "(b) lane 31",
            "Your answer (a to c): a\n",
            "Right.",
            "(a) Lane 0.",
            "How many warps",
            "Not right: the answer is 4.",
            "Reread \"Warps\" (warps.md#warps).",
            "Not checked",
            "Because.",
        ];
        let mut at = 0;
        for s in order {
            at += out[at..]
                .find(s)
                .unwrap_or_else(|| panic!("{s:?} after {at}: {out}"));
        }
        // The right choice names no section to reread.
        assert!(!out.contains("Reread \"Shuffles\""), "{out}");
    }

    #[test]
    fn a_reply_that_is_no_answer_is_asked_again_not_scored() {
        let (finished, out) = answer("lane 0\n(A)\nfour\n4 warps\n\n");
        assert!(out.contains("Answer with a letter from a to c."), "{out}");
        assert!(out.contains("Answer with one number."), "{out}");
        assert_eq!(
            finished,
            Finished::All {
                right: 2,
                checked: 2,
                reread: vec![]
            }
        );
    }

    #[test]
    fn q_quits_and_the_end_of_the_input_stops_the_quiz_wherever_it_comes() {
        assert_eq!(answer("").0, Finished::InputEnded { answered: 0 });
        assert_eq!(answer("x\n").0, Finished::InputEnded { answered: 0 });
        assert_eq!(answer("b\n4\n").0, Finished::InputEnded { answered: 2 });
        assert_eq!(answer("q\n").0, Finished::Quit { answered: 0 });
        assert_eq!(answer("b\nQ\n").0, Finished::Quit { answered: 1 });
        assert_eq!(answer("a\n4\nq\n").0, Finished::Quit { answered: 2 });
        assert!(matches!(
            answer("c\r\n4\r\n\r\n").0,
            Finished::All { right: 1, .. }
        ));
    }

    #[test]
    fn the_closing_names_every_section_missed() {
        colored::control::set_override(false);
        let score = QuizScore {
            right: 0,
            questions: 2,
            best: 1,
            at: 0,
        };
        let text = closing(
            &quiz(),
            &score,
            &[section("Shuffles").unwrap(), section("Warps").unwrap()],
        );
        assert!(
            text.contains("Score: 0 of 2 checked questions right, for Warps (your best: 1 of 2)."),
            "{text}"
        );
        assert!(
            text.contains("reread \"Shuffles\", \"Warps\" in warps.md"),
            "{text}"
        );
    }

    #[test]
    fn the_listing_shows_every_chapter_and_its_last_score() {
        colored::control::set_override(false);
        let mut scores = BTreeMap::new();
        scores.insert(
            "warps".to_string(),
            QuizScore {
                right: 1,
                questions: 2,
                best: 2,
                at: 0,
            },
        );
        let mut other = quiz();
        other.chapter = "atomics".into();
        other.title = "Atomics".into();
        let text = listing(&[other, quiz()], &scores);
        assert!(
            text.contains("atomics  Atomics   3 questions,  2 checked  not taken"),
            "{text}"
        );
        assert!(
            text.contains("warps    Warps     3 questions,  2 checked  last 1 of 2"),
            "{text}"
        );
        assert!(text.contains("Taken: 1 of 2 chapters."), "{text}");
    }
}
