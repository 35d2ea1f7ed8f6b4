//! `runner quiz [CHAPTER]`: a chapter's Check yourself questions, asked one at a time in the
//! terminal, the book's answer shown after each, the score kept with the student's progress.
//! Without a chapter, the chapters that have a quiz and the last score of each.

use crate::course::Course;
use crate::output;
use crate::progress::{Progress, QuizScore};
use crate::quiz::{wrap, Book, Quiz};
use crate::session::find_course;
use anyhow::bail;
use colored::Colorize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

/// Questions and answers are wrapped to this many columns.
const WIDTH: usize = 100;

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
    match ask(quiz, &mut stdin.lock(), &mut stdout, echo)? {
        Finished::All { right } => {
            let (score, warning) = Progress::update(&course.root, |p| {
                p.record_quiz(&quiz.chapter, right, quiz.questions.len())
            })?;
            if let Some(warning) = warning {
                eprintln!("{} {warning}", "Warning:".yellow().bold());
            }
            output::print(&closing(quiz, &score))?;
            Ok(ExitCode::SUCCESS)
        }
        Finished::InputEnded { answered } => {
            let kept = match progress.quizzes.get(&quiz.chapter) {
                Some(before) => format!(
                    "your last score, {} of {}, is kept",
                    before.right, before.questions
                ),
                None => "nothing was recorded".to_string(),
            };
            bail!(
                "the input ended after {answered} of the {} questions, so the quiz is not finished \
                 and {kept}. `runner quiz` reads your answers from the terminal: run it in one, \
                 or pipe two lines per question (your answer, then y or n).",
                quiz.questions.len()
            )
        }
    }
}

/// How the questions ended: all asked, or the input ran out first (a pipe, or stdin closed).
#[derive(Debug, PartialEq, Eq)]
enum Finished {
    All { right: usize },
    InputEnded { answered: usize },
}

/// Asks every question of `quiz` on `out`, reading the student's lines from `input`: an answer
/// (or just Enter, for one thought through), then whether the book's answer matched it. With
/// `echo`, each line read is written out after its prompt.
fn ask(
    quiz: &Quiz,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<Finished> {
    let total = quiz.questions.len();
    writeln!(
        out,
        "{} {}, {total} questions.\nThink of an answer, or type one, and press Enter to see the \
         book's. Then say whether you had it.\n",
        "Check yourself:".bold(),
        quiz.title
    )?;
    let mut right = 0;
    for (n, question) in quiz.questions.iter().enumerate() {
        writeln!(out, "{}", format!("Question {} of {total}", n + 1).bold())?;
        write!(out, "{}", wrap(&question.ask, "  ", WIDTH))?;
        write!(out, "{} ", "Your answer:".dimmed())?;
        out.flush()?;
        if read_line(input, out, echo)?.is_none() {
            writeln!(out)?;
            return Ok(Finished::InputEnded { answered: n });
        }
        writeln!(out, "{}", "The book's answer:".cyan())?;
        write!(out, "{}", wrap(&question.answer, "  ", WIDTH))?;
        loop {
            write!(out, "Did you have it? [y/n] ")?;
            out.flush()?;
            let Some(reply) = read_line(input, out, echo)? else {
                writeln!(out)?;
                return Ok(Finished::InputEnded { answered: n });
            };
            match reply.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => {
                    right += 1;
                    break;
                }
                "n" | "no" => break,
                _ => writeln!(out, "Please answer y or n.")?,
            }
        }
        writeln!(out)?;
    }
    Ok(Finished::All { right })
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

fn closing(quiz: &Quiz, score: &QuizScore) -> String {
    let mut text = format!(
        "{} {} of {} for {}",
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
    if score.right < score.questions {
        next.push_str(&format!(
            "; read the chapter again where you missed, and take the quiz again with `runner quiz {}`",
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
        let _ = writeln!(
            text,
            "  {}  {:<title_width$}  {:>2} questions  {last}",
            format!("{:<name_width$}", quiz.chapter).bold(),
            quiz.title,
            quiz.questions.len(),
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
    use crate::quiz::Question;

    fn quiz() -> Quiz {
        Quiz {
            chapter: "warps".into(),
            title: "Warps".into(),
            questions: vec![
                Question {
                    ask: "Which lane?".into(),
                    answer: "Lane 0.".into(),
                },
                Question {
                    ask: "How many?".into(),
                    answer: "One.".into(),
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
    fn each_question_then_its_answer_then_the_verdict() {
        let (finished, out) = answer("lane 0\ny\n\nwhat\nno\n");
        assert_eq!(finished, Finished::All { right: 1 });
        let order = [
            "Which lane?",
            "Lane 0.",
            "Did you have it?",
            "How many?",
            "One.",
        ];
        let at: Vec<usize> = order.iter().map(|s| out.find(s).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{out}");
        assert!(out.contains("Please answer y or n."), "{out}");
        // Piped answers are shown after their prompts.
        assert!(out.contains("Your answer: lane 0\n"), "{out}");
    }

    #[test]
    fn the_end_of_the_input_stops_the_quiz_wherever_it_comes() {
        assert_eq!(answer("").0, Finished::InputEnded { answered: 0 });
        assert_eq!(answer("x\n").0, Finished::InputEnded { answered: 0 });
        assert_eq!(answer("x\nY\nx\n").0, Finished::InputEnded { answered: 1 });
        assert_eq!(answer("x\nYes\n\r\nn\r\n").0, Finished::All { right: 1 });
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
            text.contains("atomics  Atomics   2 questions  not taken"),
            "{text}"
        );
        assert!(
            text.contains("warps    Warps     2 questions  last 1 of 2"),
            "{text}"
        );
        assert!(text.contains("Taken: 1 of 2 chapters."), "{text}");
    }
}
