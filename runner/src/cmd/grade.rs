//! `runner grade ARGS`: runs the grader, `runner-grade`, with the same ARGS, as cargo runs its
//! external subcommands: found beside the runner's own program (where cargo builds and installs
//! both), else on PATH. Grading's crates (archives, grade books, signals) stay out of the runner
//! a student installs.

use anyhow::{bail, Context};
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The grader's program name.
pub const GRADER: &str = "runner-grade";

/// `runner grade`'s arguments, handed whole to `runner-grade`.
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct GradeArgs {
    /// What `runner-grade` takes (`runner grade --help` shows it).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// The grader beside `exe`, else the first on `path` (a PATH value).
pub fn find_grader(exe: &Path, path: Option<&OsStr>) -> Option<PathBuf> {
    let beside = exe.with_file_name(GRADER);
    let on_path = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(GRADER));
    std::iter::once(beside).chain(on_path).find(|p| p.is_file())
}

/// Replaces this process with the grader, so that signals (Ctrl-C, Slurm's SIGTERM) and the
/// exit code are the grader's own. Colour, decided once by the runner, is passed on.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let Some(grader) = find_grader(&exe, std::env::var_os("PATH").as_deref()) else {
        bail!(
            "`runner grade` runs the grader, {GRADER}, which is neither beside {} nor on PATH: \
             install it with `cargo install --path grade` in the course's repository (or build \
             both with `cargo build --workspace`)",
            exe.display()
        );
    };
    let color = if colored::control::SHOULD_COLORIZE.should_colorize() {
        "always"
    } else {
        "never"
    };
    let err = std::process::Command::new(&grader)
        .args(with_color(&args.args, color))
        .exec();
    Err(err).with_context(|| format!("cannot start the grader {}", grader.display()))
}

/// The user's arguments with `--color=COLOR` after them (before a `--`, where there is one),
/// unless they name a colour themselves. Not in front: `--color` is global in the grader, and
/// given before a subcommand (`bench`, `merge`) it makes clap take the subcommand's name for the
/// submissions folder.
fn with_color(args: &[OsString], color: &str) -> Vec<OsString> {
    let mut all = args.to_vec();
    let given = |a: &OsString| a == "--color" || a.to_string_lossy().starts_with("--color=");
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    if !args[..end].iter().any(given) {
        all.insert(end, format!("--color={color}").into());
    }
    all
}
