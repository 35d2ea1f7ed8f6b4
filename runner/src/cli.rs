//! The command line, as clap derive types; each verb's doc comment is its help text.

use crate::style::ColorChoice;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "runner",
    version,
    about = "Check, time and explain the course's CUDA exercises, on a GPU or in the simulator"
)]
pub struct Cli {
    /// Colour the output: auto (when a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// A real NVIDIA GPU.
    Gpu,
    /// The PTX simulator: no GPU needed, and it measures coalescing and bank conflicts.
    Sim,
}

#[derive(clap::Args, Clone)]
pub struct BackendArgs {
    /// Where kernels run; by default the GPU when one works, else the simulator.
    #[arg(long, value_enum, env = "RUNNER_BACKEND")]
    pub backend: Option<BackendChoice>,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The exercise id, e.g. 03.
    pub id: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write the report as one JSON object to this file instead of printing it: stdout then
    /// carries only what the program or kernel printed (for scripts and graders).
    #[arg(long, value_name = "PATH", conflicts_with = "json")]
    pub json_to: Option<PathBuf>,
    /// The report's JSON goes to this open file: how a grader's sandbox hands the check a file
    /// the student's code cannot name (see `runner-grade`'s sandbox). Not on the command line.
    #[arg(skip)]
    pub json_file: Option<std::fs::File>,
    /// Seed of the random test inputs.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Extra problem sizes to test, beyond the exercise's own (e.g. an instructor's hidden cases),
    /// from 1 to 1048576.
    #[arg(long, value_delimiter = ',', value_parser = checks::parse_extra_size)]
    pub sizes: Vec<usize>,
    /// Check this kernel file instead of the exercise's own (e.g. a copy you are trying out).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Write every case's outputs as raw files under this folder (to compare backends).
    #[arg(long, hide = true)]
    pub save_outputs: Option<PathBuf>,
    /// For a host exercise in Rust: run this program, already built from the file, instead of
    /// building it (on a machine without Rust, such as a GPU server).
    #[arg(long)]
    pub program: Option<PathBuf>,
    #[command(flatten)]
    pub backend: BackendArgs,
}

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
    Hint { id: String },
    /// Restore an exercise's original file; your version is kept as a backup beside it.
    Reset { id: String },
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
        #[command(flatten)]
        backend: BackendArgs,
    },
    /// The worker behind `watch`: answers check requests on stdin, one JSON report each.
    #[command(name = "__serve", hide = true)]
    Serve {
        #[command(flatten)]
        backend: BackendArgs,
        /// Say `ready` (after the reply marker) once the backend is open (`runner grade` asks).
        #[arg(long)]
        announce: bool,
    },
    /// Show what this machine has: GPU, driver, NVRTC, and whether they work together.
    Doctor,
    /// Time the reference solutions on the GPU against the device's measured ceilings.
    Bench(crate::cmd::bench::BenchArgs),
    /// Run any kernel file in the simulator and print its memory figures.
    Sim(crate::cmd::sim::SimArgs),
    /// Run a whole host program (`runner run -- ./my_program args`) on the simulator's CUDA
    /// driver, then sum up its calls, copies, launches and modelled timeline.
    Run(crate::cmd::run::RunArgs),
    /// Grade a class of submissions, each check in its own process, into a CSV grade book, JSON,
    /// JUnit, Gradescope results and an HTML report; `grade merge` joins shards. Runs the
    /// grader, `runner-grade`, installed beside the runner.
    Grade(crate::cmd::grade::GradeArgs),
    /// Tools for course authors.
    #[command(subcommand)]
    Dev(DevCommand),
}

#[derive(Subcommand)]
pub enum DevCommand {
    /// Check every exercise (or those named): metadata, hints, a check, a passing solution, a
    /// pristine file that does not pass, and a solution that only adds lines.
    Check {
        /// Exercises to check (ids such as 02 or py01); all of them when none is named.
        ids: Vec<String>,
        #[command(flatten)]
        backend: BackendArgs,
    },
}
