//! Progress while a class is graded: a bar with counts and an ETA on a terminal, one plain line
//! per finished cell otherwise (a log file, CI, a Slurm job's output).

use super::results::{CellResult, Status};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Instant;

pub(crate) enum Display {
    Bar {
        bar: ProgressBar,
        counts: BTreeMap<Status, usize>,
    },
    Lines {
        total: usize,
        done: usize,
        started: Instant,
    },
}

impl Display {
    /// `total` cells to run; those already done (resumed) are not counted.
    pub(crate) fn new(total: usize) -> Display {
        if std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb") {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos}/{len} cells  {elapsed} elapsed, ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            Display::Bar {
                bar,
                counts: BTreeMap::new(),
            }
        } else {
            Display::Lines {
                total,
                done: 0,
                started: Instant::now(),
            }
        }
    }

    pub(crate) fn finished(&mut self, cell: &CellResult) {
        match self {
            Display::Bar { bar, counts } => {
                *counts.entry(cell.status).or_default() += 1;
                let summary: Vec<String> = counts
                    .iter()
                    .map(|(s, n)| format!("{n} {}", s.name()))
                    .collect();
                bar.set_message(summary.join(", "));
                bar.inc(1);
            }
            Display::Lines {
                total,
                done,
                started,
            } => {
                *done += 1;
                let width = total.to_string().len();
                let elapsed = started.elapsed().as_secs_f64();
                let eta = elapsed / *done as f64 * (*total - *done) as f64;
                eprintln!(
                    "[{done:>width$}/{total}] {} {} {} {}/{} ({:.1} s; ETA {:.0} s)",
                    cell.submission,
                    cell.exercise,
                    cell.status.name(),
                    cell.points,
                    cell.max_points,
                    cell.seconds,
                    eta
                );
            }
        }
    }

    pub(crate) fn note(&self, line: &str) {
        match self {
            Display::Bar { bar, .. } => bar.println(line),
            Display::Lines { .. } => eprintln!("{line}"),
        }
    }

    pub(crate) fn done(self) {
        if let Display::Bar { bar, .. } = self {
            bar.finish_and_clear();
        }
    }
}
