//! `runner list`: the exercises and the student's progress.

use crate::progress::Progress;
use crate::session::find_course;
use colored::Colorize;
use serde::Serialize;
use std::process::ExitCode;

#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    name: &'a str,
    title: &'a str,
    points: u32,
    file: String,
    done: bool,
}

pub fn run(json: bool) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let (progress, warning) = Progress::load(&course.root)?;
    if let Some(warning) = warning {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let rows: Vec<Row> = course
        .exercises
        .iter()
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
        let out = serde_json::json!({ "exercises": rows, "done": done, "total": rows.len() });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    for row in &rows {
        let state = if row.done {
            "done   ".green()
        } else {
            "pending".yellow()
        };
        println!(
            "{}  {state}  {:<52} {}",
            row.id.bold(),
            row.title,
            row.file.dimmed()
        );
    }
    println!("\nProgress: {done}/{} exercises done.", rows.len());
    if let Some(next) = rows.iter().find(|r| !r.done) {
        println!("Next: runner check {}", next.id);
    }
    Ok(ExitCode::SUCCESS)
}
