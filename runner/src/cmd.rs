//! One module per verb, each with its own arguments; this one lists the verbs and dispatches.

pub mod bench;
pub mod check;
pub mod dev;
pub mod doctor;
pub mod grade;
pub mod hint;
pub mod list;
pub mod quiz;
pub mod reset;
pub mod run;
pub mod serve;
pub mod sim;
pub mod watch;

use crate::backend::BackendArgs;
use check::CheckArgs;
use clap::Subcommand;
use std::process::ExitCode;

/// `runner`'s verbs (clap reads their doc comments as --help).
#[derive(Subcommand)]
pub enum Command {
    /// List the exercises, which are done, and your progress.
    List {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compile, run, verify and time an exercise, and explain what went wrong.
    Check(CheckArgs),
    /// Show the next hint for an exercise; each call shows one more.
    Hint {
        /// The exercise, by id (02, py01).
        id: String,
    },
    /// Restore an exercise's original file; your version is kept as a backup beside it.
    Reset {
        /// The exercise, by id (02, py01).
        id: String,
    },
    /// Ask a chapter's Check yourself questions one at a time, show the book's answer after each,
    /// and keep your score with your progress; without a chapter, list the chapters and scores.
    Quiz {
        /// The chapter, as its page is named (`coalescing`), or an exercise's id for its chapter.
        chapter: Option<String>,
    },
    /// Check the current exercise again every time its file is saved.
    Watch {
        /// The exercise to watch; by default the first one not done.
        id: Option<String>,
        /// Check when Enter is pressed instead of on file events (for file systems that send none).
        #[arg(long)]
        manual_run: bool,
        /// Measure instead of watching: the first check and N checks after a save, each in a
        /// process of its own and through the worker, on a copy of the exercise's solution.
        #[arg(long, hide = true, value_name = "N")]
        bench: Option<usize>,
        /// Where the checks run (--backend).
        #[command(flatten)]
        backend: BackendArgs,
    },
    /// The worker behind `watch` and `grade`: answers check requests on stdin, one JSON reply
    /// each on a descriptor of its own (`contract::worker`).
    #[command(name = "__serve", hide = true)]
    Serve(serve::ServeArgs),
    /// Show what this machine has: GPU, driver, NVRTC, and whether they work together.
    Doctor,
    /// Time the reference solutions on the GPU against the device's measured ceilings.
    Bench(bench::BenchArgs),
    /// Run any kernel file in the simulator and print its memory figures.
    Sim(sim::SimArgs),
    /// Run a whole host program (`runner run -- ./my_program args`) on the simulator's CUDA
    /// driver, then sum up its calls, copies, launches and modelled timeline.
    Run(run::RunArgs),
    /// Grade a class of submissions, each check in its own process, into a CSV grade book, JSON,
    /// JUnit, Gradescope results and an HTML report; `grade merge` joins shards. Runs the
    /// grader, `runner-grade`, installed beside the runner.
    Grade(grade::GradeArgs),
    /// Tools for course authors.
    #[command(subcommand)]
    Dev(DevCommand),
}

/// The course authors' verbs (`runner dev ...`).
#[derive(Subcommand)]
pub enum DevCommand {
    /// Check every exercise (or those named): metadata, hints, a check, a passing solution, a
    /// pristine file that does not pass, and a solution that only adds lines.
    Check {
        /// Exercises to check (ids such as 02 or py01); all of them when none is named.
        ids: Vec<String>,
        /// Where the checks run (--backend).
        #[command(flatten)]
        backend: BackendArgs,
    },
}

/// Runs the verb `command` names to its end.
pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::List { json } => list::run(json),
        Command::Check(args) => check::run(args),
        Command::Hint { id } => hint::run(&id),
        Command::Reset { id } => reset::run(&id),
        Command::Quiz { chapter } => quiz::run(chapter.as_deref()),
        Command::Watch {
            id,
            bench: Some(times),
            backend,
            ..
        } => watch::bench(id, times, backend.backend),
        Command::Watch {
            id,
            manual_run,
            bench: None,
            backend,
        } => watch::run(id, manual_run, backend.backend),
        Command::Serve(args) => serve::run(args),
        Command::Doctor => doctor::run(),
        Command::Bench(args) => bench::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Run(args) => run::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Dev(DevCommand::Check { ids, backend }) => dev::check(&ids, backend.backend),
    }
}
